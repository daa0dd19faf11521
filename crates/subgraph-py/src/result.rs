//! `subgraph.Result`, what one query came to, and the sink that matches are written to.

use pyo3::prelude::*;
use std::io::Write;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use subgraph::Ran;
use subgraph_core::sink::Stopped;

/// One query's result: the count and how the query ran.
#[pyclass(frozen, get_all, module = "subgraph._native")]
pub(crate) struct Result {
    /// Matches found; all of them when `complete`.
    embeddings: u128,
    complete: bool,
    /// None, "limit", "timeout" or "interrupted".
    stopped: Option<&'static str>,
    elapsed_ms: f64,
    filter_ms: f64,
    order_ms: f64,
    space_ms: f64,
    enumerate_ms: f64,
    /// CPU planning beyond the order, each also inside a phase above: the default plan's
    /// trials and the probe between two plans (in `enumerate_ms`), the comparison's estimates.
    trial_ms: f64,
    compare_ms: f64,
    probe_ms: f64,
    /// The spasm's attempt where it did not count the query: outside every phase.
    spasm_ms: f64,
    /// The filter the candidates had and the plan's order.
    filter: &'static str,
    order: &'static str,
    /// With `unique=True`: |Aut(query)|, and the distinct subgraphs (embeddings / |Aut|) when
    /// the count is complete.
    pub(crate) automorphisms: Option<u128>,
    pub(crate) unique: Option<u128>,
    /// Where it ran: "cpu" or "gpu"; and why a query meant for the GPU ran on the CPU.
    device: &'static str,
    note: Option<String>,
    /// Patterns only: the result rows (after RETURN, DISTINCT and LIMIT; 1 for `count(*)`)
    /// and their column names.
    pub(crate) rows: Option<u128>,
    pub(crate) columns: Option<Vec<String>>,
}

#[pymethods]
impl Result {
    fn __repr__(&self) -> String {
        format!(
            "Result(embeddings={}, complete={}, stopped={}, elapsed_ms={:.3})",
            self.embeddings,
            if self.complete { "True" } else { "False" },
            self.stopped.map_or("None".to_string(), |s| format!("'{s}'")),
            self.elapsed_ms
        )
    }
}

impl From<Ran> for Result {
    fn from(ran: Ran) -> Result {
        let r = ran.report;
        Result {
            embeddings: r.embeddings,
            complete: r.complete,
            stopped: r.stopped.map(|s| match s {
                Stopped::Limit => "limit",
                Stopped::Timeout => "timeout",
                Stopped::Interrupted => "interrupted",
            }),
            elapsed_ms: r.elapsed_ms,
            filter_ms: r.filter_ms,
            order_ms: r.order_ms,
            space_ms: r.space_ms,
            enumerate_ms: r.enumerate_ms,
            trial_ms: r.trial_ms,
            compare_ms: r.compare_ms,
            probe_ms: r.probe_ms,
            spasm_ms: r.spasm_ms,
            filter: r.filter,
            order: r.order,
            automorphisms: None,
            unique: None,
            device: if ran.gpu.is_some() { "gpu" } else { "cpu" },
            note: ran.note,
            rows: None,
            columns: None,
        }
    }
}

/// Where a listing query's matches go: all collected in memory, or sent in batches to an
/// iterator (a bounded channel: the engine waits while the reader is behind).
#[derive(Clone)]
pub(crate) enum Sink {
    Collect(Arc<Mutex<Vec<u8>>>),
    Send(SyncSender<Vec<u8>>),
}

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Collect(all) => all.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(b),
            Sink::Send(to) => to.send(b.to_vec()).map_err(|_| std::io::ErrorKind::BrokenPipe)?,
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
