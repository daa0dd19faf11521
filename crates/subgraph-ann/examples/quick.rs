use std::time::Instant;
use subgraph_ann::brute::brute_force;
use subgraph_ann::cpu::{build, search, BuildParams};
use subgraph_ann::{recall, GraphKind, Metric, SearchParams, Vectors, Prune};
fn uniform(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed | 1;
    move || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5 }
}
fn points(n: usize, dim: usize, clusters: usize, intr: usize, seed: u64) -> Vectors {
    let mut fixed = uniform(12345);
    let centres: Vec<f32> = (0..clusters * dim).map(|_| fixed() * 3.0).collect();
    let axes: Vec<f32> = (0..clusters * intr * dim).map(|_| fixed()).collect();
    let mut next = uniform(seed);
    let mut data = Vec::with_capacity(n * dim);
    for i in 0..n {
        let c = (i * 7919) % clusters;
        let z: Vec<f32> = (0..intr).map(|a| next() * 4.0 / (1.0 + a as f32 * 0.3)).collect();
        data.extend((0..dim).map(|j| { let along: f32 = (0..intr).map(|a| z[a] * axes[(c * intr + a) * dim + j]).sum(); centres[c * dim + j] + along + next() * 0.2 }));
    }
    Vectors::new(dim, data).unwrap()
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let dim: usize = args[2].parse().unwrap();
    let intr: usize = args[3].parse().unwrap();
    let prune: Prune = args[4].parse().unwrap();
    let base = points(n, dim, 100, intr, 3);
    let queries = points(1000, dim, 100, intr, 11);
    let t = Instant::now();
    let exact = brute_force(&base, Metric::L2, &queries, 10, None);
    println!("brute {:?}", t.elapsed());
    if std::env::var("DUMP").is_ok() {
        let w = |name: &str, v: &[u8]| std::fs::write(name, v).unwrap();
        w("/tmp/base.f32", bytemuck::cast_slice(base.as_slice()));
        w("/tmp/q.f32", bytemuck::cast_slice(queries.as_slice()));
        w("/tmp/gt.u32", bytemuck::cast_slice(&exact.ids));
    }
    let mut p = BuildParams::new(GraphKind::Nsw, 32).unwrap();
    p.prune = prune;
    if let Some(e) = args.get(5) { p.ef_construction = e.parse().unwrap(); }
    let t = Instant::now();
    let built = build(&base, Metric::L2, &p).unwrap();
    println!("build {:?}", t.elapsed());
    for ef in [10, 16, 32, 64, 128, 256] {
        let t = Instant::now();
        let mut found = search(&built.vectors, Metric::L2, &built.graph, &queries, SearchParams::new(10, Some(ef)).unwrap(), None).unwrap();
        let el = t.elapsed();
        found.map_ids(&built.order);
        println!("ef {ef} recall {:.4} qps {:.0}", recall(&found, &exact.ids, 10, 10).unwrap(), 1000.0 / el.as_secs_f64());
    }
}
