//! The server on a real GPU, skipped where none is usable (unless SUBGRAPH_REQUIRE_GPU=1):
//! under `--device auto`, queries the planner keeps on the CPU are answered while a GPU query
//! runs, with one CPU turn (`--max-concurrent 1`: the GPU query gives its turn back); a kernel fault that poisons device 0's context (made by the test: a kernel of its own
//! that writes to an invalid address, on the device's primary context, which the server's
//! engines share) is answered `device_fault`, later queries are answered right on the CPU while
//! the device is out of service, as `/metrics` and `/v1/health` say; a query that finds the
//! device's memory taken (by a buffer of the test's own) is answered all the same (under
//! `auto`, on the CPU where the GPU lacked the memory) and the device stays in service; a graph
//! whose layout is over `gpu_memory` is served in segments with the CPU's count (so tight a cap
//! leaves the join no room beside the segments: the engine refuses it and the count runs on the
//! CPU, as `match --gpu-memory` does). The
//! fault poisons the device for the whole test process (the CUDA driver keeps a sticky error
//! until the process ends), so its test sorts last; its server is linked as a supervisor's
//! process would be, and asks the link for a successor to open the device. The data graph is made by the test, so that
//! the test binary runs away from the repository.

use crate::common::{config, request, Server};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use subgraph_core::io::{Format, ReadOptions};
use subgraph_cuda::{Arg, Gpu, KernelDecl, KernelSource, Param};
use subgraph_server::link::{Link, Up};
use subgraph_server::{App, Config, GraphSpec};

/// A kernel that writes to an address no allocation holds: `CUDA_ERROR_ILLEGAL_ADDRESS`, which
/// poisons the context it ran on.
static POISON: KernelSource = KernelSource {
    name: "poison.cu",
    code: "extern \"C\" __global__ void poison(unsigned long long at) { *(volatile unsigned int*)at = 1u; }\n",
    kernels: &[KernelDecl { name: "poison", params: &[Param::U64] }],
};

/// A count of triangles, and one the planner keeps on the CPU (a limit).
const TRIANGLES: &str = r#"{"pattern": "MATCH (a)--(b)--(c)--(a) RETURN count(*)"}"#;
const LIMITED: &str = r#"{"pattern": "MATCH (a)--(b)--(c)--(a) RETURN a, b, c", "limit": 5}"#;

/// Closed 8-walks, counted one by one, stopped after `secs`: far more work than that on any
/// device, which `auto` sends to the GPU.
fn heavy(secs: u32) -> String {
    format!(
        r#"{{"pattern": "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(g)--(h)--(a) RETURN count(*)", "spasm": "off", "tail": "off", "timeout": {secs}}}"#
    )
}

/// Whether a GPU is usable here; else the test is skipped (or fails, with SUBGRAPH_REQUIRE_GPU=1).
fn gpu_here() -> bool {
    match Gpu::open(0) {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("skipped: {e}");
            false
        }
    }
}

/// An edge list of 20,000 vertices, each joined to 10 others picked by a fixed generator, in
/// `dir`.
fn graph_file(dir: &tempfile::TempDir) -> PathBuf {
    let (n, mut x) = (20_000u64, 0x9e37_79b9_7f4a_7c15u64);
    let mut text = String::new();
    for a in 0..n {
        for _ in 0..10 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let b = (x >> 33) % n;
            if a != b {
                text.push_str(&format!("{a} {b}\n"));
            }
        }
    }
    let path = dir.path().join("g.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// The graph `g` served on `device` on one GPU.
fn on(device: &str, path: PathBuf) -> Config {
    let read = ReadOptions { format: Some(Format::EdgeList), ..ReadOptions::default() };
    Config {
        graphs: vec![GraphSpec { name: "g".into(), path, read, vertex_props: None }],
        device: device.into(),
        max_concurrent: 8,
        max_queue: 16,
        query_timeout: Duration::from_secs(60),
        ..config()
    }
}

/// Poisons `device`'s primary context: the fault's message.
fn poison(device: usize) -> String {
    let gpu = Gpu::open(device).unwrap();
    let kernel = gpu.kernel(&POISON, "poison").unwrap();
    let launched = gpu.launch(&kernel, 1, 1, &mut [Arg::U64(8)]);
    let synced = gpu.synchronize();
    launched.and(synced).expect_err("a write to address 8 faults").to_string()
}

/// The triangles of the graph at `path`, counted by a server on the CPU.
fn cpu_triangles(path: &std::path::Path) -> u64 {
    let s = Server::start(on("cpu", path.to_path_buf()));
    s.post("/v1/graphs/g/match", None, TRIANGLES).json()["embeddings"].as_u64().unwrap()
}

/// Waits (at most `within`) for `ok`.
fn until(within: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn gpu_auto_answers_cpu_queries_while_a_gpu_query_runs() {
    if !gpu_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // One CPU turn: the GPU query gives it back while it runs on the device.
    let s = Server::start(Config { max_concurrent: 1, ..on("auto", graph_file(&dir)) });
    let g = s.get("/v1/graphs", None).json();
    assert_eq!(g["graphs"][0]["devices"], serde_json::json!([{"device": 0, "state": "ready"}]), "{g}");
    let addr = s.addr;
    let running = std::thread::spawn(move || {
        let reply = request(addr, "POST", "/v1/graphs/g/match", None, Some(heavy(8).as_bytes()));
        (reply, Instant::now())
    });
    let busy = until(Duration::from_secs(8), || {
        s.get("/v1/graphs", None).json()["graphs"][0]["devices"][0]["state"] == "busy"
    });
    assert!(busy, "the heavy query never took the GPU");
    let start = Instant::now();
    for _ in 0..20 {
        let r = s.post("/v1/graphs/g/match", None, LIMITED);
        let record = r.json();
        assert_eq!((r.status, record["device"].as_str(), record["embeddings"].as_u64()), (200, Some("cpu"), Some(5)));
    }
    let cpu_done = Instant::now();
    let (reply, gpu_done) = running.join().unwrap();
    let record = reply.json();
    assert_eq!((reply.status, record["device"].as_str()), (200, Some("gpu")), "{record}");
    assert!(cpu_done < gpu_done, "the CPU queries waited for the GPU query");
    eprintln!(
        "20 CPU queries in {:.0} ms while the GPU query ran ({:.0} ms, stopped: {})",
        (cpu_done - start).as_secs_f64() * 1e3,
        record["elapsed_ms"],
        record["stopped"]
    );
}

#[test]
fn gpu_out_of_memory_fails_alone_and_the_device_serves_on() {
    if !gpu_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(on("auto", graph_file(&dir)));
    // The device's memory taken, but for a few MiB, by a buffer of the test's own (the driver
    // refused all but 4 MiB of an H200's: the largest buffer it grants is a little less).
    let gpu = Gpu::open(0).unwrap();
    let (free, _) = gpu.memory().unwrap();
    let hog = [4u64, 16, 64, 256]
        .iter()
        .find_map(|mib| gpu.alloc_zeros::<u32>("the test's hog", (free.saturating_sub(mib << 20) / 4) as usize).ok())
        .expect("all but 256 MiB of the device's free memory");
    let r = s.post("/v1/graphs/g/match", None, &heavy(3));
    let record = r.json();
    assert_eq!(r.status, 200, "{record}");
    eprintln!("with the device's memory taken, the query ran on the {}: {record}", record["device"]);
    assert_eq!(s.metric("subgraph_device_faults_total{device=\"0\"}"), 0.0);
    drop(hog);
    drop(gpu);
    let g = s.get("/v1/graphs", None).json();
    assert_eq!(g["graphs"][0]["devices"], serde_json::json!([{"device": 0, "state": "ready"}]), "{g}");
    let r = s.post("/v1/graphs/g/match", None, &heavy(3));
    assert_eq!((r.status, r.json()["device"].as_str()), (200, Some("gpu")), "{}", r.text());
}

#[test]
fn gpu_a_graph_over_its_gpu_memory_is_served_in_segments() {
    if !gpu_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = graph_file(&dir);
    let want = cpu_triangles(&path);
    // What the graph holds on the device in core, on an engine of the test's own: a cap a
    // quarter above it leaves the in-core layout over the 3/4 the engine allows it.
    let read = ReadOptions { format: Some(Format::EdgeList), ..ReadOptions::default() };
    let graph = subgraph_core::io::read_graphs(&path, &read).unwrap().pop().unwrap().graph;
    let held =
        subgraph::GpuSet::open(std::sync::Arc::new(graph), &Default::default(), &[0]).unwrap().first().device_bytes();
    let s = Server::start(Config { gpu_memory: Some(held + held / 4), ..on("gpu", path) });
    let g = s.get("/v1/graphs", None).json();
    let engine = g["graphs"][0]["engine"].as_str().unwrap().to_string();
    eprintln!("held in core {held} bytes; under a cap of {}: {engine}", held + held / 4);
    assert!(engine.contains("partitioned into"), "{engine}");
    let r = s.post("/v1/graphs/g/match", None, TRIANGLES);
    let record = r.json();
    assert_eq!((r.status, record["embeddings"].as_u64()), (200, Some(want)), "{record}");
    eprintln!("triangles of the graph in segments: {want} on the {} in {} ms", record["device"], record["elapsed_ms"]);
}

#[test]
fn gpu_sticky_fault_answers_device_fault_and_the_cpu_serves_on() {
    if !gpu_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = graph_file(&dir);
    let want = cpu_triangles(&path);
    // Linked as under the supervisor: the test reads what the process asks of it.
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let link = Link::new(0, Default::default(), ours).unwrap();
    let s = Server::start_app(App::load_with(on("gpu", path), Some(link)).unwrap());
    let count = |device: &str| {
        let r = s.post("/v1/graphs/g/match", None, TRIANGLES);
        let record = r.json();
        assert_eq!(r.status, 200, "{record}");
        assert_eq!(record["embeddings"].as_u64(), Some(want), "{record}");
        assert_eq!(record["device"].as_str(), Some(device), "{record}");
    };
    count("gpu");
    let fault = poison(0);
    eprintln!("poisoned GPU 0: {fault}");
    let r = s.post("/v1/graphs/g/match", None, TRIANGLES);
    assert_eq!((r.status, r.json()["code"].as_str()), (503, Some("device_fault")), "{}", r.text());
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(s.metric("subgraph_device_faults_total{device=\"0\"}"), 1.0);
    // Out of service: said by /v1/health and /metrics, and queries answered right meanwhile
    // (on the CPU). The driver keeps the process's context on the device poisoned (measured on
    // an H200, driver 580: reopening and a primary-context reset both fail with the fault), so
    // the process asks its supervisor for a successor, once.
    let mut lines = BufReader::new(theirs).lines();
    let asked: Up = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let Up::Handover { why, reopen, counts } = asked else { panic!("{asked:?}") };
    eprintln!("asked for a successor: {why}");
    assert_eq!((reopen, counts[&0].faults), (vec![0], 1));
    let health = s.get("/v1/health", None).json();
    assert_eq!(health["degraded"][0]["device"], 0, "{health}");
    assert_eq!(health["process"]["successor"]["state"], "starting", "{health}");
    assert_eq!(s.metric("subgraph_devices_degraded"), 1.0);
    count("cpu");
    count("cpu");
    assert_eq!(s.metric("subgraph_device_faults_total{device=\"0\"}"), 1.0);
}
