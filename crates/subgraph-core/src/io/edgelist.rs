//! Plain edge lists: `u v [edge label]` per line, `#` or `%` comments (SNAP, KONECT), with an
//! optional vertex label file of `id label1 label2 …` lines keyed by the same ids (a vertex has
//! every label its lines give it: several make a set label, `graph::sets`). Labels are numbers,
//! or names (any word; see `graph::LabelNames`). Ids are compacted to 0..n and kept for output
//! (`remap`), unless `--keep-ids`. Lines of one pair with different edge labels are kept, as
//! one edge of their set; a `v v` line is a self loop, kept apart (`Graph::loops`).

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

/// Reads `id label1 label2 …` lines (one label or more) into the graph's vertex labels, in the
/// edge list's ids; a vertex given on several lines has the union of their labels.
pub(crate) fn parse_labels(file: &Path, data: &[u8], raw: &mut RawGraph) -> Result<(), Error> {
    check_text(file, data)?;
    let mut lines = Lines::new(file, data, true);
    while let Some(mut f) = lines.next_fields() {
        let v = raw.id(&mut f, "vertex id")?;
        let mut tok = Some(f.expect("vertex label")?);
        while let Some(t) = tok {
            let l = raw.vertex_label(&f, t)?;
            raw.add_label(&f, v, l)?;
            tok = f.token();
        }
    }
    Ok(())
}

/// Writes what the graph holds, in its original ids: each edge as a `u v label` line (`u v`
/// where every edge label is 0 and unnamed), an edge of a set label as one line per label of
/// its set, each self loop as a `v v label` line; and, when `labels` is given, each vertex as an
/// `id label1 label2 …` line of all its labels. Named labels are written as their names.
pub fn write<W: Write, L: Write>(g: &Graph, mut w: W, labels: Option<L>) -> std::io::Result<()> {
    let names = g.label_names();
    let name = |list: Option<&Vec<String>>, l: u32| {
        list.filter(|n| !n.is_empty()).map_or(l.to_string(), |n| n[l as usize].clone())
    };
    let edge_names = names.map(|n| &n.edge);
    let labelled = g
        .edge_label_values()
        .iter()
        .flat_map(|l| g.edge_label_members(l))
        .chain(g.loops().iter().map(|(_, l)| l))
        .any(|&l| l != 0)
        || edge_names.is_some_and(|n| !n.is_empty());
    let id = |v| g.original_id(v);
    let mut line = |u: u32, v: u32, l: u32| match labelled {
        true => writeln!(w, "{} {} {}", id(u), id(v), name(edge_names, l)),
        false => writeln!(w, "{} {}", id(u), id(v)),
    };
    for (u, v, l) in g.edges() {
        for &m in g.edge_label_members(&l) {
            line(u, v, m)?;
        }
    }
    for &(v, l) in g.loops() {
        line(v, v, l)?;
    }
    w.flush()?;
    if let Some(mut lw) = labels {
        for v in 0..g.num_vertices() as u32 {
            write!(lw, "{}", id(v))?;
            for &l in g.vertex_label_members(&g.label(v)) {
                write!(lw, " {}", name(names.map(|n| &n.vertex), l))?;
            }
            writeln!(lw)?;
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

    /// Each vertex's labels (its set's members) by original id, each edge with its labels, each
    /// loop, in original ids: what a round trip must keep.
    type Held = (Vec<(String, Vec<String>)>, Vec<(String, String, Vec<String>)>, Vec<(String, String)>);

    fn held(g: &Graph) -> Held {
        let names = g.label_names();
        let vname =
            |l: u32| names.filter(|n| !n.vertex.is_empty()).map_or(l.to_string(), |n| n.vertex[l as usize].clone());
        let ename = |l: u32| names.filter(|n| !n.edge.is_empty()).map_or(l.to_string(), |n| n.edge[l as usize].clone());
        let id = |v: u32| g.original_id(v).to_string();
        let vertices = (0..g.num_vertices() as u32)
            .map(|v| (id(v), g.vertex_label_members(&g.label(v)).iter().map(|&l| vname(l)).collect()))
            .collect();
        let mut edges: Vec<_> = g
            .edges()
            .map(|(u, v, l)| (id(u), id(v), g.edge_label_members(&l).iter().map(|&m| ename(m)).collect()))
            .collect();
        edges.sort();
        let mut loops: Vec<_> = g.loops().iter().map(|&(v, l)| (id(v), ename(l))).collect();
        loops.sort();
        (vertices, edges, loops)
    }

    #[test]
    fn a_vertex_has_every_label_its_lines_give_it() {
        // Numbers: vertex 0 has {3, 5} (two lines, 5 twice), 1 has {2}, 2 none (0).
        let g = read(b"0 1\n1 2\n", b"0 3 5\n1 2\n0 5\n", false, IdMode::Compact).unwrap();
        assert_eq!(g.vertex_label_members(&g.label(0)), &[3, 5]);
        assert!(g.label(0) > 5, "a set label, above the file's");
        assert_eq!((g.label(1), g.label(2)), (2, 0));
        assert_eq!(g.label_sets().unwrap().vertex_sets(), &[vec![3, 5]]);
        // Names, numbered in byte order whatever the order of the lines; "0" where none.
        let g = read(b"a b\nb c\n", b"a Person Agent\nb Agent\na 7\n", true, IdMode::Names).unwrap();
        assert_eq!(g.label_names().unwrap().vertex, ["0", "7", "Agent", "Person"]);
        assert_eq!(g.vertex_label_members(&g.label(0)), &[1, 2, 3]);
        assert_eq!((g.label(1), g.label(2)), (2, 0));
        let e = read(b"0 1\n", b"0\n", false, IdMode::Compact).unwrap_err().to_string();
        assert_eq!(e, "l.txt:1: missing vertex label");
        let e = read(b"0 1\n", b"0 1 99999999999\n", false, IdMode::Compact).unwrap_err().to_string();
        assert!(e.starts_with("l.txt:1: bad vertex label '99999999999'"), "{e}");
    }

    #[test]
    fn pairs_of_several_labels_are_one_edge_of_their_set_and_loops_are_kept() {
        let edges = b"0 1 3\n0 1 4\n1 0 3\n0 1 3\n2 2 5\n2 2 5\n1 2\n";
        let built = |directed| {
            let raw = parse(Path::new("e.txt"), edges, directed, IdMode::Compact).unwrap();
            raw.into_builder(Path::new("e.txt")).unwrap().build()
        };
        let (g, stats) = built(false);
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.edge_label_members(&g.edge_label(0, 1).unwrap()), &[3, 4]);
        assert_eq!(g.edge_label(1, 2), Some(0));
        assert_eq!(g.loops(), &[(2, 5)]);
        assert_eq!((stats.duplicates, g.multi_edge_pairs(), stats.self_loops), (3, 1, 1));
        let (g, stats) = built(true);
        assert_eq!(g.num_edges(), 3);
        assert_eq!(g.edge_label_members(&g.edge_label(0, 1).unwrap()), &[3, 4]);
        assert_eq!(g.edge_label(1, 0), Some(3));
        assert_eq!((stats.duplicates, g.multi_edge_pairs(), stats.self_loops), (2, 1, 1));
    }

    #[test]
    fn writes_what_the_graph_holds_and_reads_it_back() {
        // Names: a vertex of two types, a pair of two predicates, a loop, an unlabelled vertex.
        let edges = b"ada alan knows\nada alan likes\nalan ada knows\nalan alan self\nbo ada\n";
        let labels = b"ada Person\nada Agent\nalan Person\n";
        let g = read(edges, labels, true, IdMode::Names).unwrap();
        let (mut e, mut l) = (Vec::new(), Vec::new());
        write(&g, &mut e, Some(&mut l)).unwrap();
        assert_eq!(
            String::from_utf8(e.clone()).unwrap(),
            "ada alan knows\nada alan likes\nalan ada knows\nbo ada 0\nalan alan self\n"
        );
        assert_eq!(String::from_utf8(l.clone()).unwrap(), "ada Agent Person\nalan Person\nbo 0\n");
        let again = read(&e, &l, true, IdMode::Names).unwrap();
        assert_eq!(held(&again), held(&g));
        assert_eq!(again.label_sets(), g.label_sets());
        // Numbers, undirected: a set of edge labels, loops of labels 0 and 2.
        let g = read(b"5 6 1\n6 5 2\n5 5\n5 5 2\n6 7 1\n", b"5 1 4\n7 2\n", false, IdMode::Compact).unwrap();
        let (mut e, mut l) = (Vec::new(), Vec::new());
        write(&g, &mut e, Some(&mut l)).unwrap();
        assert_eq!(String::from_utf8(e.clone()).unwrap(), "5 6 1\n5 6 2\n6 7 1\n5 5 0\n5 5 2\n");
        assert_eq!(String::from_utf8(l.clone()).unwrap(), "5 1 4\n6 0\n7 2\n");
        let again = read(&e, &l, false, IdMode::Compact).unwrap();
        assert_eq!(held(&again), held(&g));
        assert_eq!((again.loops(), again.label_sets()), (g.loops(), g.label_sets()));
        // A loop labelled 0 alone still writes `v v`.
        let g = read(b"0 1\n1 1\n", b"", false, IdMode::Compact).unwrap();
        let mut e = Vec::new();
        write(&g, &mut e, None::<Vec<u8>>).unwrap();
        assert_eq!(String::from_utf8(e).unwrap(), "0 1\n1 1\n");
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
