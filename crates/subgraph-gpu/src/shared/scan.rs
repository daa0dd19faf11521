//! Exclusive prefix sum on the device (`scan.cu`): u32 counts to u64 offsets, the scan step of
//! GSI's filtering (§III-A, CUB DeviceScan in the released code) and of Prealloc-Combine (§V).

use subgraph_cuda::{Arg, DeviceBuffer, Gpu, KernelDecl, KernelSource, Param};

use crate::error::{to_u32, Result};

/// The kernels of `scan.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "scan.cu",
    code: include_str!("scan.cu"),
    kernels: &[
        KernelDecl { name: "scan_tile_sums", params: &[Param::BufU32, Param::U32, Param::BufU64] },
        KernelDecl { name: "scan_tile_offsets", params: &[Param::BufU64, Param::U32] },
        KernelDecl { name: "scan_tile_apply", params: &[Param::BufU32, Param::U32, Param::BufU64, Param::BufU64] },
        KernelDecl { name: "scan_gather", params: &[Param::BufU64, Param::BufU64, Param::U32, Param::BufU64] },
    ],
};

const BLOCK: u32 = 1024;
const TILE: usize = BLOCK as usize * 4;

/// Compiles and loads the scan kernels now rather than at the first scan.
pub fn prepare(gpu: &Gpu) -> Result<()> {
    Ok(gpu.kernel(&SOURCE, "scan_tile_apply").map(drop)?)
}

/// The exclusive prefix sum of `input` (n + 1 offsets, the last one the total) and the total.
pub fn exclusive_scan(gpu: &Gpu, input: &DeviceBuffer<u32>) -> Result<(DeviceBuffer<u64>, u64)> {
    let out = scan_on_device(gpu, input)?;
    let total = gpu.download_range(&out, input.len()..input.len() + 1)?[0];
    Ok((out, total))
}

/// [`exclusive_scan`], with all n + 1 offsets copied to the host in the same synchronisation
/// when `input` has at most `host_max` elements.
pub fn exclusive_scan_to_host(
    gpu: &Gpu,
    input: &DeviceBuffer<u32>,
    host_max: usize,
) -> Result<(DeviceBuffer<u64>, u64, Option<Vec<u64>>)> {
    if input.len() > host_max {
        let (out, total) = exclusive_scan(gpu, input)?;
        return Ok((out, total, None));
    }
    let out = scan_on_device(gpu, input)?;
    let host = gpu.download(&out)?;
    Ok((out, host[input.len()], Some(host)))
}

/// `offsets[at[i]]` for every i, on the host: after a scan over several lists laid one after
/// another (list u's entries from `at[u]`), where each list's scanned entries begin.
pub fn list_starts(gpu: &Gpu, offsets: &DeviceBuffer<u64>, at: &DeviceBuffer<u64>) -> Result<Vec<u64>> {
    let n = to_u32("scan gather", at.len() as u64)?;
    let gather = gpu.kernel(&SOURCE, "scan_gather")?;
    let mut out = gpu.alloc_zeros::<u64>("list starts", at.len())?;
    gpu.launch(
        &gather,
        n.div_ceil(BLOCK),
        BLOCK,
        &mut [Arg::In64(offsets), Arg::In64(at), Arg::U32(n), Arg::Out64(&mut out)],
    )?;
    Ok(gpu.download(&out)?)
}

/// Launches the scan of `input` into n + 1 offsets.
fn scan_on_device(gpu: &Gpu, input: &DeviceBuffer<u32>) -> Result<DeviceBuffer<u64>> {
    let n = to_u32("scan input", input.len() as u64)?;
    let mut out = gpu.alloc_zeros::<u64>("scan offsets", input.len() + 1)?;
    if n == 0 {
        return Ok(out);
    }
    let tiles = input.len().div_ceil(TILE);
    let mut tile_sums = gpu.alloc_zeros::<u64>("scan tile sums", tiles)?;
    let sums = gpu.kernel(&SOURCE, "scan_tile_sums")?;
    let offsets = gpu.kernel(&SOURCE, "scan_tile_offsets")?;
    let apply = gpu.kernel(&SOURCE, "scan_tile_apply")?;
    let grid = tiles as u32;
    // One tile starts at offset 0, as zeroed: no tile sums to scan.
    if tiles > 1 {
        gpu.launch(&sums, grid, BLOCK, &mut [Arg::In32(input), Arg::U32(n), Arg::Out64(&mut tile_sums)])?;
        gpu.launch(&offsets, 1, BLOCK, &mut [Arg::Out64(&mut tile_sums), Arg::U32(grid)])?;
    }
    gpu.launch(&apply, grid, BLOCK, &mut [Arg::In32(input), Arg::U32(n), Arg::In64(&tile_sums), Arg::Out64(&mut out)])?;
    Ok(out)
}
