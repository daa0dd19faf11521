//! The device a training run uses and the engine it builds (thesis §3.2's comparison as a
//! flag): the CPU alone (FPSGD), the GPU alone (CuMF_SGD; on several, the rotation), or both
//! (HSGD* or HSGD), chosen by `auto` from the cost model: hybrid where a GPU is present and
//! the model predicts a gain, the GPU alone where it does not, the CPU where there is no GPU.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use subgraph_cuda::Gpu;

use crate::cpu::Fpsgd;
use crate::error::{MfError, Result};
use crate::gpu::{GpuOnly, GpuOptions, GpuSgd};
use crate::hybrid::board::Rates;
use crate::hybrid::division::Schedule;
use crate::hybrid::halves::Halves;
use crate::hybrid::profile::{self, Profile, Setting};
use crate::hybrid::rotation::Rotation;
use crate::hybrid::run::Hybrid;
use crate::model::Params;
use crate::ratings::{Mapped, Ratings};
use crate::train::{self, Engine, EpochStats, Trained};

/// Where training runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    #[default]
    Auto,
    Cpu,
    Gpu,
    Hybrid,
}

impl FromStr for Device {
    type Err = MfError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "gpu" => Ok(Device::Gpu),
            "hybrid" => Ok(Device::Hybrid),
            _ => Err(MfError::Parameter(format!("device {s:?}: expected auto, cpu, gpu or hybrid"))),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Device::Auto => "auto",
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
            Device::Hybrid => "hybrid",
        })
    }
}

impl FromStr for Schedule {
    type Err = MfError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "hsgd-star" | "hsgd*" => Ok(Schedule::HsgdStar),
            "hsgd" => Ok(Schedule::Hsgd),
            "halves" => Ok(Schedule::Halves),
            "auto" => Ok(Schedule::Auto),
            _ => Err(MfError::Parameter(format!("schedule {s:?}: expected auto, halves, hsgd-star or hsgd"))),
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Schedule::HsgdStar => "hsgd-star",
            Schedule::Hsgd => "hsgd",
            Schedule::Halves => "halves",
            Schedule::Auto => "auto",
        })
    }
}

/// How to train, beyond the model's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub device: Device,
    pub schedule: Schedule,
    /// CPU threads (all cores when None).
    pub threads: Option<usize>,
    /// GPUs (1 when None; all there are with `Some(0)`).
    pub gpus: Option<usize>,
    /// The GPU's parallel workers (as many as it holds at once when None).
    pub workers: Option<u32>,
    pub half: bool,
    /// FPSGD's blocks per side (LIBMF's default when None).
    pub bins: Option<usize>,
    /// The GPUs' share of the ratings in a hybrid run (the cost model's when None).
    pub split: Option<f64>,
    /// HSGD*'s dynamic phase (work stealing at the end of an epoch); off by default, as every
    /// hybrid run measured on the H200 was fastest without it.
    pub stealing: bool,
    /// Where cost profiles are saved ([`profile::default_path`] when None).
    pub cost_model: Option<PathBuf>,
    /// Fit the cost model again even if one is saved.
    pub refit: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            device: Device::Auto,
            schedule: Schedule::Auto,
            threads: None,
            gpus: None,
            workers: None,
            half: false,
            bins: None,
            split: None,
            stealing: false,
            cost_model: None,
            refit: false,
        }
    }
}

/// What a run chose, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub device: Device,
    pub schedule: Option<Schedule>,
    pub threads: usize,
    pub gpus: usize,
    /// The GPUs' share (hybrid runs).
    pub split: Option<f64>,
    /// The cost model's predicted epoch times (CPU alone, GPU alone, both), in ms.
    pub predicted_ms: Option<[f64; 3]>,
    /// Set-up time (devices, grids, uploads, profiling), in ms.
    pub setup_ms: f64,
}

/// Trains on `ratings` as `options` say, evaluating `test` after each epoch.
pub fn train(
    ratings: &Ratings,
    test: Option<&Mapped>,
    params: &Params,
    options: &Options,
    target_rmse: Option<f64>,
    on_epoch: &mut dyn FnMut(&EpochStats) -> bool,
) -> Result<(Trained, Plan)> {
    params.check()?;
    if ratings.is_empty() {
        return Err(MfError::Ratings("no ratings to train on".into()));
    }
    if let Some(s) = options.split {
        if !(0.0..=1.0).contains(&s) {
            return Err(MfError::Parameter(format!("split {s}: the GPUs' share must be 0 to 1")));
        }
    }
    // The adaptive rule has no GPU kernel: auto takes the CPU, and a GPU asked for is refused.
    let options = &match (params.adaptive, options.device) {
        (true, Device::Gpu | Device::Hybrid) => return Err(MfError::Parameter(
            "the adaptive learning rate runs on the CPU engine only: use --device cpu, or a fixed rate with --decay"
                .into(),
        )),
        (true, Device::Auto) => Options { device: Device::Cpu, ..options.clone() },
        _ => options.clone(),
    };
    let started = std::time::Instant::now();
    let threads = options.threads.unwrap_or_else(rayon::current_num_threads).max(1);
    let gpus = open_gpus(options)?;
    let mut plan =
        Plan { device: Device::Cpu, schedule: None, threads, gpus: 0, split: None, predicted_ms: None, setup_ms: 0.0 };
    let gpu_options = GpuOptions { workers: options.workers.unwrap_or(0), half: options.half };
    let engines = |n: usize| -> Result<Vec<GpuSgd<'_>>> {
        gpus[..n].iter().map(|g| GpuSgd::new(g, ratings.users, ratings.items, params.rank, gpu_options)).collect()
    };
    let mut rates = None;
    let device = match options.device {
        Device::Auto if gpus.is_empty() => Device::Cpu,
        Device::Auto => {
            let chosen = choose(ratings, params, options, threads, &gpus)?;
            plan.split = Some(chosen.split);
            plan.predicted_ms = Some(chosen.predicted_ms);
            rates = Some(chosen.rates);
            chosen.device
        }
        Device::Gpu | Device::Hybrid if gpus.is_empty() => unreachable!("open_gpus refuses"),
        d => d,
    };
    plan.device = device;
    let mut engine: Box<dyn Engine + '_> = match device {
        Device::Cpu => Box::new(Fpsgd::new(ratings, params, threads, options.bins)),
        Device::Gpu if gpus.len() == 1 => {
            plan.gpus = 1;
            let sgd = engines(1)?.pop().expect("one engine");
            Box::new(GpuOnly::new(sgd, ratings, params)?)
        }
        Device::Gpu => {
            plan.gpus = gpus.len();
            Box::new(Rotation::new(engines(gpus.len())?, ratings, params)?)
        }
        Device::Hybrid | Device::Auto => {
            plan.gpus = gpus.len();
            let schedule = match options.schedule {
                Schedule::Auto if gpus.len() == 1 => Schedule::Halves,
                Schedule::Auto => Schedule::HsgdStar,
                s => s,
            };
            plan.schedule = Some(schedule);
            let split = match (options.split, plan.split) {
                (Some(s), _) | (None, Some(s)) => s,
                (None, None) => {
                    let chosen = choose(ratings, params, options, threads, &gpus)?;
                    plan.predicted_ms = Some(chosen.predicted_ms);
                    rates = Some(chosen.rates);
                    chosen.split
                }
            };
            plan.split = Some(split);
            let stealing = options.stealing;
            match schedule {
                Schedule::Halves if stealing => {
                    return Err(MfError::Parameter(
                        "stealing is HSGD*'s: use --schedule hsgd-star with --stealing".into(),
                    ))
                }
                Schedule::Halves if gpus.len() > 1 => {
                    return Err(MfError::Parameter(format!(
                        "schedule halves runs on one GPU, {} asked for: use --schedule hsgd-star",
                        gpus.len()
                    )))
                }
                Schedule::Halves => {
                    let sgd = engines(1)?.pop().expect("one engine");
                    Box::new(Halves::new(ratings, params, split, options.split.is_none(), threads, sgd)?)
                }
                // Several GPUs given every rating: the GPUs alone, by the rotation (HSGD*'s
                // one-column jobs starve them: bench/results/2026-11-29-two-gpus.md).
                _ if options.schedule == Schedule::Auto && gpus.len() > 1 && split >= 1.0 => {
                    (plan.device, plan.schedule) = (Device::Gpu, None);
                    Box::new(Rotation::new(engines(gpus.len())?, ratings, params)?)
                }
                _ => {
                    let engines = engines(gpus.len())?;
                    Box::new(Hybrid::new(ratings, params, schedule, split, stealing, threads, engines, rates)?)
                }
            }
        }
    };
    plan.threads = if plan.device == Device::Gpu { 0 } else { threads };
    plan.setup_ms = started.elapsed().as_secs_f64() * 1e3;
    let trained = train::run(engine.as_mut(), params, test, target_rmse, on_epoch)?;
    Ok((trained, plan))
}

/// The GPUs asked for; an error naming why when a GPU is required and none opens.
fn open_gpus(options: &Options) -> Result<Vec<Gpu>> {
    if options.device == Device::Cpu {
        return Ok(Vec::new());
    }
    let count = match Gpu::count() {
        Ok(n) => n,
        Err(_) if options.device == Device::Auto => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let want = match options.gpus {
        Some(0) => count,
        Some(n) => n,
        None => 1,
    };
    if want > count || want == 0 {
        if options.device == Device::Auto {
            return Ok(Vec::new());
        }
        if count == 0 {
            return Err(MfError::Parameter(format!("device {}: the driver reports no GPU", options.device)));
        }
        return Err(MfError::Parameter(format!("{want} GPUs asked for, the driver reports {count}")));
    }
    match (0..want).map(Gpu::open).collect::<std::result::Result<Vec<_>, _>>() {
        Ok(g) => Ok(g),
        Err(_) if options.device == Device::Auto => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

/// What the cost model says of a run.
struct Choice {
    /// The device `auto` picks.
    device: Device,
    /// The GPUs' share of a hybrid run.
    split: f64,
    /// Predicted epoch times, CPU alone, GPUs alone, both (ms).
    predicted_ms: [f64; 3],
    /// The sides' speeds, for stealing before any is measured.
    rates: Rates,
}

/// The cost model's choice, from the saved cost profile of this setting, measured now and
/// saved if there is none (or `options.refit`).
fn choose(ratings: &Ratings, params: &Params, options: &Options, threads: usize, gpus: &[Gpu]) -> Result<Choice> {
    let mut sgd = GpuSgd::new(
        &gpus[0],
        ratings.users,
        ratings.items,
        params.rank,
        GpuOptions { workers: options.workers.unwrap_or(0), half: options.half },
    )?;
    let setting = Setting {
        gpu: gpus[0].info().name.clone(),
        cpu_threads: threads,
        rank: params.rank,
        half: options.half,
        workers: sgd.workers(),
    };
    let path = options.cost_model.clone().or_else(profile::default_path);
    let saved = match (&path, options.refit) {
        (Some(p), false) => profile::load(p, &setting)?,
        _ => None,
    };
    let profile = match saved {
        Some(p) => p,
        None => {
            let p = Profile::measure(ratings, params, threads, &mut sgd, &setting.gpu)?;
            if let Some(path) = &path {
                profile::save(path, &p)?;
            }
            p
        }
    };
    let model = profile.model();
    let n = ratings.len() as f64;
    let cpu = model.cpu(n);
    let gpu = model.gpu(n / gpus.len() as f64);
    let (split, both) = model.split(n, gpus.len(), threads);
    // Hybrid only where the model predicts a clear gain: it does not see what a hybrid epoch
    // costs beyond the work (HSGD*'s GPU slowed on one column's items, bench/results/
    // 2026-11-29-mf.md; halves' transfers of Q), and its CPU line errs slow (it gave the GPU
    // 0.14–0.18 too much of the ratings, bench/results/2026-11-29-mf-halves.md).
    let device = if both < 0.8 * cpu.min(gpu) {
        Device::Hybrid
    } else if gpu <= cpu {
        Device::Gpu
    } else {
        Device::Cpu
    };
    // Speeds in ratings a second: the slopes of the fitted lines (the GPU's above its knee).
    let per = |slope: f64| if slope > 0.0 { 1.0 / slope } else { f64::INFINITY };
    let rates = Rates {
        cpu_thread: per(model.cpu.a) / threads as f64,
        gpu: vec![per(model.kernel.above.a.max(model.transfer.above.a)); gpus.len()],
    };
    Ok(Choice { device, split, predicted_ms: [cpu * 1e3, gpu * 1e3, both * 1e3], rates })
}
