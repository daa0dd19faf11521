//! The cluster's counts against subgraph-core's brute-force oracle on small random graphs and
//! queries (connected or not), partitioned by hash and by ranges, with 1 to 3 processes of 1
//! or 2 workers, GQL's and RI's orders, symmetry breaking on and off, counted tails on and
//! off, and none, some or all of the adjacency held by every process; and the rows written, each process's own or
//! gathered by process 0, against the oracle's embeddings, with and without a limit.

mod common;

use common::{cluster_counts, cluster_with};
use proptest::prelude::*;
use std::sync::Arc;
use subgraph_cluster::{partition, Matching, Rows, Rule};
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::order::Order;
use subgraph_core::plan::Tail;
use subgraph_core::sink::{Output, OutputFormat, Stopped};
use subgraph_core::{oracle, Graph, GraphBuilder, Query, Semantics};

fn graph(n: u32, labels: &[u32], edges: &[(u32, u32)]) -> Graph {
    let mut b = GraphBuilder::new(n as usize, false);
    b.set_labels(labels.iter().map(|l| l % 2).take(n as usize).collect());
    edges.iter().filter(|(u, v)| u % n != v % n).for_each(|&(u, v)| b.add_edge(u % n, v % n, 0));
    b.build().0
}

/// A random data graph of 14 vertices and a query of `qn` vertices (connected or not), both
/// labelled 0 or 1.
fn data_and_query(qn: std::ops::Range<u32>) -> impl Strategy<Value = (Graph, Graph)> {
    let data = (prop::collection::vec(0u32..2, 14), prop::collection::vec((0u32..14, 0u32..14), 10..40));
    let query = (prop::collection::vec(0u32..2, 4), prop::collection::vec((0u32..4, 0u32..4), 1..6), qn);
    (data, query)
        .prop_map(|((labels, edges), (qlabels, qedges, qn))| (graph(14, &labels, &edges), graph(qn, &qlabels, &qedges)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn counts_equal_the_oracles(
        (data, query) in data_and_query(2u32..5),
        parts in 1usize..5,
        range in any::<bool>(),
        symmetry in any::<bool>(),
        ri in any::<bool>(),
        threads in 1usize..3,
        cache in prop::sample::select(vec![0u64, 400, 1 << 20]),
        tail in prop::sample::select(vec![Tail::Auto, Tail::On, Tail::Off]),
    ) {
        let expected = oracle::count(&data, &Query::new(query.clone(), &data, Semantics::Embed).unwrap(), Semantics::Embed);
        let tmp = tempfile::tempdir().unwrap();
        partition(&data, parts, if range { Rule::Range } else { Rule::Hash }, tmp.path()).unwrap();
        let processes = parts.min(3);
        let order = if ri { Order::Ri } else { Order::Gql };
        let got = cluster_counts(&tmp.path().join("manifest.json"), (processes, threads, cache), &[query], (symmetry, order, tail));
        prop_assert_eq!(got, vec![expected]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Counted tails where every list is held (the held search counts them), on queries of 3
    /// and 4 vertices (stars and paths end in tails), by 1 to 3 processes.
    #[test]
    fn counted_tails_equal_the_oracles(
        (data, query) in data_and_query(3u32..5),
        processes in 1usize..4,
        symmetry in any::<bool>(),
        ri in any::<bool>(),
    ) {
        let expected = oracle::count(&data, &Query::new(query.clone(), &data, Semantics::Embed).unwrap(), Semantics::Embed);
        let tmp = tempfile::tempdir().unwrap();
        partition(&data, 3, Rule::Hash, tmp.path()).unwrap();
        let order = if ri { Order::Ri } else { Order::Gql };
        let got = cluster_counts(&tmp.path().join("manifest.json"), (processes, 2, 1 << 20), &[query], (symmetry, order, Tail::On));
        prop_assert_eq!(got, vec![expected]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]
    #[test]
    fn rows_are_the_oracles_embeddings(
        (data, query) in data_and_query(1u32..5),
        parts in 1usize..4,
        symmetry in any::<bool>(),
        gather in any::<bool>(),
        threads in 1usize..3,
        cache in prop::sample::select(vec![0u64, 1 << 20]),
        limit in prop::option::of(0u64..40),
    ) {
        let n = query.num_vertices();
        let mut expected = oracle::all(&data, &Query::new(query.clone(), &data, Semantics::Embed).unwrap(), Semantics::Embed);
        expected.sort();
        let tmp = tempfile::tempdir().unwrap();
        partition(&data, parts, Rule::Hash, tmp.path()).unwrap();
        let processes = parts.min(3);
        // Each process's rows in a file of its own, as little-endian words.
        let outputs: Vec<Arc<Output>> = (0..processes)
            .map(|p| {
                let file = std::fs::File::create(tmp.path().join(format!("rows.{p}"))).unwrap();
                Arc::new(Output::new(Box::new(file), OutputFormat::Words))
            })
            .collect();
        let matching = |p: usize| Matching {
            semantics: Semantics::Embed,
            symmetry,
            order: Order::Gql,
            limit,
            rows: Some(Rows { output: outputs[p].clone(), gather }),
            unique: false,
            tail: Tail::Auto,
        };
        let got = cluster_with(&tmp.path().join("manifest.json"), (processes, threads, cache), &[query], matching);
        outputs.iter().for_each(|o| o.finish().unwrap());
        let mut rows: Vec<Vec<u32>> = Vec::new();
        for p in 0..processes {
            let bytes = std::fs::read(tmp.path().join(format!("rows.{p}"))).unwrap();
            let words: Vec<u32> = bytes.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
            // Under a limit every row is process 0's.
            prop_assert!(p == 0 || limit.is_none() || words.is_empty());
            rows.extend(words.chunks(n).map(<[u32]>::to_vec));
        }
        rows.sort();
        let total = expected.len() as u128;
        let reported = limit.map_or(total, |n| total.min(n as u128));
        prop_assert_eq!(got[0].embeddings, reported);
        prop_assert_eq!(rows.len() as u128, reported);
        let reached = limit.is_some_and(|n| total >= n as u128);
        prop_assert_eq!(got[0].stopped, reached.then_some(Stopped::Limit));
        match limit {
            None => prop_assert_eq!(rows, expected),
            Some(_) => {
                prop_assert!(rows.windows(2).all(|w| w[0] != w[1]), "a row written twice");
                prop_assert!(rows.iter().all(|r| expected.binary_search(r).is_ok()), "a row that is no embedding");
            }
        }
    }

    /// Also |Aut(Q)| and the distinct subgraphs where asked (`unique`), the latter only when
    /// the count is complete, as one host reports them.
    #[test]
    fn counts_under_a_limit_are_the_first_n(
        (data, query) in data_and_query(1u32..5),
        symmetry in any::<bool>(),
        threads in 1usize..3,
        limit in prop::option::of(0u64..40),
        unique in any::<bool>(),
    ) {
        let total = oracle::count(&data, &Query::new(query.clone(), &data, Semantics::Embed).unwrap(), Semantics::Embed);
        let automorphisms = unique.then(|| Automorphisms::of(&query).order()).flatten();
        let tmp = tempfile::tempdir().unwrap();
        partition(&data, 2, Rule::Hash, tmp.path()).unwrap();
        let matching = |_| Matching { semantics: Semantics::Embed, symmetry, order: Order::Ri, limit, rows: None, unique, tail: Tail::Auto };
        let got = cluster_with(&tmp.path().join("manifest.json"), (2, threads, 1 << 20), &[query], matching);
        let complete = limit.is_none_or(|n| total < n as u128);
        prop_assert_eq!(got[0].embeddings, limit.map_or(total, |n| total.min(n as u128)));
        prop_assert_eq!(got[0].complete, complete);
        prop_assert_eq!(got[0].automorphisms, automorphisms);
        prop_assert_eq!(got[0].unique(), automorphisms.filter(|_| complete).map(|k| total / k));
    }
}
