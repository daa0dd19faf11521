//! One GPU and the data graph on it: the runtime's device, the data graph in GSI's layout or in
//! SGSI's segments ([`DeviceGraph`]), and the page-locked memory matches come to the host through;
//! what every strategy's query runs on. [`GpuEngine`](crate::GpuEngine) holds one, with each
//! strategy's kernels beside it, loaded as its queries first need them (`loaded`).

use std::sync::Arc;

use subgraph_core::Graph;
use subgraph_cuda::{Gpu, HostBuffer};

use crate::error::{GpuError, Result};
use crate::gsi::device_graph::DeviceGraph;

/// One GPU with the data graph on it.
pub(crate) struct GpuDevice {
    pub(crate) gpu: Gpu,
    /// The data graph on the host, shared (plans are made on the host) instead of copied.
    pub(crate) data: Arc<Graph>,
    pub(crate) graph: DeviceGraph,
    /// Page-locked memory that written matches come to the host through, allocated on the
    /// first query that writes them: up to `emit::WRITE_BUFFERS` buffers, one filled while
    /// the others are written.
    pub(crate) host: Vec<HostBuffer>,
}

impl GpuDevice {
    /// Fails with [`GpuError::Partitioned`] naming `what` where the data graph is partitioned
    /// (`what` reads the whole graph on the device).
    pub(crate) fn whole(&self, what: &'static str) -> Result<()> {
        match self.graph.partitioned {
            Some(_) => Err(GpuError::Partitioned { what }),
            None => Ok(()),
        }
    }

    /// Starts a query's peak of device bytes (and looks at the device's free memory), and its
    /// count of streamed segments.
    pub(crate) fn reset_peak(&self) -> Result<()> {
        if let Some(p) = &self.graph.partitioned {
            p.take_streamed();
            p.release();
        }
        Ok(self.gpu.reset_peak()?)
    }
}

/// The kernels in `slot`, loaded by `load` unless they were already.
pub(crate) fn loaded<T>(slot: &mut Option<T>, load: impl FnOnce() -> Result<T>) -> Result<&T> {
    Ok(match slot {
        Some(kernels) => kernels,
        None => slot.insert(load()?),
    })
}
