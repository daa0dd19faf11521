//! How the kernels of `slices.cu` read the data graph (the join's, the refinement's, FSIG's A
//! build's, GpSM's and the depth-first kernel's, each compiled after `pcsr.cu` and `slices.cu`):
//! one adjacency structure in one layout (PCSR, the plain CSR baseline, or FSIG's A) and the nine
//! data-graph arguments every such kernel starts with.

use subgraph_cuda::{Arg, DeviceBuffer, Gpu};

use crate::error::Result;
use crate::options::Structure;

/// One adjacency structure on the device, in the layout `slices.cu` reads.
pub(crate) struct DeviceStructure {
    pub(crate) groups: DeviceBuffer<u32>,
    pub(crate) meta: DeviceBuffer<u64>,
    pub(crate) columns: DeviceBuffer<u32>,
    pub(crate) elabels: DeviceBuffer<u32>,
}

impl DeviceStructure {
    /// A structure of no lists.
    pub(crate) fn empty(gpu: &Gpu) -> Result<DeviceStructure> {
        Ok(DeviceStructure {
            groups: gpu.alloc_zeros("placeholder", 1)?,
            meta: gpu.alloc_zeros("placeholder", 3)?,
            columns: gpu.alloc_zeros("placeholder", 1)?,
            elabels: gpu.alloc_zeros("placeholder", 1)?,
        })
    }
}

/// The nine data-graph arguments every kernel of `slices.cu` (the join's and the refinement's)
/// starts with.
pub(crate) struct GraphArgs<'a> {
    pub(crate) st: &'a DeviceStructure,
    pub(crate) labels: &'a DeviceBuffer<u32>,
    pub(crate) adj_off: &'a DeviceBuffer<u64>,
    pub(crate) adj_col: &'a DeviceBuffer<u32>,
    pub(crate) mode: u32,
    pub(crate) nverts: u32,
}

impl<'a> GraphArgs<'a> {
    pub(crate) fn args(&self) -> Vec<Arg<'a>> {
        vec![
            Arg::In32(&self.st.groups),
            Arg::In64(&self.st.meta),
            Arg::In32(&self.st.columns),
            Arg::In32(&self.st.elabels),
            Arg::In32(self.labels),
            Arg::In64(self.adj_off),
            Arg::In32(self.adj_col),
            Arg::U32(self.mode),
            Arg::U32(self.nverts),
        ]
    }
}

/// The `mode` argument of the kernels of `slices.cu`: 0 PCSR, 1 CSR, 2 FSIG's A.
pub(crate) fn structure_mode(structure: Structure) -> u32 {
    match structure {
        Structure::Pcsr | Structure::Auto => 0,
        Structure::Csr => 1,
        Structure::Aux => 2,
    }
}
