//! The model of thesis §3.1: R ≈ P·Qᵀ with P (users × k) and Q (items × k), float32, row-major;
//! the training parameters (rank, λ_P, λ_Q, the learning rate γ and its schedule); the update
//! rule every engine applies; and the error measures, computed as LIBMF computes them.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::error::{MfError, Result};
use crate::ratings::{Mapped, Rating, Ratings};
use crate::simd;
pub use crate::simd::Step;

/// The largest rank accepted (the GPU kernels keep a row of P and of Q in a warp's registers).
pub const MAX_RANK: usize = 1024;

/// How training runs: the loss' terms, the step and its schedule, the epochs.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// k, the factors' length.
    pub rank: usize,
    pub epochs: usize,
    pub lambda_p: f32,
    pub lambda_q: f32,
    /// γ, the learning rate of the first epoch.
    pub lr: f32,
    /// β of the schedule γ_t = γ / (1 + β·t^1.5) (t the epoch from 0; CuMF_SGD's): 0 keeps γ.
    pub decay: f32,
    /// The seed of the initial factors and of every shuffle.
    pub seed: u64,
    /// LIBMF's adaptive rule ([`crate::simd::block_adaptive`]): each row's step is γ over the
    /// root of its accumulated squared gradient; γ is then a base rate (LIBMF's default 0.1).
    pub adaptive: bool,
}

impl Default for Params {
    /// The thesis' defaults for Netflix (Table 3.1): k = 128, λ = 0.05, γ = 0.005.
    fn default() -> Self {
        Params {
            rank: 128,
            epochs: 20,
            lambda_p: 0.05,
            lambda_q: 0.05,
            lr: 0.005,
            decay: 0.0,
            seed: 1,
            adaptive: false,
        }
    }
}

impl Params {
    pub fn check(&self) -> Result<()> {
        if self.rank == 0 || self.rank > MAX_RANK {
            return Err(MfError::Parameter(format!("rank {}: must be 1 to {MAX_RANK}", self.rank)));
        }
        for (name, v) in [("lambda_p", self.lambda_p), ("lambda_q", self.lambda_q), ("decay", self.decay)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(MfError::Parameter(format!("{name} {v}: must be a finite number ≥ 0")));
            }
        }
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return Err(MfError::Parameter(format!("learning rate {}: must be a finite number > 0", self.lr)));
        }
        Ok(())
    }

    /// γ_t of epoch `t` (from 0).
    pub fn lr_at(&self, epoch: usize) -> f32 {
        (self.lr as f64 / (1.0 + self.decay as f64 * (epoch as f64).powf(1.5))) as f32
    }
}

impl Step {
    /// The step of epoch `epoch` (from 0) under `params`.
    pub fn of(params: &Params, epoch: usize) -> Step {
        Step { lr: params.lr_at(epoch), lambda_p: params.lambda_p, lambda_q: params.lambda_q }
    }
}

/// The factors: row u of `p` is user u's, row v of `q` item v's; `mean` predicts a user or item
/// without factors (the training mean, LIBMF's `b`).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub rank: usize,
    pub users: usize,
    pub items: usize,
    pub p: Vec<f32>,
    pub q: Vec<f32>,
    pub mean: f32,
}

impl Model {
    /// LIBMF's start: every factor uniform in [0, 1) × √(1/k), from `seed`.
    pub fn init(users: usize, items: usize, rank: usize, mean: f32, seed: u64) -> Model {
        let scale = (1.0 / rank as f64).sqrt() as f32;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut fill = |n: usize| (0..n * rank).map(|_| rng.random::<f32>() * scale).collect::<Vec<f32>>();
        let p = fill(users);
        let q = fill(items);
        Model { rank, users, items, p, q, mean }
    }

    /// The start for `ratings` under `params`.
    pub fn start(ratings: &Ratings, params: &Params) -> Model {
        Model::init(ratings.users, ratings.items, params.rank, ratings.mean() as f32, params.seed)
    }

    pub fn p_row(&self, u: u32) -> &[f32] {
        &self.p[u as usize * self.rank..(u as usize + 1) * self.rank]
    }

    pub fn q_row(&self, v: u32) -> &[f32] {
        &self.q[v as usize * self.rank..(v as usize + 1) * self.rank]
    }

    /// p_u · q_v.
    pub fn predict(&self, u: u32, v: u32) -> f32 {
        simd::dot(self.p_row(u), self.q_row(v))
    }

    /// √(Σ (r − p_u·q_v)² / |R|) over `ratings` (0 for none), summed in f64 as LIBMF does.
    pub fn rmse(&self, ratings: &[Rating]) -> f64 {
        if ratings.is_empty() {
            return 0.0;
        }
        let sum: f64 = ratings
            .par_chunks(1 << 14)
            .map(|c| c.iter().map(|e| (e.r - self.predict(e.u, e.v)) as f64).map(|d| d * d).sum::<f64>())
            .sum();
        (sum / ratings.len() as f64).sqrt()
    }

    /// The RMSE of a test set, its unseen ratings predicted as the mean.
    pub fn rmse_mapped(&self, test: &Mapped) -> f64 {
        if test.is_empty() {
            return 0.0;
        }
        let seen = self.rmse(&test.ratings);
        let sum = seen * seen * test.ratings.len() as f64
            + test.unseen.iter().map(|&r| ((r - self.mean) as f64).powi(2)).sum::<f64>();
        (sum / test.len() as f64).sqrt()
    }
}

/// The reference: `ratings`' updates one after another, in plain scalar loops (the oracle of the
/// engines' tests); returns Σ e², each error taken before its update.
pub fn reference_epoch(model: &mut Model, ratings: &[Rating], step: Step) -> f64 {
    let k = model.rank;
    let mut loss = 0f64;
    for e in ratings {
        let (pu, qv) = (e.u as usize * k, e.v as usize * k);
        let mut dot = 0f32;
        for d in 0..k {
            dot += model.p[pu + d] * model.q[qv + d];
        }
        let err = e.r - dot;
        loss += (err * err) as f64;
        for d in 0..k {
            let (pd, qd) = (model.p[pu + d], model.q[qv + d]);
            model.p[pu + d] = pd + step.lr * (err * qd - step.lambda_p * pd);
            model.q[qv + d] = qd + step.lr * (err * pd - step.lambda_q * qd);
        }
    }
    loss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simd_loop_equals_the_reference_loop() {
        let ratings: Vec<Rating> =
            (0..200).map(|i| Rating { u: (i * 7) % 13, v: (i * 5) % 11, r: (i % 5) as f32 + 1.0 }).collect();
        for rank in [1, 7, 16, 128, 131] {
            let mut a = Model::init(13, 11, rank, 3.0, 9);
            let mut b = a.clone();
            let step = Step { lr: 0.01, lambda_p: 0.05, lambda_q: 0.02 };
            reference_epoch(&mut a, &ratings, step);
            simd::block(&mut b.p, &mut b.q, &ratings, rank, step);
            for (x, y) in a.p.iter().chain(&a.q).zip(b.p.iter().chain(&b.q)) {
                assert!((x - y).abs() <= 1e-5 * x.abs().max(1.0), "rank {rank}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn rmse_counts_unseen_ratings_at_the_mean() {
        let m = Model { rank: 1, users: 1, items: 1, p: vec![2.0], q: vec![1.5], mean: 4.0 };
        let test = Mapped { users: 1, items: 1, ratings: vec![Rating { u: 0, v: 0, r: 4.0 }], unseen: vec![2.0] };
        assert!((m.rmse_mapped(&test) - 2.5f64.sqrt()).abs() < 1e-9);
        assert!(Params { rank: 0, ..Params::default() }.check().is_err());
        assert!((Params { decay: 0.1, ..Params::default() }.lr_at(4) - 0.005 / 1.8).abs() < 1e-9);
    }
}
