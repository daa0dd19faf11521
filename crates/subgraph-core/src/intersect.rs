//! Sorted-set intersection for local candidates: a branch-light merge for lists of similar
//! size and galloping (exponential search) when one list is much shorter (Sun & Luo §6,
//! "LFTJ-style" set intersection).

/// Size ratio above which galloping beats merging.
const GALLOP_RATIO: usize = 32;

/// Writes a ∩ b into `out` (cleared first).
#[inline]
pub fn intersect_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() {
        return;
    }
    if large.len() / small.len() >= GALLOP_RATIO {
        gallop(small, large, out);
    } else {
        merge(small, large, out);
    }
}

/// Keeps in `acc` only elements also in `b`.
#[inline]
pub fn intersect_in_place(acc: &mut Vec<u32>, b: &[u32], scratch: &mut Vec<u32>) {
    intersect_into(acc, b, scratch);
    std::mem::swap(acc, scratch);
}

#[inline]
fn merge(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.reserve(a.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x == y {
            out.push(x);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}

#[inline]
fn gallop(small: &[u32], large: &[u32], out: &mut Vec<u32>) {
    let mut base = 0;
    for &x in small {
        let rest = &large[base..];
        let mut step = 1;
        while step < rest.len() && rest[step] < x {
            step *= 2;
        }
        let hi = (step + 1).min(rest.len());
        let lo = step / 2;
        match rest[lo..hi].binary_search(&x) {
            Ok(k) => {
                out.push(x);
                base += lo + k + 1;
            }
            Err(k) => base += lo + k,
        }
        if base >= large.len() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn equals_naive(mut a in proptest::collection::vec(0u32..2000, 0..300), mut b in proptest::collection::vec(0u32..2000, 0..5)) {
            a.sort_unstable(); a.dedup(); b.sort_unstable(); b.dedup();
            let expect: Vec<u32> = a.iter().copied().filter(|x| b.contains(x)).collect();
            let mut out = Vec::new();
            intersect_into(&a, &b, &mut out);
            prop_assert_eq!(&out, &expect);
            intersect_into(&b, &a, &mut out);
            prop_assert_eq!(&out, &expect);
            let mut m = Vec::new();
            merge(&a, &b, &mut m);
            prop_assert_eq!(&m, &expect);
        }
    }
}
