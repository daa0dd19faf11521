//! Sun & Luo `.graph` format (SIGMOD 2020 benchmark): `t n m`, `v id label degree`,
//! `e u v [edge label]`; undirected, a missing edge label is 0.

use super::text::{check_text, Lines};
use crate::error::Error;
use crate::graph::{Graph, GraphBuilder};
use std::io::Write;
use std::path::Path;

/// Parses one graph. Checks the header, that every vertex is declared once, ids are in range,
/// the counts match the header and each declared degree matches its edges.
pub fn parse(file: &Path, data: &[u8]) -> Result<GraphBuilder, Error> {
    check_text(file, data)?;
    let mut lines = Lines::new(file, data, true);
    let mut head =
        lines.next_fields().ok_or_else(|| lines.error(0, "empty file (expected a header 't <vertices> <edges>')"))?;
    if head.token() != Some(b"t") {
        return Err(head.error("missing header: the first line must be 't <vertices> <edges>'"));
    }
    let n = head.u64("vertex count")?;
    let m = head.u64("edge count")?;
    head.end()?;
    let n = head.vertex_count(n, data.len())?;
    let mut b = GraphBuilder::new(n, false);
    b.reserve_edges(m.min(data.len() as u64 / 4) as usize);
    // Per vertex: its degree field (optional) and line, once its 'v' line is read.
    let mut declared: Vec<Option<(Option<u32>, u64)>> = vec![None; n];
    let mut seen_edges: Vec<u64> = vec![0; n];
    let mut vertices = 0u64;
    let mut edges = 0u64;
    while let Some(mut f) = lines.next_fields() {
        match f.token() {
            Some(b"v") => {
                let v = f.vertex("vertex id", n)?;
                let label = f.u32("vertex label")?;
                let degree = f.opt_u32("degree")?;
                f.end()?;
                if declared[v as usize].is_some() {
                    return Err(f.error(format!("vertex {v} declared twice")));
                }
                declared[v as usize] = Some((degree, f.line));
                b.set_label(v, label);
                vertices += 1;
            }
            Some(b"e") => {
                let u = f.vertex("source id", n)?;
                let v = f.vertex("target id", n)?;
                let label = f.opt_u32("edge label")?.unwrap_or(0);
                f.end()?;
                b.add_edge(u, v, label);
                seen_edges[u as usize] += 1;
                seen_edges[v as usize] += 1;
                edges += 1;
            }
            Some(tok) => {
                return Err(f.error(format!("expected a 'v' or 'e' record, found '{}'", super::text::show(tok))))
            }
            None => unreachable!("blank lines are skipped"),
        }
    }
    if vertices != n as u64 {
        return Err(lines.error(
            lines.line(),
            format!("the header declares {n} vertices but {vertices} 'v' lines were found (truncated file?)"),
        ));
    }
    if edges != m {
        return Err(lines.error(
            lines.line(),
            format!("the header declares {m} edges but {edges} 'e' lines were found (truncated file?)"),
        ));
    }
    for (v, d) in declared.iter().enumerate() {
        let (degree, line) = d.expect("all declared");
        if let Some(degree) = degree.filter(|&d| d as u64 != seen_edges[v]) {
            return Err(
                lines.error(line, format!("vertex {v} declares degree {degree} but has {} edges", seen_edges[v]))
            );
        }
    }
    Ok(b)
}

/// Writes `g` in Sun & Luo format; edge labels are written when the graph has any but 0. A self
/// loop is an `e v v` line, which counts twice in its vertex's degree (as the reader counts
/// it). A graph of several labels on a vertex or several edges on a pair is refused
/// (`super::lossless`), with an error of kind `InvalidInput`.
pub fn write<W: Write>(g: &Graph, mut w: W) -> std::io::Result<()> {
    super::lossless::refuse(g, super::lossless::SUNLUO)?;
    let loops = g.loops();
    let labelled = g.edge_label_values().iter().chain(loops.iter().map(|(_, l)| l)).any(|&l| l != 0);
    writeln!(w, "t {} {}", g.num_vertices(), g.num_edges() + loops.len() as u64)?;
    let mut k = 0;
    for v in 0..g.num_vertices() as u32 {
        let first = k;
        while loops.get(k).is_some_and(|&(u, _)| u == v) {
            k += 1;
        }
        writeln!(w, "v {} {} {}", v, g.label(v), g.total_degree(v) as u64 + 2 * (k - first) as u64)?;
    }
    for (u, v, l) in g.edges().chain(loops.iter().map(|&(v, l)| (v, v, l))) {
        if labelled {
            writeln!(w, "e {u} {v} {l}")?;
        } else {
            writeln!(w, "e {u} {v}")?;
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(Path::new("q.graph"), text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn reads_and_round_trips() {
        let text = "t 3 2\nv 0 5 1\nv 1 6 2\nv 2 5 1\ne 0 1 0\ne 1 2\n";
        let (g, _) = parse(Path::new("a"), text.as_bytes()).unwrap().build();
        assert_eq!(g.num_vertices(), 3);
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.label(1), 6);
        let mut out = Vec::new();
        write(&g, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "t 3 2\nv 0 5 1\nv 1 6 2\nv 2 5 1\ne 0 1\ne 1 2\n");
    }

    #[test]
    fn self_loops_are_written_and_read_back() {
        let text = "t 3 4\nv 0 5 3\nv 1 6 4\nv 2 5 1\ne 0 1\ne 1 1\ne 1 2 3\ne 0 0 2\n";
        let (g, stats) = parse(Path::new("a"), text.as_bytes()).unwrap().build();
        assert_eq!((g.num_edges(), g.loops(), stats.self_loops), (2, &[(0, 2), (1, 0)][..], 2));
        let mut out = Vec::new();
        write(&g, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, "t 3 4\nv 0 5 3\nv 1 6 4\nv 2 5 1\ne 0 1 0\ne 1 2 3\ne 0 0 2\ne 1 1 0\n");
        let again = parse(Path::new("b"), out.as_bytes()).unwrap().build().0;
        assert_eq!(again.loops(), g.loops());
        assert_eq!(again.edges().collect::<Vec<_>>(), g.edges().collect::<Vec<_>>());
    }

    #[test]
    fn errors_name_line_and_problem() {
        assert_eq!(err(""), "q.graph:0: empty file (expected a header 't <vertices> <edges>')");
        assert_eq!(err("v 0 1 0\n"), "q.graph:1: missing header: the first line must be 't <vertices> <edges>'");
        assert_eq!(
            err("t 2 1\nv 0 1 1\nv 1 1 1\ne 0 2\n"),
            "q.graph:4: target id 2 out of range (the graph has 2 vertices)"
        );
        assert_eq!(
            err("t 2 1\nv 0 1 1\nv 1 1 1\n"),
            "q.graph:3: the header declares 1 edges but 0 'e' lines were found (truncated file?)"
        );
        assert_eq!(
            err("t 2 1\nv 0 1 1\n"),
            "q.graph:2: the header declares 2 vertices but 1 'v' lines were found (truncated file?)"
        );
        assert_eq!(err("t 2 1\nv 0 1 2\nv 1 1 1\ne 0 1\n"), "q.graph:2: vertex 0 declares degree 2 but has 1 edges");
        // The largest u32 is a degree like any other, not "no degree".
        assert_eq!(
            err("t 2 1\nv 0 1 4294967295\nv 1 1 1\ne 0 1\n"),
            "q.graph:2: vertex 0 declares degree 4294967295 but has 1 edges"
        );
        assert_eq!(err("t 2 1\nv 0 x 2\n"), "q.graph:2: bad vertex label 'x' (an integer 0..=4294967295)");
        assert_eq!(err("t 2 1\nv 0 1 1\nv 0 1 1\n"), "q.graph:3: vertex 0 declared twice");
        assert_eq!(err("t 1 0\nv 0 1 0\nz\n"), "q.graph:3: expected a 'v' or 'e' record, found 'z'");
        assert_eq!(err("t 1 0 9\n"), "q.graph:1: unexpected token '9'");
        assert_eq!(err("t 1\0"), "q.graph:1: binary data (a NUL byte) in a text graph file");
        assert_eq!(
            err("t 4000000000 1\nv 0 0 0\n"),
            "q.graph:1: the header declares 4000000000 vertices, but a file of 23 bytes holds at most 4 vertex records"
        );
        assert_eq!(err("t 4294967296 0\n"), "q.graph:1: 4294967296 vertices exceed the 2^32 - 1 supported");
        // The tightest file a count allows: one shortest record per vertex, the last unended.
        assert!(parse(Path::new("q.graph"), b"t 2 0\nv 0 0\nv 1 0").is_ok());
    }
}
