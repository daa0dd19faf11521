//! The plans of [`super::hom`]'s homomorphism counts: a pattern's blocks and cut vertices
//! (Tarjan's biconnected components), rooted at the vertex of least estimated work; per block
//! the smallest connected set R whose removal leaves a forest, of least estimated work, and the
//! forest's trees rooted at their centres. The estimates are second moments of the data's label
//! degrees ([`Classes::moment`]), which weigh the hubs as the work does.

use super::pattern::Pattern;
use crate::{Dir, Graph};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// Most vertices of the set a block is counted from.
const MAX_ROOT_SET: usize = 3;
/// A pattern edge seen from one end: the data edge runs `dir` from this end's image through
/// the adjacency group `pair` (edge label, the other end's label); None where no data edge
/// has that pair.
#[derive(Debug, Clone, Copy)]
pub(super) struct Link {
    dir: Dir,
    pair: Option<u32>,
}

/// The data graph with each vertex's position among the vertices of its label.
pub struct Classes<'a> {
    pub(super) data: &'a Graph,
    rank: Vec<u32>,
    /// [`Classes::moment`]s computed so far.
    moments: Mutex<HashMap<MomentKey, f64>>,
}

/// A link as a map key: its direction (0 out, 1 in) and pair.
type LinkKey = (u8, Option<u32>);
/// A moment's key: the class's label and the two links.
type MomentKey = (u32, LinkKey, Option<LinkKey>);

impl Link {
    fn key(self) -> LinkKey {
        (u8::from(self.dir == Dir::In), self.pair)
    }
}

impl<'a> Classes<'a> {
    pub fn new(data: &'a Graph) -> Classes<'a> {
        let mut rank = vec![0u32; data.num_vertices()];
        for &l in data.vertex_label_values() {
            for (i, &v) in data.vertices_with_label(l).iter().enumerate() {
                rank[v as usize] = i as u32;
            }
        }
        Classes { data, rank, moments: Mutex::new(HashMap::new()) }
    }

    /// Σ over the data vertices x of `label` of |N_a(x)| · |N_b(x)| (b None: |N_a(x)|): how
    /// many images an edge or a two-edge star of the pattern has at vertices of this label,
    /// hubs weighing as they do in the work. Computed once per key.
    fn moment(&self, label: u32, a: Link, b: Option<Link>) -> f64 {
        let key = (label, a.key(), b.map(Link::key));
        if let Some(&m) = self.moments.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return m;
        }
        let m: f64 = self
            .data
            .vertices_with_label(label)
            .par_iter()
            .map(|&x| self.nbrs(x, a).len() as f64 * b.map_or(1.0, |b| self.nbrs(x, b).len() as f64))
            .sum();
        self.moments.lock().unwrap_or_else(|e| e.into_inner()).insert(key, m);
        m
    }

    #[inline]
    pub(super) fn rank(&self, v: u32) -> usize {
        self.rank[v as usize] as usize
    }

    #[inline]
    pub(super) fn nbrs(&self, x: u32, link: Link) -> &'a [u32] {
        link.pair.map_or(&[], |p| self.data.neighbors_by_pair(x, link.dir, p))
    }
}

/// A block with the set it is counted from and the trees left.
#[derive(Debug)]
pub(super) struct BlockPlan {
    /// The cut vertex above (the pattern's root for a root block).
    pub(super) r: u32,
    /// R: `set[0]` = r, each later vertex next to an earlier one.
    pub(super) set: Vec<u32>,
    /// For `set[1..]`: the earlier vertex it is found through, and the link from it.
    pub(super) via: Vec<(usize, Link)>,
    /// For `set[1..]`: the other earlier vertices next to it, with their links to it.
    pub(super) checks: Vec<Vec<(usize, Link)>>,
    pub(super) trees: Vec<Vec<Node>>,
    /// The estimated work ([`BlockPlan::estimate`]).
    pub(super) cost: f64,
}

/// A vertex of a tree of B − R; a tree's nodes come children first, its root last.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) u: u32,
    /// The R vertices next to u (indices into `set`) and their links to u.
    pub(super) anchors: Vec<(usize, Link)>,
    /// Children: node index, link u → child, link child → u.
    pub(super) children: Vec<(usize, Link, Link)>,
    /// The node index of the parent (None for the root).
    pub(super) parent: Option<usize>,
    /// Every anchor in its subtree is r: its values depend on r's image alone, and are
    /// computed once per image of r rather than once per image of R.
    pub(super) fixed: bool,
}

/// The pattern's block–cut tree rooted for counting.
pub(super) struct Plan {
    pub(super) root: u32,
    /// Estimated work: the blocks' estimates summed (reads of neighbour-list entries and values).
    pub(super) cost: f64,
    /// Per cut vertex, parents before children: the vertex and the blocks below it, cheapest
    /// first (a block is only counted where those before it left a non-zero product).
    pub(super) groups: Vec<(u32, Vec<BlockPlan>)>,
}

impl BlockPlan {
    /// The estimated work: R's images, plus per tree vertex the neighbour lists read for its
    /// candidates (the shortest anchor's list per image) or the sums pushed into it. Images of
    /// an edge r–s number Σ_x |N_s(x)| over r's class, and a vertex anchored at r reads
    /// Σ_x |N_s(x)| · |N_u(x)|: second moments of the label degrees, which the hubs dominate
    /// as they dominate the work (G1's dense_8_5: 12.5 s counted from one edge of R, 3.6 s
    /// from another, with equal first moments).
    fn estimate(&mut self, p: &Pattern, c: &Classes) {
        let label = |v: u32| p.labels[v as usize];
        let class = |v: u32| c.data.vertices_with_label(label(v)).len() as f64;
        // Each R vertex's link to the R vertex it was found through (r: to set[1]).
        let partner: Vec<Option<Link>> = (0..self.set.len())
            .map(|i| match i {
                0 => self.via.first().map(|v| v.1),
                _ => link(p, c, self.set[i], self.set[self.via[i - 1].0]),
            })
            .collect();
        let mut images = class(self.r);
        for i in 1..self.set.len() {
            let (j, l) = self.via[i - 1];
            let from = self.set[j];
            images = match (i, partner[j]) {
                (1, _) | (_, None) => c.moment(label(from), l, None),
                (_, Some(back)) => {
                    images * c.moment(label(from), l, Some(back)) / c.moment(label(from), back, None).max(1.0)
                }
            };
        }
        // Per R vertex k and link l from it: Σ over images of |N_l(image of k)|.
        let reads = |k: usize, l: Link| match partner[k] {
            None => c.moment(label(self.set[k]), l, None),
            Some(back) => {
                images * c.moment(label(self.set[k]), l, Some(back)) / c.moment(label(self.set[k]), back, None).max(1.0)
            }
        };
        let mut cost = images;
        for tree in &self.trees {
            let mut work = vec![0.0f64; tree.len()];
            for (ni, node) in tree.iter().enumerate() {
                work[ni] = match node.anchors.is_empty() {
                    // Once per image of r.
                    false if node.fixed => node
                        .anchors
                        .iter()
                        .map(|&(_, l)| c.moment(label(self.r), l, None))
                        .fold(f64::INFINITY, f64::min),
                    false => node.anchors.iter().map(|&(k, l)| reads(k, l)).fold(f64::INFINITY, f64::min),
                    true => node
                        .children
                        .iter()
                        .map(|&(ch, _, up)| {
                            work[ch] * c.moment(label(tree[ch].u), up, None) / class(tree[ch].u).max(1.0)
                        })
                        .sum(),
                };
                cost += work[ni];
            }
        }
        self.cost = cost;
    }
}

/// The link from a to b, if they are adjacent in `p`.
fn link(p: &Pattern, c: &Classes, a: u32, b: u32) -> Option<Link> {
    let pair = |l: u32, to: u32| c.data.pair_id(l, p.labels[to as usize]);
    p.edges.iter().find_map(|&(x, y, l)| {
        if (x, y) == (a, b) {
            Some(Link { dir: Dir::Out, pair: pair(l, b) })
        } else if (x, y) == (b, a) {
            Some(Link { dir: if p.directed { Dir::In } else { Dir::Out }, pair: pair(l, b) })
        } else {
            None
        }
    })
}

/// The biconnected components of the connected pattern's undirected shape, as vertex masks,
/// `near` each vertex's neighbours as a mask (Tarjan's depth-first search).
fn blocks(near: &[u32]) -> Vec<u32> {
    struct Walk<'a> {
        near: &'a [u32],
        disc: [u32; 32],
        low: [u32; 32],
        time: u32,
        stack: Vec<(u32, u32)>,
        out: Vec<u32>,
    }
    fn dfs(s: &mut Walk, u: u32, parent: u32) {
        s.disc[u as usize] = s.time;
        s.low[u as usize] = s.time;
        s.time += 1;
        for w in bits(s.near[u as usize]) {
            if s.disc[w as usize] == u32::MAX {
                s.stack.push((u, w));
                dfs(s, w, u);
                s.low[u as usize] = s.low[u as usize].min(s.low[w as usize]);
                if s.low[w as usize] >= s.disc[u as usize] {
                    let mut block = 0u32;
                    while let Some((a, b)) = s.stack.pop() {
                        block |= 1 << a | 1 << b;
                        if (a, b) == (u, w) {
                            break;
                        }
                    }
                    s.out.push(block);
                }
            } else if w != parent && s.disc[w as usize] < s.disc[u as usize] {
                s.stack.push((u, w));
                s.low[u as usize] = s.low[u as usize].min(s.disc[w as usize]);
            }
        }
    }
    let mut s = Walk { near, disc: [u32::MAX; 32], low: [0; 32], time: 0, stack: Vec::new(), out: Vec::new() };
    if !near.is_empty() {
        dfs(&mut s, 0, u32::MAX);
    }
    s.out
}

/// The counting plan of least estimated work over every choice of root; None where some
/// block has no root set of at most [`MAX_ROOT_SET`] vertices leaving a forest. Each block's
/// plan from each vertex it may be entered by is made once, the roots sharing them (a root
/// per vertex made every block's plan again: 0.3 ms a quotient of yeast's 16-vertex queries).
pub(super) fn plan(p: &Pattern, c: &Classes) -> Option<Plan> {
    let near = near(p);
    let masks = blocks(&near);
    let mut made: HashMap<(usize, u32), Option<BlockPlan>> = HashMap::new();
    let mut best: Option<(f64, u32)> = None;
    for root in 0..p.labels.len() as u32 {
        let mut cost = 0.0;
        for (v, bi) in entered(&masks, root) {
            match made.entry((bi, v)).or_insert_with(|| block_plan(p, c, &near, masks[bi], v)) {
                Some(block) => cost += block.cost,
                None => {
                    cost = f64::NAN;
                    break;
                }
            }
        }
        if !cost.is_nan() && best.is_none_or(|(least, _)| cost < least) {
            best = Some((cost, root));
        }
    }
    let (cost, root) = best?;
    // The cut vertices in breadth-first order, each with its blocks, cheapest first.
    let mut groups: Vec<(u32, Vec<BlockPlan>)> = Vec::new();
    for (v, bi) in entered(&masks, root) {
        let block = made.remove(&(bi, v)).flatten()?;
        match groups.last_mut() {
            Some((u, group)) if *u == v => group.push(block),
            _ => groups.push((v, vec![block])),
        }
    }
    groups.iter_mut().for_each(|(_, group)| group.sort_by(|a, b| a.cost.total_cmp(&b.cost)));
    Some(Plan { root, cost, groups })
}

/// Whether [`plan`] can root the pattern's blocks at all, from its shape alone: some root
/// whose every block has, with the vertex it is entered by ([`entered`]), a connected set of
/// at most [`MAX_ROOT_SET`] vertices leaving a forest. A few bit operations per set where
/// `plan` weighs every set of every root against the data (0.3 ms a quotient of yeast's
/// 16-vertex queries): the spasm asks it of every quotient before it plans any.
pub(super) fn shaped(p: &Pattern) -> bool {
    let near = near(p);
    let comps = blocks(&near);
    // Per block, the vertices some valid root set holds.
    let starts: Vec<u32> = comps.iter().map(|&comp| root_set_members(&near, comp)).collect();
    // Where every vertex of every block starts a set, any root does.
    comps == starts
        || (0..near.len() as u32).any(|root| entered(&comps, root).iter().all(|&(v, bi)| starts[bi] & 1 << v != 0))
}

/// The union of the connected sets of at most [`MAX_ROOT_SET`] vertices of `block` (a mask)
/// whose removal leaves the block a forest, `near` each vertex's neighbours as a mask.
fn root_set_members(near: &[u32], block: u32) -> u32 {
    let inner = |v: u32| near[v as usize] & block;
    let mut members = 0u32;
    let mut test = |set: u32| {
        if members & set != set && forest_left(near, block & !set) {
            members |= set;
        }
    };
    // Sets of one vertex, of two adjacent ones, and of three with a centre next to both others.
    bits(block).for_each(|a| test(1 << a));
    for c in bits(block) {
        for a in bits(inner(c)) {
            test(1 << c | 1 << a);
            bits(inner(c) & !((2u32 << a) - 1)).for_each(|b| test(1 << c | 1 << a | 1 << b));
        }
    }
    members
}

/// Whether the vertices `free` (a mask) and the edges among them form a forest: as many edges
/// as vertices less components.
fn forest_left(near: &[u32], free: u32) -> bool {
    let inner = |v: u32| near[v as usize] & free;
    let edges: u32 = bits(free).map(|v| inner(v).count_ones()).sum::<u32>() / 2;
    let mut parts = 0;
    let mut left = free;
    while left != 0 {
        let mut reached = left & left.wrapping_neg();
        let mut front = reached;
        while front != 0 {
            let next = bits(front).fold(0, |m, v| m | inner(v)) & !reached;
            reached |= next;
            front = next;
        }
        left &= !reached;
        parts += 1;
    }
    edges + parts == free.count_ones()
}

/// The set bits of `m`, lowest first.
fn bits(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let v = m.trailing_zeros();
            m &= m - 1;
            v
        })
    })
}

/// The pattern's undirected shape as masks (at most 32 vertices): each vertex's neighbours.
fn near(p: &Pattern) -> Vec<u32> {
    let mut near = vec![0u32; p.labels.len()];
    for &(a, b, _) in &p.edges {
        near[a as usize] |= 1 << b;
        near[b as usize] |= 1 << a;
    }
    near
}

/// The blocks (masks) in the order a plan rooted at `root` counts them, breadth first from the
/// root: each with the vertex it is entered by (the root, or the cut vertex nearest it), as
/// (that vertex, block index).
fn entered(comps: &[u32], root: u32) -> Vec<(u32, usize)> {
    let mut placed = vec![false; comps.len()];
    let mut out = Vec::with_capacity(comps.len());
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(v) = queue.pop_front() {
        for (bi, &comp) in comps.iter().enumerate() {
            if !placed[bi] && comp & 1 << v != 0 {
                placed[bi] = true;
                out.push((v, bi));
                queue.extend(bits(comp & !(1 << v)));
            }
        }
    }
    out
}

/// The block `block` (a mask) below r: of its smallest connected root sets R ∋ r leaving a
/// forest, the one of least estimated work, and the forest's trees.
fn block_plan(p: &Pattern, c: &Classes, near: &[u32], block: u32, r: u32) -> Option<BlockPlan> {
    let others: Vec<u32> = bits(block & !(1 << r)).collect();
    let holds = |m: u32, v: u32| m & 1 << v != 0;
    let inside = |a: u32, b: u32| holds(block, a) && holds(block, b) && holds(near[a as usize], b);
    for k in 0..MAX_ROOT_SET.min(others.len() + 1) {
        let mut best: Option<BlockPlan> = None;
        for pick in subsets(&others, k) {
            let mut set = vec![r];
            // R in an order where each vertex is next to an earlier one.
            let mut rest = pick;
            while let Some(at) = rest.iter().position(|&v| set.iter().any(|&s| inside(s, v))) {
                set.push(rest.remove(at));
            }
            if !rest.is_empty() {
                continue;
            }
            let free: Vec<u32> = others.iter().copied().filter(|v| !set.contains(v)).collect();
            if !forest_left(near, free.iter().fold(0, |m, &v| m | 1 << v)) {
                continue;
            }
            let mut via = Vec::new();
            let mut checks = Vec::new();
            for (i, &v) in set.iter().enumerate().skip(1) {
                let earlier: Vec<usize> = (0..i).filter(|&j| inside(set[j], v)).collect();
                via.push((earlier[0], link(p, c, set[earlier[0]], v)?));
                checks.push(earlier[1..].iter().map(|&j| Some((j, link(p, c, set[j], v)?))).collect::<Option<_>>()?);
            }
            let trees = forest(p, c, &set, &free, &inside)?;
            let mut plan = BlockPlan { r, set, via, checks, trees, cost: 0.0 };
            plan.estimate(p, c);
            if best.as_ref().is_none_or(|b| plan.cost < b.cost) {
                best = Some(plan);
            }
        }
        // The smallest sets only: each vertex more multiplies the images.
        if best.is_some() {
            return best;
        }
    }
    None
}

/// The connected components of `vs` under `inside`, as indices into `vs`.
fn components(vs: &[u32], inside: &impl Fn(u32, u32) -> bool) -> Vec<Vec<usize>> {
    let mut placed = vec![false; vs.len()];
    let mut out = Vec::new();
    while let Some(start) = (0..vs.len()).find(|&i| !placed[i]) {
        let mut comp = vec![start];
        placed[start] = true;
        let mut at = 0;
        while at < comp.len() {
            let i = comp[at];
            at += 1;
            for j in 0..vs.len() {
                if !placed[j] && inside(vs[i], vs[j]) {
                    placed[j] = true;
                    comp.push(j);
                }
            }
        }
        out.push(comp);
    }
    out
}

/// The trees of the forest `free` (B − R), each rooted at its centre, nodes children first.
/// Every leaf is next to R (the block being biconnected), so every vertex not next to R has
/// children whose sums make its candidates.
fn forest(
    p: &Pattern,
    c: &Classes,
    set: &[u32],
    free: &[u32],
    inside: &impl Fn(u32, u32) -> bool,
) -> Option<Vec<Vec<Node>>> {
    let anchors_of = |u: u32| -> Option<Vec<(usize, Link)>> {
        (0..set.len()).filter(|&k| inside(set[k], u)).map(|k| Some((k, link(p, c, set[k], u)?))).collect()
    };
    let mut trees = Vec::new();
    for comp in components(free, inside) {
        // The root: the tree's centre, so that sums meet halfway along a path between two
        // anchors rather than running its whole length (a 6-cycle below r: two steps from each
        // end, not four from one); among centres, the one with the most anchors.
        let anchors = |i: usize| (0..set.len()).filter(|&k| inside(set[k], free[i])).count();
        let height = |i: usize| {
            let mut depth = vec![usize::MAX; free.len()];
            depth[i] = 0;
            let mut queue = std::collections::VecDeque::from([i]);
            let mut most = 0;
            while let Some(a) = queue.pop_front() {
                most = most.max(depth[a]);
                for &b in &comp {
                    if depth[b] == usize::MAX && inside(free[a], free[b]) {
                        depth[b] = depth[a] + 1;
                        queue.push_back(b);
                    }
                }
            }
            most
        };
        let root = *comp.iter().min_by_key(|&&i| (height(i), std::cmp::Reverse(anchors(i))))?;
        let mut order = Vec::new();
        post_order(root, None, &comp, free, inside, &mut order);
        let mut nodes: Vec<Node> = Vec::with_capacity(order.len());
        for (u, kids) in &order {
            let children = kids
                .iter()
                .map(|&ch| Some((ch, link(p, c, *u, order[ch].0)?, link(p, c, order[ch].0, *u)?)))
                .collect::<Option<Vec<_>>>()?;
            let anchors = anchors_of(*u)?;
            let fixed = anchors.iter().all(|&(k, _)| k == 0) && children.iter().all(|&(ch, _, _)| nodes[ch].fixed);
            nodes.push(Node { u: *u, anchors, children, parent: None, fixed });
        }
        for ni in 0..nodes.len() {
            for j in 0..nodes[ni].children.len() {
                let ch = nodes[ni].children[j].0;
                nodes[ch].parent = Some(ni);
            }
        }
        trees.push(nodes);
    }
    Some(trees)
}

/// The tree of `comp` (indices into `free`) below `i`, children before their parent: each
/// entry a vertex and its children's entries.
fn post_order(
    i: usize,
    from: Option<usize>,
    comp: &[usize],
    free: &[u32],
    inside: &impl Fn(u32, u32) -> bool,
    out: &mut Vec<(u32, Vec<usize>)>,
) -> usize {
    let mut kids = Vec::new();
    for &j in comp {
        if Some(j) != from && j != i && inside(free[i], free[j]) {
            kids.push(post_order(j, Some(i), comp, free, inside, out));
        }
    }
    out.push((free[i], kids));
    out.len() - 1
}

/// Every k-element subset of `items`, in lexicographic order.
fn subsets(items: &[u32], k: usize) -> Vec<Vec<u32>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        for mut rest in subsets(&items[i + 1..], k - 1) {
            rest.insert(0, items[i]);
            out.push(rest);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GraphBuilder;
    use proptest::prelude::*;

    /// A pattern of `n` vertices of one label from `edges`, deduplicated, without loops.
    fn pattern(n: u32, edges: &[(u32, u32)]) -> Pattern {
        let mut e: Vec<(u32, u32, u32)> =
            edges.iter().filter(|(a, b)| a != b).map(|&(a, b)| (a.min(b), a.max(b), 0)).collect();
        e.sort_unstable();
        e.dedup();
        Pattern { labels: vec![0; n as usize], allowed: vec![None; n as usize], edges: e, directed: false }
    }

    /// Connected patterns: a spanning tree and up to 14 more edges (blocks up to a clique of
    /// eight, whose root sets need six vertices).
    fn patterns() -> impl Strategy<Value = Pattern> {
        (2u32..9, proptest::collection::vec((any::<u32>(), any::<u32>()), 0..15), any::<u64>()).prop_map(
            |(n, extra, seed)| {
                let mut next = crate::testing::xorshift(seed | 1);
                let mut edges: Vec<(u32, u32)> = (1..n).map(|v| (next(v as u64) as u32, v)).collect();
                edges.extend(extra.iter().map(|&(a, b)| (a % n, b % n)));
                pattern(n, &edges)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Where every edge has images (one label, a complete data graph), the shape alone
        /// decides whether a plan exists: `shaped` answers as `plan` does.
        #[test]
        fn shaped_answers_as_plan_does(p in patterns()) {
            let k5: Vec<(u32, u32, u32)> = (0..5u32).flat_map(|a| (a + 1..5).map(move |b| (a, b, 0))).collect();
            let data = GraphBuilder::from_parts(vec![0; 5], k5, false).build().0;
            prop_assert_eq!(shaped(&p), plan(&p, &Classes::new(&data)).is_some(), "{:?}", p.edges);
        }
    }

    /// A cycle of six with two long chords: every vertex lies in a set that leaves a forest.
    /// K5 less three vertices is an edge; K6 less three a triangle, so K6 has no plan. The
    /// vertex a block is entered by must lie in one of its sets.
    #[test]
    fn shaped_follows_the_root_sets() {
        let cycle: Vec<(u32, u32)> = (0..6).map(|v| (v, (v + 1) % 6)).collect();
        let chorded = pattern(6, &[cycle, vec![(0, 3), (1, 4)]].concat());
        assert!(shaped(&chorded));
        assert_eq!(root_set_members(&near(&chorded), 0b111111), 0b111111);
        let clique = |n: u32| pattern(n, &(0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect::<Vec<_>>());
        assert!(shaped(&clique(5)));
        assert!(!shaped(&clique(6)));
        let near6: Vec<u32> = (0..6).map(|v| 0b111111 & !(1 << v)).collect();
        assert_eq!(root_set_members(&near6, 0b111111), 0);
        assert_eq!(root_set_members(&[0b110, 0b101, 0b011], 0b111), 0b111);
        // K5 with an ear of three between two of its vertices: the ear's middle lies in no root
        // set (each with it leaves at least K4). Alone it is shaped (rooted in K5); two such
        // blocks joined at their ears' middles are not: whatever the root, one of them is
        // entered by that middle.
        let eared = |base: u32, middle: u32| {
            let k5 = (base..base + 5).flat_map(|a| (a + 1..base + 5).map(move |b| (a, b)));
            let (x, y) = (base + 5, base + 6);
            k5.chain([(base, x), (x, middle), (middle, y), (y, base + 1)]).collect::<Vec<_>>()
        };
        assert!(shaped(&pattern(8, &eared(0, 7))));
        let twice = pattern(15, &[eared(0, 14), eared(7, 14)].concat());
        let k5: Vec<(u32, u32, u32)> = (0..5u32).flat_map(|a| (a + 1..5).map(move |b| (a, b, 0))).collect();
        let data = GraphBuilder::from_parts(vec![0; 5], k5, false).build().0;
        assert!(plan(&twice, &Classes::new(&data)).is_none());
        assert!(!shaped(&twice));
    }
}
