//! NVRTC compiles the GPU engine's kernel source (thesis §3.2, CuMF_SGD's kernel) for sm_90
//! without a GPU, at every rank of `gpu::source::CHECK_RANKS` (1 to 1024: below, at and above a
//! warp, not a power of two, the default 128) in float and half precision, with weak vector
//! loads chosen for k = 128. Skips when libnvrtc is not on the loader path, unless
//! SUBGRAPH_REQUIRE_NVRTC=1.

use std::time::Instant;

use subgraph_cuda::{check_nvrtc_library, compile_ptx, nvrtc_version};
use subgraph_mf::gpu::source::{check_shapes, sgd_source, SgdShape, FROM_HALF, SGD_UPDATE, TO_HALF};

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

/// The PTX of `shape` for `arch`.
fn ptx(shape: SgdShape, arch: &str) -> String {
    let source = sgd_source(shape);
    compile_ptx(source, arch).unwrap_or_else(|e| panic!("{}: {e}", source.name)).to_src()
}

#[test]
fn every_rank_and_precision_compiles_for_sm_90() {
    if !nvrtc() {
        return;
    }
    let version = nvrtc_version().unwrap();
    let shapes = check_shapes();
    assert_eq!(shapes.len(), 16);
    let start = Instant::now();
    let mut bytes = 0;
    for shape in shapes {
        let text = ptx(shape, "sm_90");
        let name = sgd_source(shape).name;
        assert!(text.contains(".target sm_90"), "{name}");
        let kernels: &[&str] = if shape.half { &[SGD_UPDATE, TO_HALF, FROM_HALF] } else { &[SGD_UPDATE] };
        for kernel in kernels {
            assert!(text.contains(&format!(".entry {kernel}(")), "{name}: {kernel}");
        }
        assert!(!text.contains(".local"), "{name}: factors spilled to local memory");
        bytes += text.len();
    }
    eprintln!(
        "nvrtc {}.{}: 16 sources -> {bytes} bytes of PTX in {:.1} s",
        version.0,
        version.1,
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn rank_128_loads_rows_with_weak_vector_loads() {
    if !nvrtc() {
        return;
    }
    // Plain loads: `ld.global.cg` (through L2 only) is a strong load on sm_70 and later, which
    // waited for the warp's earlier stores and took twice as long an epoch.
    let f32 = ptx(SgdShape::new(128, false).unwrap(), "sm_90");
    assert!(f32.contains("ld.global.v4.f32"), "k = 128, float: a float4 a lane");
    assert!(f32.contains("st.global.v4.f32"));
    assert!(f32.contains("shfl.sync.bfly"), "the dot product by butterfly shuffles");
    let half = ptx(SgdShape::new(128, true).unwrap(), "sm_90");
    assert!(half.contains("ld.global.v2.u32"), "k = 128, half: 4 halves a lane");
    assert!(half.contains("cvt.rn.f16.f32"), "rounded to nearest on the way back");
    let wide = ptx(SgdShape::new(1024, true).unwrap(), "sm_90");
    assert!(wide.contains("ld.global.v4.u32"), "k = 1024, half: 8 halves a lane");
    for (name, text) in [("float", &f32), ("half", &half), ("k = 1024 half", &wide)] {
        assert!(!text.contains("ld.global.cg"), "{name}: rows loaded through L2 only (strong loads)");
    }
}

#[test]
fn other_architectures_compile() {
    if !nvrtc() {
        return;
    }
    for arch in ["sm_80", "sm_89"] {
        for shape in [SgdShape::new(128, false).unwrap(), SgdShape::new(100, true).unwrap()] {
            assert!(ptx(shape, arch).contains(&format!(".target {arch}")));
        }
    }
}
