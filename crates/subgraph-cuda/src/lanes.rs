//! Work on three streams (CuMF_SGD's data in, kernels, data out; Yu's thesis §3.2 and
//! `../shared/papers/thesis-fsig.md` §3): events that order one lane's work after another's,
//! and page-locked buffers that downloads on a lane fill while the host goes on, read only once
//! their downloads are done.
//!
//! Copies and launches on a lane ([`Gpu::write_on`], [`Gpu::read_on`], [`Gpu::launch_on`],
//! [`Gpu::download_async`], [`Gpu::upload_async`]) are in order with that lane's work only; the caller orders lanes
//! with [`Gpu::record`] and [`Gpu::wait_for`]. Buffers take care of themselves: a lane waits for
//! a buffer's allocation before its first use there, and a buffer's free waits for every lane
//! that used it.

use std::ops::Range;

use cudarc::driver::{CudaEvent, CudaStream, PinnedHostSlice};

use crate::buffer::{DeviceBuffer, DeviceScalar, Lane};
use crate::error::{CudaError, Result};
use crate::gpu::Gpu;

/// A point in one lane's work: done once everything enqueued there before it is.
pub struct Event {
    event: CudaEvent,
}

impl Event {
    /// Waits (on the host) until the work before the event is done.
    pub fn synchronize(&self) -> Result<()> {
        self.event.synchronize()?;
        Ok(())
    }

    /// Whether the work before the event is done, without waiting.
    pub fn is_done(&self) -> Result<bool> {
        Ok(self.event.try_is_complete()?)
    }
}

impl Gpu {
    /// An event after all work enqueued on `lane` so far.
    pub fn record(&self, lane: Lane) -> Result<Event> {
        Ok(Event { event: self.stream_of(lane).record_event(None)? })
    }

    /// Makes `lane`'s later work wait for `event` (on the device; the host goes on).
    pub fn wait_for(&self, lane: Lane, event: &Event) -> Result<()> {
        self.stream_of(lane).wait(&event.event)?;
        Ok(())
    }

    /// A zeroed page-locked host buffer of `len` elements (at least one), for
    /// [`Gpu::download_async`] and [`Gpu::upload_async`].
    pub fn pinned_buffer<T: DeviceScalar>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        // SAFETY: the memory is zeroed right below, before anything reads it; no copy uses it
        // yet (its own event is never recorded with tracking off, so `as_mut_slice` does not
        // wait).
        let mut slice = unsafe { self.ctx.alloc_pinned_with_flags::<T>(len.max(1), 0) }?;
        slice.as_mut_slice()?.fill(T::default());
        Ok(PinnedBuffer { slice, len, pending: None })
    }

    /// Copies `buf[range]` into `host[at..]` on `lane`'s stream and returns at once: the copy
    /// runs by DMA, in order with `lane`'s work (and after the copies into `host` made before),
    /// and `host`'s contents are read only after it ([`PinnedBuffer::as_slice`] waits).
    pub fn download_async<T: DeviceScalar>(
        &self,
        lane: Lane,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
        host: &mut PinnedBuffer<T>,
        at: usize,
    ) -> Result<()> {
        if range.start > range.end || range.end > buf.len || at.checked_add(range.len()).is_none_or(|e| e > host.len) {
            return Err(CudaError::Mismatch(format!(
                "download of {range:?} from a buffer of {} elements into {at}.. of {} page-locked elements",
                buf.len, host.len
            )));
        }
        if range.is_empty() {
            return Ok(());
        }
        let stream = self.stream_of(lane);
        buf.used_on(stream)?;
        host.order_after(stream)?;
        let dst = &mut host.slice.as_mut_slice()?[at..at + range.len()];
        // The destination is page-locked, so the driver copies asynchronously, after this call
        // returns. No reference to it outlives the call: `host`'s accessors and drop wait for
        // the event `copied` records.
        stream.memcpy_dtoh(&buf.slice.slice(range), dst)?;
        host.copied(stream)
    }

    /// Copies `host[range]` into `dst[at..]` on `lane`'s stream and returns at once: the copy
    /// runs by DMA, in order with `lane`'s work, and `host` is written again
    /// ([`PinnedBuffer::as_mut_slice`]) only after it.
    pub fn upload_async<T: DeviceScalar>(
        &self,
        lane: Lane,
        host: &mut PinnedBuffer<T>,
        range: Range<usize>,
        dst: &mut DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        if range.start > range.end || range.end > host.len || at.checked_add(range.len()).is_none_or(|e| e > dst.len) {
            return Err(CudaError::Mismatch(format!(
                "upload of {range:?} from {} page-locked elements into {at}.. of a buffer of {} elements",
                host.len, dst.len
            )));
        }
        if range.is_empty() {
            return Ok(());
        }
        let stream = self.stream_of(lane);
        dst.used_on(stream)?;
        host.order_after(stream)?;
        let src = &host.slice.as_slice()?[range.clone()];
        // As in `download_async`: the source is page-locked, so the copy runs after this call
        // returns, and `host`'s writers and drop wait for the event `copied` records.
        stream.memcpy_htod(src, &mut dst.slice.slice_mut(at..at + range.len()))?;
        host.copied(stream)
    }
}

/// Page-locked host memory that downloads fill, and uploads read, asynchronously
/// ([`Gpu::download_async`], [`Gpu::upload_async`]): its contents are read or written only
/// after every copy into or out of it is done.
pub struct PinnedBuffer<T> {
    slice: PinnedHostSlice<T>,
    len: usize,
    /// The event after the last download into it, until seen done.
    pending: Option<CudaEvent>,
}

impl<T> PinnedBuffer<T> {
    /// Makes `stream`'s later work wait for the copies into or out of this buffer so far.
    fn order_after(&self, stream: &CudaStream) -> Result<()> {
        if let Some(before) = &self.pending {
            stream.wait(before)?;
        }
        Ok(())
    }

    /// After a copy into or out of this buffer was just enqueued on `stream`: records the
    /// event its accessors and drop wait for, or, where recording fails, waits for the stream
    /// here, so that no copy is left running unseen.
    fn copied(&mut self, stream: &CudaStream) -> Result<()> {
        match stream.record_event(None) {
            Ok(done) => {
                self.pending = Some(done);
                Ok(())
            }
            Err(e) => {
                self.pending = None;
                stream.synchronize()?;
                Err(e.into())
            }
        }
    }
}

impl<T: DeviceScalar> PinnedBuffer<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every download into it is done, without waiting.
    pub fn is_ready(&self) -> Result<bool> {
        match &self.pending {
            Some(e) => Ok(e.try_is_complete()?),
            None => Ok(true),
        }
    }

    /// Waits until every download into it is done.
    pub fn wait(&self) -> Result<()> {
        if let Some(e) = &self.pending {
            e.synchronize()?;
        }
        Ok(())
    }

    /// The contents, once every download into it is done.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        Ok(&self.slice.as_slice()?[..self.len])
    }

    /// The contents, writable, once every download into it is done.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        self.pending = None;
        Ok(&mut self.slice.as_mut_slice()?[..self.len])
    }
}

impl<T> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // The memory is freed (by the slice's drop) only after the downloads into it. A failure
        // here is the context's own, which every later call reports.
        if let Some(e) = self.pending.take() {
            let _ = e.synchronize();
        }
    }
}
