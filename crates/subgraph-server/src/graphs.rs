//! The served graphs: each named by the operator with its path and load options
//! ([`GraphSpec`]), loaded once with its engine ([`Resident`]), and swapped whole on a reload
//! while queries on the old one finish ([`Graphs`]).

use crate::error::ServerError;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;
use subgraph::patterns::Derived;
use subgraph::{Engine, GpuOptions};
use subgraph_core::io::{props, read_graphs, ReadOptions};
use subgraph_core::Graph;

/// A graph to serve: its name in the routes, the file it is read from and how.
#[derive(Debug, Clone)]
pub struct GraphSpec {
    pub name: String,
    pub path: PathBuf,
    pub read: ReadOptions,
    /// A CSV file of vertex properties, as `match --vertex-props` reads it.
    pub vertex_props: Option<PathBuf>,
}

/// Whether `name` may name a graph in the routes: letters, digits, `_`, `-` and `.`; else why not.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) {
        return Err(format!("a graph's name is letters, digits, '_', '-' and '.', got '{name}'"));
    }
    Ok(())
}

/// One graph as it is served: the graph, what its queries derive from it, and its engine.
pub struct Resident {
    pub spec: GraphSpec,
    pub data: Arc<Graph>,
    pub derived: Derived,
    pub engine: Engines,
    pub load_ms: f64,
}

/// Where a graph's queries run: on the CPU each query with an engine of its own (they run side
/// by side), or through the one GPU engine the graph was uploaded to, one query at a time.
pub enum Engines {
    Cpu { why: Option<String> },
    Gpu(Mutex<Engine>),
}

impl Engines {
    /// `cpu` or `gpu` (the GPU engine, which under `--device auto` runs each query where its
    /// estimated cost is lower).
    pub fn device(&self) -> &'static str {
        match self {
            Engines::Cpu { .. } => "cpu",
            Engines::Gpu(_) => "gpu",
        }
    }

    /// One line on what runs the queries ([`Engine::describe`]).
    pub fn describe(&self) -> String {
        match self {
            Engines::Cpu { why } => Engine::Cpu { why: why.clone() }.describe(),
            Engines::Gpu(engine) => engine.lock().unwrap_or_else(|e| e.into_inner()).describe(),
        }
    }
}

impl Resident {
    /// Reads `spec`'s graph and opens its engine on `device` (`auto`, `cpu` or `gpu`).
    pub fn load(spec: &GraphSpec, device: &str) -> Result<Resident, ServerError> {
        let fail = |message: String| ServerError::Load { name: spec.name.clone(), message };
        let start = Instant::now();
        let mut all = read_graphs(&spec.path, &spec.read).map_err(|e| fail(e.to_string()))?;
        if all.len() != 1 {
            return Err(fail(format!("expected one graph, the file holds {}", all.len())));
        }
        let mut graph = all.pop().expect("one graph").graph;
        if let Some(p) = &spec.vertex_props {
            let properties = props::read(p, &graph, spec.read.max_bytes).map_err(|e| fail(e.to_string()))?;
            graph.set_properties(properties);
        }
        let data = Arc::new(graph);
        let engine = match Engine::open(device, data.clone(), GpuOptions::default()) {
            Ok(Engine::Cpu { why }) => Engines::Cpu { why },
            Ok(engine) => Engines::Gpu(Mutex::new(engine)),
            Err(e) => return Err(fail(format!("--device {device}: {e}"))),
        };
        let load_ms = start.elapsed().as_secs_f64() * 1e3;
        Ok(Resident { spec: spec.clone(), data, derived: Derived::default(), engine, load_ms })
    }

    /// What `GET /v1/graphs` says of it.
    pub fn info(&self) -> GraphInfo {
        GraphInfo {
            name: self.spec.name.clone(),
            vertices: self.data.num_vertices() as u64,
            edges: self.data.num_edges(),
            directed: self.data.is_directed(),
            device: self.engine.device(),
            engine: self.engine.describe(),
            load_ms: self.load_ms,
        }
    }
}

/// One graph in `GET /v1/graphs`.
#[derive(Debug, Serialize)]
pub struct GraphInfo {
    pub name: String,
    pub vertices: u64,
    pub edges: u64,
    pub directed: bool,
    pub device: &'static str,
    pub engine: String,
    pub load_ms: f64,
}

/// The served graphs by name; a reload replaces one while queries hold the one they started on.
pub struct Graphs {
    by_name: RwLock<HashMap<String, Arc<Resident>>>,
    /// Names in the order the operator gave them.
    order: Vec<String>,
    /// Graphs being reloaded now.
    reloading: Mutex<Vec<String>>,
}

impl Graphs {
    /// Loads every graph of `specs` on `device`, refusing a name given twice.
    pub fn load(specs: &[GraphSpec], device: &str) -> Result<Graphs, ServerError> {
        let mut by_name = HashMap::new();
        let mut order = Vec::new();
        for spec in specs {
            if by_name.contains_key(&spec.name) {
                return Err(ServerError::DuplicateGraph { name: spec.name.clone() });
            }
            by_name.insert(spec.name.clone(), Arc::new(Resident::load(spec, device)?));
            order.push(spec.name.clone());
        }
        Ok(Graphs { by_name: RwLock::new(by_name), order, reloading: Mutex::new(Vec::new()) })
    }

    /// The graph named `name` as it is now.
    pub fn get(&self, name: &str) -> Option<Arc<Resident>> {
        self.by_name.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
    }

    /// Every graph, in the operator's order.
    pub fn all(&self) -> Vec<Arc<Resident>> {
        self.order.iter().filter_map(|n| self.get(n)).collect()
    }

    pub fn names(&self) -> &[String] {
        &self.order
    }

    /// Marks `name` as reloading; false where it already is.
    pub fn begin_reload(&self, name: &str) -> bool {
        let mut r = self.reloading.lock().unwrap_or_else(|e| e.into_inner());
        if r.iter().any(|n| n == name) {
            return false;
        }
        r.push(name.to_string());
        true
    }

    /// Ends `name`'s reload, putting `loaded` in place of the graph where it loaded.
    pub fn end_reload(&self, name: &str, loaded: Option<Resident>) {
        if let Some(resident) = loaded {
            self.by_name.write().unwrap_or_else(|e| e.into_inner()).insert(name.to_string(), Arc::new(resident));
        }
        self.reloading.lock().unwrap_or_else(|e| e.into_inner()).retain(|n| n != name);
    }
}
