//! The builders' last step: a layer made strongly connected, so that a search whose bound covers
//! the whole set is exact from any entry. Which vertices vertex 0 reaches is a breadth-first
//! search whose large levels are expanded on every core; which vertices reach vertex 0 is found
//! bottom-up (a vertex reaches it when one of its out-neighbours does: passes over the rows on
//! every core while each finds more than the one before), then, among the few left, along their
//! in-lists. Both are sets, whatever the order they are found in, so the fixes that follow
//! (sequential, over the few vertices that need one) make the graph the whole-graph walks made.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::cpu::search::Space;
use crate::graph::{Layer, NONE};

/// Vertices with the smallest ids (the top layers' and the earliest) that a fix may link to.
const FIX_CANDIDATES: usize = 1024;
/// A level of the breadth-first search smaller than this is expanded on one thread.
const PARALLEL_LEVEL: usize = 4096;
/// Vertices of a level one task expands.
const CHUNK: usize = 1024;
/// Bottom-up passes at most before the vertices left are followed along their in-lists.
const MAX_PASSES: usize = 32;

/// Where a walk from `starts` along `next(v)` (a row, or the in-lists) gets: the reached
/// vertices marked in `seen`, which the walk extends.
fn walk_from<'a>(seen: &mut [bool], starts: &[u32], next: impl Fn(u32) -> &'a [u32]) {
    let mut stack: Vec<u32> =
        starts.iter().copied().filter(|&v| !std::mem::replace(&mut seen[v as usize], true)).collect();
    while let Some(v) = stack.pop() {
        for &u in next(v) {
            if u != NONE && !seen[u as usize] {
                seen[u as usize] = true;
                stack.push(u);
            }
        }
    }
}

/// Every vertex a path along rows reaches from vertex 0.
fn reached_from_zero(layer: &Layer) -> Vec<bool> {
    let seen: Vec<AtomicBool> = (0..layer.len()).map(|_| AtomicBool::new(false)).collect();
    seen[0].store(true, Relaxed);
    let expand = |part: &[u32]| {
        let mut next = Vec::new();
        for &v in part {
            for &u in layer.row(v) {
                if u != NONE && !seen[u as usize].load(Relaxed) && !seen[u as usize].swap(true, Relaxed) {
                    next.push(u);
                }
            }
        }
        next
    };
    let mut level = vec![0u32];
    while !level.is_empty() {
        level = if level.len() < PARALLEL_LEVEL {
            expand(&level)
        } else {
            level.par_chunks(CHUNK).flat_map_iter(expand).collect()
        };
    }
    seen.into_iter().map(AtomicBool::into_inner).collect()
}

/// The in-lists among a set of vertices: for each, the vertices of the set whose rows hold it.
struct InLists {
    /// A vertex's place in the set, or `NONE`; empty for an empty set.
    place: Vec<u32>,
    offsets: Vec<u32>,
    sources: Vec<u32>,
}

impl InLists {
    /// Among `set` (ascending).
    fn among(layer: &Layer, set: &[u32]) -> InLists {
        if set.is_empty() {
            return InLists { place: Vec::new(), offsets: vec![0], sources: Vec::new() };
        }
        let mut place = vec![NONE; layer.len()];
        for (i, &v) in set.iter().enumerate() {
            place[v as usize] = i as u32;
        }
        let mut offsets = vec![0u32; set.len() + 1];
        for &s in set {
            for u in layer.neighbours(s).filter(|&u| place[u as usize] != NONE) {
                offsets[place[u as usize] as usize + 1] += 1;
            }
        }
        for i in 0..set.len() {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut sources = vec![0u32; offsets[set.len()] as usize];
        for &s in set {
            for u in layer.neighbours(s).filter(|&u| place[u as usize] != NONE) {
                let at = &mut fill[place[u as usize] as usize];
                sources[*at as usize] = s;
                *at += 1;
            }
        }
        InLists { place, offsets, sources }
    }

    /// The vertices of the set whose rows hold `v` (none where `v` is not in the set).
    fn of_vertex(&self, v: u32) -> &[u32] {
        match self.place.get(v as usize) {
            Some(&i) if i != NONE => {
                &self.sources[self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize]
            }
            _ => &[],
        }
    }
}

/// Every vertex that reaches vertex 0 along rows, and the in-lists among a set of vertices that
/// holds every one that does not (so that a walk back from one of them finds the others).
fn reaching_zero(layer: &Layer) -> (Vec<bool>, InLists) {
    let n = layer.len();
    let reaches: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    reaches[0].store(true, Relaxed);
    let leads = |v: u32| layer.row(v).iter().any(|&u| u != NONE && reaches[u as usize].load(Relaxed));
    let mut rest: Vec<u32> = (1..n as u32).collect();
    let mut last = 0;
    for _ in 0..MAX_PASSES {
        let before = rest.len();
        rest = rest
            .par_iter()
            .copied()
            .filter(|&v| {
                let found = leads(v);
                if found {
                    reaches[v as usize].store(true, Relaxed);
                }
                !found
            })
            .collect();
        let now = before - rest.len();
        if rest.is_empty() || now == 0 || now < last {
            break;
        }
        last = now;
    }
    let back = InLists::among(layer, &rest);
    let mut stack: Vec<u32> = rest.iter().copied().filter(|&v| leads(v)).collect();
    let mut reaches: Vec<bool> = reaches.into_iter().map(AtomicBool::into_inner).collect();
    for &v in &stack {
        reaches[v as usize] = true;
    }
    while let Some(v) = stack.pop() {
        for &s in back.of_vertex(v) {
            if !reaches[s as usize] {
                reaches[s as usize] = true;
                stack.push(s);
            }
        }
    }
    (reaches, back)
}

/// For each vertex, the in-edges from the vertices `forward` marks.
fn in_degrees(layer: &Layer, forward: &[bool]) -> Vec<u32> {
    let counts: Vec<AtomicU32> = (0..layer.len()).map(|_| AtomicU32::new(0)).collect();
    (0..layer.len() as u32).into_par_iter().filter(|&s| forward[s as usize]).for_each(|s| {
        for u in layer.neighbours(s) {
            counts[u as usize].fetch_add(1, Relaxed);
        }
    });
    counts.into_iter().map(AtomicU32::into_inner).collect()
}

/// Makes the layer strongly connected: an unreached vertex gets an in-edge from its nearest
/// reached out-neighbour (or vertex 0), and a vertex that cannot reach vertex 0 an out-edge to
/// the nearest of the first ids that can; each takes a free slot or the farthest whose vertex
/// has another in-edge from a reached vertex. Rounds until both hold (divide-and-conquer NSW
/// rarely needs one; a KNN graph of separate clusters a few).
pub(crate) fn connect(space: Space<'_>, layer: &mut Layer) {
    for _ in 0..64 {
        let mut forward = reached_from_zero(layer);
        let (mut reaches, back) = reaching_zero(layer);
        if forward.par_iter().chain(reaches.par_iter()).all(|&s| s) {
            return;
        }
        // In-edges from reached vertices only: a slot is given up only where its vertex keeps
        // another in-edge from a reached one (an in-edge from an unreached vertex keeps nothing).
        let mut in_degree = in_degrees(layer, &forward);
        fix_round(space, layer, (&mut forward, &mut reaches), &mut in_degree, |x| back.of_vertex(x));
    }
}

/// One round's fixes, given what vertex 0 reaches (`forward`), what reaches it (`reaches`; both
/// grown as links are made), each vertex's in-degree from reached vertices, and `in_of`, the
/// in-lists of the round's start: an unreached vertex gets an in-edge from its nearest reached
/// out-neighbour or first id, and a vertex that cannot reach vertex 0 an out-edge to the nearest
/// of the first ids that can.
fn fix_round<'b>(
    space: Space<'_>,
    layer: &mut Layer,
    (forward, reaches): (&mut [bool], &mut [bool]),
    in_degree: &mut [u32],
    in_of: impl Fn(u32) -> &'b [u32] + Copy,
) {
    let n = layer.len();
    let link = |layer: &mut Layer, from: u32, to: u32, in_degree: &mut [u32]| -> bool {
        let row = layer.row_mut(from);
        if row.contains(&to) {
            return true;
        }
        let free = row.iter().position(|&x| x == NONE);
        let slot = free.or_else(|| (0..row.len()).rev().find(|&i| in_degree[row[i] as usize] > 1));
        let Some(slot) = slot else { return false };
        if row[slot] != NONE {
            in_degree[row[slot] as usize] -= 1;
        }
        row[slot] = to;
        in_degree[to as usize] += 1;
        true
    };
    // Each distance computed once (not once per comparison of a sort).
    let nearest_first = |q: &[f32], ids: Vec<u32>| {
        let mut scored: Vec<(f32, u32)> =
            ids.into_iter().map(|u| (space.metric.distance(q, space.base.row(u as usize)), u)).collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, u)| u).collect::<Vec<u32>>()
    };
    let first: Vec<u32> = (0..n.min(FIX_CANDIDATES) as u32).collect();
    for v in 0..n as u32 {
        if forward[v as usize] {
            continue;
        }
        let q = space.base.row(v as usize);
        let hosts: Vec<u32> =
            layer.neighbours(v).chain(first.iter().copied()).filter(|&u| forward[u as usize]).collect();
        if nearest_first(q, hosts).into_iter().any(|u| link(layer, u, v, in_degree)) {
            // Everyone v reaches is now reached.
            walk_from(forward, &[v], |x| layer.row(x));
        }
    }
    let targets: Vec<u32> = first.iter().copied().filter(|&t| reaches[t as usize]).collect();
    for v in 0..n as u32 {
        if reaches[v as usize] {
            continue;
        }
        let q = space.base.row(v as usize);
        let nearest = nearest_first(q, targets.iter().copied().filter(|&t| t != v).collect()).first().copied();
        if let Some(t) = nearest {
            if link(layer, v, t, in_degree) {
                // Everyone that reaches v now reaches vertex 0 (by the in-lists of the round's
                // start, as the walk before the fixes found them).
                walk_from(reaches, &[v], in_of);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{build, BuildParams};
    use crate::gen::{clustered, GenSpec};
    use crate::graph::GraphKind;
    use crate::vectors::{Metric, Vectors};
    use proptest::prelude::*;

    // The reachability this one replaced, kept as the oracle: depth-first walks (`walk_from`)
    // on one thread over every vertex, along the reverse lists of the whole layer.
    /// For each vertex, the vertices whose rows hold it, as offsets into one list.
    struct Reverse {
        offsets: Vec<u32>,
        sources: Vec<u32>,
    }

    impl Reverse {
        fn of(layer: &Layer) -> Reverse {
            let n = layer.len();
            let mut offsets = vec![0u32; n + 1];
            for &u in layer.adjacency.iter().filter(|&&u| u != NONE) {
                offsets[u as usize + 1] += 1;
            }
            for i in 0..n {
                offsets[i + 1] += offsets[i];
            }
            let mut fill = offsets.clone();
            let mut sources = vec![0u32; offsets[n] as usize];
            for v in 0..n as u32 {
                for u in layer.neighbours(v) {
                    sources[fill[u as usize] as usize] = v;
                    fill[u as usize] += 1;
                }
            }
            Reverse { offsets, sources }
        }

        fn of_vertex(&self, v: u32) -> &[u32] {
            &self.sources[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
        }
    }

    /// [`connect`] with the old pass's reachability: the sets vertex 0 reaches and that reach
    /// it, and the in-degrees, from one-thread walks over the whole layer's reverse lists; the
    /// round's fixes (`fix_round`, unchanged by the new pass) are shared.
    fn oracle(space: Space<'_>, layer: &mut Layer) {
        let n = layer.len();
        for _ in 0..64 {
            let mut forward = vec![false; n];
            walk_from(&mut forward, &[0], |v| layer.row(v));
            let back = Reverse::of(layer);
            let mut reaches = vec![false; n];
            walk_from(&mut reaches, &[0], |v| back.of_vertex(v));
            if forward.iter().chain(&reaches).all(|&s| s) {
                return;
            }
            // In-edges from reached vertices only; the round's fixes are the pass's own.
            let mut in_degree: Vec<u32> = (0..n as u32)
                .map(|v| back.of_vertex(v).iter().filter(|&&s| forward[s as usize]).count() as u32)
                .collect();
            fix_round(space, layer, (&mut forward, &mut reaches), &mut in_degree, |x| back.of_vertex(x));
        }
    }

    /// Both connect a copy of `layer`; the rows must come out the same, and the sets of the
    /// vertices vertex 0 reaches and that reach it must be the walks' of the old pass.
    fn same(base: &Vectors, layer: &Layer) -> Layer {
        let n = layer.len();
        let mut forward = vec![false; n];
        walk_from(&mut forward, &[0], |v| layer.row(v));
        assert_eq!(reached_from_zero(layer), forward);
        let back = Reverse::of(layer);
        let mut reaches = vec![false; n];
        walk_from(&mut reaches, &[0], |v| back.of_vertex(v));
        assert_eq!(reaching_zero(layer).0, reaches);
        let space = Space { base, metric: Metric::L2 };
        let (mut want, mut got) = (layer.clone(), layer.clone());
        oracle(space, &mut want);
        connect(space, &mut got);
        assert_eq!(got, want);
        got
    }

    /// A random layer of `n` vertices: each row a random length (empty rows included) of
    /// distinct random neighbours, padded with NONE; rows of `sinks` vertices point only at
    /// each other's, so that some cannot reach vertex 0.
    fn random_layer(n: usize, degree: usize, seed: u64, sinks: usize) -> Layer {
        let mut state = seed | 1;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as u32
        };
        let mut layer = Layer::empty(n, degree);
        for v in 0..n as u32 {
            let sink = v as usize + sinks >= n;
            let others = if sink { sinks - 1 } else { n - 1 };
            let len = (next(degree + 1) as usize).min(others);
            let mut row = Vec::new();
            while row.len() < len {
                let u = if sink { (n - sinks) as u32 + next(sinks) } else { next(n) };
                if u != v && !row.contains(&u) {
                    row.push(u);
                }
            }
            layer.row_mut(v)[..row.len()].copy_from_slice(&row);
        }
        layer
    }

    fn vectors(n: usize, seed: u64) -> Vectors {
        clustered(n, 3, &GenSpec { seed, ..GenSpec::default() }).unwrap()
    }

    proptest! {
        #[test]
        fn random_layers_connect_as_before(n in 1usize..300, degree in 1usize..7, seed: u64, sinks in 0usize..20) {
            let layer = random_layer(n, degree, seed, sinks.min(n - 1));
            same(&vectors(n, seed), &layer);
        }
    }

    #[test]
    fn large_layers_connect_as_before() {
        // Large enough for the parallel levels and several bottom-up passes.
        for (n, degree, sinks) in [(40_000, 6, 0), (40_000, 4, 300), (30_000, 2, 50)] {
            same(&vectors(n, n as u64), &random_layer(n, degree, 7, sinks));
        }
    }

    #[test]
    fn built_graphs_with_links_cut_connect_as_before() {
        let base = clustered(6000, 8, &GenSpec { seed: 3, ..GenSpec::default() }).unwrap();
        for kind in GraphKind::ALL {
            let built = build(&base, Metric::L2, &BuildParams::new(kind, 8).unwrap()).unwrap();
            let mut layer = built.graph.layers[0].clone();
            // Every vertex whose id is a multiple of 7 loses its out-edges, every 11th row its
            // second half.
            for v in 0..layer.len() as u32 {
                let row = layer.row_mut(v);
                let from = if v % 7 == 0 {
                    0
                } else if v % 11 == 0 {
                    row.len() / 2
                } else {
                    row.len()
                };
                row[from..].fill(NONE);
            }
            same(&built.vectors, &layer);
        }
    }

    /// 1M vertices of 32 random neighbours (a few hundred unreached, and a few hundred that
    /// reach nothing), connected by the old pass and by this one: `cargo test -p subgraph-ann
    /// --release connect::tests::a_million_vertices -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn a_million_vertices() {
        let n = 1_000_000;
        let base = clustered(n, 8, &GenSpec { seed: 1, ..GenSpec::default() }).unwrap();
        let space = Space { base: &base, metric: Metric::L2 };
        let mut layer = random_layer(n, 32, 11, 0);
        for v in 0..n as u32 {
            let row = layer.row_mut(v);
            if v % 4096 == 5 {
                row.fill(NONE);
            }
            for u in row.iter_mut().filter(|u| **u != NONE && **u % 3001 == 17) {
                *u = (*u + 1) % n as u32;
            }
        }
        for v in 0..n as u32 {
            let used = layer.row(v).iter().take_while(|&&u| u != NONE).count();
            let mut seen = std::collections::HashSet::new();
            let row: Vec<u32> = layer.row(v)[..used].iter().copied().filter(|&u| u != v && seen.insert(u)).collect();
            layer.row_mut(v).fill(NONE);
            layer.row_mut(v)[..row.len()].copy_from_slice(&row);
        }
        let mut want = layer.clone();
        let clock = std::time::Instant::now();
        oracle(space, &mut want);
        let old = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        connect(space, &mut layer);
        let new = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        connect(space, &mut layer);
        let check = clock.elapsed().as_secs_f64();
        assert_eq!(layer, want);
        println!(
            "{} threads: the old pass {old:.3} s, this one {new:.3} s; on the connected layer (one round) {check:.3} s",
            rayon::current_num_threads()
        );
    }
}
