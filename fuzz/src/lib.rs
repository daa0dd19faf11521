//! What the fuzz targets share: one-thread setup, the invariants every loaded graph must meet,
//! small arbitrary graphs for the structure-aware targets, and the reading of the formats whose
//! ids are free (edge lists, Matrix Market, KONECT).

use arbitrary::Arbitrary;
use std::path::Path;
use std::sync::Once;
use subgraph_core::io::{parse_graphs, Format, IdMode, ReadOptions};
use subgraph_core::{Dir, Graph, GraphBuilder, VertexIds};

/// Runs rayon on one thread unless `RAYON_NUM_THREADS` says otherwise, so that parallel fuzz
/// jobs (`-jobs=N`) do not each start a pool of every core.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("RAYON_NUM_THREADS").is_none() {
            let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
        }
    });
}

/// The input of the targets for formats with free ids: one flag byte (bit 0: directed, for
/// edge lists; bits 1-2: 0 or 3 compact ids, 1 keep, 2 names), then the file, then, after the
/// first NUL byte if any, a vertex label file; read with [`read_free_ids`].
pub fn fuzz_free_ids(format: Format, data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let (file, labels) = match rest.iter().position(|&c| c == 0) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let _ = Format::sniff(file);
    read_free_ids(format, flags, file, labels);
}

/// Reads `file` (and its vertex label file) in `format`, whose ids the reader compacts, keeps or
/// takes as names as bits 1-2 of `flags` say (bit 0: directed, for edge lists), as
/// `subgraph` reads it; whatever loads must meet every invariant ([`check_graph`]), and
/// compacted ids must be kept exactly when they are not 0..n.
pub fn read_free_ids(format: Format, flags: u8, file: &[u8], labels: Option<&[u8]>) {
    let ids = match (flags >> 1) & 3 {
        1 => IdMode::Keep,
        2 => IdMode::Names,
        _ => IdMode::Compact,
    };
    let opts = ReadOptions { format: Some(format), directed: flags & 1 == 1, ids, ..ReadOptions::default() };
    let labels = labels.map(|l| (Path::new("fuzz.labels"), l));
    if let Ok(all) = parse_graphs(Path::new("fuzz.txt"), file, labels, &opts) {
        for l in &all {
            check_graph(&l.graph);
            if let Some(kept) = l.graph.ids() {
                assert_eq!(kept.len(), l.graph.num_vertices());
                assert!(kept.check(l.graph.num_vertices()).is_ok());
            }
        }
    }
}

/// Panics unless `g` meets every invariant the matcher relies on: label tables sorted and each
/// label's vertex list its vertices; each vertex's groups in pair order, each non-empty, sorted
/// by id, holding in-range neighbours of the group's label other than the vertex, together
/// its neighbour list; no neighbour twice; undirected adjacency symmetric with equal edge
/// labels, in-adjacency the mirror of out-adjacency; the edge count that of the lists; and no
/// label or pair in the tables that no vertex or edge has (the builder's normal form); the self
/// loops sorted, distinct and at vertices of the graph; each label set of two labels or more,
/// sorted, below its base, every label from a base up a set's; label names, where the graph has
/// them, naming every member label and loop label.
pub fn check_graph(g: &Graph) {
    let n = g.num_vertices();
    assert!(n <= u32::MAX as usize);
    let loops = g.loops();
    assert!(loops.windows(2).all(|w| w[0] < w[1]), "loops not sorted and distinct: {loops:?}");
    assert!(loops.iter().all(|&(v, _)| (v as usize) < n), "a loop at a vertex out of range: {loops:?}");
    if let Some(s) = g.label_sets() {
        assert!(!s.is_empty(), "empty label sets kept");
        for (base, sets, used) in [
            (s.vertex_base(), s.vertex_sets(), g.vertex_label_values()),
            (s.edge_base(), s.edge_sets(), g.edge_label_values()),
        ] {
            for set in sets {
                assert!(set.len() >= 2 && set.windows(2).all(|w| w[0] < w[1]), "set {set:?}");
                assert!(set.iter().all(|&m| m < base), "set {set:?} not below its base {base}");
            }
            if !sets.is_empty() {
                let top = base as u64 + sets.len() as u64;
                assert!(used.iter().all(|&l| (l as u64) < top), "a label above the sets from {base}: {used:?}");
            }
        }
        if !s.edge_sets().is_empty() {
            assert!(loops.iter().all(|&(_, l)| l < s.edge_base()), "a loop's label taken for a set: {loops:?}");
        }
    }
    if let Some(names) = g.label_names() {
        // Names are those of the file's labels: the sets' members and the loops' labels.
        let vertex: Vec<u32> =
            g.vertex_label_values().iter().flat_map(|l| g.vertex_label_members(l)).copied().collect();
        let edge: Vec<u32> = g
            .edge_label_values()
            .iter()
            .flat_map(|l| g.edge_label_members(l))
            .copied()
            .chain(loops.iter().map(|&(_, l)| l))
            .collect();
        assert!(names.check(&vertex, &edge).is_ok(), "label names do not fit the labels: {names:?}");
    }
    let label = |v: u32| g.label(v);
    let vl = g.vertex_label_values();
    let el = g.edge_label_values();
    assert!(vl.windows(2).all(|w| w[0] < w[1]), "vertex label values not sorted and distinct: {vl:?}");
    assert!(el.windows(2).all(|w| w[0] < w[1]), "edge label values not sorted and distinct: {el:?}");
    for v in 0..n as u32 {
        assert!(vl.binary_search(&label(v)).is_ok(), "label {} of vertex {v} not in the table", label(v));
    }
    for &l in vl {
        let want: Vec<u32> = (0..n as u32).filter(|&v| label(v) == l).collect();
        assert_eq!(g.vertices_with_label(l), &want[..], "vertex list of label {l}");
        assert!(!want.is_empty(), "vertex label {l} in the table but on no vertex");
    }
    let np = g.num_pairs();
    for p in 0..np as u32 {
        let (e, l) = g.pair(p);
        assert!(p == 0 || g.pair(p - 1) < (e, l), "pairs not sorted and distinct");
        assert!(el.binary_search(&e).is_ok() && vl.binary_search(&l).is_ok(), "pair ({e}, {l}) names no label");
        assert_eq!(g.pair_id(e, l), Some(p));
    }
    let dirs: &[Dir] = if g.is_directed() { &[Dir::Out, Dir::In] } else { &[Dir::Out] };
    let mut arcs = [0u64; 2];
    let mut pair_used = vec![false; np];
    for (d, &dir) in dirs.iter().enumerate() {
        for v in 0..n as u32 {
            let all = g.neighbors(v, dir);
            assert_eq!(g.degree(v, dir) as usize, all.len());
            let mut joined = Vec::with_capacity(all.len());
            let mut last = None;
            for (p, nbrs) in g.neighbor_groups(v, dir) {
                assert!((p as usize) < np, "vertex {v} {dir:?}: pair id {p} out of range");
                assert!(last < Some(p), "vertex {v} {dir:?}: groups not in pair order");
                assert!(!nbrs.is_empty(), "vertex {v} {dir:?}: empty group");
                assert!(nbrs.windows(2).all(|w| w[0] < w[1]), "vertex {v} {dir:?}: group not sorted: {nbrs:?}");
                for &w in nbrs {
                    assert!((w as usize) < n && w != v, "vertex {v} {dir:?}: neighbour {w} out of range or self");
                    assert_eq!(label(w), g.pair(p).1, "vertex {v} {dir:?}: neighbour {w} of another label");
                }
                assert_eq!(g.neighbors_by_pair(v, dir, p), nbrs);
                pair_used[p as usize] = true;
                last = Some(p);
                joined.extend_from_slice(nbrs);
            }
            assert_eq!(joined, all, "vertex {v} {dir:?}: groups do not make up the neighbour list");
            joined.sort_unstable();
            joined.dedup();
            assert_eq!(joined.len(), all.len(), "vertex {v} {dir:?}: a neighbour twice (parallel edges)");
            arcs[d] += all.len() as u64;
        }
    }
    assert!(pair_used.iter().all(|&u| u), "a label pair in the table that no group has");
    // Every arc has its mirror: w's list back to v (undirected) or v in w's in-list (directed),
    // with the same edge label; in directed graphs the other way too.
    let back = |dir: Dir| match (g.is_directed(), dir) {
        (true, Dir::Out) => Dir::In,
        _ => Dir::Out,
    };
    for &dir in dirs {
        for v in 0..n as u32 {
            for (p, nbrs) in g.neighbor_groups(v, dir) {
                let e = g.pair(p).0;
                for &w in nbrs {
                    assert!(
                        g.neighbors_labelled(w, back(dir), e, label(v)).binary_search(&v).is_ok(),
                        "arc {v} -> {w} ({dir:?}, edge label {e}) has no mirror"
                    );
                }
            }
        }
    }
    let m = g.num_edges();
    if g.is_directed() {
        assert_eq!((arcs[0], arcs[1]), (m, m), "arcs out and in against {m} edges");
    } else {
        assert_eq!(arcs[0], 2 * m, "arcs against {m} undirected edges");
    }
    let edges: Vec<(u32, u32, u32)> = g.edges().collect();
    assert_eq!(edges.len() as u64, m);
    for &(u, v, l) in &edges {
        assert_eq!(g.edge_label(u, v), Some(l), "edge {u} {v} {l}");
    }
    for &l in el {
        assert!(edges.iter().any(|e| e.2 == l), "edge label {l} in the table but on no edge");
    }
}

/// Panics unless `a` and `b` are the same graph: direction, labels, edges with their labels.
pub fn assert_same(a: &Graph, b: &Graph) {
    assert_eq!(a.is_directed(), b.is_directed(), "directed");
    assert_eq!(a.labels(), b.labels(), "vertex labels");
    assert_eq!(a.num_edges(), b.num_edges(), "edge count");
    let sorted = |g: &Graph| {
        let mut e: Vec<_> = g.edges().collect();
        e.sort_unstable();
        e
    };
    assert_eq!(sorted(a), sorted(b), "edges");
    assert_eq!(a.ids(), b.ids(), "original vertex ids");
    // A side's base means nothing without sets (every label below or past it is itself alone).
    let sets = |g: &Graph| {
        g.label_sets().map(|s| {
            let side = |base: u32, sets: &[Vec<u32>]| (sets.to_vec(), if sets.is_empty() { 0 } else { base });
            (side(s.vertex_base(), s.vertex_sets()), side(s.edge_base(), s.edge_sets()))
        })
    };
    assert_eq!(sets(a), sets(b), "label sets");
    assert_eq!(a.loops(), b.loops(), "self loops");
}

/// A label, mostly from a few small values so that groups and pairs repeat.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Label {
    Small(u8),
    Wide(u32),
}

impl Label {
    fn value(self, small_range: u32) -> u32 {
        match self {
            Label::Small(x) => x as u32 % small_range,
            Label::Wide(x) => x,
        }
    }
}

/// A random graph of at most 64 vertices and 256 edges, with original vertex ids (numbers
/// or names, as the edge-list readers keep them) or without, and up to 64 labels given to
/// vertices beside their own.
#[derive(Debug, Clone, Arbitrary)]
pub struct SmallGraph {
    pub directed: bool,
    pub vertices: u8,
    pub labels: Vec<Label>,
    pub edges: Vec<(u8, u8, Label)>,
    /// 1: numbers, 2: names, else none.
    pub ids: u8,
    /// (vertex, label): more labels, which make set labels.
    pub more_labels: Vec<(u8, Label)>,
}

impl SmallGraph {
    pub const MAX_VERTICES: usize = 64;
    pub const MAX_EDGES: usize = 256;
    pub const MAX_MORE_LABELS: usize = 64;

    /// The graph, through the builder (exact duplicates dropped, self loops kept apart, several
    /// labels of a vertex or edges of a pair made set labels, as it does). Where the set labels
    /// would run past 2^32 - 1 (wide labels near the top), the wide labels are taken below
    /// 2^32 - 1024, which leaves room for every set.
    pub fn build(&self, directed: bool) -> Graph {
        self.build_within(directed, u32::MAX)
            .or_else(|| self.build_within(directed, u32::MAX - 1024))
            .expect("a small graph builds")
    }

    fn build_within(&self, directed: bool, top: u32) -> Option<Graph> {
        let n = self.vertices as usize % (Self::MAX_VERTICES + 1);
        let value = |l: Label, small: u32| l.value(small).min(top);
        let mut b = GraphBuilder::new(n, directed);
        let labels = (0..n).map(|v| self.labels.get(v).map_or(0, |&l| value(l, 6))).collect();
        b.set_labels(labels);
        if n > 0 {
            for &(u, v, l) in self.edges.iter().take(Self::MAX_EDGES) {
                b.add_edge(u as u32 % n as u32, v as u32 % n as u32, value(l, 3));
            }
            for &(v, l) in self.more_labels.iter().take(Self::MAX_MORE_LABELS) {
                b.add_label(v as u32 % n as u32, value(l, 6));
            }
        }
        match self.ids % 4 {
            1 => b.set_ids(VertexIds::Numbers((0..n as u64).map(|v| (v + 1) * 1_000_000_007).collect())),
            2 => b.set_ids(VertexIds::names(&(0..n).map(|v| format!("v{v:03}")).collect::<Vec<_>>())),
            _ => {}
        }
        b.try_build().ok().map(|(g, _)| g)
    }
}
