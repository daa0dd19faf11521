//! The errors of matrix factorisation: each names the input, the line or the parameter at fault,
//! in one line, so that the command line and Python can show it as it is.

use std::path::PathBuf;

/// A failure of reading ratings, training, predicting or saving a model.
#[derive(Debug, thiserror::Error)]
pub enum MfError {
    /// A parameter out of its range (rank, learning rate, λ, threads…).
    #[error("{0}")]
    Parameter(String),
    /// Ratings that cannot be trained on or tested as given.
    #[error("{0}")]
    Ratings(String),
    /// A file that is not what it claims to be, with where the problem is.
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("GPU: {0}")]
    Gpu(#[from] subgraph_cuda::CudaError),
}

impl MfError {
    pub(crate) fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        MfError::File { path: path.into(), message: message.into() }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        MfError::Io { path: path.into(), source }
    }
}

pub type Result<T, E = MfError> = std::result::Result<T, E>;
