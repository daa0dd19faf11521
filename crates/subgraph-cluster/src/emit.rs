//! What a query's dataflow does with its last position's candidates: counts them, or writes
//! each match as the embeddings it stands for (its images under the automorphisms behind the
//! symmetry-breaking restrictions), either into this process's output or, gathered, through
//! worker 0 into process 0's; and the limit, the first N embeddings over every process, which
//! each worker learns from the others' counts as they grow (BiGJoin's dataflow has no sink of
//! its own: Ammar et al., VLDB 2018 §5 count or hand on the matches; this is the `--limit` and
//! `--output` of `match` on one host).
//!
//! Exactness under a limit: a worker stops once its own count and the latest counts the others
//! broadcast reach N. Those counts only grow, so the sum every worker reports at the end is at
//! least what any worker saw, and N is reported exactly when it is reached. Gathered rows are
//! never dropped on their way to worker 0, which writes the first N it receives, so exactly
//! min(N, found) rows are written.

use crate::plan::ClusterPlan;
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use subgraph_core::sink::{Control, Output, Stopped, OUTPUT_BATCH};

/// Where a cluster run's matches go; without it they are counted only.
#[derive(Clone)]
pub struct Rows {
    /// This process's writer: its own file, or process 0's standard output; None where this
    /// process writes nothing (its rows are gathered and it is not process 0).
    pub output: Option<Arc<Output>>,
    /// Every row goes to worker 0 and is written into process 0's output (for one stream, and
    /// under a limit, so that exactly the first N are written); else each process writes the
    /// rows its workers find into its own.
    pub gather: bool,
}

/// Rows a worker sends to worker 0 in one message, at most.
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
    /// Rows formatted and not yet written (each process writing its own), or written by worker
    /// 0 and not yet flushed (gathered).
    buf: RefCell<Vec<u8>>,
    /// Gathered rows worker 0 has written.
    written: Cell<u64>,
    /// A match by query vertex, and by position.
    embedding: RefCell<Vec<u32>>,
    by_position: RefCell<Vec<u32>>,
    /// Each query vertex's position.
    position: Vec<usize>,
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
            written: Cell::new(0),
            embedding: RefCell::new(vec![0; n]),
            by_position: RefCell::new(Vec::with_capacity(n)),
            position,
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

    /// The matches `prefix` (data vertices by position) extended by each of `last`: counted,
    /// written, or flattened into `gathered` (rows in query vertex order) with each batch of
    /// [`GATHER_ROWS`] handed to `send`.
    pub fn matches(&self, prefix: &[u32], last: &[u32], gathered: &mut Vec<u32>, mut send: impl FnMut(Vec<u32>)) {
        let Some(rows) = &self.rows else {
            self.found.set(self.found.get() + last.len() as u128 * self.plan.multiplier);
            self.reached();
            return;
        };
        let n = self.plan.steps.len();
        let mut m = self.by_position.borrow_mut();
        let mut embedding = self.embedding.borrow_mut();
        let mut buf = self.buf.borrow_mut();
        for &c in last {
            m.clear();
            m.extend_from_slice(prefix);
            m.push(c);
            let mut one = |embedding: &[u32]| {
                if self.reached() {
                    return false;
                }
                self.found.set(self.found.get() + 1);
                match (rows.gather, &rows.output) {
                    (true, _) => {
                        gathered.extend_from_slice(embedding);
                        if gathered.len() >= GATHER_ROWS * n {
                            send(std::mem::take(gathered));
                        }
                    }
                    (false, Some(out)) => {
                        out.format(&self.name, embedding, &mut buf);
                        if buf.len() >= OUTPUT_BATCH {
                            out.write_batch(&buf);
                            buf.clear();
                        }
                    }
                    (false, None) => unreachable!("a process writing its own rows has an output"),
                }
                true
            };
            let go_on = match &self.plan.symmetry {
                None => {
                    self.plan.steps.iter().zip(m.iter()).for_each(|(s, &v)| embedding[s.vertex as usize] = v);
                    one(&embedding)
                }
                Some(aut) => aut.for_each(|sigma| {
                    for (u, &s) in sigma.iter().enumerate() {
                        embedding[u] = m[self.position[s as usize]];
                    }
                    one(&embedding)
                }),
            };
            if !go_on {
                return;
            }
        }
    }

    /// On worker 0, rows gathered from every worker: written into process 0's output, up to
    /// the limit.
    pub fn write_gathered(&self, rows: &[u32]) {
        let out = self.rows.as_ref().and_then(|r| r.output.as_ref()).expect("process 0 writes gathered rows");
        let mut buf = self.buf.borrow_mut();
        for row in rows.chunks(self.plan.steps.len()) {
            if self.limit.is_some_and(|n| self.written.get() >= n) {
                return;
            }
            out.format(&self.name, row, &mut buf);
            self.written.set(self.written.get() + 1);
            if buf.len() >= OUTPUT_BATCH {
                out.write_batch(&buf);
                buf.clear();
            }
        }
    }

    /// Writes what is still buffered.
    pub fn flush(&self) {
        let mut buf = self.buf.borrow_mut();
        if let Some(out) = self.rows.as_ref().and_then(|r| r.output.as_ref()) {
            if !buf.is_empty() {
                out.write_batch(&buf);
            }
        }
        buf.clear();
    }
}
