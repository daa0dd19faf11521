//! A match or explain request's body, decoded and checked before it waits for a turn: exactly
//! one of a pattern or a query graph's text, parsed by the command line's parsers, and the
//! options `match` takes, each refused with a `400` of its own code where malformed.

use crate::error::ApiError;
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;
use subgraph::parts::{PartNames, Parts};
use subgraph::record::Asked;
use subgraph::{Item, MatchOptions};
use subgraph_core::cpu::FailingSets;
use subgraph_core::io::{parse_graphs, Format, ReadOptions};
use subgraph_core::sink::timeout;
use subgraph_core::{Graph, Semantics};

/// `POST /v1/graphs/{name}/match` and `/explain`: the query, and `match`'s options by their
/// command-line names.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchRequest {
    /// A pattern, as `match --pattern` takes it.
    pub pattern: Option<String>,
    /// A query graph's text in any text format `match` reads (`.graph` by default).
    pub query: Option<String>,
    /// The format of `query` (default: told by its content).
    pub query_format: Option<String>,
    /// The record's `query` (default: `pattern` or `query`).
    pub name: Option<String>,
    pub semantics: Option<String>,
    pub filter: Option<String>,
    pub order: Option<String>,
    pub symmetry: Option<String>,
    pub tail: Option<String>,
    pub spasm: Option<String>,
    pub space: Option<String>,
    pub bitmaps: Option<String>,
    pub failing_sets: Option<String>,
    pub tree_count: Option<String>,
    pub limit: Option<u64>,
    /// Seconds; capped by the server's `--query-timeout`.
    pub timeout: Option<f64>,
    pub unique: Option<bool>,
    /// Explain only: run every compared plan too.
    pub all: Option<bool>,
}

/// A request ready to run: the query, named, and how to run it.
pub struct Prepared {
    pub name: String,
    pub item: Item,
    pub asked: Asked,
    pub timeout: Duration,
    pub all: bool,
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new("bad_request", message)
}

/// Decodes and prepares `body` for a data graph directed or not, the timeout at most
/// `ceiling`: what the routes do with a match or explain body once the caller may ask it, every
/// failure a `400` of its own code ([`decode`], then [`MatchRequest::prepare`]).
pub fn check(body: &[u8], directed: bool, ceiling: Duration) -> Result<Prepared, ApiError> {
    decode(body)?.prepare(directed, ceiling)
}

/// Decodes `body` as a [`MatchRequest`]: `bad_json` where it is not JSON, `bad_request`
/// where it is JSON of another shape.
pub fn decode(body: &[u8]) -> Result<MatchRequest, ApiError> {
    serde_json::from_slice(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => bad(format!("the request: {e}")),
        _ => ApiError::new("bad_json", format!("the body is not a JSON object: {e}")),
    })
}

impl MatchRequest {
    /// Parses the query and the options for a data graph directed or not (a query graph's
    /// edges are read as the data's), the timeout at most `ceiling` (and `ceiling` where none is
    /// asked).
    pub fn prepare(self, directed: bool, ceiling: Duration) -> Result<Prepared, ApiError> {
        let parts = Parts::from_names(&PartNames {
            semantics: self.semantics.as_deref(),
            filter: self.filter.as_deref(),
            order: self.order.as_deref(),
            symmetry: self.symmetry.as_deref(),
            tail: self.tail.as_deref(),
            spasm: self.spasm.as_deref(),
            space: self.space.as_deref(),
            bitmaps: self.bitmaps.as_deref(),
        })
        .map_err(|e| bad(e.to_string()))?;
        let failing_sets = match self.failing_sets.as_deref().unwrap_or("auto") {
            "auto" => FailingSets::Auto,
            "on" => FailingSets::On,
            "off" => FailingSets::Off,
            other => return Err(bad(format!("unknown failing_sets '{other}' (one of auto, on, off)"))),
        };
        let trees = match self.tree_count.as_deref().unwrap_or("auto") {
            "auto" => true,
            "off" => false,
            other => return Err(bad(format!("unknown tree_count '{other}' (one of auto, off)"))),
        };
        let timeout = match self.timeout {
            None => ceiling,
            Some(secs) => timeout(secs).map_err(bad)?.min(ceiling),
        };
        let unique = self.unique.unwrap_or(false);
        let item = match (self.pattern, self.query) {
            (Some(text), None) => {
                Item::Pattern(subgraph_pattern::parse(&text).map_err(|e| ApiError::new("bad_pattern", e.to_string()))?)
            }
            (None, Some(text)) => {
                if unique && parts.semantics == Semantics::Homomorphism {
                    return Err(bad(
                        "unique counts distinct subgraphs, which homomorphisms do not define; use semantics embed \
                         or induced",
                    ));
                }
                Item::Graph(Box::new(query_graph(&text, self.query_format.as_deref(), directed)?))
            }
            (Some(_), Some(_)) => return Err(bad("give one of pattern and query, not both")),
            (None, None) => return Err(bad("no query: give pattern (a MATCH text) or query (a query graph's text)")),
        };
        let name =
            self.name.unwrap_or_else(|| if matches!(item, Item::Pattern(_)) { "pattern" } else { "query" }.into());
        let opts = parts.options(self.limit, failing_sets);
        let asked =
            Asked { opts, pattern_opts: MatchOptions { semantics: parts.pattern_semantics, ..opts }, unique, trees };
        Ok(Prepared { name, item, asked, timeout, all: self.all.unwrap_or(false) })
    }
}

/// The one query graph of `text`, read as `match` reads a query file (edges directed as the
/// data's); `bad_query` where it does not parse or holds another number of graphs.
fn query_graph(text: &str, format: Option<&str>, directed: bool) -> Result<Graph, ApiError> {
    let fail = |message: String| ApiError::new("bad_query", message);
    let format = match format.map(|f| (f, Format::from_name(f))) {
        None => None,
        Some((_, Some(Format::Binary))) => {
            return Err(fail("query_format binary is not text; send a text format".into()))
        }
        Some((_, Some(f))) => Some(f),
        Some((name, None)) => {
            return Err(bad(format!("unknown query_format '{name}' (one of {})", Format::NAMES.join(", "))))
        }
    };
    let opts = ReadOptions { format, directed, ..ReadOptions::default() };
    let mut graphs = parse_graphs(Path::new("query"), text.as_bytes(), None, &opts).map_err(|e| fail(e.to_string()))?;
    match graphs.len() {
        1 => Ok(graphs.pop().expect("one graph").graph),
        n => Err(fail(format!("the query text holds {n} graphs; send one"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> &'static str {
        let ceiling = Duration::from_secs(10);
        match check(body.as_bytes(), false, ceiling) {
            Ok(_) => "ok",
            Err(e) => e.code,
        }
    }

    #[test]
    fn each_mistake_has_its_code() {
        assert_eq!(code(r#"{"pattern": "MATCH (a:1)--(b:1) RETURN count(*)"}"#), "ok");
        assert_eq!(code(r#"{"query": "t 2 1\nv 0 1 1\nv 1 1 1\ne 0 1\n", "limit": 5}"#), "ok");
        assert_eq!(code(r#"{"pattern": "MATCH (a"#), "bad_json");
        assert_eq!(code("[1, 2]"), "bad_request");
        assert_eq!(code(r#"{"pattern": 3}"#), "bad_request");
        assert_eq!(code(r#"{"patern": "MATCH (a)"}"#), "bad_request");
        assert_eq!(code(r#"{}"#), "bad_request");
        assert_eq!(code(r#"{"pattern": "MATCH (a)", "query": "t 1 0\nv 0 1 0\n"}"#), "bad_request");
        assert_eq!(code(r#"{"pattern": "MATCH (a)", "semantics": "iso"}"#), "bad_request");
        assert_eq!(code(r#"{"pattern": "MATCH (a)", "timeout": -1}"#), "bad_request");
        assert_eq!(code(r#"{"pattern": "MATCH (a)-[-(b)"}"#), "bad_pattern");
        assert_eq!(code(r#"{"query": "t 2 1\nv 0 1 1\ne 0 7\n"}"#), "bad_query");
        assert_eq!(code(r#"{"query": "t 1 0\nv 0 1 0\n", "query_format": "binary"}"#), "bad_query");
        assert_eq!(
            code(r#"{"query": "t 1 0\nv 0 1 0\n", "unique": true, "semantics": "homomorphism"}"#),
            "bad_request"
        );
    }

    #[test]
    fn the_timeout_is_capped_and_defaults_to_the_ceiling() {
        let ceiling = Duration::from_secs(2);
        let asked = |body: &str| check(body.as_bytes(), false, ceiling).unwrap();
        assert_eq!(asked(r#"{"pattern": "MATCH (a)"}"#).timeout, ceiling);
        assert_eq!(asked(r#"{"pattern": "MATCH (a)", "timeout": 100}"#).timeout, ceiling);
        assert_eq!(asked(r#"{"pattern": "MATCH (a)", "timeout": 0.5}"#).timeout, Duration::from_millis(500));
        assert_eq!(asked(r#"{"pattern": "MATCH (a)", "timeout": 5e-108}"#).timeout, Duration::from_nanos(1));
        let p = asked(r#"{"query": "t 1 0\nv 0 1 0\n", "name": "one"}"#);
        assert_eq!((p.name.as_str(), p.asked.opts.semantics), ("one", Semantics::Embed));
        assert_eq!(asked(r#"{"pattern": "MATCH (a)"}"#).asked.pattern_opts.semantics, Semantics::Homomorphism);
    }

    #[test]
    fn a_query_graph_is_read_as_directed_as_the_data() {
        // `.graph` files are undirected whatever is asked; an edge list is read as the data is.
        let body = br#"{"query": "0 1\n1 2\n", "query_format": "edges"}"#;
        for directed in [false, true] {
            let Item::Graph(q) = check(body, directed, Duration::from_secs(1)).unwrap().item else { panic!("a graph") };
            assert_eq!(q.is_directed(), directed);
        }
    }
}
