//! The server end to end on loopback (an ephemeral port, the shipped HPRD graph): every route,
//! every error code a request can cause, tokens and scopes, counts equal to the oracle's, the
//! streamed rows, a client that leaves mid-stream, a full queue, timeouts capped by the server,
//! a reload, shutdown stopping what runs, and HTTPS (a self-signed certificate made by the
//! test: a trusting client answered, a plain-HTTP one and an untrusting one not; files that
//! are not a certificate and its key refused). Each test is bounded in time. On a GPU, the
//! `gpu_` tests ([`gpu`]).

mod common;
mod gpu;

use common::{config, connect, data, expected, parse, query_body, send, spec, write_request, Reply, Server};
use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph_server::tls::acceptor;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{self, ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// Never finishes within a test: every closed 6-walk of HPRD (about 1.3e9), enumerated.
const LONG: &str =
    r#""pattern": "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(a) RETURN a, b, c, d, e, f", "spasm": "off", "tail": "off""#;

#[test]
fn health_graphs_and_metrics() {
    let s = Server::start(config());
    let h = s.get("/v1/health", None);
    assert_eq!((h.status, h.json()["status"].as_str()), (200, Some("ok")));
    assert_eq!(h.json()["degraded"], serde_json::json!([]));
    let g = s.get("/v1/graphs", None).json();
    let hprd = &g["graphs"][0];
    assert_eq!(
        (hprd["name"].as_str(), hprd["vertices"].as_u64(), hprd["edges"].as_u64()),
        (Some("hprd"), Some(9460), Some(34998))
    );
    assert_eq!((&hprd["device"], &hprd["devices"]), (&serde_json::json!("cpu"), &serde_json::json!([])));
    s.post("/v1/graphs/hprd/match", None, r#"{"pattern": "MATCH (a:1)--(b:1) RETURN count(*)"}"#);
    s.post("/v1/graphs/nope/match", None, "{}");
    let m = s.get("/metrics", None);
    assert_eq!(m.status, 200);
    assert!(m.header("content-type").unwrap().starts_with("text/plain"));
    let text = m.text();
    for line in [
        "subgraph_requests_total{route=\"/v1/health\",status=\"200\"} 1",
        "subgraph_requests_total{route=\"/v1/graphs/{name}/match\",status=\"200\"} 1",
        "subgraph_requests_total{route=\"/v1/graphs/{name}/match\",status=\"404\"} 1",
        "subgraph_errors_total{code=\"unknown_graph\"} 1",
        "subgraph_request_duration_seconds_count{route=\"/v1/graphs/{name}/match\"} 2",
        "subgraph_queries_in_flight 0",
        "subgraph_queue_length 0",
        "subgraph_devices_degraded 0",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }
}

#[test]
fn counts_equal_the_oracle_and_the_record_is_match_s() {
    let s = Server::start(config());
    for name in [
        "query_dense_16_1",
        "query_dense_16_2",
        "query_dense_16_8",
        "query_dense_16_11",
        "query_dense_16_50",
        "query_dense_16_100",
        "query_dense_16_150",
    ] {
        let r = s.post("/v1/graphs/hprd/match", None, &query_body(name, ""));
        assert_eq!(r.status, 200, "{}", r.text());
        let record = r.json();
        assert_eq!(record["embeddings"].as_u64().map(u128::from), Some(expected(name)), "{name}");
        assert_eq!((record["query"].as_str(), record["complete"].as_bool()), (Some(name), Some(true)));
        assert_eq!(record["semantics"], "embed");
        // The fields of `match --format json`, in its order.
        let text = r.text();
        let at = |key: &str| text.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("no {key} in {text}"));
        let order = ["query", "semantics", "embeddings", "complete", "stopped", "elapsed_ms", "filter_ms", "device"];
        assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
        assert!(text.starts_with(&format!("{{\"query\":\"{name}\",\"semantics\":\"embed\",\"embeddings\":")));
    }
    // unique: embeddings divided by the automorphisms, as `match --unique` reports them.
    let r = s.post("/v1/graphs/hprd/match", None, &query_body("query_dense_16_2", r#""unique": true"#)).json();
    let (emb, auts, unique) =
        (r["embeddings"].as_u64().unwrap(), r["automorphisms"].as_u64().unwrap(), r["unique"].as_u64().unwrap());
    assert_eq!(emb, 80);
    assert_eq!(unique * auts, emb);
}

#[test]
fn a_stream_has_a_row_per_match_then_the_record() {
    let s = Server::start(config());
    for name in ["query_dense_16_2", "query_dense_16_8"] {
        let r = s.post("/v1/graphs/hprd/match?stream=jsonl", None, &query_body(name, ""));
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
        let lines = r.lines();
        let (record, rows) = lines.split_last().unwrap();
        assert_eq!(rows.len() as u128, expected(name), "{name}");
        assert_eq!(record["embeddings"].as_u64().map(u128::from), Some(expected(name)));
        assert!(rows.iter().all(|row| row["query"] == name && row["embedding"].as_array().unwrap().len() == 16));
    }
    // A pattern's rows, cut at the limit and marked so, as the command line marks them.
    let body = r#"{"pattern": "MATCH (a:1)--(b:1) RETURN a, b", "limit": 7}"#;
    let lines = s.post("/v1/graphs/hprd/match?stream=jsonl", None, body).lines();
    assert_eq!(lines.len(), 8);
    assert!(lines[..7].iter().all(|l| l["row"]["a"].is_u64() && l["row"]["b"].is_u64()));
    let record = &lines[7];
    assert_eq!((record["rows"].as_u64(), record["complete"].as_bool()), (Some(7), Some(false)));
    assert_eq!(record["stopped"], "limit");
    // A query that fails before any row is answered with its error's status.
    let r = s.post("/v1/graphs/hprd/match?stream=jsonl", None, r#"{"pattern": "MATCH (a)--(b)", "unique": true}"#);
    assert_eq!((r.status, r.code().as_str()), (400, "bad_pattern"));
    let r = s.post("/v1/graphs/hprd/match?stream=csv", None, r#"{"pattern": "MATCH (a)"}"#);
    assert_eq!((r.status, r.code().as_str()), (400, "bad_request"));
}

#[test]
fn a_client_that_leaves_mid_stream_stops_its_query() {
    let s = Server::start(config());
    let body = format!("{{{LONG}}}");
    let mut stream = send(s.addr, "POST", "/v1/graphs/hprd/match?stream=jsonl", None, Some(body.as_bytes()));
    let mut first = vec![0u8; 4096];
    let n = stream.read(&mut first).unwrap();
    assert!(
        String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&first[..n])
    );
    assert_eq!(s.metric("subgraph_queries_in_flight "), 1.0, "the query runs while its rows are read");
    drop(stream);
    // Its timeout is 20 s away: only the departure can stop it this soon.
    assert!(s.wait_metric("subgraph_queries_in_flight ", 0.0, Duration::from_secs(8)), "the query still runs");
    // So too without a stream: the abandoned request stops its query.
    let waiting = send(s.addr, "POST", "/v1/graphs/hprd/match", None, Some(body.as_bytes()));
    assert!(s.wait_metric("subgraph_queries_in_flight ", 1.0, Duration::from_secs(8)));
    drop(waiting);
    assert!(s.wait_metric("subgraph_queries_in_flight ", 0.0, Duration::from_secs(8)), "the query still runs");
}

#[test]
fn a_full_queue_is_busy_and_timeouts_are_capped() {
    let mut c = config();
    (c.max_concurrent, c.max_queue, c.query_timeout) = (1, 1, Duration::from_secs(2));
    let s = Server::start(c);
    let addr = s.addr;
    let asks = |timeout: f64| format!("{{{LONG}, \"timeout\": {timeout}}}");
    let first = std::thread::spawn({
        let body = asks(100.0);
        move || common::request(addr, "POST", "/v1/graphs/hprd/match", None, Some(body.as_bytes()))
    });
    assert!(s.wait_metric("subgraph_queries_in_flight ", 1.0, Duration::from_secs(10)));
    let second = std::thread::spawn({
        let body = asks(0.5);
        move || common::request(addr, "POST", "/v1/graphs/hprd/match", None, Some(body.as_bytes()))
    });
    assert!(s.wait_metric("subgraph_queue_length ", 1.0, Duration::from_secs(10)));
    let start = Instant::now();
    let busy = s.post("/v1/graphs/hprd/match", None, &asks(1.0));
    assert!(start.elapsed() < Duration::from_secs(1), "a full queue answers at once");
    assert_eq!((busy.status, busy.code().as_str(), busy.header("retry-after")), (503, "busy", Some("1")));
    // The first asked 100 s and got the server's 2: stopped, marked as the command line marks it.
    let r = first.join().unwrap().json();
    assert_eq!((r["complete"].as_bool(), r["stopped"].as_str()), (Some(false), Some("timeout")));
    let elapsed = r["elapsed_ms"].as_f64().unwrap();
    assert!((1500.0..6000.0).contains(&elapsed), "{elapsed} ms");
    let r = second.join().unwrap().json();
    assert_eq!(r["stopped"], "timeout");
    assert!(r["elapsed_ms"].as_f64().unwrap() < 2000.0);
    assert!(s.metric("subgraph_errors_total{code=\"busy\"} ") >= 1.0);
}

#[test]
fn tokens_scopes_and_admins() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.txt");
    std::fs::write(&tokens, "# who\nalice secret-a admin\nbob secret-b hprd\n").unwrap();
    let mut c = config();
    c.graphs.push(spec("other", data("hprd/HPRD.graph")));
    c.token_file = Some(tokens);
    let s = Server::start(c);
    let count = r#"{"pattern": "MATCH (a:1)--(b:1) RETURN count(*)"}"#;
    assert_eq!(s.get("/v1/health", None).status, 200);
    for (path, token) in [("/v1/graphs", None), ("/v1/graphs", Some("secret-c")), ("/metrics", None)] {
        let r = s.get(path, token);
        assert_eq!((r.status, r.code().as_str()), (401, "unauthorized"), "{path}");
    }
    let r = s.post("/v1/graphs/hprd/match", Some("Secret-b"), count);
    assert_eq!((r.status, r.code().as_str()), (401, "unauthorized"));
    let r = s.post("/v1/graphs/hprd/match", Some("secret-b"), count);
    assert_eq!((r.status, r.json()["embeddings"].as_u64()), (200, Some(590)));
    let r = s.post("/v1/graphs/other/match", Some("secret-b"), count);
    assert_eq!((r.status, r.code().as_str()), (403, "forbidden"));
    let r = s.post("/v1/graphs/other/explain", Some("secret-b"), count);
    assert_eq!((r.status, r.code().as_str()), (403, "forbidden"));
    let listed = s.get("/v1/graphs", Some("secret-b")).json();
    assert_eq!(listed["graphs"].as_array().unwrap().len(), 1, "bob sees only his graph");
    assert_eq!(s.get("/v1/graphs", Some("secret-a")).json()["graphs"].as_array().unwrap().len(), 2);
    let r = s.post("/v1/graphs/hprd/reload", Some("secret-b"), "");
    assert_eq!((r.status, r.code().as_str()), (403, "forbidden"));
    let r = s.post("/v1/graphs/other/reload", Some("secret-a"), "");
    assert_eq!((r.status, r.json()["reloaded"]["vertices"].as_u64()), (200, Some(9460)));
    assert_eq!(s.post("/v1/graphs/other/match", Some("secret-a"), count).json()["embeddings"], 590);
}

#[test]
fn every_request_error_has_its_code() {
    let mut c = config();
    c.max_body = 1024;
    let s = Server::start(c);
    let m = "/v1/graphs/hprd/match";
    for (path, body, status, code) in [
        (m, "{\"pattern\": \"MATCH (a", 400, "bad_json"),
        (m, "not json", 400, "bad_json"),
        (m, "{\"pattern\": \"MATCH (a)\", \"lmit\": 3}", 400, "bad_request"),
        (m, "{\"pattern\": \"MATCH (a)\", \"limit\": -3}", 400, "bad_request"),
        (m, "{\"pattern\": \"MATCH (a)\", \"semantics\": \"iso\"}", 400, "bad_request"),
        (m, "{}", 400, "bad_request"),
        (m, "{\"pattern\": \"MATCH (a)-[-(b)\"}", 400, "bad_pattern"),
        (m, "{\"pattern\": \"MATCH (a:Person)--(b)\"}", 400, "bad_pattern"),
        (m, "{\"query\": \"t 2 1\\nv 0 1 1\\ne 0 5\\n\"}", 400, "bad_query"),
        ("/v1/graphs/hprd/explain", "{\"query\": \"t x\\n\"}", 400, "bad_query"),
        ("/v1/graphs/nope/match", "{}", 404, "unknown_graph"),
        ("/v1/graphs/nope/reload", "", 404, "unknown_graph"),
        ("/v2/anything", "", 404, "not_found"),
    ] {
        let r = s.post(path, None, body);
        assert_eq!((r.status, r.code().as_str()), (status, code), "{path} {body}: {}", r.text());
        assert!(!r.json()["message"].as_str().unwrap().is_empty());
    }
    let r = s.get(m, None);
    assert_eq!((r.status, r.code().as_str()), (405, "method_not_allowed"));
    let big = format!("{{\"pattern\": \"MATCH (a)\", \"name\": \"{}\"}}", "x".repeat(2000));
    let r = s.post(m, None, &big);
    assert_eq!((r.status, r.code().as_str()), (413, "body_too_large"));
    assert!(s.app.graphs.begin_reload("hprd"));
    let r = s.post("/v1/graphs/hprd/reload", None, "");
    assert_eq!((r.status, r.code().as_str()), (409, "reload_in_progress"));
    s.app.graphs.end_reload("hprd", None);
}

#[test]
fn explain_answers_explain_s_records() {
    let s = Server::start(config());
    let r = s.post("/v1/graphs/hprd/explain", None, &query_body("query_dense_16_2", ""));
    assert_eq!(r.status, 200, "{}", r.text());
    let e = r.json();
    let one = &e["explanations"][0];
    assert_eq!((one["query"].as_str(), one["chosen"]["embeddings"].as_u64()), (Some("query_dense_16_2"), Some(80)));
    assert_eq!(one["positions"].as_array().unwrap().len(), 16);
    let e = s.post("/v1/graphs/hprd/explain", None, r#"{"pattern": "MATCH (a:1)--(b:2)--(c:1)"}"#).json();
    assert_eq!(e["heading"], "pattern pattern: 1 expansion query");
    assert_eq!(e["explanations"].as_array().unwrap().len(), 1);
}

#[test]
fn a_reload_reads_the_file_again_and_a_failed_one_keeps_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("small.graph");
    std::fs::write(&file, "t 3 2\nv 0 1 1\nv 1 1 2\nv 2 1 1\ne 0 1\ne 1 2\n").unwrap();
    let mut c = config();
    c.graphs = vec![spec("small", file.clone())];
    let s = Server::start(c);
    let count = r#"{"pattern": "MATCH (a:1)--(b:1) RETURN count(*)"}"#;
    assert_eq!(s.post("/v1/graphs/small/match", None, count).json()["embeddings"], 4);
    std::fs::write(&file, "t 3 3\nv 0 1 2\nv 1 1 2\nv 2 1 2\ne 0 1\ne 1 2\ne 0 2\n").unwrap();
    let r = s.post("/v1/graphs/small/reload", None, "");
    assert_eq!((r.status, r.json()["reloaded"]["edges"].as_u64()), (200, Some(3)));
    assert_eq!(s.post("/v1/graphs/small/match", None, count).json()["embeddings"], 6);
    std::fs::write(&file, "t 3 3\nv 0 1 2\ne 0 9\n").unwrap();
    let r = s.post("/v1/graphs/small/reload", None, "");
    assert_eq!((r.status, r.code().as_str()), (500, "reload_failed"));
    assert_eq!(s.post("/v1/graphs/small/match", None, count).json()["embeddings"], 6, "the old graph serves");
}

#[test]
fn shutdown_refuses_the_queue_and_stops_what_runs_after_the_grace() {
    let mut c = config();
    (c.max_concurrent, c.max_queue) = (1, 2);
    let mut s = Server::start(c);
    let addr = s.addr;
    let long = format!("{{{LONG}}}");
    let runner = |body: String| {
        std::thread::spawn(move || common::request(addr, "POST", "/v1/graphs/hprd/match", None, Some(body.as_bytes())))
    };
    let running = runner(long.clone());
    assert!(s.wait_metric("subgraph_queries_in_flight ", 1.0, Duration::from_secs(10)));
    let waiting = runner(long);
    assert!(s.wait_metric("subgraph_queue_length ", 1.0, Duration::from_secs(10)));
    let start = Instant::now();
    s.shut_down(Duration::from_secs(10)).unwrap();
    let r = waiting.join().unwrap();
    assert_eq!((r.status, r.code().as_str()), (503, "shutting_down"));
    let r = running.join().unwrap().json();
    assert_eq!((r["complete"].as_bool(), r["stopped"].as_str()), (Some(false), Some("interrupted")));
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(900), "stopped before the grace of 1 s: {took:?}");
}

#[test]
fn the_openapi_file_documents_every_route_and_code() {
    let spec = std::fs::read_to_string(data("../../docs/openapi.yaml")).unwrap();
    for route in ["/v1/health:", "/v1/graphs:", "/v1/graphs/{name}/match:", "/v1/graphs/{name}/explain:"] {
        assert!(spec.contains(&format!("  {route}\n")), "{route} undocumented");
    }
    assert!(spec.contains("  /v1/graphs/{name}/reload:\n") && spec.contains("  /metrics:\n"));
    assert!(spec.contains("  /v1/restart:\n"), "/v1/restart undocumented");
    for (code, status) in subgraph_server::error::CODES {
        assert!(spec.contains(&format!("        - {code}\n")), "{code} not in ErrorCode's enum");
        assert!(spec.contains(&format!("{code} ({status}")), "{code}'s status {status} undocumented");
    }
}

/// A self-signed certificate for `localhost` and its key, made by the test, in PEM files.
struct Pki {
    _dir: tempfile::TempDir,
    cert: std::path::PathBuf,
    key: std::path::PathBuf,
    der: CertificateDer<'static>,
}

fn self_signed() -> Pki {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    Pki { _dir: dir, cert, key, der: made.cert.der().clone() }
}

/// A TLS connection to `localhost` at `addr` from a client that trusts `trusted` alone, its
/// handshake done.
fn handshake(
    addr: SocketAddr,
    trusted: &CertificateDer<'static>,
) -> std::io::Result<StreamOwned<ClientConnection, TcpStream>> {
    let mut roots = RootCertStore::empty();
    roots.add(trusted.clone()).unwrap();
    let config = ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = StreamOwned::new(ClientConnection::new(Arc::new(config), name).unwrap(), connect(addr));
    tls.conn.complete_io(&mut tls.sock)?;
    Ok(tls)
}

/// A request over HTTPS, answered.
fn https(addr: SocketAddr, trusted: &CertificateDer<'static>, method: &str, path: &str, body: Option<&str>) -> Reply {
    let mut tls = handshake(addr, trusted).unwrap();
    write_request(&mut tls, addr, method, path, None, body.map(str::as_bytes));
    let mut raw = Vec::new();
    let _ = tls.read_to_end(&mut raw);
    parse(&raw)
}

#[test]
fn https_answers_a_client_that_trusts_the_certificate_and_nothing_else() {
    let pki = self_signed();
    let s = Server::start_tls(config(), acceptor(&pki.cert, &pki.key).unwrap());
    let h = https(s.addr, &pki.der, "GET", "/v1/health", None);
    assert_eq!((h.status, h.json()["status"].as_str()), (200, Some("ok")));
    let r = https(s.addr, &pki.der, "POST", "/v1/graphs/hprd/match", Some(&query_body("query_dense_16_2", "")));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["embeddings"].as_u64().map(u128::from), Some(expected("query_dense_16_2")));
    // Plain HTTP to the TLS port: the handshake fails, and no HTTP answer comes back.
    let mut plain = send(s.addr, "GET", "/v1/health", None, None);
    let mut raw = Vec::new();
    let _ = plain.read_to_end(&mut raw);
    assert!(!raw.starts_with(b"HTTP/"), "{}", String::from_utf8_lossy(&raw));
    // A client that trusts another certificate refuses the server's.
    let other = self_signed();
    let refused = handshake(s.addr, &other.der).expect_err("the handshake fails");
    assert!(refused.to_string().contains("certificate"), "{refused}");
    // The server serves on.
    let h = https(s.addr, &pki.der, "GET", "/v1/graphs", None);
    assert_eq!(h.json()["graphs"][0]["name"], "hprd");
}

#[test]
fn tls_files_that_are_not_a_certificate_and_its_key_are_refused_naming_the_file() {
    let (pki, other) = (self_signed(), self_signed());
    let dir = tempfile::tempdir().unwrap();
    let (empty, missing) = (dir.path().join("empty.pem"), dir.path().join("missing.pem"));
    std::fs::write(&empty, "").unwrap();
    let err = |cert: &std::path::Path, key: &std::path::Path| acceptor(cert, key).err().expect("refused").to_string();
    for (cert, key, file, what) in [
        (&missing, &pki.key, &missing, ""),
        (&empty, &pki.key, &empty, "no certificate"),
        (&pki.key, &pki.key, &pki.key, "no certificate"),
        (&pki.cert, &pki.cert, &pki.cert, "no private key"),
        (&pki.cert, &other.key, &other.key, "not a usable key for"),
    ] {
        let e = err(cert, key);
        assert!(e.starts_with(&format!("TLS: {}: ", file.display())) && e.contains(what), "{e}");
    }
}
