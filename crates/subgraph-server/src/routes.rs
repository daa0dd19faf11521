//! The HTTP routes and their order of checks: the token (401), the graph (404) and the token's
//! scope (403), the body (413, 400), a turn (503), then the query on a blocking thread; every
//! answer counted in the metrics by route, status and error code. `POST /v1/restart` asks the
//! supervisor for a new process ([`crate::supervisor`]).

use crate::app::App;
use crate::error::{ApiError, ErrorCode};
use crate::metrics::Gauges;
use crate::request::{check, Prepared};
use crate::run::{run_explain, run_match, Sent, CHANNEL_CHUNKS};
use crate::tokens::Holder;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, MatchedPath, Path, RawQuery, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

/// The server's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/graphs", get(graphs))
        .route("/v1/graphs/{name}/match", post(match_graph))
        .route("/v1/graphs/{name}/explain", post(explain))
        .route("/v1/graphs/{name}/reload", post(reload))
        .route("/v1/restart", post(restart))
        .route("/metrics", get(metrics))
        .route_layer(middleware::from_fn_with_state(app.clone(), count))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), closing))
        .layer(DefaultBodyLimit::max(app.max_body))
        .with_state(app)
}

/// Counts every answer of a matched route by route, status and error code.
async fn count(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or("unmatched", |m| m.as_str()).to_string();
    let start = Instant::now();
    let response = next.run(request).await;
    let code = response.extensions().get::<ErrorCode>().map(|c| c.0);
    app.metrics.record(&route, response.status().as_u16(), start.elapsed().as_secs_f64(), code);
    response
}

/// Once a new process has taken over, every answer closes its connection (`Connection:
/// close`): the client's next request opens one, which the new process takes, instead of
/// racing this one's close of a kept-alive connection.
async fn closing(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    if *app.handing_over.borrow() {
        response.headers_mut().insert(header::CONNECTION, axum::http::HeaderValue::from_static("close"));
    }
    response
}

async fn not_found(State(app): State<Arc<App>>, uri: axum::http::Uri) -> ApiError {
    app.metrics.record("unmatched", 404, 0.0, Some("not_found"));
    ApiError::new("not_found", format!("no route {}", uri.path()))
}

async fn method_not_allowed(State(app): State<Arc<App>>, method: Method, uri: axum::http::Uri) -> ApiError {
    app.metrics.record("unmatched", 405, 0.0, Some("method_not_allowed"));
    ApiError::new("method_not_allowed", format!("{} does not take {method}", uri.path()))
}

/// The token's holder where a token file is in use (None where none is: every request may
/// ask everything); `unauthorized` logged with the peer and the reason, never the token.
fn holder<'a>(app: &'a App, headers: &HeaderMap, peer: SocketAddr, what: &str) -> Result<Option<&'a Holder>, ApiError> {
    let Some(tokens) = &app.tokens else {
        return Ok(None);
    };
    let value = headers.get(header::AUTHORIZATION).map(|v| v.as_bytes());
    tokens.holder(value).map(Some).inspect_err(|e| {
        eprintln!("subgraph serve: {peer}: {what}: refused (401, {})", e.message);
    })
}

/// The graph `name` for the token's holder: `unknown_graph` where none is served by that
/// name, `forbidden` where the holder's scope leaves it out (or, with `admin`, where the
/// holder may not reload).
fn graph_for(
    app: &App,
    holder: Option<&Holder>,
    name: &str,
    (peer, what): (SocketAddr, &str),
    admin: bool,
) -> Result<Arc<crate::graphs::Resident>, ApiError> {
    let resident = app
        .graphs
        .get(name)
        .ok_or_else(|| ApiError::new("unknown_graph", format!("no graph named `{name}` is served")))?;
    if let Some(h) = holder {
        let why = if !h.may_query(name) {
            Some(format!("{}'s token may not query graph `{name}`", h.name))
        } else if admin && !h.admin {
            Some(format!("{}'s token may not reload graphs (it is not marked admin)", h.name))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(forbidden(peer, what, why));
        }
    }
    Ok(resident)
}

/// `forbidden` (403) for `why`, logged with the peer and the route, never the token.
fn forbidden(peer: SocketAddr, what: &str, why: String) -> ApiError {
    eprintln!("subgraph serve: {peer}: {what}: refused (403, {why})");
    ApiError::new("forbidden", why)
}

async fn health(State(app): State<Arc<App>>) -> Response {
    if app.shutting_down.load(Ordering::SeqCst) {
        return ApiError::new("shutting_down", "the server is shutting down").into_response();
    }
    let body = json!({
        "status": "ok",
        "graphs": app.graphs.names().len(),
        "running": app.admission.running(),
        "queued": app.admission.queued(),
        "degraded": degraded(&app),
        "process": process(&app),
    });
    Json(body).into_response()
}

/// This server process: its id, its generation under the supervisor (0 where it has none),
/// and where a successor is being started or failed, that.
fn process(app: &App) -> serde_json::Value {
    let mut p = json!({
        "pid": std::process::id(),
        "supervised": app.link.is_some(),
        "generation": app.link.as_ref().map_or(0, |l| l.generation),
    });
    if let Some(successor) = app.link.as_ref().and_then(|l| l.successor()) {
        p["successor"] = successor;
    }
    p
}

/// The GPUs out of service now, by graph: each being reopened after a fault.
fn degraded(app: &App) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for g in app.graphs.all() {
        for d in g.engine.devices().into_iter().filter(|d| d.state == "reopening") {
            out.push(json!({ "graph": g.spec.name, "device": d.device, "why": d.why }));
        }
    }
    out
}

async fn graphs(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let holder = holder(&app, &headers, peer, "/v1/graphs")?;
    let list: Vec<_> = app
        .graphs
        .all()
        .iter()
        .filter(|g| holder.is_none_or(|h| h.may_query(&g.spec.name)))
        .map(|g| g.info())
        .collect();
    Ok(Json(json!({ "graphs": list })).into_response())
}

async fn metrics(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    holder(&app, &headers, peer, "/metrics")?;
    let gauges = Gauges {
        queued: app.admission.queued(),
        running: app.admission.running(),
        graphs: app.graphs.names().len(),
        devices: app.fleet.counts(),
        degraded: degraded(&app).len(),
        generation: app.link.as_ref().map_or(0, |l| l.generation),
    };
    let text = app.metrics.render(&gauges);
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response())
}

/// The body as a request, once the caller may ask it of `name`: the graph and the request,
/// parsed for it.
fn prepared(
    app: &App,
    body: Result<Bytes, BytesRejection>,
    resident: &crate::graphs::Resident,
) -> Result<Prepared, ApiError> {
    let body = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new("body_too_large", format!("the body is larger than the server's {} bytes", app.max_body))
        }
        _ => ApiError::new("bad_request", format!("the body could not be read: {e}")),
    })?;
    check(&body, resident.data.is_directed(), app.query_timeout)
}

/// Whether `?stream=jsonl` was asked for; any other query string is `bad_request`.
fn streamed(query: Option<&str>) -> Result<bool, ApiError> {
    match query.unwrap_or("") {
        "" => Ok(false),
        "stream=jsonl" => Ok(true),
        other => Err(ApiError::new("bad_request", format!("unknown query string `{other}` (only stream=jsonl)"))),
    }
}

async fn match_graph(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let holder = holder(&app, &headers, peer, "match")?;
    let resident = graph_for(&app, holder, &name, (peer, "match"), false)?;
    let stream = streamed(query.as_deref())?;
    let prepared = prepared(&app, body, &resident)?;
    let turn = app.admission.admit().await?;
    // A request dropped while its query runs (its client gone, or shutdown) stops the query.
    let stop = StopOnDrop(Some(turn.stop.clone()));
    if !stream {
        let job = tokio::task::spawn_blocking(move || run_match(resident, prepared, turn, None));
        let record = job.await.map_err(|e| ApiError::new("internal", format!("the query's thread failed: {e}")))??;
        stop.disarm();
        return Ok(Json(record).into_response());
    }
    let (tx, mut rx) = mpsc::channel(CHANNEL_CHUNKS);
    let watcher = tx.clone();
    let flag = turn.stop.clone();
    // A client that leaves closes the channel, which stops the query even while it finds no rows.
    tokio::spawn(async move {
        watcher.closed().await;
        flag.store(true, Ordering::SeqCst);
    });
    tokio::task::spawn_blocking(move || run_match(resident, prepared, turn, Some(tx)));
    stop.disarm();
    // The status waits for the first rows or the end: a query that fails before any row is
    // answered with its error's status.
    let first = rx.recv().await;
    let head = match first {
        Some(Sent::Done(done)) if done.is_err() => return Err(done.err().expect("an error")),
        None => return Err(ApiError::new("internal", "the query's thread ended without an answer")),
        Some(first) => first,
    };
    let chunks = futures_util::stream::unfold((Some(head), rx, false), |(next, mut rx, done)| async move {
        if done {
            return None;
        }
        let sent = match next {
            Some(sent) => sent,
            None => rx.recv().await?,
        };
        let (bytes, done) = match sent {
            Sent::Rows(rows) => (Bytes::from(rows), false),
            Sent::Done(done) => match *done {
                Ok(record) => {
                    let mut line = serde_json::to_vec(&record).expect("records serialize");
                    line.push(b'\n');
                    (Bytes::from(line), true)
                }
                Err(e) => (Bytes::from(format!("{}\n", e.json())), true),
            },
        };
        Some((Ok::<_, std::convert::Infallible>(bytes), (None, rx, done)))
    });
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(chunks)).into_response())
}

/// Raises a query's stop flag when dropped (the request abandoned while its query runs),
/// unless disarmed once the answer is in hand or handed to the response's stream.
struct StopOnDrop(Option<Arc<std::sync::atomic::AtomicBool>>);

impl StopOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

async fn explain(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let holder = holder(&app, &headers, peer, "explain")?;
    let resident = graph_for(&app, holder, &name, (peer, "explain"), false)?;
    let prepared = prepared(&app, body, &resident)?;
    let turn = app.admission.admit().await?;
    let stop = StopOnDrop(Some(turn.stop.clone()));
    let job = tokio::task::spawn_blocking(move || run_explain(resident, prepared, turn));
    let explained = job.await.map_err(|e| ApiError::new("internal", format!("the query's thread failed: {e}")))??;
    stop.disarm();
    Ok(Json(explained).into_response())
}

async fn reload(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let holder = holder(&app, &headers, peer, "reload")?;
    let resident = graph_for(&app, holder, &name, (peer, "reload"), true)?;
    if !app.graphs.begin_reload(&name) {
        return Err(ApiError::new("reload_in_progress", format!("graph `{name}` is being reloaded")));
    }
    let (spec, devices, fleet) = (resident.spec.clone(), app.devices.clone(), app.fleet.clone());
    drop(resident);
    let loaded = tokio::task::spawn_blocking(move || crate::graphs::Resident::load(&spec, &devices, &fleet)).await;
    let (answer, loaded) = match loaded {
        Ok(Ok(r)) => (Ok(r.info()), Some(r)),
        Ok(Err(e)) => (Err(ApiError::new("reload_failed", e.to_string())), None),
        Err(e) => (Err(ApiError::new("internal", format!("the reload's thread failed: {e}"))), None),
    };
    app.graphs.end_reload(&name, loaded);
    let info = answer?;
    eprintln!(
        "subgraph serve: graph {name} reloaded by {}: {} vertices, {} edges in {:.0} ms",
        holder.map_or("(no token file)", |h| h.name.as_str()),
        info.vertices,
        info.edges,
        info.load_ms
    );
    Ok(Json(json!({ "reloaded": info })).into_response())
}

/// `POST /v1/restart` (an admin token): a new server process loads the settings, the token
/// file and every graph again, and takes over once ready; this one then finishes its queries
/// and exits. Answered at once: `GET /v1/health` shows the successor until it takes over.
async fn restart(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let holder = holder(&app, &headers, peer, "restart")?;
    if let Some(h) = holder.filter(|h| !h.admin) {
        let why = format!("{}'s token may not restart the server (it is not marked admin)", h.name);
        return Err(forbidden(peer, "restart", why));
    }
    let Some(link) = &app.link else {
        return Err(ApiError::new(
            "not_supervised",
            "this server runs in one process (--single-process, or the library's serve): restart it from outside",
        ));
    };
    let by = holder.map_or("(no token file)", |h| h.name.as_str());
    let asked = link.hand_over(&format!("a restart asked by {by}"), Vec::new(), app.fleet.counts());
    let body = json!({ "restarting": true, "generation": link.generation, "already": !asked });
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}
