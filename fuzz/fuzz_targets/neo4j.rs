//! Neo4j's bulk-import CSV (`io::neo4j`) through `parse_neo4j`: the input is a count byte k,
//! then files separated by NUL bytes, the first k % 3 + 1 of them node files and the rest
//! relationship files. An error, or a directed graph meeting every invariant whose vertices
//! are named (ids valid, one per vertex), each of whose labels, set labels through their
//! members, has a name, whose property columns have one entry per vertex, and whose notes are
//! at most the two the reader gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use subgraph_core::io::parse_neo4j;

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else { return };
    let parts: Vec<&[u8]> = rest.split(|&c| c == 0).collect();
    let k = (k as usize % 3 + 1).min(parts.len());
    let names: Vec<PathBuf> = (0..parts.len()).map(|i| PathBuf::from(format!("f{i}.csv"))).collect();
    let files: Vec<(&Path, &[u8])> = names.iter().map(PathBuf::as_path).zip(parts.iter().copied()).collect();
    let Ok(l) = parse_neo4j(&files[..k], &files[k..]) else { return };
    let g = &l.graph;
    subgraph_fuzz::check_graph(g);
    assert!(g.is_directed());
    let n = g.num_vertices();
    let ids = g.ids().expect("named vertices");
    assert!(ids.check(n).is_ok());
    let names = g.label_names().expect("label names");
    for l in g.vertex_label_values() {
        assert!(g.vertex_label_members(l).iter().all(|&m| (m as usize) < names.vertex.len()), "vertex label {l}");
    }
    for l in g.edge_label_values() {
        assert!(g.edge_label_members(l).iter().all(|&m| (m as usize) < names.edge.len()), "edge label {l}");
    }
    for &(v, e) in g.loops() {
        assert!((v as usize) < n && g.edge_label_members(&e).iter().all(|&m| (m as usize) < names.edge.len()));
    }
    if let Some(p) = g.properties() {
        for c in p.columns() {
            assert_eq!(c.len(), n, "one entry per vertex");
        }
    }
    assert!(l.notes.len() <= 2, "{:?}", l.notes);
});
