//! subgraph-cuda: the GPU runtime of subgraph, with no knowledge of graphs: detection of the
//! CUDA driver, devices and NVRTC that never panics, a context on any device, kernels compiled
//! at run time by NVRTC (once per process and architecture), device buffers checked against the
//! free device memory and a memory budget, page-locked host memory, a second stream for copies
//! made ahead and a third for downloads, with events, and the double-buffered copy pipeline;
//! through cudarc. Every `unsafe` of the GPU code (calls into CUDA) is here, each beside its
//! reason (`SAFETY:`).
//!
//! Work runs on a context's default stream, in program order; copies made ahead run on a second
//! stream, ordered with the default one by events ([`Gpu::upload_parts`], [`Gpu::arrived`]); a
//! third stream takes downloads; copies and launches may be put on any of the three
//! ([`Lane`]), ordered by the caller's [`Event`]s.
//!
//! Modules, each above the ones it uses: [`error`](CudaError); `detect` (driver and NVRTC
//! libraries, versions); `nvrtc` (kernel sources, compilation to PTX, its cache); `budget` (bytes
//! held, the cap, the free-memory guess); `buffer` ([`DeviceBuffer`], [`Lane`]); `gpu` ([`Gpu`]:
//! the context, allocations, copies); `launch` ([`Kernel`], [`Arg`]: loading and checked
//! launches); `host` ([`HostBuffer`], [`HostFlag`]: page-locked memory); `stream` (copies made
//! ahead); `lanes` ([`Event`], [`PinnedBuffer`]: work on the three streams, asynchronous
//! downloads); `pipeline` ([`pipelined`]: a pass over pieces copied one ahead, double buffered).

mod budget;
mod buffer;
mod detect;
mod error;
mod gpu;
mod host;
mod lanes;
mod launch;
mod nvrtc;
mod pipeline;
mod stream;

pub use buffer::{DeviceBuffer, DeviceScalar, Lane};
pub use detect::{check_driver_library, check_nvrtc_library, driver_version, nvrtc_version, Versions};
pub use error::{CudaError, GpuUnavailable, Result};
pub use gpu::{DeviceInfo, Gpu};
pub use host::{HostBuffer, HostFlag, HOST_BUFFER_ELEMS};
pub use lanes::{Event, PinnedBuffer};
pub use launch::{Arg, Kernel};
pub use nvrtc::{compile_ptx, KernelDecl, KernelSource, Param};
pub use pipeline::pipelined;

/// Device code for kernel sources to put before their own: `half_to_f32` and `f32_to_half`,
/// IEEE half precision as 16-bit patterns (NVRTC has no `cuda_fp16.h` without the toolkit's
/// headers).
pub const HALF_CUH: &str = include_str!("half.cuh");
pub use stream::{Arriving, HostSource};
