//! What the server's tests share: a server on an ephemeral loopback port over the shipped HPRD
//! graph (HTTP or HTTPS), and a small HTTP/1.1 client over `std::net` or any stream
//! (fixed-length and chunked answers; every read bounded in time).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph_server::{serve, serve_tls, App, Config, GraphSpec, ServerError};

pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

/// The expected count of an HPRD oracle query.
pub fn expected(name: &str) -> u128 {
    let text = std::fs::read_to_string(data("hprd/expected_output.res")).unwrap();
    text.lines().find_map(|l| l.strip_prefix(&format!("{name}:"))).unwrap().trim().parse().unwrap()
}

pub fn spec(name: &str, path: PathBuf) -> GraphSpec {
    GraphSpec { name: name.into(), path, read: Default::default(), vertex_props: None }
}

/// A config serving HPRD as `hprd` on the CPU.
pub fn config() -> Config {
    Config {
        graphs: vec![spec("hprd", data("hprd/HPRD.graph"))],
        device: "cpu".into(),
        gpus: 1,
        gpu_memory: None,
        max_concurrent: 2,
        max_queue: 4,
        query_timeout: Duration::from_secs(20),
        token_file: None,
        max_body: 1 << 20,
        grace: Duration::from_secs(1),
    }
}

/// A running server; dropping it shuts it down.
pub struct Server {
    pub addr: SocketAddr,
    pub app: Arc<App>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), ServerError>>>,
}

impl Server {
    pub fn start(config: Config) -> Server {
        Server::start_with(App::load(config).unwrap(), None)
    }

    /// A server of `app`, loaded by the caller.
    #[allow(dead_code)] // Used by the GPU tests only.
    pub fn start_app(app: Arc<App>) -> Server {
        Server::start_with(app, None)
    }

    /// A server speaking HTTPS through `acceptor`.
    pub fn start_tls(config: Config, acceptor: tokio_rustls::TlsAcceptor) -> Server {
        Server::start_with(App::load(config).unwrap(), Some(acceptor))
    }

    fn start_with(app: Arc<App>, tls: Option<tokio_rustls::TlsAcceptor>) -> Server {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = app.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                let stopped = async move {
                    let _ = stopped.await;
                };
                match tls {
                    None => serve(listener, served, stopped).await,
                    Some(acceptor) => serve_tls(listener, acceptor, served, stopped).await,
                }
            })
        });
        let addr = addr_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        Server { addr, app, stop: Some(stop), thread: Some(thread) }
    }

    /// Signals shutdown and waits for `serve` to return, at most `within`.
    pub fn shut_down(&mut self, within: Duration) -> Result<(), ServerError> {
        let _ = self.stop.take().map(|s| s.send(()));
        let thread = self.thread.take().unwrap();
        let start = Instant::now();
        while !thread.is_finished() {
            assert!(start.elapsed() < within, "the server did not stop within {within:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
        thread.join().unwrap()
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Reply {
        request(self.addr, "GET", path, token, None)
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: &str) -> Reply {
        request(self.addr, "POST", path, token, Some(body.as_bytes()))
    }

    /// A gauge or counter line's value in `/metrics` (0 where absent).
    pub fn metric(&self, line_start: &str) -> f64 {
        let text = self.get("/metrics", None).text();
        text.lines().find_map(|l| l.strip_prefix(line_start)).map_or(0.0, |v| v.trim().parse().unwrap())
    }

    /// Waits up to `within` for `metric` to read `value`; whether it did.
    pub fn wait_metric(&self, metric: &str, value: f64, within: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < within {
            if self.metric(metric) == value {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.shut_down(Duration::from_secs(30));
        }
    }
}

/// An answer: status, headers (names in lower case) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The error code of an error answer.
    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or_else(|| panic!("no code in {}", self.text())).to_string()
    }

    /// A stream's JSON lines.
    pub fn lines(&self) -> Vec<serde_json::Value> {
        self.text().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

/// Writes a request (closing the connection after the answer).
pub fn send(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: Option<&[u8]>) -> TcpStream {
    let mut s = connect(addr);
    write_request(&mut s, addr, method, path, token, body);
    s
}

/// A connection, its reads bounded in time.
pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s
}

/// Writes a request on `s` (asking the server to close the connection after the answer).
pub fn write_request(
    s: &mut impl Write,
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    let body = body.unwrap_or(b"");
    head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len()));
    s.write_all(head.as_bytes()).unwrap();
    // A server that answers before reading the whole body (413) may close the connection.
    let _ = s.write_all(body);
    let _ = s.flush();
}

pub fn request(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: Option<&[u8]>) -> Reply {
    let mut s = send(addr, method, path, token, body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse(&raw)
}

/// An answer as read from the connection: head, then the body (chunked or not).
pub fn parse(raw: &[u8]) -> Reply {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a head");
    let head = std::str::from_utf8(&raw[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked { dechunk(rest) } else { rest.to_vec() };
    Reply { status, headers, body }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
        rest = &rest[eol + 2 + size + 2..];
    }
    body
}

/// A match request's body for an HPRD query file, with `extra` JSON fields (`"limit": 5, `…).
pub fn query_body(name: &str, extra: &str) -> String {
    let text = std::fs::read_to_string(data(&format!("hprd/queries/{name}.graph"))).unwrap();
    let sep = if extra.is_empty() { "" } else { ", " };
    format!("{{\"query\": {}, \"name\": \"{name}\"{sep}{extra}}}", serde_json::to_string(&text).unwrap())
}
