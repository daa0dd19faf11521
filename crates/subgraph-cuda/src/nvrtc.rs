//! Kernel sources compiled at run time by NVRTC: each source declares its kernels and their
//! parameter kinds, compiled to PTX once per process and (source, architecture), and the PTX
//! checked to define every declared kernel with the declared parameters.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions, Ptx};
use xxhash_rust::xxh3::xxh3_64;

use crate::detect::{check_nvrtc_library, guarded};
use crate::error::{CudaError, Result};

/// The kind of one kernel parameter. Buffers are 64-bit device pointers in PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `const unsigned int*` or `unsigned int*`.
    BufU32,
    /// `const unsigned long long*` or `unsigned long long*`.
    BufU64,
    /// `const float*` or `float*`.
    BufF32,
    /// `unsigned int` by value.
    U32,
    /// `unsigned long long` by value.
    U64,
    /// `float` by value.
    F32,
}

impl Param {
    pub(crate) fn ptx_type(self) -> &'static str {
        match self {
            Param::BufU32 | Param::BufU64 | Param::BufF32 | Param::U64 => ".u64",
            Param::U32 => ".u32",
            Param::F32 => ".f32",
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

/// The folder of PTX compiled by earlier processes: `SUBGRAPH_PTX_CACHE` (`off` for none),
/// else `$XDG_CACHE_HOME/subgraph/ptx`, else `$HOME/.cache/subgraph/ptx`.
fn disk_cache() -> Option<PathBuf> {
    match std::env::var_os("SUBGRAPH_PTX_CACHE") {
        Some(dir) if dir == "off" => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|c| c.join("subgraph").join("ptx")),
    }
}

/// The cache file of `code` compiled for `arch` by this NVRTC: named by a hash of all three,
/// so a changed source, architecture or compiler never reads an old file.
fn cache_file(dir: &Path, source: &KernelSource, arch: &str, nvrtc: (i32, i32)) -> PathBuf {
    let key = format!("{arch}\n{}.{}\n{}", nvrtc.0, nvrtc.1, source.code);
    dir.join(format!("{:016x}-{arch}.ptx", xxh3_64(key.as_bytes())))
}

/// Compiles `source` to PTX for `arch` (e.g. `sm_90`) with NVRTC, once per process and
/// (source, arch), and once per machine where the disk cache (`disk_cache`) can be written:
/// a later process reads the PTX back (NVRTC takes seconds on the larger sources). Needs no
/// GPU. The PTX, compiled or read, is checked to define every declared kernel with the
/// declared parameter kinds; a cache that cannot be read or written is passed over.
pub fn compile_ptx(source: &KernelSource, arch: &str) -> Result<Ptx> {
    type Cache = Mutex<HashMap<(&'static str, String), Ptx>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (source.name, arch.to_string());
    if let Some(ptx) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(ptx.clone());
    }
    check_nvrtc_library()?;
    let file = disk_cache().map(|dir| cache_file(&dir, source, arch, crate::detect::nvrtc_version().unwrap_or((0, 0))));
    if let Some(text) = file.as_deref().and_then(|f| read_cached(f, source)) {
        let ptx = Ptx::from_src(text);
        cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, ptx.clone());
        return Ok(ptx);
    }
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
    let text = ptx.to_src();
    check_signatures(source, &text)?;
    if let Some(file) = &file {
        write_cached(file, &text);
    }
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, ptx.clone());
    Ok(ptx)
}

/// The last line of a cached file: this marker and the hash of the text before it.
const SEAL: &str = "// subgraph ptx cache ";

/// The PTX of a cache file, if it is whole (its seal matches) and defines `source`'s kernels.
fn read_cached(file: &Path, source: &KernelSource) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let at = text.rfind(SEAL)?;
    let (body, seal) = text.split_at(at);
    if seal[SEAL.len()..].trim() != format!("{:016x}", xxh3_64(body.as_bytes())) {
        return None;
    }
    check_signatures(source, body).ok()?;
    Some(body.to_string())
}

/// Writes `text` sealed to `file`, whole under a temporary name and then renamed, so that a
/// reader never sees half a file; a failure leaves no file.
fn write_cached(file: &Path, text: &str) {
    let partial = file.with_extension(format!("{}.partial", std::process::id()));
    let sealed = format!("{text}{SEAL}{:016x}\n", xxh3_64(text.as_bytes()));
    let written = file.parent().is_some_and(|d| std::fs::create_dir_all(d).is_ok())
        && std::fs::write(&partial, sealed).is_ok()
        && std::fs::rename(&partial, file).is_ok();
    if !written {
        let _ = std::fs::remove_file(&partial);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    static DECLS: [KernelDecl; 1] = [KernelDecl {
        name: "k",
        params: &[Param::BufF32, Param::U32, Param::BufU32, Param::BufU64, Param::U64, Param::BufF32, Param::F32],
    }];
    static SOURCE: KernelSource = KernelSource { name: "test.cu", code: "", kernels: &DECLS };

    /// The PTX header NVRTC writes for `k(const float*, unsigned, const unsigned*, unsigned long
    /// long*, unsigned long long, float*, float)`.
    const PTX: &str = ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .u64 \
                       k_param_2,\n\t.param .u64 k_param_3,\n\t.param .u64 k_param_4,\n\t.param .u64 k_param_5,\n\t\
                       .param .f32 k_param_6\n)\n{";

    #[test]
    fn float_buffers_are_64_bit_pointers() {
        assert_eq!(Param::BufF32.ptx_type(), ".u64");
        assert_eq!(Param::U32.ptx_type(), ".u32");
        assert_eq!(Param::F32.ptx_type(), ".f32");
        check_signatures(&SOURCE, PTX).unwrap();
    }

    #[test]
    fn a_different_parameter_list_is_refused() {
        static SHORT: [KernelDecl; 1] = [KernelDecl { name: "k", params: &[Param::BufF32, Param::BufU32] }];
        let source = KernelSource { name: "test.cu", code: "", kernels: &SHORT };
        let e = check_signatures(&source, PTX).unwrap_err().to_string();
        assert!(e.contains("kernel k of test.cu"), "{e}");
        static MISSING: [KernelDecl; 1] = [KernelDecl { name: "other", params: &[] }];
        let source = KernelSource { name: "test.cu", code: "", kernels: &MISSING };
        assert!(matches!(check_signatures(&source, PTX), Err(CudaError::MissingKernel { .. })));
    }
}
