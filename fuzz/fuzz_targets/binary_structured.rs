//! Structure-aware `.sgb` fuzzing: a small arbitrary graph written by `binary::write`, then
//! a few fields of its header or payload overwritten (u32 or u64 at arbitrary offsets, values
//! small, near the old one, or arbitrary), then both checksums resealed, so that everything
//! the loader checks after the checksums is reached. The result must be an error or a graph
//! meeting every invariant; an unmutated file must load as the graph written.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::io::binary;
use subgraph_fuzz::SmallGraph;

/// A new value for a field, given the old one.
#[derive(Debug, Arbitrary)]
enum Value {
    Small(u8),
    Near(i8),
    Max,
    Any(u64),
}

impl Value {
    fn apply(&self, old: u64, max: u64) -> u64 {
        match *self {
            Value::Small(x) => x as u64,
            Value::Near(d) => old.wrapping_add(d as i64 as u64) & max,
            Value::Max => max,
            Value::Any(x) => x & max,
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Mutation {
    /// One of the header's fields: version, flags (u32), or a count or the payload length (u64).
    Header { field: u8, value: Value },
    /// The n-th aligned u32 of the payload (ids, labels, group pairs and ends).
    Payload32 { slot: u16, value: Value },
    /// The n-th aligned u64 of the payload (offsets).
    Payload64 { slot: u16, value: Value },
    /// A u32 or u64 at any offset, aligned or not.
    Anywhere { at: u16, wide: bool, value: Value },
    /// Two aligned u32 of the payload swapped (reorders ids).
    Swap32 { a: u16, b: u16 },
}

#[derive(Debug, Arbitrary)]
struct Input {
    graph: SmallGraph,
    mutations: Vec<Mutation>,
}

const HEADER_LEN: usize = binary::HEADER_LEN;
/// The header's u64 fields: vertices .. payload bytes (the checksums follow, and are resealed).
const HEADER_U64_FIELDS: usize = 10;

fn put(data: &mut [u8], at: usize, wide: bool, value: &Value) {
    let size = if wide { 8 } else { 4 };
    if at + size > data.len() {
        return;
    }
    if wide {
        let old = u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
        data[at..at + 8].copy_from_slice(&value.apply(old, u64::MAX).to_le_bytes());
    } else {
        let old = u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as u64;
        data[at..at + 4].copy_from_slice(&(value.apply(old, u32::MAX as u64) as u32).to_le_bytes());
    }
}

fuzz_target!(init: subgraph_fuzz::init(), |input: Input| {
    let g = input.graph.build(input.graph.directed);
    let mut original = Vec::new();
    binary::write(&g, &mut original).expect("writing to memory");
    let mut data = original.clone();
    let payload = data.len() - HEADER_LEN;
    for m in input.mutations.iter().take(8) {
        match m {
            Mutation::Header { field, value } => {
                let f = *field as usize % (2 + HEADER_U64_FIELDS);
                match f {
                    0 | 1 => put(&mut data, 8 + 4 * f, false, value),
                    _ => put(&mut data, 16 + 8 * (f - 2), true, value),
                }
            }
            Mutation::Payload32 { slot, value } if payload >= 4 => {
                put(&mut data, HEADER_LEN + 4 * (*slot as usize % (payload / 4)), false, value)
            }
            Mutation::Payload64 { slot, value } if payload >= 8 => {
                put(&mut data, HEADER_LEN + 8 * (*slot as usize % (payload / 8)), true, value)
            }
            Mutation::Anywhere { at, wide, value } => {
                let at = *at as usize % data.len();
                put(&mut data, at, *wide, value)
            }
            Mutation::Swap32 { a, b } if payload >= 4 => {
                let (a, b) = (*a as usize % (payload / 4), *b as usize % (payload / 4));
                for k in 0..4 {
                    data.swap(HEADER_LEN + 4 * a + k, HEADER_LEN + 4 * b + k);
                }
            }
            _ => {}
        }
    }
    binary::seal(&mut data);
    let decoded = binary::decode(Path::new("fuzz.sgb"), &data[..], data.len() as u64);
    if data == original {
        let loaded = decoded.expect("an unmutated file loads");
        subgraph_fuzz::assert_same(&g, &loaded);
        subgraph_fuzz::check_graph(&loaded);
        return;
    }
    if let Ok(forged) = decoded {
        subgraph_fuzz::check_graph(&forged);
        // What was accepted writes and loads again as itself.
        let mut again = Vec::new();
        binary::write(&forged, &mut again).expect("writing to memory");
        let reloaded = binary::decode(Path::new("again.sgb"), &again[..], again.len() as u64)
            .expect("an accepted graph, written again, loads");
        subgraph_fuzz::assert_same(&forged, &reloaded);
    }
});
