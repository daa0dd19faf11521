//! GSI filtering (§III-A): the candidates C(u) of a query vertex u are the data vertices whose
//! signature admits u's (exact label, contained counters). On the device (`filter.cu`) one pass
//! over the signature table serves every query vertex: one thread per data vertex writes its
//! bit of each candidate bitset, one exclusive scan of the bitsets' population counts gives the
//! write positions, and a scatter writes every C(u) sorted by id, one list after another. A query
//! vertex restricted to given data vertices (a pattern's property tests, evaluated on the host)
//! keeps only those: its allowed set is uploaded and ANDed into its bitset in the same pass. The
//! host reference computes the same sets for tests.

use subgraph_core::filter::Bitset;
use subgraph_cuda::{Arg, DeviceBuffer, Gpu, Kernel, KernelDecl, KernelSource, Param};

use crate::error::{to_u32, GpuError, Result};
use crate::gsi::signature::{DeviceSignatureTable, Signature, SignatureTable, WORDS};
use crate::shared::scan::{exclusive_scan, list_starts};

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// The kernels of `filter.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "filter.cu",
    code: include_str!("filter.cu"),
    kernels: &[
        KernelDecl { name: "filter_bits", params: &[B32, U32, U32, B32, U32, B32, U32, U32, B32, B32, B32, B32] },
        KernelDecl { name: "filter_counts", params: &[B32, U64, B32] },
        KernelDecl { name: "filter_scatter", params: &[B32, U64, U32, B64, B32] },
    ],
};

/// Most query vertices one pass filters (`FILTER_MAX_QUERY`: their signatures sit in shared
/// memory).
pub const MAX_QUERY_VERTICES: usize = 64;

const BLOCK: u32 = 1024;

/// C(u) on the host: the candidates sorted by id and the |V|-bit bitset (word v / 32, bit
/// v % 32) of the same set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    pub vertices: Vec<u32>,
    pub bitset: Vec<u32>,
}

impl Candidates {
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Membership through the bitset, as the join tests it.
    pub fn contains(&self, v: u32) -> bool {
        self.bitset.get(v as usize / 32).is_some_and(|w| w >> (v % 32) & 1 == 1)
    }
}

/// Number of bitset words for `n` vertices.
fn bitset_words(n: usize) -> usize {
    n.div_ceil(32)
}

/// A host [`Bitset`] in the device's layout: `words` 32-bit words (vertex v at bit v % 32 of
/// word v / 32), zero past the set's own.
pub fn device_words(set: &Bitset, words: usize) -> impl Iterator<Item = u32> + '_ {
    let halves = set.words().iter().flat_map(|&w| [w as u32, (w >> 32) as u32]);
    halves.chain(std::iter::repeat(0)).take(words)
}

/// The host reference of [`filter_on_device`], for one query vertex.
pub fn filter_host(table: &SignatureTable, query: &Signature, allowed: Option<&Bitset>) -> Candidates {
    let n = table.num_vertices();
    let vertices: Vec<u32> =
        (0..n as u32).filter(|&v| table.get(v).admits(query) && allowed.is_none_or(|a| a.contains(v))).collect();
    let mut bitset = vec![0u32; bitset_words(n)];
    for &v in &vertices {
        bitset[v as usize / 32] |= 1 << (v % 32);
    }
    Candidates { vertices, bitset }
}

/// C(u) of every query vertex u on the device: the lists one after another (C(u) at
/// `at[u]..at[u + 1]` of `list`, sorted by id) and the bitsets one after another (C(u)'s at
/// `u * words`).
pub struct DeviceCandidateSet {
    pub list: DeviceBuffer<u32>,
    pub at: Vec<u64>,
    pub bits: DeviceBuffer<u32>,
    pub words: usize,
}

impl DeviceCandidateSet {
    /// Number of query vertices.
    pub fn num_query_vertices(&self) -> usize {
        self.at.len() - 1
    }

    /// |C(u)|.
    pub fn len(&self, u: usize) -> usize {
        (self.at[u + 1] - self.at[u]) as usize
    }

    /// Whether some C(u) is empty.
    pub fn any_empty(&self) -> bool {
        self.at.windows(2).any(|w| w[0] == w[1])
    }

    /// Every C(u) on the host, list and bitset, in two copies.
    pub fn to_host(&self, gpu: &Gpu) -> Result<Vec<Candidates>> {
        let (list, bits) = (gpu.download(&self.list)?, gpu.download(&self.bits)?);
        Ok(self
            .at
            .windows(2)
            .enumerate()
            .map(|(u, w)| Candidates {
                vertices: list[w[0] as usize..w[1] as usize].to_vec(),
                bitset: bits[u * self.words..(u + 1) * self.words].to_vec(),
            })
            .collect())
    }

    /// Every C(u)'s list on the host.
    pub fn lists_to_host(&self, gpu: &Gpu) -> Result<Vec<Vec<u32>>> {
        let list = gpu.download(&self.list)?;
        Ok(self.at.windows(2).map(|w| list[w[0] as usize..w[1] as usize].to_vec()).collect())
    }

    /// Device copies of C(u)'s list and bitset, on their own.
    pub fn take(&self, gpu: &Gpu, u: usize) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>)> {
        let mut list = gpu.alloc_zeros::<u32>("candidates", self.len(u))?;
        gpu.copy(&self.list, self.at[u] as usize, &mut list, 0, self.len(u))?;
        let mut bitset = gpu.alloc_zeros::<u32>("candidate bitset", self.words)?;
        gpu.copy(&self.bits, u * self.words, &mut bitset, 0, self.words)?;
        Ok((list, bitset))
    }
}

/// The kernels of `filter.cu`, loaded once.
pub struct FilterKernels {
    bits: Kernel,
    counts: Kernel,
    scatter: Kernel,
}

impl FilterKernels {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(FilterKernels {
            bits: gpu.kernel(&SOURCE, "filter_bits")?,
            counts: gpu.kernel(&SOURCE, "filter_counts")?,
            scatter: gpu.kernel(&SOURCE, "filter_scatter")?,
        })
    }
}

/// C(u) for the query vertices with signatures `queries`, each within its `allowed` set where
/// it has one (`allowed[u]`; an empty slice: none has), computed on the device from `table` in
/// one pass (two synchronisations whatever the number of query vertices).
pub fn filter_on_device(
    gpu: &Gpu,
    k: &FilterKernels,
    table: &DeviceSignatureTable,
    queries: &[Signature],
    allowed: &[Option<&Bitset>],
) -> Result<DeviceCandidateSet> {
    let n = table.num_vertices;
    filter_segments(gpu, k, n, &mut |each| each(&table.words, Rows::From(0), n), queries, allowed)
}

/// What [`filter_segments`] does with one segment of the signature table: its words, its
/// vertices and their number.
pub type TableSegment<'a> = dyn FnMut(&DeviceBuffer<u32>, Rows<'_>, u32) -> Result<()> + 'a;

/// The vertices of a segment of the signature table: consecutive ids from a multiple of 32, or
/// the ids listed.
#[derive(Clone, Copy)]
pub enum Rows<'a> {
    From(u32),
    Listed(&'a DeviceBuffer<u32>),
}

/// [`filter_on_device`] over a table of `n` vertices read in vertex segments: `segments` calls
/// its argument with each segment's column-major words, vertices and number of vertices
/// (SGSI §6.1's horizontal partition; in core, the whole table), every segment setting its
/// vertices' bits. Vertices of no segment are in no C(u).
pub fn filter_segments(
    gpu: &Gpu,
    k: &FilterKernels,
    n: u32,
    segments: &mut dyn FnMut(&mut TableSegment<'_>) -> Result<()>,
    queries: &[Signature],
    allowed: &[Option<&Bitset>],
) -> Result<DeviceCandidateSet> {
    if queries.len() > MAX_QUERY_VERTICES {
        return Err(GpuError::TooLarge {
            what: "query vertices of one filter pass",
            len: queries.len() as u64,
            max: MAX_QUERY_VERTICES as u64,
        });
    }
    let nq = queries.len() as u32;
    let words = bitset_words(n as usize);
    let words32 = to_u32("candidate bitset words", words as u64)?;
    let signatures: Vec<u32> = queries.iter().flat_map(|q| q.0[..WORDS].iter().copied()).collect();
    let signatures = gpu.upload("query signatures", &signatures)?;
    // The allowed sets one after another in the device's word layout (32 bits a word), and
    // each query vertex's index among them (FILTER_ANY: unrestricted).
    let mut slots = vec![u32::MAX; queries.len()];
    let mut allowed_words: Vec<u32> = Vec::new();
    for (u, set) in allowed.iter().enumerate() {
        if let Some(set) = set {
            slots[u] = (allowed_words.len() / words) as u32;
            allowed_words.extend(device_words(set, words));
        }
    }
    if allowed_words.is_empty() {
        allowed_words.push(0);
    }
    let allowed_words = gpu.upload("allowed vertices", &allowed_words)?;
    let slots = gpu.upload("allowed vertex slots", &slots)?;
    let total_words = queries.len() * words;
    let mut bits = gpu.alloc_zeros::<u32>("candidate bitsets", total_words)?;
    let mut counts = gpu.alloc_zeros::<u32>("candidate bitset counts", total_words)?;
    let mut scattered = false;
    segments(&mut |table, rows, len| {
        let (first, ids) = match rows {
            Rows::From(first) => (first, &slots),
            Rows::Listed(ids) => (0, ids),
        };
        let listed = matches!(rows, Rows::Listed(_));
        scattered |= listed;
        Ok(gpu.launch(
            &k.bits,
            len.div_ceil(BLOCK),
            BLOCK,
            &mut [
                Arg::In32(table),
                Arg::U32(len),
                Arg::U32(first),
                Arg::In32(ids),
                Arg::U32(u32::from(listed)),
                Arg::In32(&signatures),
                Arg::U32(nq),
                Arg::U32(words32),
                Arg::In32(&allowed_words),
                Arg::In32(&slots),
                Arg::Out32(&mut bits),
                Arg::Out32(&mut counts),
            ],
        )?)
    })?;
    if scattered {
        let blocks = to_u32("candidate bitset words", (total_words as u64).div_ceil(BLOCK as u64))?;
        gpu.launch(
            &k.counts,
            blocks,
            BLOCK,
            &mut [Arg::In32(&bits), Arg::U64(total_words as u64), Arg::Out32(&mut counts)],
        )?;
    }
    let (offsets, total) = exclusive_scan(gpu, &counts)?;
    drop(counts);
    let mut list = gpu.alloc_zeros::<u32>("candidates", total as usize)?;
    gpu.launch(
        &k.scatter,
        to_u32("candidate bitset words", (total_words as u64).div_ceil(BLOCK as u64))?,
        BLOCK,
        &mut [
            Arg::In32(&bits),
            Arg::U64(total_words as u64),
            Arg::U32(words32),
            Arg::In64(&offsets),
            Arg::Out32(&mut list),
        ],
    )?;
    let bitset_starts: Vec<u64> = (0..=queries.len()).map(|u| (u * words) as u64).collect();
    let at = list_starts(gpu, &offsets, &gpu.upload("candidate bitset starts", &bitset_starts)?)?;
    Ok(DeviceCandidateSet { list, at, bits, words })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{random_graph, GraphSpec};

    #[test]
    fn host_filter_keeps_exactly_the_admitting_vertices() {
        let g = random_graph(&GraphSpec {
            vertices: 500,
            edges: 2500,
            vertex_labels: 5,
            edge_labels: 3,
            directed: false,
            seed: 5,
        });
        let table = SignatureTable::build(&g).unwrap();
        for u in (0..500u32).step_by(37) {
            let q = Signature::of_vertex(&g, u);
            let c = filter_host(&table, &q, None);
            assert!(c.contains(u), "a vertex is its own candidate");
            assert!(c.vertices.windows(2).all(|w| w[0] < w[1]));
            for v in 0..500u32 {
                assert_eq!(c.contains(v), table.get(v).admits(&q));
                assert_eq!(c.vertices.binary_search(&v).is_ok(), c.contains(v));
                if c.contains(v) {
                    assert_eq!(g.label(v), g.label(u));
                }
            }
        }
    }
}
