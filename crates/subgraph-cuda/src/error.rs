//! Errors of the GPU runtime: why no GPU can be used, CUDA driver and NVRTC failures, kernels
//! missing or launched with the wrong arguments, and device memory exhausted or over budget.

use thiserror::Error;

/// What is missing for a GPU to be used; the caller falls back to the CPU.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GpuUnavailable {
    /// No CUDA driver library (`libcuda.so*`) on the loader path.
    #[error("CUDA driver library (libcuda.so / libcuda.so.1) not found on the loader path")]
    DriverLibrary,
    /// The driver loaded but offers no usable device.
    #[error("no usable CUDA device: {0}")]
    Device(String),
    /// No NVRTC library (`libnvrtc.so.13`) on the loader path.
    #[error("NVRTC library (libnvrtc.so.13) not found on the loader path: put its directory on LD_LIBRARY_PATH")]
    Nvrtc,
    /// A CUDA library loaded but lacks a function the runtime calls.
    #[error("CUDA library unusable: {0}")]
    Library(String),
}

/// Any failure of the GPU runtime.
#[derive(Debug, Error)]
pub enum CudaError {
    #[error("GPU unavailable: {0}")]
    Unavailable(#[from] GpuUnavailable),
    #[error("CUDA driver call failed: {0}")]
    Driver(#[from] cudarc::driver::DriverError),
    #[error("NVRTC could not compile {source_name} for {arch}: {log}")]
    Compile { source_name: String, arch: String, log: String },
    #[error("kernel {kernel} not found in the compiled module of {source_name}")]
    MissingKernel { source_name: String, kernel: String },
    #[error("device out of memory: asked for {requested} bytes ({what}), {free} bytes free of {total}")]
    OutOfMemory { what: &'static str, requested: u64, free: u64, total: u64 },
    #[error(
        "{what}: {requested} bytes more would hold {} bytes on the device, over its memory budget of {budget} bytes \
         (--gpu-memory)",
        held + requested
    )]
    OverBudget { what: &'static str, requested: u64, held: u64, budget: u64 },
    #[error("{0}")]
    Mismatch(String),
}

pub type Result<T, E = CudaError> = std::result::Result<T, E>;
