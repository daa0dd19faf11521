//! IEEE half precision (binary16) for the GPU's half-precision search: the base vectors'
//! second copy, converted here on the host (rounded to nearest, ties to even, as CUDA's
//! `__float2half_rn`) and packed two a word as the search kernel reads them. A value beyond
//! half's range is refused, never made infinite.

use rayon::prelude::*;

use crate::error::{AnnError, Result};
use crate::vectors::Vectors;

/// The largest finite half; values of magnitude 65,520 and above round beyond it.
pub const HALF_MAX: f32 = 65504.0;

/// Floats a task of [`half_words`] converts.
const CHUNK: usize = 1 << 16;

/// The IEEE half nearest to `x` (ties to even), as its bits: infinity beyond [`HALF_MAX`]'s
/// rounding range, subnormals below 2^-14, NaN kept a (quiet) NaN.
pub fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7C00 | if man != 0 { 0x0200 | (man >> 13) as u16 } else { 0 };
    }
    // The exponent as a half's (bias 15).
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    // Round `m`, dropping its low `shift` bits, to nearest, ties to even.
    let round = |m: u32, shift: u32| {
        let kept = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let halfway = 1 << (shift - 1);
        kept + u32::from(rest > halfway || (rest == halfway && kept & 1 == 1))
    };
    if e <= 0 {
        // A subnormal half (units of 2^-24), or zero; a carry makes the smallest normal.
        if e < -10 {
            return sign;
        }
        return sign | round(man | 0x80_0000, (14 - e) as u32) as u16;
    }
    // A carry out of the mantissa moves to the next exponent, from the largest to infinity.
    sign | round(((e as u32) << 23) | man, 13) as u16
}

/// The float a half's bits stand for (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    let bits = match exp {
        0 if man == 0 => sign,
        // Subnormal: man × 2^-24, exact in a float.
        0 => {
            let x = man as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -x } else { x };
        }
        0x1F => sign | 0x7F80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// `vectors` in IEEE half, two a word: element c of the row-major matrix at the low half of
/// word c / 2 (the last word's high half zero where the count is odd). Refuses the first value
/// (in row order) that would round beyond [`HALF_MAX`], naming its row and dimension.
pub fn half_words(vectors: &Vectors) -> Result<Vec<u32>> {
    let data = vectors.as_slice();
    let beyond = |x: &f32| f16_bits(*x) & 0x7C00 == 0x7C00;
    if let Some(at) = data.par_iter().position_first(beyond) {
        let dim = vectors.dim();
        return Err(AnnError::HalfRange { row: at / dim, dim: at % dim, value: data[at] });
    }
    let mut words = vec![0u32; data.len().div_ceil(2)];
    words.par_chunks_mut(CHUNK / 2).zip(data.par_chunks(CHUNK)).for_each(|(to, from)| {
        for (w, pair) in to.iter_mut().zip(from.chunks(2)) {
            let hi = pair.get(1).map_or(0, |x| f16_bits(*x));
            *w = u32::from(f16_bits(pair[0])) | (u32::from(hi) << 16);
        }
    });
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_half_comes_back_and_midpoints_round_to_even() {
        for h in 0..=u16::MAX {
            let x = f16_to_f32(h);
            if x.is_nan() {
                assert!(f16_to_f32(f16_bits(x)).is_nan(), "{h:#06x}");
                continue;
            }
            assert_eq!(f16_bits(x), h, "{h:#06x} ({x})");
            // Between this half and the next of larger magnitude: the midpoint goes to the even
            // one, a float's step either side of it to the nearer.
            let (exp, man) = ((h >> 10) & 0x1F, h & 0x3FF);
            if exp == 0x1F || h & 0x7FFF == 0x7BFF {
                continue;
            }
            let next = f16_to_f32(h + 1);
            let exact = (x as f64 + next as f64) / 2.0;
            let mid = exact as f32;
            assert_eq!(mid as f64, exact, "{h:#06x}: the midpoint is a float");
            let even = if man % 2 == 0 { h } else { h + 1 };
            assert_eq!(f16_bits(mid), even, "{h:#06x}: midpoint {mid}");
            // Float bits are sign and magnitude: one less is nearer zero, one more farther.
            assert_eq!(f16_bits(f32::from_bits(mid.to_bits() - 1)), h, "{h:#06x}: just inside {mid}");
            assert_eq!(f16_bits(f32::from_bits(mid.to_bits() + 1)), h + 1, "{h:#06x}: just outside {mid}");
        }
    }

    #[test]
    fn the_range_ends_at_65504() {
        assert_eq!(f16_bits(HALF_MAX), 0x7BFF);
        assert_eq!(f16_bits(65519.99), 0x7BFF);
        assert_eq!(f16_bits(65520.0), 0x7C00, "the midpoint to 65536 rounds to even: infinity");
        assert_eq!(f16_bits(-1e9), 0xFC00);
        assert_eq!(f16_bits(f32::INFINITY), 0x7C00);
        assert_eq!(f16_bits(1e-8), 0, "below half the smallest subnormal");
        assert_eq!(f16_bits(-1e-8), 0x8000);
        assert_eq!(f16_bits(f32::from_bits(0x3300_0001)), 1, "just above half the smallest subnormal");
        assert_eq!(f16_bits(f32::from_bits(0x3300_0000)), 0, "half the smallest subnormal: to even");
        assert_eq!(f16_bits(0.1), 0x2E66);
        assert_eq!(f16_bits(1.0 / 3.0), 0x3555);
    }

    #[test]
    fn vectors_pack_two_halves_a_word_and_refuse_what_does_not_fit() {
        let v = Vectors::new(3, vec![1.0, -2.0, 0.5, 65504.0, 3.0, -0.0]).unwrap();
        assert_eq!(half_words(&v).unwrap(), vec![0xC000_3C00, 0x7BFF_3800, 0x8000_4200]);
        let odd = Vectors::new(1, vec![1.0, 2.0, 3.0]).unwrap();
        assert_eq!(half_words(&odd).unwrap(), vec![0x4000_3C00, 0x0000_4200]);
        let big = Vectors::new(3, vec![1.0, 2.0, 3.0, 4.0, 70000.0, -1e6]).unwrap();
        let e = half_words(&big).unwrap_err();
        assert!(matches!(e, AnnError::HalfRange { row: 1, dim: 1, value } if value == 70000.0), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("vector 1, dimension 1: 70000") && text.contains("65504"), "{text}");
        assert!(!text.contains('\n'));
    }
}
