//! Measuring the CPU search apart from its graph (issue 40's CPU target): degree statistics of
//! an index's graph, the distances each query computes (an instrumented copy of the search's
//! rule), and a server of timed searches (`serve`) for `bench/ann/cpu_alternate.py`, which
//! alternates it with hnswlib's: our index searched as `subgraph ann bench` does, or hnswlib's
//! graph, read from its saved index, under our search.
//!
//!     ann_probe count OUR.sgi HNSWLIB.bin BASE.fvecs QUERIES.fvecs GT.ivecs [--efs 16,32,48,64,128]
//!         [--count-queries 1000]
//!     ann_probe serve OUR.sgi QUERIES.fvecs GT.ivecs            # ours, for bench/ann/cpu_alternate.py
//!     ann_probe serve - QUERIES.fvecs GT.ivecs --hnswlib HNSWLIB.bin --base BASE.fvecs
//!
//! hnswlib's file (hnswalg.h `saveIndex`, labels 0..n as `hnsw_saved.py build` gives them) is
//! read into a `ProximityGraph`: vertices reordered by level, highest first with hnswlib's
//! entry point at 0, so that each upper layer is an id prefix, as ours are; the same search
//! then runs on both graphs. Distance computations are counted as hnswlib's
//! `metric_distance_computations` would count them in its layer 0 (each new neighbour of an
//! explored vertex), plus the descent's.

use std::collections::HashSet;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

use subgraph_ann::cpu::search::list_capacity;
use subgraph_ann::{
    file, read_ids, read_vectors, recall, GraphKind, Layer, Metric, ProximityGraph, SearchParams, Vectors,
};

type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// A graph, its vectors in the graph's order and each vertex's row of the base file.
struct Searched {
    name: &'static str,
    graph: ProximityGraph,
    vectors: Vectors,
    order: Vec<u32>,
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// hnswlib's saved index as a prefix-layered graph over `base`'s rows.
fn read_hnswlib(path: &Path, base: &Vectors) -> Res<Searched> {
    let b = std::fs::read(path)?;
    let (off_level0, count, size_el) = (le_u64(&b, 0) as usize, le_u64(&b, 16) as usize, le_u64(&b, 24) as usize);
    let (label_off, _off_data) = (le_u64(&b, 32) as usize, le_u64(&b, 40) as usize);
    let entry = le_u32(&b, 52) as usize;
    let (max_m, max_m0) = (le_u64(&b, 56) as usize, le_u64(&b, 64) as usize);
    let header = 96;
    let level0 = &b[header..header + count * size_el];
    let mut at = header + count * size_el;
    let links_per_level = max_m * 4 + 4;
    let mut upper: Vec<&[u8]> = Vec::with_capacity(count);
    for _ in 0..count {
        let size = le_u32(&b, at) as usize;
        at += 4;
        upper.push(&b[at..at + size]);
        at += size;
    }
    let level = |v: usize| upper[v].len() / links_per_level;
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&v| (v != entry, std::cmp::Reverse(level(v)), v));
    let mut new_id = vec![0u32; count];
    for (i, &v) in order.iter().enumerate() {
        new_id[v] = i as u32;
    }
    let links = |v: usize, l: usize| -> Vec<u32> {
        let row = if l == 0 { &level0[v * size_el + off_level0..] } else { &upper[v][(l - 1) * links_per_level..] };
        let n = (le_u32(row, 0) & 0xffff) as usize;
        (0..n).map(|j| new_id[le_u32(row, 4 + 4 * j) as usize]).collect()
    };
    let top = level(entry);
    let mut layers = Vec::new();
    for l in 0..=top {
        let len = order.iter().take_while(|&&v| level(v) >= l).count();
        let degree = if l == 0 { max_m0 } else { max_m };
        let mut layer = Layer::empty(len, degree);
        for (i, &v) in order[..len].iter().enumerate() {
            for (slot, u) in layer.row_mut(i as u32).iter_mut().zip(links(v, l)) {
                *slot = u;
            }
        }
        layers.push(layer);
    }
    let rows: Vec<u32> = order.iter().map(|&v| le_u64(level0, v * size_el + label_off) as u32).collect();
    let graph = ProximityGraph { kind: GraphKind::Hnsw, layers };
    graph.validate()?;
    Ok(Searched { name: "hnswlib graph", vectors: base.permuted(&rows), graph, order: rows })
}

fn degrees(s: &Searched) {
    for (l, layer) in s.graph.layers.iter().enumerate() {
        let n = layer.len();
        let filled: Vec<usize> = (0..n as u32).map(|v| layer.neighbours(v).count()).collect();
        let sum: usize = filled.iter().sum();
        let full = filled.iter().filter(|&&d| d == layer.degree).count();
        println!(
            "  {}: layer {l}: {n} vertices, row width {}, out-degree mean {:.2}, max {}, full rows {:.3}",
            s.name,
            layer.degree,
            sum as f64 / n as f64,
            filled.iter().max().unwrap_or(&0),
            full as f64 / n as f64
        );
    }
}

/// The CPU search's rule (`cpu/search.rs`), counting distances: (descent, walk, explored).
fn counted(s: &Searched, q: &[f32], ef: usize, k: usize) -> (usize, usize, usize, Vec<u32>) {
    let metric = Metric::L2;
    let d = |v: u32| metric.distance(q, s.vectors.row(v as usize));
    let (mut descent, mut walk, mut explored) = (0, 0, 0);
    let mut current = 0u32;
    let layers = &s.graph.layers;
    if layers.len() > 1 {
        let mut best = d(0);
        descent += 1;
        for layer in layers[1..].iter().rev() {
            loop {
                let mut moved = false;
                for u in layer.neighbours(current).collect::<Vec<_>>() {
                    descent += 1;
                    let du = d(u);
                    if du < best {
                        best = du;
                        current = u;
                        moved = true;
                    }
                }
                if !moved {
                    break;
                }
            }
        }
    }
    let cap = list_capacity(ef);
    let mut list: Vec<(f32, u32, bool)> = vec![(d(current), current, false)];
    walk += 1;
    let mut seen = HashSet::from([current]);
    while let Some(at) = list.iter().take(ef).position(|e| !e.2) {
        list[at].2 = true;
        explored += 1;
        let v = list[at].1;
        for u in layers[0].neighbours(v) {
            if seen.insert(u) {
                walk += 1;
                let du = d(u);
                list.push((du, u, false));
                list.sort_by(|a, b| (a.0, a.1).partial_cmp(&(b.0, b.1)).expect("finite"));
                list.truncate(cap);
            }
        }
    }
    let ids = list.iter().take(k).map(|e| s.order[e.1 as usize]).collect();
    (descent, walk, explored, ids)
}

/// A batch of queries searched: the neighbours, ids of the base file.
type Search = dyn Fn(&Vectors, SearchParams) -> Res<subgraph_ann::Neighbours>;

/// CPU seconds of this process so far: every thread's time on a CPU (`/proc/self/task/*/schedstat`).
fn cpu_seconds() -> f64 {
    let mut ns = 0u64;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for t in tasks.flatten() {
            if let Ok(s) = std::fs::read_to_string(t.path().join("schedstat")) {
                ns += s.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0);
            }
        }
    }
    ns as f64 * 1e-9
}

/// `serve`: answers lines `EF RUNS WARM` on standard input, each with one JSON line: the recall@10
/// and every timed batch's wall and CPU seconds (a warm-up batch of the first WARM queries first).
fn serve(args: &[String], opt: &dyn Fn(&str) -> Option<String>) -> Res<()> {
    let [index, queries, gt] = [0, 1, 2].map(|i| args[i].clone());
    let queries = read_vectors(&queries, None)?;
    let truth = read_ids(&gt)?;
    let k = 10;
    // Our index, searched as `subgraph ann bench` does (Index::search: the queries prepared, the
    // CPU search, ids mapped); or hnswlib's graph (--hnswlib FILE --base BASE) under our search.
    let run: Box<Search> = match opt("--hnswlib") {
        None => {
            let index = file::load(Path::new(&index))?;
            Box::new(move |q: &Vectors, p| Ok(index.search(q.clone(), p, None)?))
        }
        Some(h) => {
            let base = read_vectors(opt("--base").ok_or("--hnswlib needs --base")?, None)?;
            let s = read_hnswlib(Path::new(&h), &base)?;
            Box::new(move |q: &Vectors, p| {
                let mut f = subgraph_ann::cpu::search(&s.vectors, Metric::L2, &s.graph, q, p, None)?;
                f.map_ids(&s.order);
                Ok(f)
            })
        }
    };
    println!("{{\"ready\":true,\"threads\":{}}}", rayon::current_num_threads());
    let mut line = String::new();
    while {
        line.clear();
        std::io::stdin().read_line(&mut line)? > 0
    } {
        let v: Vec<usize> = line.split_whitespace().map(|x| x.parse()).collect::<std::result::Result<_, _>>()?;
        let [ef, runs, warm] = [v[0], v[1], v[2]];
        let params = SearchParams::new(k, Some(ef.max(k)))?;
        let few = Vectors::new(queries.dim(), queries.as_slice()[..warm.min(queries.len()) * queries.dim()].to_vec())?;
        run(&few, params)?;
        let (mut wall, mut cpu, mut found) = (Vec::new(), Vec::new(), None);
        for _ in 0..runs {
            let (t, c) = (Instant::now(), cpu_seconds());
            let f = run(&queries, params)?;
            wall.push(t.elapsed().as_secs_f64());
            cpu.push(cpu_seconds() - c);
            found = Some(f);
        }
        let r = recall(&found.ok_or("--runs 0")?, &truth.ids, truth.k, k)?;
        let list = |x: &[f64]| x.iter().map(|s| format!("{s:.6}")).collect::<Vec<_>>().join(",");
        println!(
            "{{\"ef\":{},\"recall\":{r:.5},\"queries\":{},\"wall\":[{}],\"cpu\":[{}]}}",
            params.ef,
            queries.len(),
            list(&wall),
            list(&cpu)
        );
    }
    Ok(())
}

/// `count`: degrees of both graphs and the distances each query computes on each.
fn count(args: &[String], opt: &dyn Fn(&str) -> Option<String>) -> Res<()> {
    let [ours, hnsw, base, queries, gt] = [0, 1, 2, 3, 4].map(|i| args[i].clone());
    let efs: Vec<usize> = opt("--efs")
        .unwrap_or("16,32,48,64,128".into())
        .split(',')
        .map(|e| e.parse())
        .collect::<std::result::Result<_, _>>()?;
    let count_queries: usize = opt("--count-queries").unwrap_or("1000".into()).parse()?;
    let k = 10;
    let index = file::load(Path::new(&ours))?;
    let base = read_vectors(&base, None)?;
    let queries = read_vectors(&queries, None)?;
    let truth = read_ids(&gt)?;
    let ours = Searched {
        name: "our graph",
        graph: index.graph().clone(),
        vectors: index.internal_vectors().clone(),
        order: index.order().to_vec(),
    };
    let theirs = read_hnswlib(Path::new(&hnsw), &base)?;
    println!("degrees:");
    degrees(&ours);
    degrees(&theirs);
    let few = count_queries.min(queries.len());
    println!("distance computations per query (first {few} queries) and recall@10 on them:");
    for s in [&ours, &theirs] {
        for &ef in &efs {
            let (mut de, mut wa, mut ex, mut hits) = (0, 0, 0, 0);
            for q in 0..few {
                let (a, b, c, ids) = counted(s, queries.row(q), ef, k);
                de += a;
                wa += b;
                ex += c;
                hits += ids.iter().filter(|i| truth.row(q)[..k].contains(i)).count();
            }
            let f = few as f64;
            println!(
                "  {} ef {ef:>4}: descent {:.1}, walk {:.1}, explored {:.1}, recall {:.4}",
                s.name,
                de as f64 / f,
                wa as f64 / f,
                ex as f64 / f,
                hits as f64 / (f * k as f64)
            );
        }
    }
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str| args.iter().position(|a| a == name).map(|i| args[i + 1].clone());
    match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..], &opt),
        Some("count") => count(&args[1..], &opt),
        _ => Err("usage: ann_probe serve INDEX QUERIES GT [--hnswlib FILE --base BASE] | count OUR.sgi HNSWLIB.bin BASE QUERIES GT [--efs ..] [--count-queries N]".into()),
    }
}
