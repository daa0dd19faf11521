//! `subgraph info`: a graph's size, labels, degrees and memory.

use crate::matching::{InputArgs, Neo4jArgs};
use anyhow::Result;
use clap::Args;
use serde::Serialize;
use std::process::ExitCode;
use std::time::Instant;
use subgraph_core::io::source;

#[derive(Args)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph info tests/data/hprd/HPRD.graph\n",
    "  subgraph info --directed --string-ids --vertex-labels tests/data/named/labels.txt tests/data/named/edges.txt\n",
    "  subgraph info --format json --nodes tests/data/neo4j/people.csv --relationships tests/data/neo4j/knows.csv",
))]
pub struct InfoArgs {
    /// Graph file; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too). Not with --nodes.
    #[arg(required_unless_present = "nodes", conflicts_with = "nodes")]
    file: Option<std::path::PathBuf>,
    #[command(flatten)]
    neo4j: Neo4jArgs,
    #[command(flatten)]
    input: InputArgs,
    /// Output: a readable table or one JSON object per graph.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    format: String,
}

#[derive(Serialize)]
struct Info {
    file: String,
    vertices: usize,
    edges: u64,
    directed: bool,
    vertex_labels: usize,
    edge_labels: usize,
    max_degree: u32,
    mean_degree: f64,
    memory_bytes: u64,
    /// Of `memory_bytes`, those read in place from the mapped file (`--mmap`).
    mapped_bytes: u64,
    /// Always 0: self loops are kept (`self_loops`), none is dropped; the field stays for the
    /// scripts that read it.
    self_loops_dropped: u64,
    /// Exact duplicate edges dropped while building (same ends, direction and label); 0 for a
    /// `.sgb` file, whose graph was built before.
    duplicates_dropped: u64,
    /// Self loops kept, as their vertices' loop labels (apart from the join).
    self_loops: u64,
    /// Vertices with several labels (a set label each).
    multi_labelled_vertices: u64,
    /// Pairs of vertices joined by several edges of different labels (one edge of a set label):
    /// ordered pairs, unordered where undirected.
    multi_edge_pairs: u64,
    load_ms: f64,
    /// How the file's vertex ids were kept: null when vertices are the file's ids, "numbers"
    /// or "names" when they were compacted to 0..n and the originals kept for output.
    original_ids: Option<&'static str>,
    /// (label, vertices), most frequent first.
    vertex_label_histogram: Vec<(u32, u64)>,
    /// The sets behind the labels from `vertex_base` and `edge_base` up (of vertices of several
    /// labels, pairs of several edges), where there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    label_sets: Option<Sets>,
    /// The labels' names (label i is the i-th), where the input named them.
    #[serde(skip_serializing_if = "Option::is_none")]
    vertex_label_names: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_label_names: Option<Vec<String>>,
    /// With --vertex-props: each property's name and type.
    #[serde(skip_serializing_if = "Option::is_none")]
    vertex_properties: Option<Vec<(String, &'static str)>>,
}

/// A graph's label sets, as `info` prints them.
#[derive(Serialize)]
struct Sets {
    vertex_base: u32,
    vertex: Vec<Vec<u32>>,
    edge_base: u32,
    edge: Vec<Vec<u32>>,
}

pub fn run(a: InfoArgs) -> Result<ExitCode> {
    crate::matching::stdin_once(
        a.file.iter().chain(a.neo4j.files()).chain(&a.input.vertex_labels).chain(&a.input.vertex_props),
    )?;
    let t = Instant::now();
    let (graphs, file) = match &a.file {
        Some(f) => (a.input.read_all(f)?, source::display_name(f).display().to_string()),
        None => (vec![a.input.read_neo4j(&a.neo4j)?], a.neo4j.name()),
    };
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    for (i, l) in graphs.iter().enumerate() {
        let g = &l.graph;
        let n = g.num_vertices();
        let mut hist: Vec<(u32, u64)> =
            g.vertex_label_values().iter().map(|&lab| (lab, g.vertices_with_label(lab).len() as u64)).collect();
        hist.sort_by_key(|&(lab, c)| (std::cmp::Reverse(c), lab));
        let endpoints = if g.is_directed() { g.num_edges() } else { 2 * g.num_edges() };
        // Labels as the file has them: the members of the set labels counted once each.
        let distinct = |values: &[u32], members: &dyn Fn(&u32) -> Vec<u32>| {
            let mut all: Vec<u32> = values.iter().flat_map(members).collect();
            all.sort_unstable();
            all.dedup();
            all.len()
        };
        let name = if graphs.len() > 1 { format!("{file}#{i}") } else { file.to_string() };
        let info = Info {
            file: name,
            vertices: n,
            edges: g.num_edges(),
            directed: g.is_directed(),
            vertex_labels: distinct(g.vertex_label_values(), &|l| g.vertex_label_members(l).to_vec()),
            edge_labels: distinct(g.edge_label_values(), &|l| g.edge_label_members(l).to_vec()),
            max_degree: g.max_degree(),
            mean_degree: if n == 0 { 0.0 } else { endpoints as f64 / n as f64 },
            memory_bytes: g.memory_bytes(),
            mapped_bytes: g.mapped_bytes(),
            self_loops_dropped: 0,
            duplicates_dropped: l.stats.duplicates,
            self_loops: g.loops().len() as u64,
            multi_labelled_vertices: g.multi_labelled_vertices(),
            multi_edge_pairs: g.multi_edge_pairs(),
            load_ms,
            original_ids: g.ids().map(|ids| if ids.are_numbers() { "numbers" } else { "names" }),
            vertex_label_histogram: hist,
            label_sets: g.label_sets().map(|s| Sets {
                vertex_base: s.vertex_base(),
                vertex: s.vertex_sets().to_vec(),
                edge_base: s.edge_base(),
                edge: s.edge_sets().to_vec(),
            }),
            vertex_label_names: g.label_names().map(|n| n.vertex.clone()).filter(|n| !n.is_empty()),
            edge_label_names: g.label_names().map(|n| n.edge.clone()).filter(|n| !n.is_empty()),
            vertex_properties: g.properties().map(|p| p.columns().iter().map(|c| (c.name.clone(), c.kind())).collect()),
        };
        if a.format == "json" {
            println!("{}", serde_json::to_string(&info)?);
        } else {
            println!("file              {}", info.file);
            println!("vertices          {}", info.vertices);
            println!("edges             {}{}", info.edges, if info.directed { " (directed)" } else { "" });
            println!("vertex labels     {}", info.vertex_labels);
            println!("edge labels       {}", info.edge_labels);
            println!("degree max/mean   {} / {:.2}", info.max_degree, info.mean_degree);
            let mib = |b: u64| b as f64 / (1 << 20) as f64;
            match info.mapped_bytes {
                0 => println!("memory            {:.1} MiB", mib(info.memory_bytes)),
                m => println!(
                    "memory            {:.1} MiB ({:.1} MiB mapped from the file)",
                    mib(info.memory_bytes),
                    mib(m)
                ),
            }
            println!("dropped           {} duplicate edges", info.duplicates_dropped);
            println!(
                "kept              {} self loops, {} vertices with several labels, {} pairs with several edges",
                info.self_loops, info.multi_labelled_vertices, info.multi_edge_pairs
            );
            println!("load time         {:.1} ms", info.load_ms);
            if let Some(kind) = info.original_ids {
                println!("vertex ids        compacted to 0..{}; the file's {kind} are kept for output", info.vertices);
            }
            // A set label by its members' names (or numbers), `;` between them.
            let named = |names: &Option<Vec<String>>, l: u32| {
                let name = |m: &u32| names.as_ref().map_or(m.to_string(), |n| n[*m as usize].clone());
                g.vertex_label_members(&l).iter().map(name).collect::<Vec<_>>().join(";")
            };
            let top: Vec<String> = info
                .vertex_label_histogram
                .iter()
                .take(10)
                .map(|&(l, c)| format!("{}:{c}", named(&info.vertex_label_names, l)))
                .collect();
            println!("top labels        {}", top.join(" "));
            if let Some(props) = &info.vertex_properties {
                let shown: Vec<String> = props.iter().map(|(n, k)| format!("{n}:{k}")).collect();
                println!("vertex properties {}", shown.join(" "));
            }
            if let Some(names) = &info.edge_label_names {
                let shown: Vec<&str> = names.iter().take(10).map(String::as_str).collect();
                println!("edge label names  {}{}", shown.join(" "), if names.len() > 10 { " …" } else { "" });
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
