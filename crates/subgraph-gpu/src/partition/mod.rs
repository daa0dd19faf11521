//! SGSI's partitioned data graph (SGSI §6.1, Figs. 11–12; `../shared/papers/gsi-sgsi.md`
//! §6.1–6.2): the layout the engine takes where the data graph's structures do not fit the
//! device (`--gpu-partitions`, `--gpu-memory`). The graph stays in host memory, in pieces the
//! device reads one at a time:
//! - the signature table in vertex segments (multiples of 32 vertices), each filtered on its
//!   own into the candidate bitsets: the union over segments. SGSI's vertical buckets are not
//!   needed: our table has 16 words a vertex, and a segment of 32 vertices (2 KiB) fits any
//!   budget that holds a query;
//! - every PCSR (edge label, direction) in edge-oriented segments: its lists cut into segments
//!   of equal bytes, each a small PCSR of its pieces N_x(v, l), so that a long list spans
//!   consecutive segments as sorted sub-ranges.
//!
//! Both are ordered by vertex label first (SGSI orders by vertex id): vertices by (label, id),
//! lists by their source's (label, id). Every candidate of a query vertex has its label, so a
//! query reads the table segments of its labels alone and, for a link, the PCSR segments
//! holding sources of that label: on a graph of 256 labels, a few hundredths of the graph
//! rather than all of it. A table segment's vertices are then not consecutive ids: it carries
//! their ids, and its bits are set one by one (`filter.cu`).
//!
//! A query reads its segments twice or more: in FSIG's refinement (each round ORs, over the
//! segments, the query edges each candidate's lists satisfy: `refine_seen`), and in building
//! FSIG's auxiliary structure A ([`crate::fsig`]): each plan link's lists gather their pieces
//! segment by segment, in segment order (SGSI Alg. 4's per-row flags become a per-key cursor).
//! The join then runs in core over A, whose lists are already within the linked candidates:
//! SGSI re-reads a link's segments at every level (Alg. 4 and 5), where this reads them in a
//! fixed number of passes per query. The segments that fit within [`RESIDENT_SHARE`] of the
//! budget stay on the device; the others are copied for each pass that reads them and freed
//! after. With the pipeline on (`--gpu-pipeline`, SGSI §6.2's two streams), the next segment a
//! pass reads is copied on a second stream while the kernels read the one before it: double
//! buffering, two segments in flight at most.

pub mod park;

use std::cell::{Cell, RefCell};
use std::ops::{ControlFlow, Range};

use rayon::prelude::*;
use subgraph_core::{Dir, Graph};
use subgraph_cuda::{pipelined, Arriving, DeviceBuffer, Gpu, HostBuffer, HostSource, Lane};

use crate::error::Result;
use crate::gsi::filter::{Rows, TableSegment};
use crate::gsi::pcsr::{label_lists, ColumnOrder, Pcsr, GROUP_WORDS};
use crate::gsi::signature::{SignatureTable, WORDS};
use crate::shared::report::Streamed;
use crate::shared::slices::DeviceStructure;

/// Share of the budget the in-core layout may take under [`Partitions::Auto`]: the rest is for
/// the queries' candidates, tables and buffers.
///
/// [`Partitions::Auto`]: crate::options::Partitions::Auto
pub const AUTO_SHARE: f64 = 0.75;

/// Share of the budget the partitioned graph's resident segments may take.
pub const RESIDENT_SHARE: f64 = 0.5;

/// Bounds of the default segment size (1/64 of the budget). Each segment a pass reads costs
/// its own set-up and launches, and smaller segments hold fewer lists of other labels: on the
/// 10^8-edge R-MAT graph of 256 labels (H100, bench/results/2026-11-27-pipeline.md, call 4), at
/// an eighth of the in-core peak 4 MiB segments took 8-vertex queries 1.4× their in-core time
/// where 320 KiB ones (1/1024 of the budget) took 2.0–2.8×, and at half the peak 16 MiB ones
/// copied 2.4× the bytes of 4 MiB ones and were slower.
pub const SEGMENT_BYTES: std::ops::RangeInclusive<u64> = (4 << 10)..=(4 << 20);

/// Most bytes of page-locked host memory a partitioned graph's copies take (the segments not
/// resident, up to this, are copied to the device by DMA from it).
pub const PINNED_BYTES: u64 = 16 << 30;

/// Device bytes of the in-core layout of `data`: vertex labels, every PCSR (128 bytes a key, 4
/// an edge) and, where the device filters, the signature table.
/// Counted from the adjacency in one parallel pass, without building the lists: a key is a
/// vertex's run of neighbour groups of one edge label in one direction.
pub fn in_core_bytes(data: &Graph, signatures: bool) -> u64 {
    let n = data.num_vertices() as u64;
    let dirs: &[Dir] = if data.is_directed() { &[Dir::Out, Dir::In] } else { &[Dir::Out] };
    let pcsr: u64 = (0..data.num_vertices() as u32)
        .into_par_iter()
        .map(|v| {
            let mut bytes = 0;
            for &dir in dirs {
                let mut label = None;
                for (pair, nbrs) in data.neighbor_groups(v, dir) {
                    let l = data.pair(pair).0;
                    if label != Some(l) {
                        bytes += 4 * GROUP_WORDS as u64;
                        label = Some(l);
                    }
                    bytes += 4 * nbrs.len() as u64;
                }
            }
            bytes
        })
        .sum();
    4 * n + pcsr + if signatures { 4 * WORDS as u64 * n } else { 0 }
}

/// The segment size for a device budget of `budget` bytes: 1/64 of it, within
/// [`SEGMENT_BYTES`].
pub fn segment_bytes(budget: u64) -> u64 {
    (budget / 64).clamp(*SEGMENT_BYTES.start(), *SEGMENT_BYTES.end())
}

/// A vertex as the segments order them: (label, id).
pub type Key = (u32, u32);

/// One edge-oriented segment: pieces of one PCSR's lists, as a small PCSR of its own.
pub struct Segment {
    /// The structure (PCSR index of the in-core layout) its edges belong to.
    pub st: u32,
    /// Its first and last source, by (label, id).
    pub first: Key,
    pub last: Key,
    pub pcsr: Pcsr,
}

impl Segment {
    fn bytes(&self) -> u64 {
        self.pcsr.memory_bytes()
    }

    /// Its PCSR's arrays as copied, named: the groups, then the columns.
    fn parts(&self) -> [(&'static str, &[u32]); 2] {
        [("PCSR segment groups", self.pcsr.groups()), ("PCSR segment columns", self.pcsr.columns())]
    }

    /// The range of `vertices` (ascending ids, of label `label`) that have a piece here: those
    /// between its first and last source.
    pub fn held(&self, label: u32, vertices: &[u32]) -> Range<usize> {
        vertices.partition_point(|&v| (label, v) < self.first)..vertices.partition_point(|&v| (label, v) <= self.last)
    }

    /// Whether a source of a label in `labels` may have a piece here.
    pub fn holds_label(&self, labels: &[u32]) -> bool {
        labels.iter().any(|&l| (self.first.0..=self.last.0).contains(&l))
    }
}

/// The pieces of each list of `lists` (one PCSR's) in segments of at most `bytes` bytes each
/// (128 a key, 4 an edge; a segment has at least one edge): for each segment, its (key,
/// piece) pairs, in the order of `lists`.
pub fn cut<'g>(lists: &[(u32, &'g [u32])], bytes: u64) -> Vec<Vec<(u32, &'g [u32])>> {
    let key = 4 * GROUP_WORDS as u64;
    let mut out = Vec::new();
    let mut cur: Vec<(u32, &[u32])> = Vec::new();
    let mut used = 0u64;
    for &(v, list) in lists {
        let mut rest = list;
        while !rest.is_empty() {
            let room = bytes.saturating_sub(used + key) / 4;
            if room == 0 && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
                used = 0;
                continue;
            }
            let take = (room.max(1) as usize).min(rest.len());
            cur.push((v, &rest[..take]));
            used += key + 4 * take as u64;
            rest = &rest[take..];
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// One vertex segment of the signature table, of consecutive vertices in (label, id) order:
/// the labels of its first and last, its vertices' ids, their signatures column-major, and
/// their device copies where they stay resident.
struct VertexSegment {
    labels: (u32, u32),
    ids: Vec<u32>,
    words: Vec<u32>,
    resident: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>)>,
    /// Where not resident: a page-locked copy (words, then ids), while [`PINNED_BYTES`] allow.
    pinned: Option<HostBuffer>,
}

impl VertexSegment {
    fn bytes(&self) -> u64 {
        4 * (self.ids.len() + self.words.len()) as u64
    }

    /// Its arrays as copied, named: the signatures, then the ids.
    fn parts(&self) -> [(&'static str, &[u32]); 2] {
        [("signature table segment", &self.words), ("signature segment vertices", &self.ids)]
    }

    /// Starts its copy on `lane`, from its page-locked copy where it has one.
    fn copy(&self, gpu: &Gpu, lane: Lane) -> Result<Arriving<2>> {
        upload_parts(gpu, lane, self.pinned.as_ref(), self.parts())
    }
}

/// Device copies of `parts` (a segment's arrays, named) on `lane`: from `pinned`, their
/// page-locked copy one after another ([`PartitionedGraph::pin`]), where there is one, else
/// from pageable memory.
fn upload_parts<'h, const K: usize>(
    gpu: &Gpu,
    lane: Lane,
    pinned: Option<&'h HostBuffer>,
    parts: [(&'static str, &'h [u32]); K],
) -> Result<Arriving<K>> {
    let mut at = 0;
    let sources = parts.map(|(what, part)| {
        let src = match pinned {
            Some(h) => HostSource::Pinned(h, std::iter::once(at..at + part.len()).collect()),
            None => HostSource::Pageable(part),
        };
        at += part.len();
        (what, src)
    });
    Ok(gpu.upload_parts(lane, sources)?)
}

/// The data graph in host memory, in segments, with the ones that fit kept on the device.
pub struct PartitionedGraph {
    /// Number of PCSRs of the in-core layout (the `meta` triples a segment's structure has).
    structures: usize,
    segments: Vec<Segment>,
    resident: Vec<Option<DeviceStructure>>,
    /// Bytes of resident segments still allowed.
    resident_left: u64,
    /// Vertices per signature-table segment (a multiple of 32), and the table, built for the
    /// first query the device filters.
    table_rows: usize,
    table: Option<Vec<VertexSegment>>,
    streamed: Cell<Streamed>,
    /// Segments copied for the query running, kept (while the device has room) for its later
    /// passes, until [`PartitionedGraph::release`].
    kept: RefCell<Vec<Option<DeviceStructure>>>,
    /// Page-locked copies of the segments not resident (groups, then columns), and the bytes
    /// of such copies still allowed.
    pinned: Vec<Option<HostBuffer>>,
    pinned_left: u64,
    /// Whether segments are copied one ahead on the copy stream ([`pipelined`]).
    pipeline: bool,
}

impl PartitionedGraph {
    /// Cuts `data` into segments of `segment_bytes`, and uploads the first of them while they
    /// fit in `resident_bytes`; the others are copied one ahead where `pipeline`.
    pub fn new(gpu: &Gpu, data: &Graph, segment_bytes: u64, resident_bytes: u64, pipeline: bool) -> Result<Self> {
        let labels = data.labels();
        let mut all = label_lists(data);
        for (_, _, lists) in &mut all {
            lists.sort_by_key(|&(v, _)| (labels[v as usize], v));
        }
        let pieces: Vec<_> = all
            .iter()
            .enumerate()
            .flat_map(|(st, (_, _, lists))| cut(lists, segment_bytes).into_iter().map(move |p| (st as u32, p)))
            .collect();
        let key = |v: u32| (labels[v as usize], v);
        let segments = pieces
            .par_iter()
            .map(|(st, p)| {
                let (label, dir, _) = all[*st as usize];
                Ok(Segment {
                    st: *st,
                    first: key(p[0].0),
                    last: key(p[p.len() - 1].0),
                    pcsr: Pcsr::from_lists(label, dir, ColumnOrder::ByNeighbourLabel, p)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let table_rows = (segment_bytes / (4 * WORDS as u64 + 4)).max(32) as usize / 32 * 32;
        let mut g = PartitionedGraph {
            structures: all.len(),
            resident: Vec::with_capacity(segments.len()),
            segments,
            resident_left: resident_bytes,
            table_rows,
            table: None,
            streamed: Cell::new(Streamed::default()),
            kept: RefCell::new(Vec::new()),
            pinned: Vec::new(),
            pinned_left: PINNED_BYTES,
            pipeline,
        };
        for i in 0..g.segments.len() {
            if g.keeps(g.segments[i].bytes()) {
                g.pinned.push(None);
                let st = g.structure(gpu, i, gpu.arrived(g.copy(gpu, i, Lane::Now)?)?)?;
                g.resident.push(Some(st));
            } else {
                let pinned = Self::pin(gpu, &mut g.pinned_left, &g.segments[i].parts().map(|(_, p)| p))?;
                g.pinned.push(pinned);
                g.resident.push(None);
            }
        }
        Ok(g)
    }

    /// Whether `bytes` more stay resident (and, if so, takes them from what is left).
    fn keeps(&mut self, bytes: u64) -> bool {
        let keep = bytes <= self.resident_left;
        if keep {
            self.resident_left -= bytes;
        }
        keep
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Segments kept on the device.
    pub fn resident_segments(&self) -> usize {
        self.resident.iter().filter(|s| s.is_some()).count()
    }

    /// What the queries since the last call copied, and a new count from zero.
    pub fn take_streamed(&self) -> Streamed {
        self.streamed.take()
    }

    /// Frees the segments kept for the query running (its passes over the graph are done).
    pub fn release(&self) {
        self.kept.borrow_mut().clear();
    }

    fn count(&self, bytes: u64) {
        let s = self.streamed.get();
        self.streamed.set(Streamed { segments: s.segments + 1, bytes: s.bytes + bytes });
    }

    /// Starts the copy of segment `i`'s PCSR on `lane`.
    fn copy(&self, gpu: &Gpu, i: usize, lane: Lane) -> Result<Arriving<2>> {
        upload_parts(gpu, lane, self.pinned.get(i).and_then(Option::as_ref), self.segments[i].parts())
    }

    /// Segment `i` as a structure in the in-core PCSR layout, from its arrived copy: its own
    /// PCSR at its structure's index, every other structure empty.
    fn structure(&self, gpu: &Gpu, i: usize, [groups, columns]: [DeviceBuffer<u32>; 2]) -> Result<DeviceStructure> {
        let s = &self.segments[i];
        let mut meta = vec![0u64; 3 * self.structures];
        meta[3 * s.st as usize + 1] = s.pcsr.num_groups() as u64;
        Ok(DeviceStructure {
            groups,
            meta: gpu.upload("PCSR segment offsets", &meta)?,
            columns,
            elabels: gpu.alloc_zeros::<u32>("placeholder", 1)?,
        })
    }

    /// A page-locked copy of `parts` one after another, for a segment not resident, while
    /// `left` bytes allow (taken from it); None beyond (copied from pageable memory).
    fn pin(gpu: &Gpu, left: &mut u64, parts: &[&[u32]]) -> Result<Option<HostBuffer>> {
        let bytes = 4 * parts.iter().map(|p| p.len() as u64).sum::<u64>();
        if bytes > *left {
            return Ok(None);
        }
        *left -= bytes;
        Ok(Some(gpu.pin(parts)?))
    }

    /// Calls `each` with every segment of `order` (indices into [`PartitionedGraph::segments`],
    /// ascending) and its structure in the in-core layout: resident ones in place, the others
    /// copied, and kept for the query's later passes while they take at most half the device's
    /// headroom (else freed after).
    pub(crate) fn each_segment(
        &self,
        gpu: &Gpu,
        order: &[usize],
        each: &mut dyn FnMut(usize, &DeviceStructure) -> Result<()>,
    ) -> Result<()> {
        let mut kept = self.kept.borrow_mut();
        kept.resize_with(self.segments.len(), || None);
        let copied: Vec<bool> =
            (0..self.segments.len()).map(|i| self.resident[i].is_none() && kept[i].is_none()).collect();
        let copy = |i, lane| self.copy(gpu, i, lane);
        pipelined(self.pipeline, order, &|i| copied[i], &copy, &|a| Ok(gpu.arrived(a)?), &mut |i, arrived| {
            let seg = &self.segments[i];
            let Some(arrived) = arrived else {
                each(i, self.resident[i].as_ref().or(kept[i].as_ref()).expect("on the device"))?;
                return Ok(ControlFlow::Continue(()));
            };
            let st = self.structure(gpu, i, arrived)?;
            self.count(seg.bytes());
            each(i, &st)?;
            if seg.bytes() <= gpu.headroom()? / 2 {
                kept[i] = Some(st);
            }
            Ok(ControlFlow::Continue(()))
        })
    }

    /// Builds the signature table unless built, its vertices in (label, id) order and in
    /// segments, each laid out for its copy; keeps the first segments on the device while they
    /// fit in what the PCSR segments left.
    pub fn ensure_table(&mut self, gpu: &Gpu, data: &Graph) -> Result<()> {
        if self.table.is_some() {
            return Ok(());
        }
        let labels = data.labels();
        let mut order: Vec<u32> = (0..data.num_vertices() as u32).collect();
        order.par_sort_unstable_by_key(|&v| (labels[v as usize], v));
        let table = SignatureTable::build(data)?;
        let mut segments: Vec<VertexSegment> = order
            .par_chunks(self.table_rows)
            .map(|ids| VertexSegment {
                labels: (labels[ids[0] as usize], labels[ids[ids.len() - 1] as usize]),
                ids: ids.to_vec(),
                words: table.rows(ids),
                resident: None,
                pinned: None,
            })
            .collect();
        for seg in &mut segments {
            if self.keeps(seg.bytes()) {
                let [words, ids] = gpu.arrived(seg.copy(gpu, Lane::Now)?)?;
                seg.resident = Some((words, ids));
            } else {
                seg.pinned = Self::pin(gpu, &mut self.pinned_left, &seg.parts().map(|(_, p)| p))?;
            }
        }
        self.table = Some(segments);
        Ok(())
    }

    /// Calls `each` with the signature table's segments that hold vertices of a label in
    /// `labels`; the table is built on first use.
    pub fn each_table_segment(
        &mut self,
        gpu: &Gpu,
        data: &Graph,
        labels: &[u32],
        each: &mut TableSegment<'_>,
    ) -> Result<()> {
        self.ensure_table(gpu, data)?;
        let table = self.table.as_ref().expect("built above");
        let order: Vec<usize> = (0..table.len())
            .filter(|&i| labels.iter().any(|l| (table[i].labels.0..=table[i].labels.1).contains(l)))
            .collect();
        let copy = |i: usize, lane| table[i].copy(gpu, lane);
        let resident = |i: usize| table[i].resident.is_some();
        pipelined(self.pipeline, &order, &|i| !resident(i), &copy, &|a| Ok(gpu.arrived(a)?), &mut |i, arrived| {
            let seg = &table[i];
            let len = seg.ids.len() as u32;
            match (&seg.resident, arrived) {
                (Some((words, ids)), _) => each(words, Rows::Listed(ids), len)?,
                (None, Some([words, ids])) => {
                    self.count(seg.bytes());
                    each(&words, Rows::Listed(&ids), len)?
                }
                (None, None) => unreachable!("a segment not resident is copied"),
            }
            Ok(ControlFlow::Continue(()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{random_graph, GraphSpec};

    fn graph(seed: u64, directed: bool) -> Graph {
        random_graph(&GraphSpec { vertices: 60, edges: 500, vertex_labels: 3, edge_labels: 2, directed, seed })
    }

    /// Every list is its pieces, in segment order; no segment passes the size unless it is
    /// one key and one edge, nor holds a key twice.
    #[test]
    fn segments_cover_every_list_in_order() {
        for seed in 0..20u64 {
            let data = graph(seed, seed % 2 == 0);
            for bytes in [1, 140, 200, 600, 4096] {
                for (_, _, lists) in label_lists(&data) {
                    let segments = cut(&lists, bytes);
                    let mut joined: Vec<(u32, Vec<u32>)> = Vec::new();
                    for seg in &segments {
                        let size: u64 = seg.iter().map(|(_, p)| 4 * GROUP_WORDS as u64 + 4 * p.len() as u64).sum();
                        assert!(size <= bytes.max(4 * GROUP_WORDS as u64 + 4), "{size} > {bytes}");
                        assert!(seg.windows(2).all(|w| w[0].0 != w[1].0), "a key once per segment");
                        for &(v, piece) in seg {
                            assert!(!piece.is_empty());
                            match joined.last_mut() {
                                Some((w, list)) if *w == v => list.extend_from_slice(piece),
                                _ => joined.push((v, piece.to_vec())),
                            }
                        }
                    }
                    let expected: Vec<(u32, Vec<u32>)> = lists.iter().map(|&(v, l)| (v, l.to_vec())).collect();
                    assert_eq!(joined, expected, "seed {seed}, {bytes} bytes");
                }
            }
        }
    }

    /// A segment's PCSR finds each of its keys' pieces, as the in-core PCSR does the whole list.
    #[test]
    fn segment_pcsrs_find_their_pieces() {
        let data = graph(3, true);
        for (label, dir, lists) in label_lists(&data) {
            let whole = Pcsr::build(&data, label, dir, ColumnOrder::ByNeighbourLabel).unwrap();
            for seg in cut(&lists, 300) {
                let pcsr = Pcsr::from_lists(label, dir, ColumnOrder::ByNeighbourLabel, &seg).unwrap();
                for &(v, piece) in &seg {
                    assert_eq!(pcsr.neighbors(v), piece);
                    let all = whole.neighbors(v);
                    assert!(all.windows(piece.len()).any(|w| w == piece), "{v}'s piece is a run of N(v)");
                }
            }
        }
    }

    /// A segment holds the sources between its first and last by (label, id).
    #[test]
    fn segments_hold_the_keys_between_their_ends() {
        let data = graph(1, false);
        let lists = &label_lists(&data)[0].2;
        let seg = Segment {
            st: 0,
            first: (3, 40),
            last: (6, 2),
            pcsr: Pcsr::from_lists(0, subgraph_core::Dir::Out, ColumnOrder::ByNeighbourLabel, &lists[..1]).unwrap(),
        };
        assert_eq!(seg.held(3, &[1, 40, 41]), 1..3);
        assert_eq!(seg.held(6, &[0, 2, 3, 9]), 0..2);
        assert_eq!(seg.held(4, &[0, 7]), 0..2);
        assert!(seg.held(3, &[1, 39]).is_empty() && seg.held(6, &[3, 9]).is_empty() && seg.held(0, &[40]).is_empty());
        assert!(seg.held(3, &[]).is_empty() && seg.held(9, &[0]).is_empty());
        assert!(seg.holds_label(&[0, 4]) && seg.holds_label(&[6]) && !seg.holds_label(&[0, 2, 7]));
    }

    #[test]
    fn in_core_bytes_count_keys_edges_labels_and_signatures() {
        for directed in [false, true] {
            let data = graph(5, directed);
            let pcsr: u64 =
                Pcsr::build_all(&data, ColumnOrder::ByNeighbourLabel).unwrap().iter().map(|p| p.memory_bytes()).sum();
            let n = data.num_vertices() as u64;
            assert_eq!(in_core_bytes(&data, false), 4 * n + pcsr, "directed {directed}");
            assert_eq!(in_core_bytes(&data, true), 4 * n + pcsr + 64 * n, "directed {directed}");
        }
    }

    #[test]
    fn segment_size_follows_the_budget_within_bounds() {
        assert_eq!(segment_bytes(0), 4 << 10);
        assert_eq!(segment_bytes(64 << 20), 1 << 20);
        assert_eq!(segment_bytes(1 << 30), 4 << 20);
        assert_eq!(segment_bytes(1 << 40), 4 << 20);
    }
}
