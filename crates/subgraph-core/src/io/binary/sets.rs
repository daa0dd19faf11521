//! The label set section of `.sgb` version 5 (flag bit 4), after every other section: a graph's
//! self loops and the sets behind its set labels (`graph::sets`). The head of [`super::ids`]
//! with kind 5, and data of little-endian words, each run of u32 zero-padded to a multiple of
//! 8 bytes:
//!
//! | field | |
//! |---|---|
//! | loops L (u64) | then L (vertex, edge label) u32 pairs, sorted and distinct |
//! | vertex base (u64), vertex sets k (u64) | then k + 1 offsets (u64) into the members, then the members (u32) |
//! | edge base (u64), edge sets k (u64) | the same |
//!
//! Set i of a kind is that kind's label base + i: two labels or more, sorted, distinct, each
//! below the base; no set twice. Against the graph (`check`): the loops' vertices exist; where a
//! kind has sets, every label of that kind from its base up is a set's, every set is some
//! vertex's (edge's) label, and the base is one above the largest label below it, member, or
//! (edges) loop label, as the builder numbers them.

use super::format::Source;
use super::ids::{frame, read_section};
use super::props::Cursor;
use crate::error::Error;
use crate::graph::{Graph, LabelSets};
use std::path::Path;

const KIND: u64 = 5;

/// What the section holds: the self loops, and the label sets.
pub(super) type Decoded = (Vec<(u32, u32)>, LabelSets);

/// The section for `loops` and `sets` (None: no sets), padded.
pub(super) fn encode(loops: &[(u32, u32)], sets: Option<&LabelSets>) -> Vec<u8> {
    let mut d = Vec::new();
    let word = |d: &mut Vec<u8>, x: u64| d.extend_from_slice(&x.to_le_bytes());
    let pad = |d: &mut Vec<u8>| d.resize(d.len().div_ceil(8) * 8, 0);
    word(&mut d, loops.len() as u64);
    loops.iter().flat_map(|&(v, l)| [v, l]).for_each(|x| d.extend_from_slice(&x.to_le_bytes()));
    pad(&mut d);
    let empty = LabelSets::default();
    let s = sets.unwrap_or(&empty);
    for (base, list) in [(s.vertex_base, &s.vertex), (s.edge_base, &s.edge)] {
        word(&mut d, u64::from(base));
        word(&mut d, list.len() as u64);
        let mut at = 0u64;
        word(&mut d, 0);
        for set in list {
            at += set.len() as u64;
            word(&mut d, at);
        }
        list.iter().flatten().for_each(|x| d.extend_from_slice(&x.to_le_bytes()));
        pad(&mut d);
    }
    frame(KIND, &d)
}

/// Reads the section at `at` of a file of `len` bytes: the loops, the sets, where it ends. Its
/// own structure is checked here, its fit to the graph by [`check`].
pub(super) fn decode<S: Source + ?Sized>(file: &Path, src: &S, at: u64, len: u64) -> Result<(Decoded, u64), Error> {
    let bad =
        |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg: format!("label set section: {msg}") };
    let (_, data, end) = read_section(src, file, at, len, &bad, |kind, data_len| match kind {
        KIND if data_len >= 56 => Ok(()),
        KIND => Err(format!("{data_len} bytes of data are too few")),
        k => Err(format!("unknown kind {k}")),
    })?;
    Ok((parse(&data).map_err(bad)?, end))
}

fn parse(data: &[u8]) -> Result<Decoded, String> {
    let mut c = Cursor { data, at: 0 };
    let count = c.word()?;
    let flat = c.u32s(count.checked_mul(2).ok_or("a length beyond the data")?)?;
    let loops: Vec<(u32, u32)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    if let Some(w) = loops.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!("loops not sorted and distinct at {:?}", w[1]));
    }
    let (vertex_base, vertex) = sets(&mut c, "vertex")?;
    let (edge_base, edge) = sets(&mut c, "edge")?;
    if c.at < data.len() {
        return Err("bytes after the edge sets".into());
    }
    let sets = LabelSets { vertex_base, vertex, edge_base, edge };
    if loops.is_empty() && sets.is_empty() {
        return Err("no loop and no set (the section is written only for a graph with some)".into());
    }
    Ok((loops, sets))
}

/// One kind's base and sets, each checked on its own.
fn sets(c: &mut Cursor<'_>, what: &str) -> Result<(u32, Vec<Vec<u32>>), String> {
    let base = c.word()?;
    let k = c.word()?;
    if base > u64::from(u32::MAX) || base.checked_add(k).is_none_or(|top| top > 1 << 32) {
        return Err(format!("{k} {what} sets from label {base} on run past 2^32 - 1"));
    }
    let offsets = c.words(k.checked_add(1).ok_or("a length beyond the data")?)?;
    if offsets[0] != 0 {
        return Err(format!("{what} set offsets do not start at 0"));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0].saturating_add(2)) {
        return Err(format!("{what} set {i} (label {}) has fewer than two labels", base + i as u64));
    }
    let members = c.u32s(*offsets.last().expect("k + 1 offsets"))?;
    let list: Vec<Vec<u32>> = offsets.windows(2).map(|w| members[w[0] as usize..w[1] as usize].to_vec()).collect();
    for (i, set) in list.iter().enumerate() {
        let label = base + i as u64;
        if set.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("{what} set {label} is not sorted and distinct"));
        }
        if set.last().is_some_and(|&m| u64::from(m) >= base) {
            return Err(format!("{what} set {label} holds a label from its base {base} up"));
        }
    }
    let mut sorted: Vec<&Vec<u32>> = list.iter().collect();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("a {what} set is there twice"));
    }
    Ok((base as u32, list))
}

/// Checks the loops and sets against the graph: see the module's doc.
pub(super) fn check(g: &Graph, loops: &[(u32, u32)], sets: &LabelSets) -> Result<(), String> {
    let n = g.labels.len();
    if let Some(&(v, _)) = loops.iter().find(|&&(v, _)| v as usize >= n) {
        return Err(format!("a loop at vertex {v}, out of range ({n} vertices)"));
    }
    let loop_labels = loops.iter().map(|&(_, l)| l);
    fits("vertex", sets.vertex_base, &sets.vertex, &g.vlabel_values, std::iter::empty())?;
    fits("edge", sets.edge_base, &sets.edge, &g.elabel_values, loop_labels)
}

/// One kind's sets against the labels `used` (sorted) and, for edges, the loops' labels.
fn fits(
    what: &str,
    base: u32,
    sets: &[Vec<u32>],
    used: &[u32],
    loops: impl Iterator<Item = u32>,
) -> Result<(), String> {
    if sets.is_empty() {
        return Ok(());
    }
    let top = u64::from(base) + sets.len() as u64;
    if let Some(&l) = used.iter().find(|&&l| u64::from(l) >= top) {
        return Err(format!("{what} label {l} is above its sets ({} from label {base} on)", sets.len()));
    }
    let set_labels = &used[used.partition_point(|&l| l < base)..];
    if set_labels.len() != sets.len() {
        return Err(format!(
            "{} of the {} {what} sets are no {what}'s label",
            sets.len() - set_labels.len(),
            sets.len()
        ));
    }
    let below = used[..used.len() - set_labels.len()].iter().copied();
    let largest = below.chain(sets.iter().flatten().copied()).chain(loops).max();
    if largest.map_or(0, |m| u64::from(m) + 1) != u64::from(base) {
        return Err(format!(
            "{what} set base {base} is not one above the largest {what} label below it ({})",
            largest.map_or("none".into(), |m| m.to_string())
        ));
    }
    Ok(())
}

/// The labels a file's names must cover: those below each kind's base, the sets' members, and
/// the loops' edge labels.
pub(super) fn plain_labels(g: &Graph, loops: &[(u32, u32)], sets: &LabelSets) -> (Vec<u32>, Vec<u32>) {
    let plain = |base: u32, list: &[Vec<u32>], used: &[u32]| -> Vec<u32> {
        let below = if list.is_empty() { used } else { &used[..used.partition_point(|&l| l < base)] };
        below.iter().chain(list.iter().flatten()).copied().collect()
    };
    let vertex = plain(sets.vertex_base, &sets.vertex, &g.vlabel_values);
    let mut edge = plain(sets.edge_base, &sets.edge, &g.elabel_values);
    edge.extend(loops.iter().map(|&(_, l)| l));
    (vertex, edge)
}
