//! subgraph-gpu: the GPU engine of subgraph, after GSI (Zeng et al., ICDE 2020): PCSR graph
//! storage (§IV-A), vertex signatures and GPU filtering (§III-A), and the join engine (§V–§VI:
//! Prealloc-Combine, warp set operations, write cache, load balancing), and GGQ's tree-pattern
//! counts and thread-ID enumeration (`ggq`), GpSM's edge join as a second strategy (`gpsm`),
//! FSIG's auxiliary structure (`fsig`) and host spill (`park`, with SGSI's columnar tables),
//! SGSI's partitions of a graph larger than the device (`partition`, `pipeline`) and several
//! GPUs of one host (`multi`), on the GPU runtime of subgraph-cuda with kernels compiled at run
//! time by NVRTC. Where queries and patterns run (the CPU or the GPU) is the `subgraph` crate's.

pub mod device;
pub mod dfs;
pub mod engine;
pub mod error;
pub mod fsig;
pub mod ggq;
pub mod gpsm;
pub mod gsi;
pub mod multi;
pub mod options;
pub mod partition;
pub mod shared;
#[cfg(test)]
mod testgen;
#[cfg(test)]
mod testtree;

pub use engine::{GpuEngine, GpuSet};
pub use error::{GpuError, Result};
pub use options::{
    CandidateFilter, DepthFirst, GpuCount, GpuOptions, Layout as ParkLayout, LoadBalance, OutputScheme, Park,
    Partitions, Strategy, Structure, DFS_FRONTIER_ROWS, SHARED_QUERY_COST,
};
pub use shared::report::{DfsStats, GpuReport, Spill, Streamed};

/// Every kernel source of the crate.
pub static KERNEL_SOURCES: [&subgraph_cuda::KernelSource; 11] = [
    &gsi::pcsr::SOURCE,
    &shared::scan::SOURCE,
    &gsi::filter::SOURCE,
    &gsi::join::SOURCE,
    &fsig::refine::SOURCE,
    &dfs::SOURCE,
    &ggq::SOURCE,
    &ggq::ids::SOURCE,
    &gpsm::kernels::SOURCE,
    &fsig::SOURCE,
    &partition::park::SOURCE,
];

/// Compiles every kernel source of the crate to PTX for `arch` (e.g. `sm_90`) with NVRTC; needs
/// NVRTC but no GPU or driver. Returns (source name, PTX text) pairs.
pub fn compile_all_ptx(arch: &str) -> Result<Vec<(&'static str, String)>> {
    KERNEL_SOURCES.iter().map(|source| Ok((source.name, subgraph_cuda::compile_ptx(source, arch)?.to_src()))).collect()
}
