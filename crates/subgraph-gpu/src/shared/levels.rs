//! What the kernels read about each plan position (GSI §V): its descriptor (links, non-edges,
//! injectivity, symmetry bounds), its candidates as a bitset and a sorted list, and the device
//! index of each direction; the most columns a table may have.

use subgraph_core::plan::{Link, Plan};
use subgraph_core::{Dir, Graph};
use subgraph_cuda::DeviceBuffer;

use crate::options::Structure;

/// Most columns (query vertices) a table may have; the row is cached in shared memory.
pub const MAX_COLUMNS: usize = 64;

/// What the kernels read about one plan position.
pub(crate) struct LevelData {
    pub(crate) desc: DeviceBuffer<u32>,
    pub(crate) bitset: DeviceBuffer<u32>,
    pub(crate) cands: DeviceBuffer<u32>,
}

/// Index of a direction in the device structures: 0 out (all edges when undirected), 1 in.
pub fn dir_index(dir: Dir) -> u32 {
    match dir {
        Dir::Out => 0,
        Dir::In => 1,
    }
}

/// Words of a level descriptor before its links.
pub const DESC_HEADER: usize = 8;

/// The descriptor of plan position `pos` as `join.cu` reads it: its words 0–5 are the table's
/// columns (= pos), links, non-edges, injective, the query vertex's label and symmetry
/// bounds; then per link (from, structure, edge label), where `structure(k, link)`
/// names the device structure holding the slices of the position's link k; then per non-edge (from,
/// direction); then per bound the column whose vertex the candidate must exceed.
pub fn level_descriptor(
    plan: &Plan,
    pos: usize,
    vertex_label: u32,
    injective: bool,
    structure: impl Fn(usize, &Link) -> u32,
) -> Vec<u32> {
    let links = &plan.backward[pos];
    let non_edges = &plan.non_edges[pos];
    let mut desc = vec![0u32; DESC_HEADER];
    desc[0] = pos as u32;
    desc[1] = links.len() as u32;
    desc[2] = non_edges.len() as u32;
    desc[3] = u32::from(injective);
    desc[4] = vertex_label;
    desc[5] = plan.greater_than[pos].len() as u32;
    for (k, l) in links.iter().enumerate() {
        desc.extend([l.from as u32, structure(k, l), l.edge_label]);
    }
    for ne in non_edges {
        desc.extend([ne.from as u32, dir_index(ne.dir)]);
    }
    desc.extend(plan.greater_than[pos].iter().map(|&p| p as u32));
    desc
}

/// The device index of N(·, dir, edge label) in `structure`: one PCSR per (direction, edge
/// label), one CSR per direction. Edge labels absent from the data map to 0; a plan whose query
/// has one is empty and never reaches the device.
pub(crate) fn structure_index(data: &Graph, structure: Structure) -> impl Fn(Dir, u32) -> u32 + '_ {
    let labels = data.edge_label_values();
    move |dir, label| match structure.base() {
        Structure::Csr => dir_index(dir),
        _ => dir_index(dir) * labels.len() as u32 + labels.binary_search(&label).unwrap_or(0) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::filter::Filter;
    use subgraph_core::order::Order;
    use subgraph_core::plan::PlanOptions;
    use subgraph_core::sink::Control;
    use subgraph_core::{GraphBuilder, Query, Semantics};

    #[test]
    fn descriptor_layout() {
        // Directed triangle 0→1→2→0 with labels; query = the same triangle.
        let data = GraphBuilder::from_parts(vec![5, 6, 7], vec![(0, 1, 3), (1, 2, 4), (2, 0, 3)], true).build().0;
        let query = data.clone();
        for semantics in [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism] {
            let q = Query::new(query.clone(), &data, semantics).unwrap();
            let opts =
                PlanOptions { semantics, filter: Filter::Ldf, order: Some(Order::Gsi), ..PlanOptions::default() };
            let plan = Plan::new(&data, &q, opts, &Control::unlimited());
            for pos in 0..plan.len() {
                let label = query.label(plan.vertices[pos]);
                let desc = level_descriptor(&plan, pos, label, semantics.injective(), |_, l| {
                    10 * dir_index(l.dir) + l.edge_label
                });
                let k = plan.backward[pos].len();
                let m = plan.non_edges[pos].len();
                let b = plan.greater_than[pos].len();
                assert_eq!(desc.len(), DESC_HEADER + 3 * k + 2 * m + b);
                assert_eq!(
                    desc[..6],
                    [pos as u32, k as u32, m as u32, u32::from(semantics.injective()), label, b as u32]
                );
                for (t, &p) in plan.greater_than[pos].iter().enumerate() {
                    assert_eq!(desc[DESC_HEADER + 3 * k + 2 * m + t], p as u32);
                }
                for (j, l) in plan.backward[pos].iter().enumerate() {
                    let at = DESC_HEADER + 3 * j;
                    assert_eq!(desc[at..at + 3], [l.from as u32, 10 * dir_index(l.dir) + l.edge_label, l.edge_label]);
                }
                for (t, ne) in plan.non_edges[pos].iter().enumerate() {
                    let at = DESC_HEADER + 3 * k + 2 * t;
                    assert_eq!(desc[at..at + 2], [ne.from as u32, dir_index(ne.dir)]);
                }
                assert_eq!(k, pos, "a triangle links each position to all earlier ones");
                if semantics != Semantics::Induced {
                    assert_eq!(m, 0);
                }
            }
        }
    }
}
