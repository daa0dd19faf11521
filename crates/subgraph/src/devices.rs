//! Where queries run: the CPU pipeline, the GPU engine, or under `--device auto` either one per
//! query, by the planner's estimated cost (`planner::choose_device`): the runner the command
//! line and the Python package share. Under `auto` the GPU is opened when a query first goes
//! there, so a run whose queries all stay on the CPU never creates a CUDA context.

use std::sync::Arc;
use std::time::Instant;

use subgraph_core::filter::Filter;
use subgraph_core::pipeline::{prepare, run_query, MatchOptions, Report};
use subgraph_core::planner::{
    choose_device, device_for_graph, device_for_limit, gpu_break_even, Device, DeviceChoice, H200_COSTS,
};
use subgraph_core::sink::{Control, Output};
use subgraph_core::tree::{TreeCount, TreeQuery};
use subgraph_core::{Graph, Semantics};
use subgraph_cuda::{check_nvrtc_library, CudaError};
use subgraph_gpu::ggq::ids::{Ask, IdPlan, IdRun};
use subgraph_gpu::{GpuError, GpuOptions, GpuReport, GpuSet, Result, Strategy};
use subgraph_pattern::compile::CompileError;

use crate::derived::{needs_expansion, Derived, Expansion};

/// The engine that runs the queries of one data graph.
pub enum Engine {
    /// The CPU; `why` says why not the GPU when `auto` fell back to it.
    Cpu {
        why: Option<String>,
    },
    Gpu {
        engine: GpuSlot,
        options: GpuOptions,
        auto: bool,
    },
}

/// The GPU engines of one data graph: opened at once under `--device gpu`, and under `auto` by
/// the first query that runs on the GPU: opening (the CUDA context, the kernels' compilation
/// and the data graph's upload) takes 0.3–1 s, which a run whose queries all stay on the CPU
/// need not pay.
pub struct GpuSlot {
    set: Option<Box<GpuSet>>,
    data: Arc<Graph>,
    /// Why opening failed, once it has: the queries then stay on the CPU.
    failed: Option<String>,
    /// Where the engines are borrowed from instead of opened ([`Engine::lent`]).
    lender: Option<Arc<dyn Lender>>,
}

/// Where an engine made for one query ([`Engine::lent`]) borrows GPU engines already open (the
/// query server's pool of devices), when the query goes to the GPU: a query that stays on the
/// CPU never asks.
pub trait Lender: Send + Sync {
    /// Engines for this query, or why none can be had (the query then runs on the CPU).
    fn lend(&self) -> std::result::Result<Box<GpuSet>, String>;
}

impl GpuSlot {
    /// Opens (or borrows) the engines unless they are open: the milliseconds opening took (0
    /// when they were open or borrowed), or None where they cannot be had (the reason kept in
    /// `failed`).
    fn ready(&mut self, options: &GpuOptions) -> Option<f64> {
        if self.set.is_some() {
            return Some(0.0);
        }
        if self.failed.is_some() {
            return None;
        }
        if let Some(lender) = &self.lender {
            return match lender.lend() {
                Ok(set) => {
                    self.set = Some(set);
                    Some(0.0)
                }
                Err(why) => {
                    self.failed = Some(why);
                    None
                }
            };
        }
        let t = std::time::Instant::now();
        match GpuSet::open_count(self.data.clone(), options, options.gpus) {
            Ok(set) => {
                self.set = Some(Box::new(set));
                Some(t.elapsed().as_secs_f64() * 1e3)
            }
            Err(e) => {
                self.failed = Some(format!("the GPU could not be opened ({e})"));
                None
            }
        }
    }

    /// The engines, where open.
    fn opened(&mut self) -> Option<&mut GpuSet> {
        self.set.as_deref_mut()
    }
}

/// Whether the GPUs `options` asks for are there, without opening them: the driver library
/// with at least one device (and enough for `--gpus`), and NVRTC.
fn present(options: &GpuOptions) -> Result<()> {
    options.gpus.present()?;
    check_nvrtc_library()?;
    Ok(())
}

/// A tree-pattern query's result: the count and the root's answers (None when stopped), its
/// milliseconds, the GPU's figures where it ran there (`upload_ms` the data graph's layout
/// where this query uploaded it, `join_ms` the passes' time, and
/// `report` an empty one for the caller to replace), and whether the device's 64-bit counts
/// saturated and the CPU counted again.
pub struct TreeRan {
    pub count: Option<TreeCount>,
    pub ms: f64,
    pub gpu: Option<GpuReport>,
    pub recounted: bool,
    /// Why a count meant for the GPU ran on the CPU (over `--gpu-memory`).
    pub why: Option<String>,
}

/// A tree query counted on the CPU, timed; `why` says why not on the GPU where it was meant to.
fn cpu_tree(data: &Graph, tree: &TreeQuery, control: &Control, why: Option<String>) -> TreeRan {
    let start = std::time::Instant::now();
    let count = tree.count(data, control);
    TreeRan { count, ms: start.elapsed().as_secs_f64() * 1e3, gpu: None, recounted: false, why }
}

/// A query of more vertices than `data` under an injective semantics: no match, an answer and
/// not an error (a run of several queries goes on), with a note; None for any other query.
pub(crate) fn no_room(
    data: &Graph,
    query: &Graph,
    opts: &MatchOptions,
    output: Option<(&Output, &str)>,
) -> Option<Ran> {
    let (n, nd) = (query.num_vertices(), data.num_vertices());
    if !(opts.semantics.injective() && n > nd && query.is_directed() == data.is_directed()) {
        return None;
    }
    if let Some((out, name)) = output {
        out.begin_query(name, n);
    }
    let note = format!("the query has {n} vertices, more than the data graph's {nd}: no embedding exists");
    Some(Ran { report: Report::nothing(opts.filter, None), gpu: None, choice: None, note: Some(note) })
}

/// One query's result: the report, the GPU's when it ran there, the device choice when
/// `--device auto` made one, and a note when a query meant for the GPU ran on the CPU.
pub struct Ran {
    pub report: Report,
    pub gpu: Option<GpuReport>,
    pub choice: Option<DeviceChoice>,
    pub note: Option<String>,
}

impl Engine {
    /// Opens the engine `device` names: `cpu`, `gpu` (an error when no GPU is usable) or
    /// `auto` (the GPU when one is there, opened by the first query that goes to it; else the
    /// CPU, saying why); on the GPU side, the devices `gpu.gpus` asks for.
    pub fn open(device: &str, data: Arc<Graph>, gpu: GpuOptions) -> Result<Engine> {
        if device == "cpu" {
            return Ok(Engine::Cpu { why: None });
        }
        if device == "auto" {
            return Ok(match present(&gpu) {
                Ok(()) => Engine::Gpu {
                    engine: GpuSlot { set: None, data, failed: None, lender: None },
                    options: gpu,
                    auto: true,
                },
                Err(e) => Engine::Cpu { why: Some(e.to_string()) },
            });
        }
        let set = Some(Box::new(GpuSet::open_count(data.clone(), &gpu, gpu.gpus)?));
        Ok(Engine::Gpu { engine: GpuSlot { set, data, failed: None, lender: None }, options: gpu, auto: false })
    }

    /// An engine for one query on `data` whose GPU engines, where the query goes to the GPU
    /// (under `auto`, where its estimated cost is lower there, the same choice
    /// [`Engine::open`]'s engine makes), are borrowed from `lender`; [`Engine::take_lent`]
    /// takes them back after the query.
    pub fn lent(data: Arc<Graph>, options: GpuOptions, auto: bool, lender: Arc<dyn Lender>) -> Engine {
        Engine::Gpu { engine: GpuSlot { set: None, data, failed: None, lender: Some(lender) }, options, auto }
    }

    /// The GPU engines this engine borrowed ([`Engine::lent`]), taken out of it: None where
    /// its queries never went to the GPU (or it opened its own).
    pub fn take_lent(&mut self) -> Option<Box<GpuSet>> {
        match self {
            Engine::Gpu { engine: GpuSlot { set, lender: Some(_), .. }, .. } => set.take(),
            _ => None,
        }
    }

    /// One line on what runs the queries: the GPU's name and upload time, or the CPU and why.
    pub fn describe(&self) -> String {
        match self {
            Engine::Cpu { why: Some(why) } => format!("CPU ({why})"),
            Engine::Cpu { why: None } => "CPU".to_string(),
            Engine::Gpu { engine: GpuSlot { set: None, .. }, .. } => {
                "the CPU or the GPU, each query where its estimated cost is lower (the GPU is opened, and the data \
                 graph uploaded, when a query first goes there)"
                    .to_string()
            }
            Engine::Gpu { engine: GpuSlot { set: Some(engine), .. }, auto, .. } => {
                let infos = engine.device_infos();
                let devices = match infos.len() {
                    1 => format!("GPU {}", infos[0].name),
                    n => format!(
                        "{n} GPUs ({})",
                        infos.iter().map(|i| format!("{} {}", i.ordinal, i.name)).collect::<Vec<_>>().join(", ")
                    ),
                };
                let layout = match engine.first().partitioned() {
                    Some(p) => format!(
                        "data graph partitioned into {} segments, {} resident, in {:.0} ms",
                        p.segments().len(),
                        p.resident_segments(),
                        engine.graph_upload_ms()
                    ),
                    None => format!("data graph uploaded in {:.0} ms", engine.graph_upload_ms()),
                };
                format!(
                    "{devices} ({layout}){}",
                    if *auto { "; each query runs where its estimated cost is lower" } else { "" }
                )
            }
        }
    }

    /// Whether queries may run on the GPU.
    pub fn has_gpu(&self) -> bool {
        matches!(self, Engine::Gpu { .. })
    }

    /// The name of the filter a query ran with: `signature` or `refined` when the GPU ran it
    /// with a device filter, else the core filter's.
    pub fn filter_name(&self, ran_on_gpu: bool, host: Filter) -> &'static str {
        match self {
            Engine::Gpu { engine: GpuSlot { set: Some(engine), .. }, options, .. } if ran_on_gpu => {
                engine.first().candidate_filter(options).name_with(host)
            }
            _ => host.name(),
        }
    }

    /// Counts a tree-pattern query (GGQ: `subgraph_core::tree`, [`subgraph_gpu::ggq`]) where the
    /// engine runs: on the GPU under `gpu`, and under `auto` where the data graph is as large
    /// as the planner sends every query to the GPU (`device_for_graph`); else on the CPU.
    pub fn count_tree(
        &mut self,
        data: &Graph,
        tree: &TreeQuery,
        opts: &MatchOptions,
        control: &Control,
    ) -> Result<TreeRan> {
        let engine = match self.tree_gpu(data) {
            Ok(engine) => engine,
            Err(why) => return Ok(cpu_tree(data, tree, control, why)),
        };
        let ran = match engine.first_mut().count_tree(tree, control) {
            Ok(Some(ran)) => ran,
            Ok(None) => return Ok(TreeRan { count: None, ms: 0.0, gpu: None, recounted: false, why: None }),
            Err(e @ (GpuError::Cuda(CudaError::OverBudget { .. }) | GpuError::Partitioned { .. })) => {
                return Ok(cpu_tree(data, tree, control, Some(e.to_string())))
            }
            Err(e) => return Err(e),
        };
        let gpu = GpuReport::of(
            Report::nothing(opts.filter, None),
            ("ggq", "tree"),
            ran.upload_ms,
            0.0,
            ran.ms - ran.upload_ms,
            engine.first().peak_device_bytes(),
        );
        Ok(TreeRan { count: Some(ran.count), ms: ran.ms, gpu: Some(gpu), recounted: ran.recounted, why: None })
    }

    /// The GPU engines a tree query runs on: under `gpu`, and under `auto` where the data
    /// graph is as large as the planner sends every query to the GPU (`device_for_graph`),
    /// opened now where not yet; else why not (None: the CPU by choice).
    fn tree_gpu(&mut self, data: &Graph) -> Result<&mut GpuSet, Option<String>> {
        match self {
            Engine::Gpu { engine, options, auto } if !*auto || device_for_graph(data.num_vertices()).is_some() => {
                if engine.ready(options).is_none() {
                    return Err(engine.failed.clone());
                }
                Ok(engine.opened().expect("ready"))
            }
            _ => Err(None),
        }
    }

    /// The GPU strategy queries run by (None on the CPU).
    pub fn strategy(&self) -> Option<Strategy> {
        match self {
            Engine::Gpu { options, .. } => Some(options.strategy),
            Engine::Cpu { .. } => None,
        }
    }

    /// Enumerates a tree query's matches by GGQ's thread IDs ([`subgraph_gpu::ggq::ids`]) where
    /// [`Engine::count_tree`] would count it on the GPU, with the device's peak bytes; None
    /// elsewhere, and where the data graph is partitioned.
    pub fn enumerate_tree(
        &mut self,
        data: &Graph,
        tree: &TreeQuery,
        plan: &IdPlan,
        ask: &Ask,
        control: &Control,
        sink: &mut dyn FnMut(&[u32], u64),
    ) -> Result<Option<(IdRun, u64)>> {
        match self.tree_gpu(data) {
            Ok(engine) if engine.first().partitioned().is_none() => {
                let run = engine.first_mut().enumerate_tree(tree, plan, ask, control, sink)?;
                Ok(Some((run, engine.first().peak_device_bytes())))
            }
            _ => Ok(None),
        }
    }

    /// Runs one query of a file (its labels the data's labels as the file writes them);
    /// `derived` is `data`'s. Where the data has label sets (vertices of several labels, pairs
    /// of several edges) or the query has self loops or sets of its own, the query is first
    /// expanded into the queries that match it in the data's labels ([`Derived::expand`]), and
    /// they run one by one as one query: their matches add up and are written under one head.
    /// Otherwise, [`Engine::run_as_is`].
    pub fn run(
        &mut self,
        data: &Graph,
        query: Graph,
        derived: &Derived,
        opts: &MatchOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<Ran> {
        if !needs_expansion(&query, data) {
            return self.run_as_is(data, query, opts, control, output);
        }
        let start = Instant::now();
        let Expansion { queries, view, some_edges } = match derived.expand(&query, data, control) {
            Ok(expansion) => expansion,
            Err(CompileError::Stopped) => Expansion { queries: Vec::new(), view: None, some_edges: false },
            Err(e) => return Err(GpuError::Core(subgraph_core::Error::Query(e.to_string()))),
        };
        // Too many expansions, and one edge label asked for by every edge: the queries are for
        // the data's edges of that label without labels, on the CPU.
        if some_edges && opts.semantics == Semantics::Induced {
            return Err(GpuError::Core(subgraph_core::Error::Query(INDUCED_ON_VIEW.into())));
        }
        let mut ran: Option<Ran> = None;
        let expansions = queries.len();
        for (k, q) in queries.into_iter().enumerate() {
            let found = ran.as_ref().map_or(0, |m| m.report.embeddings);
            let left = opts.limit.map(|l| l.saturating_sub(found.min(u64::MAX as u128) as u64));
            if left == Some(0) || control.should_stop() {
                break;
            }
            if let Some((out, _)) = output {
                out.hold_heads(k > 0);
            }
            let this = MatchOptions { limit: left, ..*opts };
            let this_ran = match &view {
                Some(view) => on_view(view, q, &this, control, output, VIEW.to_string()),
                None => self.run_as_is(data, q, &this, control, output),
            };
            if let Some((out, _)) = output {
                out.hold_heads(false);
            }
            ran = Some(merged(ran, this_ran?));
        }
        let mut ran = ran.unwrap_or_else(|| {
            if let Some((out, name)) = output {
                out.begin_query(name, query.num_vertices());
            }
            let note = control.stopped().is_none().then(|| NOWHERE.to_string());
            Ran { report: Report::nothing(opts.filter, control.stopped()), gpu: None, choice: None, note }
        });
        if expansions > 1 {
            ran.report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
            let note = format!("the query expands into {expansions} queries over the data's sets of labels");
            ran.note = Some(ran.note.map_or(note.clone(), |n| format!("{n}; {note}")));
        }
        Ok(ran)
    }

    /// Runs one query whose labels are the data's own (a file's query on data without label
    /// sets, or one of the queries a query or pattern expands into). A query the GPU layout
    /// cannot hold runs on the CPU, with a note. Under `--device auto` the CPU's preparation
    /// (filter, default plan, candidate space, gate estimate) prices the query, and it continues
    /// on the CPU or goes to the GPU.
    pub fn run_as_is(
        &mut self,
        data: &Graph,
        query: Graph,
        opts: &MatchOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<Ran> {
        let cpu = |report, choice, note| Ran { report, gpu: None, choice, note };
        if let Some(ran) = no_room(data, &query, opts, output) {
            return Ok(ran);
        }
        let (engine, gpu, auto) = match self {
            Engine::Cpu { .. } => return Ok(cpu(run_query(data, query, opts, control, output)?, None, None)),
            Engine::Gpu { engine, options, auto } => (engine, options, *auto),
        };
        let (mut choice, mut opened_ms) = (None, None);
        if auto {
            choice = device_for_limit(data.num_vertices(), opts.limit);
            if choice.is_some_and(|c| c.device == Device::Cpu) {
                return Ok(cpu(run_query(data, query, opts, control, output)?, choice, None));
            }
            if choice.is_none() {
                let threads = rayon::current_num_threads();
                let from = gpu_break_even(threads, &H200_COSTS);
                let prepared = prepare(data, query.clone(), opts, output.is_none(), from, control)?;
                let c = choose_device(prepared.estimated_cost(), threads, &H200_COSTS);
                choice = Some(c);
                // A query the deadline or Ctrl-C stopped while it was prepared ends on the CPU,
                // as does one for a GPU that could not be opened.
                if c.device == Device::Gpu && !control.should_stop() {
                    opened_ms = engine.ready(gpu);
                }
                if opened_ms.is_none() {
                    let failed = engine.failed.as_ref().filter(|_| c.device == Device::Gpu);
                    let note = failed.map(|why| format!("{why}; this query runs on the CPU"));
                    return Ok(cpu(prepared.run(data, opts, control, output)?.report, choice, note));
                }
            }
        }
        let Some(opened_ms) = opened_ms.or_else(|| engine.ready(gpu)) else {
            let note = engine.failed.as_ref().map(|why| format!("{why}; this query runs on the CPU"));
            return Ok(cpu(run_query(data, query, opts, control, output)?, choice, note));
        };
        let opened = (opened_ms > 0.0).then(|| format!("the GPU was opened for this query in {opened_ms:.0} ms"));
        match engine.opened().expect("ready").run_query(query.clone(), opts, gpu, control, output) {
            Ok(r) => Ok(Ran { report: r.report, gpu: Some(r), choice, note: opened }),
            Err(GpuError::TooLarge { what, len, max }) => {
                let note = format!("{what} {len} exceed the GPU layout's {max}; this query runs on the CPU");
                Ok(cpu(run_query(data, query, opts, control, output)?, choice, Some(note)))
            }
            // Refused before anything was written.
            Err(e @ GpuError::Partitioned { .. }) => {
                let note = format!("{e}; this query runs on the CPU");
                Ok(cpu(run_query(data, query, opts, control, output)?, choice, Some(note)))
            }
            // Over --gpu-memory: a count starts again on the CPU (matches already written
            // could not be taken back, so a written query fails).
            Err(e @ GpuError::Cuda(CudaError::OverBudget { .. })) if output.is_none() => {
                let note = format!("{e}; this query runs on the CPU");
                Ok(cpu(run_query(data, query, opts, control, output)?, choice, Some(note)))
            }
            Err(e) => Err(e),
        }
    }
}

/// Why a query file's query runs on the CPU over a label-free view (`Ran::note`).
const VIEW: &str = "the query's labels expand into too many queries over the data's sets of labels: it runs on the \
                    CPU over the data's edges of its edge label, without labels, each vertex restricted to the \
                    vertices whose labels hold its own";

/// Why a query file's query that expands too far is refused under `induced`.
pub const INDUCED_ON_VIEW: &str =
    "--semantics induced forbids edges of every label, and the query's labels expand into too \
                               many queries over the data's sets of labels: it would run over the data's edges of \
                               its edge label alone";

/// Why a query file's query has nothing to run on data with label sets (`Ran::note`).
const NOWHERE: &str = "the query's labels occur together nowhere in the data graph";

/// `query` run on the CPU over a label-free view of the data (the queries of too many label
/// expansions), with `note` on why; a query of more vertices than the view has no match.
pub(crate) fn on_view(
    view: &Graph,
    query: Graph,
    opts: &MatchOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
    note: String,
) -> Result<Ran> {
    if let Some(ran) = no_room(view, &query, opts, output) {
        return Ok(ran);
    }
    let report = run_query(view, query, opts, control, output)?;
    Ok(Ran { report, gpu: None, choice: None, note: Some(note) })
}

/// The runs of a query's expansions so far (`so_far`) and the next one's, as one run
/// ([`merge`]); the GPU's own report is kept only where there was one expansion.
pub(crate) fn merged(so_far: Option<Ran>, next: Ran) -> Ran {
    match so_far {
        None => next,
        Some(m) => Ran {
            report: merge(&m.report, &next.report),
            gpu: None,
            choice: m.choice.or(next.choice),
            note: m.note.or(next.note),
        },
    }
}

/// Two expansions' reports as one: matches and work add up, and the run is complete only if
/// both were.
fn merge(a: &Report, b: &Report) -> Report {
    Report {
        embeddings: a.embeddings + b.embeddings,
        complete: a.complete && b.complete,
        stopped: a.stopped.or(b.stopped),
        filter_ms: a.filter_ms + b.filter_ms,
        order_ms: a.order_ms + b.order_ms,
        space_ms: a.space_ms + b.space_ms,
        enumerate_ms: a.enumerate_ms + b.enumerate_ms,
        elapsed_ms: a.elapsed_ms + b.elapsed_ms,
        candidates: a.candidates + b.candidates,
        candidate_edges: a.candidate_edges + b.candidate_edges,
        space_bytes: a.space_bytes.max(b.space_bytes),
        nodes: a.nodes + b.nodes,
        tasks: a.tasks + b.tasks,
        restrictions: a.restrictions.max(b.restrictions),
        multiplier: a.multiplier.max(b.multiplier),
        tail: a.tail.max(b.tail),
        estimated_embeddings: a.estimated_embeddings.zip(b.estimated_embeddings).map(|(x, y)| x + y),
        estimated_cost: a.estimated_cost.zip(b.estimated_cost).map(|(x, y)| x + y),
        priced_cost: a.priced_cost.zip(b.priced_cost).map(|(x, y)| x + y),
        trial_ms: a.trial_ms + b.trial_ms,
        compare_ms: a.compare_ms + b.compare_ms,
        probe_ms: a.probe_ms + b.probe_ms,
        spasm_ms: a.spasm_ms + b.spasm_ms,
        ..*a
    }
}
