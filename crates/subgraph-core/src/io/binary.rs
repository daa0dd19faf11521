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
//! | 96 | XXH3-64 of the payload, XXH3-64 of header bytes 0..104 |
//! | 112 | payload |
//!
//! The payload holds, each array padded with zero bytes to a multiple of 8: vertex labels (u32),
//! out offsets (u64), out neighbours (u32), out group offsets (u64), out group pairs (u32), out
//! group ends (u32), the same five for in-adjacency when directed, the pairs as (edge label,
//! vertex label) u32 pairs, vertex label values (u32), vertex label offsets (u64), vertices by
//! label (u32), edge label values (u32).

use crate::error::Error;
use crate::graph::{Adjacency, Graph};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The first eight bytes of every `.sgb` file.
pub const MAGIC: [u8; 8] = *b"\x89SGB\r\n\x1a\n";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 112;
const FLAG_DIRECTED: u32 = 1;
/// Offset of the header checksum; the checksum covers the bytes before it.
const HEADER_SUM_AT: usize = 104;
/// Bytes read (and hashed) at a time, so hashing runs on data still in cache.
const CHUNK: usize = 1 << 22;
/// Vertices per parallel validation work item.
const VALIDATE_CHUNK: usize = 4096;

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
        if c.pairs > 1 << 32 || c.pairs > c.out_groups + c.in_groups {
            return Err(format!("{} label pairs for {} groups", c.pairs, c.out_groups + c.in_groups));
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

/// Writes `g` in the binary format.
pub fn write<W: Write>(g: &Graph, mut w: W) -> std::io::Result<()> {
    let counts = Counts::of(g);
    let pairs: Vec<u32> = g.pairs.iter().flat_map(|&(e, v)| [e, v]).collect();
    let sections = sections(g, &pairs);
    let zeros = [0u8; 8];
    let mut hasher = Xxh3::new();
    let mut payload_len = 0u64;
    for s in &sections {
        let b = s.bytes();
        let pad = padded(b.len() as u64) as usize - b.len();
        hasher.update(&b);
        hasher.update(&zeros[..pad]);
        payload_len += (b.len() + pad) as u64;
    }
    let mut head = Vec::with_capacity(HEADER_LEN);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&(if counts.directed { FLAG_DIRECTED } else { 0 }).to_le_bytes());
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
        hasher.digest(),
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
    w.flush()
}

/// Whether `data` starts like a binary graph file.
pub fn has_magic(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// Whether the file at `path` starts with the binary format's magic bytes.
pub fn file_has_magic(path: &Path) -> Result<bool, Error> {
    let mut head = [0u8; 8];
    let mut f = std::fs::File::open(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => return Err(Error::Io { file: path.to_path_buf(), source }),
        }
    }
    Ok(has_magic(&head[..got]))
}

/// Reads and validates a binary graph file.
pub fn read(path: &Path) -> Result<Graph, Error> {
    let io = |source| Error::Io { file: path.to_path_buf(), source };
    let f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    decode(path, f, len)
}

/// Reads and validates a binary graph of `len` bytes from `r`; `file` names it in errors.
/// Every array is read straight into its vector; nothing is allocated before the header was
/// checked against `len`.
pub fn decode<R: Read>(file: &Path, r: R, len: u64) -> Result<Graph, Error> {
    let bad = |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg };
    let mut rd = Reader { file, r, hasher: Xxh3::new() };
    if len < HEADER_LEN as u64 {
        return Err(bad(format!("{len} bytes are too few for a binary graph (the header alone is {HEADER_LEN})")));
    }
    let mut head = [0u8; HEADER_LEN];
    rd.read_raw(&mut head)?;
    if !has_magic(&head) {
        return Err(bad("not a binary graph file (wrong magic bytes)".into()));
    }
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    if u64_at(HEADER_SUM_AT) != xxh3_64(&head[..HEADER_SUM_AT]) {
        return Err(bad("corrupt header (checksum mismatch)".into()));
    }
    let version = u32_at(8);
    if version != VERSION {
        return Err(bad(format!("format version {version} is not supported (this build reads version {VERSION})")));
    }
    let flags = u32_at(12);
    if flags & !FLAG_DIRECTED != 0 {
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
    let expected = HEADER_LEN as u64 + payload_len;
    if len != expected {
        let what = if len < expected { "truncated file" } else { "trailing bytes" };
        return Err(bad(format!("{what}: {len} bytes, the header implies {expected}")));
    }

    let n = counts.vertices as usize;
    let labels = rd.u32s(n)?;
    let out = rd.adjacency(n, counts.out_entries, counts.out_groups)?;
    let inc = if counts.directed { Some(rd.adjacency(n, counts.in_entries, counts.in_groups)?) } else { None };
    let flat_pairs = rd.u32s(2 * counts.pairs as usize)?;
    let vlabel_values = rd.u32s(counts.vertex_labels as usize)?;
    let vlabel_offsets = rd.u64s(counts.vertex_labels as usize + 1)?;
    let vlabel_vertices = rd.u32s(n)?;
    let elabel_values = rd.u32s(counts.edge_labels as usize)?;
    let mut extra = [0u8; 1];
    if rd.r.read(&mut extra).map_err(|source| Error::Io { file: file.to_path_buf(), source })? != 0 {
        return Err(bad("trailing bytes: the file grew while it was read".into()));
    }
    if rd.hasher.digest() != sum {
        return Err(bad("corrupt payload (checksum mismatch)".into()));
    }
    let pairs = flat_pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let g = Graph {
        directed: counts.directed,
        labels,
        num_edges: counts.edges,
        out,
        inc,
        pairs,
        vlabel_values,
        vlabel_offsets,
        vlabel_vertices,
        elabel_values,
        elabel_counts: Default::default(),
    };
    validate(&g).map_err(|m| bad(format!("invalid graph: {m}")))?;
    Ok(g)
}

/// Reads the payload's arrays, hashing every byte.
struct Reader<'a, R> {
    file: &'a Path,
    r: R,
    hasher: Xxh3,
}

impl<R: Read> Reader<'_, R> {
    fn read_raw(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.r.read_exact(buf).map_err(|source| match source.kind() {
            std::io::ErrorKind::UnexpectedEof => Error::Parse {
                file: self.file.to_path_buf(),
                line: 0,
                msg: "truncated file: it ended while being read".into(),
            },
            _ => Error::Io { file: self.file.to_path_buf(), source },
        })
    }

    /// Fills `buf` and the padding after it, hashing both; the padding must be zeros.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        for chunk in buf.chunks_mut(CHUNK) {
            self.read_raw(chunk)?;
            self.hasher.update(chunk);
        }
        let mut pad = [0u8; 8];
        let pad = &mut pad[..padded(buf.len() as u64) as usize - buf.len()];
        self.read_raw(pad)?;
        self.hasher.update(pad);
        if pad.iter().any(|&b| b != 0) {
            return Err(Error::Parse {
                file: self.file.to_path_buf(),
                line: 0,
                msg: "corrupt payload (non-zero padding)".into(),
            });
        }
        Ok(())
    }

    fn u32s(&mut self, len: usize) -> Result<Vec<u32>, Error> {
        let mut v = vec![0u32; len];
        self.fill(bytemuck::cast_slice_mut(&mut v))?;
        if cfg!(target_endian = "big") {
            v.iter_mut().for_each(|x| *x = u32::from_le(*x));
        }
        Ok(v)
    }

    fn u64s(&mut self, len: usize) -> Result<Vec<u64>, Error> {
        let mut v = vec![0u64; len];
        self.fill(bytemuck::cast_slice_mut(&mut v))?;
        if cfg!(target_endian = "big") {
            v.iter_mut().for_each(|x| *x = u64::from_le(*x));
        }
        Ok(v)
    }

    fn adjacency(&mut self, n: usize, entries: u64, groups: u64) -> Result<Adjacency, Error> {
        Ok(Adjacency {
            offsets: self.u64s(n + 1)?,
            nbrs: self.u32s(entries as usize)?,
            group_offsets: self.u64s(n + 1)?,
            group_pair: self.u32s(groups as usize)?,
            group_end: self.u32s(groups as usize)?,
        })
    }
}

fn strictly_increasing<T: PartialOrd + Sync>(v: &[T]) -> bool {
    v.par_windows(2).all(|w| w[0] < w[1])
}

/// Offsets start at 0, never decrease and end at `total`.
fn check_offsets(what: &str, offsets: &[u64], total: usize) -> Result<(), String> {
    if offsets.first() != Some(&0) || offsets.last() != Some(&(total as u64)) {
        return Err(format!("{what} do not run from 0 to {total}"));
    }
    if !offsets.par_windows(2).all(|w| w[0] <= w[1]) {
        return Err(format!("{what} decrease"));
    }
    Ok(())
}

/// Checks everything the accessors of [`Graph`] rely on: offsets, ids in range, groups sorted
/// and consistent with their pairs, the label tables sorted and complete.
fn validate(g: &Graph) -> Result<(), String> {
    let n = g.labels.len();
    if !strictly_increasing(&g.vlabel_values) {
        return Err("vertex label values are not sorted and distinct".into());
    }
    if !strictly_increasing(&g.elabel_values) {
        return Err("edge label values are not sorted and distinct".into());
    }
    if !strictly_increasing(&g.pairs) {
        return Err("label pairs are not sorted and distinct".into());
    }
    if let Some(&(e, v)) = g
        .pairs
        .iter()
        .find(|(e, v)| g.elabel_values.binary_search(e).is_err() || g.vlabel_values.binary_search(v).is_err())
    {
        return Err(format!("label pair ({e}, {v}) names a label missing from the label tables"));
    }
    check_offsets("vertex label offsets", &g.vlabel_offsets, n)?;
    // Each vertex listed under a label carries it and the lists are strictly increasing; as they
    // hold n entries in all, every vertex is listed exactly once and every label is in the table.
    (0..g.vlabel_values.len()).into_par_iter().try_for_each(|i| {
        let list = &g.vlabel_vertices[g.vlabel_offsets[i] as usize..g.vlabel_offsets[i + 1] as usize];
        let want = g.vlabel_values[i];
        let mut prev: Option<u32> = None;
        for &v in list {
            if v as usize >= n || g.labels[v as usize] != want || prev.is_some_and(|p| p >= v) {
                return Err(format!("the vertex list of label {want} is not its vertices sorted by id"));
            }
            prev = Some(v);
        }
        Ok(())
    })?;
    match g.vlabel_values.len() {
        0..=0x100 => validate_adjacencies::<u8>(g),
        0x101..=0x10000 => validate_adjacencies::<u16>(g),
        _ => validate_adjacencies::<u32>(g),
    }
}

/// Checks both adjacencies against vertex label ranks held in the narrowest integer type `T`
/// that fits them: the per-neighbour label check gathers from a table a quarter or half the
/// size of the labels, which keeps it in cache on large graphs.
fn validate_adjacencies<T: TryFrom<usize> + Copy + Eq + Send + Sync>(g: &Graph) -> Result<(), String> {
    let rank = |l: u32| g.vlabel_values.binary_search(&l).ok().and_then(|r| T::try_from(r).ok());
    let missing = || "a vertex label missing from the label table".to_string();
    let ranks: Vec<T> = g.labels.par_iter().map(|&l| rank(l)).collect::<Option<_>>().ok_or_else(missing)?;
    let pair_ranks: Vec<T> = g.pairs.iter().map(|&(_, l)| rank(l)).collect::<Option<_>>().ok_or_else(missing)?;
    validate_adjacency("out", &ranks, &pair_ranks, &g.out)?;
    if let Some(inc) = &g.inc {
        validate_adjacency("in", &ranks, &pair_ranks, inc)?;
    }
    Ok(())
}

fn validate_adjacency<T: Copy + Eq + Sync>(
    dir: &str,
    ranks: &[T],
    pair_ranks: &[T],
    a: &Adjacency,
) -> Result<(), String> {
    let n = ranks.len();
    check_offsets(&format!("{dir} offsets"), &a.offsets, a.nbrs.len())?;
    check_offsets(&format!("{dir} group offsets"), &a.group_offsets, a.group_pair.len())?;
    (0..n).into_par_iter().with_min_len(VALIDATE_CHUNK).try_for_each(|v| {
        let nbrs = &a.nbrs[a.offsets[v] as usize..a.offsets[v + 1] as usize];
        let (gs, ge) = (a.group_offsets[v] as usize, a.group_offsets[v + 1] as usize);
        let (keys, ends) = (&a.group_pair[gs..ge], &a.group_end[gs..ge]);
        // A branch-free pass over the ids, the group table, then each group's order and labels.
        if nbrs.iter().fold(false, |bad, &w| bad | (w as usize >= n) | (w as usize == v)) {
            return Err(format!("{dir} neighbours of vertex {v}: an id out of range ({n} vertices) or a self loop"));
        }
        let table_ok = match (keys.last(), ends.first(), ends.last()) {
            (Some(&k), Some(&first), Some(&last)) => {
                (k as usize) < pair_ranks.len() && first > 0 && last as usize == nbrs.len()
            }
            _ => nbrs.is_empty(),
        };
        if !table_ok || !keys.windows(2).all(|w| w[0] < w[1]) || !ends.windows(2).all(|w| w[0] < w[1]) {
            return Err(format!(
                "{dir} groups of vertex {v} are not sorted pairs ending in order at its degree {}",
                nbrs.len()
            ));
        }
        let mut start = 0;
        for (&key, &end) in keys.iter().zip(ends) {
            let want = pair_ranks[key as usize];
            let group = &nbrs[start..end as usize];
            if !group.windows(2).all(|w| w[0] < w[1]) || group.iter().any(|&w| ranks[w as usize] != want) {
                return Err(format!("{dir} neighbours of vertex {v} are not its sorted group members"));
            }
            start = end as usize;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Dir, GraphBuilder};

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

    fn load(data: &[u8]) -> Result<Graph, Error> {
        decode(Path::new("g.sgb"), data, data.len() as u64)
    }

    fn err(data: &[u8]) -> String {
        match load(data) {
            Err(e @ Error::Parse { line: 0, .. }) => e.to_string(),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    /// Recomputes both checksums, as a forger would, so that validation alone must catch damage.
    fn reseal(data: &mut [u8]) {
        let sum = xxh3_64(&data[HEADER_LEN..]);
        data[96..104].copy_from_slice(&sum.to_le_bytes());
        let head = xxh3_64(&data[..HEADER_SUM_AT]);
        data[HEADER_SUM_AT..HEADER_LEN].copy_from_slice(&head.to_le_bytes());
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
        d[8] = 2;
        reseal(&mut d);
        assert!(err(&d).contains("format version 2 is not supported"));
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

    #[test]
    fn reads_files_and_checks_the_length_first() {
        let dir = std::env::temp_dir().join(format!("sgb-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.sgb");
        let g = sample(false);
        write(&g, std::fs::File::create(&path).unwrap()).unwrap();
        assert!(file_has_magic(&path).unwrap());
        same(&g, &read(&path).unwrap());
        // Found by its magic bytes whatever the extension.
        let other = dir.join("a.bin");
        std::fs::copy(&path, &other).unwrap();
        same(&g, &super::super::read_graph(&other, &Default::default()).unwrap().graph);
        let data = std::fs::read(&path).unwrap();
        std::fs::write(&path, &data[..data.len() - 1]).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("a.sgb:0: truncated file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
