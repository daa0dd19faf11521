//! GGraphCon's construction on every core (thesis §2.3): an NSW (each vertex joined both ways
//! to its `d_min` nearest earlier vertices, rows of at most `d_max` kept nearest first) built by
//! divide and conquer. The vertices are cut into groups of consecutive ids; each group builds
//! its local NSW by sequential insertion, all groups at once; then group after group is merged
//! into the graph of the groups before it: every vertex of the group searches its `d_min`
//! nearest in that graph at once (forward edges, merged into its row), and the backward edges,
//! sorted by (source, distance), are merged into their sources' rows, each row by one thread.
//!
//! The HNSW extension builds an NSW on each id prefix of a geometric series, top layer first,
//! and enters the searches of each layer by descent through the layers above. The KNN-graph
//! extension refines random rows by NN-descent (neighbours of neighbours). Ids are shuffled
//! first (by the seed), so that an input sorted by cluster still gives long links early; the
//! result says which input row each internal id is. An index built on the CPU then renumbers
//! its HNSW graph for locality (`localize`), so that its searches read memory nearer together.

use std::ops::Range;
use std::time::Instant;

use rayon::prelude::*;

use crate::cpu::backward::BackwardEdges;
use crate::cpu::connect::connect;
use crate::cpu::search::{list_capacity, Best, Rows, Space};
use crate::error::{AnnError, Result};
use crate::graph::{GraphKind, Layer, ProximityGraph, NONE};
use crate::vectors::{Metric, Vectors};

/// The largest out-degree accepted.
pub const MAX_DEGREE: usize = 256;

/// How a graph is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildParams {
    pub kind: GraphKind,
    /// Links each vertex makes to earlier ones (NSW, HNSW).
    pub d_min: usize,
    /// Row width: the out-degree bound.
    pub d_max: usize,
    /// The exploration bound of the searches that find each vertex's `d_min` nearest.
    pub ef_construction: usize,
    /// NN-descent rounds (KNN graph).
    pub iterations: usize,
    /// Seed of the shuffle (and of the KNN graph's first rows).
    pub seed: u64,
    /// Whom a full row keeps (NSW, HNSW).
    pub prune: Prune,
}

/// Whom a full row of an NSW or HNSW layer keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prune {
    /// The nearest, as the thesis' GGraphCon and NSW have it.
    Nearest,
    /// HNSW's heuristic: no neighbour that a kept one is nearer to (the default).
    Diverse,
}

impl Prune {
    pub fn name(self) -> &'static str {
        match self {
            Prune::Nearest => "nearest",
            Prune::Diverse => "diverse",
        }
    }
}

impl std::str::FromStr for Prune {
    type Err = AnnError;

    fn from_str(s: &str) -> Result<Self> {
        [Prune::Nearest, Prune::Diverse]
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| AnnError::Parameter(format!("prune {s:?}: expected nearest or diverse")))
    }
}

impl BuildParams {
    /// `degree` is `d_max`; `d_min` is five eighths of it (20 of 32), and `ef_construction` is
    /// [`BuildParams::default_ef_construction`] for that `d_min`. The thesis and the authors'
    /// code take half the degree and 64. Measured in one lease on 1M × 128 at degree 32
    /// (`bench/results/2026-11-30-ann-feed.md`, call V1), this graph reaches recall@10 0.960 at
    /// ef 64 where theirs reaches 0.942. At recall 0.95 it searches 1.30× as fast on the H200
    /// (5.98 M queries/s against 4.60 M in half precision) and 1.06× as fast on 16 cores (1.04×
    /// hnswlib's, where theirs is 0.98×). It costs 1.37× the build on the GPU and 1.52× on the
    /// CPU.
    pub fn new(kind: GraphKind, degree: usize) -> Result<Self> {
        let d_min = (degree * 5 / 8).max(1);
        let params = BuildParams {
            kind,
            d_min,
            d_max: degree,
            ef_construction: Self::default_ef_construction(d_min),
            iterations: 8,
            seed: 0x5eed,
            prune: Prune::Diverse,
        };
        params.check()?;
        Ok(params)
    }

    /// The exploration bound of the construction where none is given, for `d_min` links a
    /// vector: 128, or `d_min` where larger (the bound is at least the links it finds).
    pub fn default_ef_construction(d_min: usize) -> usize {
        d_min.max(128)
    }

    /// One line for a bound out of range.
    pub fn check(&self) -> Result<()> {
        if self.d_max < 2 || self.d_max > MAX_DEGREE {
            return Err(AnnError::Parameter(format!("degree {}: must be 2 to {MAX_DEGREE}", self.d_max)));
        }
        if self.d_min == 0 || self.d_min > self.d_max {
            return Err(AnnError::Parameter(format!("d_min {} must be 1 to d_max {}", self.d_min, self.d_max)));
        }
        if self.ef_construction < self.d_min {
            return Err(AnnError::Parameter(format!(
                "ef_construction {} is smaller than d_min {}",
                self.ef_construction, self.d_min
            )));
        }
        Ok(())
    }
}

/// A built graph over the shuffled vectors.
#[derive(Debug)]
pub struct Built {
    pub graph: ProximityGraph,
    /// `order[i]` is the input row of internal vertex `i`.
    pub order: Vec<u32>,
    /// The prepared vectors in internal order.
    pub vectors: Vectors,
    /// Where the time went: (phase, seconds), in order.
    pub phases: Vec<(String, f64)>,
}

/// Seconds since `start`, restarting it.
pub(crate) fn lap(start: &mut Instant) -> f64 {
    let now = Instant::now();
    let s = now.duration_since(*start).as_secs_f64();
    *start = now;
    s
}

/// SplitMix64: the shuffle's and the first rows' random numbers.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A permutation of `0..n` by `seed` (Fisher–Yates).
pub fn shuffled(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix(seed);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// The lengths of an HNSW graph's layers, bottom first: `n`, then divided by `d_min` while
/// more than one vertex remains (hnswlib's level distribution, 1/ln M, made exact by prefixes).
pub fn layer_lengths(kind: GraphKind, n: usize, d_min: usize) -> Vec<usize> {
    let mut lengths = vec![n];
    if kind == GraphKind::Hnsw {
        let ratio = d_min.max(2);
        while *lengths.last().expect("non-empty") / ratio > 1 {
            let next = lengths.last().expect("non-empty") / ratio;
            lengths.push(next);
        }
    }
    lengths
}

/// Builds the graph of `params.kind` over `vectors` (prepared; see [`Metric::prepare`]).
pub fn build(vectors: &Vectors, metric: Metric, params: &BuildParams) -> Result<Built> {
    params.check()?;
    if vectors.is_empty() {
        return Err(AnnError::Vectors("an empty vector set has no graph".into()));
    }
    if vectors.len() >= NONE as usize {
        return Err(AnnError::Vectors(format!("{} vectors: at most {} fit 32-bit ids", vectors.len(), NONE - 1)));
    }
    let mut clock = Instant::now();
    let mut phases = Vec::new();
    let order = shuffled(vectors.len(), params.seed);
    let internal = vectors.permuted(&order);
    let space = Space { base: &internal, metric };
    let mut layers = match params.kind {
        GraphKind::Knn => vec![nn_descent(space, params)],
        GraphKind::Nsw | GraphKind::Hnsw => {
            let lengths = layer_lengths(params.kind, internal.len(), params.d_min);
            let mut built: Vec<Layer> = Vec::with_capacity(lengths.len());
            for (l, &len) in lengths.iter().enumerate().rev() {
                let degree = if l == 0 { params.d_max } else { (params.d_max / 2).max(1) };
                let link = params.d_min.min(degree);
                let spec = LayerSpec { len, degree, link, ef: params.ef_construction, prune: params.prune };
                built.insert(0, nsw_layer(space, spec, &built));
            }
            built
        }
    };
    phases.push(("graph".to_string(), lap(&mut clock)));
    connect(space, &mut layers[0]);
    phases.push(("connect".to_string(), lap(&mut clock)));
    Ok(Built { graph: ProximityGraph { kind: params.kind, layers }, order, vectors: internal, phases })
}

/// A built HNSW graph renumbered so that vertices near one another in the graph are near one
/// another in memory (vectors and rows), which a search's reads then find more often in the
/// caches and the TLB: on 200k × 128 on 2 cores, about 1.25× the CPU search's queries a second
/// at the same recall (bench/results/2026-11-29-ann-cpu.md). The graph is the same up to the names of its
/// vertices, so searches visit the same vertices and give the same answers (up to ties of equal
/// distance, broken by id).
///
/// Every layer stays an id prefix and vertex 0 stays the entry: each vertex of layer `l` below
/// the top is given a parent in layer `l + 1`, the one a breadth-first search of layer `l` from
/// all of layer `l + 1` at once reaches it from; the vertices of each layer are ranked by their
/// parent's rank (then by when that search reached them), and each band of vertices whose top
/// layer is `l` is numbered in layer `l`'s ranks. So a vertex's group (its parent's children,
/// about `d_min` vertices) lies together, its parent's group next to its siblings' parents'
/// groups, and so on up. Graphs of one layer are left as they are.
pub(crate) fn localize(built: Built) -> Built {
    let mut clock = Instant::now();
    let mut built = renumbered(built);
    built.phases.push(("locality".to_string(), lap(&mut clock)));
    built
}

fn renumbered(built: Built) -> Built {
    let layers = &built.graph.layers;
    let top = layers.len() - 1;
    if top == 0 {
        return built;
    }
    let n = layers[0].len();
    // rank[v]: v's position among the vertices of the layer being ranked.
    let mut rank: Vec<u32> = (0..layers[top].len() as u32).collect();
    let mut new_order: Vec<u32> = (0..layers[top].len() as u32).collect();
    for l in (0..top).rev() {
        let (layer, up) = (&layers[l], layers[l + 1].len());
        // Multi-source breadth-first search: parent and discovery time of every vertex.
        let mut parent = vec![NONE; layer.len()];
        let mut found: Vec<u32> = (0..up as u32).collect();
        parent[..up].iter_mut().enumerate().for_each(|(v, p)| *p = v as u32);
        let mut next = 0;
        while next < found.len() {
            let v = found[next];
            next += 1;
            for u in layer.neighbours(v) {
                if parent[u as usize] == NONE {
                    parent[u as usize] = parent[v as usize];
                    found.push(u);
                }
            }
        }
        // Unreached (upper layers are not made strongly connected): under the entry.
        for v in 0..layer.len() as u32 {
            if parent[v as usize] == NONE {
                parent[v as usize] = 0;
                found.push(v);
            }
        }
        // Discovery order, stably sorted by the parent's rank: the layer's ranking.
        found.sort_by_key(|&v| rank[parent[v as usize] as usize]);
        rank = vec![0; layer.len()];
        for (i, &v) in found.iter().enumerate() {
            rank[v as usize] = i as u32;
        }
        new_order.extend(found.iter().copied().filter(|&v| v as usize >= up));
    }
    debug_assert_eq!(new_order.len(), n);
    debug_assert_eq!(new_order[0], 0);
    let mut new_id = vec![0u32; n];
    for (i, &v) in new_order.iter().enumerate() {
        new_id[v as usize] = i as u32;
    }
    let layers = layers
        .iter()
        .map(|layer| {
            let mut adjacency = vec![NONE; layer.adjacency.len()];
            adjacency.par_chunks_mut(layer.degree).enumerate().for_each(|(i, row)| {
                for (slot, &u) in row.iter_mut().zip(layer.row(new_order[i])) {
                    *slot = if u == NONE { NONE } else { new_id[u as usize] };
                }
            });
            Layer { degree: layer.degree, adjacency }
        })
        .collect();
    Built {
        graph: ProximityGraph { kind: built.graph.kind, layers },
        order: new_order.iter().map(|&v| built.order[v as usize]).collect(),
        vectors: built.vectors.permuted(&new_order),
        phases: built.phases,
    }
}

/// A layer under construction: rows with the distances that keep them sorted.
struct Draft {
    degree: usize,
    adjacency: Vec<u32>,
    distances: Vec<f32>,
}

/// Inserts `id` at `distance` into a sorted row, dropping the farthest when full; a repeat of
/// an id already in the row is ignored.
fn offer(row: &mut [u32], distances: &mut [f32], id: u32, distance: f32) {
    let used = row.iter().position(|&u| u == NONE).unwrap_or(row.len());
    if row[..used].contains(&id) {
        return;
    }
    let at = (0..used).find(|&i| (distance, id) < (distances[i], row[i])).unwrap_or(used);
    if at == row.len() {
        return;
    }
    let end = used.min(row.len() - 1);
    row.copy_within(at..end, at + 1);
    distances.copy_within(at..end, at + 1);
    row[at] = id;
    distances[at] = distance;
}

/// At most `width` of `candidates` (sorted nearest first by their distance to one vertex, no
/// repeats), into `kept`: the nearest, or by HNSW's heuristic (Malkov and Yashunin, Alg. 4):
/// a candidate is left out when one already kept is nearer to it than the vertex is, which
/// keeps links in every direction (the long links that join clusters) instead of many to one
/// side.
fn select(space: Space<'_>, prune: Prune, candidates: &[(u32, f32)], width: usize, kept: &mut Vec<(u32, f32)>) {
    kept.clear();
    match prune {
        Prune::Nearest => kept.extend(candidates.iter().take(width)),
        Prune::Diverse => {
            for &(c, d) in candidates {
                if kept.len() == width {
                    break;
                }
                let row = space.base.row(c as usize);
                if kept.iter().all(|&(s, _)| space.metric.distance(row, space.base.row(s as usize)) >= d) {
                    kept.push((c, d));
                }
            }
        }
    }
}

/// Scratch lists of one thread's row merges.
#[derive(Default)]
struct Scratch {
    candidates: Vec<(u32, f32)>,
    kept: Vec<(u32, f32)>,
}

/// Merges `extra` (ids with their distances to the row's vertex) into a sorted row: all kept
/// while they fit, else the row's width chosen by `select`.
fn merge_row(
    space: Space<'_>,
    prune: Prune,
    row: &mut [u32],
    distances: &mut [f32],
    extra: &[(u32, f32)],
    scratch: &mut Scratch,
) {
    let Scratch { candidates, kept } = scratch;
    candidates.clear();
    candidates.extend(row.iter().zip(distances.iter()).take_while(|(&u, _)| u != NONE).map(|(&u, &d)| (u, d)));
    let before = candidates.len();
    candidates.extend(extra.iter().filter(|(u, _)| *u != NONE && !row.contains(u)));
    if candidates.len() == before {
        return;
    }
    candidates.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    candidates.dedup_by_key(|c| c.0);
    if candidates.len() <= row.len() {
        kept.clear();
        kept.extend_from_slice(candidates);
    } else {
        select(space, prune, candidates, row.len(), kept);
    }
    for (slot, (r, dist)) in row.iter_mut().zip(distances.iter_mut()).enumerate() {
        (*r, *dist) = kept.get(slot).copied().unwrap_or((NONE, f32::INFINITY));
    }
}

/// Vertices a group holds: about four groups per thread, each of 1,024 to 65,536.
fn group_size(len: usize) -> usize {
    (len / (rayon::current_num_threads() * 4)).clamp(1024, 1 << 16)
}

/// What one NSW layer is built with.
#[derive(Clone, Copy)]
struct LayerSpec {
    len: usize,
    degree: usize,
    link: usize,
    ef: usize,
    prune: Prune,
}

/// The NSW layer over vertices `0..len`: local graphs per group, then merges (Algorithm 5).
fn nsw_layer(space: Space<'_>, spec: LayerSpec, upper: &[Layer]) -> Layer {
    let mut draft = Draft {
        degree: spec.degree,
        adjacency: vec![NONE; spec.len * spec.degree],
        distances: vec![f32::INFINITY; spec.len * spec.degree],
    };
    grow(space, spec, &mut draft, 0, upper);
    Layer { degree: spec.degree, adjacency: draft.adjacency }
}

/// Joins vertices `from..` of the draft (whose rows are empty) into the graph of those before
/// them: local graphs of groups of the new vertices, then each group merged in turn (the first
/// group of a new graph is its start).
fn grow(space: Space<'_>, spec: LayerSpec, draft: &mut Draft, from: usize, upper: &[Layer]) {
    let degree = spec.degree;
    let len = draft.adjacency.len() / degree;
    let group = group_size(len - from);
    draft.adjacency[from * degree..]
        .par_chunks_mut(group * degree)
        .zip(draft.distances[from * degree..].par_chunks_mut(group * degree))
        .enumerate()
        .for_each(|(g, (adjacency, distances))| {
            local_nsw(space, spec, (from + g * group) as u32, adjacency, distances)
        });
    let mut segment_of = vec![NONE; len];
    let mut backward = BackwardEdges::default();
    let first_merge = if from == 0 { group } else { from };
    for start in (first_merge..len).step_by(group) {
        merge_group(space, spec, draft, start..(start + group).min(len), upper, &mut segment_of, &mut backward);
    }
}

/// Joins the vectors `first..` (internal order, prepared, appended to those the graph was
/// built over) into the bottom layer of `graph`, by the builder's merge: an index that grows
/// is the index built in two batches. The layers above keep their prefixes.
pub fn extend(
    vectors: &Vectors,
    metric: Metric,
    params: &BuildParams,
    graph: &mut ProximityGraph,
    first: usize,
) -> Result<()> {
    params.check()?;
    if vectors.len() >= NONE as usize {
        return Err(AnnError::Vectors(format!("{} vectors: at most {} fit 32-bit ids", vectors.len(), NONE - 1)));
    }
    let space = Space { base: vectors, metric };
    let (upper, base) = {
        let (base, upper) = graph.layers.split_at_mut(1);
        (upper, &mut base[0])
    };
    let degree = base.degree;
    let mut adjacency = std::mem::take(&mut base.adjacency);
    adjacency.resize(vectors.len() * degree, NONE);
    let mut distances = vec![f32::INFINITY; adjacency.len()];
    adjacency[..first * degree]
        .par_chunks(degree)
        .zip(distances[..first * degree].par_chunks_mut(degree))
        .enumerate()
        .for_each(|(v, (row, ds))| {
            for (&u, d) in row.iter().zip(ds).take_while(|(&u, _)| u != NONE) {
                *d = metric.distance(vectors.row(v), vectors.row(u as usize));
            }
        });
    let (link, prune) = match graph.kind {
        GraphKind::Knn => (degree, Prune::Nearest),
        GraphKind::Nsw | GraphKind::Hnsw => (params.d_min.min(degree), params.prune),
    };
    let spec = LayerSpec { len: vectors.len(), degree, link, ef: params.ef_construction, prune };
    let mut draft = Draft { degree, adjacency, distances };
    grow(space, spec, &mut draft, first, upper);
    *base = Layer { degree, adjacency: draft.adjacency };
    connect(space, base);
    Ok(())
}

/// The `link` vertices a new vertex joins, chosen from the walk's best list.
fn forward(space: Space<'_>, spec: LayerSpec, best: &Best, scratch: &mut Scratch) {
    scratch.candidates.clear();
    scratch.candidates.extend(best.entries.iter().map(|e| (e.id, e.distance)));
    select(space, spec.prune, &scratch.candidates, spec.link, &mut scratch.kept);
}

/// Sequential NSW insertion of the group whose first vertex is `first`, over its own rows.
fn local_nsw(space: Space<'_>, spec: LayerSpec, first: u32, adjacency: &mut [u32], distances: &mut [f32]) {
    let degree = spec.degree;
    let count = (adjacency.len() / degree) as u32;
    let mut best = Best::new(list_capacity(spec.ef));
    let (mut scratch, mut links) = (Scratch::default(), Scratch::default());
    for v in first + 1..first + count {
        let rows = Rows { adjacency, degree, offset: first };
        let q = space.base.row(v as usize);
        space.walk(q, rows, first, spec.ef, v, &mut best);
        forward(space, spec, &best, &mut links);
        let at = |u: u32| (u - first) as usize * degree..(u - first + 1) as usize * degree;
        merge_row(space, spec.prune, &mut adjacency[at(v)], &mut distances[at(v)], &links.kept, &mut scratch);
        for &(u, d) in &links.kept {
            merge_row(space, spec.prune, &mut adjacency[at(u)], &mut distances[at(u)], &[(v, d)], &mut scratch);
        }
    }
}

/// Merges the group `range` into the graph of the vertices before it (Algorithm 5, steps 1–3).
fn merge_group(
    space: Space<'_>,
    spec: LayerSpec,
    draft: &mut Draft,
    range: Range<usize>,
    upper: &[Layer],
    segment_of: &mut [u32],
    backward: &mut BackwardEdges,
) {
    let (degree, link) = (draft.degree, spec.link);
    let start = range.start;
    let limit = start as u32;
    // Step 1: each vertex of the group finds its nearest in the merged prefix.
    let mut found = vec![(NONE, f32::INFINITY); range.len() * link];
    {
        let rows = Rows { adjacency: &draft.adjacency, degree, offset: 0 };
        found.par_chunks_mut(link).zip(range.clone()).for_each_init(
            || (Best::new(list_capacity(spec.ef)), Scratch::default()),
            |(best, scratch), (mine, v)| {
                let q = space.base.row(v);
                let entry = space.descend(q, upper, limit);
                space.walk(q, rows, entry, spec.ef, limit, best);
                forward(space, spec, best, scratch);
                mine[..scratch.kept.len()].copy_from_slice(&scratch.kept);
            },
        );
    }
    // Forward edges into the group's own rows.
    draft.adjacency[start * degree..range.end * degree]
        .par_chunks_mut(degree)
        .zip(draft.distances[start * degree..range.end * degree].par_chunks_mut(degree))
        .zip(found.par_chunks(link))
        .for_each_init(Scratch::default, |scratch, ((row, distances), mine)| {
            merge_row(space, spec.prune, row, distances, mine, scratch)
        });
    // Step 2: backward edges sorted by (source, distance), cut into one segment per source.
    backward.sort(&found, link, start);
    for (i, &u) in backward.sources.iter().enumerate() {
        segment_of[u as usize] = i as u32;
    }
    // Step 3: each source merges its segment into its row.
    let segments = &*backward;
    draft.adjacency[..start * degree]
        .par_chunks_mut(degree)
        .zip(draft.distances[..start * degree].par_chunks_mut(degree))
        .zip(&segment_of[..start])
        .for_each_init(Scratch::default, |scratch, ((row, distances), &segment)| {
            if segment != NONE {
                merge_row(space, spec.prune, row, distances, segments.segment(segment as usize), scratch);
            }
        });
    for &u in &backward.sources {
        segment_of[u as usize] = NONE;
    }
}

/// Neighbours of each neighbour a vertex looks at per NN-descent round.
const DESCENT_SAMPLE: usize = 16;

/// The approximate `d_max`-NN graph: random rows refined by NN-descent rounds, each vertex
/// offered the first neighbours of its first neighbours, until a round changes under 0.1 % of
/// the slots or `params.iterations` rounds have run.
fn nn_descent(space: Space<'_>, params: &BuildParams) -> Layer {
    let n = space.base.len();
    let degree = params.d_max.min(n.saturating_sub(1)).max(1);
    let mut adjacency = vec![NONE; n * degree];
    let mut distances = vec![f32::INFINITY; n * degree];
    adjacency.par_chunks_mut(degree).zip(distances.par_chunks_mut(degree)).enumerate().for_each(|(v, (row, ds))| {
        let mut rng = SplitMix(params.seed ^ (v as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
        for _ in 0..4 * degree {
            let u = rng.below(n);
            if u != v {
                offer(row, ds, u as u32, space.metric.distance(space.base.row(v), space.base.row(u)));
            }
        }
    });
    for _ in 0..params.iterations {
        let previous = adjacency.clone();
        let changed: usize = adjacency
            .par_chunks_mut(degree)
            .zip(distances.par_chunks_mut(degree))
            .enumerate()
            .map(|(v, (row, ds))| {
                let before: Vec<u32> = row.to_vec();
                let q = space.base.row(v);
                let sample = DESCENT_SAMPLE.min(degree);
                for &u in before[..sample].iter().take_while(|&&u| u != NONE) {
                    for &w in &previous[u as usize * degree..][..sample] {
                        if w != NONE && w as usize != v {
                            offer(row, ds, w, space.metric.distance(q, space.base.row(w as usize)));
                        }
                    }
                }
                row.iter().zip(&before).filter(|(a, b)| a != b).count()
            })
            .sum();
        if changed * 1000 < n * degree {
            break;
        }
    }
    Layer { degree, adjacency }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::search::search;
    use crate::gen::{clustered, clustered_stream, GenSpec};
    use crate::neighbours::SearchParams;

    #[test]
    fn default_bounds_hold_at_every_degree() {
        let p = BuildParams::new(GraphKind::Hnsw, 32).unwrap();
        assert_eq!((p.d_min, p.d_max, p.ef_construction), (20, 32, 128));
        let p = BuildParams::new(GraphKind::Nsw, 2).unwrap();
        assert_eq!((p.d_min, p.ef_construction), (1, 128));
        // From degree 207 the links a vector makes exceed 128, and the bound follows them.
        let p = BuildParams::new(GraphKind::Hnsw, MAX_DEGREE).unwrap();
        assert_eq!((p.d_min, p.ef_construction), (MAX_DEGREE * 5 / 8, MAX_DEGREE * 5 / 8));
        for degree in 2..=MAX_DEGREE {
            BuildParams::new(GraphKind::Knn, degree).unwrap();
        }
    }

    #[test]
    fn localized_graphs_are_the_same_graph_renamed() {
        let spec = GenSpec { seed: 5, ..GenSpec::default() };
        let base = clustered(6000, 16, &spec).unwrap();
        let queries = clustered_stream(100, 16, &spec, 1).unwrap();
        for kind in GraphKind::ALL {
            let built = build(&base, Metric::L2, &BuildParams::new(kind, 16).unwrap()).unwrap();
            let renamed = localize(Built {
                graph: built.graph.clone(),
                order: built.order.clone(),
                vectors: built.vectors.clone(),
                phases: Vec::new(),
            });
            renamed.graph.validate().unwrap();
            assert_eq!(renamed.phases.len(), 1);
            let lens = |g: &ProximityGraph| g.layers.iter().map(|l| (l.len(), l.degree)).collect::<Vec<_>>();
            assert_eq!(lens(&renamed.graph), lens(&built.graph));
            assert_eq!(renamed.order[0], built.order[0], "{kind}: the entry stays vertex 0");
            if kind != GraphKind::Hnsw {
                assert_eq!(renamed.graph, built.graph, "{kind}: one layer is left as it is");
            }
            // The same vertices (input rows), vectors and edges under new names.
            let mut old_of = vec![0u32; base.len()];
            built.order.iter().enumerate().for_each(|(i, &row)| old_of[row as usize] = i as u32);
            for i in 0..base.len() as u32 {
                let old = old_of[renamed.order[i as usize] as usize];
                assert_eq!(renamed.vectors.row(i as usize), built.vectors.row(old as usize));
                for (l, layer) in
                    renamed.graph.layers.iter().enumerate().filter(|(_, layer)| (i as usize) < layer.len())
                {
                    let rows: Vec<u32> = layer.neighbours(i).map(|u| renamed.order[u as usize]).collect();
                    let was: Vec<u32> =
                        built.graph.layers[l].neighbours(old).map(|u| built.order[u as usize]).collect();
                    assert_eq!(rows, was, "{kind}: layer {l}, vertex {i}");
                }
            }
            // So a search gives the same answers.
            for ef in [10, 40] {
                let p = SearchParams::new(10, Some(ef)).unwrap();
                let mut a = search(&built.vectors, Metric::L2, &built.graph, &queries, p, None).unwrap();
                let mut b = search(&renamed.vectors, Metric::L2, &renamed.graph, &queries, p, None).unwrap();
                a.map_ids(&built.order);
                b.map_ids(&renamed.order);
                assert_eq!(a, b, "{kind} ef {ef}");
            }
        }
    }
}
