//! Automorphisms of a query, counted by matching the query onto itself: every embedding of a
//! graph into itself is a bijection mapping edges onto edges, hence an automorphism. The
//! number of distinct subgraphs is then embeddings / automorphisms, since automorphisms act
//! freely on embeddings and each orbit is one subgraph.

use crate::graph::Graph;
use crate::pipeline::{run_query, MatchOptions};
use crate::query::Semantics;
use crate::sink::Control;

/// |Aut(q)|: label- and edge-label-preserving automorphisms, direction-preserving if directed.
pub fn count(q: &Graph) -> u128 {
    let opts = MatchOptions { semantics: Semantics::Embed, ..MatchOptions::default() };
    run_query(q, q.clone(), &opts, &Control::unlimited(), None)
        .map(|r| r.embeddings)
        .expect("a graph always matches itself")
}
