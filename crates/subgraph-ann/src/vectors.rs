//! A set of dense float32 vectors of one dimension, row-major, checked on the way in (no empty
//! set, no NaN or infinity, rows of the stated dimension), and the metrics over them (thesis
//! §4.1: Euclidean and cosine; inner product as hnswlib and faiss have it).
//!
//! Distances are "smaller is nearer" for every metric, as hnswlib reports them: `l2` is the
//! squared Euclidean distance, `ip` is `1 - a·b`, `cos` is `1 - a·b` over rows normalised to
//! length one when they enter an index (a zero row has no direction and is refused).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use multiversion::{inherit_target, multiversion};
use rayon::prelude::*;

use crate::error::{AnnError, Result};

/// The largest dimension the GPU kernels are compiled for, and so the largest accepted.
pub const MAX_DIM: usize = 4096;

/// Row-major float32 vectors of one dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct Vectors {
    dim: usize,
    data: Vec<f32>,
}

impl Vectors {
    /// `data` holds `data.len() / dim` rows; every value must be finite.
    pub fn new(dim: usize, data: Vec<f32>) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM {
            return Err(AnnError::Vectors(format!("dimension {dim}: must be 1 to {MAX_DIM}")));
        }
        if !data.len().is_multiple_of(dim) {
            return Err(AnnError::Vectors(format!("{} values are not whole rows of dimension {dim}", data.len())));
        }
        if let Some(at) = data.iter().position(|v| !v.is_finite()) {
            return Err(AnnError::Vectors(format!(
                "row {}, column {}: {} is not a finite number",
                at / dim,
                at % dim,
                data[at]
            )));
        }
        Ok(Vectors { dim, data })
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The rows in runs of `per` (the last may be shorter), each copied on its own thread; the
    /// rows are not checked again.
    pub(crate) fn split(&self, per: usize) -> Vec<Vectors> {
        use rayon::prelude::*;
        self.data.par_chunks(per.max(1) * self.dim).map(|rows| Vectors { dim: self.dim, data: rows.to_vec() }).collect()
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.data.len() / self.dim
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    pub fn into_data(self) -> Vec<f32> {
        self.data
    }

    /// Appends `other`'s rows, which must be of the same dimension.
    pub fn extend(&mut self, other: &Vectors) -> Result<()> {
        check_dim(self.dim, other.dim, "the vectors added")?;
        self.data.extend_from_slice(&other.data);
        Ok(())
    }

    /// The rows in `order`.
    pub fn permuted(&self, order: &[u32]) -> Vectors {
        let mut data = vec![0.0; order.len() * self.dim];
        if self.dim > 0 {
            data.par_chunks_mut(self.dim).zip(order).for_each(|(row, &i)| row.copy_from_slice(self.row(i as usize)));
        }
        Vectors { dim: self.dim, data }
    }
}

/// One line when `found` is not the index's dimension.
pub fn check_dim(expected: usize, found: usize, what: &str) -> Result<()> {
    if expected != found {
        return Err(AnnError::Vectors(format!("{what} have dimension {found}, the index {expected}")));
    }
    Ok(())
}

/// How near two vectors are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Squared Euclidean distance.
    L2,
    /// `1 - a·b`.
    Ip,
    /// `1 - a·b / (|a| |b|)`.
    Cos,
}

impl Metric {
    pub const ALL: [Metric; 3] = [Metric::L2, Metric::Ip, Metric::Cos];

    pub fn name(self) -> &'static str {
        match self {
            Metric::L2 => "l2",
            Metric::Ip => "ip",
            Metric::Cos => "cos",
        }
    }

    /// The vectors as an index of this metric holds them: rows normalised for `cos`.
    pub fn prepare(self, mut vectors: Vectors) -> Result<Vectors> {
        if self == Metric::Cos {
            let dim = vectors.dim;
            for (i, row) in vectors.data.chunks_mut(dim).enumerate() {
                let norm = dot(row, row).sqrt();
                if norm == 0.0 {
                    return Err(AnnError::Vectors(format!("row {i} is zero, which has no cosine distance")));
                }
                row.iter_mut().for_each(|v| *v /= norm);
            }
        }
        Ok(vectors)
    }

    /// The distance between two rows of a prepared set (see [`Metric::prepare`]).
    #[inline]
    pub fn distance(self, a: &[f32], b: &[f32]) -> f32 {
        match self {
            Metric::L2 => l2sq(a, b),
            Metric::Ip | Metric::Cos => 1.0 - dot(a, b),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Metric {
    type Err = AnnError;

    fn from_str(s: &str) -> Result<Self> {
        Metric::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| AnnError::Parameter(format!("metric {s:?}: expected l2, ip or cos")))
    }
}

type Kernel = fn(&[f32], &[f32]) -> f32;

/// The squared Euclidean distance, with the widest SIMD this processor has (chosen once).
#[inline]
pub fn l2sq(a: &[f32], b: &[f32]) -> f32 {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    KERNEL.get_or_init(select_l2sq)(a, b)
}

/// The dot product, with the widest SIMD this processor has (chosen once).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    KERNEL.get_or_init(select_dot)(a, b)
}

/// Sixteen independent partial sums, so that the compiler keeps them in vector registers.
const LANES: usize = 16;

/// The squared Euclidean distance as sixteen independent partial sums, summed in order at the
/// end, for a caller compiled for an instruction set to inline (the CPU search's walk); what
/// [`l2sq`] computes, to the bit.
#[inline(always)]
pub(crate) fn l2sq_sums(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            let d = x[l] - y[l];
            acc[l] += d * d;
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        sum += (x - y) * (x - y);
    }
    sum
}

/// The dot product as [`l2sq_sums`] computes its sums: what [`dot`] computes, to the bit.
#[inline(always)]
pub(crate) fn dot_sums(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        sum += x * y;
    }
    sum
}

#[multiversion(targets = "simd")]
fn select_l2sq() -> Kernel {
    #[inherit_target]
    fn l2sq(a: &[f32], b: &[f32]) -> f32 {
        l2sq_sums(a, b)
    }
    l2sq
}

#[multiversion(targets = "simd")]
fn select_dot() -> Kernel {
    #[inherit_target]
    fn dot(a: &[f32], b: &[f32]) -> f32 {
        dot_sums(a, b)
    }
    dot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_keeps_every_row_in_order() {
        let v = Vectors::new(3, (0..21).map(|i| i as f32).collect()).unwrap();
        for per in [1, 2, 3, 7, 8] {
            let parts = v.split(per);
            assert_eq!(parts.len(), 7usize.div_ceil(per), "per {per}");
            assert!(parts.iter().all(|p| p.dim() == 3 && p.len() <= per));
            assert_eq!(parts.iter().flat_map(|p| p.as_slice().to_vec()).collect::<Vec<_>>(), v.as_slice());
        }
    }

    #[test]
    fn distances_match_the_plain_sums() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5 - 3.0).collect();
        let b: Vec<f32> = (0..37).map(|i| (i * i % 11) as f32 - 4.0).collect();
        let l2: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
        let d: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((l2sq(&a, &b) - l2).abs() <= 1e-3 * l2.abs());
        assert!((dot(&a, &b) - d).abs() <= 1e-3 * d.abs().max(1.0));
        assert_eq!(Metric::L2.distance(&a, &a), 0.0);
    }

    #[test]
    fn the_inlined_sums_are_the_dispatched_kernels_to_the_bit() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 20) as f32 - 8.0
        };
        for dim in (1..70).chain([128, 960]) {
            let a: Vec<f32> = (0..dim).map(|_| next()).collect();
            let b: Vec<f32> = (0..dim).map(|_| next()).collect();
            assert_eq!(l2sq_sums(&a, &b).to_bits(), l2sq(&a, &b).to_bits(), "dim {dim}");
            assert_eq!(dot_sums(&a, &b).to_bits(), dot(&a, &b).to_bits(), "dim {dim}");
        }
    }

    #[test]
    fn bad_sets_are_one_line_each() {
        assert!(Vectors::new(0, vec![]).unwrap_err().to_string().contains("dimension 0"));
        assert!(Vectors::new(3, vec![1.0; 4]).unwrap_err().to_string().contains("whole rows"));
        let e = Vectors::new(2, vec![1.0, 2.0, f32::NAN, 0.0]).unwrap_err().to_string();
        assert!(e.contains("row 1, column 0"), "{e}");
        let zero = Vectors::new(2, vec![1.0, 0.0, 0.0, 0.0]).unwrap();
        assert!(Metric::Cos.prepare(zero).unwrap_err().to_string().contains("row 1 is zero"));
        assert_eq!("cos".parse::<Metric>().unwrap(), Metric::Cos);
        assert!("dot".parse::<Metric>().is_err());
    }

    #[test]
    fn cosine_rows_are_normalised() {
        let v = Metric::Cos.prepare(Vectors::new(2, vec![3.0, 4.0]).unwrap()).unwrap();
        assert_eq!(v.row(0), &[0.6, 0.8]);
        assert!(Metric::Cos.distance(v.row(0), v.row(0)).abs() < 1e-6);
    }
}
