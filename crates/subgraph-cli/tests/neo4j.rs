//! Neo4j's bulk-import CSV on the command line: `--nodes` and `--relationships` in place of
//! DATA for `info`, `convert` and `match`, on the shipped example (tests/data/neo4j/), and
//! their mistakes as one-line errors.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn data(rel: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/neo4j").join(rel);
    p.to_str().unwrap().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_subgraph")).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The example's files as arguments: its two node files and two relationship files.
fn example() -> Vec<String> {
    let mut args = Vec::new();
    for (flag, file) in [
        ("--nodes", "people.csv"),
        ("--nodes", "companies.csv"),
        ("--relationships", "knows.csv"),
        ("--relationships", "works.csv"),
    ] {
        args.push(flag.to_string());
        args.push(data(file));
    }
    args
}

fn with_example(head: &[&str], tail: &[&str]) -> Output {
    let example = example();
    let args: Vec<&str> =
        head.iter().copied().chain(example.iter().map(String::as_str)).chain(tail.iter().copied()).collect();
    run(&args)
}

/// The one error line of a failed run (exit status 1).
fn error(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "stdout: {}\nstderr: {}", stdout(o), stderr(o));
    let e = stderr(o);
    assert_eq!(e.lines().filter(|l| l.starts_with("subgraph: error: ")).count(), 1, "{e}");
    e.lines().find(|l| l.starts_with("subgraph: error: ")).unwrap().to_string()
}

#[test]
fn info_counts_the_example_with_its_label_sets() {
    let o = with_example(&["info", "--format", "json"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let u = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k}: {r}"));
    // 15 people and 5 companies; 18 + 9 relationships, one repeated, in 23 ordered pairs of
    // which 3 are joined by two types (FOLLOWS and KNOWS twice, STUDIED_AT and WORKS_AT once).
    assert_eq!((u("vertices"), u("edges"), r["directed"].as_bool()), (20, 23, Some(true)));
    assert_eq!((u("vertex_labels"), u("edge_labels")), (7, 4));
    assert_eq!((u("multi_labelled_vertices"), u("multi_edge_pairs"), u("duplicates_dropped")), (9, 3, 1));
    assert_eq!(r["original_ids"], "names");
    let names = |k: &str| r[k].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(
        names("vertex_label_names"),
        ["Agency", "Company", "Employee", "Lab", "Officer", "Person", "University"]
    );
    assert_eq!(names("edge_label_names"), ["FOLLOWS", "KNOWS", "STUDIED_AT", "WORKS_AT"]);
    let sets = &r["label_sets"];
    assert_eq!(sets["vertex_base"], 7);
    assert_eq!(
        sets["vertex"],
        serde_json::json!([[1, 3], [2, 5], [4, 5]]),
        "Company;Lab, Employee;Person, Officer;Person"
    );
    assert_eq!(sets["edge"], serde_json::json!([[0, 1], [2, 3]]), "FOLLOWS;KNOWS, STUDIED_AT;WORKS_AT");
    let props: Vec<(String, String)> = r["vertex_properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect();
    let kinds: Vec<(&str, &str)> = props.iter().map(|(n, k)| (n.as_str(), k.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("personId", "string"),
            ("name", "string"),
            ("born", "integer"),
            ("companyId", "string"),
            ("founded", "integer")
        ]
    );
    // One note for the relationship properties, one for the merged relationship.
    let e = stderr(&o);
    let notes: Vec<&str> = e.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 2, "{e}");
    assert!(notes[0].starts_with("note: relationship properties are not kept yet: 2 columns ignored (since ("), "{e}");
    assert!(notes[1].starts_with("note: 1 relationships repeat one of the same type"), "{e}");

    let o = with_example(&["info"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    for line in [
        "vertices          20",
        "edges             23 (directed)",
        "vertex labels     7",
        "kept              0 self loops, 9 vertices with several labels, 3 pairs with several edges",
        "vertex ids        compacted to 0..20; the file's names are kept for output",
        "top labels        Person:7 Employee;Person:7 Agency:1 Company:1 Lab:1 University:1 Company;Lab:1 Officer;Person:1",
        "edge label names  FOLLOWS KNOWS STUDIED_AT WORKS_AT",
    ] {
        assert!(table.lines().any(|l| l == line), "no line `{line}` in\n{table}");
    }
}

#[test]
fn node_files_may_come_compressed_or_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let people = std::fs::read(data("people.csv")).unwrap();
    let gz = dir.path().join("people.csv.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&people).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let count = |o: &Output| {
        assert!(o.status.success(), "{}", stderr(o));
        let r: serde_json::Value = serde_json::from_str(stdout(o).trim()).unwrap();
        (r["vertices"].as_u64().unwrap(), r["edges"].as_u64().unwrap())
    };
    let knows = data("knows.csv");
    assert_eq!(
        count(&run(&["info", "--format", "json", "--nodes", gz.to_str().unwrap(), "--relationships", &knows])),
        (15, 15)
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_subgraph"))
        .args(["info", "--format", "json", "--nodes", "-", "--relationships", &knows])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&people).unwrap();
    assert_eq!(count(&child.wait_with_output().unwrap()), (15, 15));
    let o = run(&["info", "--nodes", "-", "--relationships", "-"]);
    assert!(error(&o).contains("standard input (-) can be read only once"));
}

#[test]
fn convert_writes_what_the_target_can_hold_and_refuses_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("example.g");
    let e = error(&with_example(&["convert"], &[g.to_str().unwrap()]));
    assert!(e.contains("holds one label per vertex and one edge per pair"), "{e}");
    assert!(!g.exists(), "example.g written");
    // Edge lists and .sgb hold label sets: the graph reads back as it was.
    for out in ["example.txt", "example.sgb"] {
        let p = dir.path().join(out);
        let o = with_example(&["convert"], &[p.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut args = vec!["info", "--format", "json", p.to_str().unwrap()];
        if out.ends_with(".txt") {
            args.extend(["--directed", "--string-ids"]);
        }
        let o = run(&args);
        let r: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        let got = [&r["vertices"], &r["edges"], &r["multi_labelled_vertices"], &r["multi_edge_pairs"]];
        assert_eq!(got.map(|v| v.as_u64()), [Some(20), Some(23), Some(9), Some(3)], "{out}");
    }
    // Without label sets an edge list is written, and reads back.
    let (nodes, rels) = (dir.path().join("n.csv"), dir.path().join("r.csv"));
    std::fs::write(&nodes, ":ID,:LABEL\na,A\nb,B\n").unwrap();
    std::fs::write(&rels, ":START_ID,:END_ID,:TYPE\na,b,T\nb,a,U\n").unwrap();
    let txt = dir.path().join("ab.txt");
    let o = run(&[
        "convert",
        "--nodes",
        nodes.to_str().unwrap(),
        "--relationships",
        rels.to_str().unwrap(),
        txt.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), "a b T\nb a U\n");
    assert_eq!(std::fs::read_to_string(dir.path().join("ab.txt.labels")).unwrap(), "a A\nb B\n");
}

#[test]
fn match_takes_the_files_in_place_of_data() {
    let o = with_example(&["match", "--device", "cpu"], &[]);
    assert_eq!(error(&o), "subgraph: error: no query: give QUERY files or --pattern");
    // The data line says what was read; the counts are the pattern matcher's business.
    let o = with_example(&["match", "--device", "cpu", "--pattern", "MATCH (a:Person) RETURN count(*)"], &[]);
    let e = stderr(&o);
    assert!(e.contains("/people.csv,") && e.contains(": 20 vertices, 23 edges (directed)"), "{e}");
    assert!(e.contains("(1 duplicate edges dropped)"), "{e}");
}

/// The README's answers on the example: several labels per node, several types per pair, an
/// edge without type counted once per relationship (as Cypher counts).
#[test]
fn patterns_on_the_example_count_as_cypher_does() {
    let count = |p: &str| {
        let o = with_example(&["match", "--device", "cpu", "-q", "--format", "json", "--pattern", p], &[]);
        let r: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
        r["embeddings"].as_u64().unwrap()
    };
    assert_eq!(count("MATCH (a:Person:Employee) RETURN count(*)"), 7);
    assert_eq!(count("MATCH (a:Person)-[:KNOWS]->(b:Employee) RETURN count(*)"), 5);
    assert_eq!(count("MATCH (a)-[:KNOWS]->(b), (a)-[:FOLLOWS]->(b) RETURN count(*)"), 2);
    assert_eq!(count("MATCH (p:Employee)-[:WORKS_AT]->(c:Company) RETURN count(*)"), 3);
    assert_eq!(count("MATCH (a:Person)-->(b:Person) RETURN count(*)"), 17);
}

#[test]
fn mistakes_are_one_line_errors() {
    let people = data("people.csv");
    let knows = data("knows.csv");
    let e = error(&run(&["info", "--nodes", "no/such/nodes.csv"]));
    assert!(e.starts_with("subgraph: error: no/such/nodes.csv: ") && e.contains("No such file"), "{e}");
    let e = error(&run(&["info", "--nodes", &people, "--relationships", "no/such/rels.csv"]));
    assert!(e.starts_with("subgraph: error: no/such/rels.csv: "), "{e}");

    // DATA and --nodes, or --relationships alone: refused before anything is read.
    let o = run(&["info", &people, "--nodes", &people]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
    let o = run(&["info", "--relationships", &knows]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--nodes <FILE>"), "{}", stderr(&o));
    let o = run(&["info"]);
    assert_eq!(o.status.code(), Some(2));
    let e = error(&run(&["convert", "--nodes", &people, &people, "out.g"]));
    assert_eq!(e, "subgraph: error: give the graph to read as IN or as --nodes files, not both (convert [IN] OUT)");
    let e = error(&run(&["convert", &people]));
    assert_eq!(e, "subgraph: error: give the file to write (OUT) after the graph to read (IN)");

    // Options that describe another kind of input.
    let e = error(&run(&["info", "--nodes", &people, "--vertex-props", &people]));
    assert_eq!(
        e,
        "subgraph: error: --vertex-props (the properties come from the node files) does not apply to --nodes and \
         --relationships files"
    );
    let e = error(&run(&["info", "--nodes", &people, "--string-ids"]));
    assert!(e.contains("--keep-ids or --string-ids"), "{e}");
    let e = error(&run(&["convert", "--nodes", &people, "--from", "rdf", "x.g"]));
    assert_eq!(e, "subgraph: error: --from does not apply to --nodes and --relationships files");
    let e = error(&run(&["info", "--max-memory", "1K", "--nodes", &people, "--relationships", &knows]));
    assert!(e.contains("the node and relationship files' ") && e.contains("exceed --max-memory 1024 bytes"), "{e}");

    // A relationship to no node, and a node file given as a relationship file: file and line.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, ":START_ID,:END_ID,:TYPE\nada,alan,KNOWS\nada,nobody,KNOWS\n").unwrap();
    let e = error(&run(&["info", "--nodes", &people, "--relationships", bad.to_str().unwrap()]));
    assert_eq!(e, format!("subgraph: error: {}:3: :END_ID 'nobody' is not the id of a node", bad.display()));
    let e = error(&run(&["info", "--nodes", &people, "--relationships", &people]));
    assert!(e.contains("people.csv:1: column 'personId:ID': a :ID column belongs in node files"), "{e}");
}
