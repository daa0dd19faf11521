//! The id parsers at the edges of u64 (structured): an edge list, a Matrix Market file or a
//! KONECT network (`sym`, `asym`, `bip`) whose header numbers and ids are drawn near 2^64,
//! 2^32, powers of two or small, read with ids compacted or kept (`--keep-ids`). The oracle
//! is the file's own arithmetic, done in u128: an entry out of range, an id beyond u64 (a
//! rectangular matrix's columns after its rows, a right id after the left ones) or beyond the
//! `--keep-ids` bound must be an error; anything else must load with exactly the file's
//! edges, each between the vertices of its ids.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;
use subgraph_core::io::{parse_graphs, Format, IdMode, ReadOptions, KEEP_IDS_PER_BYTE, KEEP_IDS_SLACK};
use subgraph_core::Id;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Num {
    Small(u8),
    BelowMax(u8),
    NearU32(i16),
    Pow2(u8, i8),
    Any(u64),
}

impl Num {
    fn get(self) -> u64 {
        match self {
            Num::Small(x) => u64::from(x),
            Num::BelowMax(k) => u64::MAX - u64::from(k),
            Num::NearU32(d) => (1u64 << 32).wrapping_add_signed(i64::from(d)),
            Num::Pow2(e, d) => (1u64 << (e % 64)).wrapping_add_signed(i64::from(d)),
            Num::Any(x) => x,
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Kind {
    /// An edge list, directed or not.
    Edges(bool),
    /// A Matrix Market file, `general` (directed) or `symmetric`.
    Mtx { general: bool, rows: Num, cols: Num },
    /// A KONECT network: `sym`, `asym` or, with the left count, `bip`.
    Konect { asym: bool, bip: Option<Num> },
}

#[derive(Arbitrary, Debug)]
struct Input {
    kind: Kind,
    keep: bool,
    entries: Vec<(Num, Num)>,
}

fuzz_target!(init: subgraph_fuzz::init(), |input: Input| {
    let entries: Vec<(u64, u64)> = input.entries.iter().take(32).map(|&(a, b)| (a.get(), b.get())).collect();
    let mut text = String::new();
    let (format, directed) = match input.kind {
        Kind::Edges(directed) => (Format::EdgeList, directed),
        Kind::Mtx { general, rows, cols } => {
            let symmetry = if general { "general" } else { "symmetric" };
            writeln!(text, "%%MatrixMarket matrix coordinate pattern {symmetry}").unwrap();
            writeln!(text, "{} {} {}", rows.get(), cols.get(), entries.len()).unwrap();
            (Format::Mtx, general)
        }
        Kind::Konect { asym, bip } => {
            let kind = match (asym, bip) {
                (_, Some(_)) => "bip",
                (true, None) => "asym",
                (false, None) => "sym",
            };
            let left = bip.map_or(7, Num::get);
            writeln!(text, "% {kind} unweighted\n% {} {left} 3", entries.len()).unwrap();
            (Format::Konect, asym && bip.is_none())
        }
    };
    for (a, b) in &entries {
        writeln!(text, "{a} {b}").unwrap();
    }
    let keep_max = (KEEP_IDS_SLACK + KEEP_IDS_PER_BYTE * text.len() as u64).min(u64::from(u32::MAX) - 1);
    let keep = input.keep;

    // The ids each entry's edge joins (the original ids; under --keep-ids the vertices), or
    // why the file must be refused; and the vertices --keep-ids declares.
    let mut refused = entries.is_empty();
    let mut declared = 0u128;
    let mut edges: Vec<(u128, u128)> = Vec::new();
    let within = |x: u128| x <= u128::from(keep_max);
    match input.kind {
        Kind::Edges(_) => {
            for &(a, b) in &entries {
                refused |= keep && !(within(a.into()) && within(b.into()));
                edges.push((a.into(), b.into()));
            }
        }
        Kind::Mtx { rows, cols, .. } => {
            let (rows, cols) = (u128::from(rows.get()), u128::from(cols.get()));
            let square = rows == cols;
            let n = if square { rows } else { rows + cols };
            refused |= n > u128::from(u64::MAX);
            declared = n;
            refused |= keep && n > u128::from(keep_max) + 1;
            for &(i, j) in &entries {
                let (i, j) = (u128::from(i), u128::from(j));
                refused |= i == 0 || i > rows || j == 0 || j > cols;
                let j = if square { j } else { j + rows };
                edges.push(if keep { (i.saturating_sub(1), j.saturating_sub(1)) } else { (i, j) });
            }
        }
        Kind::Konect { bip, .. } => {
            let left = bip.map(|l| u128::from(l.get()));
            for &(u, v) in &entries {
                let (u, v) = (u128::from(u), u128::from(v));
                refused |= u == 0 || v == 0;
                // --keep-ids bounds the ids as the file writes them, then the right ones shifted.
                refused |= keep && !(within(u) && within(v));
                let v = match left {
                    Some(left) => {
                        refused |= u > left;
                        v + left
                    }
                    None => v,
                };
                refused |= v > u128::from(u64::MAX);
                refused |= keep && !within(v.saturating_sub(1));
                edges.push(if keep { (u.saturating_sub(1), v.saturating_sub(1)) } else { (u, v) });
            }
        }
    }

    let ids = if keep { IdMode::Keep } else { IdMode::Compact };
    let opts = ReadOptions { format: Some(format), directed, ids, ..ReadOptions::default() };
    let got = parse_graphs(Path::new("fuzz.txt"), text.as_bytes(), None, &opts);
    let g = match got {
        Err(e) => {
            assert!(refused, "refused a valid file: {e}\n{text}");
            return;
        }
        Ok(mut all) => {
            assert!(!refused, "loaded a file that must be refused:\n{text}");
            all.pop().unwrap().graph
        }
    };
    subgraph_fuzz::check_graph(&g);
    assert_eq!(g.is_directed(), directed);
    // Every id is a vertex: kept ids are vertex numbers (the graph has the largest and the
    // declared ones); compacted ids are found among the originals.
    let vertex = |x: u128| -> u32 {
        let x = u64::try_from(x).unwrap();
        match (keep, g.ids()) {
            (true, _) | (false, None) => u32::try_from(x).unwrap(),
            (false, Some(ids)) => ids.find(Id::Number(x)).unwrap_or_else(|| panic!("id {x} is no vertex\n{text}")),
        }
    };
    let ends: BTreeSet<u128> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    let n = if keep { ends.iter().max().map_or(0, |m| m + 1).max(declared) } else { ends.len() as u128 };
    assert_eq!(g.num_vertices() as u128, n, "{text}");
    let mut want = BTreeSet::new();
    for &(a, b) in &edges {
        let (x, y) = (vertex(a), vertex(b));
        if x != y {
            want.insert(if directed { (x, y) } else { (x.min(y), x.max(y)) });
        }
    }
    let have: BTreeSet<(u32, u32)> = g.edges().map(|(x, y, _)| (x, y)).collect();
    assert_eq!(have, want, "{text}");
});
