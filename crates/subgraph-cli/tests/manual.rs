//! The manual cannot drift from the program: every `subgraph` command of README.md and of the
//! book (docs/**/*.md) that runs on shipped data (code blocks and inline code alike, lines
//! continued with `\` joined) is run as written, from the repository root, and must succeed.
//! A command runs on shipped data when it names a file under tests/data/ and no placeholder
//! (DATA, QUERY..., FILE.nt: a word of capitals) or choice (`a|b`, `[--opt]`) outside quotes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The markdown files of the manual: README.md and every .md under docs/.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut dirs = vec![root().join("docs")];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The command texts of a page: lines of code blocks (continuations joined) and inline code
/// spans (which may run over line breaks) that start with `subgraph ` or the README's
/// `cargo run --release --bin subgraph -- `.
fn commands(text: &str) -> Vec<String> {
    let starts = |s: &str| s.starts_with("subgraph ") || s.starts_with("cargo run --release --bin subgraph -- ");
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    let mut prose = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            let l = line.trim();
            if !pending.is_empty() || starts(l) {
                match l.strip_suffix('\\') {
                    Some(head) => pending.push_str(head),
                    None => {
                        pending.push_str(l);
                        out.push(std::mem::take(&mut pending));
                    }
                }
            }
        } else {
            prose.push_str(line);
            prose.push(' ');
        }
    }
    for (i, span) in prose.split('`').enumerate() {
        let span = span.split_whitespace().collect::<Vec<_>>().join(" ");
        if i % 2 == 1 && starts(&span) {
            out.push(span);
        }
    }
    out
}

/// The words of a command as a shell splits them (single and double quotes), each with
/// whether it was quoted.
fn words(cmd: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let (mut word, mut quoted, mut quote) = (String::new(), false, None);
    for c in cmd.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, quoted) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() || quoted {
                    out.push((std::mem::take(&mut word), quoted));
                }
                quoted = false;
            }
            (_, c) => word.push(c),
        }
    }
    if !word.is_empty() || quoted {
        out.push((word, quoted));
    }
    out
}

/// Whether the command runs on shipped data as written (see the module's comment).
fn runnable(cmd: &str) -> bool {
    let w = words(cmd);
    let placeholder = |s: &str| {
        let head = s.split(['.', '#']).next().unwrap_or("");
        head.len() >= 2 && head.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            || s.len() == 1 && s.chars().all(|c| c.is_ascii_uppercase())
    };
    let unquoted = |f: &dyn Fn(&str) -> bool| w.iter().any(|(s, q)| !q && f(s));
    let shipped = w.iter().any(|(s, q)| !q && s.starts_with("tests/data/"));
    shipped
        && !unquoted(&|s| placeholder(s) || s.contains('|') || s.starts_with('[') || s.ends_with("..."))
        && w.iter().filter(|(s, q)| !q && s.starts_with("tests/data/")).all(|(s, _)| root().join(s).exists())
}

#[test]
fn every_command_of_the_manual_on_shipped_data_runs() {
    let bin = env!("CARGO_BIN_EXE_subgraph");
    let mut ran = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for cmd in commands(&text).into_iter().filter(|c| runnable(c)) {
            let line = cmd
                .strip_prefix("cargo run --release --bin subgraph -- ")
                .map_or_else(|| cmd.replacen("subgraph ", &format!("{bin} "), 1), |rest| format!("{bin} {rest}"));
            let o = Command::new("bash").arg("-c").arg(&line).current_dir(root()).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{}: `{cmd}` failed: {err}", page.display());
            assert!(!o.stdout.is_empty(), "{}: `{cmd}` printed nothing", page.display());
            ran.push((page.clone(), cmd, String::from_utf8_lossy(&o.stdout).into_owned()));
        }
    }
    // The front door's first command: the HPRD query of 80 embeddings it promises.
    let first = ran.iter().find(|(p, c, _)| p.ends_with("README.md") && c.starts_with("cargo run"));
    let (_, _, out) = first.expect("the README starts with a command on shipped data");
    assert!(out.contains(" 80 "), "{out}");
    assert!(ran.len() >= 4, "{ran:?}");
}

#[test]
fn the_manual_reader_finds_commands_and_tells_placeholders() {
    let page = "Run\n\n```\nsubgraph match tests/data/hprd/HPRD.graph \\\n    --pattern 'MATCH (a:1)-->(b)'\nsubgraph info FILE [--format table|json]\n```\n\nor `subgraph info\ntests/data/hprd/HPRD.graph` inline.\n";
    let found = commands(page);
    assert_eq!(
        found,
        [
            "subgraph match tests/data/hprd/HPRD.graph --pattern 'MATCH (a:1)-->(b)'",
            "subgraph info FILE [--format table|json]",
            "subgraph info tests/data/hprd/HPRD.graph"
        ]
    );
    assert!(runnable(&found[0]) && !runnable(&found[1]) && runnable(&found[2]));
    assert!(!runnable("subgraph match tests/data/hprd/HPRD.graph QUERY..."));
    assert!(!runnable("subgraph gen rdf --universities U --output FILE.nt"));
    assert!(!runnable("subgraph match tests/data/missing.graph tests/data/hprd/HPRD.graph"));
    assert_eq!(
        words("a 'b c' \"d\"e ''"),
        [("a".into(), false), ("b c".into(), true), ("de".into(), true), ("".into(), true)]
    );
}
