//! The parallel CPU matcher: backtracking over the candidate space, each step's local
//! candidates the intersection of the candidate-edge lists of the matched neighbours (Sun & Luo
//! §6, LFTJ-style) or, where the space holds them as bitmaps, the AND of their rows (gMatch's
//! bitmap candidate graph; a popcount at a counted last level), cut to the plan's symmetry
//! bounds (candidates are sorted by id, so a bound f(b) < f(w) is a range), DP-iso failing-set
//! pruning (Han et al., SIGMOD 2019 §5), and work stealing that splits any level of a running
//! search, not only the first, whenever a thread is idle. A level whose links skip its parent
//! is made once for the parent's siblings (`reuse.rs`). Counting never enumerates the last
//! level, nor the plan's tail (`tail.rs`); each match counts as the plan's multiplier, and a
//! written match is expanded by the automorphisms.
//! A count its deadline stops can hand back the work it left (`rest.rs`, `pause.rs`), so that
//! the planner's scouts and probes are not run twice.

mod failing;
mod pause;
mod rest;
mod reuse;
mod tail;

use crate::expand::Expand;
use crate::graph::{Dir, Graph};
use crate::intersect::intersect_in_place;
use crate::plan::Plan;
use crate::query::Semantics;
use crate::sink::{Control, Output, Stopped, OUTPUT_BATCH};
use crate::space::{Bits, CandidateSpace, Lists};
use crate::tail::Scratch;
use failing::Fs;
pub use rest::Rest;
use rest::{Cands, Piece};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// When failing-set pruning is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailingSets {
    /// For queries of at least [`FAILING_SETS_AUTO_MIN`] vertices.
    Auto,
    On,
    Off,
}

/// Query size from which `FailingSets::Auto` prunes with failing sets.
pub const FAILING_SETS_AUTO_MIN: usize = 4;

/// The most worker threads a query may be given: 4 per core, at least 64. More only wait for
/// the cores, and each costs a thread start (2,000 took 30 s to start; 100,000 never did).
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(64)
}

/// `n` worker threads, or why not: at least 1 and at most [`max_threads`].
pub fn threads(n: usize) -> Result<usize, String> {
    match (n, max_threads()) {
        (0, _) => Err("the number of threads must be at least 1".into()),
        (n, max) if n > max => {
            Err(format!("{n} threads is more than {max}, the most for this machine (4 per core, at least 64)"))
        }
        (n, _) => Ok(n),
    }
}

/// Options of one enumeration.
#[derive(Debug, Clone, Copy)]
pub struct EngineOptions {
    /// Stop after this many matches.
    pub limit: Option<u64>,
    pub failing_sets: FailingSets,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { limit: None, failing_sets: FailingSets::Auto }
    }
}

/// What an enumeration found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Matches found (at most the limit).
    pub embeddings: u128,
    /// None when the whole search space was covered.
    pub stopped: Option<Stopped>,
    /// Search tree nodes visited.
    pub nodes: u64,
    /// Per position: partial matches that bound it (passed every check); at the counted last
    /// position (or the first of a counted tail) the matches counted there, before the plan's
    /// multiplier.
    pub levels: Vec<u64>,
    /// Parallel tasks run (1 + the number of work donations).
    pub tasks: u64,
}

impl Outcome {
    /// No match and no work over `positions` plan positions, `stopped` or not.
    pub fn nothing(positions: usize, stopped: Option<Stopped>) -> Outcome {
        Outcome { embeddings: 0, stopped, nodes: 0, levels: vec![0; positions], tasks: 0 }
    }

    /// Adds `later`'s outcome, of the rest this one left: the sums, and `later`'s stop.
    pub fn add(&mut self, later: &Outcome) {
        self.embeddings += later.embeddings;
        self.nodes += later.nodes;
        self.tasks += later.tasks;
        self.levels.iter_mut().zip(&later.levels).for_each(|(a, b)| *a += b);
        self.stopped = later.stopped;
    }
}

/// Nodes between checks of the stop flags and of idle threads.
const CHECK_EVERY: u32 = 256;

/// Enumerates the matches of `plan` using all threads of the current rayon pool. Matches are
/// counted, and written to `output` under the name `query` when it is given.
pub fn enumerate(
    data: &Graph,
    plan: &Plan,
    space: &CandidateSpace,
    options: EngineOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Outcome {
    enumerate_from(data, plan, space, options, control, output, Start::All).0
}

/// Counts the matches of `plan` in `rest` (the whole search, or what a stopped run left), as
/// [`enumerate`] does, and returns with the outcome the work left where `control` stopped it
/// before the end (the deadline or Ctrl-C): a later call with it counts the rest exactly, so
/// that the two outcomes' sum ([`Outcome::add`]) is the whole count. (A run the limit stops
/// is complete as it is: what it leaves is not the rest of anything.)
pub fn enumerate_rest(
    data: &Graph,
    plan: &Plan,
    space: &CandidateSpace,
    options: EngineOptions,
    control: &Control,
    rest: Rest,
) -> (Outcome, Rest) {
    let (out, left) = enumerate_from(data, plan, space, options, control, None, Start::Rest(rest));
    (out, left.unwrap_or_default())
}

/// Where an enumeration starts.
enum Start {
    All,
    /// What a stopped run left; the run keeps what it leaves in turn.
    Rest(Rest),
}

/// [`enumerate`] from `start`; with `Start::Rest`, also the work left where the run stopped.
fn enumerate_from(
    data: &Graph,
    plan: &Plan,
    space: &CandidateSpace,
    options: EngineOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
    start: Start,
) -> (Outcome, Option<Rest>) {
    if plan.empty {
        return (Outcome::nothing(plan.len(), None), None);
    }
    let n = plan.len();
    let use_fs = match options.failing_sets {
        FailingSets::On => true,
        FailingSets::Off => false,
        FailingSets::Auto => n >= FAILING_SETS_AUTO_MIN,
    };
    // Failing sets are bitsets over positions; beyond 1024 positions they are switched off.
    match n.div_ceil(64) {
        1 => run::<1>(data, plan, space, options, use_fs, control, output, start),
        2 => run::<2>(data, plan, space, options, use_fs, control, output, start),
        3 | 4 => run::<4>(data, plan, space, options, use_fs, control, output, start),
        5..=16 => run::<16>(data, plan, space, options, use_fs, control, output, start),
        _ => run::<1>(data, plan, space, options, false, control, output, start),
    }
}

#[allow(clippy::too_many_arguments)]
fn run<const W: usize>(
    data: &Graph,
    plan: &Plan,
    space: &CandidateSpace,
    options: EngineOptions,
    use_fs: bool,
    control: &Control,
    output: Option<(&Output, &str)>,
    start: Start,
) -> (Outcome, Option<Rest>) {
    let n = plan.len();
    let semantics = plan.options.semantics;
    let mut anc: Vec<Fs<W>> = vec![Fs::EMPTY; n];
    if use_fs {
        // A position's local candidates depend on its linked positions and, through the
        // symmetry bounds, on the positions it must exceed.
        for i in 0..n {
            let mut a = Fs::EMPTY;
            a.insert(i);
            for from in plan.backward[i].iter().map(|l| l.from).chain(plan.greater_than[i].iter().copied()) {
                a = a.union(&anc[from]);
            }
            anc[i] = a;
        }
    }
    let same_label: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            let li = plan.candidates[i].first().map(|&v| data.label(v));
            (0..i).filter(|&p| plan.candidates[p].first().map(|&v| data.label(v)) == li).collect()
        })
        .collect();
    debug_assert!(plan.tail == 0 || output.is_none(), "a counted tail is only planned for counting");
    let shared = Shared {
        data,
        plan,
        lists: space.lists(data, plan),
        bits: (0..n).map(|i| space.bits(i)).collect(),
        count_bits: output.is_none() && semantics != Semantics::Induced && space.bits(n - 1).is_some(),
        reusable: reuse::reusable(plan),
        n,
        anc,
        tail_groups: tail_groups(data, plan),
        same_label,
        expand: output.map(|_| Expand::of(plan)),
        injective: semantics.injective(),
        induced: semantics == Semantics::Induced,
        use_fs,
        limit: options.limit,
        accepted: AtomicU64::new(0),
        control,
        output,
        left: matches!(start, Start::Rest(_)).then(|| Mutex::new(Vec::new())),
        pending: AtomicUsize::new(0),
        threads: rayon::current_num_threads(),
        total: Mutex::new(0),
        nodes: AtomicU64::new(0),
        levels: Mutex::new(vec![0; n]),
        tasks: AtomicU64::new(0),
    };
    if let Some((out, name)) = output {
        out.begin_query(name, n);
    }
    if options.limit == Some(0) {
        control.stop(Stopped::Limit);
    } else {
        let first = |cands| Task { prefix: Vec::new(), depth: 0, cands };
        let tasks: Vec<Task> = match start {
            Start::All => vec![first(TaskCands::Range(0, plan.candidates[0].len() as u32))],
            Start::Rest(rest) => rest
                .pieces
                .into_iter()
                .filter(|p| p.cands.len() > 0)
                .map(|p| {
                    let cands = match p.cands {
                        Cands::Range(lo, hi) => TaskCands::Range(lo, hi),
                        Cands::List(v) => TaskCands::Owned(v),
                    };
                    Task { prefix: p.prefix, depth: p.depth, cands }
                })
                .collect(),
        };
        let roots: usize = tasks.iter().filter(|t| t.depth == 0).map(|t| t.cands.len()).sum();
        control.roots.store(0, Ordering::Relaxed);
        control.roots_total.store(roots as u64, Ordering::Relaxed);
        shared.pending.store(tasks.len(), Ordering::Relaxed);
        let shared = &shared;
        rayon::scope(|s| tasks.into_iter().for_each(|t| s.spawn(move |s| run_task(shared, t, s))));
    }
    let embeddings = *shared.total.lock().unwrap_or_else(|e| e.into_inner());
    let out = Outcome {
        embeddings,
        stopped: control.stopped(),
        nodes: shared.nodes.load(Ordering::Relaxed),
        levels: shared.levels.into_inner().unwrap_or_else(|e| e.into_inner()),
        tasks: shared.tasks.load(Ordering::Relaxed),
    };
    let left = shared.left.map(|l| Rest { pieces: l.into_inner().unwrap_or_else(|e| e.into_inner()) });
    (out, left)
}

struct Shared<'a, const W: usize> {
    data: &'a Graph,
    plan: &'a Plan,
    lists: Lists<'a>,
    /// Per position, its lists as bitmaps, where the space made them.
    bits: Vec<Option<&'a Bits>>,
    /// Whether the last level is counted from its bitmaps ([`Worker::count_bits`]).
    count_bits: bool,
    /// Per position, whether its level may serve the next sibling of its parent (`reuse.rs`).
    reusable: Vec<bool>,
    n: usize,
    /// Per position: itself and its ancestors along the links (DP-iso's anc(u)).
    anc: Vec<Fs<W>>,
    /// Per position: earlier positions whose candidates share its label (possible conflicts).
    same_label: Vec<Vec<usize>>,
    /// The plan's counted tail, as groups of positions sharing a label.
    tail_groups: Vec<Vec<usize>>,
    /// How a match becomes the embeddings it stands for, where matches are written.
    expand: Option<Expand>,
    injective: bool,
    induced: bool,
    use_fs: bool,
    limit: Option<u64>,
    accepted: AtomicU64,
    /// Where a stopped run keeps the work it leaves (`enumerate_rest`).
    left: Option<Mutex<Vec<Piece>>>,
    control: &'a Control,
    output: Option<(&'a Output, &'a str)>,
    pending: AtomicUsize,
    threads: usize,
    total: Mutex<u128>,
    nodes: AtomicU64,
    levels: Mutex<Vec<u64>>,
    tasks: AtomicU64,
}

/// A piece of the search: a fixed prefix of candidate indices and the candidates of the next
/// position still to try.
struct Task<'a> {
    prefix: Vec<u32>,
    depth: usize,
    cands: TaskCands<'a>,
}

enum TaskCands<'a> {
    Range(u32, u32),
    Slice(&'a [u32]),
    Owned(Vec<u32>),
}

impl TaskCands<'_> {
    fn len(&self) -> usize {
        match self {
            TaskCands::Range(lo, hi) => (hi - lo) as usize,
            TaskCands::Slice(s) => s.len(),
            TaskCands::Owned(v) => v.len(),
        }
    }
}

impl Task<'_> {
    /// The same work, owned: a piece of a stopped run's rest.
    fn into_piece(self) -> Piece {
        let cands = match self.cands {
            TaskCands::Range(lo, hi) => Cands::Range(lo, hi),
            TaskCands::Slice(s) => Cands::List(s.to_vec()),
            TaskCands::Owned(v) => Cands::List(v),
        };
        Piece { prefix: self.prefix, depth: self.depth, cands }
    }
}

/// Where a level's candidate indices come from.
#[derive(Clone, Copy)]
enum Src<'a> {
    /// base + cursor: every candidate (no matched neighbour).
    Range(u32),
    /// A candidate-edge list of the space (one matched neighbour).
    Slice(&'a [u32]),
    /// The worker's buffer for this level (an intersection).
    Buf,
}

#[derive(Clone, Copy)]
struct Level<'a> {
    src: Src<'a>,
    cursor: usize,
    end: usize,
    donated: bool,
}

/// A worker's state at one position, written at every search node: aligned to a cache line
/// of its own, so that no other thread's data shares it. Small per-worker vectors did share
/// lines with the read-only tables every thread reads (allocators hand a freed chunk to
/// whichever thread asks next), and two threads then took up to 1.4× longer each, in 6 to 19
/// of 40 runs on the 2-core machine (bench/results/2026-11-25-cpu-false-sharing.md).
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Slot<'a> {
    level: Level<'a>,
    /// The candidate index bound here, and its data vertex.
    idx: u32,
    vid: u32,
    /// Partial matches that bound this position (`Outcome::levels`).
    bound: u64,
}

struct Worker<'a, 's, const W: usize> {
    sh: &'s Shared<'a, W>,
    slots: Vec<Slot<'a>>,
    bufs: Vec<Vec<u32>>,
    scratch: Vec<u32>,
    /// The lists of the links being intersected.
    found: Vec<&'a [u32]>,
    /// The bitmap rows of the links being ANDed.
    rows: Vec<&'a [u64]>,
    /// What each reusable position's last level was made from.
    keys: reuse::Keys,
    tail: TailBuffers,
    root: usize,
    count: u128,
    reported: u128,
    /// Roots (first-position candidates) bound so far that `Control::roots` counts.
    roots_reported: u64,
    nodes: u64,
    ticks: u32,
    stopped: bool,
    /// The position whose loop saw the control's stop (its current candidate not begun).
    stopped_at: Option<usize>,
    /// Written embeddings, formatted and not yet handed to the output.
    out: Vec<u8>,
    /// Under a limit, where each embedding of `out` not yet taken towards it ends: they are
    /// taken together ([`Worker::take_written`]), at the latest at the next check, so that
    /// threads do not contend for the shared count at every embedding.
    untaken: Vec<usize>,
    /// Where the first embedding of `out` not yet taken starts.
    taken_end: usize,
    /// The match being written, by position, and one of its embeddings, by query vertex.
    row: Vec<u32>,
    embedding: Vec<u32>,
}

/// A worker's buffers for tail counts.
#[derive(Debug, Default)]
struct TailBuffers {
    /// Per tail position of the current group: its local candidates as data vertices.
    vids: Vec<Vec<u32>>,
    scratch: Scratch,
}

/// The plan's tail positions grouped by label (different labels never share a data vertex).
fn tail_groups(data: &Graph, plan: &Plan) -> Vec<Vec<usize>> {
    let n = plan.len();
    crate::tail::label_groups(n - plan.tail..n, |p| plan.candidates[p].first().map(|&v| data.label(v)))
}

fn run_task<'a, 's, const W: usize>(sh: &'s Shared<'a, W>, task: Task<'a>, scope: &rayon::Scope<'s>)
where
    'a: 's,
{
    sh.tasks.fetch_add(1, Ordering::Relaxed);
    let n = sh.n;
    let mut w = Worker {
        sh,
        slots: vec![
            Slot { level: Level { src: Src::Buf, cursor: 0, end: 0, donated: false }, idx: 0, vid: 0, bound: 0 };
            n
        ],
        bufs: vec![Vec::new(); n],
        scratch: Vec::new(),
        found: Vec::new(),
        rows: Vec::new(),
        keys: reuse::Keys::new(sh.plan),
        tail: TailBuffers::default(),
        root: task.depth,
        count: 0,
        reported: 0,
        roots_reported: 0,
        nodes: 0,
        ticks: 0,
        stopped: false,
        stopped_at: None,
        out: Vec::new(),
        untaken: Vec::new(),
        taken_end: 0,
        row: vec![0; n],
        embedding: vec![0; n],
    };
    for (p, &c) in task.prefix.iter().enumerate() {
        w.slots[p].idx = c;
        w.slots[p].vid = sh.plan.candidates[p][c as usize];
    }
    let d = task.depth;
    if sh.control.should_stop() {
        if let Some(left) = &sh.left {
            left.lock().unwrap_or_else(|e| e.into_inner()).push(task.into_piece());
        }
        w.finish();
        return;
    }
    w.slots[d].level = match task.cands {
        TaskCands::Range(lo, hi) => Level { src: Src::Range(lo), cursor: 0, end: (hi - lo) as usize, donated: false },
        TaskCands::Slice(s) => Level { src: Src::Slice(s), cursor: 0, end: s.len(), donated: false },
        TaskCands::Owned(v) => {
            let end = v.len();
            w.bufs[d] = v;
            Level { src: Src::Buf, cursor: 0, end, donated: false }
        }
    };
    w.descend(d, scope);
    if let (Some(left), Some(at)) = (&sh.left, w.stopped_at) {
        let pieces = w.left(at);
        left.lock().unwrap_or_else(|e| e.into_inner()).extend(pieces);
    }
    w.finish();
}

impl<'a, 's, const W: usize> Worker<'a, 's, W>
where
    'a: 's,
{
    #[inline]
    fn item(&self, d: usize, k: usize) -> u32 {
        match self.slots[d].level.src {
            Src::Range(base) => base + k as u32,
            Src::Slice(s) => s[k],
            Src::Buf => self.bufs[d][k],
        }
    }

    /// The first candidate index of position d above its symmetry bounds: candidates are
    /// sorted by id, so f(v) > f(b) for the bounds b keeps indices from it.
    #[inline(always)]
    fn cut(&self, d: usize) -> u32 {
        let sh = self.sh;
        match sh.plan.greater_than[d].iter().map(|&p| self.slots[p].vid).max() {
            Some(floor) => sh.plan.candidates[d].partition_point(|&v| v <= floor) as u32,
            None => 0,
        }
    }

    /// The rows of position d's bitmaps of its links' bound candidates, in the worker's
    /// vector (taken: give it back after use).
    #[inline(always)]
    fn rows(&mut self, d: usize, bits: &'a Bits) -> Vec<&'a [u64]> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        rows.extend(self.sh.plan.backward[d].iter().enumerate().map(|(j, l)| bits.row(j, self.slots[l.from].idx)));
        rows
    }

    /// Computes the local candidates of position d from the matched prefix: the intersection
    /// of its links' candidate-edge lists, cut above its symmetry bounds.
    #[inline(always)]
    fn setup(&mut self, d: usize) {
        let sh = self.sh;
        let back = &sh.plan.backward[d];
        let lists = sh.lists;
        let cut = self.cut(d);
        let above = |s: &'a [u32]| if cut == 0 { s } else { &s[s.partition_point(|&c| c < cut)..] };
        let level = match (back.len(), sh.bits[d]) {
            (0, _) => {
                let len = sh.plan.candidates[d].len() as u32;
                Level { src: Src::Range(cut), cursor: 0, end: len.saturating_sub(cut) as usize, donated: false }
            }
            (1, _) => {
                let s = above(lists.of(d, 0, self.slots[back[0].from].idx));
                Level { src: Src::Slice(s), cursor: 0, end: s.len(), donated: false }
            }
            _ if sh.reusable[d] && self.keys.same(d, back.iter().map(|l| self.slots[l.from].vid), cut) => {
                // A sibling of the parent made this level from the same vertices and cut.
                Level { src: Src::Buf, cursor: 0, end: self.bufs[d].len(), donated: false }
            }
            (_, Some(bits)) => {
                let rows = self.rows(d, bits);
                let buf = &mut self.bufs[d];
                buf.clear();
                bits.collect(&rows, cut, buf);
                self.rows = rows;
                Level { src: Src::Buf, cursor: 0, end: buf.len(), donated: false }
            }
            (k, None) => {
                // Each list is looked up once; the shortest bounds every later intersection.
                let mut found = std::mem::take(&mut self.found);
                found.clear();
                found.extend(back.iter().enumerate().map(|(j, l)| lists.of(d, j, self.slots[l.from].idx)));
                let shortest = (0..k).min_by_key(|&j| found[j].len()).expect("k > 1");
                let buf = &mut self.bufs[d];
                buf.clear();
                buf.extend_from_slice(above(found[shortest]));
                for (j, list) in found.iter().enumerate() {
                    if buf.is_empty() {
                        break;
                    }
                    if j != shortest {
                        intersect_in_place(buf, above(list), &mut self.scratch);
                    }
                }
                self.found = found;
                Level { src: Src::Buf, cursor: 0, end: buf.len(), donated: false }
            }
        };
        self.slots[d].level = level;
    }

    /// The earlier position already holding v, if any.
    #[inline]
    fn conflict(&self, d: usize, v: u32) -> Option<usize> {
        self.sh.same_label[d].iter().copied().find(|&p| self.slots[p].vid == v)
    }

    /// Induced matching: the earlier position whose non-edge v would break, if any.
    fn violation(&self, d: usize, v: u32) -> Option<usize> {
        let g = self.sh.data;
        self.sh.plan.non_edges[d].iter().find_map(|ne| {
            let m = self.slots[ne.from].vid;
            let present = match ne.dir {
                Dir::Out => g.edge_label(m, v).is_some(),
                Dir::In => g.edge_label(v, m).is_some(),
            };
            present.then_some(ne.from)
        })
    }

    /// Explores every candidate of level d (set up already) and returns the failing set.
    fn descend(&mut self, d: usize, scope: &rayon::Scope<'s>) -> Fs<W> {
        let sh = self.sh;
        let last = d + 1 == sh.n;
        if sh.plan.tail > 0 && d == sh.n - sh.plan.tail {
            return self.count_tail(d);
        }
        if last && sh.output.is_none() && !sh.induced {
            return self.count_last(d);
        }
        let cands = &sh.plan.candidates[d];
        let mut union = Fs::EMPTY;
        while self.slots[d].level.cursor < self.slots[d].level.end {
            let k = self.slots[d].level.cursor;
            self.slots[d].level.cursor += 1;
            let c = self.item(d, k);
            let v = cands[c as usize];
            self.nodes += 1;
            self.ticks += 1;
            if self.ticks >= CHECK_EVERY {
                self.check(d, scope);
                if self.stopped {
                    return Fs::FULL;
                }
            }
            if sh.injective {
                if let Some(p) = self.conflict(d, v) {
                    union = union.union(&sh.anc[d]).union(&sh.anc[p]);
                    continue;
                }
            }
            if sh.induced {
                if let Some(p) = self.violation(d, v) {
                    union = union.union(&sh.anc[d]).union(&sh.anc[p]);
                    continue;
                }
            }
            self.slots[d].idx = c;
            self.slots[d].vid = v;
            self.slots[d].bound += 1;
            if last {
                self.emit();
                if self.stopped {
                    return Fs::FULL;
                }
                union = Fs::FULL;
                continue;
            }
            let child = if sh.count_bits && d + 2 == sh.n {
                self.count_bits(d + 1)
            } else {
                self.setup(d + 1);
                if self.slots[d + 1].level.end == 0 {
                    sh.anc[d + 1]
                } else {
                    self.descend(d + 1, scope)
                }
            };
            if self.stopped {
                return Fs::FULL;
            }
            if sh.use_fs && !child.contains(d) {
                // No sibling can succeed either: the failure does not depend on position d.
                self.slots[d].level.cursor = self.slots[d].level.end;
                return child;
            }
            union = union.union(&child);
        }
        if self.slots[d].level.donated {
            Fs::FULL
        } else {
            union
        }
    }

    /// The last level, counting only: every local candidate not already used is a match.
    fn count_last(&mut self, d: usize) -> Fs<W> {
        let sh = self.sh;
        let lv = self.slots[d].level;
        let len = lv.end - lv.cursor;
        let mut fs = Fs::EMPTY;
        let mut hits = 0;
        if sh.injective {
            // Local candidates are indices into d's candidates, which are sorted by vertex id:
            // a bound vertex is looked up in the (short) local list by id.
            let cands = &sh.plan.candidates[d];
            let has = |l: &[u32], v: u32| l.binary_search_by(|&c| cands[c as usize].cmp(&v)).is_ok();
            for &p in &sh.same_label[d] {
                let v = self.slots[p].vid;
                let found = match lv.src {
                    Src::Range(base) => {
                        let (lo, hi) = (base as usize + lv.cursor, base as usize + lv.end);
                        cands[lo..hi].binary_search(&v).is_ok()
                    }
                    Src::Slice(s) => has(&s[lv.cursor..lv.end], v),
                    Src::Buf => has(&self.bufs[d][lv.cursor..lv.end], v),
                };
                if found {
                    hits += 1;
                    fs = fs.union(&sh.anc[d]).union(&sh.anc[p]);
                }
            }
        }
        self.nodes += len as u64;
        let k = (len - hits) as u128;
        if k == 0 {
            return fs;
        }
        self.slots[d].bound += k as u64;
        self.add(k * sh.plan.multiplier);
        Fs::FULL
    }

    /// The last level, counted from its links' bitmap rows ([`Bits`]): as [`Self::count_last`]
    /// over the level [`Self::setup`] would make, without making it.
    fn count_bits(&mut self, d: usize) -> Fs<W> {
        let sh = self.sh;
        let bits = sh.bits[d].expect("count_bits: the last position has bitmaps");
        let cands = &sh.plan.candidates[d];
        let cut = self.cut(d);
        let rows = self.rows(d, bits);
        let back = &sh.plan.backward[d];
        let len = if sh.reusable[d] && self.keys.same(d, back.iter().map(|l| self.slots[l.from].vid), cut) {
            self.keys.counted(d)
        } else {
            let len = bits.count(&rows, cut);
            self.keys.count(d, len);
            len
        };
        if len == 0 {
            self.rows = rows;
            return sh.anc[d];
        }
        let mut fs = Fs::EMPTY;
        let mut hits = 0;
        if sh.injective {
            for &p in &sh.same_label[d] {
                let v = self.slots[p].vid;
                if let Ok(c) = cands.binary_search(&v) {
                    if c as u32 >= cut && Bits::all(&rows, c as u32) {
                        hits += 1;
                        fs = fs.union(&sh.anc[d]).union(&sh.anc[p]);
                    }
                }
            }
        }
        self.rows = rows;
        self.nodes += len;
        let k = (len - hits) as u128;
        if k == 0 {
            return fs;
        }
        self.slots[d].bound += k as u64;
        self.add(k * sh.plan.multiplier);
        Fs::FULL
    }

    /// Counts k embeddings, honouring the limit.
    fn add(&mut self, k: u128) {
        let sh = self.sh;
        match sh.limit {
            None => self.count += k,
            Some(limit) => {
                let k = k.min(u64::MAX as u128) as u64;
                let prev = sh
                    .accepted
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |a| Some(a.saturating_add(k)))
                    .expect("the update always succeeds");
                if prev < limit {
                    self.count += k.min(limit - prev) as u128;
                }
                if prev.saturating_add(k) >= limit {
                    sh.control.stop(Stopped::Limit);
                    self.stopped = true;
                }
            }
        }
    }

    /// One full match: counted as the plan's multiplier; written, when there is an output, as
    /// the embeddings it stands for (f∘σ for every automorphism σ behind the restrictions),
    /// each counted and each honouring the limit.
    fn emit(&mut self) {
        let sh = self.sh;
        let (Some((out, name)), Some(expand)) = (sh.output, &sh.expand) else {
            self.add(sh.plan.multiplier);
            return;
        };
        let mut embedding = std::mem::take(&mut self.embedding);
        if sh.plan.symmetry.is_none() {
            // The one embedding, straight from the slots (through `expand`'s row, a copy more,
            // a query without symmetry wrote 0.9 times as fast on this VM).
            sh.plan.vertices.iter().zip(&self.slots).for_each(|(&u, s)| embedding[u as usize] = s.vid);
            self.write(out, name, &embedding);
        } else {
            self.row.iter_mut().zip(&self.slots).for_each(|(r, s)| *r = s.vid);
            let row = std::mem::take(&mut self.row);
            expand.each(&row, 0, expand.per_row(), &mut embedding, |e| self.write(out, name, e));
            self.row = row;
        }
        self.embedding = embedding;
    }

    /// Formats `embedding` into the worker's output, where it is counted (under a limit, when
    /// it is taken towards it); false once the limit is reached.
    fn write(&mut self, out: &Output, name: &str, embedding: &[u32]) -> bool {
        out.format(name, embedding, &mut self.out);
        match self.sh.limit {
            None => self.count += 1,
            Some(_) => self.untaken.push(self.out.len()),
        }
        if self.out.len() >= OUTPUT_BATCH {
            self.hand_over(out);
        }
        !self.stopped
    }

    /// Takes the written embeddings not yet taken towards the limit, together: those beyond it
    /// are dropped from the output unwritten, and reaching it stops the search.
    fn take_written(&mut self) {
        let k = self.untaken.len();
        if k == 0 {
            return;
        }
        let before = self.count;
        self.add(k as u128);
        let taken = (self.count - before) as usize;
        if taken < k {
            self.out.truncate(if taken == 0 { self.taken_end } else { self.untaken[taken - 1] });
        }
        self.untaken.clear();
        self.taken_end = self.out.len();
    }

    /// Hands the worker's written embeddings to the output, each taken towards the limit first.
    fn hand_over(&mut self, out: &Output) {
        self.take_written();
        out.write_batch(&self.out);
        self.out.clear();
        self.taken_end = 0;
    }

    /// Periodic work: progress, stop flags, and a donation when a thread is idle.
    fn check(&mut self, d: usize, scope: &rayon::Scope<'s>) {
        let sh = self.sh;
        self.ticks = 0;
        self.take_written();
        let delta = self.count - self.reported;
        if delta > 0 {
            sh.control.found.fetch_add(delta.min(u64::MAX as u128) as u64, Ordering::Relaxed);
            self.reported = self.count;
        }
        self.report_roots();
        if sh.control.should_stop() {
            self.stopped = true;
            self.stopped_at = Some(d);
            return;
        }
        if sh.pending.load(Ordering::Relaxed) < sh.threads {
            self.donate(d, scope);
        }
    }

    /// Gives half of the remaining candidates of the shallowest unfinished level to a new task.
    fn donate(&mut self, d: usize, scope: &rayon::Scope<'s>) {
        let Some(l) = (self.root..=d).find(|&l| self.slots[l].level.cursor < self.slots[l].level.end) else { return };
        let lv = self.slots[l].level;
        let give = (lv.end - lv.cursor).div_ceil(2);
        let task = self.task(l, lv.end - give, lv.end);
        self.slots[l].level.end = lv.end - give;
        self.slots[l].level.donated = true;
        let sh = self.sh;
        sh.pending.fetch_add(1, Ordering::Relaxed);
        scope.spawn(move |s| run_task(sh, task, s));
    }

    /// The task of position l's candidates `lo..hi` (of its level) under the ones bound above.
    fn task(&self, l: usize, lo: usize, hi: usize) -> Task<'a> {
        let cands = match self.slots[l].level.src {
            Src::Range(base) => TaskCands::Range(base + lo as u32, base + hi as u32),
            Src::Slice(s) => TaskCands::Slice(&s[lo..hi]),
            Src::Buf => TaskCands::Owned(self.bufs[l][lo..hi].to_vec()),
        };
        Task { prefix: self.slots[..l].iter().map(|s| s.idx).collect(), depth: l, cands }
    }

    /// Adds the roots this worker has bound since it last reported to `Control::roots` (a
    /// task of the first position binds roots; deeper tasks bind none).
    fn report_roots(&mut self) {
        if self.root == 0 {
            let begun = self.slots.first().map_or(0, |s| s.bound);
            if begun > self.roots_reported {
                self.sh.control.roots.fetch_add(begun - self.roots_reported, Ordering::Relaxed);
                self.roots_reported = begun;
            }
        }
    }

    fn finish(&mut self) {
        self.report_roots();
        let sh = self.sh;
        if let Some((out, _)) = sh.output {
            self.hand_over(out);
        }
        let delta = self.count - self.reported;
        sh.control.found.fetch_add(delta.min(u64::MAX as u128) as u64, Ordering::Relaxed);
        *sh.total.lock().unwrap_or_else(|e| e.into_inner()) += self.count;
        sh.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        let mut levels = sh.levels.lock().unwrap_or_else(|e| e.into_inner());
        levels.iter_mut().zip(&self.slots).for_each(|(a, s)| *a += s.bound);
        sh.pending.fetch_sub(1, Ordering::Relaxed);
    }
}
