//! Kernels loaded on a device and their launches, whose arguments are checked against the
//! kernel's declared parameters, which are in turn checked against the compiled PTX.

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use crate::buffer::{DeviceBuffer, Lane};
use crate::detect::guarded;
use crate::error::{CudaError, Result};
use crate::gpu::Gpu;
use crate::nvrtc::{compile_ptx, KernelDecl, KernelSource, Param};

/// An argument of a kernel launch; its kind must equal the declared [`Param`].
pub enum Arg<'a> {
    In32(&'a DeviceBuffer<u32>),
    In64(&'a DeviceBuffer<u64>),
    InF32(&'a DeviceBuffer<f32>),
    Out32(&'a mut DeviceBuffer<u32>),
    Out64(&'a mut DeviceBuffer<u64>),
    OutF32(&'a mut DeviceBuffer<f32>),
    U32(u32),
    U64(u64),
    F32(f32),
}

impl Arg<'_> {
    fn kind(&self) -> Param {
        match self {
            Arg::In32(_) | Arg::Out32(_) => Param::BufU32,
            Arg::In64(_) | Arg::Out64(_) => Param::BufU64,
            Arg::InF32(_) | Arg::OutF32(_) => Param::BufF32,
            Arg::U32(_) => Param::U32,
            Arg::U64(_) => Param::U64,
            Arg::F32(_) => Param::F32,
        }
    }

    /// Makes `stream` a user of the argument's buffer, if it is one.
    fn used_on(&self, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> Result<()> {
        match self {
            Arg::In32(b) => b.used_on(stream),
            Arg::Out32(b) => b.used_on(stream),
            Arg::In64(b) => b.used_on(stream),
            Arg::Out64(b) => b.used_on(stream),
            Arg::InF32(b) => b.used_on(stream),
            Arg::OutF32(b) => b.used_on(stream),
            Arg::U32(_) | Arg::U64(_) | Arg::F32(_) => Ok(()),
        }
    }
}

/// A kernel loaded on the device, with its declared parameters.
pub struct Kernel {
    function: CudaFunction,
    decl: &'static KernelDecl,
}

impl Gpu {
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
        self.launch_on(Lane::Now, kernel, grid, block, args)
    }

    /// [`Gpu::launch`] on `lane`'s stream: in order with that stream's work, and with the
    /// default stream's only through events ([`Gpu::record`], [`Gpu::wait_for`]). A buffer
    /// argument from another stream is first waited for there (see [`DeviceBuffer`]'s lanes).
    pub fn launch_on(&self, lane: Lane, kernel: &Kernel, grid: u32, block: u32, args: &mut [Arg<'_>]) -> Result<()> {
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
        let stream = self.stream_of(lane);
        for arg in args.iter() {
            arg.used_on(stream)?;
        }
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
        let mut builder = stream.launch_builder(&kernel.function);
        for arg in args.iter_mut() {
            match arg {
                Arg::In32(b) => builder.arg(&b.slice),
                Arg::In64(b) => builder.arg(&b.slice),
                Arg::InF32(b) => builder.arg(&b.slice),
                Arg::Out32(b) => builder.arg(&mut b.slice),
                Arg::Out64(b) => builder.arg(&mut b.slice),
                Arg::OutF32(b) => builder.arg(&mut b.slice),
                Arg::U32(v) => builder.arg(&*v),
                Arg::U64(v) => builder.arg(&*v),
                Arg::F32(v) => builder.arg(&*v),
            };
        }
        // SAFETY: the argument list matches the kernel's declared parameters in number and kind
        // (checked above), and the declaration matches the PTX (checked in `compile_ptx`); every
        // buffer argument is a live device allocation whose length the kernels receive and
        // respect as a separate argument, usable on `stream` (its allocation waited for there,
        // its free made to wait for `stream`: `used_on` above).
        unsafe { builder.launch(cfg) }?;
        Ok(())
    }
}
