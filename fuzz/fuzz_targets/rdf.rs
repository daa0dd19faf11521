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
            // Label names fitting the labels (their sets' members, the loops') are part of it.
            subgraph_fuzz::check_graph(g);
            if let Some(p) = g.properties() {
                for c in p.columns() {
                    assert_eq!(c.len(), g.num_vertices(), "one entry per vertex");
                }
            }
        }
    }
});
