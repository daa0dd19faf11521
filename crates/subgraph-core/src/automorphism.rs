//! Automorphisms of a query and the symmetry-breaking restrictions derived from them
//! (Grochow & Kellis, RECOMB 2007; as used by GraphPi, Peregrine and gMatch). The group is held
//! as a stabiliser chain: base vertices b1, b2, … chosen in a preferred order (the matching
//! order), and for each the orbit of b_j under the automorphisms fixing b1..b_{j-1}, with one
//! such automorphism per orbit member (a transversal). Each automorphism is found by a search
//! of the query onto itself with some vertices pinned, pruned by colour refinement; the group
//! itself is never enumerated, so |Aut(Q)| is the product of the orbit sizes.
//!
//! Restrictions f(b_j) < f(w) for every other w in b_j's orbit, over the first k steps of the
//! chain, keep exactly |H_k| embeddings of every orbit of embeddings under Aut(Q), where H_k is
//! the stabiliser left after k steps (the automorphisms act freely on injective maps). So the
//! embeddings are the restricted ones times ∏ orbit sizes of those k steps; with the whole chain
//! every orbit keeps one, and each representative f stands for the |Aut(Q)| embeddings f∘σ.

use crate::graph::{Dir, Graph};
use std::collections::HashMap;

/// One step of the stabiliser chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The base vertex b_j.
    pub base: u32,
    /// b_j's orbit under the automorphisms fixing the earlier bases, b_j first.
    pub orbit: Vec<u32>,
    /// For each orbit member w, an automorphism fixing the earlier bases and mapping b_j to w
    /// (`perm[u]` is the image of u); the first is the identity.
    pub transversal: Vec<Vec<u32>>,
}

/// The automorphism group of a query as a stabiliser chain whose bases follow a preferred
/// vertex order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Automorphisms {
    n: usize,
    steps: Vec<Step>,
    /// Leading steps that restrict (the rest leave their symmetry to the caller).
    restricting: usize,
    /// ∏ orbit sizes of all steps, None when it exceeds u128.
    order: Option<u128>,
}

impl Automorphisms {
    /// The group of `q` (label-, edge-label- and direction-preserving automorphisms), with the
    /// bases taken in `prefer` order (every vertex once). Restrictions come from the leading
    /// steps up to, not including, the first base for which `stop` holds.
    pub fn chain(q: &Graph, prefer: &[u32], stop: impl Fn(u32) -> bool) -> Automorphisms {
        Automorphisms::chain_until(q, prefer, stop, || false)
    }

    /// [`Automorphisms::chain`], cut short between two searches once `halt` holds: the steps
    /// found by then (each with its whole orbit) still give valid restrictions and
    /// multiplier, but the group's order is unknown ([`Automorphisms::order`] is None).
    pub fn chain_until(
        q: &Graph,
        prefer: &[u32],
        stop: impl Fn(u32) -> bool,
        halt: impl Fn() -> bool,
    ) -> Automorphisms {
        let n = q.num_vertices();
        // Automorphisms keep labels and degrees: when no two vertices share both, the group is
        // trivial (most labelled queries), found without refining colours.
        let mut keys: Vec<(u32, u32, u32)> =
            (0..n as u32).map(|v| (q.label(v), q.degree(v, Dir::Out), q.degree(v, Dir::In))).collect();
        keys.sort_unstable();
        if keys.windows(2).all(|w| w[0] != w[1]) {
            return Automorphisms { n, steps: Vec::new(), restricting: 0, order: Some(1) };
        }
        let shape = Shape::new(q);
        let mut pins: Vec<(u32, u32)> = Vec::new();
        let mut steps = Vec::new();
        let mut restricting = None;
        let mut order: Option<u128> = Some(1);
        // The colours refined with the bases so far fixed: an automorphism fixing them maps v
        // only onto a vertex of v's colour, so the others are never searched, and once every
        // colour is one vertex the group left is trivial.
        let mut fixed = shape.colour.clone();
        for &v in prefer {
            if classes(&fixed) == n {
                break;
            }
            let mut orbit = vec![v];
            let mut transversal = vec![(0..n as u32).collect::<Vec<u32>>()];
            let mut shared = false;
            // The automorphisms searched for in this step (each fixing the earlier bases): the
            // orbit is closed under them, so a vertex they reach needs no search of its own.
            let mut found: Vec<Vec<u32>> = Vec::new();
            for w in 0..n as u32 {
                if w == v || fixed[w as usize] != fixed[v as usize] {
                    continue;
                }
                shared = true;
                if orbit.contains(&w) {
                    continue;
                }
                if halt() {
                    let restricting = restricting.unwrap_or(steps.len());
                    return Automorphisms { n, steps, restricting, order: None };
                }
                pins.push((v, w));
                let perm = shape.find(&pins, &halt);
                pins.pop();
                if let Some(perm) = perm {
                    found.push(perm.clone());
                    orbit.push(w);
                    transversal.push(perm);
                    close(&mut orbit, &mut transversal, &found);
                }
            }
            if orbit.len() > 1 {
                if restricting.is_none() && stop(v) {
                    restricting = Some(steps.len());
                }
                order = order.and_then(|o| o.checked_mul(orbit.len() as u128));
                steps.push(Step { base: v, orbit, transversal });
            }
            if shared {
                fixed[v as usize] = mix(&[fixed[v as usize], 0x5eed]);
                fixed = refine(&shape.adj, fixed);
            }
            pins.push((v, v));
        }
        let restricting = restricting.unwrap_or(steps.len());
        Automorphisms { n, steps, restricting, order }
    }

    /// The group of `q` with bases in vertex id order, all steps restricting.
    pub fn of(q: &Graph) -> Automorphisms {
        let prefer: Vec<u32> = (0..q.num_vertices() as u32).collect();
        Automorphisms::chain(q, &prefer, |_| false)
    }

    /// |Aut(Q)|, None when it exceeds u128 (no embedding count then fits either) or the search
    /// was cut short ([`Automorphisms::chain_until`]).
    pub fn order(&self) -> Option<u128> {
        self.order
    }

    /// The steps of the chain.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Steps whose restrictions apply.
    pub fn restricting(&self) -> &[Step] {
        &self.steps[..self.restricting]
    }

    /// Whether the restrictions cover the whole group (one embedding per orbit).
    pub fn complete(&self) -> bool {
        self.restricting == self.steps.len()
    }

    /// Embeddings each restricted match stands for: ∏ orbit sizes of the restricting steps.
    pub fn multiplier(&self) -> Option<u128> {
        self.restricting().iter().try_fold(1u128, |m, s| m.checked_mul(s.orbit.len() as u128))
    }

    /// The restrictions (b, w): f(b) < f(w), b matched before w in the preferred order.
    pub fn restrictions(&self) -> Vec<(u32, u32)> {
        self.restricting().iter().flat_map(|s| s.orbit[1..].iter().map(move |&w| (s.base, w))).collect()
    }

    /// Every automorphism of the subgroup the restricting steps generate (all of Aut(Q) when
    /// [`Automorphisms::complete`]), each as `perm[u]` = image of u.
    pub fn elements(&self) -> Vec<Vec<u32>> {
        let mut all = Vec::new();
        self.for_each(|p| {
            all.push(p.to_vec());
            true
        });
        all
    }

    /// Calls `f` with each automorphism of the subgroup the restricting steps generate, once
    /// each: the products t_1 ∘ … ∘ t_k of one transversal element per step, composed depth
    /// first (n words per node of the product tree). Stops and returns false when `f` does.
    pub fn for_each(&self, mut f: impl FnMut(&[u32]) -> bool) -> bool {
        let steps = self.restricting();
        let k = steps.len();
        // prefix[j] = t_1 ∘ … ∘ t_j for the current choices; choice[j] indexes step j's transversal.
        let mut prefix: Vec<Vec<u32>> = vec![(0..self.n as u32).collect(); k + 1];
        let mut choice = vec![0usize; k];
        let mut j = 0;
        loop {
            if j == k {
                if !f(&prefix[k]) {
                    return false;
                }
                // Next choice at the deepest step that has one left.
                loop {
                    if j == 0 {
                        return true;
                    }
                    j -= 1;
                    choice[j] += 1;
                    if choice[j] < steps[j].transversal.len() {
                        break;
                    }
                    choice[j] = 0;
                }
            }
            let t = &steps[j].transversal[choice[j]];
            let (head, tail) = prefix.split_at_mut(j + 1);
            for (x, out) in tail[0].iter_mut().enumerate() {
                *out = head[j][t[x] as usize];
            }
            j += 1;
        }
    }
}

/// The distinct subgraphs `embeddings` stand for, given the query's |Aut(Q)|: embeddings /
/// |Aut(Q)|, when the count is `complete` (a partial count stands for no whole number).
pub fn distinct_subgraphs(embeddings: u128, complete: bool, automorphisms: Option<u128>) -> Option<u128> {
    automorphisms.filter(|_| complete).map(|k| embeddings / k)
}

/// For each of `graphs`, the index of the first graph isomorphic to it (labels, edge labels and
/// direction kept): its own index when it is the first of its class. Graphs are compared only
/// within classes of equal refined colours, each with one representative per class.
pub fn isomorphism_classes(graphs: &[Graph]) -> Vec<usize> {
    let mut by_colours: HashMap<(bool, u64, Vec<u64>), Vec<usize>> = HashMap::new();
    let mut class = Vec::with_capacity(graphs.len());
    for (i, g) in graphs.iter().enumerate() {
        let mut colours = Shape::new(g).colour;
        colours.sort_unstable();
        let firsts = by_colours.entry((g.is_directed(), g.num_edges(), colours)).or_default();
        match firsts.iter().find(|&&j| isomorphic(&graphs[j], g)) {
            Some(&j) => class.push(j),
            None => {
                firsts.push(i);
                class.push(i);
            }
        }
    }
    class
}

/// Whether `a` and `b` are isomorphic: in their disjoint union with a hub joined to every
/// vertex of its side (a label and an edge label neither uses), some automorphism maps one hub
/// onto the other, and so one side onto the other.
fn isomorphic(a: &Graph, b: &Graph) -> bool {
    let n = a.num_vertices();
    if n != b.num_vertices() || a.num_edges() != b.num_edges() || a.is_directed() != b.is_directed() {
        return false;
    }
    let unused = |used: &mut dyn Iterator<Item = u32>| {
        let mut used: Vec<u32> = used.collect();
        used.sort_unstable();
        used.dedup();
        // The first gap: used[i] > i somewhere, unless they are 0..len.
        used.iter().enumerate().find(|&(i, &x)| x != i as u32).map_or(used.len() as u32, |(i, _)| i as u32)
    };
    let hub_label = unused(&mut (0..n as u32).flat_map(|v| [a.label(v), b.label(v)]));
    let hub_edge = unused(&mut a.edges().chain(b.edges()).map(|e| e.2));
    let (hub_a, hub_b) = (2 * n as u32, 2 * n as u32 + 1);
    let mut labels: Vec<u32> = (0..n as u32).map(|v| a.label(v)).chain((0..n as u32).map(|v| b.label(v))).collect();
    labels.extend([hub_label, hub_label]);
    let mut edges: Vec<(u32, u32, u32)> =
        a.edges().chain(b.edges().map(|(x, y, l)| (x + n as u32, y + n as u32, l))).collect();
    edges.extend((0..n as u32).flat_map(|v| [(hub_a, v, hub_edge), (hub_b, v + n as u32, hub_edge)]));
    let union = crate::graph::GraphBuilder::from_parts(labels, edges, a.is_directed()).build().0;
    Shape::new(&union).find(&[(hub_a, hub_b)], &|| false).is_some()
}

/// The query as the automorphism search reads it: refined vertex colours and sorted
/// adjacency with edge labels and directions.
struct Shape {
    colour: Vec<u64>,
    /// (neighbour, edge label, 0 out / 1 in), sorted.
    adj: Vec<Vec<(u32, u32, u8)>>,
}

impl Shape {
    fn new(q: &Graph) -> Shape {
        let n = q.num_vertices();
        let mut adj = vec![Vec::new(); n];
        for (a, b, l) in q.edges() {
            let back = if q.is_directed() { 1 } else { 0 };
            adj[a as usize].push((b, l, 0u8));
            adj[b as usize].push((a, l, back));
        }
        adj.iter_mut().for_each(|a| a.sort_unstable());
        let start: Vec<u64> = (0..n as u32)
            .map(|v| mix(&[q.label(v) as u64, q.degree(v, Dir::Out) as u64, q.degree(v, Dir::In) as u64]))
            .collect();
        let colour = refine(&adj, start);
        Shape { colour, adj }
    }

    fn has(&self, a: u32, b: u32, label: u32, dir: u8) -> bool {
        let list = &self.adj[a as usize];
        list.binary_search_by(|&(t, l, d)| (t, l, d).cmp(&(b, label, dir))).is_ok()
    }

    /// An automorphism mapping each pinned vertex a to its b, if one exists (None too when
    /// `halt` holds during the search).
    fn find(&self, pins: &[(u32, u32)], halt: &dyn Fn() -> bool) -> Option<Vec<u32>> {
        let n = self.colour.len();
        // Colours with the pins individualised on each side, refined in the same number of
        // rounds: x may map to y only if their refined colours agree.
        let (mut from, mut to) = (self.colour.clone(), self.colour.clone());
        for (i, &(a, b)) in pins.iter().enumerate() {
            let mark = mix(&[0x5eed, i as u64]);
            from[a as usize] = mix(&[from[a as usize], mark]);
            to[b as usize] = mix(&[to[b as usize], mark]);
        }
        let (from, to) = refine_pair(&self.adj, from, to);
        let mut map = vec![u32::MAX; n];
        let mut used = vec![false; n];
        for &(a, b) in pins {
            if from[a as usize] != to[b as usize] || (map[a as usize] != u32::MAX && map[a as usize] != b) {
                return None;
            }
            if map[a as usize] == u32::MAX {
                if used[b as usize] {
                    return None;
                }
                map[a as usize] = b;
                used[b as usize] = true;
            }
        }
        // Pinned vertices first, then breadth first from them, so each vertex meets mapped
        // neighbours early.
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        for &(a, _) in pins {
            if !std::mem::replace(&mut placed[a as usize], true) {
                order.push(a);
            }
        }
        let mut head = 0;
        for s in 0..=n as u32 {
            while head < order.len() {
                let x = order[head];
                head += 1;
                for &(y, _, _) in &self.adj[x as usize] {
                    if !std::mem::replace(&mut placed[y as usize], true) {
                        order.push(y);
                    }
                }
            }
            if s < n as u32 && !std::mem::replace(&mut placed[s as usize], true) {
                order.push(s);
            }
        }
        for &(a, b) in pins {
            if !self.consistent(&map, a, b) {
                return None;
            }
        }
        let mut by_colour: HashMap<u64, Vec<u32>> = HashMap::new();
        for y in 0..n as u32 {
            by_colour.entry(to[y as usize]).or_default().push(y);
        }
        let free: Vec<u32> = order.iter().copied().filter(|&x| map[x as usize] == u32::MAX).collect();
        let mut search = Search { free: &free, from: &from, by_colour: &by_colour, halt, nodes: 0 };
        self.extend(&mut search, 0, &mut map, &mut used).then_some(map)
    }

    /// Whether mapping a to b keeps every edge between a and a mapped vertex.
    fn consistent(&self, map: &[u32], a: u32, b: u32) -> bool {
        self.adj[a as usize].iter().all(|&(z, l, d)| {
            let mz = if z == a { b } else { map[z as usize] };
            mz == u32::MAX || self.has(b, mz, l, d)
        })
    }

    /// Maps `search.free[i..]` onto unused vertices of their colours, keeping every edge;
    /// false when none does or `search.halt` holds (asked every 4096 nodes).
    fn extend(&self, search: &mut Search<'_>, i: usize, map: &mut [u32], used: &mut [bool]) -> bool {
        let Some(&x) = search.free.get(i) else { return true };
        let Some(ys) = search.by_colour.get(&search.from[x as usize]) else { return false };
        for &y in ys {
            if used[y as usize] || !self.consistent(map, x, y) {
                continue;
            }
            search.nodes += 1;
            if search.nodes.is_multiple_of(4096) && (search.halt)() {
                return false;
            }
            map[x as usize] = y;
            used[y as usize] = true;
            if self.extend(search, i + 1, map, used) {
                return true;
            }
            map[x as usize] = u32::MAX;
            used[y as usize] = false;
        }
        false
    }
}

/// One search of [`Shape::find`]: the vertices left to map in order, their refined colours,
/// the vertices of each colour on the other side, and when to give up.
struct Search<'a> {
    free: &'a [u32],
    from: &'a [u64],
    by_colour: &'a HashMap<u64, Vec<u32>>,
    halt: &'a dyn Fn() -> bool,
    nodes: u64,
}

/// Closes `orbit` under the automorphisms `gens`: each vertex g(x) reached from an orbit
/// member x joins it, its transversal element g ∘ t_x (t_x maps the base to x).
fn close(orbit: &mut Vec<u32>, transversal: &mut Vec<Vec<u32>>, gens: &[Vec<u32>]) {
    let mut i = 0;
    while i < orbit.len() {
        for g in gens {
            let y = g[orbit[i] as usize];
            if !orbit.contains(&y) {
                let t: Vec<u32> = transversal[i].iter().map(|&u| g[u as usize]).collect();
                orbit.push(y);
                transversal.push(t);
            }
        }
        i += 1;
    }
}

/// A 64-bit hash of a few words (splitmix64 steps), for colours.
fn mix(words: &[u64]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64;
    for &w in words {
        let mut z = h ^ w.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h = z ^ (z >> 31);
    }
    h
}

/// One round of colour refinement: a vertex's new colour hashes its colour with the sorted
/// (edge label, direction, neighbour colour) of its edges.
fn round(adj: &[Vec<(u32, u32, u8)>], colour: &[u64]) -> Vec<u64> {
    let mut sig = Vec::new();
    adj.iter()
        .enumerate()
        .map(|(v, edges)| {
            sig.clear();
            sig.extend(edges.iter().map(|&(w, l, d)| mix(&[l as u64, d as u64, colour[w as usize]])));
            sig.sort_unstable();
            sig.push(colour[v]);
            mix(&sig)
        })
        .collect()
}

fn classes(colour: &[u64]) -> usize {
    let mut c = colour.to_vec();
    c.sort_unstable();
    c.dedup();
    c.len()
}

/// Colour refinement to the stable partition.
fn refine(adj: &[Vec<(u32, u32, u8)>], mut colour: Vec<u64>) -> Vec<u64> {
    let mut k = classes(&colour);
    loop {
        let next = round(adj, &colour);
        let k2 = classes(&next);
        colour = next;
        if k2 == k {
            return colour;
        }
        k = k2;
    }
}

/// Two colourings of the same graph refined in lockstep until neither splits further, so equal
/// colours mean the same thing on both sides.
fn refine_pair(adj: &[Vec<(u32, u32, u8)>], mut a: Vec<u64>, mut b: Vec<u64>) -> (Vec<u64>, Vec<u64>) {
    let (mut ka, mut kb) = (classes(&a), classes(&b));
    loop {
        let (na, nb) = (round(adj, &a), round(adj, &b));
        let (ka2, kb2) = (classes(&na), classes(&nb));
        a = na;
        b = nb;
        if ka2 == ka && kb2 == kb {
            return (a, b);
        }
        ka = ka2;
        kb = kb2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn graph(directed: bool, labels: Vec<u32>, edges: &[(u32, u32, u32)]) -> Graph {
        GraphBuilder::from_parts(labels, edges.to_vec(), directed).build().0
    }

    /// Every automorphism by brute force over all permutations.
    fn brute(q: &Graph) -> Vec<Vec<u32>> {
        let n = q.num_vertices();
        let edges: std::collections::BTreeSet<(u32, u32, u32)> = q.edges().collect();
        let mut out = Vec::new();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        permutations(&mut perm, 0, &mut |p| {
            let labels = (0..n as u32).all(|u| q.label(u) == q.label(p[u as usize]));
            let mapped = edges.iter().all(|&(a, b, l)| {
                let (x, y) = (p[a as usize], p[b as usize]);
                edges.contains(&(x, y, l)) || (!q.is_directed() && edges.contains(&(y, x, l)))
            });
            if labels && mapped {
                out.push(p.to_vec());
            }
        });
        out.sort();
        out
    }

    fn permutations(p: &mut [u32], i: usize, f: &mut impl FnMut(&[u32])) {
        if i == p.len() {
            f(p);
            return;
        }
        for j in i..p.len() {
            p.swap(i, j);
            permutations(p, i + 1, f);
            p.swap(i, j);
        }
    }

    #[test]
    fn small_groups() {
        let triangle = graph(false, vec![0; 3], &[(0, 1, 0), (1, 2, 0), (0, 2, 0)]);
        assert_eq!(Automorphisms::of(&triangle).order(), Some(6));
        let star = graph(false, vec![0; 5], &[(0, 1, 0), (0, 2, 0), (0, 3, 0), (0, 4, 0)]);
        assert_eq!(Automorphisms::of(&star).order(), Some(24));
        // A directed triangle (cycle) has only its rotations.
        let cycle = graph(true, vec![0; 3], &[(0, 1, 0), (1, 2, 0), (2, 0, 0)]);
        assert_eq!(Automorphisms::of(&cycle).order(), Some(3));
        // Edge labels break the symmetry of a path.
        let path = graph(false, vec![0; 3], &[(0, 1, 0), (1, 2, 1)]);
        assert_eq!(Automorphisms::of(&path).order(), Some(1));
        // Two disjoint edges: swap within each and swap the two.
        let two = graph(false, vec![0; 4], &[(0, 1, 0), (2, 3, 0)]);
        assert_eq!(Automorphisms::of(&two).order(), Some(8));
    }

    #[test]
    fn elements_are_the_group_and_restrictions_pick_one_per_orbit() {
        let mut next = crate::testing::xorshift(7);
        for _ in 0..300 {
            let directed = next(2) == 1;
            let n = 1 + next(6) as u32;
            let labels: Vec<u32> = (0..n).map(|_| next(2) as u32).collect();
            let mut edges = Vec::new();
            for a in 0..n {
                for b in 0..n {
                    if a != b && (directed || a < b) && next(100) < 45 {
                        edges.push((a, b, next(2) as u32));
                    }
                }
            }
            let q = graph(directed, labels, &edges);
            let expect = brute(&q);
            // Bases in a shuffled order.
            let mut prefer: Vec<u32> = (0..n).collect();
            for i in (1..prefer.len()).rev() {
                prefer.swap(i, next(i as u64 + 1) as usize);
            }
            let aut = Automorphisms::chain(&q, &prefer, |_| false);
            assert_eq!(aut.order(), Some(expect.len() as u128));
            let mut got = aut.elements();
            got.sort();
            assert_eq!(got, expect);
            // Every orbit of injective maps keeps exactly one map under the restrictions.
            let r = aut.restrictions();
            let maps: Vec<Vec<u32>> = {
                let mut all = Vec::new();
                let mut p: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
                permutations(&mut p, 0, &mut |p| all.push(p.to_vec()));
                all
            };
            for f in &maps {
                let kept = expect
                    .iter()
                    .filter(|s| r.iter().all(|&(b, w)| f[s[b as usize] as usize] < f[s[w as usize] as usize]));
                assert_eq!(kept.count(), 1);
            }
            // A partial chain keeps |H_k| per orbit: multiplier × kept = |Aut|.
            let stop_at = next(n as u64) as u32;
            let part = Automorphisms::chain(&q, &prefer, |v| v == stop_at);
            let r = part.restrictions();
            let m = part.multiplier().unwrap();
            for f in maps.iter().take(20) {
                let kept = expect
                    .iter()
                    .filter(|s| r.iter().all(|&(b, w)| f[s[b as usize] as usize] < f[s[w as usize] as usize]))
                    .count() as u128;
                assert_eq!(kept * m, expect.len() as u128);
            }
        }
    }

    #[test]
    fn isomorphism_classes_are_those_of_brute_force() {
        let mut next = crate::testing::xorshift(11);
        for _ in 0..60 {
            let directed = next(2) == 1;
            let n = 1 + next(5) as u32;
            // A few graphs, and relabelled copies of them (vertices shuffled).
            let mut graphs = Vec::new();
            for _ in 0..4 {
                let labels: Vec<u32> = (0..n).map(|_| next(2) as u32).collect();
                let mut edges = Vec::new();
                for a in 0..n {
                    for b in 0..n {
                        if a != b && (directed || a < b) && next(100) < 45 {
                            edges.push((a, b, next(2) as u32));
                        }
                    }
                }
                let mut perm: Vec<u32> = (0..n).collect();
                for i in (1..perm.len()).rev() {
                    perm.swap(i, next(i as u64 + 1) as usize);
                }
                let mut moved = vec![0; n as usize];
                (0..n).for_each(|v| moved[perm[v as usize] as usize] = labels[v as usize]);
                let shuffled =
                    edges.iter().map(|&(a, b, l)| (perm[a as usize], perm[b as usize], l)).collect::<Vec<_>>();
                graphs.push(graph(directed, labels, &edges));
                graphs.push(graph(directed, moved, &shuffled));
            }
            let by_brute = |a: &Graph, b: &Graph| {
                let ea: std::collections::BTreeSet<(u32, u32, u32)> = a.edges().collect();
                let eb: std::collections::BTreeSet<(u32, u32, u32)> = b.edges().collect();
                let mut p: Vec<u32> = (0..n).collect();
                let mut found = false;
                permutations(&mut p, 0, &mut |p| {
                    let labels = (0..n).all(|u| a.label(u) == b.label(p[u as usize]));
                    let mapped = ea.len() == eb.len()
                        && ea.iter().all(|&(x, y, l)| {
                            let (x, y) = (p[x as usize], p[y as usize]);
                            eb.contains(&(x, y, l)) || (!directed && eb.contains(&(y, x, l)))
                        });
                    found |= labels && mapped;
                });
                found
            };
            let classes = isomorphism_classes(&graphs);
            for (i, &c) in classes.iter().enumerate() {
                let first = (0..graphs.len()).find(|&j| by_brute(&graphs[j], &graphs[i])).unwrap();
                assert_eq!(c, first, "graph {i}");
            }
        }
    }

    #[test]
    fn large_symmetric_queries_are_fast() {
        // A 40-leaf star: 40! automorphisms overflow u128, found without enumerating them.
        let edges: Vec<(u32, u32, u32)> = (1..=40).map(|i| (0, i, 0)).collect();
        let star = graph(false, vec![0; 41], &edges);
        let aut = Automorphisms::of(&star);
        assert_eq!(aut.order(), None);
        assert_eq!(aut.steps().len(), 39);
        // A 12-clique: 12! = 479001600.
        let mut edges = Vec::new();
        for a in 0..12 {
            for b in a + 1..12 {
                edges.push((a, b, 0));
            }
        }
        assert_eq!(Automorphisms::of(&graph(false, vec![0; 12], &edges)).order(), Some(479_001_600));
        // A 2000-cycle: the dihedral group of 4000, from two searches (each later base is
        // fixed by the refinement), not one search per vertex pair (which took 96 s at 200).
        let n = 2000;
        let edges: Vec<(u32, u32, u32)> = (0..n).map(|i| (i, (i + 1) % n, 0)).collect();
        let cycle = graph(false, vec![0; n as usize], &edges);
        let t = std::time::Instant::now();
        assert_eq!(Automorphisms::of(&cycle).order(), Some(2 * n as u128));
        assert!(t.elapsed() < std::time::Duration::from_secs(20), "{:?}", t.elapsed());
    }

    #[test]
    fn a_halted_search_keeps_whole_steps_and_no_order() {
        let n = 8u32;
        let edges: Vec<(u32, u32, u32)> = (0..n).map(|i| (i, (i + 1) % n, 0)).collect();
        let cycle = graph(false, vec![0; n as usize], &edges);
        let prefer: Vec<u32> = (0..n).collect();
        let halted = Automorphisms::chain_until(&cycle, &prefer, |_| false, || true);
        assert_eq!(halted.order(), None);
        assert!(halted.steps().is_empty());
        // Halted after k searches: a prefix of the whole chain's steps, each with its whole
        // orbit (so its restrictions and multiplier stay valid), and no order.
        let whole = Automorphisms::chain(&cycle, &prefer, |_| false);
        assert_eq!(whole.order(), Some(2 * n as u128));
        let mut lengths = Vec::new();
        for k in 0..12 {
            let asked = std::cell::Cell::new(0);
            let part = Automorphisms::chain_until(
                &cycle,
                &prefer,
                |_| false,
                || {
                    asked.set(asked.get() + 1);
                    asked.get() > k
                },
            );
            let steps = part.steps().len();
            assert_eq!(part.steps(), &whole.steps()[..steps]);
            assert_eq!(part.order().is_none(), steps < whole.steps().len() || asked.get() > k);
            lengths.push(steps);
        }
        assert!(lengths.contains(&1) && lengths.contains(&2), "{lengths:?}");
    }
}
