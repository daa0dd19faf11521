//! The Oxigraph side of the SPARQL comparison (issue 10): loads an N-Triples file into
//! Oxigraph's in-memory store, writes each subgraph pattern of a file (one per line, `#`
//! comments) as a SPARQL `SELECT (COUNT(*) AS ?n)` over the same basic graph pattern, runs it
//! `--runs` times and prints one JSON line per pattern: the SPARQL text, the count and the
//! median milliseconds. SPARQL's basic graph patterns are matched as homomorphisms, as patterns
//! are by default. The translation takes vertex labels (each of a node's) as `rdf:type` classes and edge labels as
//! predicates, each name the IRI whose local name (after the last `#` or `/`) it is in the
//! data, as the RDF reader names them (else in `--namespace`, GRR-like data's by default), and
//! property tests as FILTERs over the literal values of predicates of the same name; an edge without
//! label is a predicate variable over the triples the property graph holds as edges (not
//! `rdf:type`, not to a literal).
//!
//!     sparql-bench DATA.nt PATTERNS.txt [--runs R] [--namespace IRI] [--skip N] [--timeout SECS]
//!
//! Oxigraph cannot stop a query, so a pattern whose runs together pass `--timeout` prints its line with `"timeout":
//! true` and ends the process with status 3 (the query's thread would hold a core); `--skip N`
//! starts after the first N patterns, for the next process (bench/sparql/compare.sh does both).

use std::collections::HashMap;
use std::io::BufRead;
use std::time::Instant;

use oxigraph::io::RdfFormat;
use oxigraph::model::Term;
use oxigraph::sparql::QueryResults;
use oxigraph::store::Store;
use subgraph_pattern::{CompareOp, Direction, LabelRef, Pattern, Return, Value};

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// The local name of an IRI, as subgraph's RDF reader takes it: after the last `#` or `/`.
fn local(iri: &str) -> &str {
    iri.rsplit(['#', '/']).next().unwrap_or(iri)
}

/// Every predicate and class of the store by local name (the first in IRI order where two
/// share one).
fn names(store: &Store) -> Result<HashMap<String, String>, String> {
    let mut out = HashMap::new();
    for quad in store.iter() {
        let quad = quad.map_err(|e| e.to_string())?;
        let mut add = |iri: &str| {
            let e = out.entry(local(iri).to_string()).or_insert_with(|| iri.to_string());
            if iri < e.as_str() {
                *e = iri.to_string();
            }
        };
        add(quad.predicate.as_str());
        if let (RDF_TYPE, Term::NamedNode(class)) = (quad.predicate.as_str(), &quad.object) {
            add(class.as_str());
        }
    }
    Ok(out)
}

/// `pattern` as a SPARQL count over the same basic graph pattern.
fn sparql(pattern: &Pattern, iris: &HashMap<String, String>, ns: &str) -> Result<String, String> {
    let iri = |n: &str| iris.get(n).map_or_else(|| format!("<{ns}{n}>"), |i| format!("<{i}>"));
    let name = |l: &LabelRef| match l {
        LabelRef::Name(n) => Ok(iri(n)),
        LabelRef::Id(x) => Err(format!("label {x} is a number; write names")),
    };
    let mut body = Vec::new();
    for (i, v) in pattern.vertices.iter().enumerate() {
        for l in v.label.iter().chain(&v.more_labels) {
            body.push(format!("?v{i} <{RDF_TYPE}> {} .", name(l)?));
        }
    }
    for (k, e) in pattern.edges.iter().enumerate() {
        if e.direction != Direction::Out {
            return Err("an edge without direction is left out".into());
        }
        match &e.label {
            Some(l) => body.push(format!("?v{} {} ?v{} .", e.from, name(l)?, e.to)),
            // A predicate variable, over the triples the property graph holds as edges: not
            // rdf:type (classes are labels) and not to a literal (literals are properties).
            None => body.push(format!(
                "?v{} ?e{k} ?v{} . FILTER(?e{k} != <{RDF_TYPE}> && !isLiteral(?v{}))",
                e.from, e.to, e.to
            )),
        }
    }
    for (k, p) in pattern.predicates.iter().enumerate() {
        let op = match p.op {
            CompareOp::Eq => "=",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        };
        let value = match &p.value {
            Value::Int(x) => x.to_string(),
            Value::Float(x) => format!("{x:?}"),
            Value::Str(s) => format!("{s:?}"),
        };
        body.push(format!("?v{} {} ?p{k} . FILTER(?p{k} {op} {value})", p.vertex, iri(&p.key)));
    }
    if !matches!(pattern.returns, Return::CountStar) {
        return Err("only RETURN count(*) is compared".into());
    }
    Ok(format!("SELECT (COUNT(*) AS ?n) WHERE {{ {} }}", body.join(" ")))
}

fn count(store: &Store, query: &str) -> Result<u128, String> {
    let QueryResults::Solutions(mut rows) = store.query(query).map_err(|e| e.to_string())? else {
        return Err("not a SELECT".into());
    };
    let row = rows.next().ok_or("no row")?.map_err(|e| e.to_string())?;
    match row.get("n") {
        Some(Term::Literal(l)) => l.value().parse().map_err(|e| format!("{e}")),
        other => Err(format!("count {other:?}")),
    }
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let (mut runs, mut ns, mut skip, mut timeout) = (3usize, "http://grr.example/".to_string(), 0usize, 60.0f64);
    let mut files = Vec::new();
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--runs" => {
                runs = args.get(i + 1).and_then(|r| r.parse().ok()).ok_or("--runs N")?;
                i += 1;
            }
            "--namespace" => {
                ns = args.get(i + 1).cloned().ok_or("--namespace IRI")?;
                i += 1;
            }
            "--skip" => {
                skip = args.get(i + 1).and_then(|r| r.parse().ok()).ok_or("--skip N")?;
                i += 1;
            }
            "--timeout" => {
                timeout = args.get(i + 1).and_then(|r| r.parse().ok()).ok_or("--timeout SECS")?;
                i += 1;
            }
            f => files.push(f.to_string()),
        }
        i += 1;
    }
    let [data, patterns] = &files[..] else { return Err("usage: sparql-bench DATA.nt PATTERNS.txt [--runs R]".into()) };
    let store = std::sync::Arc::new(Store::new().map_err(|e| e.to_string())?);
    let t = Instant::now();
    let file = std::fs::File::open(data).map_err(|e| format!("{data}: {e}"))?;
    store
        .bulk_loader()
        .load_from_reader(RdfFormat::NTriples, std::io::BufReader::new(file))
        .map_err(|e| format!("{data}: {e}"))?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let iris = names(&store)?;
    eprintln!("loaded {} quads in {load_ms:.0} ms", store.len().map_err(|e| e.to_string())?);
    let lines = std::io::BufReader::new(std::fs::File::open(patterns).map_err(|e| format!("{patterns}: {e}"))?);
    let texts: Vec<String> =
        lines.lines().map(|l| l.map(|l| l.trim().to_string())).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    for text in texts.into_iter().filter(|t| !t.is_empty() && !t.starts_with('#')).skip(skip) {
        let pattern = subgraph_pattern::parse(&text).map_err(|e| e.to_string())?;
        let query = sparql(&pattern, &iris, &ns).map_err(|e| format!("{text}: {e}"))?;
        let (tx, rx) = std::sync::mpsc::channel();
        let (st, q) = (store.clone(), query.clone());
        std::thread::spawn(move || {
            let mut times = Vec::new();
            for _ in 0..runs.max(1) {
                let t = Instant::now();
                let n = count(&st, &q);
                times.push(t.elapsed().as_secs_f64() * 1e3);
                if n.is_err() || tx.send((n, times.clone())).is_err() {
                    return;
                }
            }
        });
        let deadline = Instant::now() + std::time::Duration::from_secs_f64(timeout);
        let mut last = None;
        for _ in 0..runs.max(1) {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok((n, times)) => last = Some((n.map_err(|e| format!("{text}: {e}"))?, times)),
                Err(_) => {
                    let line =
                        serde_json::json!({"pattern": text, "sparql": query, "timeout": true, "timeout_s": timeout});
                    println!("{line}");
                    std::io::Write::flush(&mut std::io::stdout()).map_err(|e| e.to_string())?;
                    std::process::exit(3);
                }
            }
        }
        let (n, mut times) = last.expect("one run at least");
        times.sort_by(f64::total_cmp);
        let line = serde_json::json!({
            "pattern": text, "sparql": query, "count": n.to_string(), "ms": times[times.len() / 2], "runs": runs,
            "load_ms": load_ms,
        });
        println!("{line}");
    }
    Ok(())
}
