use std::path::Path;
use subgraph_core::io::{read_graph, ReadOptions};
use subgraph_core::pipeline::MatchOptions;
use subgraph_core::planner::compare;
use subgraph_core::sink::Control;
use subgraph_core::Query;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ro = ReadOptions::default();
    let data = read_graph(Path::new(&args[1]), &ro).unwrap().graph;
    let particles: usize = std::env::var("P").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    let opts = MatchOptions::default();
    let control = Control::unlimited();
    for q in &args[2..] {
        let g = read_graph(Path::new(q), &ro).unwrap().graph;
        let query = Query::new(g, &data, opts.semantics).unwrap();
        let mut po = opts.plan(true);
        po.limit = Some(100000);
        po.tail = subgraph_core::plan::Tail::Off;
        let cands = subgraph_core::filter::Filter::Gql.run(&data, &query, opts.semantics, &control);
        let t = std::time::Instant::now();
        let (_, considered) = compare(&data, &query, po, cands, 0.0, particles, &control);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let mut s = format!("{{\"query\":\"{q}\",\"ms\":{ms}");
        for c in &considered {
            let mult = 1u128; // price with the plan's multiplier below
            let _ = mult;
            s += &format!(",\"{}\":[{},{},{}]", c.order, c.estimate.cost, c.estimate.matches, po.price(&c.estimate, 1));
        }
        println!("{s}}}");
    }
}
