//! Counting a tail of pairwise non-adjacent query vertices without enumerating it (the "leaf"
//! decomposition of DecoMine, Light and GraphPi). Once every neighbour of the tail vertices is
//! matched, vertex i may take any vertex of a fixed set S_i, and the matches of the tail are the
//! injective choices: per group of tail vertices sharing a label (other groups cannot collide),
//! by inclusion–exclusion over set partitions π of the group,
//!
//! ```text
//! Σ_π Π_{B ∈ π} (−1)^{|B|−1} (|B|−1)! · |∩_{i∈B} S_i|,
//! ```
//!
//! evaluated as a recurrence over subsets (3^m terms for a group of m). Under `homomorphism`
//! the choices need not be distinct and the count is the product of the set sizes.

use crate::intersect::intersect_into;

/// Most vertices of one label group a tail may hold.
pub const MAX_GROUP: usize = 5;

/// Most vertices a tail may hold.
pub const MAX_TAIL: usize = 8;

/// The tail positions `positions` grouped by `label` (vertices of different labels never take
/// the same data vertex, so each group is counted apart and the counts multiplied), in order.
pub fn label_groups<L: PartialEq>(positions: std::ops::Range<usize>, label: impl Fn(usize) -> L) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for t in positions {
        match groups.iter_mut().find(|g| label(g[0]) == label(t)) {
            Some(g) => g.push(t),
            None => groups.push(vec![t]),
        }
    }
    groups
}

/// Reusable buffers of [`distinct_choices`].
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    lists: Vec<Vec<u32>>,
    sizes: Vec<i128>,
    ways: Vec<i128>,
}

/// The number of ways to give each of the query vertices of one group a distinct data vertex,
/// vertex i one of `sets[i]` (sorted, without the data vertices already used), and the work
/// it took (list elements merged). At most [`MAX_GROUP`] sets.
pub fn distinct_choices<S: AsRef<[u32]>>(sets: &[S], scratch: &mut Scratch) -> (u128, u64) {
    let m = sets.len();
    assert!((1..=MAX_GROUP).contains(&m), "a tail group holds 1 to {MAX_GROUP} vertices");
    if m == 1 {
        return (sets[0].as_ref().len() as u128, 0);
    }
    let full = (1usize << m) - 1;
    let Scratch { lists, sizes, ways } = scratch;
    lists.resize_with(full + 1, Vec::new);
    sizes.clear();
    sizes.resize(full + 1, 0);
    let mut work = 0u64;
    // |∩_B S_i| for every B: the intersection of B without its highest member, with that member.
    for (mask, size) in sizes.iter_mut().enumerate().skip(1) {
        let high = usize::BITS as usize - 1 - mask.leading_zeros() as usize;
        let rest = mask & !(1 << high);
        if rest == 0 {
            *size = sets[high].as_ref().len() as i128;
            continue;
        }
        let (head, tail) = lists.split_at_mut(mask);
        let out = &mut tail[0];
        let base: &[u32] =
            if rest.count_ones() == 1 { sets[rest.trailing_zeros() as usize].as_ref() } else { &head[rest] };
        if base.is_empty() {
            out.clear();
        } else {
            let top = sets[high].as_ref();
            work += (base.len() + top.len()) as u64;
            intersect_into(base, top, out);
        }
        *size = out.len() as i128;
    }
    // ways[mask]: injective choices for the vertices of mask. The block holding mask's lowest
    // member a is B (a ∈ B ⊆ mask), weighted (−1)^{|B|−1} (|B|−1)!.
    ways.clear();
    ways.resize(full + 1, 0);
    ways[0] = 1;
    for mask in 1..=full {
        let a = mask & mask.wrapping_neg();
        let others = mask ^ a;
        let mut total = 0i128;
        let mut sub = others;
        loop {
            let block = sub | a;
            let k = block.count_ones() as usize;
            let weight = FACTORIAL[k - 1] * if k % 2 == 1 { 1 } else { -1 };
            total += weight * sizes[block] * ways[mask ^ block];
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & others;
        }
        ways[mask] = total;
    }
    debug_assert!(ways[full] >= 0);
    (ways[full].max(0) as u128, work)
}

const FACTORIAL: [i128; MAX_GROUP] = [1, 1, 2, 6, 24];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Injective choices by enumeration.
    fn brute(sets: &[Vec<u32>], i: usize, used: &mut Vec<u32>) -> u128 {
        if i == sets.len() {
            return 1;
        }
        let mut total = 0;
        for &v in &sets[i] {
            if !used.contains(&v) {
                used.push(v);
                total += brute(sets, i + 1, used);
                used.pop();
            }
        }
        total
    }

    proptest! {
        #[test]
        fn equals_enumeration(raw in proptest::collection::vec(proptest::collection::btree_set(0u32..12, 0..9), 1..=MAX_GROUP)) {
            let sets: Vec<Vec<u32>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            let refs: Vec<&[u32]> = sets.iter().map(Vec::as_slice).collect();
            let (got, _) = distinct_choices(&refs, &mut Scratch::default());
            prop_assert_eq!(got, brute(&sets, 0, &mut Vec::new()));
        }
    }

    #[test]
    fn falling_factorial_on_equal_sets() {
        let s: Vec<u32> = (0..10).collect();
        let refs = vec![s.as_slice(); 5];
        assert_eq!(distinct_choices(&refs, &mut Scratch::default()).0, 10 * 9 * 8 * 7 * 6);
    }
}
