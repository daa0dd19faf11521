//! The kernel source of the GPU engine, specialised per rank and precision (thesis §3.2:
//! CuMF_SGD's kernel is written for one k, its factors in half precision; here any k from 1 to
//! 1024, float or half): the `.cu` text is the `#define`s of one shape followed by `sgd.cu`.
//!
//! [`subgraph_cuda::Gpu::kernel`] wants a `&'static KernelSource` and caches compiled modules by
//! its name, so each shape gets one leaked source (name and text, a few kilobytes), made at its
//! first use and kept in a process-wide map: at most 2 × 1024 of them, a handful in practice.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use subgraph_cuda::{KernelDecl, KernelSource, Param, HALF_CUH};

use crate::error::{MfError, Result};
use crate::model::MAX_RANK;

const SGD: &str = include_str!("sgd.cu");

/// The update kernel: `(ratings, start, end, p, q, lr, lambda_p, lambda_q, workers)`.
pub const SGD_UPDATE: &str = "sgd_update";
/// Half sources only: float rows into the half matrix, `(src, n, dst, at)`.
pub const TO_HALF: &str = "to_half";
/// Half sources only: the half matrix into float rows, `(src, at, n, dst)`.
pub const FROM_HALF: &str = "from_half";

/// Warps (parallel workers) a block of the update kernel: CuMF_SGD's 128 threads.
pub const WARPS_PER_BLOCK: u32 = 4;
/// Consecutive ratings a worker takes at a time (CuMF_SGD's `update_vector_size`, its batch).
pub const CHUNK: usize = 128;
/// Threads a block of the conversion kernels.
pub const CONVERT_THREADS: u32 = 256;

/// Ranks of [`check_shapes`]: one, below, at and above a warp, not a power of two, the
/// thesis' default and the largest.
pub const CHECK_RANKS: [usize; 8] = [1, 31, 32, 64, 100, 128, 256, 1024];

/// One configuration of `sgd.cu`: the rank and whether factors are stored in half precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SgdShape {
    pub rank: usize,
    pub half: bool,
}

impl SgdShape {
    /// The shape for `rank` (1 to [`MAX_RANK`]).
    pub fn new(rank: usize, half: bool) -> Result<Self> {
        if rank == 0 || rank > MAX_RANK {
            return Err(MfError::Parameter(format!("rank {rank}: the GPU kernels take 1 to {MAX_RANK}")));
        }
        Ok(SgdShape { rank, half })
    }

    /// Factors one lane loads at once (`VEC`): where a vector of 16 bytes (4 floats, 8 halves)
    /// or less spans a warp's loads of a row without remainder, the widest such; else the
    /// widest dividing k (the last step of a row then leaves lanes idle). k = 128 loads a float4
    /// (or 4 halves) a lane: one 512-byte (256-byte) row in one coalesced load.
    pub fn vec(&self) -> usize {
        let widths: &[usize] = if self.half { &[8, 4, 2, 1] } else { &[4, 2, 1] };
        let k = self.rank;
        widths
            .iter()
            .copied()
            .find(|v| k.is_multiple_of(32 * v))
            .or_else(|| widths.iter().copied().find(|&v| k.is_multiple_of(v)))
            .unwrap_or(1)
    }

    /// Bytes of one factor on the device.
    pub fn factor_bytes(&self) -> usize {
        if self.half {
            2
        } else {
            4
        }
    }

    fn name(&self) -> String {
        format!("mf_sgd_k{}_{}.cu", self.rank, if self.half { "half" } else { "f32" })
    }

    fn code(&self) -> String {
        format!(
            "#define K {}\n#define HALF {}\n#define VEC {}\n#define WPB {WARPS_PER_BLOCK}\n#define CHUNK {CHUNK}\n{HALF_CUH}\n{SGD}",
            self.rank,
            u32::from(self.half),
            self.vec()
        )
    }
}

const UPDATE_F32: KernelDecl = KernelDecl {
    name: SGD_UPDATE,
    params: &[
        Param::BufU32,
        Param::U64,
        Param::U64,
        Param::BufF32,
        Param::BufF32,
        Param::F32,
        Param::F32,
        Param::F32,
        Param::U32,
        Param::BufF32,
    ],
};

const UPDATE_HALF: KernelDecl = KernelDecl {
    name: SGD_UPDATE,
    params: &[
        Param::BufU32,
        Param::U64,
        Param::U64,
        Param::BufU32,
        Param::BufU32,
        Param::F32,
        Param::F32,
        Param::F32,
        Param::U32,
        Param::BufF32,
    ],
};

static F32_KERNELS: [KernelDecl; 1] = [UPDATE_F32];

static HALF_KERNELS: [KernelDecl; 3] = [
    UPDATE_HALF,
    KernelDecl { name: TO_HALF, params: &[Param::BufF32, Param::U64, Param::BufU32, Param::U64] },
    KernelDecl { name: FROM_HALF, params: &[Param::BufU32, Param::U64, Param::U64, Param::BufF32] },
];

/// The one source of `shape`, made (and leaked) at its first use.
pub fn sgd_source(shape: SgdShape) -> &'static KernelSource {
    static SOURCES: OnceLock<Mutex<HashMap<SgdShape, &'static KernelSource>>> = OnceLock::new();
    let mut sources = SOURCES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    sources.entry(shape).or_insert_with(|| {
        Box::leak(Box::new(KernelSource {
            name: Box::leak(shape.name().into_boxed_str()),
            code: Box::leak(shape.code().into_boxed_str()),
            kernels: if shape.half { &HALF_KERNELS } else { &F32_KERNELS },
        }))
    })
}

/// Every rank of [`CHECK_RANKS`] in both precisions.
pub fn check_shapes() -> Vec<SgdShape> {
    CHECK_RANKS.iter().flat_map(|&k| [false, true].map(|half| SgdShape { rank: k, half })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_the_widest_that_fit() {
        let vec = |rank, half| SgdShape::new(rank, half).unwrap().vec();
        assert_eq!([vec(128, false), vec(256, false), vec(1024, false)], [4, 4, 4]);
        assert_eq!([vec(64, false), vec(32, false), vec(96, false)], [2, 1, 1]);
        assert_eq!([vec(100, false), vec(7, false), vec(1, false), vec(30, false)], [4, 1, 1, 2]);
        assert_eq!([vec(256, true), vec(1024, true), vec(128, true), vec(64, true)], [8, 8, 4, 2]);
        assert_eq!([vec(100, true), vec(31, true), vec(40, true)], [4, 1, 8]);
        for shape in check_shapes() {
            assert!(shape.rank.is_multiple_of(shape.vec()), "{shape:?}");
        }
        assert!(SgdShape::new(0, false).is_err());
        assert!(SgdShape::new(MAX_RANK + 1, true).is_err());
    }

    #[test]
    fn one_source_per_shape() {
        let a = sgd_source(SgdShape::new(128, true).unwrap());
        let b = sgd_source(SgdShape::new(128, true).unwrap());
        assert!(std::ptr::eq(a, b));
        assert_eq!(a.name, "mf_sgd_k128_half.cu");
        assert!(a.code.starts_with("#define K 128\n#define HALF 1\n#define VEC 4\n#define WPB 4\n#define CHUNK 128\n"));
        assert_eq!(a.kernels.len(), 3);
        let c = sgd_source(SgdShape::new(7, false).unwrap());
        assert_eq!((c.name, c.kernels.len()), ("mf_sgd_k7_f32.cu", 1));
    }
}
