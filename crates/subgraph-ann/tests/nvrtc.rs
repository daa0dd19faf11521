//! NVRTC compiles the GPU search's and brute force's kernel sources for sm_90 without a GPU,
//! for a representative set of configurations (`gpu::check_shapes`: dimensions 1 to 4096,
//! every metric, N of 32 to 1024 entries, degrees 16, 32 and 64, k up to 1024). Skips when libnvrtc
//! is not on the loader path, unless SUBGRAPH_REQUIRE_NVRTC=1.

use subgraph_ann::gpu::{check_shapes, compile_check, source, SearchShape};
use subgraph_ann::Metric;
use subgraph_cuda::{check_nvrtc_library, nvrtc_version};

fn nvrtc() -> bool {
    if let Err(why) = check_nvrtc_library() {
        if std::env::var("SUBGRAPH_REQUIRE_NVRTC").as_deref() == Ok("1") {
            panic!("SUBGRAPH_REQUIRE_NVRTC=1 but {why}");
        }
        eprintln!("skipped: {why}");
        return false;
    }
    true
}

#[test]
fn every_configuration_compiles_for_sm_90() {
    if !nvrtc() {
        return;
    }
    let version = nvrtc_version().unwrap();
    let (search, brute) = check_shapes();
    // Seven dimensions, two formulas (cos shares ip's sources), six shapes each; the search over
    // rows of either precision.
    assert_eq!(search.len(), 7 * 2 * 6 * 2);
    assert_eq!(brute.len(), 7 * 2 * 6);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let start = std::time::Instant::now();
    let ptx = compile_check("sm_90", &search, &brute, threads).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx.len(), search.len() + brute.len());
    for (i, (name, text)) in ptx.iter().enumerate() {
        assert!(text.contains(".target sm_90"), "{name}");
        let kernels: &[&str] = if i < search.len() {
            &[source::SEARCH_KERNEL, source::TO_HALF]
        } else {
            &[source::BRUTE_TOPK, source::BRUTE_FINISH]
        };
        for kernel in kernels {
            assert!(text.contains(&format!(".entry {kernel}(")), "{name}: {kernel}");
        }
    }
    let bytes: usize = ptx.iter().map(|(_, t)| t.len()).sum();
    eprintln!(
        "nvrtc {}.{}: {} sources -> {bytes} bytes of PTX in {:.1} s",
        version.0,
        version.1,
        ptx.len(),
        start.elapsed().as_secs_f64()
    );
    // Cached: a second call compiles nothing and returns the same PTX.
    let again = compile_check("sm_90", &search[..3], &brute[..3], 1).unwrap();
    assert_eq!(again[..3], ptx[..3]);
}

#[test]
fn odd_degrees_and_the_largest_shapes_compile() {
    if !nvrtc() {
        return;
    }
    let search: Vec<SearchShape> = [(100, 1, 1), (100, 1000, 24), (4096, 1024, 256), (7, 33, 100)]
        .into_iter()
        .map(|(dim, ef, degree)| SearchShape::new(dim, Metric::Cos, ef, degree).unwrap())
        .collect();
    let ptx = compile_check("sm_90", &search, &[], 2).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx.len(), 4);
}

#[test]
fn every_build_configuration_compiles_for_sm_90() {
    if !nvrtc() {
        return;
    }
    use subgraph_ann::gpu::BuildShape;
    use subgraph_ann::Prune;
    let mut names = Vec::new();
    for (dim, metric, ef, degree, prune) in [
        (3, Metric::L2, 64, 32, Prune::Diverse),
        (96, Metric::L2, 64, 32, Prune::Diverse),
        (128, Metric::Cos, 128, 16, Prune::Diverse),
        (128, Metric::L2, 64, 32, Prune::Nearest),
        (960, Metric::Ip, 256, 64, Prune::Diverse),
        (4096, Metric::L2, 1024, 256, Prune::Diverse),
    ] {
        let shape = BuildShape::new(dim, metric, ef, degree, prune).unwrap();
        let source = source::build_source(shape);
        let ptx = subgraph_cuda::compile_ptx(source, "sm_90").unwrap_or_else(|e| panic!("{e}")).to_src();
        for kernel in [source::GGC_LOCAL, source::GGC_SEARCH, source::GGC_BACKWARD] {
            assert!(ptx.contains(&format!(".entry {kernel}(")), "{}: {kernel}", source.name);
        }
        names.push(source.name);
    }
    eprintln!("compiled {names:?}");
}
