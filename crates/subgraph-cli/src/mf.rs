//! `subgraph mf`: matrix factorisation by SGD (thesis ch. 3): `train` a model on ratings (on
//! the CPU, the GPU or both, HSGD*, whose cost model `train` fits on a setting's first run and
//! again with `--refit`), `predict` ratings of user–item pairs, `recommend` a user's top items.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use subgraph::CudaError;
use subgraph_ann::{brute::brute_force, Metric, Vectors};
use subgraph_mf::engine::{self, Device, Options};
use subgraph_mf::file::{self, SavedModel};
use subgraph_mf::formats::{read_ratings, write_libmf, Format};
use subgraph_mf::gen::{self, GenSpec};
use subgraph_mf::hybrid::division::Schedule;
use subgraph_mf::{Dataset, EpochStats, MfError, Params};

#[derive(Args, Debug)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped ratings):\n",
    "  subgraph mf train tests/data/ratings/train.txt --test tests/data/ratings/test.txt --rank 16 --epochs 20 --output small.sgm\n",
    "  subgraph mf predict small.sgm tests/data/ratings/test.txt\n",
    "  subgraph mf recommend small.sgm --user 7 -k 10",
))]
pub struct MfArgs {
    #[command(subcommand)]
    pub what: MfCommand,
}

#[derive(Subcommand, Debug)]
pub enum MfCommand {
    /// Train a model R ≈ P·Qᵀ by SGD, printing each epoch's RMSE and time.
    Train(TrainArgs),
    /// Predict the rating of each user–item pair of a file (a third column, if present, is the
    /// true rating, and the RMSE is reported).
    Predict(PredictArgs),
    /// A user's top items by predicted rating.
    Recommend(RecommendArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Report {
    Table,
    Json,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The training ratings: MovieLens (u.data, ratings.dat, ratings.csv), Netflix-prize style,
    /// LIBMF text (`user item rating`) or Matrix Market; .gz and .zst read as they are.
    pub ratings: PathBuf,
    /// Test ratings, in the same ids: the test RMSE after each epoch. Pairs whose user or item
    /// is not in training are predicted as the training mean (LIBMF's rule) and counted.
    #[arg(long)]
    pub test: Option<PathBuf>,
    /// The input format (default: from the file's name, else its content): movielens, ratings.dat,
    /// ratings.csv, netflix, libmf or mm.
    #[arg(long)]
    pub input_format: Option<Format>,
    /// k, the length of each factor.
    #[arg(long, default_value_t = 128)]
    pub rank: usize,
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// λ of both terms (λ_P = λ_Q).
    #[arg(long, default_value_t = 0.05)]
    pub lambda: f32,
    /// λ_P alone (overrides --lambda).
    #[arg(long)]
    pub lambda_p: Option<f32>,
    /// λ_Q alone (overrides --lambda).
    #[arg(long)]
    pub lambda_q: Option<f32>,
    /// γ, the learning rate.
    #[arg(long, default_value_t = 0.005)]
    pub lr: f32,
    /// β of the schedule γ_t = γ / (1 + β t^1.5); 0 keeps γ.
    #[arg(long, default_value_t = 0.0)]
    pub decay: f32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// LIBMF's adaptive learning rate: each row steps by γ over the root of its accumulated
    /// squared gradient (γ is then a base rate; LIBMF's default is 0.1). CPU engine only.
    #[arg(long)]
    pub adaptive: bool,
    /// auto (both, by --schedule, where a GPU is present and the cost model predicts a gain;
    /// the GPU alone where it does not; the CPU without a GPU), cpu, gpu or hybrid.
    #[arg(long, default_value = "auto")]
    pub device: Device,
    /// The hybrid schedule: auto (halves on one GPU, hsgd-star on several), halves (epochs in
    /// two phases over halves of the items, the split following the measured speeds; one GPU),
    /// hsgd-star (the cost model's split, GPU rows resident, stealing) or hsgd (the GPU as one
    /// more FPSGD worker).
    #[arg(long, default_value = "auto")]
    pub schedule: Schedule,
    /// CPU threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// GPUs (0: all).
    #[arg(long)]
    pub gpus: Option<usize>,
    /// The GPU's parallel workers, warps at work (default: as many as it holds at once).
    #[arg(long)]
    pub workers: Option<u32>,
    /// Factors in half precision on the GPU (CuMF_SGD's option).
    #[arg(long)]
    pub half: bool,
    /// FPSGD's blocks per side (default: LIBMF's, max(20, 2·threads + 1)).
    #[arg(long)]
    pub bins: Option<usize>,
    /// The GPUs' share of the ratings in a hybrid run (default: the cost model's).
    #[arg(long)]
    pub split: Option<f64>,
    /// HSGD*'s dynamic phase: work stealing at the end of each epoch, where a side takes the
    /// other's blocks that it finishes sooner. Off by default: on the H200 every hybrid run
    /// measured was fastest without it (bench/results/2026-11-29-mf.md).
    #[arg(long, conflicts_with = "no_stealing")]
    pub stealing: bool,
    /// No dynamic phase (the default).
    #[arg(long)]
    pub no_stealing: bool,
    /// The file of saved cost profiles (default: SUBGRAPH_MF_COST, else the user's cache).
    #[arg(long)]
    pub cost_model: Option<PathBuf>,
    /// Profile this machine again even if a profile of this setting is saved.
    #[arg(long)]
    pub refit: bool,
    /// Stop when the test RMSE reaches this, and report the time to it.
    #[arg(long)]
    pub target_rmse: Option<f64>,
    /// Write the model (.sgm).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// table (default) or json (one JSON line an epoch, then one for the run).
    #[arg(long, value_enum, default_value = "table")]
    pub format: Report,
}

#[derive(Args, Debug)]
pub struct PredictArgs {
    /// The model (.sgm).
    pub model: PathBuf,
    /// Pairs `user item [rating]`, whitespace- or comma-separated, one a line, in the training
    /// file's ids.
    pub pairs: PathBuf,
    /// Write `user item prediction` lines here instead of standard output (`-`: standard output).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RecommendArgs {
    /// The model (.sgm).
    pub model: PathBuf,
    /// The user, in the training file's ids.
    #[arg(long)]
    pub user: u64,
    #[arg(short, default_value_t = 10)]
    pub k: usize,
    /// Leave out the items this ratings file gives the user (e.g. the training set).
    #[arg(long)]
    pub exclude: Option<PathBuf>,
}

/// Ratings as options ask for: `generate` writes them, `train` reads them.
#[derive(Args, Debug)]
pub struct GenRatingsArgs {
    /// netflix (480,189 × 17,770, 10^8 ratings) or yahoo (10^6 × 6·10^5, 2.5·10^8 ratings);
    /// the sizes below override it.
    #[arg(long)]
    pub preset: Option<String>,
    #[arg(long)]
    pub users: Option<usize>,
    #[arg(long)]
    pub items: Option<usize>,
    /// Ratings in all (train and test).
    #[arg(long)]
    pub ratings: Option<usize>,
    /// The planted model's rank.
    #[arg(long)]
    pub rank: Option<usize>,
    /// σ of the noise: the best test RMSE a model can reach.
    #[arg(long)]
    pub noise: Option<f64>,
    #[arg(long)]
    pub test_fraction: Option<f64>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Folder to write train.txt and test.txt (LIBMF text) into.
    #[arg(long, short)]
    pub output: PathBuf,
}

pub fn run(args: MfArgs) -> Result<()> {
    match args.what {
        MfCommand::Train(a) => train(a),
        MfCommand::Predict(a) => predict(a),
        MfCommand::Recommend(a) => recommend(a),
    }
}

fn train(a: TrainArgs) -> Result<()> {
    let params = Params {
        rank: a.rank,
        epochs: a.epochs,
        lambda_p: a.lambda_p.unwrap_or(a.lambda),
        lambda_q: a.lambda_q.unwrap_or(a.lambda),
        lr: a.lr,
        decay: a.decay,
        seed: a.seed,
        adaptive: a.adaptive,
    };
    params.check()?;
    let t = Instant::now();
    let raw = read_ratings(&a.ratings, a.input_format)?;
    let data = Dataset::compact(&raw).with_context(|| a.ratings.display().to_string())?;
    drop(raw);
    let test = match &a.test {
        Some(p) => Some(data.map(&read_ratings(p, a.input_format)?).with_context(|| p.display().to_string())?),
        None => None,
    };
    let read_ms = t.elapsed().as_secs_f64() * 1e3;
    let r = &data.ratings;
    let options = Options {
        device: a.device,
        schedule: a.schedule,
        threads: a.threads,
        gpus: a.gpus,
        workers: a.workers,
        half: a.half,
        bins: a.bins,
        split: a.split,
        stealing: a.stealing,
        cost_model: a.cost_model.clone(),
        refit: a.refit,
    };
    let json = a.format == Report::Json;
    // The table's head waits for the first epoch, so that a run that cannot start (no GPU, a bad
    // setting) prints its error alone.
    let mut head = (!json).then(|| {
        format!(
            "{}: {} users × {} items, {} ratings{} (read in {:.0} ms)",
            a.ratings.display(),
            r.users,
            r.items,
            r.len(),
            test.as_ref().map_or(String::new(), |t| format!("; test {} ({} unseen)", t.len(), t.unseen.len())),
            read_ms
        )
    });
    let mut print = |s: &EpochStats| {
        if let Some(head) = head.take() {
            eprintln!("{head}");
            println!("{:>5} {:>11} {:>11} {:>11} {:>9}", "epoch", "train_rmse", "test_rmse", "elapsed_ms", "cpu_share");
        }
        if json {
            println!(
                "{}",
                json!({"epoch": s.epoch, "train_rmse": s.train_rmse, "test_rmse": s.test_rmse,
                       "elapsed_ms": s.elapsed_ms, "cpu_share": s.cpu_share})
            );
        } else {
            let test = s.test_rmse.map_or("-".to_string(), |t| format!("{t:.6}"));
            println!("{:>5} {:>11.6} {:>11} {:>11.1} {:>9.3}", s.epoch, s.train_rmse, test, s.elapsed_ms, s.cpu_share);
        }
        true
    };
    let (trained, plan) =
        engine::train(r, test.as_ref(), &params, &options, a.target_rmse, &mut print).map_err(|e| match e {
            // As `match --device gpu` says it.
            MfError::Gpu(e @ CudaError::Unavailable(_)) => anyhow!("--device {}: {e}", a.device),
            e => e.into(),
        })?;
    if let Some(head) = head.take() {
        eprintln!("{head}");
    }
    let last = trained.history.last();
    let to_target = trained.reached.and_then(|e| trained.history.get(e - 1)).map(|s| s.elapsed_ms);
    let summary = json!({
        "device": plan.device.to_string(),
        "schedule": plan.schedule.map(|s| s.to_string()),
        "threads": plan.threads,
        "gpus": plan.gpus,
        "split": plan.split,
        "predicted_epoch_ms": plan.predicted_ms.map(|[c, g, b]| json!({"cpu": c, "gpu": g, "hybrid": b})),
        "setup_ms": plan.setup_ms,
        "read_ms": read_ms,
        "epochs": trained.history.len(),
        "train_rmse": last.map(|s| s.train_rmse),
        "test_rmse": last.and_then(|s| s.test_rmse),
        "target_rmse": a.target_rmse,
        "reached_epoch": trained.reached,
        "time_to_target_ms": to_target,
        "elapsed_ms": last.map(|s| s.elapsed_ms),
    });
    if json {
        println!("{}", json!({ "run": summary }));
    } else {
        let split = plan.split.map_or(String::new(), |s| format!(", GPU share {s:.3}"));
        eprintln!("device {}{}; set-up {:.0} ms", plan.device, split, plan.setup_ms);
        match (a.target_rmse, to_target) {
            (Some(x), Some(ms)) => {
                eprintln!("test RMSE {x} reached at epoch {} in {ms:.0} ms", trained.reached.unwrap_or(0))
            }
            (Some(x), None) => eprintln!("test RMSE {x} not reached in {} epochs", trained.history.len()),
            _ => {}
        }
    }
    if let Some(out) = &a.output {
        let saved = SavedModel { model: trained.model, users: data.users, items: data.items };
        file::save(out, &saved)?;
        if !json {
            eprintln!("model written to {}", out.display());
        }
    }
    Ok(())
}

/// `user item [rating]` lines of `path`: blank lines and `#` comments skipped.
fn read_pairs(path: &Path) -> Result<Vec<(u64, u64, Option<f32>)>> {
    let f = File::open(path).with_context(|| path.display().to_string())?;
    let mut out = Vec::new();
    for (n, line) in BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), n + 1))?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(|c: char| c.is_whitespace() || c == ',').filter(|f| !f.is_empty()).collect();
        let at = || format!("{}: line {}", path.display(), n + 1);
        if fields.len() < 2 {
            bail!("{}: expected `user item [rating]`, found {line:?}", at());
        }
        // In the words of the rating files' readers.
        let id = |f: &str, what: &str| -> Result<u64> {
            if f.strip_prefix('-').is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())) {
                bail!("{}: {what} id {f} is negative: ids are unsigned integers", at());
            }
            f.parse::<u64>()
                .map_err(|_| anyhow!("{}: {what} id '{}' is not an unsigned integer", at(), f.escape_debug()))
        };
        let (user, item) = (id(fields[0], "user")?, id(fields[1], "item")?);
        let rating = match fields.get(2) {
            Some(f) => match f.parse::<f32>() {
                Ok(r) if r.is_finite() => Some(r),
                Ok(_) => bail!("{}: rating '{}' is not a finite number", at(), f.escape_debug()),
                Err(_) => bail!("{}: rating '{}' is not a number", at(), f.escape_debug()),
            },
            None => None,
        };
        out.push((user, item, rating));
    }
    Ok(out)
}

fn predict(a: PredictArgs) -> Result<()> {
    let saved = file::load(&a.model)?;
    let pairs = read_pairs(&a.pairs)?;
    let mut out: Box<dyn Write> = match a.output.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(p) => Box::new(BufWriter::new(File::create(p).with_context(|| p.display().to_string())?)),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let (mut sum, mut rated, mut unseen) = (0f64, 0usize, 0usize);
    for (user, item, rating) in pairs {
        let prediction = match (saved.users.get(user), saved.items.get(item)) {
            (Some(u), Some(v)) => saved.model.predict(u, v),
            _ => {
                unseen += 1;
                saved.model.mean
            }
        };
        writeln!(out, "{user} {item} {prediction}")?;
        if let Some(r) = rating {
            sum += ((r - prediction) as f64).powi(2);
            rated += 1;
        }
    }
    out.flush()?;
    if rated > 0 {
        eprintln!(
            "RMSE {:.6} over {rated} rated pairs ({unseen} with an unseen user or item, predicted as the mean)",
            (sum / rated as f64).sqrt()
        );
    }
    Ok(())
}

fn recommend(a: RecommendArgs) -> Result<()> {
    let saved = file::load(&a.model)?;
    let m = &saved.model;
    let Some(u) = saved.users.get(a.user) else {
        bail!("{}: user {} is not in the model", a.model.display(), a.user);
    };
    let mut excluded = std::collections::HashSet::new();
    if let Some(path) = &a.exclude {
        let raw = read_ratings(path, None)?;
        for i in 0..raw.len() {
            if raw.users[i] == a.user {
                if let Some(v) = saved.items.get(raw.items[i]) {
                    excluded.insert(v);
                }
            }
        }
    }
    let want = (a.k + excluded.len()).min(m.items);
    if a.k == 0 {
        bail!("-k must be at least 1");
    }
    // Top items by inner product: the vector search's exact search, metric ip.
    let items = Vectors::new(m.rank, m.q.clone())?;
    let query = Vectors::new(m.rank, m.p_row(u).to_vec())?;
    let found = brute_force(&items, Metric::Ip, &query, want, None);
    let mut shown = 0;
    println!("item predicted");
    for &v in found.ids.iter() {
        if shown == a.k {
            break;
        }
        if excluded.contains(&v) {
            continue;
        }
        println!("{} {}", saved.items.original(v), m.predict(u, v));
        shown += 1;
    }
    Ok(())
}

/// `subgraph gen ratings`: a planted low-rank rating matrix with noise, split into train.txt and
/// test.txt (LIBMF text), and the planted model's test RMSE.
pub fn gen_ratings(a: GenRatingsArgs) -> Result<()> {
    let mut spec = match a.preset.as_deref() {
        Some("netflix") => GenSpec::netflix(),
        Some("yahoo") => GenSpec::yahoo(),
        Some(p) => bail!("--preset {p:?}: expected netflix or yahoo"),
        None => GenSpec {
            users: 10_000,
            items: 2_000,
            ratings: 1_000_000,
            rank: 16,
            noise: 0.5,
            test_fraction: 0.1,
            seed: 0,
        },
    };
    spec.users = a.users.unwrap_or(spec.users);
    spec.items = a.items.unwrap_or(spec.items);
    spec.ratings = a.ratings.unwrap_or(spec.ratings);
    spec.rank = a.rank.unwrap_or(spec.rank);
    spec.noise = a.noise.unwrap_or(spec.noise);
    spec.test_fraction = a.test_fraction.unwrap_or(spec.test_fraction);
    spec.seed = a.seed;
    let t = Instant::now();
    let (train, test) = gen::generate(&spec)?;
    let planted = gen::planted_rmse(&spec, &test)?;
    std::fs::create_dir_all(&a.output).with_context(|| a.output.display().to_string())?;
    write_libmf(a.output.join("train.txt"), &train)?;
    write_libmf(a.output.join("test.txt"), &test)?;
    eprintln!(
        "{} train and {} test ratings of {} users × {} items (planted rank {}, noise {}) in {:.1} s; the planted model's test RMSE is {planted:.6}",
        train.len(),
        test.len(),
        spec.users,
        spec.items,
        spec.rank,
        spec.noise,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
