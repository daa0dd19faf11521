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

/// Starts `subgraph serve` with `args` and reads its address from standard error.
fn serve(args: &[&str]) -> (Child, SocketAddr) {
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
    (child, addr)
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
fn terminate(mut child: Child) {
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
