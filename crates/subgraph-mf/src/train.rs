//! The training loop every engine shares: epochs at the schedule's learning rate, each timed
//! (evaluation excluded), the training RMSE as LIBMF reports it (from the errors met during the
//! epoch's updates), the test RMSE after each epoch, and a stop at a target test RMSE.

use std::time::Instant;

use crate::error::{MfError, Result};
use crate::model::{Model, Params, Step};
use crate::ratings::Mapped;

/// What an epoch of an engine did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Epoch {
    /// Σ e² over the epoch's updates, each error taken before its update.
    pub loss: f64,
    /// Updates made, and of those, made by the CPU.
    pub updates: u64,
    pub cpu_updates: u64,
}

/// An engine: a model being trained, one epoch at a time.
pub trait Engine {
    /// One epoch at `step`.
    fn epoch(&mut self, step: Step) -> Result<Epoch>;
    /// The factors as they are now, in the ratings' ids.
    fn model(&mut self) -> Result<Model>;
}

/// One line of the history.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochStats {
    /// From 1.
    pub epoch: usize,
    pub train_rmse: f64,
    pub test_rmse: Option<f64>,
    /// Training time since the first epoch began, evaluation excluded.
    pub elapsed_ms: f64,
    /// The CPU's share of this epoch's updates.
    pub cpu_share: f64,
}

/// A finished training run.
#[derive(Debug, Clone)]
pub struct Trained {
    pub model: Model,
    pub history: Vec<EpochStats>,
    /// The first epoch whose test RMSE reached the target, if one was set and reached.
    pub reached: Option<usize>,
}

/// Runs `params.epochs` epochs of `engine` (fewer if `target_rmse` is reached on `test`, or if
/// `on_epoch` returns false), evaluating `test` after each. A learning rate so large that the
/// training or test error, or a prediction of the final model, is no longer finite is an error.
pub fn run(
    engine: &mut dyn Engine,
    params: &Params,
    test: Option<&Mapped>,
    target_rmse: Option<f64>,
    on_epoch: &mut dyn FnMut(&EpochStats) -> bool,
) -> Result<Trained> {
    params.check()?;
    if target_rmse.is_some() && test.is_none_or(Mapped::is_empty) {
        return Err(MfError::Parameter("a target RMSE needs a test set".into()));
    }
    let mut history = Vec::with_capacity(params.epochs);
    let mut elapsed = 0f64;
    let mut reached = None;
    let mut model = None;
    for t in 0..params.epochs {
        model = None;
        let start = Instant::now();
        let done = engine.epoch(Step::of(params, t))?;
        elapsed += start.elapsed().as_secs_f64() * 1e3;
        let test_rmse = match test {
            Some(test) if !test.is_empty() => {
                let m = engine.model()?;
                let rmse = m.rmse_mapped(test);
                model = Some(m);
                Some(rmse)
            }
            _ => None,
        };
        let stats = EpochStats {
            epoch: t + 1,
            train_rmse: (done.loss / done.updates.max(1) as f64).sqrt(),
            test_rmse,
            elapsed_ms: elapsed,
            cpu_share: done.cpu_updates as f64 / done.updates.max(1) as f64,
        };
        if !stats.train_rmse.is_finite() || stats.test_rmse.is_some_and(|r| !r.is_finite()) {
            return Err(diverged(params, t));
        }
        let hit = matches!((target_rmse, test_rmse), (Some(x), Some(r)) if r <= x);
        let go_on = on_epoch(&stats);
        history.push(stats);
        if hit {
            reached = Some(t + 1);
            break;
        }
        if !go_on {
            break;
        }
    }
    let model = match model {
        Some(m) => m,
        None => engine.model()?,
    };
    // The epoch's last updates may overflow factors no later update reads.
    if !predictions_finite(&model) {
        return Err(diverged(params, history.len().max(1) - 1));
    }
    Ok(Trained { model, history, reached })
}

/// The error of a run whose learning rate made the errors overflow by epoch `t` (from 0).
fn diverged(params: &Params, t: usize) -> MfError {
    MfError::Parameter(format!(
        "epoch {}: the training error is no longer finite; the learning rate {} is too large for these ratings",
        t + 1,
        params.lr_at(t)
    ))
}

/// Whether every prediction p_u·q_v of `model` is finite: its factors are, and k·max|p|·max|q|
/// (a bound of every dot product and its partial sums) is below f32's largest value.
fn predictions_finite(model: &Model) -> bool {
    let largest = |x: &[f32]| x.iter().try_fold(0f64, |m, &v| v.is_finite().then(|| m.max(v.abs() as f64)));
    match (largest(&model.p), largest(&model.q)) {
        (Some(p), Some(q)) => model.rank as f64 * p * q < f32::MAX as f64,
        _ => false,
    }
}
