//! KONECT networks (`% sym|asym|bip`, a size line, `u v [weight [time]]`), read as `subgraph`
//! reads them; the input as `subgraph_fuzz::fuzz_free_ids` takes it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use subgraph_core::io::Format;

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| subgraph_fuzz::fuzz_free_ids(Format::Konect, data));
