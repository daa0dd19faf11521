//! Version 1 `.sgb` files, written before the chunked checksum of version 2, still load, as
//! the graphs they were converted from, and still reject every damaged byte.

use std::path::{Path, PathBuf};
use subgraph_core::io::{binary, read_graph, ReadOptions};
use subgraph_core::{Dir, Graph};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1").join(name)
}

fn load(name: &str) -> Graph {
    read_graph(&fixture(name), &ReadOptions::default()).unwrap().graph
}

fn same(a: &Graph, b: &Graph) {
    assert_eq!((a.is_directed(), a.num_edges(), a.labels()), (b.is_directed(), b.num_edges(), b.labels()));
    assert_eq!(a.edges().collect::<Vec<_>>(), b.edges().collect::<Vec<_>>());
    for v in 0..a.num_vertices() as u32 {
        for dir in [Dir::Out, Dir::In] {
            assert_eq!(a.neighbor_groups(v, dir).collect::<Vec<_>>(), b.neighbor_groups(v, dir).collect::<Vec<_>>());
        }
    }
    for &l in a.vertex_label_values() {
        assert_eq!(a.vertices_with_label(l), b.vertices_with_label(l));
    }
    assert_eq!(a.edge_label_values(), b.edge_label_values());
    assert_eq!(a.memory_bytes(), b.memory_bytes());
}

#[test]
fn version_1_files_load_as_their_sources() {
    for (sgb, text) in [("sample.sgb", "sample.graph"), ("sample-directed.sgb", "sample.g")] {
        let data = std::fs::read(fixture(sgb)).unwrap();
        assert_eq!(data[8..12], 1u32.to_le_bytes(), "{sgb} is a version 1 file");
        let mut sealed = data.clone();
        binary::seal(&mut sealed);
        assert_eq!(sealed, data, "{sgb}: sealing recomputes the version 1 checksums");
        let g = load(sgb);
        same(&g, &load(text));
        let mut again = Vec::new();
        binary::write(&g, &mut again).unwrap();
        assert_eq!(again[8..12], binary::VERSION_2.to_le_bytes());
        assert_eq!(again.len(), data.len());
        same(&g, &binary::decode(Path::new("again.sgb"), &again[..], again.len() as u64).unwrap());
    }
}

#[test]
fn damaged_version_1_files_are_errors() {
    for sgb in ["sample.sgb", "sample-directed.sgb"] {
        let data = std::fs::read(fixture(sgb)).unwrap();
        let decode = |d: &[u8]| binary::decode(Path::new(sgb), d, d.len() as u64);
        for i in 0..data.len() {
            let mut d = data.clone();
            d[i] ^= 0x04;
            assert!(decode(&d).is_err(), "{sgb}: byte {i} flipped");
        }
        for len in 0..data.len() {
            assert!(decode(&data[..len]).is_err(), "{sgb}: cut to {len} bytes");
        }
    }
}
