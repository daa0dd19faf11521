//! subgraph-gpu: the GPU matcher of subgraph, on the runtime of subgraph-cuda (kernels compiled
//! at run time by NVRTC) and the plans of subgraph-core: GSI's join (Zeng et al., ICDE 2020) and
//! beside it, as switchable strategies and parts, FSIG's auxiliary structure and refinement,
//! GpSM's edge join, GGQ's tree passes and thread IDs, a depth-first counting kernel, SGSI's
//! partitions of a graph larger than the device with FSIG's host spill, and several GPUs of one
//! host. Where queries and patterns run (the CPU or the GPU) is the `subgraph` crate's.
//!
//! One folder per strategy or technique, each `.cu` beside the module that launches it; a module
//! imports only modules below it (`scripts/import-loops.py` checks that none imports one that
//! imports it back). From the top:
//!
//! - [`engine`]: [`GpuEngine`] (one device) and [`GpuSet`] (several) open the devices, upload
//!   the data graph, and send each query to the strategy `--gpu-strategy` names.
//! - [`multi`]: GSI's join of one query planned once and dealt to several devices (`deal`: the
//!   first-level rows, claimed from one queue).
//! - [`gsi`]: GSI's join: `query` (one query on one device: filter, plan, levels, join), `plan`
//!   (the planned query and its report), `join` and `join.cu` (the join steps), `chunks` (their
//!   sizes within the memory budget), `balance` (load balancing), `device_graph` (the data graph
//!   on the device), `filter` and `filter.cu` (the signature filter), `signature`, `pcsr` and
//!   `pcsr.cu` (PCSR), `hash` (MurmurHash2, as `pcsr.cu` computes it).
//! - [`fsig`]: FSIG's strategy (`compose`) and its structure A (`fsig.cu`), and its candidate
//!   refinement (`refine`, `refine.cu`).
//! - [`gpsm`]: GpSM's edge join, its `kernels` (`gpsm.cu`: filter, candidate-edge tables), its
//!   `plan` on the host and its `options`.
//! - [`ggq`]: GGQ's tree passes (`passes.cu`) and thread-ID enumeration (`ids`, `ids.cu`) over
//!   its own CSR (`csr`).
//! - [`dfs`]: the depth-first counting kernel (`dfs.cu`) the join hands its last levels to.
//! - [`partition`]: SGSI's segments of a data graph in host memory, and FSIG's host spill
//!   (`park`, `park.cu`) of the join's tables.
//! - [`device`]: one GPU with the data graph on it, what every strategy's query runs on.
//! - [`shared`]: what the strategies share, below all of them: the `report` types, the limit's
//!   `tally`, the `emit` of finished rows, each plan position's `levels` data, the data-graph
//!   arguments of `slices.cu` (`slices`), and the device prefix sum (`scan`, `scan.cu`).
//! - [`options`] (every switch of the engine, GpSM's in `gpsm::options`) and [`error`] at the
//!   bottom.

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
