//! `subgraph match`: load the data graph once, then plan, match and report every query.

use crate::progress::with_progress;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph::gpsm::{self, GpsmOptions};
use subgraph::patterns::{run_pattern, Derived};
use subgraph::{
    CandidateFilter, DepthFirst, Engine, GpuCount, GpuOptions, LoadBalance, MatchOptions, OutputScheme, Park,
    ParkLayout, Partitions, Ran, Strategy, Structure, DFS_FRONTIER_ROWS, SHARED_QUERY_COST,
};
use subgraph_bench::runner::collect_queries;
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::cpu::FailingSets;
use subgraph_core::filter::Filter;
use subgraph_core::io::{read_graphs, source, Format, IdMode, Loaded, MapMode, ReadOptions};
use subgraph_core::order::Order;
use subgraph_core::pipeline::bytes;
use subgraph_core::plan::{Symmetry, Tail};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::space::SpaceBuild;
use subgraph_core::spasm;
use subgraph_core::{Graph, Semantics, VertexIds};
use subgraph_pattern::Pattern;

/// How to read an input graph.
#[derive(Args, Clone)]
pub struct InputArgs {
    /// Input format (default: by extension, the one under .gz or .zst for compressed files,
    /// then by content): graph (Sun & Luo), gsi, edges, binary, mtx (Matrix Market), konect,
    /// rdf (N-Triples or N-Quads).
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<String>,
    /// Edge lists: the edges are directed.
    #[arg(long)]
    pub directed: bool,
    /// Edge lists, mtx, KONECT: a file of `id label` lines, in the file's ids (may be .gz or
    /// .zst compressed).
    #[arg(long, value_name = "FILE")]
    pub vertex_labels: Option<PathBuf>,
    #[command(flatten)]
    pub ids: IdArgs,
    /// Vertex properties for patterns' property tests: a CSV file with a header naming an `id`
    /// column (the data file's vertex ids) and the properties; each column is integer, float
    /// or string, an empty field no value (may be .gz or .zst compressed).
    #[arg(long, value_name = "FILE.csv")]
    pub vertex_props: Option<PathBuf>,
    /// Host memory the data graph and each query's candidate space may take, in bytes (K, M,
    /// G, T suffixes: powers of 1024); exceeding it is an error before the memory is used.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
    /// Binary (.sgb) data graphs: map the file and read its adjacency in place, paged in from
    /// the file, instead of copying it into memory: auto (when the file is larger than half the
    /// host's memory), on, off. Mapped arrays do not count towards --max-memory. The file must
    /// not change while subgraph runs.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = parse_map_mode)]
    pub mmap: MapMode,
}

/// Parses a `--mmap` setting for clap.
pub fn parse_map_mode(s: &str) -> Result<MapMode, String> {
    MapMode::from_name(s).ok_or_else(|| format!("unknown setting '{s}' (one of {})", MapMode::NAMES.join(", ")))
}

/// Parses `123`, `64K`, `1.5G`, `2GiB`, `512MB` (powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        u => return Err(format!("unknown unit '{u}' (use K, M, G or T)")),
    };
    match num.parse::<f64>() {
        Ok(x) if x > 0.0 && (x * scale as f64) < u64::MAX as f64 => Ok((x * scale as f64) as u64),
        _ => Err(format!("expected a positive size such as 512M or 4G, got '{s}'")),
    }
}

impl InputArgs {
    /// Reads the file's graphs under `--max-memory`: a file larger than the cap is refused
    /// before it is read, a graph that takes more than the cap once built after.
    pub fn read_all(&self, path: &Path) -> Result<Vec<Loaded>> {
        if let Some(max) = self.max_memory.filter(|_| self.mmap != MapMode::On) {
            let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            if len > max {
                bail!(
                    "{}: the file's {} exceed --max-memory {}",
                    source::display_name(path).display(),
                    bytes(len),
                    bytes(max)
                );
            }
        }
        let mut all = read_graphs(path, &load_options(self)?)?;
        note_labels_beside(path, &all);
        if let Some(props) = &self.vertex_props {
            let [one] = &mut all[..] else {
                bail!("{}: --vertex-props needs a file of one graph", source::display_name(path).display());
            };
            let p = subgraph_core::io::props::read(props, &one.graph, self.max_memory)?;
            one.graph.set_properties(p);
        }
        if let Some(max) = self.max_memory {
            let used: u64 = all.iter().map(|l| l.graph.memory_bytes() - l.graph.mapped_bytes()).sum();
            if used > max {
                bail!(
                    "{}: the graph takes {} in memory, more than --max-memory {}",
                    path.display(),
                    bytes(used),
                    bytes(max)
                );
            }
        }
        Ok(all)
    }

    /// [`InputArgs::read_all`] for a file that must hold one graph.
    pub fn read_one(&self, path: &Path) -> Result<Loaded> {
        let mut all = self.read_all(path)?;
        if all.len() != 1 {
            bail!("{}: expected one graph, the file holds {}", source::display_name(path).display(), all.len());
        }
        Ok(all.pop().expect("one graph"))
    }
}

/// How the vertex ids of edge lists, Matrix Market and KONECT files become vertices.
#[derive(Args, Clone, Debug, Default)]
pub struct IdArgs {
    /// Edge lists, mtx, KONECT: take the ids as vertex numbers (vertex count = largest id + 1)
    /// instead of compacting them to 0..n and printing the originals.
    #[arg(long, conflicts_with = "string_ids")]
    pub keep_ids: bool,
    /// Edge lists: ids are names (any token without spaces), numbered in byte order.
    #[arg(long)]
    pub string_ids: bool,
}

impl IdArgs {
    pub fn mode(&self) -> IdMode {
        match (self.keep_ids, self.string_ids) {
            (true, _) => IdMode::Keep,
            (_, true) => IdMode::Names,
            _ => IdMode::Compact,
        }
    }
}

/// Says on stderr where an edge list's vertex labels came from when they were read from beside
/// it without being named (`convert` writes them there).
pub fn note_labels_beside(path: &Path, loaded: &[Loaded]) {
    if let Some(beside) = loaded.first().and_then(|l| l.labels_beside.as_ref()) {
        eprintln!(
            "note: {}: vertex labels read from {} beside it (--vertex-labels names another file)",
            path.display(),
            beside.display()
        );
    }
}

/// Standard input can be read once: refuses `-` for more than one of the inputs.
pub fn stdin_once<'a>(paths: impl IntoIterator<Item = &'a PathBuf>) -> Result<()> {
    if paths.into_iter().filter(|p| source::is_stdin(p)).count() > 1 {
        bail!("standard input (-) can be read only once, but more than one input names it");
    }
    Ok(())
}

fn format(name: &Option<String>) -> Result<Option<Format>> {
    name.as_deref()
        .map(|n| {
            Format::from_name(n).with_context(|| format!("unknown format '{n}' (one of {})", Format::NAMES.join(", ")))
        })
        .transpose()
}

/// The parts a query is matched with, by name: semantics, filter, order, symmetry breaking and
/// the counted tail.
#[derive(Args, Clone)]
pub struct PartsArgs {
    /// embed (injective, non-induced), induced, or homomorphism [default: embed; homomorphism
    /// for patterns].
    #[arg(long)]
    semantics: Option<String>,
    /// Candidate filter: ldf, nlf, gql, cs, or auto (GQL, whose refinement a counting query on
    /// the CPU defers while a run over the NLF candidates may finish first).
    #[arg(long, default_value = "auto")]
    filter: String,
    /// Matching order: auto (the plan of least estimated cost among the others), gql, ri, gsi,
    /// card (grown by estimated partial-match counts).
    #[arg(long, default_value = "auto")]
    order: String,
    /// Symmetry breaking: match one embedding per automorphism class and multiply (or expand
    /// the written matches): auto (on for embed and induced), on, off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    symmetry: String,
    /// Count the last pairwise non-adjacent query vertices together (inclusion–exclusion)
    /// instead of enumerating them, when counting: auto (when the cost estimate prefers it), on,
    /// off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    tail: String,
    /// Count embeddings (and homomorphisms) without enumerating them, as a signed sum of the
    /// homomorphisms of the query's quotients (its "spasm"), on the host's cores: auto (when
    /// the predicted enumeration takes a second or more), on (every counted query without
    /// --limit), off. Induced queries are always enumerated.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    spasm: String,
    /// When the CPU's candidate space is made: eager (every list before the search), lazy
    /// (each block of lists when the search first reads it: nothing for candidates a limited
    /// or stopped search never reaches), or auto (lazy under --limit and for --filter auto's
    /// trial when the space scans 2^17 neighbours or more, else eager).
    #[arg(long, default_value = "auto", value_parser = ["auto", "eager", "lazy"])]
    space: String,
}

/// What [`PartsArgs`] names.
#[derive(Debug, Clone, Copy)]
pub struct Parts {
    pub semantics: Semantics,
    /// The semantics of patterns (`--pattern`, `.cypher` files): homomorphism unless
    /// `--semantics` says otherwise, as in SPARQL and GGQ.
    pub pattern_semantics: Semantics,
    pub filter: Filter,
    /// None: chosen by estimated cost.
    pub order: Option<Order>,
    pub symmetry: Symmetry,
    pub tail: Tail,
    pub spasm: spasm::Mode,
    pub space: SpaceBuild,
}

impl Parts {
    /// The match options of these parts.
    pub fn options(&self, limit: Option<u64>, failing_sets: FailingSets) -> MatchOptions {
        MatchOptions {
            semantics: self.semantics,
            filter: self.filter,
            order: self.order,
            symmetry: self.symmetry,
            tail: self.tail,
            limit,
            failing_sets,
            max_memory: None,
            spasm: self.spasm,
            space: self.space,
        }
    }

    /// The name of the order as asked for (`auto` when the planner chooses).
    pub fn order_name(&self) -> &'static str {
        self.order.map_or("auto", Order::name)
    }
}

impl PartsArgs {
    pub fn symmetry_name(&self) -> &str {
        &self.symmetry
    }

    pub fn tail_name(&self) -> &str {
        &self.tail
    }

    pub fn parse(&self) -> Result<Parts> {
        let given = self
            .semantics
            .as_deref()
            .map(|name| {
                Semantics::from_name(name)
                    .with_context(|| format!("unknown semantics '{name}' (one of {})", Semantics::NAMES.join(", ")))
            })
            .transpose()?;
        let s = given.unwrap_or(Semantics::Embed);
        let filter = self.filter.as_str();
        let f = Filter::from_name(filter)
            .with_context(|| format!("unknown filter '{filter}' (one of {})", Filter::NAMES.join(", ")))?;
        let o = match self.order.as_str() {
            "auto" => None,
            o => Some(
                Order::from_name(o)
                    .with_context(|| format!("unknown order '{o}' (one of auto, {})", Order::NAMES.join(", ")))?,
            ),
        };
        let symmetry = Symmetry::from_name(&self.symmetry).expect("clap checked the value");
        if symmetry == Symmetry::On && !s.injective() {
            bail!(
                "--symmetry on needs injective matches (embed or induced): homomorphisms may map \
                 automorphic query vertices to one data vertex"
            );
        }
        let tail = Tail::from_name(&self.tail).expect("clap checked the value");
        let spasm = spasm::Mode::from_name(&self.spasm).expect("clap checked the value");
        let space = SpaceBuild::from_name(&self.space).expect("clap checked the value");
        Ok(Parts {
            semantics: s,
            pattern_semantics: given.unwrap_or(Semantics::Homomorphism),
            filter: f,
            order: o,
            symmetry,
            tail,
            spasm,
            space,
        })
    }
}

/// Parses `--timeout`: a positive number of seconds, at most `sink::MAX_TIMEOUT_SECS`.
pub fn parse_timeout(s: &str) -> Result<f64, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("expected a number of seconds, got '{s}'"))?;
    subgraph_core::sink::timeout(secs).map(|_| secs)
}

/// Parses `--threads`: at least 1, at most `cpu::max_threads()`.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| format!("expected a number of threads, got '{s}'"))?;
    subgraph_core::cpu::threads(n)
}

pub fn load_options(a: &InputArgs) -> Result<ReadOptions> {
    Ok(ReadOptions {
        format: format(&a.input_format)?,
        directed: a.directed,
        vertex_labels: a.vertex_labels.clone(),
        ids: a.ids.mode(),
        map: a.mmap,
        max_bytes: a.max_memory,
    })
}

/// The GPU engine's strategy and ablation switches (GSI §VIII, GpSM).
#[derive(Args, Clone)]
pub struct GpuArgs {
    /// GPU matcher: auto (gsi, and for a tree pattern under homomorphism whose rows must be
    /// enumerated, GGQ's thread IDs where they are estimated cheaper), gsi (GSI's
    /// vertex-at-a-time join over the shared planner's plan, with depth-first counting, symmetry
    /// breaking and the spasm's counts), ggq (GGQ's thread-ID enumeration for every tree
    /// pattern under homomorphism, count(*) included; gsi for the rest), fsig (FSIG's pipeline:
    /// where the switches are left on auto, the refined device filter, structure A, CFL's
    /// order, breadth-first levels with the host spill, no depth-first kernel and no spasm)
    /// or gpsm (GpSM's filter and edge join, the GSI paper's baseline: one device, every match
    /// enumerated; the --gpu-filter, --gpu-structure, --gpu-output, --gpu-dfs and --gpus
    /// switches do not apply).
    #[arg(long, default_value = "auto", value_parser = ["auto", "gsi", "fsig", "gpsm", "ggq"])]
    pub gpu_strategy: String,
    /// GpSM: neighbour-refinement rounds after the exploration (0: none; fewer when a round
    /// removes nothing).
    #[arg(long, value_name = "K", default_value_t = gpsm::ROUNDS)]
    pub gpsm_rounds: usize,
    /// GpSM's simplified query: query vertices of fewer incident edges stay out of the
    /// refinement, keeping the candidates the exploration gave them.
    #[arg(long, value_name = "EDGES", default_value_t = gpsm::MIN_DEGREE)]
    pub gpsm_min_degree: usize,
    /// GPU candidates: signature (GSI's signature filter on the device), refined (the signature
    /// filter, then FSIG's edge-consistency refinement on the device), host (the --filter
    /// filter on the CPU, then uploaded) or auto (refined from 2^20 data vertices, else host).
    #[arg(long, default_value = "auto", value_parser = ["auto", "signature", "refined", "host"])]
    pub gpu_filter: String,
    /// GPU adjacency: pcsr (hashed, GSI §IV-A), csr (scan N(v) for a label), aux (FSIG's
    /// auxiliary structure A, built per query from PCSR: each plan link's neighbour lists within
    /// the linked vertex's candidates) or auto (aux where the device filter made the candidates
    /// or the predicted join takes 20 ms or more, else pcsr).
    #[arg(long, default_value = "auto", value_parser = ["auto", "pcsr", "csr", "aux"])]
    pub gpu_structure: String,
    /// GPU join output: prealloc-combine (one pass, GSI §V) or two-step (count, then write).
    #[arg(long, default_value = "prealloc-combine", value_parser = ["prealloc-combine", "two-step"])]
    pub gpu_output: String,
    /// GPU per-warp write cache.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub gpu_write_cache: String,
    /// GPU load balancing of heavy rows across block and grid: on (GSI's thresholds raised per
    /// chunk by a cost model: a row leaves its warp only when it would outlast the chunk's
    /// share per resident warp), histogram (SGSI's cost model over each chunk's histogram of
    /// row sizes), gsi (GSI's fixed thresholds) or off.
    #[arg(long, default_value = "on", value_parser = ["on", "histogram", "gsi", "off"])]
    pub gpu_load_balance: String,
    /// GPU depth-first counting of the last positions (persistent warps over the rows the
    /// breadth-first join makes, counting the plan's tail in the warp): auto (counting queries
    /// whose plan has a counted tail, which the GPU prefers), on (every counting query), off
    /// (breadth first throughout, no counted tails).
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    pub gpu_dfs: String,
    /// GPU depth-first counting: most rows (as the planner estimates them) of the table the
    /// breadth-first join hands the depth-first kernel; the handover is at the deepest level
    /// below it (FSIG's BFS-to-DFS switch).
    #[arg(long, value_name = "ROWS", default_value_t = DFS_FRONTIER_ROWS)]
    pub gpu_dfs_frontier: u64,
    /// GPU depth-first counting: work stealing (on: warps left without frontier rows take over
    /// the upper half of the candidates a busy warp has left at its shallowest level; off: each
    /// warp finishes the rows it took alone).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub gpu_dfs_steal: String,
    /// GPU host spill (FSIG's pipeline): a table of partial matches is parked in page-locked
    /// host memory and extended block by block, so that the levels made from it get the device
    /// memory back: auto (where the device is nearly full: a table holding half or more of
    /// what its level may use, with under 256 MiB beside it), on
    /// (every table with a level below its next one), off. Only where the host has twice the
    /// table's bytes available.
    #[arg(long, default_value = "auto", value_parser = Park::NAMES.to_vec())]
    pub gpu_park: String,
    /// How a parked table lies in host memory (--gpu-park): rows (row after row, parked in one
    /// copy once made, as FSIG does) or columns (column after column, as SGSI keeps its tables:
    /// a table the join decides to park as it makes it is made one column at a time on the
    /// device, each copied out before the next, so it is never whole on the device; the first
    /// level, and a table the decision passed over, are parked in rows).
    #[arg(long, default_value = "rows", value_parser = ParkLayout::NAMES.to_vec())]
    pub gpu_park_layout: String,
    /// Most device memory the GPU engine may hold at once, data graph included: a size such as
    /// 8G or 512M (powers of 1024), or auto (the device's free memory). Every device allocation
    /// is checked against it, and the join's chunks are sized within it; a data graph that does
    /// not fit is partitioned (--gpu-partitions), and a counting query that outgrows it runs on
    /// the CPU.
    #[arg(long, value_name = "SIZE", default_value = "auto", value_parser = parse_gpu_memory)]
    pub gpu_memory: GpuMemory,
    /// Keep the data graph in host memory in segments (SGSI's partitions) and copy to the
    /// device, per query, those its links read: auto (where the in-core layout would take more
    /// than 3/4 of the device memory or --gpu-memory), on, off (a graph that does not fit is
    /// an error under --device gpu, the CPU under auto). Segments that fit in half the budget
    /// stay on the device. Induced matching, GpSM and tree patterns run on the CPU there.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = Partitions::NAMES.to_vec())]
    pub gpu_partitions: String,
    /// Bytes of one segment of a partitioned data graph, such as 1M (default: 1/64 of the
    /// budget, from 4K to 4M).
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub gpu_segment: Option<u64>,
    /// Most bytes of a partitioned data graph's segments kept on the device between queries,
    /// such as 2G, or 0 to copy every segment when a query reads it (default: half the budget).
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes_or_zero)]
    pub gpu_resident: Option<u64>,
    /// Copy a partitioned data graph's next segment, and a parked table's next block, on a
    /// second stream while the kernels read the one before (on: double buffering, SGSI's
    /// pipeline), or each when it is read (off).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub gpu_pipeline: String,
    /// GPUs of this host to use: a number, or all. Each holds the whole data graph; a query
    /// whose estimated work is worth it (about 80 ms of one H200) has its first level's rows
    /// dealt to every device from a shared queue, the others run on the first. Counts, limits
    /// and written matches are those of one GPU.
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_gpus)]
    pub gpus: GpuCount,
    /// Several GPUs: the planner's estimated cost, priced for the GPU (the report's
    /// priced_cost), from which a query is shared among the devices; 0 shares every query.
    #[arg(long, value_name = "COST", default_value_t = SHARED_QUERY_COST as u64)]
    pub gpu_share_from: u64,
}

/// `--gpus`: a positive number, or `all`.
fn parse_gpus(s: &str) -> Result<GpuCount, String> {
    match s {
        "all" => Ok(GpuCount::All),
        _ => match s.parse::<usize>() {
            Ok(n) if n > 0 => Ok(GpuCount::Count(n)),
            _ => Err(format!("expected a positive number of GPUs or `all`, got `{s}`")),
        },
    }
}

/// A size as [`parse_bytes`] reads it, or 0.
fn parse_bytes_or_zero(s: &str) -> Result<u64, String> {
    match s.trim() {
        "0" => Ok(0),
        _ => parse_bytes(s),
    }
}

/// `--gpu-memory`: a cap in bytes, or None for the device's free memory.
#[derive(Debug, Clone, Copy)]
pub struct GpuMemory(pub Option<u64>);

fn parse_gpu_memory(s: &str) -> Result<GpuMemory, String> {
    match s {
        "auto" => Ok(GpuMemory(None)),
        _ => parse_bytes(s).map(|b| GpuMemory(Some(b))),
    }
}

impl GpuArgs {
    pub fn options(&self) -> GpuOptions {
        GpuOptions {
            strategy: match self.gpu_strategy.as_str() {
                "gpsm" => Strategy::Gpsm,
                "fsig" => Strategy::Fsig,
                "ggq" => Strategy::Ggq,
                "gsi" => Strategy::Gsi,
                _ => Strategy::Auto,
            },
            gpsm: GpsmOptions { rounds: self.gpsm_rounds, min_degree: self.gpsm_min_degree },
            filter: match self.gpu_filter.as_str() {
                "host" => CandidateFilter::Host,
                "signature" => CandidateFilter::Signature,
                "refined" => CandidateFilter::Refined,
                _ => CandidateFilter::Auto,
            },
            structure: match self.gpu_structure.as_str() {
                "pcsr" => Structure::Pcsr,
                "csr" => Structure::Csr,
                "aux" => Structure::Aux,
                _ => Structure::Auto,
            },
            output: if self.gpu_output == "two-step" { OutputScheme::TwoStep } else { OutputScheme::PreallocCombine },
            write_cache: self.gpu_write_cache == "on",
            load_balance: match self.gpu_load_balance.as_str() {
                "off" => LoadBalance::Off,
                "gsi" => LoadBalance::Gsi,
                "histogram" => LoadBalance::Histogram,
                _ => LoadBalance::Model,
            },
            depth_first: match self.gpu_dfs.as_str() {
                "on" => DepthFirst::On,
                "off" => DepthFirst::Off,
                _ => DepthFirst::Auto,
            },
            dfs_frontier_rows: self.gpu_dfs_frontier,
            dfs_steal: self.gpu_dfs_steal == "on",
            park: Park::from_name(&self.gpu_park).expect("clap checked the value"),
            park_layout: ParkLayout::from_name(&self.gpu_park_layout).expect("clap checked the value"),
            device_memory: self.gpu_memory.0,
            gpus: self.gpus,
            shared_from: self.gpu_share_from,
            partitions: Partitions::from_name(&self.gpu_partitions).expect("clap checked the value"),
            segment_bytes: self.gpu_segment,
            resident_bytes: self.gpu_resident,
            pipeline: self.gpu_pipeline == "on",
            ..GpuOptions::default()
        }
    }
}

/// Opens the engine `device` names for `data` (see [`Engine::open`]) and says on stderr what
/// runs the queries unless `quiet`.
pub fn open_engine(device: &str, data: &Arc<Graph>, gpu: GpuOptions, quiet: bool) -> Result<Engine> {
    let engine = Engine::open(device, data.clone(), gpu).map_err(|e| anyhow::anyhow!("--device gpu: {e}"))?;
    if !quiet && device != "cpu" {
        eprintln!("device: {}", engine.describe());
    }
    Ok(engine)
}

#[derive(Args)]
pub struct MatchArgs {
    /// Data graph file; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too).
    data: PathBuf,
    /// Query graph files (a GSI file may hold several queries), or pattern files (`.cypher`,
    /// one pattern each); `-` and compressed files as for DATA.
    #[arg(required_unless_present = "pattern")]
    queries: Vec<PathBuf>,
    /// A pattern to match, in the pattern language (openCypher's MATCH, a subset: see the
    /// README), e.g. 'MATCH (a:1)-->(b)<--(c:1) RETURN DISTINCT b'; may be given several times.
    /// Its semantics is homomorphism unless --semantics says otherwise.
    #[arg(long, value_name = "TEXT")]
    pattern: Vec<String>,
    #[command(flatten)]
    input: InputArgs,
    /// Query file format (default: by extension, then by content).
    #[arg(long, value_name = "FORMAT")]
    query_format: Option<String>,
    #[command(flatten)]
    parts: PartsArgs,
    /// Where to match: auto (the GPU when one is usable, else the CPU), cpu, gpu.
    #[arg(long, default_value = "auto", value_parser = ["auto", "cpu", "gpu"])]
    device: String,
    #[command(flatten)]
    gpu: GpuArgs,
    /// Failing-set pruning: auto (queries of 4+ vertices), on, off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    failing_sets: String,
    /// Worker threads (default: all cores; at most 4 per core, or 64).
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Stop each query after N matches.
    #[arg(long)]
    limit: Option<u64>,
    /// Stop each query after SECS seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// Also report distinct subgraphs: matches divided by the query's automorphisms.
    #[arg(long)]
    unique: bool,
    /// Tree patterns under homomorphism whose rows need no enumeration (count(*), every match
    /// counted, or DISTINCT of one vertex): auto counts them by GGQ's tree passes, without
    /// enumerating matches or expanding absent labels; off matches them as any pattern.
    #[arg(long, default_value = "auto", value_parser = ["auto", "off"])]
    tree_count: String,
    /// Write every match to FILE ("-" for standard output; the report then goes to standard
    /// error).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Format of --output: text, csv, jsonl, or binary (packed little-endian rows in framed
    /// sections; see the README).
    #[arg(long, default_value = "text", requires = "output")]
    output_format: String,
    /// Report format: a table, or one JSON object per query per line.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    format: String,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

/// One query's line of the report.
#[derive(Serialize)]
struct Row {
    query: String,
    semantics: &'static str,
    embeddings: u128,
    /// Distinct subgraphs (with --unique, when complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    automorphisms: Option<u128>,
    complete: bool,
    stopped: Option<Stopped>,
    elapsed_ms: f64,
    filter_ms: f64,
    order_ms: f64,
    space_ms: f64,
    enumerate_ms: f64,
    candidates: u64,
    /// Candidate edges made (CPU; a lazy space makes only those the search reads).
    candidate_edges: u64,
    /// Bytes of the candidate space (CPU) or of this query's device data (GPU).
    space_bytes: u64,
    /// CPU only: how the candidate space was made (`eager`: before the search, `lazy`: as the
    /// search read it).
    #[serde(skip_serializing_if = "Option::is_none")]
    space: Option<&'static str>,
    device: &'static str,
    threads: usize,
    /// GPU only: this query's host-to-device copies, join time and device memory peak.
    #[serde(skip_serializing_if = "Option::is_none")]
    upload_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    join_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_device_bytes: Option<u64>,
    /// GPU only, with `--gpu-memory SIZE`: the cap the peak stayed within.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_memory_budget: Option<u64>,
    /// GPU only: the matcher (`gsi`, `gpsm`, `ggq`) and what its join read (`pcsr`, `csr`,
    /// `aux`, `edge-tables`, `tree`, `none`).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_strategy: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_structure: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_buffer_elements: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_joined_rows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_block_tasks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_grid_tasks: Option<u64>,
    /// GPU only: frontier rows counted depth first, the depth-first launches, the frontier
    /// table's columns (0: no depth-first counting) and the depth-first kernel's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_dfs_rows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_dfs_launches: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_dfs_columns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_dfs_ms: Option<f64>,
    /// GPU only, where the depth-first kernel ran: ranges of candidates its warps stole from
    /// busy ones (`--gpu-dfs-steal`), and the fraction of its warps' time spent on partial
    /// matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_dfs_stolen: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_dfs_busy: Option<f64>,
    /// GPU only: FSIG's host spill (`--gpu-park`): tables parked in host memory (of them, made
    /// and parked column by column), blocks brought back, bytes moved both ways; and join
    /// chunks run again because the measured α undershot their rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_parked_tables: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_parked_columnar: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_parked_blocks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_parked_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_alpha_retries: Option<u64>,
    /// GPU only: the GPUs that joined the query (`--gpus`), and the milliseconds they waited
    /// for the last to finish, summed (0 on one GPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_idle_ms: Option<f64>,
    /// GPU only, on a partitioned data graph: the segments copied to the device for the query
    /// (those not resident) and their bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_streamed_segments: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_streamed_bytes: Option<u64>,
    filter: &'static str,
    /// The order the plan matched in (the planner's choice under `--order auto`).
    order: &'static str,
    /// Last query vertices counted together (0: none), symmetry-breaking restrictions, and
    /// the embeddings each enumerated match stood for.
    tail: usize,
    restrictions: usize,
    multiplier: u128,
    /// The distinct quotients whose homomorphisms made the count, when `--spasm` counted the
    /// query instead of enumerating it.
    #[serde(skip_serializing_if = "Option::is_none")]
    spasm_terms: Option<usize>,
    /// The planner's estimate of the embeddings, when it sampled the query.
    #[serde(skip_serializing_if = "Option::is_none")]
    estimated_embeddings: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimated_cost: Option<f64>,
    /// That work priced for the device the plan was made for, up to the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    priced_cost: Option<f64>,
    /// Under `--device auto`: the device chosen and the predicted times that chose it.
    #[serde(skip_serializing_if = "Option::is_none")]
    device_choice: Option<String>,
    /// Patterns only: the result rows (after RETURN, DISTINCT and LIMIT; 1 for `count(*)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<u128>,
    /// Patterns only: the pattern's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
    /// A `count(*)` pattern, whose one row is the count (the table does not show it).
    #[serde(skip)]
    count_star: bool,
}

pub fn run(a: MatchArgs) -> Result<ExitCode> {
    let parts = a.parts.parse()?;
    let semantics = parts.semantics;
    let out_format = OutputFormat::from_name(&a.output_format).with_context(|| {
        format!("unknown output format '{}' (one of {})", a.output_format, OutputFormat::NAMES.join(", "))
    })?;
    let failing_sets = match a.failing_sets.as_str() {
        "on" => FailingSets::On,
        "off" => FailingSets::Off,
        _ => FailingSets::Auto,
    };
    if a.unique && semantics == Semantics::Homomorphism {
        bail!(
            "--unique counts distinct subgraphs, which homomorphisms do not define; use --semantics embed or induced"
        );
    }
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("starting the thread pool")?;
    }
    let threads = rayon::current_num_threads();

    stdin_once([&a.data].into_iter().chain(&a.queries).chain(&a.input.vertex_labels).chain(&a.input.vertex_props))?;
    // Patterns are read before the data graph, so that a mistake in one shows at once.
    let patterns: Vec<Pattern> = a.pattern.iter().map(|t| subgraph_pattern::parse(t)).collect::<Result<_, _>>()?;
    let interrupt = crate::signal::interrupt_flag()?;

    let t = Instant::now();
    let data = a.input.read_one(&a.data)?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    if !a.quiet {
        let dropped = data.stats.self_loops + data.stats.duplicates;
        eprintln!(
            "data {}: {} vertices, {} edges{}, loaded in {:.0} ms{}",
            source::display_name(&a.data).display(),
            data.graph.num_vertices(),
            data.graph.num_edges(),
            if data.graph.is_directed() { " (directed)" } else { "" },
            load_ms,
            if dropped > 0 {
                format!(" ({} self loops and {} duplicate edges dropped)", data.stats.self_loops, data.stats.duplicates)
            } else {
                String::new()
            }
        );
    }
    let data = Arc::new(data.graph);
    let qopts = ReadOptions {
        format: format(&a.query_format)?,
        directed: data.is_directed(),
        vertex_labels: None,
        ids: a.input.ids.mode(),
        map: MapMode::Off,
        max_bytes: a.input.max_memory,
    };

    let ids = data.ids().cloned();
    if out_format == OutputFormat::Binary && matches!(ids.as_deref(), Some(VertexIds::Names { .. })) {
        bail!(
            "--output-format binary writes numeric ids, and this data graph's vertices are named \
             (--string-ids); use text, csv or jsonl"
        );
    }
    let output: Option<Arc<Output>> = match &a.output {
        None => None,
        Some(p) if p.as_os_str() == "-" => {
            Some(Output::new(Box::new(std::io::BufWriter::new(std::io::stdout())), out_format).with_ids(ids))
        }
        Some(p) => {
            let f = std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?;
            Some(Output::new(Box::new(std::io::BufWriter::with_capacity(1 << 20, f)), out_format).with_ids(ids))
        }
    }
    .map(Arc::new);
    let mut engine = open_engine(&a.device, &data, a.gpu.options(), a.quiet)?;
    let opts = MatchOptions { max_memory: a.input.max_memory, ..parts.options(a.limit, failing_sets) };
    // The query loop runs on a pool thread so no query waits for a sleeping worker to wake.
    let pattern_opts = MatchOptions { semantics: parts.pattern_semantics, ..opts };
    rayon::scope(|_| {
        match_all(
            &a,
            &data,
            &mut engine,
            &qopts,
            (&opts, &pattern_opts),
            patterns,
            output.as_ref(),
            &interrupt,
            threads,
        )
    })
}

/// What a directory of queries holds: query graphs (Sun & Luo's, GSI's) and patterns.
const QUERY_FILES: &[&str] = &["graph", "g", "cypher"];

/// One query to run: a query graph read from a file, or a pattern's text.
pub enum Item {
    Graph(Box<Graph>),
    Pattern(Pattern),
}

/// The queries the arguments name, each with its name: query files' graphs (`FILE#i` where a
/// file holds several), `.cypher` files' patterns (a directory: its `.graph`, `.g` and
/// `.cypher` files in natural order), then `--pattern` texts (`pattern#i`).
pub fn items(queries: &[PathBuf], patterns: Vec<Pattern>, qopts: &ReadOptions) -> Result<Vec<(String, Item)>> {
    let mut out = Vec::new();
    for path in &collect_queries(queries, QUERY_FILES)? {
        let file = source::display_name(path).display().to_string();
        if source::uncompressed_name(path).extension().is_some_and(|e| e == "cypher") {
            let text = String::from_utf8(source::read(path, qopts.max_bytes)?).map_err(|e| {
                anyhow::anyhow!("{file}: the pattern is not UTF-8 text (byte {})", e.utf8_error().valid_up_to() + 1)
            })?;
            let pattern = subgraph_pattern::parse(&text).with_context(|| file.clone())?;
            out.push((file, Item::Pattern(pattern)));
            continue;
        }
        let queries = read_graphs(path, qopts)?;
        note_labels_beside(path, &queries);
        let several = queries.len() > 1;
        for (i, q) in queries.into_iter().enumerate() {
            out.push((if several { format!("{file}#{i}") } else { file.clone() }, Item::Graph(Box::new(q.graph))));
        }
    }
    let several = patterns.len() > 1;
    for (i, p) in patterns.into_iter().enumerate() {
        out.push((if several { format!("pattern#{i}") } else { "pattern".to_string() }, Item::Pattern(p)));
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn match_all(
    a: &MatchArgs,
    data: &Arc<Graph>,
    engine: &mut Engine,
    qopts: &ReadOptions,
    (opts, pattern_opts): (&MatchOptions, &MatchOptions),
    patterns: Vec<Pattern>,
    output: Option<&Arc<Output>>,
    interrupt: &Arc<AtomicBool>,
    threads: usize,
) -> Result<ExitCode> {
    let json = a.format == "json";
    // Matches on standard output leave it to them, in every format: the report goes to stderr.
    let to_stderr = a.output.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let items = items(&a.queries, patterns, qopts)?;
    // The query column as wide as the longest name.
    let width = items.iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0).max(40);
    let printer = Printer { json, to_stderr, width };
    if !json {
        printer.line(format!(
            "{:<width$} {:>22} {:>9} {:>11} {:>9} {:>9} {:>9} {:>11}",
            "query", "embeddings", "complete", "elapsed_ms", "filter", "order", "space", "enumerate"
        ));
    }
    let derived = Derived::default();
    // A query that cannot run is reported and the others run; the exit status says so.
    let mut failed = false;
    for (name, item) in items {
        let deadline = a.timeout.map(|s| Instant::now() + Duration::from_secs_f64(s));
        let control = Arc::new(Control::new(deadline, interrupt.clone()));
        let ran = match item {
            Item::Graph(q) => {
                let auts = a.unique.then(|| Automorphisms::of(&q).order()).flatten();
                with_progress(&name, &control, a.quiet, || {
                    engine.run(data, *q, opts, &control, output.map(|o| (&**o, name.as_str())))
                })
                .with_context(|| format!("query {name}"))
                .map(|ran| {
                    let unique = ran.report.unique(auts);
                    (opts, ran, unique, auts, None, None)
                })
            }
            Item::Pattern(pattern) => with_progress(&name, &control, a.quiet, || {
                run_pattern(
                    &pattern,
                    &name,
                    data,
                    engine,
                    pattern_opts,
                    &control,
                    output,
                    a.unique,
                    a.tree_count == "auto",
                    &derived,
                )
            })
            .with_context(|| name.clone())
            .map(|run| {
                let rows = Some((run.rows, run.count_star));
                (pattern_opts, run.ran, run.unique, None, rows, Some(pattern.text))
            }),
        };
        let (opts, ran, unique, automorphisms, rows, pattern) = match ran {
            Ok(ran) => ran,
            Err(e) => {
                failed = true;
                printer.error(&name, &e)?;
                continue;
            }
        };
        let Ran { report, gpu, choice, note } = ran;
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
        let row = Row {
            query: name.clone(),
            semantics: opts.semantics.name(),
            embeddings: report.embeddings,
            unique,
            automorphisms,
            complete: report.complete,
            stopped: report.stopped,
            elapsed_ms: report.elapsed_ms,
            filter_ms: report.filter_ms,
            order_ms: report.order_ms,
            space_ms: report.space_ms,
            enumerate_ms: report.enumerate_ms,
            candidates: report.candidates,
            candidate_edges: report.candidate_edges,
            space_bytes: report.space_bytes,
            space: report.space,
            device: if gpu.is_some() { "gpu" } else { "cpu" },
            threads,
            upload_ms: gpu.map(|g| g.upload_ms),
            join_ms: gpu.map(|g| g.join_ms),
            peak_device_bytes: gpu.map(|g| g.peak_device_bytes),
            gpu_memory_budget: gpu.and(a.gpu.gpu_memory.0),
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
            rows: rows.map(|r| r.0),
            count_star: rows.is_some_and(|r| r.1),
            pattern,
        };
        if let (Some(c), false) = (choice, a.quiet) {
            eprintln!("device: {name}: {c}");
        }
        // The query's matches before its report line, where both go to standard output.
        if let Some(o) = output {
            o.finish().context("writing the matches")?;
        }
        printer.row(&row)?;
        if let Some(why) = report.stopped {
            let what = match why {
                Stopped::Limit if row.pattern.is_some() => "the limit was reached".to_string(),
                Stopped::Limit => format!("the limit of {} matches was reached", a.limit.unwrap_or(0)),
                Stopped::Timeout => format!("the timeout of {} s expired", a.timeout.unwrap_or(0.0)),
                Stopped::Interrupted => "interrupted".to_string(),
            };
            eprintln!("note: {name}: {what}; {} matches is a partial count", report.embeddings);
        }
        if interrupt.load(Ordering::Relaxed) {
            if let Some(o) = output {
                o.finish().context("writing the matches")?;
            }
            return Ok(ExitCode::from(130));
        }
    }
    if let Some(o) = output {
        o.finish().context("writing the matches")?;
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Where and how the per-query report is printed: standard output, or standard error when
/// the matches go there.
struct Printer {
    json: bool,
    to_stderr: bool,
    /// The table's query column.
    width: usize,
}

impl Printer {
    fn line(&self, text: String) {
        match self.to_stderr {
            true => eprintln!("{text}"),
            false => println!("{text}"),
        }
    }

    fn row(&self, r: &Row) -> Result<()> {
        if self.json {
            self.line(serde_json::to_string(r)?);
        } else {
            let emb = match (r.unique, r.rows) {
                (Some(u), _) => format!("{} ({} unique)", r.embeddings, u),
                (None, Some(rows)) if rows != r.embeddings && !r.count_star => {
                    format!("{} ({} rows)", r.embeddings, rows)
                }
                _ => r.embeddings.to_string(),
            };
            self.line(format!(
                "{:<w$} {:>22} {:>9} {:>11.2} {:>9.2} {:>9.2} {:>9.2} {:>11.2}",
                r.query,
                emb,
                r.complete,
                r.elapsed_ms,
                r.filter_ms,
                r.order_ms,
                r.space_ms,
                r.enumerate_ms,
                w = self.width
            ));
        }
        Ok(())
    }

    /// A query that could not run: one line on stderr, and under `--format json` a record
    /// `{"query": …, "error": …}` among the reports.
    fn error(&self, query: &str, e: &anyhow::Error) -> Result<()> {
        let message = crate::one_line(e);
        eprintln!("subgraph: error: {message}");
        if self.json {
            #[derive(Serialize)]
            struct Failed<'a> {
                query: &'a str,
                error: &'a str,
            }
            self.line(serde_json::to_string(&Failed { query, error: &message })?);
        }
        Ok(())
    }
}
