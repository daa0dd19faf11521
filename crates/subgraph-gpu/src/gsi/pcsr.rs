//! PCSR, the partitioned hashed CSR of GSI §IV-A (Def. 4, Alg. 1, Claim 1): one structure per
//! (edge label, direction) whose row-offset layer is an array of 128-byte groups of 16 u32
//! pairs, 15 (key, offset) slots and one (next group, END) pair, with overflow chained into
//! empty groups; plus the host lookup mirroring `pcsr.cu`, the device upload and a batched
//! device lookup, and the plain 3-layer CSR baseline of GSI Table II for the ablation.
//!
//! Column order. For one edge label our `Graph` gives a vertex's neighbours as one run per
//! neighbour label, each sorted by id. [`ColumnOrder::ByNeighbourLabel`] keeps that: N(v,l) is
//! sorted by (neighbour label, id), so N(v, l, neighbour label) — what the join intersects,
//! since every candidate of a query vertex has its label — is one sorted sub-slice, found by
//! two binary searches over the neighbours' labels. [`ColumnOrder::ById`] is the paper's
//! layout, N(v,l) sorted by id alone.
//!
//! Directions. An undirected graph needs one PCSR per edge label (`Dir::Out`); a directed one
//! two, keyed by source (`Dir::Out`) and by target (`Dir::In`).

use std::borrow::Cow;

use subgraph_core::{Dir, Graph};
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, KernelDecl, KernelSource, Param};

use crate::error::{to_u32, GpuError, Result};
use crate::gsi::hash::{murmur2_u32, SEED};

/// u32 words per group: 16 pairs, 128 bytes.
pub const GROUP_WORDS: usize = 32;
/// (key, offset) slots per group; the 16th pair is (next group, END).
pub const KEYS_PER_GROUP: usize = 15;
/// Empty key slot, and "no next group".
pub const INVALID: u32 = u32::MAX;
/// Word of a group holding the next group's id.
pub const NEXT_WORD: usize = 30;
/// Word of a group holding the end of its last neighbour list.
pub const END_WORD: usize = 31;

/// The kernels of `pcsr.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "pcsr.cu",
    code: include_str!("pcsr.cu"),
    kernels: &[KernelDecl {
        name: "pcsr_locate_kernel",
        params: &[Param::BufU32, Param::U32, Param::BufU32, Param::U32, Param::BufU32, Param::BufU32],
    }],
};

/// The order of each vertex's neighbour list in the column array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnOrder {
    /// Sorted by (neighbour label, id): N(v, l, neighbour label) is one sub-slice.
    ByNeighbourLabel,
    /// Sorted by id (GSI's layout).
    ById,
}

/// PCSR(G, l) for one edge label and direction.
#[derive(Debug, Clone)]
pub struct Pcsr {
    edge_label: u32,
    dir: Dir,
    order: ColumnOrder,
    num_keys: usize,
    groups: Vec<u32>,
    columns: Vec<u32>,
}

/// The home group of vertex `v` among `num_groups`.
fn home_group(v: u32, num_groups: usize) -> usize {
    (murmur2_u32(v, SEED) as u64 % num_groups as u64) as usize
}

impl Pcsr {
    /// PCSR(G, `edge_label`) of the `dir` adjacency of `graph`.
    pub fn build(graph: &Graph, edge_label: u32, dir: Dir, order: ColumnOrder) -> Result<Self> {
        let lists: Vec<(u32, &[u32])> = (0..graph.num_vertices() as u32)
            .filter_map(|v| {
                let nbrs = edge_label_run(graph, v, dir, edge_label);
                (!nbrs.is_empty()).then_some((v, nbrs))
            })
            .collect();
        Self::from_lists(edge_label, dir, order, &lists)
    }

    /// The PCSRs of every edge label of `graph`, in label order, for `Dir::Out`, then (directed
    /// graphs only) for `Dir::In`. One pass over the adjacency per direction.
    pub fn build_all(graph: &Graph, order: ColumnOrder) -> Result<Vec<Self>> {
        label_lists(graph).into_iter().map(|(label, dir, lists)| Self::from_lists(label, dir, order, &lists)).collect()
    }

    /// PCSR from the keys (ascending, distinct) and their neighbour lists, each sorted by
    /// (neighbour label, id) as in `Graph` (GSI Alg. 1 with Δ = number of keys).
    pub(crate) fn from_lists(edge_label: u32, dir: Dir, order: ColumnOrder, lists: &[(u32, &[u32])]) -> Result<Self> {
        let n = lists.len();
        let total: u64 = lists.iter().map(|(_, l)| l.len() as u64).sum();
        if total >= INVALID as u64 {
            return Err(GpuError::TooLarge { what: "PCSR column array", len: total, max: INVALID as u64 - 1 });
        }
        // Bucket the keys by hash (counting sort; keys stay ascending inside a bucket).
        let home: Vec<usize> = lists.iter().map(|&(v, _)| home_group(v, n)).collect();
        let mut bucket_start = vec![0usize; n + 1];
        for &h in &home {
            bucket_start[h + 1] += 1;
        }
        for i in 0..n {
            bucket_start[i + 1] += bucket_start[i];
        }
        let mut fill = bucket_start.clone();
        let mut by_bucket = vec![0usize; n];
        for (i, &h) in home.iter().enumerate() {
            by_bucket[fill[h]] = i;
            fill[h] += 1;
        }
        // Assign keys to groups: the first 15 of a bucket stay home, the rest go to empty
        // groups chained through the next-group word (Claim 1: there are always enough).
        let mut empty = (0..n).filter(|&b| bucket_start[b] == bucket_start[b + 1]);
        let mut members: Vec<&[usize]> = vec![&[]; n];
        let mut next = vec![INVALID; n];
        for b in 0..n {
            let keys = &by_bucket[bucket_start[b]..bucket_start[b + 1]];
            let mut chunks = keys.chunks(KEYS_PER_GROUP);
            let Some(first) = chunks.next() else { continue };
            members[b] = first;
            let mut tail = b;
            for chunk in chunks {
                let g = empty.next().expect("Claim 1 of GSI: enough empty groups when Δ = |V(D)|");
                members[g] = chunk;
                next[tail] = g as u32;
                tail = g;
            }
        }
        // Lay the columns out in group order (GSI Alg. 1).
        let mut groups = vec![INVALID; n * GROUP_WORDS];
        let mut columns = Vec::with_capacity(total as usize);
        for g in 0..n {
            let words = &mut groups[g * GROUP_WORDS..(g + 1) * GROUP_WORDS];
            for (j, &key) in members[g].iter().enumerate() {
                let (v, nbrs) = lists[key];
                words[2 * j] = v;
                words[2 * j + 1] = columns.len() as u32;
                let start = columns.len();
                columns.extend_from_slice(nbrs);
                if order == ColumnOrder::ById {
                    columns[start..].sort_unstable();
                }
            }
            let k = members[g].len();
            if k < KEYS_PER_GROUP {
                words[2 * k + 1] = columns.len() as u32;
            }
            words[NEXT_WORD] = next[g];
            words[END_WORD] = columns.len() as u32;
        }
        Ok(Pcsr { edge_label, dir, order, num_keys: n, groups, columns })
    }

    pub fn edge_label(&self) -> u32 {
        self.edge_label
    }

    pub fn dir(&self) -> Dir {
        self.dir
    }

    pub fn order(&self) -> ColumnOrder {
        self.order
    }

    /// |V(D)|: vertices with at least one edge of this label and direction; also the number of
    /// groups Δ.
    pub fn num_keys(&self) -> usize {
        self.num_keys
    }

    pub fn num_groups(&self) -> usize {
        self.groups.len() / GROUP_WORDS
    }

    /// The group layer, `GROUP_WORDS` words per group.
    pub fn groups(&self) -> &[u32] {
        &self.groups
    }

    /// The column-index layer ci.
    pub fn columns(&self) -> &[u32] {
        &self.columns
    }

    /// Groups taken as overflow of another group's bucket.
    pub fn num_overflow_groups(&self) -> usize {
        (0..self.num_groups()).filter(|&g| self.groups[g * GROUP_WORDS + NEXT_WORD] != INVALID).count()
    }

    /// Bytes of both layers: 128·|V(D)| + 4·|ci|.
    pub fn memory_bytes(&self) -> u64 {
        4 * (self.groups.len() + self.columns.len()) as u64
    }

    /// The range of N(v, l) in ci, as the device finds it: hash to the home group, probe its
    /// 15 keys, follow the overflow chain. `None` when v has no edge of this label.
    pub fn locate(&self, v: u32) -> Option<(u32, u32)> {
        let n = self.num_groups();
        if n == 0 {
            return None;
        }
        let mut g = home_group(v, n);
        loop {
            let words = &self.groups[g * GROUP_WORDS..(g + 1) * GROUP_WORDS];
            if let Some(j) = (0..KEYS_PER_GROUP).find(|&j| words[2 * j] == v) {
                return Some((words[2 * j + 1], words[2 * j + 3]));
            }
            if words[NEXT_WORD] == INVALID {
                return None;
            }
            g = words[NEXT_WORD] as usize;
        }
    }

    /// N(v, l) in this PCSR's column order.
    pub fn neighbors(&self, v: u32) -> &[u32] {
        match self.locate(v) {
            Some((s, e)) => &self.columns[s as usize..e as usize],
            None => &[],
        }
    }

    /// N(v, l) restricted to neighbours labelled `nbr_label` (`labels` = the graph's vertex
    /// labels), sorted by id: a sub-slice under `ByNeighbourLabel`, a filtered copy under
    /// `ById`.
    pub fn neighbors_labelled<'a>(&'a self, v: u32, nbr_label: u32, labels: &[u32]) -> Cow<'a, [u32]> {
        let all = self.neighbors(v);
        match self.order {
            ColumnOrder::ByNeighbourLabel => {
                let lo = all.partition_point(|&w| labels[w as usize] < nbr_label);
                let hi = all.partition_point(|&w| labels[w as usize] <= nbr_label);
                Cow::Borrowed(&all[lo..hi])
            }
            ColumnOrder::ById => Cow::Owned(all.iter().copied().filter(|&w| labels[w as usize] == nbr_label).collect()),
        }
    }

    /// Copies both layers to the device.
    pub fn upload(&self, gpu: &Gpu) -> Result<DevicePcsr> {
        Ok(DevicePcsr {
            groups: gpu.upload("PCSR groups", &self.groups)?,
            columns: gpu.upload("PCSR columns", &self.columns)?,
            num_groups: self.num_groups() as u32,
        })
    }
}

/// For each (edge label, direction): its keys, ascending, each with N(v, l) sorted by
/// (neighbour label, id).
pub(crate) type LabelLists<'g> = Vec<(u32, Dir, Vec<(u32, &'g [u32])>)>;

/// The neighbour lists of every (edge label, direction) of `graph`, in the order of
/// [`Pcsr::build_all`] (labels ascending within `Dir::Out`, then `Dir::In` for directed
/// graphs). One pass over the adjacency per direction.
pub(crate) fn label_lists(graph: &Graph) -> LabelLists<'_> {
    let labels = graph.edge_label_values();
    let dirs: &[Dir] = if graph.is_directed() { &[Dir::Out, Dir::In] } else { &[Dir::Out] };
    let mut out = Vec::with_capacity(labels.len() * dirs.len());
    for &dir in dirs {
        let mut lists: Vec<Vec<(u32, &[u32])>> = vec![Vec::new(); labels.len()];
        for v in 0..graph.num_vertices() as u32 {
            let all = graph.neighbors(v, dir);
            let mut pos = 0;
            let mut groups = graph.neighbor_groups(v, dir).peekable();
            while let Some((pair, nbrs)) = groups.next() {
                let label = graph.pair(pair).0;
                let start = pos;
                pos += nbrs.len();
                while let Some(&(next, more)) = groups.peek() {
                    if graph.pair(next).0 != label {
                        break;
                    }
                    pos += more.len();
                    groups.next();
                }
                let idx = labels.binary_search(&label).unwrap_or_else(|i| i);
                lists[idx].push((v, &all[start..pos]));
            }
        }
        out.extend(lists.into_iter().enumerate().map(|(idx, lists)| (labels[idx], dir, lists)));
    }
    out
}

/// The neighbours of v in direction `dir` whose edge label is `edge_label`: one contiguous run
/// of the graph's adjacency, sorted by (neighbour label, id).
fn edge_label_run(graph: &Graph, v: u32, dir: Dir, edge_label: u32) -> &[u32] {
    let all = graph.neighbors(v, dir);
    let mut pos = 0;
    let mut range = 0..0;
    for (pair, nbrs) in graph.neighbor_groups(v, dir) {
        let label = graph.pair(pair).0;
        if label == edge_label {
            if range.is_empty() {
                range.start = pos;
            }
            range.end = pos + nbrs.len();
        }
        pos += nbrs.len();
    }
    &all[range]
}

/// A PCSR on the device. Group addresses are 128-byte aligned because the allocation is.
pub struct DevicePcsr {
    pub groups: DeviceBuffer<u32>,
    pub columns: DeviceBuffer<u32>,
    pub num_groups: u32,
}

impl DevicePcsr {
    /// Locates N(v, l) for every v of `vertices` on the device (one warp per vertex), for
    /// checking the device lookup against [`Pcsr::locate`].
    pub fn locate_all(&self, gpu: &Gpu, vertices: &[u32]) -> Result<Vec<Option<(u32, u32)>>> {
        let n = to_u32("PCSR lookup batch", vertices.len() as u64)?;
        let kernel = gpu.kernel(&SOURCE, "pcsr_locate_kernel")?;
        let input = gpu.upload("PCSR lookup vertices", vertices)?;
        let mut starts = gpu.alloc_zeros::<u32>("PCSR lookup starts", vertices.len())?;
        let mut ends = gpu.alloc_zeros::<u32>("PCSR lookup ends", vertices.len())?;
        const BLOCK: u32 = 256;
        let grid = (n as u64 * 32).div_ceil(BLOCK as u64) as u32;
        gpu.launch(
            &kernel,
            grid,
            BLOCK,
            &mut [
                Arg::In32(&self.groups),
                Arg::U32(self.num_groups),
                Arg::In32(&input),
                Arg::U32(n),
                Arg::Out32(&mut starts),
                Arg::Out32(&mut ends),
            ],
        )?;
        let starts = gpu.download(&starts)?;
        let ends = gpu.download(&ends)?;
        Ok(starts.into_iter().zip(ends).map(|(s, e)| (s != INVALID).then_some((s, e))).collect())
    }
}

/// The plain 3-layer CSR of one direction (GSI Table II, the "GSI-" baseline): row offsets
/// over all vertices, column index, edge label per entry; N(v, l) scans all of N(v).
#[derive(Debug, Clone)]
pub struct LabelledCsr {
    dir: Dir,
    offsets: Vec<u32>,
    columns: Vec<u32>,
    edge_labels: Vec<u32>,
}

impl LabelledCsr {
    /// The CSR of the `dir` adjacency of `graph`, entries in the graph's (edge label,
    /// neighbour label, id) order.
    pub fn build(graph: &Graph, dir: Dir) -> Result<Self> {
        let n = graph.num_vertices() as u32;
        let mut offsets = Vec::with_capacity(n as usize + 1);
        let mut columns = Vec::new();
        let mut edge_labels = Vec::new();
        offsets.push(0);
        for v in 0..n {
            for (pair, nbrs) in graph.neighbor_groups(v, dir) {
                columns.extend_from_slice(nbrs);
                edge_labels.extend(std::iter::repeat_n(graph.pair(pair).0, nbrs.len()));
            }
            if columns.len() as u64 >= INVALID as u64 {
                return Err(GpuError::TooLarge {
                    what: "CSR column array",
                    len: columns.len() as u64,
                    max: INVALID as u64 - 1,
                });
            }
            offsets.push(columns.len() as u32);
        }
        Ok(LabelledCsr { dir, offsets, columns, edge_labels })
    }

    pub fn dir(&self) -> Dir {
        self.dir
    }

    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    pub fn columns(&self) -> &[u32] {
        &self.columns
    }

    pub fn edge_labels(&self) -> &[u32] {
        &self.edge_labels
    }

    /// N(v, l) by scanning N(v), in the graph's order.
    pub fn neighbors(&self, v: u32, edge_label: u32) -> Vec<u32> {
        let (s, e) = (self.offsets[v as usize] as usize, self.offsets[v as usize + 1] as usize);
        (s..e).filter(|&i| self.edge_labels[i] == edge_label).map(|i| self.columns[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{random_graph, GraphSpec};

    fn expected(graph: &Graph, v: u32, dir: Dir, l: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for (pair, nbrs) in graph.neighbor_groups(v, dir) {
            if graph.pair(pair).0 == l {
                out.extend_from_slice(nbrs);
            }
        }
        out
    }

    fn check(graph: &Graph, pcsr: &Pcsr) {
        let (l, dir) = (pcsr.edge_label(), pcsr.dir());
        assert_eq!(pcsr.groups().len() % GROUP_WORDS, 0);
        let mut keys = 0;
        for v in 0..graph.num_vertices() as u32 {
            let want = expected(graph, v, dir, l);
            keys += usize::from(!want.is_empty());
            let got = pcsr.neighbors(v);
            match pcsr.order() {
                ColumnOrder::ByNeighbourLabel => assert_eq!(got, &want[..], "v={v} l={l}"),
                ColumnOrder::ById => {
                    let mut sorted = want.clone();
                    sorted.sort_unstable();
                    assert_eq!(got, &sorted[..], "v={v} l={l}");
                }
            }
            assert_eq!(pcsr.locate(v).is_some(), !want.is_empty());
            for &nl in graph.vertex_label_values() {
                let got = pcsr.neighbors_labelled(v, nl, graph.labels());
                assert_eq!(&got[..], graph.neighbors_labelled(v, dir, l, nl));
            }
        }
        assert_eq!(pcsr.num_keys(), keys);
        assert_eq!(pcsr.num_groups(), keys);
    }

    #[test]
    fn random_graphs_match_the_graph() {
        for seed in 0..12u64 {
            for directed in [false, true] {
                for order in [ColumnOrder::ByNeighbourLabel, ColumnOrder::ById] {
                    let spec = GraphSpec {
                        vertices: 50 + 40 * seed as usize,
                        edges: 300 + 200 * seed as usize,
                        vertex_labels: 1 + (seed as u32 % 4),
                        edge_labels: 1 + (seed as u32 % 5),
                        directed,
                        seed,
                    };
                    let graph = random_graph(&spec);
                    let all = Pcsr::build_all(&graph, order).unwrap();
                    let dirs = if directed { 2 } else { 1 };
                    assert_eq!(all.len(), graph.edge_label_values().len() * dirs);
                    let total: usize = all.iter().map(|p| p.columns().len()).sum();
                    // Each edge appears twice: at both ends, or once per direction.
                    assert_eq!(total, 2 * graph.num_edges() as usize);
                    for pcsr in &all {
                        check(&graph, pcsr);
                        let single = Pcsr::build(&graph, pcsr.edge_label(), pcsr.dir(), order).unwrap();
                        assert_eq!(single.groups(), pcsr.groups());
                        assert_eq!(single.columns(), pcsr.columns());
                    }
                }
            }
        }
    }

    #[test]
    fn overflow_chains_into_empty_groups() {
        // 32 keys that all hash to group 0 of 32: 15 stay home, 15 + 2 overflow into two empty
        // groups chained from group 0.
        let keys: Vec<u32> = (0..u32::MAX).filter(|&v| home_group(v, 32) == 0).take(32).collect();
        let lists: Vec<(u32, Vec<u32>)> =
            keys.iter().enumerate().map(|(i, &v)| (v, (0..i as u32 % 5).map(|w| w * 3 + 1).collect())).collect();
        let borrowed: Vec<(u32, &[u32])> = lists.iter().map(|(v, l)| (*v, &l[..])).collect();
        let pcsr = Pcsr::from_lists(0, Dir::Out, ColumnOrder::ById, &borrowed).unwrap();
        assert_eq!(pcsr.num_groups(), 32);
        assert_eq!(pcsr.num_overflow_groups(), 2);
        let first = pcsr.groups()[NEXT_WORD] as usize;
        let second = pcsr.groups()[first * GROUP_WORDS + NEXT_WORD] as usize;
        assert_eq!((first, second), (1, 2));
        assert_eq!(pcsr.groups()[second * GROUP_WORDS + NEXT_WORD], INVALID);
        assert_eq!(pcsr.groups()[second * GROUP_WORDS + 4], INVALID);
        for (v, l) in &lists {
            assert_eq!(pcsr.neighbors(*v), &l[..]);
        }
        let absent = (0..u32::MAX).find(|v| home_group(*v, 32) == 0 && !keys.contains(v));
        assert_eq!(pcsr.locate(absent.unwrap()), None);
        let end = pcsr.columns().len() as u32;
        assert_eq!(pcsr.groups()[31 * GROUP_WORDS + END_WORD], end);
    }

    #[test]
    fn empty_label_has_no_groups() {
        let pcsr = Pcsr::from_lists(3, Dir::In, ColumnOrder::ById, &[]).unwrap();
        assert_eq!(pcsr.num_groups(), 0);
        assert_eq!(pcsr.locate(0), None);
    }

    #[test]
    fn plain_csr_filters_by_edge_label() {
        let spec = GraphSpec { vertices: 80, edges: 400, vertex_labels: 3, edge_labels: 4, directed: true, seed: 3 };
        let graph = random_graph(&spec);
        for dir in [Dir::Out, Dir::In] {
            let csr = LabelledCsr::build(&graph, dir).unwrap();
            assert_eq!(csr.offsets().len(), graph.num_vertices() + 1);
            for v in 0..graph.num_vertices() as u32 {
                for &l in graph.edge_label_values() {
                    assert_eq!(csr.neighbors(v, l), expected(&graph, v, dir, l));
                }
            }
        }
    }
}
