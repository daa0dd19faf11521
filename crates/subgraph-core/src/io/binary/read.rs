//! Reading `.sgb`: the header and the sections after the payload checked against each other
//! and the file's length before anything is allocated, then the payload read straight into the
//! graph's arrays (its chunks in parallel, hashed as they come) or mapped in place
//! ([`MapMode`]), the checksums compared, and the structure validated (`validate`).

use super::format::{
    has_magic, of_chunk_sums, padded, read_exact_at, Counts, Source, CHUNK, FLAG_DIRECTED, FLAG_IDS, FLAG_NAMES,
    FLAG_PROPS, FLAG_SETS, HEADER_LEN, HEADER_SUM_AT, VERSION, VERSION_1, VERSION_2, VERSION_3, VERSION_4,
};
use super::{ids, props, sets, validate};
use crate::error::Error;
use crate::graph::{map_file, Adjacency, Array, Graph, LabelNames, Properties, VertexIds};
use memmap2::Mmap;
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// An array of the payload in file order, to be read into.
enum SectionMut<'a> {
    U32(&'a mut [u32]),
    U64(&'a mut [u64]),
}

impl SectionMut<'_> {
    fn bytes(&mut self) -> &mut [u8] {
        match self {
            SectionMut::U32(v) => bytemuck::cast_slice_mut(v),
            SectionMut::U64(v) => bytemuck::cast_slice_mut(v),
        }
    }

    /// Turns the little-endian values read into native ones.
    fn make_native(&mut self) {
        if cfg!(target_endian = "big") {
            match self {
                SectionMut::U32(v) => v.iter_mut().for_each(|x| *x = u32::from_le(*x)),
                SectionMut::U64(v) => v.iter_mut().for_each(|x| *x = u64::from_le(*x)),
            }
        }
    }
}

/// The arrays of `g` and the flat `pairs` in the order of [`sections`].
fn sections_mut<'a>(g: &'a mut Graph, pairs: &'a mut [u32]) -> Vec<SectionMut<'a>> {
    fn adj(a: &mut Adjacency) -> [SectionMut<'_>; 5] {
        [
            SectionMut::U64(a.offsets.make_mut()),
            SectionMut::U32(a.nbrs.make_mut()),
            SectionMut::U64(a.group_offsets.make_mut()),
            SectionMut::U32(a.group_pair.make_mut()),
            SectionMut::U32(a.group_end.make_mut()),
        ]
    }
    let mut s = vec![SectionMut::U32(&mut g.labels)];
    s.extend(adj(&mut g.out));
    if let Some(inc) = &mut g.inc {
        s.extend(adj(inc));
    }
    s.extend([
        SectionMut::U32(pairs),
        SectionMut::U32(&mut g.vlabel_values),
        SectionMut::U64(&mut g.vlabel_offsets),
        SectionMut::U32(&mut g.vlabel_vertices),
        SectionMut::U32(&mut g.elabel_values),
    ]);
    s
}

/// A graph of the header's sizes with every array zeroed, to be read into.
fn zeroed(c: &Counts) -> Graph {
    let n = c.vertices as usize;
    let adj = |entries: u64, groups: u64| Adjacency {
        offsets: vec![0; n + 1].into(),
        nbrs: vec![0; entries as usize].into(),
        group_offsets: vec![0; n + 1].into(),
        group_pair: vec![0; groups as usize].into(),
        group_end: vec![0; groups as usize].into(),
    };
    Graph {
        directed: c.directed,
        labels: vec![0; n],
        num_edges: c.edges,
        out: adj(c.out_entries, c.out_groups),
        inc: c.directed.then(|| adj(c.in_entries, c.in_groups)),
        pairs: Vec::new(),
        vlabel_values: vec![0; c.vertex_labels as usize],
        vlabel_offsets: vec![0; c.vertex_labels as usize + 1],
        vlabel_vertices: vec![0; n],
        elabel_values: vec![0; c.edge_labels as usize],
        elabel_counts: Default::default(),
        ids: None,
        label_names: None,
        properties: None,
        allowed: None,
        label_sets: None,
        loops: Default::default(),
    }
}

/// How a binary graph file is loaded (`--mmap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapMode {
    /// Map the file when it is larger than half the host's memory, else read it.
    #[default]
    Auto,
    /// Map the file: its adjacency arrays are read in place, paged in from the file on use.
    On,
    /// Read every array into memory.
    Off,
}

impl MapMode {
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    pub fn from_name(name: &str) -> Option<MapMode> {
        match name {
            "auto" => Some(MapMode::Auto),
            "on" => Some(MapMode::On),
            "off" => Some(MapMode::Off),
            _ => None,
        }
    }

    /// Whether a file of `len` bytes is mapped: never on a big-endian host (the arrays are
    /// little-endian), under `auto` when it exceeds half of `memory` (the host's, if known; asked
    /// only then).
    pub(super) fn maps(self, len: u64, memory: impl FnOnce() -> Option<u64>) -> bool {
        cfg!(target_endian = "little")
            && match self {
                MapMode::On => true,
                MapMode::Off => false,
                MapMode::Auto => memory().is_some_and(|m| len > m / 2),
            }
    }
}

/// Reads and validates a binary graph file, mapped or copied as `mode` says.
pub fn read(path: &Path, mode: MapMode) -> Result<Graph, Error> {
    let io = |source| Error::Io { file: path.to_path_buf(), source };
    let f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    if mode.maps(len, crate::host::total_memory) && len >= HEADER_LEN as u64 {
        return decode_mapped(path, map_file(&f).map_err(io)?);
    }
    decode(path, &f, len)
}

/// What the header and the sections after the payload say, all checked against each other and
/// the file's length.
struct Layout {
    version: u32,
    counts: Counts,
    payload_len: u64,
    sum: u64,
    vertex_ids: Option<VertexIds>,
    label_names: Option<LabelNames>,
    properties: Option<Properties>,
    /// Version 5: the self loops and the label sets.
    sets: Option<sets::Decoded>,
}

fn layout<S: Source + ?Sized>(file: &Path, src: &S, len: u64) -> Result<Layout, Error> {
    let bad = |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg };
    if len < HEADER_LEN as u64 {
        return Err(bad(format!("{len} bytes are too few for a binary graph (the header alone is {HEADER_LEN})")));
    }
    let mut head = [0u8; HEADER_LEN];
    read_exact_at(file, src, &mut head, 0)?;
    if !has_magic(&head) {
        return Err(bad("not a binary graph file (wrong magic bytes)".into()));
    }
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    if u64_at(HEADER_SUM_AT) != xxh3_64(&head[..HEADER_SUM_AT]) {
        return Err(bad("corrupt header (checksum mismatch)".into()));
    }
    let version = u32_at(8);
    if !(VERSION_1..=VERSION).contains(&version) {
        return Err(bad(format!(
            "format version {version} is not supported (this build reads versions {VERSION_1} to {VERSION})"
        )));
    }
    let flags = u32_at(12);
    let known = match version {
        VERSION => FLAG_DIRECTED | FLAG_IDS | FLAG_NAMES | FLAG_PROPS | FLAG_SETS,
        VERSION_4 => FLAG_DIRECTED | FLAG_IDS | FLAG_NAMES | FLAG_PROPS,
        VERSION_3 => FLAG_DIRECTED | FLAG_IDS,
        _ => FLAG_DIRECTED,
    };
    if flags & !known != 0 {
        return Err(bad(format!("unknown flags {flags:#x}")));
    }
    let counts = Counts {
        directed: flags & FLAG_DIRECTED != 0,
        vertices: u64_at(16),
        edges: u64_at(24),
        out_entries: u64_at(32),
        out_groups: u64_at(40),
        in_entries: u64_at(48),
        in_groups: u64_at(56),
        pairs: u64_at(64),
        vertex_labels: u64_at(72),
        edge_labels: u64_at(80),
    };
    let payload_len = u64_at(88);
    let sum = u64_at(96);
    let implied = counts.check().map_err(|m| bad(format!("inconsistent header: {m}")))?;
    if implied != payload_len {
        return Err(bad(format!("inconsistent header: payload of {payload_len} bytes, the counts imply {implied}")));
    }
    let Some(payload_end) = payload_len.checked_add(HEADER_LEN as u64) else {
        return Err(bad(format!("inconsistent header: a payload of {payload_len} bytes")));
    };
    let mut end = payload_end;
    let vertex_ids = if flags & FLAG_IDS != 0 {
        let (v, e) = ids::decode(file, src, end, len, counts.vertices)?;
        end = e;
        Some(v)
    } else {
        None
    };
    let label_names = if flags & FLAG_NAMES != 0 {
        let (vertex, e) = ids::decode_names(file, src, end, len, "vertex")?;
        let (edge, e) = ids::decode_names(file, src, e, len, "edge")?;
        end = e;
        Some(LabelNames { vertex, edge })
    } else {
        None
    };
    let properties = if flags & FLAG_PROPS != 0 {
        let (p, e) = props::decode(file, src, end, len, counts.vertices)?;
        end = e;
        Some(p)
    } else {
        None
    };
    let sets = if flags & FLAG_SETS != 0 {
        let (s, e) = sets::decode(file, src, end, len)?;
        end = e;
        Some(s)
    } else {
        None
    };
    if len != end {
        let what = if len < end { "truncated file" } else { "trailing bytes" };
        return Err(bad(format!("{what}: {len} bytes, the header and sections imply {end}")));
    }
    Ok(Layout { version, counts, payload_len, sum, vertex_ids, label_names, properties, sets })
}

/// Reads and validates a binary graph of `len` bytes from `src`; `file` names it in errors.
/// Every array is read straight into its vector, the payload's chunks in parallel; nothing is
/// allocated before the header was checked against `len`.
pub fn decode<S: Source + ?Sized>(file: &Path, src: &S, len: u64) -> Result<Graph, Error> {
    let bad = |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg };
    let layout = layout(file, src, len)?;
    let (counts, version) = (&layout.counts, layout.version);
    let mut g = zeroed(counts);
    let mut pairs = vec![0u32; 2 * counts.pairs as usize];
    let mut sections = sections_mut(&mut g, &mut pairs);
    let chunk_sums = fill(file, src, chunks(&mut sections), version >= VERSION_2)?;
    if src.read_at(&mut [0u8; 1], len).map_err(|source| Error::Io { file: file.to_path_buf(), source })? != 0 {
        return Err(bad("trailing bytes: the file grew while it was read".into()));
    }
    let payload_sum = if version >= VERSION_2 {
        of_chunk_sums(&chunk_sums)
    } else {
        let mut h = Xxh3::new();
        for s in &mut sections {
            let b = s.bytes();
            h.update(b);
            h.update(&[0u8; 8][..padded(b.len() as u64) as usize - b.len()]);
        }
        h.digest()
    };
    if payload_sum != layout.sum {
        return Err(bad("corrupt payload (checksum mismatch)".into()));
    }
    sections.iter_mut().for_each(SectionMut::make_native);
    drop(sections);
    finish(file, g, &pairs, layout)
}

/// Validates a binary graph mapped from `file` and returns it with its adjacency arrays read
/// in place from the mapping (the other, vertex-sized arrays are copied). The checksum is of
/// the mapped bytes, hashed in parallel; the payload is paged in from the file once by it and
/// the structural check, then again on use as the kernel sees fit.
pub(super) fn decode_mapped(file: &Path, map: Arc<Mmap>) -> Result<Graph, Error> {
    let bad = |msg: &str| Error::Parse { file: file.to_path_buf(), line: 0, msg: msg.into() };
    let bytes: &[u8] = &map;
    let layout = layout(file, bytes, bytes.len() as u64)?;
    let payload = &bytes[HEADER_LEN..HEADER_LEN + layout.payload_len as usize];
    let payload_sum = match layout.version >= VERSION_2 {
        true => of_chunk_sums(&payload.par_chunks(CHUNK).map(xxh3_64).collect::<Vec<_>>()),
        false => xxh3_64(payload),
    };
    if payload_sum != layout.sum {
        return Err(bad("corrupt payload (checksum mismatch)"));
    }
    // The arrays in file order, each as (byte offset in the file, elements).
    let mut at = HEADER_LEN;
    let mut arrays = layout.counts.arrays().into_iter().map(|(len, size)| {
        let (start, bytes) = (at, (len * size) as usize);
        at += padded(bytes as u64) as usize;
        (start, len as usize, &map[start + bytes..at])
    });
    let mut next = || -> Result<(usize, usize), Error> {
        let (start, len, pad) = arrays.next().expect("an array per field");
        if pad.iter().any(|&b| b != 0) {
            return Err(bad("corrupt payload (non-zero padding)"));
        }
        Ok((start, len))
    };
    let labels = copied(&map, next()?);
    let mut adjacency = || -> Result<Adjacency, Error> {
        Ok(Adjacency {
            offsets: in_place(&map, next()?),
            nbrs: in_place(&map, next()?),
            group_offsets: in_place(&map, next()?),
            group_pair: in_place(&map, next()?),
            group_end: in_place(&map, next()?),
        })
    };
    let out = adjacency()?;
    let inc = if layout.counts.directed { Some(adjacency()?) } else { None };
    let pairs = copied(&map, next()?);
    let g = Graph {
        directed: layout.counts.directed,
        labels,
        num_edges: layout.counts.edges,
        out,
        inc,
        pairs: Vec::new(),
        vlabel_values: copied(&map, next()?),
        vlabel_offsets: copied(&map, next()?),
        vlabel_vertices: copied(&map, next()?),
        elabel_values: copied(&map, next()?),
        elabel_counts: Default::default(),
        ids: None,
        label_names: None,
        properties: None,
        allowed: None,
        label_sets: None,
        loops: Default::default(),
    };
    finish(file, g, &pairs, layout)
}

/// `len` little-endian numbers of `map` from byte `start` on, copied (the mapped load runs on
/// little-endian hosts only).
fn copied<T: bytemuck::Pod>(map: &[u8], (start, len): (usize, usize)) -> Vec<T> {
    let mut v = vec![T::zeroed(); len];
    bytemuck::cast_slice_mut::<T, u8>(&mut v).copy_from_slice(&map[start..start + len * std::mem::size_of::<T>()]);
    v
}

/// The same numbers read in place from the mapping (copied where they cannot be).
fn in_place<T: bytemuck::Pod>(map: &Arc<Mmap>, (start, len): (usize, usize)) -> Array<T> {
    Array::mapped(map, start, len).unwrap_or_else(|| Array::from(copied(map, (start, len))))
}

/// The last steps of both loads: the label pairs, the structural check, and the sections after
/// the payload (the label sets against the labels, the names against the labels that are not
/// sets, the loops' too).
fn finish(file: &Path, mut g: Graph, pairs: &[u32], layout: Layout) -> Result<Graph, Error> {
    let bad = |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg };
    g.pairs = pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    validate::validate(&g).map_err(|m| bad(format!("invalid graph: {m}")))?;
    let (loops, label_sets) = layout.sets.unwrap_or_default();
    sets::check(&g, &loops, &label_sets).map_err(|m| bad(format!("invalid graph: {m}")))?;
    if let Some(names) = &layout.label_names {
        let (vertex, edge) = sets::plain_labels(&g, &loops, &label_sets);
        names.check(&vertex, &edge).map_err(|m| bad(format!("invalid graph: {m}")))?;
    }
    g.loops = Arc::new(loops);
    g.label_sets = Some(label_sets).filter(|s| !s.is_empty()).map(Arc::new);
    g.ids = layout.vertex_ids.map(Arc::new);
    g.label_names = layout.label_names.filter(|n| !n.is_empty()).map(Arc::new);
    g.properties = layout.properties.map(Arc::new);
    Ok(g)
}

/// Payload bytes that one read fills: part of an array, or the zero padding after one.
enum Piece<'a> {
    Data(&'a mut [u8]),
    Pad(usize),
}

/// The pieces of each [`CHUNK`] of the payload, with their payload offsets.
type Chunk<'a> = Vec<(u64, Piece<'a>)>;

/// Splits the arrays, in file order, into the pieces of each chunk.
fn chunks<'a>(sections: &'a mut [SectionMut<'_>]) -> Vec<Chunk<'a>> {
    fn put<'a>(chunks: &mut Vec<Chunk<'a>>, pos: u64, piece: Piece<'a>) {
        let c = (pos / CHUNK as u64) as usize;
        if chunks.len() <= c {
            chunks.resize_with(c + 1, Vec::new);
        }
        chunks[c].push((pos, piece));
    }
    let mut chunks = Vec::new();
    let mut pos = 0u64;
    for s in sections {
        let mut rest = s.bytes();
        let pad = (padded(rest.len() as u64) - rest.len() as u64) as usize;
        while !rest.is_empty() {
            let room = CHUNK - (pos % CHUNK as u64) as usize;
            let (head, tail) = rest.split_at_mut(room.min(rest.len()));
            let at = pos;
            pos += head.len() as u64;
            put(&mut chunks, at, Piece::Data(head));
            rest = tail;
        }
        // The padding lies in one chunk: it ends at a multiple of 8, and so do chunks.
        if pad > 0 {
            put(&mut chunks, pos, Piece::Pad(pad));
            pos += pad as u64;
        }
    }
    chunks
}

/// Reads the chunks in parallel, checking that the padding is zeros; returns each chunk's
/// XXH3-64 when `hash`.
fn fill<S: Source + ?Sized>(file: &Path, src: &S, chunks: Vec<Chunk<'_>>, hash: bool) -> Result<Vec<u64>, Error> {
    chunks
        .into_par_iter()
        .map(|pieces| {
            let mut h = Xxh3::new();
            for (pos, piece) in pieces {
                let at = HEADER_LEN as u64 + pos;
                let bytes: &[u8] = match piece {
                    Piece::Data(buf) => {
                        read_exact_at(file, src, buf, at)?;
                        buf
                    }
                    Piece::Pad(k) => {
                        let mut pad = [0u8; 8];
                        read_exact_at(file, src, &mut pad[..k], at)?;
                        if pad != [0; 8] {
                            return Err(Error::Parse {
                                file: file.to_path_buf(),
                                line: 0,
                                msg: "corrupt payload (non-zero padding)".into(),
                            });
                        }
                        &[0; 8][..k]
                    }
                };
                if hash {
                    h.update(bytes);
                }
            }
            Ok(h.digest())
        })
        .collect()
}
