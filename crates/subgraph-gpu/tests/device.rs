//! The kernels on a real GPU against their host references: scan, PCSR lookup (GSI §IV-A),
//! signature filtering (GSI §III-A), checked allocation and launch argument checks. Each test
//! skips when no GPU is usable, unless SUBGRAPH_REQUIRE_GPU=1.

#[path = "../src/testgen.rs"]
mod testgen;

use std::sync::OnceLock;

use subgraph_core::filter::Bitset;
use subgraph_cuda::{Arg, CudaError, Gpu};
use subgraph_gpu::gsi::balance::{Layers, W1, W2};
use subgraph_gpu::gsi::filter::{filter_host, filter_on_device, FilterKernels};
use subgraph_gpu::gsi::join;
use subgraph_gpu::gsi::pcsr::{ColumnOrder, Pcsr, GROUP_WORDS};
use subgraph_gpu::gsi::signature::{Signature, SignatureTable};
use subgraph_gpu::shared::scan::{exclusive_scan, exclusive_scan_to_host};
use testgen::{random_graph, GraphSpec, Rng};

fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match Gpu::new() {
        Ok(gpu) => {
            let info = gpu.info();
            eprintln!(
                "device: {} ({}, {} MiB), CUDA driver {}.{}, NVRTC {}.{}",
                info.name,
                gpu.arch(),
                info.total_memory >> 20,
                info.versions.driver.0,
                info.versions.driver.1,
                info.versions.nvrtc.0,
                info.versions.nvrtc.1
            );
            Some(gpu)
        }
        Err(e) => {
            if std::env::var("SUBGRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("SUBGRAPH_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("skipped: {e}");
            None
        }
    })
    .as_ref()
}

#[test]
fn scan_matches_the_host() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Rng::new(1);
    for n in [0usize, 1, 31, 4095, 4096, 4097, 1 << 20, 5_000_003] {
        let input: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
        let buf = gpu.upload("scan test input", &input).unwrap();
        let (out, total) = exclusive_scan(gpu, &buf).unwrap();
        let got = gpu.download(&out).unwrap();
        let mut want = Vec::with_capacity(n + 1);
        let mut run = 0u64;
        for &x in &input {
            want.push(run);
            run += x as u64;
        }
        want.push(run);
        assert_eq!(total, run, "n={n}");
        assert!(got == want, "scan differs for n={n}");
        // With the host copy: given up to `host_max` elements, withheld above.
        for host_max in [n, n.saturating_sub(1)] {
            let (out, total, host) = exclusive_scan_to_host(gpu, &buf, host_max).unwrap();
            assert_eq!(total, run, "n={n}");
            assert!(gpu.download(&out).unwrap() == want, "scan differs for n={n}");
            if host_max == n {
                assert!(host.as_ref() == Some(&want), "host offsets differ for n={n}");
            } else {
                assert!(host.is_none(), "n={n}");
            }
        }
    }
}

#[test]
fn device_pcsr_lookup_matches_the_host() {
    let Some(gpu) = gpu() else { return };
    for (seed, directed) in [(1u64, false), (2, true), (3, false)] {
        let g = random_graph(&GraphSpec {
            vertices: 20_000 * seed as usize,
            edges: 150_000,
            vertex_labels: 6,
            edge_labels: 1 + 3 * seed as u32,
            directed,
            seed,
        });
        let queries: Vec<u32> = (0..g.num_vertices() as u32 + 100).collect();
        for pcsr in Pcsr::build_all(&g, ColumnOrder::ByNeighbourLabel).unwrap() {
            let dev = pcsr.upload(gpu).unwrap();
            assert_eq!(dev.groups.device_address() % (4 * GROUP_WORDS as u64), 0);
            assert_eq!(gpu.download(&dev.columns).unwrap(), pcsr.columns());
            let got = dev.locate_all(gpu, &queries).unwrap();
            for (&v, found) in queries.iter().zip(&got) {
                assert_eq!(*found, pcsr.locate(v), "v={v} l={}", pcsr.edge_label());
            }
        }
    }
}

#[test]
fn device_filter_matches_the_host() {
    let Some(gpu) = gpu() else { return };
    let kernels = FilterKernels::new(gpu).unwrap();
    for (seed, directed, n) in [(1u64, false, 1000usize), (2, true, 50_000), (3, false, 300_001)] {
        let g =
            random_graph(&GraphSpec { vertices: n, edges: 4 * n, vertex_labels: 8, edge_labels: 4, directed, seed });
        let table = SignatureTable::build(&g).unwrap();
        let dev = table.upload(gpu).unwrap();
        let mut rng = Rng::new(seed);
        // Six query vertices in one pass, then a label no vertex has between two others: an
        // empty C(u) in the middle of the concatenation.
        let mut sigs: Vec<Signature> = (0..6).map(|_| Signature::of_vertex(&g, rng.below(n as u64) as u32)).collect();
        let mut none = Signature::of_vertex(&g, 0);
        none.0[0] = u32::MAX;
        // Every other query vertex restricted to a random half of the data vertices (which
        // must remove some candidates somewhere).
        let mut removed = false;
        let halves: Vec<Bitset> = (0..6)
            .map(|_| {
                let mut set = Bitset::new(n);
                (0..n as u32).filter(|_| rng.below(2) == 0).for_each(|v| set.insert(v));
                set
            })
            .collect();
        let restricted: Vec<Option<&Bitset>> =
            halves.iter().enumerate().map(|(u, h)| (u % 2 == 1).then_some(h)).collect();
        for (batch, allowed) in [(sigs.clone(), &[][..]), (sigs.clone(), &restricted[..]), {
            sigs.insert(1, none);
            sigs.truncate(3);
            (sigs, &restricted[..3])
        }] {
            let got = filter_on_device(gpu, &kernels, &dev, &batch, allowed).unwrap();
            assert_eq!(got.num_query_vertices(), batch.len());
            let host = got.to_host(gpu).unwrap();
            for (u, q) in batch.iter().enumerate() {
                let want = filter_host(&table, q, allowed.get(u).copied().flatten());
                removed |= want.len() < filter_host(&table, q, None).len();
                assert_eq!(got.len(u), want.len());
                assert!(host[u] == want, "n={n} query vertex {u}");
                let (list, bitset) = got.take(gpu, u).unwrap();
                assert_eq!(gpu.download(&list).unwrap(), want.vertices);
                assert_eq!(gpu.download(&bitset).unwrap(), want.bitset);
                if q.0[0] == u32::MAX {
                    assert!(want.is_empty() && got.any_empty());
                } else if allowed.get(u).copied().flatten().is_none() {
                    assert!(!want.is_empty());
                }
            }
        }
        assert!(removed, "n={n}: the restrictions removed no candidate");
    }
}

#[test]
fn allocation_beyond_free_memory_is_an_error() {
    let Some(gpu) = gpu() else { return };
    let (free, total) = gpu.memory().unwrap();
    assert!(free <= total && free > 0);
    let len = (free / 4 + 1024) as usize;
    match gpu.alloc_zeros::<u32>("oversized test buffer", len) {
        Err(CudaError::OutOfMemory { requested, free: f, .. }) => assert!(requested > f),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("allocated {len} u32 with {free} bytes free"),
    }
}

#[test]
fn small_allocations_between_looks_keep_uploads_and_the_free_check_exact() {
    // Small buffers are allocated without asking the driver for its free memory (the guess
    // from the last look); uploads are copied without zeroing first. Each upload must still
    // come back as written, the live bytes must count every buffer, and a request past the
    // free memory must still be refused however stale the guess. A `Gpu` of its own: the
    // other tests allocate on the shared one meanwhile.
    if gpu().is_none() {
        return;
    }
    let gpu = Gpu::new().unwrap();
    let before = gpu.live_bytes();
    let (free, _) = gpu.memory().unwrap();
    let bufs: Vec<_> = (0..64u32)
        .map(|i| {
            let host: Vec<u32> = (0..1000 + i).map(|x| x.wrapping_mul(2654435761) ^ i).collect();
            (gpu.upload("small test upload", &host).unwrap(), host)
        })
        .collect();
    for (buf, host) in &bufs {
        assert_eq!(&gpu.download(buf).unwrap(), host);
    }
    let bytes: u64 = bufs.iter().map(|(_, h)| 4 * h.len() as u64).sum();
    assert_eq!(gpu.live_bytes() - before, bytes);
    let empty = gpu.upload::<u32>("empty test upload", &[]).unwrap();
    assert!(empty.is_empty());
    match gpu.alloc_zeros::<u32>("oversized test buffer", (free / 4) as usize) {
        Err(CudaError::OutOfMemory { requested, free: f, .. }) => assert!(requested > f),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("allocated {free} bytes with less than that free"),
    }
}

#[test]
fn launch_checks_arguments() {
    let Some(gpu) = gpu() else { return };
    let kernel = gpu.kernel(&subgraph_gpu::shared::scan::SOURCE, "scan_tile_offsets").unwrap();
    let buf = gpu.alloc_zeros::<u32>("argument test", 4).unwrap();
    let err = gpu.launch(&kernel, 1, 32, &mut [Arg::In32(&buf), Arg::U32(4)]);
    assert!(matches!(err, Err(CudaError::Mismatch(_))));
    assert!(gpu.kernel(&subgraph_gpu::shared::scan::SOURCE, "no_such_kernel").is_err());
}

#[test]
fn load_balance_tasks_cover_every_heavy_row() {
    // join_classify and join_expand against the host statement `Layers::tasks`, for GSI's
    // thresholds and for thresholds the cost model raises below and above W1: every row above
    // `heavy` (which join_rows leaves) is one block task or W1-element grid pieces covering it
    // exactly.
    let Some(gpu) = gpu() else { return };
    let classify = gpu.kernel(&join::SOURCE, "join_classify").unwrap();
    let expand = gpu.kernel(&join::SOURCE, "join_expand").unwrap();
    let sizes: Vec<u32> = vec![7, 0, 5, W2, W2 + 1, 2_000, W1, W1 + 1, 3 * W1, 9_000, 12_000, 20_000, 77_777];
    let dev_sizes = gpu.upload("sizes", &sizes).unwrap();
    let row0 = 1u64;
    let n = sizes.len() - 1;
    for layers in [Layers::GSI, Layers::for_chunk(2_000 * 100, 100), Layers::for_chunk(10_000 * 100, 100)] {
        let mut nblock = gpu.alloc_zeros::<u32>("block tasks", n).unwrap();
        let mut ngrid = gpu.alloc_zeros::<u32>("grid tasks", n).unwrap();
        let args = &mut [
            Arg::In32(&dev_sizes),
            Arg::U64(row0),
            Arg::U64(n as u64),
            Arg::U32(layers.heavy),
            Arg::U32(layers.grid),
            Arg::U32(W1),
            Arg::Out32(&mut nblock),
            Arg::Out32(&mut ngrid),
        ];
        gpu.launch(&classify, 1, 1024, args).unwrap();
        let (blocks, grids) = (gpu.download(&nblock).unwrap(), gpu.download(&ngrid).unwrap());
        let (offs, total) = exclusive_scan(gpu, &ngrid).unwrap();
        let mut task_row = gpu.alloc_zeros::<u32>("task rows", total as usize).unwrap();
        let mut task_lo = gpu.alloc_zeros::<u32>("task starts", total as usize).unwrap();
        let mut task_len = gpu.alloc_zeros::<u32>("task lengths", total as usize).unwrap();
        let args = &mut [
            Arg::In32(&ngrid),
            Arg::In64(&offs),
            Arg::In32(&dev_sizes),
            Arg::U64(row0),
            Arg::U64(n as u64),
            Arg::U32(W1),
            Arg::Out32(&mut task_row),
            Arg::Out32(&mut task_lo),
            Arg::Out32(&mut task_len),
        ];
        gpu.launch(&expand, 1, 1024, args).unwrap();
        let (rows, los, lens) =
            (gpu.download(&task_row).unwrap(), gpu.download(&task_lo).unwrap(), gpu.download(&task_len).unwrap());
        for (i, &size) in sizes[row0 as usize..].iter().enumerate() {
            assert_eq!((blocks[i], grids[i]), layers.tasks(size), "{layers:?} size {size}");
            let mut covered = 0u64;
            for t in (0..rows.len()).filter(|&t| rows[t] as usize == i) {
                assert_eq!(los[t] as u64, covered, "{layers:?} size {size}: pieces in order, no gap");
                covered += lens[t] as u64;
            }
            let expect = if size > layers.heavy && blocks[i] == 0 { size as u64 } else { 0 };
            assert_eq!(covered, expect, "{layers:?} size {size}");
            // A row join_rows leaves is run by exactly one of the two layers.
            assert_eq!(size > layers.heavy, blocks[i] == 1 || grids[i] > 0, "{layers:?} size {size}");
        }
    }
}
