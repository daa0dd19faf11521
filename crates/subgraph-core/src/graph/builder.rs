//! Builds a [`Graph`] from labelled edges in parallel: self loops kept apart as loop labels,
//! exact duplicates dropped, several labels of a vertex or of one pair's edges made one set label
//! (`sets`), scatter into CSR, then sort each vertex's neighbours by (edge label, neighbour
//! label, id) and record the groups.

use super::csr::{Adjacency, Graph};
use super::ids::VertexIds;
use super::names::LabelNames;
use super::properties::Properties;
use super::sets::{holds_all, Interner, LabelSets};
use crate::error::Error;
use rayon::prelude::*;
use std::sync::Arc;

/// What the builder met beside plain edges.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BuildStats {
    /// Self loops, kept as their vertices' loop labels (duplicates counted once).
    pub self_loops: u64,
    /// Exact duplicates dropped (same endpoints, same direction, same label: one edge, as RDF
    /// has it).
    pub duplicates: u64,
}

/// Collects vertices, labels and edges; [`GraphBuilder::build`] makes the graph.
#[derive(Debug, Clone)]
pub struct GraphBuilder {
    directed: bool,
    labels: Vec<u32>,
    /// Labels beyond each vertex's first: (vertex, label).
    more_labels: Vec<(u32, u32)>,
    edges: Vec<(u32, u32, u32)>,
    ids: Option<VertexIds>,
    label_names: Option<LabelNames>,
    properties: Option<Properties>,
}

/// Vertices per parallel work item when sorting neighbour lists.
const CHUNK_VERTICES: usize = 2048;

impl GraphBuilder {
    /// A builder for `n` vertices, all labelled 0 until [`GraphBuilder::set_labels`].
    pub fn new(n: usize, directed: bool) -> Self {
        GraphBuilder {
            directed,
            labels: vec![0; n],
            more_labels: Vec::new(),
            edges: Vec::new(),
            ids: None,
            label_names: None,
            properties: None,
        }
    }

    /// A builder over edges already collected; every id must be below `labels.len()`.
    pub fn from_parts(labels: Vec<u32>, edges: Vec<(u32, u32, u32)>, directed: bool) -> Self {
        GraphBuilder {
            directed,
            labels,
            more_labels: Vec::new(),
            edges,
            ids: None,
            label_names: None,
            properties: None,
        }
    }

    pub fn num_vertices(&self) -> usize {
        self.labels.len()
    }

    pub fn set_labels(&mut self, labels: Vec<u32>) {
        debug_assert_eq!(labels.len(), self.labels.len());
        self.labels = labels;
    }

    /// Keeps the file's own ids of the vertices (one per vertex, strictly increasing).
    pub fn set_ids(&mut self, ids: VertexIds) {
        debug_assert_eq!(ids.len(), self.labels.len());
        self.ids = Some(ids);
    }

    /// Gives the vertices `properties` (columns over these vertices).
    pub fn set_properties(&mut self, properties: Properties) {
        self.properties = Some(properties);
    }

    /// Keeps the labels' names (label i of each kind is the i-th name in byte order).
    pub fn set_label_names(&mut self, names: LabelNames) {
        self.label_names = Some(names);
    }

    pub fn set_label(&mut self, v: u32, label: u32) {
        self.labels[v as usize] = label;
    }

    /// Gives vertex v `label` beside the one it has (a set of labels, `sets`).
    pub fn add_label(&mut self, v: u32, label: u32) {
        debug_assert!((v as usize) < self.labels.len());
        self.more_labels.push((v, label));
    }

    /// Adds u→v (u–v when undirected) with `label`. Ids must be below the vertex count: the
    /// readers check them and report the line.
    pub fn add_edge(&mut self, u: u32, v: u32, label: u32) {
        debug_assert!((u as usize) < self.labels.len() && (v as usize) < self.labels.len());
        self.edges.push((u, v, label));
    }

    pub fn reserve_edges(&mut self, m: usize) {
        self.edges.reserve(m);
    }

    /// Builds the graph. Fails only when the number of distinct (edge label, vertex label)
    /// combinations exceeds 2^32, or set labels run past u32.
    pub fn try_build(self) -> Result<(Graph, BuildStats), Error> {
        let GraphBuilder { directed, mut labels, more_labels, mut edges, ids, label_names, properties } = self;
        let n = labels.len();
        assert!(n <= u32::MAX as usize, "vertex ids are u32");
        let before = edges.len() as u64;
        let mut loops: Vec<(u32, u32)> = edges.iter().filter(|e| e.0 == e.1).map(|e| (e.0, e.2)).collect();
        edges.retain(|&(u, v, _)| u != v);
        let looped = before - edges.len() as u64;
        loops.par_sort_unstable();
        loops.dedup();
        let self_loops = loops.len() as u64;
        if !directed {
            edges.par_iter_mut().for_each(|e| {
                if e.0 > e.1 {
                    *e = (e.1, e.0, e.2);
                }
            });
        }
        edges.par_sort_unstable();
        edges.dedup();
        let duplicates = before - looped - edges.len() as u64 + (looped - self_loops);
        let too_many = || Error::Limit("the sets of labels run past 2^32 - 1 labels".into());
        let edge_sets = merge_parallel(&mut edges, &loops).ok_or_else(too_many)?;
        let vertex_sets = label_sets(&mut labels, more_labels).ok_or_else(too_many)?;
        let num_edges = edges.len() as u64;

        let mut vlabel_values = labels.clone();
        vlabel_values.par_sort_unstable();
        vlabel_values.dedup();
        let mut elabel_values: Vec<u32> = edges.par_iter().map(|e| e.2).collect();
        elabel_values.par_sort_unstable();
        elabel_values.dedup();
        let nl = vlabel_values.len().max(1) as u64;
        if (elabel_values.len().max(1) as u64) * nl > 1 << 32 {
            return Err(Error::Limit(format!(
                "{} edge labels times {} vertex labels exceed 2^32 label pairs",
                elabel_values.len(),
                vlabel_values.len()
            )));
        }
        let vrank: Vec<u32> =
            labels.par_iter().map(|l| vlabel_values.binary_search(l).expect("label present") as u32).collect();
        let erank = |l: u32| elabel_values.binary_search(&l).expect("label present") as u64;

        let (out, inc) = if directed {
            let out = scatter(n, &edges, |&(u, v, l)| [Some((u, v, l)), None]);
            let inc = scatter(n, &edges, |&(u, v, l)| [Some((v, u, l)), None]);
            (out, Some(inc))
        } else {
            (scatter(n, &edges, |&(u, v, l)| [Some((u, v, l)), Some((v, u, l))]), None)
        };
        drop(edges);
        let mut all_ranks = Vec::new();
        let mut out = group(out, &vrank, nl, &erank, &mut all_ranks);
        let mut inc = inc.map(|a| group(a, &vrank, nl, &erank, &mut all_ranks));
        all_ranks.par_sort_unstable();
        all_ranks.dedup();
        let to_pair_id = |adj: &mut Adjacency| {
            adj.group_pair
                .make_mut()
                .par_iter_mut()
                .for_each(|r| *r = all_ranks.binary_search(r).expect("rank present") as u32);
        };
        to_pair_id(&mut out);
        if let Some(inc) = inc.as_mut() {
            to_pair_id(inc);
        }
        let pairs = all_ranks
            .iter()
            .map(|&r| {
                let r = r as u64;
                (elabel_values[(r / nl) as usize], vlabel_values[(r % nl) as usize])
            })
            .collect();

        let (vlabel_offsets, vlabel_vertices) = label_index(&vrank, vlabel_values.len());
        let graph = Graph {
            directed,
            labels,
            num_edges,
            out,
            inc,
            pairs,
            vlabel_values,
            vlabel_offsets,
            vlabel_vertices,
            elabel_values,
            elabel_counts: Default::default(),
            ids: ids.map(Arc::new),
            label_names: label_names.filter(|n| !n.is_empty()).map(Arc::new),
            properties: properties.map(Arc::new),
            allowed: None,
            label_sets: Some(LabelSets {
                vertex_base: vertex_sets.0,
                vertex: vertex_sets.1,
                edge_base: edge_sets.0,
                edge: edge_sets.1,
            })
            .filter(|s| !s.is_empty())
            .map(Arc::new),
            loops: Arc::new(loops),
        };
        Ok((graph, BuildStats { self_loops, duplicates }))
    }

    /// [`GraphBuilder::try_build`] for graphs known to have few labels (tests, queries).
    pub fn build(self) -> (Graph, BuildStats) {
        self.try_build().expect("label pairs fit in u32")
    }
}

impl Graph {
    /// The graph with every vertex and edge label 0 (parallel edges of different labels become
    /// one), the same vertices and ids: what a pattern of unlabelled edges is matched on when
    /// its vertex labels are restrictions (`subgraph-pattern`).
    pub fn without_labels(&self) -> Graph {
        self.edges_holding(None)
    }

    /// [`Graph::without_labels`] over the edges whose labels hold all of `need` (each of its
    /// pairs one edge; None: every edge): what a query whose edges all ask for `need` is matched
    /// on where its labels expand into too many queries, its vertex labels restrictions.
    pub fn edges_holding(&self, need: Option<&[u32]>) -> Graph {
        let edges = self
            .edges()
            .filter(|(_, _, l)| holds_all(self.edge_label_members(l), need))
            .map(|(a, b, _)| (a, b, 0))
            .collect();
        let mut b = GraphBuilder::from_parts(vec![0; self.num_vertices()], edges, self.directed);
        if let Some(ids) = &self.ids {
            b.set_ids((**ids).clone());
        }
        b.build().0
    }
}

/// The sets of one kind of label: their base and the sets, in label order.
type Sets = (u32, Vec<Vec<u32>>);

/// Makes the edges of one pair (sorted, exact duplicates gone) one edge labelled by the set of
/// their labels, numbered above every edge label, the loops' too (so that a loop's label is never
/// taken for a set). The sets (base, list); None past u32.
fn merge_parallel(edges: &mut Vec<(u32, u32, u32)>, loops: &[(u32, u32)]) -> Option<Sets> {
    let same_pair = |a: &(u32, u32, u32), b: &(u32, u32, u32)| (a.0, a.1) == (b.0, b.1);
    if !edges.windows(2).any(|w| same_pair(&w[0], &w[1])) {
        return Some((0, Vec::new()));
    }
    let mut sets = Interner::above(edges.iter().map(|e| e.2).chain(loops.iter().map(|l| l.1)))?;
    let mut out = Vec::with_capacity(edges.len());
    for pair in edges.chunk_by(same_pair) {
        let set: Vec<u32> = pair.iter().map(|e| e.2).collect();
        out.push((pair[0].0, pair[0].1, sets.label(&set)?));
    }
    *edges = out;
    Some(sets.finish())
}

/// Gives each vertex with labels in `more` beside its own the label of its set. The sets (base,
/// list); None past u32.
fn label_sets(labels: &mut [u32], mut more: Vec<(u32, u32)>) -> Option<Sets> {
    if more.is_empty() {
        return Some((0, Vec::new()));
    }
    let mut sets = Interner::above(labels.iter().chain(more.iter().map(|m| &m.1)).copied())?;
    more.sort_unstable();
    more.dedup();
    for chunk in more.chunk_by(|a, b| a.0 == b.0) {
        let v = chunk[0].0 as usize;
        let mut set: Vec<u32> = chunk.iter().map(|m| m.1).chain([labels[v]]).collect();
        set.sort_unstable();
        set.dedup();
        labels[v] = sets.label(&set)?;
    }
    Some(sets.finish())
}

/// Adjacency before grouping: CSR of (neighbour, edge label).
struct Raw {
    offsets: Vec<u64>,
    nbrs: Vec<u32>,
    elabels: Vec<u32>,
}

fn scatter<F>(n: usize, edges: &[(u32, u32, u32)], entries: F) -> Raw
where
    F: Fn(&(u32, u32, u32)) -> [Option<(u32, u32, u32)>; 2],
{
    let mut offsets = vec![0u64; n + 1];
    for e in edges {
        for (src, _, _) in entries(e).into_iter().flatten() {
            offsets[src as usize + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let total = offsets[n] as usize;
    let mut nbrs = vec![0u32; total];
    let mut elabels = vec![0u32; total];
    let mut cursor: Vec<u64> = offsets[..n].to_vec();
    for e in edges {
        for (src, dst, l) in entries(e).into_iter().flatten() {
            let c = &mut cursor[src as usize];
            nbrs[*c as usize] = dst;
            elabels[*c as usize] = l;
            *c += 1;
        }
    }
    Raw { offsets, nbrs, elabels }
}

/// Sorts each vertex's neighbours by (edge label, neighbour label, id) and records its groups,
/// keyed for now by the rank `edge label rank * nl + neighbour label rank`; the caller turns
/// ranks into pair ids. Every group's rank is appended to `all_ranks`.
fn group<E: Fn(u32) -> u64 + Sync>(raw: Raw, vrank: &[u32], nl: u64, erank: &E, all_ranks: &mut Vec<u32>) -> Adjacency {
    let Raw { offsets, mut nbrs, elabels } = raw;
    let n = offsets.len() - 1;
    // Split the neighbour array into chunks of whole vertices and sort each in parallel.
    let mut pieces: Vec<(usize, &mut [u32])> = Vec::new();
    let mut rest: &mut [u32] = &mut nbrs;
    let mut consumed = 0u64;
    for start in (0..n).step_by(CHUNK_VERTICES) {
        let end = (start + CHUNK_VERTICES).min(n);
        let len = (offsets[end] - consumed) as usize;
        let (head, tail) = rest.split_at_mut(len);
        pieces.push((start, head));
        rest = tail;
        consumed = offsets[end];
    }
    let per_chunk: Vec<(Vec<u32>, Vec<u32>, Vec<u32>)> = pieces
        .into_par_iter()
        .map(|(start, slice)| {
            let end = (start + CHUNK_VERTICES).min(n);
            let base = offsets[start];
            let mut keys: Vec<u64> = Vec::new();
            let mut counts = Vec::with_capacity(end - start);
            let mut ranks = Vec::new();
            let mut ends = Vec::new();
            for v in start..end {
                let s = (offsets[v] - base) as usize;
                let e = (offsets[v + 1] - base) as usize;
                keys.clear();
                keys.extend((s..e).map(|i| {
                    let w = slice[i];
                    let rank = erank(elabels[base as usize + i]) * nl + vrank[w as usize] as u64;
                    (rank << 32) | w as u64
                }));
                keys.sort_unstable();
                let mut groups = 0u32;
                for (k, &key) in keys.iter().enumerate() {
                    slice[s + k] = key as u32;
                    let rank = (key >> 32) as u32;
                    if k + 1 == keys.len() || (keys[k + 1] >> 32) as u32 != rank {
                        ranks.push(rank);
                        ends.push(k as u32 + 1);
                        groups += 1;
                    }
                }
                counts.push(groups);
            }
            (counts, ranks, ends)
        })
        .collect();
    drop(elabels);
    let mut group_offsets = Vec::with_capacity(n + 1);
    group_offsets.push(0u64);
    let total: usize = per_chunk.iter().map(|c| c.1.len()).sum();
    let mut group_pair = Vec::with_capacity(total);
    let mut group_end = Vec::with_capacity(total);
    for (counts, ranks, ends) in per_chunk {
        for c in counts {
            let last = *group_offsets.last().expect("non-empty");
            group_offsets.push(last + c as u64);
        }
        group_pair.extend_from_slice(&ranks);
        group_end.extend_from_slice(&ends);
    }
    all_ranks.extend_from_slice(&group_pair);
    all_ranks.par_sort_unstable();
    all_ranks.dedup();
    Adjacency {
        offsets: offsets.into(),
        nbrs: nbrs.into(),
        group_offsets: group_offsets.into(),
        group_pair: group_pair.into(),
        group_end: group_end.into(),
    }
}

/// Vertices bucketed by label rank: (offsets, vertices sorted by id inside each label).
pub(super) fn label_index(vrank: &[u32], num_labels: usize) -> (Vec<u64>, Vec<u32>) {
    let mut offsets = vec![0u64; num_labels + 1];
    for &r in vrank {
        offsets[r as usize + 1] += 1;
    }
    for i in 0..num_labels {
        offsets[i + 1] += offsets[i];
    }
    let mut cursor = offsets.clone();
    let mut vertices = vec![0u32; vrank.len()];
    for (v, &r) in vrank.iter().enumerate() {
        vertices[cursor[r as usize] as usize] = v as u32;
        cursor[r as usize] += 1;
    }
    (offsets, vertices)
}
