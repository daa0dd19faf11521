//! Matrix factorisation on the GPU (thesis §3.2's GPU side, after CuMF_SGD: Xie et al., HPDC
//! 2017), through subgraph-cuda, with the kernel compiled at run time per rank and precision.
//!
//! Modules, each above the ones it uses: `source` (the specialised kernel sources and their
//! shapes), `sgd` ([`GpuSgd`]: factors and ratings on the device, runs of the kernel, rows in
//! and out on three streams), `only` ([`GpuOnly`]: the GPU-only engine). The device code is `sgd.cu` (the batch-Hogwild! update, a warp a
//! worker, and the half-precision conversions).

mod only;
mod sgd;
pub mod source;

pub use only::GpuOnly;
pub use sgd::{DeviceRatings, GpuOptions, GpuSgd};
pub use source::{sgd_source, SgdShape};
