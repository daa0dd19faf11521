//! subgraph's query server: named graphs kept resident and queried over HTTP.
//!
//! The operator names the graphs and their files ([`GraphSpec`]); they are loaded once, with
//! their engines, and queried by name: a request never names a path. A match answers the
//! record `subgraph match --format json` writes ([`subgraph::Record`]), or streams its rows as
//! `--output-format jsonl` writes them with the record last. `subgraph serve` is the command
//! line's front to [`App::load`] and [`serve`]; `docs/openapi.yaml` documents the routes.
//!
//! - [`app`]: the server's configuration and state.
//! - [`routes`]: the routes and the order of their checks.
//! - [`request`]: a request's body, decoded and parsed.
//! - [`run`]: queries on blocking threads, and the streamed rows' writer.
//! - [`admission`]: how many queries run and wait; stopping them at shutdown.
//! - [`tokens`]: the token file and the bearer tokens.
//! - [`graphs`]: the served graphs, loaded and reloaded.
//! - [`metrics`]: `GET /metrics`.
//! - [`error`]: the errors' codes and statuses.

pub mod admission;
pub mod app;
pub mod error;
pub mod graphs;
pub mod metrics;
pub mod request;
pub mod routes;
pub mod run;
pub mod tokens;

pub use app::{App, Config};
pub use error::{ApiError, ServerError};
pub use graphs::GraphSpec;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

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
