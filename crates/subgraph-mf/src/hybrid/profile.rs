//! Fitting HSGD*'s cost model on this machine (thesis §3.2): the ratings shuffled, cumulative
//! prefixes of doubling size timed on the CPU's threads (an FPSGD epoch), on the GPU's kernel
//! (one run over the prefix) and on the GPU's transfers (what an epoch moves for a share: every
//! column of Q up and back, since the ratings and the GPU's rows of P stay on the device), each
//! the mean of a few runs; saved per machine and setting, and reused.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::cpu::Fpsgd;
use crate::error::{MfError, Result};
use crate::gpu::GpuSgd;
use crate::hybrid::cost::{CostModel, Sample};
use crate::model::{Model, Params, Step};
use crate::ratings::Ratings;

/// The smallest prefix timed, and the most ratings profiled (prefixes double up to it). A
/// rating costs the CPU less the more often a prefix reuses its rows and columns, so the line
/// must be fitted near the sizes it predicts: on the Netflix shape at 2.5·10^7 ratings (rank
/// 128, 2 threads), prefixes up to 2^22 predicted 1.55 s for an epoch that takes 0.73 s, and
/// up to 2^24, 0.76 s (on the H200's 16 threads, 2^22 predicted 224–355 ms for 119–132 ms,
/// bench/results/2026-11-29-mf-halves.md).
const SMALLEST: usize = 1 << 12;
const LARGEST: usize = 1 << 24;
/// Runs averaged per prefix.
const REPEATS: usize = 3;

/// What a cost model was fitted for: it holds for this setting only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    pub gpu: String,
    pub cpu_threads: usize,
    pub rank: usize,
    pub half: bool,
    pub workers: u32,
}

/// The timings of a profile and the model fitted to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub setting: Setting,
    pub cpu: Vec<(f64, f64)>,
    pub transfer: Vec<(f64, f64)>,
    pub kernel: Vec<(f64, f64)>,
}

impl Profile {
    /// Times `ratings`' prefixes on `cpu_threads` threads and on `sgd`'s GPU.
    pub fn measure(
        ratings: &Ratings,
        params: &Params,
        cpu_threads: usize,
        sgd: &mut GpuSgd<'_>,
        gpu: &str,
    ) -> Result<Profile> {
        let mut entries = ratings.entries.clone();
        entries.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(params.seed ^ 0x6a09_e667_f3bc_c909));
        entries.truncate(LARGEST);
        let step = Step::of(params, 0);
        let start = Model::start(ratings, params);
        sgd.put_p(0..start.users, &start.p)?;
        sgd.put_q(0..start.items, &start.q)?;
        let on_device = sgd.load_ratings(&entries)?;
        let mut sizes = Vec::new();
        let mut x = SMALLEST.min(entries.len());
        while x < entries.len() {
            sizes.push(x);
            x *= 2;
        }
        sizes.push(entries.len());
        let mut profile = Profile {
            setting: Setting {
                gpu: gpu.to_string(),
                cpu_threads,
                rank: params.rank,
                half: sgd.half(),
                workers: sgd.workers(),
            },
            cpu: Vec::new(),
            transfer: Vec::new(),
            kernel: Vec::new(),
        };
        let mut q = start.q.clone();
        for &x in &sizes {
            let prefix = Ratings { users: ratings.users, items: ratings.items, entries: entries[..x].to_vec() };
            let mut run = Fpsgd::new(&prefix, params, cpu_threads, None);
            let (mut cpu, mut kernel, mut transfer) = (0f64, 0f64, 0f64);
            for _ in 0..REPEATS {
                let t = Instant::now();
                run.run_epoch(step);
                cpu += t.elapsed().as_secs_f64();
                let t = Instant::now();
                sgd.run(&on_device, 0..x, step)?;
                sgd.synchronize()?;
                kernel += t.elapsed().as_secs_f64();
                let t = Instant::now();
                sgd.put_q(0..start.items, &q)?;
                sgd.get_q(0..start.items, &mut q)?;
                transfer += t.elapsed().as_secs_f64();
            }
            let r = REPEATS as f64;
            profile.cpu.push((x as f64, cpu / r));
            profile.kernel.push((x as f64, kernel / r));
            profile.transfer.push((x as f64, transfer / r));
        }
        sgd.take_loss()?;
        Ok(profile)
    }

    pub fn model(&self) -> CostModel {
        let samples = |v: &[(f64, f64)]| v.iter().map(|&(size, seconds)| Sample { size, seconds }).collect::<Vec<_>>();
        CostModel::fit(&samples(&self.cpu), &samples(&self.transfer), &samples(&self.kernel))
    }
}

/// The file of saved profiles: `SUBGRAPH_MF_COST`, else `$XDG_CACHE_HOME/subgraph/mf-cost.json`,
/// else `~/.cache/subgraph/mf-cost.json`.
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SUBGRAPH_MF_COST") {
        return Some(PathBuf::from(p));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("subgraph").join("mf-cost.json"))
}

/// The saved profile of `setting` in `path`, if there is one.
pub fn load(path: &Path, setting: &Setting) -> Result<Option<Profile>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(MfError::io(path, e)),
    };
    let all: Vec<Profile> = serde_json::from_str(&text)
        .map_err(|e| MfError::file(path, format!("not a file of cost profiles ({e}); --refit writes a new one")))?;
    Ok(all.into_iter().find(|p| &p.setting == setting))
}

/// Saves `profile` in `path`, replacing the one of its setting.
pub fn save(path: &Path, profile: &Profile) -> Result<()> {
    let mut all: Vec<Profile> = match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t).unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    all.retain(|p| p.setting != profile.setting);
    all.push(profile.clone());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| MfError::io(dir, e))?;
    }
    let text = serde_json::to_string_pretty(&all).map_err(|e| MfError::file(path, e.to_string()))?;
    let partial = path.with_extension("json.partial");
    std::fs::write(&partial, text).map_err(|e| MfError::io(&partial, e))?;
    std::fs::rename(&partial, path).map_err(|e| MfError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_round_trip_by_setting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let setting = |w| Setting { gpu: "H200".into(), cpu_threads: 16, rank: 128, half: false, workers: w };
        let profile = |w| Profile {
            setting: setting(w),
            cpu: vec![(1e4, 1e-3), (2e4, 2e-3)],
            transfer: vec![(1e4, 1e-4), (2e4, 1e-4)],
            kernel: vec![(1e4, 1e-4), (2e4, 1.5e-4)],
        };
        assert_eq!(load(&path, &setting(32)).unwrap(), None);
        save(&path, &profile(32)).unwrap();
        save(&path, &profile(64)).unwrap();
        save(&path, &profile(32)).unwrap();
        assert_eq!(load(&path, &setting(64)).unwrap(), Some(profile(64)));
        assert_eq!(load(&path, &setting(128)).unwrap(), None);
        let m = profile(32).model();
        assert!((m.cpu(3e4) - 3e-3).abs() < 1e-9);
        std::fs::write(&path, "not json").unwrap();
        assert!(load(&path, &setting(32)).unwrap_err().to_string().contains("c.json"));
    }
}
