//! `subgraph gen`: synthetic data graphs (R-MAT, Barabási–Albert, Erdős–Rényi) and query sets
//! extracted by random walks, as in Sun & Luo's benchmark (SIGMOD 2020) and GSI's evaluation
//! (ICDE 2020); and GRR-like RDF, GGQ's data.

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;
use subgraph_bench::gen_graph::{generate, GraphSpec, LabelDist, Model};
use subgraph_bench::gen_queries::{extract_queries, write_queries, QueryKind, QuerySpec, DEFAULT_MAX_TRIES};
use subgraph_core::io::{read_graph, write_graph, Format, ReadOptions};

/// Generate workloads.
#[derive(Args, Debug)]
#[command(after_help = concat!(
    "Examples (from the repository root; each writes what --output names):\n",
    "  subgraph gen graph --model rmat --vertices 4096 --edges 32768 --vertex-labels 8 --label-dist uniform --seed 1 --output rmat.graph\n",
    "  subgraph gen queries tests/data/yeast/yeast.graph --size 8 --count 5 --kind dense --seed 1 --output yeast-queries\n",
    "  subgraph gen vectors --count 10000 --dim 32 --queries 100 --output base.fvecs --queries-output queries.fvecs --ground-truth gt.ivecs",
))]
pub struct GenArgs {
    #[command(subcommand)]
    pub what: GenCommand,
}

#[derive(Subcommand, Debug)]
pub enum GenCommand {
    /// Generate a data graph with exactly the given vertex and edge counts.
    Graph(GraphArgs),
    /// Extract queries from a data graph by random walks.
    Queries(QueriesArgs),
    /// Generate GRR-like RDF (GGQ's data) as N-Triples: a university schema as in LUBM, about
    /// 7,000 triples per university.
    Rdf(RdfArgs),
    /// Generate vectors (a clustered Gaussian mixture near low-dimensional subspaces), queries
    /// from the same mixture and their exact nearest neighbours, for `subgraph ann`.
    Vectors(crate::ann::GenVectorsArgs),
    /// Generate ratings (a planted low-rank model with noise, skewed activity and popularity)
    /// split into train.txt and test.txt (LIBMF text), for `subgraph mf`.
    Ratings(crate::mf::GenRatingsArgs),
}

#[derive(Args, Debug)]
pub struct RdfArgs {
    /// Universities (15 departments each, of 12 professors, 120 students, 30 courses, 60
    /// publications and 3 research groups).
    #[arg(long)]
    pub universities: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The same triples and more: people of several classes, pairs joined by several
    /// predicates, publications that cite themselves (self loops).
    #[arg(long)]
    pub facts: bool,
    /// The N-Triples file to write (.nt; .nt.gz is not written compressed).
    #[arg(long, short)]
    pub output: PathBuf,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelArg {
    /// R-MAT with a, b, c, d = 0.57, 0.19, 0.19, 0.05.
    Rmat,
    /// Barabási–Albert preferential attachment.
    Ba,
    /// Erdős–Rényi G(n, m).
    Er,
}

#[derive(Args, Debug)]
pub struct GraphArgs {
    #[arg(long, value_enum, default_value = "rmat")]
    pub model: ModelArg,
    /// Number of vertices.
    #[arg(long)]
    pub vertices: usize,
    /// Number of distinct edges (arcs when directed), without self loops.
    #[arg(long)]
    pub edges: u64,
    /// Vertex labels are drawn from 0..L.
    #[arg(long, default_value_t = 1)]
    pub vertex_labels: u32,
    /// `uniform` or `powerlaw:ALPHA` (P(label i) proportional to (i + 1)^-ALPHA).
    #[arg(long, default_value = "uniform", value_parser = parse_label_dist)]
    pub label_dist: LabelDist,
    /// Edge labels drawn uniformly from 0..K (default: every edge labelled 0).
    #[arg(long)]
    pub edge_labels: Option<u32>,
    #[arg(long)]
    pub directed: bool,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file; its extension picks the format: .graph, .g, .txt (edge list) or .sgb.
    #[arg(long, short)]
    pub output: PathBuf,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindArg {
    /// Induced subgraphs of average degree at least 3 (Sun & Luo).
    Dense,
    /// Induced subgraphs of average degree below 3 (Sun & Luo).
    Sparse,
    /// A walk plus extra edges among its vertices up to --edges (GSI).
    Gsi,
}

#[derive(Args, Debug)]
pub struct QueriesArgs {
    /// The data graph; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too).
    pub data: PathBuf,
    /// Vertices per query.
    #[arg(long)]
    pub size: usize,
    /// Number of queries.
    #[arg(long)]
    pub count: usize,
    #[arg(long, value_enum)]
    pub kind: KindArg,
    /// Edges per query (gsi only).
    #[arg(long)]
    pub edges: Option<usize>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Random walks tried per query before giving up.
    #[arg(long, default_value_t = DEFAULT_MAX_TRIES)]
    pub max_tries: usize,
    /// Data format (default: by extension, then by content).
    #[arg(long, value_parser = crate::formats::parse_format)]
    pub format: Option<Format>,
    /// Edge-list data only: the edges are directed.
    #[arg(long)]
    pub directed: bool,
    /// Edge-list, mtx or KONECT data only: a file of `id label…` lines (one label or more), in
    /// the file's ids (may be .gz or .zst compressed).
    #[arg(long)]
    pub vertex_labels: Option<PathBuf>,
    #[command(flatten)]
    pub ids: crate::matching::IdArgs,
    /// Directory for the `query_{kind}_{size}_{index}.graph` (`.g` for directed data) files.
    #[arg(long, short)]
    pub output: PathBuf,
}

fn parse_label_dist(s: &str) -> Result<LabelDist, String> {
    LabelDist::parse(s).map_err(|e| e.to_string())
}

/// Runs `subgraph gen`.
pub fn run(args: GenArgs) -> Result<()> {
    match args.what {
        GenCommand::Graph(a) => run_graph(a),
        GenCommand::Queries(a) => run_queries(a),
        GenCommand::Rdf(a) => run_rdf(a),
        GenCommand::Vectors(a) => crate::ann::gen_vectors(a),
        GenCommand::Ratings(a) => crate::mf::gen_ratings(a),
    }
}

fn run_rdf(a: RdfArgs) -> Result<()> {
    if a.universities == 0 {
        bail!("--universities must be at least 1");
    }
    let t = Instant::now();
    let file = std::fs::File::create(&a.output).with_context(|| format!("{}", a.output.display()))?;
    let spec = subgraph_bench::gen_rdf::RdfSpec {
        facts: a.facts,
        ..subgraph_bench::gen_rdf::RdfSpec::universities(a.universities, a.seed)
    };
    let stats =
        subgraph_bench::gen_rdf::write_rdf(&spec, file).with_context(|| format!("writing {}", a.output.display()))?;
    eprintln!(
        "generated {} entities, {} triples in {:.2} s; wrote {}",
        stats.entities,
        stats.triples,
        t.elapsed().as_secs_f64(),
        a.output.display()
    );
    Ok(())
}

fn run_graph(a: GraphArgs) -> Result<()> {
    let format = crate::formats::output_format(&a.output, a.directed)?;
    let model = match a.model {
        ModelArg::Rmat => Model::RMAT,
        ModelArg::Ba => Model::BarabasiAlbert,
        ModelArg::Er => Model::ErdosRenyi,
    };
    let spec = GraphSpec {
        model,
        vertices: a.vertices,
        edges: a.edges,
        vertex_labels: a.vertex_labels,
        label_dist: a.label_dist,
        edge_labels: a.edge_labels,
        directed: a.directed,
        seed: a.seed,
    };
    let start = Instant::now();
    let g = generate(&spec)?;
    let generated = start.elapsed();
    write_graph(&g, &a.output, format)?;
    eprintln!(
        "generated {} vertices, {} edges in {:.2} s; wrote {} in {:.2} s",
        g.num_vertices(),
        g.num_edges(),
        generated.as_secs_f64(),
        a.output.display(),
        (start.elapsed() - generated).as_secs_f64()
    );
    Ok(())
}

fn run_queries(a: QueriesArgs) -> Result<()> {
    let kind = match (a.kind, a.edges) {
        (KindArg::Dense, None) => QueryKind::Dense,
        (KindArg::Sparse, None) => QueryKind::Sparse,
        (KindArg::Gsi, Some(edges)) => QueryKind::Gsi { edges },
        (KindArg::Gsi, None) => bail!("--kind gsi needs --edges"),
        (_, Some(_)) => bail!("--edges applies to --kind gsi only"),
    };
    crate::matching::stdin_once([&a.data].into_iter().chain(&a.vertex_labels))?;
    let opts = ReadOptions {
        format: a.format,
        directed: a.directed,
        vertex_labels: a.vertex_labels,
        ids: a.ids.mode(),
        ..ReadOptions::default()
    };
    let data = read_graph(&a.data, &opts)?.graph;
    let spec = QuerySpec { size: a.size, count: a.count, kind, seed: a.seed, max_tries: a.max_tries };
    let queries =
        extract_queries(&data, &spec).with_context(|| format!("extracting queries from {}", a.data.display()))?;
    let paths = write_queries(&queries, kind, &a.output)?;
    eprintln!("wrote {} {} queries of {} vertices to {}", paths.len(), kind.name(), a.size, a.output.display());
    Ok(())
}
