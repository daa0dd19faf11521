//! Where written matches go: a file, or standard output (on Unix through its own descriptor, a
//! duplicate of 1, rather than the line-buffered `Stdout`). Except into a regular file, they go
//! behind a buffer of one output batch, so that a batch a worker hands over (at least
//! [`OUTPUT_BATCH`] bytes) is written straight through, uncopied, and only small pieces are
//! gathered (bench/results/2026-12-01-output-rate.md).

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use subgraph_core::sink::OUTPUT_BATCH;

/// Bytes a pipe on standard output is widened to hold, where the system allows (Linux's default
/// ceiling for unprivileged processes): at its default 64 KiB the writer waits for its reader at
/// every batch.
#[cfg(any(target_os = "linux", target_os = "android"))]
const PIPE_BYTES: i32 = 1 << 20;

/// Bytes gathered for a regular file before a write: ext4 on the H200 host took batches written
/// straight through at 0.78–0.94 times the speed of writes of this size.
const FILE_BUFFER: usize = 1 << 20;

/// A new file at `path` for rows.
pub fn file(path: &Path) -> anyhow::Result<Box<dyn Write + Send>> {
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    Ok(buffered(f))
}

/// `f` buffered for rows: a regular file written a mebibyte at a time, anything else
/// (`/dev/null`, a pipe) each batch straight through.
fn buffered(f: std::fs::File) -> Box<dyn Write + Send> {
    let regular = f.metadata().is_ok_and(|m| m.is_file());
    Box::new(BufWriter::with_capacity(if regular { FILE_BUFFER } else { OUTPUT_BATCH }, f))
}

/// Standard output for rows (`--output -`).
#[cfg(unix)]
pub fn stdout() -> anyhow::Result<Box<dyn Write + Send>> {
    use std::os::fd::AsFd;
    let fd = std::io::stdout().as_fd().try_clone_to_owned().context("duplicating standard output")?;
    // Where standard output is no pipe, or the system refuses, it stays as it is.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_SETPIPE_SZ(PIPE_BYTES));
    Ok(buffered(std::fs::File::from(fd)))
}

/// Standard output for rows (`--output -`).
#[cfg(not(unix))]
pub fn stdout() -> anyhow::Result<Box<dyn Write + Send>> {
    Ok(Box::new(BufWriter::with_capacity(OUTPUT_BATCH, std::io::stdout())))
}
