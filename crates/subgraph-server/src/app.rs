//! The server's configuration ([`Config`]) and its state ([`App`]): the graphs, who may ask,
//! the turns queries take, the counters, and whether it is shutting down.

use crate::error::ServerError;
use crate::graphs::{GraphSpec, Graphs};
use crate::tokens::Tokens;
use crate::{admission, metrics};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How to serve: the graphs and the limits.
#[derive(Debug, Clone)]
pub struct Config {
    pub graphs: Vec<GraphSpec>,
    /// `auto`, `cpu` or `gpu`, as `match --device` takes it.
    pub device: String,
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
    pub device: String,
    pub query_timeout: Duration,
    pub max_body: usize,
    pub grace: Duration,
    pub shutting_down: AtomicBool,
}

impl App {
    /// Loads every graph of `config` and its token file.
    pub fn load(config: Config) -> Result<Arc<App>, ServerError> {
        let graphs = Graphs::load(&config.graphs, &config.device)?;
        let names: Vec<&str> = graphs.names().iter().map(String::as_str).collect();
        let tokens = config.token_file.as_deref().map(|p| Tokens::read(p, &names)).transpose()?;
        Ok(Arc::new(App {
            graphs,
            tokens,
            admission: admission::Admission::new(config.max_concurrent, config.max_queue),
            metrics: metrics::Metrics::default(),
            device: config.device,
            query_timeout: config.query_timeout,
            max_body: config.max_body,
            grace: config.grace,
            shutting_down: AtomicBool::new(false),
        }))
    }
}
