//! Signals. Ctrl-C: the first press raises a flag that every running query polls (so it stops
//! cleanly with a partial, marked result); a second press exits at once with status 130. A closed
//! standard output (`subgraph match ... --output - | head`) ends the process as it ends other
//! Unix tools, by SIGPIPE, instead of a panic in whichever thread prints next.

use anyhow::{Context, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Installs the handler and returns the flag it raises.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = interrupt.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })
    .context("installing the Ctrl-C handler")?;
    Ok(interrupt)
}

/// Restores the default action of SIGPIPE, which the Rust runtime sets to "ignore" so that a
/// write to a closed pipe becomes an error that `println!` turns into a panic. Call it first in
/// `main`, before any thread starts.
#[cfg(unix)]
pub fn exit_on_closed_stdout() {
    // SAFETY: `signal` with a valid signal number and the default disposition has no
    // preconditions; it runs before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Elsewhere there is no SIGPIPE, and a closed pipe is a write error.
#[cfg(not(unix))]
pub fn exit_on_closed_stdout() {}
