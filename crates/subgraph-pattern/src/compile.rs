//! A parsed pattern lowered onto one data graph: its labels resolved (numbers or names; an
//! absent label expanded over the label combinations the data graph holds) into the query
//! graphs the engines match, its property tests into each vertex's set of data vertices that
//! pass them (the engines' filters start from it), and what each match contributes to the
//! result rows (RETURN, DISTINCT, LIMIT).
//!
//! The expansions are disjoint: a data vertex has one label (a vertex of several labels has the
//! label of their set, `subgraph_core::graph::LabelSets`) and two data vertices are joined by at
//! most one edge per direction (several edges by one edge labelled by their set), so no match
//! of one expansion is a match of another, and the pattern's matches are their union (counts
//! add up). A pattern label L expands into every data label whose set holds L; a pattern edge
//! without label binds to each edge of a set, so its expansion into a set of k labels counts
//! each match k times (`Compiled::weights`), as Cypher counts relationships and SPARQL triples.
//! A pattern's self loop `(a)-[:r]->(a)` restricts `a` to the data vertices with a loop of
//! label r (one without label expands over the loop labels).

use crate::{CompareOp, Direction, LabelRef, Pattern, Predicate, Return, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use subgraph_core::filter::Bitset;
use subgraph_core::graph::{edge_members, holds_all, vertex_members, Column, LabelSets, Value as PropertyValue};
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Dir, Graph, GraphBuilder};

/// The labels a data vertex or edge must all hold (its own, or its set's); None: any.
pub type Need = Option<Vec<u32>>;

/// A pattern edge without direction (from, to, labels) that a query matches reversed.
pub type Skip = (usize, usize, Need);

/// Queries with the skips and weights of each.
type Queries = (Vec<Graph>, Vec<Vec<Skip>>, Vec<u64>);

/// Label combinations one pattern may expand into; beyond this the user is asked for labels.
pub const MAX_EXPANSIONS: usize = 4096;

/// Why a pattern cannot be matched on a data graph.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CompileError {
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}")]
    Invalid(String),
    /// The caller's `halt` held (a deadline, Ctrl-C) before the pattern was compiled.
    #[error("stopped while the pattern's labels were expanded")]
    Stopped,
    /// Property tests on a data graph read without vertex properties (the command line's
    /// option names the fix; other front ends word it their way).
    #[error(
        "property tests ({{key: value}} maps and WHERE) need the data graph's vertex properties: give \
         --vertex-props FILE.csv"
    )]
    NoProperties,
}

/// The (source label, edge label, target label) triples of a data graph's edges: what an
/// expansion must find for each pattern edge. Undirected graphs hold both orientations. With
/// the sets behind the data's labels, to ask which labels hold a pattern's.
pub struct LabelTriples {
    vertex_labels: Vec<u32>,
    /// Per (source label, target label): the edge labels between them, sorted.
    by_ends: HashMap<(u32, u32), Vec<u32>>,
    sets: Option<Arc<LabelSets>>,
    /// The distinct labels of the data's self loops, sorted.
    loop_labels: Vec<u32>,
}

impl LabelTriples {
    /// One pass over every vertex's neighbour groups.
    pub fn of(data: &Graph) -> LabelTriples {
        let mut triples = HashSet::new();
        for v in 0..data.num_vertices() as u32 {
            let lv = data.label(v);
            for (pair, _) in data.neighbor_groups(v, Dir::Out) {
                let (el, lw) = data.pair(pair);
                triples.insert((lv, el, lw));
            }
        }
        let mut by_ends: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        for (a, el, b) in triples {
            by_ends.entry((a, b)).or_default().push(el);
        }
        by_ends.values_mut().for_each(|l| l.sort_unstable());
        let mut loop_labels: Vec<u32> = data.loops().iter().map(|l| l.1).collect();
        loop_labels.sort_unstable();
        loop_labels.dedup();
        LabelTriples {
            vertex_labels: data.vertex_label_values().to_vec(),
            by_ends,
            sets: data.label_sets().cloned(),
            loop_labels,
        }
    }

    /// The edge labels joining a vertex labelled `from` to one labelled `to`, sorted.
    fn edge_labels(&self, from: u32, to: u32) -> &[u32] {
        self.by_ends.get(&(from, to)).map_or(&[], Vec::as_slice)
    }

    /// Whether data vertex label `label` holds every label `need` asks for.
    fn vertex_fits(&self, label: u32, need: &Need) -> bool {
        holds_all(vertex_members(self.sets.as_deref(), &label), need.as_deref())
    }

    /// Whether data edge label `label` holds every label `need` asks for.
    fn edge_fits(&self, label: u32, need: &Need) -> bool {
        holds_all(self.edge_members(&label), need.as_deref())
    }

    /// The edge labels data edge label `label` stands for.
    fn edge_members<'a>(&'a self, label: &'a u32) -> &'a [u32] {
        edge_members(self.sets.as_deref(), label)
    }

    /// Whether some data pair has several edges (an edge without label binds to each).
    fn has_edge_sets(&self) -> bool {
        self.sets.as_ref().is_some_and(|s| !s.edge_sets().is_empty())
    }
}

/// A pattern ready to run: the query graphs (pattern vertex i is query vertex i in each) and
/// the shape of its rows.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub queries: Vec<Graph>,
    /// Per query: the pattern edges (from, to, label) without direction that it matches
    /// reversed; its matches where such an edge also exists forward (with an allowed label)
    /// belong to another query and are skipped.
    pub skips: Vec<Vec<Skip>>,
    /// Per query: how many matches of the pattern each of its matches is (the product, over
    /// the pattern's edges without label, of the labels in the set of the data edge it binds
    /// to); 1 where no data pair has several edges.
    pub weights: Vec<u64>,
    /// Whether property tests or labels restrict some vertex (the queries carry it).
    pub restricted: bool,
    /// The queries are for the data graph's label-free view (`Graph::without_labels`, or
    /// `Graph::edges_holding(view_edges)`): a pattern whose edges all ask for the same labels
    /// (or none) and whose vertex labels expand into too many queries, its labelled vertices
    /// restricted to the vertices whose labels hold theirs.
    pub view: bool,
    /// The labels every edge of the view holds (None: the view has every edge).
    pub view_edges: Need,
    /// Pattern vertices, the width of every match.
    pub width: usize,
    /// The pattern vertices each row holds, in RETURN order (empty for `count(*)`).
    pub columns: Vec<usize>,
    /// The rows' column names (`count(*)` for a count).
    pub names: Vec<String>,
    pub count_star: bool,
    /// Rows must be made distinct (DISTINCT over fewer than all vertices, or where a match may
    /// be several rows (`weights`); matches are distinct already).
    pub distinct: bool,
    pub limit: Option<u64>,
}

/// Lowers `pattern` onto `data`. `triples` (`data`'s) is asked for only when some label is
/// absent. Once `halt` holds (asked as the labels are expanded) it stops with
/// [`CompileError::Stopped`].
pub fn compile<'t>(
    pattern: &Pattern,
    data: &Graph,
    triples: impl FnOnce() -> &'t LabelTriples,
    halt: &dyn Fn() -> bool,
) -> Result<Compiled, CompileError> {
    compile_within(pattern, data, triples, MAX_EXPANSIONS, halt)
}

/// [`compile`] with at most `max` expansions before a pattern whose edges have no labels is
/// matched on the label-free view of the data instead (`Compiled::view`).
pub fn compile_within<'t>(
    pattern: &Pattern,
    data: &Graph,
    triples: impl FnOnce() -> &'t LabelTriples,
    max: usize,
    halt: &dyn Fn() -> bool,
) -> Result<Compiled, CompileError> {
    let lowered = lower(pattern, data)?;
    match expand_all(&lowered, data, triples, max, halt)? {
        Some(queries) => Ok(shape(pattern, queries)),
        None => {
            let view_edges = lowered.edges.first().and_then(|e| e.2.clone());
            Ok(Compiled { view: true, view_edges, ..shape(pattern, label_free(pattern.vertices.len(), data, lowered)) })
        }
    }
}

/// A query graph (of a file, in the data's label space before its labels' sets) as the
/// queries that match it on `data`: each of its labels expanded into the data's labels whose
/// sets hold it, each of its self loops a restriction to the data vertices with such a loop.
/// Every query of the result has weight 1 (a query's edges all have labels) and no skip; at
/// most `max` of them, past which a query whose edges all have one label is matched over the
/// data's edges of that label without labels, its vertex labels restrictions
/// ([`QueryPlan::view_edges`]).
pub fn compile_query<'t>(
    query: &Graph,
    data: &Graph,
    triples: impl FnOnce() -> &'t LabelTriples,
    max: usize,
    halt: &dyn Fn() -> bool,
) -> Result<QueryPlan, CompileError> {
    let n = query.num_vertices();
    let vertex_labels = (0..n as u32).map(|u| Some(query.vertex_label_members(&query.label(u)).to_vec())).collect();
    let edges =
        query.edges().map(|(a, b, l)| (a as usize, b as usize, Some(query.edge_label_members(&l).to_vec()))).collect();
    let mut allowed: Vec<Option<Arc<Bitset>>> =
        (0..n as u32).map(|u| query.allowed(u).cloned().map(Arc::new)).collect();
    for &(u, l) in query.loops() {
        restrict_to_loop(&mut allowed[u as usize], data, l);
    }
    let lowered = Lowered { vertex_labels, edges, either: Vec::new(), allowed, open_loops: Vec::new() };
    match expand_all(&lowered, data, triples, max, halt) {
        Ok(Some(found)) => Ok(QueryPlan { queries: found.0, view_edges: None }),
        Ok(None) => {
            let view_edges = Some(lowered.edges.first().and_then(|e| e.2.clone()));
            Ok(QueryPlan { view_edges, queries: label_free(n, data, lowered).0 })
        }
        Err(CompileError::Unsupported(_)) => Err(too_many_sets()),
        Err(e) => Err(e),
    }
}

/// A query file's query on one data graph (`compile_query`).
#[derive(Debug, Clone)]
pub struct QueryPlan {
    /// The queries whose matches add up to the query's.
    pub queries: Vec<Graph>,
    /// Where the queries are for `Graph::edges_holding` of these labels (inner None: every
    /// edge), not for the data graph itself.
    pub view_edges: Option<Need>,
}

/// The queries, skips and weights of `lowered` on `data`; None where a pattern of unlabelled
/// edges expands into more than `max` queries and is to run on the label-free view instead.
fn expand_all<'t>(
    lowered: &Lowered,
    data: &Graph,
    triples: impl FnOnce() -> &'t LabelTriples,
    max: usize,
    halt: &dyn Fn() -> bool,
) -> Result<Option<Queries>, CompileError> {
    let Lowered { vertex_labels, edges, either, allowed, open_loops } = lowered;
    let sets = data.label_sets().is_some();
    let open = sets || vertex_labels.iter().any(Option::is_none) || edges.iter().any(|e| e.2.is_none());
    let triples = if open || !open_loops.is_empty() { Some(triples()) } else { None };
    // An edge without direction on directed data: each orientation its own query (2^e of
    // them); a match of one where the edge is reversed is skipped where the forward edge
    // exists too, since the forward query finds it (`Compiled::skips`).
    if either.len() > MAX_EXPANSIONS.ilog2() as usize {
        return Err(too_many());
    }
    let edge_sets = triples.is_some_and(LabelTriples::has_edge_sets);
    let (mut queries, mut skips, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for turn in 0..1usize << either.len() {
        let mut oriented = edges.clone();
        let mut skip = Vec::new();
        for (bit, &i) in either.iter().enumerate() {
            if turn >> bit & 1 == 1 {
                let (a, b, l) = edges[i].clone();
                oriented[i] = (b, a, l.clone());
                skip.push((a, b, l));
            }
        }
        let left = max.saturating_sub(queries.len());
        let found = match triples.filter(|_| open) {
            Some(t) => expand(vertex_labels, &oriented, t, data.is_directed(), left, halt),
            None => Ok(closed(vertex_labels, &oriented, data.is_directed())),
        };
        match found {
            Ok(found) if queries.len() + found.len() <= max => {
                skips.extend(std::iter::repeat_n(skip, found.len()));
                for (q, w) in found {
                    queries.push(q);
                    weights.push(w);
                }
            }
            // Too many label combinations, and no edge label to keep (nor a pair of several
            // edges, which an edge without label binds to one by one): the vertex labels
            // become restrictions over the label-free view.
            _ if one_need(edges) && (edges.first().is_some_and(|e| e.2.is_some()) || !edge_sets) => {
                return Ok(None);
            }
            Ok(_) => return Err(too_many()),
            Err(e) => return Err(e),
        }
    }
    let variants = loop_variants(allowed, open_loops, data, triples);
    if variants.len() * queries.len() > max {
        return Err(too_many());
    }
    let (mut out, mut out_skips, mut out_weights) = (Vec::new(), Vec::new(), Vec::new());
    for variant in &variants {
        for ((q, skip), &w) in queries.iter().zip(&skips).zip(&weights) {
            let mut q = q.clone();
            if variant.iter().any(Option::is_some) {
                q.restrict(variant.clone());
            }
            out.push(q);
            out_skips.push(skip.clone());
            out_weights.push(w);
        }
    }
    Ok(Some((out, out_skips, out_weights)))
}

/// Whether every edge asks for the same labels (or every edge for none): a view of the data's
/// edges that hold them answers for each.
fn one_need(edges: &[(usize, usize, Need)]) -> bool {
    edges.windows(2).all(|w| w[0].2 == w[1].2)
}

/// The one query of a pattern whose labels are all given, on data without label sets; none
/// where a vertex or edge asks for two labels at once, which no data vertex or edge holds.
fn closed(vertex_labels: &[Need], edges: &[(usize, usize, Need)], directed: bool) -> Vec<(Graph, u64)> {
    let one = |need: &Need| match need.as_deref() {
        Some([l]) => Some(*l),
        _ => None,
    };
    let labels: Option<Vec<u32>> = vertex_labels.iter().map(one).collect();
    let edges: Option<Vec<(u32, u32, u32)>> =
        edges.iter().map(|(a, b, l)| one(l).map(|l| (*a as u32, *b as u32, l))).collect();
    match labels.zip(edges) {
        Some((labels, edges)) => vec![(GraphBuilder::from_parts(labels, edges, directed).build().0, 1)],
        None => Vec::new(),
    }
}

/// Per choice of a loop label for each pattern vertex with a self loop without label: the
/// vertices' restrictions, narrowed to the data vertices with a loop of that label (one
/// variant, `allowed` itself, where there is no such loop).
fn loop_variants(
    allowed: &[Option<Arc<Bitset>>],
    open_loops: &[usize],
    data: &Graph,
    triples: Option<&LabelTriples>,
) -> Vec<Vec<Option<Arc<Bitset>>>> {
    let mut variants = vec![allowed.to_vec()];
    let labels = triples.map_or(&[][..], |t| t.loop_labels.as_slice());
    for &u in open_loops {
        variants = variants
            .into_iter()
            .flat_map(|v| {
                labels.iter().map(move |&l| {
                    let mut v = v.clone();
                    restrict_to_loop(&mut v[u], data, l);
                    v
                })
            })
            .collect();
    }
    variants
}

/// Narrows `allowed` (None: every vertex) to the data vertices with a self loop of `label`.
fn restrict_to_loop(allowed: &mut Option<Arc<Bitset>>, data: &Graph, label: u32) {
    let mut set = Bitset::new(data.num_vertices());
    for &(v, l) in data.loops() {
        if l == label && allowed.as_ref().is_none_or(|a| a.contains(v)) {
            set.insert(v);
        }
    }
    *allowed = Some(Arc::new(set));
}

/// The pattern as a tree query rooted at pattern vertex `root` (GGQ's tree-pattern queries,
/// counted without enumeration by `subgraph_core::tree`): Some where its undirected shape is a
/// tree, no edge without direction lies on directed data, it has no self loop, and the data
/// has no label sets (the tree passes compare labels one by one).
pub fn tree(pattern: &Pattern, data: &Graph, root: usize) -> Result<Option<TreeQuery>, CompileError> {
    // A tree has one edge fewer than vertices (checked before the property tests' pass).
    if pattern.edges.len() + 1 != pattern.vertices.len() || data.label_sets().is_some() {
        return Ok(None);
    }
    let l = lower(pattern, data)?;
    if !l.either.is_empty() || !l.open_loops.is_empty() || l.edges.len() != pattern.edges.len() {
        return Ok(None);
    }
    let one = |need: &Need| -> Result<Option<u32>, ()> {
        match need.as_deref() {
            None => Ok(None),
            Some([x]) => Ok(Some(*x)),
            Some(_) => Err(()),
        }
    };
    let labels: Result<Vec<Option<u32>>, ()> = l.vertex_labels.iter().map(one).collect();
    let edges: Result<Vec<(u32, u32, Option<u32>)>, ()> =
        l.edges.iter().map(|(a, b, x)| one(x).map(|x| (*a as u32, *b as u32, x))).collect();
    let (Ok(labels), Ok(edges)) = (labels, edges) else {
        return Ok(None);
    };
    Ok(TreeQuery::new(labels, &edges, l.allowed, root as u32, data.is_directed()))
}

/// A pattern's labels resolved on `data` (None: absent), its edges (from, to, labels; on
/// undirected data from < to; the edges joining one pair in one direction one edge of all
/// their labels), the indices of its edges without direction on directed data, its vertices'
/// restrictions (property tests, self loops with a label), and its vertices with a self loop
/// without label.
struct Lowered {
    vertex_labels: Vec<Need>,
    edges: Vec<(usize, usize, Need)>,
    either: Vec<usize>,
    allowed: Vec<Option<Arc<Bitset>>>,
    open_loops: Vec<usize>,
}

fn lower(pattern: &Pattern, data: &Graph) -> Result<Lowered, CompileError> {
    let mut allowed = restrictions(pattern, data)?;
    let names = data.label_names();
    let resolve = |l: &LabelRef, edge: bool| -> Result<u32, CompileError> {
        let name = match l {
            LabelRef::Id(x) => return Ok(*x),
            LabelRef::Name(name) => name,
        };
        let kind = if edge { "edge" } else { "vertex" };
        let list = names.map(|n| if edge { &n.edge } else { &n.vertex }).filter(|l| !l.is_empty());
        let Some(list) = list else {
            return Err(CompileError::Unsupported(format!(
                "{kind} label '{name}' is a name, and the data graph's {kind} labels are numbers: write the \
                 label's number, as in {}",
                if edge { "-[:3]->" } else { "(a:3)" }
            )));
        };
        let found =
            if edge { names.and_then(|n| n.edge_label(name)) } else { names.and_then(|n| n.vertex_label(name)) };
        found.ok_or_else(|| {
            let shown: Vec<&str> = list.iter().take(8).map(String::as_str).collect();
            CompileError::Invalid(format!(
                "no {kind} label of the data graph is named '{name}' (its {} names: {}{})",
                list.len(),
                shown.join(", "),
                if list.len() > shown.len() { ", …" } else { "" }
            ))
        })
    };
    let vertex_labels: Vec<Need> = pattern
        .vertices
        .iter()
        .map(|v| match &v.label {
            None => Ok(None),
            Some(first) => {
                let mut need = std::iter::once(first)
                    .chain(&v.more_labels)
                    .map(|l| resolve(l, false))
                    .collect::<Result<Vec<u32>, _>>()?;
                need.sort_unstable();
                need.dedup();
                Ok(Some(need))
            }
        })
        .collect::<Result<_, _>>()?;
    let mut edges: Vec<(usize, usize, Need)> = Vec::with_capacity(pattern.edges.len());
    // On directed data, the edges without direction (by index in `edges`).
    let mut either = Vec::new();
    // Per ordered pair (unordered on undirected data): its edge in `edges`, and whether it is
    // one without direction on directed data.
    let mut joined: HashMap<(usize, usize), (usize, bool)> = HashMap::new();
    let mut looped: HashMap<usize, Option<u32>> = HashMap::new();
    let mut open_loops = Vec::new();
    for e in &pattern.edges {
        let label = e.label.as_ref().map(|l| resolve(l, true)).transpose()?;
        if e.from == e.to {
            // A self loop: the vertices with a loop of its label (of any, counted per loop).
            match looped.insert(e.from, label) {
                Some(before) if before.is_none() || label.is_none() || before == label => {
                    return Err(twice(pattern, e.from, e.from, data.is_directed()));
                }
                _ => {}
            }
            match label {
                Some(l) => restrict_to_loop(&mut allowed[e.from], data, l),
                None => open_loops.push(e.from),
            }
            continue;
        }
        if e.direction == Direction::Out && !data.is_directed() {
            return Err(CompileError::Invalid(format!(
                "the edge from {} to {} has a direction, but the data graph is undirected (as a directed query \
                 file is refused); write it without one, as (a)--(b)",
                vertex_name(pattern, e.from),
                vertex_name(pattern, e.to)
            )));
        }
        let (from, to) = match data.is_directed() {
            true => (e.from, e.to),
            false => (e.from.min(e.to), e.from.max(e.to)),
        };
        let both = e.direction == Direction::Either && data.is_directed();
        let clash = |key: (usize, usize)| joined.get(&key).copied();
        match (clash((from, to)), both.then(|| clash((to, from))).flatten()) {
            (None, None) => {}
            // A second labelled edge on a pair in the same direction: one edge of both labels.
            (Some((i, false)), None) if !both => {
                match (&mut edges[i].2, label) {
                    (Some(need), Some(l)) => {
                        need.push(l);
                        need.sort_unstable();
                        need.dedup();
                    }
                    _ => return Err(twice(pattern, from, to, data.is_directed())),
                }
                continue;
            }
            _ => return Err(twice(pattern, from, to, data.is_directed())),
        }
        if both {
            either.push(edges.len());
            joined.insert((to, from), (edges.len(), true));
        }
        joined.insert((from, to), (edges.len(), both));
        edges.push((from, to, label.map(|l| vec![l])));
    }
    Ok(Lowered { vertex_labels, edges, either, allowed, open_loops })
}

/// Two pattern edges joining `a` and `b` that cannot be one edge of several labels: one
/// without label beside another (a relationship of any type besides one of a given type, which
/// Cypher would bind to two different relationships), or one without direction on directed data
/// beside another.
fn twice(pattern: &Pattern, a: usize, b: usize, directed: bool) -> CompileError {
    let what = if a == b {
        format!("{} has two self loops", vertex_name(pattern, a))
    } else {
        format!(
            "{} and {} are joined by two edges{}",
            vertex_name(pattern, a),
            vertex_name(pattern, b),
            if directed { " in one direction" } else { "" }
        )
    };
    CompileError::Invalid(format!(
        "{what}, and one of them has no label{}; a pair may be joined by several edges only of different given \
         labels, as (a)-[:knows]->(b), (a)-[:worksWith]->(b)",
        if directed && a != b { " or no direction" } else { "" }
    ))
}

/// The queries and skips of the label-free view: one orientation per edge without direction
/// on directed data, every label 0, each labelled vertex restricted to the vertices whose
/// labels hold its own (within its other restrictions).
fn label_free(k: usize, data: &Graph, lowered: Lowered) -> Queries {
    let Lowered { vertex_labels, edges, either, mut allowed, open_loops } = lowered;
    for (u, need) in vertex_labels.iter().enumerate() {
        if need.is_some() {
            let mut set = Bitset::new(data.num_vertices());
            let within = allowed[u].clone();
            for &c in data.vertex_label_values() {
                if holds_all(data.vertex_label_members(&c), need.as_deref()) {
                    data.vertices_with_label(c)
                        .iter()
                        .filter(|&&v| within.as_ref().is_none_or(|a| a.contains(v)))
                        .for_each(|&v| set.insert(v));
                }
            }
            allowed[u] = Some(Arc::new(set));
        }
    }
    let triples = (!open_loops.is_empty()).then(|| LabelTriples::of(data));
    let variants = loop_variants(&allowed, &open_loops, data, triples.as_ref());
    let (mut queries, mut skips) = (Vec::new(), Vec::new());
    for turn in 0..1usize << either.len() {
        let mut skip = Vec::new();
        let oriented: Vec<(u32, u32, u32)> = edges
            .iter()
            .enumerate()
            .map(|(i, (a, b, _))| match either.iter().position(|&j| j == i) {
                // The view holds only edges of the need: any forward edge there is one.
                Some(bit) if turn >> bit & 1 == 1 => {
                    skip.push((*a, *b, None));
                    (*b as u32, *a as u32, 0)
                }
                _ => (*a as u32, *b as u32, 0),
            })
            .collect();
        let q = GraphBuilder::from_parts(vec![0; k], oriented, data.is_directed()).build().0;
        for variant in &variants {
            let mut q = q.clone();
            if variant.iter().any(Option::is_some) {
                q.restrict(variant.clone());
            }
            queries.push(q);
            skips.push(skip.clone());
        }
    }
    let weights = vec![1; queries.len()];
    (queries, skips, weights)
}

/// The compiled form of `pattern` over these queries: its rows' shape.
fn shape(pattern: &Pattern, (queries, skips, weights): Queries) -> Compiled {
    let restricted = queries.iter().any(Graph::is_restricted);
    let columns = match &pattern.returns {
        Return::CountStar => Vec::new(),
        _ => pattern.returned_vertices(),
    };
    let count_star = matches!(pattern.returns, Return::CountStar);
    let distinct = pattern.distinct && !count_star && {
        let mut all: Vec<usize> = columns.clone();
        all.sort_unstable();
        all.dedup();
        // A match of weight k is k rows of one vertex tuple.
        all.len() < pattern.vertices.len() || weights.iter().any(|&w| w > 1)
    };
    Compiled {
        queries,
        skips,
        weights,
        restricted,
        view: false,
        view_edges: None,
        width: pattern.vertices.len(),
        columns,
        names: pattern.column_names(),
        count_star,
        distinct,
        limit: pattern.limit,
    }
}

/// Per pattern vertex, the data vertices that pass its property tests (None: it has none).
fn restrictions(pattern: &Pattern, data: &Graph) -> Result<Vec<Option<Arc<Bitset>>>, CompileError> {
    let mut out = vec![None; pattern.vertices.len()];
    if pattern.predicates.is_empty() {
        return Ok(out);
    }
    let Some(props) = data.properties() else {
        return Err(CompileError::NoProperties);
    };
    let mut tests: Vec<Vec<(&Column, &Predicate)>> = vec![Vec::new(); pattern.vertices.len()];
    for p in &pattern.predicates {
        let column = props.column(&p.key).ok_or_else(|| {
            let names: Vec<&str> = props.columns().iter().map(|c| c.name.as_str()).collect();
            CompileError::Invalid(format!(
                "{} is tested on property '{}', which the vertex properties do not have (they have: {})",
                vertex_name(pattern, p.vertex),
                p.key,
                names.join(", ")
            ))
        })?;
        tests[p.vertex].push((column, p));
    }
    let n = data.num_vertices();
    for (u, tests) in tests.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
        let mut set = Bitset::new(n);
        for v in 0..n as u32 {
            if tests.iter().all(|(c, p)| c.get(v).is_some_and(|x| holds(x, p.op, &p.value))) {
                set.insert(v);
            }
        }
        out[u] = Some(Arc::new(set));
    }
    Ok(out)
}

/// Whether a vertex's value `x` compares to `want` as `op` says: numbers with numbers
/// (exactly), strings with strings; anything else is false, as Cypher's null.
fn holds(x: PropertyValue<'_>, op: CompareOp, want: &Value) -> bool {
    let ordering = match (x, want) {
        (PropertyValue::Str(a), Value::Str(b)) => Some(a.cmp(b.as_str())),
        (PropertyValue::Int(a), _) => Value::Int(a).compare(want),
        (PropertyValue::Float(a), _) => Value::Float(a).compare(want),
        (PropertyValue::Str(_), _) => None,
    };
    ordering.is_some_and(|o| op.holds(o))
}

fn too_many() -> CompileError {
    CompileError::Unsupported(format!(
        "the pattern expands into more than {MAX_EXPANSIONS} queries on this data graph (absent labels, labels held by \
         several of the data's sets of labels, and edges without direction on directed data); give some of its \
         vertices or edges a label or a direction"
    ))
}

/// [`too_many`] for a query file's query, whose labels are all given.
fn too_many_sets() -> CompileError {
    CompileError::Unsupported(format!(
        "the query expands into more than {MAX_EXPANSIONS} queries over the data graph's sets of labels (its labels \
         are each held by several sets: vertices of several labels, pairs of several edges), which is not supported \
         yet; a smaller query, or data of fewer sets, runs"
    ))
}

/// A vertex as the user wrote it, for messages.
fn vertex_name(pattern: &Pattern, v: usize) -> String {
    match &pattern.vertices[v].name {
        Some(n) => format!("'{n}'"),
        None => format!("the unnamed vertex #{}", v + 1),
    }
}

/// Backtracking nodes of [`expand`] between two looks at its `halt`.
const HALT_EVERY: u64 = 4096;

/// Each pattern vertex's possible labels: the data's labels whose sets hold its own (every
/// label of the data where it has none), narrowed to arc consistency: a label stays only while
/// each of the vertex's edges finds, among the labels left to its other end, one whose (source
/// label, edge label, target label) occurs in the data with an edge label that holds the
/// edge's. An empty one means no expansion.
fn domains(
    vertex_labels: &[Need],
    edges: &[(usize, usize, Need)],
    triples: &LabelTriples,
    halt: &dyn Fn() -> bool,
) -> Result<Vec<HashSet<u32>>, CompileError> {
    let mut domains: Vec<HashSet<u32>> = vertex_labels
        .iter()
        .map(|need| triples.vertex_labels.iter().copied().filter(|&x| triples.vertex_fits(x, need)).collect())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (a, b, need) in edges {
            let (a, b) = (*a, *b);
            if halt() {
                return Err(CompileError::Stopped);
            }
            let (mut from, mut to) = (HashSet::new(), HashSet::new());
            for (&(x, y), labels) in &triples.by_ends {
                let fits = labels.iter().any(|&el| triples.edge_fits(el, need));
                if fits && domains[a].contains(&x) && domains[b].contains(&y) {
                    from.insert(x);
                    to.insert(y);
                }
            }
            changed |= from.len() < domains[a].len() || to.len() < domains[b].len();
            domains[a] = from;
            domains[b] = to;
        }
    }
    Ok(domains)
}

/// Every assignment of data labels to the pattern's vertices and edges under which each
/// edge's (source label, edge label, target label) occurs in the data and each label holds the
/// pattern's, as query graphs with their weights; `halt` is asked every [`HALT_EVERY`] steps of
/// the search.
fn expand(
    vertex_labels: &[Need],
    edges: &[(usize, usize, Need)],
    triples: &LabelTriples,
    directed: bool,
    max: usize,
    halt: &dyn Fn() -> bool,
) -> Result<Vec<(Graph, u64)>, CompileError> {
    let n = vertex_labels.len();
    let domains: Vec<Vec<u32>> = domains(vertex_labels, edges, triples, halt)?
        .into_iter()
        .map(|d| {
            let mut d: Vec<u32> = d.into_iter().collect();
            d.sort_unstable();
            d
        })
        .collect();
    if domains.iter().any(Vec::is_empty) {
        return Ok(Vec::new());
    }
    let holds = |a: u32, need: &Need, b: u32| triples.edge_labels(a, b).iter().any(|&el| triples.edge_fits(el, need));
    // Vertex labels by backtracking, each edge checked once both ends are labelled.
    let mut out = Vec::new();
    let mut labels = vec![0u32; n];
    let mut stack: Vec<usize> = vec![0];
    let mut steps = 0u64;
    while let Some(&i) = stack.last() {
        steps += 1;
        if steps.is_multiple_of(HALT_EVERY) && halt() {
            return Err(CompileError::Stopped);
        }
        let v = stack.len() - 1;
        let domain = &domains[v];
        if i >= domain.len() {
            stack.pop();
            if let Some(top) = stack.last_mut() {
                *top += 1;
            }
            continue;
        }
        labels[v] = domain[i];
        let fits = edges.iter().filter(|e| e.0.max(e.1) == v).all(|(a, b, need)| holds(labels[*a], need, labels[*b]));
        if !fits {
            *stack.last_mut().expect("not empty") += 1;
        } else if v + 1 < n {
            stack.push(0);
        } else {
            edge_choices(&labels, edges, triples, directed, max, &mut out)?;
            *stack.last_mut().expect("not empty") += 1;
        }
    }
    Ok(out)
}

/// The query graphs of one vertex labelling, with their weights: one per choice of a data edge
/// label for each edge, among those that hold the edge's labels; an edge without label that
/// takes a set of k labels binds to each of its k edges (weight k).
fn edge_choices(
    labels: &[u32],
    edges: &[(usize, usize, Need)],
    triples: &LabelTriples,
    directed: bool,
    max: usize,
    out: &mut Vec<(Graph, u64)>,
) -> Result<(), CompileError> {
    let options: Vec<Vec<(u32, u64)>> = edges
        .iter()
        .map(|(a, b, need)| {
            let between = triples.edge_labels(labels[*a], labels[*b]).iter();
            between
                .filter(|&&el| triples.edge_fits(el, need))
                .map(|&el| (el, if need.is_none() { triples.edge_members(&el).len() as u64 } else { 1 }))
                .collect()
        })
        .collect();
    if options.iter().any(Vec::is_empty) {
        return Ok(());
    }
    let mut pick = vec![0usize; edges.len()];
    loop {
        if out.len() >= max {
            return Err(too_many());
        }
        let chosen = edges
            .iter()
            .zip(&pick)
            .enumerate()
            .map(|(j, ((a, b, _), &p))| (*a as u32, *b as u32, options[j][p].0))
            .collect();
        let weight = options.iter().zip(&pick).map(|(o, &p)| o[p].1).product();
        out.push((GraphBuilder::from_parts(labels.to_vec(), chosen, directed).build().0, weight));
        // The next combination, odometer style.
        let mut j = 0;
        loop {
            if j == edges.len() {
                return Ok(());
            }
            pick[j] += 1;
            if pick[j] < options[j].len() {
                break;
            }
            pick[j] = 0;
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests;
