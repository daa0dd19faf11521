//! Which numbering of the data graph's vertices the engines see (`--vertex-order`): the file's,
//! or ascending degree (`Graph::renumbered`, hubs last, so that symmetry breaking's
//! restrictions cut hubs' lists), chosen by name or, under `auto`, by the queries of the run.

use subgraph_core::automorphism::Automorphisms;
use subgraph_core::host::bytes;
use subgraph_core::plan::Symmetry;
use subgraph_core::{Graph, Semantics};

/// A numbering of the data graph's vertices, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexOrder {
    /// Degree where [`renumbers`] says it pays, else the file's.
    Auto,
    /// The file's (the reader's compaction of its ids).
    File,
    /// Ascending total degree, ties by the file's order.
    Degree,
}

impl VertexOrder {
    pub const NAMES: &'static [&'static str] = &["auto", "file", "degree"];

    pub fn from_name(name: &str) -> Option<VertexOrder> {
        match name {
            "auto" => Some(VertexOrder::Auto),
            "file" => Some(VertexOrder::File),
            "degree" => Some(VertexOrder::Degree),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            VertexOrder::Auto => "auto",
            VertexOrder::File => "file",
            VertexOrder::Degree => "degree",
        }
    }
}

/// Why a data graph is not renumbered where `degree` asks for it: the message a front end
/// shows.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NumberingError(pub String);

/// Whether `auto` renumbers `data` by degree for `queries` (query graphs; patterns are not
/// looked at), matched under `semantics` and `symmetry`: where symmetry breaking applies
/// (injective semantics, symmetry not off), some query has automorphisms (so restrictions
/// order its vertices by number), the data's vertices are unlabelled (one label), and
/// [`check`] lets it.
///
/// On labelled graphs the measured effect was mixed (bench/results/2026-12-01-vertex-order.md):
/// on one thread the degree order ran yeast's heavy queries 0.89 times as fast by the geomean
/// and a 32-label R-MAT graph's 0.77 times (its queries with the same plans 0.61–0.99 times),
/// while unlabelled R-MAT's symmetric queries gained 1.3–2.3 times by the geomean on the GPU
/// and the CPU.
pub fn renumbers<'a>(
    data: &Graph,
    queries: impl IntoIterator<Item = &'a Graph>,
    semantics: Semantics,
    symmetry: Symmetry,
    max_memory: Option<u64>,
) -> bool {
    let breaks = semantics.injective() && symmetry != Symmetry::Off;
    breaks
        && unlabelled_and_fits(data, max_memory)
        && queries.into_iter().any(|q| Automorphisms::of(q).order().is_none_or(|n| n > 1))
}

/// Whether `data`'s vertices are unlabelled (one label) and [`check`] lets it be renumbered:
/// what both `auto`s ask of the data.
fn unlabelled_and_fits(data: &Graph, max_memory: Option<u64>) -> bool {
    data.vertex_label_values().len() <= 1 && check(data, max_memory).is_ok()
}

/// Whether a partition (`subgraph partition`, made before any query is known) in `order`
/// renumbers `data` by degree: `degree` always, `file` never, and `auto` where its vertices
/// are unlabelled (one label) and [`check`] lets it. Measured on unlabelled R-MAT graphs in
/// the cluster (bench/results/2026-12-02-cluster-balance.md, 1 to 4 processes): 4-cliques
/// 3.0–3.7 times and triangles 1.2–1.8 times as fast as on the file's numbering (medians); on
/// one host the asymmetric diamond, 4-cycle, paw and house gained 1.12–1.38 times on the CPU
/// too (bench/results/2026-12-01-vertex-order.md).
pub fn partition_renumbers(order: VertexOrder, data: &Graph, max_memory: Option<u64>) -> bool {
    match order {
        VertexOrder::File => false,
        VertexOrder::Degree => true,
        VertexOrder::Auto => unlabelled_and_fits(data, max_memory),
    }
}

/// `data` renumbered by ascending degree, where [`check`] lets it.
pub fn by_degree(data: &Graph, max_memory: Option<u64>) -> Result<Graph, NumberingError> {
    check(data, max_memory)?;
    Ok(data.renumbered(data.degree_order()))
}

/// Whether `data` can be renumbered: its arrays are held in memory (a mapped graph would be
/// copied whole), and the copy fits beside it in `max_memory`.
pub fn check(data: &Graph, max_memory: Option<u64>) -> Result<(), NumberingError> {
    if data.mapped_bytes() > 0 {
        return Err(NumberingError(
            "the data graph is mapped from its file (--mmap), and renumbering it would copy it into memory; use \
             --vertex-order file or --mmap off"
                .into(),
        ));
    }
    let held = data.memory_bytes();
    match max_memory {
        Some(max) if held.saturating_mul(2) > max => Err(NumberingError(format!(
            "renumbering the data graph takes a second copy of its {}, past --max-memory {}; use --vertex-order \
             file",
            bytes(held),
            bytes(max)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::GraphBuilder;

    fn path(labels: Vec<u32>) -> Graph {
        let mut b = GraphBuilder::new(labels.len(), false);
        (1..labels.len() as u32).for_each(|v| b.add_edge(v - 1, v, 0));
        b.set_labels(labels);
        b.build().0
    }

    #[test]
    fn a_partition_renumbers_unlabelled_data_under_auto() {
        let (unlabelled, labelled) = (path(vec![0; 4]), path(vec![0, 1, 0, 1]));
        assert!(partition_renumbers(VertexOrder::Auto, &unlabelled, None));
        assert!(!partition_renumbers(VertexOrder::Auto, &labelled, None));
        assert!(!partition_renumbers(VertexOrder::Auto, &unlabelled, Some(1)), "no room for the copy");
        assert!(partition_renumbers(VertexOrder::Degree, &labelled, None));
        assert!(!partition_renumbers(VertexOrder::File, &unlabelled, None));
    }
}
