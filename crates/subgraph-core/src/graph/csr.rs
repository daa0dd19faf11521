//! The graph itself: the CSR adjacency of both directions, grouped by (edge label, neighbour
//! label) pair, the label tables and the lookups every engine makes (N(v, edge label,
//! neighbour label) as one slice).

use super::array::Array;
use super::ids::{Id, VertexIds};
use super::names::LabelNames;
use super::properties::Properties;
use super::sets::LabelSets;
use crate::bitset::Bitset;
use std::sync::Arc;

/// One direction of adjacency for every vertex.
///
/// `nbrs[offsets[v]..offsets[v+1]]` are v's neighbours, split into groups. The groups of v are
/// `group_offsets[v]..group_offsets[v+1]`; group g has key `pairs[group_pair[g]]` (an
/// (edge label, neighbour label) pair, the table sorted so that pair ids order like the pairs)
/// and ends `group_end[g]` entries after v's first neighbour.
#[derive(Debug, Clone, Default)]
pub struct Adjacency {
    pub(crate) offsets: Array<u64>,
    pub(crate) nbrs: Array<u32>,
    pub(crate) group_offsets: Array<u64>,
    pub(crate) group_pair: Array<u32>,
    pub(crate) group_end: Array<u32>,
}

/// Which stored adjacency a lookup reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Out-neighbours (all neighbours in an undirected graph).
    Out,
    /// In-neighbours (directed graphs only; equals `Out` on undirected graphs).
    In,
}

/// A vertex- and edge-labelled graph, directed or undirected, with one label per vertex and one
/// edge per ordered pair in its CSR: a vertex of several labels, or a pair of several edges,
/// has the label of their set (`label_sets`); self loops are kept apart (`loops`). Labels are
/// the values of the input file.
#[derive(Debug, Clone)]
pub struct Graph {
    pub(crate) directed: bool,
    pub(crate) labels: Vec<u32>,
    pub(crate) num_edges: u64,
    pub(crate) out: Adjacency,
    pub(crate) inc: Option<Adjacency>,
    /// Distinct (edge label, neighbour label) pairs, sorted.
    pub(crate) pairs: Vec<(u32, u32)>,
    /// Distinct vertex label values, sorted, and the vertices of each (sorted by id).
    pub(crate) vlabel_values: Vec<u32>,
    pub(crate) vlabel_offsets: Vec<u64>,
    pub(crate) vlabel_vertices: Vec<u32>,
    /// Distinct edge label values, sorted.
    pub(crate) elabel_values: Vec<u32>,
    /// Edges per edge label (aligned with `elabel_values`), counted on first use.
    pub(crate) elabel_counts: std::sync::OnceLock<Vec<u64>>,
    /// The file's own vertex ids, when the reader compacted them.
    pub(crate) ids: Option<Arc<VertexIds>>,
    /// The labels' names, when the reader met names where labels go.
    pub(crate) label_names: Option<Arc<LabelNames>>,
    /// Data graphs: the vertices' properties, when given (`--vertex-props`).
    pub(crate) properties: Option<Arc<Properties>>,
    /// Query graphs: per query vertex, the data vertices it may map to (a pattern's property
    /// tests), None for any.
    pub(crate) allowed: Option<Arc<Vec<Option<Arc<Bitset>>>>>,
    /// The sets behind labels above the file's, when some vertex has several labels or some
    /// pair several edges.
    pub(crate) label_sets: Option<Arc<LabelSets>>,
    /// Self loops as (vertex, edge label), sorted.
    pub(crate) loops: Arc<Vec<(u32, u32)>>,
}

impl Adjacency {
    #[inline]
    fn range(&self, v: u32) -> (usize, usize) {
        (self.offsets[v as usize] as usize, self.offsets[v as usize + 1] as usize)
    }

    #[inline]
    fn all(&self, v: u32) -> &[u32] {
        let (s, e) = self.range(v);
        &self.nbrs[s..e]
    }

    /// The slice of v's neighbours in the group with pair id `pair`.
    #[inline]
    fn group(&self, v: u32, pair: u32) -> &[u32] {
        let gs = self.group_offsets[v as usize] as usize;
        let ge = self.group_offsets[v as usize + 1] as usize;
        let keys = &self.group_pair[gs..ge];
        match keys.binary_search(&pair) {
            Ok(i) => {
                let base = self.offsets[v as usize] as usize;
                let start = if i == 0 { 0 } else { self.group_end[gs + i - 1] as usize };
                let end = self.group_end[gs + i] as usize;
                &self.nbrs[base + start..base + end]
            }
            Err(_) => &[],
        }
    }

    /// (pair id, neighbours) for each group of v.
    pub(super) fn groups(&self, v: u32) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        let gs = self.group_offsets[v as usize] as usize;
        let ge = self.group_offsets[v as usize + 1] as usize;
        let base = self.offsets[v as usize] as usize;
        (gs..ge).map(move |g| {
            let start = if g == gs { 0 } else { self.group_end[g - 1] as usize };
            let end = self.group_end[g] as usize;
            (self.group_pair[g], &self.nbrs[base + start..base + end])
        })
    }

    fn mapped_bytes(&self) -> u64 {
        let of = |mapped: bool, bytes: usize| if mapped { bytes as u64 } else { 0 };
        of(self.offsets.is_mapped(), self.offsets.len() * 8)
            + of(self.nbrs.is_mapped(), self.nbrs.len() * 4)
            + of(self.group_offsets.is_mapped(), self.group_offsets.len() * 8)
            + of(self.group_pair.is_mapped(), self.group_pair.len() * 4)
            + of(self.group_end.is_mapped(), self.group_end.len() * 4)
    }

    fn memory_bytes(&self) -> u64 {
        (self.offsets.len() * 8
            + self.nbrs.len() * 4
            + self.group_offsets.len() * 8
            + self.group_pair.len() * 4
            + self.group_end.len() * 4) as u64
    }
}

impl Graph {
    /// Number of vertices.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.labels.len()
    }

    /// Number of edges (arcs in a directed graph), after self loops and duplicates were dropped.
    #[inline]
    pub fn num_edges(&self) -> u64 {
        self.num_edges
    }

    #[inline]
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    #[inline]
    pub fn label(&self, v: u32) -> u32 {
        self.labels[v as usize]
    }

    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// The file's own vertex ids when the reader compacted them to 0..n (vertex v is the v-th
    /// smallest); None when the vertices are the file's ids.
    pub fn ids(&self) -> Option<&Arc<VertexIds>> {
        self.ids.as_ref()
    }

    /// The names of the labels, when the input named them (see [`LabelNames`]).
    pub fn label_names(&self) -> Option<&Arc<LabelNames>> {
        self.label_names.as_ref()
    }

    /// The sets behind the labels of vertices with several labels and pairs with several edges;
    /// None where there are none.
    pub fn label_sets(&self) -> Option<&Arc<LabelSets>> {
        self.label_sets.as_ref()
    }

    /// The labels vertex label `label` stands for (itself, or its set's).
    pub fn vertex_label_members<'a>(&'a self, label: &'a u32) -> &'a [u32] {
        super::sets::vertex_members(self.label_sets.as_deref(), label)
    }

    /// The edge labels edge label `label` stands for (itself, or its set's).
    pub fn edge_label_members<'a>(&'a self, label: &'a u32) -> &'a [u32] {
        super::sets::edge_members(self.label_sets.as_deref(), label)
    }

    /// Self loops as (vertex, edge label), sorted; they take no part in the join.
    pub fn loops(&self) -> &[(u32, u32)] {
        &self.loops
    }

    /// Vertices with several labels (whose label is a set label).
    pub fn multi_labelled_vertices(&self) -> u64 {
        let sets = self.vlabel_values.iter().filter(|l| self.vertex_label_members(l).len() > 1);
        sets.map(|&l| self.vertices_with_label(l).len() as u64).sum()
    }

    /// Pairs joined by several edges of different labels (one edge of a set label): ordered
    /// pairs, unordered where undirected.
    pub fn multi_edge_pairs(&self) -> u64 {
        let sets = self.elabel_values.iter().filter(|l| self.edge_label_members(l).len() > 1);
        sets.map(|&l| self.edge_label_count(l)).sum()
    }

    /// The vertices' properties, when they were given.
    pub fn properties(&self) -> Option<&Arc<Properties>> {
        self.properties.as_ref()
    }

    /// Gives the vertices `properties` (one value or none per vertex in each column).
    pub fn set_properties(&mut self, properties: Properties) {
        self.properties = Some(Arc::new(properties));
    }

    /// For a query graph: the data vertices query vertex u may map to, when restricted.
    pub fn allowed(&self, u: u32) -> Option<&Bitset> {
        self.allowed.as_ref().and_then(|a| a[u as usize].as_deref())
    }

    /// Whether some query vertex is restricted to given data vertices.
    pub fn is_restricted(&self) -> bool {
        self.allowed.as_ref().is_some_and(|a| a.iter().any(Option::is_some))
    }

    /// Restricts each query vertex u to the data vertices of `allowed[u]` (None: any); one
    /// entry per vertex.
    pub fn restrict(&mut self, allowed: Vec<Option<Arc<Bitset>>>) {
        assert_eq!(allowed.len(), self.num_vertices(), "one entry per query vertex");
        self.allowed = Some(Arc::new(allowed));
    }

    /// Vertex v's id as the input file wrote it.
    pub fn original_id(&self, v: u32) -> Id<'_> {
        self.ids.as_ref().map_or(Id::Number(v as u64), |ids| ids.get(v))
    }

    fn adj(&self, dir: Dir) -> &Adjacency {
        match (dir, &self.inc) {
            (Dir::In, Some(inc)) => inc,
            _ => &self.out,
        }
    }

    /// Number of neighbours of v in direction `dir`.
    #[inline]
    pub fn degree(&self, v: u32, dir: Dir) -> u32 {
        let (s, e) = self.adj(dir).range(v);
        (e - s) as u32
    }

    /// Total degree: out plus in for a directed graph.
    pub fn total_degree(&self, v: u32) -> u32 {
        if self.directed {
            self.degree(v, Dir::Out) + self.degree(v, Dir::In)
        } else {
            self.degree(v, Dir::Out)
        }
    }

    /// All neighbours of v in direction `dir`, grouped by (edge label, neighbour label).
    #[inline]
    pub fn neighbors(&self, v: u32, dir: Dir) -> &[u32] {
        self.adj(dir).all(v)
    }

    /// The pair id of (edge label, neighbour label), if any edge of the graph has it.
    #[inline]
    pub fn pair_id(&self, edge_label: u32, nbr_label: u32) -> Option<u32> {
        self.pairs.binary_search(&(edge_label, nbr_label)).ok().map(|i| i as u32)
    }

    /// The (edge label, neighbour label) pair of a pair id.
    pub fn pair(&self, id: u32) -> (u32, u32) {
        self.pairs[id as usize]
    }

    /// Number of distinct (edge label, neighbour label) pairs.
    pub fn num_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// N(v, edge label, neighbour label) in direction `dir`, sorted by id.
    #[inline]
    pub fn neighbors_by_pair(&self, v: u32, dir: Dir, pair: u32) -> &[u32] {
        self.adj(dir).group(v, pair)
    }

    /// N(v, edge label, neighbour label) in direction `dir`, sorted by id.
    pub fn neighbors_labelled(&self, v: u32, dir: Dir, edge_label: u32, nbr_label: u32) -> &[u32] {
        match self.pair_id(edge_label, nbr_label) {
            Some(p) => self.neighbors_by_pair(v, dir, p),
            None => &[],
        }
    }

    /// The groups of v in direction `dir`: (pair id, neighbours sorted by id).
    pub fn neighbor_groups(&self, v: u32, dir: Dir) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        self.adj(dir).groups(v)
    }

    /// The label of the edge v→w (v–w when undirected), if the edge exists.
    pub fn edge_label(&self, v: u32, w: u32) -> Option<u32> {
        let lw = self.label(w);
        for (pair, nbrs) in self.adj(Dir::Out).groups(v) {
            let (el, nl) = self.pairs[pair as usize];
            if nl == lw && nbrs.binary_search(&w).is_ok() {
                return Some(el);
            }
        }
        None
    }

    /// Distinct vertex label values, sorted.
    pub fn vertex_label_values(&self) -> &[u32] {
        &self.vlabel_values
    }

    /// Distinct edge label values, sorted.
    pub fn edge_label_values(&self) -> &[u32] {
        &self.elabel_values
    }

    /// Number of edges (arcs) carrying edge label `label`; counted once, on first use.
    pub fn edge_label_count(&self, label: u32) -> u64 {
        let counts = self.elabel_counts.get_or_init(|| {
            use rayon::prelude::*;
            let per_pair: Vec<u64> = (0..self.num_vertices() as u32)
                .into_par_iter()
                .fold(
                    || vec![0u64; self.pairs.len()],
                    |mut acc, v| {
                        self.out.groups(v).for_each(|(p, nbrs)| acc[p as usize] += nbrs.len() as u64);
                        acc
                    },
                )
                .reduce(|| vec![0u64; self.pairs.len()], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect());
            let mut counts = vec![0u64; self.elabel_values.len()];
            for (p, &(el, _)) in self.pairs.iter().enumerate() {
                let i = self.elabel_values.binary_search(&el).expect("pair labels are edge labels");
                counts[i] += per_pair[p];
            }
            // An undirected edge is stored at both ends.
            let per_edge = if self.directed { 1 } else { 2 };
            counts.iter().map(|c| c / per_edge).collect()
        });
        self.elabel_values.binary_search(&label).map_or(0, |i| counts[i])
    }

    /// The vertices with vertex label `label`, sorted by id.
    pub fn vertices_with_label(&self, label: u32) -> &[u32] {
        match self.vlabel_values.binary_search(&label) {
            Ok(i) => {
                let s = self.vlabel_offsets[i] as usize;
                let e = self.vlabel_offsets[i + 1] as usize;
                &self.vlabel_vertices[s..e]
            }
            Err(_) => &[],
        }
    }

    /// Largest total degree.
    pub fn max_degree(&self) -> u32 {
        (0..self.num_vertices() as u32).map(|v| self.total_degree(v)).max().unwrap_or(0)
    }

    /// Bytes of the graph's arrays that are read in place from a mapped file (`--mmap`),
    /// included in [`Graph::memory_bytes`].
    pub fn mapped_bytes(&self) -> u64 {
        self.out.mapped_bytes() + self.inc.as_ref().map_or(0, Adjacency::mapped_bytes)
    }

    /// Bytes held by the graph's arrays, with its original ids, label names and properties.
    pub fn memory_bytes(&self) -> u64 {
        self.out.memory_bytes()
            + self.inc.as_ref().map_or(0, Adjacency::memory_bytes)
            + (self.labels.len() * 4
                + self.pairs.len() * 8
                + self.vlabel_values.len() * 4
                + self.vlabel_offsets.len() * 8
                + self.vlabel_vertices.len() * 4
                + self.elabel_values.len() * 4) as u64
            + self.ids.as_ref().map_or(0, |ids| ids.memory_bytes())
            + self.label_names.as_ref().map_or(0, |names| names.memory_bytes())
            + self.properties.as_ref().map_or(0, |p| p.memory_bytes())
            + self.label_sets.as_ref().map_or(0, |s| s.memory_bytes())
            + self.loops.len() as u64 * 8
    }

    /// Every edge once as (source, target, edge label); for undirected graphs source < target.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        (0..self.num_vertices() as u32).flat_map(move |v| {
            self.out.groups(v).flat_map(move |(pair, nbrs)| {
                let el = self.pairs[pair as usize].0;
                nbrs.iter().filter(move |&&w| self.directed || v < w).map(move |&w| (v, w, el))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{BuildStats, GraphBuilder};

    fn build(n: usize, directed: bool, labels: &[u32], edges: &[(u32, u32, u32)]) -> Graph {
        let mut b = GraphBuilder::new(n, directed);
        b.set_labels(labels.to_vec());
        for &(u, v, l) in edges {
            b.add_edge(u, v, l);
        }
        b.build().0
    }

    #[test]
    fn groups_are_label_slices_sorted_by_id() {
        let g = build(5, false, &[0, 1, 2, 1, 2], &[(0, 4, 0), (0, 1, 0), (0, 3, 0), (0, 2, 7), (1, 2, 0)]);
        assert_eq!(g.neighbors_labelled(0, Dir::Out, 0, 1), &[1, 3]);
        assert_eq!(g.neighbors_labelled(0, Dir::Out, 0, 2), &[4]);
        assert_eq!(g.neighbors_labelled(0, Dir::Out, 7, 2), &[2]);
        assert_eq!(g.neighbors_labelled(0, Dir::Out, 7, 1), &[] as &[u32]);
        assert_eq!(g.neighbors_labelled(2, Dir::Out, 7, 0), &[0]);
        assert_eq!(g.edge_label(2, 0), Some(7));
        assert_eq!(g.edge_label(3, 4), None);
        assert_eq!(g.num_edges(), 5);
        assert_eq!(g.vertices_with_label(2), &[2, 4]);
        assert_eq!((g.edge_label_count(0), g.edge_label_count(7), g.edge_label_count(3)), (4, 1, 0));
        let mut edges: Vec<_> = g.edges().collect();
        edges.sort();
        assert_eq!(edges, vec![(0, 1, 0), (0, 2, 7), (0, 3, 0), (0, 4, 0), (1, 2, 0)]);
    }

    #[test]
    fn directed_keeps_in_and_out_apart() {
        let g = build(3, true, &[0, 0, 0], &[(0, 1, 1), (1, 0, 2), (2, 0, 1)]);
        assert_eq!(g.neighbors_labelled(0, Dir::Out, 1, 0), &[1]);
        assert_eq!(g.neighbors_labelled(0, Dir::In, 1, 0), &[2]);
        assert_eq!(g.neighbors_labelled(0, Dir::In, 2, 0), &[1]);
        assert_eq!(g.edge_label(1, 0), Some(2));
        assert_eq!(g.edge_label(0, 2), None);
        assert_eq!(g.total_degree(0), 3);
        assert_eq!((g.edge_label_count(1), g.edge_label_count(2)), (2, 1));
    }

    #[test]
    fn self_loops_are_kept_apart_and_exact_duplicates_dropped() {
        let mut b = GraphBuilder::new(3, false);
        b.set_labels(vec![0, 0, 0]);
        b.add_edge(0, 0, 0);
        b.add_edge(0, 0, 0);
        b.add_edge(0, 1, 3);
        b.add_edge(1, 0, 3);
        b.add_edge(1, 2, 0);
        let (g, stats) = b.build();
        assert_eq!(stats, BuildStats { self_loops: 1, duplicates: 2 });
        assert_eq!((g.multi_labelled_vertices(), g.multi_edge_pairs()), (0, 0));
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.loops(), &[(0, 0)]);
        assert_eq!(g.edge_label(0, 1), Some(3));
        assert!(g.label_sets().is_none());
    }

    #[test]
    fn several_labels_and_parallel_edges_become_set_labels() {
        let mut b = GraphBuilder::new(4, true);
        b.set_labels(vec![5, 1, 1, 2]);
        b.add_label(0, 1);
        b.add_label(0, 1);
        b.add_label(2, 1);
        b.add_label(3, 5);
        b.add_label(3, 1);
        for (u, v, l) in [(0, 1, 7), (0, 1, 4), (1, 0, 4), (2, 3, 4), (2, 3, 7), (0, 1, 7)] {
            b.add_edge(u, v, l);
        }
        let (g, stats) = b.build();
        assert_eq!((g.multi_labelled_vertices(), g.multi_edge_pairs(), stats.duplicates), (2, 2, 1));
        let sets = g.label_sets().unwrap();
        assert_eq!(g.label(0), 6, "{{1, 5}} is the first set above 5");
        assert_eq!(g.vertex_label_members(&g.label(0)), &[1, 5]);
        assert_eq!((g.label(1), g.label(2)), (1, 1));
        assert_eq!(g.vertex_label_members(&g.label(3)), &[1, 2, 5]);
        let e = g.edge_label(0, 1).unwrap();
        assert_eq!(g.edge_label_members(&e), &[4, 7]);
        assert_eq!(g.edge_label(2, 3), Some(e), "one set, one label");
        assert_eq!(g.edge_label(1, 0), Some(4));
        assert_eq!((sets.vertex_base(), sets.edge_base()), (6, 8));
        assert_eq!(g.num_edges(), 3);
        assert_eq!((g.multi_labelled_vertices(), g.multi_edge_pairs()), (2, 2));
    }

    #[test]
    fn edge_sets_are_numbered_above_the_loops_labels() {
        let mut b = GraphBuilder::new(2, false);
        for (u, v, l) in [(0, 1, 0), (0, 1, 1), (1, 1, 2)] {
            b.add_edge(u, v, l);
        }
        let g = b.build().0;
        assert_eq!(g.label_sets().unwrap().edge_base(), 3, "above the loop's label 2");
        assert_eq!(g.edge_label_members(&g.edge_label(0, 1).unwrap()), &[0, 1]);
        assert_eq!((g.loops(), g.edge_label_members(&2)), (&[(1, 2)][..], &[2][..]));
    }
}
