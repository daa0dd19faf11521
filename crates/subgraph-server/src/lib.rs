//! subgraph's query server: named graphs kept resident and queried over HTTP.
//!
//! The operator names the graphs and their files ([`GraphSpec`]); they are loaded once, with
//! their engines, and queried by name: a request never names a path. A match answers the
//! record `subgraph match --format json` writes ([`subgraph::Record`]), or streams its rows as
//! `--output-format jsonl` writes them with the record last. `subgraph serve` is the command
//! line's front to [`Settings`], [`App::load`] and [`serve`] (or [`serve_tls`], HTTPS);
//! `docs/openapi.yaml` documents the routes.
//!
//! - [`app`]: the server's configuration and state.
//! - [`settings`]: the settings as the flags or a TOML file give them.
//! - [`tls`]: HTTPS: the certificate and key, and the connections' handshakes.
//! - [`routes`]: the routes and the order of their checks.
//! - [`request`]: a request's body, decoded and parsed.
//! - [`run`]: queries on blocking threads, and the streamed rows' writer.
//! - [`admission`]: how many queries run and wait; stopping them at shutdown.
//! - [`tokens`]: the token file and the bearer tokens.
//! - [`graphs`]: the served graphs, loaded and reloaded.
//! - [`pool`]: a graph's GPU engines, one a device, lent to queries; faults and reopenings.
//! - [`supervisor`]: the server in a child process, handed over to a new one after a device
//!   fault, a restart or a crash; [`link`]: a process's side of it.
//! - [`fault`]: what a query's failure on a GPU says of the device.
//! - [`metrics`]: `GET /metrics`.
//! - [`error`]: the errors' codes and statuses.

pub mod admission;
pub mod app;
pub mod error;
pub mod fault;
pub mod graphs;
pub mod link;
pub mod metrics;
pub mod pool;
pub mod request;
pub mod routes;
pub mod run;
pub mod settings;
pub mod supervisor;
pub mod tls;
pub mod tokens;

pub use app::{App, Config};
pub use error::{ApiError, ServerError};
pub use graphs::GraphSpec;
pub use settings::{Listen, Settings};

use axum::serve::ListenerExt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Time shutdown waits, after the grace period, for stopped queries' answers to go out.
const AFTER_GRACE: Duration = Duration::from_secs(5);

/// Time a process taken over answers on the connections it holds (each answer closing its
/// connection) before it closes those left idle: a connection just taken, or one a client
/// keeps alive, has this long for its next request.
const SETTLE: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` (HTTP) until `shutdown` completes; then takes no new connections
/// nor queries, lets running queries finish for the grace period, stops those still running
/// (their records marked `interrupted`), and returns once their answers are out (or
/// `AFTER_GRACE` later). Where `app` was taken over by a new process
/// ([`App::handing_over`]), it takes no new connections but answers every request it holds,
/// queued ones too, each within its own timeout.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    serve_on(Incoming::Plain(listener), app, shutdown).await
}

/// [`serve`] over HTTPS: each connection on `listener` a TLS stream through `acceptor`
/// ([`tls::acceptor`]).
pub async fn serve_tls(
    listener: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let listener = tls::TlsListener::new(listener, acceptor).map_err(ServerError::Serve)?;
    serve_on(Incoming::Tls(listener), app, shutdown).await
}

/// Where connections come from.
enum Incoming {
    Plain(tokio::net::TcpListener),
    Tls(tls::TlsListener),
}

async fn serve_on(
    incoming: Incoming,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let (began_tx, mut began) = tokio::sync::watch::channel(false);
    let on_signal = {
        let app = app.clone();
        async move {
            shutdown.await;
            if *app.handing_over.borrow() {
                tokio::time::sleep(SETTLE).await;
            } else {
                app.shutting_down.store(true, Ordering::SeqCst);
                app.admission.close();
            }
            let _ = began_tx.send(true);
            let stopper = app.clone();
            tokio::spawn(async move {
                tokio::time::sleep(stopper.drain()).await;
                stopper.admission.stop_all();
            });
        }
    };
    let app_after = app.clone();
    let service = routes::router(app.clone()).into_make_service_with_connect_info::<SocketAddr>();
    // Small answers and a stream's chunks go out at once (no Nagle delay waiting on the
    // client's ACK); the TLS listener sets it before the handshake. Tapped, a TLS listener's
    // connections also give the client's address, as a TCP listener's do.
    let paused = app.handing_over.subscribe();
    let server = async move {
        match incoming {
            Incoming::Plain(listener) => {
                let listener = Pausing { inner: listener, paused }.tap_io(|tcp| {
                    let _ = tcp.set_nodelay(true);
                });
                axum::serve(listener, service).with_graceful_shutdown(on_signal).await
            }
            Incoming::Tls(listener) => {
                let listener = Pausing { inner: listener, paused }.tap_io(|_| ());
                axum::serve(listener, service).with_graceful_shutdown(on_signal).await
            }
        }
    };
    let cap = async move {
        let _ = began.wait_for(|b| *b).await;
        tokio::time::sleep(app.drain() + AFTER_GRACE).await;
    };
    let served = tokio::select! {
        served = server => served.map_err(ServerError::Serve),
        () = cap => Ok(()),
    };
    // Queries whose clients are gone have no one to answer: stopped before the runtime goes.
    app_after.admission.stop_all();
    served
}

/// A listener that stops taking connections once its process is taken over (the new process
/// takes them from the same socket), before the graceful shutdown closes the connections left
/// idle ([`SETTLE`] later).
struct Pausing<L> {
    inner: L,
    paused: tokio::sync::watch::Receiver<bool>,
}

impl<L: axum::serve::Listener> axum::serve::Listener for Pausing<L> {
    type Io = L::Io;
    type Addr = L::Addr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let Pausing { inner, paused } = self;
        let pause = async {
            let _ = paused.wait_for(|p| *p).await;
        };
        tokio::select! {
            accepted = inner.accept() => accepted,
            () = pause => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}
