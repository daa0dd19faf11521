//! `--device auto`'s choice: the device that finishes a query sooner, from its estimated work
//! and each device's measured cost per unit (`DeviceCosts`), or from the data graph's size or
//! a limit where those decide before any estimate.

use crate::plan::Device;

/// Nanoseconds one enumeration thread spends per unit of estimated work (measured on the
/// Sun & Luo sets; see bench/results).
pub const NS_PER_UNIT: f64 = 5.0;

/// What a query costs on each device: per unit of estimated work (`estimate`) and fixed. The
/// constants `--device auto` compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceCosts {
    /// CPU nanoseconds per unit, one thread.
    pub cpu_ns_per_unit: f64,
    /// GPU nanoseconds per unit, the whole device.
    pub gpu_ns_per_unit: f64,
    /// GPU milliseconds every query pays: launches, synchronisations, uploads.
    pub gpu_fixed_ms: f64,
}

impl DeviceCosts {
    /// CPU milliseconds per unit on `threads` threads.
    fn cpu_ms_per_unit(&self, threads: usize) -> f64 {
        self.cpu_ns_per_unit * 1e-6 / threads.max(1) as f64
    }

    /// GPU milliseconds `cost` units of work take, besides the fixed cost.
    pub fn gpu_ms(&self, cost: f64) -> f64 {
        cost * self.gpu_ns_per_unit * 1e-6
    }
}

/// Measured on the H200 host (16 cores), 2026-11-24 (bench/results/2026-11-25-heavy-queries.md):
/// the 16-core CPU answers the Sun & Luo classes in 0.2–3 ms where the GPU needs 1.5–5 ms, and
/// G1's dense_8_1 (1.4·10^10 units) takes the GPU 1.09 s and the CPU 2.35 s. Measured again
/// 2026-11-27 (bench/results/2026-11-27-park-stream.md): the join now runs heavy queries at
/// 0.0017–0.093 ns per GPU-priced unit (median 0.011), so this sits near the top of the
/// spread; kept there, the spasm's gate tries every query whose join may be long, where it
/// wins 3–120× (a lower price would have missed two R-MAT queries, 14–17× slower), and its
/// budget bounds its losses (1.2–4.3×).
pub const H200_COSTS: DeviceCosts =
    DeviceCosts { cpu_ns_per_unit: NS_PER_UNIT, gpu_ns_per_unit: 0.08, gpu_fixed_ms: 3.0 };

/// A device chosen for a query, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceChoice {
    pub device: Device,
    pub basis: Basis,
}

/// What chose a query's device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Basis {
    /// The predicted milliseconds on the CPU and on the GPU.
    Predicted(f64, f64),
    /// The data graph's size ([`device_for_graph`]).
    GraphSize,
    /// The query's limit ([`device_for_limit`]).
    Limit,
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.device {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
        };
        match self.basis {
            Basis::Predicted(cpu, gpu) => write!(f, "{name} (faster: predicted CPU {cpu:.3} ms, GPU {gpu:.3} ms)"),
            Basis::GraphSize => write!(
                f,
                "{name} (a data graph of {GPU_GRAPH_VERTICES} vertices or more: the CPU's filter alone costs more than the GPU's query)"
            ),
            Basis::Limit => write!(
                f,
                "{name} (a limit: the CPU's depth-first search stops at it, where the GPU's first chunks are whole levels)"
            ),
        }
    }
}

/// Data graphs from this many vertices run every query on the GPU under `--device auto`: the
/// CPU's filter (a pass over the candidates of every query vertex) then costs more than the
/// GPU's whole query on small queries (G3's 8-vertex classes: 3.4 against 2.2 ms at the
/// median), and heavy queries are faster on the GPU anyway.
pub const GPU_GRAPH_VERTICES: usize = 1 << 20;

/// The device for queries on a data graph of `vertices` vertices, when its size decides.
pub fn device_for_graph(vertices: usize) -> Option<DeviceChoice> {
    (vertices >= GPU_GRAPH_VERTICES).then_some(DeviceChoice { device: Device::Gpu, basis: Basis::GraphSize })
}

/// The device for a query with a `limit` on a data graph of `vertices` vertices, before any
/// estimate: the GPU where the graph's size sends every query there, else the CPU. Under a
/// limit the estimates price the whole search (scaled by the limit over the estimated
/// matches, which sampling misses where few particles survive), while the CPU's depth-first
/// search stops at the limit. Measured on the Sun & Luo sets with a limit of 10^5 (H200,
/// 2026-11-25, 262 queries that reached it): the GPU was at best 1.8 times faster than the
/// 16-core CPU (wordnet, where the CPU's filter dominates), and the 23 queries the estimates
/// sent to it took 2 to 60 times the CPU's time (wordnet dense_20_8: 1.84 s against 31 ms).
pub fn device_for_limit(vertices: usize, limit: Option<u64>) -> Option<DeviceChoice> {
    device_for_graph(vertices).or(limit.map(|_| DeviceChoice { device: Device::Cpu, basis: Basis::Limit }))
}

/// The work below which the CPU on `threads` threads finishes before the GPU has paid its
/// fixed cost, as `costs` says: queries whose bound is below it need no estimate to choose.
pub fn gpu_break_even(threads: usize, costs: &DeviceCosts) -> f64 {
    costs.gpu_fixed_ms / costs.cpu_ms_per_unit(threads)
}

/// The device that finishes `cost` units of work sooner, the CPU on `threads` threads against
/// the GPU as `costs` says.
pub fn choose_device(cost: f64, threads: usize, costs: &DeviceCosts) -> DeviceChoice {
    let cpu_ms = cost * costs.cpu_ms_per_unit(threads);
    let gpu_ms = costs.gpu_fixed_ms + costs.gpu_ms(cost);
    let device = if gpu_ms < cpu_ms { Device::Gpu } else { Device::Cpu };
    DeviceChoice { device, basis: Basis::Predicted(cpu_ms, gpu_ms) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_follows_the_work() {
        let c = H200_COSTS;
        assert_eq!(choose_device(1e3, 16, &c).device, Device::Cpu);
        assert_eq!(choose_device(1e10, 16, &c).device, Device::Gpu);
        // One thread hands work to the GPU sooner than sixteen.
        let even = c.gpu_fixed_ms / (c.cpu_ns_per_unit * 1e-6 / 16.0 - c.gpu_ns_per_unit * 1e-6);
        assert_eq!(choose_device(even * 0.9, 16, &c).device, Device::Cpu);
        assert_eq!(choose_device(even * 0.9, 1, &c).device, Device::Gpu);
        // Below the break-even work the CPU wins whatever the GPU's rate.
        assert_eq!(choose_device(gpu_break_even(16, &c) * 0.99, 16, &c).device, Device::Cpu);
        assert!(gpu_break_even(1, &c) < gpu_break_even(16, &c));
        let shown = choose_device(1e10, 16, &c).to_string();
        assert!(shown.starts_with("gpu (faster: predicted CPU"), "{shown}");
        assert_eq!(device_for_graph(GPU_GRAPH_VERTICES - 1), None);
        assert_eq!(device_for_graph(GPU_GRAPH_VERTICES).map(|c| c.device), Some(Device::Gpu));
        // A limit keeps a query on the CPU, except on graphs whose size sends it to the GPU.
        assert_eq!(device_for_limit(GPU_GRAPH_VERTICES - 1, None), None);
        let limited = device_for_limit(GPU_GRAPH_VERTICES - 1, Some(10)).unwrap();
        assert_eq!((limited.device, limited.basis), (Device::Cpu, Basis::Limit));
        assert!(limited.to_string().starts_with("cpu (a limit"), "{limited}");
        assert_eq!(device_for_limit(GPU_GRAPH_VERTICES, Some(10)).map(|c| c.basis), Some(Basis::GraphSize));
    }
}
