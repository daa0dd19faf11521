//! Admission control: at most `--max-concurrent` queries run at once on the CPU and
//! `--max-queue` wait for a turn; a request beyond both is answered `busy` (503, `Retry-After`)
//! at once, never held. A query that goes to a GPU gives its turn back while it waits for and
//! runs on the device ([`Turn::yield_cpu`]; the GPUs bound their own, [`crate::pool`]). Every
//! running query's stop flag is registered, so that shutdown can stop them all.

use crate::error::ApiError;
use crate::pool::lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::runtime::Handle;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Seconds a `busy` answer asks the client to wait.
pub const RETRY_AFTER_SECS: u64 = 1;

/// The turns queries take, and the stop flags of those that hold one.
pub struct Admission {
    turns: Arc<Semaphore>,
    max_queue: usize,
    queued: Arc<AtomicUsize>,
    running: Arc<AtomicUsize>,
    next: AtomicU64,
    flags: Arc<Mutex<HashMap<u64, Arc<AtomicBool>>>>,
}

/// A query's turn: while held, it counts as running; its `stop` flag is the one shutdown and a
/// departed client raise. Dropping it (on the query's thread, when the query ends) frees the turn.
pub struct Turn {
    /// The CPU turn, given back while the query is on a GPU.
    permit: Mutex<Option<OwnedSemaphorePermit>>,
    turns: Arc<Semaphore>,
    id: u64,
    pub stop: Arc<AtomicBool>,
    running: Arc<AtomicUsize>,
    flags: Arc<Mutex<HashMap<u64, Arc<AtomicBool>>>>,
}

impl Turn {
    /// Gives the CPU turn back while the query waits for and runs on a GPU: a CPU query takes it.
    pub fn yield_cpu(&self) {
        lock(&self.permit).take();
    }

    /// Takes a CPU turn again where the query comes back to the CPU, waiting for one (on the
    /// query's blocking thread, through `handle`); without one where the server has closed
    /// its turns (shutdown then stops the query).
    pub fn resume_cpu(&self, handle: &Handle) {
        if lock(&self.permit).is_some() {
            return;
        }
        if let Ok(permit) = handle.block_on(self.turns.clone().acquire_owned()) {
            *lock(&self.permit) = Some(permit);
        }
    }

    /// Whether the query holds a CPU turn now.
    #[cfg(test)]
    fn holds_cpu(&self) -> bool {
        lock(&self.permit).is_some()
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        lock(&self.flags).remove(&self.id);
        self.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Counts a request as queued while it waits (also when its client leaves while it waits).
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Admission {
    pub fn new(max_concurrent: usize, max_queue: usize) -> Admission {
        Admission {
            turns: Arc::new(Semaphore::new(max_concurrent.max(1))),
            max_queue,
            queued: Arc::default(),
            running: Arc::default(),
            next: AtomicU64::new(0),
            flags: Arc::default(),
        }
    }

    /// A turn to run a query: at once where one is free, else after waiting in the queue where
    /// it has room; `busy` where it has none, `shutting_down` once [`Admission::close`] ran.
    pub async fn admit(&self) -> Result<Turn, ApiError> {
        let permit = match self.turns.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(tokio::sync::TryAcquireError::Closed) => return Err(shutting_down()),
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                if self.queued.fetch_add(1, Ordering::SeqCst) >= self.max_queue {
                    self.queued.fetch_sub(1, Ordering::SeqCst);
                    let mut e = ApiError::new(
                        "busy",
                        format!(
                            "{} queries are running and {} waiting, as many as the server takes; try again",
                            self.running(),
                            self.max_queue
                        ),
                    );
                    e.retry_after = Some(RETRY_AFTER_SECS);
                    return Err(e);
                }
                let waiting = Waiting(self.queued.clone());
                let permit = self.turns.clone().acquire_owned().await.map_err(|_| shutting_down())?;
                drop(waiting);
                permit
            }
        };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let stop = Arc::new(AtomicBool::new(false));
        lock(&self.flags).insert(id, stop.clone());
        self.running.fetch_add(1, Ordering::SeqCst);
        Ok(Turn {
            permit: Mutex::new(Some(permit)),
            turns: self.turns.clone(),
            id,
            stop,
            running: self.running.clone(),
            flags: self.flags.clone(),
        })
    }

    /// Queries running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// Requests waiting for a turn now.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    /// Takes no more queries: waiting and later requests are answered `shutting_down`.
    pub fn close(&self) {
        self.turns.close();
    }

    /// Stops every running query (its record marked `interrupted`).
    pub fn stop_all(&self) {
        for flag in lock(&self.flags).values() {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

fn shutting_down() -> ApiError {
    ApiError::new("shutting_down", "the server is shutting down")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_is_busy_and_a_freed_turn_goes_to_the_queue() {
        let a = Arc::new(Admission::new(1, 1));
        let first = a.admit().await.unwrap();
        let waiter = {
            let a = a.clone();
            tokio::spawn(async move { a.admit().await.map(|_| ()) })
        };
        while a.queued() == 0 {
            tokio::task::yield_now().await;
        }
        let busy = a.admit().await.err().unwrap();
        assert_eq!((busy.code, busy.retry_after), ("busy", Some(RETRY_AFTER_SECS)));
        assert_eq!(a.running(), 1);
        drop(first);
        waiter.await.unwrap().unwrap();
        assert_eq!((a.running(), a.queued()), (0, 0));
        a.close();
        assert_eq!(a.admit().await.err().unwrap().code, "shutting_down");
    }

    #[test]
    fn a_turn_given_back_for_a_gpu_lets_a_cpu_query_run_and_is_taken_again() {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let a = Arc::new(Admission::new(1, 4));
        let gpu = rt.block_on(a.admit()).unwrap();
        gpu.yield_cpu();
        assert!(!gpu.holds_cpu());
        let cpu = rt.block_on(a.admit()).unwrap();
        assert_eq!(a.running(), 2, "both run: one on the CPU, one on a GPU");
        // Back to the CPU: it waits for the CPU query's turn.
        let handle = rt.handle().clone();
        let back = std::thread::spawn(move || {
            gpu.resume_cpu(&handle);
            gpu.holds_cpu()
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!back.is_finished(), "took a turn that was held");
        drop(cpu);
        assert!(back.join().unwrap());
    }
}
