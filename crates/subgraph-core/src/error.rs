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
    /// A graph that the format asked for cannot hold without loss (several labels of a vertex,
    /// several edges of a pair): refused, not dropped; `file` is where it was to be written.
    #[error("{}: {msg}", file.display())]
    Unwritable { file: PathBuf, msg: String },
    /// A vertex id that the id mode refuses (the other modes would take it).
    #[error("{}:{line}: {error}", file.display())]
    Id { file: PathBuf, line: u64, error: IdError },
}

/// Why a vertex id was refused. The messages name the command line's options; front ends
/// whose options have other names (the Python package's `ids=`) word them from the fields.
#[derive(Debug, thiserror::Error)]
pub enum IdError {
    /// Ids compacted from numbers (the default), and a token that is not a number.
    #[error("bad {what} '{token}'; use --string-ids for ids that are not numbers")]
    NotANumber { what: String, token: String },
    /// Ids kept as numbers, and one (or a declared vertex count, `what`) that would make more
    /// vertices than a file of its length may.
    #[error(
        "{what} with --keep-ids would make {vertices} vertices; at most {most} are allowed for this file \
         (without --keep-ids ids are compacted)"
    )]
    TooManyKept { what: String, vertices: u128, most: u64 },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
