//! A progress spinner on stderr for queries running longer than a second, when stderr is a
//! terminal: matches found so far and elapsed time.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use subgraph_core::sink::Control;

/// Runs `work` while showing progress of `control` after one second.
pub fn with_progress<T: Send>(label: &str, control: &Control, quiet: bool, work: impl FnOnce() -> T + Send) -> T {
    if quiet || !std::io::stderr().is_terminal() {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let start = Instant::now();
            let mut bar: Option<ProgressBar> = None;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if start.elapsed() < Duration::from_secs(1) {
                    continue;
                }
                let b = bar.get_or_insert_with(|| {
                    let b = ProgressBar::new_spinner();
                    b.set_style(
                        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("valid template"),
                    );
                    b
                });
                b.set_message(format!("{label}: {} matches so far", control.found.load(Ordering::Relaxed)));
                b.tick();
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        let r = work();
        done.store(true, Ordering::Relaxed);
        watcher.join().expect("progress thread");
        r
    })
}
