//! RDF as a property graph, from N-Triples or N-Quads (the graph name ignored), parsed by
//! `oxttl`: IRIs and blank nodes (`_:b0`) are vertices, named by their IRI or label; a
//! predicate between two of them is a directed edge labelled by the predicate's local name
//! (after the last `#` or `/`): every predicate of a pair is kept, several making one edge of
//! their set (`graph::sets`), and a triple given twice is one edge; a resource's own predicate
//! (`a p a`) is a self loop, kept apart. `rdf:type` objects are vertex labels by their local
//! names, not vertices: a vertex has every type it is given (several make a set label), one of
//! none the name "0". A literal is a property of its subject, named by the predicate's local
//! name (the last value of a vertex wins), typed as CSV columns are (`props`).

use super::props::typed;
use super::remap::Dictionary;
use crate::error::Error;
use crate::graph::{Column, GraphBuilder, LabelNames, Properties, VertexIds};
use oxrdf::Term;
use oxttl::NQuadsParser;
use std::path::Path;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// What follows the last `#` or `/` of an IRI (the whole IRI where nothing does).
fn local_name(iri: &str) -> &str {
    match iri.trim_end_matches(['#', '/']).rfind(['#', '/']) {
        Some(i) if i + 1 < iri.len() => iri[i + 1..].trim_end_matches(['#', '/']),
        _ => iri,
    }
}

/// Reads the triples (or quads) of `data` into a graph builder whose vertices are numbered in
/// the byte order of their names, with label names and properties.
pub(crate) fn parse(file: &Path, data: &[u8]) -> Result<GraphBuilder, Error> {
    let mut vertices = Dictionary::default();
    let (mut types, mut predicates, mut keys) = (Dictionary::default(), Dictionary::default(), Dictionary::default());
    let mut edges: Vec<(u32, u32, u32)> = Vec::new();
    let mut typed_as: Vec<(u32, u32)> = Vec::new();
    let mut literals: Vec<(u32, u32, String)> = Vec::new();
    for quad in NQuadsParser::new().for_slice(data) {
        let quad = quad.map_err(|e| Error::Parse {
            file: file.to_path_buf(),
            line: e.location().start.line + 1,
            msg: format!("bad RDF: {}", e.message()),
        })?;
        let subject = vertices.intern(&term_name(&quad.subject.to_string()));
        let predicate = quad.predicate.as_str();
        match &quad.object {
            Term::Literal(l) => literals.push((subject, keys.intern(local_name(predicate)), l.value().to_string())),
            Term::NamedNode(t) if predicate == RDF_TYPE => {
                typed_as.push((subject, types.intern(local_name(t.as_str()))))
            }
            object => {
                let object = vertices.intern(&term_name(&object.to_string()));
                edges.push((subject, object, predicates.intern(local_name(predicate))));
            }
        }
    }
    if vertices.len() == 0 {
        return Err(Error::Parse { file: file.to_path_buf(), line: 0, msg: "no triple found".into() });
    }
    let n = vertices.len();
    let (ids, vrank) = vertices.sorted();
    // Types: every one of each vertex's, "0" where it has none; the first is the vertex's own,
    // the others are added (the builder makes a set label of them).
    let mut given: Vec<(u32, u32)> = typed_as.iter().map(|&(v, t)| (vrank[v as usize], t)).collect();
    given.sort_unstable();
    given.dedup();
    let mut label = vec![u32::MAX; n];
    given.chunk_by(|a, b| a.0 == b.0).for_each(|types| label[types[0].0 as usize] = types[0].1);
    if label.contains(&u32::MAX) {
        let zero = types.intern("0");
        label.iter_mut().filter(|l| **l == u32::MAX).for_each(|l| *l = zero);
    }
    let (type_names, trank) = types.sorted();
    let labels: Vec<u32> = label.iter().map(|&t| trank[t as usize]).collect();
    let (predicate_names, prank) = predicates.sorted();
    let edges = edges.into_iter().map(|(a, b, p)| (vrank[a as usize], vrank[b as usize], prank[p as usize])).collect();
    // Per key, its (vertex, value) literals in file order, for `typed` to keep each vertex's last.
    let mut columns: Vec<Vec<(u32, String)>> = vec![Vec::new(); keys.len()];
    for (v, k, value) in literals {
        columns[k as usize].push((vrank[v as usize], value));
    }
    let properties = keys
        .into_names()
        .into_iter()
        .zip(columns)
        .map(|(name, values)| Column { name, values: typed(n, values) })
        .collect();
    let mut b = GraphBuilder::from_parts(labels, edges, true);
    for types in given.chunk_by(|a, b| a.0 == b.0) {
        types[1..].iter().for_each(|&(v, t)| b.add_label(v, trank[t as usize]));
    }
    b.set_ids(VertexIds::names(&ids));
    b.set_label_names(LabelNames { vertex: type_names, edge: predicate_names });
    b.set_properties(Properties::new(properties));
    Ok(b)
}

/// A subject's or object's vertex name: an IRI without its brackets, a blank node as `_:x`.
fn term_name(text: &str) -> String {
    text.strip_prefix('<').and_then(|t| t.strip_suffix('>')).unwrap_or(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Dir, Value};

    const DATA: &str = r#"
<http://ex.org/ada> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Person> .
<http://ex.org/ada> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/alan> .
<http://ex.org/ada> <http://ex.org/born> "1815"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/alan> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Person> .
<http://ex.org/alan> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex.org/Agent> .
<http://ex.org/alan> <http://schema.org/name> "Alan Turing"@en <http://ex.org/graph1> .
_:b0 <http://xmlns.com/foaf/0.1/knows> <http://ex.org/ada> .
"#;

    #[test]
    fn iris_and_blank_nodes_are_vertices_types_labels_literals_properties() {
        let g = parse(Path::new("x.nt"), DATA.as_bytes()).unwrap().build().0;
        assert_eq!(g.num_vertices(), 3, "ada, alan, _:b0; types are not vertices");
        let ids: Vec<String> = (0..3).map(|v| g.original_id(v).to_string()).collect();
        assert_eq!(ids, ["_:b0", "http://ex.org/ada", "http://ex.org/alan"]);
        let names = g.label_names().unwrap();
        assert_eq!(names.vertex, ["0", "Agent", "Person"]);
        assert_eq!(names.edge, ["knows"]);
        assert_eq!((g.label(0), g.label(1)), (0, 2));
        assert_eq!(g.vertex_label_members(&g.label(2)), &[1, 2], "alan: Agent and Person");
        assert_eq!(g.label_sets().unwrap().vertex_sets(), &[vec![1, 2]]);
        assert_eq!(g.neighbors(1, Dir::Out), &[2]);
        assert_eq!(g.neighbors(1, Dir::In), &[0]);
        let p = g.properties().unwrap();
        assert_eq!(p.column("born").unwrap().get(1), Some(Value::Int(1815)));
        assert_eq!(p.column("name").unwrap().get(2), Some(Value::Str("Alan Turing")));
    }

    #[test]
    fn every_type_and_every_predicate_is_kept_and_a_triple_twice_is_one_edge() {
        let data = r#"
<http://x/a> <http://x/knows> <http://x/b> .
<http://x/a> <http://x/likes> <http://x/b> .
<http://x/a> <http://x/knows> <http://x/b> .
<http://x/b> <http://x/knows> <http://x/a> .
<http://x/a> <http://x/is> <http://x/a> .
<http://x/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://x/Z> .
<http://x/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://x/A> .
<http://x/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://x/Z> .
<http://x/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://y/M> .
"#;
        let (g, stats) = parse(Path::new("x.nt"), data.as_bytes()).unwrap().build();
        let names = g.label_names().unwrap();
        assert_eq!(names.vertex, ["0", "A", "M", "Z"]);
        assert_eq!(names.edge, ["is", "knows", "likes"]);
        assert_eq!(g.label(0), 0, "a: no type");
        assert_eq!(g.vertex_label_members(&g.label(1)), &[1, 2, 3], "b: A, M and Z, Z once");
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.edge_label_members(&g.edge_label(0, 1).unwrap()), &[1, 2], "a knows and likes b");
        assert_eq!(g.edge_label(1, 0), Some(1));
        assert_eq!(g.loops(), &[(0, 0)], "a is a");
        assert_eq!(
            (stats.duplicates, g.multi_edge_pairs(), g.multi_labelled_vertices(), stats.self_loops),
            (1, 1, 1, 1)
        );
    }

    #[test]
    fn errors_name_the_line_and_local_names_cut_at_hash_or_slash() {
        let e = parse(Path::new("x.nt"), b"<http://a> <http://b> <http://c> .\n<http://a> oops .\n").unwrap_err();
        assert!(e.to_string().starts_with("x.nt:2: bad RDF"), "{e}");
        assert_eq!(local_name("http://xmlns.com/foaf/0.1/knows"), "knows");
        assert_eq!(local_name("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), "type");
        assert_eq!(local_name("http://ex.org/Thing/"), "Thing");
        assert_eq!(local_name("urn:x"), "urn:x");
    }
}
