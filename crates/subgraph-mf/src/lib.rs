//! subgraph-mf: matrix factorisation by stochastic gradient descent, after Yu's thesis, ch. 3
//! (`../shared/papers/thesis-fsig.md` §3). Training flows load → blocks → schedule → train:
//! ratings (`ratings`, read by `formats`, made by `gen`) are cut into a grid of blocks, and
//! blocks sharing no row or column are updated at once by the CPU's threads (FPSGD, `cpu`), the
//! GPU's warps (CuMF_SGD's kernel, [`gpu`]: [`gpu::GpuSgd`] holds P and Q on the device and runs
//! the kernel over any range of resident ratings, with rows copied in and out on three streams)
//! or both (HSGD*), into a `model` of factors.

pub mod blocks;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod hybrid;
pub mod model;
pub mod ratings;
pub mod simd;
pub mod train;

pub use error::{MfError, Result};
pub use model::{Model, Params, Step};
pub use train::{Engine, Epoch, EpochStats, Trained};
pub use ratings::{Dataset, IdMap, Mapped, Rating, Ratings, RawRatings};
