//! The command line as a new user meets it (issue 46) and as an attacker does (issue 47): rows
//! and reports kept apart, queries that cannot run reported while the others run, directories of
//! queries, one-line refusals of absurd settings, and deadlines kept by every phase.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_subgraph")).args(args).output().unwrap()
}

fn data(rel: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel);
    p.to_str().unwrap().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.to_str().unwrap().to_string()
}

/// A refusal: exit status `code`, one line saying `what` on stderr, no panic.
fn refused(o: &Output, code: i32, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert!(err.contains(what), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn rows_on_standard_output_send_the_report_to_standard_error() {
    let (hprd, q) = (data("hprd/HPRD.graph"), data("hprd/queries/query_dense_16_2.graph"));
    for (format, row_start) in [("text", ""), ("csv", ""), ("jsonl", "{\"query\"")] {
        for report in ["table", "json"] {
            let o = run(&["match", "-q", &hprd, &q, "--output", "-", "--output-format", format, "--format", report]);
            assert!(o.status.success(), "{}", stderr(&o));
            let out = stdout(&o);
            // Only rows (and the format's own headers) on stdout: 80 matches.
            let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#') && !l.starts_with("query,")).collect();
            assert_eq!(rows.len(), 80, "{format} {report}: {out}");
            assert!(rows.iter().all(|r| r.starts_with(row_start)), "{format} {report}: {out}");
            assert!(!out.contains("elapsed_ms") && !out.contains("embeddings"), "{format} {report}: {out}");
            let err = stderr(&o);
            let reported = if report == "json" { "\"embeddings\":80" } else { "elapsed_ms" };
            assert!(err.contains(reported), "{format} {report}: {err}");
        }
    }
    // Without --output, --output-format is a mistake, not ignored.
    refused(&run(&["match", "-q", &hprd, &q, "--output-format", "csv"]), 2, "--output <FILE>");
}

#[test]
fn absurd_threads_and_timeouts_are_one_line_refusals() {
    let (hprd, q) = (data("hprd/HPRD.graph"), data("hprd/queries/query_dense_16_2.graph"));
    let start = Instant::now();
    refused(&run(&["match", "-q", &hprd, &q, "--threads", "100000"]), 2, "the most for this machine");
    refused(&run(&["match", "-q", &hprd, &q, "--threads", "0"]), 2, "at least 1");
    for t in ["1e300", "nan", "inf", "-1", "0", "soon"] {
        refused(&run(&["match", "-q", &hprd, &q, &format!("--timeout={t}")]), 2, "--timeout");
    }
    for sub in ["explain", "bench"] {
        let mut args = vec![sub, &hprd, &q, "--timeout", "1e300"];
        if sub == "bench" {
            args.extend(["--out", "/nonexistent/never-written"]);
        }
        refused(&run(&args), 2, "a time limit must be a positive number of seconds");
    }
    // Refused at once: 100,000 threads were started one by one before (no output in 60 s).
    assert!(start.elapsed() < Duration::from_secs(60), "{:?}", start.elapsed());
    let o = run(&["match", "-q", &hprd, &q, "--threads", "3", "--timeout", "1e9"]);
    assert!(o.status.success() && stdout(&o).contains(" 80 "), "{}", stderr(&o));
}

#[test]
fn queries_that_cannot_run_are_reported_and_the_others_run() {
    let dir = tempfile::tempdir().unwrap();
    let small = write(dir.path(), "small.graph", "t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\ne 1 2\n");
    let big = write(dir.path(), "big.graph", "t 4 3\nv 0 0 1\nv 1 0 2\nv 2 0 2\nv 3 0 1\ne 0 1\ne 1 2\ne 2 3\n");
    let edge = write(dir.path(), "edge.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\n");
    let directed = data("gsi/triangle.g");
    let o = run(&["match", "-q", "--format", "json", &small, &big, &directed, &edge]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{}", stdout(&o));
    // More query vertices than data vertices: no embedding, an answer.
    assert_eq!((lines[0]["query"].as_str(), lines[0]["embeddings"].as_u64()), (Some(big.as_str()), Some(0)));
    assert_eq!(lines[0]["complete"], true);
    assert!(stderr(&o).contains("the query has 4 vertices, more than the data graph's 3"), "{}", stderr(&o));
    // A directed query on undirected data: an error record, and the run goes on.
    assert_eq!(lines[1]["query"].as_str(), Some(directed.as_str()));
    assert!(lines[1]["error"].as_str().unwrap().contains("the query is directed"), "{}", lines[1]);
    assert_eq!((lines[2]["query"].as_str(), lines[2]["embeddings"].as_u64()), (Some(edge.as_str()), Some(4)));
    // The table: the error on stderr, the others in the table.
    let o = run(&["match", "-q", &small, &directed, &edge]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("subgraph: error: query ") && stderr(&o).contains("is directed"), "{}", stderr(&o));
    assert!(stdout(&o).contains("edge.graph"), "{}", stdout(&o));
}

#[test]
fn directed_patterns_on_undirected_data_are_refused_as_directed_query_files_are() {
    let hprd = data("hprd/HPRD.graph");
    let o = run(&["match", "-q", &hprd, "--pattern", "MATCH (a:1)-->(b)"]);
    refused(&o, 1, "has a direction, but the data graph is undirected");
    let o = run(&["match", "-q", &hprd, "--pattern", "MATCH (a:1)--(b) RETURN count(*)"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn match_takes_a_directory_of_queries_and_bench_refuses_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let hprd = data("hprd/HPRD.graph");
    std::fs::copy(data("hprd/queries/query_dense_16_2.graph"), dir.path().join("q2.graph")).unwrap();
    let p = write(dir.path(), "p.cypher", "MATCH (a:1)--(b:1) RETURN count(*)");
    write(dir.path(), "notes.txt", "not a query");
    let o = run(&["match", "-q", "--format", "json", &hprd, dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["query"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("p.cypher") && names[1].ends_with("q2.graph"), "{names:?}");
    let out = dir.path().join("bench");
    let o = run(&["bench", "-q", &hprd, &p, "--out", out.to_str().unwrap()]);
    refused(&o, 1, "bench times query graphs, and a .cypher file is a pattern");
}

#[test]
fn the_table_stays_in_line_and_counts_are_not_rows() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join(format!("{}.graph", "a_rather_long_query_file_name_".repeat(3)));
    std::fs::copy(data("hprd/queries/query_dense_16_2.graph"), &long).unwrap();
    let hprd = data("hprd/HPRD.graph");
    let o = run(&["match", "-q", &hprd, long.to_str().unwrap(), "--pattern", "MATCH (a:1)--(b:1) RETURN count(*)"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    // Every line ends its columns at the same places: the same length, and the header's
    // "embeddings" ends where the counts do.
    let end = lines[0].find("embeddings").unwrap() + "embeddings".len();
    for l in &lines {
        assert_eq!(l.len(), lines[0].len(), "{out}");
        assert!(l[..end].ends_with(|c: char| c.is_ascii_alphanumeric() || c == ')'), "{out}");
    }
    assert!(!out.contains("rows)"), "a count(*) pattern's one row is its count: {out}");
}

#[test]
fn unique_counts_the_distinct_subgraphs_of_a_pattern_with_unlabelled_vertices() {
    // HPRD with its labels folded into three (so the pattern expands into labelled queries), a
    // triangle pattern of unlabelled vertices, and the same triangle as a query file on the
    // data without labels: the same embeddings and distinct subgraphs (embeddings / 6).
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(data("hprd/HPRD.graph")).unwrap();
    let relabel = |f: &dyn Fn(u32) -> u32| -> String {
        text.lines()
            .map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
                ["v", id, label, degree] => format!("v {id} {} {degree}\n", f(label.parse().unwrap())),
                _ => format!("{l}\n"),
            })
            .collect()
    };
    let three = write(dir.path(), "three.graph", &relabel(&|l| l % 3));
    let none = write(dir.path(), "none.graph", &relabel(&|_| 0));
    let triangle = write(dir.path(), "tri.graph", "t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n");
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(&[&["match", "-q", "--format", "json", "--unique"][..], args].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap()
    };
    let truth = json(&[&none, &triangle]);
    let pattern = json(&[&three, "--pattern", "MATCH (a)--(b)--(c)--(a)", "--semantics", "embed"]);
    assert_eq!(truth["embeddings"], pattern["embeddings"]);
    assert_eq!(truth["unique"].as_u64().unwrap() * 6, truth["embeddings"].as_u64().unwrap());
    assert_eq!(pattern["unique"], truth["unique"], "each subgraph once, not once per labelling");
}

#[test]
fn planning_and_pattern_compilation_keep_the_deadline() {
    // HPRD with one label and a 200-vertex cycle of it: Aut(Q)'s search took 96 s of planning
    // past a 5 s timeout; the README promises every phase stops within about 85 ms of it on
    // two cores (checked here within a second, for busy test machines).
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(data("hprd/HPRD.graph")).unwrap();
    let one: String = text
        .lines()
        .map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["v", id, _, degree] => format!("v {id} 0 {degree}\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    let data_one = write(dir.path(), "one.graph", &one);
    let n = 200;
    let mut cycle = format!("t {n} {n}\n");
    (0..n).for_each(|i| cycle.push_str(&format!("v {i} 0 2\n")));
    (0..n).for_each(|i| cycle.push_str(&format!("e {i} {}\n", (i + 1) % n)));
    let cycle = write(dir.path(), "cycle.graph", &cycle);
    for timeout in [0.05, 0.3] {
        let start = Instant::now();
        let o = run(&["match", "-q", "--format", "json", &data_one, &cycle, "--timeout", &timeout.to_string()]);
        let wall = start.elapsed();
        assert!(o.status.success(), "{}", stderr(&o));
        let r: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
        assert_eq!(r["stopped"], "timeout", "{r}");
        let elapsed = r["elapsed_ms"].as_f64().unwrap();
        assert!(elapsed < timeout * 1e3 + 1000.0, "{timeout} s: {r}");
        assert!(wall < Duration::from_secs_f64(timeout + 10.0), "{timeout} s: {wall:?}");
    }
    // A pattern whose labels are expanded at length: every combination of four vertices' labels
    // tried against an edge label the data does not hold (a hang before); now refused by arc
    // consistency at once, and the expansion itself looks at the deadline.
    let hprd = data("hprd/HPRD.graph");
    let start = Instant::now();
    let p = "MATCH (a), (b), (c), (d)-[:7]-(e) RETURN count(*)";
    let o = run(&["match", "-q", "--format", "json", &hprd, "--pattern", p, "--semantics", "embed", "--timeout", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    let r: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!((r["embeddings"].as_u64(), r["complete"].as_bool()), (Some(0), Some(true)), "{r}");
    // A pattern of 100,000 hops: refused before any work (it ran 12 s past --timeout 1, and
    // reported elapsed_ms 0).
    let chain = format!("MATCH (a0){}", (1..100_000).map(|i| format!("--(a{i})")).collect::<String>());
    let chain = write(dir.path(), "chain.cypher", &chain);
    let start = Instant::now();
    refused(&run(&["match", "-q", &hprd, &chain, "--timeout", "1"]), 1, "more than 1024 vertices");
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
}

#[test]
fn convert_writes_standard_output_and_edge_lists_read_their_labels_back() {
    let dir = tempfile::tempdir().unwrap();
    let hprd = data("hprd/HPRD.graph");
    let q = data("hprd/queries/query_dense_16_2.graph");
    // The round trip through an edge list keeps the 307 labels (it lost them: 0 matches).
    let edges = dir.path().join("hprd.txt");
    let o = run(&["convert", &hprd, edges.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["match", "-q", edges.to_str().unwrap(), &q]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(" 80 "), "{}", stdout(&o));
    assert!(stderr(&o).contains("vertex labels read from") && stderr(&o).contains("hprd.txt.labels"), "{}", stderr(&o));
    // `-` is standard output, not files named `-` and `-.labels`.
    let unlabelled = write(dir.path(), "u.graph", "t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\ne 1 2\n");
    let cwd = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_subgraph"))
        .args(["convert", &unlabelled, "-", "--to", "edges"])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "0 1\n1 2\n");
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0, "no file written");
    // Labels cannot go beside standard output: refused, not dropped.
    refused(&run(&["convert", &hprd, "-", "--to", "edges"]), 1, "standard output cannot hold");
    refused(&run(&["convert", &hprd, "-"]), 1, "give --to");
    let o = run(&["convert", &hprd, "-", "--to", "graph"]);
    assert!(o.status.success() && stdout(&o).starts_with("t 9460 34998"), "{}", stderr(&o));
}

#[test]
fn n_triples_are_told_by_their_content() {
    let dir = tempfile::tempdir().unwrap();
    let nt = std::fs::read(data("named/people.nt")).unwrap();
    let plain = dir.path().join("people.data");
    std::fs::write(&plain, &nt).unwrap();
    let o = run(&["info", "--format", "json", plain.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let o = run(&["info", "--format", "json", &data("named/people.nt")]);
    let by_name: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(info["vertices"], by_name["vertices"]);
    assert_eq!(info["edges"], by_name["edges"]);
    let help = stdout(&run(&["match", "--help"]));
    assert!(help.contains("rdf (N-Triples or N-Quads)"), "{help}");
}
