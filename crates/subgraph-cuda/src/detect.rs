//! Detection of the CUDA driver and NVRTC that never panics: whether each library loads, and
//! its version, before any other CUDA call; a cudarc loader panic (a missing symbol) becomes
//! [`GpuUnavailable::Library`].

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{GpuUnavailable, Result};

/// Versions of the loaded CUDA libraries, each as (major, minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    pub driver: (i32, i32),
    pub nvrtc: (i32, i32),
}

/// Runs `body`, turning a cudarc loader panic (a missing symbol) into an error.
pub(crate) fn guarded<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
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
