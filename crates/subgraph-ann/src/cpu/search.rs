//! Best-first search of a proximity graph on the CPU, with GANNS' semantics (thesis §2.2): a
//! best list N of fixed capacity sorted by (distance, id), the exploration bound `ef` (only the
//! first `ef` entries are ever explored), and the first unexplored entry explored next until the
//! first `ef` are all explored. Where the GPU finds a vertex again by binary search in N (the lazy
//! check), the CPU keeps a visited table per thread (hnswlib's), which skips the same vertices
//! and also those that left N, whose distance the GPU computes again and discards: the answers
//! are the same. An HNSW graph is entered by greedy descent from vertex 0 of its top layer.
//!
//! Every walk takes a `limit`: vertices at or above it are invisible, which is how the builder
//! searches the prefix of the graph merged so far.

use std::cell::RefCell;

use multiversion::multiversion;
use rayon::prelude::*;

use crate::brute::brute_force;
use crate::error::{AnnError, Result};
use crate::filter::{route, Allowed, Route};
use crate::graph::{Layer, ProximityGraph, NONE};
use crate::neighbours::{Neighbours, Precision, SearchParams};
use crate::vectors::{check_dim, dot_sums, l2sq_sums, Metric, Vectors};

/// Capacity of the best list for bound `ef`: the GPU's length, a power of two of at least 32.
pub fn list_capacity(ef: usize) -> usize {
    ef.max(32).next_power_of_two()
}

/// One entry of the best list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub distance: f32,
    pub id: u32,
    explored: bool,
}

/// N: the best vertices found, sorted by (distance, id), at most `capacity`.
pub(crate) struct Best {
    pub entries: Vec<Entry>,
    capacity: usize,
    /// No entry before this position is unexplored.
    cursor: usize,
}

impl Best {
    pub fn new(capacity: usize) -> Self {
        Best { entries: Vec::with_capacity(capacity + 1), capacity, cursor: 0 }
    }

    fn clear(&mut self, capacity: usize) {
        self.entries.clear();
        self.capacity = capacity;
        self.cursor = 0;
    }

    /// Inserts `id` at `distance` unless the list is full of nearer ones.
    fn offer(&mut self, distance: f32, id: u32) {
        if self.entries.len() == self.capacity {
            let last = self.entries[self.capacity - 1];
            if (distance, id) >= (last.distance, last.id) {
                return;
            }
            self.entries.pop();
        }
        let at = self.entries.partition_point(|e| (e.distance, e.id) < (distance, id));
        self.entries.insert(at, Entry { distance, id, explored: false });
        self.cursor = self.cursor.min(at);
    }

    /// The first unexplored entry among the first `bound`, left unexplored.
    #[inline]
    fn peek(&self, bound: usize) -> Option<u32> {
        let end = bound.min(self.entries.len());
        self.entries[self.cursor.min(end)..end].iter().find(|e| !e.explored).map(|e| e.id)
    }

    /// The first unexplored entry among the first `bound`, marked explored.
    fn next(&mut self, bound: usize) -> Option<u32> {
        let end = bound.min(self.entries.len());
        while self.cursor < end {
            let e = &mut self.entries[self.cursor];
            self.cursor += 1;
            if !e.explored {
                e.explored = true;
                return Some(e.id);
            }
        }
        None
    }
}

/// Vertices seen by the current walk, by epoch so that a new walk costs nothing to start:
/// 16-bit tags, as hnswlib's, so that the table takes half the cache of 32-bit ones (cleared
/// once every 65,535 walks).
pub(crate) struct Visited {
    tags: Vec<u16>,
    epoch: u16,
}

impl Visited {
    pub fn new() -> Self {
        Visited { tags: Vec::new(), epoch: 0 }
    }

    fn start(&mut self, n: usize) {
        if self.tags.len() < n {
            self.tags.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.tags.iter_mut().for_each(|t| *t = 0);
            self.epoch = 1;
        }
    }

    /// Whether `v` is new to this walk; marks it seen.
    #[inline(always)]
    fn first_visit(&mut self, v: u32) -> bool {
        let tag = &mut self.tags[v as usize];
        let new = *tag != self.epoch;
        *tag = self.epoch;
        new
    }
}

/// A thread's scratch for its walks: the visited table and the row being measured.
struct Scratch {
    visited: Visited,
    /// Vertices of one row whose distances are computed together, and those distances.
    ids: Vec<u32>,
    distances: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> =
        RefCell::new(Scratch { visited: Visited::new(), ids: Vec::new(), distances: Vec::new() });
}

/// Rows of fixed width over a slice of an adjacency array whose first row is vertex `offset`.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a> {
    pub adjacency: &'a [u32],
    pub degree: usize,
    pub offset: u32,
}

impl Rows<'_> {
    #[inline(always)]
    fn row(&self, v: u32) -> &[u32] {
        let at = (v - self.offset) as usize * self.degree;
        &self.adjacency[at..at + self.degree]
    }
}

/// A metric's distance as a walk computes it: a type per metric, so that the walk is compiled
/// once per metric and per instruction set with its distance inlined (no call through a
/// pointer per distance). The sums are those of [`Metric::distance`], in the same order: the
/// same distances to the bit.
pub(crate) trait Kernel: Copy {
    fn distance(self, a: &[f32], b: &[f32]) -> f32;
}

/// [`Metric::L2`]'s distance.
#[derive(Clone, Copy)]
pub(crate) struct L2Kernel;

impl Kernel for L2Kernel {
    #[inline(always)]
    fn distance(self, a: &[f32], b: &[f32]) -> f32 {
        l2sq_sums(a, b)
    }
}

/// [`Metric::Ip`]'s and [`Metric::Cos`]'s distance (over prepared rows).
#[derive(Clone, Copy)]
pub(crate) struct DotKernel;

impl Kernel for DotKernel {
    #[inline(always)]
    fn distance(self, a: &[f32], b: &[f32]) -> f32 {
        1.0 - dot_sums(a, b)
    }
}

/// A vector set, its metric and a query: the distances a walk computes.
#[derive(Clone, Copy)]
pub(crate) struct Space<'a> {
    pub base: &'a Vectors,
    pub metric: Metric,
}

impl Space<'_> {
    /// Greedy descent through the `upper` layers (bottom first, as [`ProximityGraph`] holds
    /// them) from vertex 0 of the top one, each step to the strictly nearest out-neighbour
    /// below `limit`: the entry of the layer under them (vertex 0 when there are none).
    pub fn descend(&self, q: &[f32], upper: &[Layer], limit: u32) -> u32 {
        if upper.is_empty() {
            return 0;
        }
        SCRATCH.with_borrow_mut(|scratch| match self.metric {
            Metric::L2 => descend_simd(L2Kernel, self.base, q, upper, limit, scratch),
            Metric::Ip | Metric::Cos => descend_simd(DotKernel, self.base, q, upper, limit, scratch),
        })
    }

    /// The best-first walk from `entry` over `rows`, bound `ef`, into `best`, whose capacity is
    /// [`list_capacity`]`(ef)`.
    pub fn walk(&self, q: &[f32], rows: Rows<'_>, entry: u32, ef: usize, limit: u32, best: &mut Best) {
        self.walk_within(q, rows, entry, ef, list_capacity(ef), limit, best)
    }

    /// [`Space::walk`] with a best list of `capacity` (at least `ef`). Only the first `ef`
    /// entries are ever explored and an entry never moves up, so the walk and the first `ef`
    /// entries are the same for every capacity of at least `ef`; more only keeps more of the
    /// vertices seen (a filter's passing ones, a builder's candidates).
    #[allow(clippy::too_many_arguments)]
    pub fn walk_within(
        &self,
        q: &[f32],
        rows: Rows<'_>,
        entry: u32,
        ef: usize,
        capacity: usize,
        limit: u32,
        best: &mut Best,
    ) {
        debug_assert!(capacity >= ef);
        let bounds = Bounds { entry, ef, capacity, limit };
        SCRATCH.with_borrow_mut(|scratch| match self.metric {
            Metric::L2 => walk_simd(L2Kernel, self.base, q, rows, bounds, best, scratch),
            Metric::Ip | Metric::Cos => walk_simd(DotKernel, self.base, q, rows, bounds, best, scratch),
        })
    }
}

/// Where a walk starts and what bounds it.
#[derive(Clone, Copy)]
struct Bounds {
    entry: u32,
    ef: usize,
    capacity: usize,
    limit: u32,
}

/// Floats in a 64-byte cache line.
const LINE: usize = 16;

/// The distances of `ids` into the first of `distances`. First every cache line of their rows
/// is read, in a loop of one load a line (their XOR is kept, so that the loads stay): the
/// processor then has the misses of all the rows in flight at once, where the distance loop,
/// long for each row, would reach only a row or two ahead. This is what hnswlib's prefetch
/// instructions do (a row ahead), without them and for the whole batch: on 200k × 128 on 2
/// cores, 1.2× the queries a second at the same recall (bench/results/2026-11-29-ann-cpu.md).
/// The distances are then the same as without it.
#[inline(always)]
fn measure<K: Kernel>(kernel: K, base: &Vectors, q: &[f32], ids: &[u32], distances: &mut Vec<f32>) {
    if distances.len() < ids.len() {
        distances.resize(ids.len(), 0.0);
    }
    let mut touched = 0u32;
    for &u in ids {
        for x in base.row(u as usize).iter().step_by(LINE) {
            touched ^= x.to_bits();
        }
    }
    std::hint::black_box(touched);
    for (d, &u) in distances.iter_mut().zip(ids) {
        *d = kernel.distance(q, base.row(u as usize));
    }
}

/// [`Space::descend`], compiled for each instruction set (the widest this processor has runs).
#[multiversion(targets = "simd")]
fn descend_simd<K: Kernel>(
    kernel: K,
    base: &Vectors,
    q: &[f32],
    upper: &[Layer],
    limit: u32,
    scratch: &mut Scratch,
) -> u32 {
    let Scratch { ids, distances, .. } = scratch;
    let mut current = 0u32;
    let mut best = kernel.distance(q, base.row(0));
    for layer in upper.iter().rev() {
        let rows = Rows { adjacency: &layer.adjacency, degree: layer.degree, offset: 0 };
        loop {
            ids.clear();
            for &u in rows.row(current) {
                if u == NONE {
                    break;
                }
                if u < limit {
                    ids.push(u);
                }
            }
            measure(kernel, base, q, ids, distances);
            let mut moved = false;
            for (&u, &d) in ids.iter().zip(distances.iter()) {
                if d < best {
                    best = d;
                    current = u;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
    }
    current
}

/// [`Space::walk_within`], compiled for each instruction set (the widest this processor has
/// runs).
#[multiversion(targets = "simd")]
fn walk_simd<K: Kernel>(
    kernel: K,
    base: &Vectors,
    q: &[f32],
    rows: Rows<'_>,
    bounds: Bounds,
    best: &mut Best,
    scratch: &mut Scratch,
) {
    let Scratch { visited, ids, distances } = scratch;
    let Bounds { entry, ef, capacity, limit } = bounds;
    visited.start(base.len());
    best.clear(capacity);
    visited.first_visit(entry);
    best.offer(kernel.distance(q, base.row(entry as usize)), entry);
    while let Some(v) = best.next(ef) {
        // The unseen neighbours first, then their distances, then the offers: the same offers
        // in the same order as one neighbour at a time.
        // Without a branch on the table's answer, so that the row's lookups, which miss the
        // cache as often as not, are all in flight at once.
        let row = rows.row(v);
        if ids.len() < row.len() {
            ids.resize(row.len(), 0);
        }
        let mut fresh = 0;
        for &u in row {
            if u == NONE {
                break;
            }
            if u < limit {
                ids[fresh] = u;
                fresh += visited.first_visit(u) as usize;
            }
        }
        let ids = &ids[..fresh];
        // The row most likely explored next (unless a nearer vertex comes in now), read now so
        // that its cache miss overlaps these.
        if let Some(w) = best.peek(ef) {
            std::hint::black_box(rows.row(w)[0]);
        }
        measure(kernel, base, q, ids, distances);
        for (&u, &d) in ids.iter().zip(distances.iter()) {
            best.offer(d, u);
        }
    }
}

/// The `k` nearest of `base` (prepared; see [`Metric::prepare`]) to each query, by searching
/// `graph`; internal ids. Under a filter, only passing ids are returned (see `filter`).
pub fn search(
    base: &Vectors,
    metric: Metric,
    graph: &ProximityGraph,
    queries: &Vectors,
    params: SearchParams,
    allowed: Option<&Allowed>,
) -> Result<Neighbours> {
    check_dim(base.dim(), queries.dim(), "the queries")?;
    params.check_against(base.len())?;
    if params.precision != Precision::Single {
        return Err(AnnError::Parameter(format!(
            "the CPU search reads the rows as given; precision '{}' is the GPU search's (--device gpu)",
            params.precision.name()
        )));
    }
    let ef = match route(allowed, params.k, params.ef, graph.base().degree) {
        Route::Brute => return Ok(brute_force(base, metric, queries, params.k, allowed)),
        Route::Graph { ef } => ef,
    };
    let k = params.k;
    let space = Space { base, metric };
    let layer = graph.base();
    let rows = Rows { adjacency: &layer.adjacency, degree: layer.degree, offset: 0 };
    let limit = graph.len() as u32;
    // Unfiltered, the first `k` of the first `ef` entries are the answer, so the list need hold
    // no more (the same answers as the GPU's longer list); a filter keeps every entry it can.
    let capacity = if allowed.is_some() { list_capacity(ef) } else { ef };
    let mut out = Neighbours::empty(queries.len(), k);
    out.ids.par_chunks_mut(k).zip(out.distances.par_chunks_mut(k)).enumerate().for_each_init(
        || Best::new(capacity),
        |best, (q, (ids, distances))| {
            let query = queries.row(q);
            let entry = space.descend(query, &graph.layers[1..], limit);
            space.walk_within(query, rows, entry, ef, capacity, limit, best);
            let passing = best.entries.iter().filter(|e| allowed.is_none_or(|a| a.contains(e.id)));
            for (slot, e) in passing.take(k).enumerate() {
                ids[slot] = e.id;
                distances[slot] = e.distance;
            }
        },
    );
    Ok(out)
}
