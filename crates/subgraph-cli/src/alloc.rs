//! The process's allocator: the system's, except that an allocation the system refuses (memory
//! exhausted, `ulimit -v`, a container's limit) ends the process with one line on standard error
//! and exit status 1, where Rust's default aborts with SIGABRT and a backtrace. The pre-checks
//! (file sizes, header counts, `--max-memory`, the available memory) catch the usual cases with
//! a better message; this catches every allocation they do not foresee.

use std::alloc::{GlobalAlloc, Layout, System};

/// [`System`], with refusals reported as above.
pub struct OneLineOnRefusal;

// SAFETY: every method forwards to `System` with the same arguments and returns its result
// unchanged, or does not return at all.
unsafe impl GlobalAlloc for OneLineOnRefusal {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        granted(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        granted(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, hence from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; the caller's contract for `new_size` is `System`'s.
        granted(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// `ptr`, unless it is null: then the process ends (see the module).
fn granted(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        refused(size);
    }
    ptr
}

/// Writes the line and exits with status 1, allocating nothing: the message is formatted on the
/// stack and written by one system call, and `_exit` runs no destructor that might allocate.
fn refused(size: usize) -> ! {
    use std::io::Write;
    let mut line = [0u8; 256];
    let room = line.len();
    let mut rest = &mut line[..];
    let gib = size as f64 / (1u64 << 30) as f64;
    let _ = writeln!(
        rest,
        "subgraph: error: out of memory: the system refused an allocation of {size} bytes \
         ({gib:.2} GiB); free memory or raise the process's memory limit"
    );
    let len = room - rest.len();
    // SAFETY: `line[..len]` is initialised memory of this frame; `_exit` has no preconditions.
    unsafe {
        libc::write(2, line.as_ptr().cast(), len);
        libc::_exit(1)
    }
}
