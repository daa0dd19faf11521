//! A device: its CUDA context and default stream, in program order, with a second stream for
//! copies made ahead ([`crate::stream`]) and a third for downloads ([`crate::lanes`]); device
//! buffers whose every allocation is checked against the free device memory and the memory
//! budget first; copies and downloads.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaModule, CudaStream, DevicePtrMut};

use crate::budget::{Usage, GUESS_SHARE};
use crate::buffer::{DeviceBuffer, DeviceScalar, Lane};
use crate::detect::{check_driver_library, check_nvrtc_library, driver_version, guarded, nvrtc_version, Versions};
use crate::error::{CudaError, GpuUnavailable, Result};

/// What a device is: its number, name, architecture, memory and multiprocessors.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// The device's number (its CUDA ordinal).
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub total_memory: u64,
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    pub versions: Versions,
}

/// The CUDA context on one device, its default stream, the stream of copies made ahead and
/// the stream of downloads.
pub struct Gpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    /// The stream of copies made ahead ([`Lane::Ahead`]).
    pub(crate) copies: Arc<CudaStream>,
    /// The stream of downloads ([`Lane::Back`]).
    pub(crate) downloads: Arc<CudaStream>,
    pub(crate) info: DeviceInfo,
    pub(crate) arch: String,
    pub(crate) modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    pub(crate) usage: Arc<Usage>,
}

impl Gpu {
    /// Opens device 0 (see [`Gpu::open`]).
    pub fn new() -> Result<Self> {
        Gpu::open(0)
    }

    /// The number of devices the driver reports. Checks the driver library first, and returns
    /// [`GpuUnavailable`] when it is missing or fails.
    pub fn count() -> Result<usize> {
        check_driver_library()?;
        guarded(|| {
            let count = CudaContext::device_count()
                .map_err(|e| GpuUnavailable::Device(format!("cuInit/cuDeviceGetCount: {e}")))?;
            Ok(count.max(0) as usize)
        })
    }

    /// Opens device `ordinal` (0 is the first). Checks the driver library, NVRTC and the
    /// device, in that order, before any other CUDA call, and returns [`GpuUnavailable`]
    /// naming what is missing.
    pub fn open(ordinal: usize) -> Result<Self> {
        check_driver_library()?;
        check_nvrtc_library()?;
        let versions = Versions { driver: driver_version()?, nvrtc: nvrtc_version()? };
        guarded(|| {
            let count = CudaContext::device_count()
                .map_err(|e| GpuUnavailable::Device(format!("cuInit/cuDeviceGetCount: {e}")))?;
            if count < 1 {
                return Err(GpuUnavailable::Device("the driver reports no device".into()).into());
            }
            if ordinal >= count as usize {
                let msg = format!("device {ordinal} asked for, the driver reports {count}");
                return Err(GpuUnavailable::Device(msg).into());
            }
            let ctx =
                CudaContext::new(ordinal).map_err(|e| GpuUnavailable::Device(format!("device {ordinal}: {e}")))?;
            // SAFETY: every buffer, copy and launch of this `Gpu` uses the context's default
            // stream, in program order, except the copies made ahead on `copies` and the work
            // put on a lane ([`Gpu::launch_on`], [`Gpu::write_on`], [`Gpu::read_on`],
            // [`Gpu::download_async`]), whose order with the buffer's own stream is explicit:
            // the default stream waits for a copy made ahead before reading it
            // ([`Gpu::arrived`]), a lane waits for a buffer's own stream before its first use
            // there, and a buffer's free waits for every stream that used it
            // ([`DeviceBuffer::used_on`] and its drop). Page-locked memory a download fills
            // is read only after the download's event ([`crate::PinnedBuffer`]). Without
            // tracking, an allocation creates no events and a drop destroys none.
            unsafe { ctx.disable_event_tracking() };
            let (major, minor) = ctx.compute_capability()?;
            let info = DeviceInfo {
                ordinal,
                name: ctx.name()?,
                compute_capability: (major, minor),
                total_memory: ctx.total_mem()? as u64,
                multiprocessors: ctx
                    .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?
                    .max(1) as u32,
                versions,
            };
            let stream = ctx.default_stream();
            let copies = ctx.new_stream()?;
            let downloads = ctx.new_stream()?;
            Ok(Gpu {
                ctx,
                stream,
                copies,
                downloads,
                info,
                arch: format!("sm_{major}{minor}"),
                modules: Mutex::new(HashMap::new()),
                usage: Arc::new(Usage::default()),
            })
        })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The NVRTC architecture of the device, e.g. `sm_90` on the H200.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// (free, total) device memory in bytes, asked of the driver.
    pub fn memory(&self) -> Result<(u64, u64)> {
        let live = self.live_bytes();
        let (free, total) = self.ctx.mem_get_info()?;
        self.usage.seen_free.store(free as u64, Ordering::Relaxed);
        self.usage.seen_live.store(live, Ordering::Relaxed);
        Ok((free as u64, total as u64))
    }

    /// Caps the bytes this `Gpu`'s buffers may hold together (`--gpu-memory`; None: the
    /// device's free memory alone). Every allocation is checked against it.
    pub fn set_memory_cap(&self, cap: Option<u64>) {
        self.usage.cap.store(cap.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Bytes that may still be allocated: the device's free memory, within the cap.
    pub fn headroom(&self) -> Result<u64> {
        let (free, _) = self.memory()?;
        let cap = self.usage.cap.load(Ordering::Relaxed);
        Ok(free.min(cap.saturating_sub(self.live_bytes())))
    }

    /// Fails with [`CudaError::OverBudget`] where `bytes` more would pass the cap, and with
    /// [`CudaError::OutOfMemory`] unless they are free on the device: asked of the driver unless
    /// they are a small share of what was free at the last look ([`GUESS_SHARE`]). Memory
    /// another process took since is the driver's to refuse ([`Gpu::alloc_zeros`]).
    fn check_free(&self, what: &'static str, bytes: u64) -> Result<()> {
        let (held, cap) = (self.live_bytes(), self.usage.cap.load(Ordering::Relaxed));
        if held.saturating_add(bytes) > cap {
            return Err(CudaError::OverBudget { what, requested: bytes, held, budget: cap });
        }
        if bytes <= self.usage.free_guess() / GUESS_SHARE {
            return Ok(());
        }
        let (free, total) = self.memory()?;
        if bytes > free {
            return Err(CudaError::OutOfMemory { what, requested: bytes, free, total });
        }
        Ok(())
    }

    /// [`CudaError::OutOfMemory`] for an allocation the driver refused for want of memory;
    /// other driver errors as they are.
    fn refused(&self, what: &'static str, bytes: u64, e: cudarc::driver::DriverError) -> CudaError {
        if e.0 != cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            return e.into();
        }
        match self.memory() {
            Ok((free, total)) => CudaError::OutOfMemory { what, requested: bytes, free, total },
            Err(other) => other,
        }
    }

    /// A zeroed device array of `len` elements; `what` names it in errors.
    pub fn alloc_zeros<T: DeviceScalar>(&self, what: &'static str, len: usize) -> Result<DeviceBuffer<T>> {
        self.alloc(what, len, None)
    }

    /// A device array of `len` elements with every bit set (`u32::MAX`, say: an empty slot),
    /// set on the device, with no host array copied; `what` names it in errors.
    pub fn alloc_ones<T: DeviceScalar>(&self, what: &'static str, len: usize) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(what, len, None)?;
        let stream = buf.slice.stream().clone();
        let bytes = buf.slice.num_bytes();
        {
            let (ptr, _sync) = buf.slice.device_ptr_mut(&stream);
            // SAFETY: `ptr` is the start of the buffer's `bytes` bytes, set in the order of the
            // stream it was allocated on, before any work of that stream (or of a stream made
            // to wait for it, `DeviceBuffer::used_on`) reads them.
            unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, stream.cu_stream()) }?;
        }
        Ok(buf)
    }

    /// A device array of `len` elements (at least one), zeroed, or filled with `host` (of
    /// `len` elements) where given.
    fn alloc<T: DeviceScalar>(&self, what: &'static str, len: usize, host: Option<&[T]>) -> Result<DeviceBuffer<T>> {
        self.alloc_on(Lane::Now, what, len, host.as_slice())
    }

    /// [`Gpu::alloc`] on `lane`'s stream, filled with the host `parts` one after another
    /// (`len` elements in all) where there are any.
    pub(crate) fn alloc_on<T: DeviceScalar>(
        &self,
        lane: Lane,
        what: &'static str,
        len: usize,
        parts: &[&[T]],
    ) -> Result<DeviceBuffer<T>> {
        let bytes = (len.max(1) as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.check_free(what, bytes)?;
        let stream = self.stream_of(lane);
        let filled: usize = parts.iter().map(|p| p.len()).sum();
        let slice = if filled > 0 {
            if filled != len {
                return Err(CudaError::Mismatch(format!("{what}: {filled} elements copied into {len}")));
            }
            // SAFETY: the copies below write all `len` elements, in stream order before any
            // kernel or copy of this stream reads them (and, on the copy stream, before the
            // event [`Gpu::arrived`] makes the default stream wait for).
            let mut slice = unsafe { stream.alloc::<T>(len) }.map_err(|e| self.refused(what, bytes, e))?;
            let mut at = 0;
            for part in parts.iter().filter(|p| !p.is_empty()) {
                stream.memcpy_htod(*part, &mut slice.slice_mut(at..at + part.len()))?;
                at += part.len();
            }
            slice
        } else {
            stream.alloc_zeros::<T>(len.max(1)).map_err(|e| self.refused(what, bytes, e))?
        };
        let live = self.usage.live.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.usage.peak.fetch_max(live, Ordering::Relaxed);
        Ok(DeviceBuffer { slice, len, bytes, usage: self.usage.clone(), users: Mutex::new(Vec::new()) })
    }

    /// [`Gpu::alloc_zeros`] on `lane`'s stream: for a buffer that work on that lane uses, so
    /// that its first use there waits for no other stream (work on another lane, the default
    /// stream's kernels included, first waits for the allocation).
    pub fn alloc_zeros_on<T: DeviceScalar>(
        &self,
        lane: Lane,
        what: &'static str,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        self.alloc_on(lane, what, len, &[])
    }

    /// Readies `buf` for work on `lane` now: that lane waits for the work enqueued so far on
    /// the buffer's own stream (its allocation and filling), and the buffer's free will wait
    /// for the lane. Work on a lane does this at its first use of a buffer anyway; done ahead,
    /// while nothing runs, it keeps a later first use from waiting for a running kernel.
    pub fn use_on<T>(&self, lane: Lane, buf: &DeviceBuffer<T>) -> Result<()> {
        buf.used_on(self.stream_of(lane))
    }

    /// The stream of `lane`.
    pub(crate) fn stream_of(&self, lane: Lane) -> &Arc<CudaStream> {
        match lane {
            Lane::Now => &self.stream,
            Lane::Ahead => &self.copies,
            Lane::Back => &self.downloads,
        }
    }

    /// Bytes held now in this `Gpu`'s device buffers.
    pub fn live_bytes(&self) -> u64 {
        self.usage.live.load(Ordering::Relaxed)
    }

    /// The most bytes held in this `Gpu`'s device buffers since the last [`Gpu::reset_peak`].
    pub fn peak_bytes(&self) -> u64 {
        self.usage.peak.load(Ordering::Relaxed)
    }

    /// Restarts the peak at the bytes held now, and looks at the device's free memory again
    /// (once per query: another process may have taken some).
    pub fn reset_peak(&self) -> Result<()> {
        self.usage.peak.store(self.usage.live.load(Ordering::Relaxed), Ordering::Relaxed);
        self.memory().map(|_| ())
    }

    /// A device copy of `host`; `what` names it in errors.
    pub fn upload<T: DeviceScalar>(&self, what: &'static str, host: &[T]) -> Result<DeviceBuffer<T>> {
        self.alloc(what, host.len(), Some(host))
    }

    /// Lets this GPU's context reach `peer`'s memory directly (NVLink or PCIe peer to peer), so
    /// that [`Gpu::copy`] from a buffer of `peer` moves device to device: true where the two
    /// devices can (now, or already), false where they cannot (such copies then go through the
    /// host, by the driver).
    pub fn enable_peer_access(&self, peer: &Gpu) -> Result<bool> {
        use cudarc::driver::sys;
        if self.info.ordinal == peer.info.ordinal {
            return Ok(true);
        }
        let mut can = 0;
        // SAFETY: a query about two devices of this driver, into a local.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.ctx.cu_device(), peer.ctx.cu_device()) }.result()?;
        if can == 0 {
            return Ok(false);
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: `peer`'s context outlives this call (borrowed); the flag is set on this
        // thread's current context, bound just above.
        match unsafe { sys::cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) }.result() {
            Ok(()) => Ok(true),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(true),
            Err(e) => Err(e.into()),
        }
    }

    /// Copies `len` elements of `src` from `src_at` into `dst` at `dst_at`, on the device, on
    /// this GPU's default stream. `src` may be another GPU's buffer (a peer copy, after the
    /// work its own default stream has enqueued; see [`Gpu::enable_peer_access`]).
    pub fn copy<T: DeviceScalar>(
        &self,
        src: &DeviceBuffer<T>,
        src_at: usize,
        dst: &mut DeviceBuffer<T>,
        dst_at: usize,
        len: usize,
    ) -> Result<()> {
        let fits = |at: usize, buf_len: usize| at.checked_add(len).is_some_and(|e| e <= buf_len);
        if !fits(src_at, src.len) || !fits(dst_at, dst.len) {
            return Err(CudaError::Mismatch(format!(
                "copy of {len} elements from {src_at} of {} into {dst_at} of {}",
                src.len, dst.len
            )));
        }
        if len > 0 {
            let from = src.slice.slice(src_at..src_at + len);
            let mut to = dst.slice.slice_mut(dst_at..dst_at + len);
            self.stream.memcpy_dtod(&from, &mut to)?;
        }
        Ok(())
    }

    /// Copies `host` into `dst` from element `at`, on the default stream, in order with the
    /// kernels (no new allocation: for buffers refilled many times).
    pub fn write<T: DeviceScalar>(&self, dst: &mut DeviceBuffer<T>, at: usize, host: &[T]) -> Result<()> {
        self.write_on(Lane::Now, dst, at, host)
    }

    /// [`Gpu::write`] on `lane`'s stream: in order with that stream's work, and with the
    /// default stream's only through events ([`Gpu::record`], [`Gpu::wait_for`]). Returns
    /// once `host` is copied or staged by the driver (it may be reused at once).
    pub fn write_on<T: DeviceScalar>(
        &self,
        lane: Lane,
        dst: &mut DeviceBuffer<T>,
        at: usize,
        host: &[T],
    ) -> Result<()> {
        if at.checked_add(host.len()).is_none_or(|end| end > dst.len) {
            return Err(CudaError::Mismatch(format!("write of {} elements at {at} into {}", host.len(), dst.len)));
        }
        if !host.is_empty() {
            let stream = self.stream_of(lane);
            dst.used_on(stream)?;
            let mut to = dst.slice.slice_mut(at..at + host.len());
            stream.memcpy_htod(host, &mut to)?;
        }
        Ok(())
    }

    /// Copies `buf[at..at + out.len()]` into `out` on `lane`'s stream and waits for that
    /// stream (not the others): a download of a sub-range without a new vector.
    pub fn read_on<T: DeviceScalar>(&self, lane: Lane, buf: &DeviceBuffer<T>, at: usize, out: &mut [T]) -> Result<()> {
        let range: Range<usize> = at..at.saturating_add(out.len());
        if range.end > buf.len || range.end - range.start != out.len() {
            return Err(CudaError::Mismatch(format!("read of {range:?} from a buffer of {} elements", buf.len)));
        }
        let stream = self.stream_of(lane);
        if !out.is_empty() {
            buf.used_on(stream)?;
            stream.memcpy_dtoh(&buf.slice.slice(range), out)?;
        }
        stream.synchronize()?;
        Ok(())
    }

    /// A host copy of `buf`.
    pub fn download<T: DeviceScalar>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.download_range(buf, 0..buf.len)
    }

    /// A host copy of `buf[range]`.
    pub fn download_range<T: DeviceScalar>(
        &self,
        buf: &DeviceBuffer<T>,
        range: std::ops::Range<usize>,
    ) -> Result<Vec<T>> {
        if range.start > range.end || range.end > buf.len {
            return Err(CudaError::Mismatch(format!("download of {range:?} from a buffer of {} elements", buf.len)));
        }
        let mut host = vec![T::default(); range.len()];
        if !range.is_empty() {
            self.stream.memcpy_dtoh(&buf.slice.slice(range), &mut host)?;
        }
        self.stream.synchronize()?;
        Ok(host)
    }

    /// Waits for all launched work (on the default stream).
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize()?;
        Ok(())
    }

    /// Waits for all work enqueued on `lane`'s stream.
    pub fn synchronize_on(&self, lane: Lane) -> Result<()> {
        self.stream_of(lane).synchronize()?;
        Ok(())
    }

    /// Waits for all launched work, calling `poll` about every millisecond meanwhile (to
    /// raise a [`HostFlag`](crate::HostFlag) that running kernels read, say).
    pub fn wait_polling(&self, poll: impl FnMut()) -> Result<()> {
        // A quarter of a millisecond: the most a finished kernel waits to be seen.
        self.wait_polling_every(std::time::Duration::from_micros(250), poll)
    }

    /// [`Gpu::wait_polling`] with the pause between polls growing from 10 µs to at most `most`;
    /// the host thread sleeps meanwhile, leaving its core to other threads.
    pub fn wait_polling_every(&self, most: std::time::Duration, mut poll: impl FnMut()) -> Result<()> {
        let done = self.stream.record_event(None)?;
        // Short kernels end within microseconds: the pause starts short and doubles.
        let mut pause = std::time::Duration::from_micros(10).min(most);
        while !done.try_is_complete()? {
            poll();
            std::thread::sleep(pause);
            pause = (pause * 2).min(most);
        }
        Ok(())
    }
}
