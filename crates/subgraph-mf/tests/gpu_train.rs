//! Training through `engine::train` with a GPU (thesis §3.2; issue 41's "every engine reaches
//! the planted model's RMSE within 1%"), on one generated set with a planted rank-4 model
//! (10,000 users × 20,000 items, 2·10^7 ratings, noise 0.5; 10% held out for test) and a
//! rank-16 model:
//! - the GPU alone (CuMF_SGD's batch-Hogwild!) ends within 1% of the planted test RMSE with
//!   [`WORKERS`] parallel workers (`SUBGRAPH_MF_WORKERS` overrides them); 1792 workers
//!   (CuMF_SGD's for Netflix) and a full device are measured and printed, not checked;
//! - HSGD* (the GPUs' share 0.5, stealing on and off) and HSGD end within 1% too; the CPU's
//!   share of each epoch's updates lies strictly between 0 and 1, and for HSGD* without stealing
//!   is the CPU rows' share of the ratings, 1 − 0.5 (within 0.05);
//! - halves (the split following the measured speeds) ends within 1% with a GPU slowed to 32
//!   workers, where the CPU ends with most of the ratings, and with [`WORKERS`]; its split 0.5
//!   holds the CPU's share at 0.5 (within 0.05) in the HSGD* test;
//! - half-precision factors end within 2% of float's test RMSE;
//! - `auto` picks a device by the cost model, fits it once into the file `Options::cost_model`
//!   names, reuses it on a second run (the file unchanged, the same predictions) and fits it
//!   again with `refit`;
//! - more GPUs than the driver reports is one clear error;
//! - on a host with two GPUs or more, `gpus: Some(2)` ends within 1% too: the GPUs alone (the
//!   rotation, also what a hybrid whose split gives the GPUs every rating runs) and HSGD\*
//!   beside the CPU (skipped on one GPU, unless SUBGRAPH_REQUIRE_GPUS=2).
//!
//! Tests run one at a time (a lock), so that the timings they print are the device's alone.
//! Each skips when no GPU is usable, unless SUBGRAPH_REQUIRE_GPU=1. Run with `--nocapture` to
//! see the timings and RMSEs.

use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use subgraph_cuda::Gpu;
use subgraph_mf::engine::{self, Device, Options, Plan};
use subgraph_mf::gen::{self, GenSpec};
use subgraph_mf::{Dataset, Mapped, Model, Params, Rating, Ratings, Schedule, Trained};

/// The GPUs the driver reports, or None (skipped) when none opens.
fn gpus() -> Option<usize> {
    static GPUS: OnceLock<Option<usize>> = OnceLock::new();
    *GPUS.get_or_init(|| match Gpu::new().and_then(|gpu| Ok((gpu, Gpu::count()?))) {
        Ok((gpu, count)) => {
            let info = gpu.info();
            eprintln!(
                "device: {} ({}, {} MiB, {} SMs), {count} GPU(s); {} CPU threads",
                info.name,
                gpu.arch(),
                info.total_memory >> 20,
                info.multiprocessors,
                rayon::current_num_threads()
            );
            Some(count)
        }
        Err(e) => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("skipped: {e}");
            None
        }
    })
}

/// One test at a time.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The GPU's parallel workers in the checked runs: few enough that Hogwild!'s races on shared
/// rows stay rare over 20,000 items (and over the ~1,000 items of a hybrid job's column), many
/// enough for a quick epoch.
const WORKERS: u32 = 256;

fn workers() -> u32 {
    std::env::var("SUBGRAPH_MF_WORKERS").ok().and_then(|s| s.parse().ok()).unwrap_or(WORKERS)
}

/// The generated set: compacted, the test set mapped, the planted model's test RMSE.
struct Data {
    data: Dataset,
    test: Mapped,
    planted: f64,
}

/// A fitted model pays for its factors about noise·√(1 + k·(1/d_u + 1/d_v)) (`gen`'s module
/// doc), with d_u ≈ 1800 and d_v ≈ 900 ratings a user and an item in train: FPSGD on 2 CPU
/// threads ends 0.49% above the planted RMSE with [`PARAMS`] (10^4 × 10^4 with 10^7 ratings:
/// 0.66%; 2·10^4 × 5·10^3 with 10^7: 1.0%).
fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let spec = GenSpec {
            users: 10_000,
            items: 20_000,
            ratings: 20_000_000,
            rank: 4,
            noise: 0.5,
            test_fraction: 0.1,
            seed: 1,
        };
        let t = Instant::now();
        let (train, test) = gen::generate(&spec).unwrap();
        let planted = gen::planted_rmse(&spec, &test).unwrap();
        let data = Dataset::compact(&train).unwrap();
        let test = data.map(&test).unwrap();
        eprintln!(
            "{} train and {} test ratings of {spec:?} in {:.2} s: planted test RMSE {planted:.4}",
            data.ratings.len(),
            test.len(),
            t.elapsed().as_secs_f64()
        );
        Data { data, test, planted }
    })
}

/// Rank 16 on the rank-4 planted model; γ falls as γ / (1 + t^1.5) (CuMF_SGD's schedule).
const PARAMS: Params =
    Params { rank: 16, epochs: 20, lambda_p: 0.01, lambda_q: 0.01, lr: 0.02, decay: 1.0, seed: 1, adaptive: false };

/// A training run of `options` on [`data`], printed as `label`: the run and its final test RMSE.
fn run(label: &str, params: &Params, options: &Options) -> (Trained, Plan, f64) {
    let d = data();
    let t = Instant::now();
    let mut line = Vec::new();
    let (trained, plan) = engine::train(&d.data.ratings, Some(&d.test), params, options, None, &mut |s| {
        line.push(format!("{:.4}", s.test_rmse.unwrap()));
        true
    })
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    let wall = t.elapsed().as_secs_f64();
    let last = trained.history.last().unwrap();
    let rmse = last.test_rmse.unwrap();
    let shares: Vec<String> = trained.history.iter().map(|s| format!("{:.3}", s.cpu_share)).collect();
    eprintln!(
        "{label}: {:?} on {} GPU(s) and {} thread(s), split {:?}, set-up {:.0} ms; {} epochs in {:.0} ms \
         ({:.1} ms an epoch, {:.0} M updates/s; {wall:.2} s with set-up and evaluation); final test RMSE {rmse:.4} \
         = {:.4} × planted; test RMSE by epoch {}; CPU share by epoch {}",
        plan.device,
        plan.gpus,
        plan.threads,
        plan.split,
        plan.setup_ms,
        trained.history.len(),
        last.elapsed_ms,
        last.elapsed_ms / trained.history.len() as f64,
        (d.data.ratings.len() * trained.history.len()) as f64 / last.elapsed_ms / 1e3,
        rmse / d.planted,
        line.join(" "),
        shares.join(" ")
    );
    (trained, plan, rmse)
}

/// Equal up to the order of a parallel sum.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// Whether `rmse` is within 1% of the planted RMSE; else why not.
fn within_one_percent(label: &str, rmse: f64) -> Result<(), String> {
    let planted = data().planted;
    match rmse <= 1.01 * planted {
        true => Ok(()),
        false => {
            Err(format!("{label}: test RMSE {rmse:.5} against the planted {planted:.5} (× {:.4})", rmse / planted))
        }
    }
}

/// Fails with every message of `failures` (after every run has printed its measurements).
fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_gpu_alone_reaches_the_planted_rmse_within_one_percent() {
    if gpus().is_none() {
        return;
    }
    let _one = one_at_a_time();
    let checked = workers();
    let mut failures = Vec::new();
    for w in [checked, 1792, 0] {
        let options = Options { device: Device::Gpu, gpus: Some(1), workers: Some(w), ..Options::default() };
        let label = format!("GPU only, {} workers", if w == 0 { "all".to_string() } else { w.to_string() });
        let (trained, plan, rmse) = run(&label, &PARAMS, &options);
        assert_eq!((plan.device, plan.gpus, plan.threads, plan.schedule), (Device::Gpu, 1, 0, None));
        assert!(trained.history.iter().all(|s| s.cpu_share == 0.0));
        assert!(close(trained.model.rmse_mapped(&data().test), rmse), "the model last evaluated");
        if w == checked {
            failures.extend(within_one_percent(&label, rmse).err());
        }
    }
    report(failures);
}

#[test]
fn hsgd_star_and_hsgd_reach_the_planted_rmse_within_one_percent() {
    if gpus().is_none() {
        return;
    }
    let _one = one_at_a_time();
    let runs = [
        ("HSGD*, split 0.5, stealing", Schedule::HsgdStar, true),
        ("HSGD*, split 0.5, no stealing", Schedule::HsgdStar, false),
        ("HSGD", Schedule::Hsgd, true),
        ("halves, split 0.5", Schedule::Halves, false),
    ];
    let mut failures = Vec::new();
    for (label, schedule, stealing) in runs {
        let options = Options {
            device: Device::Hybrid,
            schedule,
            gpus: Some(1),
            workers: Some(workers()),
            split: Some(0.5),
            stealing,
            ..Options::default()
        };
        let (trained, plan, rmse) = run(label, &PARAMS, &options);
        assert_eq!((plan.device, plan.gpus, plan.schedule, plan.split), (Device::Hybrid, 1, Some(schedule), Some(0.5)));
        assert_eq!(plan.threads, rayon::current_num_threads());
        for s in &trained.history {
            if !(s.cpu_share > 0.0 && s.cpu_share < 1.0) {
                failures.push(format!("{label}, epoch {}: CPU share {}", s.epoch, s.cpu_share));
            }
            if schedule != Schedule::Hsgd && !stealing && (s.cpu_share - 0.5).abs() > 0.05 {
                failures.push(format!("{label}, epoch {}: CPU share {}, not 1 − 0.5 ± 0.05", s.epoch, s.cpu_share));
            }
        }
        assert!(close(trained.model.rmse_mapped(&data().test), rmse), "{label}: the model last evaluated");
        failures.extend(within_one_percent(label, rmse).err());
    }
    report(failures);
}

#[test]
fn halves_follow_the_measured_speeds_and_reach_the_planted_rmse() {
    if gpus().is_none() {
        return;
    }
    let _one = one_at_a_time();
    let mut failures = Vec::new();
    // A GPU slowed to 32 workers (slower than the CPU's threads: the CPU must end with most of
    // the ratings), the checked workers and a full device (printed, not checked, as for the GPU
    // alone: Hogwild!'s races on this set's 10,000 users cost it 1.1% there); the split from
    // the cost model at first, then from the speeds measured.
    for w in [32, workers(), 0] {
        let label = format!("halves, {} workers", if w == 0 { "all".to_string() } else { w.to_string() });
        let options = Options {
            device: Device::Hybrid,
            schedule: Schedule::Halves,
            gpus: Some(1),
            workers: Some(w),
            ..Options::default()
        };
        let d = data();
        let mut line = Vec::new();
        let t = Instant::now();
        let (trained, plan) = engine::train(&d.data.ratings, Some(&d.test), &PARAMS, &options, None, &mut |s| {
            line.push(format!("{:.0}/{:.3}", s.elapsed_ms, s.cpu_share));
            true
        })
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        let rmse = trained.history.last().unwrap().test_rmse.unwrap();
        eprintln!(
            "{label}: {:?}, {:.2} s; elapsed ms / CPU share by epoch: {}",
            plan.split,
            t.elapsed().as_secs_f64(),
            line.join(" ")
        );
        assert_eq!(plan.schedule, Some(Schedule::Halves));
        assert!(trained.history.iter().all(|s| (0.0..=1.0).contains(&s.cpu_share)));
        eprintln!("{label}: final test RMSE {rmse:.5} = {:.4} × planted", rmse / d.planted);
        let last = trained.history.last().unwrap().cpu_share;
        if w == 32 && last <= 0.5 {
            failures.push(format!("{label}: the CPU ends with a share of {last}, the slower GPU with the rest"));
        }
        if w != 0 {
            failures.extend(within_one_percent(&label, rmse).err());
        }
    }
    report(failures);
}

#[test]
fn half_precision_ends_within_two_percent_of_float() {
    if gpus().is_none() {
        return;
    }
    let _one = one_at_a_time();
    let mut finals = Vec::new();
    for half in [false, true] {
        let options =
            Options { device: Device::Gpu, gpus: Some(1), workers: Some(workers()), half, ..Options::default() };
        let label = if half { "GPU only, half" } else { "GPU only, float" };
        finals.push(run(label, &PARAMS, &options).2);
    }
    let (float, half) = (finals[0], finals[1]);
    eprintln!("half against float: {:.4}", half / float);
    assert!((half - float).abs() <= 0.02 * float, "half {half} against float {float}");
}

#[test]
fn two_gpus_reach_the_planted_rmse_within_one_percent() {
    let Some(count) = gpus() else { return };
    if count < 2 {
        if std::env::var("SUBGRAPH_REQUIRE_GPUS").as_deref() == Ok("2") {
            panic!("SUBGRAPH_REQUIRE_GPUS=2 but the driver reports {count} GPU");
        }
        eprintln!("skipped: {count} GPU");
        return;
    }
    let _one = one_at_a_time();
    let mut failures = Vec::new();
    for (label, device, ran, schedule, split, cpu_share) in [
        ("two GPUs alone (the rotation)", Device::Gpu, Device::Gpu, None, None, 0.0),
        ("HSGD* on two GPUs, split 0.5", Device::Hybrid, Device::Hybrid, Some(Schedule::HsgdStar), Some(0.5), 0.5),
        ("hybrid on two GPUs, split 1: the rotation", Device::Hybrid, Device::Gpu, None, Some(1.0), 0.0),
    ] {
        let options = Options {
            device,
            schedule: schedule.unwrap_or(Schedule::Auto),
            gpus: Some(2),
            workers: Some(workers()),
            split,
            stealing: false,
            ..Options::default()
        };
        let (trained, plan, rmse) = run(label, &PARAMS, &options);
        assert_eq!((plan.device, plan.gpus, plan.schedule), (ran, 2, schedule), "{label}");
        for s in &trained.history {
            if (s.cpu_share - cpu_share).abs() > 0.05 {
                failures.push(format!("{label}, epoch {}: CPU share {}, not {cpu_share} ± 0.05", s.epoch, s.cpu_share));
            }
        }
        failures.extend(within_one_percent(label, rmse).err());
    }
    report(failures);
}

/// The file's text and time of change.
fn stamp(path: &std::path::Path) -> (String, std::time::SystemTime) {
    (std::fs::read_to_string(path).unwrap(), std::fs::metadata(path).unwrap().modified().unwrap())
}

#[test]
fn auto_fits_the_cost_model_once_and_reuses_it() {
    if gpus().is_none() {
        return;
    }
    let _one = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let cost = dir.path().join("mf-cost.json");
    let params = Params { epochs: 2, ..PARAMS };
    let options = Options { cost_model: Some(cost.clone()), workers: Some(workers()), ..Options::default() };
    assert_eq!(options.device, Device::Auto);
    let start = Model::start(&data().data.ratings, &params).rmse_mapped(&data().test);
    let (_, first, rmse) = run("auto, fitting the cost model", &params, &options);
    assert!(cost.exists(), "the profile is saved in {}", cost.display());
    assert!(matches!(first.device, Device::Cpu | Device::Gpu | Device::Hybrid), "{first:?}");
    let [c, g, b] = first.predicted_ms.expect("auto predicts the epoch times");
    eprintln!("predicted epoch times: CPU {c:.1} ms, GPU {g:.1} ms, both {b:.1} ms; chose {}", first.device);
    assert!([c, g, b].iter().all(|t| t.is_finite() && *t >= 0.0), "{:?}", first.predicted_ms);
    assert!(first.split.is_some_and(|s| (0.0..=1.0).contains(&s)), "{first:?}");
    match first.device {
        Device::Hybrid => assert_eq!((first.gpus, first.schedule), (1, Some(Schedule::Halves))),
        Device::Gpu => assert_eq!((first.gpus, first.threads), (1, 0)),
        _ => assert_eq!(first.gpus, 0),
    }
    assert!(rmse < 0.9 * start, "{start} → {rmse}");
    // Again: the saved profile, untouched, and the same predictions.
    let before = stamp(&cost);
    let (_, second, _) = run("auto, the saved cost model", &params, &options);
    assert_eq!(stamp(&cost), before, "the profile was rewritten without refit");
    // The same profile (through JSON: equal up to the parsing of its numbers) predicts the same.
    let (again, fitted) = (second.predicted_ms.unwrap(), first.predicted_ms.unwrap());
    assert!((0..3).all(|i| (again[i] - fitted[i]).abs() <= 1e-9 * fitted[i].abs()), "{again:?} against {fitted:?}");
    assert!((second.split.unwrap() - first.split.unwrap()).abs() <= 1e-9, "{second:?} against {first:?}");
    assert_eq!(second.device, first.device);
    eprintln!("set-up: {:.0} ms fitting, {:.0} ms reusing", first.setup_ms, second.setup_ms);
    // Refit: measured and saved again.
    let refit = Options { refit: true, ..options };
    let (_, third, _) = run("auto, refit", &params, &refit);
    let after = stamp(&cost);
    assert!(after.0 != before.0 || after.1 > before.1, "refit left the profile as it was");
    eprintln!("refit predicted {:?} (first {:?})", third.predicted_ms, first.predicted_ms);
}

#[test]
fn more_gpus_than_the_driver_reports_is_one_clear_error() {
    let Some(count) = gpus() else { return };
    let _one = one_at_a_time();
    let ratings = Ratings::new(2, 2, vec![Rating { u: 0, v: 1, r: 3.0 }, Rating { u: 1, v: 0, r: 4.0 }]).unwrap();
    let params = Params { epochs: 1, ..PARAMS };
    for device in [Device::Gpu, Device::Hybrid] {
        let options = Options { device, gpus: Some(count + 1), ..Options::default() };
        let e = engine::train(&ratings, None, &params, &options, None, &mut |_| true).unwrap_err();
        eprintln!("{device}, {} GPUs: {e}", count + 1);
        assert_eq!(e.to_string(), format!("{} GPUs asked for, the driver reports {count}", count + 1));
    }
}
