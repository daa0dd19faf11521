use std::path::Path;
use std::time::Instant;
use subgraph_core::io::{read_graph, ReadOptions};
use subgraph_core::pipeline::MatchOptions;
use subgraph_core::planner::{choose, Device};
use subgraph_core::sink::Control;
use subgraph_core::Query;

fn minflt() -> u64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    rest.split(' ').nth(7).unwrap().parse().unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ro = ReadOptions::default();
    let data = std::sync::Arc::new(read_graph(Path::new(&args[1]), &ro).unwrap().graph);
    let opts = MatchOptions::default();
    let control = Control::unlimited();
    let gopts = subgraph_gpu::GpuOptions::default();
    let mode = std::env::var("GPU").unwrap_or_default();
    let mut engine = (!mode.is_empty()).then(|| subgraph_gpu::GpuEngine::new(data.clone(), &gopts).unwrap());
    for q in &args[2..] {
        let g = read_graph(Path::new(q), &ro).unwrap().graph;
        if mode == "run" {
            let r = engine.as_mut().unwrap().run_query(g.clone(), &opts, &gopts, &control, None).unwrap();
            eprintln!("gpu {} order_ms {:.3}", r.report.embeddings, r.report.order_ms);
        }
        let query = Query::new(g, &data, opts.semantics).unwrap();
        let po = subgraph_core::plan::PlanOptions { device: Device::Gpu, ..opts.plan(true) };
        let cands = po.filter.run(&data, &query, opts.semantics, &control);
        let mut ts = Vec::new();
        let mut order = String::new();
        let mut faults = Vec::new();
        for _ in 0..std::env::var("ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(15usize) {
            let c = cands.clone();
            let f = minflt();
            let t = Instant::now();
            let (plan, _) = choose(&data, &query, po, c, 0.0, &control);
            ts.push(t.elapsed().as_secs_f64() * 1e3);
            faults.push(minflt() - f);
            order = format!("{:?} {:?}", plan.order.name(), plan.vertices);
        }
        let first = ts[0];
        ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("{} cands {} first {:.3} min {:.3} med {:.3} faults {:?} {}", q.rsplit('/').next().unwrap(), cands.iter().map(Vec::len).sum::<usize>(), first, ts[0], ts[ts.len() / 2], &faults[..faults.len().min(3)], order);
    }
}
