//! Deterministic test vectors: a Gaussian mixture whose clusters lie near low-dimensional
//! subspaces, as embeddings and descriptors do, so that a proximity graph needs the search
//! effort it needs on SIFT-like sets, not what uniform noise or well-parted blobs ask.
//!
//! The clusters share `intrinsic_dim` directions: their centres spread along these (and a little
//! off them), and each cluster's own directions are the shared ones tilted by 30° towards
//! directions of its own, with variances decaying as 1 / (1 + j/4) along them, as a PCA spectrum
//! does. A cluster reaches as far as two centres lie apart, so that clusters cross and overlap;
//! radii vary by ±25% and weights by ±50%. A point is its cluster's centre, plus its directions
//! times standard normals times their scales, plus isotropic noise.
//!
//! The model is drawn from the seed alone, so every stream shares it: stream 0 is the base set,
//! [`QUERIES`] the queries. Rows are made in chunks of [`CHUNK_ROWS`] on every core, each chunk
//! from its own xoshiro256++ seeded by (seed, stream, chunk), and normals by `rand_distr`'s
//! ziggurat: the output depends on neither the thread count nor the platform.
//!
//! Calibration of [`GenSpec::default`] (dimension 96, 1,000 queries; faiss `IndexHNSWFlat`,
//! M = 16, efConstruction = 200, 10-recall@10 at efSearch 16 / 32 / 64 / 128; own: the share of
//! a point's 10 nearest neighbours in its own cluster; LID: the maximum-likelihood local
//! intrinsic dimension over 20 neighbours):
//!
//! | rows | own | LID | recall at ef 16 / 32 / 64 / 128 |
//! |---|---|---|---|
//! | 200,000 | 0.84 | 25 | 0.840 / 0.929 / 0.977 / 0.992 |
//! | 1,000,000 | 0.91 | 28 | 0.778 / 0.898 / 0.958 / 0.984 |
//!
//! The aim was SIFT1M's difficulty, 0.95 at ef 32 to 128. On 200,000 rows, clusters on
//! subspaces of their own (noise 0.3) had every neighbour in the point's own cluster and reached
//! 0.95 at ef 36; shared directions with noise 0.3, own 0.91 and ef 28; noise 0.5, ef 42.

use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::error::{AnnError, Result};
use crate::vectors::{Vectors, MAX_DIM};

/// The stream of [`clustered_stream`] that queries come from (0 is the base set's).
pub const QUERIES: u64 = 1;

/// Rows made from one generator, the unit of parallel work.
pub const CHUNK_ROWS: usize = 4096;

/// The shape of a generated set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenSpec {
    /// Mixture components (at least 1).
    pub clusters: usize,
    /// Directions each cluster spreads along (at least 1; at most the dimension is used).
    pub intrinsic_dim: usize,
    /// The isotropic noise's length relative to a point's offset within its subspace, on
    /// average (0 puts points exactly on their cluster's subspace).
    pub noise: f32,
    pub seed: u64,
}

impl Default for GenSpec {
    /// 64 clusters of 16 directions, noise 0.5, seed 0: on a million rows of 96 dimensions, HNSW
    /// (M 16) needs ef near 60 for 10-recall@10 of 0.95 (the module's table), within the 32 to
    /// 128 that SIFT-like sets ask.
    fn default() -> Self {
        GenSpec { clusters: 64, intrinsic_dim: 16, noise: 0.5, seed: 0 }
    }
}

/// `n` rows of dimension `dim` of the base set (stream 0).
pub fn clustered(n: usize, dim: usize, spec: &GenSpec) -> Result<Vectors> {
    clustered_stream(n, dim, spec, 0)
}

/// `n` rows of dimension `dim` of `stream` (0: the base set, [`QUERIES`]: its queries). The
/// first `m` rows of `n` are the `m` rows of `m`.
pub fn clustered_stream(n: usize, dim: usize, spec: &GenSpec, stream: u64) -> Result<Vectors> {
    let model = Model::new(dim, spec)?;
    let len = n.checked_mul(dim).ok_or_else(|| AnnError::Parameter(format!("{n} rows of {dim}: too many values")))?;
    let mut data = vec![0f32; len];
    data.par_chunks_mut(CHUNK_ROWS * dim).enumerate().for_each(|(chunk, rows)| {
        let mut rng = model.rng(stream, chunk as u64);
        for row in rows.chunks_exact_mut(dim) {
            model.point(&mut rng, row);
        }
    });
    Vectors::new(dim, data)
}

/// How far a cluster's points reach: its radius is this times the distance of two centres (on
/// average), so that clusters overlap.
const SPREAD: f64 = 1.0;

/// How much a cluster's directions turn away from the directions all clusters share (the sine
/// of the angle): clusters are tilted slabs, crossing where they overlap.
const TILT: f64 = 0.5;

/// How far centres lie off the shared directions, relative to their spread along them.
const OFFSET: f64 = 0.2;

/// The mixture, drawn from the seed.
struct Model {
    seed: u64,
    dim: usize,
    intrinsic: usize,
    /// Cumulative weights of the clusters, the last 1.
    cumulative: Vec<f64>,
    /// `clusters × dim`.
    centres: Vec<f32>,
    /// `clusters × intrinsic × dim`: each cluster's directions times their scales.
    axes: Vec<f32>,
    /// Per-coordinate standard deviation of each cluster's noise.
    noise: Vec<f32>,
}

impl Model {
    fn new(dim: usize, spec: &GenSpec) -> Result<Model> {
        if dim == 0 || dim > MAX_DIM {
            return Err(AnnError::Parameter(format!("dimension {dim}: must be 1 to {MAX_DIM}")));
        }
        if spec.clusters == 0 || spec.intrinsic_dim == 0 {
            return Err(AnnError::Parameter("clusters and intrinsic_dim must be at least 1".into()));
        }
        if !(spec.noise.is_finite() && spec.noise >= 0.0) {
            return Err(AnnError::Parameter(format!("noise {}: must be finite and not negative", spec.noise)));
        }
        let intrinsic = spec.intrinsic_dim.min(dim);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(xxh3_64_with_seed(b"model", spec.seed));
        // Variances along a cluster's directions decay as 1 / (1 + j/4), as a PCA spectrum does.
        let scales: Vec<f64> = (0..intrinsic).map(|j| 1.0 / (1.0 + j as f64 / 4.0).sqrt()).collect();
        let norm = scales.iter().map(|s| s * s).sum::<f64>().sqrt();
        let shared = orthonormal(normals(&mut rng, intrinsic * dim), dim);
        // Centres spread this much along each shared direction, so that their length is about
        // sqrt(dim) (coordinates of order 1) and two lie sqrt(2 intrinsic) tau apart.
        let tau = (dim as f64 / intrinsic as f64).sqrt();
        let (mut centres, mut axes, mut noise) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..spec.clusters {
            let mut centre: Vec<f64> = normals(&mut rng, dim);
            centre.iter_mut().for_each(|x| *x *= OFFSET * tau * (intrinsic as f64 / dim as f64).sqrt());
            for g in shared.chunks_exact(dim) {
                let u = tau * rng.sample::<f64, _>(StandardNormal);
                centre.iter_mut().zip(g).for_each(|(x, y)| *x += u * y);
            }
            centres.extend(centre.iter().map(|&x| x as f32));
            let own = orthonormal(normals(&mut rng, intrinsic * dim), dim);
            let tilted = shared.iter().zip(&own).map(|(g, o)| (1.0 - TILT * TILT).sqrt() * g + TILT * o).collect();
            let radius = SPREAD * tau * (2.0 * intrinsic as f64).sqrt() * rng.random_range(0.75..1.25);
            for (direction, scale) in orthonormal(tilted, dim).chunks_exact(dim).zip(&scales) {
                axes.extend(direction.iter().map(|&v| (v * radius * scale / norm) as f32));
            }
            noise.push((radius * f64::from(spec.noise) / (dim as f64).sqrt()) as f32);
        }
        let weights: Vec<f64> = (0..spec.clusters).map(|_| rng.random_range(0.5..1.5)).collect();
        let total: f64 = weights.iter().sum();
        let mut cumulative: Vec<f64> = weights
            .iter()
            .scan(0.0, |sum, w| {
                *sum += w;
                Some(*sum / total)
            })
            .collect();
        cumulative[spec.clusters - 1] = 1.0;
        Ok(Model { seed: spec.seed, dim, intrinsic, cumulative, centres, axes, noise })
    }

    /// The generator of one chunk of rows of a stream.
    fn rng(&self, stream: u64, chunk: u64) -> Xoshiro256PlusPlus {
        let key = [stream.to_le_bytes(), chunk.to_le_bytes()].concat();
        Xoshiro256PlusPlus::seed_from_u64(xxh3_64_with_seed(&key, self.seed))
    }

    /// Writes one point into `row`; returns its cluster.
    fn point(&self, rng: &mut Xoshiro256PlusPlus, row: &mut [f32]) -> usize {
        let u: f64 = rng.random();
        let k = self.cumulative.partition_point(|&c| c <= u);
        let dim = self.dim;
        let sigma = self.noise[k];
        for (r, c) in row.iter_mut().zip(&self.centres[k * dim..(k + 1) * dim]) {
            *r = c + sigma * rng.sample::<f32, _>(StandardNormal);
        }
        for axis in self.axes[k * self.intrinsic * dim..(k + 1) * self.intrinsic * dim].chunks_exact(dim) {
            let z: f32 = rng.sample(StandardNormal);
            for (r, a) in row.iter_mut().zip(axis) {
                *r += z * a;
            }
        }
        k
    }
}

fn normals(rng: &mut Xoshiro256PlusPlus, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.sample(StandardNormal)).collect()
}

/// The rows of `rows` (each `dim` long, independent) made orthonormal by Gram–Schmidt, twice
/// over for accuracy.
fn orthonormal(mut rows: Vec<f64>, dim: usize) -> Vec<f64> {
    for i in 0..rows.len() / dim {
        let (done, rest) = rows.split_at_mut(i * dim);
        let v = &mut rest[..dim];
        for _ in 0..2 {
            for b in done.chunks_exact(dim) {
                let d: f64 = v.iter().zip(b).map(|(x, y)| x * y).sum();
                v.iter_mut().zip(b).for_each(|(x, y)| *x -= d * y);
            }
        }
        let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.iter_mut().for_each(|x| *x /= len);
    }
    rows
}

/// `n` labels drawn uniformly from `0..count` by `seed`, independently of the vectors: a filter
/// passing the labels below `s · count` passes a share `s` of them, for filtered benchmarks.
pub fn uniform_labels(n: usize, count: u32, seed: u64) -> Vec<u32> {
    (0..n as u64)
        .into_par_iter()
        .map(|i| (xxh3_64_with_seed(&i.to_le_bytes(), seed ^ 0x1abe_1500) % count.max(1) as u64) as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::l2sq;

    fn spec(seed: u64) -> GenSpec {
        GenSpec { clusters: 5, intrinsic_dim: 4, noise: 0.5, seed }
    }

    #[test]
    fn rows_depend_on_the_seed_and_stream_only() {
        let n = 2 * CHUNK_ROWS + 17;
        let on = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| clustered(n, 12, &spec(9)).unwrap())
        };
        let one = on(1);
        assert_eq!((one.len(), one.dim()), (n, 12));
        assert!(one.as_slice().iter().all(|v| v.is_finite()));
        assert_eq!(one, on(2));
        assert_eq!(one, clustered_stream(n, 12, &spec(9), 0).unwrap());
        let prefix = clustered(CHUNK_ROWS + 3, 12, &spec(9)).unwrap();
        assert_eq!(prefix.as_slice(), &one.as_slice()[..prefix.as_slice().len()]);
        let queries = clustered_stream(n, 12, &spec(9), QUERIES).unwrap();
        assert_ne!(queries.row(0), one.row(0));
        assert_ne!(clustered(n, 12, &spec(10)).unwrap().row(0), one.row(0));
        // Rows are not repeated across chunks.
        assert_ne!(one.row(0), one.row(CHUNK_ROWS));
    }

    #[test]
    fn queries_come_from_the_base_set_s_clusters() {
        // Points on planes: queries on their base set's, far from another seed's.
        let spec = GenSpec { clusters: 4, intrinsic_dim: 2, noise: 0.0, seed: 3 };
        let base = clustered(2000, 32, &spec).unwrap();
        let other = clustered(2000, 32, &GenSpec { seed: 4, ..spec }).unwrap();
        let queries = clustered_stream(50, 32, &spec, QUERIES).unwrap();
        let nearest = |set: &Vectors, q: &[f32]| (0..set.len()).map(|i| l2sq(set.row(i), q)).fold(f32::MAX, f32::min);
        let (mut same, mut apart) = (0.0, 0.0);
        for i in 0..queries.len() {
            same += nearest(&base, queries.row(i));
            apart += nearest(&other, queries.row(i));
        }
        assert!(same * 4.0 < apart, "{same} {apart}");
    }

    /// Clusters overlap: a point's nearest neighbours are often of other clusters, yet mostly of
    /// its own (the defaults give about 84% on 200,000 × 96 points).
    #[test]
    fn neighbours_cross_clusters() {
        let (n, dim) = (20_000, 96);
        let model = Model::new(dim, &GenSpec::default()).unwrap();
        let mut rng = model.rng(0, 0);
        let mut data = vec![0f32; n * dim];
        let clusters: Vec<usize> = data.chunks_exact_mut(dim).map(|row| model.point(&mut rng, row)).collect();
        let mut own = 0;
        for q in 0..200 {
            let row = &data[q * dim..(q + 1) * dim];
            let mut by_distance: Vec<(f32, usize)> =
                (0..n).filter(|&i| i != q).map(|i| (l2sq(&data[i * dim..(i + 1) * dim], row), i)).collect();
            by_distance.select_nth_unstable_by(10, |a, b| a.0.total_cmp(&b.0));
            own += by_distance[..10].iter().filter(|&&(_, i)| clusters[i] == clusters[q]).count();
        }
        let share = own as f64 / 2000.0;
        assert!((0.5..0.97).contains(&share), "{share}");
    }

    #[test]
    fn bad_specs_are_refused() {
        let e = |dim, spec: GenSpec| clustered(10, dim, &spec).unwrap_err().to_string();
        assert_eq!(e(0, GenSpec::default()), "dimension 0: must be 1 to 4096");
        assert_eq!(
            e(8, GenSpec { clusters: 0, ..GenSpec::default() }),
            "clusters and intrinsic_dim must be at least 1"
        );
        assert_eq!(
            e(8, GenSpec { noise: f32::NAN, ..GenSpec::default() }),
            "noise NaN: must be finite and not negative"
        );
        // Fewer dimensions than directions: all of them are used.
        let v = clustered(100, 3, &GenSpec::default()).unwrap();
        assert_eq!((v.len(), v.dim()), (100, 3));
        assert!(clustered(0, 3, &GenSpec::default()).unwrap().is_empty());
        let huge = clustered(usize::MAX / 2, 4, &GenSpec::default()).unwrap_err().to_string();
        assert!(huge.ends_with("rows of 4: too many values"), "{huge}");
    }
}
