//! Sun & Luo `.graph` text: any bytes parse to an error or a builder, which builds (or fails
//! cleanly) into a graph meeting every invariant.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::io::{sunluo, Format};

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let _ = Format::sniff(data);
    if let Ok(b) = sunluo::parse(Path::new("fuzz.graph"), data) {
        if let Ok((g, _)) = b.try_build() {
            assert!(!g.is_directed());
            subgraph_fuzz::check_graph(&g);
        }
    }
});
