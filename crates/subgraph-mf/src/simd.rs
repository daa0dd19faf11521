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
    lanes_dot(a, b)
}

/// The dot product of [`dot`], inlined into each caller so that it is compiled with the
/// caller's instruction set (a function called, not inlined, from a multiversioned one is not).
#[inline(always)]
fn lanes_dot(a: &[f32], b: &[f32]) -> f32 {
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
        let err = e.r - lanes_dot(pu, qv);
        loss += (err * err) as f64;
        for (pd, qd) in pu.iter_mut().zip(qv.iter_mut()) {
            let (a, b) = (*pd, *qd);
            *pd = a + lr * (err * b - lambda_p * a);
            *qd = b + lr * (err * a - lambda_q * b);
        }
    }
    loss
}

/// The adaptive updates (LIBMF's rule, Chin et al., PAKDD 2015, with one accumulator a row):
/// with g_p = λ_P·p − e·q and g_q = λ_Q·q − e·p, each row steps by γ/√G of its own
/// accumulated squared gradient, p −= γ/√G_u · g_p, q −= γ/√G_v · g_q, then G_u += |g_p|²/k and
/// G_v += |g_q|²/k (G starts at 1). `pg` and `qg` hold G of the rows of `p` and `q`. Returns
/// Σ e² (before each update).
#[multiversion(targets = "simd")]
pub fn block_adaptive(
    p: &mut [f32],
    q: &mut [f32],
    pg: &mut [f32],
    qg: &mut [f32],
    ratings: &[Rating],
    k: usize,
    step: Step,
) -> f64 {
    let Step { lr, lambda_p, lambda_q } = step;
    let inv_k = 1.0 / k as f32;
    let mut loss = 0f64;
    for e in ratings {
        let pu = &mut p[e.u as usize * k..(e.u as usize + 1) * k];
        let qv = &mut q[e.v as usize * k..(e.v as usize + 1) * k];
        let err = e.r - lanes_dot(pu, qv);
        loss += (err * err) as f64;
        let (gu, gv) = (&mut pg[e.u as usize], &mut qg[e.v as usize]);
        let (eta_p, eta_q) = (lr / gu.sqrt(), lr / gv.sqrt());
        let (mut sp, mut sq) = ([0f32; LANES], [0f32; LANES]);
        let step_lanes = |x: &mut [f32], y: &mut [f32], sp: &mut [f32; LANES], sq: &mut [f32; LANES]| {
            for l in 0..x.len().min(LANES) {
                let (a, b) = (x[l], y[l]);
                let (gp, gq) = (lambda_p * a - err * b, lambda_q * b - err * a);
                sp[l] += gp * gp;
                sq[l] += gq * gq;
                x[l] = a - eta_p * gp;
                y[l] = b - eta_q * gq;
            }
        };
        let (mut cx, mut cy) = (pu.chunks_exact_mut(LANES), qv.chunks_exact_mut(LANES));
        for (x, y) in (&mut cx).zip(&mut cy) {
            let (x, y): (&mut [f32; LANES], &mut [f32; LANES]) = (x.try_into().unwrap(), y.try_into().unwrap());
            step_lanes(x, y, &mut sp, &mut sq);
        }
        step_lanes(cx.into_remainder(), cy.into_remainder(), &mut sp, &mut sq);
        *gu += sp.iter().sum::<f32>() * inv_k;
        *gv += sq.iter().sum::<f32>() * inv_k;
    }
    loss
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The adaptive rule in plain scalar loops.
    fn reference(p: &mut [f32], q: &mut [f32], pg: &mut [f32], qg: &mut [f32], ratings: &[Rating], k: usize, s: Step) {
        for e in ratings {
            let (u, v) = (e.u as usize, e.v as usize);
            let dot: f32 = (0..k).map(|d| p[u * k + d] * q[v * k + d]).sum();
            let err = e.r - dot;
            let (eta_p, eta_q) = (s.lr / pg[u].sqrt(), s.lr / qg[v].sqrt());
            let (mut sp, mut sq) = (0f32, 0f32);
            for d in 0..k {
                let (a, b) = (p[u * k + d], q[v * k + d]);
                let (gp, gq) = (s.lambda_p * a - err * b, s.lambda_q * b - err * a);
                sp += gp * gp;
                sq += gq * gq;
                p[u * k + d] = a - eta_p * gp;
                q[v * k + d] = b - eta_q * gq;
            }
            pg[u] += sp / k as f32;
            qg[v] += sq / k as f32;
        }
    }

    #[test]
    fn the_adaptive_loop_equals_its_scalar_reference() {
        let ratings: Vec<Rating> =
            (0..300).map(|i| Rating { u: (i * 7) % 13, v: (i * 5) % 11, r: (i % 5) as f32 + 1.0 }).collect();
        let step = Step { lr: 0.1, lambda_p: 0.05, lambda_q: 0.02 };
        for k in [1, 5, 16, 128, 131] {
            let init =
                |n: usize| (0..n * k).map(|i| ((i * 37 % 101) as f32) / 101.0 / (k as f32).sqrt()).collect::<Vec<_>>();
            let (mut p, mut q) = (init(13), init(11));
            let (mut pg, mut qg) = (vec![1f32; 13], vec![1f32; 11]);
            let (mut p2, mut q2, mut pg2, mut qg2) = (p.clone(), q.clone(), pg.clone(), qg.clone());
            block_adaptive(&mut p, &mut q, &mut pg, &mut qg, &ratings, k, step);
            reference(&mut p2, &mut q2, &mut pg2, &mut qg2, &ratings, k, step);
            for (x, y) in p.iter().chain(&q).chain(&pg).chain(&qg).zip(p2.iter().chain(&q2).chain(&pg2).chain(&qg2)) {
                assert!((x - y).abs() <= 1e-4 * x.abs().max(1.0), "k {k}: {x} vs {y}");
            }
        }
    }
}
