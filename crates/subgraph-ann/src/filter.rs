//! Filtered search: the vectors a query may return, as a bitset over the index's own (internal)
//! ids, and the choice between the graph and brute force by how many pass.
//!
//! A graph search under a filter walks every vertex but keeps only passing ones, and widens its
//! exploration bound to `ef / selectivity`; where so few pass that brute force over the passing
//! vectors is cheaper than that walk, the answer is exact brute force. Either way no vector
//! that fails the filter is ever returned.

/// The internal ids a search may return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// Bit `i % 32` of word `i / 32` is set when id `i` passes.
    pub words: Vec<u32>,
    /// Ids that pass.
    pub count: usize,
    /// Ids in all.
    pub len: usize,
}

impl Allowed {
    /// Passing ids are those for which `pass` holds, over `0..len`.
    pub fn from_fn(len: usize, pass: impl Fn(usize) -> bool) -> Self {
        let mut words = vec![0u32; len.div_ceil(32)];
        let mut count = 0;
        for i in 0..len {
            if pass(i) {
                words[i / 32] |= 1 << (i % 32);
                count += 1;
            }
        }
        Allowed { words, count, len }
    }

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.words[i as usize / 32] >> (i % 32) & 1 == 1
    }

    /// The share of ids that pass.
    pub fn selectivity(&self) -> f64 {
        if self.len == 0 {
            0.0
        } else {
            self.count as f64 / self.len as f64
        }
    }

    /// The passing ids, ascending.
    pub fn ids(&self) -> Vec<u32> {
        (0..self.len as u32).filter(|&i| self.contains(i)).collect()
    }
}

/// The widest exploration bound a filtered graph search is given: beyond it brute force over
/// the passing vectors is the cheaper exact answer.
pub const MAX_FILTERED_EF: usize = 1024;

/// How a filtered query is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Graph search with this exploration bound.
    Graph { ef: usize },
    /// Exact brute force over the passing vectors.
    Brute,
}

/// The route of a search for `k` of `allowed` at bound `ef` over a graph of out-degree
/// `degree`: the graph with `ef / selectivity` while that stays under [`MAX_FILTERED_EF`] and
/// costs fewer distances (about `ef' · degree`) than brute force over the passing set.
pub fn route(allowed: Option<&Allowed>, k: usize, ef: usize, degree: usize) -> Route {
    let Some(allowed) = allowed else { return Route::Graph { ef } };
    let s = allowed.selectivity();
    if allowed.count <= k || s == 0.0 {
        return Route::Brute;
    }
    let widened = ((ef as f64 / s).ceil() as usize).max(ef);
    if widened > MAX_FILTERED_EF || widened * degree >= allowed.count {
        Route::Brute
    } else {
        Route::Graph { ef: widened }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_follow_selectivity() {
        let half = Allowed::from_fn(1_000_000, |i| i % 2 == 0);
        assert_eq!(half.count, 500_000);
        assert!(half.contains(4) && !half.contains(5));
        assert_eq!(route(Some(&half), 10, 64, 32), Route::Graph { ef: 128 });
        let tenth = Allowed::from_fn(1_000_000, |i| i % 10 == 0);
        assert_eq!(route(Some(&tenth), 10, 64, 32), Route::Graph { ef: 640 });
        let hundredth = Allowed::from_fn(1_000_000, |i| i % 100 == 0);
        assert_eq!(route(Some(&hundredth), 10, 64, 32), Route::Brute);
        let few = Allowed::from_fn(100, |i| i < 5);
        assert_eq!(route(Some(&few), 10, 64, 32), Route::Brute);
        assert_eq!(route(None, 10, 64, 32), Route::Graph { ef: 64 });
    }
}
