//! Vertex properties from CSV (`--vertex-props FILE.csv`): a header naming an `id` column and
//! the properties, then one row per vertex, keyed by the data file's own ids (as `--output`
//! prints them). Each column takes the narrowest type all its values fit: integer (i64), float,
//! else string; an empty field is no value. Read through `source` (compressed files, `-`).
//! The cost is that of the bytes read and the values kept: a column holds only the vertices
//! that have a value when they are few ([`Values::of_vertices`]).

use super::source;
use crate::error::Error;
use crate::graph::{Column, Graph, Id, Properties, Values};
use std::collections::HashSet;
use std::path::Path;

/// Reads the properties of `g`'s vertices from the CSV file `path`, of at most `max_bytes`
/// (decompressed).
pub fn read(path: &Path, g: &Graph, max_bytes: Option<u64>) -> Result<Properties, Error> {
    let file = source::display_name(path);
    let data = source::read(path, max_bytes)?;
    parse_bytes(file, &data, g)
}

/// [`read`] over the bytes of a file already in memory (`file` names it in errors).
pub fn parse_bytes(file: &Path, data: &[u8], g: &Graph) -> Result<Properties, Error> {
    let err = |line: u64, msg: String| Error::Parse { file: file.to_path_buf(), line, msg };
    if let Some(line) = unterminated_quote(data) {
        return Err(err(line, "a quoted field opened on this line is never closed".into()));
    }
    let mut reader = csv::ReaderBuilder::new().has_headers(true).trim(csv::Trim::All).from_reader(data);
    let line_of = |e: &csv::Error| e.position().map_or(0, |p| p.line());
    let header = reader.headers().map_err(|e| err(line_of(&e), format!("bad CSV header: {e}")))?.clone();
    let Some(id_at) = header.iter().position(|h| h == "id") else {
        return Err(err(1, "the header names no `id` column (the vertex ids, as the data file writes them)".into()));
    };
    let mut named = HashSet::with_capacity(header.len());
    if let Some(dup) = header.iter().find(|&h| !named.insert(h)) {
        return Err(err(1, format!("the header names column '{dup}' twice")));
    }
    let names: Vec<String> =
        header.iter().enumerate().filter(|&(i, _)| i != id_at).map(|(_, h)| h.to_string()).collect();
    let n = g.num_vertices();
    // Per column, the vertices with a value and the value: nothing for a column without any.
    let mut raw: Vec<Vec<(u32, String)>> = vec![Vec::new(); names.len()];
    let mut seen = vec![false; n];
    for record in reader.records() {
        let record = record.map_err(|e| err(line_of(&e), format!("bad CSV row: {e}")))?;
        let line = record.position().map_or(0, |p| p.line());
        let id = &record[id_at];
        let v = vertex(g, id).ok_or_else(|| err(line, format!("vertex id '{id}' is not in the data graph")))?;
        if std::mem::replace(&mut seen[v as usize], true) {
            return Err(err(line, format!("vertex id '{id}' has a second row")));
        }
        for (col, value) in record.iter().enumerate().filter(|&(i, _)| i != id_at).map(|(_, x)| x).enumerate() {
            if !value.is_empty() {
                raw[col].push((v, value.to_string()));
            }
        }
    }
    Ok(Properties::new(
        names.into_iter().zip(raw).map(|(name, values)| Column { name, values: typed(n, values) }).collect(),
    ))
}

/// The line of a quoted field that runs to the end of the file, if one does: the `csv` reader
/// would take the rest of the file, later rows included, as its value (`neo4j` checks its files
/// so too). The states are that reader's: a quote opens a field only as its first byte, `""` in
/// a quoted field is a quote, a closed quote may be followed by more of the field, CR or LF
/// ends a record.
pub(crate) fn unterminated_quote(data: &[u8]) -> Option<u64> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        FieldStart,
        InField,
        Quoted,
        QuoteInQuoted,
    }
    let (mut state, mut line, mut opened) = (State::FieldStart, 1u64, 0u64);
    for &c in data {
        state = match (state, c) {
            (State::FieldStart, b'"') => {
                opened = line;
                State::Quoted
            }
            (State::Quoted, b'"') => State::QuoteInQuoted,
            (State::Quoted, _) | (State::QuoteInQuoted, b'"') => State::Quoted,
            (_, b',' | b'\n' | b'\r') => State::FieldStart,
            _ => State::InField,
        };
        line += u64::from(c == b'\n');
    }
    (state == State::Quoted).then_some(opened)
}

/// Vertex of the data file's id `id`: through the graph's original ids, else the number itself.
fn vertex(g: &Graph, id: &str) -> Option<u32> {
    match g.ids().map(|ids| &**ids) {
        None => id.parse::<u32>().ok().filter(|&v| (v as usize) < g.num_vertices()),
        Some(ids) if ids.are_numbers() => ids.find(Id::Number(id.parse::<u64>().ok()?)),
        Some(ids) => ids.find(Id::Name(id)),
    }
}

/// The column over `n` vertices of the narrowest type every value fits, from (vertex, value)
/// entries in any order; a vertex given several values keeps the last.
pub(crate) fn typed(n: usize, mut entries: Vec<(u32, String)>) -> Values {
    entries.sort_by_key(|e| e.0);
    let mut kept: Vec<(u32, String)> = Vec::with_capacity(entries.len());
    for e in entries {
        match kept.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => kept.push(e),
        }
    }
    let (vertices, values): (Vec<u32>, Vec<String>) = kept.into_iter().unzip();
    let present = vec![true; values.len()];
    let all = |f: &dyn Fn(&str) -> bool| values.iter().all(|s| f(s));
    let column = if all(&|s| s.parse::<i64>().is_ok()) {
        Values::Int { values: values.iter().map(|s| s.parse().expect("checked")).collect(), present }
    } else if all(&|s| s.parse::<f64>().is_ok_and(f64::is_finite)) {
        Values::Float { values: values.iter().map(|s| s.parse().expect("checked")).collect(), present }
    } else {
        let mut dictionary = values.clone();
        dictionary.sort_unstable();
        dictionary.dedup();
        let codes = values.iter().map(|s| dictionary.binary_search(s).expect("in the dictionary") as u32).collect();
        Values::Str { codes, dictionary }
    };
    Values::of_vertices(n, vertices, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphBuilder, Value, VertexIds};

    fn named_graph() -> Graph {
        let mut b = GraphBuilder::from_parts(vec![0; 3], vec![(0, 1, 0), (1, 2, 0)], false);
        b.set_ids(VertexIds::names(&["ada", "alan", "grace"]));
        b.build().0
    }

    #[test]
    fn columns_take_the_narrowest_type_and_empty_fields_are_no_value() {
        let g = named_graph();
        let csv = b"id,age,height,name\nada,36,1.7,\"Ada, Countess\"\ngrace,85,,Grace\nalan,41,1.8e0,\n";
        let p = parse_bytes(Path::new("p.csv"), csv, &g).unwrap();
        let (age, height, name) = (p.column("age").unwrap(), p.column("height").unwrap(), p.column("name").unwrap());
        assert_eq!((age.kind(), height.kind(), name.kind()), ("integer", "float", "string"));
        assert_eq!(age.get(2), Some(Value::Int(85)));
        assert_eq!(height.get(2), None);
        assert_eq!(height.get(1), Some(Value::Float(1.8)));
        assert_eq!(name.get(0), Some(Value::Str("Ada, Countess")));
        assert_eq!(name.get(1), None);
        assert!(p.column("id").is_none());
    }

    #[test]
    fn ids_are_the_data_files_and_mistakes_name_the_line() {
        let g = named_graph();
        let e = |csv: &[u8]| parse_bytes(Path::new("p.csv"), csv, &g).unwrap_err().to_string();
        assert_eq!(
            e(b"name,age\nada,3\n"),
            "p.csv:1: the header names no `id` column (the vertex ids, as the data file writes them)"
        );
        assert_eq!(e(b"id,age\nada,3\nbob,4\n"), "p.csv:3: vertex id 'bob' is not in the data graph");
        assert_eq!(e(b"id,age\nada,3\nada,4\n"), "p.csv:3: vertex id 'ada' has a second row");
        assert!(e(b"id,age\nada,3,4\n").starts_with("p.csv:2: bad CSV row"));
        assert_eq!(e(b"id,a,a\n"), "p.csv:1: the header names column 'a' twice");
        // Without original ids the ids are vertex numbers.
        let plain = GraphBuilder::from_parts(vec![0; 2], vec![(0, 1, 0)], false).build().0;
        let p = parse_bytes(Path::new("p.csv"), b"id,x\n1,-5\n", &plain).unwrap();
        assert_eq!(p.column("x").unwrap().get(1), Some(Value::Int(-5)));
        assert!(parse_bytes(Path::new("p.csv"), b"id,x\n2,1\n", &plain).is_err());
    }

    #[test]
    fn an_unterminated_quote_is_an_error_not_the_rest_of_the_file() {
        let g = named_graph();
        let e = |csv: &[u8]| parse_bytes(Path::new("p.csv"), csv, &g).unwrap_err().to_string();
        // It swallowed the row of alan.
        assert_eq!(e(b"id,name\nada,\"abc\nalan,y\n"), "p.csv:2: a quoted field opened on this line is never closed");
        assert_eq!(e(b"id,name\nada,x\nalan,\"a\"\"b"), "p.csv:3: a quoted field opened on this line is never closed");
        assert_eq!(e(b"id,\"name\n"), "p.csv:1: a quoted field opened on this line is never closed");
        // Closed quotes, doubled quotes, quotes inside a field and line ends in quotes are fine.
        let p = parse_bytes(
            Path::new("p.csv"),
            b"id,name,size\nada,\"a\"\"b\",5\"\r\nalan,\"two\nlines\",\"x\"y\ngrace,\"\",",
            &g,
        )
        .unwrap();
        let (name, size) = (p.column("name").unwrap(), p.column("size").unwrap());
        assert_eq!(
            (name.get(0), name.get(1), name.get(2)),
            (Some(Value::Str("a\"b")), Some(Value::Str("two\nlines")), None)
        );
        assert_eq!((size.get(0), size.get(1)), (Some(Value::Str("5\"")), Some(Value::Str("xy"))));
    }

    #[test]
    fn columns_cost_the_values_they_hold_not_the_vertices() {
        // 20,000 columns over 50,000 vertices, two of which have values: 10^9 entries before.
        let n = 50_000;
        let g = GraphBuilder::from_parts(vec![0; n], vec![(0, 1, 0)], false).build().0;
        let c = 20_000;
        let header: Vec<String> = (0..c).map(|i| format!("c{i}")).collect();
        let csv = format!(
            "id,{}\n7,{}\n49999,{}\n",
            header.join(","),
            vec!["1"; c].join(","),
            (0..c).map(|i| if i % 2 == 0 { "x".to_string() } else { String::new() }).collect::<Vec<_>>().join(",")
        );
        let p = parse_bytes(Path::new("p.csv"), csv.as_bytes(), &g).unwrap();
        assert_eq!(p.columns().len(), c);
        assert!(p.memory_bytes() < 100 * csv.len() as u64, "{} bytes for a file of {}", p.memory_bytes(), csv.len());
        let (even, odd) = (p.column("c0").unwrap(), p.column("c1").unwrap());
        assert_eq!((even.kind(), odd.kind(), even.len(), odd.len()), ("string", "integer", n, n));
        assert_eq!((even.get(7), even.get(49_999), even.get(8)), (Some(Value::Str("1")), Some(Value::Str("x")), None));
        assert_eq!((odd.get(7), odd.get(49_999), odd.get(0)), (Some(Value::Int(1)), None, None));
        // A column most vertices have a value of is held with an entry per vertex.
        let dense = parse_bytes(
            Path::new("p.csv"),
            b"id,x\n0,5\n",
            &GraphBuilder::from_parts(vec![0; 2], vec![(0, 1, 0)], false).build().0,
        )
        .unwrap();
        assert!(matches!(dense.columns()[0].values, Values::Int { .. }));
        assert_eq!(dense.column("x").unwrap().get(0), Some(Value::Int(5)));
        // The header's duplicate check is no longer quadratic.
        let dup = format!("id,{},c7\n", header.join(","));
        assert_eq!(
            parse_bytes(Path::new("p.csv"), dup.as_bytes(), &g).unwrap_err().to_string(),
            "p.csv:1: the header names column 'c7' twice"
        );
    }
}
