//! Property tests: random pattern structures print and parse back to themselves; random pattern
//! texts parse, print and parse back; and arbitrary strings, and valid patterns with characters
//! deleted, inserted or replaced, never panic, with every error's position inside its line.

use proptest::prelude::*;

use super::parse::ok;
use crate::*;

/// Names: mostly identifiers, some reserved words, some needing backquotes.
fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-zA-Z_][a-zA-Z0-9_]{0,5}",
        2 => prop::sample::select(vec!["match", "LIMIT", "count", "Where", "and", "x y", "a`b", "3", "é", "_", "`"])
            .prop_map(String::from),
        1 => "(?s).{1,5}",
    ]
}

fn arb_label() -> impl Strategy<Value = Option<LabelRef>> {
    prop_oneof![
        2 => Just(None),
        2 => arb_name().prop_map(|n| Some(LabelRef::Name(n))),
        1 => any::<u32>().prop_map(|i| Some(LabelRef::Id(i))),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::Int),
        prop_oneof![-5i64..5, Just(i64::MIN), Just(i64::MAX)].prop_map(Value::Int),
        (prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO).prop_map(Value::Float),
        "(?s).{0,8}".prop_map(Value::Str),
    ]
}

fn arb_op() -> impl Strategy<Value = CompareOp> {
    prop::sample::select(vec![CompareOp::Eq, CompareOp::Ne, CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge])
}

fn arb_direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Direction::Out), Just(Direction::Either)]
}

/// A random pattern of the shape the parser gives: named vertices with any edges between them;
/// anonymous vertices isolated or on one or two edges to earlier named vertices; edges ordered
/// by the last vertex they need; inline equalities (those of an anonymous vertex together, at
/// its place) then WHERE predicates on named vertices.
fn arb_pattern() -> impl Strategy<Value = Pattern> {
    let vertex = (prop::bool::weighted(0.7), arb_name(), arb_label(), prop::collection::vec(arb_label(), 0..3));
    let anon_edges =
        prop::collection::vec((any::<prop::sample::Index>(), arb_direction(), arb_label(), any::<bool>()), 0..=2);
    (prop::collection::vec((vertex, anon_edges), 1..8))
        .prop_flat_map(|vs| {
            let n = vs.len();
            let named_edge = (0..n, 0..n, arb_direction(), arb_label());
            let inline = (0..n, any::<prop::sample::Index>(), arb_name(), arb_value());
            let where_pred = (any::<prop::sample::Index>(), arb_name(), arb_op(), arb_value());
            let returns = prop_oneof![
                Just(None),
                Just(Some(Return::CountStar)),
                prop::collection::vec(any::<prop::sample::Index>(), 1..4)
                    .prop_map(|ix| Some(Return::Vertices(ix.into_iter().map(|i| i.index(usize::MAX)).collect()))),
            ];
            (
                Just(vs),
                prop::collection::vec(named_edge, 0..10),
                prop::collection::vec(inline, 0..6),
                prop::collection::vec(where_pred, 0..4),
                returns,
                any::<bool>(),
                prop::option::of(any::<u64>()),
            )
        })
        .prop_map(|(vs, named_edges, inline, where_preds, returns, distinct, limit)| {
            let mut vertices = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for ((named, name, label, more), _) in &vs {
                let name = named.then(|| {
                    let mut name = name.clone();
                    while !seen.insert(name.clone()) {
                        name.push('_');
                    }
                    name
                });
                // Labels beyond the first: only beside one, none twice.
                let mut more_labels: Vec<LabelRef> = Vec::new();
                for l in more.iter().flatten().filter(|_| label.is_some()) {
                    if Some(l) != label.as_ref() && !more_labels.contains(l) {
                        more_labels.push(l.clone());
                    }
                }
                vertices.push(PatternVertex { name, label: label.clone(), more_labels });
            }
            let named: Vec<usize> = (0..vertices.len()).filter(|&v| vertices[v].name.is_some()).collect();
            // (key, edge): stable-sorted by key, the last vertex the edge needs.
            let mut keyed: Vec<(usize, PatternEdge)> = Vec::new();
            for (a, b, direction, label) in named_edges {
                if vertices[a].name.is_some() && vertices[b].name.is_some() {
                    let edge = PatternEdge { from: a, to: b, direction, label };
                    if !keyed.iter().any(|(_, e)| *e == edge) {
                        keyed.push((a.max(b), edge));
                    }
                }
            }
            for (z, (_, anon_edges)) in vs.iter().enumerate() {
                let earlier: Vec<usize> = named.iter().copied().filter(|&u| u < z).collect();
                if vertices[z].name.is_some() || earlier.is_empty() {
                    continue;
                }
                for (k, (u, direction, label, outward)) in anon_edges.iter().enumerate() {
                    let u = earlier[u.index(earlier.len())];
                    // The first edge is written (u) ... (z), the second (z) ... (u): an undirected
                    // one keeps that order, a directed one may point either way.
                    let (from, to) = match (k, direction, outward) {
                        (0, Direction::Either, _) | (0, Direction::Out, false) => (u, z),
                        (0, Direction::Out, true) => (z, u),
                        (_, Direction::Either, _) | (_, Direction::Out, false) => (z, u),
                        (_, Direction::Out, true) => (u, z),
                    };
                    let edge = PatternEdge { from, to, direction: *direction, label: label.clone() };
                    // `(u)-->()<--(u)`: the same edge twice is kept once.
                    if !keyed.iter().any(|(_, e)| *e == edge) {
                        keyed.push((z, edge));
                    }
                }
            }
            keyed.sort_by_key(|(key, _)| *key);
            let edges = keyed.into_iter().map(|(_, e)| e).collect();
            // Inline predicates, stable-sorted by (time, named): an anonymous vertex's at its own
            // time, a named vertex's at any time from its own on.
            let mut timed: Vec<((usize, bool), Predicate)> = inline
                .into_iter()
                .map(|(v, t, key, value)| {
                    let named = vertices[v].name.is_some();
                    let time = if named { v + t.index(vertices.len() - v + 1) } else { v };
                    ((time, named), Predicate { vertex: v, key, op: CompareOp::Eq, value })
                })
                .collect();
            timed.sort_by_key(|(k, _)| *k);
            let mut predicates: Vec<Predicate> = timed.into_iter().map(|(_, q)| q).collect();
            if !named.is_empty() {
                for (v, key, op, value) in where_preds {
                    predicates.push(Predicate { vertex: named[v.index(named.len())], key, op, value });
                }
            }
            let returns = match returns {
                None => Return::All,
                Some(Return::Vertices(ix)) if !named.is_empty() => {
                    let mut vs: Vec<usize> = ix.into_iter().map(|i| named[i % named.len()]).collect();
                    let mut kept = std::collections::HashSet::new();
                    vs.retain(|v| kept.insert(*v));
                    Return::Vertices(vs)
                }
                Some(Return::Vertices(_)) => Return::All,
                Some(r) => r,
            };
            Pattern { vertices, edges, predicates, returns, distinct, limit, text: String::new() }
        })
}

/// A node of `arb_text`: a variable of the pool (or anonymous), whether its label is written,
/// an anonymous node's label, and its map.
type NodeSpec = (Option<usize>, bool, Option<LabelRef>, Vec<(String, Value)>);

/// Random pattern text: paths over a pool of five variables (each with a fixed label, written
/// at some occurrences) and anonymous nodes, every relationship form, inline maps, WHERE with
/// flipped and parenthesised comparisons, and RETURN.
fn arb_text() -> impl Strategy<Value = String> {
    let node = || {
        (
            prop::option::of(0usize..5),
            any::<bool>(),
            arb_label(),
            prop::collection::vec((arb_name(), arb_value()), 0..3),
        )
    };
    let rel = (0usize..9, arb_label(), any::<bool>());
    let path = (node(), prop::collection::vec((rel, node()), 0..4));
    let cmp = (0usize..5, arb_name(), arb_op(), arb_value(), any::<bool>(), 0usize..3);
    (
        prop::collection::vec(arb_label(), 5),
        prop::collection::vec(path, 1..4),
        prop::collection::vec(cmp, 0..4),
        prop::option::of((
            any::<bool>(),
            0usize..3,
            prop::collection::vec(0usize..5, 0..4),
            prop::option::of(0u64..100),
        )),
        any::<bool>(),
    )
        .prop_map(|(labels, paths, cmps, ret, lower)| {
            let vars = ["a", "b", "`c d`", "e", "count"];
            let mut used = [false; 5];
            let mut rels = 0;
            let mut out = String::from(if lower { "match " } else { "MATCH " });
            let node_text = |out: &mut String, used: &mut [bool; 5], node: &NodeSpec| {
                let (var, show_label, anon_label, map) = node;
                out.push('(');
                let label = match var {
                    Some(v) => {
                        out.push_str(vars[*v]);
                        used[*v] = true;
                        labels[*v].clone().filter(|_| *show_label)
                    }
                    None => anon_label.clone(),
                };
                if let Some(label) = label {
                    out.push(':');
                    out.push_str(&crate::display::label_text(&label));
                }
                if !map.is_empty() {
                    let items: Vec<String> = map
                        .iter()
                        .map(|(k, v)| format!("{}: {}", crate::display::name_text(k), crate::display::value_text(v)))
                        .collect();
                    out.push_str(&format!(" {{{}}}", items.join(", ")));
                }
                out.push(')');
            };
            for (i, (first, rest)) in paths.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                node_text(&mut out, &mut used, first);
                for ((form, label, var), node) in rest {
                    let mut detail = String::new();
                    if *var {
                        detail.push_str(&format!("r{rels}"));
                        rels += 1;
                    }
                    if let Some(l) = label {
                        detail.push_str(&format!(":{}", crate::display::label_text(l)));
                    }
                    let d = format!("[{detail}]");
                    out.push_str(&match form {
                        0 => "-->".to_string(),
                        1 => "<--".to_string(),
                        2 => "--".to_string(),
                        3 => format!("-{d}->"),
                        4 => format!("<-{d}-"),
                        5 => format!("-{d}-"),
                        6 => format!("<-{d}->"),
                        7 => "<-->".to_string(),
                        _ => format!(" - {d} -> "),
                    });
                    node_text(&mut out, &mut used, node);
                }
            }
            let cmps: Vec<String> = cmps
                .iter()
                .filter(|c| used[c.0])
                .map(|(v, key, op, value, flip, parens)| {
                    let prop = format!("{}.{}", vars[*v], crate::display::name_text(key));
                    let value = crate::display::value_text(value);
                    let text = if *flip {
                        format!("{value} {} {prop}", op.flipped().symbol())
                    } else {
                        format!("{prop} {} {value}", op.symbol())
                    };
                    format!("{}{text}{}", "(".repeat(*parens), ")".repeat(*parens))
                })
                .collect();
            if !cmps.is_empty() {
                out.push_str(if lower { "\nwhere " } else { "\nWHERE " });
                out.push_str(&cmps.join(if lower { " and " } else { " AND " }));
            }
            if let Some((distinct, form, vs, limit)) = ret {
                out.push_str(" RETURN ");
                if distinct {
                    out.push_str("DISTINCT ");
                }
                let mut names: Vec<&str> = Vec::new();
                for v in vs.into_iter().filter(|&v| used[v]) {
                    if !names.contains(&vars[v]) {
                        names.push(vars[v]);
                    }
                }
                match form {
                    0 => out.push('*'),
                    1 => out.push_str("count(*)"),
                    _ if names.is_empty() => out.push('*'),
                    _ => out.push_str(&names.join(", ")),
                }
                if let Some(limit) = limit {
                    out.push_str(&format!(" LIMIT {limit}"));
                }
            }
            out
        })
}

/// `parse(text)`: if an error, its position is inside its line of `text`.
fn check(text: &str) {
    if let Err(e) = parse(text) {
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(e.line >= 1 && e.line <= lines.len(), "{text:?}: {e:?}");
        let mut line = lines[e.line - 1];
        if e.line < lines.len() {
            line = line.strip_suffix('\r').unwrap_or(line);
        }
        assert_eq!(e.line_text, line, "{text:?}");
        assert!(e.column >= 1 && e.column <= line.chars().count() + 1, "{text:?}: {e:?}");
        assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{text:?}: {e:?}");
        assert!(!e.message.is_empty());
        let shown = e.to_string();
        assert_eq!(shown.lines().count(), 3, "{shown}");
    }
}

const SAMPLES: &[&str] = &[
    "MATCH (a:Person {age: 32})-[:knows]->(b)-[:created]->(c:Lang), (a)-[:likes]-(c) WHERE b.age >= 30 AND c.name <> \"Go\" RETURN DISTINCT a, c LIMIT 10",
    "MATCH (a)<-[e:3]-(:7 {k: 'v\\n'})--(), (`x y`) WHERE (a.w < 1.5e3) AND -4 >= `x y`.z RETURN count(*);",
    "match (a)-->(b)<--(c) // comment\n/* block */ return *",
];

/// Edits applied to a text: (position, kind, character).
fn arb_edits() -> impl Strategy<Value = Vec<(prop::sample::Index, u8, char)>> {
    let ch = prop_oneof![
        prop::sample::select(vec![
            '(', ')', '[', ']', '{', '}', ':', ',', '.', '-', '<', '>', '=', '*', '|', '"', '\'', '`', '\\', '/', ' ',
            '\n', '\r', '0', '9', 'a', 'é'
        ]),
        any::<char>(),
    ];
    prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, ch), 1..4)
}

fn mutate(text: &str, edits: &[(prop::sample::Index, u8, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for (at, kind, c) in edits {
        let i = at.index(chars.len() + 1);
        match kind {
            0 if i < chars.len() => {
                chars.remove(i);
            }
            1 => chars.insert(i, *c),
            _ if i < chars.len() => chars[i] = *c,
            _ => chars.push(*c),
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_patterns_print_and_parse_back(p in arb_pattern()) {
        let text = p.to_string();
        let again = parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert_eq!(Pattern { text: String::new(), ..again }, p, "{:?}", text);
    }

    #[test]
    fn random_texts_parse_print_and_parse_back(text in arb_text()) {
        ok(&text);
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "(?s).{0,120}") {
        check(&text);
    }

    #[test]
    fn pattern_like_strings_never_panic(text in "[()\\[\\]{}:,.;*|&!<>=\\-a-c0-9 '\"`\\\\\n]{0,60}") {
        check(&text);
        check(&format!("MATCH {text}"));
    }

    #[test]
    fn mutated_patterns_never_panic(sample in prop::sample::select(SAMPLES), edits in arb_edits()) {
        check(&mutate(sample, &edits));
    }

    #[test]
    fn mutated_random_patterns_never_panic(text in arb_text(), edits in arb_edits()) {
        check(&mutate(&text, &edits));
    }
}
