//! The `.sgb` binary loader from memory: any bytes are an error or a graph meeting every
//! invariant. The bytes are decoded as they are (the checksums stop nearly every mutation),
//! then once more with both checksums resealed, so that byte-level mutations reach the
//! structural validation too (`binary_structured` mutates fields of valid files).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::io::binary;

fn decode(data: &[u8]) {
    if let Ok(g) = binary::decode(Path::new("fuzz.sgb"), data, data.len() as u64) {
        subgraph_fuzz::check_graph(&g);
    }
}

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let _ = binary::has_magic(data);
    decode(data);
    let mut sealed = data.to_vec();
    binary::seal(&mut sealed);
    if sealed != data {
        decode(&sealed);
    }
});
