//! Ctrl-C: the first press raises a flag that every running query polls (so it stops cleanly
//! with a partial, marked result); a second press exits at once with status 130.

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
