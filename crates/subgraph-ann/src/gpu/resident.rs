//! Vectors held on the device (thesis §2.2: graph, base points and queries live in global
//! memory), a graph's upper layers, the filter bitset's upload, and the batches that keep a
//! search's device memory bounded whatever the number of queries.

use subgraph_cuda::{DeviceBuffer, Gpu};

use crate::error::{AnnError, Result};
use crate::filter::Allowed;
use crate::graph::{Layer, NONE};
use crate::vectors::Vectors;

/// Device bytes a batch of queries may take (their rows and answers), which sets how many
/// queries one launch takes.
pub const BATCH_BYTES: usize = 256 << 20;
/// The most queries one launch takes.
pub const MAX_BATCH: usize = 1 << 16;

/// Row-major f32 vectors uploaded once, to be searched many times.
pub struct DeviceVectors {
    buf: DeviceBuffer<f32>,
    len: usize,
    dim: usize,
}

impl DeviceVectors {
    /// Uploads `vectors` (prepared for their metric, see [`crate::Metric::prepare`]); at most
    /// `u32::MAX - 1` rows.
    pub fn upload(gpu: &Gpu, vectors: &Vectors) -> Result<Self> {
        if vectors.len() >= u32::MAX as usize {
            return Err(AnnError::Vectors(format!("{} vectors: the GPU takes fewer than 2^32 - 1", vectors.len())));
        }
        let buf = gpu.upload("ann base vectors", vectors.as_slice())?;
        Ok(DeviceVectors { buf, len: vectors.len(), dim: vectors.dim() })
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn buffer(&self) -> &DeviceBuffer<f32> {
        &self.buf
    }
}

/// The filter bitset on the device and whether there is one (the kernels' `filtered`): the
/// words of `allowed`, which must cover `n` ids, or one unused word.
pub fn upload_allowed(gpu: &Gpu, allowed: Option<&Allowed>, n: usize) -> Result<(DeviceBuffer<u32>, u32)> {
    check_allowed(allowed, n)?;
    match allowed {
        None => Ok((gpu.alloc_zeros("ann no filter", 1)?, 0)),
        Some(a) => Ok((gpu.upload("ann filter", &a.words)?, 1)),
    }
}

/// Refuses a filter that does not cover exactly the `n` ids of the index.
pub fn check_allowed(allowed: Option<&Allowed>, n: usize) -> Result<()> {
    match allowed {
        Some(a) if a.len != n || a.words.len() != n.div_ceil(32) => Err(AnnError::Parameter(format!(
            "the filter covers {} ids in {} words, the index has {n} vectors",
            a.len,
            a.words.len()
        ))),
        _ => Ok(()),
    }
}

/// Queries one launch takes for rows of `dim` and answers of `k`: `fixed` where given (at
/// least 1), else as many as [`BATCH_BYTES`] holds, at most [`MAX_BATCH`].
pub fn batch_queries(dim: usize, k: usize, fixed: Option<usize>) -> usize {
    match fixed {
        Some(b) => b.max(1),
        None => (BATCH_BYTES / (4 * dim + 16 * k + 16)).clamp(1, MAX_BATCH),
    }
}

/// `x` as a kernel's u32 argument.
pub fn to_u32(what: &str, x: usize) -> Result<u32> {
    u32::try_from(x).map_err(|_| AnnError::Parameter(format!("{what} {x} is beyond the GPU kernels' 32-bit counts")))
}

/// A graph's layers above 0 on the device, for the descent of a search's entry (`ganns.cuh`'s
/// `ganns_entry`): their rows one after another (`rows`) and (offset, degree, vertices) per
/// layer, bottom first (`meta`); one unused word in each where there are none.
pub struct UpperLayers {
    pub rows: DeviceBuffer<u32>,
    pub meta: DeviceBuffer<u32>,
    /// Layers.
    pub count: u32,
}

impl UpperLayers {
    /// Uploads `upper` (layer 1 first).
    pub fn upload(gpu: &Gpu, upper: &[Layer]) -> Result<Self> {
        let mut rows = Vec::new();
        let mut meta = Vec::new();
        for layer in upper {
            meta.extend([
                to_u32("upper layer offset", rows.len())?,
                to_u32("degree", layer.degree)?,
                to_u32("vertices", layer.len())?,
            ]);
            rows.extend_from_slice(&layer.adjacency);
        }
        let count = to_u32("layers", upper.len())?;
        if rows.is_empty() {
            rows.push(NONE);
        }
        if meta.is_empty() {
            meta.push(0);
        }
        Ok(UpperLayers {
            rows: gpu.upload("ann upper layers", &rows)?,
            meta: gpu.upload("ann upper layer shapes", &meta)?,
            count,
        })
    }
}
