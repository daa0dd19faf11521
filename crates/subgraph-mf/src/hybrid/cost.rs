//! HSGD*'s offline cost model (thesis §3.2): a device's time as a function of the ratings it
//! updates, fitted from timings of cumulative prefixes of shuffled data. The CPU's is linear;
//! the GPU's transfer and kernel rise in throughput with size up to a knee τ, where the speed
//! varies by less than 2 % from one prefix to the next, and are linear beyond it:
//!
//! - transfer: f(x) = x / (a·√(log x) + b) for x ≤ τ, else a·x + b;
//! - kernel: f(x) = x / (a·log x + b) for x ≤ τ, else a·x + b;
//! - the GPU: f_g = max(f_transfer, f_kernel), its copies and kernels overlapping.
//!
//! The split α (the GPU's share of the ratings) makes both sides finish together:
//! α = argmin |f_g(α·N / n_g) − f_c((1 − α)·N)|, with f_c the time of all n_c threads together.

/// A timing: `size` ratings took `seconds`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub size: f64,
    pub seconds: f64,
}

/// t = a·x + b.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    pub a: f64,
    pub b: f64,
}

impl Linear {
    /// The least-squares line through `points` (x, y); one point gives the line through it and
    /// the origin.
    pub fn fit(points: &[(f64, f64)]) -> Linear {
        let n = points.len() as f64;
        if points.len() < 2 {
            let (x, y) = points.first().copied().unwrap_or((1.0, 0.0));
            return Linear { a: if x > 0.0 { y / x } else { 0.0 }, b: 0.0 };
        }
        let (sx, sy) = points.iter().fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x, sy + y));
        let (mx, my) = (sx / n, sy / n);
        let (sxy, sxx) = points
            .iter()
            .fold((0.0, 0.0), |(sxy, sxx), &(x, y)| (sxy + (x - mx) * (y - my), sxx + (x - mx) * (x - mx)));
        let a = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        Linear { a, b: my - a * mx }
    }

    pub fn at(&self, x: f64) -> f64 {
        self.a * x + self.b
    }
}

/// How throughput rises below the knee: with log x (a kernel) or √(log x) (a transfer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rise {
    Log,
    SqrtLog,
}

impl Rise {
    fn of(self, x: f64) -> f64 {
        let l = x.max(2.0).ln();
        match self {
            Rise::Log => l,
            Rise::SqrtLog => l.sqrt(),
        }
    }
}

/// A piecewise cost: throughput x/f(x) = a·g(x) + b up to `knee`, a line beyond.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piecewise {
    pub rise: Rise,
    /// Throughput below the knee: a·g(x) + b.
    pub below: Linear,
    pub knee: f64,
    pub above: Linear,
}

impl Piecewise {
    /// Fits `samples` (cumulative prefixes, any order): the knee is the first size after which
    /// the speed changes by less than 2 % to the next sample.
    pub fn fit(rise: Rise, samples: &[Sample]) -> Piecewise {
        let mut s: Vec<Sample> = samples.iter().copied().filter(|s| s.size > 0.0 && s.seconds > 0.0).collect();
        s.sort_by(|a, b| a.size.total_cmp(&b.size));
        let speed = |s: &Sample| s.size / s.seconds;
        let knee_at = (0..s.len().saturating_sub(1))
            .find(|&i| ((speed(&s[i + 1]) - speed(&s[i])) / speed(&s[i])).abs() < 0.02)
            .unwrap_or(s.len().saturating_sub(1));
        let knee = s.get(knee_at).map_or(0.0, |s| s.size);
        let below: Vec<(f64, f64)> =
            s[..=knee_at.min(s.len().saturating_sub(1))].iter().map(|s| (rise.of(s.size), speed(s))).collect();
        let above: Vec<(f64, f64)> = s[knee_at.min(s.len())..].iter().map(|s| (s.size, s.seconds)).collect();
        Piecewise { rise, below: Linear::fit(&below), knee, above: Linear::fit(&above) }
    }

    pub fn at(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        if x <= self.knee {
            let speed = self.below.at(self.rise.of(x));
            if speed > 0.0 {
                return x / speed;
            }
        }
        self.above.at(x).max(0.0)
    }
}

/// The cost model of one machine: the CPU's threads together, and one GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    pub cpu: Linear,
    pub transfer: Piecewise,
    pub kernel: Piecewise,
}

impl CostModel {
    /// Fits the model to timings of the CPU's threads, the GPU's transfers and its kernel. The
    /// CPU's line is fitted to the prefixes of at least an eighth of the largest: below that an
    /// epoch's fixed cost (threads started, the grid's blocks handed out) hides the slope.
    pub fn fit(cpu: &[Sample], transfer: &[Sample], kernel: &[Sample]) -> CostModel {
        let largest = cpu.iter().map(|s| s.size).fold(0.0, f64::max);
        let cpu: Vec<(f64, f64)> =
            cpu.iter().filter(|s| s.size >= largest / 8.0).map(|s| (s.size, s.seconds)).collect();
        CostModel {
            cpu: Linear::fit(&cpu),
            transfer: Piecewise::fit(Rise::SqrtLog, transfer),
            kernel: Piecewise::fit(Rise::Log, kernel),
        }
    }

    /// f_g: one GPU's time for `x` ratings.
    pub fn gpu(&self, x: f64) -> f64 {
        self.transfer.at(x).max(self.kernel.at(x))
    }

    /// f_c: the CPU threads' time for `x` ratings.
    pub fn cpu(&self, x: f64) -> f64 {
        if x <= 0.0 {
            0.0
        } else {
            self.cpu.at(x).max(0.0)
        }
    }

    /// The GPUs' share α of `n` ratings over `gpus` GPUs and the CPU's threads that balances
    /// their times (0 with no GPU, 1 with no CPU thread), and the predicted epoch time.
    pub fn split(&self, n: f64, gpus: usize, cpu_threads: usize) -> (f64, f64) {
        let time = |alpha: f64| -> f64 {
            let g = if gpus == 0 { 0.0 } else { self.gpu(alpha * n / gpus as f64) };
            g.max(self.cpu((1.0 - alpha) * n))
        };
        if gpus == 0 {
            return (0.0, time(0.0));
        }
        if cpu_threads == 0 {
            return (1.0, time(1.0));
        }
        // f_g rises and f_c falls with α: bisect on their difference.
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if self.gpu(mid * n / gpus as f64) < self.cpu((1.0 - mid) * n) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let alpha = 0.5 * (lo + hi);
        (alpha, time(alpha))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_recover_the_forms_they_assume() {
        let line = Linear::fit(&[(1.0, 3.0), (2.0, 5.0), (4.0, 9.0)]);
        assert!((line.a - 2.0).abs() < 1e-12 && (line.b - 1.0).abs() < 1e-12);
        // A kernel whose speed is 10·ln x + 100 up to x = 2^16, then flat at that speed.
        let knee = 65536f64;
        let top = 10.0 * knee.ln() + 100.0;
        let samples: Vec<Sample> = (8..24)
            .map(|p| {
                let x = (1u64 << p) as f64;
                let speed = if x <= knee { 10.0 * x.ln() + 100.0 } else { top };
                Sample { size: x, seconds: x / speed }
            })
            .collect();
        let f = Piecewise::fit(Rise::Log, &samples);
        for s in &samples {
            assert!((f.at(s.size) - s.seconds).abs() <= 0.03 * s.seconds, "{s:?}: {}", f.at(s.size));
        }
    }

    #[test]
    fn the_split_balances_the_two_sides() {
        let flat = |speed: f64| Piecewise {
            rise: Rise::Log,
            below: Linear { a: 0.0, b: speed },
            knee: 0.0,
            above: Linear { a: 1.0 / speed, b: 0.0 },
        };
        // The GPU three times the CPU's speed: it takes three quarters.
        let m = CostModel { cpu: Linear { a: 1.0 / 100.0, b: 0.0 }, transfer: flat(1e9), kernel: flat(300.0) };
        let (alpha, t) = m.split(1000.0, 1, 4);
        assert!((alpha - 0.75).abs() < 1e-6, "{alpha}");
        assert!((t - 2.5).abs() < 1e-6, "{t}");
        assert_eq!(m.split(1000.0, 0, 4).0, 0.0);
        assert_eq!(m.split(1000.0, 1, 0).0, 1.0);
        // Two GPUs: each takes 3/7 of the ratings at the same time as the CPU's 1/7.
        assert!((m.split(700.0, 2, 4).0 - 6.0 / 7.0).abs() < 1e-6);
    }
}
