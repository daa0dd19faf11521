//! `subgraph ann` and `subgraph gen vectors` end to end on the shipped vectors
//! (tests/data/vectors: 2,000 × 32, 100 queries, their exact 100 nearest, labels 0..9): recall
//! reported against ground truth, the graph search exact at a bound over the whole set, filters,
//! additions, the recall–QPS table, and one line and a non-zero exit for every bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/vectors").join(rel).display().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_subgraph")).args(args).args(["--device", "cpu"]).output().unwrap()
}

/// The JSON report a successful run prints last on standard output.
fn report(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

/// The one-line error of a failed run.
fn error(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

fn index(dir: &Path) -> PathBuf {
    let path = dir.join("small.sgi");
    let p = path.to_str().unwrap();
    let built = report(&run(&["ann", "build", &data("base.fvecs"), "--output", p, "--labels", &data("labels.txt")]));
    assert_eq!(built["vectors"], 2000);
    assert_eq!(built["device"], "cpu");
    path
}

#[test]
fn search_reports_recall_and_is_exact_over_the_whole_set() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path());
    let idx = idx.to_str().unwrap();
    let q = data("queries.fvecs");
    let found = report(&run(&["ann", "search", idx, &q, "-k", "10", "--ground-truth", &data("gt.ivecs")]));
    assert!(found["recall"].as_f64().unwrap() >= 0.95, "{found}");
    let graph = dir.path().join("graph.ivecs");
    let exact = dir.path().join("exact.ivecs");
    let g = report(&run(&["ann", "search", idx, &q, "-k", "10", "--ef", "2000", "--output", graph.to_str().unwrap()]));
    assert_eq!(g["method"], "graph");
    assert_eq!(g["precision"], "single");
    let e = report(&run(&["ann", "search", idx, &q, "-k", "10", "--brute-force", "--output", exact.to_str().unwrap()]));
    assert_eq!(e["method"], "brute-force");
    assert_eq!(std::fs::read(&graph).unwrap(), std::fs::read(&exact).unwrap());
    // The exact answer is the shipped ground truth's first ten.
    let truth =
        report(&run(&["ann", "search", idx, &q, "-k", "10", "--brute-force", "--ground-truth", &data("gt.ivecs")]));
    assert_eq!(truth["recall"], 1.0);
}

#[test]
fn filters_outputs_additions_and_the_bench() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path());
    let idx = idx.to_str().unwrap();
    let q = data("queries.fvecs");
    let csv = dir.path().join("o.csv");
    report(&run(&["ann", "search", idx, &q, "-k", "5", "--filter-labels", "3,7", "--output", csv.to_str().unwrap()]));
    let labels: Vec<u32> =
        std::fs::read_to_string(data("labels.txt")).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().next(), Some("query,rank,id,distance"));
    assert_eq!(text.lines().count(), 1 + 100 * 5);
    for line in text.lines().skip(1) {
        let id: usize = line.split(',').nth(2).unwrap().parse().unwrap();
        assert!(labels[id] == 3 || labels[id] == 7, "{line}");
    }
    let jsonl = run(&["ann", "search", idx, &q, "-k", "3", "--output", "-"]);
    assert!(jsonl.status.success());
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&jsonl.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["query"], 0);
    assert_eq!(first["ids"].as_array().unwrap().len(), 3);
    let grown = dir.path().join("grown.sgi");
    let plain = dir.path().join("plain.sgi");
    report(&run(&["ann", "build", &data("base.fvecs"), "--output", plain.to_str().unwrap(), "--graph", "nsw"]));
    let added = report(&run(&["ann", "add", plain.to_str().unwrap(), &q, "--output", grown.to_str().unwrap()]));
    assert_eq!(added["vectors"], 2100);
    let npy = dir.path().join("ids.npy");
    report(&run(&["ann", "search", grown.to_str().unwrap(), &q, "-k", "1", "--output", npy.to_str().unwrap()]));
    assert!(std::fs::read(&npy).unwrap().starts_with(b"\x93NUMPY"));
    let out = dir.path().join("bench");
    let bench = run(&[
        "ann",
        "bench",
        idx,
        &q,
        "--ground-truth",
        &data("gt.ivecs"),
        "--efs",
        "10,64",
        "--runs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(bench.status.success(), "{}", String::from_utf8_lossy(&bench.stderr));
    let table = std::fs::read_to_string(out.join("ann.csv")).unwrap();
    assert_eq!(table.lines().count(), 3, "{table}");
    assert!(table.starts_with("system,device,vectors,dim,queries,k,ef,recall,qps,seconds,precision\n"), "{table}");
    assert!(table.lines().skip(1).all(|l| l.ends_with(",single")), "{table}");
    assert!(std::fs::read_to_string(out.join("ann.svg")).unwrap().contains("recall@10"));
}

#[test]
fn gen_vectors_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str| {
        let base = dir.path().join(format!("{name}.fvecs"));
        let q = dir.path().join(format!("{name}-q.npy"));
        let gt = dir.path().join(format!("{name}.ivecs"));
        report(&run(&[
            "gen",
            "vectors",
            "--count",
            "500",
            "--dim",
            "8",
            "--queries",
            "7",
            "--seed",
            "3",
            "--gt-k",
            "4",
            "--output",
            base.to_str().unwrap(),
            "--queries-output",
            q.to_str().unwrap(),
            "--ground-truth",
            gt.to_str().unwrap(),
        ]));
        [base, q, gt].map(|p| std::fs::read(p).unwrap())
    };
    let (a, b) = (make("a"), make("b"));
    assert_eq!(a, b);
    assert_eq!(a[0].len(), 500 * (4 + 8 * 4));
    assert_eq!(a[2].len(), 7 * (4 + 4 * 4));
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path());
    let idx = idx.to_str().unwrap();
    let base = std::fs::read(data("base.fvecs")).unwrap();
    let truncated = dir.path().join("cut.fvecs");
    std::fs::write(&truncated, &base[..base.len() - 10]).unwrap();
    let e = error(&run(&[
        "ann",
        "build",
        truncated.to_str().unwrap(),
        "--output",
        dir.path().join("x.sgi").to_str().unwrap(),
    ]));
    assert!(e.contains("cut.fvecs") && e.contains("truncated"), "{e}");
    let mut nan = base[..2 * (4 + 32 * 4)].to_vec();
    nan[4 + 32 * 4 + 4 + 4 * 5..][..4].copy_from_slice(&f32::NAN.to_le_bytes());
    let nan_file = dir.path().join("nan.fvecs");
    std::fs::write(&nan_file, nan).unwrap();
    let e = error(&run(&[
        "ann",
        "build",
        nan_file.to_str().unwrap(),
        "--output",
        dir.path().join("y.sgi").to_str().unwrap(),
    ]));
    assert!(e.contains("nan.fvecs") && e.contains("row 1, column 5"), "{e}");
    let narrow = dir.path().join("narrow.fvecs");
    let mut row = 4i32.to_le_bytes().to_vec();
    row.extend([0u8; 16]);
    std::fs::write(&narrow, row).unwrap();
    let e = error(&run(&["ann", "search", idx, narrow.to_str().unwrap()]));
    assert!(e.contains("dimension 4, the index 32"), "{e}");
    let e = error(&run(&["ann", "search", idx, &data("queries.fvecs"), "-k", "2001"]));
    assert!(e.contains("k 2001 is larger than the 2000 vectors"), "{e}");
    let sgi = std::fs::read(idx).unwrap();
    let damaged = dir.path().join("damaged.sgi");
    std::fs::write(&damaged, &sgi[..sgi.len() / 3]).unwrap();
    let e = error(&run(&["ann", "search", damaged.to_str().unwrap(), &data("queries.fvecs")]));
    assert!(e.contains("damaged.sgi"), "{e}");
    let empty = dir.path().join("empty.fvecs");
    std::fs::write(&empty, b"").unwrap();
    let e =
        error(&run(&["ann", "build", empty.to_str().unwrap(), "--output", dir.path().join("z.sgi").to_str().unwrap()]));
    assert!(e.contains("empty.fvecs"), "{e}");
    let e = error(&run(&["ann", "search", idx, &data("queries.fvecs"), "--ground-truth", &data("labels.txt")]));
    assert!(e.contains("labels.txt"), "{e}");
    // Half-precision rows are the GPU search's: refused on the CPU and with brute force, never
    // silently read in single precision.
    let e = error(&run(&["ann", "search", idx, &data("queries.fvecs"), "--precision", "half"]));
    assert!(e.contains("precision 'half' is the GPU search's"), "{e}");
    let e = error(&run(&["ann", "search", idx, &data("queries.fvecs"), "--precision", "half", "--brute-force"]));
    assert!(e.contains("--precision half is the graph search's"), "{e}");
    let e = run(&["ann", "search", idx, &data("queries.fvecs"), "--precision", "quarter"]);
    assert!(!e.status.success() && String::from_utf8_lossy(&e.stderr).contains("quarter"));
}
