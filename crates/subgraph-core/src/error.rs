//! Errors of the library: every reader error names the file, the line and the problem.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A malformed input file. `line` is 1-based; 0 means the file as a whole.
    #[error("{}:{line}: {msg}", file.display())]
    Parse { file: PathBuf, line: u64, msg: String },
    #[error("{}: {source}", file.display())]
    Io { file: PathBuf, source: std::io::Error },
    /// A compressed input that does not decompress: corrupt, truncated, or unreadable. The
    /// decoder's error is part of the message, not a source, so that it is printed once.
    #[error("{}: {codec}: {error}", file.display())]
    Decompress { file: PathBuf, codec: &'static str, error: std::io::Error },
    /// The query and the data cannot be matched as asked.
    #[error("{0}")]
    Query(String),
    /// A size limit that would otherwise be hit later.
    #[error("{0}")]
    Limit(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
