//! What a query's failure on a GPU says of the device ([`of_run`]): a fault that poisons the
//! device's CUDA context (a sticky error: every later call on that context fails the same way
//! until the context is destroyed and a new one made), a lack of device memory (the query
//! alone fails; under `--device auto` it runs again on the CPU), or neither; and, for an
//! error that says neither, whether the device's context is poisoned all the same ([`probe`]).

use cudarc::driver::sys::CUresult;
use subgraph::patterns::PatternRunError;
use subgraph::record::RunError;
use subgraph::{CudaError, GpuError};
use subgraph_cuda::Gpu;

/// What a failed query's error says of the device it ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The context is poisoned: the device must be reopened.
    Sticky,
    /// The device lacked the memory (or `--gpu-memory` the budget): the device is sound.
    OutOfMemory,
    /// Anything else: the request's or the engine's error, the device sound.
    Other,
}

/// What a query's error says of its device.
pub fn of_run(e: &RunError) -> Fault {
    match e {
        RunError::Graph(e) | RunError::Pattern(PatternRunError::Engine(e)) => of_gpu(e),
        RunError::Pattern(_) => Fault::Other,
    }
}

/// What a GPU engine's error says of its device.
pub fn of_gpu(e: &GpuError) -> Fault {
    match e {
        GpuError::Cuda(e) => of_cuda(e),
        _ => Fault::Other,
    }
}

/// What the GPU runtime's error says of its device.
pub fn of_cuda(e: &CudaError) -> Fault {
    match e {
        CudaError::OutOfMemory { .. } | CudaError::OverBudget { .. } => Fault::OutOfMemory,
        CudaError::Driver(d) => of_code(d.0),
        _ => Fault::Other,
    }
}

/// What a CUDA driver call's result says of its context: the codes the driver documents as
/// leaving the context unusable are sticky.
pub fn of_code(code: CUresult) -> Fault {
    use CUresult::*;
    match code {
        CUDA_ERROR_OUT_OF_MEMORY => Fault::OutOfMemory,
        CUDA_ERROR_ILLEGAL_ADDRESS
        | CUDA_ERROR_LAUNCH_FAILED
        | CUDA_ERROR_ILLEGAL_INSTRUCTION
        | CUDA_ERROR_MISALIGNED_ADDRESS
        | CUDA_ERROR_HARDWARE_STACK_ERROR
        | CUDA_ERROR_INVALID_ADDRESS_SPACE
        | CUDA_ERROR_INVALID_PC
        | CUDA_ERROR_ASSERT
        | CUDA_ERROR_LAUNCH_TIMEOUT
        | CUDA_ERROR_ECC_UNCORRECTABLE
        | CUDA_ERROR_CONTEXT_IS_DESTROYED => Fault::Sticky,
        _ => Fault::Other,
    }
}

/// Whether `device`'s context is poisoned, asked of the driver through a handle of its own on
/// the device's primary context, which the engines share: the sticky error where it is. For an
/// error that names no code (a message the engine composed), so that a poisoned device is never
/// left in service.
pub fn probe(device: usize) -> Option<String> {
    let gpu = Gpu::open(device).ok()?;
    match gpu.synchronize() {
        Err(e) if of_cuda(&e) == Fault::Sticky => Some(e.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::DriverError;

    fn driver(code: CUresult) -> GpuError {
        GpuError::Cuda(CudaError::Driver(DriverError(code)))
    }

    #[test]
    fn sticky_codes_poison_and_memory_does_not() {
        use CUresult::*;
        for code in [
            CUDA_ERROR_ILLEGAL_ADDRESS,
            CUDA_ERROR_LAUNCH_FAILED,
            CUDA_ERROR_ILLEGAL_INSTRUCTION,
            CUDA_ERROR_MISALIGNED_ADDRESS,
            CUDA_ERROR_HARDWARE_STACK_ERROR,
        ] {
            assert_eq!(of_run(&RunError::Graph(driver(code))), Fault::Sticky, "{code:?}");
            let pattern = RunError::Pattern(PatternRunError::Engine(driver(code)));
            assert_eq!(of_run(&pattern), Fault::Sticky, "{code:?}");
        }
        for code in [CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_NOT_READY] {
            assert_eq!(of_gpu(&driver(code)), Fault::Other, "{code:?}");
        }
        assert_eq!(of_gpu(&driver(CUDA_ERROR_OUT_OF_MEMORY)), Fault::OutOfMemory);
        let oom = CudaError::OutOfMemory { what: "join", requested: 1 << 30, free: 0, total: 1 << 30 };
        assert_eq!(of_gpu(&GpuError::Cuda(oom)), Fault::OutOfMemory);
        let query = GpuError::Core(subgraph_core::Error::Query("no such label".into()));
        assert_eq!(of_run(&RunError::Graph(query)), Fault::Other);
        assert_eq!(of_run(&RunError::Pattern(PatternRunError::TooManyMatches)), Fault::Other);
    }
}
