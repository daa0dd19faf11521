//! Tree-pattern queries counted without enumerating them (GGQ, `../shared/seeds/004_*`,
//! `../shared/papers/gpsm-ggq.md` Part B: tree patterns over directed, edge-labelled graphs with
//! wildcard labels and vertex tests, under homomorphism). Where a query's undirected shape is a
//! tree, its homomorphisms below a query vertex u mapped to data vertex v multiply over u's
//! children: cnt(u, v) = Π_c Σ_{w ∈ N(v) as c's link says} cnt(c, w), with cnt(u, v) = 0 where
//! v fails u's label or tests. One pass per query vertex, from the leaves to the root, over
//! every data vertex's neighbours gives every count; the total is Σ_v cnt(root, v), and the
//! data vertices with cnt(root, v) > 0 are exactly the root's answers (its projection). A
//! wildcard label costs nothing here, where the general engines expand it into one query per
//! label combination. subgraph-gpu's `ggq` runs the same passes on the device.

use crate::bitset::Bitset;
use crate::sink::Control;
use crate::{Dir, Graph};
use rayon::prelude::*;
use std::sync::Arc;

/// A query vertex's link to its parent, seen from the parent: the data edge runs `dir` from
/// the parent's vertex (always `Out` on undirected data), labelled `label` (None: any label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub parent: u32,
    pub dir: Dir,
    pub label: Option<u32>,
}

/// A query whose undirected shape is a tree, rooted at `order[0]`.
#[derive(Debug, Clone)]
pub struct TreeQuery {
    /// The query vertices, each after its parent.
    pub order: Vec<u32>,
    /// Per query vertex: its link to its parent (None for the root).
    pub parent: Vec<Option<Link>>,
    /// Per query vertex: its label (None: any).
    pub labels: Vec<Option<u32>>,
    /// Per query vertex: the data vertices it may map to (None: any).
    pub allowed: Vec<Option<Arc<Bitset>>>,
}

/// What the passes found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeCount {
    /// Homomorphisms of the query; None where the count exceeds 2^128 − 1.
    pub total: Option<u128>,
    /// The data vertices the root maps to in some homomorphism, sorted.
    pub roots: Vec<u32>,
}

impl TreeQuery {
    /// The query with vertices labelled `labels` (None: any) and `edges` (from, to, label;
    /// from → to on directed data), restricted by `allowed`, rooted at `root`; None where its
    /// undirected shape is not a tree (a cycle, two edges between the same vertices, or several
    /// components).
    pub fn new(
        labels: Vec<Option<u32>>,
        edges: &[(u32, u32, Option<u32>)],
        allowed: Vec<Option<Arc<Bitset>>>,
        root: u32,
        directed: bool,
    ) -> Option<TreeQuery> {
        let n = labels.len();
        if n == 0 || edges.len() + 1 != n || root as usize >= n || allowed.len() != n {
            return None;
        }
        let mut parent: Vec<Option<Link>> = vec![None; n];
        let mut seen = vec![false; n];
        seen[root as usize] = true;
        let mut order = vec![root];
        let mut at = 0;
        while at < order.len() {
            let u = order[at];
            at += 1;
            for &(a, b, label) in edges {
                let (w, dir) = match (a == u, b == u) {
                    (true, false) => (b, Dir::Out),
                    (false, true) => (a, if directed { Dir::In } else { Dir::Out }),
                    _ => continue,
                };
                // With n − 1 edges, reaching every vertex makes it a tree.
                if seen[w as usize] {
                    continue;
                }
                seen[w as usize] = true;
                parent[w as usize] = Some(Link { parent: u, dir, label });
                order.push(w);
            }
        }
        (order.len() == n).then_some(TreeQuery { order, parent, labels, allowed })
    }

    /// The same query rooted at `root` (`directed`: whether the data graph is).
    pub fn rerooted(&self, root: u32, directed: bool) -> TreeQuery {
        let edges: Vec<(u32, u32, Option<u32>)> = (0..self.parent.len() as u32)
            .filter_map(|c| self.parent[c as usize].map(|l| (c, l)))
            .map(|(c, l)| if l.dir == Dir::In { (c, l.parent, l.label) } else { (l.parent, c, l.label) })
            .collect();
        TreeQuery::new(self.labels.clone(), &edges, self.allowed.clone(), root, directed).expect("a tree, rerooted")
    }

    /// Number of query vertices.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The root's query vertex.
    pub fn root(&self) -> u32 {
        self.order[0]
    }

    /// The children of query vertex u with their links.
    pub fn children(&self, u: u32) -> impl Iterator<Item = (u32, Link)> + '_ {
        self.parent.iter().enumerate().filter_map(move |(c, l)| l.filter(|l| l.parent == u).map(|l| (c as u32, l)))
    }

    /// Whether data vertex v passes query vertex u's label and tests.
    pub fn admits(&self, data: &Graph, u: u32, v: u32) -> bool {
        self.labels[u as usize].is_none_or(|l| data.label(v) == l)
            && self.allowed[u as usize].as_ref().is_none_or(|a| a.contains(v))
    }

    /// Whether `row` (a data vertex per query vertex) is a homomorphism: every vertex passes
    /// its label and tests, every tree edge is a data edge its link allows.
    pub fn matches(&self, data: &Graph, row: &[u32]) -> bool {
        (0..self.len() as u32).all(|u| self.admits(data, u, row[u as usize]))
            && (0..self.len()).all(|c| {
                self.parent[c].is_none_or(|l| {
                    data.neighbor_groups(row[l.parent as usize], l.dir).any(|(pair, ws)| {
                        l.label.is_none_or(|x| data.pair(pair).0 == x) && ws.binary_search(&row[c]).is_ok()
                    })
                })
            })
    }

    /// Counts the homomorphisms on the CPU (every core), and the root's answers. None when
    /// `control` stopped it between two passes.
    pub fn count(&self, data: &Graph, control: &Control) -> Option<TreeCount> {
        let n = data.num_vertices();
        // Saturating counts: a saturated one stays positive, so the answers stay exact, and
        // `overflow` says the total is not.
        let mut counts: Vec<Option<Vec<u128>>> = vec![None; self.len()];
        let mut overflow = false;
        for &u in self.order.iter().rev() {
            if control.should_stop() {
                return None;
            }
            let children: Vec<(u32, Link)> = self.children(u).collect();
            let pass: Vec<(u128, bool)> = (0..n as u32)
                .into_par_iter()
                .map(|v| {
                    if !self.admits(data, u, v) {
                        return (0, false);
                    }
                    let (mut product, mut over) = (1u128, false);
                    for &(c, link) in &children {
                        let below = counts[c as usize].as_ref().expect("children pass first");
                        let (sum, o) = self.sum_below(data, v, c, link, below);
                        over |= o;
                        let (p, o) = product.overflowing_mul(sum);
                        (product, over) = if o { (u128::MAX, true) } else { (p, over) };
                        if product == 0 {
                            return (0, false);
                        }
                    }
                    (product, over)
                })
                .collect();
            overflow |= pass.iter().any(|&(_, o)| o);
            counts[u as usize] = Some(pass.into_iter().map(|(c, _)| c).collect());
            for (c, _) in children {
                counts[c as usize] = None;
            }
        }
        let root = counts[self.root() as usize].take().expect("the root passes last");
        let mut total = Some(0u128);
        for &c in &root {
            total = total.and_then(|t| t.checked_add(c));
        }
        let roots = (0..n as u32).filter(|&v| root[v as usize] > 0).collect();
        Some(TreeCount { total: total.filter(|_| !overflow), roots })
    }

    /// Σ cnt(c, w) over v's neighbours w that c's link allows, saturating (and whether it
    /// saturated).
    fn sum_below(&self, data: &Graph, v: u32, c: u32, link: Link, below: &[u128]) -> (u128, bool) {
        let want = self.labels[c as usize];
        let (mut sum, mut over) = (0u128, false);
        for (pair, nbrs) in data.neighbor_groups(v, link.dir) {
            let (el, nl) = data.pair(pair);
            if link.label.is_some_and(|l| l != el) || want.is_some_and(|l| l != nl) {
                continue;
            }
            for &w in nbrs {
                let (s, o) = sum.overflowing_add(below[w as usize]);
                (sum, over) = if o { (u128::MAX, true) } else { (s, over) };
            }
        }
        (sum, over)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle;
    use crate::{GraphBuilder, Query, Semantics};
    use proptest::prelude::*;

    fn graph(directed: bool, labels: Vec<u32>, edges: Vec<(u32, u32, u32)>) -> Graph {
        GraphBuilder::from_parts(labels, edges, directed).build().0
    }

    /// A random data graph and a random tree query over its labels (some labels absent, some
    /// vertices restricted), as the tree query and as the query graphs of every label
    /// assignment of its wildcards, for the brute-force oracle.
    fn case() -> impl Strategy<Value = (Graph, TreeQuery, Vec<Graph>)> {
        (any::<bool>(), 1u32..4, 1u32..3, 2usize..9, 1usize..6, any::<u64>()).prop_map(
            |(directed, nl, ne, n, qn, seed)| {
                let mut below = crate::testing::xorshift(seed | 1);
                let labels: Vec<u32> = (0..n).map(|_| below(nl as u64) as u32).collect();
                let mut edges = Vec::new();
                for a in 0..n as u32 {
                    for b in 0..n as u32 {
                        if a != b && (directed || a < b) && below(100) < 45 {
                            edges.push((a, b, below(ne as u64) as u32));
                        }
                    }
                }
                let data = graph(directed, labels, edges);
                let qlabels: Vec<Option<u32>> =
                    (0..qn).map(|_| (below(3) > 0).then(|| below(nl as u64) as u32)).collect();
                let qedges: Vec<(u32, u32, Option<u32>)> = (1..qn as u32)
                    .map(|c| {
                        let p = below(c as u64) as u32;
                        let label = (below(3) > 0).then(|| below(ne as u64) as u32);
                        if below(2) == 0 {
                            (p, c, label)
                        } else {
                            (c, p, label)
                        }
                    })
                    .collect();
                let allowed: Vec<Option<Arc<Bitset>>> = (0..qn)
                    .map(|_| {
                        (below(4) == 0).then(|| {
                            let mut set = Bitset::new(n);
                            (0..n as u32).filter(|_| below(3) > 0).for_each(|v| set.insert(v));
                            Arc::new(set)
                        })
                    })
                    .collect();
                let root = below(qn as u64) as u32;
                let tree = TreeQuery::new(qlabels.clone(), &qedges, allowed.clone(), root, directed).expect("a tree");
                // Every wildcard filled in with every label: the oracle's query graphs.
                let vl: Vec<Vec<u32>> =
                    qlabels.iter().map(|l| l.map_or_else(|| (0..nl).collect(), |l| vec![l])).collect();
                let el: Vec<Vec<u32>> =
                    qedges.iter().map(|e| e.2.map_or_else(|| (0..ne).collect(), |l| vec![l])).collect();
                let mut queries = Vec::new();
                let choices: Vec<&Vec<u32>> = vl.iter().chain(&el).collect();
                let mut pick = vec![0usize; choices.len()];
                loop {
                    let labels = (0..qn).map(|u| vl[u][pick[u]]).collect();
                    let edges = qedges.iter().enumerate().map(|(i, e)| (e.0, e.1, el[i][pick[qn + i]])).collect();
                    let mut q = graph(directed, labels, edges);
                    if allowed.iter().any(Option::is_some) {
                        q.restrict(allowed.clone());
                    }
                    queries.push(q);
                    let Some(k) = (0..pick.len()).find(|&k| pick[k] + 1 < choices[k].len()) else { break };
                    pick[k] += 1;
                    pick[..k].iter_mut().for_each(|p| *p = 0);
                }
                (data, tree, queries)
            },
        )
    }

    proptest! {
        #[test]
        fn counts_and_answers_equal_the_oracle((data, tree, queries) in case()) {
            let got = tree.count(&data, &Control::unlimited()).unwrap();
            let mut total = 0u128;
            let mut roots = Vec::new();
            for q in &queries {
                let query = Query::new(q.clone(), &data, Semantics::Homomorphism).unwrap();
                total += oracle::count(&data, &query, Semantics::Homomorphism);
                roots.extend(oracle::all(&data, &query, Semantics::Homomorphism).iter().map(|m| m[tree.root() as usize]));
            }
            roots.sort_unstable();
            roots.dedup();
            prop_assert_eq!(got.total, Some(total));
            prop_assert_eq!(got.roots, roots);
        }
    }

    #[test]
    fn only_trees_are_accepted() {
        let some = || vec![Some(0); 3];
        let none = || vec![None; 3];
        assert!(TreeQuery::new(some(), &[(0, 1, None), (1, 2, None)], none(), 2, false).is_some());
        assert!(TreeQuery::new(some(), &[(0, 1, None), (1, 2, None), (2, 0, None)], none(), 0, false).is_none());
        assert!(TreeQuery::new(some(), &[(0, 1, None), (1, 0, None)], none(), 0, true).is_none());
        assert!(TreeQuery::new(vec![Some(0); 4], &[(0, 1, None), (2, 3, None), (3, 2, None)], vec![None; 4], 0, true)
            .is_none());
    }

    #[test]
    fn a_star_on_a_hub_saturates_the_total_but_keeps_the_answers() {
        // A hub with 200 leaves, and a star of 20 leaves at the root: 200^20 > 2^128.
        let edges: Vec<(u32, u32, u32)> = (1..=200).map(|v| (0, v, 0)).collect();
        let data = graph(false, vec![0; 201], edges);
        let qedges: Vec<(u32, u32, Option<u32>)> = (1..=20).map(|c| (0, c, None)).collect();
        let tree = TreeQuery::new(vec![None; 21], &qedges, vec![None; 21], 0, false).unwrap();
        let got = tree.count(&data, &Control::unlimited()).unwrap();
        assert_eq!(got.total, None);
        assert_eq!(got.roots, (0..=200).collect::<Vec<u32>>());
        let small = TreeQuery::new(vec![None; 3], &qedges[..2], vec![None; 3], 0, false).unwrap();
        // The hub's 200² plus each leaf's 1.
        assert_eq!(small.count(&data, &Control::unlimited()).unwrap().total, Some(200 * 200 + 200));
        assert!(small.matches(&data, &[0, 5, 5]) && small.matches(&data, &[7, 0, 0]));
        assert!(!small.matches(&data, &[1, 2, 3]) && !small.matches(&data, &[0, 0, 5]));
    }
}
