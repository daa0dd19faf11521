//! Matrix Market coordinate files (`.mtx`, the SuiteSparse collection's format) as graphs: entry
//! (i, j) is the edge i → j. `general` matrices are directed, `symmetric`, `skew-symmetric` and
//! `hermitian` ones undirected; values are ignored. Ids are 1-based; a rectangular M × N matrix
//! is bipartite, its columns numbered M+1..M+N.

use super::remap::{IdMode, RawGraph};
use super::text::{check_text, show, Lines};
use crate::error::Error;
use std::path::Path;

/// Whether `data` starts with the Matrix Market banner.
pub fn has_banner(data: &[u8]) -> bool {
    data.len() >= 14 && data[..14].eq_ignore_ascii_case(b"%%MatrixMarket")
}

/// Reads the entries of a coordinate matrix. Under `IdMode::Keep` vertex i is id i − 1 and the
/// graph has max(M, N) (square) or M + N vertices; otherwise the 1-based ids are compacted.
pub(crate) fn parse(file: &Path, data: &[u8], mode: IdMode) -> Result<RawGraph, Error> {
    check_text(file, data)?;
    let err = |line, msg: String| Error::Parse { file: file.to_path_buf(), line, msg };
    let banner_end = memchr::memchr(b'\n', data).unwrap_or(data.len());
    let banner: Vec<String> =
        String::from_utf8_lossy(&data[..banner_end]).split_ascii_whitespace().map(str::to_ascii_lowercase).collect();
    let words: Vec<&str> = banner.iter().map(String::as_str).collect();
    let (values, directed) = match words.as_slice() {
        ["%%matrixmarket", "matrix", "coordinate", field, symmetry] => {
            let values = match *field {
                "pattern" => 0,
                "integer" | "real" => 1,
                "complex" => 2,
                f => return Err(err(1, format!("unknown Matrix Market field '{}'", show(f.as_bytes())))),
            };
            let directed = match *symmetry {
                "general" => true,
                "symmetric" | "skew-symmetric" | "hermitian" => false,
                s => return Err(err(1, format!("unknown Matrix Market symmetry '{}'", show(s.as_bytes())))),
            };
            (values, directed)
        }
        ["%%matrixmarket", "matrix", "array", ..] => {
            return Err(err(1, "a dense (array) Matrix Market file is not a graph; only coordinate files are".into()))
        }
        _ => return Err(err(1, "expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>'".into())),
    };
    let mode = if mode == IdMode::Names { IdMode::Compact } else { mode };
    let mut lines = Lines::new(file, data, true);
    let Some(mut size) = lines.next_fields() else {
        return Err(lines.error(0, "missing the size line 'rows columns entries'"));
    };
    let rows = size.u64("row count")?;
    let cols = size.u64("column count")?;
    let nnz = size.u64("entry count")?;
    size.end()?;
    let square = rows == cols;
    // A rectangular matrix's columns are numbered after its rows: M + N must be an id.
    let vertices = match (square, rows.checked_add(cols)) {
        (true, _) => rows,
        (false, Some(n)) => n,
        (false, None) => {
            return Err(size.error(format!(
                "{rows} rows and {cols} columns: the columns, numbered after the rows, go beyond the largest id {}",
                u64::MAX
            )))
        }
    };
    let mut raw = RawGraph::new(mode, directed, data.len(), (nnz as usize).min(data.len() / 4));
    raw.declare_vertices(&size, vertices)?;
    let base = u64::from(mode != IdMode::Keep);
    let mut read = 0u64;
    while let Some(mut f) = lines.next_fields() {
        if read == nnz {
            return Err(f.error(format!("more entries than the {nnz} the size line declares")));
        }
        let i = f.u64("row")?;
        let j = f.u64("column")?;
        for (x, what, most) in [(i, "row", rows), (j, "column", cols)] {
            if x == 0 || x > most {
                return Err(f.error(format!("{what} {x} out of range 1..={most}")));
            }
        }
        for k in 0..values {
            f.expect(if k == 0 { "value" } else { "imaginary part" })?;
        }
        f.end()?;
        let j = if square { j } else { j + rows };
        raw.add_edge(i - 1 + base, j - 1 + base, 0);
        read += 1;
    }
    if read < nnz {
        return Err(lines.error(lines.line(), format!("{read} entries, the size line declares {nnz}")));
    }
    if read == 0 {
        return Err(lines.error(0, "a matrix without entries has no edges"));
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Graph, Id};

    fn read(data: &[u8], mode: IdMode) -> Result<Graph, Error> {
        parse(Path::new("m.mtx"), data, mode)?.into_graph(Path::new("m.mtx"))
    }

    #[test]
    fn reads_symmetric_general_and_rectangular() {
        let sym = b"%%MatrixMarket matrix coordinate real symmetric\n% c\n5 5 3\n2 1 0.5\n5 2 1\n5 5 3\n";
        let g = read(sym, IdMode::Compact).unwrap();
        assert!(!g.is_directed());
        assert_eq!((g.num_vertices(), g.num_edges()), (3, 2));
        assert_eq!(g.original_id(2), Id::Number(5));
        let g = read(sym, IdMode::Keep).unwrap();
        assert_eq!(g.num_vertices(), 5);
        assert_eq!(g.edge_label(4, 1), Some(0));
        let gen = b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n";
        let g = read(gen, IdMode::Compact).unwrap();
        assert!(g.is_directed());
        assert!(g.ids().is_some());
        assert_eq!(g.edge_label(0, 1), Some(0));
        assert_eq!(g.edge_label(1, 0), None);
        let rect = b"%%MatrixMarket matrix coordinate integer general\n2 3 1\n2 3 7\n";
        let g = read(rect, IdMode::Compact).unwrap();
        assert_eq!(g.original_id(1), Id::Number(5));
    }

    #[test]
    fn errors_name_the_line() {
        let e = |d: &[u8]| read(d, IdMode::Compact).unwrap_err().to_string();
        let head = "%%MatrixMarket matrix coordinate pattern general\n";
        assert_eq!(e(format!("{head}3 3 1\n4 1\n").as_bytes()), "m.mtx:3: row 4 out of range 1..=3");
        assert_eq!(
            e(format!("{head}3 3 1\n1 2\n2 1\n").as_bytes()),
            "m.mtx:4: more entries than the 1 the size line declares"
        );
        assert_eq!(e(format!("{head}3 3 2\n1 2\n").as_bytes()), "m.mtx:3: 1 entries, the size line declares 2");
        assert_eq!(
            e(b"%%MatrixMarket matrix array real general\n2 2\n"),
            "m.mtx:1: a dense (array) Matrix Market file is not a graph; only coordinate files are"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real sideways\n"),
            "m.mtx:1: unknown Matrix Market symmetry 'sideways'"
        );
        assert_eq!(e(format!("{head}3 3 1\n1 2 9\n").as_bytes()), "m.mtx:3: unexpected token '9'");
        let huge = format!("{head}4000000000 4000000000 1\n1 2\n");
        assert!(read(huge.as_bytes(), IdMode::Keep).unwrap_err().to_string().contains("--keep-ids"));
        assert_eq!(read(huge.as_bytes(), IdMode::Compact).unwrap().num_vertices(), 2);
    }

    #[test]
    fn ids_at_the_top_of_u64_are_read_or_refused_never_wrapped() {
        let head = "%%MatrixMarket matrix coordinate pattern general\n";
        let max = u64::MAX;
        // Column 1 of a matrix of 2^64 - 1 rows is id 2^64: it saturated onto the last row, and
        // the entry (2^64 - 1, 1) was dropped as a self loop.
        let e = read(format!("{head}{max} 1 2\n1 1\n{max} 1\n").as_bytes(), IdMode::Compact).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "m.mtx:2: {max} rows and 1 columns: the columns, numbered after the rows, go beyond the largest id {max}"
            )
        );
        // A square matrix of 2^64 - 1 rows has every id, the last included.
        let g = read(format!("{head}{max} {max} 2\n{max} 1\n1 {max}\n").as_bytes(), IdMode::Compact).unwrap();
        assert_eq!((g.num_vertices(), g.num_edges()), (2, 2));
        assert_eq!(g.original_id(1), Id::Number(max));
        let g = read(format!("{head}{} 1 1\n{} 1\n", max - 1, max - 1).as_bytes(), IdMode::Compact).unwrap();
        assert_eq!((g.original_id(0), g.original_id(1), g.num_edges()), (Id::Number(max - 1), Id::Number(max), 1));
    }
}
