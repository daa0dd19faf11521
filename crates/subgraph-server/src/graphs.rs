//! The served graphs: each named by the operator with its path and load options
//! ([`GraphSpec`]), loaded once with its engines ([`Resident`]: the CPU, or one GPU engine a
//! device, [`Engines`]), and swapped whole on a reload while queries on the old one finish
//! ([`Graphs`]).

use crate::error::ServerError;
use crate::pool::{lock, DeviceState, Fleet, Opener, Pool};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;
use subgraph::patterns::Derived;
use subgraph::{CudaError, Engine, GpuCount, GpuError, GpuOptions, GpuSet};
use subgraph_core::io::{props, read_graphs, ReadOptions};
use subgraph_core::Graph;
use subgraph_cuda::check_nvrtc_library;

/// A graph to serve: its name in the routes, the file it is read from and how.
#[derive(Debug, Clone)]
pub struct GraphSpec {
    pub name: String,
    pub path: PathBuf,
    pub read: ReadOptions,
    /// A CSV file of vertex properties, as `match --vertex-props` reads it.
    pub vertex_props: Option<PathBuf>,
}

/// Where the graphs' queries run: `device` (`auto`, `cpu` or `gpu`), on `gpus` devices, each
/// graph's engine holding at most `gpu_memory` bytes on each (None: its free memory).
#[derive(Debug, Clone)]
pub struct Devices {
    pub device: String,
    pub gpus: usize,
    pub gpu_memory: Option<u64>,
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
/// by side), or with GPU engines, one per device (`--gpus N`), each lent to one query at a
/// time ([`Gpus`]).
pub enum Engines {
    Cpu { why: Option<String> },
    Gpu(Gpus),
}

/// A graph's GPU engines: the pool of devices, how queries run on them, and what was opened.
pub struct Gpus {
    pub pool: Arc<Pool<Box<GpuSet>>>,
    pub options: GpuOptions,
    /// `--device auto`: each query runs where its estimated cost is lower, and borrows a
    /// device only where that is the GPU.
    pub auto: bool,
    /// The devices' names and the upload, as opened at load.
    opened: String,
}

impl Engines {
    /// Opens `data`'s engines on `devices.device` (`auto`, `cpu` or `gpu`): on `devices.gpus`
    /// devices, the graph uploaded to each (in segments, where its layout takes over 3/4 of
    /// `devices.gpu_memory`), where a GPU runs them. Under `auto`, a host without a usable GPU
    /// serves from the CPU, saying why; a device that is there but cannot be opened is an error.
    pub fn open(devices: &Devices, data: Arc<Graph>, fleet: &Arc<Fleet>) -> Result<Engines, String> {
        let device = devices.device.as_str();
        if device == "cpu" {
            return Ok(Engines::Cpu { why: None });
        }
        let ordinals = match present(devices.gpus) {
            Ok(ordinals) => ordinals,
            Err(e @ GpuError::Cuda(CudaError::Unavailable(_))) if device == "auto" => {
                return Ok(Engines::Cpu { why: Some(e.to_string()) })
            }
            Err(e) => return Err(format!("--device {device}: {e}")),
        };
        let options =
            GpuOptions { gpus: GpuCount::Count(1), device_memory: devices.gpu_memory, ..GpuOptions::default() };
        let open = move |data: Arc<Graph>, ordinal: usize| {
            GpuSet::open(data, &options, &[ordinal]).map(Box::new).map_err(|e| e.to_string())
        };
        let engines: Vec<Result<Box<GpuSet>, String>> = std::thread::scope(|s| {
            let opening: Vec<_> = ordinals
                .iter()
                .map(|&i| {
                    s.spawn({
                        let data = data.clone();
                        move || open(data, i)
                    })
                })
                .collect();
            opening.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        });
        let mut opened = Vec::new();
        for (engine, ordinal) in engines.into_iter().zip(&ordinals) {
            opened.push(engine.map_err(|e| format!("GPU {ordinal} could not be opened: {e}"))?);
        }
        let line = describe(&opened, device == "auto");
        let reopen: Opener<Box<GpuSet>> = Box::new(move |ordinal| open(data.clone(), ordinal));
        let pool = Pool::new(ordinals, opened, reopen, fleet);
        Ok(Engines::Gpu(Gpus { pool, options, auto: device == "auto", opened: line }))
    }

    /// `cpu` or `gpu` (the GPU engines, which under `--device auto` run each query where its
    /// estimated cost is lower).
    pub fn device(&self) -> &'static str {
        match self {
            Engines::Cpu { .. } => "cpu",
            Engines::Gpu(_) => "gpu",
        }
    }

    /// One line on what runs the queries ([`Engine::describe`]'s words), with the devices out
    /// of service now.
    pub fn describe(&self) -> String {
        match self {
            Engines::Cpu { why } => Engine::Cpu { why: why.clone() }.describe(),
            Engines::Gpu(gpus) => {
                let out: Vec<String> = gpus
                    .pool
                    .states()
                    .into_iter()
                    .filter(|s| s.state == "reopening")
                    .map(|s| format!("GPU {} out of service after a fault, being reopened", s.device))
                    .collect();
                match out.is_empty() {
                    true => gpus.opened.clone(),
                    false => format!("{}; {}", gpus.opened, out.join("; ")),
                }
            }
        }
    }

    /// Each GPU's state (none on the CPU).
    pub fn devices(&self) -> Vec<DeviceState> {
        match self {
            Engines::Cpu { .. } => Vec::new(),
            Engines::Gpu(gpus) => gpus.pool.states(),
        }
    }
}

/// The ordinals of the `gpus` first devices, where the driver, that many devices and NVRTC are
/// there (as `match --device auto` looks, without opening them).
fn present(gpus: usize) -> Result<Vec<usize>, GpuError> {
    let ordinals = GpuCount::Count(gpus).present()?;
    check_nvrtc_library()?;
    Ok(ordinals)
}

/// What `engines` (one a device) run on, as [`Engine::describe`] says it.
fn describe(engines: &[Box<GpuSet>], auto: bool) -> String {
    let names: Vec<String> =
        engines.iter().flat_map(|e| e.device_infos()).map(|i| format!("{} {}", i.ordinal, i.name)).collect();
    let devices = match names.len() {
        1 => format!("GPU {}", names[0]),
        n => format!("{n} GPUs ({}), one engine each, a query taking a free one", names.join(", ")),
    };
    let upload = engines.iter().map(|e| e.graph_upload_ms()).fold(0.0, f64::max);
    let layout = match engines[0].first().partitioned() {
        Some(p) => format!(
            "data graph partitioned into {} segments, {} resident, in {upload:.0} ms",
            p.segments().len(),
            p.resident_segments()
        ),
        None => format!("data graph uploaded in {upload:.0} ms"),
    };
    format!("{devices} ({layout}){}", if auto { "; each query runs where its estimated cost is lower" } else { "" })
}

impl Resident {
    /// Reads `spec`'s graph and opens its engines on `devices` ([`Engines::open`]).
    pub fn load(spec: &GraphSpec, devices: &Devices, fleet: &Arc<Fleet>) -> Result<Resident, ServerError> {
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
        let engine = Engines::open(devices, data.clone(), fleet).map_err(fail)?;
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
            devices: self.engine.devices(),
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
    /// The GPUs its queries run on, each ready, busy or reopening (none on the CPU).
    pub devices: Vec<DeviceState>,
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
    /// Loads every graph of `specs` on `devices`, refusing a name given twice.
    pub fn load(specs: &[GraphSpec], devices: &Devices, fleet: &Arc<Fleet>) -> Result<Graphs, ServerError> {
        let mut by_name = HashMap::new();
        let mut order = Vec::new();
        for spec in specs {
            if by_name.contains_key(&spec.name) {
                return Err(ServerError::DuplicateGraph { name: spec.name.clone() });
            }
            by_name.insert(spec.name.clone(), Arc::new(Resident::load(spec, devices, fleet)?));
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
        let mut r = lock(&self.reloading);
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
        lock(&self.reloading).retain(|n| n != name);
    }
}
