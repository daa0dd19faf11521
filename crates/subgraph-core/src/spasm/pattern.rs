//! The patterns the spasm counts (the query and its quotients) and why a query is declined:
//! what the term sum (`spasm`), the counting plans (`plan`) and the block–cut counts (`hom`)
//! all read, below them.

use crate::bitset::Bitset;
use std::sync::Arc;

/// A labelled pattern: the query or one of its quotients.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub labels: Vec<u32>,
    /// Per vertex: the data vertices it may map to (None: any of its label).
    pub allowed: Vec<Option<Arc<Bitset>>>,
    /// (a, b, edge label): a → b on directed data; at most one edge between two vertices.
    pub edges: Vec<(u32, u32, u32)>,
    pub directed: bool,
}

impl Pattern {
    /// A fingerprint equal for isomorphic patterns (vertex and edge counts, direction, each
    /// vertex's (label, degree) and the edge labels, sorted, mixed into 64 bits), so that only
    /// patterns with equal fingerprints need [`Pattern::isomorphic`]'s search; None for a
    /// pattern with restricted vertices, which is isomorphic to none.
    pub fn invariant(&self) -> Option<u64> {
        if self.allowed.iter().any(Option::is_some) {
            return None;
        }
        let n = self.labels.len();
        let mut degree = vec![0u64; n];
        for &(a, b, _) in &self.edges {
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        let mut vertices: Vec<u64> = (0..n).map(|v| (self.labels[v] as u64) << 32 | degree[v]).collect();
        vertices.sort_unstable();
        let mut edge_labels: Vec<u64> = self.edges.iter().map(|e| e.2 as u64).collect();
        edge_labels.sort_unstable();
        let mix = |h: u64, x: u64| (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(29);
        let head = [n as u64, self.edges.len() as u64, u64::from(self.directed)];
        Some(head.into_iter().chain(vertices).chain(edge_labels).fold(0xcbf2_9ce4_8422_2325, mix))
    }

    /// Whether `other` is this pattern with its vertices renamed: labels, edges, their labels
    /// and directions kept. Patterns with restricted vertices are never taken as equal.
    pub fn isomorphic(&self, other: &Pattern) -> bool {
        let n = self.labels.len();
        if n != other.labels.len() || self.edges.len() != other.edges.len() || self.directed != other.directed {
            return false;
        }
        if self.allowed.iter().chain(&other.allowed).any(Option::is_some) {
            return false;
        }
        let matrix = |p: &Pattern| {
            let mut m = vec![None; n * n];
            let mut degree = vec![0usize; n];
            for &(a, b, l) in &p.edges {
                m[a as usize * n + b as usize] = Some(l);
                if !p.directed {
                    m[b as usize * n + a as usize] = Some(l);
                }
                degree[a as usize] += 1;
                degree[b as usize] += 1;
            }
            (m, degree)
        };
        let (ma, da) = matrix(self);
        let (mb, db) = matrix(other);
        let signature = |labels: &[u32], d: &[usize]| {
            let mut s: Vec<(u32, usize)> = labels.iter().copied().zip(d.iter().copied()).collect();
            s.sort_unstable();
            s
        };
        if signature(&self.labels, &da) != signature(&other.labels, &db) {
            return false;
        }
        fn extend(
            v: usize,
            map: &mut Vec<usize>,
            used: &mut [bool],
            fits: &impl Fn(usize, usize, &[usize]) -> bool,
        ) -> bool {
            if v == used.len() {
                return true;
            }
            for t in 0..used.len() {
                if !used[t] && fits(v, t, map) {
                    used[t] = true;
                    map.push(t);
                    if extend(v + 1, map, used, fits) {
                        return true;
                    }
                    map.pop();
                    used[t] = false;
                }
            }
            false
        }
        let fits = |v: usize, t: usize, map: &[usize]| {
            self.labels[v] == other.labels[t]
                && da[v] == db[t]
                && map
                    .iter()
                    .enumerate()
                    .all(|(i, &mi)| ma[i * n + v] == mb[mi * n + t] && ma[v * n + i] == mb[t * n + mi])
        };
        extend(0, &mut Vec::with_capacity(n), &mut vec![false; n], &fits)
    }
}

/// Why a query is not counted this way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declined {
    /// More vertices than [`MAX_VERTICES`](super::MAX_VERTICES), more quotients than
    /// [`MAX_TERMS`](super::MAX_TERMS), several components, or two vertices joined in both
    /// directions.
    Shape,
    /// A quotient whose blocks `hom` cannot count (no small vertex set leaves a forest).
    Block,
    /// A count beyond 2^128 − 1, or scratch memory beyond the host's.
    Size,
    /// The control (deadline, Ctrl-C, a trial's budget) stopped it.
    Stopped,
}
