//! Writing a partition: P `.sgb` part files and `manifest.json`. Part p is a graph on every
//! vertex id with every vertex's label (the label table each process filters candidates by),
//! the original vertex ids where the graph has them (what its rows are written in), and the
//! edges with an endpoint p owns, so that its owned vertices' adjacency lists are whole;
//! vertices go to parts by hash or by ranges balanced on adjacency size (BiGJoin's
//! partitioned relations, VLDB 2018 §4, one relation per part).

use crate::error::{Error, Result};
use crate::manifest::{checksum, Assignment, Manifest, PartFile, FORMAT, MAX_PARTS, VERSION};
use std::path::Path;
use subgraph_core::io::binary;
use subgraph_core::{Graph, GraphBuilder};

/// The rule `partition` assigns vertices by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Hash,
    Range,
}

impl Rule {
    pub const NAMES: &'static [&'static str] = &["hash", "range"];

    pub fn from_name(name: &str) -> Option<Rule> {
        match name {
            "hash" => Some(Rule::Hash),
            "range" => Some(Rule::Range),
            _ => None,
        }
    }
}

/// Refuses what the cluster matcher does not handle yet: vertices with several labels, vertex
/// pairs with several edges and self loops (the label sets of `graph::sets`).
pub fn check_supported(data: &Graph) -> Result<()> {
    if data.label_sets().is_some_and(|s| !s.is_empty()) || !data.loops().is_empty() {
        return Err(Error::Unsupported(
            "the cluster matcher does not handle vertices with several labels, pairs with several edges or self \
             loops yet"
                .into(),
        ));
    }
    Ok(())
}

/// Writes `data` in `parts` parts by `rule` into `dir` (created if needed) with its
/// manifest, and returns the manifest.
pub fn partition(data: &Graph, parts: usize, rule: Rule, dir: &Path) -> Result<Manifest> {
    check_supported(data)?;
    if parts == 0 || parts > MAX_PARTS {
        return Err(Error::Unsupported(format!("--parts {parts}: 1 to {MAX_PARTS} parts")));
    }
    let n = data.num_vertices();
    let assignment = match rule {
        Rule::Hash => Assignment::Hash,
        Rule::Range => Assignment::Range { starts: balanced_starts(data, parts) },
    };
    let owner: Vec<u32> = (0..n as u32).map(|v| assignment.part(v, parts) as u32).collect();
    std::fs::create_dir_all(dir).map_err(|e| Error::Write { file: dir.display().to_string(), source: e })?;
    let mut files = Vec::with_capacity(parts);
    for p in 0..parts as u32 {
        let mut b = GraphBuilder::new(n, data.is_directed());
        b.set_labels(data.labels().to_vec());
        if let Some(ids) = data.ids() {
            b.set_ids((**ids).clone());
        }
        let mut edges = 0u64;
        for (u, v, label) in data.edges().filter(|&(u, v, _)| owner[u as usize] == p || owner[v as usize] == p) {
            b.add_edge(u, v, label);
            edges += 1;
        }
        let (g, _) = b.try_build()?;
        let mut bytes = Vec::new();
        binary::write(&g, &mut bytes).expect("writing to memory");
        let file = format!("part-{p}.sgb");
        let path = dir.join(&file);
        std::fs::write(&path, &bytes).map_err(|e| Error::Write { file: path.display().to_string(), source: e })?;
        let vertices = owner.iter().filter(|&&o| o == p).count() as u64;
        files.push(PartFile { file, bytes: bytes.len() as u64, xxh3: checksum(&bytes), vertices, edges });
    }
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        parts,
        vertices: n as u64,
        edges: data.num_edges(),
        directed: data.is_directed(),
        assignment,
        files,
    };
    let path = dir.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest serialises") + "\n";
    std::fs::write(&path, text).map_err(|e| Error::Write { file: path.display().to_string(), source: e })?;
    Ok(manifest)
}

/// Range starts that give each part about the same adjacency size (degree + 1 per vertex).
fn balanced_starts(data: &Graph, parts: usize) -> Vec<u32> {
    let weight = |v: u32| data.total_degree(v) as u64 + 1;
    let total: u64 = (0..data.num_vertices() as u32).map(weight).sum();
    let mut starts = vec![0u32];
    let mut acc = 0u64;
    for v in 0..data.num_vertices() as u32 {
        if starts.len() < parts && acc * parts as u64 >= total * starts.len() as u64 {
            starts.push(v);
        }
        acc += weight(v);
    }
    starts.resize(parts, data.num_vertices() as u32);
    starts
}
