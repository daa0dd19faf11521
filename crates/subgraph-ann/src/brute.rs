//! Exact k-NN by brute force on every core: the ground truth that recall is measured against,
//! and the answer of a filtered query whose filter passes too few vectors for a graph walk
//! (see `filter`). Queries are taken in tiles against tiles of base rows, so that a base row is
//! read from cache once per tile of queries rather than once per query. Ties go to the smaller
//! id.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::filter::Allowed;
use crate::neighbours::Neighbours;
use crate::vectors::{Metric, Vectors};

/// Queries a tile takes together.
const QUERY_TILE: usize = 32;
/// Base rows a tile takes together.
const BASE_TILE: usize = 256;

/// A candidate ordered by (distance, id): the heap's top is the worst kept.
#[derive(Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub distance: f32,
    pub id: u32,
}

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.distance.total_cmp(&other.distance).then(self.id.cmp(&other.id))
    }
}

/// The `k` nearest rows of `base` to each query (rows of a prepared set; see
/// [`Metric::prepare`]), only rows that `allowed` passes when given. Rows of the answer hold
/// fewer than `k` ids (padded) only where fewer rows pass.
pub fn brute_force(
    base: &Vectors,
    metric: Metric,
    queries: &Vectors,
    k: usize,
    allowed: Option<&Allowed>,
) -> Neighbours {
    let mut out = Neighbours::empty(queries.len(), k);
    let candidates: Vec<u32> = match allowed {
        Some(a) => a.ids(),
        None => (0..base.len() as u32).collect(),
    };
    out.ids.par_chunks_mut(QUERY_TILE * k).zip(out.distances.par_chunks_mut(QUERY_TILE * k)).enumerate().for_each(
        |(tile, (ids, distances))| {
            let first = tile * QUERY_TILE;
            let count = ids.len() / k;
            let mut heaps: Vec<BinaryHeap<Scored>> = (0..count).map(|_| BinaryHeap::with_capacity(k + 1)).collect();
            for block in candidates.chunks(BASE_TILE) {
                for (j, heap) in heaps.iter_mut().enumerate() {
                    let q = queries.row(first + j);
                    for &id in block {
                        let distance = metric.distance(q, base.row(id as usize));
                        let s = Scored { distance, id };
                        if heap.len() < k {
                            heap.push(s);
                        } else if s < *heap.peek().expect("k > 0") {
                            heap.pop();
                            heap.push(s);
                        }
                    }
                }
            }
            for (j, heap) in heaps.into_iter().enumerate() {
                for (slot, s) in heap.into_sorted_vec().into_iter().enumerate() {
                    ids[j * k + slot] = s.id;
                    distances[j * k + slot] = s.distance;
                }
            }
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::NONE;

    #[test]
    fn nearest_first_ties_by_id_and_filtered() {
        let base = Vectors::new(1, vec![5.0, 1.0, 3.0, 1.0, 9.0]).unwrap();
        let q = Vectors::new(1, vec![2.0, 8.0]).unwrap();
        let all = brute_force(&base, Metric::L2, &q, 3, None);
        assert_eq!(all.ids_of(0), &[1, 2, 3]);
        assert_eq!(all.distances_of(0), &[1.0, 1.0, 1.0]);
        assert_eq!(all.ids_of(1), &[4, 0, 2]);
        let odd = Allowed::from_fn(5, |i| i % 2 == 1);
        let some = brute_force(&base, Metric::L2, &q, 3, Some(&odd));
        assert_eq!(some.ids_of(0), &[1, 3, NONE]);
        assert_eq!(some.distances_of(0)[2], f32::INFINITY);
    }
}
