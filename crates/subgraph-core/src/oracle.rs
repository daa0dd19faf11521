//! A brute-force reference matcher: plain backtracking over query vertices in id order, every
//! constraint checked against the data graph directly. Slow and obviously right; the tests'
//! oracle for every engine, filter, order and semantics.

use crate::graph::{Dir, Graph};
use crate::query::{Query, Semantics};

/// Number of matches of `query` in `data` under `semantics`.
pub fn count(data: &Graph, query: &Query, semantics: Semantics) -> u128 {
    let mut m = vec![u32::MAX; query.num_vertices()];
    extend(data, query, semantics, &mut m, 0)
}

/// Every match, as the data vertex of each query vertex, in lexicographic order.
pub fn all(data: &Graph, query: &Query, semantics: Semantics) -> Vec<Vec<u32>> {
    let mut m = vec![u32::MAX; query.num_vertices()];
    let mut out = Vec::new();
    collect(data, query, semantics, &mut m, 0, &mut out);
    out
}

fn fits(data: &Graph, query: &Query, semantics: Semantics, m: &[u32], u: usize, v: u32) -> bool {
    if data.label(v) != query.label(u as u32) || !query.allows(u as u32, v) {
        return false;
    }
    for (w, &mw) in m.iter().enumerate().take(u) {
        if semantics.injective() && mw == v {
            return false;
        }
        for (dir, a, b) in [(Dir::Out, mw, v), (Dir::In, v, mw)] {
            if dir == Dir::In && !data.is_directed() {
                continue;
            }
            // Query edge from w in direction `dir` to u, and data edge a→b.
            let q = query.edge(w as u32, u as u32, dir).map(|e| e.label);
            let d = data.edge_label(a, b);
            match (q, d) {
                (Some(ql), Some(dl)) if ql == dl => {}
                (Some(_), _) => return false,
                (None, Some(_)) if semantics == Semantics::Induced => return false,
                (None, _) => {}
            }
        }
    }
    true
}

fn extend(data: &Graph, query: &Query, semantics: Semantics, m: &mut [u32], u: usize) -> u128 {
    if u == m.len() {
        return 1;
    }
    let mut total = 0;
    for v in 0..data.num_vertices() as u32 {
        if fits(data, query, semantics, m, u, v) {
            m[u] = v;
            total += extend(data, query, semantics, m, u + 1);
        }
    }
    m[u] = u32::MAX;
    total
}

fn collect(data: &Graph, query: &Query, semantics: Semantics, m: &mut [u32], u: usize, out: &mut Vec<Vec<u32>>) {
    if u == m.len() {
        out.push(m.to_vec());
        return;
    }
    for v in 0..data.num_vertices() as u32 {
        if fits(data, query, semantics, m, u, v) {
            m[u] = v;
            collect(data, query, semantics, m, u + 1, out);
        }
    }
    m[u] = u32::MAX;
}
