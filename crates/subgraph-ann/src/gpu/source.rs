//! The kernel sources of the GPU search, specialised per configuration (thesis §2.2: GANNS'
//! kernels are instantiated per dimension and metric; here also per length of N, degree and,
//! for brute force, per bound on k): the `.cu` text is the `#define`s of one configuration
//! followed by the shared device code (`common.cuh`, `ganns.cuh`) and the kernels.
//!
//! [`subgraph_cuda::Gpu::kernel`] wants a `&'static KernelSource` and caches compiled modules by
//! its name, so each distinct configuration gets one leaked source (name and text), kept in a
//! process-wide map. The set is small and bounded in practice: one per (dimension, formula,
//! length of N, degree) searched and per (dimension, formula, bound on k) brute-forced, a
//! handful for an index (a few kilobytes each).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use subgraph_cuda::{compile_ptx, KernelDecl, KernelSource, Param, HALF_CUH};

use crate::cpu::Prune;
use crate::error::{AnnError, Result};
use crate::neighbours::Precision;
use crate::vectors::{Metric, MAX_DIM};

const COMMON: &str = include_str!("common.cuh");
const GANNS: &str = include_str!("ganns.cuh");
const SEARCH: &str = include_str!("search.cu");
const BRUTE: &str = include_str!("brute.cu");
const BUILD: &str = include_str!("build.cu");

/// The largest exploration bound `ef` (and so length of N) of a GPU graph search.
pub const MAX_EF: usize = 1024;
/// The largest `k` of a GPU brute-force search.
pub const MAX_K: usize = 1024;
/// The largest finite IEEE half-precision value: a row with a component beyond it (in
/// magnitude) cannot be searched in half precision (`HALF_MAX` of `search.cu`'s conversion).
pub const HALF_MAX: f32 = 65504.0;
/// The largest degree of layer 0 the GPU search is compiled for.
pub const MAX_DEGREE: usize = 256;
/// Static shared memory a block may hold (the same on every architecture since Volta).
const SHARED_BYTES: usize = 48 * 1024;

/// The blocks of the search kernel each multiprocessor should hold at least, by default: its
/// launch bound, which caps a thread's registers (64 at four warps a block). On the H200,
/// 1M × 128, it searched 0–27 % faster than no bound (1) at every ef from 32 to 256
/// (`bench/results/2026-11-29-ann.md`).
pub const DEFAULT_MIN_BLOCKS: u32 = 8;

/// The launch bound where a lane reads each row in one load (see `min_blocks`): ten blocks,
/// 48 registers a thread. With the descent inside the search kernel, the kernel takes 55–56
/// registers at bound 8, so nine blocks of four warps a multiprocessor; at bound 10 it takes 48
/// without spilling wherever a lane's share of a row is one load. On the H200, 1M × 128, it
/// searched 1.07–1.13× as fast as at bound 8 from ef 48 to 256 in both precisions (0.94–0.98×
/// below ef 48 in half precision); at 960 dimensions it spills, and searched 0.88–1.07× as fast
/// (`bench/results/2026-11-30-ann-batch.md`).
pub const ONE_LOAD_MIN_BLOCKS: u32 = 10;

/// The most slots of a search's visited set (`HS` of `ganns.cuh`): 4 KiB a warp.
pub const MAX_VISITED: usize = 1024;

/// Shared memory a warp of the search may hold with a visited set: ten blocks of four warps a
/// multiprocessor (228 KiB on the H200). On the H200, 1M × 128, a set of 1,024 slots searched
/// 10–15 % faster at ef 48–64, one larger than this (or than N) slower at every ef, and a set
/// of 512 slots beside N of 512 slower than none (`bench/results/2026-11-29-ann-visited.md`).
const VISITED_WARP_BYTES: usize = 5632;

/// The value of the environment variable `name`, for tuning, where it parses and `valid`
/// accepts it.
fn tuning<T: std::str::FromStr>(name: &str, valid: impl Fn(&T) -> bool) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).filter(valid)
}

/// Slots of the visited set when `SUBGRAPH_ANN_VISITED` sets them (0: none), for tuning.
fn visited_override() -> Option<usize> {
    static SLOTS: OnceLock<Option<usize>> = OnceLock::new();
    *SLOTS.get_or_init(|| {
        tuning("SUBGRAPH_ANN_VISITED", |v: &usize| *v == 0 || (v.is_power_of_two() && (128..=4096).contains(v)))
    })
}

/// The search kernel's launch bound set by `SUBGRAPH_ANN_MIN_BLOCKS` (1 to 32), for tuning.
fn min_blocks_override() -> Option<u32> {
    static MIN: OnceLock<Option<u32>> = OnceLock::new();
    *MIN.get_or_init(|| tuning("SUBGRAPH_ANN_MIN_BLOCKS", |v: &u32| (1..=32).contains(v)))
}

/// The search kernel's launch bound at `dim` dimensions: [`min_blocks_override`], else
/// [`ONE_LOAD_MIN_BLOCKS`] where a lane's share of a row is one load (a float4 of at most 128
/// dimensions in fours, or one value of at most 32), else [`DEFAULT_MIN_BLOCKS`].
fn min_blocks(dim: usize) -> u32 {
    let one_load = if dim.is_multiple_of(4) { dim <= 128 } else { dim <= 32 };
    min_blocks_override().unwrap_or(if one_load { ONE_LOAD_MIN_BLOCKS } else { DEFAULT_MIN_BLOCKS })
}

/// Rows whose distances a warp computes at once (`ROWS` of `ganns.cuh`), their loads in
/// flight together: `SUBGRAPH_ANN_ROWS` (a power of two, 1 to 32), for tuning, else 4 for the
/// search (a float4 of each row a lane: 16 registers of loads), 8 for the search over half
/// rows above 128 dimensions, and, for the builder's kernels, 8 up to 128 dimensions and 4
/// above. On the H200, 1M × 128, four rows searched 1.04–1.30× faster than eight at every ef
/// from 10 to 512 (eight hold 12 blocks a multiprocessor to 8, by registers), in half
/// precision too (eight: 0.89–1.02×); at 960 dimensions eight half rows searched 1.19–1.52×
/// faster than four; eight built 1.2× faster than the code before rows were in flight
/// (`bench/results/2026-11-30-ann-inflight.md`).
fn rows(dim: usize, build: bool, half: bool) -> usize {
    static ROWS: OnceLock<Option<usize>> = OnceLock::new();
    let set = *ROWS.get_or_init(|| tuning("SUBGRAPH_ANN_ROWS", |v: &usize| v.is_power_of_two() && *v <= 32));
    set.unwrap_or(if (half && dim > 128) || (build && dim <= 128) { 8 } else { 4 })
}

/// The distance formula a kernel is compiled for: cosine rows are normalised beforehand, so
/// `ip` and `cos` share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Formula {
    /// Squared Euclidean distance.
    L2,
    /// `1 - a·b`.
    Dot,
}

impl Formula {
    pub fn of(metric: Metric) -> Self {
        match metric {
            Metric::L2 => Formula::L2,
            Metric::Ip | Metric::Cos => Formula::Dot,
        }
    }

    fn define(self) -> u32 {
        match self {
            Formula::L2 => 0,
            Formula::Dot => 1,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Formula::L2 => "l2",
            Formula::Dot => "dot",
        }
    }
}

fn check_dim(dim: usize) -> Result<()> {
    if dim == 0 || dim > MAX_DIM {
        return Err(AnnError::Parameter(format!("dimension {dim}: the GPU kernels take 1 to {MAX_DIM}")));
    }
    Ok(())
}

/// One configuration of the GANNS search kernels (`search.cu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SearchShape {
    pub dim: usize,
    pub formula: Formula,
    /// The length of N: the power of two at least max(ef, 32).
    pub ln: usize,
    /// The degree of layer 0 (its row width).
    pub degree: usize,
    /// Whether the search reads the base's rows in half precision (and ranks its answer again
    /// over the full-precision rows).
    pub half: bool,
}

impl SearchShape {
    /// The shape of a search at exploration bound `ef` over a layer 0 of `degree` slots a row.
    pub fn new(dim: usize, metric: Metric, ef: usize, degree: usize) -> Result<Self> {
        check_dim(dim)?;
        if ef == 0 || ef > MAX_EF {
            return Err(AnnError::Parameter(format!("ef {ef}: the GPU search takes 1 to {MAX_EF}")));
        }
        if degree == 0 || degree > MAX_DEGREE {
            return Err(AnnError::Parameter(format!(
                "degree {degree}: the GPU search takes graphs of degree 1 to {MAX_DEGREE}"
            )));
        }
        Ok(SearchShape { dim, formula: Formula::of(metric), ln: ef.max(32).next_power_of_two(), degree, half: false })
    }

    /// This shape reading rows of `precision`.
    pub fn with_precision(self, precision: Precision) -> Self {
        SearchShape { half: precision == Precision::Half, ..self }
    }

    /// The length of T: the power of two at least max(degree, 32).
    pub fn tl(&self) -> usize {
        self.degree.max(32).next_power_of_two()
    }

    /// Shared memory of one warp's N, T (keys and ids) and query.
    fn lists_bytes(&self) -> usize {
        8 * (self.ln + self.tl()) + 4 * self.tl() + 4 * self.dim.div_ceil(4) * 4
    }

    /// The fewest slots of a visited set: four rows' worth (`ganns.cuh` empties it once half
    /// full, keeping at most a quarter).
    fn visited_min(&self) -> usize {
        4 * self.tl()
    }

    /// Slots of a warp's visited set, 0 for none: the most, a power of two up to
    /// [`MAX_VISITED`], that keeps the warp's shared memory within `VISITED_WARP_BYTES`,
    /// where that is at least twice N's length and eight rows' worth (a set emptied more often
    /// costs more than it saves). `SUBGRAPH_ANN_VISITED` overrides it where at least four
    /// rows' worth.
    pub fn visited(&self) -> usize {
        if let Some(slots) = visited_override() {
            return if slots >= self.visited_min() { slots } else { 0 };
        }
        let mut hs = MAX_VISITED;
        while hs > 1 && self.lists_bytes() + 4 * hs > VISITED_WARP_BYTES {
            hs /= 2;
        }
        if hs >= 2 * self.ln.max(self.visited_min()) && self.lists_bytes() + 4 * hs <= VISITED_WARP_BYTES {
            hs
        } else {
            0
        }
    }

    /// Warps (queries) a block: 4, 2 or 1, the most whose shared memory fits in 48 KiB.
    pub fn warps_per_block(&self) -> usize {
        [4, 2, 1].into_iter().find(|w| w * self.shared_bytes_per_warp() <= SHARED_BYTES).unwrap_or(1)
    }

    /// Static shared memory one warp (query) of `ganns_search` holds: N, T (keys and ids), the
    /// visited set (one slot where there is none) and the query.
    pub fn shared_bytes_per_warp(&self) -> usize {
        self.lists_bytes() + 4 * self.visited().max(1)
    }

    fn name(&self) -> String {
        let bound = match min_blocks_override() {
            None => String::new(),
            Some(b) => format!("_mb{b}"),
        };
        let visited = match visited_override() {
            None => String::new(),
            Some(v) => format!("_hs{v}"),
        };
        format!(
            "ganns_search_d{}_{}_ln{}_deg{}_r{}{}{bound}{visited}.cu",
            self.dim,
            self.formula.name(),
            self.ln,
            self.degree,
            rows(self.dim, false, self.half),
            if self.half { "_half" } else { "" }
        )
    }

    /// The `#define`s of this shape (`DIM`, `METRIC`, `LN`, `DEG`, `TL`, `HS_LOG2`, `ROWS`,
    /// `WPB`), then `common.cuh` and `ganns.cuh`: the device code a kernel that calls
    /// `ganns_search_warp` (a graph builder's, say) is appended to; `build` picks the rows a
    /// warp computes at once for the builder.
    pub fn ganns_prelude(&self, build: bool) -> String {
        format!(
            "#define DIM {}\n#define METRIC {}\n#define LN {}\n#define DEG {}\n#define TL {}\n#define HS_LOG2 {}\n\
             #define ROWS {}\n#define WPB {}\n{HALF_CUH}\n{COMMON}\n{GANNS}\n",
            self.dim,
            self.formula.define(),
            self.ln,
            self.degree,
            self.tl(),
            self.visited().max(1).trailing_zeros(),
            rows(self.dim, build, self.half),
            self.warps_per_block()
        )
    }

    fn code(&self) -> String {
        format!(
            "{}#define MINB {}\n#define HALF {}\n#define TO_HALF_THREADS {TO_HALF_THREADS}\n#define HALF_MAX {HALF_MAX:?}f\n\
             {SEARCH}",
            self.ganns_prelude(false),
            min_blocks(self.dim),
            self.half as u32
        )
    }
}

/// New neighbours one row merge of the builder takes at most (`XMAX` of `build.cu`).
pub const MERGE_EXTRA: usize = 32;

/// One configuration of GGraphCon's kernels (`build.cu`): the search of its insertions and
/// merges (with `ef` the construction's bound, `degree` the layer's), and how a full row
/// chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BuildShape {
    pub search: SearchShape,
    pub prune: Prune,
}

impl BuildShape {
    pub fn new(dim: usize, metric: Metric, ef: usize, degree: usize, prune: Prune) -> Result<Self> {
        Ok(BuildShape { search: SearchShape::new(dim, metric, ef, degree)?, prune })
    }

    /// The row width of the layer built.
    pub fn degree(&self) -> usize {
        self.search.degree
    }

    /// The length of a row merge's candidate list: the power of two at least degree + extras.
    fn cl(&self) -> usize {
        (self.search.degree + MERGE_EXTRA).next_power_of_two()
    }

    fn name(&self) -> String {
        let s = &self.search;
        format!("ggc_build_d{}_{}_ln{}_deg{}_{}.cu", s.dim, s.formula.name(), s.ln, s.degree, self.prune.name())
    }

    fn code(&self) -> String {
        // Rows are written and read again within one launch: loads through L2, never the
        // read-only cache (which is not coherent with the launch's own writes).
        format!(
            "#define ADJ_LOAD(p) __ldcg(p)\n#define PRUNE {}\n#define XMAX {MERGE_EXTRA}\n#define CL {}\n{}{BUILD}",
            matches!(self.prune, Prune::Diverse) as u32,
            self.cl(),
            self.search.ganns_prelude(true)
        )
    }
}

/// One configuration of the brute-force kernels (`brute.cu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BruteShape {
    pub dim: usize,
    pub formula: Formula,
    /// The power of two at least max(k, 32): the room of each query's list.
    pub kp: usize,
}

impl BruteShape {
    pub fn new(dim: usize, metric: Metric, k: usize) -> Result<Self> {
        check_dim(dim)?;
        if k == 0 || k > MAX_K {
            return Err(AnnError::Parameter(format!("k {k}: the GPU brute force takes 1 to {MAX_K}")));
        }
        Ok(BruteShape { dim, formula: Formula::of(metric), kp: k.max(32).next_power_of_two() })
    }

    /// Queries a block: as many as keep their lists (and the warps' scratch) in shared memory.
    pub fn queries_per_block(&self) -> usize {
        match self.kp {
            32 => 32,
            64 | 128 => 16,
            256 => 8,
            512 => 4,
            _ => 2,
        }
    }

    /// Warps a block: eight, or one a query where fewer.
    pub fn warps(&self) -> usize {
        self.queries_per_block().min(8)
    }

    fn name(&self) -> String {
        format!("ann_brute_d{}_{}_k{}.cu", self.dim, self.formula.name(), self.kp)
    }

    fn code(&self) -> String {
        let (qt, warps) = (self.queries_per_block(), self.warps());
        format!(
            "#define DIM {}\n#define METRIC {}\n#define KP {}\n#define QT {qt}\n#define WARPS {warps}\n#define QPW {}\n\
             {HALF_CUH}\n{COMMON}\n{BRUTE}",
            self.dim,
            self.formula.define(),
            self.kp,
            qt / warps
        )
    }
}

/// The kernel of a search source: the descent of the upper layers and the search of layer 0.
pub const SEARCH_KERNEL: &str = "ganns_search";
/// The kernels of a build source: local graphs, a merge's searches and its backward edges.
pub const GGC_LOCAL: &str = "ggc_local";
pub const GGC_SEARCH: &str = "ggc_search";
pub const GGC_BACKWARD: &str = "ggc_backward";
/// The kernels of a brute-force source: top-k per (query tile, split) and the merge of splits.
pub const BRUTE_TOPK: &str = "brute_topk";
pub const BRUTE_FINISH: &str = "brute_finish";
/// The search source's conversion of float rows to half-precision ones, launched on blocks of
/// [`TO_HALF_THREADS`] threads (given to `search.cu` as its constant).
pub const TO_HALF: &str = "ann_to_half";
pub const TO_HALF_THREADS: u32 = 256;

static SEARCH_KERNELS: [KernelDecl; 2] = [
    KernelDecl {
        name: SEARCH_KERNEL,
        params: &[
            Param::BufF32,
            Param::U32,
            Param::BufF32,
            Param::BufU32,
            Param::U32,
            Param::BufU32,
            Param::BufU32,
            Param::BufU32,
            Param::U32,
            Param::U32,
            Param::U32,
            Param::BufU32,
            Param::U32,
            Param::BufU32,
            Param::U32,
            Param::BufU32,
            Param::BufU32,
            Param::BufF32,
        ],
    },
    KernelDecl { name: TO_HALF, params: &[Param::BufF32, Param::U64, Param::BufU32, Param::BufU64] },
];

static BRUTE_KERNELS: [KernelDecl; 2] = [
    KernelDecl {
        name: BRUTE_TOPK,
        params: &[
            Param::BufF32,
            Param::U32,
            Param::BufF32,
            Param::U32,
            Param::U32,
            Param::U32,
            Param::U32,
            Param::BufU32,
            Param::U32,
            Param::BufU64,
        ],
    },
    KernelDecl {
        name: BRUTE_FINISH,
        params: &[Param::BufU64, Param::U32, Param::U32, Param::U32, Param::BufU32, Param::BufF32],
    },
];

static BUILD_KERNELS: [KernelDecl; 3] = [
    KernelDecl {
        name: GGC_LOCAL,
        params: &[
            Param::BufF32,
            Param::U32,
            Param::BufU32,
            Param::BufF32,
            Param::U32,
            Param::U32,
            Param::U32,
            Param::U32,
        ],
    },
    KernelDecl {
        name: GGC_SEARCH,
        params: &[
            Param::BufF32,
            Param::BufU32,
            Param::BufF32,
            Param::U32,
            Param::U32,
            Param::BufU32,
            Param::BufU32,
            Param::U32,
            Param::U32,
            Param::U32,
            Param::BufU32,
            Param::BufF32,
        ],
    },
    KernelDecl {
        name: GGC_BACKWARD,
        params: &[Param::BufF32, Param::BufU32, Param::BufF32, Param::BufU32, Param::U32, Param::BufU32, Param::BufF32],
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    Search(SearchShape),
    Brute(BruteShape),
    Build(BuildShape),
}

/// The one source of `shape`, made (and leaked) at its first use.
fn source(shape: Shape) -> &'static KernelSource {
    static SOURCES: OnceLock<Mutex<HashMap<Shape, &'static KernelSource>>> = OnceLock::new();
    let mut sources = SOURCES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    sources.entry(shape).or_insert_with(|| {
        let (name, code, kernels) = match shape {
            Shape::Search(s) => (s.name(), s.code(), &SEARCH_KERNELS[..]),
            Shape::Brute(b) => (b.name(), b.code(), &BRUTE_KERNELS[..]),
            Shape::Build(b) => (b.name(), b.code(), &BUILD_KERNELS[..]),
        };
        Box::leak(Box::new(KernelSource {
            name: Box::leak(name.into_boxed_str()),
            code: Box::leak(code.into_boxed_str()),
            kernels,
        }))
    })
}

/// The GANNS search source of `shape` (kernels [`SEARCH_KERNEL`] and [`TO_HALF`]).
pub fn search_source(shape: SearchShape) -> &'static KernelSource {
    source(Shape::Search(shape))
}

/// The construction source of `shape` (kernels [`GGC_LOCAL`], [`GGC_SEARCH`], [`GGC_BACKWARD`]).
pub fn build_source(shape: BuildShape) -> &'static KernelSource {
    source(Shape::Build(shape))
}

/// The brute-force source of `shape` (kernels [`BRUTE_TOPK`] and [`BRUTE_FINISH`]).
pub fn brute_source(shape: BruteShape) -> &'static KernelSource {
    source(Shape::Brute(shape))
}

/// Dimensions of [`check_shapes`]: the smallest, odd and float4-less ones, the benchmarks'
/// (96 DEEP, 128 SIFT, 960 GIST) and the largest.
pub const CHECK_DIMS: [usize; 7] = [1, 3, 96, 128, 960, 1024, MAX_DIM];
/// (length of N, degree) pairs of [`check_shapes`]: every length of N from 32 to 1024, each
/// degree of 16, 32 and 64 twice (T shorter than, as long as and longer than a warp; N shorter
/// than T at 32 and 64).
pub const CHECK_LN_DEGREE: [(usize, usize); 6] = [(32, 16), (64, 32), (128, 64), (256, 16), (512, 32), (1024, 64)];
/// Bounds on k of [`check_shapes`]: every room of a brute-force list.
pub const CHECK_K: [usize; 6] = [32, 64, 128, 256, 512, 1024];

/// A representative set of configurations: for every dimension of [`CHECK_DIMS`] and every
/// metric (ip and cos share their sources), the search at every pair of
/// [`CHECK_LN_DEGREE`] over rows of either precision, and brute force at every bound of
/// [`CHECK_K`].
pub fn check_shapes() -> (Vec<SearchShape>, Vec<BruteShape>) {
    let mut search = Vec::new();
    let mut brute = Vec::new();
    for dim in CHECK_DIMS {
        for metric in Metric::ALL {
            for (ln, degree) in CHECK_LN_DEGREE {
                for precision in [Precision::Single, Precision::Half] {
                    search.extend(SearchShape::new(dim, metric, ln, degree).map(|s| s.with_precision(precision)));
                }
            }
            for k in CHECK_K {
                brute.extend(BruteShape::new(dim, metric, k));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    search.retain(|s| seen.insert(*s));
    let mut seen = std::collections::HashSet::new();
    brute.retain(|b| seen.insert(*b));
    (search, brute)
}

/// Compiles `shapes`' sources to PTX for `arch` (e.g. `sm_90`) with NVRTC, on `threads`
/// threads; needs no GPU. Returns each source's name and PTX, in order.
pub fn compile_check(
    arch: &str,
    search: &[SearchShape],
    brute: &[BruteShape],
    threads: usize,
) -> Result<Vec<(&'static str, String)>> {
    let sources: Vec<&'static KernelSource> =
        search.iter().map(|s| search_source(*s)).chain(brute.iter().map(|b| brute_source(*b))).collect();
    let threads = threads.clamp(1, sources.len().max(1));
    let per = sources.len().div_ceil(threads).max(1);
    let results: Vec<Result<Vec<(&'static str, String)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sources
            .chunks(per)
            .map(|part| {
                scope.spawn(move || {
                    part.iter().map(|s| Ok((s.name, compile_ptx(s, arch)?.to_src()))).collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(AnnError::Parameter("an NVRTC thread panicked".into()))))
            .collect()
    });
    let mut out = Vec::with_capacity(sources.len());
    for part in results {
        out.extend(part?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_round_up_and_refuse_what_the_kernels_cannot_take() {
        let s = SearchShape::new(128, Metric::Cos, 10, 24).unwrap();
        assert_eq!((s.ln, s.tl(), s.formula), (32, 32, Formula::Dot));
        assert_eq!(SearchShape::new(128, Metric::L2, 1000, 64).unwrap().ln, 1024);
        assert_eq!(SearchShape::new(128, Metric::L2, 100, 100).unwrap().tl(), 128);
        assert!(SearchShape::new(128, Metric::L2, 1025, 32).is_err());
        assert!(SearchShape::new(128, Metric::L2, 0, 32).is_err());
        assert!(SearchShape::new(128, Metric::L2, 64, 0).is_err());
        assert!(SearchShape::new(128, Metric::L2, 64, MAX_DEGREE + 1).is_err());
        assert!(SearchShape::new(0, Metric::L2, 64, 32).is_err());
        assert!(SearchShape::new(MAX_DIM + 1, Metric::L2, 64, 32).is_err());
        assert_eq!(BruteShape::new(3, Metric::L2, 100).unwrap().kp, 128);
        assert!(BruteShape::new(3, Metric::L2, 0).is_err());
        assert!(BruteShape::new(3, Metric::L2, MAX_K + 1).is_err());
    }

    #[test]
    fn every_shape_fits_in_static_shared_memory() {
        for dim in CHECK_DIMS {
            for ln in [32, 64, 128, 256, 512, 1024] {
                for degree in [1, 16, 32, 64, 100, MAX_DEGREE] {
                    let s = SearchShape::new(dim, Metric::L2, ln, degree).unwrap();
                    assert!(s.warps_per_block() * s.shared_bytes_per_warp() <= SHARED_BYTES, "{s:?}");
                    let hs = s.visited();
                    let fits = hs.is_power_of_two() && hs >= 8 * s.tl() && hs >= 2 * s.ln && hs <= MAX_VISITED;
                    assert!(hs == 0 || fits, "{s:?}");
                }
            }
        }
        let big = SearchShape::new(MAX_DIM, Metric::L2, 1024, MAX_DEGREE).unwrap();
        assert_eq!(big.warps_per_block(), 1);
        let visited = |dim, ef, degree| {
            let s = SearchShape::new(dim, Metric::L2, ef, degree).unwrap();
            (s.warps_per_block(), s.visited())
        };
        assert_eq!(visited(128, 64, 32), (4, MAX_VISITED));
        assert_eq!(visited(128, 32, 32), (4, MAX_VISITED));
        assert_eq!(visited(128, 128, 32), (4, 512));
        assert_eq!(visited(128, 256, 32), (4, 512));
        assert_eq!(visited(128, 512, 32), (4, 0), "a set smaller than N");
        assert_eq!(visited(960, 64, 32), (4, 0), "rows too long for a set");
        for k in CHECK_K {
            let b = BruteShape::new(MAX_DIM, Metric::L2, k).unwrap();
            let (qt, warps, dk, kp) = (b.queries_per_block(), b.warps(), 32, b.kp);
            let bytes = 4 * (qt * dk + 64 * (dk + 1)) + 8 * (qt * (kp + 64) + warps * kp);
            assert!(bytes <= SHARED_BYTES, "{b:?}: {bytes}");
            assert_eq!(qt % warps, 0);
        }
    }

    #[test]
    fn one_source_per_shape() {
        let a = search_source(SearchShape::new(96, Metric::Ip, 64, 32).unwrap());
        let b = search_source(SearchShape::new(96, Metric::Cos, 60, 32).unwrap());
        assert!(std::ptr::eq(a, b), "ip and cos at the same N share a source");
        assert_eq!(a.name, "ganns_search_d96_dot_ln64_deg32_r4.cu");
        assert!(a.code.contains("#define ROWS 4\n"), "the search asks for four rows at once");
        let half =
            |dim| search_source(SearchShape::new(dim, Metric::L2, 64, 32).unwrap().with_precision(Precision::Half));
        assert!(half(128).code.contains("#define ROWS 4\n#define WPB"), "four half rows up to 128 dimensions");
        assert!(half(960).code.contains("#define ROWS 8\n#define WPB"), "eight half rows above");
        assert!(half(960).name.ends_with("_r8_half.cu"), "{}", half(960).name);
        let bound = |dim| {
            let code = &search_source(SearchShape::new(dim, Metric::L2, 64, 32).unwrap()).code;
            code[code.find("#define MINB ").unwrap()..].lines().next().unwrap().to_string()
        };
        for (dim, minb) in [(3, 10), (32, 10), (33, 8), (96, 10), (128, 10), (127, 8), (132, 8), (960, 8)] {
            assert_eq!(bound(dim), format!("#define MINB {minb}"), "a lane's share of a row in one load at {dim}");
        }
        let built = build_source(BuildShape::new(96, Metric::Ip, 64, 32, Prune::Diverse).unwrap());
        assert!(built.code.contains("#define ROWS 8\n"), "the builder for eight up to 128 dimensions");
        assert!(a.code.starts_with(
            "#define DIM 96\n#define METRIC 1\n#define LN 64\n#define DEG 32\n#define TL 32\n#define HS_LOG2 10\n"
        ));
        let c = brute_source(BruteShape::new(96, Metric::L2, 100).unwrap());
        assert_eq!(c.name, "ann_brute_d96_l2_k128.cu");
        assert!(c.code.contains("#define QT 16\n#define WARPS 8\n#define QPW 2\n"));
    }
}
