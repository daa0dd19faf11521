//! The manifest of a partitioned graph (`manifest.json`): its version, the number of parts,
//! the vertex and edge counts, the rule that assigns vertices to parts and each part file's
//! size and XXH3-64. Loading it checks every field, so a part is only read once the manifest
//! is known to describe a partition (the vertex partitioning BiGJoin assumes, VLDB 2018 §4).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the `format` field says (core's reader names a manifest given as a graph by it).
pub const FORMAT: &str = subgraph_core::io::PARTITION_FORMAT;
/// The manifest version this build writes and reads.
pub const VERSION: u32 = 1;
/// The most parts a partition may have.
pub const MAX_PARTS: usize = 1 << 16;
/// The largest manifest read (a manifest of [`MAX_PARTS`] parts is about 8 MiB).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// How vertices are assigned to parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "lowercase")]
pub enum Assignment {
    /// Part `splitmix64(v) mod parts` (the finaliser of SplitMix64 on the vertex id).
    Hash,
    /// Part p holds the ids from `starts[p]` up to the next start (or the vertex count):
    /// contiguous ranges balanced by adjacency size.
    Range { starts: Vec<u32> },
}

/// One part file: its name in the manifest's folder, size, checksum and what it owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartFile {
    pub file: String,
    pub bytes: u64,
    /// XXH3-64 of the whole file, 16 lowercase hexadecimal digits.
    pub xxh3: String,
    /// Vertices the part owns.
    pub vertices: u64,
    /// Edges the part holds: those with an endpoint it owns.
    pub edges: u64,
}

/// A partition of a data graph into part files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub parts: usize,
    pub vertices: u64,
    pub edges: u64,
    pub directed: bool,
    pub assignment: Assignment,
    pub files: Vec<PartFile>,
}

/// SplitMix64's finaliser: the hash of the `hash` rule.
pub fn splitmix64(v: u32) -> u64 {
    let mut z = (v as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Assignment {
    /// The part of vertex `v` among `parts`.
    pub fn part(&self, v: u32, parts: usize) -> usize {
        match self {
            Assignment::Hash => (splitmix64(v) % parts as u64) as usize,
            Assignment::Range { starts } => starts.partition_point(|&s| s <= v) - 1,
        }
    }

    /// The rule's name, as the manifest writes it.
    pub fn name(&self) -> &'static str {
        match self {
            Assignment::Hash => "hash",
            Assignment::Range { .. } => "range",
        }
    }
}

impl Manifest {
    /// The part of vertex `v`.
    pub fn part(&self, v: u32) -> usize {
        self.assignment.part(v, self.parts)
    }

    /// Reads and checks the manifest at `path`: an error names the file and the problem.
    pub fn load(path: &Path) -> Result<Manifest> {
        let len = std::fs::metadata(path).map_err(|e| Error::manifest(path, e.to_string()))?.len();
        if len > MAX_MANIFEST_BYTES {
            return Err(Error::manifest(path, format!("{len} bytes, more than a manifest's {MAX_MANIFEST_BYTES}")));
        }
        let text = std::fs::read(path).map_err(|e| Error::manifest(path, e.to_string()))?;
        let m: Manifest = serde_json::from_slice(&text)
            .map_err(|e| Error::manifest(path, format!("not a partition manifest: {e}")))?;
        m.check().map_err(|problem| Error::manifest(path, problem))?;
        Ok(m)
    }

    /// Checks that the fields describe a partition.
    pub fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is '{}', not '{FORMAT}'", self.format));
        }
        if self.version != VERSION {
            return Err(format!("version {} (this build reads version {VERSION})", self.version));
        }
        if self.parts == 0 || self.parts > MAX_PARTS {
            return Err(format!("{} parts (1 to {MAX_PARTS} allowed)", self.parts));
        }
        if self.files.len() != self.parts {
            return Err(format!("{} parts but {} files", self.parts, self.files.len()));
        }
        if self.vertices > u32::MAX as u64 {
            return Err(format!("{} vertices, more than ids of 32 bits hold", self.vertices));
        }
        if let Assignment::Range { starts } = &self.assignment {
            if starts.len() != self.parts {
                return Err(format!("{} range starts for {} parts", starts.len(), self.parts));
            }
            if starts[0] != 0 {
                return Err(format!("the first range starts at {}, not 0", starts[0]));
            }
            if let Some(w) = starts.windows(2).find(|w| w[0] > w[1]) {
                return Err(format!("range starts decrease ({} then {})", w[0], w[1]));
            }
            if starts.iter().any(|&s| s as u64 > self.vertices) {
                return Err(format!("a range starts past the {} vertices", self.vertices));
            }
        }
        let mut names = std::collections::HashSet::new();
        for (p, f) in self.files.iter().enumerate() {
            let plain = !f.file.is_empty() && !f.file.contains(['/', '\\', '\0']) && f.file != "." && f.file != "..";
            if !plain {
                return Err(format!("part {p}'s file name '{}' is not a plain file name", f.file));
            }
            if !names.insert(f.file.as_str()) {
                return Err(format!("part {p}'s file '{}' is named twice", f.file));
            }
            if f.xxh3.len() != 16 || !f.xxh3.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
                return Err(format!("part {p}'s checksum '{}' is not 16 lowercase hexadecimal digits", f.xxh3));
            }
            if f.vertices > self.vertices || f.edges > self.edges {
                return Err(format!("part {p} owns more vertices or edges than the graph has"));
            }
        }
        let owned: u64 = self.files.iter().map(|f| f.vertices).sum();
        if owned != self.vertices {
            return Err(format!("the parts own {owned} vertices, the graph has {}", self.vertices));
        }
        Ok(())
    }
}

/// The checksum of a part file's bytes, as the manifest writes it.
pub fn checksum(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}
