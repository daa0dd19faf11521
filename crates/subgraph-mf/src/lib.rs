//! subgraph-mf: matrix factorisation by stochastic gradient descent, after Yu's thesis, ch. 3
//! (`../shared/papers/thesis-fsig.md` §3). Training flows load → blocks → schedule → train:
//! ratings (`ratings`, read by `formats`, made by `gen`) are cut into a grid of blocks, and
//! blocks sharing no row or column are updated at once by the CPU's threads (FPSGD, `cpu`), the
//! GPU's warps (CuMF_SGD's kernel, `gpu`) or both (HSGD*), into a `model` of factors, saved
//! with the files' ids by `file` (`.sgm`).

pub mod error;
pub mod file;
pub mod formats;
pub mod gen;
pub mod model;
pub mod ratings;
pub mod simd;

pub use error::{MfError, Result};
pub use file::SavedModel;
pub use formats::{decode_ratings, read_ratings, write_libmf, Format};
pub use gen::{generate, planted_model, planted_rmse, GenSpec};
pub use model::{Model, Params, Step};
pub use ratings::{Dataset, IdMap, Mapped, Rating, Ratings, RawRatings};
