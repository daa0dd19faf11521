//! Query sets extracted from a data graph by random walks, as in Sun & Luo's benchmark (SIGMOD
//! 2020, §6: a walk collects K distinct vertices, the query is their induced subgraph, dense
//! when its average degree is at least 3 and sparse otherwise) and GSI's evaluation (ICDE 2020:
//! a walk, then extra edges among the walk's vertices up to a target edge count). Queries keep
//! the data's labels and are relabelled 0..K-1 in walk order, so each has an embedding by
//! construction: query vertex i to walk vertex i.

use crate::rng::{hash, Rng};
use crate::GenError;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use subgraph_core::io::{write_graph, Format};
use subgraph_core::{Dir, Graph, GraphBuilder};

/// Which queries to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// Induced subgraph with average degree at least 3.
    Dense,
    /// Induced subgraph with average degree below 3.
    Sparse,
    /// The walk's tree edges plus random induced edges, `edges` in all.
    Gsi { edges: usize },
}

impl QueryKind {
    /// The kind's name in file names: `dense`, `sparse` or `gsi`.
    pub fn name(&self) -> &'static str {
        match self {
            QueryKind::Dense => "dense",
            QueryKind::Sparse => "sparse",
            QueryKind::Gsi { .. } => "gsi",
        }
    }
}

/// A query set to extract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuerySpec {
    /// Query vertices, K.
    pub size: usize,
    /// Number of queries.
    pub count: usize,
    pub kind: QueryKind,
    pub seed: u64,
    /// Walks tried per query before giving up.
    pub max_tries: usize,
}

/// Walks tried per query unless a spec says otherwise.
pub const DEFAULT_MAX_TRIES: usize = 10_000;
/// Steps a walk may take per vertex it must collect before it is abandoned.
const STEPS_PER_VERTEX: usize = 64;
const TAG_QUERY: u64 = 0x7175_6572;

/// An extracted query and where it came from.
#[derive(Debug, Clone)]
pub struct Query {
    pub graph: Graph,
    /// `vertices[i]` is the data vertex of query vertex i: an embedding of the query.
    pub vertices: Vec<u32>,
}

/// Extracts `spec.count` queries; query i depends only on (data, spec, i), and they are
/// extracted in parallel.
pub fn extract_queries(data: &Graph, spec: &QuerySpec) -> Result<Vec<Query>, GenError> {
    check(data, spec)?;
    (0..spec.count).into_par_iter().map(|i| extract_query(data, spec, i)).collect()
}

fn check(data: &Graph, spec: &QuerySpec) -> Result<(), GenError> {
    if spec.size < 2 {
        return Err(GenError::Spec(format!("a query needs at least 2 vertices, not {}", spec.size)));
    }
    if spec.size > data.num_vertices() {
        return Err(GenError::Spec(format!(
            "queries of {} vertices cannot come from a graph of {}",
            spec.size,
            data.num_vertices()
        )));
    }
    if let QueryKind::Gsi { edges } = spec.kind {
        let k = spec.size;
        let max = if data.is_directed() { k * (k - 1) } else { k * (k - 1) / 2 };
        if edges < k - 1 || edges > max {
            return Err(GenError::Spec(format!(
                "a connected query of {k} vertices has between {} and {max} edges, not {edges}",
                k - 1
            )));
        }
    }
    if data.num_edges() == 0 {
        return Err(GenError::Spec("the data graph has no edges to walk".into()));
    }
    Ok(())
}

/// Extracts query `index` (0-based; written as number `index + 1`), trying up to
/// `spec.max_tries` walks.
pub fn extract_query(data: &Graph, spec: &QuerySpec, index: usize) -> Result<Query, GenError> {
    check(data, spec)?;
    let mut rng = Rng::new(hash(spec.seed, &[TAG_QUERY, index as u64]));
    for _ in 0..spec.max_tries {
        if let Some(q) = try_walk(data, spec, &mut rng)? {
            return Ok(q);
        }
    }
    let why = match spec.kind {
        QueryKind::Dense => "an induced subgraph of average degree >= 3",
        QueryKind::Sparse => "an induced subgraph of average degree < 3",
        QueryKind::Gsi { .. } => "enough edges among its vertices",
    };
    Err(GenError::NoQuery(format!(
        "query {}: none of {} random walks reached {} distinct vertices with {why}; the data may be too \
         sparse or too dense for this kind, or its components smaller than {}",
        index + 1,
        spec.max_tries,
        spec.size,
        spec.size
    )))
}

/// One walk; None when it failed to give a query of the asked kind.
fn try_walk(data: &Graph, spec: &QuerySpec, rng: &mut Rng) -> Result<Option<Query>, GenError> {
    let n = data.num_vertices() as u64;
    let k = spec.size;
    let start = rng.below(n) as u32;
    let mut index: HashMap<u32, u32> = HashMap::with_capacity(k);
    let mut vertices = vec![start];
    index.insert(start, 0);
    // Arcs (query source, query target) by which the walk first reached each vertex.
    let mut tree: Vec<(u32, u32)> = Vec::with_capacity(k - 1);
    let mut at = start;
    for _ in 0..STEPS_PER_VERTEX * k {
        if vertices.len() == k {
            break;
        }
        let out = data.neighbors(at, Dir::Out);
        let inc: &[u32] = if data.is_directed() { data.neighbors(at, Dir::In) } else { &[] };
        let degree = (out.len() + inc.len()) as u64;
        if degree == 0 {
            return Ok(None);
        }
        let r = rng.below(degree) as usize;
        let (next, forward) = if r < out.len() { (out[r], true) } else { (inc[r - out.len()], false) };
        if !index.contains_key(&next) {
            let (a, b) = (index[&at], vertices.len() as u32);
            index.insert(next, b);
            vertices.push(next);
            tree.push(if forward { (a, b) } else { (b, a) });
        }
        at = next;
    }
    if vertices.len() < k {
        return Ok(None);
    }
    // The induced arcs (each undirected edge once, from its smaller data id).
    let mut induced: Vec<(u32, u32, u32)> = Vec::new();
    for (qi, &v) in vertices.iter().enumerate() {
        for (pair, nbrs) in data.neighbor_groups(v, Dir::Out) {
            let label = data.pair(pair).0;
            for w in nbrs {
                if let Some(&qj) = index.get(w) {
                    if data.is_directed() || v < *w {
                        induced.push((qi as u32, qj, label));
                    }
                }
            }
        }
    }
    let edges = match spec.kind {
        QueryKind::Dense | QueryKind::Sparse => {
            let dense = 2 * induced.len() >= 3 * k;
            if dense != (spec.kind == QueryKind::Dense) {
                return Ok(None);
            }
            induced
        }
        QueryKind::Gsi { edges } => {
            if induced.len() < edges {
                return Ok(None);
            }
            let is_tree = |&(a, b, _): &(u32, u32, u32)| {
                tree.contains(&(a, b)) || (!data.is_directed() && tree.contains(&(b, a)))
            };
            let (mut chosen, mut rest): (Vec<_>, Vec<_>) = induced.into_iter().partition(is_tree);
            let extra = edges - chosen.len();
            for i in 0..extra {
                let j = i + rng.below((rest.len() - i) as u64) as usize;
                rest.swap(i, j);
            }
            chosen.extend_from_slice(&rest[..extra]);
            chosen.sort_unstable();
            chosen
        }
    };
    let labels = vertices.iter().map(|&v| data.label(v)).collect();
    let (graph, _) = GraphBuilder::from_parts(labels, edges, data.is_directed()).try_build()?;
    Ok(Some(Query { graph, vertices }))
}

/// The file name of query `index` (1-based): `query_{kind}_{size}_{index}.graph`, or `.g` for
/// directed data (GSI's format).
pub fn query_file_name(kind: QueryKind, size: usize, index: usize, directed: bool) -> String {
    let ext = if directed { "g" } else { "graph" };
    format!("query_{}_{size}_{index}.{ext}", kind.name())
}

/// Writes the queries into `dir` (created if missing), numbered from 1; returns the paths.
pub fn write_queries(queries: &[Query], kind: QueryKind, dir: &Path) -> Result<Vec<PathBuf>, GenError> {
    std::fs::create_dir_all(dir).map_err(|source| subgraph_core::Error::Io { file: dir.to_path_buf(), source })?;
    queries
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let directed = q.graph.is_directed();
            let path = dir.join(query_file_name(kind, q.graph.num_vertices(), i + 1, directed));
            write_graph(&q.graph, &path, if directed { Format::Gsi } else { Format::SunLuo })?;
            Ok(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen_graph::{generate, GraphSpec, LabelDist, Model};

    fn data(n: usize, m: u64, directed: bool, edge_labels: Option<u32>) -> Graph {
        generate(&GraphSpec {
            model: Model::ErdosRenyi,
            vertices: n,
            edges: m,
            vertex_labels: 5,
            label_dist: LabelDist::Uniform,
            edge_labels,
            directed,
            seed: 9,
        })
        .unwrap()
    }

    fn spec(size: usize, kind: QueryKind) -> QuerySpec {
        QuerySpec { size, count: 20, kind, seed: 3, max_tries: DEFAULT_MAX_TRIES }
    }

    /// Every query edge is a data edge between the walk's vertices with the same labels, the
    /// walk's vertices are distinct and the query is connected.
    fn check_embedding(data: &Graph, q: &Query) {
        let k = q.graph.num_vertices();
        assert_eq!(q.vertices.len(), k);
        let mut seen = q.vertices.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), k);
        for i in 0..k as u32 {
            assert_eq!(q.graph.label(i), data.label(q.vertices[i as usize]));
        }
        for (a, b, l) in q.graph.edges() {
            assert_eq!(data.edge_label(q.vertices[a as usize], q.vertices[b as usize]), Some(l));
        }
        let mut reached = vec![false; k];
        let mut stack = vec![0u32];
        reached[0] = true;
        while let Some(v) = stack.pop() {
            for dir in [Dir::Out, Dir::In] {
                for &w in q.graph.neighbors(v, dir) {
                    if !std::mem::replace(&mut reached[w as usize], true) {
                        stack.push(w);
                    }
                }
            }
        }
        assert!(reached.iter().all(|&r| r), "query not connected");
    }

    #[test]
    fn dense_and_sparse_queries_are_induced_subgraphs_of_their_kind() {
        let g = data(150, 3000, false, Some(3));
        let dense = extract_queries(&g, &spec(8, QueryKind::Dense)).unwrap();
        assert_eq!(dense.len(), 20);
        for q in &dense {
            check_embedding(&g, q);
            assert!(2 * q.graph.num_edges() >= 24);
            let mut induced = 0;
            for (i, &v) in q.vertices.iter().enumerate() {
                induced += q.vertices[i + 1..].iter().filter(|&&w| g.edge_label(v, w).is_some()).count();
            }
            assert_eq!(induced as u64, q.graph.num_edges());
        }
        let sparse_data = data(20_000, 40_000, false, None);
        for q in extract_queries(&sparse_data, &spec(12, QueryKind::Sparse)).unwrap() {
            check_embedding(&sparse_data, &q);
            assert!(2 * q.graph.num_edges() < 36);
        }
    }

    #[test]
    fn gsi_queries_have_the_target_edge_count_on_directed_data() {
        let g = data(300, 6000, true, Some(4));
        let qs = extract_queries(&g, &spec(6, QueryKind::Gsi { edges: 8 })).unwrap();
        for q in &qs {
            check_embedding(&g, q);
            assert!(q.graph.is_directed());
            assert_eq!(q.graph.num_edges(), 8);
        }
        let dir = std::env::temp_dir().join(format!("gsi-queries-{}", std::process::id()));
        let paths = write_queries(&qs, QueryKind::Gsi { edges: 8 }, &dir).unwrap();
        assert_eq!(paths[0].file_name().unwrap(), "query_gsi_6_1.g");
        let back = subgraph_core::io::read_graph(&paths[19], &Default::default()).unwrap().graph;
        assert_eq!(back.edges().collect::<Vec<_>>(), qs[19].graph.edges().collect::<Vec<_>>());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn same_seed_same_queries_and_clear_failures() {
        let g = data(2000, 8000, false, None);
        let s = spec(10, QueryKind::Sparse);
        let a = extract_queries(&g, &s).unwrap();
        let b = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| extract_queries(&g, &s).unwrap());
        assert!(a.iter().zip(&b).all(|(x, y)| x.vertices == y.vertices));
        assert_ne!(a[0].vertices, a[1].vertices);
        let mut dense = spec(10, QueryKind::Dense);
        dense.max_tries = 50;
        let e = extract_queries(&g, &dense).unwrap_err().to_string();
        assert!(e.contains("none of 50 random walks reached 10 distinct vertices"), "{e}");
        let e = extract_queries(&g, &spec(10, QueryKind::Gsi { edges: 50 })).unwrap_err().to_string();
        assert_eq!(e, "a connected query of 10 vertices has between 9 and 45 edges, not 50");
        assert!(extract_queries(&g, &spec(3000, QueryKind::Sparse)).is_err());
        assert_eq!(query_file_name(QueryKind::Dense, 16, 3, false), "query_dense_16_3.graph");
    }
}
