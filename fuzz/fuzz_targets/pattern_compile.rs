//! The pattern compiler (`subgraph_pattern::compile`) on small data graphs, directed and not,
//! with labels as numbers: any UTF-8 text that parses stays within the pattern size limits, and
//! compiles to an error or to at most `MAX_EXPANSIONS` queries of the pattern's vertices (one
//! skip list each), within a time budget it checks through `halt` (a slow expansion is stopped,
//! never a hang).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use subgraph_core::{Graph, GraphBuilder};
use subgraph_pattern::compile::{compile, CompileError, LabelTriples, MAX_EXPANSIONS};
use subgraph_pattern::{MAX_PATTERN_EDGES, MAX_PATTERN_PREDICATES, MAX_PATTERN_VERTICES};

/// Eight vertices of labels 0..3, a cycle and chords with edge labels 0..2, directed or not.
fn data(directed: bool) -> &'static (Graph, LabelTriples) {
    static GRAPHS: [OnceLock<(Graph, LabelTriples)>; 2] = [OnceLock::new(), OnceLock::new()];
    GRAPHS[directed as usize].get_or_init(|| {
        let labels = vec![0, 1, 2, 0, 1, 2, 0, 1];
        let mut edges: Vec<(u32, u32, u32)> = (0..8).map(|i| (i, (i + 1) % 8, i % 2)).collect();
        edges.extend([(0, 4, 1), (2, 6, 0), (1, 5, 1)]);
        let g = GraphBuilder::from_parts(labels, edges, directed).build().0;
        let t = LabelTriples::of(&g);
        (g, t)
    })
}

fuzz_target!(|bytes: &[u8]| {
    subgraph_fuzz::init();
    let Some((&flags, rest)) = bytes.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let Ok(pattern) = subgraph_pattern::parse(text) else { return };
    assert!(pattern.vertices.len() <= MAX_PATTERN_VERTICES, "{}", pattern.vertices.len());
    assert!(pattern.edges.len() <= MAX_PATTERN_EDGES, "{}", pattern.edges.len());
    assert!(pattern.predicates.len() <= MAX_PATTERN_PREDICATES, "{}", pattern.predicates.len());
    let (g, triples) = data(flags & 1 == 1);
    let end = Instant::now() + Duration::from_secs(2);
    match compile(&pattern, g, || triples, &|| Instant::now() >= end) {
        Ok(c) => {
            assert!(c.queries.len() <= MAX_EXPANSIONS, "{}", c.queries.len());
            assert_eq!(c.queries.len(), c.skips.len());
            assert!(c.queries.iter().all(|q| q.num_vertices() == pattern.vertices.len()));
            assert_eq!(c.width, pattern.vertices.len());
        }
        Err(CompileError::Stopped) => assert!(Instant::now() >= end),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
