//! GGraphCon on the GPU (thesis §2.3, Algorithm 5): the NSW (and, layer by layer from the top,
//! the HNSW) that the CPU builder makes, built by the same divide and conquer with one warp per
//! group or vertex (`build.cu`). Local graphs of groups of consecutive ids are built at once,
//! a group per block; then group after group is merged into the graph before it: its vertices
//! search that graph at once (step 1, entered by descent through the upper layers already
//! built) and join their forward neighbours, the backward edges are sorted by source here on
//! the host (step 2) and each source merges its own into its row on the device (step 3).
//! Rows overflow by the same rule as on the CPU (nearest, or HNSW's diverse choice); the graph
//! is made strongly connected on the host, as the CPU builder does. The KNN graph is the CPU's.

use subgraph_cuda::{Arg, Gpu};

use std::time::Instant;

use crate::cpu::search::Space;
use crate::cpu::{connect, lap, layer_lengths, shuffled, BackwardEdges, BuildParams, Built};
use crate::error::{AnnError, Result};
use crate::gpu::resident::{to_u32, DeviceVectors, UpperLayers};
use crate::gpu::search::MAX_VERTICES;
use crate::gpu::source::{build_source, BuildShape, GGC_BACKWARD, GGC_LOCAL, GGC_SEARCH};
use crate::graph::{GraphKind, Layer, ProximityGraph};
use crate::vectors::{Metric, Vectors};

/// Vertices a group holds on the GPU: about eight groups per multiprocessor, 256 to 8,192
/// (`SUBGRAPH_ANN_GPU_GROUP` sets it, for tuning: larger groups mean longer sequential local
/// builds and fewer merges, each with more vertices searching at once).
fn group_size(len: usize, multiprocessors: usize) -> usize {
    if let Some(g) = std::env::var("SUBGRAPH_ANN_GPU_GROUP").ok().and_then(|g| g.parse::<usize>().ok()) {
        return g.max(2);
    }
    (len / (8 * multiprocessors.max(1))).clamp(256, 8192)
}

/// Builds the graph of `params` over `vectors` (prepared; see [`Metric::prepare`]) on `gpu`:
/// NSW and HNSW; a KNN graph is refused (the CPU builds it).
pub fn build(gpu: &Gpu, vectors: &Vectors, metric: Metric, params: &BuildParams) -> Result<Built> {
    params.check()?;
    if params.kind == GraphKind::Knn {
        return Err(AnnError::Parameter("the GPU builds nsw and hnsw graphs; knn is built on the CPU".into()));
    }
    if vectors.is_empty() {
        return Err(AnnError::Vectors("an empty vector set has no graph".into()));
    }
    if vectors.len() > MAX_VERTICES {
        return Err(AnnError::Vectors(format!(
            "{} vectors: the GPU builds graphs of at most {MAX_VERTICES}",
            vectors.len()
        )));
    }
    let mut clock = Instant::now();
    let mut phases = Vec::new();
    let order = shuffled(vectors.len(), params.seed);
    let internal = vectors.permuted(&order);
    let base = DeviceVectors::upload(gpu, &internal)?;
    phases.push(("shuffle and upload".to_string(), lap(&mut clock)));
    let lengths = layer_lengths(params.kind, internal.len(), params.d_min);
    let mut built: Vec<Layer> = Vec::with_capacity(lengths.len());
    for (l, &len) in lengths.iter().enumerate().rev() {
        let degree = if l == 0 { params.d_max } else { (params.d_max / 2).max(1) };
        let link = params.d_min.min(degree);
        let shape = BuildShape::new(internal.dim(), metric, params.ef_construction, degree, params.prune)?;
        let layer = build_layer(gpu, &base, shape, len, link, params.ef_construction, &built, &mut phases)?;
        built.insert(0, layer);
    }
    lap(&mut clock);
    connect(Space { base: &internal, metric }, &mut built[0]);
    phases.push(("connect".to_string(), lap(&mut clock)));
    Ok(Built { graph: ProximityGraph { kind: params.kind, layers: built }, order, vectors: internal, phases })
}

/// One NSW layer over vertices `0..len` of `base`, entered through `upper`; its phases' times
/// go to `phases`.
#[allow(clippy::too_many_arguments)]
fn build_layer(
    gpu: &Gpu,
    base: &DeviceVectors,
    shape: BuildShape,
    len: usize,
    link: usize,
    ef: usize,
    upper: &[Layer],
    phases: &mut Vec<(String, f64)>,
) -> Result<Layer> {
    let mut clock = Instant::now();
    let degree = shape.degree();
    let source = build_source(shape);
    let (local, search, backward) =
        (gpu.kernel(source, GGC_LOCAL)?, gpu.kernel(source, GGC_SEARCH)?, gpu.kernel(source, GGC_BACKWARD)?);
    let group = group_size(len, gpu.info().multiprocessors as usize).min(len);
    let (len32, group32, link32, ef32) =
        (to_u32("vertices", len)?, to_u32("group", group)?, to_u32("link", link)?, to_u32("ef", ef)?);
    // Empty slots (`NONE`); a slot's distance is read only beside a vertex in it.
    let mut adjacency = gpu.alloc_ones::<u32>("ann rows", len * degree)?;
    let mut distances = gpu.alloc_zeros::<f32>("ann row distances", len * degree)?;
    let upper = UpperLayers::upload(gpu, upper)?;
    // The merges' buffers, made once at their largest.
    let most = group * link;
    let mut found_ids = gpu.alloc_zeros::<u32>("ann forward ids", most)?;
    let mut found_distances = gpu.alloc_zeros::<f32>("ann forward distances", most)?;
    let mut segs = gpu.alloc_zeros::<u32>("ann backward segments", 3 * most)?;
    let mut e_v = gpu.alloc_zeros::<u32>("ann backward vertices", most)?;
    let mut e_d = gpu.alloc_zeros::<f32>("ann backward distances", most)?;
    let prepared = lap(&mut clock);
    gpu.launch(
        &local,
        to_u32("groups", len.div_ceil(group))?,
        32,
        &mut [
            Arg::InF32(base.buffer()),
            Arg::U32(len32),
            Arg::Out32(&mut adjacency),
            Arg::OutF32(&mut distances),
            Arg::U32(0),
            Arg::U32(group32),
            Arg::U32(link32),
            Arg::U32(ef32),
        ],
    )?;
    gpu.synchronize()?;
    let local_seconds = lap(&mut clock);
    let (mut searching, mut sorting, mut merging) = (0.0, 0.0, 0.0);
    let mut merges = 0usize;
    let mut backward_edges = BackwardEdges::default();
    let (mut found, mut segments, mut vertices, mut edge_distances) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for start in (group..len).step_by(group) {
        let count = group.min(len - start);
        merges += 1;
        gpu.launch(
            &search,
            to_u32("group", count)?,
            32,
            &mut [
                Arg::InF32(base.buffer()),
                Arg::Out32(&mut adjacency),
                Arg::OutF32(&mut distances),
                Arg::U32(to_u32("start", start)?),
                Arg::U32(to_u32("group", count)?),
                Arg::In32(&upper.rows),
                Arg::In32(&upper.meta),
                Arg::U32(upper.count),
                Arg::U32(link32),
                Arg::U32(ef32),
                Arg::Out32(&mut found_ids),
                Arg::OutF32(&mut found_distances),
            ],
        )?;
        // Step 2: the backward edges, sorted by (source, distance, vertex), one segment a source.
        let ids = gpu.download_range(&found_ids, 0..count * link)?;
        let dists = gpu.download_range(&found_distances, 0..count * link)?;
        searching += lap(&mut clock);
        found.clear();
        found.extend(ids.into_iter().zip(dists));
        backward_edges.sort(&found, link, start);
        if backward_edges.is_empty() {
            continue;
        }
        segments.clear();
        for (&u, ends) in backward_edges.sources.iter().zip(backward_edges.bounds.windows(2)) {
            segments.extend([u, ends[0], ends[1]]);
        }
        vertices.clear();
        vertices.extend(backward_edges.edges.iter().map(|e| e.0));
        edge_distances.clear();
        edge_distances.extend(backward_edges.edges.iter().map(|e| e.1));
        gpu.write(&mut segs, 0, &segments)?;
        gpu.write(&mut e_v, 0, &vertices)?;
        gpu.write(&mut e_d, 0, &edge_distances)?;
        sorting += lap(&mut clock);
        let nseg = to_u32("segments", segments.len() / 3)?;
        gpu.launch(
            &backward,
            nseg,
            32,
            &mut [
                Arg::InF32(base.buffer()),
                Arg::Out32(&mut adjacency),
                Arg::OutF32(&mut distances),
                Arg::In32(&segs),
                Arg::U32(nseg),
                Arg::In32(&e_v),
                Arg::InF32(&e_d),
            ],
        )?;
        gpu.synchronize()?;
        merging += lap(&mut clock);
    }
    let layer = Layer { degree, adjacency: gpu.download(&adjacency)? };
    let downloaded = lap(&mut clock);
    let name = |what: &str| format!("layer of {len}: {what}");
    phases.push((name("compile and allocate"), prepared));
    phases.push((name(&format!("local graphs of {group}")), local_seconds));
    phases.push((name(&format!("{merges} merges: searches")), searching));
    phases.push((name("merges: sorting edges"), sorting));
    phases.push((name("merges: backward edges"), merging));
    phases.push((name("download"), downloaded));
    Ok(layer)
}
