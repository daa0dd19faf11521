//! subgraph-cuda: the GPU runtime of subgraph, with no knowledge of graphs: detection of the
//! CUDA driver, devices and NVRTC that never panics, a context on any device, kernels compiled
//! at run time by NVRTC (once per process and architecture), device buffers checked against
//! the free device memory and a memory budget, page-locked host memory, a second stream for
//! copies made ahead with events, and the double-buffered copy pipeline; through cudarc. The
//! only crate of the workspace with `unsafe`.

mod error;
mod gpu;
mod pipeline;

pub use error::{CudaError, GpuUnavailable, Result};
pub use gpu::{
    check_driver_library, check_nvrtc_library, compile_ptx, driver_version, nvrtc_version, Arg, Arriving, DeviceBuffer,
    DeviceInfo, DeviceScalar, Gpu, HostBuffer, HostFlag, HostSource, Kernel, KernelDecl, KernelSource, Lane, Param,
    Versions, HOST_BUFFER_ELEMS,
};
pub use pipeline::pipelined;
