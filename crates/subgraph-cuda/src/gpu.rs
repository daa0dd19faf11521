//! The one thin wrapper over cudarc, and the only module with `unsafe`: detection of the CUDA
//! driver, device and NVRTC that never panics, a context on device 0, NVRTC compilation of the
//! crate's kernel sources for the device's architecture (cached for the process), device
//! buffers whose every allocation is checked against the free device memory first, and kernel
//! launches whose arguments are checked against the kernel's declared parameters, which are in
//! turn checked against the compiled PTX. GPU facts as in GSI §II-B.
//!
//! Work runs on the context's default stream, in program order. A second stream carries the
//! copies a pipeline makes ahead of the kernels that read them (SGSI §6.2's two streams):
//! [`Gpu::upload_parts`] on [`Lane::Ahead`] copies there and records an event that
//! [`Gpu::arrived`] makes the default stream wait for, and a buffer copied there is freed
//! there only after the default stream's work enqueued before its drop.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig,
    PushKernelArg, ValidAsZeroBits,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions, Ptx};

use crate::error::{CudaError, GpuUnavailable, Result};

/// The kind of one kernel parameter. Buffers are 64-bit device pointers in PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `const unsigned int*` or `unsigned int*`.
    BufU32,
    /// `const unsigned long long*` or `unsigned long long*`.
    BufU64,
    /// `unsigned int` by value.
    U32,
    /// `unsigned long long` by value.
    U64,
}

impl Param {
    fn ptx_type(self) -> &'static str {
        match self {
            Param::BufU32 | Param::BufU64 | Param::U64 => ".u64",
            Param::U32 => ".u32",
        }
    }
}

/// One `extern "C" __global__` function of a kernel source and its parameter list.
#[derive(Debug)]
pub struct KernelDecl {
    pub name: &'static str,
    pub params: &'static [Param],
}

/// One `.cu` file of the crate, with the kernels it defines.
#[derive(Debug)]
pub struct KernelSource {
    /// File name, used in NVRTC messages and as the cache key.
    pub name: &'static str,
    pub code: &'static str,
    pub kernels: &'static [KernelDecl],
}

/// An argument of a kernel launch; its kind must equal the declared [`Param`].
pub enum Arg<'a> {
    In32(&'a DeviceBuffer<u32>),
    In64(&'a DeviceBuffer<u64>),
    Out32(&'a mut DeviceBuffer<u32>),
    Out64(&'a mut DeviceBuffer<u64>),
    U32(u32),
    U64(u64),
}

impl Arg<'_> {
    fn kind(&self) -> Param {
        match self {
            Arg::In32(_) | Arg::Out32(_) => Param::BufU32,
            Arg::In64(_) | Arg::Out64(_) => Param::BufU64,
            Arg::U32(_) => Param::U32,
            Arg::U64(_) => Param::U64,
        }
    }
}

/// Element types a [`DeviceBuffer`] may hold.
pub trait DeviceScalar: DeviceRepr + ValidAsZeroBits + Copy + Default + Unpin {}
impl DeviceScalar for u32 {}
impl DeviceScalar for u64 {}

/// A device array of `len` elements. Its device address is aligned to at least 256 bytes
/// (the driver's allocation granularity), so 128-byte PCSR groups stay one transaction each.
pub struct DeviceBuffer<T> {
    slice: CudaSlice<T>,
    len: usize,
    bytes: u64,
    usage: Arc<Usage>,
    /// For a buffer allocated on the copy stream: the default stream, whose work enqueued
    /// before the drop the free waits for (kernels there may still read the buffer).
    readers: Option<Arc<CudaStream>>,
}

/// Bytes held in live [`DeviceBuffer`]s of one [`Gpu`], the most held since the last reset, the
/// cap on them, and the device's free bytes at the last look with the bytes held then.
#[derive(Debug)]
struct Usage {
    live: AtomicU64,
    peak: AtomicU64,
    /// Most bytes the buffers may hold together (`u64::MAX`: the device's free memory alone).
    cap: AtomicU64,
    /// Free device bytes when the driver was last asked (`cuMemGetInfo`), and `live` then.
    seen_free: AtomicU64,
    seen_live: AtomicU64,
}

impl Default for Usage {
    fn default() -> Self {
        Usage {
            live: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            cap: AtomicU64::new(u64::MAX),
            seen_free: AtomicU64::new(0),
            seen_live: AtomicU64::new(0),
        }
    }
}

impl Usage {
    /// Free device bytes by the last look, less what this `Gpu`'s buffers took since (plus
    /// what they gave back).
    fn free_guess(&self) -> u64 {
        let held_since = self.live.load(Ordering::Relaxed) as i128 - self.seen_live.load(Ordering::Relaxed) as i128;
        (self.seen_free.load(Ordering::Relaxed) as i128 - held_since).clamp(0, u64::MAX as i128) as u64
    }
}

/// An allocation of at most this share of the free bytes guessed from the last look
/// ([`Usage::free_guess`]) is made without asking the driver again: `cuMemGetInfo` costs about
/// 5 µs, as much as the allocation, and a small query allocates 100–150 buffers
/// (bench/results/2026-11-26-host-overhead.md).
const GUESS_SHARE: u64 = 4;

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

/// Versions of the loaded CUDA libraries, each as (major, minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    pub driver: (i32, i32),
    pub nvrtc: (i32, i32),
}

/// The device the engine runs on.
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

/// Runs `body`, turning a cudarc loader panic (a missing symbol) into an error.
fn guarded<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "cudarc panicked".to_string());
        Err(GpuUnavailable::Library(message).into())
    })
}

/// Whether the CUDA driver library can be loaded; loads nothing else and never panics.
pub fn check_driver_library() -> Result<(), GpuUnavailable> {
    // SAFETY: `is_culib_present` only dlopens candidate library names and drops the handles.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuUnavailable::DriverLibrary)
    }
}

/// Whether the NVRTC library can be loaded; never panics.
pub fn check_nvrtc_library() -> Result<(), GpuUnavailable> {
    // SAFETY: as in `check_driver_library`.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuUnavailable::Nvrtc)
    }
}

/// The NVRTC version, after checking that the library is present.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    check_nvrtc_library()?;
    guarded(|| {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: both pointers are valid for writes for the duration of the call.
        let status = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
        if status == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
            Ok((major, minor))
        } else {
            Err(GpuUnavailable::Library(format!("nvrtcVersion returned {status:?}")).into())
        }
    })
}

/// The CUDA version the driver supports, after checking that the library is present.
pub fn driver_version() -> Result<(i32, i32)> {
    check_driver_library()?;
    guarded(|| {
        let mut version = 0;
        // SAFETY: the pointer is valid for writes for the duration of the call.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }.result()?;
        Ok((version / 1000, (version % 1000) / 10))
    })
}

/// NVRTC wants the architecture as a `&'static str`; each distinct one is leaked once.
fn static_arch(arch: &str) -> &'static str {
    static ARCHS: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
    let mut archs = ARCHS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    match archs.iter().find(|a| **a == arch) {
        Some(a) => a,
        None => {
            let leaked: &'static str = Box::leak(arch.to_string().into_boxed_str());
            archs.push(leaked);
            leaked
        }
    }
}

/// Compiles `source` to PTX for `arch` (e.g. `sm_90`) with NVRTC, once per process and
/// (source, arch); needs no GPU. The PTX is checked to define every declared kernel with the
/// declared parameter kinds.
pub fn compile_ptx(source: &KernelSource, arch: &str) -> Result<Ptx> {
    type Cache = Mutex<HashMap<(&'static str, String), Ptx>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (source.name, arch.to_string());
    if let Some(ptx) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(ptx.clone());
    }
    check_nvrtc_library()?;
    let arch_static = static_arch(arch);
    let ptx = guarded(|| {
        let opts = CompileOptions {
            arch: Some(arch_static),
            name: Some(source.name.to_string()),
            options: vec!["--std=c++17".to_string(), "--device-int128".to_string()],
            ..Default::default()
        };
        compile_ptx_with_opts(source.code, opts).map_err(|e| CudaError::Compile {
            source_name: source.name.to_string(),
            arch: arch.to_string(),
            log: match e {
                CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
                other => other.to_string(),
            },
        })
    })?;
    check_signatures(source, &ptx.to_src())?;
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, ptx.clone());
    Ok(ptx)
}

/// Checks that the PTX defines each declared kernel with the declared parameter widths.
fn check_signatures(source: &KernelSource, ptx: &str) -> Result<()> {
    for decl in source.kernels {
        let header = format!(".entry {}(", decl.name);
        let start = ptx.find(&header).ok_or_else(|| CudaError::MissingKernel {
            source_name: source.name.to_string(),
            kernel: decl.name.to_string(),
        })?;
        let rest = &ptx[start + header.len()..];
        let params = &rest[..rest.find(')').unwrap_or(rest.len())];
        let found: Vec<&str> = params.split(',').filter_map(|p| p.split_whitespace().nth(1)).collect();
        let declared: Vec<&str> = decl.params.iter().map(|p| p.ptx_type()).collect();
        if found != declared {
            return Err(CudaError::Mismatch(format!(
                "kernel {} of {}: PTX parameters {found:?}, declared {declared:?}",
                decl.name, source.name
            )));
        }
    }
    Ok(())
}

/// A kernel loaded on the device, with its declared parameters.
pub struct Kernel {
    function: CudaFunction,
    decl: &'static KernelDecl,
}

/// The CUDA context on device 0 and its default stream.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// The stream of copies made ahead ([`Lane::Ahead`]).
    copies: Arc<CudaStream>,
    info: DeviceInfo,
    arch: String,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    usage: Arc<Usage>,
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
            // stream, in program order, except the copies made ahead on `copies`, whose order
            // with the default stream is explicit: the default stream waits for their event
            // before reading them ([`Gpu::arrived`]) and their free waits for the default stream
            // ([`DeviceBuffer`]'s drop). Without tracking, an allocation creates no events and a
            // drop destroys none.
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
            Ok(Gpu {
                ctx,
                stream,
                copies,
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

    /// A device array of `len` elements (at least one), zeroed, or filled with `host` (of
    /// `len` elements) where given.
    fn alloc<T: DeviceScalar>(&self, what: &'static str, len: usize, host: Option<&[T]>) -> Result<DeviceBuffer<T>> {
        self.alloc_on(Lane::Now, what, len, host.as_slice())
    }

    /// [`Gpu::alloc`] on `lane`'s stream, filled with the host `parts` one after another
    /// (`len` elements in all) where there are any.
    fn alloc_on<T: DeviceScalar>(
        &self,
        lane: Lane,
        what: &'static str,
        len: usize,
        parts: &[&[T]],
    ) -> Result<DeviceBuffer<T>> {
        let bytes = (len.max(1) as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.check_free(what, bytes)?;
        let stream = match lane {
            Lane::Now => &self.stream,
            Lane::Ahead => &self.copies,
        };
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
        let readers = (lane == Lane::Ahead).then(|| self.stream.clone());
        Ok(DeviceBuffer { slice, len, bytes, usage: self.usage.clone(), readers })
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

    /// Copies `len` elements of `src` from `src_at` into `dst` at `dst_at`, on the device.
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
            bufs.push(self.alloc_on(lane, what, len, &host)?);
        }
        let ready = match lane {
            Lane::Now => None,
            Lane::Ahead => Some(self.copies.record_event(None)?),
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

    /// Compiles (once per process) and loads (once per `Gpu`) `source`, and returns `name`.
    pub fn kernel(&self, source: &'static KernelSource, name: &str) -> Result<Kernel> {
        let decl = source.kernels.iter().find(|k| k.name == name).ok_or_else(|| CudaError::MissingKernel {
            source_name: source.name.to_string(),
            kernel: name.to_string(),
        })?;
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        let module = match modules.get(source.name) {
            Some(m) => m.clone(),
            None => {
                let ptx = compile_ptx(source, &self.arch)?;
                let m = guarded(|| Ok(self.ctx.load_module(ptx)?))?;
                modules.insert(source.name, m.clone());
                m
            }
        };
        let function = module.load_function(name)?;
        Ok(Kernel { function, decl })
    }

    /// Blocks of `block` threads of `kernel` one multiprocessor runs at once (its occupancy).
    pub fn resident_blocks(&self, kernel: &Kernel, block: u32) -> Result<u32> {
        Ok(kernel.function.occupancy_max_active_blocks_per_multiprocessor(block, 0, None)?)
    }

    /// Launches `kernel` on `grid` blocks of `block` threads with `args`, after checking them
    /// against the kernel's declared parameters.
    pub fn launch(&self, kernel: &Kernel, grid: u32, block: u32, args: &mut [Arg<'_>]) -> Result<()> {
        if !args.iter().map(Arg::kind).eq(kernel.decl.params.iter().copied()) {
            let kinds: Vec<Param> = args.iter().map(Arg::kind).collect();
            return Err(CudaError::Mismatch(format!(
                "kernel {}: launched with {kinds:?}, declared {:?}",
                kernel.decl.name, kernel.decl.params
            )));
        }
        if grid == 0 {
            return Ok(());
        }
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
        let mut builder = self.stream.launch_builder(&kernel.function);
        for arg in args.iter_mut() {
            match arg {
                Arg::In32(b) => builder.arg(&b.slice),
                Arg::In64(b) => builder.arg(&b.slice),
                Arg::Out32(b) => builder.arg(&mut b.slice),
                Arg::Out64(b) => builder.arg(&mut b.slice),
                Arg::U32(v) => builder.arg(&*v),
                Arg::U64(v) => builder.arg(&*v),
            };
        }
        // SAFETY: the argument list matches the kernel's declared parameters in number and kind
        // (checked above), and the declaration matches the PTX (checked in `compile_ptx`); every
        // buffer argument is a live device allocation whose length the kernels receive and
        // respect as a separate argument.
        unsafe { builder.launch(cfg) }?;
        Ok(())
    }

    /// Waits for all launched work.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize()?;
        Ok(())
    }

    /// Waits for all launched work, calling `poll` about every millisecond meanwhile (to
    /// raise a [`HostFlag`] that running kernels read, say).
    pub fn wait_polling(&self, mut poll: impl FnMut()) -> Result<()> {
        let done = self.stream.record_event(None)?;
        // Short kernels end within microseconds: the pause grows from 10 µs to a quarter of a
        // millisecond, the most a finished kernel waits to be seen.
        let mut pause = std::time::Duration::from_micros(10);
        while !done.try_is_complete()? {
            poll();
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_micros(250));
        }
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

/// The stream a copy runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// The default stream, in order with the kernels.
    Now,
    /// The copy stream, ahead of the kernels that will read it.
    Ahead,
}

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

/// Elements of a [`HostBuffer`]: 64 MiB of page-locked memory.
pub const HOST_BUFFER_ELEMS: usize = 1 << 24;

/// Page-locked host memory that [`Gpu::download_pinned`] reuses: an engine keeps one for all
/// its queries.
#[derive(Default)]
pub struct HostBuffer {
    slice: Option<cudarc::driver::PinnedHostSlice<u32>>,
}

impl HostBuffer {
    /// Elements `range` of the page-locked memory.
    fn range(&self, range: std::ops::Range<usize>) -> Result<&[u32]> {
        match self.slice.as_ref() {
            Some(slice) if range.start <= range.end && range.end <= slice.len() => Ok(&slice.as_slice()?[range]),
            _ => Err(CudaError::Mismatch(format!("upload of {range:?} from page-locked memory"))),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_free_guess_follows_the_buffers_since_the_last_look() {
        let usage = Usage::default();
        assert_eq!(usage.free_guess(), 0, "no look yet: every allocation asks the driver");
        usage.seen_free.store(1000, Ordering::Relaxed);
        usage.seen_live.store(100, Ordering::Relaxed);
        usage.live.store(100, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 1000);
        usage.live.store(300, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 800, "200 bytes taken since the look");
        usage.live.store(40, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 1060, "60 bytes given back since the look");
        usage.live.store(5000, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 0, "more taken than was free: nothing is guessed free");
    }
}
