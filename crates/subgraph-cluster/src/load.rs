//! Loading what one process of a partition owns: process i of n reads parts i, i + n,
//! i + 2n, … and nothing else, checks each against the manifest (size, XXH3-64, vertex count,
//! direction, the label table, that every edge touches a vertex the part owns) and merges them
//! into one graph whose owned vertices have their whole adjacency (BiGJoin's per-worker shard
//! of each relation, VLDB 2018 §4).

use crate::error::{Error, Result};
use crate::manifest::{checksum, splitmix64, Manifest};
use crate::partition::check_supported;
use std::path::Path;
use subgraph_core::io::binary;
use subgraph_core::{Graph, GraphBuilder};

/// One process's share of a partition.
pub struct Local {
    pub manifest: Manifest,
    /// Every vertex with its label; the owned vertices with their whole adjacency (others with
    /// at most the edges to owned vertices, never read).
    pub graph: Graph,
    pub process: usize,
    pub processes: usize,
    /// The parts this process read.
    pub parts: Vec<usize>,
}

impl Local {
    /// The process that owns vertex `v`.
    pub fn owner(&self, v: u32) -> usize {
        self.manifest.part(v) % self.processes
    }

    /// The worker that owns vertex `v` when each process runs `threads` timely workers
    /// (timely numbers process p's workers p × threads, …): one of its process's, by a hash of
    /// `v`. It filters `v` and starts the matches rooted at `v`.
    pub fn worker(&self, v: u32, threads: usize) -> usize {
        self.owner(v) * threads + (splitmix64(v) >> 32) as usize % threads
    }

    /// Reads the parts of process `process` of `processes` of the partition at `manifest`.
    pub fn load(manifest_path: &Path, process: usize, processes: usize) -> Result<Local> {
        let manifest = Manifest::load(manifest_path)?;
        if processes == 0 || process >= processes {
            return Err(Error::Cluster(format!("process {process} of {processes}: no such process")));
        }
        if processes > manifest.parts {
            return Err(Error::Unsupported(format!(
                "{processes} processes but the partition {} has {} parts: partition into at least as many parts as \
                 processes",
                manifest_path.display(),
                manifest.parts
            )));
        }
        let dir = manifest_path.parent().unwrap_or(Path::new("."));
        let parts: Vec<usize> = (process..manifest.parts).step_by(processes).collect();
        let mut graphs = Vec::with_capacity(parts.len());
        for &p in &parts {
            graphs.push(read_part(&manifest, &dir.join(&manifest.files[p].file), p, graphs.first())?);
        }
        let graph = if graphs.len() == 1 {
            graphs.pop().expect("one part")
        } else {
            let mut b = GraphBuilder::new(manifest.vertices as usize, manifest.directed);
            b.set_labels(graphs[0].labels().to_vec());
            if let Some(ids) = graphs[0].ids() {
                b.set_ids((**ids).clone());
            }
            // An edge between vertices of two of these parts is in both: the builder keeps one.
            graphs.iter().flat_map(Graph::edges).for_each(|(u, v, l)| b.add_edge(u, v, l));
            b.try_build()?.0
        };
        Ok(Local { manifest, graph, process, processes, parts })
    }
}

/// Reads part `p` at `path` and checks it against `manifest` and the first part read.
fn read_part(manifest: &Manifest, path: &Path, p: usize, first: Option<&Graph>) -> Result<Graph> {
    let entry = &manifest.files[p];
    let bytes = std::fs::read(path).map_err(|e| Error::part(path, e.to_string()))?;
    if bytes.len() as u64 != entry.bytes {
        return Err(Error::part(path, format!("{} bytes, the manifest says {}", bytes.len(), entry.bytes)));
    }
    let sum = checksum(&bytes);
    if sum != entry.xxh3 {
        return Err(Error::part(path, format!("checksum {sum}, the manifest says {}", entry.xxh3)));
    }
    let g = binary::decode(path, &bytes[..], bytes.len() as u64)?;
    check_supported(&g).map_err(|e| Error::part(path, e.to_string()))?;
    if g.num_vertices() as u64 != manifest.vertices || g.is_directed() != manifest.directed {
        return Err(Error::part(path, "its vertex count or direction differs from the manifest's"));
    }
    if first.is_some_and(|f| f.labels() != g.labels()) {
        return Err(Error::part(path, "its vertex labels differ from the other parts'"));
    }
    if first.is_some_and(|f| f.ids() != g.ids()) {
        return Err(Error::part(path, "its original vertex ids differ from the other parts'"));
    }
    let mut edges = 0u64;
    for (u, v, _) in g.edges() {
        if manifest.part(u) != p && manifest.part(v) != p {
            return Err(Error::part(path, format!("edge {u}-{v} has no endpoint the part owns")));
        }
        edges += 1;
    }
    if edges != entry.edges {
        return Err(Error::part(path, format!("{edges} edges, the manifest says {}", entry.edges)));
    }
    Ok(g)
}
