//! The GPU engine's epoch time on a Netflix-shaped set (ignored: run by hand on a GPU):
//! `generate` at Netflix's shape (480,189 users × 17,770 items) with SUBGRAPH_MF_SPEED_RATINGS
//! ratings (default 25·10^6, seed 0), rank 128, λ 0.05, γ 0.08 with decay 0.3 (CuMF_SGD's
//! schedule), then, for each run of SUBGRAPH_MF_SPEED_RUNS ("float|half WORKERS EPOCHS"
//! separated by ';', default "float 0 20; half 0 20"; 0 workers: full occupancy), the GPU-only epoch of `gpu::only` (the
//! ratings shuffled once, every one updated each epoch, then the training loss read) timed as
//! `train::run` times it; prints each run's epochs, the median epoch after the first, and the
//! test RMSE after the last.
//!
//!     cargo test --release -p subgraph-mf --test gpu_speed -- --ignored --nocapture

use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use subgraph_cuda::Gpu;
use subgraph_mf::gpu::{GpuOptions, GpuSgd};
use subgraph_mf::{generate, Dataset, GenSpec, Model, Params, Step};

#[test]
#[ignore]
fn netflix_shaped_epochs() {
    let gpu = Gpu::new().expect("a GPU");
    let info = gpu.info();
    eprintln!("device: {} ({}, {} SMs)", info.name, gpu.arch(), info.multiprocessors);
    let ratings = std::env::var("SUBGRAPH_MF_SPEED_RATINGS").ok().and_then(|r| r.parse().ok()).unwrap_or(25_000_000);
    let spec = GenSpec { ratings, seed: 0, ..GenSpec::netflix() };
    let t = Instant::now();
    let (train, test) = generate(&spec).unwrap();
    let data = Dataset::compact(&train).unwrap();
    let test = data.map(&test).unwrap();
    drop(train);
    let r = &data.ratings;
    let base = Params {
        rank: 128,
        epochs: 20,
        lambda_p: 0.05,
        lambda_q: 0.05,
        lr: 0.08,
        decay: 0.3,
        seed: 1,
        adaptive: false,
    };
    let start = Model::start(r, &base);
    let mut shuffled = r.entries.clone();
    shuffled.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(base.seed ^ 0x2545_f491_4f6c_dd1d));
    eprintln!(
        "{} users × {} items, {} ratings (test {}), made in {:.1} s",
        r.users,
        r.items,
        r.len(),
        test.len(),
        t.elapsed().as_secs_f64()
    );
    let runs = std::env::var("SUBGRAPH_MF_SPEED_RUNS").unwrap_or_else(|_| "float 0 20; half 0 20".into());
    let mut table = Vec::new();
    for run in runs.split(';').map(str::trim).filter(|r| !r.is_empty()) {
        let words: Vec<&str> = run.split_whitespace().collect();
        let half = words[0] == "half";
        let workers: u32 = words[1].parse().unwrap();
        let epochs: usize = words[2].parse().unwrap();
        let t = Instant::now();
        let mut sgd = match GpuSgd::new(&gpu, r.users, r.items, 128, GpuOptions { workers, half }) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{run}: {e}");
                continue;
            }
        };
        sgd.put_p(0..r.users, &start.p).unwrap();
        sgd.put_q(0..r.items, &start.q).unwrap();
        let device = sgd.load_ratings(&shuffled).unwrap();
        sgd.synchronize().unwrap();
        let setup = t.elapsed().as_secs_f64();
        let params = Params { epochs, ..base.clone() };
        let mut ms = Vec::new();
        let mut train_rmse = 0.0;
        for e in 0..epochs {
            let t = Instant::now();
            sgd.run(&device, 0..device.len(), Step::of(&params, e)).unwrap();
            let loss = sgd.take_loss().unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            train_rmse = (loss / device.len() as f64).sqrt();
        }
        let mut model = start.clone();
        sgd.get_p(0..r.users, &mut model.p).unwrap();
        sgd.get_q(0..r.items, &mut model.q).unwrap();
        let rmse = model.rmse_mapped(&test);
        let mut sorted = ms[1.min(ms.len() - 1)..].to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let epochs_text: Vec<String> = ms.iter().map(|m| format!("{m:.2}")).collect();
        eprintln!(
            "{run}: {} workers, setup {setup:.1} s; epochs ms [{}]; median {median:.2} ms ({:.2} G updates/s); \
             train RMSE {train_rmse:.4}, test RMSE {rmse:.4}",
            sgd.workers(),
            epochs_text.join(" "),
            device.len() as f64 / median / 1e6
        );
        table.push(format!(
            "{:<16} {:>6} {:>8.2} {:>6.2} {:>7.4} {:>7.4}",
            run,
            sgd.workers(),
            median,
            device.len() as f64 / median / 1e6,
            train_rmse,
            rmse
        ));
    }
    println!("{:<16} {:>6} {:>8} {:>6} {:>7} {:>7}", "run", "wkrs", "ms/ep", "G/s", "train", "test");
    for line in table {
        println!("{line}");
    }
}
