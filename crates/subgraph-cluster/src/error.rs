//! What can go wrong in a partition or a cluster run: one variant per kind, each message one
//! line naming the file or process and the problem (the errors of BiGJoin's setting, VLDB 2018:
//! files, peers, what the matcher does not do).

use std::path::Path;

/// A partition's or a cluster run's error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A manifest that cannot be read or does not describe a valid partition.
    #[error("{file}: {problem}")]
    Manifest { file: String, problem: String },
    /// A part file that is missing, altered or inconsistent with its manifest.
    #[error("{file}: {problem}")]
    Part { file: String, problem: String },
    /// What this slice of the cluster matcher does not do.
    #[error("{0}")]
    Unsupported(String),
    /// Writing a partition.
    #[error("{file}: {source}")]
    Write { file: String, source: std::io::Error },
    /// The processes could not run together (hosts, connections, timely itself).
    #[error("{0}")]
    Cluster(String),
    /// The query, as subgraph-core checks it against the data graph.
    #[error(transparent)]
    Core(#[from] subgraph_core::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn manifest(file: &Path, problem: impl Into<String>) -> Error {
        Error::Manifest { file: file.display().to_string(), problem: problem.into() }
    }

    pub(crate) fn part(file: &Path, problem: impl Into<String>) -> Error {
        Error::Part { file: file.display().to_string(), problem: problem.into() }
    }
}
