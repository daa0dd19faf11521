//! The helper the tests share: a query counted by n processes, threads of the test connected
//! over loopback as processes would be.

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use subgraph_cluster::{run, Cluster, Local, Matching, QueryCount};
use subgraph_core::order::Order;
use subgraph_core::plan::Tail;
use subgraph_core::sink::Control;
use subgraph_core::{Graph, Semantics};

/// Loopback addresses with ports free a moment ago, one per process.
fn addresses(n: usize) -> Vec<String> {
    let listeners: Vec<TcpListener> = (0..n).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    listeners.iter().map(|l| l.local_addr().unwrap().to_string()).collect()
}

/// Process 0's counts of `queries` over the partition at `manifest` with `n` processes of
/// `threads` workers each, each process holding up to `cache` bytes of a query's lists, with
/// counted tails as `tail` says.
pub fn cluster_counts(
    manifest: &Path,
    (n, threads, cache_bytes): (usize, usize, u64),
    queries: &[Graph],
    (symmetry, order, tail): (bool, Order, Tail),
) -> Vec<u128> {
    cluster_run(manifest, (n, threads, cache_bytes), queries, (symmetry, order, tail))
        .into_iter()
        .map(|c| c.embeddings)
        .collect()
}

/// Process 0's whole results, as [`cluster_counts`] runs them.
pub fn cluster_run(
    manifest: &Path,
    (n, threads, cache_bytes): (usize, usize, u64),
    queries: &[Graph],
    (symmetry, order, tail): (bool, Order, Tail),
) -> Vec<QueryCount> {
    let matching =
        Matching { semantics: Semantics::Embed, symmetry, order, limit: None, rows: None, unique: false, tail };
    cluster_with(manifest, (n, threads, cache_bytes), queries, |_| matching.clone())
}

/// Process 0's whole results of `queries` (named q0, q1, …), each process matching as
/// `matching` says for it.
pub fn cluster_with(
    manifest: &Path,
    (n, threads, cache_bytes): (usize, usize, u64),
    queries: &[Graph],
    matching: impl Fn(usize) -> Matching,
) -> Vec<QueryCount> {
    let addresses = addresses(n);
    let handles: Vec<_> = (0..n)
        .map(|process| {
            let connect_timeout = Duration::from_secs(20);
            let cluster = Cluster { addresses: addresses.clone(), process, threads, connect_timeout, cache_bytes };
            let (manifest, matching) = (manifest.to_path_buf(), matching(process));
            let queries: Vec<(String, Graph)> =
                queries.iter().enumerate().map(|(i, q)| (format!("q{i}"), q.clone())).collect();
            std::thread::spawn(move || {
                let local = Local::load(&manifest, process, n).unwrap();
                run::run(&cluster, local, queries, &matching, Arc::new(Control::unlimited)).unwrap()
            })
        })
        .collect();
    let mut results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(results[1..].iter().all(Option::is_none));
    results.swap_remove(0).unwrap().into_iter().map(Result::unwrap).collect()
}
