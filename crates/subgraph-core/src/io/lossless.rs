//! What a writer of one label per vertex and one edge per pair (Sun & Luo `.graph`, GSI `.g`)
//! cannot hold of a graph with label sets (issue 39), in one line: `io::unwritable` and the
//! writers ask here, so that a graph is refused, never written with facts dropped.

use crate::graph::Graph;

/// The Sun & Luo format's name in messages.
pub(crate) const SUNLUO: &str = "a Sun & Luo .graph file";
/// The GSI format's name in messages.
pub(crate) const GSI: &str = "a GSI .g file";

/// Why a file of one label per vertex and one edge per pair (`name`) cannot hold `g`; None
/// where `g` has neither a vertex of several labels nor a pair of several edges.
pub(crate) fn one_label_per_vertex(g: &Graph, name: &str) -> Option<String> {
    let (vertices, pairs) = (g.multi_labelled_vertices(), g.multi_edge_pairs());
    let mut what = Vec::new();
    if vertices > 0 {
        what.push(format!("{vertices} {} several labels", if vertices == 1 { "vertex has" } else { "vertices have" }));
    }
    if pairs > 0 {
        what.push(format!("{pairs} {} several edges", if pairs == 1 { "pair has" } else { "pairs have" }));
    }
    (!what.is_empty()).then(|| {
        format!(
            "{name} holds one label per vertex and one edge per pair: {}; write an edge list or .sgb",
            what.join(" and ")
        )
    })
}

/// The error of a writer (`name`'s) handed a graph it cannot hold, of kind `InvalidInput`.
pub(crate) fn refuse(g: &Graph, name: &str) -> std::io::Result<()> {
    match one_label_per_vertex(g, name) {
        Some(msg) => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)),
        None => Ok(()),
    }
}
