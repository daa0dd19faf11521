//! Device buffers: arrays on the device whose bytes count against their `Gpu`'s budget until
//! dropped, and the stream (lane) a buffer's copy runs on.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};

use crate::budget::Usage;

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
    /// For a buffer allocated on the copy stream: the default stream, whose work enqueued
    /// before the drop the free waits for (kernels there may still read the buffer).
    pub(crate) readers: Option<Arc<CudaStream>>,
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        self.usage.live.fetch_sub(self.bytes, Ordering::Relaxed);
        if let Some(readers) = &self.readers {
            // The slice's drop frees it on its own (the copy) stream: after this wait. A
            // failure here is the context's own, which every later call reports.
            if let Ok(read) = readers.record_event(None) {
                let _ = self.slice.stream().wait(&read);
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
}

/// The stream a copy runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// The default stream, in order with the kernels.
    Now,
    /// The copy stream, ahead of the kernels that will read it.
    Ahead,
}
