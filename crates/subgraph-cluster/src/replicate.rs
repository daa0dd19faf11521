//! The adjacency lists a query reads, held by every process as far as a cache allows: the
//! answer to skew of BiGJoin's balanced variant (Ammar et al., VLDB 2018 §4.3, heavy keys' relations
//! replicated) and the cache of HUGE (Yang et al., SIGMOD 2021 §4), filled once per query.
//! Where a partial match is extended through a held list, it needs no owner: `dataflow`
//! spreads it over every worker by a hash of the prefix, so the work below a few rich roots
//! is shared by all processes rather than falling on the ones that own them.
//!
//! A position is held when the lists its candidates are read by (only the label groups the
//! later positions read) fit what is left of the cache's bytes, the cheapest positions first:
//! those with the fewest list entries, whose work falls on the fewest vertices. Every worker
//! offers the sizes of its own candidates' lists through [`all_gather`], so all choose alike,
//! then the lists themselves to each process's first worker ([`to_each_process`]), which builds
//! the one graph its process's workers share.

use crate::gather::{all_gather, to_each_process};
use crate::load::Local;
use crate::plan::ClusterPlan;
use std::sync::{Arc, OnceLock};
use subgraph_core::{Dir, Graph, GraphBuilder};
use timely::communication::Allocate;
use timely::worker::Worker;

/// The bytes a process may hold for one query's replicas without `--cache-memory`.
pub const DEFAULT_CACHE_BYTES: u64 = 1 << 30;
/// Bytes a held list entry takes: 4 at each end of its edge.
pub const ENTRY_BYTES: u64 = 8;

/// The lists every process holds beside its own, for one query.
#[derive(Default)]
pub struct Replicas {
    /// Every vertex with its label, and the held lists. One per process; None where nothing
    /// is held.
    pub graph: Option<Arc<Graph>>,
    /// By position: whether its candidates' lists are held (all of them, or none).
    pub held: Vec<bool>,
    /// Adjacency entries held.
    pub entries: u64,
    /// Bytes this worker sent to other processes to fill them (8 per size, 12 per edge).
    pub bytes_sent: u64,
}

impl Replicas {
    /// The graph holding the lists position `f` reads, where every process holds them.
    pub fn holding(&self, f: usize) -> Option<&Graph> {
        self.held[f].then_some(self.graph.as_deref()).flatten()
    }

    /// The positions held.
    pub fn positions(&self) -> usize {
        self.held.iter().filter(|&&h| h).count()
    }
}

/// The label groups position `f`'s lists are read in: (direction, edge label, neighbour label).
fn groups(plan: &ClusterPlan, f: usize) -> Vec<(Dir, u32, u32)> {
    let mut out: Vec<(Dir, u32, u32)> = plan.steps[f + 1..]
        .iter()
        .flat_map(|s| s.back.iter().filter(|b| b.from == f).map(|b| (b.dir, b.edge_label, s.label)))
        .collect();
    out.sort_unstable_by_key(|&(d, e, n)| (d == Dir::In, e, n));
    out.dedup();
    out
}

/// The replicas of `plan`'s positions whose lists fit `cache` bytes, cheapest first, the same on
/// every worker; `shared` holds the graph this process's workers build once. Every worker of
/// the computation must call it, at the same point.
pub fn replicate<A: Allocate>(
    worker: &mut Worker<A>,
    local: &Local,
    plan: &ClusterPlan,
    cache: u64,
    shared: &OnceLock<Arc<Graph>>,
) -> Replicas {
    let (me, threads) = (worker.index(), worker.peers() / local.processes);
    let others = (worker.peers() - threads) as u64;
    let g = &local.graph;
    let n = plan.steps.len();
    let mine = |v: &&u32| local.worker(**v, threads) == me;
    let groups: Vec<_> = (0..n).map(|f| groups(plan, f)).collect();
    let size = |v: u32, f: usize| -> u64 {
        groups[f].iter().map(|&(d, e, l)| g.neighbors_labelled(v, d, e, l).len() as u64).sum()
    };
    let sizes: Vec<(u32, u64)> = (0..n)
        .filter(|&f| !groups[f].is_empty())
        .map(|f| (f as u32, plan.steps[f].candidates.iter().filter(mine).map(|&v| size(v, f)).sum()))
        .collect();
    let mut bytes_sent = others * 12 * sizes.len() as u64;
    let mut total = vec![0u64; n];
    all_gather(worker, sizes).into_iter().for_each(|(f, s)| total[f as usize] += s);
    let mut cheapest: Vec<usize> = (0..n).filter(|&f| !groups[f].is_empty()).collect();
    cheapest.sort_by_key(|&f| (total[f], f));
    let mut left = cache / ENTRY_BYTES;
    let mut held = vec![false; n];
    let mut edges = Vec::new();
    for f in cheapest {
        if total[f] > left {
            break;
        }
        left -= total[f];
        held[f] = true;
        for &v in plan.steps[f].candidates.iter().filter(mine) {
            for &(d, e, l) in &groups[f] {
                let list = g.neighbors_labelled(v, d, e, l);
                edges.extend(list.iter().map(|&w| if d == Dir::In { (w, v, e) } else { (v, w, e) }));
            }
        }
    }
    let entries = cache / ENTRY_BYTES - left;
    if entries == 0 {
        // Every worker sees the same totals, so all skip the exchange alike.
        return Replicas { graph: None, held: vec![false; n], entries, bytes_sent };
    }
    // Once to each other process, where its first worker builds the graph its workers share.
    bytes_sent += (local.processes as u64 - 1) * 12 * edges.len() as u64;
    let gathered = to_each_process(worker, edges, threads);
    let graph = match me % threads {
        0 => shared.get_or_init(|| {
            let mut b = GraphBuilder::new(g.num_vertices(), g.is_directed());
            b.set_labels(g.labels().to_vec());
            // An edge read from both its ends comes twice: the builder keeps one.
            gathered.iter().for_each(|&(u, v, l)| b.add_edge(u, v, l));
            Arc::new(b.try_build().expect("a part of a graph that was built builds").0)
        }),
        _ => shared.wait(),
    };
    Replicas { graph: Some(graph.clone()), held, entries, bytes_sent }
}
