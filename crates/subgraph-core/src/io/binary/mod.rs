//! The `.sgb` binary graph format: a versioned, checksummed header followed by the [`Graph`]'s
//! own arrays, little-endian and 8-byte aligned, so that loading is reading the arrays straight
//! into their vectors plus validation (the load-the-CSR-as-is approach of GSI's and Sun & Luo's
//! preprocessed inputs, here with a checksum and a full structural check).
//!
//! Layout (every integer little-endian):
//!
//! | offset | field |
//! |---|---|
//! | 0 | magic `\x89SGB\r\n\x1a\n` |
//! | 8 | format version (u32), flags (u32; bit 0: directed) |
//! | 16 | vertices, edges, out entries, out groups, in entries, in groups, pairs, vertex labels, edge labels, payload bytes (u64 each) |
//! | 96 | payload checksum, XXH3-64 of header bytes 0..104 |
//! | 112 | payload |
//!
//! The payload holds, each array padded with zero bytes to a multiple of 8: vertex labels (u32),
//! out offsets (u64), out neighbours (u32), out group offsets (u64), out group pairs (u32), out
//! group ends (u32), the same five for in-adjacency when directed, the pairs as (edge label,
//! vertex label) u32 pairs, vertex label values (u32), vertex label offsets (u64), vertices by
//! label (u32), edge label values (u32).
//!
//! The payload checksum of version 2 is the XXH3-64 of the XXH3-64s (u64 each) of the payload's
//! 1 MiB chunks, the last one shorter, so that a loader reads and hashes the chunks in parallel.
//! Version 1, which is still read, has the XXH3-64 of the whole payload there; nothing else
//! differs.
//!
//! Version 3 adds flag bit 1: the payload is followed by the vertex id section of [`ids`] (the
//! file's original ids, when its reader compacted them). Graphs without such ids are written
//! as version 2, which older builds read.
//!
//! Version 4 adds flag bit 2: after the payload (and the id section, if any) come two label
//! name sections of [`ids`], vertex then edge (an empty list where that kind of label is a
//! number), and with flag bit 3 the vertex property section of [`props`]. Graphs with neither
//! are written as version 3 or 2.

use crate::error::Error;
use crate::graph::{map_file, Adjacency, Array, Graph, LabelNames, Properties, VertexIds};
use memmap2::Mmap;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The first eight bytes of every `.sgb` file.
pub const MAGIC: [u8; 8] = *b"\x89SGB\r\n\x1a\n";
mod ids;
mod props;
mod validate;

/// The newest format version, written for graphs with label names.
pub const VERSION: u32 = 4;
/// The version written for graphs with original vertex ids and no label names.
pub const VERSION_3: u32 = 3;
/// The version written for graphs without original ids (the chunked payload checksum).
pub const VERSION_2: u32 = 2;
/// The version whose payload checksum hashes the payload as one stream; still read.
const VERSION_1: u32 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 112;
const FLAG_DIRECTED: u32 = 1;
/// Version 3: an id section follows the payload.
const FLAG_IDS: u32 = 2;
/// Version 4: label name sections follow the payload and the id section.
const FLAG_NAMES: u32 = 4;
/// Version 4: the vertex property section follows them.
const FLAG_PROPS: u32 = 8;
/// Offset of the header checksum; the checksum covers the bytes before it.
const HEADER_SUM_AT: usize = 104;
/// Payload bytes per chunk of the version 2 checksum; also the unit of the parallel reads.
const CHUNK: usize = 1 << 20;

/// The counts of the header, from which every array length follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    directed: bool,
    vertices: u64,
    edges: u64,
    out_entries: u64,
    out_groups: u64,
    in_entries: u64,
    in_groups: u64,
    pairs: u64,
    vertex_labels: u64,
    edge_labels: u64,
}

impl Counts {
    fn of(g: &Graph) -> Counts {
        let inc = g.inc.as_ref();
        Counts {
            directed: g.directed,
            vertices: g.labels.len() as u64,
            edges: g.num_edges,
            out_entries: g.out.nbrs.len() as u64,
            out_groups: g.out.group_pair.len() as u64,
            in_entries: inc.map_or(0, |a| a.nbrs.len() as u64),
            in_groups: inc.map_or(0, |a| a.group_pair.len() as u64),
            pairs: g.pairs.len() as u64,
            vertex_labels: g.vlabel_values.len() as u64,
            edge_labels: g.elabel_values.len() as u64,
        }
    }

    /// Lengths in elements of the payload's arrays, in order, with their element size.
    fn arrays(&self) -> Vec<(u64, u64)> {
        let n = self.vertices;
        let adj = |entries: u64, groups: u64| [(n + 1, 8), (entries, 4), (n + 1, 8), (groups, 4), (groups, 4)];
        let mut a = vec![(n, 4)];
        a.extend(adj(self.out_entries, self.out_groups));
        if self.directed {
            a.extend(adj(self.in_entries, self.in_groups));
        }
        a.extend([
            (2 * self.pairs, 4),
            (self.vertex_labels, 4),
            (self.vertex_labels + 1, 8),
            (n, 4),
            (self.edge_labels, 4),
        ]);
        a
    }

    /// Checks the counts against each other; returns the payload length they imply.
    fn check(&self) -> Result<u64, String> {
        let c = self;
        if c.vertices > u32::MAX as u64 {
            return Err(format!("vertex count {} exceeds 2^32 - 1", c.vertices));
        }
        let entries = if c.directed { Some(c.edges) } else { c.edges.checked_mul(2) };
        if entries != Some(c.out_entries) {
            return Err(format!("{} out entries do not fit {} edges", c.out_entries, c.edges));
        }
        if c.directed && c.in_entries != c.edges {
            return Err(format!("{} in entries do not fit {} edges", c.in_entries, c.edges));
        }
        if !c.directed && (c.in_entries != 0 || c.in_groups != 0) {
            return Err("an undirected graph with in-adjacency counts".into());
        }
        if c.out_groups > c.out_entries || c.in_groups > c.in_entries {
            return Err("more neighbour groups than neighbours".into());
        }
        if c.vertex_labels > c.vertices || (c.vertices > 0) != (c.vertex_labels > 0) {
            return Err(format!("{} vertex labels for {} vertices", c.vertex_labels, c.vertices));
        }
        if c.edge_labels > c.edges || (c.edges > 0) != (c.edge_labels > 0) {
            return Err(format!("{} edge labels for {} edges", c.edge_labels, c.edges));
        }
        // Both group counts are at most the entry counts, which fit the edges, but not in sum.
        let groups = c.out_groups.saturating_add(c.in_groups);
        if c.pairs > 1 << 32 || c.pairs > groups {
            return Err(format!("{} label pairs for {groups} groups", c.pairs));
        }
        self.arrays()
            .iter()
            .try_fold(0u64, |total, &(len, size)| {
                let bytes = len.checked_mul(size)?.checked_add(7)? / 8 * 8;
                total.checked_add(bytes)
            })
            .ok_or_else(|| "the counts overflow 64-bit sizes".into())
    }
}

fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(8) * 8
}

/// An array of the payload in file order.
enum Section<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl Section<'_> {
    /// The array's bytes, little-endian.
    fn bytes(&self) -> Cow<'_, [u8]> {
        match (self, cfg!(target_endian = "little")) {
            (Section::U32(v), true) => Cow::Borrowed(bytemuck::cast_slice(v)),
            (Section::U64(v), true) => Cow::Borrowed(bytemuck::cast_slice(v)),
            (Section::U32(v), false) => Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            (Section::U64(v), false) => Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        }
    }
}

fn sections<'a>(g: &'a Graph, pairs: &'a [u32]) -> Vec<Section<'a>> {
    let adj = |a: &'a Adjacency| {
        [
            Section::U64(&a.offsets),
            Section::U32(&a.nbrs),
            Section::U64(&a.group_offsets),
            Section::U32(&a.group_pair),
            Section::U32(&a.group_end),
        ]
    };
    let mut s = vec![Section::U32(&g.labels)];
    s.extend(adj(&g.out));
    if let Some(inc) = &g.inc {
        s.extend(adj(inc));
    }
    s.extend([
        Section::U32(pairs),
        Section::U32(&g.vlabel_values),
        Section::U64(&g.vlabel_offsets),
        Section::U32(&g.vlabel_vertices),
        Section::U32(&g.elabel_values),
    ]);
    s
}

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
    }
}

/// The version 2 payload checksum, fed the payload in order.
struct ChunkSums {
    chunk: Xxh3,
    filled: usize,
    sums: Vec<u64>,
}

impl ChunkSums {
    fn new() -> ChunkSums {
        ChunkSums { chunk: Xxh3::new(), filled: 0, sums: Vec::new() }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let k = (CHUNK - self.filled).min(bytes.len());
            self.chunk.update(&bytes[..k]);
            self.filled += k;
            bytes = &bytes[k..];
            if self.filled == CHUNK {
                self.sums.push(self.chunk.digest());
                self.chunk.reset();
                self.filled = 0;
            }
        }
    }

    fn digest(mut self) -> u64 {
        if self.filled > 0 {
            self.sums.push(self.chunk.digest());
        }
        of_chunk_sums(&self.sums)
    }
}

/// The version 2 payload checksum from the XXH3-64 of each chunk.
fn of_chunk_sums(sums: &[u64]) -> u64 {
    let bytes: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
    xxh3_64(&bytes)
}

/// Writes `g` in the binary format: version [`VERSION`] when it has label names,
/// [`VERSION_3`] when it has original ids, else [`VERSION_2`].
pub fn write<W: Write>(g: &Graph, mut w: W) -> std::io::Result<()> {
    let counts = Counts::of(g);
    let pairs: Vec<u32> = g.pairs.iter().flat_map(|&(e, v)| [e, v]).collect();
    let sections = sections(g, &pairs);
    let zeros = [0u8; 8];
    let mut sums = ChunkSums::new();
    let mut payload_len = 0u64;
    for s in &sections {
        let b = s.bytes();
        let pad = padded(b.len() as u64) as usize - b.len();
        sums.update(&b);
        sums.update(&zeros[..pad]);
        payload_len += (b.len() + pad) as u64;
    }
    let mut head = Vec::with_capacity(HEADER_LEN);
    head.extend_from_slice(&MAGIC);
    let version = match (g.label_names.is_some() || g.properties.is_some(), &g.ids) {
        (true, _) => VERSION,
        (false, Some(_)) => VERSION_3,
        (false, None) => VERSION_2,
    };
    let flags = if counts.directed { FLAG_DIRECTED } else { 0 }
        | if g.ids.is_some() { FLAG_IDS } else { 0 }
        | if g.label_names.is_some() { FLAG_NAMES } else { 0 }
        | if g.properties.is_some() { FLAG_PROPS } else { 0 };
    head.extend_from_slice(&version.to_le_bytes());
    head.extend_from_slice(&flags.to_le_bytes());
    for x in [
        counts.vertices,
        counts.edges,
        counts.out_entries,
        counts.out_groups,
        counts.in_entries,
        counts.in_groups,
        counts.pairs,
        counts.vertex_labels,
        counts.edge_labels,
        payload_len,
        sums.digest(),
    ] {
        head.extend_from_slice(&x.to_le_bytes());
    }
    let sum = xxh3_64(&head);
    head.extend_from_slice(&sum.to_le_bytes());
    debug_assert_eq!(head.len(), HEADER_LEN);
    w.write_all(&head)?;
    for s in &sections {
        let b = s.bytes();
        w.write_all(&b)?;
        w.write_all(&zeros[..padded(b.len() as u64) as usize - b.len()])?;
    }
    if let Some(v) = &g.ids {
        w.write_all(&ids::encode(v))?;
    }
    if let Some(names) = &g.label_names {
        w.write_all(&ids::encode_names(&names.vertex))?;
        w.write_all(&ids::encode_names(&names.edge))?;
    }
    if let Some(p) = &g.properties {
        w.write_all(&props::encode(p))?;
    }
    w.flush()
}

/// Writes both checksums of the binary graph in `data` for its bytes as they stand: the payload
/// checksum the header's format version calls for, then the header checksum. For tools and
/// tests that edit a file's fields in place (the fuzzer forges files past the checksums with
/// it, so that validation alone must reject the damage): the payload as long as the header
/// says (or the file allows), and the id and label name sections after it that its flags
/// announce; data shorter than the header is left as it is.
pub fn seal(data: &mut [u8]) {
    if data.len() < HEADER_LEN {
        return;
    }
    let word = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes"));
    let payload_len = usize::try_from(word(88)).unwrap_or(usize::MAX).min(data.len() - HEADER_LEN);
    let end = HEADER_LEN + payload_len;
    let payload = &data[HEADER_LEN..end];
    let sum = if data[8..12] == VERSION_1.to_le_bytes() {
        xxh3_64(payload)
    } else {
        let mut sums = ChunkSums::new();
        sums.update(payload);
        sums.digest()
    };
    data[96..HEADER_SUM_AT].copy_from_slice(&sum.to_le_bytes());
    let head = xxh3_64(&data[..HEADER_SUM_AT]);
    data[HEADER_SUM_AT..HEADER_LEN].copy_from_slice(&head.to_le_bytes());
    let version = u32::from_le_bytes(data[8..12].try_into().expect("4"));
    let flags = if version >= VERSION_3 { u32::from_le_bytes(data[12..16].try_into().expect("4")) } else { 0 };
    let mut at = end;
    let sections = usize::from(flags & FLAG_IDS != 0)
        + if flags & FLAG_NAMES != 0 { 2 } else { 0 }
        + usize::from(flags & FLAG_PROPS != 0);
    for _ in 0..sections {
        at += ids::seal(&mut data[at..]);
    }
}

/// Whether `data` starts like a binary graph file.
pub fn has_magic(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// The bytes of a binary graph, read at given offsets so that chunks load in parallel.
pub trait Source: Sync {
    /// Reads into `buf` from `offset` on; returns the bytes read, 0 at the end.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize>;
}

impl Source for std::fs::File {
    #[cfg(unix)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }

    #[cfg(windows)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(self, buf, offset)
    }
}

impl Source for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let rest = usize::try_from(offset).ok().and_then(|at| self.get(at..)).unwrap_or_default();
        let k = buf.len().min(rest.len());
        buf[..k].copy_from_slice(&rest[..k]);
        Ok(k)
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
    fn maps(self, len: u64, memory: impl FnOnce() -> Option<u64>) -> bool {
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
        VERSION => FLAG_DIRECTED | FLAG_IDS | FLAG_NAMES | FLAG_PROPS,
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
    if len != end {
        let what = if len < end { "truncated file" } else { "trailing bytes" };
        return Err(bad(format!("{what}: {len} bytes, the header and sections imply {end}")));
    }
    Ok(Layout { version, counts, payload_len, sum, vertex_ids, label_names, properties })
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
fn decode_mapped(file: &Path, map: Arc<Mmap>) -> Result<Graph, Error> {
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
/// the payload.
fn finish(file: &Path, mut g: Graph, pairs: &[u32], layout: Layout) -> Result<Graph, Error> {
    let bad = |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg };
    g.pairs = pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    validate::validate(&g).map_err(|m| bad(format!("invalid graph: {m}")))?;
    if let Some(names) = &layout.label_names {
        names.check(&g.vlabel_values, &g.elabel_values).map_err(|m| bad(format!("invalid graph: {m}")))?;
    }
    g.ids = layout.vertex_ids.map(Arc::new);
    g.label_names = layout.label_names.filter(|n| !n.is_empty()).map(Arc::new);
    g.properties = layout.properties.map(Arc::new);
    Ok(g)
}

/// Fills `buf` from `src` at `at`.
fn read_exact_at<S: Source + ?Sized>(file: &Path, src: &S, mut buf: &mut [u8], mut at: u64) -> Result<(), Error> {
    while !buf.is_empty() {
        match src.read_at(buf, at) {
            Ok(0) => {
                return Err(Error::Parse {
                    file: file.to_path_buf(),
                    line: 0,
                    msg: "truncated file: it ended while being read".into(),
                })
            }
            Ok(k) => {
                buf = &mut buf[k..];
                at += k as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => return Err(Error::Io { file: file.to_path_buf(), source }),
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Column, Dir, GraphBuilder, Properties, Values, VertexIds};

    fn sample(directed: bool) -> Graph {
        let mut b = GraphBuilder::new(7, directed);
        b.set_labels(vec![3, 1, 3, 9, 1, 1, 3]);
        for &(u, v, l) in &[(0, 1, 0), (0, 2, 5), (1, 2, 0), (3, 4, 2), (4, 5, 0), (5, 0, 5), (2, 6, 0), (6, 3, 2)] {
            b.add_edge(u, v, l);
        }
        b.build().0
    }

    fn bytes(g: &Graph) -> Vec<u8> {
        let mut out = Vec::new();
        write(g, &mut out).unwrap();
        out
    }

    /// Decodes `data` both ways, copied and mapped (from an anonymous mapping holding it), and
    /// checks that they agree: the same graph, or both an error (the copied load's is returned).
    fn load(data: &[u8]) -> Result<Graph, Error> {
        let copied = decode(Path::new("g.sgb"), data, data.len() as u64);
        match (&copied, load_mapped(data)) {
            (Ok(a), Ok(b)) => same(a, &b),
            (Err(_), Err(Error::Parse { line: 0, .. })) | (_, Err(Error::Io { .. })) => {}
            (a, b) => panic!("the copied load gave {a:?}, the mapped one {b:?}"),
        }
        copied
    }

    fn load_mapped(data: &[u8]) -> Result<Graph, Error> {
        let io = |source| Error::Io { file: "g.sgb".into(), source };
        if data.len() < HEADER_LEN {
            return decode(Path::new("g.sgb"), data, data.len() as u64);
        }
        let mut m = memmap2::MmapMut::map_anon(data.len()).map_err(io)?;
        m.copy_from_slice(data);
        decode_mapped(Path::new("g.sgb"), Arc::new(m.make_read_only().map_err(io)?))
    }

    fn err(data: &[u8]) -> String {
        match load(data) {
            Err(e @ Error::Parse { line: 0, .. }) => e.to_string(),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    /// Recomputes both checksums, as a forger would, so that validation alone must catch damage.
    fn reseal(data: &mut [u8]) {
        seal(data);
    }

    fn same(a: &Graph, b: &Graph) {
        assert_eq!(a.is_directed(), b.is_directed());
        assert_eq!(a.labels(), b.labels());
        assert_eq!(a.num_edges(), b.num_edges());
        assert_eq!(a.edges().collect::<Vec<_>>(), b.edges().collect::<Vec<_>>());
        for v in 0..a.num_vertices() as u32 {
            assert_eq!(a.neighbors(v, Dir::In), b.neighbors(v, Dir::In));
            assert_eq!(
                a.neighbor_groups(v, Dir::Out).collect::<Vec<_>>(),
                b.neighbor_groups(v, Dir::Out).collect::<Vec<_>>()
            );
        }
        assert_eq!(a.vertices_with_label(1), b.vertices_with_label(1));
        assert_eq!(a.edge_label_values(), b.edge_label_values());
        assert_eq!(a.memory_bytes(), b.memory_bytes());
        assert_eq!(a.ids(), b.ids());
    }

    #[test]
    fn original_ids_round_trip_as_version_3_and_damage_is_an_error() {
        let numbers = VertexIds::Numbers(vec![0, 5, 6, 7, 9, 1 << 40, u64::MAX]);
        let names = VertexIds::names(&["a", "bé", "c", "d", "e", "f", "zz"]);
        for ids in [numbers, names] {
            let g = sample(true);
            let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
            b.set_ids(ids);
            let g = b.build().0;
            let data = bytes(&g);
            assert_eq!(data[8..12], VERSION_3.to_le_bytes());
            assert_eq!(data.len() % 8, 0);
            same(&g, &load(&data).unwrap());
            for i in 0..data.len() {
                let mut d = data.clone();
                d[i] ^= 0x10;
                err(&d);
            }
            for len in 0..data.len() {
                err(&data[..len]);
            }
            let mut v2 = data.clone();
            v2[8..12].copy_from_slice(&VERSION_2.to_le_bytes());
            let sum = xxh3_64(&v2[..HEADER_SUM_AT]);
            v2[HEADER_SUM_AT..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
            assert_eq!(err(&v2), "g.sgb:0: unknown flags 0x3");
        }
        assert_eq!(bytes(&sample(false))[8..12], VERSION_2.to_le_bytes());
    }

    fn named_graph_with(g: &Graph, vertex_names: &[String]) -> Graph {
        let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
        b.set_label_names(LabelNames { vertex: vertex_names.to_vec(), edge: Vec::new() });
        b.build().0
    }

    #[test]
    fn label_names_round_trip_as_version_4_and_damage_is_an_error() {
        let g = sample(true);
        let vertex_names: Vec<String> =
            (0..=*g.vertex_label_values().iter().max().unwrap()).map(|i| format!("label-{i:03}")).collect();
        let edge_names: Vec<String> =
            (0..=*g.edge_label_values().iter().max().unwrap()).map(|i| format!("e{i}")).collect();
        for (ids, edge) in
            [(None, edge_names.clone()), (Some(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g"])), Vec::new())]
        {
            let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
            if let Some(ids) = ids {
                b.set_ids(ids);
            }
            b.set_label_names(LabelNames { vertex: vertex_names.clone(), edge });
            let named = b.build().0;
            let data = bytes(&named);
            assert_eq!(data[8..12], VERSION.to_le_bytes());
            let back = load(&data).unwrap();
            same(&named, &back);
            assert_eq!(back.label_names(), named.label_names());
            assert_eq!(back.ids(), named.ids());
            for i in (HEADER_LEN..data.len()).step_by(3) {
                let mut d = data.clone();
                d[i] ^= 0x10;
                err(&d);
            }
            for len in (0..data.len()).step_by(5) {
                err(&data[..len]);
            }
        }
        // Properties: every type, values and none, through the file.
        let mut with_props = named_graph_with(&g, &vertex_names);
        let n = with_props.num_vertices();
        with_props.set_properties(Properties::new(vec![
            Column {
                name: "age".into(),
                values: Values::Int {
                    values: (0..n as i64).map(|x| x - 3).collect(),
                    present: (0..n).map(|v| v % 3 != 0).collect(),
                },
            },
            Column { name: "height".into(), values: Values::Float { values: vec![1.5; n], present: vec![true; n] } },
            Column {
                name: "név".into(),
                values: Values::Str {
                    codes: (0..n as u32).map(|v| if v % 2 == 0 { v % 4 / 2 } else { u32::MAX }).collect(),
                    dictionary: vec!["a".into(), "bé".into()],
                },
            },
        ]));
        let data = bytes(&with_props);
        let back = load(&data).unwrap();
        assert_eq!(back.properties(), with_props.properties());
        for i in (HEADER_LEN..data.len()).step_by(7) {
            let mut d = data.clone();
            d[i] ^= 0x10;
            err(&d);
        }
        // A label with no name, behind valid checksums.
        let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
        b.set_label_names(LabelNames { vertex: vertex_names[..1].to_vec(), edge: Vec::new() });
        assert!(err(&bytes(&b.build().0)).contains("has no name"));
    }

    #[test]
    fn round_trips_directed_undirected_and_empty() {
        for directed in [false, true] {
            let g = sample(directed);
            let data = bytes(&g);
            assert_eq!(data.len() % 8, 0);
            assert!(has_magic(&data));
            same(&g, &load(&data).unwrap());
            assert_eq!(bytes(&load(&data).unwrap()), data);
            let mut sealed = data.clone();
            seal(&mut sealed);
            assert_eq!(sealed, data);
        }
        let empty = GraphBuilder::new(0, false).build().0;
        assert_eq!(load(&bytes(&empty)).unwrap().num_vertices(), 0);
        let isolated = GraphBuilder::new(3, true).build().0;
        same(&isolated, &load(&bytes(&isolated)).unwrap());
    }

    #[test]
    fn every_flipped_byte_and_every_truncation_is_an_error() {
        for directed in [false, true] {
            let data = bytes(&sample(directed));
            for i in 0..data.len() {
                for bit in [0x01u8, 0x80] {
                    let mut d = data.clone();
                    d[i] ^= bit;
                    err(&d);
                }
            }
            for len in 0..data.len() {
                err(&data[..len]);
            }
            let mut longer = data.clone();
            longer.extend_from_slice(&[0; 8]);
            assert!(err(&longer).contains("trailing bytes"), "{}", err(&longer));
        }
    }

    /// Counts near 2^64 in a resealed header or id section are errors, not overflows (found by
    /// the `binary` and `binary_structured` fuzz targets on the 16-core host, 2026-11-25).
    #[test]
    fn counts_near_the_limits_are_errors_not_overflows() {
        let mut d = bytes(&sample(true));
        d[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        d[56..64].copy_from_slice(&2u64.to_le_bytes());
        seal(&mut d);
        assert!(err(&d).contains("inconsistent header"), "{}", err(&d));
        let g = sample(false);
        let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), false);
        b.set_ids(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g"]));
        let data = bytes(&b.build().0);
        let section = HEADER_LEN + u64::from_le_bytes(data[88..96].try_into().unwrap()) as usize;
        for data_len in [u64::MAX - 3, u64::MAX, 1 << 63] {
            let mut d = data.clone();
            d[section + 8..section + 16].copy_from_slice(&data_len.to_le_bytes());
            seal(&mut d);
            assert!(err(&d).contains("vertex id section: the file has"), "{}", err(&d));
        }
    }

    #[test]
    fn messages_name_the_problem() {
        let data = bytes(&sample(false));
        assert_eq!(err(&data[..100]), "g.sgb:0: 100 bytes are too few for a binary graph (the header alone is 112)");
        assert!(err(&data[..data.len() - 8]).contains("truncated file"));
        let mut d = data.clone();
        d[0] = b'X';
        assert!(err(&d).ends_with("wrong magic bytes)"));
        let mut d = data.clone();
        d[20] ^= 1;
        assert!(err(&d).ends_with("corrupt header (checksum mismatch)"));
        let mut d = data.clone();
        d[HEADER_LEN + 3] ^= 1;
        assert!(err(&d).ends_with("corrupt payload (checksum mismatch)"));
        let mut d = data.clone();
        d[8] = 5;
        reseal(&mut d);
        assert!(err(&d).ends_with("format version 5 is not supported (this build reads versions 1 to 4)"));
        let mut d = data.clone();
        d[24] += 1;
        reseal(&mut d);
        assert!(err(&d).contains("inconsistent header"), "{}", err(&d));
        let mut d = data.clone();
        d[24..32].copy_from_slice(&(1u64 << 62).to_le_bytes());
        d[32..40].copy_from_slice(&(1u64 << 63).to_le_bytes());
        reseal(&mut d);
        assert!(err(&d).ends_with("inconsistent header: the counts overflow 64-bit sizes"), "{}", err(&d));
        let mut d = data;
        d[89] ^= 1;
        reseal(&mut d);
        assert!(err(&d).contains("inconsistent header: payload of"), "{}", err(&d));
    }

    /// Damage behind valid checksums is caught by the structural checks.
    #[test]
    fn validation_catches_resealed_damage() {
        let g = sample(true);
        let data = bytes(&g);
        let n = g.num_vertices();
        let labels_at = HEADER_LEN;
        let out_offsets_at = labels_at + padded(4 * n as u64) as usize;
        let out_nbrs_at = out_offsets_at + 8 * (n + 1);
        let write32 = |d: &mut Vec<u8>, at: usize, x: u32| d[at..at + 4].copy_from_slice(&x.to_le_bytes());
        type Damage<'a> = Box<dyn Fn(&mut Vec<u8>) + 'a>;
        let cases: Vec<(Damage, &str)> = vec![
            (Box::new(|d| write32(d, out_nbrs_at, n as u32)), "out of range"),
            (Box::new(|d| write32(d, out_nbrs_at, 0)), "self loop"),
            (Box::new(|d| write32(d, out_nbrs_at + 4, 1)), "not its sorted group members"),
            (Box::new(|d| write32(d, labels_at, 77)), "not its vertices sorted by id"),
            (Box::new(|d| d[out_offsets_at + 8] += 1), "out groups of vertex 0"),
            (Box::new(|d| d[out_offsets_at + 8 * n] += 1), "out offsets do not run from 0"),
        ];
        for (damage, want) in cases {
            let mut d = data.clone();
            damage(&mut d);
            reseal(&mut d);
            let e = err(&d);
            assert!(e.contains("invalid graph") && e.contains(want), "{e} lacks {want}");
        }
    }

    /// Vertex 0 has the groups (0, 1): [1, 2, 4, 5], (0, 2): [3] and (3, 0): [6].
    fn grouped() -> Graph {
        let mut b = GraphBuilder::new(7, false);
        b.set_labels(vec![0, 1, 1, 2, 1, 1, 0]);
        for &(u, v, l) in &[(0, 1, 0), (0, 2, 0), (0, 4, 0), (0, 5, 0), (0, 3, 0), (0, 6, 3), (1, 2, 0), (4, 5, 0)] {
            b.add_edge(u, v, l);
        }
        b.build().0
    }

    /// Damage that keeps every id in range and every group's first and last neighbour of the
    /// group's label is caught by the count of breaks in the (label rank, id) order.
    #[test]
    fn validation_catches_unsorted_and_mislabelled_group_members() {
        let g = grouped();
        assert_eq!(g.neighbors(0, Dir::Out), &[1, 2, 4, 5, 3, 6]);
        let data = bytes(&g);
        let n = g.num_vertices();
        let nbrs_at = HEADER_LEN + padded(4 * n as u64) as usize + 8 * (n + 1);
        let list_at = data.len() - 8 - padded(4 * n as u64) as usize;
        let cases: [(&[u32], usize, &str); 6] = [
            (&[1, 3, 4, 5, 3, 6], nbrs_at, "out neighbours of vertex 0 are not its sorted group members"),
            (&[1, 4, 2, 5, 3, 6], nbrs_at, "out neighbours of vertex 0 are not its sorted group members"),
            (&[1, 2, 2, 5, 3, 6], nbrs_at, "out neighbours of vertex 0 are not its sorted group members"),
            (
                &[1, 2, 4, 5, 3, 0],
                nbrs_at,
                "out neighbours of vertex 0: an id out of range (7 vertices) or a self loop",
            ),
            (&[6, 0, 1, 2, 4, 5], list_at, "the vertex list of label 0 is not its vertices sorted by id"),
            (&[0, 6, 1, 2, 3, 4], list_at, "the vertex list of label 1 is not its vertices sorted by id"),
        ];
        for (values, at, want) in cases {
            let mut d = data.clone();
            for (i, x) in values.iter().enumerate() {
                d[at + 4 * i..at + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
            }
            reseal(&mut d);
            assert_eq!(err(&d), format!("g.sgb:0: invalid graph: {want}"));
        }
    }

    /// Byte offset of the `i`-th array of the payload of `g` (0: vertex labels, 1 to 5: out
    /// offsets, neighbours, group offsets, group pairs, group ends, then in-adjacency's five).
    fn array_at(g: &Graph, i: usize) -> usize {
        HEADER_LEN + Counts::of(g).arrays()[..i].iter().map(|&(len, size)| padded(len * size) as usize).sum::<usize>()
    }

    /// Overwrites the `k`-th u32 of the `i`-th array, reseals and returns the error.
    fn forge(g: &Graph, edits: &[(usize, usize, u32)]) -> String {
        let mut d = bytes(g);
        for &(i, k, x) in edits {
            let at = array_at(g, i) + 4 * k;
            d[at..at + 4].copy_from_slice(&x.to_le_bytes());
        }
        reseal(&mut d);
        err(&d)
    }

    fn built(n: usize, directed: bool, edges: &[(u32, u32, u32)]) -> Graph {
        let mut b = GraphBuilder::new(n, directed);
        edges.iter().for_each(|&(u, v, l)| b.add_edge(u, v, l));
        b.build().0
    }

    /// Found by fuzzing (`binary_structured`): one neighbour id overwritten behind valid
    /// checksums left an undirected graph's edge at one end only, and it loaded.
    #[test]
    fn validation_catches_edges_stored_at_one_end() {
        let asymmetric = "g.sgb:0: invalid graph: the adjacency is not symmetric: an edge is stored at one end only, \
                          or with another label at its other end";
        // The fuzzer's case: out neighbours [6, 7, 0, 1] of vertices 0, 1, 6, 7 become [6, 0, 0, 1].
        let g = built(18, false, &[(7, 1, 2), (0, 6, 2)]);
        assert_eq!(forge(&g, &[(2, 1, 0)]), asymmetric);
        // An edge of label 0 at one end and 1 at the other: vertex 1's group names pair (1, 0).
        let g = built(3, false, &[(0, 1, 0), (0, 2, 1)]);
        assert_eq!(g.pair(1), (1, 0));
        assert_eq!(forge(&g, &[(4, 2, 1)]), asymmetric);
        // Directed: in-neighbours [0] of 1 and [1] of 2 become [0] and [0]: arc 1 -> 2 is stored
        // as 0 -> 2 at its head.
        let g = built(3, true, &[(0, 1, 0), (1, 2, 0)]);
        assert_eq!(
            forge(&g, &[(7, 1, 0)]),
            "g.sgb:0: invalid graph: the in-adjacency is not the out-adjacency reversed: an arc is stored at one \
             end only, or with another label at its other end"
        );
    }

    /// Found by fuzzing (`binary_structured`, the 16-core host): a label pair that no group
    /// has, behind valid checksums, loaded.
    #[test]
    fn validation_catches_unused_label_pairs() {
        // Pairs (0, 0) and (1, 0); the groups of vertices 2 and 3 (the edge of label 1) name
        // pair 0 instead, at both ends: a consistent graph whose table lists a pair too many.
        let g = built(4, false, &[(0, 1, 0), (2, 3, 1)]);
        assert_eq!((g.num_pairs(), g.pair(1)), (2, (1, 0)));
        assert_eq!(
            forge(&g, &[(4, 2, 0), (4, 3, 0)]),
            "g.sgb:0: invalid graph: label pair (1, 0) is in the table but no edge has it"
        );
    }

    /// Found by fuzzing (`binary`, the 16-core host): an edge label in the table that no label
    /// pair has, behind valid checksums, loaded.
    #[test]
    fn validation_catches_unused_edge_labels() {
        // Vertex 4 (label 1) has no edge; the pairs are (0, 0) and (5, 0).
        let mut b = GraphBuilder::new(5, false);
        b.set_labels(vec![0, 0, 0, 0, 1]);
        [(0, 1, 0), (2, 3, 5)].iter().for_each(|&(u, v, l)| b.add_edge(u, v, l));
        let g = b.build().0;
        assert_eq!((g.pair(1), g.edge_label_values()), ((5, 0), &[0, 5][..]));
        // The pair table (array 6) says (0, 1) instead of (5, 0): sorted, its labels in the
        // tables, but edge label 5 on no pair.
        assert_eq!(
            forge(&g, &[(6, 2, 0), (6, 3, 1)]),
            "g.sgb:0: invalid graph: edge label 5 is in the table but no edge has it"
        );
    }

    /// Found by fuzzing (`binary_structured`): a neighbour in two groups of different edge
    /// labels (parallel edges, which the builder never writes) loaded.
    #[test]
    fn validation_catches_parallel_edges() {
        // Vertex 0's groups (0, 0): [1] and (1, 0): [2] become [1] and [1].
        let g = built(3, false, &[(0, 1, 0), (0, 2, 1)]);
        assert_eq!(g.neighbors(0, Dir::Out), &[1, 2]);
        assert_eq!(
            forge(&g, &[(2, 1, 1)]),
            "g.sgb:0: invalid graph: out neighbours of vertex 0: a neighbour twice (parallel edges)"
        );
    }

    /// What the fast validation stands for, checked the slow way: every group sorted by id,
    /// holding in-range neighbours of its label other than the vertex, every label's vertex
    /// list its vertices.
    fn invariants_hold(g: &Graph) -> bool {
        let n = g.num_vertices() as u32;
        let groups_ok = (0..n).all(|v| {
            [Dir::Out, Dir::In].iter().all(|&dir| {
                g.neighbor_groups(v, dir).all(|(pair, nbrs)| {
                    nbrs.windows(2).all(|w| w[0] < w[1])
                        && nbrs.iter().all(|&w| w < n && w != v && g.label(w) == g.pair(pair).1)
                })
            })
        });
        groups_ok
            && g.vertex_label_values()
                .iter()
                .all(|&l| g.vertices_with_label(l).iter().copied().eq((0..n).filter(|&v| g.label(v) == l)))
    }

    /// Any u32 of the payload, or any two at random, replaced by small ids, labels and counts
    /// behind valid checksums: the file is rejected, or its graph meets every invariant the
    /// matcher relies on.
    #[test]
    fn forged_payloads_are_rejected_or_valid() {
        let mut x = 7u64;
        let mut next = move |below: usize| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as usize % below
        };
        for g in [grouped(), sample(true), sample(false)] {
            let data = bytes(&g);
            let slots = (data.len() - HEADER_LEN) / 4;
            let values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, u32::MAX];
            let single = (0..slots).flat_map(|i| values.iter().map(move |&x| vec![(i, x)]));
            let double = (0..10_000).map(|_| (0..2).map(|_| (next(slots), values[next(values.len())])).collect());
            let (mut accepted, mut rejected) = (0, 0);
            for damage in single.chain(double).collect::<Vec<Vec<(usize, u32)>>>() {
                let mut d = data.clone();
                for &(i, x) in &damage {
                    let at = HEADER_LEN + 4 * i;
                    d[at..at + 4].copy_from_slice(&x.to_le_bytes());
                }
                reseal(&mut d);
                match load(&d) {
                    Ok(forged) => {
                        assert!(invariants_hold(&forged), "{damage:?}");
                        accepted += 1;
                    }
                    Err(_) => rejected += 1,
                }
            }
            assert!(accepted > 0 && rejected > accepted, "{accepted} accepted, {rejected} rejected");
        }
    }

    /// The payload checksum is the XXH3-64 of the chunks' XXH3-64s, whose damage in any chunk
    /// is found; the chunks are read in parallel.
    #[test]
    fn round_trips_a_graph_of_several_chunks() {
        let n = 300_000u32;
        let mut b = GraphBuilder::new(n as usize, true);
        b.set_labels((0..n).map(|v| v % 5).collect());
        let mut x = 1u64;
        for _ in 0..400_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            b.add_edge((x >> 33) as u32 % n, (x >> 13) as u32 % n, (x % 3) as u32);
        }
        let g = b.build().0;
        let data = bytes(&g);
        let payload = &data[HEADER_LEN..];
        assert!(payload.len() > 5 * CHUNK);
        let sums: Vec<u8> = payload.chunks(CHUNK).flat_map(|c| xxh3_64(c).to_le_bytes()).collect();
        assert_eq!(data[96..104], xxh3_64(&sums).to_le_bytes());
        same(&g, &load(&data).unwrap());
        for at in [HEADER_LEN + 2 * CHUNK + 5, data.len() - 9] {
            let mut d = data.clone();
            d[at] ^= 0x10;
            assert!(err(&d).ends_with("corrupt payload (checksum mismatch)"), "{}", err(&d));
        }
        assert!(err(&data[..data.len() - CHUNK]).contains("truncated file"));
    }

    #[test]
    fn reads_files_and_checks_the_length_first() {
        let dir = std::env::temp_dir().join(format!("sgb-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.sgb");
        let g = sample(false);
        write(&g, std::fs::File::create(&path).unwrap()).unwrap();
        same(&g, &read(&path, MapMode::Off).unwrap());
        let mapped = read(&path, MapMode::On).unwrap();
        same(&g, &mapped);
        assert!(mapped.mapped_bytes() > 0 && mapped.mapped_bytes() < mapped.memory_bytes());
        assert_eq!(read(&path, MapMode::Auto).unwrap().mapped_bytes(), 0, "a small file is read");
        // Found by its magic bytes whatever the extension.
        let other = dir.join("a.bin");
        std::fs::copy(&path, &other).unwrap();
        same(&g, &super::super::read_graph(&other, &Default::default()).unwrap().graph);
        let data = std::fs::read(&path).unwrap();
        std::fs::write(&path, &data[..data.len() - 1]).unwrap();
        for mode in [MapMode::Off, MapMode::On] {
            let e = read(&path, mode).unwrap_err().to_string();
            assert!(e.contains("a.sgb:0: truncated file"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn auto_maps_files_larger_than_half_the_memory() {
        let little = cfg!(target_endian = "little");
        assert_eq!(MapMode::Auto.maps(600, || Some(1000)), little);
        assert!(!MapMode::Auto.maps(500, || Some(1000)));
        assert!(!MapMode::Auto.maps(600, || None), "unknown memory: read");
        assert_eq!(MapMode::On.maps(1, || Some(1000)), little);
        assert!(!MapMode::Off.maps(u64::MAX, || Some(1000)));
        for &name in MapMode::NAMES {
            assert!(MapMode::from_name(name).is_some());
        }
    }
}
