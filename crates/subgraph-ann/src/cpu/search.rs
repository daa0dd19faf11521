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

use rayon::prelude::*;

use crate::brute::brute_force;
use crate::error::Result;
use crate::filter::{route, Allowed, Route};
use crate::graph::{Layer, ProximityGraph, NONE};
use crate::neighbours::{Neighbours, SearchParams};
use crate::vectors::{check_dim, Metric, Vectors};

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

/// Vertices seen by the current walk, by epoch so that a new walk costs nothing to start.
pub(crate) struct Visited {
    tags: Vec<u32>,
    epoch: u32,
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
    #[inline]
    fn first_visit(&mut self, v: u32) -> bool {
        let tag = &mut self.tags[v as usize];
        let new = *tag != self.epoch;
        *tag = self.epoch;
        new
    }
}

thread_local! {
    static VISITED: RefCell<Visited> = RefCell::new(Visited::new());
}

/// Rows of fixed width over a slice of an adjacency array whose first row is vertex `offset`.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a> {
    pub adjacency: &'a [u32],
    pub degree: usize,
    pub offset: u32,
}

impl Rows<'_> {
    #[inline]
    fn row(&self, v: u32) -> &[u32] {
        let at = (v - self.offset) as usize * self.degree;
        &self.adjacency[at..at + self.degree]
    }
}

/// A vector set, its metric and a query: the distances a walk computes.
#[derive(Clone, Copy)]
pub(crate) struct Space<'a> {
    pub base: &'a Vectors,
    pub metric: Metric,
}

impl Space<'_> {
    #[inline]
    fn distance(&self, q: &[f32], v: u32) -> f32 {
        self.metric.distance(q, self.base.row(v as usize))
    }

    /// Greedy descent through the `upper` layers (bottom first, as [`ProximityGraph`] holds
    /// them) from vertex 0 of the top one, each step to the strictly nearest out-neighbour
    /// below `limit`: the entry of the layer under them (vertex 0 when there are none).
    pub fn descend(&self, q: &[f32], upper: &[Layer], limit: u32) -> u32 {
        let mut current = 0u32;
        if upper.is_empty() {
            return current;
        }
        let mut best = self.distance(q, current);
        let mut batch = Batch::new();
        for layer in upper.iter().rev() {
            let rows = Rows { adjacency: &layer.adjacency, degree: layer.degree, offset: 0 };
            loop {
                let row = rows.row(current);
                let mut moved = false;
                let mut step = |batch: &mut Batch| {
                    self.distances(q, batch);
                    for (&u, &d) in batch.ids().iter().zip(batch.distances()) {
                        if d < best {
                            best = d;
                            current = u;
                            moved = true;
                        }
                    }
                    batch.clear();
                };
                for &u in row {
                    if u == NONE {
                        break;
                    }
                    if u < limit && batch.push(u) {
                        step(&mut batch);
                    }
                }
                step(&mut batch);
                if !moved {
                    break;
                }
            }
        }
        current
    }

    /// The distances of the batch's vertices, one after another with nothing between them but
    /// the loop: their rows' loads are independent, so the processor overlaps the cache misses
    /// of several rows (what hnswlib's prefetch instructions do, without them).
    #[inline]
    fn distances(&self, q: &[f32], batch: &mut Batch) {
        let Batch { ids, distances, len } = batch;
        for (d, &u) in distances[..*len].iter_mut().zip(&ids[..*len]) {
            *d = self.distance(q, u);
        }
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
        VISITED.with_borrow_mut(|visited| {
            visited.start(self.base.len());
            best.clear(capacity);
            visited.first_visit(entry);
            best.offer(self.distance(q, entry), entry);
            let mut batch = Batch::new();
            let offer = |batch: &mut Batch, best: &mut Best| {
                self.distances(q, batch);
                for (&u, &d) in batch.ids().iter().zip(batch.distances()) {
                    best.offer(d, u);
                }
                batch.clear();
            };
            while let Some(v) = best.next(ef) {
                // The unseen neighbours first, then their distances, then the offers: the same
                // offers in the same order as one neighbour at a time.
                for &u in rows.row(v) {
                    if u == NONE {
                        break;
                    }
                    if u < limit && visited.first_visit(u) && batch.push(u) {
                        offer(&mut batch, best);
                    }
                }
                offer(&mut batch, best);
            }
        })
    }
}

/// Vertices of one row whose distances are computed together (up to [`BATCH`] at a time),
/// with their distances.
struct Batch {
    ids: [u32; BATCH],
    distances: [f32; BATCH],
    len: usize,
}

/// Rows are taken in batches of at most this many vertices.
const BATCH: usize = 64;

impl Batch {
    fn new() -> Self {
        Batch { ids: [0; BATCH], distances: [0.0; BATCH], len: 0 }
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds `u`; whether the batch is now full.
    #[inline]
    fn push(&mut self, u: u32) -> bool {
        self.ids[self.len] = u;
        self.len += 1;
        self.len == BATCH
    }

    fn ids(&self) -> &[u32] {
        &self.ids[..self.len]
    }

    fn distances(&self) -> &[f32] {
        &self.distances[..self.len]
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
