//! Plain edge lists: `u v [edge label]` per line, `#` or `%` comments (SNAP, KONECT), with an
//! optional vertex label file of `id label` lines. The vertex count is the largest id plus one.

use super::text::{check_text, Lines};
use crate::error::Error;
use crate::graph::{Graph, GraphBuilder};
use std::io::Write;
use std::path::Path;

/// Largest vertex id accepted from an edge list, so that a stray huge number cannot make the
/// reader allocate gigabytes for vertices that do not exist.
pub const MAX_EDGE_LIST_ID: u64 = (1 << 32) - 2;

pub fn parse(file: &Path, data: &[u8], directed: bool) -> Result<GraphBuilder, Error> {
    check_text(file, data)?;
    let mut lines = Lines::new(file, data, true);
    let mut edges = Vec::with_capacity(data.len() / 12);
    let mut max_id: i64 = -1;
    while let Some(mut f) = lines.next_fields() {
        let u = f.u64("source id")?;
        let v = f.u64("target id")?;
        let l = f.opt_u32("edge label")?.unwrap_or(0);
        f.end()?;
        if u.max(v) > MAX_EDGE_LIST_ID {
            return Err(f.error(format!("vertex id {} exceeds the largest supported, {MAX_EDGE_LIST_ID}", u.max(v))));
        }
        max_id = max_id.max(u.max(v) as i64);
        edges.push((u as u32, v as u32, l));
    }
    if edges.is_empty() {
        return Err(lines.error(0, "empty edge list: no edge found"));
    }
    let n = (max_id + 1) as usize;
    Ok(GraphBuilder::from_parts(vec![0; n], edges, directed))
}

/// Reads `id label` lines into the builder's labels; ids must exist in the graph.
pub fn apply_labels(file: &Path, data: &[u8], b: &mut GraphBuilder) -> Result<(), Error> {
    check_text(file, data)?;
    let n = b.num_vertices();
    let mut lines = Lines::new(file, data, true);
    while let Some(mut f) = lines.next_fields() {
        let v = f.vertex("vertex id", n)?;
        let l = f.u32("vertex label")?;
        f.end()?;
        b.set_label(v, l);
    }
    Ok(())
}

/// Writes the edges (`u v label` when the graph has edge labels other than 0) and, when
/// `labels` is given, the vertex labels as `id label` lines.
pub fn write<W: Write, L: Write>(g: &Graph, mut w: W, labels: Option<L>) -> std::io::Result<()> {
    let labelled = g.edge_label_values().iter().any(|&l| l != 0);
    for (u, v, l) in g.edges() {
        if labelled {
            writeln!(w, "{u} {v} {l}")?;
        } else {
            writeln!(w, "{u} {v}")?;
        }
    }
    w.flush()?;
    if let Some(mut lw) = labels {
        for v in 0..g.num_vertices() as u32 {
            writeln!(lw, "{v} {}", g.label(v))?;
        }
        lw.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_comments_labels_and_errors() {
        let p = Path::new("e.txt");
        let mut b = parse(p, b"# snap\n0 1\n% k\n1 3 2\n", true).unwrap();
        apply_labels(Path::new("l.txt"), b"3 9\n", &mut b).unwrap();
        let (g, _) = b.build();
        assert_eq!(g.num_vertices(), 4);
        assert!(g.is_directed());
        assert_eq!(g.label(3), 9);
        assert_eq!(g.edge_label(1, 3), Some(2));
        let e = parse(p, b"0 1\n2\n", false).unwrap_err().to_string();
        assert_eq!(e, "e.txt:2: missing target id");
        let e = parse(p, b"# only\n", false).unwrap_err().to_string();
        assert_eq!(e, "e.txt:0: empty edge list: no edge found");
        let mut b = parse(p, b"0 1\n", false).unwrap();
        let e = apply_labels(Path::new("l.txt"), b"5 1\n", &mut b).unwrap_err().to_string();
        assert_eq!(e, "l.txt:1: vertex id 5 out of range (the graph has 2 vertices)");
    }
}
