//! The diagnosis run as `.device-bin/two_gpus_probe` in X2 (and, as `probe-trace`, in X3 with
//! `eprintln!` timings added around Resident::run's prepare, split, per-GPU parts, join and id
//! mapping in crates/subgraph-ann/src/engine.rs). It was built as an example of subgraph-ann
//! (`crates/subgraph-ann/examples/two_gpus_probe.rs`, `cargo build --release -p subgraph-ann
//! --example two_gpus_probe`) and is kept here as the record of what ran, not built by the tree.
use std::time::Instant;
use subgraph_ann::gpu::GpuIndex;
use subgraph_ann::{file, read_vectors, Device, Engine, SearchParams, Vectors};
use subgraph_cuda::Gpu;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let index = file::load(std::path::Path::new(&a[1])).unwrap();
    let queries = index.prepare_queries(read_vectors(&a[2], None).unwrap()).unwrap();
    let ef: usize = a.get(3).map_or(64, |s| s.parse().unwrap());
    let p = SearchParams::new(10, Some(ef)).unwrap();
    let gpus: Vec<Gpu> = (0..2).map(|i| Gpu::open(i).unwrap()).collect();
    let idx: Vec<GpuIndex> =
        gpus.iter().map(|g| GpuIndex::new(g, index.internal_vectors(), index.metric(), index.graph()).unwrap()).collect();
    let dim = queries.dim();
    let half = queries.len() / 2;
    let parts = [
        Vectors::new(dim, queries.as_slice()[..half * dim].to_vec()).unwrap(),
        Vectors::new(dim, queries.as_slice()[half * dim..].to_vec()).unwrap(),
    ];
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let raw = read_vectors(&a[2], None).unwrap();
    for g in [1, 2] {
        let engine = Engine::new(Device::Gpu, g).unwrap();
        let resident = engine.resident(&index).unwrap();
        let mut times = Vec::new();
        for _ in 0..8 {
            let t = Instant::now();
            resident.search(&index, raw.clone(), p, None).unwrap();
            times.push(ms(t));
        }
        println!("engine on {g} GPU(s), ef {ef}: {times:.2?} ms");
    }
    for round in 0..6 {
        let t = Instant::now();
        idx[0].search(&queries, p, None).unwrap();
        let whole0 = ms(t);
        let t = Instant::now();
        idx[1].search(&queries, p, None).unwrap();
        let whole1 = ms(t);
        let t = Instant::now();
        idx[0].search(&parts[0], p, None).unwrap();
        let half0 = ms(t);
        let t = Instant::now();
        idx[1].search(&parts[1], p, None).unwrap();
        let half1 = ms(t);
        let t = Instant::now();
        let each: Vec<(f64, f64)> = std::thread::scope(|s| {
            let hs: Vec<_> = idx
                .iter()
                .zip(&parts)
                .map(|(ix, q)| {
                    s.spawn(move || {
                        let t0 = Instant::now();
                        ix.search(q, p, None).unwrap();
                        (t.elapsed().as_secs_f64() * 1e3 - t0.elapsed().as_secs_f64() * 1e3, t0.elapsed().as_secs_f64() * 1e3)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let both = ms(t);
        println!(
            "round {round} ef {ef}: whole on 0 {whole0:.2} ms, on 1 {whole1:.2}; half on 0 {half0:.2}, on 1 {half1:.2}; \
             halves at once {both:.2} (each: started at +{:.2}/+{:.2}, took {:.2}/{:.2})",
            each[0].0, each[1].0, each[0].1, each[1].1
        );
    }
}
