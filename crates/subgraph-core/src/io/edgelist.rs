//! Plain edge lists: `u v [edge label]` per line, `#` or `%` comments (SNAP, KONECT), with an
//! optional vertex label file of `id label` lines keyed by the same ids. Labels are numbers,
//! or names (any word; see `graph::LabelNames`). Ids are compacted to
//! 0..n and kept for output (`remap`), unless `--keep-ids`.

use super::remap::{IdMode, RawGraph};
use super::text::{check_text, Lines};
use crate::error::Error;
use crate::graph::Graph;
use std::io::Write;
use std::path::Path;

/// Reads the edges of an edge list.
pub(crate) fn parse(file: &Path, data: &[u8], directed: bool, mode: IdMode) -> Result<RawGraph, Error> {
    check_text(file, data)?;
    let mut lines = Lines::new(file, data, true);
    let mut raw = RawGraph::new(mode, directed, data.len(), data.len() / 12);
    while let Some(mut f) = lines.next_fields() {
        let u = raw.id(&mut f, "source id")?;
        let v = raw.id(&mut f, "target id")?;
        let tok = f.token();
        let l = raw.edge_label(&f, tok)?;
        f.end()?;
        raw.add_edge(u, v, l);
    }
    if raw.num_edges() == 0 {
        return Err(lines.error(0, "empty edge list: no edge found"));
    }
    Ok(raw)
}

/// Reads `id label` lines into the graph's vertex labels, in the edge list's ids.
pub(crate) fn parse_labels(file: &Path, data: &[u8], raw: &mut RawGraph) -> Result<(), Error> {
    check_text(file, data)?;
    let mut lines = Lines::new(file, data, true);
    while let Some(mut f) = lines.next_fields() {
        let v = raw.id(&mut f, "vertex id")?;
        let tok = f.expect("vertex label")?;
        let l = raw.vertex_label(&f, tok)?;
        f.end()?;
        raw.add_label(&f, v, l)?;
    }
    Ok(())
}

/// Writes the edges (`u v label` when the graph has edge labels other than 0, or named ones)
/// and, when `labels` is given, the vertex labels as `id label` lines, in the graph's original
/// ids; named labels are written as their names.
pub fn write<W: Write, L: Write>(g: &Graph, mut w: W, labels: Option<L>) -> std::io::Result<()> {
    let names = g.label_names();
    let name = |list: Option<&Vec<String>>, l: u32| {
        list.filter(|n| !n.is_empty()).map_or(l.to_string(), |n| n[l as usize].clone())
    };
    let edge_names = names.map(|n| &n.edge);
    let labelled = g.edge_label_values().iter().any(|&l| l != 0) || edge_names.is_some_and(|n| !n.is_empty());
    let id = |v| g.original_id(v);
    for (u, v, l) in g.edges() {
        if labelled {
            writeln!(w, "{} {} {}", id(u), id(v), name(edge_names, l))?;
        } else {
            writeln!(w, "{} {}", id(u), id(v))?;
        }
    }
    w.flush()?;
    if let Some(mut lw) = labels {
        for v in 0..g.num_vertices() as u32 {
            writeln!(lw, "{} {}", id(v), name(names.map(|n| &n.vertex), g.label(v)))?;
        }
        lw.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::MAX_NAME_LEN;
    use super::*;
    use crate::graph::{Id, VertexIds};

    fn read(data: &[u8], labels: &[u8], directed: bool, mode: IdMode) -> Result<Graph, Error> {
        let mut raw = parse(Path::new("e.txt"), data, directed, mode)?;
        parse_labels(Path::new("l.txt"), labels, &mut raw)?;
        raw.into_graph(Path::new("e.txt"))
    }

    #[test]
    fn label_names_are_numbered_in_byte_order_and_written_back() {
        // Numbers first, then a word: the numbers become names too; a vertex without a label
        // has the one named "0".
        let edges = b"a b 3\nb c knows\nc a likes\nc d\n";
        let labels = b"a Person\nb 7\nc Lang\n";
        let g = read(edges, labels, true, IdMode::Names).unwrap();
        let names = g.label_names().unwrap();
        assert_eq!(names.vertex, ["0", "7", "Lang", "Person"]);
        assert_eq!(names.edge, ["0", "3", "knows", "likes"]);
        assert_eq!((g.label(0), g.label(1), g.label(2), g.label(3)), (3, 1, 2, 0));
        assert_eq!(g.edge_label(1, 2), Some(2));
        assert_eq!(g.edge_label(2, 3), Some(0));
        let (mut e, mut l) = (Vec::new(), Vec::new());
        write(&g, &mut e, Some(&mut l)).unwrap();
        let again = read(&e, &l, true, IdMode::Names).unwrap();
        assert_eq!(again.label_names(), g.label_names());
        assert_eq!(again.edges().collect::<Vec<_>>(), g.edges().collect::<Vec<_>>());
        // All numbers: no names, as before.
        assert!(read(b"1 2 3\n", b"1 5\n", false, IdMode::Compact).unwrap().label_names().is_none());
        let err = read(b"1 2 99999999999\n", b"", false, IdMode::Compact).unwrap_err().to_string();
        assert!(err.contains("an integer 0..=4294967295, or a name"), "{err}");
    }

    #[test]
    fn names_are_utf8_of_bounded_length_and_counted_in_memory() {
        let e = |d: &[u8], l: &[u8], m| read(d, l, false, m).unwrap_err().to_string();
        // Invalid UTF-8 is an error wherever a name goes, not a replacement character.
        assert_eq!(e(b"a b kn\xffows\n", b"", IdMode::Names), "e.txt:1: edge label 'kn\\u{fffd}ows' is not UTF-8");
        assert_eq!(
            e(b"0 1\n", b"0 Pers\xffon\n", IdMode::Compact),
            "l.txt:1: vertex label 'Pers\\u{fffd}on' is not UTF-8"
        );
        assert_eq!(e(b"0 x\n1 2 a\xff\n", b"", IdMode::Names), "e.txt:2: edge label 'a\\u{fffd}' is not UTF-8");
        assert_eq!(e(b"0 1\na\xff 2\n", b"", IdMode::Names), "e.txt:2: source id 'a\\u{fffd}' is not UTF-8");
        // A name may have MAX_NAME_LEN bytes, not one more.
        let long = "w".repeat(MAX_NAME_LEN);
        for (what, edges, labels, mode) in [
            ("edge label", format!("0 1 {long}x\n"), String::new(), IdMode::Compact),
            ("vertex label", "0 1\n".to_string(), format!("1 {long}x\n"), IdMode::Compact),
            ("target id", format!("a {long}x\n"), String::new(), IdMode::Names),
        ] {
            let file = if labels.is_empty() { "e.txt:1" } else { "l.txt:1" };
            assert_eq!(
                e(edges.as_bytes(), labels.as_bytes(), mode),
                format!(
                    "{file}: {what} '{}...' of 65537 bytes is longer than the 65536 bytes a name may have",
                    &long[..40]
                )
            );
            let ok = read(edges.replace('x', "").as_bytes(), labels.replace('x', "").as_bytes(), false, mode).unwrap();
            // The names count in the graph's memory.
            assert!(ok.memory_bytes() > MAX_NAME_LEN as u64, "{what}: {}", ok.memory_bytes());
        }
    }

    #[test]
    fn reads_comments_labels_and_errors() {
        let g = read(b"# snap\n0 1\n% k\n1 3 2\n", b"3 9\n", true, IdMode::Keep).unwrap();
        assert_eq!(g.num_vertices(), 4);
        assert!(g.is_directed());
        assert!(g.ids().is_none());
        assert_eq!(g.label(3), 9);
        assert_eq!(g.edge_label(1, 3), Some(2));
        let e = |d: &[u8], l: &[u8], m| read(d, l, false, m).unwrap_err().to_string();
        assert_eq!(e(b"0 1\n2\n", b"", IdMode::Compact), "e.txt:2: missing target id");
        assert_eq!(e(b"# only\n", b"", IdMode::Compact), "e.txt:0: empty edge list: no edge found");
        assert_eq!(e(b"0 1\n", b"5 1\n", IdMode::Keep), "l.txt:1: vertex id 5 out of range (the graph has 2 vertices)");
        assert_eq!(
            e(b"a b\n", b"", IdMode::Compact),
            "e.txt:1: bad source id 'a'; use --string-ids for ids that are not numbers"
        );
        assert_eq!(
            e(b"0 1\n0 4000000000\n", b"", IdMode::Keep),
            "e.txt:2: target id 4000000000 with --keep-ids would make 4000000001 vertices; at most 1048849 \
             are allowed for this file (without --keep-ids ids are compacted)"
        );
    }

    #[test]
    fn sparse_ids_are_compacted_and_kept() {
        // The reproducer of issue 9: allocated for 4·10^9 vertices before.
        let g = read(b"0 1\n4000000000 2\n", b"4000000000 7\n9 1\n", false, IdMode::Compact).unwrap();
        assert_eq!(g.num_vertices(), 5);
        assert_eq!(g.ids().map(|i| &**i), Some(&VertexIds::Numbers(vec![0, 1, 2, 9, 4_000_000_000])));
        assert_eq!(g.label(4), 7);
        assert_eq!(g.label(3), 1);
        assert_eq!(g.degree(3, crate::graph::Dir::Out), 0);
        assert_eq!(g.edge_label(4, 2), Some(0));
        let mut out = Vec::new();
        write(&g, &mut out, None::<Vec<u8>>).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0 1\n2 4000000000\n");

        let g = read(b"bob\talice\r\nalice carol 3\r\n", b"carol 5\n", true, IdMode::Names).unwrap();
        assert_eq!(g.original_id(0), Id::Name("alice"));
        assert_eq!(g.edge_label(1, 0), Some(0));
        assert_eq!(g.edge_label(0, 2), Some(3));
        assert_eq!(g.label(2), 5);
        let g = read(b"1 3\n3 2\n", b"", false, IdMode::Compact).unwrap();
        assert_eq!(g.original_id(2), Id::Number(3));
        assert_eq!(g.edge_label(0, 2), Some(0));
    }
}
