//! The inner loops of SGD (thesis §3.1; LIBMF's SSE/AVX loops): a dot product and the paired
//! update of two rows, compiled for the best SIMD level of the machine, chosen at run time
//! (`multiversion`), in safe Rust.

use multiversion::multiversion;

use crate::model::Step;

const LANES: usize = 16;

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

/// p += γ(e·q − λ_P·p) and q += γ(e·p − λ_Q·q), both from the rows as they were.
#[multiversion(targets = "simd")]
pub fn update(p: &mut [f32], q: &mut [f32], e: f32, step: Step) {
    let Step { lr, lambda_p, lambda_q } = step;
    for (pd, qd) in p.iter_mut().zip(q.iter_mut()) {
        let (a, b) = (*pd, *qd);
        *pd = a + lr * (e * b - lambda_p * a);
        *qd = b + lr * (e * a - lambda_q * b);
    }
}
