//! `subgraph partition`: a data graph into P `.sgb` parts and a manifest, for `match
//! --cluster` and `--local-processes` (subgraph-cluster).

use crate::matching::InputArgs;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use subgraph::numbering::{self, VertexOrder};
use subgraph_cluster::{partition, Rule};

#[derive(Args)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph partition tests/data/hprd/HPRD.graph --parts 4 --output hprd-4\n",
    "  subgraph partition tests/data/yeast/yeast.graph --parts 3 --by range --output yeast-3\n",
    "  subgraph partition tests/data/snap/ca-grqc-sample.txt --parts 2 --vertex-order degree --output grqc-2",
))]
pub struct PartitionArgs {
    /// Data graph file, in any format `match` reads.
    data: PathBuf,
    /// Number of parts (at least the number of processes that will load them).
    #[arg(long)]
    parts: usize,
    /// Folder for the parts (part-0.sgb, …) and manifest.json; created if needed.
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// How vertices are assigned: hash (of the id) or range (ranges of ids balanced by
    /// adjacency size).
    #[arg(long, default_value = "hash", value_parser = ["hash", "range"])]
    by: String,
    /// The vertices' numbering the parts are cut from and the cluster matches in: file (as
    /// read), degree (ascending degree, hubs last, as `match --vertex-order degree`: faster
    /// cliques and other symmetric queries on skewed graphs), or auto (degree where the
    /// data's vertices are unlabelled and the copy fits --max-memory, else file). Rows are
    /// written in the file's ids either way.
    #[arg(long, default_value = "auto", value_parser = VertexOrder::NAMES.to_vec())]
    vertex_order: String,
    #[command(flatten)]
    input: InputArgs,
}

pub fn run(a: PartitionArgs) -> Result<()> {
    let rule = Rule::from_name(&a.by).expect("clap checked --by");
    let mut data = a.input.read_one(&a.data)?.graph;
    let order = VertexOrder::from_name(&a.vertex_order).expect("checked by clap");
    let renumber = numbering::partition_renumbers(order, &data, a.input.max_memory);
    if renumber {
        data = numbering::by_degree(&data, a.input.max_memory).context("--vertex-order degree")?;
    }
    let m = partition(&data, a.parts, rule, &a.output).with_context(|| format!("partitioning {}", a.data.display()))?;
    println!(
        "{} parts by {} in {}: {} vertices, {} edges, {}",
        m.parts,
        m.assignment.name(),
        a.output.join("manifest.json").display(),
        m.vertices,
        m.edges,
        if renumber { "numbered by degree" } else { "in the file's numbering" }
    );
    Ok(())
}
