//! Page-locked host memory: buffers that downloads and the host spill reuse and that copies to
//! the device read by DMA, and a device-mapped flag that the host and running kernels share.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, Result};
use crate::gpu::Gpu;

/// Elements of a [`HostBuffer`]: 64 MiB of page-locked memory.
pub const HOST_BUFFER_ELEMS: usize = 1 << 24;

/// Page-locked host memory that [`Gpu::download_pinned`] reuses: an engine keeps one for all
/// its queries.
#[derive(Default)]
pub struct HostBuffer {
    slice: Option<cudarc::driver::PinnedHostSlice<u32>>,
}

impl HostBuffer {
    /// Elements `range` of the page-locked memory (what a download or a park put there).
    pub fn range(&self, range: std::ops::Range<usize>) -> Result<&[u32]> {
        match self.slice.as_ref() {
            Some(slice) if range.start <= range.end && range.end <= slice.len() => Ok(&slice.as_slice()?[range]),
            _ => Err(CudaError::Mismatch(format!("elements {range:?} of page-locked memory"))),
        }
    }
}

/// One u32 in page-locked, device-mapped host memory: the host (atomically) and running
/// kernels (volatile) both read and write it.
pub struct HostFlag {
    _slice: cudarc::driver::PinnedHostSlice<u32>,
    ptr: *mut u32,
    device: u64,
}

// SAFETY: `ptr` points into `_slice`, which the flag owns (and which is Send and Sync itself);
// the host only accesses it through `AtomicU32`, so shared use from several threads is sound.
unsafe impl Send for HostFlag {}
unsafe impl Sync for HostFlag {}

impl HostFlag {
    fn cell(&self) -> &AtomicU32 {
        // SAFETY: `ptr` is a live, 4-byte aligned u32 allocation owned by `self` (see above), and
        // AtomicU32 has u32's layout.
        unsafe { &*(self.ptr as *const AtomicU32) }
    }

    pub fn set(&self, value: u32) {
        self.cell().store(value, Ordering::SeqCst);
    }

    pub fn get(&self) -> u32 {
        self.cell().load(Ordering::SeqCst)
    }

    /// The address kernels read it at.
    pub fn device_address(&self) -> u64 {
        self.device
    }
}

impl Gpu {
    /// `buf[range]` copied into `host`'s page-locked memory (allocated, zeroed, when it is too
    /// small: [`HOST_BUFFER_ELEMS`] elements at most per call); returns the copy. One DMA transfer,
    /// without the zero-filling and first-touch faults of a fresh vector per download.
    pub fn download_pinned<'h>(
        &self,
        buf: &DeviceBuffer<u32>,
        range: std::ops::Range<usize>,
        host: &'h mut HostBuffer,
    ) -> Result<&'h [u32]> {
        if range.start > range.end || range.end > buf.len || range.len() > HOST_BUFFER_ELEMS {
            return Err(CudaError::Mismatch(format!(
                "pinned download of {range:?} from a buffer of {} elements",
                buf.len
            )));
        }
        let dst = &mut self.pinned(host, range.len())?[..range.len()];
        if !dst.is_empty() {
            self.stream.memcpy_dtoh(&buf.slice.slice(range), dst)?;
        }
        self.stream.synchronize()?;
        Ok(dst)
    }

    /// `host`'s page-locked memory, grown (zeroed) to hold `len` elements: by powers of two
    /// from 64 Ki elements, so that small copies pin little.
    fn pinned<'h>(&self, host: &'h mut HostBuffer, len: usize) -> Result<&'h mut [u32]> {
        if host.slice.as_ref().is_none_or(|h| h.len() < len) {
            let len = len.next_power_of_two().max(1 << 16);
            host.slice = None;
            // SAFETY: the memory is zeroed right below, before anything reads it.
            let mut slice = unsafe { self.ctx.alloc_pinned_with_flags::<u32>(len, 0) }?;
            slice.as_mut_slice()?.fill(0);
            host.slice = Some(slice);
        }
        Ok(host.slice.as_mut().expect("allocated above").as_mut_slice()?)
    }

    /// Page-locked host memory holding a copy of `parts` one after another, from which
    /// [`Gpu::upload_parts`] copies by DMA, at the link's speed rather than through the
    /// driver's staging buffers.
    pub fn pin(&self, parts: &[&[u32]]) -> Result<HostBuffer> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        // SAFETY: every element is written right below, before anything reads it.
        let mut slice = unsafe { self.ctx.alloc_pinned_with_flags::<u32>(len.max(1), 0) }?;
        let mut rest = &mut slice.as_mut_slice()?[..len];
        for part in parts {
            let (head, tail) = rest.split_at_mut(part.len());
            head.copy_from_slice(part);
            rest = tail;
        }
        Ok(HostBuffer { slice: Some(slice) })
    }

    /// The first `len` elements of `buf` copied into elements `at..at + len` of `host`'s
    /// page-locked memory, grown first (zeroed, what it held dropped) to `total` elements where
    /// smaller; [`Gpu::upload_parts`] brings back any ranges of it: FSIG's host spill
    /// (subgraph-gpu's `park`), a whole table or one column at a time.
    pub fn park(
        &self,
        buf: &DeviceBuffer<u32>,
        len: usize,
        host: &mut HostBuffer,
        at: usize,
        total: usize,
    ) -> Result<()> {
        if len > buf.len || at.checked_add(len).is_none_or(|end| end > total) {
            return Err(CudaError::Mismatch(format!("parking {len} of {} elements at {at} of {total}", buf.len)));
        }
        let dst = &mut self.pinned(host, total)?[at..at + len];
        if !dst.is_empty() {
            self.stream.memcpy_dtoh(&buf.slice.slice(0..len), dst)?;
        }
        self.stream.synchronize()?;
        Ok(())
    }

    /// A flag in page-locked host memory that kernels read (and may set) while they run.
    pub fn host_flag(&self) -> Result<HostFlag> {
        // SAFETY: the allocation is written (zeroed) before any read, below.
        let mut slice = unsafe {
            self.ctx.alloc_pinned_with_flags::<u32>(
                1,
                cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP | cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE,
            )
        }?;
        let ptr = slice.as_mut_ptr()?;
        let mut device = 0;
        // SAFETY: `ptr` is a live page-locked allocation made with DEVICEMAP in this context,
        // and `device` is valid for the write.
        unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut device, ptr as *mut _, 0) }.result()?;
        let flag = HostFlag { _slice: slice, ptr, device };
        flag.set(0);
        Ok(flag)
    }
}
