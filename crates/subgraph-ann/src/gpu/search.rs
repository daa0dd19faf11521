//! The index held on the GPU and its GANNS search (thesis §2.2; the greedy descent of HNSW's
//! upper layers, §4.3's extension): base vectors and every layer's adjacency uploaded once, then
//! searched batch after batch, one warp a query at a time (`search.cu`), or answered by brute force
//! where a filter passes too few vectors for the graph (`filter::route`).

use std::sync::{Mutex, MutexGuard};

use rayon::prelude::*;
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, KernelSource, Lane, PinnedBuffer};

use crate::error::{AnnError, Result};
use crate::filter::{route, Allowed, Route};
use crate::gpu::brute::brute_batched;
use crate::gpu::resident::{batch_queries, check_allowed, to_u32, upload_allowed, DeviceVectors, UpperLayers};
use crate::gpu::source::{
    search_source, SearchShape, HALF_MAX, MAX_DEGREE, MAX_EF, SEARCH_KERNEL, TO_HALF, TO_HALF_THREADS,
};
use crate::graph::{ProximityGraph, NONE};
use crate::neighbours::{Neighbours, Precision, SearchParams};
use crate::vectors::{check_dim, Metric, Vectors};

/// The most vectors a GPU index holds: N's entries keep an id below 2^31 - 1 beside a flag.
pub const MAX_VERTICES: usize = (1 << 31) - 1;

/// A proximity graph and its vectors held on one GPU, searched by GANNS.
///
/// A search, as defined (and as the CPU search must do to give the same answers): from vertex
/// 0 of the top layer, on each layer above 0 move to the nearest out-neighbour (by (distance,
/// id)) while it is strictly nearer than the current vertex; from where that stops, search
/// layer 0 with N, the power of two at least max(ef, 32) best vertices found, sorted by
/// (distance, id): repeatedly explore the first unexplored of N's first ef entries, adding its
/// out-neighbours not yet in N and keeping N's length (a vertex that falls out never returns),
/// until N's first ef are all explored. The answer is the first k of N's first ef entries that
/// pass the filter (all of them without one), padded with [`NONE`] and infinity. In half
/// precision ([`Precision::Half`]) every distance of the descent and of the search is computed
/// over the rows rounded to half precision (to nearest even), and N's first ef entries are
/// then sorted again by their distances over the rows as given before the answer is taken.
pub struct GpuIndex<'g> {
    gpu: &'g Gpu,
    base: DeviceVectors,
    /// The rows in half precision, made at the first half-precision search.
    half: Mutex<HalfRows>,
    /// One unused word: a kernel's buffer argument that it does not read (`half` where rows are
    /// read as floats, `id_map` where ids are not mapped).
    unused: DeviceBuffer<u32>,
    /// The caller's number of each vector, where answers are given in it ([`GpuIndex::with_ids`]).
    ids: Option<CallerIds>,
    metric: Metric,
    /// Layer 0's rows, `degree` slots each.
    adjacency: DeviceBuffer<u32>,
    degree: usize,
    /// The layers above 0, which the search descends to its entry.
    upper: UpperLayers,
    /// Queries a launch, where fixed.
    batch: Option<usize>,
    /// Page-locked copies of a launch's queries and answers, one set a side of the search's
    /// pipeline, made at the first search and grown as needed: copies from and to them run at
    /// the bus's speed, where pageable memory goes through the driver's own staging.
    staging: Mutex<Option<[Staging; 2]>>,
}

/// An index's rows in half precision.
enum HalfRows {
    /// Not converted yet.
    Unmade,
    /// Two a word (`common.cuh`'s layout).
    Made(DeviceBuffer<u32>),
    /// The first row with a component beyond [`HALF_MAX`] (its number and that component):
    /// the index is not searched in half precision.
    Beyond(usize, f32),
}

/// The caller's numbering of an index's vectors: internal id i is `host[i]`, on the device too.
struct CallerIds {
    table: DeviceBuffer<u32>,
    host: Vec<u32>,
}

/// The page-locked buffers a graph search's launches go through (see [`GpuIndex`]).
struct Staging {
    queries: PinnedBuffer<f32>,
    ids: PinnedBuffer<u32>,
    distances: PinnedBuffer<f32>,
}

/// The lanes of the two sides of a graph search's pipeline: chunks of queries alternate
/// between them, so that one chunk's kernels run while the host stages the next chunk's
/// queries and reads the last one's answers, and the next chunk's kernel fills the
/// multiprocessors as the last one's queries end. Answers come back on the download lane.
const SIDES: [Lane; 2] = [Lane::Now, Lane::Ahead];

/// The fewest queries a chunk holds where a batch is cut in two (each chunk fills the device
/// with its warps; below this, one chunk).
const MIN_CHUNK: usize = 2048;

/// The most bytes of queries one launch stages in page-locked memory: a launch takes at most
/// this many bytes of queries (65,536 queries of 256 dimensions; 4,096 of 4,096).
const STAGING_BYTES: usize = 64 << 20;

impl<'g> GpuIndex<'g> {
    /// Uploads `base` (already prepared for `metric`, see [`Metric::prepare`]) and every layer
    /// of `graph`, whose layer 0 holds one vertex per row of `base`. Checks the graph's shape
    /// and that every out-neighbour is a vertex of its layer; a row's repeats are harmless
    /// (the search drops them).
    pub fn new(gpu: &'g Gpu, base: &Vectors, metric: Metric, graph: &ProximityGraph) -> Result<Self> {
        check_graph(base.len(), graph)?;
        let vectors = DeviceVectors::upload(gpu, base)?;
        // Readied for the pipeline's second lane now, while nothing runs (see SIDES).
        gpu.use_on(SIDES[1], vectors.buffer())?;
        let adjacency = gpu.upload("ann adjacency", &graph.layers[0].adjacency)?;
        gpu.use_on(SIDES[1], &adjacency)?;
        let upper = UpperLayers::upload(gpu, &graph.layers[1..])?;
        gpu.use_on(SIDES[1], &upper.rows)?;
        gpu.use_on(SIDES[1], &upper.meta)?;
        let unused = gpu.alloc_zeros("ann unused word", 1)?;
        gpu.use_on(SIDES[1], &unused)?;
        Ok(GpuIndex {
            gpu,
            base: vectors,
            half: Mutex::new(HalfRows::Unmade),
            unused,
            ids: None,
            metric,
            adjacency,
            degree: graph.layers[0].degree,
            upper,
            batch: None,
            staging: Mutex::new(None),
        })
    }

    /// This index answering in the caller's numbering: vector i (of the base it was made
    /// with) as `ids[i]`, mapped by the graph search's kernel as it writes the answers, and on
    /// the host after brute force. `ids` holds one number per vector.
    pub fn with_ids(mut self, ids: &[u32]) -> Result<Self> {
        if ids.len() != self.len() {
            return Err(AnnError::Parameter(format!("{} ids for an index of {} vectors", ids.len(), self.len())));
        }
        let table = self.gpu.upload("ann caller ids", ids)?;
        self.gpu.use_on(SIDES[1], &table)?;
        self.ids = Some(CallerIds { table, host: ids.to_vec() });
        Ok(self)
    }

    /// Vectors.
    pub fn len(&self) -> usize {
        self.base.len()
    }

    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    pub fn dim(&self) -> usize {
        self.base.dim()
    }

    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The base vectors on the device.
    pub fn vectors(&self) -> &DeviceVectors {
        &self.base
    }

    /// Fixes the queries one launch takes (`None`: as many as [`BATCH_BYTES`] of device memory
    /// holds); answers do not depend on it.
    ///
    /// [`BATCH_BYTES`]: crate::gpu::BATCH_BYTES
    pub fn set_batch(&mut self, queries: Option<usize>) {
        self.batch = queries;
    }

    /// The `params.k` nearest vectors (internal ids, or the caller's after
    /// [`GpuIndex::with_ids`]) of each query, nearest first: GANNS over the graph, or exact brute
    /// force where `allowed` passes so few that [`route`] says so. Under a filter, no failing id
    /// is returned; rows are padded with [`NONE`] and infinity where fewer are found.
    pub fn search(&self, queries: &Vectors, params: SearchParams, allowed: Option<&Allowed>) -> Result<Neighbours> {
        self.check(queries, params, allowed)?;
        match route(allowed, params.k, params.ef, self.degree) {
            Route::Brute => self.brute(queries, params.k, allowed),
            Route::Graph { ef } => self.graph_search(queries, params.k, ef, params.precision, allowed),
        }
    }

    /// GANNS over the graph with exploration bound `params.ef` as given (no routing, no
    /// widening under a filter): the first `k` entries of N among its first `ef` that pass
    /// `allowed`.
    pub fn search_graph(
        &self,
        queries: &Vectors,
        params: SearchParams,
        allowed: Option<&Allowed>,
    ) -> Result<Neighbours> {
        self.check(queries, params, allowed)?;
        self.graph_search(queries, params.k, params.ef, params.precision, allowed)
    }

    /// The exact `k` nearest vectors of each query (among those `allowed` passes).
    pub fn brute(&self, queries: &Vectors, k: usize, allowed: Option<&Allowed>) -> Result<Neighbours> {
        let mut found = brute_batched(self.gpu, &self.base, self.metric, queries, k, allowed, self.batch)?;
        if let Some(ids) = &self.ids {
            found.map_ids(&ids.host);
        }
        Ok(found)
    }

    fn check(&self, queries: &Vectors, params: SearchParams, allowed: Option<&Allowed>) -> Result<()> {
        check_dim(self.dim(), queries.dim(), "the queries")?;
        if params.k == 0 {
            return Err(AnnError::Parameter("k must be at least 1".into()));
        }
        if params.ef < params.k {
            return Err(AnnError::Parameter(format!("ef {} is smaller than k {}", params.ef, params.k)));
        }
        if params.ef > MAX_EF {
            return Err(AnnError::Parameter(format!("ef {}: the GPU search takes at most {MAX_EF}", params.ef)));
        }
        params.check_against(self.len())?;
        check_allowed(allowed, self.len())?;
        if params.precision == Precision::Half {
            // Converted here, before any route is taken, so that an index beyond half
            // precision's range is refused whichever route the search would take.
            let shape =
                SearchShape::new(self.dim(), self.metric, params.ef, self.degree)?.with_precision(Precision::Half);
            drop(self.half_rows(search_source(shape))?);
        }
        Ok(())
    }

    /// The rows in half precision, converted on the device at the first call by `source`'s
    /// conversion kernel (a half-precision search's own source, compiled for it anyway), which
    /// also finds the first component beyond [`HALF_MAX`]: then the rows are dropped and the
    /// search refused, naming the vector (in the caller's numbering where there is one).
    fn half_rows(&self, source: &'static KernelSource) -> Result<MutexGuard<'_, HalfRows>> {
        let mut half = self.half.lock().unwrap_or_else(|e| e.into_inner());
        if let HalfRows::Unmade = *half {
            let gpu = self.gpu;
            let count = self.len() * self.dim();
            let mut words = gpu.alloc_zeros::<u32>("ann half rows", count.div_ceil(2))?;
            let mut beyond = gpu.upload("ann first component beyond half", &[u64::MAX])?;
            let convert = gpu.kernel(source, TO_HALF)?;
            gpu.launch_on(
                SIDES[0],
                &convert,
                to_u32("blocks", count.div_ceil(2).div_ceil(TO_HALF_THREADS as usize))?,
                TO_HALF_THREADS,
                &mut [
                    Arg::InF32(self.base.buffer()),
                    Arg::U64(count as u64),
                    Arg::Out32(&mut words),
                    Arg::Out64(&mut beyond),
                ],
            )?;
            let at = gpu.download(&beyond)?[0];
            *half = if at == u64::MAX {
                gpu.use_on(SIDES[1], &words)?;
                HalfRows::Made(words)
            } else {
                let at = at as usize;
                let x = gpu.download_range(self.base.buffer(), at..at + 1)?[0];
                HalfRows::Beyond(at / self.dim(), x)
            };
        }
        if let HalfRows::Beyond(row, x) = *half {
            let vector = match &self.ids {
                Some(ids) => format!("vector {}", ids.host[row]),
                None => format!("row {row}"),
            };
            return Err(beyond_half_error(&vector, x));
        }
        Ok(half)
    }

    /// The staging buffers of both sides, each holding at least `queries` floats and
    /// `answers` answers, made or grown here.
    fn staging(&self, queries: usize, answers: usize) -> Result<MutexGuard<'_, Option<[Staging; 2]>>> {
        let mut staging = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        let fits = staging.as_ref().is_some_and(|s| s[0].queries.len() >= queries && s[0].ids.len() >= answers);
        if !fits {
            let (queries, answers) = match staging.as_ref() {
                Some(s) => (queries.max(s[0].queries.len()), answers.max(s[0].ids.len())),
                None => (queries, answers),
            };
            *staging = None;
            let side = || -> Result<Staging> {
                Ok(Staging {
                    queries: self.gpu.pinned_buffer(queries)?,
                    ids: self.gpu.pinned_buffer(answers)?,
                    distances: self.gpu.pinned_buffer(answers)?,
                })
            };
            *staging = Some([side()?, side()?]);
        }
        Ok(staging)
    }

    fn graph_search(
        &self,
        queries: &Vectors,
        k: usize,
        ef: usize,
        precision: Precision,
        allowed: Option<&Allowed>,
    ) -> Result<Neighbours> {
        let gpu = self.gpu;
        let (n, dim) = (self.len(), self.dim());
        let shape = SearchShape::new(dim, self.metric, ef, self.degree)?.with_precision(precision);
        let source = search_source(shape);
        let half = if shape.half { Some(self.half_rows(source)?) } else { None };
        let half_rows = match half.as_deref() {
            Some(HalfRows::Made(rows)) => rows,
            _ => &self.unused,
        };
        let search = gpu.kernel(source, SEARCH_KERNEL)?;
        let wpb = shape.warps_per_block();
        let block = to_u32("threads", 32 * wpb)?;
        // The search's warps take queries until none is left: as many blocks as the device
        // holds at once, or fewer where the queries need fewer.
        let resident = gpu.resident_blocks(&search, block)?.max(1);
        let at_once = resident as usize * gpu.info().multiprocessors.max(1) as usize;
        let (words, filtered) = upload_allowed(gpu, allowed, n)?;
        gpu.use_on(SIDES[1], &words)?;
        let (n32, k32, ef32) = (to_u32("vectors", n)?, to_u32("k", k)?, to_u32("ef", ef)?);
        let nq = queries.len();
        let batch = batch_queries(dim, k, self.batch).min(STAGING_BYTES / (4 * dim)).max(1);
        // Two chunks (or more, of a launch each, for a batch beyond one launch) where each
        // fills the device; else one.
        let chunk = if nq >= 2 * MIN_CHUNK { batch.min(nq.div_ceil(2)) } else { batch.min(nq).max(1) };
        let mut staging = self.staging(chunk * dim, chunk * k)?;
        let staging = staging.as_mut().expect("made by GpuIndex::staging");
        let mut out = Neighbours { k, ids: Vec::with_capacity(nq * k), distances: Vec::with_capacity(nq * k) };
        // The chunk enqueued before the current one: its side and queries, answers not read.
        let mut unread: Option<(usize, usize)> = None;
        for (i, start) in (0..nq).step_by(chunk).enumerate() {
            let (side, lane) = (i % 2, SIDES[i % 2]);
            let part = &mut staging[side];
            let m = chunk.min(nq - start);
            let m32 = to_u32("queries", m)?;
            let src = &queries.as_slice()[start * dim..(start + m) * dim];
            // Into page-locked memory on every core, then to the device by DMA.
            part.queries.as_mut_slice()?[..m * dim]
                .par_chunks_mut(1 << 14)
                .zip(src.par_chunks(1 << 14))
                .for_each(|(to, from)| to.copy_from_slice(from));
            let mut rows = gpu.alloc_zeros_on::<f32>(lane, "ann queries", m * dim)?;
            gpu.upload_async(lane, &mut part.queries, 0..m * dim, &mut rows, 0)?;
            let mut next = gpu.alloc_zeros_on::<u32>(lane, "ann next query", 1)?;
            let mut ids = gpu.alloc_zeros_on::<u32>(lane, "ann answer ids", m * k)?;
            let mut distances = gpu.alloc_zeros_on::<f32>(lane, "ann answer distances", m * k)?;
            gpu.launch_on(
                lane,
                &search,
                to_u32("blocks", m.div_ceil(wpb).min(at_once))?,
                block,
                &mut [
                    Arg::InF32(&rows),
                    Arg::U32(m32),
                    Arg::InF32(self.base.buffer()),
                    Arg::In32(half_rows),
                    Arg::U32(n32),
                    Arg::In32(&self.adjacency),
                    Arg::In32(&self.upper.rows),
                    Arg::In32(&self.upper.meta),
                    Arg::U32(self.upper.count),
                    Arg::U32(ef32),
                    Arg::U32(k32),
                    Arg::In32(&words),
                    Arg::U32(filtered),
                    Arg::In32(self.ids.as_ref().map_or(&self.unused, |ids| &ids.table)),
                    Arg::U32(self.ids.is_some() as u32),
                    Arg::Out32(&mut next),
                    Arg::Out32(&mut ids),
                    Arg::OutF32(&mut distances),
                ],
            )?;
            gpu.wait_for(Lane::Back, &gpu.record(lane)?)?;
            gpu.download_async(Lane::Back, &ids, 0..m * k, &mut part.ids, 0)?;
            gpu.download_async(Lane::Back, &distances, 0..m * k, &mut part.distances, 0)?;
            // While this chunk runs, the last one's answers (they wait for its downloads).
            if let Some((side, m)) = unread.replace((side, m)) {
                read_answers(&staging[side], m * k, &mut out)?;
            }
        }
        if let Some((side, m)) = unread {
            read_answers(&staging[side], m * k, &mut out)?;
        }
        Ok(out)
    }
}

/// The refusal of a half-precision search whose index holds `vector` (as the caller names it)
/// with the component `x` beyond [`HALF_MAX`].
fn beyond_half_error(vector: &str, x: f32) -> AnnError {
    AnnError::Parameter(format!(
        "{vector} has a component of {x}, beyond half precision's largest finite value ({HALF_MAX}): search this \
         index in single precision"
    ))
}

/// Appends the first `len` answers of `part` to `out`, once their downloads are done.
fn read_answers(part: &Staging, len: usize, out: &mut Neighbours) -> Result<()> {
    out.ids.extend_from_slice(&part.ids.as_slice()?[..len]);
    out.distances.extend_from_slice(&part.distances.as_slice()?[..len]);
    Ok(())
}

/// The graph's shape against `n` base vectors, in one line: layer 0 holds `n` vertices (1 to
/// [`MAX_VERTICES`]) of degree 1 to [`MAX_DEGREE`], each layer above is a non-empty id prefix
/// of the one below, and every out-neighbour is [`NONE`] or a vertex of its layer.
fn check_graph(n: usize, graph: &ProximityGraph) -> Result<()> {
    let bad = |m: String| Err(AnnError::Parameter(m));
    if n == 0 || n > MAX_VERTICES {
        return bad(format!("{n} vectors: a GPU index holds 1 to {MAX_VERTICES}"));
    }
    if graph.layers.is_empty() {
        return bad("a graph without layers".into());
    }
    let mut below = n;
    for (l, layer) in graph.layers.iter().enumerate() {
        if layer.degree == 0 || layer.adjacency.len() % layer.degree != 0 {
            return bad(format!(
                "layer {l}: {} slots are not whole rows of degree {}",
                layer.adjacency.len(),
                layer.degree
            ));
        }
        let len = layer.adjacency.len() / layer.degree;
        if l == 0 && len != n {
            return bad(format!("the graph has {len} vertices, the vectors {n}"));
        }
        if l == 0 && layer.degree > MAX_DEGREE {
            return bad(format!("layer 0 has degree {}: the GPU search takes 1 to {MAX_DEGREE}", layer.degree));
        }
        if len == 0 || len > below {
            return bad(format!(
                "layer {l} has {len} vertices: it must hold 1 to {below}, a prefix of the layer below"
            ));
        }
        if let Some(at) = layer.adjacency.iter().position(|&u| u != NONE && u as usize >= len) {
            return bad(format!(
                "layer {l}, vertex {}: neighbour {} is not a vertex of the layer ({len} vertices)",
                at / layer.degree,
                layer.adjacency[at]
            ));
        }
        below = len;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphKind, Layer};

    fn graph(layers: Vec<Layer>) -> ProximityGraph {
        ProximityGraph { kind: GraphKind::Hnsw, layers }
    }

    #[test]
    fn graphs_the_kernels_cannot_walk_are_refused() {
        let ring = |n: u32, d: usize| {
            let mut l = Layer::empty(n as usize, d);
            for v in 0..n {
                l.row_mut(v)[0] = (v + 1) % n;
            }
            l
        };
        assert!(check_graph(10, &graph(vec![ring(10, 4)])).is_ok());
        assert!(check_graph(10, &graph(vec![ring(10, 4), ring(3, 2)])).is_ok());
        let e = |g: ProximityGraph, n: usize| check_graph(n, &g).unwrap_err().to_string();
        assert!(e(graph(vec![ring(10, 4)]), 11).contains("10 vertices, the vectors 11"));
        assert!(e(graph(vec![]), 10).contains("without layers"));
        assert!(e(graph(vec![ring(10, 4), ring(11, 2)]), 10).contains("layer 1 has 11 vertices"));
        assert!(e(graph(vec![ring(10, 4), Layer::empty(0, 2)]), 10).contains("layer 1 has 0 vertices"));
        assert!(e(graph(vec![Layer { degree: 0, adjacency: vec![] }]), 10).contains("degree 0"));
        assert!(e(graph(vec![Layer { degree: 3, adjacency: vec![NONE; 10] }]), 10).contains("whole rows"));
        assert!(e(graph(vec![ring(10, MAX_DEGREE + 1)]), 10).contains("degree 257"));
        let mut far = ring(10, 4);
        far.row_mut(7)[1] = 10;
        assert!(e(graph(vec![far]), 10).contains("vertex 7: neighbour 10"));
        let mut upper = ring(3, 2);
        upper.row_mut(1)[1] = 5;
        assert!(e(graph(vec![ring(10, 4), upper]), 10).contains("layer 1, vertex 1: neighbour 5"));
        assert!(e(graph(vec![ring(10, 4)]), 0).contains("0 vectors"));
    }
}
