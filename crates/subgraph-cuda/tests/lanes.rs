//! The three streams on a real GPU (`lanes`): float kernel arguments, copies and launches on
//! each lane, a sub-range read into a caller's slice, events ordering one lane after another,
//! asynchronous downloads into page-locked memory read only once done, and buffers used on a
//! lane freed only after that lane's work, even when dropped while a download still reads them,
//! and buffers set to all ones on the device.
//! Each test skips when no GPU is usable, unless SUBGRAPH_REQUIRE_GPU=1 (the NVRTC check of the
//! test kernels, when no NVRTC is, unless SUBGRAPH_REQUIRE_NVRTC=1).

use std::sync::OnceLock;
use std::time::Instant;

use subgraph_cuda::{check_nvrtc_library, compile_ptx, Arg, CudaError, Gpu, KernelDecl, KernelSource, Lane, Param};

fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match Gpu::new() {
        Ok(gpu) => {
            let info = gpu.info();
            eprintln!("device: {} ({}, {} MiB)", info.name, gpu.arch(), info.total_memory >> 20);
            Some(gpu)
        }
        Err(e) => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("skipped: {e}");
            None
        }
    })
    .as_ref()
}

/// `axpy`: y = a x + y; `slow`: y[i] = i + a after `spins` rounds of busy work a thread (to
/// keep a lane busy while another one copies; the work's result, which stays below 2, only
/// keeps the compiler from dropping it).
const CODE: &str = r#"
extern "C" __global__ void axpy(const float* x, unsigned n, float a, float* y) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void slow(unsigned n, unsigned spins, float a, float* y) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (unsigned k = 0; k < spins; ++k) s = s * 0.5f + 1.0f;
    y[i] = (float)i + a + (s > 2.0f ? 1.0f : 0.0f);
}
"#;

static KERNELS: [KernelDecl; 2] = [
    KernelDecl { name: "axpy", params: &[Param::BufF32, Param::U32, Param::F32, Param::BufF32] },
    KernelDecl { name: "slow", params: &[Param::U32, Param::U32, Param::F32, Param::BufF32] },
];
static SOURCE: KernelSource = KernelSource { name: "lanes_test.cu", code: CODE, kernels: &KERNELS };

#[test]
fn the_test_kernels_compile_with_float_parameters() {
    if let Err(why) = check_nvrtc_library() {
        if std::env::var("SUBGRAPH_REQUIRE_NVRTC").as_deref() == Ok("1") {
            panic!("SUBGRAPH_REQUIRE_NVRTC=1 but {why}");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let ptx = compile_ptx(&SOURCE, "sm_90").unwrap_or_else(|e| panic!("{e}")).to_src();
    assert!(ptx.contains(".param .f32 axpy_param_2"), "the float argument by value");
}

#[test]
fn float_arguments_copies_and_launches_on_every_lane() {
    let Some(gpu) = gpu() else { return };
    let axpy = gpu.kernel(&SOURCE, "axpy").unwrap();
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let xs = gpu.upload("lanes x", &x).unwrap();
    for (l, lane) in [Lane::Now, Lane::Ahead, Lane::Back].into_iter().enumerate() {
        let mut y = gpu.alloc_zeros::<f32>("lanes y", n).unwrap();
        gpu.write_on(lane, &mut y, 10, &vec![1.0; n - 10]).unwrap();
        let a = 0.5 + l as f32;
        gpu.launch_on(
            lane,
            &axpy,
            n.div_ceil(256) as u32,
            256,
            &mut [Arg::InF32(&xs), Arg::U32(n as u32), Arg::F32(a), Arg::OutF32(&mut y)],
        )
        .unwrap();
        let mut out = vec![0f32; 100];
        gpu.read_on(lane, &y, 5, &mut out).unwrap();
        for (j, v) in out.iter().enumerate() {
            let i = 5 + j;
            assert_eq!(*v, a * i as f32 + if i >= 10 { 1.0 } else { 0.0 }, "{lane:?}, element {i}");
        }
    }
    // A wrong kind of argument, and copies past the end, are refused.
    let mut y = gpu.alloc_zeros::<f32>("lanes y", n).unwrap();
    let wrong = gpu.launch(&axpy, 1, 32, &mut [Arg::InF32(&xs), Arg::U32(1), Arg::U32(1), Arg::OutF32(&mut y)]);
    assert!(matches!(wrong, Err(CudaError::Mismatch(_))));
    assert!(gpu.write_on(Lane::Ahead, &mut y, n - 1, &[1.0, 2.0]).is_err());
    assert!(gpu.read_on(Lane::Back, &y, n - 1, &mut [0.0; 2]).is_err());
}

#[test]
fn events_order_downloads_after_kernels_and_pinned_memory_waits_for_them() {
    let Some(gpu) = gpu() else { return };
    let slow = gpu.kernel(&SOURCE, "slow").unwrap();
    let n = 1 << 22;
    let mut y = gpu.alloc_zeros::<f32>("lanes slow", n).unwrap();
    let mut host = gpu.pinned_buffer::<f32>(n + 7).unwrap();
    assert_eq!(host.len(), n + 7);
    let started = Instant::now();
    gpu.launch(
        &slow,
        (n / 256) as u32,
        256,
        &mut [Arg::U32(n as u32), Arg::U32(20_000), Arg::F32(0.25), Arg::OutF32(&mut y)],
    )
    .unwrap();
    let done = gpu.record(Lane::Now).unwrap();
    gpu.wait_for(Lane::Back, &done).unwrap();
    gpu.download_async(Lane::Back, &y, 0..n, &mut host, 7).unwrap();
    let queued = started.elapsed();
    let ready_at_once = host.is_ready().unwrap();
    // Dropped while the download may still read it: its free waits for the download stream.
    drop(y);
    let mut other = gpu.alloc_zeros::<f32>("lanes reuse", n).unwrap();
    gpu.write(&mut other, 0, &vec![-1.0; n]).unwrap();
    let data = host.as_slice().unwrap();
    let waited = started.elapsed();
    assert!(done.is_done().unwrap());
    for i in (0..n).step_by(4099).chain([n - 1]) {
        assert_eq!(data[7 + i], i as f32 + 0.25, "element {i}");
    }
    assert_eq!(data[..7], [0.0; 7]);
    eprintln!(
        "kernel then download on the download stream: queued in {:.2} ms (ready at once: {ready_at_once}), \
         read after {:.2} ms",
        queued.as_secs_f64() * 1e3,
        waited.as_secs_f64() * 1e3
    );
    // Writable once done; a second download behind the first one into the same memory.
    host.as_mut_slice().unwrap()[0] = 9.0;
    gpu.download_async(Lane::Back, &other, 0..3, &mut host, 1).unwrap();
    gpu.download_async(Lane::Ahead, &other, 5..6, &mut host, 2).unwrap();
    assert_eq!(host.as_slice().unwrap()[..4], [9.0, -1.0, -1.0, -1.0]);
    assert!(gpu.download_async(Lane::Back, &other, 0..2, &mut host, n + 6).is_err());
    gpu.synchronize_on(Lane::Back).unwrap();
}

#[test]
fn copies_ahead_overlap_a_running_kernel() {
    let Some(gpu) = gpu() else { return };
    let slow = gpu.kernel(&SOURCE, "slow").unwrap();
    let n = 1 << 20;
    let mut busy = gpu.alloc_zeros::<f32>("lanes busy", n).unwrap();
    // Allocated on the copy stream, so that the copy waits for nothing on the default one.
    let mut target = gpu.alloc_zeros_on::<f32>(Lane::Ahead, "lanes target", 1 << 22).unwrap();
    // Readied ahead for the download stream, so that the read waits only for its own work.
    gpu.use_on(Lane::Back, &busy).unwrap();
    gpu.synchronize_on(Lane::Ahead).unwrap();
    gpu.synchronize().unwrap();
    let data = vec![3.0f32; 1 << 22];
    let started = Instant::now();
    gpu.launch(
        &slow,
        (n / 256) as u32,
        256,
        &mut [Arg::U32(n as u32), Arg::U32(2_000_000), Arg::F32(0.0), Arg::OutF32(&mut busy)],
    )
    .unwrap();
    gpu.write_on(Lane::Ahead, &mut target, 0, &data).unwrap();
    let copied = gpu.record(Lane::Ahead).unwrap();
    copied.synchronize().unwrap();
    let copy_done = started.elapsed();
    gpu.synchronize().unwrap();
    let kernel_done = started.elapsed();
    eprintln!(
        "16 MiB copied ahead in {:.2} ms while a kernel ran {:.2} ms",
        copy_done.as_secs_f64() * 1e3,
        kernel_done.as_secs_f64() * 1e3
    );
    assert!(
        copy_done < kernel_done,
        "the copy ahead ended with the kernel ({copy_done:?} against {kernel_done:?}), not during it"
    );
    let mut out = [0f32; 4];
    gpu.read_on(Lane::Now, &target, (1 << 22) - 4, &mut out).unwrap();
    assert_eq!(out, [3.0; 4]);
    gpu.read_on(Lane::Back, &busy, 1000, &mut out).unwrap();
    assert_eq!(out, [1000.0, 1001.0, 1002.0, 1003.0]);
}

#[test]
fn alloc_ones_sets_every_bit_on_the_device() {
    let Some(gpu) = gpu() else { return };
    let words = gpu.alloc_ones::<u32>("ones u32", 1000).unwrap();
    assert_eq!(gpu.download(&words).unwrap(), vec![u32::MAX; 1000]);
    let wide = gpu.alloc_ones::<u64>("ones u64", 3).unwrap();
    assert_eq!(gpu.download(&wide).unwrap(), vec![u64::MAX; 3]);
}
