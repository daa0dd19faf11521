//! Renumbering a data graph's vertices, by ascending degree where the matcher asks for it, with
//! the way back to the ids the file wrote kept in [`VertexIds::Renumbered`].
//!
//! Symmetry breaking (`automorphism`, semantics.md) keeps the embeddings whose symmetric query
//! vertices increase with the data vertices' numbers, and cuts each candidate list by number. A
//! clique's first vertex then has every other above it: where hubs hold the low numbers (R-MAT
//! graphs, crawls numbered by discovery) each hub is a first vertex whose long list is read
//! whole, and where they hold the highest, what a hub must extend is cut to the few vertices
//! above it. This is the orientation by degree of triangle counting, reached by numbering alone,
//! so every engine gains from it unchanged (bench/results/2026-12-01-vertex-order.md: the
//! 4-cliques of unlabelled R-MAT graphs 2.4–3.6 times faster on the GPU, 3.1–3.3 on the CPU).

use super::array::Array;
use super::builder::label_index;
use super::csr::{Adjacency, Graph};
use super::ids::{inverse, VertexIds};
use super::properties::{Column, Properties, Values};
use rayon::prelude::*;
use std::sync::Arc;

/// Vertices per piece of the parallel copies.
const CHUNK_VERTICES: usize = 4096;

impl Graph {
    /// The order of the vertices by ascending total degree, ties by number: the old vertex of
    /// each new number.
    pub fn degree_order(&self) -> Vec<u32> {
        let mut keys: Vec<u64> = (0..self.num_vertices() as u32)
            .into_par_iter()
            .map(|v| (u64::from(self.total_degree(v)) << 32) | u64::from(v))
            .collect();
        keys.par_sort_unstable();
        keys.into_par_iter().map(|k| k as u32).collect()
    }

    /// The same graph with vertex `old[i]` numbered i (`old` a permutation of the vertices):
    /// labels, adjacency (each group sorted by the new numbers), label index, self loops and
    /// properties follow their vertices, and [`Graph::original_id`] still gives the file's ids.
    /// Mapped arrays are copied into memory.
    pub fn renumbered(&self, old: Vec<u32>) -> Graph {
        assert_eq!(old.len(), self.num_vertices(), "one old vertex per vertex");
        let new = inverse(&old);
        let labels: Vec<u32> = old.par_iter().map(|&o| self.labels[o as usize]).collect();
        let vrank: Vec<u32> =
            labels.par_iter().map(|l| self.vlabel_values.binary_search(l).expect("label present") as u32).collect();
        let (vlabel_offsets, vlabel_vertices) = label_index(&vrank, self.vlabel_values.len());
        let mut loops: Vec<(u32, u32)> = self.loops.iter().map(|&(v, l)| (new[v as usize], l)).collect();
        loops.sort_unstable();
        let properties = self.properties.as_ref().map(|p| Arc::new(p.renumbered(&old, &new)));
        // A renumbering of a renumbering goes back to the ids of the graph as read.
        let ids = match self.ids.as_deref() {
            Some(VertexIds::Renumbered { base, old: before, .. }) => {
                VertexIds::renumbering(base.clone(), old.par_iter().map(|&o| before[o as usize]).collect())
            }
            _ => VertexIds::Renumbered { base: self.ids.clone(), old: old.clone(), new: new.clone() },
        };
        Graph {
            directed: self.directed,
            labels,
            num_edges: self.num_edges,
            out: renumber_adjacency(&self.out, &old, &new),
            inc: self.inc.as_ref().map(|a| renumber_adjacency(a, &old, &new)),
            pairs: self.pairs.clone(),
            vlabel_values: self.vlabel_values.clone(),
            vlabel_offsets,
            vlabel_vertices,
            elabel_values: self.elabel_values.clone(),
            elabel_counts: self.elabel_counts.clone(),
            ids: Some(Arc::new(ids)),
            label_names: self.label_names.clone(),
            properties,
            allowed: self.allowed.clone(),
            label_sets: self.label_sets.clone(),
            loops: Arc::new(loops),
        }
    }
}

/// `adj` with vertex `old[i]` numbered i: each vertex's groups in their order, the neighbours
/// of each renumbered by `new` and sorted again.
fn renumber_adjacency(adj: &Adjacency, old: &[u32], new: &[u32]) -> Adjacency {
    let lengths = |offsets: &[u64]| -> Vec<u64> {
        let mut out = Vec::with_capacity(old.len() + 1);
        out.push(0u64);
        let mut at = 0u64;
        for &o in old {
            at += offsets[o as usize + 1] - offsets[o as usize];
            out.push(at);
        }
        out
    };
    let offsets = lengths(&adj.offsets);
    let group_offsets = lengths(&adj.group_offsets);
    let group_pair = fill_by_vertex(&group_offsets, |i, out: &mut [u32]| {
        let o = old[i] as usize;
        out.copy_from_slice(&adj.group_pair[adj.group_offsets[o] as usize..adj.group_offsets[o + 1] as usize]);
    });
    let group_end = fill_by_vertex(&group_offsets, |i, out: &mut [u32]| {
        let o = old[i] as usize;
        out.copy_from_slice(&adj.group_end[adj.group_offsets[o] as usize..adj.group_offsets[o + 1] as usize]);
    });
    let nbrs = fill_by_vertex(&offsets, |i, out: &mut [u32]| {
        let o = old[i];
        let mut start = 0;
        for (_, group) in adj.groups(o) {
            let piece = &mut out[start..start + group.len()];
            piece.iter_mut().zip(group).for_each(|(x, &w)| *x = new[w as usize]);
            piece.sort_unstable();
            start += group.len();
        }
    });
    Adjacency {
        offsets: Array::from(offsets),
        nbrs: Array::from(nbrs),
        group_offsets: Array::from(group_offsets),
        group_pair: Array::from(group_pair),
        group_end: Array::from(group_end),
    }
}

/// An array of `offsets[n]` entries whose entries `offsets[i]..offsets[i + 1]` are vertex i's,
/// written by `fill(i, them)` for every vertex, in parallel pieces of whole vertices.
fn fill_by_vertex(offsets: &[u64], fill: impl Fn(usize, &mut [u32]) + Sync) -> Vec<u32> {
    let n = offsets.len() - 1;
    let mut out = vec![0u32; offsets[n] as usize];
    let mut pieces: Vec<(usize, &mut [u32])> = Vec::new();
    let mut rest: &mut [u32] = &mut out;
    for start in (0..n).step_by(CHUNK_VERTICES) {
        let end = (start + CHUNK_VERTICES).min(n);
        let (head, tail) = std::mem::take(&mut rest).split_at_mut((offsets[end] - offsets[start]) as usize);
        pieces.push((start, head));
        rest = tail;
    }
    pieces.into_par_iter().for_each(|(start, piece)| {
        let end = (start + CHUNK_VERTICES).min(n);
        let base = offsets[start];
        for i in start..end {
            fill(i, &mut piece[(offsets[i] - base) as usize..(offsets[i + 1] - base) as usize]);
        }
    });
    out
}

impl Properties {
    /// The columns with vertex `old[i]` numbered i (`new` the inverse).
    pub(crate) fn renumbered(&self, old: &[u32], new: &[u32]) -> Properties {
        let columns =
            self.columns().iter().map(|c| Column { name: c.name.clone(), values: c.values.renumbered(old, new) });
        Properties::new(columns.collect())
    }
}

impl Values {
    /// The values with vertex `old[i]` numbered i (`new` the inverse).
    fn renumbered(&self, old: &[u32], new: &[u32]) -> Values {
        match self {
            Values::Sparse { len, vertices, values } => {
                // (new number, entry) by new number; the entries' values in that order.
                let mut order: Vec<(u32, u32)> =
                    vertices.iter().enumerate().map(|(k, &v)| (new[v as usize], k as u32)).collect();
                order.sort_unstable();
                let entries: Vec<u32> = order.iter().map(|&(_, k)| k).collect();
                Values::Sparse {
                    len: *len,
                    vertices: order.iter().map(|&(v, _)| v).collect(),
                    values: Box::new(values.gathered(&entries)),
                }
            }
            dense => dense.gathered(old),
        }
    }

    /// A dense column whose entry i is entry `at[i]` of this one.
    fn gathered(&self, at: &[u32]) -> Values {
        let pick = |i: &u32| *i as usize;
        match self {
            Values::Int { values, present } => Values::Int {
                values: at.iter().map(|i| values[pick(i)]).collect(),
                present: at.iter().map(|i| present[pick(i)]).collect(),
            },
            Values::Float { values, present } => Values::Float {
                values: at.iter().map(|i| values[pick(i)]).collect(),
                present: at.iter().map(|i| present[pick(i)]).collect(),
            },
            Values::Str { codes, dictionary } => {
                Values::Str { codes: at.iter().map(|i| codes[pick(i)]).collect(), dictionary: dictionary.clone() }
            }
            Values::Sparse { .. } => unreachable!("a sparse column holds a dense one"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Dir, GraphBuilder, Id, Value};

    /// A directed graph of named vertices with a hub (vertex 0), labels, a loop, a vertex of
    /// two labels and properties, one column dense and one sparse.
    fn sample() -> Graph {
        let edges = vec![(0, 1, 0), (0, 2, 1), (0, 3, 0), (0, 4, 0), (1, 0, 0), (2, 3, 1), (4, 4, 2), (3, 4, 0)];
        let mut b = GraphBuilder::from_parts(vec![1, 2, 1, 2, 1], edges, true);
        b.add_label(3, 7);
        b.set_ids(VertexIds::names(&["ann", "bob", "cy", "di", "ed"]));
        let ages = Values::Int { values: vec![30, 40, 50, 60, 70], present: vec![true, true, false, true, true] };
        let city = Values::of_vertices(
            5,
            vec![0, 3],
            Values::Str { codes: vec![1, 0], dictionary: vec!["oslo".into(), "rome".into()] },
        );
        assert!(matches!(city, Values::Sparse { .. }));
        b.set_properties(Properties::new(vec![
            Column { name: "age".into(), values: ages },
            Column { name: "city".into(), values: city },
        ]));
        b.build().0
    }

    /// Everything a vertex is, named by its original id: label, labelled neighbours both ways,
    /// loops, properties.
    fn describe(g: &Graph) -> Vec<String> {
        let mut out: Vec<String> = (0..g.num_vertices() as u32)
            .map(|v| {
                let name = |w: u32| g.original_id(w).to_string();
                let mut nbrs = Vec::new();
                for dir in [Dir::Out, Dir::In] {
                    for (pair, group) in g.neighbor_groups(v, dir) {
                        assert!(group.windows(2).all(|w| w[0] < w[1]), "groups sorted by number");
                        nbrs.extend(group.iter().map(|&w| format!("{dir:?}{:?}{}", g.pair(pair), name(w))));
                    }
                }
                nbrs.sort();
                let loops: Vec<u32> = g.loops().iter().filter(|l| l.0 == v).map(|l| l.1).collect();
                let props = g.properties().unwrap();
                let (age, city) = (props.column("age").unwrap().get(v), props.column("city").unwrap().get(v));
                format!("{} {} {nbrs:?} {loops:?} {age:?} {city:?}", name(v), g.label(v))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn renumbering_keeps_every_fact_of_every_vertex() {
        let g = sample();
        let order = g.degree_order();
        assert_eq!(*order.last().unwrap(), 0, "the hub is numbered last");
        let degrees: Vec<u32> = order.iter().map(|&v| g.total_degree(v)).collect();
        assert!(degrees.windows(2).all(|w| w[0] <= w[1]));
        let r = g.renumbered(order.clone());
        assert_eq!(describe(&r), describe(&g));
        assert_eq!(r.original_id(4), Id::Name("ann"));
        assert_eq!(r.ids().unwrap().find(Id::Name("ann")), Some(4));
        assert_eq!(r.ids().unwrap().find(Id::Name("zed")), None);
        assert!(r.ids().unwrap().check(5).is_ok());
        for l in g.vertex_label_values() {
            let mut mapped: Vec<String> =
                g.vertices_with_label(*l).iter().map(|&v| g.original_id(v).to_string()).collect();
            let mut back: Vec<String> =
                r.vertices_with_label(*l).iter().map(|&v| r.original_id(v).to_string()).collect();
            assert!(r.vertices_with_label(*l).windows(2).all(|w| w[0] < w[1]));
            mapped.sort();
            back.sort();
            assert_eq!(mapped, back);
        }
        assert_eq!(r.properties().unwrap().column("city").unwrap().get(4), Some(Value::Str("rome")));
        // Renumbered again: still the file's ids, through one renumbering.
        let again = r.renumbered(vec![4, 3, 2, 1, 0]);
        assert_eq!(describe(&again), describe(&g));
        assert_eq!(again.original_id(0), Id::Name("ann"));
        let Some(VertexIds::Renumbered { base, .. }) = again.ids().map(|i| &**i) else { panic!("renumbered") };
        assert!(matches!(base.as_deref(), Some(VertexIds::Names { .. })));
    }

    #[test]
    fn numbers_of_a_graph_without_ids_stay_narrow() {
        let g = GraphBuilder::from_parts(vec![0; 4], vec![(0, 1, 0), (0, 2, 0), (0, 3, 0)], false).build().0;
        let r = g.renumbered(g.degree_order());
        let ids = r.ids().unwrap();
        assert!(ids.are_numbers() && !ids.are_wide_numbers());
        assert_eq!(
            (r.original_id(3), ids.find(Id::Number(0)), ids.find(Id::Number(4))),
            (Id::Number(0), Some(3), None)
        );
        assert_eq!(ids.find(Id::Number(1 << 40)), None);
        let bad = VertexIds::Renumbered { base: None, old: vec![0, 0], new: vec![0, 1] };
        assert!(bad.check(2).is_err());
    }
}
