//! The candidates of one query across processes, after the single-host filter GQL (Sun &
//! Luo, SIGMOD 2020 §4): each worker tests the data vertices it owns, whose adjacency lists
//! its process holds whole and whose neighbours' labels are in the label table every process
//! holds, first by the local pass (LDF and NLF, subgraph-core's `Filter::local_within`); an
//! exchange through timely (every worker's sets to each process's first worker, which unites
//! them for its process's workers: [`Gathered`]) gives every worker the same global sets,
//! their union; each worker then refines its own candidates by GraphQL's neighbourhood
//! matching (§4.1) against those global sets (`Filter::refine_gql_within`), and another
//! exchange unites the refined sets, for up to [`REFINE_ROUNDS`] rounds. Each set crosses to
//! each other process once, not to each of its workers.

use crate::gather::to_each_process;
use crate::load::Local;
use std::sync::{Arc, OnceLock};
use subgraph_core::filter::{Candidates, Filter};
use subgraph_core::sink::Control;
use subgraph_core::{Query, Semantics};
use timely::communication::Allocate;
use timely::worker::Worker;

/// The filter whose rules the workers apply, its local pass and then its refinement.
pub const FILTER: Filter = Filter::Gql;

/// Rounds of refinement and exchange at most: each worker refines its own candidates against
/// sets the others refine at the same time, so a round prunes less than the single host's
/// pass, which sees its own removals at once; rounds stop early once one removes nothing.
pub const REFINE_ROUNDS: usize = 4;

/// Where a process's first worker puts the united sets of each exchange of one query (the
/// local pass's, then each round's), for its process's workers.
#[derive(Debug, Default)]
pub struct Gathered([OnceLock<Arc<Candidates>>; REFINE_ROUNDS + 1]);

/// The global candidate sets of `query`, the same on every worker, and the bytes this worker
/// sent to other processes for them; `gathered` is shared by this process's workers.
pub fn candidates<A: Allocate>(
    worker: &mut Worker<A>,
    local: &Local,
    query: &Query,
    control: &Control,
    gathered: &Gathered,
) -> (Candidates, u64) {
    let (me, threads) = (worker.index(), worker.peers() / local.processes);
    let mut slots = gathered.0.iter();
    let first = slots.next().expect("a slot for each exchange");
    let (mut global, mut sent) = gather(worker, owned(local, query, me, threads, control), threads, first);
    let mine = |v: u32| local.worker(v, threads) == me;
    for slot in slots {
        let before: usize = global.iter().map(Vec::len).sum();
        Filter::refine_gql_within(&local.graph, query, Semantics::Embed, &mut global, &mine, control);
        global.iter_mut().for_each(|c| c.retain(|&v| mine(v)));
        let more;
        (global, more) = gather(worker, global, threads, slot);
        sent += more;
        // Every worker sees the same global sets, so all stop after the same round.
        if global.iter().map(Vec::len).sum::<usize>() == before {
            break;
        }
    }
    (global, sent)
}

/// The candidates of every query vertex among the data vertices that worker `me` owns when
/// each process runs `threads` workers ([`Local::worker`]), by [`FILTER`]'s local pass (NLF);
/// sorted, and empty where none of them fits (the other workers' may).
pub fn owned(local: &Local, query: &Query, me: usize, threads: usize, control: &Control) -> Candidates {
    let mine = |v: u32| local.worker(v, threads) == me;
    FILTER.local_within(&local.graph, query, Semantics::Embed, Some(&mine), control)
}

/// `mine` (sets of vertices this worker owns) gathered from every worker, each query vertex's
/// sets united and sorted, the same on every worker: sent to each process's first worker,
/// which unites them into `slot` for its process's workers; and the bytes this worker sent to
/// other processes (4 a vertex id, and 4 a set for its query vertex).
fn gather<A: Allocate>(
    worker: &mut Worker<A>,
    mine: Candidates,
    threads: usize,
    slot: &OnceLock<Arc<Candidates>>,
) -> (Candidates, u64) {
    let n = mine.len();
    let others = (worker.peers() / threads - 1) as u64;
    let bytes = others * mine.iter().map(|c| 4 * (c.len() as u64 + 1)).sum::<u64>();
    let sets = mine.into_iter().enumerate().map(|(u, c)| (u as u32, c)).collect();
    let got = to_each_process(worker, sets, threads);
    let all = match worker.index() % threads {
        0 => slot.get_or_init(|| {
            let mut all: Candidates = vec![Vec::new(); n];
            got.into_iter().for_each(|(u, c)| all[u as usize].extend(c));
            all.iter_mut().for_each(|c| c.sort_unstable());
            Arc::new(all)
        }),
        _ => slot.wait(),
    };
    (all.as_ref().clone(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::{partition, Rule};
    use subgraph_core::{Graph, GraphBuilder};

    /// A connected graph of `n` vertices with three labels: a ring and `extra` chords, from
    /// a linear congruential generator.
    fn data(n: u32, extra: usize) -> Graph {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u32| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % m as u64) as u32
        };
        let mut b = GraphBuilder::new(n as usize, false);
        b.set_labels((0..n).map(|_| next(3)).collect());
        (0..n).for_each(|v| b.add_edge(v, (v + 1) % n, 0));
        for _ in 0..extra {
            let (u, v) = (next(n), next(n));
            if u != v {
                b.add_edge(u, v, 0);
            }
        }
        b.build().0
    }

    /// The subgraph of `data` induced by `vertices`, query vertex i standing for vertices[i]:
    /// the identity is one of its matches.
    fn cut(data: &Graph, vertices: &[u32]) -> Graph {
        let mut b = GraphBuilder::new(vertices.len(), false);
        b.set_labels(vertices.iter().map(|&v| data.label(v)).collect());
        for (i, &v) in vertices.iter().enumerate() {
            for (j, &w) in vertices.iter().enumerate().skip(i + 1) {
                if data.neighbors(v, subgraph_core::Dir::Out).contains(&w) {
                    b.add_edge(i as u32, j as u32, 0);
                }
            }
        }
        b.build().0
    }

    #[test]
    fn workers_filters_keep_a_known_match_and_their_local_passes_unite_to_one_hosts() {
        let g = data(400, 900);
        let tmp = tempfile::tempdir().unwrap();
        partition(&g, 5, Rule::Hash, tmp.path()).unwrap();
        let manifest = tmp.path().join("manifest.json");
        for start in [0u32, 77, 213] {
            // A connected piece of the data graph around `start`: its first vertices by BFS.
            let mut piece = vec![start];
            let mut i = 0;
            while piece.len() < 6 {
                for &w in g.neighbors(piece[i], subgraph_core::Dir::Out) {
                    if piece.len() < 6 && !piece.contains(&w) {
                        piece.push(w);
                    }
                }
                i += 1;
            }
            let query = Query::new(cut(&g, &piece), &g, Semantics::Embed).unwrap();
            let single = FILTER.local_within(&g, &query, Semantics::Embed, None, &Control::unlimited());
            for (processes, threads) in [(1, 1), (2, 1), (3, 2)] {
                let mut united: Candidates = vec![Vec::new(); piece.len()];
                for process in 0..processes {
                    let local = Local::load(&manifest, process, processes).unwrap();
                    for me in process * threads..(process + 1) * threads {
                        let mine = owned(&local, &query, me, threads, &Control::unlimited());
                        for (u, c) in mine.into_iter().enumerate() {
                            assert!(c.iter().all(|&v| local.worker(v, threads) == me));
                            united[u].extend(c);
                        }
                    }
                }
                united.iter_mut().for_each(|c| c.sort_unstable());
                assert_eq!(united, single, "{processes} processes of {threads} threads");
                // Each worker's refinement of its own candidates against the united sets,
                // united again: what `candidates` does through timely.
                let mut refined: Candidates = vec![Vec::new(); piece.len()];
                for process in 0..processes {
                    let local = Local::load(&manifest, process, processes).unwrap();
                    for me in process * threads..(process + 1) * threads {
                        let mine = |v: u32| local.worker(v, threads) == me;
                        let mut sets = united.clone();
                        let (data, control) = (&local.graph, &Control::unlimited());
                        Filter::refine_gql_within(data, &query, Semantics::Embed, &mut sets, &mine, control);
                        sets.iter().zip(&mut refined).for_each(|(c, r)| r.extend(c.iter().filter(|&&v| mine(v))));
                    }
                }
                refined.iter_mut().for_each(|c| c.sort_unstable());
                for (u, &v) in piece.iter().enumerate() {
                    assert!(refined[u].binary_search(&v).is_ok(), "{processes}x{threads}: {v} lost for {u}");
                    assert!(refined[u].iter().all(|w| united[u].binary_search(w).is_ok()));
                }
            }
        }
    }
}
