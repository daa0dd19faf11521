//! Counts against published answers: all 200 HPRD oracle queries (RapidsAtHKUST/SubgraphMatching
//! test/), the yeast queries with known exact counts up to 10^7 (SNUCSE-CTA), the triangle, and
//! the GSI toy graphs against the brute-force oracle.

use std::path::{Path, PathBuf};
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::io::{read_graph, read_graphs, ReadOptions};
use subgraph_core::pipeline::{run_query, MatchOptions};
use subgraph_core::plan::{Symmetry, Tail};
use subgraph_core::sink::Control;
use subgraph_core::{oracle, GraphBuilder, Query, Semantics};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

fn count(data: &subgraph_core::Graph, query: &Path, opts: &MatchOptions) -> u128 {
    let q = read_graph(query, &ReadOptions::default()).unwrap().graph;
    let r = run_query(data, q, opts, &Control::unlimited(), None).unwrap();
    assert!(r.complete);
    r.embeddings
}

/// (file name, count) pairs of an answer file in `name count` or `name:count` form.
fn answers(path: &Path) -> Vec<(String, u128)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, c) = l.split_once([' ', ':']).unwrap();
            (name.to_string(), c.trim().parse().unwrap())
        })
        .collect()
}

#[test]
fn hprd_oracle_all_200() {
    let dir = data_dir().join("hprd");
    let data = read_graph(&dir.join("HPRD.graph"), &ReadOptions::default()).unwrap().graph;
    let expected = answers(&dir.join("expected_output.res"));
    assert_eq!(expected.len(), 200);
    for (symmetry, tail) in [(Symmetry::On, Tail::Auto), (Symmetry::Off, Tail::Off)] {
        let opts = MatchOptions { symmetry, tail, ..MatchOptions::default() };
        for (name, want) in &expected {
            let got = count(&data, &dir.join("queries").join(format!("{name}.graph")), &opts);
            assert_eq!(got, *want, "{name} {symmetry:?} {tail:?}");
        }
    }
}

#[test]
fn yeast_known_counts() {
    let dir = data_dir().join("yeast");
    let data = read_graph(&dir.join("yeast.graph"), &ReadOptions::default()).unwrap().graph;
    let expected = answers(&dir.join("expected.txt"));
    assert!(expected.len() > 800);
    for (symmetry, tail) in [(Symmetry::On, Tail::Auto), (Symmetry::Off, Tail::Off)] {
        let opts = MatchOptions { symmetry, tail, ..MatchOptions::default() };
        for (name, want) in &expected {
            assert_eq!(count(&data, &dir.join("queries").join(name), &opts), *want, "{name} {symmetry:?} {tail:?}");
        }
    }
}

#[test]
fn triangle_on_triangle_is_six_embeddings_one_subgraph() {
    let mut b = GraphBuilder::new(3, false);
    for (u, v) in [(0, 1), (1, 2), (2, 0)] {
        b.add_edge(u, v, 0);
    }
    let tri = b.build().0;
    let r = run_query(&tri, tri.clone(), &MatchOptions::default(), &Control::unlimited(), None).unwrap();
    assert_eq!(r.embeddings, 6);
    let aut = Automorphisms::of(&tri).order().unwrap();
    assert_eq!(aut, 6);
    assert_eq!(r.embeddings / aut, 1);
    // Symmetry breaking enumerates one of the six and multiplies.
    assert_eq!(r.multiplier, 6);
}

#[test]
fn gsi_toy_graphs_match_the_oracle() {
    let dir = data_dir().join("gsi");
    let data = read_graph(&dir.join("data.g"), &ReadOptions::default()).unwrap().graph;
    assert!(data.is_directed());
    for q in ["query.g", "triangle.g", "star.g", "wedge.g"] {
        for l in read_graphs(&dir.join(q), &ReadOptions::default()).unwrap() {
            for semantics in [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism] {
                let want = oracle::count(&data, &Query::new(l.graph.clone(), &data, semantics).unwrap(), semantics);
                let opts = MatchOptions { semantics, ..MatchOptions::default() };
                let got = run_query(&data, l.graph.clone(), &opts, &Control::unlimited(), None).unwrap().embeddings;
                assert_eq!(got, want, "{q} {semantics:?}");
            }
        }
    }
    // data.g is a directed 3-cycle: the cycle query maps onto it in 3 rotations.
    let cycle = read_graph(&dir.join("triangle.g"), &ReadOptions::default()).unwrap().graph;
    let r = run_query(&data, cycle, &MatchOptions::default(), &Control::unlimited(), None).unwrap();
    assert_eq!(r.embeddings, 3);
}
