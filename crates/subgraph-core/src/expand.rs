//! What one found match becomes when matches are written (the other half of symmetry breaking,
//! Grochow & Kellis' restrictions): the embeddings f∘σ it stands for, one per automorphism σ
//! behind the plan's restrictions, each as the data vertex of every query vertex. The
//! automorphisms are listed once, as columns to read, when there are at most
//! [`LISTED_EXPANSIONS`]; past that they are walked for every match. Every engine's writer
//! shares it: the CPU's workers, the GPU's downloaded tables and the cluster's last step.

use crate::automorphism::Automorphisms;
use crate::plan::Plan;

/// Automorphisms [`Expand`] lists rather than walks for every match.
pub const LISTED_EXPANSIONS: u128 = 1 << 12;

/// How a match, given as a row of data vertices by plan position, becomes embeddings.
pub struct Expand {
    /// Embeddings per row: the plan's multiplier.
    per_row: u64,
    /// Per listed automorphism, the row's column of each query vertex.
    listed: Vec<Vec<usize>>,
    /// Where there are too many to list: the group, and the column of each query vertex.
    walked: Option<(Automorphisms, Vec<usize>)>,
}

impl Expand {
    /// Rows whose column `position[u]` holds query vertex u's match, one embedding each.
    pub fn columns(position: Vec<usize>) -> Expand {
        Expand { per_row: 1, listed: vec![position], walked: None }
    }

    /// Rows whose column `position[u]` holds query vertex u's match, each standing for
    /// `multiplier` embeddings, one per automorphism of `symmetry`'s restricting steps.
    pub fn new(position: Vec<usize>, symmetry: Option<&Automorphisms>, multiplier: u128) -> Expand {
        match symmetry {
            None => Expand::columns(position),
            Some(aut) if multiplier <= LISTED_EXPANSIONS => {
                let mut listed = Vec::new();
                aut.for_each(|sigma| {
                    listed.push(sigma.iter().map(|&s| position[s as usize]).collect());
                    true
                });
                Expand { per_row: listed.len() as u64, listed, walked: None }
            }
            Some(aut) => Expand {
                per_row: u64::try_from(multiplier).unwrap_or(u64::MAX),
                listed: Vec::new(),
                walked: Some((aut.clone(), position)),
            },
        }
    }

    /// The rows of `plan`: position p holds the match of `plan.vertices[p]`.
    pub fn of(plan: &Plan) -> Expand {
        let mut position = vec![0; plan.len()];
        plan.vertices.iter().enumerate().for_each(|(p, &u)| position[u as usize] = p);
        Expand::new(position, plan.symmetry.as_ref(), plan.multiplier)
    }

    /// Embeddings each row stands for.
    pub fn per_row(&self) -> u64 {
        self.per_row
    }

    /// Per embedding of a row, in [`Expand::each`]'s order, the row's column of each query
    /// vertex; None where the automorphisms are walked rather than listed.
    pub fn listed(&self) -> Option<&[Vec<usize>]> {
        self.walked.is_none().then_some(&self.listed[..])
    }

    /// Calls `f` with the embeddings `skip..` of `row` (at most `take`), in order, each written
    /// into `embedding` (one data vertex per query vertex); stops when `f` returns false, and
    /// returns whether it never did.
    pub fn each(
        &self,
        row: &[u32],
        skip: u64,
        take: u64,
        embedding: &mut [u32],
        mut f: impl FnMut(&[u32]) -> bool,
    ) -> bool {
        match &self.walked {
            None => {
                let start = (skip as usize).min(self.listed.len());
                let end = (skip.saturating_add(take) as usize).min(self.listed.len());
                for columns in &self.listed[start..end] {
                    embedding.iter_mut().zip(columns).for_each(|(e, &c)| *e = row[c]);
                    if !f(embedding) {
                        return false;
                    }
                }
                true
            }
            Some((aut, position)) => {
                let (mut k, end) = (0u64, skip.saturating_add(take));
                let mut go_on = true;
                aut.for_each(|sigma| {
                    if k >= end {
                        return false;
                    }
                    if k >= skip {
                        embedding.iter_mut().zip(sigma).for_each(|(e, &s)| *e = row[position[s as usize]]);
                        go_on = f(embedding);
                    }
                    k += 1;
                    go_on && k < end
                });
                go_on
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanOptions;
    use crate::sink::Control;
    use crate::{GraphBuilder, Query, Semantics};

    #[test]
    fn listed_and_walked_expansions_give_the_same_embeddings() {
        // A 4-clique of one label: 24 automorphisms, restricted to one order per match.
        let edges: Vec<(u32, u32, u32)> = (0..4).flat_map(|a| (a + 1..4).map(move |b| (a, b, 0))).collect();
        let data = GraphBuilder::from_parts(vec![0; 4], edges, false).build().0;
        let q = Query::new(data.clone(), &data, Semantics::Embed).unwrap();
        let plan = Plan::new(&data, &q, PlanOptions::default(), &Control::unlimited());
        assert_eq!(plan.multiplier, 24);
        let listed = Expand::of(&plan);
        assert!(listed.walked.is_none() && listed.per_row == 24);
        let aut = plan.symmetry.as_ref().unwrap();
        let mut position = vec![0; 4];
        plan.vertices.iter().enumerate().for_each(|(p, &u)| position[u as usize] = p);
        let walked = Expand { per_row: 24, listed: Vec::new(), walked: Some((aut.clone(), position)) };
        let row = [10, 11, 12, 13];
        let all = |e: &Expand, skip, take| {
            let mut got = Vec::new();
            assert!(e.each(&row, skip, take, &mut [0; 4], |emb| {
                got.push(emb.to_vec());
                true
            }));
            got
        };
        let every = all(&listed, 0, 24);
        assert_eq!(every.len(), 24);
        let distinct: std::collections::HashSet<_> = every.iter().collect();
        assert_eq!(distinct.len(), 24, "every ordering of the row once");
        for (skip, take) in [(0, 24), (0, 5), (3, 7), (23, 1), (10, 14), (20, 100)] {
            let want = &every[skip as usize..(skip + take).min(24) as usize];
            assert_eq!(all(&walked, skip, take), want);
            assert_eq!(all(&listed, skip, take), want);
        }
        // Stopped by `f` after three: both say so, and both gave the same three.
        for e in [&listed, &walked] {
            let mut got = Vec::new();
            let finished = e.each(&row, 2, 10, &mut [0; 4], |emb| {
                got.push(emb.to_vec());
                got.len() < 3
            });
            assert!(!finished);
            assert_eq!(got, every[2..5]);
        }
    }
}
