//! The gzip and zstd readers (`io::source::Compression::decompress`) under a byte cap: random
//! bytes as a compressed stream, and valid frames of random content (repeated up to 256 times,
//! so that many decompress to more than the cap). The answer is an error or the content, never
//! more than the cap; the content whenever it fits the cap, the cap's error whenever it does
//! not; and the memory the call takes at its peak is at most the cap and the decoder's own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use subgraph_core::io::source::Compression;
use subgraph_core::Error;

/// Bytes allocated through Rust now, and the most since the last reset.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

impl Counting {
    fn grow(by: usize) {
        let now = LIVE.fetch_add(by, Relaxed) + by;
        PEAK.fetch_max(now, Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Counting::grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            if new_size >= layout.size() {
                Counting::grow(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// What the decoders hold besides the output (flate2's inflate state and 32 KiB input buffer;
/// zstd's buffers are C allocations, not counted).
const DECODER: usize = 256 << 10;

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let [flags, c0, c1, reps, rest @ ..] = data else { return };
    let codec = if flags & 1 == 0 { Compression::Gzip } else { Compression::Zstd };
    let cap = u64::from(u16::from_le_bytes([*c0, *c1]));
    // Bit 1: the rest is the compressed stream as it is; else the content of a valid frame.
    let (stream, content) = if flags & 2 != 0 {
        (rest.to_vec(), None)
    } else {
        let content = rest.repeat(usize::from(*reps) + 1);
        let stream = match codec {
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&content).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::encode_all(&content[..], 1).unwrap(),
        };
        (stream, Some(content))
    };
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let got = codec.decompress(Path::new("fuzz.gz"), &stream[..], Some(cap));
    let peak = PEAK.load(Relaxed) - base;
    assert!(peak <= cap as usize + DECODER, "{peak} bytes at the peak under a cap of {cap}");
    match (got, content) {
        (Ok(out), content) => {
            assert!(out.len() as u64 <= cap, "{} bytes under a cap of {cap}", out.len());
            if let Some(content) = content {
                assert!(out == content, "a valid frame decompressed to other bytes");
            }
        }
        (Err(Error::Limit(msg)), content) => {
            assert!(msg.starts_with("fuzz.gz: decompresses to more than --max-memory"), "{msg}");
            if let Some(content) = content {
                assert!(content.len() as u64 > cap, "{} bytes refused under a cap of {cap}", content.len());
            }
        }
        (Err(e), None) => assert!(e.to_string().starts_with("fuzz.gz: "), "{e}"),
        (Err(e), Some(content)) => panic!("a valid frame of {} bytes: {e}", content.len()),
    }
});
