//! The kernels' logic without a GPU: the very kernel sources `gpu::source` makes (the `.cu`
//! text NVRTC compiles), compiled by the host's C++ compiler against a small emulator
//! (`tests/emu/emu.h`: each thread a fiber, lanes in a random order between barriers, divergent
//! warp barriers fatal) and run against their definitions on small integer vectors, where the
//! answers must be the same bit for bit (`tests/emu/search.cpp`, `tests/emu/brute.cpp`). Skips
//! off Linux or where no C++ compiler runs, unless SUBGRAPH_REQUIRE_EMU=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use subgraph_ann::gpu::{source, BruteShape, SearchShape};
use subgraph_ann::{Metric, Precision};

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

/// Compiles `driver` (search.cpp or brute.cpp) with `code` as its kernel.cu in a fresh folder.
fn build(cxx: &str, dir: &Path, driver: &str, code: &str) -> PathBuf {
    let emu = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emu");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("kernel.cu"), code).unwrap();
    let exe = dir.join("emulated");
    let out = Command::new(cxx)
        .args(["-std=c++20", "-O1", "-w", "-I"])
        .arg(dir)
        .arg("-I")
        .arg(&emu)
        .arg(emu.join(driver))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{cxx} {driver}: {}", String::from_utf8_lossy(&out.stderr));
    exe
}

fn run(exe: &Path, args: &[usize]) -> String {
    let out = Command::new(exe).args(args.iter().map(|a| a.to_string())).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains(" 0 mismatches"), "{exe:?} {args:?}:\n{text}");
    text
}

/// Runs `jobs` on two threads.
fn on_two_threads<T: Sync>(jobs: &[T], f: impl Fn(usize, &T) + Sync) {
    std::thread::scope(|s| {
        for part in 0..2 {
            let f = &f;
            s.spawn(move || {
                for (i, job) in jobs.iter().enumerate().filter(|(i, _)| i % 2 == part) {
                    f(i, job);
                }
            });
        }
    });
}

/// One run of search.cpp: the kernels' shape, the data, and the search.
struct SearchCase {
    dim: usize,
    metric: Metric,
    ef: usize,
    degree: usize,
    n: usize,
    queries: usize,
    k: usize,
    /// Vertices of the upper layer (0: none).
    upper: usize,
    /// Ids i with i % filter == 1 fail (0: no filter).
    filter: usize,
    /// Repeats and holes in layer 0's rows, and an empty row.
    untidy: bool,
}

/// One run of brute.cpp.
struct BruteCase {
    dim: usize,
    metric: Metric,
    k: usize,
    n: usize,
    queries: usize,
    splits: usize,
    /// Only ids i with i % filter == 0 pass (0: no filter).
    filter: usize,
    /// Values are integers in [-range / 2, range / 2].
    range: usize,
}

#[test]
fn search_kernels_follow_ganns_on_an_emulated_warp() {
    let Some(cxx) = compiler() else { return };
    let dir = tempfile::tempdir().unwrap();
    // N of 32 to 1024, T of 32 to 128, the float4 path and the scalar one, dimensions below and
    // above a warp, one and two layers, filters, untidy rows.
    let case = |dim, metric, ef, degree, n, queries, k, upper, filter, untidy| SearchCase {
        dim,
        metric,
        ef,
        degree,
        n,
        queries,
        k,
        upper,
        filter,
        untidy,
    };
    let cases = [
        case(3, Metric::L2, 1, 16, 300, 8, 1, 60, 0, false),
        case(16, Metric::Ip, 33, 20, 500, 8, 10, 50, 3, true),
        case(100, Metric::L2, 64, 32, 500, 6, 16, 50, 5, false),
        case(130, Metric::Ip, 100, 64, 600, 3, 50, 60, 0, true),
        case(7, Metric::L2, 300, 100, 400, 1, 100, 40, 0, false),
        case(12, Metric::Ip, 1000, 8, 700, 2, 100, 0, 4, false),
    ];
    // The first four also with the smallest visited set (four rows' worth), emptied every few
    // vertices: with N no longer than a quarter of it (no lazy check), and longer. Each case
    // with the default rows a warp computes at once, and the first three with one row, two and
    // 32 (a row's slots split over the rounds, a round past the row's end). Each case also over
    // half-precision rows (small integers, so the definition's distances), the first with the
    // smallest visited set too. Cases 0, 2 and 4 (odd seeds) answer in a caller's numbering.
    let runs: Vec<(usize, bool, Option<usize>, bool)> = (0..cases.len())
        .flat_map(|i| {
            [
                (i, false, None, false),
                (i, true, None, false),
                (i, false, Some([1, 2, 32][i % 3]), false),
                (i, false, None, true),
                (i, true, None, true),
            ]
        })
        .filter(|r| match r {
            (i, true, _, half) => *i < if *half { 1 } else { 4 },
            (i, _, Some(_), _) => *i < 3,
            _ => true,
        })
        .collect();
    on_two_threads(&runs, |_, &(i, smallest, rows, half)| {
        let c = &cases[i];
        let precision = if half { Precision::Half } else { Precision::Single };
        let shape = SearchShape::new(c.dim, c.metric, c.ef, c.degree).unwrap().with_precision(precision);
        let mut code = source::search_source(shape).code.to_string();
        let replace = |code: &mut String, name: &str, value: usize| {
            let at = code.find(&format!("#define {name} ")).expect(name);
            let end = at + code[at..].find('\n').unwrap();
            code.replace_range(at..end, &format!("#define {name} {value}"));
        };
        if smallest {
            replace(&mut code, "HS_LOG2", (4 * shape.tl()).trailing_zeros() as usize);
        }
        if let Some(rows) = rows {
            replace(&mut code, "ROWS", rows);
        }
        let name = format!("search{i}_{smallest}_{rows:?}_{half}");
        let exe = build(cxx, &dir.path().join(name), "search.cpp", &code);
        let args = [c.n, c.queries, c.ef, c.k, c.upper, 17 + i, c.filter, usize::from(c.untidy)];
        eprint!("{}", run(&exe, &args));
    });
}

#[test]
fn warp_totals_have_the_bits_of_one_total_at_a_time() {
    let Some(cxx) = compiler() else { return };
    let dir = tempfile::tempdir().unwrap();
    on_two_threads(&[Metric::L2, Metric::Ip], |i, &metric| {
        let shape = SearchShape::new(128, metric, 64, 32).unwrap();
        let exe = build(cxx, &dir.path().join(format!("totals{i}")), "totals.cpp", source::search_source(shape).code);
        eprint!("{}", run(&exe, &[40, 7 + i]));
    });
}

#[test]
fn brute_force_kernels_are_exact_on_an_emulated_warp() {
    let Some(cxx) = compiler() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Every room of the lists (32 to 1024), several splits, filters, and many ties (3 or 5
    // values).
    let case = |dim, metric, k, n, queries, splits, filter, range| BruteCase {
        dim,
        metric,
        k,
        n,
        queries,
        splits,
        filter,
        range,
    };
    let cases = [
        case(3, Metric::L2, 1, 1000, 40, 1, 0, 17),
        case(3, Metric::Ip, 10, 1000, 40, 3, 7, 17),
        case(100, Metric::L2, 50, 700, 20, 2, 0, 17),
        case(128, Metric::Ip, 100, 900, 17, 4, 5, 5),
        case(33, Metric::L2, 200, 1000, 9, 1, 3, 17),
        case(8, Metric::Ip, 500, 1200, 5, 2, 0, 3),
        case(16, Metric::L2, 1000, 1500, 3, 3, 2, 17),
        case(5, Metric::L2, 1000, 1100, 3, 1, 1000, 17),
    ];
    on_two_threads(&cases, |i, c| {
        let shape = BruteShape::new(c.dim, c.metric, c.k).unwrap();
        let exe = build(cxx, &dir.path().join(format!("brute{i}")), "brute.cpp", source::brute_source(shape).code);
        eprint!("{}", run(&exe, &[c.n, c.queries, c.k, c.splits, 29 + i, c.filter, c.range]));
    });
}
