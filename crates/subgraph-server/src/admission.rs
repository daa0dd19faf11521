//! Admission control: at most `--max-concurrent` queries run at once and `--max-queue` wait
//! for a turn; a request beyond both is answered `busy` (503, `Retry-After`) at once, never
//! held. Every running query's stop flag is registered, so that shutdown can stop them all.

use crate::error::ApiError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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
    _permit: OwnedSemaphorePermit,
    id: u64,
    pub stop: Arc<AtomicBool>,
    running: Arc<AtomicUsize>,
    flags: Arc<Mutex<HashMap<u64, Arc<AtomicBool>>>>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.flags.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
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
        self.flags.lock().unwrap_or_else(|e| e.into_inner()).insert(id, stop.clone());
        self.running.fetch_add(1, Ordering::SeqCst);
        Ok(Turn { _permit: permit, id, stop, running: self.running.clone(), flags: self.flags.clone() })
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
        for flag in self.flags.lock().unwrap_or_else(|e| e.into_inner()).values() {
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
}
