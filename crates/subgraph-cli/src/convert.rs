//! `subgraph convert`: converts a graph between the supported formats (Sun & Luo `.graph`, GSI
//! `.g`, edge lists, the `.sgb` binary format).

use crate::formats::parse_format;
use crate::matching::{IdArgs, InputArgs, Neo4jArgs};
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;
use subgraph_core::io::{read_graph, source, write_graph, Format, ReadOptions};

/// Convert a graph file to another format.
#[derive(Args, Debug)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph convert tests/data/hprd/HPRD.graph hprd.sgb\n",
    "  subgraph convert tests/data/snap/ca-grqc-sample.txt.gz --vertex-labels tests/data/snap/ca-grqc-sample.labels grqc.sgb\n",
    "  subgraph convert tests/data/named/people.nt.gz - --to gsi",
))]
pub struct ConvertArgs {
    /// The graph to read; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too). With --nodes, the one path is OUT.
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The file to write; `-` writes standard output (with --to; an edge list only of a graph
    /// without vertex labels, which it would write beside the file).
    #[arg(value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub neo4j: Neo4jArgs,
    /// Input format: graph, gsi, edges, binary, mtx, konect or rdf (default: by extension, then
    /// by content).
    #[arg(long, value_parser = parse_format)]
    pub from: Option<Format>,
    /// Output format: graph, gsi, edges or binary (default: by extension).
    #[arg(long, value_parser = parse_format)]
    pub to: Option<Format>,
    /// Edge-list input only: the edges are directed.
    #[arg(long)]
    pub directed: bool,
    /// Edge-list, mtx or KONECT input only: a file of `id label…` lines (one label or more), in
    /// the file's ids (may be .gz or .zst compressed).
    #[arg(long)]
    pub vertex_labels: Option<PathBuf>,
    #[command(flatten)]
    pub ids: IdArgs,
}

/// Runs `subgraph convert`.
pub fn run(args: ConvertArgs) -> Result<()> {
    let start = Instant::now();
    // With --nodes, the one path given is the output.
    let (input, output) = match (args.neo4j.given(), &args.output) {
        (false, Some(out)) => (Some(&args.input), out),
        (true, None) => (None, &args.input),
        (false, None) => bail!("give the file to write (OUT) after the graph to read (IN)"),
        (true, Some(_)) => bail!("give the graph to read as IN or as --nodes files, not both (convert [IN] OUT)"),
    };
    crate::matching::stdin_once(input.into_iter().chain(&args.vertex_labels).chain(args.neo4j.files()))?;
    let loaded = match input {
        Some(input) => {
            let opts = ReadOptions {
                format: args.from,
                directed: args.directed,
                vertex_labels: args.vertex_labels.clone(),
                ids: args.ids.mode(),
                ..ReadOptions::default()
            };
            let loaded = read_graph(input, &opts)?;
            crate::matching::note_labels_beside(input, std::slice::from_ref(&loaded));
            loaded
        }
        None => {
            if args.from.is_some() {
                bail!("--from does not apply to --nodes and --relationships files");
            }
            let input = InputArgs {
                directed: args.directed,
                vertex_labels: args.vertex_labels.clone(),
                ids: args.ids.clone(),
                ..InputArgs::default()
            };
            input.read_neo4j(&args.neo4j)?
        }
    };
    let g = &loaded.graph;
    let read = start.elapsed();
    let to = match args.to {
        Some(Format::SunLuo) if g.is_directed() => {
            bail!("Sun & Luo .graph files are undirected; write a directed graph as gsi, edges or binary")
        }
        Some(f) => f,
        None if source::is_stdin(output) => {
            bail!("standard output (-) has no extension to tell the format by; give --to")
        }
        None => crate::formats::output_format(output, g.is_directed())?,
    };
    write_graph(g, output, to)?;
    if g.ids().is_some() && matches!(to, Format::SunLuo | Format::Gsi) {
        eprintln!(
            "note: {} numbers the vertices 0..{} in the order of the input's ids, which it cannot hold; \
             edge lists and binary files keep them",
            output.display(),
            g.num_vertices()
        );
    }
    if g.label_names().is_some() && matches!(to, Format::SunLuo | Format::Gsi | Format::Mtx | Format::Konect) {
        eprintln!(
            "note: {} writes the labels' numbers (0.. in the names' byte order), not their names, which it \
             cannot hold; edge lists and binary files keep them",
            output.display()
        );
    }
    if let (Some(p), false) = (g.properties(), to == Format::Binary) {
        eprintln!(
            "note: {} does not carry vertex properties ({} columns dropped); binary files keep them",
            output.display(),
            p.columns().len()
        );
    }
    eprintln!(
        "read {} vertices, {} edges ({} duplicates dropped, {} self loops kept) in {:.2} s; wrote {} in {:.2} s",
        g.num_vertices(),
        g.num_edges(),
        loaded.stats.duplicates,
        g.loops().len(),
        read.as_secs_f64(),
        output.display(),
        (start.elapsed() - read).as_secs_f64()
    );
    Ok(())
}
