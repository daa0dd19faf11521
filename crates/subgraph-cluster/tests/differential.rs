//! The cluster's counts against subgraph-core's brute-force oracle on small random graphs and
//! queries (connected or not), partitioned by hash and by ranges, with 1 to 3 processes of 1
//! or 2 workers, GQL's and RI's orders, symmetry breaking on and off, and none, some or all
//! of the adjacency held by every process.

mod common;

use common::cluster_counts;
use proptest::prelude::*;
use subgraph_cluster::{partition, Rule};
use subgraph_core::order::Order;
use subgraph_core::{oracle, Graph, GraphBuilder, Query, Semantics};

fn graph(n: u32, labels: &[u32], edges: &[(u32, u32)]) -> Graph {
    let mut b = GraphBuilder::new(n as usize, false);
    b.set_labels(labels.iter().map(|l| l % 2).take(n as usize).collect());
    edges.iter().filter(|(u, v)| u % n != v % n).for_each(|&(u, v)| b.add_edge(u % n, v % n, 0));
    b.build().0
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn counts_equal_the_oracles(
        labels in prop::collection::vec(0u32..2, 14),
        edges in prop::collection::vec((0u32..14, 0u32..14), 10..40),
        qlabels in prop::collection::vec(0u32..2, 4),
        qedges in prop::collection::vec((0u32..4, 0u32..4), 1..6),
        qn in 2u32..5,
        parts in 1usize..5,
        range in any::<bool>(),
        symmetry in any::<bool>(),
        ri in any::<bool>(),
        threads in 1usize..3,
        cache in prop::sample::select(vec![0u64, 400, 1 << 20]),
    ) {
        let data = graph(14, &labels, &edges);
        let query = graph(qn, &qlabels, &qedges);
        let expected = oracle::count(&data, &Query::new(query.clone(), &data, Semantics::Embed).unwrap(), Semantics::Embed);
        let tmp = tempfile::tempdir().unwrap();
        partition(&data, parts, if range { Rule::Range } else { Rule::Hash }, tmp.path()).unwrap();
        let processes = parts.min(3);
        let got = cluster_counts(&tmp.path().join("manifest.json"), (processes, threads, cache), &[query], symmetry, if ri { Order::Ri } else { Order::Gql });
        prop_assert_eq!(got, vec![expected]);
    }
}
