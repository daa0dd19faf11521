//! The GPU engine's kernels without a GPU (thesis §3.2, CuMF_SGD's warp-per-worker update): the
//! very kernel source `gpu::source` makes (the `.cu` text NVRTC compiles), compiled by the
//! host's C++ compiler against subgraph-ann's warp emulator (`crates/subgraph-ann/tests/emu/
//! emu.h`, used in place: each thread a fiber, lanes in a random order between barriers) with
//! this crate's driver (`tests/emu/sgd.cpp`), and compared with the crate's reference:
//! - one worker updates the ratings in order, so P and Q equal `reference_epoch`'s within float
//!   rounding (relative 1e-5; the warp sums the dot product in another order), at ranks 1 to
//!   1024 (every vector width); in half precision they equal the reference rounded to half after
//!   every update, within a half's rounding;
//! - many workers over ratings whose chunks share no row or column give the reference's result
//!   whatever the order: every rating of the range is updated once, none outside it.
//!
//! Skips off Linux or where no C++ compiler runs, unless SUBGRAPH_REQUIRE_EMU=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use subgraph_mf::gpu::source::{sgd_source, SgdShape, CHUNK};
use subgraph_mf::model::reference_epoch;
use subgraph_mf::{Model, Rating, Step};

fn compiler() -> Option<&'static str> {
    let found = cfg!(target_os = "linux")
        .then(|| {
            ["c++", "g++", "clang++"]
                .into_iter()
                .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
        })
        .flatten();
    if found.is_none() {
        if std::env::var("SUBGRAPH_REQUIRE_EMU").as_deref() == Ok("1") {
            panic!("SUBGRAPH_REQUIRE_EMU=1 but no C++ compiler (c++, g++, clang++) runs here, or not on Linux");
        }
        eprintln!("skipped: no C++ compiler, or not on Linux");
    }
    found
}

/// Compiles tests/emu/sgd.cpp with `code` as its kernel.cu in a fresh folder.
fn build(cxx: &str, dir: &Path, code: &str) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let emu = manifest.join("../subgraph-ann/tests/emu");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("kernel.cu"), code).unwrap();
    let exe = dir.join("emulated");
    let out = Command::new(cxx)
        .args(["-std=c++20", "-O1", "-w", "-I"])
        .arg(dir)
        .arg("-I")
        .arg(&emu)
        .arg(manifest.join("tests/emu/sgd.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{cxx} sgd.cpp: {}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// xorshift64: deterministic data.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `x` rounded to the nearest IEEE half (ties to even), as a float; |x| below 65504.
fn round_half(x: f32) -> f32 {
    if x == 0.0 {
        return x;
    }
    let exponent = (((x.abs().to_bits() >> 23) & 0xFF) as i32 - 127).max(-14);
    let quantum = 2f32.powi(exponent - 10);
    (x / quantum).round_ties_even() * quantum
}

/// `reference_epoch` with factors stored in half precision: read as floats, the update in
/// float, the new rows rounded to half (the model's factors must already be halves).
fn half_reference_epoch(model: &mut Model, ratings: &[Rating], step: Step) {
    let k = model.rank;
    for e in ratings {
        let (pu, qv) = (e.u as usize * k, e.v as usize * k);
        let dot: f32 = (0..k).fold(0.0, |s, d| s + model.p[pu + d] * model.q[qv + d]);
        let err = e.r - dot;
        for d in 0..k {
            let (pd, qd) = (model.p[pu + d], model.q[qv + d]);
            model.p[pu + d] = round_half(pd + step.lr * (err * qd - step.lambda_p * pd));
            model.q[qv + d] = round_half(qd + step.lr * (err * pd - step.lambda_q * qd));
        }
    }
}

/// One emulated run: the shape, the model's size, the ratings and how they are run.
struct Case {
    rank: usize,
    half: bool,
    users: usize,
    items: usize,
    ratings: usize,
    workers: usize,
    start: usize,
    end: usize,
    /// Ratings in the range cut so that chunks of [`CHUNK`] (from `start`) share no row or
    /// column.
    disjoint: bool,
}

fn ratings(case: &Case, rng: &mut Rng) -> Vec<Rating> {
    (0..case.ratings)
        .map(|i| {
            let r = 1.0 + rng.below(9) as f32 / 2.0;
            if case.disjoint && (case.start..case.end).contains(&i) {
                // Chunk c owns users 4c..4c + 4 and items 3c..3c + 3.
                let c = ((i - case.start) / CHUNK) as u64;
                Rating { u: (4 * c + rng.below(4)) as u32, v: (3 * c + rng.below(3)) as u32, r }
            } else {
                Rating { u: rng.below(case.users as u64) as u32, v: rng.below(case.items as u64) as u32, r }
            }
        })
        .collect()
}

/// Writes the driver's input, runs it, and returns P and Q as it writes them.
/// The emulated run: P, Q and Σ e² over the workers.
fn emulate(
    exe: &Path,
    dir: &Path,
    case: &Case,
    model: &Model,
    ratings: &[Rating],
    step: Step,
) -> (Vec<f32>, Vec<f32>, f64) {
    let mut input = Vec::new();
    for v in [case.users, case.items, ratings.len()] {
        input.extend((v as u64).to_le_bytes());
    }
    for v in [step.lr, step.lambda_p, step.lambda_q].iter().chain(&model.p).chain(&model.q) {
        input.extend(v.to_le_bytes());
    }
    for e in ratings {
        for w in [e.u, e.v, e.r.to_bits()] {
            input.extend(w.to_le_bytes());
        }
    }
    let (inp, outp) = (dir.join("in.bin"), dir.join("out.bin"));
    std::fs::write(&inp, input).unwrap();
    let out = Command::new(exe)
        .arg(&inp)
        .arg(&outp)
        .args([case.workers, case.start, case.end].map(|a| a.to_string()))
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{exe:?}:\n{text}");
    eprint!("{text}");
    let floats: Vec<f32> =
        std::fs::read(&outp).unwrap().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(floats.len(), (case.users + case.items) * case.rank + case.workers);
    let (p, rest) = floats.split_at(case.users * case.rank);
    let (q, losses) = rest.split_at(case.items * case.rank);
    (p.to_vec(), q.to_vec(), losses.iter().map(|&l| l as f64).sum())
}

/// Runs `case` on the emulator and compares it with the reference; returns the largest
/// relative difference.
fn check(cxx: &str, dir: &Path, seed: u64, case: &Case) -> f64 {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let shape = SgdShape::new(case.rank, case.half).unwrap();
    let exe = build(cxx, dir, sgd_source(shape).code);
    let ratings = ratings(case, &mut rng);
    let step = Step { lr: 0.02, lambda_p: 0.05, lambda_q: 0.03 };
    let mut model = Model::init(case.users, case.items, case.rank, 3.0, seed);
    let (p, q, loss) = emulate(&exe, dir, case, &model, &ratings, step);
    let range = &ratings[case.start..case.end];
    // Half: one rounding of the float result is half an ulp, 2^-11 relative; a different
    // rounding of one update carried into later ones, a few ulps.
    let tolerance = if case.half {
        for x in model.p.iter_mut().chain(model.q.iter_mut()) {
            *x = round_half(*x);
        }
        half_reference_epoch(&mut model, range, step);
        4.0 * 2f64.powi(-11)
    } else {
        let want = reference_epoch(&mut model, range, step);
        if case.workers == 1 {
            assert!((loss - want).abs() <= 1e-4 * want.max(1e-3), "rank {}: loss {loss} against {want}", case.rank);
        }
        1e-5
    };
    assert!(loss.is_finite() && loss >= 0.0, "loss {loss}");
    let mut worst = 0f64;
    for (i, (got, want)) in p.iter().chain(&q).zip(model.p.iter().chain(&model.q)).enumerate() {
        let scale = got.abs().max(want.abs()).max(1e-3) as f64;
        let rel = (got - want).abs() as f64 / scale;
        assert!(rel <= tolerance, "rank {} half {}: factor {i}: {got} against {want}", case.rank, case.half);
        worst = worst.max(rel);
    }
    worst
}

/// Runs `cases` on two threads, each in its own folder.
fn check_all(cases: &[Case]) {
    let Some(cxx) = compiler() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::thread::scope(|s| {
        for part in 0..2 {
            let dir = dir.path();
            s.spawn(move || {
                for (i, case) in cases.iter().enumerate().filter(|(i, _)| i % 2 == part) {
                    let worst = check(cxx, &dir.join(format!("case{i}")), 11 + i as u64, case);
                    eprintln!("rank {} half {}: largest relative difference {worst:.2e}", case.rank, case.half);
                }
            });
        }
    });
}

/// One worker over all of `ratings` ratings.
fn in_order(rank: usize, half: bool, users: usize, items: usize, ratings: usize) -> Case {
    Case { rank, half, users, items, ratings, workers: 1, start: 0, end: ratings, disjoint: false }
}

#[test]
fn one_worker_equals_the_reference_in_float() {
    // Every vector width (1, 2, 4 floats), rows shorter than, as long as and longer than a
    // warp's span, partial last steps (7, 100), the largest rank.
    check_all(&[
        in_order(1, false, 20, 15, 400),
        in_order(7, false, 20, 15, 400),
        in_order(31, false, 12, 9, 300),
        in_order(32, false, 12, 9, 300),
        in_order(64, false, 12, 9, 300),
        in_order(100, false, 12, 9, 300),
        in_order(128, false, 12, 9, 300),
        in_order(256, false, 10, 8, 200),
        in_order(1024, false, 6, 5, 60),
    ]);
}

#[test]
fn one_worker_equals_the_reference_in_half() {
    // Vector widths 1, 2, 4 and 8 halves; odd ranks put rows across words.
    check_all(&[
        in_order(1, true, 21, 15, 400),
        in_order(7, true, 21, 15, 400),
        in_order(64, true, 12, 9, 300),
        in_order(100, true, 13, 9, 300),
        in_order(128, true, 12, 9, 300),
        in_order(256, true, 10, 8, 200),
    ]);
}

#[test]
fn many_workers_update_each_rating_of_the_range_once() {
    // Workers not a multiple of the warps a block, a range from inside a chunk with a partial
    // last chunk, ratings outside it that must stay unapplied, and more workers than chunks.
    let case = |rank, half, workers, start, end| Case {
        rank,
        half,
        users: 4 * 24,
        items: 3 * 24,
        ratings: 20 * CHUNK,
        workers,
        start,
        end,
        disjoint: true,
    };
    check_all(&[
        case(32, false, 6, 50, 50 + 17 * CHUNK + 40),
        case(100, true, 5, 3, 19 * CHUNK),
        case(7, false, 40, CHUNK, 9 * CHUNK + 1),
        case(128, true, 9, 0, 20 * CHUNK),
    ]);
}
