//! One query of a run and its record: a query graph or a pattern ([`Item`]) run through the
//! [`Engine`] ([`run_one`]), and the record `match --format json` writes for it and the server
//! answers ([`Record`]), one format for both.

use std::sync::Arc;

use serde::Serialize;
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::pipeline::MatchOptions;
use subgraph_core::sink::{Control, Output, Stopped};
use subgraph_core::{Graph, Semantics};
use subgraph_gpu::GpuError;
use subgraph_pattern::Pattern;

use crate::derived::Derived;
use crate::devices::{Engine, Ran};
use crate::patterns::{run_pattern, PatternRunError};

/// One query to run: a query graph (read from a file or a request's text) or a pattern.
pub enum Item {
    Graph(Box<Graph>),
    Pattern(Pattern),
}

/// How the queries of a run are matched: the options of query graphs and of patterns (whose
/// semantics is homomorphism unless told otherwise), whether distinct subgraphs are counted
/// too, and whether tree patterns are counted by GGQ's tree passes (`--tree-count auto`).
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    pub opts: MatchOptions,
    pub pattern_opts: MatchOptions,
    pub unique: bool,
    pub trees: bool,
}

/// Why one query could not run: a query graph's engine error, or a pattern's.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Graph(#[from] GpuError),
    #[error(transparent)]
    Pattern(#[from] PatternRunError),
}

/// What one query came to, before it becomes a [`Record`].
pub struct Outcome {
    pub semantics: Semantics,
    pub ran: Ran,
    /// Distinct subgraphs (with `unique`, when complete), and the query graph's automorphisms.
    pub unique: Option<u128>,
    pub automorphisms: Option<u128>,
    /// Patterns only: the result rows, and whether the pattern returns `count(*)`.
    pub rows: Option<(u128, bool)>,
    /// Patterns only: the pattern's text.
    pub pattern: Option<String>,
}

/// Runs `item` (named `name`) on `data` through `engine`, its matches written to `output`;
/// `derived` is `data`'s.
#[allow(clippy::too_many_arguments)]
pub fn run_one(
    engine: &mut Engine,
    data: &Arc<Graph>,
    derived: &Derived,
    name: &str,
    item: Item,
    asked: &Asked,
    control: &Arc<Control>,
    output: Option<&Arc<Output>>,
) -> Result<Outcome, RunError> {
    match item {
        Item::Graph(q) => {
            let automorphisms = asked.unique.then(|| Automorphisms::of(&q).order()).flatten();
            let ran = engine.run(data, *q, derived, &asked.opts, control, output.map(|o| (&**o, name)))?;
            let unique = ran.report.unique(automorphisms);
            let semantics = asked.opts.semantics;
            Ok(Outcome { semantics, ran, unique, automorphisms, rows: None, pattern: None })
        }
        Item::Pattern(pattern) => {
            let opts = &asked.pattern_opts;
            let run =
                run_pattern(&pattern, name, data, engine, opts, control, output, asked.unique, asked.trees, derived)?;
            Ok(Outcome {
                semantics: opts.semantics,
                unique: run.unique,
                automorphisms: None,
                rows: Some((run.rows, run.count_star)),
                pattern: Some(pattern.text),
                ran: run.ran,
            })
        }
    }
}

/// One query's record, as `match --format json` writes it (one JSON object a line) and the
/// server answers it: a stable format, its fields in this order.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub query: String,
    pub semantics: &'static str,
    pub embeddings: u128,
    /// Distinct subgraphs (with --unique, when complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub automorphisms: Option<u128>,
    pub complete: bool,
    pub stopped: Option<Stopped>,
    pub elapsed_ms: f64,
    pub filter_ms: f64,
    pub order_ms: f64,
    pub space_ms: f64,
    pub enumerate_ms: f64,
    /// CPU planning beyond the order, each also inside a phase above: trials of the default
    /// plan before plans are compared and the probe between two plans (in `enumerate_ms`), and
    /// the comparison's estimates.
    pub trial_ms: f64,
    pub compare_ms: f64,
    pub probe_ms: f64,
    /// The spasm's attempt where it did not count the query: outside every phase.
    pub spasm_ms: f64,
    pub candidates: u64,
    /// Candidate edges made (CPU; a lazy space makes only those the search reads).
    pub candidate_edges: u64,
    /// Bytes of the candidate space (CPU) or of this query's device data (GPU).
    pub space_bytes: u64,
    /// CPU only: how the candidate space was made (`eager`: before the search, `lazy`: as the
    /// search read it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<&'static str>,
    /// CPU only: positions whose candidate-edge lists were also held as bitmaps (`--bitmaps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bitmaps: Option<usize>,
    pub device: &'static str,
    pub threads: usize,
    /// GPU only: this query's host-to-device copies, join time and device memory peak.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub join_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_device_bytes: Option<u64>,
    /// GPU only, with `--gpu-memory SIZE`: the cap the peak stayed within.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_memory_budget: Option<u64>,
    /// GPU only: the matcher (`gsi`, `gpsm`, `ggq`) and what its join read (`pcsr`, `csr`,
    /// `aux`, `edge-tables`, `tree`, `none`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_strategy: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_structure: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_buffer_elements: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_joined_rows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_block_tasks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_grid_tasks: Option<u64>,
    /// GPU only: frontier rows counted depth first, the depth-first launches, the frontier
    /// table's columns (0: no depth-first counting) and the depth-first kernel's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dfs_rows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dfs_launches: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dfs_columns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dfs_ms: Option<f64>,
    /// GPU only, where the depth-first kernel ran: ranges of candidates its warps stole from
    /// busy ones (`--gpu-dfs-steal`), and the fraction of its warps' time spent on partial
    /// matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dfs_stolen: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dfs_busy: Option<f64>,
    /// GPU only: FSIG's host spill (`--gpu-park`): tables parked in host memory (of them, made
    /// and parked column by column), blocks brought back, bytes moved both ways; and join
    /// chunks run again because the measured α undershot their rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_parked_tables: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_parked_columnar: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_parked_blocks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_parked_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_alpha_retries: Option<u64>,
    /// GPU only: the GPUs that joined the query (`--gpus`), and the milliseconds they waited
    /// for the last to finish, summed (0 on one GPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_idle_ms: Option<f64>,
    /// GPU only, on a partitioned data graph: the segments copied to the device for the query
    /// (those not resident) and their bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_streamed_segments: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_streamed_bytes: Option<u64>,
    pub filter: &'static str,
    /// The order the plan matched in (the planner's choice under `--order auto`).
    pub order: &'static str,
    /// Last query vertices counted together (0: none), symmetry-breaking restrictions, and
    /// the embeddings each enumerated match stood for.
    pub tail: usize,
    pub restrictions: usize,
    pub multiplier: u128,
    /// The distinct quotients whose homomorphisms made the count, when `--spasm` counted the
    /// query instead of enumerating it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spasm_terms: Option<usize>,
    /// The planner's estimate of the embeddings, when it sampled the query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_embeddings: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<f64>,
    /// That work priced for the device the plan was made for, up to the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priced_cost: Option<f64>,
    /// Under `--device auto`: the device chosen and the predicted times that chose it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_choice: Option<String>,
    /// The data vertices' numbering the engines saw (`file` or `degree`), where the front end
    /// chose one (`match --vertex-order`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex_order: Option<&'static str>,
    /// Patterns only: the result rows (after RETURN, DISTINCT and LIMIT; 1 for `count(*)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u128>,
    /// Patterns only: the pattern's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// A `count(*)` pattern, whose one row is the count (the table does not show it).
    #[serde(skip)]
    pub count_star: bool,
}

impl Record {
    /// The record of `outcome`, the query named `name`, run on `threads` threads; a GPU query's
    /// record names `gpu_memory_budget` (`--gpu-memory`) where one was set.
    pub fn of(name: String, outcome: &Outcome, threads: usize, gpu_memory_budget: Option<u64>) -> Record {
        let Outcome { semantics, ran, unique, automorphisms, rows, pattern } = outcome;
        let Ran { report, gpu, choice, .. } = ran;
        let gpu = gpu.as_ref();
        Record {
            query: name,
            semantics: semantics.name(),
            embeddings: report.embeddings,
            unique: *unique,
            automorphisms: *automorphisms,
            complete: report.complete,
            stopped: report.stopped,
            elapsed_ms: report.elapsed_ms,
            filter_ms: report.filter_ms,
            order_ms: report.order_ms,
            space_ms: report.space_ms,
            enumerate_ms: report.enumerate_ms,
            trial_ms: report.trial_ms,
            compare_ms: report.compare_ms,
            probe_ms: report.probe_ms,
            spasm_ms: report.spasm_ms,
            candidates: report.candidates,
            candidate_edges: report.candidate_edges,
            space_bytes: report.space_bytes,
            space: report.space,
            bitmaps: report.space.map(|_| report.bitmaps),
            device: if gpu.is_some() { "gpu" } else { "cpu" },
            threads,
            upload_ms: gpu.map(|g| g.upload_ms),
            join_ms: gpu.map(|g| g.join_ms),
            peak_device_bytes: gpu.map(|g| g.peak_device_bytes),
            gpu_memory_budget: gpu.and(gpu_memory_budget),
            gpu_strategy: gpu.map(|g| g.strategy),
            gpu_structure: gpu.map(|g| g.structure),
            gpu_buffer_elements: gpu.map(|g| g.buffer_elements),
            gpu_joined_rows: gpu.map(|g| g.joined_rows),
            gpu_block_tasks: gpu.map(|g| g.block_tasks),
            gpu_grid_tasks: gpu.map(|g| g.grid_tasks),
            gpu_dfs_rows: gpu.map(|g| g.dfs.rows),
            gpu_dfs_launches: gpu.map(|g| g.dfs.launches),
            gpu_dfs_columns: gpu.map(|g| g.dfs.columns),
            gpu_dfs_ms: gpu.map(|g| g.dfs.ms),
            gpu_dfs_stolen: gpu.and_then(|g| (g.dfs.launches > 0).then_some(g.dfs.stolen)),
            gpu_dfs_busy: gpu.and_then(|g| g.dfs.busy()),
            gpu_parked_tables: gpu.map(|g| g.spill.tables),
            gpu_parked_columnar: gpu.map(|g| g.spill.columnar),
            gpu_parked_blocks: gpu.map(|g| g.spill.blocks),
            gpu_parked_bytes: gpu.map(|g| g.spill.bytes),
            gpu_alpha_retries: gpu.map(|g| g.alpha_retries),
            gpus: gpu.map(|g| g.devices),
            gpu_idle_ms: gpu.map(|g| g.idle_ms),
            gpu_streamed_segments: gpu.filter(|g| g.partitioned).map(|g| g.streamed.segments),
            gpu_streamed_bytes: gpu.filter(|g| g.partitioned).map(|g| g.streamed.bytes),
            filter: report.filter,
            order: report.order,
            tail: report.tail,
            restrictions: report.restrictions,
            multiplier: report.multiplier,
            spasm_terms: (report.spasm_terms > 0).then_some(report.spasm_terms),
            estimated_embeddings: report.estimated_embeddings,
            estimated_cost: report.estimated_cost,
            priced_cost: report.priced_cost,
            device_choice: choice.map(|c| c.to_string()),
            vertex_order: None,
            rows: rows.map(|r| r.0),
            count_star: rows.is_some_and(|r| r.1),
            pattern: pattern.clone(),
        }
    }
}
