//! `subgraph serve` as a process: it loads the graph, listens on an ephemeral loopback port,
//! answers the same record `match --format json` prints, refuses a malformed token file with
//! its line, and on SIGTERM, with a query still streaming, stops it and exits 0. A `--config`
//! file serves its graphs with its settings, the flags over them; one with an unknown key, or
//! half of TLS, is refused with the file, its line and the key.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_subgraph"))
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

/// A server started by [`serve`], killed where a failed test drops it: its serving process
/// then sees its supervisor gone and stops too.
struct Served(Child);

impl std::ops::Deref for Served {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Served {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Starts `subgraph serve` with `args` and reads its address from standard error.
fn serve(args: &[&str]) -> (Served, SocketAddr) {
    let mut child = bin()
        .arg("serve")
        .args(["--listen", "127.0.0.1:0", "--device", "cpu", "--shutdown-grace", "1"])
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("subgraph serve: listening on http://") {
                let _ = tx.send(addr.parse::<SocketAddr>().unwrap());
            }
        }
    });
    let addr = rx.recv_timeout(Duration::from_secs(30)).expect("the server says where it listens");
    (Served(child), addr)
}

/// Sends a POST and returns the connection (the answer still to be read).
fn post(addr: SocketAddr, path: &str, body: &str) -> TcpStream {
    post_with(addr, path, "", body)
}

/// Sends a POST with more header lines (each ending in `\r\n`).
fn post_with(addr: SocketAddr, path: &str, headers: &str, body: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    s
}

/// The answer's body (a fixed-length answer read to the end).
fn body_of(s: TcpStream) -> String {
    let (status, body) = answer(s);
    assert_eq!(status, 200, "{body}");
    body
}

/// The answer's status and body (a fixed-length answer read to the end).
fn answer(mut s: TcpStream) -> (u16, String) {
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{raw}"));
    (status, body.to_string())
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > within {
            let _ = child.kill();
            panic!("subgraph serve did not exit within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(unix)]
#[test]
fn serve_answers_match_s_record_and_exits_0_on_sigterm() {
    let graph = data("hprd/HPRD.graph");
    let query = data("hprd/queries/query_dense_16_2.graph");
    let (mut child, addr) = serve(&["--graph", &format!("hprd={}", graph.display())]);
    let text = std::fs::read_to_string(&query).unwrap();
    let body = format!("{{\"query\": {}, \"name\": \"q\"}}", serde_json::to_string(&text).unwrap());
    let served: serde_json::Value = serde_json::from_str(&body_of(post(addr, "/v1/graphs/hprd/match", &body))).unwrap();
    let out = bin().args(["match", "-q", "--format", "json"]).arg(&graph).arg(&query).output().unwrap();
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(served["embeddings"], 80);
    for key in ["embeddings", "semantics", "complete", "candidates", "filter", "order", "multiplier"] {
        assert_eq!(served[key], printed[key], "{key}");
    }
    // A query that streams until stopped: SIGTERM lets it run for the grace, then stops it.
    let long = r#"{"pattern": "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(a) RETURN a, b, c, d, e, f", "spasm": "off"}"#;
    let mut streaming = post(addr, "/v1/graphs/hprd/match?stream=jsonl", long);
    let mut first = [0u8; 64];
    assert!(streaming.read(&mut first).unwrap() > 0);
    // SAFETY: kill(2) on the child's pid, which has not been reaped (try_wait not yet called).
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let reader = std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = streaming.read_to_end(&mut rest);
        rest
    });
    let status = wait_exit(&mut child, Duration::from_secs(15));
    assert_eq!(status.code(), Some(0));
    let rest = String::from_utf8_lossy(&reader.join().unwrap()).to_string();
    assert!(rest.contains("\"stopped\":\"interrupted\""), "the stream ends with the stopped record");
}

#[test]
fn a_malformed_token_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.txt");
    std::fs::write(&tokens, "alice secret-a\nbob\n").unwrap();
    let graph = format!("hprd={}", data("hprd/HPRD.graph").display());
    let out = bin().args(["serve", "--graph", &graph, "--token-file"]).arg(&tokens).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("{}:2: ", tokens.display())), "{err}");
    assert!(!err.contains("secret-a"), "a token shown: {err}");
}

/// Stops a server started by [`serve`] with SIGTERM and waits for it.
#[cfg(unix)]
fn terminate(mut child: Served) {
    // SAFETY: kill(2) on the child's pid, which has not been reaped (try_wait not yet called).
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    assert_eq!(wait_exit(&mut child, Duration::from_secs(15)).code(), Some(0));
}

#[cfg(unix)]
#[test]
fn a_config_file_serves_its_graphs_with_its_settings_and_flags_override_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tokens.txt"), "carol secret-c\n").unwrap();
    let config = dir.path().join("serve.toml");
    // `device = "gpu"` (no GPU here, and a GPU-less machine would refuse it) and the smaller
    // body cap are overridden by `serve`'s --device cpu and --max-body below; the token file is
    // the file's, found beside it.
    let text = format!(
        "device = \"gpu\"\nmax_body = 64\nmax_queue = 8\ntoken_file = \"tokens.txt\"\n\n[[graph]]\nname = \"hprd\"\npath = {:?}\n",
        data("hprd/HPRD.graph").display().to_string()
    );
    std::fs::write(&config, text).unwrap();
    let (child, addr) = serve(&["--config", config.to_str().unwrap(), "--max-body", "1K"]);
    let count = r#"{"pattern": "MATCH (a:1)--(b:1) RETURN count(*)", "name": "longer than the file's 64 bytes"}"#;
    let auth = "Authorization: Bearer secret-c\r\n";
    let (status, body) = answer(post_with(addr, "/v1/graphs/hprd/match", auth, count));
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&body).unwrap()["embeddings"], 590);
    assert_eq!(answer(post(addr, "/v1/graphs/hprd/match", count)).0, 401, "the file's token file is in use");
    let big = format!("{{\"pattern\": \"MATCH (a)\", \"name\": \"{}\"}}", "x".repeat(1100));
    assert_eq!(answer(post_with(addr, "/v1/graphs/hprd/match", auth, &big)).0, 413, "--max-body 1K");
    terminate(child);
}

#[test]
fn a_bad_config_file_names_its_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("serve.toml");
    std::fs::write(&config, "# settings\ndevice = \"cpu\"\nmax_querys = 3\n").unwrap();
    let graph = format!("hprd={}", data("hprd/HPRD.graph").display());
    let out = bin().args(["serve", "--graph", &graph, "--config"]).arg(&config).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("{}:3: ", config.display())) && err.contains("`max_querys`"), "{err}");
    assert_eq!(err.lines().count(), 1, "one error: {err}");
    let out = bin().args(["serve", "--graph", &graph, "--tls-cert", "cert.pem"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("without its key"));
}

/// Sends a GET and returns the status and body.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    answer(s)
}

/// `GET /v1/health`'s `process`: the serving process's id, generation and successor.
fn process(addr: SocketAddr) -> serde_json::Value {
    let (status, body) = get(addr, "/v1/health");
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<serde_json::Value>(&body).unwrap()["process"].clone()
}

/// Waits (at most 60 s) until the serving process is of `generation`.
fn until_generation(addr: SocketAddr, generation: u64) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let p = process(addr);
        if p["generation"] == generation {
            return p;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "generation {generation} never served: {p}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` is gone (or a zombie no one reaps: the test's own children are reaped).
#[cfg(unix)]
fn gone(pid: u64) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.split(") ").nth(1).is_some_and(|rest| rest.starts_with('Z'))
}

const COUNT: &str = r#"{"pattern": "MATCH (a:1)--(b:1) RETURN count(*)"}"#;

/// A count on a kept-alive connection `s`: the answer's head (lower case) and body.
fn count_kept_alive(s: &mut TcpStream, auth: &str) -> (String, String) {
    let head = format!(
        "POST /v1/graphs/hprd/match HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: {}\r\n\r\n{COUNT}",
        COUNT.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).unwrap(), 1, "the connection closed: {}", String::from_utf8_lossy(&raw));
        raw.push(byte[0]);
    }
    let head = String::from_utf8(raw).unwrap().to_lowercase();
    let len: usize = head.lines().find_map(|l| l.strip_prefix("content-length: ")).unwrap().trim().parse().unwrap();
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    (head, String::from_utf8(body).unwrap())
}

/// One count through the server: its status and embeddings.
fn count(addr: SocketAddr, auth: &str) -> (u16, serde_json::Value) {
    let (status, body) = answer(post_with(addr, "/v1/graphs/hprd/match", auth, COUNT));
    (status, serde_json::from_str::<serde_json::Value>(&body).map_or(body.into(), |v| v["embeddings"].clone()))
}

#[cfg(unix)]
#[test]
fn a_restart_hands_over_to_a_new_process_without_losing_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.txt");
    std::fs::write(&tokens, "ops secret-o admin\nana secret-a\n").unwrap();
    let graph = format!("hprd={}", data("hprd/HPRD.graph").display());
    // One query at a time: the others wait in the queue, which the old process answers too.
    let (child, addr) = serve(&["--graph", &graph, "--token-file", tokens.to_str().unwrap(), "--max-concurrent", "1"]);
    let (admin, user) = ("Authorization: Bearer secret-o\r\n", "Authorization: Bearer secret-a\r\n");
    let first = process(addr);
    assert_eq!((first["supervised"].as_bool(), first["generation"].as_u64()), (Some(true), Some(0)), "{first}");
    assert_eq!(answer(post_with(addr, "/v1/restart", user, "")).0, 403, "a restart needs an admin token");
    assert_eq!(answer(post(addr, "/v1/restart", "")).0, 401);
    // Four clients count without pause while the server hands over.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut answers = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    answers.push(count(addr, user));
                }
                answers
            })
        })
        .collect();
    // A client keeping its connection to the old process alive: its next answer closes it.
    let mut kept = TcpStream::connect(addr).unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let (head, _) = count_kept_alive(&mut kept, user);
    assert!(head.starts_with("http/1.1 200") && !head.contains("connection: close"), "{head}");
    std::thread::sleep(Duration::from_millis(300));
    let (status, body) = answer(post_with(addr, "/v1/restart", admin, ""));
    assert_eq!(status, 202, "{body}");
    let next = until_generation(addr, 1);
    assert_ne!(next["pid"], first["pid"]);
    // The new process may answer before the old one has heard it was taken over; it closes
    // idle connections a second after.
    std::thread::sleep(Duration::from_millis(150));
    let (head, body) = count_kept_alive(&mut kept, user);
    assert!(head.starts_with("http/1.1 200") && head.contains("connection: close"), "{head}");
    assert!(body.contains("\"embeddings\":590"), "{body}");
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let answers: Vec<_> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    assert!(answers.len() > 8, "{} answers", answers.len());
    let wrong: Vec<_> = answers.iter().filter(|a| **a != (200, serde_json::json!(590))).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} answers wrong or refused: {:?}",
        wrong.len(),
        answers.len(),
        &wrong[..wrong.len().min(3)]
    );
    let start = Instant::now();
    while !gone(first["pid"].as_u64().unwrap()) {
        assert!(start.elapsed() < Duration::from_secs(20), "the old process never exited");
        std::thread::sleep(Duration::from_millis(50));
    }
    terminate(child);
    assert!(gone(next["pid"].as_u64().unwrap()), "the serving process outlived the supervisor");
}

#[cfg(unix)]
#[test]
fn a_crashed_server_process_is_replaced_and_a_failed_successor_leaves_the_old_serving() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("hprd.graph");
    std::fs::copy(data("hprd/HPRD.graph"), &copy).unwrap();
    let (child, addr) = serve(&["--graph", &format!("hprd={}", copy.display())]);
    let first = process(addr);
    // SAFETY: kill(2) on the serving process's pid, which its supervisor has not reaped.
    assert_eq!(unsafe { libc::kill(first["pid"].as_i64().unwrap() as libc::pid_t, libc::SIGKILL) }, 0);
    // Connections wait in the socket's queue until the new process takes them.
    let second = until_generation(addr, 1);
    assert_eq!(count(addr, ""), (200, serde_json::json!(590)));
    // The graph's file gone: the new process cannot load it, and the old one serves on.
    std::fs::remove_file(&copy).unwrap();
    assert_eq!(answer(post(addr, "/v1/restart", "")).0, 202);
    let start = Instant::now();
    loop {
        let p = process(addr);
        assert_eq!(p["pid"], second["pid"], "{p}");
        if p["successor"]["state"] == "failed" {
            assert!(p["successor"]["why"].as_str().unwrap().contains("ended before it was ready"), "{p}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the failed successor was never reported: {p}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(count(addr, ""), (200, serde_json::json!(590)));
    terminate(child);
}

#[cfg(unix)]
#[test]
fn a_single_process_server_refuses_a_restart() {
    let graph = format!("hprd={}", data("hprd/HPRD.graph").display());
    let (child, addr) = serve(&["--graph", &graph, "--single-process"]);
    assert_eq!(process(addr)["supervised"], false);
    let (status, body) = answer(post(addr, "/v1/restart", ""));
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("not_supervised"), "{body}");
    terminate(child);
}
