//! Runs benchmark queries with known embedding counts on the CPU engine and on the GPU join
//! engine (GSI §V–§VI) and prints, per query, both counts, the known one and both times; the
//! exit status is 1 when a complete count differs. Used by scripts/gpu-suite.sh.
//!
//! Usage: compare DATA_GRAPH QUERY_DIR ANSWERS MAX_QUERIES TIMEOUT_SECS
//! ANSWERS holds `name count` or `name:count` lines (name with or without `.graph`).

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use subgraph_core::io::{read_graph, ReadOptions};
use subgraph_core::order::Order;
use subgraph_core::pipeline::{run_query, MatchOptions};
use subgraph_core::sink::Control;
use subgraph_gpu::{GpuEngine, GpuOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        eprintln!("usage: compare DATA_GRAPH QUERY_DIR ANSWERS MAX_QUERIES TIMEOUT_SECS");
        return ExitCode::from(2);
    }
    let load = |p: &Path| read_graph(p, &ReadOptions::default()).map(|l| l.graph);
    let data = match load(Path::new(&args[1])) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let answers = std::fs::read_to_string(&args[3]).unwrap_or_default();
    let max: usize = args[4].parse().unwrap_or(20);
    let timeout = Duration::from_secs_f64(args[5].parse().unwrap_or(10.0));
    let gpu_opts = GpuOptions::default();
    let mut engine = match GpuEngine::new(&data, &gpu_opts) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    println!("# {} on {}: graph upload {:.1} ms", args[1], engine.device_info().name, engine.graph_upload_ms());
    let (mut failed, mut ran) = (0, 0);
    for line in answers.lines().take(max) {
        let Some((name, count)) = line.split_once([' ', ':']) else { continue };
        let Ok(known) = count.trim().parse::<u128>() else { continue };
        let file = if name.ends_with(".graph") { name.to_string() } else { format!("{name}.graph") };
        let Ok(query) = load(&Path::new(&args[2]).join(&file)) else {
            println!("{name} MISSING");
            continue;
        };
        let control = || Control::new(Some(Instant::now() + timeout), Arc::new(AtomicBool::new(false)));
        let opts = MatchOptions { order: Order::Gsi, ..MatchOptions::default() };
        let cpu = run_query(&data, query.clone(), &opts, &control(), None);
        let gpu = engine.run_query(query, &opts, &gpu_opts, &control(), None);
        match (cpu, gpu) {
            (Ok(c), Ok(g)) => {
                ran += 1;
                let g_ok = !g.report.complete || g.report.embeddings == known;
                let c_ok = !c.complete || c.embeddings == known;
                let verdict = match (c.complete, g.report.complete) {
                    _ if !(g_ok && c_ok) => "FAIL",
                    (true, true) => "OK",
                    _ => "TIMEOUT",
                };
                if verdict == "FAIL" {
                    failed += 1;
                }
                println!(
                    "{name} known={known} cpu={} gpu={} cpu_ms={:.2} gpu_ms={:.2} gpu_join_ms={:.2} peak_MiB={} {verdict}",
                    c.embeddings,
                    g.report.embeddings,
                    c.elapsed_ms,
                    g.report.elapsed_ms,
                    g.join_ms,
                    g.peak_device_bytes >> 20
                );
            }
            (c, g) => {
                failed += 1;
                println!("{name} ERROR cpu={:?} gpu={:?}", c.err(), g.err().map(|e| e.to_string()));
            }
        }
    }
    println!("# {ran} queries, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
