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
//! then the lists themselves, each once (as edges, from one end where both send), in large
//! records, to each process's first worker ([`to_each_process`]), which builds the one graph
//! its process's workers share (the builder sorts them on every core).

use crate::gather::{all_gather, to_each_process};
use crate::held::past;
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
/// Edges a worker sends in one record to each process's first worker.
const EDGES_A_RECORD: usize = 1 << 16;

/// An edge as the builder keeps it: (source, target, label), an undirected one from its
/// smaller end.
type Edge = (u32, u32, u32);

/// The lists every process holds beside its own, for one query.
#[derive(Default)]
pub struct Replicas {
    /// Every vertex with its label, and the held lists. One per process; None where nothing
    /// is copied: nothing held, or a lone process, whose own graph holds every list.
    pub graph: Option<Arc<Graph>>,
    /// By position: whether its candidates' lists are held (all of them, or none).
    pub held: Vec<bool>,
    /// Whether every position a later one reads is held: the query reads no list from
    /// elsewhere (`held`).
    pub every: bool,
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
/// the computation must call it, at the same point. A lone process holds every list already:
/// each position a later one reads counts as held, and nothing is copied.
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
    if local.processes == 1 {
        let held: Vec<bool> = groups.iter().map(|g| !g.is_empty()).collect();
        return Replicas { graph: None, held, every: true, entries: 0, bytes_sent: 0 };
    }
    // An undirected graph's lists read only past their vertex are held oriented: each vertex's
    // larger neighbours, half the entries, as a directed graph.
    let upward = !g.is_directed() && plan.reads_upward();
    let read = |v: u32, (d, e, l): (Dir, u32, u32)| past(g.neighbors_labelled(v, d, e, l), upward.then_some(v));
    let size = |v: u32, f: usize| -> u64 { groups[f].iter().map(|&group| read(v, group).len() as u64).sum() };
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
    for f in cheapest {
        if total[f] > left {
            break;
        }
        left -= total[f];
        held[f] = true;
    }
    let held_positions: Vec<usize> = (0..n).filter(|&f| held[f]).collect();
    let every = (0..n).all(|f| held[f] || groups[f].is_empty());
    // Whether some worker sends w's list holding a vertex of label `lv` by an edge of label e
    // (undirected, one label a vertex and an edge a pair, as `check_supported` requires): w is
    // a candidate of a held position that reads those neighbours.
    let sent_from = |w: u32, e: u32, lv: u32| {
        let key = (Dir::Out, e, lv);
        held_positions.iter().any(|&f| plan.steps[f].bits.contains(w) && groups[f].contains(&key))
    };
    let mut edges: Vec<Edge> = Vec::new();
    for (i, &f) in held_positions.iter().enumerate() {
        for &v in plan.steps[f].candidates.iter().filter(mine) {
            let lv = g.label(v);
            for &(d, e, l) in &groups[f] {
                // Each of v's lists once: not where an earlier held position sent it.
                let earlier = |&h: &usize| plan.steps[h].bits.contains(v) && groups[h].contains(&(d, e, l));
                if held_positions[..i].iter().any(earlier) {
                    continue;
                }
                let list = read(v, (d, e, l));
                if g.is_directed() {
                    edges.extend(list.iter().map(|&w| if d == Dir::In { (w, v, e) } else { (v, w, e) }));
                } else if upward {
                    edges.extend(list.iter().map(|&w| (v, w, e)));
                } else {
                    // From its smaller end where both ends send it; the builder's form.
                    edges.extend(
                        list.iter().filter(|&&w| w > v || !sent_from(w, e, lv)).map(|&w| (v.min(w), v.max(w), e)),
                    );
                }
            }
        }
    }
    let entries = cache / ENTRY_BYTES - left;
    if entries == 0 {
        // Every worker sees the same totals, so all skip the exchange alike.
        return Replicas { graph: None, held: vec![false; n], every, entries, bytes_sent };
    }
    // Once to each other process, where its first worker builds the graph its workers share
    // (the builder sorts the edges on every core, and drops a directed edge both ends sent).
    bytes_sent += (local.processes as u64 - 1) * 12 * edges.len() as u64;
    let records: Vec<Vec<Edge>> = edges.chunks(EDGES_A_RECORD).map(<[Edge]>::to_vec).collect();
    let gathered = to_each_process(worker, records, threads);
    let graph = match me % threads {
        0 => shared.get_or_init(|| {
            let edges = gathered.into_iter().flatten().collect();
            let b = GraphBuilder::from_parts(g.labels().to_vec(), edges, g.is_directed() || upward);
            Arc::new(b.try_build().expect("a part of a graph that was built builds").0)
        }),
        _ => shared.wait(),
    };
    Replicas { graph: Some(graph.clone()), held, every, entries, bytes_sent }
}
