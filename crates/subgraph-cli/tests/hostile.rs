//! Hostile inputs: decompression bombs and endless standard input. Each is refused with one
//! line naming the file (and the line, where there is one) and exit status 1, or read at a
//! cost in proportion to its bytes. Bombs are made here, at sizes CI affords, under a cap
//! scaled down to match.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

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
