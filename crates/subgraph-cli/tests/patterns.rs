//! End-to-end tests of patterns (`match --pattern`, `.cypher` query files): counts equal to
//! the same query given as a graph file, rows with named columns, DISTINCT and LIMIT, the
//! default semantics, and one-message errors with a caret for what cannot be read or run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_subgraph")).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// The JSON reports a run printed on stderr (where they go when the rows take stdout).
fn stderr_report(o: &Output) -> Vec<serde_json::Value> {
    text(&o.stderr).lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn report(o: &Output) -> Vec<serde_json::Value> {
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A Sun & Luo `.graph` query written as a pattern: every vertex with its label, every edge.
fn as_pattern(graph: &str) -> String {
    let mut parts = Vec::new();
    for line in graph.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.first() {
            Some(&"v") => parts.push(format!("(v{}:{})", f[1], f[2])),
            Some(&"e") => parts.push(format!("(v{})--(v{})", f[1], f[2])),
            _ => {}
        }
    }
    format!("MATCH {}", parts.join(", "))
}

#[test]
fn a_query_written_as_a_pattern_counts_the_same() {
    let hprd = data("hprd/HPRD.graph");
    let expected = std::fs::read_to_string(data("hprd/expected_output.res")).unwrap();
    for name in ["query_dense_16_2", "query_dense_16_8", "query_dense_16_11"] {
        let file = data(&format!("hprd/queries/{name}.graph"));
        let want: u64 = expected.lines().find_map(|l| l.strip_prefix(&format!("{name}:"))).unwrap().parse().unwrap();
        let pattern = as_pattern(&std::fs::read_to_string(&file).unwrap());
        let args = ["match", "-q", "--format", "json", "--semantics", "embed", hprd.to_str().unwrap(), "--pattern"];
        let r = report(&run(&[&args[..], &[pattern.as_str()]].concat()));
        assert_eq!(r[0]["embeddings"], want, "{name}");
        assert_eq!(r[0]["rows"], want, "{name}: one row per match");
        assert_eq!(r[0]["pattern"], pattern.as_str());
    }
}

#[test]
fn patterns_default_to_homomorphism_and_cypher_files_are_patterns() {
    let hprd = data("hprd/HPRD.graph");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("path.cypher");
    // A path of two edges, its ends labelled 1: homomorphisms may fold it (a = c).
    std::fs::write(&file, "// two edges\nMATCH (a:1)--(b)--(c:1)\nRETURN count(*);\n").unwrap();
    let hprd = hprd.to_str().unwrap();
    let hom = report(&run(&["match", "-q", "--format", "json", hprd, file.to_str().unwrap()]));
    let emb = report(&run(&["match", "-q", "--format", "json", "--semantics", "embed", hprd, file.to_str().unwrap()]));
    assert_eq!(hom[0]["semantics"], "homomorphism");
    assert_eq!(hom[0]["query"], file.to_str().unwrap());
    assert_eq!(hom[0]["rows"], 1, "count(*) is one row");
    let (h, e) = (hom[0]["embeddings"].as_u64().unwrap(), emb[0]["embeddings"].as_u64().unwrap());
    assert!(h > e && e > 0, "homomorphisms {h} add the folded paths to the embeddings {e}");
}

#[test]
fn rows_are_written_with_named_columns() {
    let hprd = data("hprd/HPRD.graph");
    let hprd = hprd.to_str().unwrap();
    let p = "MATCH (a:1)--(b)--(c:1)--(a) RETURN DISTINCT b";
    let all = report(&run(&["match", "-q", "--format", "json", "--semantics", "embed", hprd, "--pattern", p]));
    let csv = run(&[
        "match",
        "-q",
        "--semantics",
        "embed",
        "--output",
        "-",
        "--output-format",
        "csv",
        "--format",
        "json",
        hprd,
        "--pattern",
        p,
    ]);
    let out = text(&csv.stdout);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("query,b"));
    let rows: Vec<&str> = lines.take_while(|l| l.starts_with("pattern,")).collect();
    let distinct: std::collections::HashSet<&&str> = rows.iter().collect();
    assert_eq!(rows.len(), distinct.len(), "DISTINCT rows are distinct");
    assert_eq!(rows.len() as u64, all[0]["rows"].as_u64().unwrap());
    assert!(all[0]["embeddings"].as_u64().unwrap() > rows.len() as u64, "several triangles share a b");

    let limited = run(&[
        "match",
        "-q",
        "--output",
        "-",
        "--output-format",
        "jsonl",
        "--format",
        "json",
        hprd,
        "--pattern",
        &format!("{p} LIMIT 2"),
    ]);
    let lines: Vec<serde_json::Value> =
        text(&limited.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "two rows, and the report on stderr");
    assert!(lines[0]["row"]["b"].is_u64());
    let r = stderr_report(&limited);
    assert_eq!(r[0]["rows"], 2);
    assert_eq!(r[0]["complete"], false);
}

#[test]
fn what_cannot_be_read_or_run_is_one_error() {
    let hprd = data("hprd/HPRD.graph");
    let hprd = hprd.to_str().unwrap();
    let bad = run(&["match", "-q", hprd, "--pattern", "MATCH (a:1 -->(b)"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = text(&bad.stderr);
    assert!(err.starts_with("subgraph: error: pattern, line 1, column 12: expected"), "{err}");
    assert!(err.contains("\n  MATCH (a:1 -->(b)\n             ^"), "{err}");
    let props = run(&["match", "-q", hprd, "--pattern", "MATCH (a:1)-->(b) WHERE b.age > 3"]);
    assert_eq!(props.status.code(), Some(1));
    assert!(text(&props.stderr).contains("vertex properties"), "{}", text(&props.stderr));
    assert_eq!(text(&props.stderr).lines().count(), 1);
}

#[test]
fn labels_named_in_the_input_are_named_in_patterns_and_kept_in_binary_files() {
    let (edges, labels) = (data("named/edges.txt"), data("named/labels.txt"));
    let (edges, labels) = (edges.to_str().unwrap(), labels.to_str().unwrap());
    let input = ["--directed", "--string-ids", "--vertex-labels", labels, edges];
    let p = "MATCH (a:Person)-[:knows]->(b:Person)-[:created]->(c:Lang) RETURN DISTINCT a, c";
    let o = run(&[
        &["match", "-q", "--output", "-", "--output-format", "csv", "--format", "json"][..],
        &input,
        &["--pattern", p],
    ]
    .concat());
    let out = text(&o.stdout);
    let mut rows: Vec<&str> = out.lines().skip(1).filter(|l| l.starts_with("pattern,")).collect();
    rows.sort_unstable();
    assert_eq!(out.lines().next(), Some("query,a,c"));
    // Hand-checked: who knows someone who created a language, and that language.
    assert_eq!(
        rows,
        ["pattern,ada,cobol", "pattern,alan,algol", "pattern,barbara,cobol", "pattern,edsger,clu", "pattern,grace,clu"]
    );

    let dir = tempfile::tempdir().unwrap();
    let sgb = dir.path().join("named.sgb");
    let c = run(&[&["convert"][..], &input, &[sgb.to_str().unwrap()]].concat());
    assert!(c.status.success(), "{}", text(&c.stderr));
    let r = report(&run(&["match", "-q", "--format", "json", sgb.to_str().unwrap(), "--pattern", p]));
    assert_eq!(r[0]["rows"], 5, "the names came through the binary file");
    let info = run(&["info", "--format", "json", sgb.to_str().unwrap()]);
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["vertex_label_names"], serde_json::json!(["Lang", "Person"]));
    assert_eq!(info["edge_label_names"], serde_json::json!(["created", "knows", "likes"]));

    let bad = run(&[&["match", "-q"][..], &input, &["--pattern", "MATCH (a:Robot)-->(b)"]].concat());
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("no vertex label of the data graph is named 'Robot' (its 2 names: Lang, Person)")
    );
}

#[test]
fn property_tests_read_the_vertex_properties() {
    let (edges, labels, props) = (data("named/edges.txt"), data("named/labels.txt"), data("named/props.csv"));
    let input = [
        "--directed",
        "--string-ids",
        "--vertex-labels",
        labels.to_str().unwrap(),
        "--vertex-props",
        props.to_str().unwrap(),
        edges.to_str().unwrap(),
    ];
    let p = r#"MATCH (a:Person {field: "computing"})-[:knows]->(b)-[:created]->(c:Lang)
               WHERE c.born >= 1959 AND b.name <> "Grace Hopper" RETURN a, b, c"#;
    let o = run(&[
        &["match", "-q", "--output", "-", "--output-format", "csv", "--format", "json"][..],
        &input,
        &["--pattern", p],
    ]
    .concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let mut rows: Vec<&str> = out.lines().filter(|l| l.starts_with("pattern,")).collect();
    rows.sort_unstable();
    // Hand-checked: computing people who know Barbara Liskov, who created CLU (1975).
    assert_eq!(rows, ["pattern,edsger,barbara,clu", "pattern,grace,barbara,clu"]);

    let missing = run(&[&["match", "-q"][..], &input, &["--pattern", "MATCH (a)-->(b) WHERE a.age > 3"]].concat());
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr)
        .contains("property 'age', which the vertex properties do not have (they have: born, name, field)"));
    let unknown_id = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(unknown_id.path(), "id,x\nada,1\nbob,2\n").unwrap();
    let mut bad = input;
    bad[5] = unknown_id.path().to_str().unwrap();
    let o = run(&[&["match", "-q"][..], &bad, &["--pattern", "MATCH (a)-->(b)"]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).ends_with(":3: vertex id 'bob' is not in the data graph\n"), "{}", text(&o.stderr));
}

#[test]
fn an_edge_without_direction_matches_either_way_once() {
    let (edges, labels) = (data("named/edges.txt"), data("named/labels.txt"));
    let input = ["--directed", "--string-ids", "--vertex-labels", labels.to_str().unwrap(), edges.to_str().unwrap()];
    let r = report(&run(&[
        &["match", "-q", "--format", "json"][..],
        &input,
        &["--pattern", "MATCH (a:Person)-[:knows]-(b:Person)"],
    ]
    .concat()));
    // Five pairs know each other (ada and alan, grace and barbara both ways), each pair
    // matched in both orders, once.
    assert_eq!(r[0]["embeddings"], 10);
    // Counted match by match, written as one count under one header.
    let p = "MATCH (a:Person)-[:knows]-(b:Person) RETURN count(*)";
    let o = run(&[
        &["match", "-q", "--output", "-", "--output-format", "csv", "--format", "json"][..],
        &input,
        &["--pattern", p],
    ]
    .concat());
    assert_eq!(text(&o.stdout).lines().take(2).collect::<Vec<_>>(), ["query,count(*)", "pattern,10"]);
    let induced =
        run(&[&["match", "-q", "--semantics", "induced"][..], &input, &["--pattern", "MATCH (a)--(b)"]].concat());
    assert_eq!(induced.status.code(), Some(1));
    assert!(text(&induced.stderr).contains("write -> or <-"));
}

#[test]
fn rdf_reads_as_a_property_graph() {
    let nt = data("named/people.nt.gz");
    let p = "MATCH (a:Person)-[:knows]->(b:Person)-[:created]->(c:Lang) WHERE a.born < 1900 RETURN a, c";
    let o = run(&[
        "match",
        "-q",
        "--output",
        "-",
        "--output-format",
        "jsonl",
        "--format",
        "json",
        nt.to_str().unwrap(),
        "--pattern",
        p,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let lines: Vec<serde_json::Value> = text(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Ada (born 1815) knows Grace, who created COBOL; Alan knows Barbara but was born 1912.
    assert_eq!(lines[0]["row"], serde_json::json!({"a": "http://example.org/ada", "c": "http://example.org/cobol"}));
    assert_eq!(lines.len(), 1, "the rows on stdout, the report on stderr");
    assert_eq!(stderr_report(&o)[0]["rows"], 1);
    let dir = tempfile::tempdir().unwrap();
    let sgb = dir.path().join("people.sgb");
    let c = run(&["convert", nt.to_str().unwrap(), sgb.to_str().unwrap()]);
    assert!(c.status.success(), "{}", text(&c.stderr));
    let r = report(&run(&["match", "-q", "--format", "json", sgb.to_str().unwrap(), "--pattern", p]));
    assert_eq!(r[0]["rows"], 1, "names and properties came through the binary file");
    let edges = dir.path().join("people.txt");
    let c = run(&["convert", nt.to_str().unwrap(), edges.to_str().unwrap()]);
    assert!(text(&c.stderr).contains("does not carry vertex properties (2 columns dropped); binary files keep them"));
}

#[test]
fn unlabelled_patterns_on_many_labels_run_on_the_label_free_view() {
    // yeast has 71 labels: a triangle of unlabelled vertices expands past 4096 combinations.
    let yeast = data("yeast/yeast.graph");
    let o = run(&[
        "match",
        "--format",
        "json",
        "--semantics",
        "embed",
        yeast.to_str().unwrap(),
        "--pattern",
        "MATCH (a)--(b)--(c)--(a)",
    ]);
    let r = report(&o);
    // Ordered triangles of yeast, counted by brute force over its edge list.
    assert_eq!(r[0]["embeddings"], 39540);
    assert!(text(&o.stderr).contains("runs on the CPU over the data graph without labels"));
}

/// Tree patterns (GGQ) are counted by the tree passes under homomorphism: the same counts,
/// rows and written answers as the general engine (`--tree-count off`), with absent labels,
/// DISTINCT of one vertex, LIMIT, and on a directed property graph; not under embed.
#[test]
fn tree_patterns_count_as_the_general_engine_does() {
    let hprd = data("hprd/HPRD.graph");
    let hprd = hprd.to_str().unwrap();
    let named = data("named");
    let n = |f: &str| named.join(f).to_str().unwrap().to_string();
    let property_graph = [
        "--directed",
        "--string-ids",
        "--vertex-labels",
        &n("labels.txt"),
        "--vertex-props",
        &n("props.csv"),
        &n("edges.txt"),
    ]
    .map(String::from);
    let cases: [(Vec<String>, &str); 5] = [
        (vec![hprd.into()], "MATCH (a:1)--(b)--(c:2) RETURN count(*)"),
        (vec![hprd.into()], "MATCH (a:1)--(b)--(c:2), (b)--(d) RETURN DISTINCT b"),
        (vec![hprd.into()], "MATCH (a)--(b:3)--(c) RETURN count(*) LIMIT 1000"),
        (property_graph.to_vec(), "MATCH (a:Person)-[:knows]->(b)<-[:knows]-(c) WHERE a.born < 1920 RETURN DISTINCT c"),
        (property_graph.to_vec(), "MATCH (a)-->(b:Lang), (c)-[:knows]->(a) RETURN count(*)"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (input, pattern) in cases {
        let mut got = Vec::new();
        for mode in ["auto", "off"] {
            let out = dir.path().join(format!("{mode}.txt"));
            let args = ["match", "-q", "--format", "json", "--tree-count", mode, "--output", out.to_str().unwrap()];
            let input: Vec<&str> = input.iter().map(String::as_str).collect();
            let r = report(&run(&[&args[..], &input, &["--pattern", pattern]].concat()));
            let mut lines: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(String::from).collect();
            lines.sort();
            got.push((r[0]["embeddings"].clone(), r[0]["rows"].clone(), r[0]["complete"].clone(), lines));
            assert_eq!(r[0]["order"] == "tree", mode == "auto", "{pattern} {mode}");
        }
        assert_eq!(got[0], got[1], "{pattern}");
        assert!(got[0].0.as_u64().unwrap() > 0, "{pattern}: some matches");
    }
    // DISTINCT with LIMIT: as many rows (which ones is unspecified without ORDER BY), each an
    // answer, and the tree passes count every match.
    let all = "MATCH (a:4)--(b)--(c:4) RETURN DISTINCT c";
    let full = report(&run(&["match", "-q", "--format", "json", hprd, "--pattern", all]));
    let limited = format!("{all} LIMIT 5");
    let r = report(&run(&["match", "-q", "--format", "json", hprd, "--pattern", &limited]));
    assert_eq!(
        (r[0]["rows"].as_u64(), &r[0]["embeddings"], &r[0]["complete"]),
        (Some(5), &full[0]["embeddings"], &full[0]["complete"])
    );
    assert!(full[0]["rows"].as_u64().unwrap() > 5);
    // DISTINCT over every vertex keeps every match: counted, nothing written.
    let every = "MATCH (a:1)--(b)--(c:2) RETURN DISTINCT a, b, c";
    let r = report(&run(&["match", "-q", "--format", "json", hprd, "--pattern", every]));
    assert_eq!(
        (&r[0]["order"], r[0]["embeddings"].as_u64(), r[0]["rows"].as_u64()),
        (&serde_json::json!("tree"), Some(1741), Some(1741))
    );
    // Under embed, a tree pattern is enumerated as any pattern (the passes count homomorphisms).
    let embed = "MATCH (a:1)--(b)--(c:1) RETURN count(*)";
    let r = report(&run(&["match", "-q", "--format", "json", "--semantics", "embed", hprd, "--pattern", embed]));
    assert_ne!(r[0]["order"], "tree");
}

/// `gen rdf` writes GRR-like N-Triples that load as a property graph: one university has 15
/// departments of 120 students each, every student a member of one department, every
/// professor of one department, and ages within the generator's ranges.
#[test]
fn generated_rdf_loads_and_counts_as_its_schema_says() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("grr.nt");
    let o = run(&["gen", "rdf", "--universities", "1", "--seed", "3", "--output", nt.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let count = |p: &str| {
        let r = report(&run(&["match", "-q", "--format", "json", nt.to_str().unwrap(), "--pattern", p]));
        r[0]["embeddings"].as_u64().unwrap()
    };
    assert_eq!(count("MATCH (s:Student) RETURN count(*)"), 15 * 120);
    assert_eq!(count("MATCH (s:Student)-[:memberOf]->(d:Department) RETURN count(*)"), 15 * 120);
    assert_eq!(
        count("MATCH (p:Professor)-[:worksFor]->(d:Department)-[:subOrganizationOf]->(u:University) RETURN count(*)"),
        15 * 12
    );
    assert_eq!(count("MATCH (s:Student) WHERE s.age >= 18 AND s.age <= 29 RETURN count(*)"), 15 * 120);
}

/// A knowledge graph of several classes per entity, several predicates per pair and self loops
/// (`gen rdf --facts`) counts what Oxigraph counts (bench/queries/kg: SPARQL's counts of the same
/// basic graph patterns, pyoxigraph 0.5 and Oxigraph 0.4).
#[test]
fn knowledge_graph_counts_equal_oxigraphs() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("kg.nt");
    let o = run(&["gen", "rdf", "--universities", "1", "--facts", "--output", nt.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for (pattern, oxigraph) in [
        ("MATCH (a:Employee)-[:knows]->(b) RETURN count(*)", 850),
        ("MATCH (a:Employee:Researcher) RETURN count(*)", 240),
        ("MATCH (a)-[:knows]->(b), (a)-[:worksWith]->(b) RETURN count(*)", 1089),
        ("MATCH (p:Publication)-[:cites]->(p) RETURN count(*)", 93),
        ("MATCH (a:Student)-->(b:Professor) RETURN count(*)", 2705),
        ("MATCH (a:Employee)-->(b:Employee) RETURN count(*)", 1321),
    ] {
        let r = report(&run(&["match", "-q", "--format", "json", nt.to_str().unwrap(), "--pattern", pattern]));
        assert_eq!(r[0]["embeddings"], oxigraph, "{pattern}");
    }
}

/// A real public N-Triples file (schema.org's vocabulary, gzip-compressed) loads, and patterns
/// over it count what Oxigraph counts for the same SPARQL (bench/results/2026-11-25-sparql.md).
#[test]
fn schema_org_counts_equal_oxigraphs() {
    let nt = data("schemaorg/schemaorg-current-https.nt.gz");
    let nt = nt.to_str().unwrap();
    for (pattern, oxigraph) in [
        ("MATCH (a:Class)-[:subClassOf]->(b:Class)-[:subClassOf]->(c:Class) RETURN count(*)", 1007),
        ("MATCH (p:Property)-[:domainIncludes]->(c:Class)-[:subClassOf]->(d:Class) RETURN count(*)", 2516),
        ("MATCH (a:Class)-[:isPartOf]->(e), (b:Property)-[:isPartOf]->(e) RETURN count(*)", 86489),
        ("MATCH (c:Class)-[:subClassOf]->(d:Class {label: \"Thing\"}) RETURN count(*)", 11),
        ("MATCH (p:Property)-[:source]->(s)<-[:source]-(c:Class) RETURN count(*)", 1221),
    ] {
        let r = report(&run(&["match", "-q", "--format", "json", nt, "--pattern", pattern]));
        assert_eq!(r[0]["embeddings"], oxigraph, "{pattern}");
    }
}

/// `explain` of a query file on data with label sets explains each query it expands into, as
/// `match` runs them: the last positions' partial matches add up to `match`'s count (it
/// explained the query unexpanded, and found 1 of 3).
#[test]
fn explain_expands_a_query_file_over_label_sets_as_match_does() {
    let dir = tempfile::tempdir().unwrap();
    let (g, q) = (dir.path().join("g.txt"), dir.path().join("q.graph"));
    // Vertex 0 is labelled 1 and 2; 0 and 1 are joined by edges of labels 0 and 1.
    std::fs::write(&g, "0 1 0\n1 2 0\n0 2 0\n0 1 1\n").unwrap();
    std::fs::write(dir.path().join("g.txt.labels"), "0 1 2\n1 1\n2 2\n").unwrap();
    std::fs::write(&q, "t 2 1\nv 0 1\nv 1 2\ne 0 1 0\n").unwrap();
    let (g, q) = (g.to_str().unwrap(), q.to_str().unwrap());
    let matched = report(&run(&["match", "-q", "--format", "json", g, q]))[0]["embeddings"].as_u64().unwrap();
    assert_eq!(matched, 3, "0-1, 0-2 and 1-0 with 0 as label 2");
    let explained = report(&run(&["explain", "--format", "json", g, q]));
    assert_eq!(explained.len(), 3, "one explanation per expansion");
    let total: u64 =
        explained.iter().map(|e| e["positions"].as_array().unwrap().last().unwrap()["actual"].as_u64().unwrap()).sum();
    assert_eq!(total, matched);
}
