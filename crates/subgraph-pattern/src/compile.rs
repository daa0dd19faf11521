//! A parsed pattern lowered onto one data graph: its labels resolved (numbers or names; an
//! absent label expanded over the label combinations the data graph holds) into the query
//! graphs the engines match, its property tests into each vertex's set of data vertices that
//! pass them (the engines' filters start from it), and what each match contributes to the
//! result rows (RETURN, DISTINCT, LIMIT).
//!
//! The expansions are disjoint: a data vertex has one label and two data vertices are joined
//! by at most one edge per direction, so no match of one expansion is a match of another, and
//! the pattern's matches are their union (counts add up).

use crate::{CompareOp, Direction, LabelRef, Pattern, Predicate, Return, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use subgraph_core::filter::Bitset;
use subgraph_core::graph::{Column, Value as PropertyValue};
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Dir, Graph, GraphBuilder};

/// A pattern edge without direction (from, to, label) that a query matches reversed.
pub type Skip = (usize, usize, Option<u32>);

/// Queries with the skips of each.
type Queries = (Vec<Graph>, Vec<Vec<Skip>>);

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
/// expansion must find for each pattern edge. Undirected graphs hold both orientations.
pub struct LabelTriples {
    vertex_labels: Vec<u32>,
    /// Per (source label, target label): the edge labels between them, sorted.
    by_ends: HashMap<(u32, u32), Vec<u32>>,
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
        LabelTriples { vertex_labels: data.vertex_label_values().to_vec(), by_ends }
    }

    /// The edge labels joining a vertex labelled `from` to one labelled `to`, sorted.
    fn edge_labels(&self, from: u32, to: u32) -> &[u32] {
        self.by_ends.get(&(from, to)).map_or(&[], Vec::as_slice)
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
    /// Whether property tests or labels restrict some vertex (the queries carry it).
    pub restricted: bool,
    /// The queries are for the data graph's label-free view (`Graph::without_labels`): a
    /// pattern of unlabelled edges whose absent vertex labels expand into too many queries,
    /// its labelled vertices restricted to their labels' vertices.
    pub view: bool,
    /// Pattern vertices, the width of every match.
    pub width: usize,
    /// The pattern vertices each row holds, in RETURN order (empty for `count(*)`).
    pub columns: Vec<usize>,
    /// The rows' column names (`count(*)` for a count).
    pub names: Vec<String>,
    pub count_star: bool,
    /// Rows must be made distinct (DISTINCT over fewer than all vertices; matches are distinct
    /// already).
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
    let Lowered { vertex_labels, edges, either, mut allowed } = lower(pattern, data)?;
    let open = vertex_labels.iter().any(Option::is_none) || edges.iter().any(|e| e.2.is_none());
    let triples = if open { Some(triples()) } else { None };
    // An edge without direction on directed data: each orientation its own query (2^e of
    // them); a match of one where the edge is reversed is skipped where the forward edge
    // exists too, since the forward query finds it (`Compiled::skips`).
    if either.len() > MAX_EXPANSIONS.ilog2() as usize {
        return Err(too_many());
    }
    let (mut queries, mut skips) = (Vec::new(), Vec::new());
    for turn in 0..1usize << either.len() {
        let mut oriented = edges.clone();
        let mut skip = Vec::new();
        for (bit, &i) in either.iter().enumerate() {
            if turn >> bit & 1 == 1 {
                let (a, b, l) = edges[i];
                oriented[i] = (b, a, l);
                skip.push((a, b, l));
            }
        }
        let left = max.saturating_sub(queries.len());
        let found = match &triples {
            Some(t) => expand(&vertex_labels, &oriented, t, data.is_directed(), left, halt),
            None => {
                let labels: Vec<u32> = vertex_labels.iter().map(|l| l.expect("closed")).collect();
                let edges = oriented.iter().map(|&(a, b, l)| (a as u32, b as u32, l.expect("closed"))).collect();
                Ok(vec![GraphBuilder::from_parts(labels, edges, data.is_directed()).build().0])
            }
        };
        match found {
            Ok(found) if queries.len() + found.len() <= max => {
                skips.extend(std::iter::repeat_n(skip, found.len()));
                queries.extend(found);
            }
            // Too many label combinations, and no edge label to keep: the vertex labels become
            // restrictions over the label-free view.
            _ if edges.iter().all(|e| e.2.is_none()) => {
                let view = label_free(pattern, data, &vertex_labels, &edges, &either, &mut allowed);
                return Ok(Compiled { view: true, ..shape(pattern, view) });
            }
            Ok(_) => return Err(too_many()),
            Err(e) => return Err(e),
        }
    }
    if allowed.iter().any(Option::is_some) {
        queries.iter_mut().for_each(|q| q.restrict(allowed.clone()));
    }
    Ok(shape(pattern, (queries, skips)))
}

/// The pattern as a tree query rooted at pattern vertex `root` (GGQ's tree-pattern queries,
/// counted without enumeration by `subgraph_core::tree`): Some where its undirected shape is a
/// tree and no edge without direction lies on directed data.
pub fn tree(pattern: &Pattern, data: &Graph, root: usize) -> Result<Option<TreeQuery>, CompileError> {
    // A tree has one edge fewer than vertices (checked before the property tests' pass).
    if pattern.edges.len() + 1 != pattern.vertices.len() {
        return Ok(None);
    }
    let l = lower(pattern, data)?;
    if !l.either.is_empty() {
        return Ok(None);
    }
    let edges: Vec<(u32, u32, Option<u32>)> = l.edges.iter().map(|&(a, b, x)| (a as u32, b as u32, x)).collect();
    Ok(TreeQuery::new(l.vertex_labels, &edges, l.allowed, root as u32, data.is_directed()))
}

/// A pattern's labels resolved on `data` (None: absent), its edges (from, to, label; on
/// undirected data from < to), the indices of its edges without direction on directed data,
/// and its vertices' property restrictions.
struct Lowered {
    vertex_labels: Vec<Option<u32>>,
    edges: Vec<(usize, usize, Option<u32>)>,
    either: Vec<usize>,
    allowed: Vec<Option<Arc<Bitset>>>,
}

fn lower(pattern: &Pattern, data: &Graph) -> Result<Lowered, CompileError> {
    let allowed = restrictions(pattern, data)?;
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
    let number = |l: &LabelRef| resolve(l, false);
    let edge_number = |l: &LabelRef| resolve(l, true);
    let vertex_labels: Vec<Option<u32>> =
        pattern.vertices.iter().map(|v| v.label.as_ref().map(number).transpose()).collect::<Result<_, _>>()?;
    let mut edges: Vec<(usize, usize, Option<u32>)> = Vec::with_capacity(pattern.edges.len());
    // On directed data, the edges without direction (by index in `edges`).
    let mut either = Vec::new();
    let mut joined = HashSet::new();
    for e in &pattern.edges {
        if e.from == e.to {
            return Err(CompileError::Invalid(format!(
                "the edge from {} to itself is a self loop, which data graphs do not hold (they drop them on loading)",
                vertex_name(pattern, e.from)
            )));
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
        if both {
            either.push(edges.len());
        }
        if !joined.insert((from, to)) || (both && !joined.insert((to, from))) {
            return Err(CompileError::Invalid(format!(
                "{} and {} are joined by two edges{}; a data graph holds one edge between two vertices{}",
                vertex_name(pattern, from),
                vertex_name(pattern, to),
                if data.is_directed() { " in one direction" } else { "" },
                if data.is_directed() { " in each direction" } else { "" }
            )));
        }
        edges.push((from, to, e.label.as_ref().map(edge_number).transpose()?));
    }
    Ok(Lowered { vertex_labels, edges, either, allowed })
}

/// The queries and skips of the label-free view: one orientation per edge without direction
/// on directed data, every label 0, each labelled vertex restricted to its label's vertices
/// (within its property tests' restriction).
fn label_free(
    pattern: &Pattern,
    data: &Graph,
    vertex_labels: &[Option<u32>],
    edges: &[(usize, usize, Option<u32>)],
    either: &[usize],
    allowed: &mut [Option<Arc<Bitset>>],
) -> Queries {
    for (u, label) in vertex_labels.iter().enumerate() {
        if let Some(l) = label {
            let mut set = Bitset::new(data.num_vertices());
            let within = allowed[u].clone();
            data.vertices_with_label(*l)
                .iter()
                .filter(|&&v| within.as_ref().is_none_or(|a| a.contains(v)))
                .for_each(|&v| set.insert(v));
            allowed[u] = Some(Arc::new(set));
        }
    }
    let (mut queries, mut skips) = (Vec::new(), Vec::new());
    for turn in 0..1usize << either.len() {
        let mut skip = Vec::new();
        let oriented = edges.iter().enumerate().map(|(i, &(a, b, l))| match either.iter().position(|&j| j == i) {
            Some(bit) if turn >> bit & 1 == 1 => {
                skip.push((a, b, l));
                (b as u32, a as u32, 0)
            }
            _ => (a as u32, b as u32, 0),
        });
        let mut q =
            GraphBuilder::from_parts(vec![0; pattern.vertices.len()], oriented.collect(), data.is_directed()).build().0;
        if allowed.iter().any(Option::is_some) {
            q.restrict(allowed.to_vec());
        }
        queries.push(q);
        skips.push(skip);
    }
    (queries, skips)
}

/// The compiled form of `pattern` over these queries: its rows' shape.
fn shape(pattern: &Pattern, (queries, skips): Queries) -> Compiled {
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
        all.len() < pattern.vertices.len()
    };
    Compiled {
        queries,
        skips,
        restricted,
        view: false,
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
        "the pattern expands into more than {MAX_EXPANSIONS} queries on this data graph (absent labels, and edges \
         without direction on directed data); give some of its vertices or edges a label or a direction"
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

/// Each pattern vertex's possible labels: its own, or every label of the data, narrowed to arc
/// consistency: a label stays only while each of the vertex's edges finds, among the labels
/// left to its other end, one whose (source label, edge label, target label) occurs in the
/// data. An empty one means no expansion.
fn domains(
    vertex_labels: &[Option<u32>],
    edges: &[(usize, usize, Option<u32>)],
    triples: &LabelTriples,
    halt: &dyn Fn() -> bool,
) -> Result<Vec<HashSet<u32>>, CompileError> {
    let mut domains: Vec<HashSet<u32>> = vertex_labels
        .iter()
        .map(|l| match l {
            Some(l) => triples.vertex_labels.iter().copied().filter(|x| x == l).collect(),
            None => triples.vertex_labels.iter().copied().collect(),
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &(a, b, el) in edges {
            if halt() {
                return Err(CompileError::Stopped);
            }
            let (mut from, mut to) = (HashSet::new(), HashSet::new());
            for (&(x, y), labels) in &triples.by_ends {
                let fits = el.is_none_or(|el| labels.binary_search(&el).is_ok());
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

/// Every assignment of labels to the absent vertex and edge labels under which each edge's
/// (source label, edge label, target label) occurs in the data, as query graphs; `halt` is
/// asked every [`HALT_EVERY`] steps of the search.
fn expand(
    vertex_labels: &[Option<u32>],
    edges: &[(usize, usize, Option<u32>)],
    triples: &LabelTriples,
    directed: bool,
    max: usize,
    halt: &dyn Fn() -> bool,
) -> Result<Vec<Graph>, CompileError> {
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
    let holds = |a: u32, el: Option<u32>, b: u32| match el {
        Some(el) => triples.edge_labels(a, b).binary_search(&el).is_ok(),
        None => !triples.edge_labels(a, b).is_empty(),
    };
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
        let fits = edges.iter().filter(|e| e.0.max(e.1) == v).all(|&(a, b, el)| holds(labels[a], el, labels[b]));
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

/// The query graphs of one vertex labelling: one per choice of the absent edge labels.
fn edge_choices(
    labels: &[u32],
    edges: &[(usize, usize, Option<u32>)],
    triples: &LabelTriples,
    directed: bool,
    max: usize,
    out: &mut Vec<Graph>,
) -> Result<(), CompileError> {
    let options: Vec<Vec<u32>> = edges
        .iter()
        .map(|&(a, b, el)| match el {
            Some(el) => vec![el],
            None => triples.edge_labels(labels[a], labels[b]).to_vec(),
        })
        .collect();
    let mut pick = vec![0usize; edges.len()];
    loop {
        if out.len() >= max {
            return Err(too_many());
        }
        let chosen =
            edges.iter().zip(&pick).enumerate().map(|(j, (&(a, b, _), &p))| (a as u32, b as u32, options[j][p]));
        out.push(GraphBuilder::from_parts(labels.to_vec(), chosen.collect(), directed).build().0);
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
