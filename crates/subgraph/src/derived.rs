//! What queries and patterns derive from one data graph, made once when the first needs it and
//! shared by every query on that graph (from any thread): the label triples that label
//! expansions read (issue 39's label sets, a pattern's absent labels) and the label-free views
//! that too many expansions run on. The runner ([`crate::devices`]) expands a query file's
//! query here, `explain` too, and the pattern runner ([`crate::patterns`]) its patterns.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use subgraph_core::sink::Control;
use subgraph_core::Graph;
use subgraph_pattern::compile::{compile, compile_query, CompileError, Compiled, LabelTriples, Need, MAX_EXPANSIONS};
use subgraph_pattern::Pattern;

/// The label triples and label-free views of one data graph.
#[derive(Default)]
pub struct Derived {
    triples: OnceLock<LabelTriples>,
    views: Mutex<HashMap<Need, Arc<Graph>>>,
}

impl Derived {
    /// The label triples of `data` (the graph this is derived from), made once.
    fn triples(&self, data: &Graph) -> &LabelTriples {
        self.triples.get_or_init(|| LabelTriples::of(data))
    }

    /// The label-free view of `data` over its edges that hold `need` (None: all), made once
    /// per need.
    pub fn view(&self, data: &Graph, need: &Need) -> Arc<Graph> {
        let mut views = self.views.lock().unwrap_or_else(|e| e.into_inner());
        views.entry(need.clone()).or_insert_with(|| Arc::new(data.edges_holding(need.as_deref()))).clone()
    }

    /// `pattern` compiled onto `data` (the graph this is derived from), and the label-free view
    /// its queries are for where `Compiled::view` says so; `control` stops the expansion of its
    /// labels ([`CompileError::Stopped`]).
    pub fn compile(
        &self,
        pattern: &Pattern,
        data: &Graph,
        control: &Control,
    ) -> Result<(Compiled, Option<Arc<Graph>>), CompileError> {
        let compiled = compile(pattern, data, || self.triples(data), &|| control.should_stop())?;
        let view = compiled.view.then(|| self.view(data, &compiled.view_edges));
        Ok((compiled, view))
    }

    /// A query file's query on `data`: the query itself where neither `data` nor the query has
    /// label sets and the query has no self loop, else its expansion over the data's sets
    /// (`subgraph_pattern::compile::compile_query`).
    pub fn expand(&self, query: &Graph, data: &Graph, control: &Control) -> Result<Expansion, CompileError> {
        if !needs_expansion(query, data) {
            return Ok(Expansion { queries: vec![query.clone()], view: None, some_edges: false });
        }
        let plan = compile_query(query, data, || self.triples(data), MAX_EXPANSIONS, &|| control.should_stop())?;
        let some_edges = plan.view_edges.as_ref().is_some_and(Option::is_some);
        let view = plan.view_edges.map(|need| self.view(data, &need));
        Ok(Expansion { queries: plan.queries, view, some_edges })
    }
}

/// A query file's query as it runs on one data graph ([`Derived::expand`]).
pub struct Expansion {
    /// The queries whose matches add up to the query's.
    pub queries: Vec<Graph>,
    /// The label-free view the queries are for, where the query expands too far (on the CPU).
    pub view: Option<Arc<Graph>>,
    /// The view holds only the data's edges of the query's edge label, so `induced`, which
    /// forbids edges of every label, cannot run on it.
    pub some_edges: bool,
}

/// Whether a query file's query must be expanded before it is matched on `data`: the data has
/// label sets, or the query has label sets or self loops of its own.
pub fn needs_expansion(query: &Graph, data: &Graph) -> bool {
    data.label_sets().is_some() || query.label_sets().is_some() || !query.loops().is_empty()
}
