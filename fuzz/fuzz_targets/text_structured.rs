//! Structure-aware text fuzzing: a small arbitrary graph rendered by the library's writers as
//! `.graph` (undirected), `.g` (directed) or an edge list with its label file, then a few
//! token- and line-level edits (insert, delete or replace a token; duplicate, delete or swap
//! lines), then parsed and built. Unedited renders must read back as the graph written;
//! edited ones must be an error or a graph meeting every invariant.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_core::io::{edgelist, gsi, parse_graphs, sunluo, Format, IdMode, ReadOptions};
use subgraph_core::VertexIds;
use subgraph_core::{Graph, GraphBuilder};
use subgraph_fuzz::SmallGraph;

#[derive(Debug, Clone, Copy, Arbitrary)]
enum Fmt {
    SunLuo,
    Gsi,
    EdgeList { directed: bool },
}

/// Tokens the formats use, and numbers at the edges of the ranges the readers check.
const WORDS: &[&str] = &[
    "t",
    "v",
    "e",
    "#",
    "-1",
    "0",
    "1",
    "-0",
    "+1",
    "00",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "%",
    "x",
    "t#",
];

#[derive(Debug, Arbitrary)]
enum Token {
    Small(u8),
    Number(u64),
    Word(u8),
    Bytes(Vec<u8>),
}

impl Token {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Token::Small(x) => x.to_string().into_bytes(),
            Token::Number(x) => x.to_string().into_bytes(),
            Token::Word(i) => WORDS[*i as usize % WORDS.len()].as_bytes().to_vec(),
            Token::Bytes(b) => b.iter().take(16).copied().collect(),
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Op {
    Insert {
        line: u16,
        at: u8,
        token: Token,
    },
    Delete {
        line: u16,
        at: u8,
    },
    Replace {
        line: u16,
        at: u8,
        token: Token,
    },
    DuplicateLine {
        line: u16,
    },
    DeleteLine {
        line: u16,
    },
    SwapLines {
        a: u16,
        b: u16,
    },
    /// A whole new line of tokens.
    InsertLine {
        line: u16,
        tokens: Vec<Token>,
    },
}

#[derive(Debug, Arbitrary)]
struct Edit {
    /// Edge lists: edit the label file instead of the edges.
    labels: bool,
    op: Op,
}

#[derive(Debug, Arbitrary)]
struct Input {
    graph: SmallGraph,
    format: Fmt,
    edits: Vec<Edit>,
}

type Text = Vec<Vec<Vec<u8>>>;

fn tokenize(data: &[u8]) -> Text {
    let mut lines: Text = data
        .split(|&c| c == b'\n')
        .map(|l| l.split(|c| c.is_ascii_whitespace()).filter(|t| !t.is_empty()).map(<[u8]>::to_vec).collect())
        .collect();
    if data.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

fn render(text: &Text) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text {
        out.extend_from_slice(&line.join(&b' '));
        out.push(b'\n');
    }
    out
}

fn apply(text: &mut Text, op: &Op) {
    let lines = text.len();
    let line = |i: u16, extra: usize| i as usize % (lines + extra);
    match op {
        Op::Insert { line: i, at, token } if !text.is_empty() => {
            let l = &mut text[line(*i, 0)];
            let at = *at as usize % (l.len() + 1);
            l.insert(at, token.bytes());
        }
        Op::Delete { line: i, at } if !text.is_empty() => {
            let l = &mut text[line(*i, 0)];
            if !l.is_empty() {
                let at = *at as usize % l.len();
                l.remove(at);
            }
        }
        Op::Replace { line: i, at, token } if !text.is_empty() => {
            let l = &mut text[line(*i, 0)];
            if !l.is_empty() {
                let at = *at as usize % l.len();
                l[at] = token.bytes();
            }
        }
        Op::DuplicateLine { line: i } if !text.is_empty() => {
            let i = line(*i, 0);
            let copy = text[i].clone();
            text.insert(i, copy);
        }
        Op::DeleteLine { line: i } if !text.is_empty() => {
            let i = line(*i, 0);
            text.remove(i);
        }
        Op::SwapLines { a, b } if !text.is_empty() => {
            let (a, b) = (line(*a, 0), line(*b, 0));
            text.swap(a, b);
        }
        Op::InsertLine { line: i, tokens } => {
            let i = line(*i, 1);
            text.insert(i, tokens.iter().take(6).map(Token::bytes).collect());
        }
        _ => {}
    }
}

/// `g` without its original ids, which `.graph` and `.g` files cannot hold, and without its
/// label sets, which they refuse (each set label taken as a plain label); its self loops kept.
fn without_ids(g: &Graph) -> Graph {
    let mut b = GraphBuilder::new(g.num_vertices(), g.is_directed());
    b.set_labels(g.labels().to_vec());
    for (u, v, l) in g.edges() {
        b.add_edge(u, v, l);
    }
    for &(v, l) in g.loops() {
        b.add_edge(v, v, l);
    }
    b.build().0
}

/// Parses and builds; Err when the reader or the builder rejects the text.
/// Edge lists are read with compacted ids, or as names where `names`.
fn read(format: Fmt, names: bool, text: &[u8], labels: &[u8]) -> Result<Vec<Graph>, subgraph_core::Error> {
    let builders = match format {
        Fmt::SunLuo => vec![sunluo::parse(Path::new("fuzz.graph"), text)?],
        Fmt::Gsi => gsi::parse_all(Path::new("fuzz.g"), text)?,
        Fmt::EdgeList { directed } => {
            let ids = if names { IdMode::Names } else { IdMode::Compact };
            let opts = ReadOptions { format: Some(Format::EdgeList), directed, ids, ..ReadOptions::default() };
            let labels = Some((Path::new("fuzz.labels"), labels));
            let loaded = parse_graphs(Path::new("fuzz.txt"), text, labels, &opts)?;
            return Ok(loaded.into_iter().map(|l| l.graph).collect());
        }
    };
    builders.into_iter().map(|b| b.try_build().map(|(g, _)| g)).collect()
}

fuzz_target!(init: subgraph_fuzz::init(), |input: Input| {
    let (g, mut text, mut labels) = match input.format {
        Fmt::SunLuo => {
            let g = without_ids(&input.graph.build(false));
            let mut out = Vec::new();
            sunluo::write(&g, &mut out).expect("writing to memory");
            (g, out, Vec::new())
        }
        Fmt::Gsi => {
            let g = without_ids(&input.graph.build(true));
            let mut out = Vec::new();
            gsi::write(&g, &mut out).expect("writing to memory");
            (g, out, Vec::new())
        }
        Fmt::EdgeList { directed } => {
            // The label file names every vertex, so the ids read back as written.
            let g = input.graph.build(directed);
            let (mut out, mut labels) = (Vec::new(), Vec::new());
            edgelist::write(&g, &mut out, Some(&mut labels)).expect("writing to memory");
            (g, out, labels)
        }
    };
    let names = matches!(g.ids().map(|i| &**i), Some(VertexIds::Names { .. }));
    if input.edits.is_empty() {
        match read(input.format, names, &text, &labels) {
            Ok(gs) => {
                assert_eq!(gs.len(), 1);
                subgraph_fuzz::assert_same(&g, &gs[0]);
                subgraph_fuzz::check_graph(&gs[0]);
            }
            // An edge list holds at least one edge.
            Err(_) if matches!(input.format, Fmt::EdgeList { .. }) && g.num_edges() == 0 => {}
            Err(e) => panic!("an unedited render does not read back: {e}\n{}", String::from_utf8_lossy(&text)),
        }
        return;
    }
    let (mut t, mut l) = (tokenize(&text), tokenize(&labels));
    for edit in input.edits.iter().take(8) {
        apply(if edit.labels { &mut l } else { &mut t }, &edit.op);
    }
    (text, labels) = (render(&t), render(&l));
    if let Ok(gs) = read(input.format, names, &text, &labels) {
        gs.iter().for_each(subgraph_fuzz::check_graph);
    }
});
