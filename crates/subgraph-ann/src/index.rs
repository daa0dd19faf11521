//! A vector index: the prepared vectors in the graph's internal order, the proximity graph,
//! which input row each internal id is, and optional integer labels for filtered search. It is
//! what `build` makes, `search` reads, `add` grows and `file` saves; every id it takes or
//! returns is the caller's (the row number in the order the vectors were given, across adds).

use std::collections::HashSet;

use crate::brute::brute_force;
use crate::cpu::{self, BuildParams};
use crate::error::{AnnError, Result};
use crate::filter::Allowed;
use crate::graph::ProximityGraph;
use crate::neighbours::{Neighbours, SearchParams};
use crate::vectors::{check_dim, Metric, Vectors};

/// Which vectors a filtered search may return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// Those whose label is one of these.
    Labels(Vec<u32>),
    /// Those whose id is `true` here (one entry per vector of the index).
    Mask(Vec<bool>),
}

/// Vectors, their graph and labels.
#[derive(Debug, Clone)]
pub struct Index {
    pub(crate) metric: Metric,
    pub(crate) params: BuildParams,
    /// Prepared vectors, internal order.
    pub(crate) vectors: Vectors,
    pub(crate) graph: ProximityGraph,
    /// `order[i]`: the caller's id of internal vertex `i`.
    pub(crate) order: Vec<u32>,
    /// Labels by internal id, where given.
    pub(crate) labels: Option<Vec<u32>>,
}

pub(crate) fn check_labels(labels: Option<&[u32]>, rows: usize) -> Result<()> {
    match labels {
        Some(l) if l.len() != rows => {
            Err(AnnError::Parameter(format!("{} labels for {rows} vectors: one label per vector", l.len())))
        }
        _ => Ok(()),
    }
}

impl Index {
    /// Builds the graph of `params` over `vectors` on every core (an HNSW graph renumbered for
    /// locality; see `cpu::build`). `labels`, where given, holds one label per vector.
    pub fn build(vectors: Vectors, metric: Metric, params: &BuildParams, labels: Option<Vec<u32>>) -> Result<Index> {
        check_labels(labels.as_deref(), vectors.len())?;
        let prepared = metric.prepare(vectors)?;
        let built = cpu::localize(cpu::build(&prepared, metric, params)?);
        Ok(Index::assemble(metric, *params, built, labels))
    }

    /// An index from a build's output, with the labels moved to internal order.
    pub(crate) fn assemble(metric: Metric, params: BuildParams, built: cpu::Built, labels: Option<Vec<u32>>) -> Index {
        let labels = labels.map(|l| built.order.iter().map(|&row| l[row as usize]).collect());
        Index { metric, params, vectors: built.vectors, graph: built.graph, order: built.order, labels }
    }

    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    pub fn dim(&self) -> usize {
        self.vectors.dim()
    }

    pub fn metric(&self) -> Metric {
        self.metric
    }

    pub fn params(&self) -> &BuildParams {
        &self.params
    }

    pub fn graph(&self) -> &ProximityGraph {
        &self.graph
    }

    pub fn has_labels(&self) -> bool {
        self.labels.is_some()
    }

    /// The prepared vectors in internal order (what the GPU uploads).
    pub fn internal_vectors(&self) -> &Vectors {
        &self.vectors
    }

    /// The caller's id of each internal id.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Queries as the index compares them: checked against its dimension, normalised for `cos`.
    pub fn prepare_queries(&self, queries: Vectors) -> Result<Vectors> {
        check_dim(self.dim(), queries.dim(), "the queries")?;
        self.metric.prepare(queries)
    }

    /// The internal ids a filter passes.
    pub fn allowed(&self, filter: &Filter) -> Result<Allowed> {
        match filter {
            Filter::Labels(wanted) => {
                let Some(labels) = &self.labels else {
                    return Err(AnnError::Parameter("a label filter on an index built without labels".into()));
                };
                let wanted: HashSet<u32> = wanted.iter().copied().collect();
                Ok(Allowed::from_fn(self.len(), |i| wanted.contains(&labels[i])))
            }
            Filter::Mask(mask) => {
                if mask.len() != self.len() {
                    return Err(AnnError::Parameter(format!(
                        "a filter of {} entries for {} vectors: one entry per vector",
                        mask.len(),
                        self.len()
                    )));
                }
                Ok(Allowed::from_fn(self.len(), |i| mask[self.order[i] as usize]))
            }
        }
    }

    /// The `k` nearest vectors to each query by searching the graph on every core; the
    /// caller's ids.
    pub fn search(&self, queries: Vectors, params: SearchParams, filter: Option<&Filter>) -> Result<Neighbours> {
        let queries = self.prepare_queries(queries)?;
        let allowed = filter.map(|f| self.allowed(f)).transpose()?;
        let mut found = cpu::search(&self.vectors, self.metric, &self.graph, &queries, params, allowed.as_ref())?;
        found.map_ids(&self.order);
        Ok(found)
    }

    /// The exact `k` nearest vectors to each query, by brute force on every core.
    pub fn brute_force(&self, queries: Vectors, k: usize, filter: Option<&Filter>) -> Result<Neighbours> {
        let queries = self.prepare_queries(queries)?;
        SearchParams::new(k, None)?.check_against(self.len())?;
        let allowed = filter.map(|f| self.allowed(f)).transpose()?;
        let mut found = brute_force(&self.vectors, self.metric, &queries, k, allowed.as_ref());
        found.map_ids(&self.order);
        Ok(found)
    }

    /// Adds `vectors` (ids continue from the index's length), with labels where the index has
    /// them, joined into the graph by the builder's merge step.
    pub fn add(&mut self, vectors: Vectors, labels: Option<Vec<u32>>) -> Result<()> {
        check_dim(self.dim(), vectors.dim(), "the vectors added")?;
        match (&mut self.labels, labels) {
            (Some(have), Some(new)) => {
                check_labels(Some(&new), vectors.len())?;
                have.extend(new);
            }
            (None, None) => {}
            (Some(_), None) => {
                return Err(AnnError::Parameter("the index has labels: give one per vector added".into()))
            }
            (None, Some(_)) => return Err(AnnError::Parameter("labels added to an index built without labels".into())),
        }
        let prepared = self.metric.prepare(vectors)?;
        let first = self.len();
        self.vectors.extend(&prepared)?;
        self.order.extend(first as u32..self.vectors.len() as u32);
        cpu::extend(&self.vectors, self.metric, &self.params, &mut self.graph, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphKind;
    use crate::neighbours::recall;

    fn grid(n: usize) -> Vectors {
        Vectors::new(2, (0..n).flat_map(|i| [(i % 37) as f32, (i / 37) as f32 + (i % 7) as f32 * 0.01]).collect())
            .unwrap()
    }

    #[test]
    fn ids_are_the_callers_across_adds_and_filters() {
        let all = grid(3000);
        let first = Vectors::new(2, all.as_slice()[..2 * 2000].to_vec()).unwrap();
        let rest = Vectors::new(2, all.as_slice()[2 * 2000..].to_vec()).unwrap();
        let labels: Vec<u32> = (0..3000).map(|i| i % 3).collect();
        let params = BuildParams::new(GraphKind::Nsw, 16).unwrap();
        let mut index = Index::build(first, Metric::L2, &params, Some(labels[..2000].to_vec())).unwrap();
        index.add(rest, Some(labels[2000..].to_vec())).unwrap();
        assert_eq!(index.len(), 3000);
        index.graph.validate().unwrap();
        let queries = grid(3000);
        let exact = index.brute_force(queries.clone(), 5, None).unwrap();
        let found = index.search(queries.clone(), SearchParams::new(5, Some(64)).unwrap(), None).unwrap();
        assert!(recall(&found, &exact.ids, 5, 5).unwrap() > 0.99);
        // Each point is its own nearest neighbour, by the caller's id.
        assert!((0..3000).filter(|&q| found.ids_of(q)[0] == q as u32).count() > 2950);
        let filter = Filter::Labels(vec![2]);
        let some = index.search(queries.clone(), SearchParams::new(5, Some(64)).unwrap(), Some(&filter)).unwrap();
        assert!(some.ids.iter().all(|&id| id % 3 == 2));
        let mask = Filter::Mask((0..3000).map(|i| i < 10).collect());
        let few = index.search(queries, SearchParams::new(5, Some(64)).unwrap(), Some(&mask)).unwrap();
        assert!(few.ids.iter().all(|&id| id < 10));
    }

    #[test]
    fn mismatches_are_refused() {
        let params = BuildParams::new(GraphKind::Nsw, 8).unwrap();
        let e = Index::build(grid(10), Metric::L2, &params, Some(vec![1; 9])).unwrap_err();
        assert_eq!(e.to_string(), "9 labels for 10 vectors: one label per vector");
        let mut index = Index::build(grid(10), Metric::L2, &params, None).unwrap();
        assert!(index.add(grid(2), Some(vec![0, 0])).is_err());
        let e = index.search(grid(2), SearchParams::new(1, None).unwrap(), Some(&Filter::Labels(vec![1]))).unwrap_err();
        assert!(e.to_string().contains("without labels"));
        let e =
            index.search(grid(2), SearchParams::new(1, None).unwrap(), Some(&Filter::Mask(vec![true; 3]))).unwrap_err();
        assert!(e.to_string().contains("3 entries for 10 vectors"));
        let wrong = Vectors::new(3, vec![0.0; 3]).unwrap();
        assert!(index.add(wrong, None).is_err());
    }
}
