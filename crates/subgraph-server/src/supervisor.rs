//! `subgraph serve`'s supervisor: the server runs in a child process, started with the
//! listening socket as its standard input and a [`crate::link`] as its standard output, and
//! the supervisor holds the socket for the life of the service. A GPU fault poisons a CUDA
//! context for the life of its process, so a process whose device faulted asks for a
//! successor: the supervisor starts another process (the graphs loaded and uploaded anew),
//! and once it is ready releases the old one, which finishes its queries and exits; until
//! then the old one serves without the device (on the CPU or its other GPUs). Connections wait
//! in the one socket's queue, never refused. The same handover serves an operator's restart
//! (`POST /v1/restart`: the settings, token and graph files read again) and replaces a process
//! that crashed. A successor that fails is reported to the serving process and, after a fault
//! or a crash, tried again with a growing pause.

use crate::error::ServerError;
use crate::link::{Down, Up, COUNTS_ENV, PROCESS_ENV};
use crate::pool::DeviceCounts;
use std::collections::BTreeMap;
use std::future::Future;
use std::os::fd::OwnedFd;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The pause before a failed successor is started again, doubled after each failure up to
/// [`MOST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const MOST_PAUSE: Duration = Duration::from_secs(60);

type Counts = BTreeMap<usize, DeviceCounts>;

/// Why a successor is started: whether to try again where it fails (after a fault or a
/// crash, not after an operator's restart), and the device counts it starts from.
#[derive(Clone)]
struct Intent {
    retry: bool,
    counts: Counts,
}

/// What the supervisor hears of its processes.
enum Event {
    Up(u64, Up),
    Exited(u64, std::io::Result<ExitStatus>),
}

/// A started process: the stream to it, dropped to release it.
struct Process {
    writer: Option<OwnedWriteHalf>,
}

/// The supervisor's state.
struct Supervisor<C> {
    listener: std::net::TcpListener,
    command: C,
    events: mpsc::UnboundedSender<Event>,
    processes: BTreeMap<u64, Process>,
    next: u64,
    /// The process that serves, once one is ready.
    current: Option<u64>,
    /// A process started to take over, not yet ready.
    successor: Option<(u64, Intent)>,
    retry: Option<(Instant, Intent)>,
    pause: Duration,
    /// The device counts last heard, for a process that replaces one that crashed.
    counts: Counts,
    stopping: bool,
}

/// Runs the server's processes over `listener` (each `command()`, with the socket and its
/// link added) until `shutdown` completes or the serving process ends by itself; then
/// releases every process and waits for them. The exit code: the first process's where it
/// could not start, else the last serving process's.
pub async fn supervise<C: Fn() -> std::process::Command>(
    listener: std::net::TcpListener,
    command: C,
    shutdown: impl Future<Output = ()>,
) -> Result<i32, ServerError> {
    let (events, mut heard) = mpsc::unbounded_channel();
    let mut s = Supervisor {
        listener,
        command,
        events,
        processes: BTreeMap::new(),
        next: 0,
        current: None,
        successor: None,
        retry: None,
        pause: FIRST_PAUSE,
        counts: Counts::new(),
        stopping: false,
    };
    s.start(Intent { retry: false, counts: Counts::new() }).map_err(ServerError::Serve)?;
    tokio::pin!(shutdown);
    let mut code = 0;
    loop {
        let retry_at = s.retry.as_ref().map(|(at, _)| *at);
        let event = tokio::select! {
            () = &mut shutdown, if !s.stopping => {
                s.stop();
                continue;
            }
            () = until(retry_at) => {
                let (_, intent) = s.retry.take().expect("a retry");
                s.start_or_retry(intent);
                continue;
            }
            event = heard.recv() => event.expect("the supervisor holds a sender"),
        };
        match event {
            Event::Up(g, up) => s.heard(g, up).await,
            Event::Exited(g, status) => {
                s.processes.remove(&g);
                let status = status.map_err(ServerError::Serve)?;
                if let Some(first) = s.exited(g, status).await {
                    return Ok(first);
                }
                if s.current.is_none() && s.successor.is_none() && s.retry.is_none() && status.code() == Some(0) {
                    s.stop();
                }
                code = status.code().unwrap_or(1);
            }
        }
        if s.stopping && s.processes.is_empty() {
            return Ok(code);
        }
    }
}

/// Completes at `at`, never where there is none.
async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl<C: Fn() -> std::process::Command> Supervisor<C> {
    /// Starts the next process, as `intent` says; it takes over once it is ready.
    fn start(&mut self, intent: Intent) -> std::io::Result<()> {
        let generation = self.next;
        let (ours, theirs) = std::os::unix::net::UnixStream::pair()?;
        let socket = OwnedFd::from(self.listener.try_clone()?);
        let mut command = (self.command)();
        command
            .stdin(Stdio::from(socket))
            .stdout(Stdio::from(OwnedFd::from(theirs)))
            .stderr(Stdio::inherit())
            .env(PROCESS_ENV, generation.to_string())
            .env(COUNTS_ENV, serde_json::to_string(&intent.counts).expect("counts serialize"));
        // The command holds the socket's and the link's ends until dropped.
        let mut command = tokio::process::Command::from(command);
        let mut child = command.spawn()?;
        drop(command);
        ours.set_nonblocking(true)?;
        let (reader, writer) = tokio::net::UnixStream::from_std(ours)?.into_split();
        self.next += 1;
        self.processes.insert(generation, Process { writer: Some(writer) });
        self.successor = Some((generation, intent));
        let events = self.events.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(reader).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match serde_json::from_str::<Up>(&line) {
                    Ok(up) => {
                        let _ = events.send(Event::Up(generation, up));
                    }
                    Err(e) => eprintln!("subgraph serve: process {generation} said what cannot be read ({e}): {line}"),
                }
            }
        });
        let events = self.events.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            let _ = events.send(Event::Exited(generation, status));
        });
        Ok(())
    }

    /// Starts a successor for `intent`, or where it cannot be, tries again after a pause.
    fn start_or_retry(&mut self, intent: Intent) {
        if let Err(e) = self.start(intent.clone()) {
            let pause = self.retry_later(intent);
            eprintln!("subgraph serve: a new process could not be started ({e}); trying again in {pause:?}");
        }
    }

    /// Starts a successor for `intent` after the pause, which doubles for the next failure (up
    /// to [`MOST_PAUSE`]): the pause waited.
    fn retry_later(&mut self, intent: Intent) -> Duration {
        let pause = self.pause;
        self.retry = Some((Instant::now() + pause, intent));
        self.pause = (pause * 2).min(MOST_PAUSE);
        pause
    }

    /// What process `g` said.
    async fn heard(&mut self, g: u64, up: Up) {
        match up {
            Up::Ready if self.successor.as_ref().is_some_and(|(s, _)| *s == g) => {
                self.successor = None;
                self.pause = FIRST_PAUSE;
                if let Some(old) = self.current.replace(g) {
                    eprintln!("subgraph serve: process {g} took over; process {old} finishes its queries and exits");
                    self.tell(old, &Down::TakenOver).await;
                    self.release(old);
                }
                if self.stopping {
                    self.release(g);
                }
            }
            Up::Ready => {}
            Up::Handover { why, reopen, mut counts } if self.current == Some(g) => {
                for device in &reopen {
                    counts.entry(*device).or_default().reopened += 1;
                }
                self.counts = counts.clone();
                if self.stopping || self.successor.is_some() {
                    return;
                }
                eprintln!("subgraph serve: {why}; starting process {} to take over", self.next);
                self.retry = None;
                self.start_or_retry(Intent { retry: !reopen.is_empty(), counts });
            }
            Up::Handover { .. } => {}
        }
    }

    /// Process `g` ended with `status`: a successor that failed is reported (and tried again
    /// where its intent says), a serving process that crashed is replaced. `Some(code)` where
    /// the first process could not start: the supervisor ends with its code.
    async fn exited(&mut self, g: u64, status: ExitStatus) -> Option<i32> {
        if let Some((_, intent)) = self.successor.take_if(|(s, _)| *s == g) {
            let Some(current) = self.current else {
                if g == 0 {
                    return Some(status.code().unwrap_or(1));
                }
                self.retry_later(intent);
                return None;
            };
            let why = format!("process {g} ended before it was ready ({status})");
            self.tell(current, &Down::SuccessorFailed { why: why.clone() }).await;
            if intent.retry && !self.stopping {
                let pause = self.retry_later(intent);
                eprintln!("subgraph serve: {why}; trying again in {pause:?}");
            } else {
                eprintln!("subgraph serve: {why}; process {current} serves on");
            }
            return None;
        }
        if self.current != Some(g) {
            return None;
        }
        self.current = None;
        if self.stopping || status.success() {
            return None;
        }
        eprintln!("subgraph serve: process {g} ended unexpectedly ({status}); starting process {}", self.next);
        if self.successor.is_none() {
            self.retry = None;
            self.start_or_retry(Intent { retry: true, counts: self.counts.clone() });
        }
        None
    }

    /// Sends `down` to process `g`.
    async fn tell(&mut self, g: u64, down: &Down) {
        if let Some(writer) = self.processes.get_mut(&g).and_then(|p| p.writer.as_mut()) {
            let mut line = serde_json::to_vec(down).expect("messages serialize");
            line.push(b'\n');
            let _ = writer.write_all(&line).await;
        }
    }

    /// Releases process `g`: its link closed, it finishes its queries and exits.
    fn release(&mut self, g: u64) {
        if let Some(p) = self.processes.get_mut(&g) {
            p.writer = None;
        }
    }

    /// Stops: no more successors, every process released.
    fn stop(&mut self) {
        self.stopping = true;
        self.retry = None;
        let all: Vec<u64> = self.processes.keys().copied().collect();
        for g in all {
            self.release(g);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for the server's process, in `sh`: process 0 says it is ready and asks for a
    /// successor for GPU 0's fault; every process writes the counts it was given and what the
    /// supervisor tells it to files in `dir`, and exits when released.
    fn fake(dir: &std::path::Path) -> std::process::Command {
        let script = r#"
            g=$SUBGRAPH_SERVE_PROCESS
            printf '%s' "$SUBGRAPH_SERVE_DEVICE_COUNTS" > "$DIR/counts.$g"
            echo '"ready"'
            if [ "$g" = 0 ]; then
                echo '{"handover":{"why":"GPU 0 faulted","reopen":[0],"counts":{"0":{"faults":1,"reopened":0}}}}'
            fi
            cat <&1 > "$DIR/down.$g"
        "#;
        let mut command = std::process::Command::new("sh");
        command.args(["-c", script]).env("DIR", dir);
        command
    }

    #[test]
    fn a_fault_starts_a_successor_with_the_counts_and_the_old_process_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let path = dir.path().to_path_buf();
        let code = rt.block_on(async move {
            let shutdown = {
                let path = path.clone();
                async move {
                    // Once process 0 has been told it was taken over, and has exited.
                    while !std::fs::read_to_string(path.join("down.0")).unwrap_or_default().contains("taken_over") {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            };
            let run = supervise(listener, || fake(&path), shutdown);
            tokio::time::timeout(Duration::from_secs(20), run).await.expect("the supervisor ends").unwrap()
        });
        assert_eq!(code, 0);
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(read("counts.0"), "{}");
        let counts: Counts = serde_json::from_str(&read("counts.1")).unwrap();
        assert_eq!(counts, BTreeMap::from([(0, DeviceCounts { faults: 1, reopened: 1 })]));
        assert_eq!(read("down.0").trim(), "\"taken_over\"");
        assert_eq!(read("down.1"), "", "process 1 released without a word: a stop");
    }

    #[test]
    fn a_first_process_that_cannot_start_ends_the_supervisor_with_its_code() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let exit3 = || {
            let mut command = std::process::Command::new("sh");
            command.args(["-c", "exit 3"]);
            command
        };
        let code = rt.block_on(async {
            let run = supervise(listener, exit3, std::future::pending());
            tokio::time::timeout(Duration::from_secs(20), run).await.expect("the supervisor ends").unwrap()
        });
        assert_eq!(code, 3);
    }
}
