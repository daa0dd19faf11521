//! subgraph's query server: named graphs kept resident and queried over HTTP.
//!
//! The operator names the graphs and their files ([`GraphSpec`]); they are loaded once, with
//! their engines, and queried by name: a request never names a path. A match answers the
//! record `subgraph match --format json` writes ([`subgraph::Record`]), or streams its rows as
//! `--output-format jsonl` writes them with the record last. `subgraph serve` is the command
//! line's front to [`App::load`] and [`serve`]; `docs/openapi.yaml` documents the routes.
//!
//! - [`routes`]: the routes and the order of their checks.
//! - [`request`]: a request's body, decoded and parsed.
//! - [`run`]: queries on blocking threads, and the streamed rows' writer.
//! - [`admission`]: how many queries run and wait; stopping them at shutdown.
//! - [`tokens`]: the token file and the bearer tokens.
//! - [`graphs`]: the served graphs, loaded and reloaded.
//! - [`metrics`]: `GET /metrics`.
//! - [`error`]: the errors' codes and statuses.

pub mod admission;
pub mod error;
pub mod graphs;
pub mod metrics;
pub mod request;
pub mod routes;
pub mod run;
pub mod tokens;

pub use error::{ApiError, ServerError};
pub use graphs::GraphSpec;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
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
    pub graphs: graphs::Graphs,
    pub tokens: Option<tokens::Tokens>,
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
        let graphs = graphs::Graphs::load(&config.graphs, &config.device)?;
        let names: Vec<&str> = graphs.names().iter().map(String::as_str).collect();
        let tokens = config.token_file.as_deref().map(|p| tokens::Tokens::read(p, &names)).transpose()?;
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

/// Time shutdown waits, after the grace period, for stopped queries' answers to go out.
const AFTER_GRACE: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `shutdown` completes; then takes no new connections nor
/// queries, lets running queries finish for the grace period, stops those still running (their
/// records marked `interrupted`), and returns once their answers are out (or
/// [`AFTER_GRACE`] later).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let (began_tx, mut began) = tokio::sync::watch::channel(false);
    let on_signal = {
        let app = app.clone();
        async move {
            shutdown.await;
            app.shutting_down.store(true, Ordering::SeqCst);
            app.admission.close();
            let _ = began_tx.send(true);
            let stopper = app.clone();
            tokio::spawn(async move {
                tokio::time::sleep(stopper.grace).await;
                stopper.admission.stop_all();
            });
        }
    };
    let app_after = app.clone();
    let service = routes::router(app.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let server = axum::serve(listener, service).with_graceful_shutdown(on_signal);
    let cap = async move {
        let _ = began.wait_for(|b| *b).await;
        tokio::time::sleep(app.grace + AFTER_GRACE).await;
    };
    let served = tokio::select! {
        served = server => served.map_err(ServerError::Serve),
        () = cap => Ok(()),
    };
    // Queries whose clients are gone have no one to answer: stopped before the runtime goes.
    app_after.admission.stop_all();
    served
}
