//! Tests of the pattern compiler (`compile.rs`, whose child module this is): lowering, label
//! expansion against a brute-force oracle, the label-free view, what cannot run.

use super::*;
use crate::rows::Rows;
use proptest::prelude::*;
use std::sync::Arc;
use subgraph_core::graph::{Properties, Values};
use subgraph_core::pipeline::{run_query, MatchOptions};
use subgraph_core::sink::{Control, Output, OutputFormat};
use subgraph_core::Semantics;

fn graph(labels: &[u32], edges: &[(u32, u32, u32)], directed: bool) -> Graph {
    GraphBuilder::from_parts(labels.to_vec(), edges.to_vec(), directed).build().0
}

fn lower(text: &str, data: &Graph) -> Result<Compiled, CompileError> {
    let triples = LabelTriples::of(data);
    compile(&crate::parse(text).expect("parses"), data, || &triples, &|| false)
}

/// The pattern's matches and result rows as the engine finds them: every expansion run,
/// each match fed to the rows.
fn run(c: &Compiled, data: &Graph, semantics: Semantics) -> (u128, u64) {
    let view = c.view.then(|| data.edges_holding(c.view_edges.as_deref()));
    let data = view.as_ref().unwrap_or(data);
    let control = Arc::new(Control::unlimited());
    let rows = Rows::new(c, Arc::new(data.clone()), c.limit, None, control.clone());
    let words = Output::new(rows.writer(), OutputFormat::Words);
    let opts = MatchOptions { semantics, ..MatchOptions::default() };
    let mut found = 0;
    for ((q, skip), &w) in c.queries.iter().zip(&c.skips).zip(&c.weights) {
        rows.start_query(skip, w);
        found += w as u128 * run_query(data, q.clone(), &opts, &control, Some((&words, "p"))).expect("runs").embeddings;
        words.finish().expect("written");
    }
    let skipping = c.skips.iter().any(|s| !s.is_empty());
    (if skipping { rows.matches() as u128 } else { found }, rows.count())
}

/// The brute-force answer: every map of pattern vertices to data vertices, checked against
/// the pattern itself (labels absent or equal, edges present with their label and
/// direction, injectivity and inducedness as asked), and its distinct projected rows.
fn oracle(p: &Pattern, data: &Graph, semantics: Semantics, columns: &[usize]) -> (u128, u64) {
    let k = p.vertices.len();
    let n = data.num_vertices() as u32;
    let label = |l: &Option<LabelRef>| match l {
        Some(LabelRef::Id(x)) => Some(*x),
        _ => None,
    };
    let edge = |a: u32, b: u32| data.edge_label(a, b);
    let props = data.properties().and_then(|p| p.column("p"));
    let (mut count, mut rows) = (0u128, HashSet::new());
    let mut f = vec![0u32; k];
    'all: loop {
        let fits = p.vertices.iter().zip(&f).all(|(pv, &v)| label(&pv.label).is_none_or(|l| data.label(v) == l))
            && p.predicates.iter().all(|t| {
                let Value::Int(want) = t.value else { unreachable!("integer tests only") };
                match props.map(|c| c.get(f[t.vertex])) {
                    Some(Some(subgraph_core::graph::Value::Int(x))) => t.op.holds(x.cmp(&want)),
                    _ => false,
                }
            })
            && (!semantics.injective() || (0..k).all(|i| (0..i).all(|j| f[i] != f[j])))
            && p.edges.iter().all(|e| {
                let fits = |a: u32, b: u32| edge(a, b).is_some_and(|l| label(&e.label).is_none_or(|want| l == want));
                fits(f[e.from], f[e.to]) || (e.direction == Direction::Either && fits(f[e.to], f[e.from]))
            })
            && (semantics != Semantics::Induced
                || (0..k).all(|i| {
                    (0..k).all(|j| {
                        i == j
                            || p.edges
                                .iter()
                                .any(|e| (e.from, e.to) == (i, j) || (!data.is_directed() && (e.from, e.to) == (j, i)))
                            || edge(f[i], f[j]).is_none()
                    })
                }));
        if fits {
            count += 1;
            rows.insert(columns.iter().map(|&c| f[c]).collect::<Vec<_>>());
        }
        for x in f.iter_mut() {
            *x += 1;
            if *x < n {
                continue 'all;
            }
            *x = 0;
        }
        break;
    }
    (count, rows.len() as u64)
}

#[test]
fn absent_labels_expand_over_the_label_triples_the_data_holds() {
    // Labels: 0 0 1 2; edges 0-1 (label 5), 1-2 (label 5), 2-3 (label 6).
    let data = graph(&[0, 0, 1, 2], &[(0, 1, 5), (1, 2, 5), (2, 3, 6)], false);
    let c = lower("MATCH (a:1)--(b)", &data).unwrap();
    // b next to a label-1 vertex: label 0 over edge label 5, or label 2 over 6.
    assert_eq!(c.queries.len(), 2);
    let c = lower("MATCH (a)-[:5]-(b)", &data).unwrap();
    assert_eq!(c.queries.len(), 3, "(0,0), (0,1), (1,0)");
    let c = lower("MATCH (a:2)-[:6]-(b:0)", &data).unwrap();
    assert_eq!(c.queries.len(), 1, "a closed pattern is one query, matching or not");
    assert_eq!(run(&c, &data, Semantics::Embed), (0, 0));
    assert!(lower("MATCH (a:7)--(b)", &data).unwrap().queries.is_empty());
}

#[test]
fn labels_by_name_resolve_through_the_data_graphs_names() {
    let mut b = GraphBuilder::from_parts(vec![1, 0, 1], vec![(0, 1, 0), (2, 1, 1)], true);
    b.set_label_names(subgraph_core::LabelNames {
        vertex: vec!["Lang".into(), "Person".into()],
        edge: vec!["knows".into(), "likes".into()],
    });
    let data = b.build().0;
    let c = lower("MATCH (a:Person)-[:likes]->(b:Lang)", &data).unwrap();
    assert_eq!(run(&c, &data, Semantics::Embed), (1, 1));
    let c = lower("MATCH (a:Person)-->(b:0)", &data).unwrap();
    assert_eq!(run(&c, &data, Semantics::Embed).0, 2, "numbers still work: 0 is Lang");
    let err = lower("MATCH (a:Robot)-->(b)", &data).unwrap_err().to_string();
    assert!(err.contains("no vertex label of the data graph is named 'Robot' (its 2 names: Lang, Person)"), "{err}");
}

#[test]
fn rows_follow_return_distinct_and_limit() {
    // A star: centre 0 with leaves 1..4, all label 0.
    let data = graph(&[0; 5], &[(0, 1, 0), (0, 2, 0), (0, 3, 0), (0, 4, 0)], false);
    let c = lower("MATCH (a)--(b)--(c) RETURN DISTINCT b", &data).unwrap();
    assert!(c.distinct);
    assert_eq!(run(&c, &data, Semantics::Embed), (12, 1));
    let c = lower("MATCH (a)--(b)--(c) RETURN DISTINCT a, c LIMIT 5", &data).unwrap();
    assert_eq!(run(&c, &data, Semantics::Embed).1, 5);
    let c = lower("MATCH (a)--(b)--(c) RETURN DISTINCT a, b, c", &data).unwrap();
    assert!(!c.distinct, "matches are distinct already");
    let c = lower("MATCH (a)--(b)--(c) RETURN count(*)", &data).unwrap();
    assert!(c.count_star && c.columns.is_empty() && c.names == ["count(*)"]);
    // Homomorphisms may fold the path onto one edge (a = c): b at the centre, a and c any
    // leaves (16), or b at a leaf and a = c at the centre (4).
    assert_eq!(run(&lower("MATCH (a)--(b)--(c)", &data).unwrap(), &data, Semantics::Homomorphism).0, 20);
}

#[test]
fn what_cannot_run_is_a_clear_error() {
    let und = graph(&[0, 0], &[(0, 1, 0)], false);
    let dir = graph(&[0, 0], &[(0, 1, 0)], true);
    let msg = |text: &str, data: &Graph| lower(text, data).unwrap_err().to_string();
    let either = lower("MATCH (a)--(b)", &dir).unwrap();
    assert_eq!(either.skips, [vec![], vec![(0, 1, None)]], "forward, then reversed where no forward edge");
    assert!(msg("MATCH (a)-->(b), (a)--(b)", &dir).contains("two edges"));
    assert!(msg("MATCH (a)--(a), (a)-[:0]-(a)", &und).contains("two self loops"));
    assert!(msg("MATCH (a)--(b), (b)--(a)", &und).contains("two edges"));
    assert!(msg("MATCH (a)-->(b)", &und).contains("has a direction, but the data graph is undirected"));
    assert!(msg("MATCH (a)<-[:0]-(b)", &und).contains("from 'b' to 'a' has a direction"));
    assert!(lower("MATCH (a)-->(b), (b)-->(a)", &dir).is_ok(), "one edge each way");
    assert!(msg("MATCH (a:Person)-->(b)", &und).contains("write the label's number"));
    assert!(msg("MATCH (a)-[:knows]->(b)", &dir).contains("edge labels are numbers"));
    assert_eq!(
        msg("MATCH (a {age: 3})-->(b)", &und),
        "property tests ({key: value} maps and WHERE) need the data graph's vertex properties: give \
         --vertex-props FILE.csv"
    );
    assert!(matches!(lower("MATCH (a)-->(b) WHERE a.x > 1", &und), Err(CompileError::NoProperties)));
}

#[test]
fn too_many_expansions_use_the_label_free_view_or_ask_for_labels() {
    // 70 labels, each vertex joined to every other: a 3-path of unlabelled vertices has
    // more than 4096 label combinations.
    let n = 70u32;
    let labels: Vec<u32> = (0..n).collect();
    let edges: Vec<(u32, u32, u32)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b, 0))).collect();
    let data = graph(&labels, &edges, false);
    let c = lower("MATCH (a)--(b)--(c:5)", &data).unwrap();
    assert!(c.view && c.restricted && c.queries.len() == 1, "one query on the view, c restricted to label 5");
    assert_eq!(run(&c, &data, Semantics::Embed).0, 69 * 68);
    // Edges of one label: the view over the edges of that label.
    let c = lower("MATCH (a)-[:0]-(b)-[:0]-(c)", &data).unwrap();
    assert!(c.view && c.view_edges == Some(vec![0]));
    assert_eq!(run(&c, &data, Semantics::Embed).0, 70 * 69 * 68);
    assert!(lower("MATCH (a)-[:1]-(b)-[:1]-(c)", &data).unwrap().queries.is_empty(), "no edge of label 1");
    let err = lower("MATCH (a)-[:0]-(b)--(c)", &data).unwrap_err().to_string();
    assert!(err.contains("give some of its vertices or edges a label"), "{err}");
}

/// Data vertex labels, data edges, directed, the vertices' integer property `p` (absent
/// where None), pattern text, semantics (index), most expansions.
type Case = (Vec<u32>, Vec<(u32, u32, u32)>, bool, Vec<Option<i64>>, String, usize, usize);

/// A random small labelled data graph and a random pattern over it, as pattern text.
fn case() -> impl Strategy<Value = Case> {
    (4usize..8, any::<bool>(), 2usize..5).prop_flat_map(|(n, directed, k)| {
        let labels = proptest::collection::vec(0u32..3, n);
        let edges = proptest::collection::vec((0..n as u32, 0..n as u32, 0u32..2), 0..(3 * n));
        let vlabels = proptest::collection::vec(proptest::option::of(0u32..3), k);
        let pedges = proptest::collection::vec((0..k, 0..k, proptest::option::of(0u32..2), 0u8..3), 1..(k + 2));
        let ret = proptest::collection::btree_set(0..k, 1..3).prop_map(|s| s.into_iter().collect::<Vec<_>>());
        let props = proptest::collection::vec(proptest::option::of(0i64..4), n);
        let tests = proptest::collection::vec((0..k, 0usize..6, 0i64..4), 0..3);
        let shape = (vlabels, pedges, ret, any::<bool>(), 0usize..3, prop_oneof![Just(MAX_EXPANSIONS), 1usize..4]);
        (labels, edges, Just(directed), props, tests, shape).prop_map(
            move |(labels, edges, directed, props, tests, (vlabels, pedges, ret, distinct, semantics, max))| {
                let mut seen = HashSet::new();
                let mut parts: Vec<String> = vlabels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| l.map_or(format!("(v{i})"), |l| format!("(v{i}:{l})")))
                    .collect();
                for (a, b, l, form) in pedges {
                    // A direction only on directed data (undirected data refuses it).
                    let form = if directed { form } else { 2 };
                    // One pattern edge per pair and direction; one without direction (or on
                    // undirected data) takes both.
                    let keys = if directed && form < 2 { vec![(a, b)] } else { vec![(a, b), (b, a)] };
                    if a == b || keys.iter().any(|k| seen.contains(k)) {
                        continue;
                    }
                    seen.extend(keys);
                    let l = l.map_or(String::new(), |l| format!(":{l}"));
                    parts.push(match form {
                        0 => format!("(v{a})-[{l}]->(v{b})"),
                        1 => format!("(v{b})<-[{l}]-(v{a})"),
                        _ => format!("(v{a})-[{l}]-(v{b})"),
                    });
                }
                let mut ret = ret;
                ret.dedup();
                let ret: Vec<String> = ret.iter().map(|r| format!("v{r}")).collect();
                let ops = ["=", "<>", "<", "<=", ">", ">="];
                let tests: Vec<String> = tests.iter().map(|&(v, op, x)| format!("v{v}.p {} {x}", ops[op])).collect();
                let text = format!(
                    "MATCH {}{} RETURN {}{}",
                    parts.join(", "),
                    if tests.is_empty() { String::new() } else { format!(" WHERE {}", tests.join(" AND ")) },
                    if distinct { "DISTINCT " } else { "" },
                    ret.join(", ")
                );
                (labels, edges, directed, props, text, semantics, max)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Counts and distinct rows over every expansion equal the brute force over the
    /// pattern itself, under each semantics.
    #[test]
    fn expansions_match_the_pattern_exactly((labels, edges, directed, props, text, s, max) in case()) {
        // A simple graph: no self loop, one edge per pair (`label_sets_and_parallel_edges_…`
        // takes the others).
        let mut pairs = HashSet::new();
        let edges: Vec<_> = edges
            .into_iter()
            .filter(|e| e.0 != e.1 && pairs.insert(if directed { (e.0, e.1) } else { (e.0.min(e.1), e.0.max(e.1)) }))
            .collect();
        let mut data = graph(&labels, &edges, directed);
        let present = props.iter().map(Option::is_some).collect();
        let values = props.iter().map(|x| x.unwrap_or(0)).collect();
        data.set_properties(Properties::new(vec![Column { name: "p".into(), values: Values::Int { values, present } }]));
        let semantics = [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism][s];
        let p = crate::parse(&text).expect("generated patterns parse");
        let triples = LabelTriples::of(&data);
        let c = match compile_within(&p, &data, || &triples, max, &|| false) {
            Ok(c) => c,
            Err(e) => {
                // Only a cap below the expansions of a pattern with an edge label refuses.
                prop_assert!(max < MAX_EXPANSIONS && p.edges.iter().any(|e| e.label.is_some()), "{}: {}", text, e);
                return Ok(());
            }
        };
        let skipping = c.skips.iter().any(|s| !s.is_empty());
        // Induced matching of an edge without direction on directed data is refused.
        prop_assume!(!(skipping && semantics == Semantics::Induced));
        // As is induced matching over the edges of one label (the runner's `check`).
        prop_assume!(!(c.view && c.view_edges.is_some() && semantics == Semantics::Induced));
        let (count, rows) = run(&c, &data, semantics);
        let (want, want_rows) = oracle(&p, &data, semantics, &c.columns);
        // A tree pattern under homomorphism, counted without enumeration, rooted at its
        // first returned vertex: the same count, and that vertex's distinct answers.
        let root = c.columns[0];
        if let (Semantics::Homomorphism, Some(t)) = (semantics, tree(&p, &data, root).unwrap()) {
            let got = t.count(&data, &Control::unlimited()).unwrap();
            prop_assert_eq!(got.total, Some(want), "tree {}", text);
            prop_assert_eq!(got.roots.len() as u64, oracle(&p, &data, semantics, &[root]).1, "tree {}", text);
        }
        prop_assert_eq!(count, want, "{}", text);
        if c.distinct || p.distinct {
            prop_assert_eq!(rows, want_rows, "{}", text);
        } else {
            prop_assert_eq!(rows as u128, want, "{}", text);
        }
    }
}

/// A multigraph as a file gives it: each vertex's labels (one or more), and its edges (u, v,
/// label), parallel ones of different labels and self loops among them.
#[derive(Debug, Clone)]
struct Multi {
    labels: Vec<Vec<u32>>,
    edges: Vec<(u32, u32, u32)>,
    directed: bool,
}

impl Multi {
    fn graph(&self) -> Graph {
        let first = self.labels.iter().map(|l| l[0]).collect();
        let mut b = GraphBuilder::from_parts(first, self.edges.clone(), self.directed);
        for (v, l) in self.labels.iter().enumerate() {
            l[1..].iter().for_each(|&x| b.add_label(v as u32, x));
        }
        b.build().0
    }

    /// The distinct data edges from x to y (either way where undirected) of label `want`
    /// (any where None); self loops where x == y.
    fn bindings(&self, x: u32, y: u32, want: Option<u32>) -> u64 {
        let mut found: Vec<(u32, u32, u32)> = self
            .edges
            .iter()
            .filter(|&&(a, b, l)| {
                ((a, b) == (x, y) || (!self.directed && (b, a) == (x, y))) && want.is_none_or(|w| w == l)
            })
            .map(|&(a, b, l)| if self.directed { (a, b, l) } else { (a.min(b), a.max(b), l) })
            .collect();
        found.sort_unstable();
        found.dedup();
        found.len() as u64
    }
}

/// The brute force over a multigraph: each map of pattern vertices to data vertices whose
/// labels hold the pattern's counts once per binding of each pattern edge to a data edge of
/// its label (an edge without direction on directed data binds forward where it can, else
/// backward; a self loop to the image's loops), under the semantics; and its distinct rows.
fn multi_oracle(p: &Pattern, data: &Multi, semantics: Semantics, columns: &[usize]) -> (u128, u64) {
    let k = p.vertices.len();
    let n = data.labels.len() as u32;
    let id = |l: &Option<LabelRef>| match l {
        Some(LabelRef::Id(x)) => Some(*x),
        _ => None,
    };
    let (mut count, mut rows) = (0u128, HashSet::new());
    let mut f = vec![0u32; k];
    'all: loop {
        let labelled = p.vertices.iter().zip(&f).all(|(pv, &v)| {
            pv.label
                .iter()
                .chain(&pv.more_labels)
                .all(|l| data.labels[v as usize].contains(&id(&Some(l.clone())).unwrap()))
        });
        let injective = !semantics.injective() || (0..k).all(|i| (0..i).all(|j| f[i] != f[j]));
        let induced = semantics != Semantics::Induced
            || (0..k).all(|i| {
                (0..k).all(|j| {
                    i == j
                        || p.edges
                            .iter()
                            .any(|e| (e.from, e.to) == (i, j) || (!data.directed && (e.from, e.to) == (j, i)))
                        || data.bindings(f[i], f[j], None) == 0
                })
            });
        if labelled && injective && induced {
            let weight: u64 = p
                .edges
                .iter()
                .map(|e| {
                    let want = id(&e.label);
                    // Data self loops take no part in the join: only a pattern's self loop
                    // binds to them.
                    if e.from != e.to && f[e.from] == f[e.to] {
                        return 0;
                    }
                    let forward = data.bindings(f[e.from], f[e.to], want);
                    match e.direction {
                        Direction::Either if data.directed && forward == 0 && e.from != e.to => {
                            data.bindings(f[e.to], f[e.from], want)
                        }
                        _ => forward,
                    }
                })
                .product();
            if weight > 0 {
                count += weight as u128;
                rows.insert(columns.iter().map(|&c| f[c]).collect::<Vec<_>>());
            }
        }
        for x in f.iter_mut() {
            *x += 1;
            if *x < n {
                continue 'all;
            }
            *x = 0;
        }
        break;
    }
    (count, rows.len() as u64)
}

/// A random small multigraph and a random pattern over it (self loops, pairs joined by
/// several labelled edges), as pattern text, with the semantics (index).
fn multi_case() -> impl Strategy<Value = (Multi, String, usize)> {
    (4usize..7, any::<bool>(), 2usize..5).prop_flat_map(|(n, directed, k)| {
        let labels = proptest::collection::vec(proptest::collection::btree_set(0u32..3, 1..3), n);
        let edges = proptest::collection::vec((0..n as u32, 0..n as u32, 0u32..3), 0..(4 * n));
        let vlabels = proptest::collection::vec(proptest::collection::vec(0u32..3, 0..3), k);
        let pedges = proptest::collection::vec((0..k, 0..k, proptest::option::of(0u32..3), 0u8..3), 1..(k + 3));
        let ret = proptest::collection::btree_set(0..k, 1..3);
        (labels, edges, Just(directed), vlabels, pedges, ret, any::<bool>(), 0usize..3).prop_map(
            move |(labels, edges, directed, vlabels, pedges, ret, distinct, semantics)| {
                let labels = labels.into_iter().map(|s| s.into_iter().collect()).collect();
                let mut parts: Vec<String> = vlabels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!("(v{i}{})", l.iter().map(|l| format!(":{l}")).collect::<String>()))
                    .collect();
                for (a, b, l, form) in pedges {
                    let form = if directed { form } else { 2 };
                    let l = l.map_or(String::new(), |l| format!(":{l}"));
                    parts.push(match form {
                        0 => format!("(v{a})-[{l}]->(v{b})"),
                        1 => format!("(v{b})<-[{l}]-(v{a})"),
                        _ => format!("(v{a})-[{l}]-(v{b})"),
                    });
                }
                let ret: Vec<String> = ret.iter().map(|r| format!("v{r}")).collect();
                let text = format!(
                    "MATCH {} RETURN {}{}",
                    parts.join(", "),
                    if distinct { "DISTINCT " } else { "" },
                    ret.join(", ")
                );
                (Multi { labels, edges, directed }, text, semantics)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// On multigraphs with label sets, parallel edges and self loops: counts (one per binding
    /// of each edge) and distinct rows over every expansion equal the brute force over the
    /// file's facts, under each semantics; what the compiler refuses is only a pair joined by
    /// an edge without label (or direction) beside another.
    #[test]
    fn label_sets_and_parallel_edges_match_the_brute_force((data, text, s) in multi_case()) {
        let g = data.graph();
        let semantics = [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism][s];
        let p = crate::parse(&text).expect("generated patterns parse");
        let triples = LabelTriples::of(&g);
        let c = match compile(&p, &g, || &triples, &|| false) {
            Ok(c) => c,
            Err(e) => {
                prop_assert!(e.to_string().contains("one of them has no label"), "{}: {}", text, e);
                return Ok(());
            }
        };
        let skipping = c.skips.iter().any(|s| !s.is_empty());
        prop_assume!(!(skipping && semantics == Semantics::Induced));
        let (count, rows) = run(&c, &g, semantics);
        let (want, want_rows) = multi_oracle(&p, &data, semantics, &c.columns);
        prop_assert_eq!(count, want, "{}", text);
        if c.distinct {
            prop_assert_eq!(rows, want_rows, "{}", text);
        } else if !p.distinct {
            prop_assert_eq!(rows as u128, want, "{}", text);
        }
    }
}

/// The knowledge graph in small: Person 0, Person and Employee 1, Employee 2; 0 knows
/// and works with 1 (and knows it twice in the file), knows 2; 1 knows 2; 2 likes itself.
/// Labels by name, in byte order: Employee 0, Person 1; knows 0, likes 1, worksWith 2.
fn people() -> Graph {
    let edges = vec![(0, 1, 0), (0, 1, 2), (0, 2, 0), (1, 2, 0), (2, 2, 1), (0, 1, 0)];
    let mut b = GraphBuilder::from_parts(vec![1, 1, 0], edges, true);
    b.add_label(1, 0);
    b.set_label_names(subgraph_core::LabelNames {
        vertex: vec!["Employee".into(), "Person".into()],
        edge: vec!["knows".into(), "likes".into(), "worksWith".into()],
    });
    b.build().0
}

#[test]
fn several_labels_and_edges_per_pair_count_as_cypher_does() {
    let g = people();
    let count = |text: &str| run(&lower(text, &g).unwrap(), &g, Semantics::Homomorphism);
    assert_eq!(count("MATCH (a:Person)-[:knows]->(b:Person)").0, 1, "0 → 1: 1 is an employee too");
    assert_eq!(count("MATCH (a:Employee)-[:knows]->(b:Employee)").0, 1, "1 → 2");
    assert_eq!(count("MATCH (a)-[:knows]->(b)").0, 3);
    assert_eq!(count("MATCH (a)-->(b)").0, 4, "0 → 1 twice, once per edge");
    assert_eq!(count("MATCH (a)-->(b) RETURN DISTINCT a, b"), (4, 3));
    assert_eq!(count("MATCH (a)-[:knows]->(b), (a)-[:worksWith]->(b)").0, 1);
    assert_eq!(count("MATCH (a)-[:likes]->(a)").0, 1);
    assert_eq!(count("MATCH (a)-->(a)").0, 1);
    assert_eq!(count("MATCH (a)-->(a), (b)-[:knows]->(a)").0, 2);
    let err = lower("MATCH (a)-->(b), (a)-[:knows]->(b)", &g).unwrap_err().to_string();
    assert!(
        err.contains("'a' and 'b' are joined by two edges in one direction, and one of them has no label"),
        "{err}"
    );
}

#[test]
fn a_query_files_labels_expand_over_the_sets_that_hold_them() {
    let g = people();
    let control = Control::unlimited();
    let total = |query: &Graph| -> u128 {
        let triples = LabelTriples::of(&g);
        let queries = compile_query(query, &g, || &triples, MAX_EXPANSIONS, &|| false).unwrap();
        let opts = MatchOptions { semantics: Semantics::Homomorphism, ..MatchOptions::default() };
        queries.queries.into_iter().map(|q| run_query(&g, q, &opts, &control, None).unwrap().embeddings).sum()
    };
    // A Person (1) knows (0) an Employee (0): 0 → 1, 0 → 2, 1 → 2.
    assert_eq!(total(&graph(&[1, 0], &[(0, 1, 0)], true)), 3);
    // A query vertex labelled Employee and Person at once holds only vertex 1.
    let mut b = GraphBuilder::from_parts(vec![1, 0], vec![(1, 0, 0)], true);
    b.add_label(0, 0);
    assert_eq!(total(&b.build().0), 0, "no Employee knows vertex 1");
    let mut b = GraphBuilder::from_parts(vec![1, 0], vec![(0, 1, 0)], true);
    b.add_label(0, 0);
    assert_eq!(total(&b.build().0), 1, "1 knows 2");
    // A self loop in a query file: the vertices with such a loop.
    assert_eq!(total(&graph(&[0], &[(0, 0, 1)], true)), 1);
}

#[test]
fn a_query_whose_sets_expand_too_far_runs_over_the_edges_of_its_label() {
    // A clique of 12 vertices, each labelled 0 and one of 1..6 besides, every edge labelled 0
    // and four disjoint ones 1 besides: a path of 8 vertices labelled 0 expands into 6^8
    // queries.
    let n = 12u32;
    let clique: Vec<(u32, u32, u32)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b, 0))).collect();
    let mut b = GraphBuilder::from_parts(vec![0; n as usize], clique, false);
    (0..n).for_each(|v| b.add_label(v, 1 + v % 6));
    (0..n).step_by(3).for_each(|v| b.add_edge(v, v + 1, 1));
    let g = b.build().0;
    let path: Vec<(u32, u32, u32)> = (0..7).map(|u| (u, u + 1, 0)).collect();
    let query = graph(&[0; 8], &path, false);
    let triples = LabelTriples::of(&g);
    let plan = compile_query(&query, &g, || &triples, MAX_EXPANSIONS, &|| false).unwrap();
    assert_eq!(plan.view_edges, Some(Some(vec![0])));
    let view = g.edges_holding(Some(&[0]));
    let control = Control::unlimited();
    let opts = MatchOptions { semantics: Semantics::Embed, ..MatchOptions::default() };
    let found: u128 =
        plan.queries.into_iter().map(|q| run_query(&view, q, &opts, &control, None).unwrap().embeddings).sum();
    // Every vertex holds 0: the paths of 8 distinct vertices of 12.
    assert_eq!(found, (5..=12).product::<u128>());
    // Edges of label 1 only on every third pair: a path of two such edges does not exist.
    let query = graph(&[0; 3], &[(0, 1, 1), (1, 2, 1)], false);
    let plan = compile_query(&query, &g, || &triples, MAX_EXPANSIONS, &|| false).unwrap();
    let total: u128 =
        plan.queries.into_iter().map(|q| run_query(&g, q, &opts, &control, None).unwrap().embeddings).sum();
    assert_eq!(total, 0);
}
