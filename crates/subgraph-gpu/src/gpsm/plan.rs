//! GpSM's plan on the host (§4.1, §4.3): the query's spanning tree and visit order, the query
//! edges, the left-deep edge join's steps, and the induced checks of each vertex bound.

use subgraph_core::{Dir, Graph, Query};

/// GpSM's spanning tree and visit order (§4.1): the vertices expanded, in order, and each
/// vertex's tree parent with the query edge (direction from the child, edge label) it hangs
/// by. A component starts at the endpoint of higher rank of its edge of highest rank sum (an
/// edgeless vertex alone); then the unexpanded tree vertex with an edge out of the tree of
/// highest rank sum is expanded, adding every neighbour not yet in the tree as its child.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanningTree {
    pub order: Vec<u32>,
    pub parent: Vec<Option<(u32, Dir, u32)>>,
}

/// GpSM's rank of query vertex u: its degree over the number of data vertices of its label
/// (TurboISO's and STwig's proxy for few candidates).
pub fn rank(q: &Query, data: &Graph, u: u32) -> f64 {
    q.degree(u) as f64 / data.vertices_with_label(q.label(u)).len().max(1) as f64
}

/// The spanning tree and visit order of `q` under `rank` (ties to the lower vertex id).
pub fn spanning_tree(q: &Query, rank: &dyn Fn(u32) -> f64) -> SpanningTree {
    let n = q.num_vertices();
    let (mut in_tree, mut expanded) = (vec![false; n], vec![false; n]);
    let mut parent = vec![None; n];
    let mut order = Vec::with_capacity(n);
    let better = |best: Option<(f64, u32)>, score: f64| best.is_none_or(|(s, _)| score > s);
    loop {
        // The next vertex to expand: in the tree, not expanded, with an edge leaving the tree.
        let mut next: Option<(f64, u32)> = None;
        for x in (0..n as u32).filter(|&x| in_tree[x as usize] && !expanded[x as usize]) {
            for e in q.edges(x).iter().filter(|e| !in_tree[e.to as usize]) {
                let score = rank(x) + rank(e.to);
                if better(next, score) {
                    next = Some((score, x));
                }
            }
        }
        let x = match next {
            Some((_, x)) => x,
            None => {
                // A new component: its edge of highest rank sum, from the endpoint of higher
                // rank; an edgeless vertex of highest rank alone.
                let mut root: Option<(f64, u32)> = None;
                for a in (0..n as u32).filter(|&a| !in_tree[a as usize]) {
                    for e in q.edges(a).iter().filter(|e| rank(a) >= rank(e.to) && !in_tree[e.to as usize]) {
                        if better(root, rank(a) + rank(e.to)) {
                            root = Some((rank(a) + rank(e.to), a));
                        }
                    }
                }
                if root.is_none() {
                    for a in (0..n as u32).filter(|&a| !in_tree[a as usize]) {
                        if better(root, rank(a)) {
                            root = Some((rank(a), a));
                        }
                    }
                }
                let Some((_, r)) = root else { break };
                in_tree[r as usize] = true;
                r
            }
        };
        expanded[x as usize] = true;
        order.push(x);
        for e in q.edges(x) {
            if !in_tree[e.to as usize] {
                in_tree[e.to as usize] = true;
                let back = q.edges(e.to).iter().find(|b| b.to == x).expect("query edges are stored both ways");
                parent[e.to as usize] = Some((x, back.dir, back.label));
            }
        }
    }
    SpanningTree { order, parent }
}

/// One query edge: a data edge must go from a's match to b's (in either direction when
/// undirected) with this label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub a: u32,
    pub b: u32,
    pub label: u32,
}

impl Edge {
    /// The direction of the edge seen from `key` (one of its endpoints).
    pub(super) fn dir_from(self, key: u32, directed: bool) -> Dir {
        if key == self.a || !directed {
            Dir::Out
        } else {
            Dir::In
        }
    }
}

/// One step of the edge join (§4.3): `vertex` joins the rows from its candidates (`edge`
/// None: the first vertex of a component), or through `edge` keyed on its other endpoint
/// `key`; a closing step checks `edge` between two bound vertices instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub vertex: u32,
    pub edge: Option<(usize, u32)>,
    pub closing: bool,
}

/// GpSM's left-deep edge order: from the edge of fewest candidate edges (`edge_size`), each
/// next edge one touching a bound vertex, closing edges (both ends bound) first, then fewest
/// candidate edges; a component's first vertex is the endpoint of fewer candidates
/// (`cand_size`) of its edge of fewest candidate edges (an edgeless vertex by itself).
pub fn join_plan(n: usize, edges: &[Edge], edge_size: &[u64], cand_size: &[u64]) -> Vec<Step> {
    let mut bound = vec![false; n];
    let mut used = vec![false; edges.len()];
    let mut steps = Vec::with_capacity(n + edges.len());
    loop {
        let touching = (0..edges.len())
            .filter(|&i| !used[i] && (bound[edges[i].a as usize] || bound[edges[i].b as usize]))
            .min_by_key(|&i| (!(bound[edges[i].a as usize] && bound[edges[i].b as usize]), edge_size[i], i));
        if let Some(i) = touching {
            let e = edges[i];
            used[i] = true;
            let (key, vertex) = if bound[e.a as usize] { (e.a, e.b) } else { (e.b, e.a) };
            let closing = bound[vertex as usize];
            bound[vertex as usize] = true;
            steps.push(Step { vertex, edge: Some((i, key)), closing });
            continue;
        }
        let start = match (0..edges.len()).filter(|&i| !used[i]).min_by_key(|&i| (edge_size[i], i)) {
            Some(i) => {
                let e = edges[i];
                if cand_size[e.b as usize] < cand_size[e.a as usize] {
                    e.b
                } else {
                    e.a
                }
            }
            None => match (0..n as u32).filter(|&u| !bound[u as usize]).min_by_key(|&u| (cand_size[u as usize], u)) {
                Some(u) => u,
                None => break,
            },
        };
        bound[start as usize] = true;
        steps.push(Step { vertex: start, edge: None, closing: false });
    }
    steps
}

/// The induced checks of binding `y` after the vertices `bound` (by column): (column, mask)
/// pairs, mask 1 where no query edge goes from the column's vertex to y (so no data edge may),
/// 2 where none goes from y to it (directed only).
pub(super) fn forbidden(q: &Query, bound: &[u32], y: u32, directed: bool) -> Vec<u32> {
    let mut out = Vec::new();
    for (col, &z) in bound.iter().enumerate() {
        let mask = match directed {
            true => u32::from(q.edge(z, y, Dir::Out).is_none()) | (u32::from(q.edge(z, y, Dir::In).is_none()) << 1),
            false => u32::from(!q.adjacent(z, y)),
        };
        if mask != 0 {
            out.extend([col as u32, mask]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::{GraphBuilder, Semantics};

    fn query(n: usize, edges: &[(u32, u32, u32)], directed: bool) -> Query {
        let g = |n: usize, e: Vec<(u32, u32, u32)>| GraphBuilder::from_parts(vec![0; n], e, directed).build().0;
        Query::new(g(n, edges.to_vec()), &g(n.max(8), Vec::new()), Semantics::Embed).unwrap()
    }

    #[test]
    fn the_tree_expands_only_inner_vertices_from_the_highest_rank() {
        // A path 0-1-2 whose middle ranks highest: only 1 is expanded (the paper's visit order
        // holds the expanded vertices; leaves get their candidates from their parent).
        let q = query(3, &[(0, 1, 0), (1, 2, 0)], false);
        let t = spanning_tree(&q, &|u| [1.0, 3.0, 2.0][u as usize]);
        assert_eq!(t.order, vec![1]);
        assert_eq!(t.parent, vec![Some((1, Dir::Out, 0)), None, Some((1, Dir::Out, 0))]);
        // From the end of higher rank of the best edge, then the best edge leaving the tree.
        let q = query(4, &[(0, 1, 0), (1, 2, 0), (2, 3, 0)], false);
        let t = spanning_tree(&q, &|u| [5.0, 1.0, 1.0, 4.0][u as usize]);
        assert_eq!(t.order[0], 0);
        assert_eq!(t.order, vec![0, 1, 2]);
    }

    #[test]
    fn the_tree_spans_every_component_by_query_edges() {
        // Directed, two components and an edgeless vertex, an antiparallel pair.
        let q = query(7, &[(0, 1, 1), (1, 0, 2), (2, 1, 0), (3, 4, 0), (5, 4, 3)], true);
        let t = spanning_tree(&q, &|u| (u % 3) as f64);
        let roots: Vec<u32> = (0..7).filter(|&u| t.parent[u as usize].is_none()).collect();
        assert_eq!(roots.len(), 3, "{t:?}");
        for (child, p) in t.parent.iter().enumerate() {
            if let Some((p, dir, label)) = *p {
                let at = t.order.iter().position(|&x| x == p).expect("parents are expanded");
                assert!(q.edge(child as u32, p, dir).is_some_and(|e| e.label == label), "{child} {p}");
                // A child expanded later is expanded after its parent.
                if let Some(c) = t.order.iter().position(|&x| x == child as u32) {
                    assert!(c > at);
                }
            }
        }
        for r in roots.iter().filter(|&&r| q.degree(r) > 0) {
            assert!(t.order.contains(r));
        }
    }

    #[test]
    fn the_join_starts_from_the_fewest_candidate_edges_and_closes_cycles_first() {
        // A triangle 0-1-2 with a pendant 3 on 2, and an edgeless vertex 4.
        let edges = [Edge { a: 0, b: 1, label: 0 }, Edge { a: 1, b: 2, label: 0 }, Edge { a: 2, b: 0, label: 0 }];
        let edges = [&edges[..], &[Edge { a: 2, b: 3, label: 0 }]].concat();
        let plan = join_plan(5, &edges, &[50, 40, 30, 10], &[9, 9, 3, 7, 2]);
        let step = |vertex, edge: Option<(usize, u32)>, closing| Step { vertex, edge, closing };
        assert_eq!(
            plan,
            vec![
                // Edge 3 (10 candidate edges) from its endpoint of fewer candidates, 2.
                step(2, None, false),
                step(3, Some((3, 2)), false),
                // Then the cheaper of the edges at 2, 2-0, the closing 0-1 before nothing else.
                step(0, Some((2, 2)), false),
                step(1, Some((1, 2)), false),
                step(1, Some((0, 0)), true),
                step(4, None, false),
            ]
        );
    }

    #[test]
    fn induced_checks_forbid_every_missing_direction() {
        let q = query(3, &[(0, 1, 0), (2, 1, 0)], true);
        // Binding 1 after 0 and 2: edges 0->1 and 2->1 exist, so only 1->0 and 1->2 are
        // forbidden (mask 2: from the new vertex to the column's).
        assert_eq!(forbidden(&q, &[0, 2], 1, true), vec![0, 2, 1, 2]);
        // Binding 2 after 0: no edge either way.
        assert_eq!(forbidden(&q, &[0], 2, true), vec![0, 3]);
        let q = query(3, &[(0, 1, 0)], false);
        assert_eq!(forbidden(&q, &[0, 1], 2, false), vec![0, 1, 1, 1]);
        assert_eq!(forbidden(&q, &[0], 1, false), Vec::<u32>::new());
    }
}
