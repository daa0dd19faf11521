//! Random tree patterns over a data graph for the tests of GGQ's thread-ID enumeration (GGQ
//! §4): shared by `ggq::ids`'s unit tests and, through `#[path]`, the GPU integration test.

use std::sync::Arc;

use subgraph_core::filter::Bitset;
use subgraph_core::tree::TreeQuery;
use subgraph_core::Graph;

/// A random tree of 1–6 vertices over `data`: vertex and edge labels drawn from `labels`, or
/// absent (a third of each); each edge towards or away from its parent; a quarter of the
/// vertices restricted to about two thirds of the data vertices; a random root. `below(n)`
/// draws uniformly from [0, n).
pub fn random_tree(below: &mut impl FnMut(u64) -> u64, data: &Graph, labels: &[u32]) -> TreeQuery {
    let (n, q) = (data.num_vertices(), 1 + below(6) as usize);
    let label = |below: &mut dyn FnMut(u64) -> u64| (below(3) > 0).then(|| labels[below(labels.len() as u64) as usize]);
    let vertex_labels: Vec<Option<u32>> = (0..q).map(|_| label(below)).collect();
    let edges: Vec<(u32, u32, Option<u32>)> = (1..q as u32)
        .map(|c| {
            let p = below(c as u64) as u32;
            let l = label(below);
            if below(2) == 0 {
                (p, c, l)
            } else {
                (c, p, l)
            }
        })
        .collect();
    let allowed = (0..q)
        .map(|_| {
            (below(4) == 0).then(|| {
                let mut set = Bitset::new(n);
                (0..n as u32).filter(|_| below(3) > 0).for_each(|v| set.insert(v));
                Arc::new(set)
            })
        })
        .collect();
    let root = below(q as u64) as u32;
    TreeQuery::new(vertex_labels, &edges, allowed, root, data.is_directed()).expect("a tree")
}
