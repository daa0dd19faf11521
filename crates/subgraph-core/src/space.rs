//! The candidate space: for every plan link (p → i) and every candidate of position p, the
//! sorted indices of the candidates of position i adjacent to it (CFL's CPI, DP-iso's candidate
//! space, Sun & Luo §4.3). The CPU engine intersects these lists instead of the data graph.

use crate::graph::Graph;
use crate::plan::Plan;
use crate::sink::Control;
use rayon::prelude::*;

/// Candidate edges of one link: targets[offsets[a]..offsets[a+1]] for candidate index a.
#[derive(Debug, Clone, Default)]
pub struct Edges {
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl Edges {
    #[inline]
    pub fn of(&self, a: u32) -> &[u32] {
        let s = self.offsets[a as usize] as usize;
        let e = self.offsets[a as usize + 1] as usize;
        &self.targets[s..e]
    }

    fn memory_bytes(&self) -> u64 {
        (self.offsets.len() * 8 + self.targets.len() * 4) as u64
    }
}

/// Candidate edges for every link of a plan, in the plan's link order.
#[derive(Debug, Clone, Default)]
pub struct CandidateSpace {
    pub links: Vec<Vec<Edges>>,
}

/// Candidates per parallel work item.
const CHUNK: usize = 1024;

impl CandidateSpace {
    /// The space of `plan`; None when `control` stops the build (it is asked once per piece of
    /// `CHUNK` candidates).
    pub fn build(data: &Graph, plan: &Plan, control: &Control) -> Option<CandidateSpace> {
        if plan.empty {
            return Some(CandidateSpace { links: plan.backward.iter().map(|_| Vec::new()).collect() });
        }
        // index_of[v] = 1 + index of v in the current position's candidates, 0 if absent.
        let mut index_of = vec![0u32; data.num_vertices()];
        let mut links = Vec::with_capacity(plan.len());
        for (i, back) in plan.backward.iter().enumerate() {
            let targets = &plan.candidates[i];
            targets.iter().enumerate().for_each(|(j, &v)| index_of[v as usize] = j as u32 + 1);
            let idx = &index_of;
            let edges = back
                .iter()
                .map(|link| {
                    let sources = &plan.candidates[link.from];
                    let chunks: Vec<(Vec<u64>, Vec<u32>)> = sources
                        .par_chunks(CHUNK)
                        .map(|chunk| {
                            let mut counts = Vec::with_capacity(chunk.len());
                            let mut out = Vec::new();
                            if control.should_stop() {
                                return (counts, out);
                            }
                            for &v in chunk {
                                let before = out.len();
                                for &w in data.neighbors_by_pair(v, link.dir, link.pair) {
                                    let j = idx[w as usize];
                                    if j != 0 {
                                        out.push(j - 1);
                                    }
                                }
                                counts.push((out.len() - before) as u64);
                            }
                            (counts, out)
                        })
                        .collect();
                    let mut offsets = Vec::with_capacity(sources.len() + 1);
                    offsets.push(0u64);
                    let mut all = Vec::with_capacity(chunks.iter().map(|c| c.1.len()).sum());
                    for (counts, out) in chunks {
                        for c in counts {
                            offsets.push(offsets.last().expect("non-empty") + c);
                        }
                        all.extend_from_slice(&out);
                    }
                    Edges { offsets, targets: all }
                })
                .collect();
            targets.iter().for_each(|&v| index_of[v as usize] = 0);
            if control.should_stop() {
                return None;
            }
            links.push(edges);
        }
        Some(CandidateSpace { links })
    }

    /// An upper bound of the bytes [`CandidateSpace::build`] allocates for `plan`. With
    /// `exact`, every neighbour in a link's group counts as a candidate edge; without, every
    /// neighbour in the link's direction does (looser, but one subtraction per candidate).
    pub fn estimate_bytes(data: &Graph, plan: &Plan, exact: bool) -> u64 {
        if plan.empty {
            return 0;
        }
        plan.backward
            .iter()
            .flatten()
            .map(|link| {
                let sources = &plan.candidates[link.from];
                let targets: u64 = sources
                    .par_iter()
                    .with_min_len(CHUNK)
                    .map(|&v| match exact {
                        true => data.neighbors_by_pair(v, link.dir, link.pair).len() as u64,
                        false => data.degree(v, link.dir) as u64,
                    })
                    .sum();
                (sources.len() as u64 + 1) * 8 + targets * 4
            })
            .sum()
    }

    /// The longest candidate-edge list of every link of every position (0 where a position
    /// has no links).
    pub fn longest_lists(&self) -> Vec<Vec<u64>> {
        self.links
            .iter()
            .map(|edges| edges.iter().map(|e| e.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)).collect())
            .collect()
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> u64 {
        self.links.iter().flatten().map(Edges::memory_bytes).sum()
    }

    /// Number of candidate edges.
    pub fn edge_count(&self) -> u64 {
        self.links.iter().flatten().map(|e| e.targets.len() as u64).sum()
    }
}
