//! Vertex ids of the edge-list-like formats (edge lists, Matrix Market, KONECT): arbitrary u64
//! numbers, or names, compacted to 0..n in sorted order (numeric, or bytewise for names) with
//! the originals kept for output; or, with `--keep-ids`, taken as they are (n = largest + 1).
//! Nothing is allocated per id that the file does not hold.

use super::text::{parse_u64, show, Fields};
use crate::error::{Error, IdError};
use crate::graph::{GraphBuilder, LabelNames, VertexIds};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// How a file's vertex ids become vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdMode {
    /// Numbers, compacted to 0..n in numeric order (the default).
    #[default]
    Compact,
    /// Numbers taken as they are: vertex count = largest id + 1.
    Keep,
    /// Any token, compacted to 0..n in byte order.
    Names,
}

/// Vertices `--keep-ids` may create beyond what the file's length justifies.
pub const KEEP_IDS_SLACK: u64 = 1 << 20;
/// Vertices `--keep-ids` may create per byte of the file.
pub const KEEP_IDS_PER_BYTE: u64 = 16;
/// The longest name (a label that is a word, a `--string-ids` id) a file may hold, in bytes.
pub const MAX_NAME_LEN: usize = 64 << 10;

/// Edges and vertex labels as a reader collects them, in the file's ids.
pub(crate) struct RawGraph {
    mode: IdMode,
    directed: bool,
    /// Largest id `Keep` accepts.
    keep_max: u64,
    /// Edges (u, v, label) in the file's numbers, or indices of `names`.
    edges: Edges,
    /// The largest endpoint.
    max_end: Option<u64>,
    /// Vertices the file declared (`Keep` only: the graph has at least these).
    declared: u64,
    /// Labelled vertices (same id space as `edges`) and their labels.
    labelled: Vec<(u64, u32)>,
    names: HashMap<Box<str>, u64>,
    /// From the first label that is a word on: the labels of each kind as provisional
    /// indices of these names.
    vertex_label_names: Option<Dictionary>,
    edge_label_names: Option<Dictionary>,
}

/// Words (labels, names), each numbered in first-seen order.
#[derive(Default)]
pub(crate) struct Dictionary {
    index: HashMap<Box<str>, u32>,
    words: Vec<Box<str>>,
}

impl Dictionary {
    /// The number of `word`, given now if it is new.
    pub(crate) fn intern(&mut self, word: &str) -> u32 {
        if let Some(&i) = self.index.get(word) {
            return i;
        }
        let i = self.words.len() as u32;
        self.index.insert(word.into(), i);
        self.words.push(word.into());
        i
    }

    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// The number of `word`, if it has one.
    pub(crate) fn find(&self, word: &str) -> Option<u32> {
        self.index.get(word).copied()
    }

    /// Word number i.
    pub(crate) fn word(&self, i: u32) -> &str {
        &self.words[i as usize]
    }

    /// The words as names, in first-seen order.
    pub(crate) fn into_names(self) -> Vec<String> {
        self.words.into_iter().map(String::from).collect()
    }

    /// The names in byte order, and each first-seen number's place among them.
    pub(crate) fn sorted(self) -> (Vec<String>, Vec<u32>) {
        let mut order: Vec<u32> = (0..self.words.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.words[a as usize].cmp(&self.words[b as usize]));
        let mut rank = vec![0u32; order.len()];
        order.iter().enumerate().for_each(|(r, &i)| rank[i as usize] = r as u32);
        let names = order.iter().map(|&i| String::from(&*self.words[i as usize])).collect();
        (names, rank)
    }
}

/// A token that is a name (`what` says which): UTF-8 of at most [`MAX_NAME_LEN`] bytes.
fn name<'t>(f: &Fields<'_>, tok: &'t [u8], what: &str) -> Result<&'t str, Error> {
    if tok.len() > MAX_NAME_LEN {
        return Err(f.error(format!(
            "{what} '{}...' of {} bytes is longer than the {MAX_NAME_LEN} bytes a name may have",
            show(tok),
            tok.len()
        )));
    }
    std::str::from_utf8(tok).map_err(|_| f.error(format!("{what} '{}' is not UTF-8", show(tok))))
}

/// A label token: a number when it is all digits (which must then fit 32 bits), else a word.
fn label_number(f: &Fields<'_>, tok: &[u8], what: &str) -> Result<Option<u32>, Error> {
    label_value(tok, what).map_err(|msg| f.error(msg))
}

/// [`label_number`] without a line to name: the error is its message.
fn label_value(tok: &[u8], what: &str) -> Result<Option<u32>, String> {
    if !tok.iter().all(u8::is_ascii_digit) {
        return Ok(None);
    }
    parse_u64(tok)
        .and_then(|x| u32::try_from(x).ok())
        .map(Some)
        .ok_or_else(|| format!("bad {what} '{}' (an integer 0..=4294967295, or a name)", show(tok)))
}

/// Labels that a front end holds as words, one per vertex or edge, where a file has label
/// tokens (`what` names them in the error), numbered as the readers number a file's: the
/// numbers while every word is one (digits only), else every word a name, the names numbered
/// 0..k in byte order. The labels, and the names (none for numbers).
pub fn number_labels<S: AsRef<str>>(words: &[S], what: &str) -> Result<(Vec<u32>, Vec<String>), String> {
    let mut numbers = Vec::with_capacity(words.len());
    for w in words {
        match label_value(w.as_ref().as_bytes(), what)? {
            Some(x) => numbers.push(x),
            None => {
                let mut dict = Dictionary::default();
                let first: Vec<u32> = words.iter().map(|w| dict.intern(w.as_ref())).collect();
                let (names, rank) = dict.sorted();
                return Ok((first.into_iter().map(|i| rank[i as usize]).collect(), names));
            }
        }
    }
    Ok((numbers, Vec::new()))
}

impl RawGraph {
    /// A graph read from a file of `file_len` bytes.
    pub(crate) fn new(mode: IdMode, directed: bool, file_len: usize, edges_hint: usize) -> RawGraph {
        let keep_max = (KEEP_IDS_SLACK + KEEP_IDS_PER_BYTE * file_len as u64).min(u32::MAX as u64 - 1);
        RawGraph {
            mode,
            directed,
            keep_max,
            edges: Edges::Narrow(Vec::with_capacity(edges_hint)),
            max_end: None,
            declared: 0,
            labelled: Vec::new(),
            names: HashMap::new(),
            vertex_label_names: None,
            edge_label_names: None,
        }
    }

    pub(crate) fn num_edges(&self) -> usize {
        self.edges.len()
    }

    /// The next token of `f` as a vertex id (`what` names it in errors).
    pub(crate) fn id(&mut self, f: &mut Fields<'_>, what: &str) -> Result<u64, Error> {
        match self.mode {
            IdMode::Names => {
                let tok = f.expect(what)?;
                let tok = name(f, tok, what)?;
                let next = self.names.len() as u64;
                Ok(*self.names.entry(tok.into()).or_insert(next))
            }
            IdMode::Compact => {
                let tok = f.expect(what)?;
                parse_u64(tok).ok_or_else(|| id_error(f, IdError::NotANumber { what: what.into(), token: show(tok) }))
            }
            IdMode::Keep => {
                let x = f.u64(what)?;
                self.check_keep(f, &format!("{what} {x}"), x as u128 + 1)?;
                Ok(x)
            }
        }
    }

    /// Under `Keep`, the graph has at least the `n` vertices a header declared (checked
    /// against the file's length like an id).
    pub(crate) fn declare_vertices(&mut self, f: &Fields<'_>, n: u64) -> Result<(), Error> {
        if self.mode == IdMode::Keep {
            self.check_keep(f, &format!("{n} declared vertices"), n as u128)?;
            self.declared = n;
        }
        Ok(())
    }

    /// Under `Keep`, checks that `vertex` (a vertex number the reader derived from `what`, such
    /// as a bipartite network's right id after the left ones) is within the file's bound.
    pub(crate) fn check_vertex(&self, f: &Fields<'_>, what: &str, vertex: u64) -> Result<(), Error> {
        match self.mode {
            IdMode::Keep => self.check_keep(f, what, vertex as u128 + 1),
            _ => Ok(()),
        }
    }

    fn check_keep(&self, f: &Fields<'_>, what: &str, n: u128) -> Result<(), Error> {
        if n > self.keep_max as u128 + 1 {
            return Err(id_error(f, IdError::TooManyKept { what: what.into(), vertices: n, most: self.keep_max + 1 }));
        }
        Ok(())
    }

    pub(crate) fn add_edge(&mut self, u: u64, v: u64, label: u32) {
        self.edges.push(u, v, label);
        self.max_end = self.max_end.max(Some(u.max(v)));
    }

    /// The edge label `tok` stands for (absent: 0): its number, or, once any edge label was a
    /// word, a name (numbers met before become the names of their digits).
    pub(crate) fn edge_label(&mut self, f: &Fields<'_>, tok: Option<&[u8]>) -> Result<u32, Error> {
        let tok = tok.unwrap_or(b"0");
        if self.edge_label_names.is_none() {
            match label_number(f, tok, "edge label")? {
                Some(x) => return Ok(x),
                None => {
                    let mut dict = Dictionary::default();
                    self.edges.map_labels(|l| dict.intern(&l.to_string()));
                    self.edge_label_names = Some(dict);
                }
            }
        }
        let word = name(f, tok, "edge label")?;
        Ok(self.edge_label_names.as_mut().expect("names").intern(word))
    }

    /// The vertex label `tok` stands for, as [`RawGraph::edge_label`] for edges.
    pub(crate) fn vertex_label(&mut self, f: &Fields<'_>, tok: &[u8]) -> Result<u32, Error> {
        if self.vertex_label_names.is_none() {
            match label_number(f, tok, "vertex label")? {
                Some(x) => return Ok(x),
                None => {
                    let mut dict = Dictionary::default();
                    self.labelled.iter_mut().for_each(|(_, l)| *l = dict.intern(&l.to_string()));
                    self.vertex_label_names = Some(dict);
                }
            }
        }
        let word = name(f, tok, "vertex label")?;
        Ok(self.vertex_label_names.as_mut().expect("names").intern(word))
    }

    /// Gives vertex `id` the label (beside any it was given before). Under `Keep` the id must
    /// already be a vertex (below the largest endpoint + 1); otherwise a vertex that only has a
    /// label becomes an isolated vertex.
    pub(crate) fn add_label(&mut self, f: &Fields<'_>, id: u64, label: u32) -> Result<(), Error> {
        if self.mode == IdMode::Keep {
            let n = self.max_end.map_or(0, |m| m + 1).max(self.declared);
            if id >= n {
                return Err(f.error(format!("vertex id {id} out of range (the graph has {n} vertices)")));
            }
        }
        self.labelled.push((id, label));
        Ok(())
    }

    /// The graph's builder: vertices numbered as the mode says, labels applied (a vertex labelled
    /// on several lines has all their labels: its first in order is its own, the others are
    /// added, and the builder makes them one set label), the original ids kept unless they are
    /// 0..n already.
    pub(crate) fn into_builder(self, file: &Path) -> Result<GraphBuilder, Error> {
        let RawGraph {
            mode,
            directed,
            mut edges,
            max_end,
            declared,
            labelled,
            names,
            vertex_label_names,
            edge_label_names,
            ..
        } = self;
        let (mut label_ids, label_values): (Vec<u64>, Vec<u32>) = labelled.into_iter().unzip();
        let (n, ids) = match mode {
            IdMode::Keep => (max_end.map_or(0, |m| m + 1).max(declared) as usize, None),
            IdMode::Compact => compact_numbers(&mut edges, max_end, &mut label_ids),
            IdMode::Names => compact_names(names, &mut edges, &mut label_ids),
        };
        if n > u32::MAX as usize {
            return Err(Error::Parse {
                file: file.to_path_buf(),
                line: 0,
                msg: format!("{n} vertices exceed 2^32 - 1"),
            });
        }
        // Each vertex's labels, in order and once each: the first is its own, the rest `more`.
        let mut given: Vec<(u64, u32)> = label_ids.into_iter().zip(label_values).collect();
        given.par_sort_unstable();
        given.dedup();
        // Among names, a vertex without a label has the one named "0", as it has label 0 among
        // numbers (where every u32 is a label, so which vertices have one is kept apart).
        let mut labels = vec![0u32; n];
        let mut more: Vec<(u32, u32)> = Vec::new();
        let mut labelled_at = vec![false; if vertex_label_names.is_some() { n } else { 0 }];
        for vertex in given.chunk_by(|a, b| a.0 == b.0) {
            let v = vertex[0].0 as usize;
            labels[v] = vertex[0].1;
            more.extend(vertex[1..].iter().map(|&(_, l)| (v as u32, l)));
            if let Some(at) = labelled_at.get_mut(v) {
                *at = true;
            }
        }
        let mut label_names = LabelNames::default();
        if let Some(mut dict) = vertex_label_names {
            if labelled_at.contains(&false) {
                let zero = dict.intern("0");
                labels.iter_mut().zip(&labelled_at).filter(|(_, &at)| !at).for_each(|(l, _)| *l = zero);
            }
            let (sorted, rank) = dict.sorted();
            labels.par_iter_mut().for_each(|l| *l = rank[*l as usize]);
            more.iter_mut().for_each(|(_, l)| *l = rank[*l as usize]);
            label_names.vertex = sorted;
        }
        if let Some(dict) = edge_label_names {
            let (sorted, rank) = dict.sorted();
            edges.map_labels(|l| rank[l as usize]);
            label_names.edge = sorted;
        }
        let mut b = GraphBuilder::from_parts(labels, edges.into_narrow(), directed);
        more.into_iter().for_each(|(v, l)| b.add_label(v, l));
        if let Some(ids) = ids {
            b.set_ids(ids);
        }
        b.set_label_names(label_names);
        Ok(b)
    }
}

#[cfg(test)]
impl RawGraph {
    /// The graph, built (for the readers' tests).
    pub(crate) fn into_graph(self, file: &Path) -> Result<crate::graph::Graph, Error> {
        Ok(self.into_builder(file)?.build().0)
    }
}

fn id_error(f: &Fields<'_>, error: IdError) -> Error {
    Error::Id { file: f.file.to_path_buf(), line: f.line, error }
}

/// Edges as read: narrow while every id fits in 32 bits (half the memory, and the builder
/// takes the vector as it is), wide from the first id that does not.
enum Edges {
    Narrow(Vec<(u32, u32, u32)>),
    Wide(Vec<(u64, u64, u32)>),
}

impl Edges {
    fn len(&self) -> usize {
        match self {
            Edges::Narrow(e) => e.len(),
            Edges::Wide(e) => e.len(),
        }
    }

    fn push(&mut self, u: u64, v: u64, l: u32) {
        match self {
            Edges::Narrow(e) => match (u32::try_from(u), u32::try_from(v)) {
                (Ok(a), Ok(b)) => e.push((a, b, l)),
                _ => {
                    let mut wide: Vec<(u64, u64, u32)> =
                        e.par_iter().map(|&(a, b, l)| (a as u64, b as u64, l)).collect();
                    wide.push((u, v, l));
                    *self = Edges::Wide(wide);
                }
            },
            Edges::Wide(e) => e.push((u, v, l)),
        }
    }

    /// Calls `f` on every endpoint.
    fn for_each_id(&self, mut f: impl FnMut(u64)) {
        match self {
            Edges::Narrow(e) => e.iter().for_each(|&(u, v, _)| {
                f(u as u64);
                f(v as u64)
            }),
            Edges::Wide(e) => e.iter().for_each(|&(u, v, _)| {
                f(u);
                f(v)
            }),
        }
    }

    /// Replaces every endpoint x by `f(x)`, which must fit in 32 bits when the edges are narrow.
    fn map_ids(&mut self, f: impl Fn(u64) -> u64 + Sync) {
        match self {
            Edges::Narrow(e) => e.par_iter_mut().for_each(|(u, v, _)| {
                *u = f(*u as u64) as u32;
                *v = f(*v as u64) as u32;
            }),
            Edges::Wide(e) => e.par_iter_mut().for_each(|(u, v, _)| {
                *u = f(*u);
                *v = f(*v);
            }),
        }
    }

    /// Replaces every edge label l by `f(l)`.
    fn map_labels(&mut self, mut f: impl FnMut(u32) -> u32) {
        match self {
            Edges::Narrow(e) => e.iter_mut().for_each(|(_, _, l)| *l = f(*l)),
            Edges::Wide(e) => e.iter_mut().for_each(|(_, _, l)| *l = f(*l)),
        }
    }

    /// The edges with 32-bit ids, which every id must fit by now.
    fn into_narrow(self) -> Vec<(u32, u32, u32)> {
        match self {
            Edges::Narrow(e) => e,
            Edges::Wide(e) => e.into_par_iter().map(|(u, v, l)| (u as u32, v as u32, l)).collect(),
        }
    }
}

/// Ids at most this many times the number of id occurrences (plus a constant) are compacted
/// through a table indexed by id; sparser ones by sorting.
const DENSE_FACTOR: u64 = 4;

/// Replaces every id of the edges (whose largest is `max_end`) and of `labels` by its rank
/// among the distinct ids of both; returns their number, and the sorted originals unless they
/// are 0..n.
fn compact_numbers(edges: &mut Edges, max_end: Option<u64>, labels: &mut [u64]) -> (usize, Option<VertexIds>) {
    let Some(max) = labels.iter().copied().max().max(max_end) else { return (0, None) };
    let total = 2 * edges.len() as u64 + labels.len() as u64;
    if max < DENSE_FACTOR * total + 1024 {
        let mut rank = vec![0u32; max as usize + 1];
        edges.for_each_id(|x| rank[x as usize] = 1);
        labels.iter().for_each(|&x| rank[x as usize] = 1);
        let n = rank.par_iter().map(|&r| r as u64).sum::<u64>();
        if n == max + 1 {
            return (n as usize, None);
        }
        let mut originals = Vec::with_capacity(n as usize);
        let mut next = 0u32;
        for (x, r) in rank.iter_mut().enumerate() {
            if *r == 1 {
                originals.push(x as u64);
                *r = next;
                next += 1;
            }
        }
        let rank = &rank;
        edges.map_ids(|x| rank[x as usize] as u64);
        labels.par_iter_mut().for_each(|x| *x = rank[*x as usize] as u64);
        (n as usize, Some(VertexIds::Numbers(originals)))
    } else {
        let mut sorted = Vec::with_capacity(total as usize);
        edges.for_each_id(|x| sorted.push(x));
        sorted.extend_from_slice(labels);
        sorted.par_sort_unstable();
        sorted.dedup();
        let s = &sorted;
        let rank = |x: u64| s.partition_point(|&y| y < x) as u64;
        edges.map_ids(rank);
        labels.par_iter_mut().for_each(|x| *x = rank(*x));
        (sorted.len(), Some(VertexIds::Numbers(sorted)))
    }
}

/// Renumbers the names (indices in first-seen order in the edges and `labels`) in byte order.
fn compact_names(names: HashMap<Box<str>, u64>, edges: &mut Edges, labels: &mut [u64]) -> (usize, Option<VertexIds>) {
    let mut by_name: Vec<(Box<str>, u64)> = names.into_iter().collect();
    by_name.par_sort_unstable_by(|x, y| x.0.cmp(&y.0));
    let mut rank = vec![0u64; by_name.len()];
    for (r, (_, first_seen)) in by_name.iter().enumerate() {
        rank[*first_seen as usize] = r as u64;
    }
    let rank = &rank;
    edges.map_ids(|x| rank[x as usize]);
    labels.par_iter_mut().for_each(|x| *x = rank[*x as usize]);
    let sorted: Vec<&str> = by_name.iter().map(|(s, _)| &**s).collect();
    (sorted.len(), Some(VertexIds::names(&sorted)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(pairs: &[(u64, u64)]) -> Edges {
        let mut e = Edges::Narrow(Vec::new());
        pairs.iter().for_each(|&(u, v)| e.push(u, v, 0));
        e
    }

    fn ids(e: Edges) -> Vec<(u32, u32)> {
        e.into_narrow().into_iter().map(|(u, v, _)| (u, v)).collect()
    }

    #[test]
    fn numbers_compact_densely_or_by_sorting_alike() {
        let mut e = edges(&[(7, 3), (3, 100)]);
        let mut b = vec![5];
        let (n, kept) = compact_numbers(&mut e, Some(100), &mut b);
        assert_eq!((n, ids(e), b), (4, vec![(2, 0), (0, 3)], vec![1]));
        assert_eq!(kept, Some(VertexIds::Numbers(vec![3, 5, 7, 100])));
        let mut e = edges(&[(u64::MAX, 2), (1 << 40, 2)]);
        assert!(matches!(e, Edges::Wide(_)));
        let (n, kept) = compact_numbers(&mut e, Some(u64::MAX), &mut []);
        assert_eq!((n, ids(e)), (3, vec![(2, 0), (1, 0)]));
        assert_eq!(kept, Some(VertexIds::Numbers(vec![2, 1 << 40, u64::MAX])));
        let mut e = edges(&[(2, 0), (1, 1)]);
        assert_eq!(compact_numbers(&mut e, Some(2), &mut []), (3, None));
        assert_eq!(ids(e), vec![(2, 0), (1, 1)]);
    }

    proptest::proptest! {
        /// Whatever the ids (dense, sparse, huge), the compacted graph's edges and labels (all of
        /// each vertex's), read back through the kept ids, are the file's.
        #[test]
        fn compaction_keeps_every_edge_and_label(
            edges in proptest::collection::vec((0u64..40, 0u64..40, 0u32..3), 1..60),
            labels in proptest::collection::vec((0u64..50, 0u32..4), 0..20),
            spread in proptest::sample::select(vec![1u64, 7, 1 << 20, 1 << 44]),
        ) {
            let id = |x: u64| x * spread;
            let mut raw = RawGraph::new(IdMode::Compact, true, 1000, 0);
            for &(u, v, l) in &edges {
                raw.add_edge(id(u), id(v), l);
            }
            raw.labelled = labels.iter().map(|&(v, l)| (id(v), l)).collect();
            let g = raw.into_builder(Path::new("p")).unwrap().build().0;
            let orig = |v: u32| match g.original_id(v) {
                crate::graph::Id::Number(x) => x,
                crate::graph::Id::Name(_) => unreachable!(),
            };
            let got: std::collections::BTreeSet<(u64, u64)> = g.edges().map(|(u, v, _)| (orig(u), orig(v))).collect();
            let want: std::collections::BTreeSet<(u64, u64)> =
                edges.iter().filter(|e| e.0 != e.1).map(|&(u, v, _)| (id(u), id(v))).collect();
            proptest::prop_assert_eq!(got, want);
            // A vertex has every label given it (a set label where several), 0 where none.
            let mut given = std::collections::BTreeMap::<u64, std::collections::BTreeSet<u32>>::new();
            for &(v, l) in &labels {
                given.entry(id(v)).or_default().insert(l);
            }
            for v in 0..g.num_vertices() as u32 {
                let want: Vec<u32> = given.get(&orig(v)).map_or(vec![0], |s| s.iter().copied().collect());
                let label = g.label(v);
                proptest::prop_assert_eq!(g.vertex_label_members(&label), &want[..]);
            }
            // Ids are kept only where they are not 0..n already.
            proptest::prop_assert!(g.ids().is_none() || (0..g.num_vertices() as u32).any(|v| orig(v) != v as u64));
        }
    }

    #[test]
    fn words_are_numbered_as_a_files_labels() {
        assert_eq!(number_labels(&["3", "0", "3"], "label"), Ok((vec![3, 0, 3], Vec::new())));
        let err = number_labels(&["4294967296", "a"], "vertex label").unwrap_err();
        assert_eq!(err, "bad vertex label '4294967296' (an integer 0..=4294967295, or a name)");
        // The same words in a vertex label file: the same names, the same numbers.
        let words = ["Person", "7", "Lang", "Person", "0"];
        let (labels, names) = number_labels(&words, "label").unwrap();
        assert_eq!(names, ["0", "7", "Lang", "Person"]);
        let file: String = words.iter().enumerate().map(|(v, w)| format!("{v} {w}\n")).collect();
        let mut raw =
            crate::io::edgelist::parse(Path::new("e"), b"0 1\n1 2\n2 3\n3 4\n", false, IdMode::Compact).unwrap();
        crate::io::edgelist::parse_labels(Path::new("l"), file.as_bytes(), &mut raw).unwrap();
        let g = raw.into_graph(Path::new("e")).unwrap();
        assert_eq!((g.labels(), &g.label_names().unwrap().vertex), (&labels[..], &names));
    }

    #[test]
    fn names_compact_in_byte_order() {
        let names: HashMap<Box<str>, u64> =
            [("zed", 0), ("amy", 1), ("bo", 2)].into_iter().map(|(s, i)| (s.into(), i)).collect();
        let mut e = edges(&[(0, 1), (2, 0)]);
        let (n, kept) = compact_names(names, &mut e, &mut []);
        assert_eq!((n, ids(e)), (3, vec![(2, 0), (1, 2)]));
        assert_eq!(kept, Some(VertexIds::names(&["amy", "bo", "zed"])));
    }
}
