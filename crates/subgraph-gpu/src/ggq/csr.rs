//! The data graph as GGQ's kernels read it: one plain CSR per direction, each edge's label
//! beside its neighbour (uploaded once per data graph).

use subgraph_core::{Dir, Graph};
use subgraph_cuda::{DeviceBuffer, Gpu};

use crate::error::Result;

/// One direction's adjacency: offsets, neighbours, and each edge's label.
pub(super) struct Csr {
    pub(super) off: DeviceBuffer<u64>,
    pub(super) nbr: DeviceBuffer<u32>,
    pub(super) label: DeviceBuffer<u32>,
}

impl Csr {
    pub(super) fn upload(gpu: &Gpu, data: &Graph, dir: Dir) -> Result<Csr> {
        let n = data.num_vertices();
        let mut off = Vec::with_capacity(n + 1);
        let mut nbr = Vec::new();
        let mut label = Vec::new();
        off.push(0u64);
        for v in 0..n as u32 {
            for (pair, ws) in data.neighbor_groups(v, dir) {
                nbr.extend_from_slice(ws);
                label.extend(std::iter::repeat_n(data.pair(pair).0, ws.len()));
            }
            off.push(nbr.len() as u64);
        }
        Ok(Csr {
            off: gpu.upload("tree pass offsets", &off)?,
            nbr: gpu.upload("tree pass neighbours", &nbr)?,
            label: gpu.upload("tree pass edge labels", &label)?,
        })
    }
}
