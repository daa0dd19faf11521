//! Unit tests of what parses, and into what: nodes, labels, each relationship form, repeated
//! variables, inline maps and WHERE, RETURN, LIMIT, comments, case, and the printer's text.

use crate::*;

pub(super) fn ok(text: &str) -> Pattern {
    match parse(text) {
        Ok(p) => {
            assert_eq!(p.text, text);
            // Every accepted pattern prints to a text that parses back to it.
            let printed = p.to_string();
            let again = parse(&printed).unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}: {e}"));
            assert_eq!(Pattern { text: p.text.clone(), ..again }, p, "{text:?} printed as {printed:?}");
            p
        }
        Err(e) => panic!("{text:?} did not parse:\n{e}"),
    }
}

fn name(s: &str) -> Option<LabelRef> {
    Some(LabelRef::Name(s.to_string()))
}

fn vertex(n: Option<&str>, label: Option<LabelRef>) -> PatternVertex {
    PatternVertex { name: n.map(str::to_string), label, more_labels: Vec::new() }
}

fn edge(from: usize, to: usize, direction: Direction, label: Option<LabelRef>) -> PatternEdge {
    PatternEdge { from, to, direction, label }
}

fn pred(vertex: usize, key: &str, op: CompareOp, value: Value) -> Predicate {
    Predicate { vertex, key: key.to_string(), op, value }
}

fn s(x: &str) -> Value {
    Value::Str(x.to_string())
}

use CompareOp::*;
use Direction::{Either, Out};

#[test]
fn the_example() {
    let p = ok("MATCH (a:Person {age: 32})-[:knows]->(b)-[:created]->(c:Lang), (a)-[:likes]-(c) \
                WHERE b.age >= 30 AND c.name <> \"Go\" RETURN DISTINCT a, c LIMIT 10");
    assert_eq!(
        p.vertices,
        [vertex(Some("a"), name("Person")), vertex(Some("b"), None), vertex(Some("c"), name("Lang"))]
    );
    assert_eq!(
        p.edges,
        [edge(0, 1, Out, name("knows")), edge(1, 2, Out, name("created")), edge(0, 2, Either, name("likes"))]
    );
    assert_eq!(
        p.predicates,
        [pred(0, "age", Eq, Value::Int(32)), pred(1, "age", Ge, Value::Int(30)), pred(2, "name", Ne, s("Go"))]
    );
    assert_eq!((p.returns.clone(), p.distinct, p.limit), (Return::Vertices(vec![0, 2]), true, Some(10)));
    assert_eq!(p.column_names(), ["a", "c"]);
    assert_eq!(
        p.to_string(),
        "MATCH (a:Person {age: 32})-[:knows]->(b)-[:created]->(c:Lang), (a)-[:likes]-(c) \
         WHERE b.age >= 30 AND c.name <> \"Go\" RETURN DISTINCT a, c LIMIT 10"
    );
}

#[test]
fn nodes() {
    let p = ok("MATCH (a)");
    assert_eq!(p.vertices, [vertex(Some("a"), None)]);
    assert!(p.edges.is_empty() && p.predicates.is_empty());
    assert_eq!((p.returns.clone(), p.distinct, p.limit), (Return::All, false, None));
    let p = ok("MATCH (), (:L), ({x: 1}), (a:L {x: 1, y: 'z'}), (b {})");
    assert_eq!(
        p.vertices,
        [
            vertex(None, None),
            vertex(None, name("L")),
            vertex(None, None),
            vertex(Some("a"), name("L")),
            vertex(Some("b"), None),
        ]
    );
    assert_eq!(
        p.predicates,
        [pred(2, "x", Eq, Value::Int(1)), pred(3, "x", Eq, Value::Int(1)), pred(3, "y", Eq, s("z"))]
    );
    assert_eq!(p.column_names(), ["a", "b"]);
}

#[test]
fn labels_by_name_number_backquote_or_absent() {
    let p = ok("MATCH (a:Person)-[:knows]->(b:3)-[:7]->(c:`two words`)-->(d:`3`)-[:`a``b`]-(e:MATCH)");
    let labels: Vec<_> = p.vertices.iter().map(|v| v.label.clone()).collect();
    assert_eq!(labels, [name("Person"), Some(LabelRef::Id(3)), name("two words"), name("3"), name("MATCH")]);
    let edge_labels: Vec<_> = p.edges.iter().map(|e| e.label.clone()).collect();
    assert_eq!(edge_labels, [name("knows"), Some(LabelRef::Id(7)), None, name("a`b")]);
    assert_eq!(ok("MATCH (a:4294967295)").vertices[0].label, Some(LabelRef::Id(u32::MAX)));
    assert_eq!(ok("MATCH (a:007)").vertices[0].label, Some(LabelRef::Id(7)));
    assert!(ok("MATCH (x:`3`)").to_string().contains("(x:`3`)"));
}

#[test]
fn every_relationship_form() {
    let cases = [
        ("(a)-->(b)", edge(0, 1, Out, None)),
        ("(a)<--(b)", edge(1, 0, Out, None)),
        ("(a)--(b)", edge(0, 1, Either, None)),
        ("(a)<-->(b)", edge(0, 1, Either, None)),
        ("(a)-[]->(b)", edge(0, 1, Out, None)),
        ("(a)<-[]-(b)", edge(1, 0, Out, None)),
        ("(a)-[]-(b)", edge(0, 1, Either, None)),
        ("(a)-[:t]->(b)", edge(0, 1, Out, name("t"))),
        ("(a)<-[:t]-(b)", edge(1, 0, Out, name("t"))),
        ("(a)-[:t]-(b)", edge(0, 1, Either, name("t"))),
        ("(a)<-[:t]->(b)", edge(0, 1, Either, name("t"))),
        ("(a)-[e]->(b)", edge(0, 1, Out, None)),
        ("(a)-[e:2]->(b)", edge(0, 1, Out, Some(LabelRef::Id(2)))),
        ("(a) < - [ e : t ] - > (b)", edge(0, 1, Either, name("t"))),
        ("(a)- -> (b)", edge(0, 1, Out, None)),
    ];
    assert_eq!(ok("MATCH (a)-->(b)<--(c)<-[:t]-(d)").to_string(), "MATCH (a)-->(b)<--(c)<-[:t]-(d) RETURN *");
    for (text, want) in cases {
        let p = ok(&format!("MATCH {text}"));
        assert_eq!(p.edges, [want], "{text}");
        assert_eq!(p.vertices.len(), 2, "{text}");
    }
}

#[test]
fn repeated_variables_are_one_vertex() {
    let p = ok("MATCH (a:Person)-->(b), (b)-->(c:Person), (c)-->(a), (a {age: 3}), (a:Person)");
    assert_eq!(p.vertices.len(), 3);
    assert_eq!(p.edges, [edge(0, 1, Out, None), edge(1, 2, Out, None), edge(2, 0, Out, None)]);
    assert_eq!(p.vertices[0].label, name("Person"));
    assert_eq!(p.predicates, [pred(0, "age", Eq, Value::Int(3))]);
    // The label may come at a later occurrence.
    let p = ok("MATCH (a)-->(b), (a:X)");
    assert_eq!(p.vertices[0].label, name("X"));
    // Anonymous nodes are never the same vertex.
    let p = ok("MATCH ()-->(), ()-->()");
    assert_eq!(p.vertices, vec![vertex(None, None); 4]);
    assert_eq!(p.edges, [edge(0, 1, Out, None), edge(2, 3, Out, None)]);
    // A self-loop and a cycle.
    let p = ok("MATCH (a)-->(a)-[:x]-(b)<--(a)");
    assert_eq!(p.edges, [edge(0, 0, Out, None), edge(0, 1, Either, name("x")), edge(0, 1, Out, None)]);
}

#[test]
fn duplicate_edges_are_kept_once() {
    let p = ok("MATCH (a)-->(b), (b)<--(a), (a)-[:x]->(b), (a)-->(b)-->(a), (a)--(b), (b)--(a), (a)--(b)");
    assert_eq!(
        p.edges,
        [
            edge(0, 1, Out, None),
            edge(0, 1, Out, name("x")),
            edge(1, 0, Out, None),
            edge(0, 1, Either, None),
            edge(1, 0, Either, None),
        ]
    );
}

#[test]
fn anonymous_nodes_in_long_paths() {
    let p = ok("MATCH (a)-->()<-[:r]-(:L {k: 'v'})--(a), ()");
    assert_eq!(p.vertices, [vertex(Some("a"), None), vertex(None, None), vertex(None, name("L")), vertex(None, None)]);
    assert_eq!(p.edges, [edge(0, 1, Out, None), edge(2, 1, Out, name("r")), edge(2, 0, Either, None)]);
    assert_eq!(p.predicates, [pred(2, "k", Eq, s("v"))]);
    assert_eq!(p.to_string(), "MATCH (a)-->()<-[:r]-(:L {k: \"v\"})--(a), () RETURN *");
}

#[test]
fn inline_maps_and_where() {
    let p = ok("MATCH (a {name: \"Ann\", age: -5})-->(b {score: 1.5, e: -2e3}) \
                WHERE a.x = 'q' AND b.y <> 2 AND a.z < 3 AND b.w <= 4.25 AND a.v > -7 AND b.u >= 8");
    assert_eq!(
        p.predicates,
        [
            pred(0, "name", Eq, s("Ann")),
            pred(0, "age", Eq, Value::Int(-5)),
            pred(1, "score", Eq, Value::Float(1.5)),
            pred(1, "e", Eq, Value::Float(-2000.0)),
            pred(0, "x", Eq, s("q")),
            pred(1, "y", Ne, Value::Int(2)),
            pred(0, "z", Lt, Value::Int(3)),
            pred(1, "w", Le, Value::Float(4.25)),
            pred(0, "v", Gt, Value::Int(-7)),
            pred(1, "u", Ge, Value::Int(8)),
        ]
    );
}

#[test]
fn flipped_comparisons() {
    let p = ok("MATCH (a) WHERE 1 = a.x AND 2 <> a.x AND 3 < a.x AND 4 <= a.x AND 5 > a.x AND 6 >= a.x");
    let ops: Vec<_> = p.predicates.iter().map(|q| (q.op, q.value.clone())).collect();
    assert_eq!(
        ops,
        [
            (Eq, Value::Int(1)),
            (Ne, Value::Int(2)),
            (Gt, Value::Int(3)),
            (Ge, Value::Int(4)),
            (Lt, Value::Int(5)),
            (Le, Value::Int(6)),
        ]
    );
    assert_eq!(ok("MATCH (a) WHERE 'x' >= a.`my key`").predicates, [pred(0, "my key", Le, s("x"))]);
}

#[test]
fn parentheses_around_comparisons() {
    let p = ok("MATCH (a), (b) WHERE (a.x = 1) AND ((b.y < 2)) AND a.z > 0");
    assert_eq!(
        p.predicates,
        [pred(0, "x", Eq, Value::Int(1)), pred(1, "y", Lt, Value::Int(2)), pred(0, "z", Gt, Value::Int(0))]
    );
}

#[test]
fn values() {
    let p = ok(r#"MATCH (a {i: 9223372036854775807, j: -9223372036854775808, f: 1e308, g: 0.000001, h: -0.5,
                    s: "q\"\\\n\t\r'", t: 'it\'s "x"', u: "", v: "é ✓"})"#);
    let values: Vec<_> = p.predicates.iter().map(|q| q.value.clone()).collect();
    assert_eq!(
        values,
        [
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::Float(1e308),
            Value::Float(1e-6),
            Value::Float(-0.5),
            s("q\"\\\n\t\r'"),
            s("it's \"x\""),
            s(""),
            s("é ✓"),
        ]
    );
}

#[test]
fn return_forms() {
    assert_eq!(ok("MATCH (a)-->(b)").returns, Return::All);
    assert_eq!(ok("MATCH (a)-->(b) RETURN *").returns, Return::All);
    let p = ok("MATCH (a)-->(b)-->(c) RETURN c, a");
    assert_eq!(
        (p.returns.clone(), p.column_names()),
        (Return::Vertices(vec![2, 0]), vec!["c".to_string(), "a".into()])
    );
    let p = ok("MATCH (a)-->() RETURN count(*)");
    assert_eq!((p.returns.clone(), p.column_names()), (Return::CountStar, vec!["count(*)".to_string()]));
    assert_eq!(ok("MATCH (a) RETURN COUNT ( * )").returns, Return::CountStar);
    let p = ok("MATCH (a) RETURN DISTINCT *");
    assert_eq!((p.returns, p.distinct), (Return::All, true));
    // A variable called count is returned as a variable.
    let p = ok("MATCH (count)-->(b) RETURN count, b");
    assert_eq!(p.returns, Return::Vertices(vec![0, 1]));
    assert_eq!(p.to_string(), "MATCH (count)-->(b) RETURN count, b");
    // RETURN * with only anonymous nodes has no column.
    assert!(ok("MATCH ()-->()").column_names().is_empty());
}

#[test]
fn limit() {
    assert_eq!(ok("MATCH (a) RETURN a LIMIT 0").limit, Some(0));
    assert_eq!(ok("MATCH (a) RETURN * LIMIT 18446744073709551615").limit, Some(u64::MAX));
    let p = ok("MATCH (a) RETURN count(*) LIMIT 5");
    assert_eq!((p.returns, p.limit), (Return::CountStar, Some(5)));
}

#[test]
fn comments_whitespace_and_semicolon() {
    let p = ok("// find pairs\nMATCH\t(a:A) // the first\n  -[:r]->\r\n  (b) /* the second */\nWHERE a.x = 1 // one\nRETURN a;\n// end\n");
    assert_eq!(p.vertices.len(), 2);
    assert_eq!(p.predicates.len(), 1);
    assert_eq!(p.returns, Return::Vertices(vec![0]));
    assert_eq!(ok("(a);").vertices.len(), 1);
    assert_eq!(ok("MATCH(a)-->(b)RETURN a").edges.len(), 1);
}

#[test]
fn keywords_are_case_insensitive() {
    let a = ok("match (a)-->(b) where a.x = 1 and b.y = 2 return distinct a, b limit 3");
    let b = ok("MaTcH (a)-->(b) WhErE a.x = 1 AnD b.y = 2 ReTuRn DiStInCt a, b LiMiT 3");
    let c = ok("MATCH (a)-->(b) WHERE a.x = 1 AND b.y = 2 RETURN DISTINCT a, b LIMIT 3");
    assert_eq!(Pattern { text: String::new(), ..a.clone() }, Pattern { text: String::new(), ..b });
    assert_eq!(Pattern { text: String::new(), ..a }, Pattern { text: String::new(), ..c });
    assert_eq!(ok("MATCH (a) RETURN Count(*)").returns, Return::CountStar);
}

#[test]
fn match_may_be_left_out() {
    let p = ok("(a:A)-->(b) RETURN b");
    assert_eq!(p.vertices.len(), 2);
    assert_eq!(p.returns, Return::Vertices(vec![1]));
}

#[test]
fn backquoted_variables_and_keys() {
    let p = ok("MATCH (`my node`:L {`the key`: 1})-->(`match`) WHERE `match`.`limit` = 2 RETURN `my node`, `match`");
    assert_eq!(p.vertices[0].name.as_deref(), Some("my node"));
    assert_eq!(p.vertices[1].name.as_deref(), Some("match"));
    assert_eq!(p.predicates[1], pred(1, "limit", Eq, Value::Int(2)));
    assert_eq!(p.column_names(), ["my node", "match"]);
    // Keywords are fine as property names and labels.
    assert_eq!(ok("MATCH (a:Return {match: 1}) WHERE a.where = 2").predicates[1].key, "where");
    assert_eq!(p.to_string(), "MATCH (`my node`:L {`the key`: 1})-->(`match` {`limit`: 2}) RETURN `my node`, `match`");
}

#[test]
fn display_orders_vertices_edges_and_inline_predicates() {
    // A pattern whose anonymous vertices fix where things go.
    let cases = [
        "MATCH ({k: 1})-->(a {x: 2})-->({k: 3}), (a)-->(b) WHERE a.y > 1",
        "MATCH (b), (a)-->({k: 1}), (a {x: 1}), ()--(b)",
        "MATCH (a)<--()<--(b)<--()<--(a {z: 0}), (c), ()",
        "MATCH (x)-->(y), (y {p: 1})<-[:q]-(), (x)-->(y)",
        "MATCH ()--(a)--()",
        "MATCH (a), (b), (c), (c)<--(), (b)-->()",
        "MATCH (b)--()--(c)--(b), (b {x: 1})",
        "MATCH (a)-->(b {p: 1}), ({q: 2})-->(a)",
    ];
    for text in cases {
        ok(text);
    }
    assert_eq!(ok(cases[4]).to_string(), "MATCH ()--(a)--() RETURN *");
}

#[test]
fn display_keeps_equalities_inline_up_to_the_first_other_comparison() {
    let p = ok("MATCH (a)-->(b) WHERE a.x = 1 AND b.y = 'z' AND a.w > 2 AND b.v = 3");
    assert_eq!(p.to_string(), "MATCH (a {x: 1})-->(b {y: \"z\"}) WHERE a.w > 2 AND b.v = 3 RETURN *");
    // An equality that must come after an anonymous vertex's: a node of its own.
    let p = ok("MATCH (a)-->({k: 1}) WHERE a.x = 1");
    assert_eq!(p.to_string(), "MATCH (a)-->({k: 1}), (a {x: 1}) RETURN *");
}

#[test]
fn display_quotes_what_needs_it() {
    let p = ok("MATCH (`a b`:`L``M` {`k-1`: \"x\\\"y\"})-[:`R R`]->(`where`:`12`) RETURN `a b`");
    assert_eq!(p.to_string(), "MATCH (`a b`:`L``M` {`k-1`: \"x\\\"y\"})-[:`R R`]->(`where`:`12`) RETURN `a b`");
    let p = ok("MATCH ({f: 1.0, g: 1e300, h: -0.0, i: 2E-7, j: 1.5e-320})");
    assert_eq!(p.to_string(), "MATCH ({f: 1.0, g: 1e300, h: -0.0, i: 2e-7, j: 1.5e-320}) RETURN *");
}

#[test]
fn display_of_patterns_parse_cannot_give() {
    // An anonymous vertex on three edges: written with a fresh name.
    let z = || vertex(None, None);
    let p = Pattern {
        vertices: vec![vertex(Some("_0"), None), z(), vertex(Some("b"), None), vertex(Some("c"), None)],
        edges: vec![edge(0, 1, Out, None), edge(2, 1, Out, None), edge(1, 3, Either, name("t"))],
        predicates: vec![pred(1, "k", Lt, Value::Int(1))],
        returns: Return::Vertices(vec![1]),
        distinct: false,
        limit: None,
        text: String::new(),
    };
    let text = p.to_string();
    assert_eq!(
        text,
        "MATCH (_0), (__1), (b), (c), (_0)-->(__1), (b)-->(__1), (__1)-[:t]-(c) WHERE __1.k < 1 RETURN __1"
    );
    let q = parse(&text).unwrap();
    assert_eq!(q.vertices[1].name.as_deref(), Some("__1"));
    assert_eq!((q.edges, q.predicates), (p.edges, p.predicates));
    // Out-of-range ids do not panic.
    let bad = Pattern {
        vertices: vec![],
        edges: vec![edge(0, 5, Out, None)],
        predicates: vec![pred(9, "k", Eq, Value::Float(f64::NAN))],
        returns: Return::Vertices(vec![3]),
        distinct: true,
        limit: Some(1),
        text: String::new(),
    };
    assert_eq!(bad.to_string(), "MATCH (`?0`)-->(`?5`) WHERE `?9`.k = NaN RETURN DISTINCT `?3` LIMIT 1");
}

#[test]
fn large_patterns_take_linear_time() {
    // A path through 512 named vertices, each with a map, all returned, and one anonymous node
    // between each pair (1,023 vertices, within MAX_PATTERN_VERTICES), its edges repeated until
    // the text is about 1 MiB; then printed and parsed again.
    let n = 512;
    let mut path = String::from("(v0 {k: 0})");
    for i in 1..n {
        path.push_str(&format!("-->()<-[:t]-(v{i} {{k: {i}}})"));
    }
    let mut text = format!("MATCH {path}");
    let repeat: String = (1..n).map(|i| format!(", (v{})<-[:t]-(v{i})", i - 1)).collect();
    while text.len() + repeat.len() < MAX_PATTERN_LEN - 8 * n {
        text.push_str(&repeat);
    }
    text.push_str(" RETURN ");
    text.push_str(&(0..n).map(|i| format!("v{i}")).collect::<Vec<_>>().join(", "));
    assert!(text.len() > MAX_PATTERN_LEN / 2 && text.len() <= MAX_PATTERN_LEN, "{}", text.len());
    let start = std::time::Instant::now();
    let p = parse(&text).expect("parses");
    assert_eq!((p.vertices.len(), p.edges.len(), p.predicates.len()), (2 * n - 1, 3 * (n - 1), n));
    let again = parse(&p.to_string()).expect("its text parses");
    assert_eq!((again.vertices, again.edges, again.predicates), (p.vertices, p.edges, p.predicates));
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    // An error at the end of a long text.
    let e = parse(&format!("{text}?")).unwrap_err();
    assert_eq!((e.line, e.column, e.message.as_str()), (1, text.len() + 1, "unexpected character '?'"));
}

#[test]
fn pattern_size_is_bounded() {
    let refused = |text: &str, what: &str| {
        let e = parse(text).unwrap_err();
        assert!(e.message.starts_with("the pattern has more than") && e.message.contains(what), "{}", e.message);
        e
    };
    // Vertices: a chain of MAX_PATTERN_VERTICES parses, one more does not (the hostile inputs:
    // a chain of 100,000 hops, 100,000 comma-separated parts, 5,000 parts of `()--()`).
    let chain = |k: usize| format!("MATCH (a0){}", (1..k).map(|i| format!("--(a{i})")).collect::<String>());
    assert_eq!(parse(&chain(MAX_PATTERN_VERTICES)).unwrap().vertices.len(), MAX_PATTERN_VERTICES);
    let e = refused(&chain(MAX_PATTERN_VERTICES + 1), "1024 vertices");
    assert_eq!(e.offset, chain(MAX_PATTERN_VERTICES).len() + 2 + "(a1024".len());
    refused(&chain(100_000), "vertices");
    refused(&format!("MATCH (a0){}", (1..100_000).map(|i| format!(", (a{i})")).collect::<String>()), "vertices");
    refused(&format!("MATCH ()--(){}", ", ()--()".repeat(4_999)), "vertices");
    // Edges: a clique of 91 vertices has 4,095; of 92, 4,186.
    let clique = |k: usize| {
        let parts: Vec<String> = (0..k).flat_map(|a| (a + 1..k).map(move |b| format!("(v{a})--(v{b})"))).collect();
        format!("MATCH {}", parts.join(", "))
    };
    assert_eq!(parse(&clique(91)).unwrap().edges.len(), 4095);
    refused(&clique(92), "4096 edges");
    // A repeated edge is one edge, and counts once.
    assert_eq!(parse(&format!("MATCH (a)--(b){}", ", (a)--(b)".repeat(10_000))).unwrap().edges.len(), 1);
    // Property tests.
    let tests = |k: usize| format!("MATCH (a) WHERE {}", vec!["a.x = 1"; k].join(" AND "));
    assert_eq!(parse(&tests(MAX_PATTERN_PREDICATES)).unwrap().predicates.len(), MAX_PATTERN_PREDICATES);
    refused(&tests(MAX_PATTERN_PREDICATES + 1), "4096 property tests");
}

#[test]
fn a_node_of_several_labels_has_them_all() {
    let p = ok("MATCH (a:Person:Employee)-->(b:3:`3`), (a:Researcher), (a:Person)");
    assert_eq!(p.vertices[0].label, name("Person"));
    assert_eq!(p.vertices[0].more_labels, [LabelRef::Name("Employee".into()), LabelRef::Name("Researcher".into())]);
    assert_eq!(p.vertices[1].more_labels, [LabelRef::Name("3".into())], "a number and a name are two labels");
    assert_eq!(p.to_string(), "MATCH (a:Person:Employee:Researcher)-->(b:3:`3`) RETURN *");
    assert!(ok("MATCH (a:A:A)").vertices[0].more_labels.is_empty());
}
