//! GSI `.g` format (pkumod/GSI data/readme): `t # 0`, `|V| |E| maxVL maxEL`, `v id label`,
//! `e from to label`, `t # -1`; directed and edge-labelled; a file may hold several graphs.

use super::text::{check_text, show, Lines};
use crate::error::Error;
use crate::graph::{Graph, GraphBuilder};
use std::io::Write;
use std::path::Path;

/// Parses every graph of the file.
pub fn parse_all(file: &Path, data: &[u8]) -> Result<Vec<GraphBuilder>, Error> {
    check_text(file, data)?;
    let mut lines = Lines::new(file, data, false);
    let mut graphs = Vec::new();
    while let Some(mut f) = lines.next_fields() {
        let first = f.token();
        if !graphs.is_empty() && matches!(first, Some(b"v") | Some(b"e")) {
            return Err(f.error("a record after the vertices and edges its graph's counts line declares"));
        }
        if first != Some(b"t") || f.token() != Some(b"#") {
            return Err(f.error("missing header: expected 't # <id>'"));
        }
        let id = f.expect("graph id")?;
        if id == b"-1" {
            f.end()?;
            break;
        }
        let mut counts =
            lines.next_fields().ok_or_else(|| lines.error(lines.line(), "truncated file: missing the counts line"))?;
        let n = counts.u64("vertex count")?;
        let m = counts.u64("edge count")?;
        counts.u32("largest vertex label")?;
        counts.u32("largest edge label")?;
        counts.end()?;
        let n = counts.vertex_count(n, data.len())?;
        let mut b = GraphBuilder::new(n, true);
        let mut declared = vec![false; n];
        let (mut vertices, mut edges) = (0u64, 0u64);
        let counts_line = counts.line;
        while vertices < n as u64 || edges < m {
            let mut f = lines.next_fields().ok_or_else(|| {
                lines.error(
                    lines.line(),
                    format!(
                        "truncated file: graph of line {counts_line} declares {n} vertices and {m} edges, found {vertices} and {edges}"
                    ),
                )
            })?;
            match f.token() {
                Some(b"v") if vertices < n as u64 => {
                    let v = f.vertex("vertex id", n)?;
                    let label = f.u32("vertex label")?;
                    f.end()?;
                    if std::mem::replace(&mut declared[v as usize], true) {
                        return Err(f.error(format!("vertex {v} declared twice")));
                    }
                    b.set_label(v, label);
                    vertices += 1;
                }
                Some(b"e") if edges < m => {
                    let u = f.vertex("source id", n)?;
                    let v = f.vertex("target id", n)?;
                    let label = f.u32("edge label")?;
                    f.end()?;
                    b.add_edge(u, v, label);
                    edges += 1;
                }
                Some(b"v") | Some(b"e") => {
                    return Err(f.error(format!(
                        "more records than the counts line {counts_line} declares ({n} vertices, {m} edges)"
                    )))
                }
                Some(b"t") => {
                    return Err(f.error(format!(
                        "graph ends early: the counts line {counts_line} declares {n} vertices and {m} edges, found {vertices} and {edges}"
                    )))
                }
                Some(tok) => return Err(f.error(format!("expected a 'v' or 'e' record, found '{}'", show(tok)))),
                None => unreachable!("blank lines are skipped"),
            }
        }
        graphs.push(b);
    }
    if let Some(f) = lines.next_fields() {
        return Err(f.error("content after 't # -1'"));
    }
    if graphs.is_empty() {
        return Err(lines.error(lines.line(), "no graph in the file"));
    }
    Ok(graphs)
}

/// Writes `g` as one GSI graph (directed; an undirected graph is written with both directions),
/// each self loop as one `e v v label` line. A graph of several labels on a vertex or several
/// edges on a pair is refused (`super::lossless`), with an error of kind `InvalidInput`.
pub fn write<W: Write>(g: &Graph, mut w: W) -> std::io::Result<()> {
    super::lossless::refuse(g, super::lossless::GSI)?;
    let loops = g.loops();
    let arcs = if g.is_directed() { g.num_edges() } else { 2 * g.num_edges() } + loops.len() as u64;
    let maxv = g.vertex_label_values().last().copied().unwrap_or(0);
    let maxe = g.edge_label_values().iter().chain(loops.iter().map(|(_, l)| l)).max().copied().unwrap_or(0);
    writeln!(w, "t # 0\n{} {} {} {}", g.num_vertices(), arcs, maxv, maxe)?;
    for v in 0..g.num_vertices() as u32 {
        writeln!(w, "v {} {}", v, g.label(v))?;
    }
    for (u, v, l) in g.edges() {
        writeln!(w, "e {u} {v} {l}")?;
        if !g.is_directed() {
            writeln!(w, "e {v} {u} {l}")?;
        }
    }
    for &(v, l) in loops {
        writeln!(w, "e {v} {v} {l}")?;
    }
    writeln!(w, "t # -1")?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Dir;

    const TWO: &str = "t # 0\n3 3 1 1\nv 0 1\nv 1 1\nv 2 1\ne 0 1 1\ne 1 2 1\ne 2 0 1\nt # 1\n2 1 1 2\nv 0 1\nv 1 1\ne 1 0 2\nt # -1\n";

    #[test]
    fn reads_several_directed_graphs_and_round_trips() {
        let gs = parse_all(Path::new("d.g"), TWO.as_bytes()).unwrap();
        assert_eq!(gs.len(), 2);
        let g = gs.into_iter().nth(1).unwrap().build().0;
        assert!(g.is_directed());
        assert_eq!(g.neighbors_labelled(0, Dir::In, 2, 1), &[1]);
        assert_eq!(g.neighbors(0, Dir::Out), &[] as &[u32]);
        let mut out = Vec::new();
        write(&g, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "t # 0\n2 1 1 2\nv 0 1\nv 1 1\ne 1 0 2\nt # -1\n");
    }

    #[test]
    fn self_loops_are_written_and_read_back() {
        let text = "t # 0\n2 3 1 9\nv 0 1\nv 1 0\ne 0 1 1\ne 1 1 9\ne 1 1 4\nt # -1\n";
        let g = parse_all(Path::new("d.g"), text.as_bytes()).unwrap().remove(0).build().0;
        assert_eq!((g.num_edges(), g.loops()), (1, &[(1, 4), (1, 9)][..]));
        let mut out = Vec::new();
        write(&g, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, "t # 0\n2 3 1 9\nv 0 1\nv 1 0\ne 0 1 1\ne 1 1 4\ne 1 1 9\nt # -1\n");
        assert_eq!(parse_all(Path::new("e.g"), out.as_bytes()).unwrap().remove(0).build().0.loops(), g.loops());
        // Undirected: both directions of an edge, a loop once.
        let mut b = GraphBuilder::new(2, false);
        b.add_edge(0, 1, 0);
        b.add_edge(0, 0, 3);
        let mut out = Vec::new();
        write(&b.build().0, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "t # 0\n2 3 0 3\nv 0 0\nv 1 0\ne 0 1 0\ne 1 0 0\ne 0 0 3\nt # -1\n"
        );
    }

    #[test]
    fn errors() {
        let err = |t: &str| parse_all(Path::new("d.g"), t.as_bytes()).unwrap_err().to_string();
        assert_eq!(err("3 3 1 1\n"), "d.g:1: missing header: expected 't # <id>'");
        assert_eq!(
            err("t # 0\n4000000000 0 1 1\nv 0 1\n"),
            "d.g:2: the header declares 4000000000 vertices, but a file of 29 bytes holds at most 5 vertex records"
        );
        assert_eq!(
            err("t # 0\n2 1 1 1\nv 0 1\nv 1 1\n"),
            "d.g:4: truncated file: graph of line 2 declares 2 vertices and 1 edges, found 2 and 0"
        );
        assert_eq!(
            err("t # 0\n2 0 1 1\nv 0 1\nv 1 1\nv 1 1\n"),
            "d.g:5: a record after the vertices and edges its graph's counts line declares"
        );
        assert_eq!(
            err("t # 0\n1 1 1 1\nv 0 1\nv 0 1\n"),
            "d.g:4: more records than the counts line 2 declares (1 vertices, 1 edges)"
        );
        assert_eq!(
            err("t # 0\n2 0 1 1\nv 0 1\nt # -1\n"),
            "d.g:4: graph ends early: the counts line 2 declares 2 vertices and 0 edges, found 1 and 0"
        );
        assert_eq!(
            err("t # 0\n1 1 1 1\nv 0 1\ne 0 3 1\n"),
            "d.g:4: target id 3 out of range (the graph has 1 vertices)"
        );
        assert_eq!(err(""), "d.g:0: no graph in the file");
    }
}
