//! CFL's core-forest-leaf order (Bi et al., SIGMOD 2016 §5, as FSIG takes it from its auxiliary
//! structure: Yu's thesis §5.3, `../shared/papers/thesis-fsig.md` §1.6). The query splits into
//! its 2-core, the forest hanging from it and its leaves (degree one). From the root, the core
//! vertex of lowest |C(u)| / deg(u) (any vertex in a tree), a BFS tree is grown; its
//! root-to-leaf paths within the core are matched first, then those within core and forest,
//! each time choosing the path whose estimated matches over the candidate edges
//! ([`Sampler::path_embeddings`]) are fewest: the first by its estimate per non-tree edge it
//! closes, the later ones by the estimate of their unmatched part per candidate of the vertex
//! they hang from. Leaves come last, fewest candidates first, which postpones the Cartesian
//! products a breadth-first join would otherwise make early.

use super::{neighbours, place};
use crate::estimate::sampling::Sampler;
use crate::query::Query;

/// The CFL order of one connected component of `query` holding `start`'s vertices not yet
/// `placed`, appended to `order`.
fn component(query: &Query, sampler: &mut Sampler, order: &mut Vec<u32>, placed: &mut [bool], seed: u32) {
    let n = query.num_vertices();
    let adjacent: Vec<Vec<u32>> = (0..n as u32).map(|u| neighbours(query, u)).collect();
    let nbrs = |u: u32| adjacent[u as usize].as_slice();
    // The component of `seed`, among unplaced vertices.
    let mut members = vec![seed];
    let mut inside = vec![false; n];
    inside[seed as usize] = true;
    let mut i = 0;
    while i < members.len() {
        for &w in nbrs(members[i]) {
            if !inside[w as usize] && !placed[w as usize] {
                inside[w as usize] = true;
                members.push(w);
            }
        }
        i += 1;
    }
    // The 2-core: peel vertices of fewer than two neighbours left.
    let mut degree: Vec<usize> =
        (0..n as u32).map(|u| nbrs(u).iter().filter(|&&w| inside[w as usize]).count()).collect();
    let mut core = inside.clone();
    let mut peel: Vec<u32> = members.iter().copied().filter(|&u| degree[u as usize] < 2).collect();
    while let Some(u) = peel.pop() {
        if !core[u as usize] {
            continue;
        }
        core[u as usize] = false;
        for &w in nbrs(u) {
            if core[w as usize] {
                degree[w as usize] -= 1;
                if degree[w as usize] == 1 {
                    peel.push(w);
                }
            }
        }
    }
    let sizes: Vec<f64> = sampler.candidates().iter().map(|c| c.len() as f64).collect();
    let score = |u: u32| sizes[u as usize] / nbrs(u).len().max(1) as f64;
    let has_core = members.iter().any(|&u| core[u as usize]);
    let root = members
        .iter()
        .copied()
        .filter(|&u| !has_core || core[u as usize])
        .min_by(|&a, &b| score(a).total_cmp(&score(b)).then(a.cmp(&b)))
        .expect("a component has a vertex");
    // The BFS tree from the root.
    let mut parent: Vec<Option<u32>> = vec![None; n];
    let mut bfs = vec![root];
    let mut seen = vec![false; n];
    seen[root as usize] = true;
    let mut i = 0;
    while i < bfs.len() {
        let u = bfs[i];
        for &w in nbrs(u) {
            if inside[w as usize] && !seen[w as usize] {
                seen[w as usize] = true;
                parent[w as usize] = Some(u);
                bfs.push(w);
            }
        }
        i += 1;
    }
    let leaf = |u: u32| u != root && !core[u as usize] && nbrs(u).len() == 1;
    place(order, placed, root);
    // Core paths, then core and forest paths.
    let in_core = |u: u32| core[u as usize];
    let not_leaf = |u: u32| !leaf(u);
    let phases: [&dyn Fn(u32) -> bool; 2] = [&in_core, &not_leaf];
    let mut first = true;
    for within in phases {
        let in_set = |u: u32| inside[u as usize] && within(u);
        let paths = tree_paths(&bfs, &parent, &in_set);
        // Each path's estimates from every vertex on, made once for the paths not yet matched
        // (the core's, in the second phase, are): a path's unmatched part starting at k is
        // priced by the estimate from k - 1.
        let estimates: Vec<Vec<f64>> = paths
            .iter()
            .map(|p| match p.iter().all(|&u| placed[u as usize]) {
                true => Vec::new(),
                false => sampler.path_embeddings(p),
            })
            .collect();
        let non_tree = |u: u32| {
            nbrs(u)
                .iter()
                .filter(|&&w| in_set(w) && parent[u as usize] != Some(w) && parent[w as usize] != Some(u))
                .count()
        };
        loop {
            // Each path's unmatched part, the vertex it hangs from and the estimate from there.
            let open: Vec<(&[u32], u32, f64)> = paths
                .iter()
                .zip(&estimates)
                .filter_map(|(p, e)| {
                    let k = p.iter().position(|&u| !placed[u as usize])?;
                    Some((&p[k..], p[k - 1], e[k - 1]))
                })
                .collect();
            let Some(best) = open
                .iter()
                .map(|&(rest, from, estimate)| {
                    let key = match first {
                        true => estimate / (rest.iter().map(|&u| non_tree(u)).sum::<usize>() + 1) as f64,
                        false => estimate / sizes[from as usize].max(1.0),
                    };
                    (key, rest)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)))
                .map(|(_, rest)| rest.to_vec())
            else {
                break;
            };
            first = false;
            for u in best {
                place(order, placed, u);
            }
        }
    }
    let mut leaves: Vec<u32> = members.iter().copied().filter(|&u| !placed[u as usize]).collect();
    leaves.sort_by(|&a, &b| sizes[a as usize].total_cmp(&sizes[b as usize]).then(a.cmp(&b)));
    for u in leaves {
        place(order, placed, u);
    }
}

/// The root-to-leaf paths of the BFS tree (`bfs` order, `parent` links) within `in_set`: one
/// per vertex of the set none of whose tree children is in it.
fn tree_paths(bfs: &[u32], parent: &[Option<u32>], in_set: &dyn Fn(u32) -> bool) -> Vec<Vec<u32>> {
    let has_child = |u: u32| bfs.iter().any(|&w| in_set(w) && parent[w as usize] == Some(u));
    bfs.iter()
        .copied()
        .filter(|&u| in_set(u) && !has_child(u))
        .map(|end| {
            let mut path = vec![end];
            while let Some(p) = parent[*path.last().expect("non-empty") as usize] {
                path.push(p);
            }
            path.reverse();
            path
        })
        .collect()
}

/// The CFL order of `query` over the sampler's candidate sets: component by component, the
/// next one from its lowest-id unplaced vertex.
pub fn order(query: &Query, sampler: &mut Sampler) -> Vec<u32> {
    let n = query.num_vertices();
    let mut order = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    while let Some(seed) = (0..n as u32).find(|&u| !placed[u as usize]) {
        component(query, sampler, &mut order, &mut placed, seed);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::query::Semantics;

    /// A triangle 0-1-2 with a tail 2-3-4 and a leaf 5 on 0; the data graph is the query.
    fn query() -> (crate::graph::Graph, Query) {
        let mut b = GraphBuilder::new(6, false);
        for (u, v) in [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (0, 5)] {
            b.add_edge(u, v, 0);
        }
        let g = b.build().0;
        let q = Query::new(g.clone(), &g, Semantics::Embed).unwrap();
        (g, q)
    }

    #[test]
    fn core_then_forest_then_leaves() {
        let (g, q) = query();
        // C(u) = every vertex except where noted: vertex 1 has fewest candidates per edge.
        let cands: Vec<Vec<u32>> =
            vec![(0..6).collect(), vec![1], (0..6).collect(), (0..6).collect(), (0..6).collect(), vec![0, 5]];
        let mut s = Sampler::new(&g, &q, &cands, true, 8, 1);
        let order = order(&q, &mut s);
        // Root 1 (|C|/deg = 1/2), the rest of the core {0, 2}, the forest vertex 3, then the
        // leaves 5 (2 candidates) and 4 (6).
        assert_eq!(&order[..1], &[1]);
        let mut core = order[1..3].to_vec();
        core.sort_unstable();
        assert_eq!(core, vec![0, 2]);
        assert_eq!(&order[3..], &[3, 5, 4]);
    }

    #[test]
    fn trees_and_components_stay_connected() {
        // A path 0-1-2-3 and an isolated vertex 4: no core.
        let (g, q, cands) = crate::order::tests::path_and_isolated();
        let mut s = Sampler::new(&g, &q, &cands, true, 8, 1);
        let order = order(&q, &mut s);
        // Root 1 (|C|/deg 0.5); 2 before the leaves 3 and 0, leaves by |C|; then 4.
        assert_eq!(order, vec![1, 2, 3, 0, 4]);
    }

    #[test]
    fn path_estimates_count_walks_over_candidate_edges() {
        let (g, q) = query();
        let all: Vec<Vec<u32>> = vec![(0..6).collect(); 6];
        let mut s = Sampler::new(&g, &q, &all, true, 8, 1);
        // Walks 0-1-2 in the triangle-with-tails graph: from each v, N(v) then N(w).
        let walks: f64 = (0..6u32)
            .flat_map(|v| g.neighbors(v, crate::Dir::Out).to_vec())
            .map(|w| g.neighbors(w, crate::Dir::Out).len() as f64)
            .sum();
        let from_each = s.path_embeddings(&[0, 1, 2]);
        assert_eq!(from_each[0], walks);
        // From 1: the walks of one edge, both ways; from 2: the candidates.
        assert_eq!(from_each[1..], [2.0 * 6.0, 6.0]);
        assert_eq!(s.path_embeddings(&[4]), vec![6.0]);
    }
}
