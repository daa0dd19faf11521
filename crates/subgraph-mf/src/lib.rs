//! subgraph-mf: matrix factorisation by stochastic gradient descent, after Yu's thesis, ch. 3
//! (`../shared/papers/thesis-fsig.md` §3). Training flows load → blocks → schedule → train:
//! ratings (`ratings`, read by `formats`, made by `gen`) are cut into a grid of blocks
//! (`blocks`), and blocks sharing no row or column are updated at once by the CPU's threads
//! (FPSGD, `cpu`), the GPU's warps (CuMF_SGD's kernel, `gpu`: [`gpu::GpuSgd`] holds P and Q on
//! the device and runs the kernel over any range of resident ratings, rows copied in and out on
//! three streams) or both (HSGD*, `hybrid`: the cost model, the division, the board and the
//! run), each epoch driven by `train`, the device chosen by `engine`, into a `model` of factors,
//! saved with the files' ids by `file` (`.sgm`).
//!
//! Modules import in one direction only: `error` → `ratings` → `simd` → `model` → `formats`,
//! `gen`, `file`, `blocks` → `train` → `cpu` → `gpu` → `hybrid` → `engine`.

pub mod blocks;
pub mod cpu;
pub mod engine;
pub mod error;
pub mod file;
pub mod formats;
pub mod gen;
pub mod gpu;
pub mod hybrid;
pub mod model;
pub mod ratings;
pub mod simd;
pub mod train;

pub use engine::{Device, Options, Plan};
pub use error::{MfError, Result};
pub use file::SavedModel;
pub use formats::{decode_ratings, read_ratings, write_libmf, Format};
pub use gen::{generate, planted_model, planted_rmse, GenSpec};
pub use hybrid::division::Schedule;
pub use model::{Model, Params, Step};
pub use ratings::{Dataset, IdMap, Mapped, Rating, Ratings, RawRatings};
pub use train::{Engine, Epoch, EpochStats, Trained};
