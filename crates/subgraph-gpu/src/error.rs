//! Errors of the GPU engine: the GPU runtime's (no GPU usable, CUDA driver and NVRTC failures,
//! device memory exhausted or over budget: [`CudaError`]), a data graph held in segments where
//! a query reads it whole, and structures too large for the 32-bit layouts of GSI §IV.

use subgraph_cuda::{CudaError, GpuUnavailable};
use thiserror::Error;

/// Any failure of the GPU engine.
#[derive(Debug, Error)]
pub enum GpuError {
    /// The GPU runtime's failure; [`CudaError::Unavailable`] when no driver, device or NVRTC is
    /// usable (the caller falls back to the CPU engine).
    #[error(transparent)]
    Cuda(#[from] CudaError),
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

impl From<GpuUnavailable> for GpuError {
    fn from(e: GpuUnavailable) -> Self {
        GpuError::Cuda(e.into())
    }
}

pub type Result<T, E = GpuError> = std::result::Result<T, E>;

/// `n` as a u32, or [`GpuError::TooLarge`] naming `what`.
pub(crate) fn to_u32(what: &'static str, n: u64) -> Result<u32> {
    u32::try_from(n).map_err(|_| GpuError::TooLarge { what, len: n, max: u32::MAX as u64 })
}
