//! Queries on blocking threads: a match or an explanation run on one of tokio's blocking
//! threads (the engine's own workers are rayon's), never on the async runtime's; a streamed
//! match's rows handed to the response through a bounded channel as the engine writes them
//! (`ToClient`), its record last; a client that leaves, shutdown or the deadline stop it.
//! On GPUs, a query borrows a device only where it runs there ([`Loan`]), giving its CPU turn
//! back meanwhile; one that poisons its device's context fails with `device_fault`, and the
//! device goes out of service until it is reopened ([`crate::pool`]).

use crate::admission::{Turn, RETRY_AFTER_SECS};
use crate::error::ApiError;
use crate::fault::{self, Fault};
use crate::graphs::{Engines, Resident};
use crate::pool::{Loan, Turns};
use crate::request::Prepared;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph::explanation::{explain_item, ExplainAsked, ItemExplained};
use subgraph::patterns::PatternRunError;
use subgraph::record::{run_one, RunError};
use subgraph::{Engine, GpuError, Item, Record};
use subgraph_core::sink::{Control, Output, OutputFormat};
use tokio::sync::mpsc;

/// What a streamed match sends the response: rows as the engine writes them, then the end.
pub enum Sent {
    Rows(Vec<u8>),
    Done(Box<Result<Record, ApiError>>),
}

/// Chunks the response's channel holds before the engine waits for the client.
pub const CHANNEL_CHUNKS: usize = 16;

/// How long a stream's last line waits for a client that does not read.
const LAST_LINE_WAIT: Duration = Duration::from_secs(5);

/// Runs `prepared` on `resident` under `turn` (freed when the query ends), on a blocking thread.
/// With `stream`, its rows (JSON lines, as `match --output-format jsonl` writes them) and then
/// its record go to `stream`; the result is also returned.
pub fn run_match(
    resident: Arc<Resident>,
    prepared: Prepared,
    turn: Turn,
    stream: Option<mpsc::Sender<Sent>>,
) -> Result<Record, ApiError> {
    let turn = Arc::new(turn);
    let deadline = Instant::now() + prepared.timeout;
    let control = Arc::new(Control::new(Some(deadline), turn.stop.clone()));
    let output = stream.as_ref().map(|tx| {
        let writer = ToClient { tx: tx.clone(), handle: tokio::runtime::Handle::current(), stop: turn.stop.clone() };
        Arc::new(Output::new(Box::new(writer), OutputFormat::Jsonl).with_ids(resident.data.ids().cloned()))
    });
    let Prepared { name, item, asked, .. } = prepared;
    let is_pattern = matches!(item, Item::Pattern(_));
    let run = |engine: &mut Engine, item: Item| {
        run_one(engine, &resident.data, &resident.derived, &name, item, &asked, &control, output.as_ref())
    };
    let outcome = match &resident.engine {
        Engines::Cpu { why } => run(&mut Engine::Cpu { why: why.clone() }, item).map_err(|e| classify(e, is_pattern)),
        Engines::Gpu(gpus) => {
            // Under `auto`, a query of one answer (not streamed) that lacks device memory runs
            // again on the CPU.
            let again = (gpus.auto && stream.is_none()).then(|| copy(&item));
            let handle = tokio::runtime::Handle::current();
            let (away, back) = (turn.clone(), turn.clone());
            let turns =
                Turns { away: Box::new(move || away.yield_cpu()), back: Box::new(move || back.resume_cpu(&handle)) };
            let loan = Arc::new(Loan::new(gpus.pool.clone(), control.clone()).with_turns(turns));
            let mut engine = Engine::lent(resident.data.clone(), gpus.options, gpus.auto, loan.clone());
            let outcome = run(&mut engine, item);
            let device = loan.device();
            // An error that names no sticky code, on a device the query borrowed, is checked
            // against the device's context all the same.
            let (fault, sticky) = match outcome.as_ref().err().map(|e| (e, fault::of_run(e))) {
                None => (Fault::Other, None),
                Some((e, Fault::Sticky)) => (Fault::Sticky, Some(e.to_string())),
                Some((e, Fault::Other)) => match device.and_then(fault::probe) {
                    Some(why) => (Fault::Sticky, Some(format!("{e} (the device's context: {why})"))),
                    None => (Fault::Other, None),
                },
                Some((_, fault)) => (fault, None),
            };
            loan.settle(engine.take_lent(), sticky);
            match (outcome, fault, again) {
                (Err(e), Fault::Sticky, _) => Err(device_fault(&resident.spec.name, device, &e)),
                (Err(_), Fault::OutOfMemory, Some(item)) => {
                    turn.resume_cpu(&tokio::runtime::Handle::current());
                    run(&mut Engine::Cpu { why: None }, item).map_err(|e| classify(e, is_pattern))
                }
                (outcome, ..) => outcome.map_err(|e| classify(e, is_pattern)),
            }
        }
    };
    let result = outcome.and_then(|outcome| {
        // Rows cut short by a stop are not an error: the record says the query was stopped.
        match output.as_ref().map(|o| o.finish()) {
            Some(Err(e)) if !turn.stop.load(Ordering::SeqCst) => {
                Err(ApiError::new("engine_error", format!("writing the rows: {e}")))
            }
            _ => Ok(Record::of(name, &outcome, rayon::current_num_threads(), None)),
        }
    });
    drop(turn);
    if let Some(tx) = stream {
        let handle = tokio::runtime::Handle::current();
        let last = Sent::Done(Box::new(result.clone()));
        let _ = handle.block_on(async { tokio::time::timeout(LAST_LINE_WAIT, tx.send(last)).await });
    }
    result
}

/// Explains `prepared` on `resident` under `turn`, on a blocking thread.
pub fn run_explain(resident: Arc<Resident>, prepared: Prepared, turn: Turn) -> Result<ItemExplained, ApiError> {
    let Prepared { name, item, asked, timeout, all } = prepared;
    let code = if matches!(item, Item::Pattern(_)) { "bad_pattern" } else { "bad_query" };
    let how = ExplainAsked { timeout: Some(timeout), all, interrupt: turn.stop.clone() };
    explain_item(&resident.data, &resident.derived, name, item, &asked, &how)
        .map_err(|e| ApiError::new(code, e.to_string()))
}

/// A copy of `item`, to run again.
fn copy(item: &Item) -> Item {
    match item {
        Item::Graph(q) => Item::Graph(q.clone()),
        Item::Pattern(p) => Item::Pattern(p.clone()),
    }
}

/// The error of a query whose GPU `device` faulted, poisoning its context: the device is being
/// reopened while the CPU (or another GPU) serves; the query may be sent again.
fn device_fault(graph: &str, device: Option<usize>, e: &RunError) -> ApiError {
    let gpu = device.map_or("the GPU".to_string(), |d| format!("GPU {d}"));
    let mut error = ApiError::new(
        "device_fault",
        format!(
            "{gpu} faulted while it ran this query ({e}); it is being reopened and graph `{graph}` uploaded to it \
             again, while its queries run on the CPU or another GPU; send the query again"
        ),
    );
    error.retry_after = Some(RETRY_AFTER_SECS);
    error
}

/// The code of a query that could not run: the request's (`bad_pattern`, `bad_query`) where
/// the query cannot mean what it asks, else the engine's.
fn classify(e: RunError, is_pattern: bool) -> ApiError {
    let asked = if is_pattern { "bad_pattern" } else { "bad_query" };
    let code = match &e {
        RunError::Graph(GpuError::Core(subgraph_core::Error::Query(_)))
        | RunError::Pattern(PatternRunError::Engine(GpuError::Core(subgraph_core::Error::Query(_)))) => asked,
        RunError::Pattern(PatternRunError::Engine(_) | PatternRunError::Rows(_) | PatternRunError::TooManyMatches) => {
            "engine_error"
        }
        RunError::Pattern(_) => asked,
        RunError::Graph(_) => "engine_error",
    };
    ApiError::new(code, e.to_string())
}

/// The streamed rows' writer: each batch the engine writes is one chunk of the response. A
/// client that has left (the channel closed) or a stopped query fails the write and raises
/// the query's stop flag, so that the engine stops at its next check.
struct ToClient {
    tx: mpsc::Sender<Sent>,
    handle: tokio::runtime::Handle,
    stop: Arc<AtomicBool>,
}

impl Write for ToClient {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // Waits for room in turns, so that a stop raised meanwhile (shutdown) is seen.
        loop {
            if self.stop.load(Ordering::SeqCst) {
                // Not `Interrupted`, which `write_all` would retry forever.
                return Err(std::io::Error::other("the query was stopped"));
            }
            // The timer is made inside the runtime's context (the engine's threads are not tokio's).
            let room = self
                .handle
                .block_on(async { tokio::time::timeout(Duration::from_millis(50), self.tx.reserve()).await });
            match room {
                Ok(Ok(permit)) => {
                    permit.send(Sent::Rows(buf.to_vec()));
                    return Ok(buf.len());
                }
                Ok(Err(_)) => {
                    self.stop.store(true, Ordering::SeqCst);
                    return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client left"));
                }
                Err(_) => continue,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
