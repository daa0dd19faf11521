//! The processes of a cluster run together: each loads its parts, checks every query alike,
//! connects to the others over TCP (timely's `Config::Cluster`, `threads` workers per
//! process), and for each query filters the candidates its workers own and gathers the global
//! sets (`filter`), plans alike (`plan`), copies the lists it reads to every process as far as
//! the cache allows (`replicate`), runs the query's dataflow (`dataflow`, its matches counted
//! or written by `emit`) and gathers its workers' tallies (`gather`), which process 0 sums
//! exactly (BiGJoin's deployment on timely, Ammar et al., VLDB 2018 §5). Set-up that does not
//! finish within the connection timeout, and a connection that breaks mid-query, end the
//! process with one line on standard error rather than a hang: timely retries its connections
//! forever and reports a broken one by panicking in its network thread.

use crate::dataflow::{search, Tally};
use crate::emit::{Emit, Rows};
use crate::error::{Error, Result};
use crate::filter;
use crate::gather::all_gather;
use crate::held::Deal;
use crate::load::Local;
use crate::plan::ClusterPlan;
use crate::replicate::{replicate, Replicas};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use subgraph_core::automorphism::{distinct_subgraphs, Automorphisms};
use subgraph_core::order::Order;
use subgraph_core::plan::Tail;
use subgraph_core::sink::{Control, Stopped};
use subgraph_core::{Graph, Query, Semantics};
use timely::communication::Allocate;
use timely::worker::Worker;

/// Where this process stands among the others.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// Every process's `host:port`, in process order.
    pub addresses: Vec<String>,
    pub process: usize,
    /// Timely workers in each process (the same in every process).
    pub threads: usize,
    /// How long connecting to every other process may take.
    pub connect_timeout: Duration,
    /// The bytes each process may hold for one query's replicas (`replicate`).
    pub cache_bytes: u64,
}

/// One query's result over the whole cluster, as process 0 reports it.
#[derive(Debug, Clone)]
pub struct QueryCount {
    pub embeddings: u128,
    pub complete: bool,
    pub stopped: Option<Stopped>,
    /// On worker 0: filtering its vertices and gathering the global candidates, planning, and
    /// the query from the start of its dataflow to the last tally.
    pub filter_ms: f64,
    pub order_ms: f64,
    pub enumerate_ms: f64,
    pub candidates: u64,
    pub restrictions: usize,
    pub multiplier: u128,
    /// The order's name.
    pub order: &'static str,
    /// The positions counted together at the plan's end (0 for none; `ClusterPlan::tail`).
    pub tail: usize,
    pub processes: usize,
    /// Bytes of candidate sets and partial matches sent between processes, all processes
    /// together.
    pub bytes_sent: u64,
    /// Each process's busy time in the query's operators (its workers' summed), in process
    /// order.
    pub busy_ms: Vec<f64>,
    /// Each process's resident-memory high-water mark (Linux VmHWM) by the end of the query,
    /// in process order; 0 where unknown.
    pub peak_rss_bytes: Vec<u64>,
    /// The plan's positions whose lists every process held (`replicate`), and the adjacency
    /// entries of those lists (their bytes are in `bytes_sent`).
    pub replicated_positions: usize,
    pub replicated_entries: u64,
    /// "held" where every list the query reads was held and each worker searched its share
    /// of the prefixes alone (`held`), "routed" where partial matches were routed
    /// (`dataflow`), "none" where nothing was searched (an empty candidate set, the limit 0).
    pub search: &'static str,
    /// |Aut(Q)|, where [`Matching::unique`] asked for it.
    pub automorphisms: Option<u128>,
}

impl QueryCount {
    /// The distinct subgraphs, embeddings / |Aut(Q)|, where asked and the count is complete:
    /// as one host counts them (`Report::unique`).
    pub fn unique(&self) -> Option<u128> {
        distinct_subgraphs(self.embeddings, self.complete, self.automorphisms)
    }
}

/// Reads a hosts file: one `host:port` a line (timely's format); blank lines are skipped.
pub fn read_hosts(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Cluster(format!("{}: {e}", path.display())))?;
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let port = line.rsplit_once(':').map(|(h, p)| (h, p.parse::<u16>()));
        if !matches!(port, Some((h, Ok(_))) if !h.is_empty()) {
            return Err(Error::Cluster(format!("{}:{}: '{line}' is not host:port", path.display(), i + 1)));
        }
        hosts.push(line.to_string());
    }
    if hosts.is_empty() {
        return Err(Error::Cluster(format!("{}: no host:port lines", path.display())));
    }
    Ok(hosts)
}

/// A query with its name, as its rows are written under.
type Named = (Arc<str>, Query);

/// What process 0 gets back for each query: its count, or why it could not run.
pub type Counts = Vec<Result<QueryCount, Error>>;

/// How a cluster run matches its queries, and what it does with the matches.
#[derive(Clone)]
pub struct Matching {
    pub semantics: Semantics,
    /// Symmetry breaking (each match found stands for `multiplier` embeddings).
    pub symmetry: bool,
    pub order: Order,
    /// Each query stops after this many embeddings, over every process.
    pub limit: Option<u64>,
    /// Where the matches are written; None counts them only. Under a limit every row is
    /// gathered by worker 0, whatever `Rows::gather` says.
    pub rows: Option<Rows>,
    /// Also each query's |Aut(Q)| ([`QueryCount::automorphisms`]), for its distinct subgraphs
    /// ([`QueryCount::unique`]).
    pub unique: bool,
    /// Whether a counted query's last pairwise non-adjacent vertices are counted together
    /// (`ClusterPlan::tail`): not under `Tail::Off`, a limit or `rows`.
    pub tail: Tail,
}

impl Matching {
    /// The counted tail the plans take: `tail`, or none under a limit or with rows.
    fn tail(&self) -> Tail {
        match self.limit.is_none() && self.rows.is_none() {
            true => self.tail,
            false => Tail::Off,
        }
    }
}

/// Runs `queries` (name, graph) as process `cluster.process` over `local` as `matching` says,
/// each query stopped by a control that `control` makes for it on each worker (its deadline,
/// Ctrl-C); returns the counts on process 0 and None on the others. A query that cannot be
/// planned is refused alike on every process and not run.
pub fn run(
    cluster: &Cluster,
    local: Local,
    queries: Vec<(String, Graph)>,
    matching: &Matching,
    control: Arc<dyn Fn() -> Control + Send + Sync>,
) -> Result<Option<Counts>> {
    if cluster.threads == 0 {
        return Err(Error::Cluster("0 threads: each process needs at least one worker".into()));
    }
    let local = Arc::new(local);
    let automorphisms: Vec<Option<u128>> =
        queries.iter().map(|(_, q)| matching.unique.then(|| Automorphisms::of(q).order()).flatten()).collect();
    let checked: Vec<Result<Named>> = queries
        .into_iter()
        .map(|(name, q)| {
            Ok((Arc::from(name), ClusterPlan::check(&local.graph, q, matching.semantics, matching.order)?))
        })
        .collect();
    let (runnable, mut refused): (Vec<_>, Vec<_>) = checked.into_iter().enumerate().partition(|(_, q)| q.is_ok());
    let runnable: Arc<Vec<(usize, Named)>> =
        Arc::new(runnable.into_iter().map(|(i, q)| q.map(|q| (i, q))).collect::<Result<_>>()?);
    let indices: Vec<usize> = runnable.iter().map(|(i, ..)| *i).collect();
    // Each process connects to the earlier ones, and timely sleeps a second before it tries a
    // port again: on this machine, wait (a little) until they listen.
    let until = Instant::now() + Duration::from_secs(5);
    let earlier = &cluster.addresses[..cluster.process];
    earlier.iter().filter(|a| a.starts_with("127.0.0.1:")).for_each(|a| wait_listening(a, until));
    let started = Arc::new(AtomicBool::new(false));
    watch(cluster, started.clone());
    // What a process's workers share for each query: the candidate sets and the graph of
    // replicas its first worker makes, and the prefixes its workers take as they go.
    let cache = cluster.cache_bytes;
    let shared: Arc<Vec<Shared>> = Arc::new(runnable.iter().map(|_| Shared::default()).collect());
    let mut matching = matching.clone();
    if matching.limit.is_some() {
        matching.rows = matching.rows.map(|r| Rows { gather: true, ..r });
    }
    let config = timely::Config {
        communication: timely::CommunicationConfig::Cluster {
            threads: cluster.threads,
            process: cluster.process,
            addresses: cluster.addresses.clone(),
            report: false,
            zerocopy: false,
            log_fn: Arc::new(|_| None),
        },
        worker: timely::WorkerConfig::default(),
    };
    let guards = timely::execute(config, move |worker| {
        started.store(true, Ordering::SeqCst);
        runnable
            .iter()
            .zip(&shared[..])
            .map(|((_, (name, q)), shared)| {
                let control = Arc::new(control());
                one_query(worker, &local, (cache, shared), (name, q), &matching, &control)
            })
            .collect()
    })
    .map_err(|e| Error::Cluster(format!("process {}: {e}", cluster.process)))?;
    // The workers in thread order: process 0's first is worker 0, which gathered the tallies.
    let ran: Vec<Option<QueryCount>> = guards
        .join()
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Cluster(format!("process {}: a worker failed: {e}", cluster.process)))?
        .swap_remove(0);
    if cluster.process != 0 {
        return Ok(None);
    }
    let mut out: Vec<(usize, Result<QueryCount>)> = indices
        .into_iter()
        .zip(ran)
        .map(|(i, r)| {
            let count = r.expect("process 0 gathers every tally");
            (i, Ok(QueryCount { automorphisms: automorphisms[i], ..count }))
        })
        .collect();
    out.extend(refused.drain(..).map(|(i, p)| (i, Err(p.expect_err("refused")))));
    out.sort_by_key(|(i, _)| *i);
    Ok(Some(out.into_iter().map(|(_, r)| r).collect()))
}

/// What a process's workers share for one query, each part made once by the first to come.
#[derive(Debug, Default)]
struct Shared {
    candidates: filter::Gathered,
    replicas: OnceLock<Arc<Graph>>,
    deal: Deal,
}

/// A stop's reason as a tally carries it: 0 for none.
fn stop_code(s: Option<Stopped>) -> u8 {
    match s {
        None => 0,
        Some(Stopped::Limit) => 1,
        Some(Stopped::Timeout) => 2,
        Some(Stopped::Interrupted) => 3,
    }
}

/// One query on this worker: its head written where its process writes rows, its candidates
/// filtered and gathered, its plan, its dataflow, then every worker's tally to worker 0, which
/// returns the sum (the others return None).
fn one_query<A: Allocate>(
    worker: &mut Worker<A>,
    local: &Arc<Local>,
    (cache, shared): (u64, &Shared),
    (name, query): (&Arc<str>, &Query),
    matching: &Matching,
    control: &Arc<Control>,
) -> Option<QueryCount> {
    let threads = worker.peers() / local.processes;
    let me = worker.index();
    // The head before any row: this process's rows come after the candidates' exchange,
    // which waits for this worker.
    if let (Some(rows), 0) = (&matching.rows, me % threads) {
        rows.output.begin_query(name, query.num_vertices());
    }
    let t = Instant::now();
    let (cands, gathered_bytes) = filter::candidates(worker, local, query, control, &shared.candidates);
    let filter_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let plan =
        Arc::new(ClusterPlan::new(&local.graph, query, &cands, matching.symmetry, matching.order, matching.tail()));
    let order_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    // Every worker holds the same sets, so all skip the replicas and the search alike when
    // one is empty, or when the limit is 0.
    let (tally, replicas) = match cands.iter().any(Vec::is_empty) || matching.limit == Some(0) {
        true => (Tally::default(), Arc::new(Replicas::default())),
        false => {
            let replicas = Arc::new(replicate(worker, local, &plan, cache, &shared.replicas));
            let emit = Emit::new(
                plan.clone(),
                name.clone(),
                (matching.limit, matching.rows.clone()),
                control.clone(),
                worker.peers(),
            );
            (search(worker, local, &replicas, &plan, emit, control, &shared.deal), replicas)
        }
    };
    // (worker, embeddings high and low 64 bits, busy nanoseconds, bytes sent, why it stopped,
    // its process's resident high-water mark), every worker's to every worker.
    let Tally { search, embeddings, busy, bytes_sent, stopped } = tally;
    let bytes_sent = bytes_sent + gathered_bytes + replicas.bytes_sent;
    let rss = subgraph_core::host::peak_rss_bytes();
    let mine = (
        me as u64,
        (embeddings >> 64) as u64,
        embeddings as u64,
        busy.as_nanos() as u64,
        bytes_sent,
        stop_code(stopped),
        rss,
    );
    let tallies = all_gather(worker, vec![mine]);
    if me != 0 {
        return None;
    }
    let found: u128 = tallies.iter().map(|t| ((t.1 as u128) << 64) | t.2 as u128).sum();
    let worst = tallies.iter().map(|t| t.5).max().unwrap_or(0);
    // The limit, where the counts reach it (a worker stops for it only then); else the
    // search's own stop, Ctrl-C before a deadline.
    let (embeddings, stopped) = match matching.limit {
        Some(n) if found >= n as u128 => (n as u128, Some(Stopped::Limit)),
        _ => (found, [None, None, Some(Stopped::Timeout), Some(Stopped::Interrupted)][worst as usize]),
    };
    let mut busy_ms = vec![0.0; local.processes];
    let mut peak_rss_bytes = vec![0; local.processes];
    for t in &tallies {
        busy_ms[t.0 as usize / threads] += t.3 as f64 * 1e-6;
        peak_rss_bytes[t.0 as usize / threads] = t.6.max(peak_rss_bytes[t.0 as usize / threads]);
    }
    Some(QueryCount {
        embeddings,
        complete: stopped.is_none(),
        stopped,
        filter_ms,
        order_ms,
        enumerate_ms: t.elapsed().as_secs_f64() * 1e3,
        candidates: plan.candidates,
        restrictions: plan.restrictions,
        multiplier: plan.multiplier,
        order: plan.order.name(),
        tail: plan.tail,
        processes: local.processes,
        bytes_sent: tallies.iter().map(|t| t.4).sum(),
        busy_ms,
        peak_rss_bytes,
        replicated_positions: replicas.positions(),
        replicated_entries: replicas.entries,
        search: search.name(),
        automorphisms: None,
    })
}

/// Ends this process with one line on standard error when connecting to the others takes
/// longer than `cluster.connect_timeout` (`started` not set by then), or when timely's network
/// threads report a broken connection (a panic whose message starts "timely communication
/// error"): the other processes see this one's connections close and end the same way.
fn watch(cluster: &Cluster, started: Arc<AtomicBool>) {
    let process = cluster.process;
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("timely communication error") {
            eprintln!(
                "subgraph: error: process {process}: a connection to another process broke ({message}); the query \
                 is abandoned on every process"
            );
            std::process::exit(1);
        }
        previous(info);
    }));
    let (timeout, others) = (cluster.connect_timeout, cluster.addresses.clone());
    std::thread::spawn(move || {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if started.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if !started.load(Ordering::SeqCst) {
            eprintln!(
                "subgraph: error: process {process}: could not connect to every process ({}) within {:.0} s",
                others.join(", "),
                timeout.as_secs_f64()
            );
            std::process::exit(1);
        }
    });
}

/// Waits until something listens on `address`'s port (Linux's /proc/net/tcp and tcp6, state
/// 0A), or `until`; returns at once where those tables cannot be read.
fn wait_listening(address: &str, until: Instant) {
    let Some(port) = address.rsplit_once(':').and_then(|(_, p)| p.parse::<u16>().ok()) else { return };
    let local = format!(":{port:04X}");
    while Instant::now() < until {
        let tables: Vec<String> =
            ["/proc/net/tcp", "/proc/net/tcp6"].iter().filter_map(|t| std::fs::read_to_string(t).ok()).collect();
        let listening = |line: &str| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.len() > 3 && fields[1].ends_with(&local) && fields[3] == "0A"
        };
        if tables.is_empty() || tables.iter().flat_map(|t| t.lines()).any(listening) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
