//! The inner loops of SGD (thesis §3.1; LIBMF's SSE/AVX loops): a dot product and the paired
//! update of two rows, compiled for the best SIMD level of the machine, chosen at run time
//! (`multiversion`), in safe Rust.

use multiversion::multiversion;

use crate::ratings::Rating;

const LANES: usize = 16;

/// The step of one epoch: γ_t, λ_P, λ_Q.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub lr: f32,
    pub lambda_p: f32,
    pub lambda_q: f32,
}

/// a · b, over lanes of 16 summed pairwise (the same order on every machine).
#[multiversion(targets = "simd")]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    for (l, (x, y)) in ra.iter().zip(rb).enumerate() {
        acc[l] += x * y;
    }
    let mut width = LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] += acc[l + width];
        }
        width /= 2;
    }
    acc[0]
}

/// The SGD updates of thesis §3.1 over `ratings` in order, each with both rows read before
/// either is written: e = r − p·q; p += γ(e·q − λ_P·p); q += γ(e·p − λ_Q·q), where rating
/// (u, v) reads row u of `p` and row v of `q` (rows of `k`). Returns Σ e² (before each update),
/// LIBMF's training loss. One dispatch per call, so the loops are compiled for the machine.
#[multiversion(targets = "simd")]
pub fn block(p: &mut [f32], q: &mut [f32], ratings: &[Rating], k: usize, step: Step) -> f64 {
    let Step { lr, lambda_p, lambda_q } = step;
    let mut loss = 0f64;
    for e in ratings {
        let pu = &mut p[e.u as usize * k..(e.u as usize + 1) * k];
        let qv = &mut q[e.v as usize * k..(e.v as usize + 1) * k];
        let mut acc = [0f32; LANES];
        let (ca, cb) = (pu.chunks_exact(LANES), qv.chunks_exact(LANES));
        let (ra, rb) = (ca.remainder(), cb.remainder());
        for (x, y) in ca.zip(cb) {
            for l in 0..LANES {
                acc[l] += x[l] * y[l];
            }
        }
        for (l, (x, y)) in ra.iter().zip(rb).enumerate() {
            acc[l] += x * y;
        }
        let mut width = LANES / 2;
        while width > 0 {
            for l in 0..width {
                acc[l] += acc[l + width];
            }
            width /= 2;
        }
        let err = e.r - acc[0];
        loss += (err * err) as f64;
        for (pd, qd) in pu.iter_mut().zip(qv.iter_mut()) {
            let (a, b) = (*pd, *qd);
            *pd = a + lr * (err * b - lambda_p * a);
            *qd = b + lr * (err * a - lambda_q * b);
        }
    }
    loss
}
