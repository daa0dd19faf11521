//! NVRTC compiles every kernel source of the crate for sm_90 without a GPU (CI check of the
//! `.cu` files). Skips when libnvrtc is not on the loader path, unless
//! SUBGRAPH_REQUIRE_NVRTC=1.

use subgraph_cuda::{check_nvrtc_library, nvrtc_version};
use subgraph_gpu::{compile_all_ptx, KERNEL_SOURCES};

#[test]
fn every_kernel_source_compiles_for_sm_90() {
    if let Err(why) = check_nvrtc_library() {
        if std::env::var("SUBGRAPH_REQUIRE_NVRTC").as_deref() == Ok("1") {
            panic!("SUBGRAPH_REQUIRE_NVRTC=1 but {why}");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let version = nvrtc_version().unwrap();
    let ptx = compile_all_ptx("sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx.len(), KERNEL_SOURCES.len());
    for (name, text) in &ptx {
        assert!(text.contains(".target sm_90"), "{name}");
        for kernel in KERNEL_SOURCES.iter().find(|s| s.name == *name).unwrap().kernels {
            assert!(text.contains(&format!(".entry {}(", kernel.name)), "{}", kernel.name);
        }
        eprintln!("nvrtc {}.{}: {name} -> {} bytes of PTX", version.0, version.1, text.len());
    }
    // Cached: the second call returns the same PTX.
    assert_eq!(compile_all_ptx("sm_90").unwrap(), ptx);
}
