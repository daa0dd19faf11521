//! What a query's dataflow does with its last position's candidates: counts them, or writes
//! each match as the embeddings it stands for (its images under the automorphisms behind the
//! symmetry-breaking restrictions), either into this process's output or, gathered, through
//! worker 0 into process 0's; and the limit, the first N embeddings over every process, which
//! each worker learns from the others' counts as they grow (BiGJoin's dataflow has no sink of
//! its own: Ammar et al., VLDB 2018 §5 count or hand on the matches; this is the `--limit` and
//! `--output` of `match` on one host). Gathered rows are formatted by the worker that finds them
//! and written whole by worker 0, except under a limit, where worker 0 counts them off as ids.
//!
//! Exactness under a limit: a worker stops once its own count and the latest counts the others
//! broadcast reach N. Those counts only grow, so the sum every worker reports at the end is at
//! least what any worker saw, and N is reported exactly when it is reached. Gathered rows are
//! never dropped on their way to worker 0, which writes the first N it receives, so exactly
//! min(N, found) rows are written.

use crate::plan::ClusterPlan;
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use subgraph_core::expand::Expand;
use subgraph_core::sink::{Control, Output, Stopped, OUTPUT_BATCH};

/// Where a cluster run's matches go; without it they are counted only.
#[derive(Clone)]
pub struct Rows {
    /// This process's writer: its own file, or process 0's standard output. Where rows are
    /// gathered, the other processes only format with theirs (one over `std::io::sink()`
    /// writes nothing but the same rows as process 0's).
    pub output: Arc<Output>,
    /// Every row goes to worker 0 and is written into process 0's output (for one stream, and
    /// under a limit, so that exactly the first N are written); else each process writes the
    /// rows its workers find into its own.
    pub gather: bool,
}

/// Rows a worker sends to worker 0 in one message under a limit, at most (otherwise a message
/// is a batch of [`OUTPUT_BATCH`] formatted bytes).
pub const GATHER_ROWS: usize = 4096;

/// One worker's end of one query: its count, the others' counts under a limit, and its rows.
pub struct Emit {
    plan: Arc<ClusterPlan>,
    name: Arc<str>,
    limit: Option<u64>,
    rows: Option<Rows>,
    control: Arc<Control>,
    /// Embeddings this worker found (counted, or written or sent as rows).
    found: Cell<u128>,
    /// Under a limit: the latest count each other worker broadcast, and their sum.
    others: RefCell<Vec<u128>>,
    others_total: Cell<u128>,
    /// Rows found and not yet written (each process writing its own) or sent (gathered).
    buf: RefCell<Vec<u8>>,
    /// On worker 0 under a limit: gathered rows formatted and not yet written.
    written_buf: RefCell<Vec<u8>>,
    /// Gathered rows worker 0 has written.
    written: Cell<u64>,
    /// A match by query vertex, and by position.
    embedding: RefCell<Vec<u32>>,
    by_position: RefCell<Vec<u32>>,
    /// How a match by position becomes the embeddings it stands for.
    expand: Expand,
}

impl Emit {
    pub fn new(
        plan: Arc<ClusterPlan>,
        name: Arc<str>,
        (limit, rows): (Option<u64>, Option<Rows>),
        control: Arc<Control>,
        peers: usize,
    ) -> Emit {
        let n = plan.steps.len();
        let mut position = vec![0; n];
        plan.steps.iter().enumerate().for_each(|(p, s)| position[s.vertex as usize] = p);
        let expand = Expand::new(position, plan.symmetry.as_ref(), plan.multiplier);
        Emit {
            plan,
            name,
            limit,
            rows,
            control,
            found: Cell::new(0),
            others: RefCell::new(vec![0; peers]),
            others_total: Cell::new(0),
            buf: RefCell::new(Vec::new()),
            written_buf: RefCell::new(Vec::new()),
            written: Cell::new(0),
            embedding: RefCell::new(vec![0; n]),
            by_position: RefCell::new(Vec::with_capacity(n)),
            expand,
        }
    }

    pub fn found(&self) -> u128 {
        self.found.get()
    }

    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Whether the query stops here (the deadline, Ctrl-C, the limit).
    pub fn should_stop(&self) -> bool {
        self.control.should_stop()
    }

    /// Whether rows go to worker 0.
    pub fn gathers(&self) -> bool {
        self.rows.as_ref().is_some_and(|r| r.gather)
    }

    /// Worker `w`'s latest count, broadcast under a limit.
    pub fn heard(&self, w: usize, count: u64) {
        let mut others = self.others.borrow_mut();
        let count = count as u128;
        if count > others[w] {
            self.others_total.set(self.others_total.get() + count - others[w]);
            others[w] = count;
        }
    }

    /// Whether the limit is reached by what this worker knows; stops its control if so.
    fn reached(&self) -> bool {
        match self.limit {
            Some(n) if self.found.get() + self.others_total.get() >= n as u128 => {
                self.control.stop(Stopped::Limit);
                true
            }
            _ => false,
        }
    }

    /// `matches` matches counted without being enumerated (a counted tail's): counting only.
    pub fn count(&self, matches: u128) {
        debug_assert!(self.rows.is_none(), "counted matches have no rows");
        self.found.set(self.found.get() + matches * self.plan.multiplier);
        self.reached();
    }

    /// The matches `prefix` (data vertices by position) extended by each of `last`: counted,
    /// written, or gathered: formatted, or under a limit as ids (little-endian u32 words in
    /// query vertex order), each batch handed to `send`.
    pub fn matches(&self, prefix: &[u32], last: &[u32], mut send: impl FnMut(Vec<u8>)) {
        let Some(rows) = &self.rows else {
            self.found.set(self.found.get() + last.len() as u128 * self.plan.multiplier);
            self.reached();
            return;
        };
        let n = self.plan.steps.len();
        let mut m = self.by_position.borrow_mut();
        let mut embedding = self.embedding.borrow_mut();
        let mut buf = self.buf.borrow_mut();
        let out = &rows.output;
        for &c in last {
            m.clear();
            m.extend_from_slice(prefix);
            m.push(c);
            let mut one = |embedding: &[u32]| {
                if self.reached() {
                    return false;
                }
                self.found.set(self.found.get() + 1);
                let full = match (rows.gather, self.limit) {
                    (true, Some(_)) => {
                        embedding.iter().for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
                        buf.len() >= GATHER_ROWS * n * 4
                    }
                    _ => {
                        out.format(&self.name, embedding, &mut buf);
                        buf.len() >= OUTPUT_BATCH
                    }
                };
                if full {
                    match rows.gather {
                        true => send(std::mem::take(&mut *buf)),
                        false => {
                            out.write_batch(&buf);
                            buf.clear();
                        }
                    }
                }
                true
            };
            if !self.expand.each(&m, 0, self.expand.per_row(), &mut embedding, &mut one) {
                return;
            }
        }
    }

    /// What this worker has gathered and not sent yet, to send now (empty where it writes its
    /// own rows).
    pub fn take_gathered(&self) -> Vec<u8> {
        match self.gathers() {
            true => std::mem::take(&mut *self.buf.borrow_mut()),
            false => Vec::new(),
        }
    }

    /// On worker 0, a batch gathered from a worker: written into process 0's output; under a
    /// limit, ids counted off up to it and formatted here.
    pub fn write_gathered(&self, batch: &[u8]) {
        let out = &self.rows.as_ref().expect("worker 0 writes gathered rows").output;
        let Some(limit) = self.limit else {
            out.write_batch(batch);
            return;
        };
        let mut row = Vec::with_capacity(self.plan.steps.len());
        let mut buf = self.written_buf.borrow_mut();
        for ids in batch.chunks(4 * self.plan.steps.len()) {
            if self.written.get() >= limit {
                break;
            }
            row.clear();
            row.extend(ids.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
            out.format(&self.name, &row, &mut buf);
            self.written.set(self.written.get() + 1);
            if buf.len() >= OUTPUT_BATCH {
                out.write_batch(&buf);
                buf.clear();
            }
        }
    }

    /// Writes what is still buffered: this worker's own rows, and on worker 0 the gathered
    /// rows it formatted (a gathering worker's own batches all went out through
    /// [`Emit::take_gathered`]).
    pub fn flush(&self) {
        let Some(rows) = &self.rows else { return };
        for buf in [&self.buf, &self.written_buf] {
            let mut buf = buf.borrow_mut();
            if !buf.is_empty() {
                rows.output.write_batch(&buf);
            }
            buf.clear();
        }
    }
}
