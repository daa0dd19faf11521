//! End-to-end tests of the `subgraph` binary: reports, output formats, limits, compressed and
//! standard-input inputs, and one-line errors with a non-zero exit for malformed input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_subgraph"))
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs the binary with `input` on its standard input.
fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A thread, so that a child that stops reading early cannot block the test; it may close
    // the pipe, so the write's result is not checked.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    out
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zst(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn write(dir: &Path, name: &str, content: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn json_report_per_query() {
    let d = data("hprd/HPRD.graph");
    let q1 = data("hprd/queries/query_dense_16_1.graph");
    let q2 = data("hprd/queries/query_dense_16_2.graph");
    let o = run(&["match", "-q", "--format", "json", d.to_str().unwrap(), q1.to_str().unwrap(), q2.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["query"], q1.to_str().unwrap());
    assert_eq!(rows[0]["embeddings"], 3);
    assert_eq!(rows[1]["embeddings"], 80);
    for r in &rows {
        assert_eq!(r["complete"], true);
        for k in ["elapsed_ms", "filter_ms", "order_ms", "space_ms", "enumerate_ms"] {
            assert!(r[k].as_f64().unwrap() >= 0.0, "{k}");
        }
        assert!(r["space_bytes"].as_u64().unwrap() > 0);
    }
}

/// `--bitmaps`: the counts do not depend on it; `on` holds the lists of some positions as
/// bitmaps (the report's `bitmaps`), `off` none; an unknown name is one line and exit 1.
#[test]
fn bitmaps_change_no_count() {
    let d = data("yeast/yeast.graph");
    let mut queries: Vec<PathBuf> = std::fs::read_dir(data("yeast/queries"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("query_dense_8_1"))
        .collect();
    queries.sort();
    queries.truncate(20);
    let counts = |mode: &str| {
        let mut args = vec!["match", "-q", "--format", "json", "--spasm", "off", "--tail", "off", "--bitmaps", mode];
        args.push(d.to_str().unwrap());
        args.extend(queries.iter().map(|q| q.to_str().unwrap()));
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        json_lines(&o)
            .iter()
            .map(|r| (r["embeddings"].as_u64().unwrap(), r["bitmaps"].as_u64().unwrap()))
            .collect::<Vec<_>>()
    };
    let (on, off, auto) = (counts("on"), counts("off"), counts("auto"));
    assert!(on.len() > 5);
    let embeddings = |v: &[(u64, u64)]| v.iter().map(|c| c.0).collect::<Vec<_>>();
    assert_eq!(embeddings(&on), embeddings(&off));
    assert_eq!(embeddings(&auto), embeddings(&off));
    assert!(on.iter().any(|c| c.1 > 0) && off.iter().all(|c| c.1 == 0));
    let o = run(&["match", "--bitmaps", "sideways", d.to_str().unwrap(), queries[0].to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("sideways"), "{}", stderr(&o));
}

/// A plan other than the default (GQL's order, no counted tail) is run only after a probe
/// found it faster, so its report times the probe, also where the probe ran the plan's whole
/// first level and answered the query (reported as 0 before).
#[test]
fn a_plan_chosen_by_the_probe_reports_the_probe() {
    let d = data("yeast/yeast.graph");
    let mut queries: Vec<PathBuf> = std::fs::read_dir(data("yeast/queries"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("query_dense_16_1"))
        .collect();
    queries.sort();
    queries.truncate(24);
    let mut args = vec!["match", "-q", "--format", "json", "--threads", "1", d.to_str().unwrap()];
    args.extend(queries.iter().map(|q| q.to_str().unwrap()));
    let mut switched = 0;
    for r in json_lines(&run(&args)) {
        let ms = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"));
        if r["order"] != "gql" || r["tail"] != 0 {
            switched += 1;
            assert!(ms("compare_ms") > 0.0 && ms("probe_ms") > 0.0, "{r}");
            assert!(ms("trial_ms") + ms("probe_ms") <= ms("enumerate_ms") + 1e-9, "{r}");
        }
    }
    assert!(switched > 0, "no query of the set ran a plan the probe chose");
}

/// A query heavy enough to compare plans reports where its planning went, each stage inside
/// its phase; a small one, run at once with the default plan, reports none.
#[test]
fn json_report_times_the_planning_stages() {
    let d = data("yeast/yeast.graph");
    let heavy = data("yeast/queries/query_dense_16_107.graph");
    let small = data("yeast/queries/query_dense_16_10.graph");
    let o = run(&["match", "-q", "--format", "json", "--threads", "1", d.to_str().unwrap(), heavy.to_str().unwrap()]);
    let r = &json_lines(&o)[0];
    let ms = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"));
    assert!(ms("trial_ms") > 0.0 && ms("compare_ms") > 0.0, "{r}");
    assert!(ms("trial_ms") + ms("probe_ms") <= ms("enumerate_ms") + 1e-9, "{r}");
    assert!(ms("compare_ms") < ms("elapsed_ms"), "{r}");
    // The spasm's attempt, declined (the quotients of 16 vertices planned, then enumerated),
    // is outside the phases.
    let phases = ms("filter_ms") + ms("order_ms") + ms("space_ms") + ms("enumerate_ms");
    assert!(ms("spasm_ms") > 0.0 && phases + ms("spasm_ms") <= ms("elapsed_ms") + 1e-6, "{r}");
    let o = run(&["match", "-q", "--format", "json", "--threads", "1", d.to_str().unwrap(), small.to_str().unwrap()]);
    let r = &json_lines(&o)[0];
    for k in ["trial_ms", "compare_ms", "probe_ms"] {
        assert_eq!(r[k].as_f64(), Some(0.0), "{k} in {r}");
    }
    // explain, which compares every plan and runs no trial, shows its stages: the comparison
    // (its `order_ms` and the candidate bitsets it samples with) and the probe, in its JSON
    // and as a line of its text.
    let (d, heavy) = (d.to_str().unwrap(), heavy.to_str().unwrap());
    let o = run(&["explain", "--format", "json", "--threads", "1", d, heavy]);
    let e = &json_lines(&o)[0];
    let ms = |k: &str| e[k].as_f64().unwrap_or_else(|| panic!("{k} in {e}"));
    assert!(ms("compare_ms") >= ms("order_ms") && ms("order_ms") > 0.0, "{e}");
    assert!(ms("probe_ms") > 0.0 && e["probe"].is_object(), "{e}");
    assert_eq!(ms("trial_ms"), 0.0, "{e}");
    let stages = ms("filter_ms") + ms("compare_ms") + ms("probe_ms") + ms("space_ms") + ms("enumerate_ms");
    assert!(stages <= e["chosen"]["elapsed_ms"].as_f64().unwrap() + 1e-6, "{e}");
    let text = stdout(&run(&["explain", "--threads", "1", d, heavy]));
    assert!(text.contains("\nplanning: plans compared in "), "{text}");
}

/// A sampled query reports its estimated work and that work priced for the device its plan
/// was made for: the same on the CPU, whose weights the estimate's cost uses; at least as much
/// on the GPU, where rows weigh more.
#[test]
fn json_report_prices_the_estimate_for_the_device() {
    let d = data("yeast/yeast.graph");
    let q = data("yeast/queries/query_sparse_16_1.graph");
    let (d, q) = (d.to_str().unwrap(), q.to_str().unwrap());
    let cost = |r: &serde_json::Value| (r["estimated_cost"].as_f64().unwrap(), r["priced_cost"].as_f64().unwrap());
    let cpu = &json_lines(&run(&["match", "-q", "--format", "json", "--device", "cpu", d, q]))[0];
    let (estimated, priced) = cost(cpu);
    assert!(estimated > 0.0 && priced == estimated, "{cpu}");
    let o = run(&["match", "-q", "--format", "json", "--device", "gpu", d, q]);
    if o.status.success() {
        let gpu = &json_lines(&o)[0];
        let (estimated, priced) = cost(gpu);
        assert!(estimated > 0.0 && priced >= estimated, "{gpu}");
    }
}

/// `--spasm on` counts by the quotients' homomorphisms, `off` enumerates: equal counts on yeast
/// queries of 4 and 8 vertices, and `spasm_terms` reported only where the spasm counted.
#[test]
fn spasm_counts_equal_enumeration() {
    let d = data("yeast/yeast.graph");
    let queries: Vec<String> = ["dense_4", "dense_8", "sparse_8"]
        .iter()
        .flat_map(|class| (1..=8).map(move |i| data(&format!("yeast/queries/query_{class}_{i}.graph"))))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    let reports = |mode: &str, semantics: &str| {
        let args = ["match", "-q", "--format", "json", "--device", "cpu", "--semantics", semantics, "--spasm", mode];
        let q: Vec<&str> = queries.iter().map(String::as_str).collect();
        let o = run(&[&args[..], &[d.to_str().unwrap()], &q[..]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        json_lines(&o)
    };
    for semantics in ["embed", "homomorphism"] {
        let (on, off) = (reports("on", semantics), reports("off", semantics));
        assert_eq!(on.len(), queries.len());
        let mut counted = 0;
        for (a, b) in on.iter().zip(&off) {
            assert_eq!(a["embeddings"], b["embeddings"], "{} {semantics}", a["query"]);
            assert_eq!(a["complete"], true);
            assert!(b.get("spasm_terms").is_none());
            counted += a.get("spasm_terms").is_some() as usize;
        }
        // Every 4- and sparse 8-vertex query opens into forests; dense 8-vertex ones may not.
        assert!(counted >= 16, "{semantics}: {counted} of {} counted by the spasm", queries.len());
    }
    // Induced queries are always enumerated.
    let o = run(&[
        "match",
        "-q",
        "--format",
        "json",
        "--semantics",
        "induced",
        "--spasm",
        "on",
        d.to_str().unwrap(),
        &queries[0],
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(json_lines(&o)[0].get("spasm_terms").is_none());
}

#[test]
fn unique_limit_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let tri = write(dir.path(), "tri.graph", b"t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n");
    let o = run(&["match", "-q", "--format", "json", "--unique", &tri, &tri]);
    let r = &json_lines(&o)[0];
    assert_eq!(
        (r["embeddings"].as_u64(), r["unique"].as_u64(), r["automorphisms"].as_u64()),
        (Some(6), Some(1), Some(6))
    );

    let o = run(&["match", "-q", "--format", "json", "--limit", "4", &tri, &tri]);
    let r = &json_lines(&o)[0];
    assert_eq!((r["embeddings"].as_u64(), r["complete"].as_bool()), (Some(4), Some(false)));
    assert_eq!(r["stopped"], "limit");
    assert!(stderr(&o).contains("partial count"));

    for (fmt, lines, first) in [("text", 7, "# query"), ("csv", 7, "query,u0,u1,u2"), ("jsonl", 6, "{\"query\":")] {
        let out = dir.path().join(format!("m.{fmt}"));
        let o = run(&["match", "-q", "--output", out.to_str().unwrap(), "--output-format", fmt, &tri, &tri]);
        assert!(o.status.success());
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.lines().count(), lines, "{fmt}: {text}");
        assert!(text.starts_with(first), "{fmt}: {text}");
    }
    let out = dir.path().join("lim.txt");
    run(&["match", "-q", "--limit", "2", "--output", out.to_str().unwrap(), &tri, &tri]);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 3);
}

/// `--output-format binary` writes the rows the text output writes, as u32 vertex numbers or,
/// with numeric original ids, u64 ids; named ids are refused with one line.
#[test]
fn binary_output() {
    use subgraph_core::sink::{read_binary, BinarySection};
    let dir = tempfile::tempdir().unwrap();
    let hprd = data("hprd/HPRD.graph");
    let q = data("hprd/queries/query_dense_16_11.graph");
    let rows_of = |extra: &[&str], fmt: &str| {
        let out = dir.path().join(format!("rows.{fmt}"));
        let args = [&["match", "-q", "--output", out.to_str().unwrap(), "--output-format", fmt][..], extra].concat();
        let o = run(&[&args[..], &[hprd.to_str().unwrap(), q.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(&out).unwrap()
    };
    let mut text: Vec<Vec<u64>> = String::from_utf8(rows_of(&[], "text"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
        .collect();
    let sections = read_binary(&rows_of(&[], "binary")).unwrap();
    let BinarySection::Query { columns, id_bytes: 4, .. } = &sections[0] else { panic!("{:?}", sections[0]) };
    assert_eq!(columns.len(), text[0].len());
    let mut binary: Vec<Vec<u64>> = sections[1..]
        .iter()
        .flat_map(|s| match s {
            BinarySection::Rows(r) => r.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    text.sort();
    binary.sort();
    assert!(text.len() > 100);
    assert_eq!(binary, text);
    // On standard output the matches are alone there: the report goes to stderr.
    let o = run(&["match", "--output", "-", "--output-format", "binary", hprd.to_str().unwrap(), q.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let on_stdout: usize = read_binary(&o.stdout)
        .unwrap()
        .iter()
        .map(|s| match s {
            BinarySection::Rows(r) => r.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(on_stdout, text.len());
    assert!(stderr(&o).contains("embeddings"), "the report: {}", stderr(&o));
    // Original numeric ids: u64.
    let edges = write(dir.path(), "sparse.txt", b"10 20\n20 30000000000\n30000000000 10\n");
    let tri = write(dir.path(), "tri.graph", b"t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n");
    let out = dir.path().join("ids.bin");
    let o = run(&["match", "-q", "--output", out.to_str().unwrap(), "--output-format", "binary", &edges, &tri]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sections = read_binary(&std::fs::read(&out).unwrap()).unwrap();
    assert!(matches!(sections[0], BinarySection::Query { id_bytes: 8, .. }), "{sections:?}");
    let BinarySection::Rows(rows) = &sections[1] else { panic!("{sections:?}") };
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().all(|r| r.contains(&30_000_000_000)));
    let o = run(&["match", "-q", "--string-ids", "--output", "-", "--output-format", "binary", &edges, &tri]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--output-format binary writes numeric ids"), "{}", stderr(&o));
}

#[test]
fn info_json_fields() {
    let o = run(&["info", "--format", "json", data("yeast/yeast.graph").to_str().unwrap()]);
    let r = &json_lines(&o)[0];
    assert_eq!(r["vertices"], 3112);
    assert_eq!(r["edges"], 12519);
    assert_eq!(r["directed"], false);
    assert_eq!(r["vertex_labels"], 71);
    assert_eq!(r["edge_labels"], 1);
    let o = run(&["info", "--format", "json", data("gsi/data.g").to_str().unwrap()]);
    assert_eq!(json_lines(&o)[0]["directed"], true);
}

/// Several labels of a vertex, several edges of a pair and self loops: `info` reports them (text
/// and JSON), edge lists and `.sgb` files keep them, `.g` and `.graph` refuse them in one line,
/// and `match` says what the load kept and dropped.
#[test]
fn several_labels_edges_and_loops_are_reported_kept_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let edges = write(dir.path(), "e.txt", b"a b knows\na b likes\nb c knows\nc c self\nb c knows\n");
    let labels = write(dir.path(), "l.txt", b"a Person Agent\nb Person\n");
    let read = ["--directed", "--string-ids", "--vertex-labels", &labels];
    let info = |file: &str, more: &[&str]| {
        let o = run(&[&["info", "--format", "json"], more, &[file]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        json_lines(&o).remove(0)
    };
    let counts = |r: &serde_json::Value| {
        ["self_loops", "multi_labelled_vertices", "multi_edge_pairs", "duplicates_dropped", "self_loops_dropped"]
            .map(|k| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}")))
    };
    assert_eq!(counts(&info(&edges, &read)), [1, 1, 1, 1, 0]);
    let o = run(&[&["info"], &read[..], &[&edges]].concat());
    assert!(
        stdout(&o).contains(
            "dropped           1 duplicate edges\nkept              1 self loops, 1 vertices with several labels, \
             1 pairs with several edges\n"
        ),
        "{}",
        stdout(&o)
    );
    for kept in ["k.sgb", "k.txt"] {
        let out = dir.path().join(kept);
        let o = run(&[&["convert"], &read[..], &[&edges, out.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("(1 duplicates dropped, 1 self loops kept)"), "{}", stderr(&o));
        let again = if kept == "k.txt" { &["--directed", "--string-ids"][..] } else { &[][..] };
        assert_eq!(counts(&info(out.to_str().unwrap(), again)), [1, 1, 1, 0, 0], "{kept}");
    }
    // (.graph files are undirected.)
    for (file, name, read) in [("r.g", "a GSI .g file", &read[..]), ("r.graph", "a Sun & Luo .graph file", &read[1..])]
    {
        let out = dir.path().join(file);
        let o = run(&[&["convert"], read, &[&edges, out.to_str().unwrap()]].concat());
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            stderr(&o),
            format!(
                "subgraph: error: {}: {name} holds one label per vertex and one edge per pair: 1 vertex has several \
                 labels and 1 pair has several edges; write an edge list or .sgb\n",
                out.display()
            )
        );
        assert!(!out.exists(), "nothing written");
    }
    let o = run(&[&["match", "--pattern", "MATCH (a)-[:knows]->(b) RETURN a, b"], &read[..], &[&edges]].concat());
    assert!(stderr(&o).contains("(1 duplicate edges dropped, 1 self loops kept as loop labels)"), "{}", stderr(&o));
}

/// Each malformed input: exit code 1 and exactly one line on stderr naming the file and problem.
#[test]
fn malformed_inputs_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.graph", b"t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\n");
    let cases: Vec<(String, &str)> = vec![
        (
            write(dir.path(), "trunc.graph", b"t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\n"),
            "trunc.graph:5: the header declares 2 edges",
        ),
        (
            write(dir.path(), "range.graph", b"t 2 1\nv 0 0 1\nv 1 0 1\ne 0 5\n"),
            "range.graph:4: target id 5 out of range",
        ),
        (
            write(dir.path(), "count.graph", b"t 3 1\nv 0 0 1\nv 1 0 1\ne 0 1\n"),
            "count.graph:4: the header declares 3 vertices",
        ),
        (
            write(dir.path(), "degree.graph", b"t 2 1\nv 0 0 3\nv 1 0 1\ne 0 1\n"),
            "degree.graph:2: vertex 0 declares degree 3",
        ),
        (
            write(dir.path(), "garbage.graph", &[0x7f, b'E', b'L', b'F', 0, 1, 2, 0xff, 0xfe]),
            "garbage.graph:1: binary data",
        ),
        (write(dir.path(), "empty.graph", b""), "empty.graph:0: empty file"),
        (write(dir.path(), "token.graph", b"t 2 x\n"), "token.graph:1: bad edge count 'x'"),
        (write(dir.path(), "trunc.g", b"t # 0\n2 1 1 1\nv 0 1\n"), "trunc.g:3: truncated file"),
        (write(dir.path(), "empty.txt", b"# nothing\n"), "empty.txt:0: empty edge list"),
        // A count the file cannot hold is refused before it is allocated (was: an abort).
        (
            write(dir.path(), "huge.graph", b"t 4000000000 1\nv 0 0 0\n"),
            "huge.graph:1: the header declares 4000000000 vertices, but a file of 23 bytes",
        ),
        (write(dir.path(), "huge.g", b"t # 0\n4000000000 0 1 1\nv 0 1\n"), "huge.g:2: the header declares"),
        (write(dir.path(), "names.txt", b"0 1\nb c\n"), "names.txt:2: bad source id 'b'; use --string-ids"),
        (
            write(dir.path(), "rows.mtx", b"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n3 1\n"),
            "rows.mtx:3: row 3 out of range 1..=2",
        ),
        (write(dir.path(), "out.zero", b"% sym unweighted\n0 1\n"), "out.zero:2: KONECT ids start at 1"),
    ];
    for (bad, msg) in &cases {
        for args in [vec!["match", "-q", bad.as_str(), good.as_str()], vec!["match", "-q", good.as_str(), bad.as_str()]]
        {
            let o = run(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(msg), "{args:?}: {err}");
        }
    }
    let big = write(dir.path(), "big.graph", b"t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\ne 1 2\n");
    // More query vertices than data vertices: 0 embeddings, with a note (not an error).
    let o = run(&["match", "-q", &good, &big]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("more than the data graph's 2: no embedding exists"), "{}", stderr(&o));
    let gsi = data("gsi/query.g");
    let o = run(&["match", "-q", &good, gsi.to_str().unwrap()]);
    assert!(stderr(&o).contains("the query is directed but the data graph is undirected"), "{}", stderr(&o));
    let o = run(&["match", "-q", "--semantics", "iso", &good, &good]);
    assert!(stderr(&o).contains("unknown semantics 'iso'"));
    let o = run(&["match", "-q", &good, "/nonexistent/q.graph"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/nonexistent/q.graph"));
    assert_eq!(stderr(&o).matches("os error 2").count(), 1, "the cause once: {}", stderr(&o));
}

/// `--device cpu` never touches CUDA; `--device gpu` either runs on the GPU or, where there is
/// none, fails with one line naming what is missing; `auto` always answers.
#[test]
fn device_choice() {
    let d = data("hprd/HPRD.graph");
    let q = data("hprd/queries/query_dense_16_2.graph");
    let (d, q) = (d.to_str().unwrap(), q.to_str().unwrap());
    let o = run(&["match", "-q", "--format", "json", "--device", "cpu", d, q]);
    assert_eq!(json_lines(&o)[0]["device"], "cpu");
    let o = run(&["match", "-q", "--format", "json", "--device", "gpu", d, q]);
    let gpu = o.status.success();
    if gpu {
        let r = &json_lines(&o)[0];
        assert_eq!((r["device"].as_str(), r["embeddings"].as_u64()), (Some("gpu"), Some(80)));
    } else {
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--device gpu: GPU unavailable"), "{err}");
    }
    let o = run(&["match", "-q", "--format", "json", d, q]);
    assert!(o.status.success());
    assert_eq!(json_lines(&o)[0]["embeddings"], 80);
    // Under a limit, auto keeps a query on the CPU (a graph below 2^20 vertices), and says why.
    let o = run(&["match", "-q", "--format", "json", "--limit", "10", d, q]);
    let r = &json_lines(&o)[0];
    assert_eq!((r["device"].as_str(), r["embeddings"].as_u64()), (Some("cpu"), Some(10)));
    if gpu {
        let why = r["device_choice"].as_str().unwrap();
        assert!(why.starts_with("cpu (a limit"), "{why}");
    }
}

/// The CA-GrQc sample's edges as the file writes them (`from to` per data line).
fn grqc_edges() -> std::collections::HashSet<(u64, u64)> {
    let text = std::fs::read_to_string(data("snap/ca-grqc-sample.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut t = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            let (u, v) = (t.next().unwrap(), t.next().unwrap());
            (u.min(v), u.max(v))
        })
        .collect()
}

/// Sparse ids (the SNAP sample: comments, tabs, CRLF) are compacted and come out as the file
/// wrote them; `--keep-ids` and the binary format give the same answer; names and the Matrix
/// Market and KONECT layouts read too.
#[test]
fn real_world_ids_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "big.txt", b"0 1\n4000000000 2\n");
    let r = &json_lines(&run(&["info", "--format", "json", &big]))[0];
    assert_eq!((r["vertices"].as_u64(), r["original_ids"].as_str()), (Some(4), Some("numbers")));

    let snap = data("snap/ca-grqc-sample.txt");
    let labels = data("snap/ca-grqc-sample.labels");
    let (snap, labels) = (snap.to_str().unwrap(), labels.to_str().unwrap());
    let tri = write(dir.path(), "tri.graph", b"t 3 3\nv 0 0 2\nv 1 1 2\nv 2 2 2\ne 0 1 0\ne 1 2 0\ne 0 2 0\n");
    let matches = |args: &[&str]| {
        let out = dir.path().join("out.csv");
        let mut all = vec!["match", "-q", "--format", "json", "--output-format", "csv", "--output"];
        all.push(out.to_str().unwrap());
        all.extend_from_slice(args);
        let o = run(&all);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let count = json_lines(&o)[0]["embeddings"].as_u64().unwrap();
        let rows: Vec<Vec<u64>> = std::fs::read_to_string(out)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').skip(1).map(|x| x.parse().unwrap()).collect())
            .collect();
        (count, rows)
    };
    let (count, rows) = matches(&[snap, &tri, "--vertex-labels", labels]);
    assert_eq!((count, rows.len()), (31, 31));
    let edges = grqc_edges();
    for r in &rows {
        assert_eq!(r.iter().map(|v| v % 3).collect::<Vec<_>>(), vec![0, 1, 2], "labels are id mod 3: {r:?}");
        for (a, b) in [(r[0], r[1]), (r[1], r[2]), (r[0], r[2])] {
            assert!(edges.contains(&(a.min(b), a.max(b))), "{r:?} is not a triangle of the file");
        }
    }
    assert_eq!(matches(&[snap, &tri, "--vertex-labels", labels, "--keep-ids"]).0, 31);
    let gz = data("snap/ca-grqc-sample.txt.gz");
    let (_, mut from_gz) = matches(&[gz.to_str().unwrap(), &tri, "--vertex-labels", labels]);
    let mut sorted = rows.clone();
    sorted.sort();
    from_gz.sort();
    assert_eq!(from_gz, sorted, "the gzip-compressed file reads as the plain one");
    let sgb = dir.path().join("grqc.sgb");
    let o = run(&["convert", snap, sgb.to_str().unwrap(), "--vertex-labels", labels]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, mut again) = matches(&[sgb.to_str().unwrap(), &tri]);
    let mut rows = rows;
    rows.sort();
    again.sort();
    assert_eq!(again, rows, "the binary file keeps the original ids");
    let o = run(&["convert", snap, dir.path().join("grqc.graph").to_str().unwrap()]);
    assert!(stderr(&o).contains("numbers the vertices 0..99 in the order of the input's ids"), "{}", stderr(&o));

    let names = write(dir.path(), "names.txt", b"alice bob\nbob carol\ncarol alice\ncarol dave\n");
    let q = write(dir.path(), "q.graph", b"t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1 0\ne 1 2 0\ne 0 2 0\n");
    let o =
        run(&["match", "-q", "--string-ids", "--output", "-", "--output-format", "jsonl", "--limit", "1", &names, &q]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o).lines().find(|l| l.contains("\"embedding\"")).unwrap().to_string();
    let first: serde_json::Value = serde_json::from_str(&line).unwrap();
    let mut got: Vec<&str> = first["embedding"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    got.sort();
    assert_eq!(got, ["alice", "bob", "carol"]);

    let mtx =
        write(dir.path(), "m.mtx", b"%%MatrixMarket matrix coordinate pattern general\n% c\n9 9 3\n1 5\n5 9\n9 1\n");
    let r = &json_lines(&run(&["info", "--format", "json", &mtx]))[0];
    assert_eq!((r["vertices"].as_u64(), r["edges"].as_u64(), r["directed"].as_bool()), (Some(3), Some(3), Some(true)));
    let konect = write(dir.path(), "out.net", b"% sym unweighted\n% 3 7 7\n1 2 1\n2 7\n7 1\n");
    let r = &json_lines(&run(&["info", "--format", "json", &konect]))[0];
    assert_eq!((r["vertices"].as_u64(), r["edges"].as_u64(), r["directed"].as_bool()), (Some(3), Some(3), Some(false)));
    let o = run(&["match", "-q", "--format", "json", &konect, &q, "--keep-ids"]);
    assert_eq!(json_lines(&o)[0]["embeddings"], 6);
}

/// `--max-memory` refuses a data graph or a candidate space larger than the cap, with one
/// line and exit 1, before the memory is used.
#[test]
fn max_memory_is_checked_before_use() {
    let dir = tempfile::tempdir().unwrap();
    let hprd = data("hprd/HPRD.graph");
    let q = data("hprd/queries/query_dense_16_2.graph");
    let (hprd, q) = (hprd.to_str().unwrap(), q.to_str().unwrap());
    let one_line = |o: &Output, msg: &str| {
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(msg), "{err}");
    };
    one_line(
        &run(&["match", "-q", "--max-memory", "64K", hprd, q]),
        "the file's 508106 bytes exceed --max-memory 65536 bytes",
    );
    one_line(
        &run(&["match", "-q", "--max-memory", "600K", hprd, q]),
        "the graph takes 917168 bytes in memory, more than --max-memory 614400 bytes",
    );
    let k60: String = (0..60).flat_map(|i| (i + 1..60).map(move |j| format!("{i} {j}\n"))).collect();
    let k60 = write(dir.path(), "k60.txt", k60.as_bytes());
    let tri = write(dir.path(), "tri.graph", b"t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n");
    let args = ["match", "-q", "--format", "json", "--device", "cpu", &k60, &tri];
    let o = run(&args);
    assert_eq!(json_lines(&o)[0]["embeddings"], 205_320);
    let o = run(&[&args[..], &["--max-memory", "40K"]].concat());
    one_line(&o, "the candidate space needs up to 43976 bytes but only 40960 bytes are allowed by --max-memory");
    let o = run(&["match", "-q", "--max-memory", "4x", &k60, &tri]);
    assert_eq!(o.status.code(), Some(2), "a bad size is a usage error");
}

/// A mapped `.sgb` (`--mmap on`) answers as the copied one, `info` says how much of it is
/// mapped, and its mapped arrays do not count towards `--max-memory`.
#[test]
fn mapped_binary_graphs() {
    let dir = tempfile::tempdir().unwrap();
    let sgb = dir.path().join("hprd.sgb");
    let o = run(&["convert", data("hprd/HPRD.graph").to_str().unwrap(), sgb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (sgb, q) = (sgb.to_str().unwrap(), data("hprd/queries/query_dense_16_2.graph"));
    let count = |extra: &[&str]| {
        let o = run(&[&["match", "-q", "--format", "json", sgb, q.to_str().unwrap()], extra].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        json_lines(&o)[0]["embeddings"].clone()
    };
    assert_eq!(count(&["--mmap", "on"]), count(&["--mmap", "off"]));
    let mapped =
        |mode: &str| json_lines(&run(&["info", "--format", "json", "--mmap", mode, sgb]))[0]["mapped_bytes"].clone();
    assert!(mapped("on").as_u64().unwrap() > 500_000, "{}", mapped("on"));
    assert_eq!(mapped("off"), 0);
    assert_eq!(mapped("auto"), 0, "a small file is read into memory");
    // The copied graph takes 917168 bytes (above); mapped, only its vertex-sized arrays count.
    assert_eq!(count(&["--mmap", "on", "--max-memory", "600K"]), count(&[]));
    let o = run(&["match", "-q", "--mmap", "off", "--max-memory", "600K", sgb, q.to_str().unwrap()]);
    assert!(stderr(&o).contains("the file's 917288 bytes exceed --max-memory"), "{}", stderr(&o));
    let o = run(&["match", "-q", "--mmap", "sometimes", sgb, q.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "an unknown setting is a usage error");
}

/// Compressed files (by extension or magic bytes) and standard input read like the plain file,
/// for data, queries and vertex labels; a corrupt stream is a one-line error naming the file.
#[test]
fn compressed_and_stdin_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let dp = data("hprd/HPRD.graph");
    let qp = data("hprd/queries/query_dense_16_2.graph");
    let (d, q) = (std::fs::read(&dp).unwrap(), std::fs::read(&qp).unwrap());
    let count = |o: &Output| {
        assert!(o.status.success(), "{}", stderr(o));
        json_lines(o)[0]["embeddings"].as_u64()
    };
    let matched =
        |data: &str, query: &str| count(&run(&["match", "-q", "--device", "cpu", "--format", "json", data, query]));
    let (plain_d, plain_q) = (dp.to_str().unwrap(), qp.to_str().unwrap());
    assert_eq!(matched(plain_d, plain_q), Some(80));
    let files = [
        write(dir.path(), "d.graph.gz", &gz(&d)),
        write(dir.path(), "d.graph.zst", &zst(&d)),
        write(dir.path(), "d.gz", &gz(&d)),
        write(dir.path(), "gzip-named-plain.graph", &gz(&d)),
    ];
    let vertices = |o: &Output| {
        assert!(o.status.success(), "{}", stderr(o));
        json_lines(o)[0]["vertices"].as_u64()
    };
    let plain_vertices = vertices(&run(&["info", "--format", "json", plain_d]));
    for f in &files {
        assert_eq!(vertices(&run(&["info", "--format", "json", f])), plain_vertices, "{f}");
        assert_eq!(matched(f, plain_q), Some(80), "{f}");
    }
    let cq = write(dir.path(), "q.graph.zst", &zst(&q));
    assert_eq!(matched(&files[0], &cq), Some(80));

    // Standard input: plain or compressed, data or query, sniffed or named.
    let piped = |args: &[&str], input: &[u8]| count(&run_stdin(args, input));
    let m = ["match", "-q", "--device", "cpu", "--format", "json"];
    assert_eq!(piped(&[&m[..], &["-", plain_q]].concat(), &d), Some(80));
    assert_eq!(piped(&[&m[..], &["-", plain_q]].concat(), &zst(&d)), Some(80));
    assert_eq!(piped(&[&m[..], &["--input-format", "graph", "-", plain_q]].concat(), &gz(&d)), Some(80));
    let o = run_stdin(&[&m[..], &[plain_d, "-"]].concat(), &gz(&q));
    assert_eq!((count(&o), json_lines(&o)[0]["query"].as_str()), (Some(80), Some("<stdin>")));
    let o = run(&[&m[..], &["-", "-"]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("standard input (-) can be read only once"), "{}", stderr(&o));

    // A binary graph and an edge list with its vertex labels, each compressed.
    let sgb = dir.path().join("d.sgb");
    assert!(run(&["convert", plain_d, sgb.to_str().unwrap()]).status.success());
    let sgb = std::fs::read(&sgb).unwrap();
    assert_eq!(
        vertices(&run(&["info", "--format", "json", &write(dir.path(), "d.sgb.gz", &gz(&sgb))])),
        plain_vertices
    );
    assert_eq!(vertices(&run_stdin(&["info", "--format", "json", "-"], &zst(&sgb))), plain_vertices);
    let edges = write(dir.path(), "e.txt.zst", &zst(b"0 1\n1 2\n"));
    let labels = write(dir.path(), "l.txt.gz", &gz(b"0 5\n1 6\n2 5\n"));
    let o = run(&["info", "--format", "json", "--vertex-labels", &labels, &edges]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json_lines(&o)[0]["vertex_labels"], 2);

    // Corrupt or truncated streams: exit 1 and one line naming the file and the codec.
    let packed = gz(&d);
    let cases = [
        (write(dir.path(), "cut.graph.gz", &packed[..packed.len() / 2]), "cut.graph.gz: gzip: "),
        (write(dir.path(), "bad.graph.gz", b"\x1f\x8b not really gzip"), "bad.graph.gz: gzip: "),
        (write(dir.path(), "cut.graph.zst", &zst(&d)[..100]), "cut.graph.zst: zstd: "),
    ];
    for (bad, msg) in &cases {
        for args in [vec!["match", "-q", bad.as_str(), plain_q], vec!["match", "-q", plain_d, bad.as_str()]] {
            let o = run(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(msg), "{args:?}: {err}");
        }
    }
    let o = run_stdin(&["info", "-"], &packed[..packed.len() / 2]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("<stdin>: gzip: "), "{}", stderr(&o));
}

/// `--output - | head`: the reader closes the pipe after one line; the process ends by SIGPIPE
/// (as other Unix tools do), not by a panic (status 101 and a backtrace on stderr).
#[cfg(unix)]
#[test]
fn closed_stdout_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let path: String = (0..20_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let data = write(dir.path(), "path.txt", path.as_bytes());
    let edge = write(dir.path(), "edge.txt", b"0 1\n");
    for args in [vec!["match", "-q", "--output", "-", &data, &edge], vec!["info", &data]] {
        let mut child = bin().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.status.success() || out.status.signal() == Some(libc::SIGPIPE), "{args:?}: {:?}", out.status);
    }
}

/// An allocation the system refuses (here under `ulimit -v`, where the pre-checks, which read
/// the available memory, see plenty) ends with one line and status 1, not SIGABRT.
#[cfg(unix)]
#[test]
fn a_refused_allocation_is_one_line_and_status_1() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("big.sgb");
    let subgraph = env!("CARGO_BIN_EXE_subgraph");
    let script = format!(
        "ulimit -v 400000; exec '{subgraph}' gen graph --model rmat --vertices 16777216 --edges 268435456 --output '{}'",
        out_file.display()
    );
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("subgraph: error: out of memory: the system refused an allocation of"), "{err}");
}

#[test]
fn explain_shows_each_expansion_of_a_pattern() {
    let hprd = data("hprd/HPRD.graph");
    let hprd = hprd.to_str().unwrap();
    let query = data("hprd/queries/query_dense_16_2.graph");
    let query = query.to_str().unwrap();
    let p = "MATCH (a:1)--(b)--(c:1)--(a) RETURN DISTINCT b";
    let matched = json_lines(&run(&["match", "-q", "--format", "json", hprd, "--pattern", p]));
    let o = run(&["explain", "--format", "json", hprd, query, "--pattern", p]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = json_lines(&o);
    // The query file first, as before; then one explanation per label of b next to label 1.
    assert_eq!(lines[0]["query"], query);
    assert_eq!(lines[0]["chosen"]["embeddings"], 80);
    assert!(lines[0].get("pattern").is_none());
    let n = lines.len() - 1;
    assert!(n > 1, "b expands over several labels");
    for (i, e) in lines[1..].iter().enumerate() {
        assert_eq!(e["query"], format!("pattern (expansion {} of {n})", i + 1));
        assert_eq!((&e["pattern"], &e["semantics"]), (&serde_json::json!(p), &serde_json::json!("homomorphism")));
    }
    let sum: u64 = lines[1..].iter().map(|e| e["chosen"]["embeddings"].as_u64().unwrap()).sum();
    assert_eq!(sum, matched[0]["embeddings"].as_u64().unwrap(), "the expansions add up to the pattern");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("triangles.cypher");
    std::fs::write(&file, p).unwrap();
    let file = file.to_str().unwrap();
    let t = run(&["explain", "--semantics", "embed", hprd, file]);
    let out = stdout(&t);
    assert!(out.starts_with(&format!("pattern {file}: {n} expansion queries\nquery {file} (expansion 1 of {n})")));
    assert_eq!(out.matches("\nquery ").count(), n);
    assert!(out.contains("semantics embed"));

    // The triangle is no tree; a path counted under homomorphism is, and explain says that
    // match counts it by the tree passes.
    let tree_note = "match counts this tree pattern by GGQ's tree passes";
    assert!(!String::from_utf8_lossy(&o.stderr).contains(tree_note));
    let path = run(&["explain", hprd, "--pattern", "MATCH (a:1)--(b)--(c:2) RETURN count(*)"]);
    assert!(String::from_utf8_lossy(&path.stderr).contains(tree_note));

    let bad = run(&["explain", hprd, "--pattern", "MATCH (a:1 -->(b)"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.starts_with("subgraph: error: pattern, line 1, column 12: expected"), "{err}");
}

#[test]
fn gpu_memory_takes_a_size_or_auto() {
    let hprd = data("hprd/HPRD.graph");
    let hprd = hprd.to_str().unwrap();
    let query = data("hprd/queries/query_dense_16_2.graph");
    let query = query.to_str().unwrap();
    for ok in ["auto", "512M", "1.5G"] {
        let o = run(&["match", "-q", "--device", "cpu", "--gpu-memory", ok, hprd, query]);
        assert!(o.status.success(), "{ok}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let bad = run(&["match", "-q", "--device", "cpu", "--gpu-memory", "12Q", hprd, query]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown unit 'q'"));
}

#[test]
fn gpus_takes_a_positive_count_or_all() {
    let hprd = data("hprd/HPRD.graph");
    let hprd = hprd.to_str().unwrap();
    let query = data("hprd/queries/query_dense_16_2.graph");
    let query = query.to_str().unwrap();
    for ok in ["1", "2", "all"] {
        let o = run(&["match", "-q", "--device", "cpu", "--gpus", ok, hprd, query]);
        assert!(o.status.success(), "{ok}: {}", String::from_utf8_lossy(&o.stderr));
    }
    for bad in ["0", "1.5", "two"] {
        let o = run(&["match", "-q", "--device", "cpu", "--gpus", bad, hprd, query]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("expected a positive number of GPUs or `all`"));
    }
}

/// `--vertex-order`: renumbering the data graph by degree changes no count and no written row
/// (in the file's ids, as text and as binary of either width); `auto` renumbers for queries
/// with automorphisms only, and neither renumbers a mapped graph or one without room for the
/// copy under `--max-memory`, where `degree` is a one-line error.
#[test]
fn vertex_order_changes_no_answer() {
    use subgraph_core::sink::{read_binary, BinarySection};
    let dir = tempfile::tempdir().unwrap();
    let grqc = data("snap/ca-grqc-sample.txt");
    let hprd = data("hprd/HPRD.graph");
    let tri = write(dir.path(), "tri.graph", b"t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n");
    let tri7 = write(dir.path(), "tri7.graph", b"t 3 3\nv 0 7 2\nv 1 7 2\nv 2 7 2\ne 0 1\ne 1 2\ne 0 2\n");
    let path = write(dir.path(), "path.graph", b"t 4 3\nv 0 0 1\nv 1 0 2\nv 2 0 2\nv 3 0 1\ne 0 1\ne 1 2\ne 2 3\n");
    let asym = write(dir.path(), "asym.graph", b"t 3 2\nv 0 1 1\nv 1 2 2\nv 2 3 1\ne 0 1\ne 1 2\n");
    let rows = |g: &Path, q: &str, order: &str, fmt: &str| -> (Vec<Vec<u64>>, Option<usize>) {
        let out = dir.path().join(format!("rows-{order}.{fmt}"));
        let args = ["match", "-q", "--vertex-order", order, "--output", out.to_str().unwrap(), "--output-format", fmt];
        let o = run(&[&args[..], &[g.to_str().unwrap(), q]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        let (mut all, width) = match fmt {
            "binary" => {
                let sections = read_binary(&bytes).unwrap();
                let BinarySection::Query { id_bytes, .. } = sections[0] else { panic!("{sections:?}") };
                let rows = sections[1..].iter().flat_map(|s| match s {
                    BinarySection::Rows(r) => r.clone(),
                    other => panic!("{other:?}"),
                });
                (rows.collect::<Vec<Vec<u64>>>(), Some(id_bytes as usize))
            }
            _ => {
                let text = String::from_utf8(bytes).unwrap();
                let lines = text.lines().filter(|l| !l.starts_with('#'));
                (lines.map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect()).collect(), None)
            }
        };
        all.sort();
        (all, width)
    };
    for (g, q, width) in [(&grqc, &tri, 8), (&grqc, &path, 8), (&hprd, &path, 4)] {
        for fmt in ["text", "binary"] {
            let (file, w) = rows(g, q, "file", fmt);
            assert!(file.len() > 10, "{q}: {} rows", file.len());
            assert_eq!(rows(g, q, "degree", fmt), (file, w), "{q} {fmt}");
            assert!(fmt == "text" || w == Some(width), "{q}: ids of {w:?} bytes");
        }
    }
    let report = |args: &[&str]| {
        let o = run(&[&["match", "-q", "--format", "json"], args].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        json_lines(&o)
            .iter()
            .map(|r| (r["embeddings"].as_u64().unwrap(), r["vertex_order"].clone()))
            .collect::<Vec<_>>()
    };
    let g = hprd.to_str().unwrap();
    let file = report(&["--vertex-order", "file", g, &tri7, &asym]);
    assert_eq!(file[0].1, "file");
    assert!(file[0].0 > 0 && file[1].0 > 0, "{file:?}");
    let r = report(&["--vertex-order", "degree", g, &tri7, &asym]);
    assert_eq!((r[0].0, r[1].0, &r[0].1), (file[0].0, file[1].0, &serde_json::json!("degree")));
    assert_eq!(report(&[g, &tri7])[0].1, "file", "labelled data: auto keeps the file's numbering");
    let unlabelled = grqc.to_str().unwrap();
    let r = report(&[unlabelled, &tri, &path]);
    assert_eq!((&r[0].1, &r[1].1), (&serde_json::json!("degree"), &serde_json::json!("degree")));
    assert_eq!(
        r,
        report(&["--vertex-order", "file", unlabelled, &tri, &path])
            .iter()
            .map(|(n, _)| (*n, r[0].1.clone()))
            .collect::<Vec<_>>()
    );
    // Edges of two labels: no automorphism but the identity, so nothing to gain.
    let asym_unlabelled = write(dir.path(), "asym0.graph", b"t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1 0\ne 1 2 1\n");
    assert_eq!(report(&[unlabelled, &asym_unlabelled])[0].1, "file");
    let lone = write(dir.path(), "edge-path.graph", b"t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\ne 1 2\n");
    assert_eq!(report(&["--semantics", "homomorphism", unlabelled, &lone])[0].1, "file", "no symmetry breaking");
    // A mapped graph, and a cap without room for the copy (HPRD takes 917,168 bytes).
    let sgb = dir.path().join("hprd.sgb");
    assert!(run(&["convert", g, sgb.to_str().unwrap()]).status.success());
    let sgb = sgb.to_str().unwrap();
    for flags in [&["--mmap", "on"][..], &["--max-memory", "1500K"]] {
        assert_eq!(report(&[flags, &[sgb, &tri7]].concat())[0], (file[0].0, serde_json::json!("file")), "{flags:?}");
        let o = run(&[&["match", "-q", "--vertex-order", "degree"], flags, &[sgb, &tri7]].concat());
        assert_eq!(o.status.code(), Some(1), "{flags:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("--vertex-order degree: "), "{}", stderr(&o));
    }
}
