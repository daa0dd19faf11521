//! Copies made ahead on the second stream (SGSI §6.2's two streams): [`Gpu::upload_parts`] on
//! [`Lane::Ahead`] copies there and records an event that [`Gpu::arrived`] makes the default
//! stream wait for, and a buffer copied there is freed there only after the default stream's
//! work enqueued before its drop.

use cudarc::driver::CudaEvent;

use crate::buffer::{DeviceBuffer, Lane};
use crate::error::Result;
use crate::gpu::Gpu;
use crate::host::HostBuffer;

/// Host data to copy: ranges of page-locked memory, one after another in the device copy
/// (copied by DMA, asynchronously), or pageable memory (staged by the driver).
#[derive(Clone)]
pub enum HostSource<'h> {
    Pinned(&'h HostBuffer, Vec<std::ops::Range<usize>>),
    Pageable(&'h [u32]),
}

/// Device copies under way ([`Gpu::upload_parts`]), and the event of their end on the copy
/// stream (None: made on the default stream).
pub struct Arriving<const K: usize> {
    bufs: [DeviceBuffer<u32>; K],
    ready: Option<CudaEvent>,
}

impl Gpu {
    /// Device copies of `parts` (named host arrays) on `lane`: on [`Lane::Ahead`], on the copy
    /// stream, to overlap the default stream's work until [`Gpu::arrived`].
    pub fn upload_parts<const K: usize>(
        &self,
        lane: Lane,
        parts: [(&'static str, HostSource<'_>); K],
    ) -> Result<Arriving<K>> {
        let mut bufs = Vec::with_capacity(K);
        for (what, src) in parts {
            let host: Vec<&[u32]> = match src {
                HostSource::Pinned(h, ranges) => ranges.into_iter().map(|r| h.range(r)).collect::<Result<_>>()?,
                HostSource::Pageable(host) => vec![host],
            };
            let len = host.iter().map(|p| p.len()).sum();
            let buf = self.alloc_on(lane, what, len, &host)?;
            if lane != Lane::Now {
                // Read on the default stream once it waits for the copies ([`Gpu::arrived`]).
                buf.users.lock().unwrap_or_else(|e| e.into_inner()).push(self.stream.clone());
            }
            bufs.push(buf);
        }
        let ready = match lane {
            Lane::Now => None,
            other => Some(self.stream_of(other).record_event(None)?),
        };
        Ok(Arriving { bufs: bufs.try_into().unwrap_or_else(|_| unreachable!("one copy per part")), ready })
    }

    /// The buffers of `arriving`, once the default stream's later work waits for their copies.
    pub fn arrived<const K: usize>(&self, arriving: Arriving<K>) -> Result<[DeviceBuffer<u32>; K]> {
        if let Some(ready) = &arriving.ready {
            self.stream.wait(ready)?;
        }
        Ok(arriving.bufs)
    }
}
