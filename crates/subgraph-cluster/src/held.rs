//! The search where every process holds every list a query reads (`replicate` held each
//! position that a later one reads): each worker enumerates depth first below its share of
//! the prefixes, over the held lists, and no partial match is sent. HUGE's local search over
//! its cache (Yang et al., SIGMOD 2021 §4–5: where the remote lists a task needs are all
//! cached, it runs depth first on its machine); BiGJoin's routing (`dataflow`) is what the
//! cluster does where they are not.
//!
//! Every process holds every list, so each makes the same prefixes and deals them by their
//! place (prefix i to process i mod P): the roots where there are at least
//! [`DEAL_PER_WORKER`] a worker, else their extensions, a position at a time; and where there
//! are as many, a heavy prefix (a hub's, with more extensions than its level's share) is
//! still replaced by its extensions, so that no one subtree outlasts every other worker's
//! share ([`Deal`]). A skewed graph's heavy roots, which hold nearby ids once it is renumbered
//! by degree, fall on every process alike, and a query with few roots still keeps every worker
//! busy. A process's workers take its prefixes [`CHUNK`] at a time as they finish, the split
//! ones first. Each candidate is proposed as
//! the dataflow proposes it ([`propose`]), so the two find the same matches.
//!
//! A plan's counted tail (`ClusterPlan::tail`) is counted here, not enumerated: once the
//! prefix before it is matched, each tail position's candidates are proposed from it alone
//! (the tail vertices are pairwise non-adjacent) and the injective choices counted per label
//! group by inclusion–exclusion (`subgraph_core::tail`), as the CPU engine counts them.

use crate::emit::Emit;
use crate::plan::{ClusterPlan, Step};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use subgraph_core::intersect::intersect_into;
use subgraph_core::tail::{distinct_choices, Scratch, MAX_GROUP};
use subgraph_core::Graph;

/// The largest earlier vertex of `prefix` that position `step`'s restrictions name: its
/// candidates lie above it. None where it has no restriction.
fn floor(step: &Step, prefix: &[u32]) -> Option<u32> {
    step.greater_than.iter().map(|&p| prefix[p]).max()
}

/// `list` (sorted) from past `floor`: where a vertex above it can start.
pub(crate) fn past(list: &[u32], floor: Option<u32>) -> &[u32] {
    floor.map_or(list, |a| &list[list.partition_point(|&c| c <= a)..])
}

/// The candidates of position `step` for `prefix`, into `cands`: `lists` (the adjacency lists
/// of the position's backward neighbours, or the global candidates where it has none), each
/// from past the largest earlier vertex the restrictions name, intersected shortest first
/// (galloping where their sizes differ), then checked against the position's candidate set and
/// the prefix (injectivity). `lists` is cut and sorted by length on the way.
pub(crate) fn propose<'a>(
    step: &'a Step,
    lists: &mut [&'a [u32]],
    prefix: &[u32],
    cands: &mut Vec<u32>,
    scratch: &mut Vec<u32>,
) {
    // Every list from past the bound, so that a merge starts where a candidate can.
    let above = floor(step, prefix);
    lists.iter_mut().for_each(|l| *l = past(l, above));
    lists.sort_unstable_by_key(|l| l.len());
    let source = lists.first().copied().unwrap_or_else(|| past(&step.candidates, above));
    cands.clear();
    match lists.get(1) {
        None => cands.extend_from_slice(source),
        Some(second) => intersect_into(source, second, cands),
    }
    for other in lists.iter().skip(2) {
        intersect_into(cands, other, scratch);
        std::mem::swap(cands, scratch);
    }
    cands.retain(|c| step.bits.contains(*c) && !prefix.contains(c));
}

/// The adjacency lists `prefix`'s backward neighbours of position `step` extend it by, as
/// `graph` holds them, into `lists` (cleared first).
fn read<'a>(graph: &'a Graph, step: &Step, prefix: &[u32], lists: &mut Vec<&'a [u32]>) {
    lists.clear();
    lists.extend(step.back.iter().map(|b| graph.neighbors_labelled(prefix[b.from], b.dir, b.edge_label, step.label)));
}

/// Prefixes a worker takes at once.
pub const CHUNK: usize = 4;
/// Prefixes dealt per worker of the cluster, at least, where the query has as many: the
/// roots alone may be fewer than the workers (yeast's sparse_10_3 has 17), and a few roots
/// may hold most of the work.
pub const DEAL_PER_WORKER: usize = 64;
/// Most prefixes dealt: a level that would make more is not made.
pub const DEAL_MOST: usize = 1 << 20;

/// What a process's workers share for one query's held search: the prefixes dealt (made once,
/// by the first worker to ask), and the next of this process's not yet taken.
#[derive(Debug, Default)]
pub struct Deal {
    prefixes: OnceLock<Prefixes>,
    next: AtomicUsize,
}

/// The prefixes every process makes alike, one after another in `flat`, prefix i ending at
/// `ends[i]`; they may differ in length.
#[derive(Debug, Default)]
struct Prefixes {
    flat: Vec<u32>,
    ends: Vec<usize>,
}

impl Prefixes {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.flat[start..self.ends[i]]
    }

    fn push(&mut self, prefix: &[u32]) {
        self.flat.extend_from_slice(prefix);
        self.ends.push(self.flat.len());
    }
}

/// At most how many extensions position `step` has below `prefix`: its shortest list (the
/// backward neighbours' adjacency, or the candidates where it has none) from past the
/// restrictions' bound.
fn bound<'a>(graph: &'a Graph, step: &Step, prefix: &[u32], lists: &mut Vec<&'a [u32]>) -> usize {
    read(graph, step, prefix, lists);
    let above = floor(step, prefix);
    let len = |l: &[u32]| past(l, above).len();
    lists.iter().map(|l| len(l)).min().unwrap_or_else(|| len(&step.candidates))
}

/// The prefixes dealt for `target` of them at least where the query has as many, every
/// process making the same ones in the same order (every process holds the same lists). The
/// roots first; while a level has fewer than `target`, each of its prefixes is replaced by
/// its extensions; once it has as many, only the heavy ones are: those whose next position
/// has more than the level's share of extensions (the sum of [`bound`]s over `target`), the
/// hubs of a skewed graph, whose subtrees alone could outlast every other worker's share. No
/// prefix reaches the last position or the counted tail, and a level of more than
/// [`DEAL_MOST`] is not made. The deepest, split prefixes come first, the light ones last.
fn prefixes(graph: &Graph, plan: &ClusterPlan, target: usize) -> Prefixes {
    let deepest = plan.tail_start().min(plan.steps.len() - 1);
    let mut kept: Vec<Prefixes> = Vec::new();
    let (mut len, mut level) = (1, plan.steps[0].candidates.clone());
    let (mut lists, mut cands, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    while len < deepest && !level.is_empty() {
        let step = &plan.steps[len];
        let bounds: Vec<usize> = level.chunks(len).map(|p| bound(graph, step, p, &mut lists)).collect();
        let share = if bounds.len() < target { 0 } else { bounds.iter().sum::<usize>() / target };
        let (mut light, mut next) = (Prefixes::default(), Vec::new());
        for (prefix, &b) in level.chunks(len).zip(&bounds) {
            if b <= share || next.len() > DEAL_MOST * (len + 1) {
                light.push(prefix);
                continue;
            }
            read(graph, step, prefix, &mut lists);
            propose(step, &mut lists, prefix, &mut cands, &mut scratch);
            for &c in &cands {
                next.extend_from_slice(prefix);
                next.push(c);
            }
        }
        kept.push(light);
        (len, level) = (len + 1, next);
    }
    let mut dealt = Prefixes::default();
    level.chunks(len).for_each(|p| dealt.push(p));
    for light in kept.iter().rev() {
        (0..light.len()).for_each(|i| dealt.push(light.get(i)));
    }
    dealt
}

/// Finds the matches of `plan` below the prefixes dealt to process `process` of `processes`
/// (`threads` workers each) that this worker takes from `deal`, reading every list from
/// `graph` (the held lists), and hands them to `emit`, which must count them or write them
/// into this process's output (not gather them). Prefix i goes to process i mod P. Returns the
/// time it took, and whether it stopped before the end because `emit` said stop.
pub fn search(
    (process, processes, threads): (usize, usize, usize),
    deal: &Deal,
    graph: &Graph,
    plan: &ClusterPlan,
    emit: &Emit,
) -> (Duration, bool) {
    let t = Instant::now();
    let n = plan.steps.len();
    let dealt = deal.prefixes.get_or_init(|| prefixes(graph, plan, DEAL_PER_WORKER * processes * threads));
    // This process's prefixes are the ones at process, process + processes, ...
    let count = dealt.len().saturating_sub(process).div_ceil(processes);
    let prefix = |j: usize| dealt.get(process + j * processes);
    let next = || {
        let from = deal.next.fetch_add(CHUNK, Ordering::Relaxed);
        (from < count).then(|| from..(from + CHUNK).min(count))
    };
    if n == 1 {
        let mut mine = Vec::new();
        while let Some(js) = next() {
            mine.extend(js.map(|j| prefix(j)[0]));
        }
        emit.matches(&[], &mine, |_| unreachable!("the held search writes its own rows"));
        return (t.elapsed(), false);
    }
    let mut dfs = Dfs {
        graph,
        plan,
        emit,
        prefix: Vec::with_capacity(n),
        levels: vec![Vec::new(); n],
        lists: Vec::new(),
        scratch: Vec::new(),
        stopped: false,
        ticks: 0,
        tail_groups: plan.tail_groups(),
        tail_sets: vec![Vec::new(); plan.tail],
        choices: Scratch::default(),
    };
    while let Some(js) = next() {
        for j in js {
            if dfs.stopped || emit.should_stop() {
                return (t.elapsed(), true);
            }
            let p = prefix(j);
            dfs.prefix.extend_from_slice(p);
            dfs.extend(p.len());
            dfs.prefix.clear();
        }
    }
    (t.elapsed(), dfs.stopped)
}

/// One worker's depth-first search: the prefix, and each position's candidates.
struct Dfs<'a> {
    graph: &'a Graph,
    plan: &'a ClusterPlan,
    emit: &'a Emit,
    prefix: Vec<u32>,
    levels: Vec<Vec<u32>>,
    lists: Vec<&'a [u32]>,
    scratch: Vec<u32>,
    /// Whether a candidate was left because `emit` said stop.
    stopped: bool,
    /// Extensions since `emit` was last asked whether to stop.
    ticks: u32,
    /// The counted tail's positions by label, each tail position's candidates for the current
    /// prefix, and inclusion–exclusion's buffers.
    tail_groups: Vec<Vec<usize>>,
    tail_sets: Vec<Vec<u32>>,
    choices: Scratch,
}

/// Extensions between two questions whether to stop (the deadline, Ctrl-C): a clock read
/// each 4,096, so a stop is seen within a few milliseconds however long one root's search is.
const CHECK_EVERY: u32 = 4096;

impl Dfs<'_> {
    /// Extends the prefix (of `k` positions) by position `k`'s candidates; the last position's
    /// go to `emit`, and at the counted tail the tail's matches are counted.
    fn extend(&mut self, k: usize) {
        let plan = self.plan;
        if plan.tail > 0 && k == plan.tail_start() {
            self.count_tail(k);
            return;
        }
        let step = &plan.steps[k];
        let mut cands = std::mem::take(&mut self.levels[k]);
        let prefix = &self.prefix;
        read(self.graph, step, prefix, &mut self.lists);
        propose(step, &mut self.lists, prefix, &mut cands, &mut self.scratch);
        if k + 1 == plan.steps.len() {
            self.emit.matches(prefix, &cands, |_| unreachable!("the held search writes its own rows"));
        } else {
            for &c in &cands {
                self.ticks += 1;
                if self.ticks >= CHECK_EVERY {
                    self.ticks = 0;
                    self.stopped = self.emit.should_stop();
                }
                if self.stopped {
                    break;
                }
                self.prefix.push(c);
                self.extend(k + 1);
                self.prefix.pop();
            }
        }
        self.levels[k] = cands;
    }

    /// Counts the matches of the tail that starts at position `k` below the prefix: each tail
    /// position's candidates (proposed from the prefix, without its vertices), then per label
    /// group a lone position's set size or the injective choices by inclusion–exclusion.
    fn count_tail(&mut self, k: usize) {
        let plan = self.plan;
        for (step, set) in plan.steps[k..].iter().zip(&mut self.tail_sets) {
            read(self.graph, step, &self.prefix, &mut self.lists);
            propose(step, &mut self.lists, &self.prefix, set, &mut self.scratch);
            if set.is_empty() {
                return;
            }
        }
        let mut total: u128 = 1;
        for group in &self.tail_groups {
            let count = match group[..] {
                [t] => self.tail_sets[t - k].len() as u128,
                _ => {
                    let mut sets: [&[u32]; MAX_GROUP] = [&[]; MAX_GROUP];
                    group.iter().zip(&mut sets).for_each(|(&t, s)| *s = &self.tail_sets[t - k]);
                    distinct_choices(&sets[..group.len()], &mut self.choices).0
                }
            };
            total *= count;
            if total == 0 {
                return;
            }
        }
        self.emit.count(total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use subgraph_core::filter::Filter;
    use subgraph_core::order::Order;
    use subgraph_core::plan::Tail;
    use subgraph_core::sink::Control;
    use subgraph_core::{oracle, GraphBuilder, Query, Semantics};

    /// A ring of 300 vertices, each adjacent to the next, the one after it and the fifth,
    /// with vertex 0 a hub adjacent to all: the hub's subtree is most of the triangles'.
    fn hub_and_ring() -> Graph {
        let n = 300;
        let mut b = GraphBuilder::new(n as usize, false);
        b.set_labels(vec![0; n as usize]);
        for v in 1..n {
            b.add_edge(0, v, 0);
            for d in [1, 2, 5] {
                b.add_edge(v, 1 + (v - 1 + d) % (n - 1), 0);
            }
        }
        b.build().0
    }

    fn clique(k: u32) -> Graph {
        let mut b = GraphBuilder::new(k as usize, false);
        b.set_labels(vec![0; k as usize]);
        (0..k).flat_map(|u| (u + 1..k).map(move |v| (u, v))).for_each(|(u, v)| b.add_edge(u, v, 0));
        b.build().0
    }

    fn plan(data: &Graph, query: &Graph, symmetry: bool, tail: Tail) -> (Query, ClusterPlan) {
        let q = Query::new(query.clone(), data, Semantics::Embed).unwrap();
        let cands = Filter::Ldf.run(data, &q, Semantics::Embed, &Control::unlimited());
        let plan = ClusterPlan::new(data, &q, &cands, symmetry, Order::Gql, tail);
        (q, plan)
    }

    #[test]
    fn a_hubs_root_is_split_and_the_light_roots_are_dealt_whole() {
        let data = hub_and_ring();
        let (_, plan) = plan(&data, &clique(3), true, Tail::Off);
        let dealt = prefixes(&data, &plan, 128);
        let all: Vec<&[u32]> = (0..dealt.len()).map(|i| dealt.get(i)).collect();
        assert!(all.iter().all(|p| p.len() <= 2), "{all:?}");
        let split: Vec<&&[u32]> = all.iter().filter(|p| p.len() == 2).collect();
        assert!(!split.is_empty() && split.iter().all(|p| p[0] == 0), "{split:?}");
        assert!(!all.contains(&&[0u32][..]) && all.contains(&&[1u32][..]), "{all:?}");
        // The split prefixes come first.
        assert_eq!(all[0].len(), 2);
    }

    #[test]
    fn every_match_is_below_one_dealt_prefix_on_every_process_count() {
        let data = hub_and_ring();
        for k in [3, 4] {
            for (symmetry, tail) in [(true, Tail::Off), (false, Tail::Off), (true, Tail::On)] {
                let (q, plan) = plan(&data, &clique(k), symmetry, tail);
                let plan = Arc::new(plan);
                let expected = oracle::count(&data, &q, Semantics::Embed);
                for (processes, threads) in [(1, 1), (2, 1), (3, 2)] {
                    let found: u128 = (0..processes)
                        .map(|p| {
                            let emit =
                                Emit::new(plan.clone(), "q".into(), (None, None), Arc::new(Control::unlimited()), 1);
                            let deal = Deal::default();
                            (0..threads).for_each(|_| {
                                search((p, processes, threads), &deal, &data, &plan, &emit);
                            });
                            emit.found()
                        })
                        .sum();
                    assert_eq!(found, expected, "k {k} symmetry {symmetry} {tail:?} {processes}×{threads}");
                }
            }
        }
    }
}
