//! The proximity graph an index searches (thesis §4.1): every vertex has at most `degree`
//! out-neighbours, stored in a fixed-width row padded with [`NONE`] and sorted nearest first.
//! An HNSW graph (§4.3, the extension) has upper layers, each an id prefix of the layer below:
//! ids are numbered so that the vertices of layer `l` are `0..layers[l].len`, and the search
//! enters at vertex 0 of the top layer.

use std::fmt;
use std::str::FromStr;

use crate::error::{AnnError, Result};

/// An empty slot of an adjacency row.
pub const NONE: u32 = u32::MAX;

/// Which graph a builder makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphKind {
    /// Navigable small world: each vertex joined both ways to its `d_min` nearest earlier ones.
    Nsw,
    /// Hierarchical NSW: an NSW on every id prefix of a geometric series of lengths.
    Hnsw,
    /// The approximate `degree`-nearest-neighbour graph, by NN-descent.
    Knn,
}

impl GraphKind {
    pub const ALL: [GraphKind; 3] = [GraphKind::Nsw, GraphKind::Hnsw, GraphKind::Knn];

    pub fn name(self) -> &'static str {
        match self {
            GraphKind::Nsw => "nsw",
            GraphKind::Hnsw => "hnsw",
            GraphKind::Knn => "knn",
        }
    }
}

impl fmt::Display for GraphKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GraphKind {
    type Err = AnnError;

    fn from_str(s: &str) -> Result<Self> {
        GraphKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| AnnError::Parameter(format!("graph {s:?}: expected nsw, hnsw or knn")))
    }
}

/// One layer: the out-neighbours of vertices `0..len`, `degree` slots each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub degree: usize,
    /// `len * degree` ids, each row nearest first, padded with [`NONE`].
    pub adjacency: Vec<u32>,
}

impl Layer {
    pub fn empty(len: usize, degree: usize) -> Self {
        Layer { degree, adjacency: vec![NONE; len * degree] }
    }

    /// Vertices in the layer.
    pub fn len(&self) -> usize {
        self.adjacency.len() / self.degree
    }

    pub fn is_empty(&self) -> bool {
        self.adjacency.is_empty()
    }

    /// The whole row of `v`, padding included.
    pub fn row(&self, v: u32) -> &[u32] {
        let at = v as usize * self.degree;
        &self.adjacency[at..at + self.degree]
    }

    pub fn row_mut(&mut self, v: u32) -> &mut [u32] {
        let at = v as usize * self.degree;
        &mut self.adjacency[at..at + self.degree]
    }

    /// The out-neighbours of `v`, without padding.
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.row(v).iter().copied().take_while(|&u| u != NONE)
    }
}

/// A proximity graph: `layers[0]` holds every vertex, each layer above an id prefix of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProximityGraph {
    pub kind: GraphKind,
    pub layers: Vec<Layer>,
}

impl ProximityGraph {
    /// Vertices.
    pub fn len(&self) -> usize {
        self.layers[0].len()
    }

    pub fn is_empty(&self) -> bool {
        self.layers[0].is_empty()
    }

    pub fn base(&self) -> &Layer {
        &self.layers[0]
    }

    /// Every out-neighbour is a vertex of its layer, rows hold no repeats and no self loop,
    /// and each layer is a prefix of the one below; the first fault, in one line.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.layers.is_empty() {
            return Err("a graph without layers".into());
        }
        for (l, layer) in self.layers.iter().enumerate() {
            if layer.degree == 0 {
                return Err(format!("layer {l} has degree 0"));
            }
            if l > 0 && layer.len() > self.layers[l - 1].len() {
                return Err(format!("layer {l} has more vertices than the layer below"));
            }
            for v in 0..layer.len() as u32 {
                let row = layer.row(v);
                let used = row.iter().take_while(|&&u| u != NONE).count();
                if row[used..].iter().any(|&u| u != NONE) {
                    return Err(format!("layer {l}, vertex {v}: a neighbour after an empty slot"));
                }
                for (i, &u) in row[..used].iter().enumerate() {
                    if u as usize >= layer.len() || u == v || row[..i].contains(&u) {
                        return Err(format!("layer {l}, vertex {v}: neighbour {u} is out of range or repeated"));
                    }
                }
            }
        }
        Ok(())
    }
}
