//! `subgraph partition` and `match --local-processes` / `--cluster` over loopback: counts and
//! the cluster's fields in the JSON record, `--unique`, rows written as one host writes them
//! (per process, or through process 0's standard output, under a limit, from parts of the
//! graph renumbered by degree), what is refused,
//! Ctrl-C on every process, and a process that never comes or dies ending the run with an
//! error within seconds instead of a hang.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_subgraph"))
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).stdin(Stdio::null()).output().unwrap()
}

/// HPRD in `parts` parts under `dir`; the manifest's path.
fn hprd(dir: &Path, parts: usize) -> String {
    let hprd = data("hprd/HPRD.graph");
    let out = dir.display().to_string();
    let o = run(&["partition", hprd.to_str().unwrap(), "--parts", &parts.to_string(), "--output", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Labelled: auto keeps the file's numbering.
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("in the file's numbering\n"), "{o:?}");
    dir.join("manifest.json").display().to_string()
}

#[test]
fn local_processes_count_hprd_and_report_the_cluster_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = hprd(tmp.path(), 3);
    let query = data("hprd/queries/query_dense_16_2.graph");
    let o = run(&["match", &manifest, query.to_str().unwrap(), "--local-processes", "2", "--format", "json", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let line = String::from_utf8(o.stdout).unwrap();
    let r: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!((r["embeddings"].as_u64(), r["complete"].as_bool()), (Some(80), Some(true)), "{line}");
    assert_eq!(r["processes"].as_u64(), Some(2));
    assert_eq!(r["busy_ms"].as_array().map(Vec::len), Some(2));
    let rss = r["peak_rss_bytes"].as_array().unwrap();
    assert!(rss.len() == 2 && rss.iter().all(|b| b.as_u64().is_some_and(|b| b > 1 << 20)), "{line}");
    assert!(r["bytes_sent"].as_u64().is_some_and(|b| b > 0), "{line}");
    // The default cache holds every list this small query reads, so each worker searches below
    // its share of the prefixes alone; without one, none, and partial matches are routed.
    assert!(r["replicated_positions"].as_u64().is_some_and(|p| p > 0), "{line}");
    assert_eq!(r["search"].as_str(), Some("held"), "{line}");
    // Its last four query vertices are counted together: those with no neighbour after them
    // in GQL's order (a fifth would be moved before one of its neighbours, `--tail on`).
    assert_eq!(r["tail"].as_u64(), Some(4), "{line}");
    let o = run(&[
        "match",
        &manifest,
        query.to_str().unwrap(),
        "--local-processes",
        "2",
        "--cache-memory",
        "0",
        "--tail",
        "off",
        "--format",
        "json",
        "-q",
    ]);
    let line = String::from_utf8(o.stdout).unwrap();
    let r: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!((r["embeddings"].as_u64(), r["replicated_positions"].as_u64()), (Some(80), Some(0)), "{line}");
    assert_eq!(r["replicated_entries"].as_u64(), Some(0), "{line}");
    assert_eq!((r["search"].as_str(), r["tail"].as_u64()), (Some("routed"), Some(0)), "{line}");
    // What the cluster does not do yet is refused in one line.
    let refused: [&[&str]; 6] = [
        &["--semantics", "homomorphism"],
        &["--cache-memory", "lots"],
        &["--vertex-order", "degree"],
        &["--connect-timeout", "0"],
        &["--connect-timeout", "1e300"],
        &["--connect-timeout", "NaN"],
    ];
    for extra in refused {
        let mut args = vec!["match", &manifest, query.to_str().unwrap(), "--local-processes", "2"];
        args.extend_from_slice(extra);
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("error") && !err.contains("panicked"), "{extra:?}: {err}");
    }
}

/// The rows of text output, without the heads, sorted.
fn rows(text: &str) -> Vec<String> {
    let mut rows: Vec<String> = text.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect();
    rows.sort();
    rows
}

#[test]
fn local_processes_write_the_rows_one_host_writes() {
    let tmp = tempfile::tempdir().unwrap();
    // Original ids far from the vertex numbers: a 4-clique and a pendant vertex, and a
    // triangle, so that symmetry breaking's images are written too.
    let graph = tmp.path().join("g.txt");
    std::fs::write(&graph, "100 200\n100 300\n100 400\n200 300\n200 400\n300 400\n400 900\n").unwrap();
    let out = tmp.path().join("parts").display().to_string();
    let o = run(&["partition", graph.to_str().unwrap(), "--parts", "3", "--output", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Unlabelled: auto renumbers it by degree.
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("7 edges, numbered by degree\n"), "{o:?}");
    let manifest = tmp.path().join("parts/manifest.json").display().to_string();
    let query = tmp.path().join("triangle.graph");
    std::fs::write(&query, "t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n").unwrap();
    let q = query.to_str().unwrap();
    let one = run(&["match", graph.to_str().unwrap(), q, "--output", "-", "-q"]);
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let expected = rows(&String::from_utf8(one.stdout).unwrap());
    assert_eq!(expected.len(), 24);
    assert!(expected.iter().all(|r| r.split(' ').all(|v| ["100", "200", "300", "400"].contains(&v))), "{expected:?}");
    // Each process its own file.
    let file = tmp.path().join("rows.txt");
    let o = run(&["match", &manifest, q, "--local-processes", "2", "--output", file.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text: String = (0..2).map(|p| std::fs::read_to_string(format!("{}.{p}", file.display())).unwrap()).collect();
    assert_eq!(rows(&text), expected);
    // Every row through process 0's standard output; the report on standard error.
    let o = run(&["match", &manifest, q, "--local-processes", "3", "--output", "-", "--format", "json", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(rows(&String::from_utf8(o.stdout).unwrap()), expected);
    let err = String::from_utf8(o.stderr).unwrap();
    let r: serde_json::Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
    assert_eq!((r["embeddings"].as_u64(), r["complete"].as_bool()), (Some(24), Some(true)), "{err}");
    // Parts cut from the file's numbering: the same rows.
    let by_file = tmp.path().join("by-file").display().to_string();
    let o =
        run(&["partition", graph.to_str().unwrap(), "--parts", "3", "--vertex-order", "file", "--output", &by_file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("7 edges, in the file's numbering\n"), "{o:?}");
    let file_manifest = tmp.path().join("by-file/manifest.json").display().to_string();
    let o = run(&["match", &file_manifest, q, "--local-processes", "2", "--output", "-", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(rows(&String::from_utf8(o.stdout).unwrap()), expected);
    // The first five: five rows of the 24, the count five and partial; without rows too.
    let o =
        run(&["match", &manifest, q, "--local-processes", "2", "--output", "-", "--limit", "5", "--format", "json"]);
    let got = rows(&String::from_utf8(o.stdout).unwrap());
    assert!(got.len() == 5 && got.iter().all(|r| expected.contains(r)), "{got:?}");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("the limit of 5 matches was reached"), "{err}");
    let o = run(&["match", &manifest, q, "--local-processes", "2", "--limit", "5", "--format", "json", "-q"]);
    let r: serde_json::Value = serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!((r["embeddings"].as_u64(), r["complete"].as_bool()), (Some(5), Some(false)));
    // --unique as one host counts it: 24 embeddings of a triangle, |Aut| = 6, four triangles;
    // a partial count has none.
    let unique = |args: &[&str]| -> serde_json::Value {
        let o = run(&[&["match"][..], args, &[q, "--unique", "--format", "json", "-q"]].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap()
    };
    let one = unique(&[graph.to_str().unwrap()]);
    assert_eq!((one["unique"].as_u64(), one["automorphisms"].as_u64()), (Some(4), Some(6)), "{one}");
    for processes in ["2", "3"] {
        let cluster = unique(&[&manifest, "--local-processes", processes]);
        for field in ["embeddings", "unique", "automorphisms"] {
            assert_eq!(cluster[field], one[field], "{field}: {cluster} against {one}");
        }
    }
    let partial = unique(&[&manifest, "--local-processes", "2", "--limit", "3"]);
    assert_eq!((partial["embeddings"].as_u64(), partial["unique"].as_u64()), (Some(3), None), "{partial}");
    let o = run(&["match", &manifest, q, "--local-processes", "2", "--unique", "-q"]);
    assert!(String::from_utf8(o.stdout).unwrap().contains("24 (4 unique)"));
}

#[test]
fn a_missing_process_ends_the_run_with_an_error_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = hprd(tmp.path(), 2);
    let ports: Vec<TcpListener> = (0..2).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    let hosts: Vec<String> = ports.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
    drop(ports);
    let hostfile = tmp.path().join("hosts.txt");
    std::fs::write(&hostfile, hosts.join("\n")).unwrap();
    let query = data("hprd/queries/query_dense_16_2.graph");
    // Process 0 waits for 1, and 1 for 0: neither is ever joined.
    for process in ["0", "1"] {
        let t = Instant::now();
        let o = run(&[
            "match",
            &manifest,
            query.to_str().unwrap(),
            "--cluster",
            hostfile.to_str().unwrap(),
            "--process",
            process,
            "--connect-timeout",
            "2",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("could not connect"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    }
}

/// A generated graph of one label in 2 parts and a path of 7 vertices: far more matches than a
/// run counts in seconds. The manifest's and the query's paths, and a hosts file for 2
/// processes over loopback.
fn long_query(dir: &Path) -> (String, String, String) {
    let graph = dir.join("rmat.graph");
    let o = run(&["gen", "graph", "--model", "rmat", "--vertices", "2000", "--edges", "20000"]
        .into_iter()
        .chain(["--vertex-labels", "1", "--seed", "1", "--output", graph.to_str().unwrap()])
        .collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.join("parts").display().to_string();
    let o = run(&["partition", graph.to_str().unwrap(), "--parts", "2", "--output", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let query = dir.join("path.graph");
    let path: String = (0..7).map(|v| format!("v {v} 0 {}\n", if v == 0 || v == 6 { 1 } else { 2 })).collect();
    let edges: String = (0..6).map(|v| format!("e {v} {}\n", v + 1)).collect();
    std::fs::write(&query, format!("t 7 6\n{path}{edges}")).unwrap();
    let ports: Vec<TcpListener> = (0..2).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    let hosts: Vec<String> = ports.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
    drop(ports);
    let hostfile = dir.join("hosts.txt");
    std::fs::write(&hostfile, hosts.join("\n")).unwrap();
    let manifest = dir.join("parts/manifest.json").display().to_string();
    (manifest, query.display().to_string(), hostfile.display().to_string())
}

/// Process `process` of [`long_query`]'s cluster, its output piped.
fn start(manifest: &str, query: &str, hosts: &str, process: &str, extra: &[&str]) -> std::process::Child {
    bin()
        .args(["match", manifest, query, "--cluster", hosts, "--process", process, "--timeout", "60", "-q"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits up to 15 s for `child` to end; kills it and fails the test if it does not.
fn within_15_s(child: std::process::Child, what: &str) -> Output {
    let (tx, rx) = std::sync::mpsc::channel();
    let pid = child.id().to_string();
    std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
    rx.recv_timeout(Duration::from_secs(15)).unwrap_or_else(|_| {
        let _ = Command::new("kill").args(["-9", &pid]).status();
        panic!("process still running 15 s after {what}");
    })
}

#[test]
fn ctrl_c_on_every_process_reports_a_partial_count_and_exits_130() {
    let tmp = tempfile::tempdir().unwrap();
    let (manifest, query, hosts) = long_query(tmp.path());
    let json = ["--format", "json"];
    let (zero, one) = (start(&manifest, &query, &hosts, "0", &json), start(&manifest, &query, &hosts, "1", &json));
    std::thread::sleep(Duration::from_millis(1500));
    for pid in [zero.id(), one.id()] {
        assert!(Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap().success());
    }
    let (o, other) = (within_15_s(zero, "Ctrl-C"), within_15_s(one, "Ctrl-C"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!((o.status.code(), other.status.code()), (Some(130), Some(130)), "{err}");
    let line = String::from_utf8(o.stdout).unwrap();
    let r: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!((r["complete"].as_bool(), r["stopped"].as_str()), (Some(false), Some("interrupted")), "{line}");
    assert!(err.contains("interrupted; "), "{err}");
}

#[test]
fn a_process_killed_mid_query_ends_the_others_with_an_error_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    let (manifest, query, hosts) = long_query(tmp.path());
    let (zero, mut one) = (start(&manifest, &query, &hosts, "0", &[]), start(&manifest, &query, &hosts, "1", &[]));
    std::thread::sleep(Duration::from_millis(1500));
    one.kill().unwrap();
    one.wait().unwrap();
    let t = Instant::now();
    let o = within_15_s(zero, "process 1 was killed");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("connection to another process broke"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(15));
}
