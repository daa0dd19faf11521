//! How far the cost model's CPU line (thesis §3.2: a line fitted to FPSGD epochs on cumulative
//! prefixes of the shuffled ratings) predicts a whole epoch, by the largest prefix it is fitted
//! to: on a generated Netflix-shaped set of N ratings (`cargo run --release --example
//! cpu_prefix_fit -- N [THREADS]`), the best of three epochs on the whole set against the
//! least-squares line through the four largest doubling prefixes up to 2^22 and up to 2^24,
//! the prefixes taken at random (as the profile takes them) and by whole users (as the split
//! gives a device its rows).

use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use subgraph_mf::cpu::Fpsgd;
use subgraph_mf::gen::{self, GenSpec};
use subgraph_mf::{Dataset, Params, Rating, Ratings, Step};

/// The best of three epochs' seconds (after one untimed).
fn epoch(ratings: &Ratings, params: &Params, threads: usize) -> f64 {
    let mut run = Fpsgd::new(ratings, params, threads, None);
    let step = Step::of(params, 0);
    run.run_epoch(step);
    (0..3)
        .map(|_| {
            let t = Instant::now();
            run.run_epoch(step);
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).expect("usage: cpu_prefix_fit N [THREADS]");
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or_else(rayon::current_num_threads);
    let spec =
        GenSpec { users: 480_189, items: 17_770, ratings: n, rank: 32, noise: 0.5, test_fraction: 0.01, seed: 0 };
    let (train, _) = gen::generate(&spec).expect("generated");
    let r = Dataset::compact(&train).expect("compacted").ratings;
    let params = Params { rank: 128, ..Params::default() };
    let whole = epoch(&r, &params, threads);
    println!("{} ratings, rank 128, {threads} threads: an epoch takes {whole:.3} s", r.len());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut random = r.entries.clone();
    random.shuffle(&mut rng);
    let mut users: Vec<u32> = (0..r.users as u32).collect();
    users.shuffle(&mut rng);
    let mut place = vec![0u32; r.users];
    users.iter().enumerate().for_each(|(i, &u)| place[u as usize] = i as u32);
    let mut by_user = r.entries.clone();
    by_user.sort_by_key(|e| place[e.u as usize]);
    for (name, order) in [("random", &random), ("by user", &by_user)] {
        for largest in [22u32, 24] {
            let points: Vec<(f64, f64)> = (largest - 3..=largest)
                .map(|b| (1usize << b).min(order.len()))
                .map(|x| {
                    let prefix: Vec<Rating> = order[..x].to_vec();
                    (x as f64, epoch(&Ratings::new(r.users, r.items, prefix).expect("prefix"), &params, threads))
                })
                .collect();
            let k = points.len() as f64;
            let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / k, points.iter().map(|p| p.1).sum::<f64>() / k);
            let a = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
                / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
            let predicted = a * r.len() as f64 + my - a * mx;
            let ms: Vec<String> = points.iter().map(|p| format!("{:.0}", p.1 * 1e3)).collect();
            println!(
                "{name:8} prefixes 2^{}..2^{largest}: {} ms; the line predicts {predicted:.3} s ({:.2}x the epoch)",
                largest - 3,
                ms.join(", "),
                predicted / whole
            );
        }
    }
}
