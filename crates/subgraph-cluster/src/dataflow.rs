//! One query on one timely worker, after BiGJoin (Ammar, McSherry, Salihoglu and Joglekar,
//! VLDB 2018 §3–4): a partial match (a prefix of data vertices in the plan's order) is
//! extended one position at a time. For each position the prefix is routed (timely's
//! `Exchange` pact) to a worker of the process owning the data vertex of its first backward
//! neighbour (which of its workers, by a hash of the prefix), which proposes the candidates
//! from its adjacency list (label-filtered by the list's grouping, in the position's global
//! candidate set, injective, within the symmetry-breaking restrictions); the prefix with its
//! candidates is then routed to the owner of each further backward neighbour, which
//! intersects them with its list. The last position's candidates go to [`Emit`], which counts
//! them or writes the matches.
//!
//! Skew: lists every process holds ([`Replicas`]: those of the positions `replicate` chose)
//! are read by the proposing operator wherever it runs, and where all of a position's lists
//! are held the prefix goes to any worker by a hash of it, so a hub's extensions are shared by
//! every worker (BiGJoin's balanced variant, §4.3).
//!
//! What bounds memory: roots (the first position's data vertices) enter in batches of
//! [`BATCH_ROOTS`] per worker, one timely epoch each, and a worker starts a batch only when at
//! most [`IN_FLIGHT`] earlier batches are unfinished (its probe's frontier): the prefixes
//! alive at once are those descending from at most (`IN_FLIGHT` + 1) × `BATCH_ROOTS` roots
//! per worker; the last position is not materialised as prefixes.

use crate::emit::Emit;
use crate::held::{self, propose};
use crate::load::Local;
use crate::plan::{Back, ClusterPlan, Step};
use crate::replicate::Replicas;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph_core::intersect::intersect_into;
use subgraph_core::sink::{Control, Stopped};
use timely::communication::Allocate;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::{Broadcast, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle, Stream};
use timely::worker::Worker;

/// Roots a worker starts per epoch.
pub const BATCH_ROOTS: usize = 256;
/// Unfinished epochs a worker allows before it starts another.
pub const IN_FLIGHT: u64 = 2;
/// How long an idle worker parks before it looks at the deadline again.
const PARK: Duration = Duration::from_millis(5);

/// A prefix of data vertices, and the candidates for the next position proposed so far
/// (empty before the proposal).
pub type Partial = (Vec<u32>, Vec<u32>);

/// How a query's matches were searched for (the same on every worker).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Search {
    /// Not at all: a candidate set was empty, or the limit 0.
    #[default]
    None,
    /// Depth first by each worker over lists every process holds ([`held`]).
    Held,
    /// Partial matches routed to the owners of the lists that extend them (this module).
    Routed,
}

impl Search {
    /// As reports name it: "none", "held" or "routed".
    pub fn name(self) -> &'static str {
        match self {
            Search::None => "none",
            Search::Held => "held",
            Search::Routed => "routed",
        }
    }
}

/// What one worker did for one query.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    /// Which search ran.
    pub search: Search,
    /// Embeddings found: matches counted (times the plan's multiplier), or rows written or
    /// sent to worker 0.
    pub embeddings: u128,
    /// Time in the operators' logic and in starting roots.
    pub busy: Duration,
    /// Bytes of the partial matches and rows this worker sent to other processes' workers
    /// (4 per vertex id).
    pub bytes_sent: u64,
    /// Why the worker stopped before the search was done, where it did.
    pub stopped: Option<Stopped>,
}

/// Shared by one worker's operators.
struct Counters {
    busy: Cell<Duration>,
    stopped: Cell<bool>,
}

/// Finds the matches of `plan` whose root this worker owns ([`Local::worker`]), with the
/// other workers extending what their processes own or what every process holds
/// (`replicas`), and hands them to `emit` (counted or written); `control` stops it (the
/// deadline, Ctrl-C, the limit). Where every list it reads is held, the worker searches below
/// the prefixes it takes from its process's `deal` alone instead ([`held`]).
pub fn search<A: Allocate>(
    worker: &mut Worker<A>,
    local: &Arc<Local>,
    replicas: &Arc<Replicas>,
    plan: &Arc<ClusterPlan>,
    emit: Emit,
    control: &Arc<Control>,
    deal: &held::Deal,
) -> Tally {
    let me = worker.index();
    // Where every process holds every list the query reads and the rows stay in this
    // process, nothing needs routing: each worker searches below its share of the prefixes
    // (`held`).
    if replicas.every && emit.limit().is_none() && !emit.gathers() {
        let graph = replicas.graph.as_deref().unwrap_or(&local.graph);
        let threads = worker.peers() / local.processes;
        let (busy, stopped) = held::search((local.process, local.processes, threads), deal, graph, plan, &emit);
        emit.flush();
        let stopped = stopped.then(|| control.stopped().unwrap_or(Stopped::Timeout));
        return Tally { search: Search::Held, embeddings: emit.found(), busy, bytes_sent: 0, stopped };
    }
    let counters = Rc::new(Counters { busy: Cell::new(Duration::ZERO), stopped: Cell::new(false) });
    let emit = Rc::new(emit);
    let bytes = Arc::new(AtomicU64::new(0));
    let (peers, threads) = (worker.peers(), worker.peers() / local.processes);
    let roots: Vec<u32> =
        plan.steps[0].candidates.iter().copied().filter(|&v| local.worker(v, threads) == me).collect();
    let mut input: InputHandle<u64, Partial> = InputHandle::new();
    // Under a limit, each worker's count as it grows, to every worker.
    let mut heard: InputHandle<u64, (u64, u64)> = InputHandle::new();
    let probe = ProbeHandle::new();
    worker.dataflow::<u64, _, _>(|scope| {
        let mut stream: Stream<_, Partial> = scope.input_from(&mut input);
        for k in 1..plan.steps.len() {
            let stages = stages(&plan.steps[k], |f| replicas.held[f]);
            let operators = stages.len();
            for (j, links) in stages.into_iter().enumerate() {
                // A position without backward neighbours takes its candidates from its global
                // set, which every worker holds: its prefixes stay where they are. The first
                // link routes the others: a prefix goes to the owner of its list, or, where
                // every process holds it, to any worker.
                let route = links.first().map(|b| (b.from, replicas.held[b.from]));
                let mut stage = Stage {
                    local: local.clone(),
                    replicas: replicas.clone(),
                    plan: plan.clone(),
                    k,
                    links,
                    proposes: j == 0,
                    last: j + 1 == operators,
                    control: control.clone(),
                    scratch: Vec::new(),
                };
                let counters = counters.clone();
                let (local, bytes) = (local.clone(), bytes.clone());
                let pact = Exchange::new(move |(prefix, cands): &Partial| {
                    let to = match route {
                        None => me,
                        Some((_, true)) => spread(prefix) % peers,
                        Some((f, false)) => local.owner(prefix[f]) * threads + spread(prefix) % threads,
                    };
                    if to / threads != me / threads {
                        bytes.fetch_add(4 * (prefix.len() + cands.len()) as u64, Ordering::Relaxed);
                    }
                    to as u64
                });
                let name = format!("extend {k}.{j}");
                stream = stream.unary::<CapacityContainerBuilder<Vec<Partial>>, _, _, _>(pact, &name, |_, _| {
                    move |input, output| {
                        let t = Instant::now();
                        input.for_each(|time, data| {
                            if stage.control.should_stop() {
                                counters.stopped.set(true);
                                data.clear();
                                return;
                            }
                            let mut session = output.session(&time);
                            for (prefix, cands) in data.drain(..) {
                                stage.advance(prefix, cands, |p| session.give(p));
                            }
                        });
                        counters.busy.set(counters.busy.get() + t.elapsed());
                    }
                });
            }
        }
        // The last position's candidates, counted or written; rows for worker 0 on.
        let (to_emit, counters_end) = (emit.clone(), counters.clone());
        let rows = stream.unary::<CapacityContainerBuilder<Vec<Vec<u8>>>, _, _, _>(Pipeline, "emit", |_, _| {
            move |input, output| {
                let t = Instant::now();
                input.for_each(|time, data| {
                    if to_emit.should_stop() {
                        counters_end.stopped.set(true);
                        data.clear();
                        return;
                    }
                    let mut session = output.session(&time);
                    for (prefix, last) in data.drain(..) {
                        to_emit.matches(&prefix, &last, |batch| session.give(batch));
                    }
                    let rest = to_emit.take_gathered();
                    if !rest.is_empty() {
                        session.give(rest);
                    }
                });
                counters_end.busy.set(counters_end.busy.get() + t.elapsed());
            }
        });
        // Gathered rows, written by worker 0: the probe follows them there, so a query ends
        // once they are written.
        let end = match emit.gathers() {
            false => rows,
            true => {
                let (to_first, bytes) = (emit.clone(), bytes.clone());
                let pact = Exchange::new(move |batch: &Vec<u8>| {
                    if me / threads != 0 {
                        bytes.fetch_add(batch.len() as u64, Ordering::Relaxed);
                    }
                    0
                });
                rows.unary::<CapacityContainerBuilder<Vec<Vec<u8>>>, _, _, _>(pact, "write", |_, _| {
                    move |input, _| input.for_each(|_, data| data.drain(..).for_each(|r| to_first.write_gathered(&r)))
                })
            }
        };
        end.probe_with(&probe);
        if emit.limit().is_some() {
            let to_hear = emit.clone();
            scope.input_from(&mut heard).broadcast().inspect(move |&(w, c)| {
                if w as usize != me {
                    to_hear.heard(w as usize, c)
                }
            });
        }
    });
    // Under a limit, this worker's count whenever it has grown since it was last sent.
    let mut said = 0u128;
    let mut step = |worker: &mut Worker<A>, heard: &mut InputHandle<u64, (u64, u64)>| {
        worker.step_or_park(Some(PARK));
        if emit.limit().is_some() && emit.found() != said {
            said = emit.found();
            heard.send((me as u64, said.min(u64::MAX as u128) as u64));
            heard.flush();
        }
    };
    let mut epoch = 0u64;
    // A query of one vertex: its roots are the last position's candidates.
    let single = plan.steps.len() == 1;
    for batch in roots.chunks(BATCH_ROOTS) {
        if control.should_stop() {
            counters.stopped.set(true);
            break;
        }
        let t = Instant::now();
        match single {
            true => input.send((Vec::new(), batch.to_vec())),
            false => batch.iter().for_each(|&r| input.send((vec![r], Vec::new()))),
        }
        epoch += 1;
        input.advance_to(epoch);
        counters.busy.set(counters.busy.get() + t.elapsed());
        while probe.less_than(&epoch.saturating_sub(IN_FLIGHT)) {
            step(worker, &mut heard);
        }
    }
    input.close();
    while !probe.done() {
        step(worker, &mut heard);
    }
    heard.close();
    emit.flush();
    Tally {
        search: Search::Routed,
        embeddings: emit.found(),
        busy: counters.busy.get(),
        bytes_sent: bytes.load(Ordering::Relaxed),
        stopped: counters.stopped.get().then(|| control.stopped().unwrap_or(Stopped::Timeout)),
    }
}

/// The operators of a step, each as the links it reads: the first reads the links every
/// process holds (`held`, by position) with one that it is routed by, proposing the candidates;
/// each other one intersects them with one more list, at its owner. Where every list is held,
/// one operator reads them all wherever the prefix is sent; a step without backward neighbours
/// has one operator and no link.
fn stages(step: &Step, held: impl Fn(usize) -> bool) -> Vec<Vec<Back>> {
    let (held, owned): (Vec<Back>, Vec<Back>) = step.back.iter().partition(|b| held(b.from));
    match owned.split_first() {
        None => vec![held],
        Some((first, rest)) => {
            let proposal = std::iter::once(*first).chain(held).collect();
            std::iter::once(proposal).chain(rest.iter().map(|b| vec![*b])).collect()
        }
    }
}

/// One operator of position `k`'s step: its links (`stages`).
struct Stage {
    local: Arc<Local>,
    replicas: Arc<Replicas>,
    plan: Arc<ClusterPlan>,
    k: usize,
    links: Vec<Back>,
    /// The step's first operator, which proposes the candidates, and its last.
    proposes: bool,
    last: bool,
    control: Arc<Control>,
    /// Where an intersection is written before it replaces the candidates.
    scratch: Vec<u32>,
}

impl Stage {
    /// Proposes (the first operator) or intersects the candidates of `prefix` for position `k`,
    /// and after the step's last operator gives the extended prefixes to `give`, or, at the
    /// last position, the prefix with its candidates (for `Emit`).
    ///
    /// A proposal reads every list of its links here (the one it was routed by and those every
    /// process holds), as [`propose`] says.
    fn advance(&mut self, prefix: Vec<u32>, mut cands: Vec<u32>, mut give: impl FnMut(Partial)) {
        let step: &Step = &self.plan.steps[self.k];
        let (local, replicas) = (&self.local.graph, &self.replicas);
        let list = |b: &Back| {
            let graph = replicas.holding(b.from).unwrap_or(local);
            graph.neighbors_labelled(prefix[b.from], b.dir, b.edge_label, step.label)
        };
        if self.proposes {
            let mut lists: Vec<&[u32]> = self.links.iter().map(list).collect();
            propose(step, &mut lists, &prefix, &mut cands, &mut self.scratch);
        } else {
            intersect_into(&cands, list(&self.links[0]), &mut self.scratch);
            std::mem::swap(&mut cands, &mut self.scratch);
        }
        if cands.is_empty() {
            return;
        }
        if !self.last || self.k + 1 == self.plan.steps.len() {
            give((prefix, cands));
        } else {
            for c in cands {
                let mut next = Vec::with_capacity(prefix.len() + 1);
                next.extend_from_slice(&prefix);
                next.push(c);
                give((next, Vec::new()));
            }
        }
    }
}

/// A hash of `prefix`: which of its owning process's workers a prefix goes to, or which of all
/// the workers where its list is held everywhere.
fn spread(prefix: &[u32]) -> usize {
    let h = prefix.iter().fold(0u64, |h, &v| (h ^ v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29));
    (h >> 32) as usize
}
