//! The answer of a k-NN search: for each query its `k` nearest ids and their distances, nearest
//! first, as two row-major `(queries, k)` arrays, the way hnswlib and faiss return them. Where
//! fewer than `k` vectors could be returned (a filter that passes fewer), the rest of the row is
//! [`NONE`] with distance infinity. Also recall@k against ground truth.

use crate::error::{AnnError, Result};
use crate::graph::NONE;
use rayon::prelude::*;

/// Ids a task of [`Neighbours::map_ids`] maps.
const MAP_CHUNK: usize = 1 << 12;

/// The precision of the base rows a graph search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// The rows as given (32-bit floats).
    #[default]
    Single,
    /// IEEE half precision (the GPU search only): half the bytes a row, so about half the
    /// memory traffic. The search walks the graph by half-precision distances, then ranks the
    /// first `ef` it found again by their full-precision distances, so the distances it
    /// returns are exact; which vectors it finds may differ (recall is measured, as always).
    Half,
}

impl Precision {
    pub const ALL: [Precision; 2] = [Precision::Single, Precision::Half];

    pub fn name(self) -> &'static str {
        match self {
            Precision::Single => "single",
            Precision::Half => "half",
        }
    }

    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            AnnError::Parameter(format!("unknown precision '{name}': the rows are read in 'single' or 'half'"))
        })
    }
}

/// What one search may be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchParams {
    /// Neighbours returned per query.
    pub k: usize,
    /// The exploration bound (the thesis' `e`, hnswlib's `ef`): how many of the best found so
    /// far are explored; at least `k`.
    pub ef: usize,
    /// The precision of the rows the graph search reads.
    pub precision: Precision,
}

impl SearchParams {
    /// `ef` defaults to the larger of `k` and 64; rows are read as given.
    pub fn new(k: usize, ef: Option<usize>) -> Result<Self> {
        let ef = ef.unwrap_or(k.max(64));
        if k == 0 {
            return Err(AnnError::Parameter("k must be at least 1".into()));
        }
        if ef < k {
            return Err(AnnError::Parameter(format!("ef {ef} is smaller than k {k}")));
        }
        Ok(SearchParams { k, ef, precision: Precision::Single })
    }

    /// These parameters, the rows read in `precision`.
    pub fn with_precision(self, precision: Precision) -> Self {
        SearchParams { precision, ..self }
    }

    /// Refuses `k` beyond the `n` vectors of the index.
    pub fn check_against(&self, n: usize) -> Result<()> {
        if self.k > n {
            return Err(AnnError::Parameter(format!("k {} is larger than the {n} vectors of the index", self.k)));
        }
        Ok(())
    }
}

/// `k` neighbours per query, nearest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbours {
    pub k: usize,
    /// `queries × k` ids.
    pub ids: Vec<u32>,
    /// `queries × k` distances.
    pub distances: Vec<f32>,
}

impl Neighbours {
    /// Rows of `k` [`NONE`]s at distance infinity.
    pub fn empty(queries: usize, k: usize) -> Self {
        Neighbours { k, ids: vec![NONE; queries * k], distances: vec![f32::INFINITY; queries * k] }
    }

    pub fn queries(&self) -> usize {
        self.ids.len().checked_div(self.k).unwrap_or(0)
    }

    pub fn ids_of(&self, q: usize) -> &[u32] {
        &self.ids[q * self.k..(q + 1) * self.k]
    }

    pub fn distances_of(&self, q: usize) -> &[f32] {
        &self.distances[q * self.k..(q + 1) * self.k]
    }

    /// Replaces every id by `map[id]` (internal ids to the caller's), keeping [`NONE`]. The
    /// reads of `map` land at random, each a cache and TLB miss on a large set, so a large
    /// answer (a batch's) is mapped on every core; a small one (a single query's) in place,
    /// without waking the pool.
    pub fn map_ids(&mut self, map: &[u32]) {
        let one = |ids: &mut [u32]| {
            for id in ids {
                if *id != NONE {
                    *id = map[*id as usize];
                }
            }
        };
        if self.ids.len() < MAP_CHUNK {
            one(&mut self.ids);
        } else {
            self.ids.par_chunks_mut(MAP_CHUNK).for_each(one);
        }
    }
}

/// Recall@k: the share of the first `k` ids of each truth row found among the first `k` ids of
/// the answer's row, averaged over queries. `truth` has `truth_k ≥ k` ids a row.
pub fn recall(found: &Neighbours, truth: &[u32], truth_k: usize, k: usize) -> Result<f64> {
    if k == 0 || k > found.k || k > truth_k {
        return Err(AnnError::Parameter(format!(
            "recall@{k} needs {k} ids a row; the answer has {}, the ground truth {truth_k}",
            found.k
        )));
    }
    let queries = found.queries();
    if truth.len() != queries * truth_k {
        return Err(AnnError::Parameter(format!(
            "the ground truth has {} rows, the queries are {queries}",
            truth.len() / truth_k
        )));
    }
    let mut hits = 0usize;
    for q in 0..queries {
        let want = &truth[q * truth_k..q * truth_k + k];
        hits += found.ids_of(q)[..k].iter().filter(|id| **id != NONE && want.contains(id)).count();
    }
    Ok(hits as f64 / (queries * k).max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_counts_shared_ids() {
        let found = Neighbours { k: 2, ids: vec![1, 2, 3, NONE], distances: vec![0.0; 4] };
        assert_eq!(recall(&found, &[2, 1, 4, 3], 2, 2).unwrap(), 0.75);
        assert_eq!(recall(&found, &[2, 1, 4, 3], 2, 1).unwrap(), 0.0);
        assert!(recall(&found, &[2, 1], 2, 2).is_err());
        assert!(SearchParams::new(10, Some(5)).is_err());
        assert!(SearchParams::new(10, None).unwrap().check_against(9).is_err());
    }

    #[test]
    fn ids_are_mapped_in_place_and_on_every_core_alike() {
        let map: Vec<u32> = (0..50_000u32).map(|i| (i * 7_919) % 50_000).collect();
        for len in [10, MAP_CHUNK - 1, MAP_CHUNK, 3 * MAP_CHUNK + 5] {
            let ids: Vec<u32> = (0..len as u32).map(|i| if i % 13 == 5 { NONE } else { (i * 31) % 50_000 }).collect();
            let want: Vec<u32> = ids.iter().map(|&i| if i == NONE { NONE } else { map[i as usize] }).collect();
            let mut found = Neighbours { k: 1, distances: vec![0.0; len], ids };
            found.map_ids(&map);
            assert_eq!(found.ids, want, "{len} ids");
        }
    }
}
