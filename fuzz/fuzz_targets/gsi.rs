//! GSI `.g` text (several graphs a file): any bytes parse to an error or builders, each of
//! which builds (or fails cleanly) into a graph meeting every invariant.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::io::{gsi, Format};

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let _ = Format::sniff(data);
    if let Ok(builders) = gsi::parse_all(Path::new("fuzz.g"), data) {
        assert!(!builders.is_empty());
        for b in builders {
            if let Ok((g, _)) = b.try_build() {
                assert!(g.is_directed());
                subgraph_fuzz::check_graph(&g);
            }
        }
    }
});
