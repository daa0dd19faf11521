//! Edge lists and their vertex label files (ids compacted, kept or names), read as `subgraph`
//! reads them; the input as `subgraph_fuzz::fuzz_free_ids` takes it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use subgraph_core::io::Format;

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| subgraph_fuzz::fuzz_free_ids(Format::EdgeList, data));
