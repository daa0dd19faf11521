//! The `.sgb` layout that writing (`write`) and reading (`read`) share: the header's
//! constants and counts, the padding of the payload's arrays, the chunked payload checksum of
//! version 2, and reads at offsets ([`Source`]), which the sections after the payload (`ids`,
//! `props`) use too.

use crate::error::Error;
use crate::graph::Graph;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// The first eight bytes of every `.sgb` file.
pub const MAGIC: [u8; 8] = *b"\x89SGB\r\n\x1a\n";

/// The newest format version, written for graphs with label sets or self loops.
pub const VERSION: u32 = 5;
/// The version written for graphs with label names or vertex properties, and neither label
/// sets nor self loops.
pub const VERSION_4: u32 = 4;
/// The version written for graphs with original vertex ids and no label names.
pub const VERSION_3: u32 = 3;
/// The version written for graphs without original ids (the chunked payload checksum).
pub const VERSION_2: u32 = 2;
/// The version whose payload checksum hashes the payload as one stream; still read.
pub(super) const VERSION_1: u32 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 112;
pub(super) const FLAG_DIRECTED: u32 = 1;
/// Version 3: an id section follows the payload.
pub(super) const FLAG_IDS: u32 = 2;
/// Version 4: label name sections follow the payload and the id section.
pub(super) const FLAG_NAMES: u32 = 4;
/// Version 4: the vertex property section follows them.
pub(super) const FLAG_PROPS: u32 = 8;
/// Version 5: the label set section (self loops and label sets) follows every other section.
pub(super) const FLAG_SETS: u32 = 16;
/// Offset of the header checksum; the checksum covers the bytes before it.
pub(super) const HEADER_SUM_AT: usize = 104;
/// Payload bytes per chunk of the version 2 checksum; also the unit of the parallel reads.
pub(super) const CHUNK: usize = 1 << 20;

/// The counts of the header, from which every array length follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) directed: bool,
    pub(super) vertices: u64,
    pub(super) edges: u64,
    pub(super) out_entries: u64,
    pub(super) out_groups: u64,
    pub(super) in_entries: u64,
    pub(super) in_groups: u64,
    pub(super) pairs: u64,
    pub(super) vertex_labels: u64,
    pub(super) edge_labels: u64,
}

impl Counts {
    pub(super) fn of(g: &Graph) -> Counts {
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
    pub(super) fn arrays(&self) -> Vec<(u64, u64)> {
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
    pub(super) fn check(&self) -> Result<u64, String> {
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

pub(super) fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(8) * 8
}

/// The version 2 payload checksum from the XXH3-64 of each chunk.
pub(super) fn of_chunk_sums(sums: &[u64]) -> u64 {
    let bytes: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
    xxh3_64(&bytes)
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

/// Fills `buf` from `src` at `at`.
pub(super) fn read_exact_at<S: Source + ?Sized>(
    file: &Path,
    src: &S,
    mut buf: &mut [u8],
    mut at: u64,
) -> Result<(), Error> {
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
