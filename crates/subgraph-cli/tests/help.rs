//! `subgraph --help` and every subcommand's `--help` end with two or three examples, and each
//! example runs as written: from a scratch folder that sees the repository's shipped data as
//! `tests/data/` (so that what the examples write stays out of the repository), in the order
//! the help gives them, each exiting 0.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_subgraph")).args(args).arg("--help").output().unwrap();
    assert!(o.status.success(), "subgraph {} --help: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The examples a help text ends with: the lines after its last line that starts with
/// `Examples`, each an indented `subgraph …` command; None when the help does not end so.
fn examples(text: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let header = lines.iter().rposition(|l| l.starts_with("Examples"))?;
    let tail = &lines[header + 1..];
    tail.iter().all(|l| l.starts_with("  subgraph ")).then(|| tail.iter().map(|l| l.trim().to_string()).collect())
}

/// The subcommands `subgraph --help` lists (`help` aside).
fn subcommands(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .map(str::to_string)
        .collect()
}

/// Whether an example names a placeholder rather than a file (a word of capitals, `a|b`,
/// `[--opt]`, `...`) outside quotes.
fn has_placeholder(cmd: &str) -> bool {
    let mut quoted = None;
    let mut outside = String::new();
    for c in cmd.chars() {
        match (quoted, c) {
            (None, '\'' | '"') => quoted = Some(c),
            (Some(q), c) if c == q => quoted = None,
            (None, c) => outside.push(c),
            _ => {}
        }
    }
    outside.split_whitespace().any(|w| {
        let head = w.split(['.', '#']).next().unwrap_or("");
        (head.len() >= 2 && head.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            || w.contains('|')
            || w.starts_with('[')
            || w.ends_with("...")
    })
}

#[test]
fn every_help_ends_with_examples_that_run() {
    let top = help(&[]);
    let subs = subcommands(&top);
    assert_eq!(
        subs,
        ["match", "explain", "info", "gen", "convert", "bench", "ann", "mf", "partition", "serve"],
        "{top}"
    );
    let scratch = tempfile::tempdir().unwrap();
    std::fs::create_dir(scratch.path().join("tests")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("tests/data"), scratch.path().join("tests/data")).unwrap();
    let bin = env!("CARGO_BIN_EXE_subgraph");
    let mut ran = 0;
    for sub in std::iter::once(None).chain(subs.iter().map(Some)) {
        let args: Vec<&str> = sub.map(String::as_str).into_iter().collect();
        let text = help(&args);
        let name = format!("subgraph {}--help", sub.map_or(String::new(), |s| format!("{s} ")));
        let found = examples(&text).unwrap_or_else(|| panic!("{name} does not end with examples:\n{text}"));
        assert!((2..=3).contains(&found.len()), "{name}: {} examples, not two or three: {found:?}", found.len());
        for cmd in found {
            if let Some(s) = sub {
                assert!(cmd.starts_with(&format!("subgraph {s} ")), "{name}: `{cmd}` is not a {s} command");
            }
            assert!(!has_placeholder(&cmd), "{name}: `{cmd}` has a placeholder, not a real command");
            for word in cmd.split_whitespace().filter(|w| w.starts_with("tests/data/")) {
                assert!(root().join(word).exists(), "{name}: `{cmd}` names {word}, which is not shipped");
            }
            if cfg!(not(unix)) {
                continue;
            }
            let line = cmd.replacen("subgraph ", &format!("{bin} "), 1);
            let o = Command::new("bash").arg("-c").arg(&line).current_dir(scratch.path()).output().unwrap();
            assert!(o.status.success(), "{name}: `{cmd}` failed: {}", String::from_utf8_lossy(&o.stderr));
            ran += 1;
        }
    }
    if cfg!(unix) {
        assert!(ran >= 14, "ran {ran} examples");
    }
}

#[test]
fn the_help_reader_finds_examples_and_placeholders() {
    let text = "Usage: subgraph info [OPTIONS] <FILE>\n\nOptions:\n  -h, --help  Print help\n\n\
                Examples (from the repository root):\n  subgraph info tests/data/hprd/HPRD.graph\n  \
                subgraph info --format json tests/data/snap/ca-grqc-sample.txt.gz\n\n";
    assert_eq!(
        examples(text).unwrap(),
        [
            "subgraph info tests/data/hprd/HPRD.graph",
            "subgraph info --format json tests/data/snap/ca-grqc-sample.txt.gz"
        ]
    );
    // Examples followed by anything else, or none at all, are not an ending.
    assert_eq!(examples("Options:\n  -h, --help\n"), None);
    assert_eq!(examples("Examples:\n  subgraph info x.graph\nMore text\n"), None);
    assert!(has_placeholder("subgraph info FILE"));
    assert!(has_placeholder("subgraph match DATA QUERY..."));
    assert!(has_placeholder("subgraph info --format table|json x.graph"));
    assert!(!has_placeholder("subgraph match x.graph --pattern 'MATCH (a:Person)--(b) RETURN DISTINCT a'"));
    assert_eq!(subcommands("Commands:\n  match  Find\n  help   Print\n\nOptions:\n"), ["match"]);
}
