//! Device buffers: arrays on the device whose bytes count against their `Gpu`'s budget until
//! dropped, the streams (lanes) that use them, and the stream (lane) a buffer's copy runs on.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};

use crate::budget::Usage;
use crate::error::Result;

/// Element types a [`DeviceBuffer`] may hold.
pub trait DeviceScalar: DeviceRepr + ValidAsZeroBits + Copy + Default + Unpin {}
impl DeviceScalar for u32 {}
impl DeviceScalar for u64 {}
impl DeviceScalar for f32 {}

/// A device array of `len` elements. Its device address is aligned to at least 256 bytes
/// (the driver's allocation granularity), so 128-byte PCSR groups stay one transaction each.
pub struct DeviceBuffer<T> {
    pub(crate) slice: CudaSlice<T>,
    pub(crate) len: usize,
    pub(crate) bytes: u64,
    pub(crate) usage: Arc<Usage>,
    /// Streams other than its own (the one it was allocated on) whose work may use it, and
    /// whose work enqueued before the drop the free waits for: the default stream for a
    /// buffer copied ahead ([`Gpu::upload_parts`](crate::Gpu::upload_parts): kernels there read
    /// it once [`Gpu::arrived`](crate::Gpu::arrived)), and any lane a copy or kernel used it on
    /// ([`DeviceBuffer::used_on`]).
    pub(crate) users: Mutex<Vec<Arc<CudaStream>>>,
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        self.usage.live.fetch_sub(self.bytes, Ordering::Relaxed);
        let users = self.users.get_mut().unwrap_or_else(|e| e.into_inner());
        for user in users.iter() {
            // The slice's drop frees it on its own stream: after these waits. A failure here
            // is the context's own, which every later call reports.
            if let Ok(used) = user.record_event(None) {
                let _ = self.slice.stream().wait(&used);
            }
        }
    }
}

impl<T> DeviceBuffer<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Device bytes the buffer holds.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The device address of the first element.
    pub fn device_address(&self) -> u64 {
        let (ptr, _sync) = self.slice.device_ptr(self.slice.stream());
        ptr
    }

    /// Makes `stream` a user of the buffer before work there uses it: at the first such use,
    /// `stream` waits for the work enqueued so far on the buffer's own stream (its allocation
    /// and filling, stream-ordered there), and from then on the buffer's free waits for
    /// `stream`'s work. Nothing to do on the buffer's own stream.
    pub(crate) fn used_on(&self, stream: &Arc<CudaStream>) -> Result<()> {
        if Arc::ptr_eq(self.slice.stream(), stream) {
            return Ok(());
        }
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        if !users.iter().any(|u| Arc::ptr_eq(u, stream)) {
            stream.wait(&self.slice.stream().record_event(None)?)?;
            users.push(stream.clone());
        }
        Ok(())
    }
}

/// The stream a copy (or kernel) runs on: CuMF_SGD's three streams, data in, kernels, data out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// The default stream, in order with the kernels.
    Now,
    /// The copy stream, ahead of the kernels that will read it.
    Ahead,
    /// The download stream: copies back to the host (and kernels preparing them) behind the
    /// kernels whose results they take, ordered after them by events ([`crate::Event`]).
    Back,
}
