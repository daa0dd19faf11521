//! `Display` for [`Pattern`]: a canonical text in openCypher's MATCH syntax (the subset this
//! crate parses) that parses back to an equal pattern (`text` aside).
//!
//! The text must give the same vertex numbering (first appearance), edge order and inline
//! predicate order, while an anonymous node can be written only once: its edges (at most two)
//! and its predicates must sit at that one place. A planner walks the edges in order as chains
//! (consecutive edges joined by an anonymous vertex form one path), writes each once the vertices
//! it creates are the next ones due, declares a named vertex as a node of its own when it is due
//! first, and attaches each inline predicate to the next node of its vertex; the predicates from
//! the first comparison other than `=` on (all on named vertices) go to WHERE. Every pattern
//! [`parse`](crate::parse) returns can be planned (its text parses back unless printing made it
//! longer than [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN)). Any other (built by hand: an anonymous vertex on three edges, say) is written
//! with its anonymous vertices named `` `_1` ``, `` `__1` ``..., fresh names, so its text parses,
//! to a pattern with those vertices named.

use std::fmt::{self, Write};

use crate::lexer::{ident_continue, ident_start, RESERVED};
use crate::pattern::{CompareOp, Direction, LabelRef, Pattern, Return, Value};

/// A name as written: bare if it is an identifier and not a reserved word, else in backquotes.
pub(crate) fn name_text(name: &str) -> String {
    let bare = name.chars().next().is_some_and(ident_start)
        && name.chars().all(ident_continue)
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name));
    if bare {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// A label as written.
pub(crate) fn label_text(label: &LabelRef) -> String {
    match label {
        LabelRef::Name(name) => name_text(name),
        LabelRef::Id(id) => id.to_string(),
    }
}

/// A value as written: integers in decimal, floats in Rust's shortest round-trip form (which
/// always has a '.' or an exponent), strings in double quotes.
pub(crate) fn value_text(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Str(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}

/// A node occurrence in the text.
struct NodeOut {
    vertex: usize,
    /// Whether the label is written here (the vertex's first occurrence).
    label: bool,
    /// The predicates of its inline map: `predicates[preds.0..preds.1]`.
    preds: (usize, usize),
}

/// A path: nodes, and the edges between them (`(edge, written right to left)`).
struct PathOut {
    nodes: Vec<NodeOut>,
    edges: Vec<(usize, bool)>,
}

/// A way to write a chain: its nodes' vertices and its edges, left to right.
type Chain = (Vec<usize>, Vec<(usize, bool)>);

/// The planner's state: what the text written so far has created.
struct Planner<'p> {
    p: &'p Pattern,
    /// Predicates `predicates[..w]` go in inline maps, the rest in WHERE.
    w: usize,
    created: Vec<bool>,
    /// The next vertex, edge and inline predicate due.
    nv: usize,
    ne: usize,
    np: usize,
    /// Inline predicates of each anonymous vertex.
    anon_preds: Vec<usize>,
    degree: Vec<usize>,
    paths: Vec<PathOut>,
}

impl Planner<'_> {
    fn named(&self, v: usize) -> bool {
        self.p.vertices[v].name.is_some()
    }

    /// The end of the run of inline predicates on `v` from `np`.
    fn run_end(&self, v: usize, mut np: usize) -> usize {
        while np < self.w && self.p.predicates[np].vertex == v {
            np += 1;
        }
        np
    }

    fn push(&mut self, path: PathOut) {
        if let Some(last) = self.paths.last_mut() {
            let tail = last.nodes.last_mut().expect("a path has a node");
            if tail.vertex == path.nodes[0].vertex && tail.preds.1 == path.nodes[0].preds.0 {
                tail.preds.1 = path.nodes[0].preds.1;
                last.nodes.extend(path.nodes.into_iter().skip(1));
                last.edges.extend(path.edges);
                return;
            }
        }
        self.paths.push(path);
    }

    /// The ways to write the chain of edges from `ne`: its nodes and edges, left to right.
    fn chain_candidates(&self) -> Vec<Chain> {
        let edges = &self.p.edges;
        let touches = |e: usize, v: usize| edges[e].from == v || edges[e].to == v;
        let e0 = &edges[self.ne];
        let joins = |v: usize| !self.named(v) && self.ne + 1 < edges.len() && touches(self.ne + 1, v);
        let (left, right) = if e0.from != e0.to && joins(e0.to) {
            (e0.from, e0.to)
        } else if e0.from != e0.to && joins(e0.from) {
            (e0.to, e0.from)
        } else {
            let mut out = vec![(vec![e0.from, e0.to], vec![(self.ne, false)])];
            if e0.direction == Direction::Out && e0.from != e0.to {
                out.push((vec![e0.to, e0.from], vec![(self.ne, true)]));
            }
            return out;
        };
        let mut nodes = vec![left, right];
        let mut path = vec![(self.ne, left != e0.from)];
        let mut e = self.ne + 1;
        while e < edges.len() && !self.named(*nodes.last().unwrap()) && touches(e, *nodes.last().unwrap()) {
            let last = *nodes.last().unwrap();
            let other = if edges[e].from == last { edges[e].to } else { edges[e].from };
            path.push((e, edges[e].from != last));
            nodes.push(other);
            e += 1;
        }
        vec![(nodes, path)]
    }

    /// Writes the next chain if the vertices it creates are the next due; whether it did.
    fn try_chain(&mut self) -> bool {
        let mut candidates = self.chain_candidates();
        // Prefer the way that continues the last path: `(a)-->(b)<--(c)`, not `(a)-->(b), (c)-->(b)`.
        let tail = self.paths.last().and_then(|p| p.nodes.last()).map(|n| n.vertex);
        if candidates.len() == 2 && Some(candidates[1].0[0]) == tail {
            candidates.swap(0, 1);
        }
        'candidates: for (nodes, edges) in candidates {
            if edges.iter().any(|&(e, reversed)| reversed && self.p.edges[e].direction == Direction::Either) {
                continue;
            }
            let (mut nv, mut np) = (self.nv, self.np);
            let mut out = Vec::with_capacity(nodes.len());
            let mut undo = Vec::new();
            for &v in &nodes {
                let mut label = false;
                if !self.created[v] {
                    if v != nv {
                        undo.iter().for_each(|&u| self.created[u] = false);
                        continue 'candidates;
                    }
                    self.created[v] = true;
                    undo.push(v);
                    nv += 1;
                    label = true;
                } else if !self.named(v) {
                    undo.iter().for_each(|&u| self.created[u] = false);
                    continue 'candidates;
                }
                let end = self.run_end(v, np);
                if !self.named(v) && end - np != self.anon_preds[v] {
                    undo.iter().for_each(|&u| self.created[u] = false);
                    continue 'candidates;
                }
                out.push(NodeOut { vertex: v, label, preds: (np, end) });
                np = end;
            }
            (self.nv, self.np) = (nv, np);
            self.ne += edges.len();
            self.push(PathOut { nodes: out, edges });
            return true;
        }
        false
    }

    /// The paths of the MATCH clause, or `None` if this pattern cannot be written so.
    fn plan(mut self) -> Option<(Vec<PathOut>, usize)> {
        let (n, m) = (self.p.vertices.len(), self.p.edges.len());
        loop {
            if self.np < self.w {
                let v = self.p.predicates[self.np].vertex;
                if self.created[v] {
                    if !self.named(v) {
                        return None;
                    }
                    let end = self.run_end(v, self.np);
                    self.push(PathOut {
                        nodes: vec![NodeOut { vertex: v, label: false, preds: (self.np, end) }],
                        edges: vec![],
                    });
                    self.np = end;
                    continue;
                }
            }
            if self.ne < m && self.try_chain() {
                continue;
            }
            let v = self.nv;
            if v < n && (self.named(v) || self.degree[v] == 0) {
                let end = self.run_end(v, self.np);
                if !self.named(v) && end - self.np != self.anon_preds[v] {
                    return None;
                }
                self.created[v] = true;
                self.nv += 1;
                self.push(PathOut {
                    nodes: vec![NodeOut { vertex: v, label: true, preds: (self.np, end) }],
                    edges: vec![],
                });
                self.np = end;
                continue;
            }
            break;
        }
        (self.nv == n && self.ne == m && self.np == self.w).then_some((self.paths, self.w))
    }
}

/// The planned paths and the first WHERE predicate, if `p` can be written as parsed.
fn plan(p: &Pattern) -> Option<(Vec<PathOut>, usize)> {
    let n = p.vertices.len();
    let named = |v: usize| p.vertices[v].name.is_some();
    if p.edges.iter().any(|e| e.from >= n || e.to >= n) || p.predicates.iter().any(|q| q.vertex >= n) {
        return None;
    }
    if let Return::Vertices(vs) = &p.returns {
        if vs.iter().any(|&v| v >= n || !named(v)) {
            return None;
        }
    }
    // predicates[..w] go inline: they must be equalities, and those after on named vertices.
    // Prefer as many inline as may be (as the user most likely wrote them), else as few.
    let w_most = p.predicates.iter().position(|q| q.op != CompareOp::Eq).unwrap_or(p.predicates.len());
    let mut w_least = p.predicates.len();
    while w_least > 0 && named(p.predicates[w_least - 1].vertex) {
        w_least -= 1;
    }
    if w_least > w_most {
        return None;
    }
    plan_with(p, w_most).or_else(|| plan_with(p, w_least))
}

/// [`plan`] with `predicates[..w]` inline.
fn plan_with(p: &Pattern, w: usize) -> Option<(Vec<PathOut>, usize)> {
    let n = p.vertices.len();
    let named = |v: usize| p.vertices[v].name.is_some();
    let mut anon_preds = vec![0; n];
    for q in &p.predicates[..w] {
        anon_preds[q.vertex] += usize::from(!named(q.vertex));
    }
    let mut degree = vec![0; n];
    for e in &p.edges {
        degree[e.from] += 1;
        degree[e.to] += 1;
    }
    let planner = Planner { p, w, created: vec![false; n], nv: 0, ne: 0, np: 0, anon_preds, degree, paths: Vec::new() };
    planner.plan()
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let planned = plan(self);
        // Names: the variables, and fresh ones for anonymous vertices if the plan failed.
        let names: Vec<Option<String>> = if planned.is_some() {
            self.vertices.iter().map(|v| v.name.as_deref().map(name_text)).collect()
        } else {
            let taken: std::collections::HashSet<&str> =
                self.vertices.iter().filter_map(|v| v.name.as_deref()).collect();
            let mut prefix = "_".to_string();
            while (0..self.vertices.len()).any(|i| taken.contains(format!("{prefix}{i}").as_str())) {
                prefix.push('_');
            }
            (0..self.vertices.len())
                .map(|i| Some(name_text(self.vertices[i].name.as_deref().unwrap_or(&format!("{prefix}{i}")))))
                .collect()
        };
        let name = |v: usize| names.get(v).cloned().flatten().unwrap_or_else(|| format!("`?{v}`"));
        let (paths, w) = planned.unwrap_or_else(|| {
            // One node per vertex, in order, then one path per edge.
            let mut paths: Vec<PathOut> = (0..self.vertices.len())
                .map(|v| PathOut { nodes: vec![NodeOut { vertex: v, label: true, preds: (0, 0) }], edges: vec![] })
                .collect();
            paths.extend(self.edges.iter().enumerate().map(|(i, e)| PathOut {
                nodes: vec![
                    NodeOut { vertex: e.from, label: false, preds: (0, 0) },
                    NodeOut { vertex: e.to, label: false, preds: (0, 0) },
                ],
                edges: vec![(i, false)],
            }));
            (paths, 0)
        });

        let mut out = String::from("MATCH");
        for (i, path) in paths.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            for (j, node) in path.nodes.iter().enumerate() {
                if j > 0 {
                    let (e, reversed) = path.edges[j - 1];
                    let edge = &self.edges[e];
                    let label = edge.label.as_ref().map(|l| format!("[:{}]", label_text(l))).unwrap_or_default();
                    let (left, right) = match (edge.direction, reversed) {
                        (Direction::Out, false) => ("-", "->"),
                        (Direction::Out, true) => ("<-", "-"),
                        (Direction::Either, _) => ("-", "-"),
                    };
                    let _ = write!(out, "{left}{label}{right}");
                }
                out.push('(');
                let mut head = false;
                if !matches!(names.get(node.vertex), Some(None)) {
                    out.push_str(&name(node.vertex));
                    head = true;
                }
                let vertex = self.vertices.get(node.vertex);
                if let Some(v) = vertex.filter(|_| node.label) {
                    for label in v.label.iter().chain(&v.more_labels) {
                        let _ = write!(out, ":{}", label_text(label));
                        head = true;
                    }
                }
                let preds = &self.predicates[node.preds.0..node.preds.1];
                if !preds.is_empty() {
                    out.push_str(if head { " {" } else { "{" });
                    for (k, q) in preds.iter().enumerate() {
                        let sep = if k > 0 { ", " } else { "" };
                        let _ = write!(out, "{sep}{}: {}", name_text(&q.key), value_text(&q.value));
                    }
                    out.push('}');
                }
                out.push(')');
            }
        }
        for (i, q) in self.predicates[w..].iter().enumerate() {
            let kw = if i == 0 { " WHERE " } else { " AND " };
            let _ =
                write!(out, "{kw}{}.{} {} {}", name(q.vertex), name_text(&q.key), q.op.symbol(), value_text(&q.value));
        }
        out.push_str(" RETURN ");
        if self.distinct {
            out.push_str("DISTINCT ");
        }
        match &self.returns {
            Return::All => out.push('*'),
            Return::CountStar => out.push_str("count(*)"),
            Return::Vertices(vs) => {
                out.push_str(&vs.iter().map(|&v| name(v)).collect::<Vec<_>>().join(", "));
            }
        }
        if let Some(limit) = self.limit {
            let _ = write!(out, " LIMIT {limit}");
        }
        f.write_str(&out)
    }
}
