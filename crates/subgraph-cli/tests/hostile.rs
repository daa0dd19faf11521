//! Hostile inputs: decompression bombs, huge tokens, ids at the top of u64, invalid UTF-8 in
//! names, malformed and very wide property files. Each is refused with one line naming the
//! file (and the line, where there is one) and exit status 1, or read at a cost in proportion
//! to its bytes. Bombs are made here, at sizes CI affords, under a cap scaled down to match.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_subgraph"))
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
    // The child stops reading at the cap and exits, closing the pipe: the write may fail.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    out
}

/// Runs the binary, killing it (and failing) if it has not finished within `limit`.
fn run_within(args: &[&str], limit: Duration) -> Output {
    let child = bin().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id().to_string();
    // Its output is collected as it comes (a full pipe would stop it), on a thread of its own.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
    rx.recv_timeout(limit).unwrap_or_else(|_| {
        let _ = Command::new("kill").args(["-9", &pid]).status();
        panic!("{args:?} still running after {limit:?}")
    })
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zst(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn write(dir: &Path, name: &str, content: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.to_str().unwrap().to_string()
}

/// Exit status 1 and exactly `msg` (after `subgraph: error: `) as the one line on stderr.
fn fails_with(o: &Output, msg: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.trim_end().strip_prefix("subgraph: error: "), Some(msg), "{err}");
}

fn info_json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn hprd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hprd/HPRD.graph")
}

/// Compressed inputs and standard input are read up to `--max-memory` bytes, not decompressed
/// whole first: data and query files, `--vertex-labels` and `--vertex-props` files alike.
#[test]
fn decompression_bombs_and_long_streams_stop_at_max_memory() {
    let dir = tempfile::tempdir().unwrap();
    // 32 MiB of one edge, repeated: tens of kilobytes compressed, a 1 MiB cap (an 8 GiB bomb
    // under 1G, scaled down).
    let edges = b"0 1\n".repeat(8 << 20);
    let q = write(dir.path(), "q.txt", b"0 1\n");
    for (ext, packed) in [("gz", gz(&edges)), ("zst", zst(&edges))] {
        assert!(packed.len() < 256 << 10);
        let bomb = write(dir.path(), &format!("bomb.txt.{ext}"), &packed);
        let want = format!("{bomb}: decompresses to more than --max-memory 1.0 MiB");
        fails_with(&run(&["info", "--max-memory", "1M", &bomb]), &want);
        fails_with(&run(&["match", "-q", "--max-memory", "1M", &q, &bomb]), &want);
        fails_with(&run(&["info", "--max-memory", "1M", &q, "--vertex-labels", &bomb]), &want);
        // Without the cap it is read as before.
        assert_eq!(info_json(&run(&["info", "--format", "json", &bomb]))["edges"], 1);
        // A property file that decompresses to one row with a 32 MiB value.
        let csv = [&b"id,x\n0,"[..], &b"a".repeat(32 << 20), b"\n"].concat();
        let packed = if ext == "gz" { gz(&csv) } else { zst(&csv) };
        let props = write(dir.path(), &format!("p.csv.{ext}"), &packed);
        fails_with(
            &run(&["info", "--max-memory", "1M", &q, "--vertex-props", &props]),
            &format!("{props}: decompresses to more than --max-memory 1.0 MiB"),
        );
    }
    // Standard input, plain or compressed.
    fails_with(
        &run_stdin(&["info", "--max-memory", "1M", "-"], &edges),
        "<stdin>: holds more than --max-memory 1.0 MiB",
    );
    fails_with(
        &run_stdin(&["info", "--max-memory", "1M", "-"], &gz(&edges)),
        "<stdin>: decompresses to more than --max-memory 1.0 MiB",
    );
    assert_eq!(info_json(&run_stdin(&["info", "--format", "json", "--max-memory", "64M", "-"], &edges))["edges"], 1);
}

/// A label or `--string-ids` id longer than 64 KiB is an error naming the file, line and
/// limit; names held count in the graph's memory.
#[test]
fn huge_name_tokens_are_refused_and_names_count_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let big = "w".repeat(1 << 20);
    let head = &big[..40];
    let el = write(dir.path(), "big.txt", format!("0 1\n1 2 {big}\n").as_bytes());
    let o = run(&["info", &el]);
    fails_with(
        &o,
        &format!("{el}:2: edge label '{head}...' of 1048576 bytes is longer than the 65536 bytes a name may have"),
    );
    let el = write(dir.path(), "ids.txt", format!("a {big}\n").as_bytes());
    fails_with(
        &run(&["info", "--string-ids", &el]),
        &format!("{el}:1: target id '{head}...' of 1048576 bytes is longer than the 65536 bytes a name may have"),
    );
    let labels = write(dir.path(), "l.txt", format!("# c\n1 {big}\n").as_bytes());
    let plain = write(dir.path(), "e.txt", b"0 1\n");
    fails_with(
        &run(&["info", &plain, "--vertex-labels", &labels]),
        &format!(
            "{labels}:2: vertex label '{head}...' of 1048576 bytes is longer than the 65536 bytes a name may have"
        ),
    );
    // Names up to the limit are read, and the memory report counts them (it said 0.0 MiB).
    let long = &big[..60_000];
    let el = write(dir.path(), "long.txt", format!("0 1 {long}\n").as_bytes());
    let r = info_json(&run(&["info", "--format", "json", &el]));
    assert!(r["memory_bytes"].as_u64().unwrap() > 60_000, "{r}");
    let ids = write(dir.path(), "ids.txt", format!("a{long} b{long}\n").as_bytes());
    let r = info_json(&run(&["info", "--format", "json", "--string-ids", &ids]));
    assert!(r["memory_bytes"].as_u64().unwrap() > 120_000, "{r}");
}

/// Ids at 2^64 − 1: a bipartite KONECT network's right ids and a rectangular Matrix Market
/// file's columns are numbered after the left ones; beyond u64 is an error, not a wrapped id
/// that lost an edge as a self loop.
#[test]
fn ids_beyond_u64_are_errors_not_lost_edges() {
    let dir = tempfile::tempdir().unwrap();
    let max = u64::MAX;
    let konect = write(dir.path(), "out.bip", format!("% bip\n% 2 {max} 2\n{max} 1\n1 1\n").as_bytes());
    fails_with(
        &run(&["info", &konect]),
        &format!(
            "{konect}:3: right id 1 after the {max} left vertices of the size line is beyond the largest id {max}"
        ),
    );
    let mtx = write(
        dir.path(),
        "m.mtx",
        format!("%%MatrixMarket matrix coordinate pattern general\n{max} 1 2\n1 1\n{max} 1\n").as_bytes(),
    );
    fails_with(
        &run(&["info", &mtx]),
        &format!(
            "{mtx}:2: {max} rows and 1 columns: the columns, numbered after the rows, go beyond the largest id {max}"
        ),
    );
    // Under --keep-ids a right id far after the left ones is bounded like any id (this made
    // 4·10^9 vertices, 16 GB).
    let keep = write(dir.path(), "out.keep", b"% bip\n% 1 4000000000 1\n1 1\n");
    let o = run(&["info", "--keep-ids", &keep]);
    assert!(stderr(&o).contains(&format!("{keep}:3: right id 1 after the 4000000000 left vertices with --keep-ids")));
    // The largest ids that fit are read, every edge kept.
    let square = write(
        dir.path(),
        "s.mtx",
        format!("%%MatrixMarket matrix coordinate pattern general\n{max} {max} 2\n{max} 1\n1 {max}\n").as_bytes(),
    );
    assert_eq!(info_json(&run(&["info", "--format", "json", &square]))["edges"], 2);
}

/// Bytes that are not UTF-8 in a label name are an error, as in a `--string-ids` id (they were
/// replaced by U+FFFD).
#[test]
fn invalid_utf8_in_a_label_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let el = write(dir.path(), "e.txt", b"a b kn\xffows\n");
    fails_with(&run(&["info", "--string-ids", &el]), &format!("{el}:1: edge label 'kn\\u{{fffd}}ows' is not UTF-8"));
    let el = write(dir.path(), "n.txt", b"0 1\n1 2 kn\xffows\n");
    fails_with(&run(&["info", &el]), &format!("{el}:2: edge label 'kn\\u{{fffd}}ows' is not UTF-8"));
    let labels = write(dir.path(), "l.txt", b"0 Pers\xffon\n");
    let plain = write(dir.path(), "p.txt", b"0 1\n");
    fails_with(
        &run(&["info", &plain, "--vertex-labels", &labels]),
        &format!("{labels}:1: vertex label 'Pers\\u{{fffd}}on' is not UTF-8"),
    );
}

/// A `--vertex-props` file whose quote is never closed is malformed (it swallowed the next
/// rows into one value).
#[test]
fn an_unterminated_quote_in_vertex_props_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "g.txt", b"0 1\n");
    let csv = write(dir.path(), "p.csv", b"id,name\n0,\"abc\n1,y\n");
    fails_with(
        &run(&["info", &g, "--vertex-props", &csv]),
        &format!("{csv}:2: a quoted field opened on this line is never closed"),
    );
}

/// A property file of 200,000 columns and two rows over HPRD's 9,460 vertices is read in
/// proportion to its bytes (it held an entry per column and vertex: tens of GB, and the header
/// check was quadratic).
#[test]
fn very_wide_property_files_cost_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let c = 200_000;
    let header: Vec<String> = (0..c).map(|i| format!("c{i}")).collect();
    let csv = format!("id,{}\n0,{}\n1,{}\n", header.join(","), vec!["1"; c].join(","), vec!["x"; c].join(","));
    let csv = write(dir.path(), "wide.csv", csv.as_bytes());
    let hprd = hprd();
    let o = run_within(
        &["info", "--format", "json", hprd.to_str().unwrap(), "--vertex-props", &csv],
        Duration::from_secs(60),
    );
    let r = info_json(&o);
    assert_eq!(r["vertex_properties"].as_array().unwrap().len(), c);
    assert_eq!(r["vertex_properties"][0], serde_json::json!(["c0", "string"]));
    // The columns' memory is counted and is that of the values held (a few hundred bytes per
    // column), not of an entry per vertex.
    let bytes = r["memory_bytes"].as_u64().unwrap();
    assert!((c as u64 * 20..c as u64 * 400).contains(&bytes), "{bytes}");
}
