//! The keyword arguments of a query (`QueryArgs`): semantics, filter, limit, timeout, threads,
//! device and GPUs checked and parsed, the thread pools, and runs detached from the GIL that
//! Ctrl-C stops.

use crate::errors::{error, unknown, DEVICES};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subgraph::GpuCount;
use subgraph_core::filter::Filter;
use subgraph_core::sink::Control;
use subgraph_core::Semantics;

/// The semantics named `name`.
pub(crate) fn semantics_of(name: &str) -> PyResult<Semantics> {
    Semantics::from_name(name).ok_or_else(|| unknown("semantics", name, Semantics::NAMES))
}

/// The candidate filter named `name`.
pub(crate) fn filter_of(name: &str) -> PyResult<Filter> {
    Filter::from_name(name).ok_or_else(|| unknown("filter", name, Filter::NAMES))
}

/// `timeout` as a duration; an error unless it is a number of seconds.
pub(crate) fn timeout_of(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        None => Ok(None),
        // No time at all: the query stops before it starts (accepted since the first version).
        Some(0.0) => Ok(Some(Duration::ZERO)),
        Some(s) => subgraph_core::sink::timeout(s).map(Some).map_err(|e| error(format!("timeout {s}: {e}"))),
    }
}

/// A control whose deadline is `timeout` from now, stopped by `interrupt` too.
pub(crate) fn control(timeout: Option<Duration>, interrupt: &Arc<AtomicBool>) -> Control {
    Control::new(timeout.map(|t| Instant::now() + t), interrupt.clone())
}

/// The pool of `threads` threads, made once per size and kept (a pool costs a thread start per
/// thread); None for all cores, rayon's global pool.
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Option<Arc<ThreadPool>>> {
    static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());
    let Some(n) = threads else { return Ok(None) };
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == n) {
        return Ok(Some(p.clone()));
    }
    let p = Arc::new(ThreadPoolBuilder::new().num_threads(n).build().map_err(error)?);
    pools.push((n, p.clone()));
    Ok(Some(p))
}

/// Runs `work` in `pool` (None: where it is called, in rayon's global pool).
pub(crate) fn in_pool<T: Send>(pool: &Option<Arc<ThreadPool>>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(p) => p.install(work),
        None => work(),
    }
}

/// How long a waiting call sleeps between looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Receives from `rx` with the GIL released, looking for Ctrl-C every [`SIGNAL_POLL`]: Ctrl-C
/// raises `interrupt` (which stops the work that sends) and the wait goes on. None when the
/// sender is gone.
pub(crate) fn receive<T: Send>(py: Python<'_>, rx: &Mutex<Receiver<T>>, interrupt: &AtomicBool) -> Option<T> {
    loop {
        match py.detach(|| rx.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(SIGNAL_POLL)) {
            Ok(v) => return Some(v),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {
                if py.check_signals().is_err() {
                    interrupt.store(true, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Runs `work` on a thread of rayon's global pool (starting a thread per call would cost tens
/// of microseconds) and waits for it with the GIL released; Ctrl-C raises `interrupt` for the
/// work to stop, and KeyboardInterrupt once it has.
pub(crate) fn run_detached<T: Send + 'static, E: std::fmt::Display + Send + 'static>(
    py: Python<'_>,
    interrupt: &AtomicBool,
    work: impl FnOnce() -> std::result::Result<T, E> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    rayon::spawn(move || {
        let _ = tx.send(work());
    });
    let out = receive(py, &Mutex::new(rx), interrupt).ok_or_else(|| error("the matching thread panicked"))?;
    if interrupt.load(Ordering::Relaxed) {
        return Err(PyKeyboardInterrupt::new_err("the query was interrupted"));
    }
    out.map_err(error)
}

/// The keyword arguments every query call (`count`, `match`, `iter_matches`) takes, checked
/// once the package has them: an argument of the wrong type is a TypeError naming it, a value
/// that is none of its names a SubgraphError listing them.
#[pyclass(frozen, module = "subgraph._native")]
pub(crate) struct QueryArgs {
    /// None: the default of the query's kind (embed for a query graph, homomorphism for a
    /// pattern).
    pub(crate) semantics: Option<Semantics>,
    pub(crate) limit: Option<u64>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) threads: Option<usize>,
    pub(crate) filter: Filter,
    /// One of [`DEVICES`].
    pub(crate) device: String,
    pub(crate) gpus: GpuCount,
}

#[pymethods]
impl QueryArgs {
    #[new]
    #[pyo3(signature = (semantics, limit, timeout, threads, filter, device, gpus))]
    fn new(
        semantics: Option<&str>,
        limit: Option<i128>,
        timeout: Option<f64>,
        threads: Option<i128>,
        filter: &str,
        device: &str,
        gpus: &Bound<'_, PyAny>,
    ) -> PyResult<QueryArgs> {
        if !DEVICES.contains(&device) {
            return Err(unknown("device", device, DEVICES));
        }
        Ok(QueryArgs {
            semantics: semantics.map(semantics_of).transpose()?,
            limit: limit.map(|n| at_least_one("limit", n)).transpose()?,
            timeout: timeout_of(timeout)?,
            threads: threads
                .map(|n| at_least_one("threads", n).and_then(|n| subgraph_core::cpu::threads(n).map_err(error)))
                .transpose()?,
            filter: filter_of(filter)?,
            device: device.to_string(),
            gpus: gpu_count(gpus)?,
        })
    }
}

/// The value of `name`, a count that must be at least 1 (a limit of no matches would stop every
/// query before it starts; as the command line's --threads, no threads is refused).
fn at_least_one<T: TryFrom<i128>>(name: &str, n: i128) -> PyResult<T> {
    if n < 1 {
        return Err(error(format!("{name} must be at least 1, got {n}")));
    }
    T::try_from(n).map_err(|_| error(format!("{name} {n} is too large")))
}

/// `gpus`: a positive number, or "all" (as the command line's --gpus).
fn gpu_count(gpus: &Bound<'_, PyAny>) -> PyResult<GpuCount> {
    let given = gpus.repr()?;
    let wrong = || format!("gpus must be a positive number or \"all\", got {given}");
    if gpus.is_instance_of::<PyInt>() {
        return match gpus.extract::<i64>() {
            Ok(n) if n > 0 => Ok(GpuCount::Count(n as usize)),
            _ => Err(error(wrong())),
        };
    }
    if gpus.is_instance_of::<PyString>() {
        return match gpus.extract::<String>()?.as_str() {
            "all" => Ok(GpuCount::All),
            _ => Err(error(wrong())),
        };
    }
    Err(PyTypeError::new_err(wrong()))
}
