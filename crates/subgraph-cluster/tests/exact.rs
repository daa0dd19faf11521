//! Counts over a partitioned graph against the known ones: HPRD's oracle queries and yeast
//! queries, in 2, 3 and 8 parts, by hash and by ranges, with 1, 2 and 3 processes (threads of
//! this test, connected over loopback as separate processes would be) of 1 and 2 workers, over
//! the filtered candidates, with none, some or all of a query's lists held by every process,
//! and with counted tails and without.

mod common;

use common::{cluster_counts, cluster_run};
use std::path::{Path, PathBuf};
use subgraph_cluster::{partition, Rule};
use subgraph_core::io::{read_graph, ReadOptions};
use subgraph_core::order::Order;
use subgraph_core::plan::Tail;
use subgraph_core::Graph;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

fn graph(path: &Path) -> Graph {
    read_graph(path, &ReadOptions::default()).unwrap().graph
}

fn known(dir: &str, answers: &str, names: &[&str]) -> (Graph, Vec<Graph>, Vec<u128>) {
    let dir = data_dir().join(dir);
    let text = std::fs::read_to_string(dir.join(answers)).unwrap();
    let count = |name: &str| -> u128 {
        let line = text.lines().find(|l| l.split([' ', ':']).next().unwrap().trim_end_matches(".graph") == name);
        line.unwrap().split([' ', ':']).nth(1).unwrap().trim().parse().unwrap()
    };
    let queries = names.iter().map(|n| graph(&dir.join("queries").join(format!("{n}.graph")))).collect();
    (graph(&dir.join(data_file(&dir))), queries, names.iter().map(|n| count(n)).collect())
}

fn data_file(dir: &Path) -> String {
    let name = dir.file_name().unwrap().to_str().unwrap();
    if name == "hprd" {
        "HPRD.graph".into()
    } else {
        format!("{name}.graph")
    }
}

const HPRD: &[&str] =
    &["query_dense_16_1", "query_dense_16_2", "query_dense_16_6", "query_dense_16_8", "query_dense_16_11"];
const YEAST: &[&str] = &["query_dense_16_101", "query_dense_16_102", "query_dense_16_10"];

#[test]
fn hprd_and_yeast_counts_match_the_known_ones() {
    let tmp = tempfile::tempdir().unwrap();
    for (set, answers, names) in [("hprd", "expected_output.res", HPRD), ("yeast", "expected.txt", YEAST)] {
        let (data, queries, expected) = known(set, answers, names);
        // A counted tail is counted where every list is held (1 GiB) and enumerated elsewhere.
        for (parts, rule, processes, cache, tail) in [
            (2, Rule::Hash, 1, 1 << 12, Tail::On),
            (2, Rule::Range, 2, 0, Tail::Off),
            (3, Rule::Hash, 3, 1 << 12, Tail::Auto),
            (8, Rule::Hash, 2, 1 << 30, Tail::On),
            (8, Rule::Range, 3, 1 << 14, Tail::Off),
        ] {
            let dir = tmp.path().join(format!("{set}-{parts}-{rule:?}"));
            partition(&data, parts, rule, &dir).unwrap();
            let order = if processes == 2 { Order::Ri } else { Order::Gql };
            let got = cluster_counts(&dir.join("manifest.json"), (processes, 1, cache), &queries, (true, order, tail));
            assert_eq!(
                got, expected,
                "{set}: {parts} parts by {rule:?}, {processes} processes, {order:?}, cache {cache}, tail {tail:?}"
            );
        }
    }
}

#[test]
fn filtered_candidates_give_the_known_counts_with_two_workers_a_process() {
    let tmp = tempfile::tempdir().unwrap();
    let hprd: &[&str] = &["query_dense_16_2", "query_dense_16_8"];
    let yeast: &[&str] = &["query_dense_16_101", "query_dense_16_10"];
    for (set, answers, names) in [("hprd", "expected_output.res", hprd), ("yeast", "expected.txt", yeast)] {
        let (data, queries, expected) = known(set, answers, names);
        for (parts, rule, processes, order, cache) in
            [(2, Rule::Hash, 2, Order::Gql, 1 << 12), (6, Rule::Range, 3, Order::Ri, 1 << 30)]
        {
            let dir = tmp.path().join(format!("{set}-{parts}-{rule:?}"));
            partition(&data, parts, rule, &dir).unwrap();
            let got =
                cluster_counts(&dir.join("manifest.json"), (processes, 2, cache), &queries, (true, order, Tail::On));
            assert_eq!(
                got, expected,
                "{set}: {parts} parts by {rule:?}, {processes} processes of 2 workers, {order:?}"
            );
        }
    }
}

#[test]
fn replicas_stay_within_the_cache_and_leave_counts_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, queries, expected) = known("yeast", "expected.txt", &["query_dense_16_101"]);
    partition(&data, 4, Rule::Hash, tmp.path()).unwrap();
    let manifest = tmp.path().join("manifest.json");
    let (mut held, mut searches) = (Vec::new(), Vec::new());
    for cache in [0u64, 1 << 12, 1 << 14, 1 << 30] {
        let [got] = &cluster_run(&manifest, (2, 2, cache), &queries, (true, Order::Gql, Tail::Off))[..] else {
            panic!("one query")
        };
        assert_eq!(got.embeddings, expected[0], "cache {cache}");
        assert!(got.replicated_entries * 8 <= cache, "cache {cache}: {} entries held", got.replicated_entries);
        held.push(got.replicated_positions);
        searches.push(got.search);
    }
    // Routed while some list read is not held (at 4 KiB), each worker alone once every one is.
    assert_eq!(searches, ["routed", "routed", "held", "held"]);
    // None without a cache, more as it grows, never the last position (no later one reads it).
    assert_eq!(held[0], 0);
    assert!(held.windows(2).all(|w| w[0] <= w[1]) && held[1] > 0, "{held:?}");
    assert!(held[3] < queries[0].num_vertices(), "{held:?}");
}

/// Yeast's sparse queries, whose GQL orders end in 3 to 7 pairwise non-adjacent vertices:
/// counted together where every list is held, enumerated where not, and without a tail, the
/// known counts every way.
#[test]
fn counted_tails_give_the_known_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let names = &["query_sparse_16_1", "query_sparse_16_3", "query_sparse_8_3", "query_dense_16_101"];
    let (data, queries, expected) = known("yeast", "expected.txt", names);
    partition(&data, 4, Rule::Hash, tmp.path()).unwrap();
    let manifest = tmp.path().join("manifest.json");
    for (cache, tail, search) in [(1 << 30, Tail::Auto, "held"), (1 << 30, Tail::Off, "held"), (0, Tail::On, "routed")]
    {
        let got = cluster_run(&manifest, (2, 2, cache), &queries, (true, Order::Gql, tail));
        let counts: Vec<u128> = got.iter().map(|c| c.embeddings).collect();
        assert_eq!(counts, expected, "cache {cache}, tail {tail:?}");
        for c in &got {
            assert_eq!(c.search, search, "cache {cache}, tail {tail:?}");
            assert_eq!(c.tail > 0, tail != Tail::Off, "cache {cache}, tail {tail:?}: {} counted together", c.tail);
        }
    }
}

/// A lone process holds every list already: it searches alone over its own graph, whatever the
/// cache, and copies nothing.
#[test]
fn a_lone_process_copies_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, queries, expected) = known("yeast", "expected.txt", &["query_dense_16_101", "query_sparse_8_3"]);
    partition(&data, 3, Rule::Hash, tmp.path()).unwrap();
    for cache in [0, 1 << 30] {
        let got =
            cluster_run(&tmp.path().join("manifest.json"), (1, 2, cache), &queries, (true, Order::Gql, Tail::Auto));
        for (c, &e) in got.iter().zip(&expected) {
            assert_eq!(c.embeddings, e, "cache {cache}");
            assert_eq!((c.search, c.replicated_entries, c.bytes_sent), ("held", 0, 0), "cache {cache}");
            assert!(c.replicated_positions > 0, "cache {cache}");
        }
    }
}

/// Every list a triangle reads is held, and each edge crosses to the other process once (from
/// one end, though two positions read the same lists): 12 bytes an edge. Beside them, each
/// worker's two list sizes to every worker of the other process (12 bytes each), and the
/// candidates' two exchanges (NLF's, then a round of GQL's that removes nothing), each
/// worker's sets to the other process once however many workers it has: 4 bytes an id (3
/// query vertices × 6 data vertices in all) and 4 a set (3 a worker).
#[test]
fn each_held_edge_and_candidate_set_is_sent_once() {
    let tmp = tempfile::tempdir().unwrap();
    let clique = |k: u32| {
        let mut b = subgraph_core::GraphBuilder::new(k as usize, false);
        b.set_labels(vec![0; k as usize]);
        (0..k).flat_map(|u| (u + 1..k).map(move |v| (u, v))).for_each(|(u, v)| b.add_edge(u, v, 0));
        b.build().0
    };
    partition(&clique(6), 2, Rule::Hash, tmp.path()).unwrap();
    for threads in [1u64, 2] {
        let manifest = tmp.path().join("manifest.json");
        let got = cluster_run(&manifest, (2, threads as usize, 1 << 30), &[clique(3)], (true, Order::Gql, Tail::Off));
        assert_eq!((got[0].embeddings, got[0].search), (120, "held"));
        let workers = 2 * threads;
        let (candidates, sizes, edges) = (2 * 4 * (3 * 6 + 3 * workers), workers * threads * 24, 15 * 12);
        assert_eq!(got[0].bytes_sent, candidates + sizes + edges, "{threads} threads");
        // Symmetry breaking reads each list past its vertex only: the two held positions
        // hold each vertex's larger neighbours, 15 entries each. Without it, both ends' 30.
        assert_eq!((got[0].replicated_positions, got[0].replicated_entries), (2, 30));
        let got = cluster_run(&manifest, (2, threads as usize, 1 << 30), &[clique(3)], (false, Order::Gql, Tail::Off));
        assert_eq!((got[0].embeddings, got[0].replicated_entries), (120, 60));
    }
}
