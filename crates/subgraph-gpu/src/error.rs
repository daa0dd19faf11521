//! Errors of the GPU engine: why no GPU can be used, CUDA driver and NVRTC failures, device
//! memory exhaustion, and structures too large for the 32-bit layouts of GSI §IV.

use thiserror::Error;

/// What is missing for the GPU engine to run; the caller falls back to the CPU engine.
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
    /// A CUDA library loaded but lacks a function the engine calls.
    #[error("CUDA library unusable: {0}")]
    Library(String),
}

/// Any failure of the GPU engine.
#[derive(Debug, Error)]
pub enum GpuError {
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
    #[error(
        "{what} reads the whole data graph on the device, which holds it in segments (it does not fit the device \
         memory or --gpu-memory, or --gpu-partitions is on)"
    )]
    Partitioned { what: &'static str },
    #[error("{what} has {len} entries, more than the 32-bit layout holds ({max})")]
    TooLarge { what: &'static str, len: u64, max: u64 },
    #[error("{0}")]
    Mismatch(String),
    #[error(transparent)]
    Core(#[from] subgraph_core::Error),
}

pub type Result<T, E = GpuError> = std::result::Result<T, E>;

/// `n` as a u32, or [`GpuError::TooLarge`] naming `what`.
pub(crate) fn to_u32(what: &'static str, n: u64) -> Result<u32> {
    u32::try_from(n).map_err(|_| GpuError::TooLarge { what, len: n, max: u32::MAX as u64 })
}
