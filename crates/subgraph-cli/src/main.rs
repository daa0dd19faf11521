//! The `subgraph` command line: argument parsing and printing; the work is in the libraries.

#[cfg(unix)]
mod alloc;
mod ann;
mod bench;
mod convert;
mod errors;
mod explain;
mod formats;
mod gen;
mod info;
mod matching;
mod mf;
mod partition;
mod progress;
mod rows;
mod serve;
mod signal;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "subgraph", version, about = "Exact subgraph matching on GPUs and all CPU cores")]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph match tests/data/hprd/HPRD.graph tests/data/hprd/queries/query_dense_16_2.graph\n",
    "  subgraph match tests/data/yeast/yeast.graph --pattern 'MATCH (a:1)--(b)--(c:1)--(a) RETURN count(*)'\n",
    "  subgraph info tests/data/yeast/yeast.graph",
))]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find, count or stream the matches of query graphs in a data graph.
    Match(Box<matching::MatchArgs>),
    /// Show how queries are planned: the compared plans, the chosen order, symmetry
    /// restrictions and counted tail, estimated against actual partial matches.
    Explain(explain::ExplainArgs),
    /// Print a graph's statistics.
    Info(info::InfoArgs),
    /// Generate data graphs and query sets.
    Gen(gen::GenArgs),
    /// Convert a graph between formats.
    Convert(convert::ConvertArgs),
    /// Time query sets and write results.csv, summary.md and times.svg.
    Bench(Box<bench::BenchArgs>),
    /// Vector search over proximity graphs: build, search, add, bench.
    Ann(ann::AnnArgs),
    /// Matrix factorisation by SGD on the CPU, the GPU or both: train, predict, recommend.
    Mf(mf::MfArgs),
    /// Split a data graph into .sgb parts and a manifest, for `match --cluster` and
    /// `--local-processes`.
    Partition(partition::PartitionArgs),
    /// Serve named graphs over HTTP or HTTPS: match, explain and reload, with tokens and metrics.
    Serve(serve::ServeArgs),
}

#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: alloc::OneLineOnRefusal = alloc::OneLineOnRefusal;

fn main() -> ExitCode {
    signal::exit_on_closed_stdout();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Match(a) => matching::run(*a),
        Command::Explain(a) => explain::run(a).map(|()| ExitCode::SUCCESS),
        Command::Info(a) => info::run(a),
        Command::Gen(a) => gen::run(a).map(|()| ExitCode::SUCCESS),
        Command::Convert(a) => convert::run(a).map(|()| ExitCode::SUCCESS),
        Command::Bench(a) => bench::run(*a).map(|()| ExitCode::SUCCESS),
        Command::Ann(a) => ann::run(a).map(|()| ExitCode::SUCCESS),
        Command::Mf(a) => mf::run(a).map(|()| ExitCode::SUCCESS),
        Command::Partition(a) => partition::run(a).map(|()| ExitCode::SUCCESS),
        Command::Serve(a) => serve::run(a).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("subgraph: error: {}", errors::one_line(&e));
            ExitCode::from(1)
        }
    }
}
