//! Vector search on the GPU (thesis ch. 4): GANNS search of a proximity graph held on the
//! device (§2.2), with the greedy descent of HNSW's upper layers, and exact brute force, both
//! through subgraph-cuda, with kernels compiled at run time per configuration.
//!
//! Modules, each above the ones it uses: `source` (the specialised kernel sources, their
//! shapes and the NVRTC check), `resident` (vectors on the device, the filter, batches),
//! `brute` (exact k-NN), `search` ([`GpuIndex`]), `build` (GGraphCon's construction, §2.3). The device code is in `common.cuh` (keys,
//! distances, warp sort and merge), `ganns.cuh` (the search of one query by one warp, a
//! `__device__` function a graph builder can call), `search.cu`, `brute.cu` and `build.cu`.

mod brute;
mod build;
mod resident;
mod search;
pub mod source;

pub use brute::{brute_batched, brute_force};
pub use build::build;
pub use resident::{DeviceVectors, BATCH_BYTES, MAX_BATCH};
pub use search::{GpuIndex, MAX_VERTICES};
pub use source::{
    check_shapes, compile_check, BruteShape, BuildShape, Formula, SearchShape, HALF_MAX, MAX_DEGREE, MAX_EF, MAX_K,
};
