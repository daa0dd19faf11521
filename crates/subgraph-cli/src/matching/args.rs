//! The argument groups the commands share: how to read an input graph (`InputArgs`,
//! `IdArgs`, `Neo4jArgs`), the parts a query is matched with (`PartsArgs`), the GPU engine's switches
//! (`GpuArgs`), their parsers, and opening the engine they name. `match` and `explain`,
//! `bench`, `info`, `convert` and `gen` take them through `matching`, which re-exports them.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use subgraph::gpsm::{self, GpsmOptions};
use subgraph::parts::{PartNames, Parts};
use subgraph::{
    CandidateFilter, DepthFirst, Engine, GpuCount, GpuOptions, LoadBalance, OutputScheme, Park, ParkLayout, Partitions,
    Strategy, Structure, DFS_FRONTIER_ROWS, SHARED_QUERY_COST,
};
use subgraph_core::io::{read_graphs, read_neo4j, source, Format, IdMode, Loaded, MapMode, ReadOptions};
use subgraph_core::pipeline::bytes;
use subgraph_core::Graph;

pub use subgraph_core::host::parse_bytes;

/// How to read an input graph.
#[derive(Args, Clone, Default)]
pub struct InputArgs {
    /// Input format (default: by extension, the one under .gz or .zst for compressed files,
    /// then by content): graph (Sun & Luo), gsi, edges, binary, mtx (Matrix Market), konect,
    /// rdf (N-Triples or N-Quads).
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<String>,
    /// Edge lists: the edges are directed.
    #[arg(long)]
    pub directed: bool,
    /// Edge lists, mtx, KONECT: a file of `id label…` lines (one label or more), in the file's
    /// ids (may be .gz or .zst compressed).
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

/// A data graph from Neo4j's bulk-import CSV files, in place of DATA (`match`, `info`, `convert`).
#[derive(Args, Clone, Debug, Default)]
pub struct Neo4jArgs {
    /// A node file of Neo4j's bulk import (`neo4j-admin database import`): a header of an `:ID`
    /// column, `:LABEL` columns and properties `name:type`, then a row per node; read in place
    /// of DATA. May be given several times, and be .gz or .zst compressed.
    #[arg(long, value_name = "FILE")]
    pub nodes: Vec<PathBuf>,
    /// A relationship file of Neo4j's bulk import (`:START_ID`, `:END_ID`, `:TYPE` and
    /// properties, which are not kept yet), read after the node files. May be given several
    /// times; needs --nodes.
    #[arg(long, value_name = "FILE", requires = "nodes")]
    pub relationships: Vec<PathBuf>,
}

impl Neo4jArgs {
    /// Whether the data graph comes from these files.
    pub fn given(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Every file named, nodes first.
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.nodes.iter().chain(&self.relationships)
    }

    /// How reports name the graph: its files, comma-separated.
    pub fn name(&self) -> String {
        self.files().map(|p| source::display_name(p).display().to_string()).collect::<Vec<_>>().join(",")
    }
}

impl InputArgs {
    /// Reads the data graph of Neo4j's CSV files (`--nodes`, `--relationships`) under
    /// `--max-memory` as [`InputArgs::read_all`] reads a file, and says its notes on stderr. The
    /// options that shape how a file is read do not apply: the files give the ids, labels and
    /// properties, and the graph is directed.
    pub fn read_neo4j(&self, neo4j: &Neo4jArgs) -> Result<Loaded> {
        let refused = [
            (self.vertex_props.is_some(), "--vertex-props (the properties come from the node files)"),
            (self.vertex_labels.is_some(), "--vertex-labels (the labels come from the node files)"),
            (self.input_format.is_some(), "--input-format (the files are Neo4j's CSV)"),
            (
                self.ids.keep_ids || self.ids.string_ids,
                "--keep-ids or --string-ids (the vertices are named by their :ID)",
            ),
        ];
        if let Some((_, what)) = refused.iter().find(|r| r.0) {
            bail!("{what} does not apply to --nodes and --relationships files");
        }
        if let Some(max) = self.max_memory {
            let len: u64 = neo4j.files().map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)).sum();
            if len > max {
                bail!("the node and relationship files' {} exceed --max-memory {}", bytes(len), bytes(max));
            }
        }
        let loaded = read_neo4j(&neo4j.nodes, &neo4j.relationships, &load_options(self)?)?;
        for note in &loaded.notes {
            eprintln!("note: {note}");
        }
        if let Some(max) = self.max_memory {
            let used = loaded.graph.memory_bytes();
            if used > max {
                bail!(
                    "{}: the graph takes {} in memory, more than --max-memory {}",
                    neo4j.name(),
                    bytes(used),
                    bytes(max)
                );
            }
        }
        Ok(loaded)
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

pub(super) fn format(name: &Option<String>) -> Result<Option<Format>> {
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
    /// instead of enumerating them, when counting: auto (when the cost estimate prefers it; with
    /// --cluster or --local-processes, the vertices with no neighbour after them in the order),
    /// on, off.
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
    /// Whether the CPU's eager candidate space also keeps a query vertex's lists as bitmaps
    /// over its candidates, where it has two matched neighbours or more outside the counted
    /// tail: its local candidates are then the AND of their rows, and a counted last vertex
    /// (not induced) a popcount. auto (where every row has at most as many 64-bit words as its
    /// link's mean list length), on, off; within 32 MiB and what --max-memory leaves.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    bitmaps: String,
}

impl PartsArgs {
    pub fn symmetry_name(&self) -> &str {
        &self.symmetry
    }

    pub fn tail_name(&self) -> &str {
        &self.tail
    }

    pub fn parse(&self) -> Result<Parts> {
        Ok(Parts::from_names(&PartNames {
            semantics: self.semantics.as_deref(),
            filter: Some(&self.filter),
            order: Some(&self.order),
            symmetry: Some(&self.symmetry),
            tail: Some(&self.tail),
            spasm: Some(&self.spasm),
            space: Some(&self.space),
            bitmaps: Some(&self.bitmaps),
        })?)
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
pub fn parse_bytes_or_zero(s: &str) -> Result<u64, String> {
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
