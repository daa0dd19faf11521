//! The server's configuration ([`Config`]) and its state ([`App`]): the graphs, who may ask,
//! the turns queries take, the counters, and whether it is shutting down.

use crate::error::ServerError;
use crate::graphs::{Devices, GraphSpec, Graphs};
use crate::link::Link;
use crate::pool::Fleet;
use crate::tokens::Tokens;
use crate::{admission, metrics};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// The pause before a device is reopened after a fault, and the longest between attempts.
const REOPEN_FIRST: Duration = Duration::from_millis(100);
const REOPEN_MOST: Duration = Duration::from_secs(10);

/// How to serve: the graphs and the limits.
#[derive(Debug, Clone)]
pub struct Config {
    pub graphs: Vec<GraphSpec>,
    /// `auto`, `cpu` or `gpu`, as `match --device` takes it.
    pub device: String,
    /// GPUs each graph is uploaded to (`--gpus`), one engine a device, where a GPU runs queries.
    pub gpus: usize,
    /// Bytes each graph's engine may hold on a device (`--gpu-memory`); None: its free memory.
    pub gpu_memory: Option<u64>,
    /// Queries that run at once on the CPU, and that wait for or run on each GPU, for each graph.
    pub max_concurrent: usize,
    pub max_queue: usize,
    /// The longest a query may run; a request asking longer gets this.
    pub query_timeout: Duration,
    pub token_file: Option<PathBuf>,
    /// Bytes a request's body may hold.
    pub max_body: usize,
    /// How long shutdown lets running queries finish before it stops them.
    pub grace: Duration,
}

/// The server's state: the graphs, who may ask, the turns, the counters.
pub struct App {
    pub graphs: Graphs,
    pub tokens: Option<Tokens>,
    pub admission: admission::Admission,
    pub metrics: metrics::Metrics,
    /// Where the graphs' queries run, as a reload opens them again.
    pub devices: Devices,
    /// Every graph's GPU engines, by device: a fault reaches all on its device.
    pub fleet: Arc<Fleet>,
    pub query_timeout: Duration,
    pub max_body: usize,
    pub grace: Duration,
    pub shutting_down: AtomicBool,
    /// Set when a new process has taken over: this one takes no more connections, finishes
    /// what it holds (its queued requests too) and exits, refusing nothing.
    pub handing_over: tokio::sync::watch::Sender<bool>,
    /// The link to the supervisor, where one started this process.
    pub link: Option<Arc<Link>>,
}

impl App {
    /// Loads every graph of `config` and its token file.
    pub fn load(config: Config) -> Result<Arc<App>, ServerError> {
        App::load_with(config, None)
    }

    /// [`App::load`] for a process a supervisor started: a device fault asks `link` for a new
    /// process (the driver keeps the poisoned context for this one's life), and the devices'
    /// counts go on from those of the processes before.
    pub fn load_with(config: Config, link: Option<Arc<Link>>) -> Result<Arc<App>, ServerError> {
        let fleet = Fleet::new(REOPEN_FIRST, REOPEN_MOST, config.max_concurrent);
        if let Some(link) = &link {
            let to = link.clone();
            fleet.hand_over_faults(
                link.counts.clone(),
                Box::new(move |device, why, counts| {
                    to.hand_over(&format!("GPU {device} faulted ({why})"), vec![device], counts);
                }),
            );
        }
        let devices = Devices { device: config.device, gpus: config.gpus, gpu_memory: config.gpu_memory };
        let graphs = Graphs::load(&config.graphs, &devices, &fleet)?;
        let names: Vec<&str> = graphs.names().iter().map(String::as_str).collect();
        let tokens = config.token_file.as_deref().map(|p| Tokens::read(p, &names)).transpose()?;
        Ok(Arc::new(App {
            graphs,
            tokens,
            admission: admission::Admission::new(config.max_concurrent, config.max_queue),
            metrics: metrics::Metrics::default(),
            devices,
            fleet,
            query_timeout: config.query_timeout,
            max_body: config.max_body,
            grace: config.grace,
            shutting_down: AtomicBool::new(false),
            handing_over: tokio::sync::watch::Sender::new(false),
            link,
        }))
    }

    /// How long a stopping server lets its queries run before it stops them: the grace period,
    /// or, handing over, the longest a query may run.
    pub fn drain(&self) -> Duration {
        match *self.handing_over.borrow() {
            true => self.query_timeout.max(self.grace),
            false => self.grace,
        }
    }
}
