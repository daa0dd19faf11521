//! RDF N-Triples / N-Quads read as a property graph (`io::rdf`): an error, or a graph meeting
//! every invariant whose label names fit its labels and whose property columns have one entry
//! per vertex.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::io::{parse_graphs, Format, ReadOptions};

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let opts = ReadOptions { format: Some(Format::Rdf), directed: true, ..ReadOptions::default() };
    if let Ok(all) = parse_graphs(Path::new("fuzz.nt"), data, None, &opts) {
        for l in &all {
            let g = &l.graph;
            subgraph_fuzz::check_graph(g);
            if let Some(names) = g.label_names() {
                assert!(names.check(g.vertex_label_values(), g.edge_label_values()).is_ok());
            }
            if let Some(p) = g.properties() {
                for c in p.columns() {
                    assert_eq!(c.len(), g.num_vertices(), "one entry per vertex");
                }
            }
        }
    }
});
