//! Vertex property CSV files (`--vertex-props`, `io::props`) over a small graph whose vertices
//! are named a..h: an error, or columns of one value or none per vertex. The input is the CSV
//! file, or, after a first byte 0xff, a column count k (two bytes) and rows under a header of
//! k generated columns (`id,c0,...`), for files of many columns. A file the reader accepts
//! must not end inside a quoted field (which would swallow the rows after its quote): a line
//! added after it is one more record. Sparse and dense columns answer alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::graph::Column;
use subgraph_core::{GraphBuilder, VertexIds};

/// Records the `csv` crate reads from `data` (any number of fields each).
fn records(data: &[u8]) -> usize {
    csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(data).byte_records().count()
}

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let csv = match data {
        [0xff, k0, k1, rows @ ..] => {
            let k = u16::from_le_bytes([*k0, *k1]);
            let mut csv = b"id".to_vec();
            (0..k).for_each(|i| csv.extend_from_slice(format!(",c{i}").as_bytes()));
            csv.push(b'\n');
            csv.extend_from_slice(rows);
            csv
        }
        _ => data.to_vec(),
    };
    let mut b = GraphBuilder::from_parts(vec![0; 8], vec![(0, 1, 0), (1, 2, 0)], false);
    b.set_ids(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g", "h"]));
    let g = b.build().0;
    if let Ok(p) = subgraph_core::io::props::parse_bytes(Path::new("fuzz.csv"), &csv, &g) {
        assert_eq!(records(&[&csv[..], b"\nx"].concat()), records(&csv) + 1, "a quoted field runs to the end");
        for c in p.columns() {
            assert_eq!(c.len(), 8, "one entry per vertex");
            let dense = Column { name: c.name.clone(), values: c.values.dense().into_owned() };
            assert_eq!(dense.kind(), c.kind());
            for v in 0..8 {
                assert_eq!(dense.get(v), c.get(v), "column {} vertex {v}", c.name);
            }
        }
    }
});
