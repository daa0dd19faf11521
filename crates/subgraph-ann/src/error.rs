//! The errors of vector search: each names the input, the row or the parameter at fault, in one
//! line, so that the command line and Python can show it as it is.

use std::path::PathBuf;

/// A failure of building, searching, reading or writing a vector index.
#[derive(Debug, thiserror::Error)]
pub enum AnnError {
    /// A parameter out of its range (`k`, `ef`, the degree, a batch shape…).
    #[error("{0}")]
    Parameter(String),
    /// A vector set that cannot be indexed or searched as given.
    #[error("{0}")]
    Vectors(String),
    /// A file that is not what it claims to be, with where the problem is.
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("GPU: {0}")]
    Gpu(#[from] subgraph_cuda::CudaError),
}

impl AnnError {
    pub(crate) fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        AnnError::File { path: path.into(), message: message.into() }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        AnnError::Io { path: path.into(), source }
    }
}

pub type Result<T, E = AnnError> = std::result::Result<T, E>;
