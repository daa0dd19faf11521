//! A server process's link to its supervisor ([`crate::supervisor`]): the listening socket it
//! was handed (its standard input), and a stream of JSON lines both ways (its standard output).
//! The process says when it is ready and asks for a successor (a device fault, an operator's
//! restart); the supervisor says when a successor failed, and closes the stream to release the
//! process, which then finishes its queries and exits.

use crate::error::ServerError;
use crate::pool::{lock, DeviceCounts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};

/// Set by the supervisor for each process it starts: the process's generation (0, 1, …).
pub const PROCESS_ENV: &str = "SUBGRAPH_SERVE_PROCESS";
/// Set by the supervisor: the devices' fault and reopening counts of the processes before.
pub const COUNTS_ENV: &str = "SUBGRAPH_SERVE_DEVICE_COUNTS";

/// What a process tells its supervisor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Up {
    /// The graphs are loaded and the process accepts connections.
    Ready,
    /// Start a successor: `reopen` the devices that faulted (none for a restart), `counts` the
    /// devices' counts so far.
    Handover { why: String, reopen: Vec<usize>, counts: BTreeMap<usize, DeviceCounts> },
}

/// What the supervisor tells a process. Closing the stream releases it: after `TakenOver`,
/// it answers what it holds and exits; without, it shuts down as on SIGTERM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Down {
    /// The successor ended before it was ready; this process serves on.
    SuccessorFailed { why: String },
    /// The successor is ready and serves.
    TakenOver,
}

/// Why a process was released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// The supervisor stops (or is gone): shut down as on SIGTERM.
    Stop,
    /// A new process serves: answer what is held, queued requests too, and exit.
    TakenOver,
}

/// Where a successor stands, as `GET /v1/health` shows it.
#[derive(Debug, Clone, PartialEq)]
enum Successor {
    None,
    Starting(String),
    Failed(String),
}

/// This process's link to its supervisor.
pub struct Link {
    pub generation: u64,
    /// The devices' counts of the processes before this one.
    pub counts: BTreeMap<usize, DeviceCounts>,
    writer: Mutex<UnixStream>,
    successor: Arc<Mutex<Successor>>,
    released: tokio::sync::watch::Receiver<Option<Release>>,
}

impl Link {
    /// The link and the listening socket where the supervisor started this process (its
    /// environment says so); None where it did not.
    pub fn from_env() -> Result<Option<(Arc<Link>, std::net::TcpListener)>, ServerError> {
        let Some(generation) = std::env::var_os(PROCESS_ENV) else {
            return Ok(None);
        };
        let bad = |what: String| ServerError::Settings(format!("started by a supervisor, but {what}"));
        let generation = generation
            .to_str()
            .and_then(|g| g.parse().ok())
            .ok_or_else(|| bad(format!("{PROCESS_ENV} is not a number")))?;
        let counts = match std::env::var(COUNTS_ENV) {
            Ok(json) => serde_json::from_str(&json).map_err(|e| bad(format!("{COUNTS_ENV}: {e}")))?,
            Err(_) => BTreeMap::new(),
        };
        let owned = |fd: std::os::fd::BorrowedFd<'_>, what: &str| {
            fd.try_clone_to_owned().map_err(|e| bad(format!("its {what} cannot be taken: {e}")))
        };
        let listener = std::net::TcpListener::from(owned(std::io::stdin().as_fd(), "listening socket")?);
        listener.local_addr().map_err(|e| bad(format!("its standard input is no listening socket: {e}")))?;
        let stream = UnixStream::from(owned(std::io::stdout().as_fd(), "link")?);
        let link = Link::new(generation, counts, stream).map_err(|e| bad(format!("its link cannot be read: {e}")))?;
        Ok(Some((link, listener)))
    }

    /// A link over `stream` for the process of `generation`: a thread reads what the
    /// supervisor says, until it closes the stream.
    pub fn new(
        generation: u64,
        counts: BTreeMap<usize, DeviceCounts>,
        stream: UnixStream,
    ) -> std::io::Result<Arc<Link>> {
        let reader = stream.try_clone()?;
        let (release, released) = tokio::sync::watch::channel(None);
        let successor = Arc::new(Mutex::new(Successor::None));
        let state = successor.clone();
        std::thread::spawn(move || {
            let mut why = Release::Stop;
            for line in BufReader::new(reader).lines() {
                let Ok(line) = line else { break };
                match serde_json::from_str::<Down>(&line) {
                    Ok(Down::SuccessorFailed { why }) => {
                        eprintln!("subgraph serve: the new process failed ({why}); this one serves on");
                        *lock(&state) = Successor::Failed(why);
                    }
                    Ok(Down::TakenOver) => why = Release::TakenOver,
                    Err(e) => {
                        eprintln!("subgraph serve: the supervisor said what this process cannot read ({e}): {line}")
                    }
                }
            }
            let _ = release.send(Some(why));
        });
        Ok(Arc::new(Link { generation, counts, writer: Mutex::new(stream), successor, released }))
    }

    /// Tells the supervisor this process is ready.
    pub fn ready(&self) {
        self.send(&Up::Ready);
    }

    /// Asks the supervisor for a successor, because of `why`: false where one is already
    /// being started.
    pub fn hand_over(&self, why: &str, reopen: Vec<usize>, counts: BTreeMap<usize, DeviceCounts>) -> bool {
        {
            let mut successor = lock(&self.successor);
            if matches!(*successor, Successor::Starting(_)) {
                return false;
            }
            *successor = Successor::Starting(why.to_string());
        }
        self.send(&Up::Handover { why: why.to_string(), reopen, counts });
        true
    }

    /// The successor's state for `GET /v1/health`: None, or why one is starting, or why it failed.
    pub fn successor(&self) -> Option<serde_json::Value> {
        match &*lock(&self.successor) {
            Successor::None => None,
            Successor::Starting(why) => Some(serde_json::json!({"state": "starting", "why": why})),
            Successor::Failed(why) => Some(serde_json::json!({"state": "failed", "why": why})),
        }
    }

    /// Completes once the supervisor releases this process (or is gone), saying why.
    pub async fn released(&self) -> Release {
        let mut released = self.released.clone();
        let why = released.wait_for(Option::is_some).await.map(|r| *r);
        why.ok().flatten().unwrap_or(Release::Stop)
    }

    fn send(&self, up: &Up) {
        let mut line = serde_json::to_vec(up).expect("messages serialize");
        line.push(b'\n');
        // A supervisor that is gone closes the stream too: the process is then released.
        if let Err(e) = lock(&self.writer).write_all(&line) {
            eprintln!("subgraph serve: the supervisor cannot be told ({e})");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_sends_its_events_reads_a_failure_and_is_released_by_eof() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let counts = BTreeMap::from([(0, DeviceCounts { faults: 1, reopened: 1 })]);
        let link = Link::new(3, counts.clone(), ours).unwrap();
        link.ready();
        assert!(link.hand_over("GPU 0 faulted", vec![0], counts.clone()));
        assert!(!link.hand_over("again", vec![0], counts.clone()), "one successor at a time");
        assert_eq!(link.successor().unwrap()["state"], "starting");
        {
            let mut lines = BufReader::new(theirs.try_clone().unwrap()).lines();
            let mut next = || serde_json::from_str::<Up>(&lines.next().unwrap().unwrap()).unwrap();
            assert_eq!(next(), Up::Ready);
            assert_eq!(next(), Up::Handover { why: "GPU 0 faulted".into(), reopen: vec![0], counts });
        }
        let failed = serde_json::to_string(&Down::SuccessorFailed { why: "exit status: 1".into() }).unwrap();
        (&theirs).write_all(format!("{failed}\n").as_bytes()).unwrap();
        let start = std::time::Instant::now();
        while link.successor().unwrap()["state"] != "failed" {
            assert!(start.elapsed().as_secs() < 5);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(link.hand_over("a restart", Vec::new(), BTreeMap::new()), "asked again after a failure");
        let taken = serde_json::to_string(&Down::TakenOver).unwrap();
        (&theirs).write_all(format!("{taken}\n").as_bytes()).unwrap();
        drop(theirs);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let why = rt.block_on(async { tokio::time::timeout(std::time::Duration::from_secs(5), link.released()).await });
        assert_eq!(why.unwrap(), Release::TakenOver);
    }
}
