//! Vertex property CSV files (`--vertex-props`, `io::props`) over a small graph whose vertices
//! are named a..h: an error, or columns of one value or none per vertex.
#![no_main]

use libfuzzer_sys::fuzz_target;
use subgraph_core::{GraphBuilder, VertexIds};

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let mut b = GraphBuilder::from_parts(vec![0; 8], vec![(0, 1, 0), (1, 2, 0)], false);
    b.set_ids(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g", "h"]));
    let g = b.build().0;
    if let Ok(p) = subgraph_core::io::props::parse_bytes(std::path::Path::new("fuzz.csv"), data, &g) {
        for c in p.columns() {
            assert_eq!(c.len(), 8, "one entry per vertex");
        }
    }
});
