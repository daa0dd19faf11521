//! The query graph and the matching semantics: embedding (injective, non-induced), induced
//! embedding and homomorphism, as defined in Sun & Luo §2 and the GSI paper §II.

use crate::error::Error;
use crate::graph::{Dir, Graph};

/// What counts as a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// Injective, label-preserving, every query edge onto a data edge with the same label and
    /// direction (non-induced subgraph isomorphism, "monomorphism"; what the literature counts).
    Embed,
    /// An embedding that also maps non-adjacent query vertices onto non-adjacent data vertices.
    Induced,
    /// Label- and edge-preserving, not necessarily injective.
    Homomorphism,
}

impl Semantics {
    pub const NAMES: &'static [&'static str] = &["embed", "induced", "homomorphism"];

    pub fn from_name(name: &str) -> Option<Semantics> {
        match name {
            "embed" | "embedding" | "isomorphism" => Some(Semantics::Embed),
            "induced" => Some(Semantics::Induced),
            "homomorphism" | "hom" => Some(Semantics::Homomorphism),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Semantics::Embed => "embed",
            Semantics::Induced => "induced",
            Semantics::Homomorphism => "homomorphism",
        }
    }

    /// Distinct query vertices map to distinct data vertices.
    pub fn injective(self) -> bool {
        self != Semantics::Homomorphism
    }
}

/// One query edge seen from one endpoint: the data edge must go from this endpoint's match in
/// direction `dir` to `to`'s match and carry `label`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryEdge {
    pub to: u32,
    pub label: u32,
    pub dir: Dir,
}

/// A query graph checked against a data graph, with its incident edges per vertex.
#[derive(Debug, Clone)]
pub struct Query {
    graph: Graph,
    edges: Vec<Vec<QueryEdge>>,
}

impl Query {
    /// Checks that the query can be matched against `data` under `semantics`.
    pub fn new(graph: Graph, data: &Graph, semantics: Semantics) -> Result<Query, Error> {
        let n = graph.num_vertices();
        if n == 0 {
            return Err(Error::Query("the query has no vertices".into()));
        }
        if graph.is_directed() != data.is_directed() {
            let (q, d) = if graph.is_directed() { ("directed", "undirected") } else { ("undirected", "directed") };
            return Err(Error::Query(format!(
                "the query is {q} but the data graph is {d}; convert one of them (edge lists take --directed)"
            )));
        }
        if semantics.injective() && n > data.num_vertices() {
            return Err(Error::Query(format!(
                "the query has {n} vertices, more than the data graph's {}: no embedding can exist",
                data.num_vertices()
            )));
        }
        let mut edges = vec![Vec::new(); n];
        for (a, b, label) in graph.edges() {
            edges[a as usize].push(QueryEdge { to: b, label, dir: Dir::Out });
            let back = if graph.is_directed() { Dir::In } else { Dir::Out };
            edges[b as usize].push(QueryEdge { to: a, label, dir: back });
        }
        Ok(Query { graph, edges })
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    pub fn label(&self, u: u32) -> u32 {
        self.graph.label(u)
    }

    /// Whether query vertex u may map to data vertex v as far as its restriction (a pattern's
    /// property tests) goes.
    #[inline]
    pub fn allows(&self, u: u32, v: u32) -> bool {
        self.graph.allowed(u).is_none_or(|set| set.contains(v))
    }

    /// The edges incident to u (for a directed query, both out- and in-edges).
    pub fn edges(&self, u: u32) -> &[QueryEdge] {
        &self.edges[u as usize]
    }

    /// Number of query edges incident to u.
    pub fn degree(&self, u: u32) -> usize {
        self.edges[u as usize].len()
    }

    /// The query edge from a in direction `dir` to b, if any.
    pub fn edge(&self, a: u32, b: u32, dir: Dir) -> Option<QueryEdge> {
        self.edges[a as usize].iter().copied().find(|e| e.to == b && e.dir == dir)
    }

    /// Whether a and b are adjacent in any direction.
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        self.edges[a as usize].iter().any(|e| e.to == b)
    }

    /// Number of connected components (edges taken as undirected).
    pub fn components(&self) -> usize {
        let n = self.num_vertices();
        let mut seen = vec![false; n];
        let mut count = 0;
        for s in 0..n {
            if seen[s] {
                continue;
            }
            count += 1;
            let mut stack = vec![s as u32];
            seen[s] = true;
            while let Some(u) = stack.pop() {
                for e in self.edges(u) {
                    if !std::mem::replace(&mut seen[e.to as usize], true) {
                        stack.push(e.to);
                    }
                }
            }
        }
        count
    }
}
