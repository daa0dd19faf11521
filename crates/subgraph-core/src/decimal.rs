//! Unsigned integers appended as decimal text, eight digits at a time: the digits of a number
//! below 10^8 are computed together in the byte lanes of one u64 (SWAR division by constants),
//! stored in one 8-byte write, and the leading zeros cut off. The text formats' vertex numbers
//! (`sink`): rows of twelve seven-digit numbers formatted 1.9 times as fast as by `itoa` in a
//! loop of their own (one thread); the GPU's written text rows gained 1.05–1.2
//! (bench/results/2026-12-01-decimal.md).

/// The ASCII code of 0 in each byte lane.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// The eight decimal digits of `v` (below 10^8) as the values 0–9, one a byte, the most
/// significant in the lowest byte, so that the u64's little-endian bytes read in order.
fn digits8(v: u32) -> u64 {
    debug_assert!(v < 100_000_000);
    let v = v as u64;
    // Two four-digit halves in 32-bit lanes: the high half in the low lane.
    let fours = (v / 10_000) | ((v % 10_000) << 32);
    // Each lane over 100 (x * 10,486 >> 20 is x / 100 for x below 10^4): the quotient, the
    // higher two digits, in the lane's low 16 bits and the remainder in its high 16.
    let hundreds = ((fours * 10_486) >> 20) & ((0x7f << 32) | 0x7f);
    let twos = ((fours - 100 * hundreds) << 16) | hundreds;
    // Each 16-bit lane over 10 (x * 103 >> 10 is x / 10 for x below 100): tens in the low
    // byte, units in the high.
    let tens = ((twos * 103) >> 10) & 0x000f_000f_000f_000f;
    tens | ((twos - 10 * tens) << 8)
}

/// Appends `v` (below 10^8) in decimal, without leading zeros (0 is "0").
fn push_below_1e8(buf: &mut Vec<u8>, v: u32) {
    let digits = digits8(v);
    // Leading zeros are the zero bytes at the low end; 0 keeps its last digit.
    let zeros = if v == 0 { 7 } else { digits.trailing_zeros() as usize / 8 };
    buf.extend_from_slice(&((digits | ZEROS) >> (8 * zeros)).to_le_bytes());
    buf.truncate(buf.len() - zeros);
}

/// Appends `v` in decimal, as `v.to_string()` writes it.
pub fn push_u32(buf: &mut Vec<u8>, v: u32) {
    if v < 100_000_000 {
        push_below_1e8(buf, v);
    } else {
        push_below_1e8(buf, v / 100_000_000);
        buf.extend_from_slice(&(digits8(v % 100_000_000) | ZEROS).to_le_bytes());
    }
}

/// Appends `v` in decimal, as `v.to_string()` writes it.
pub fn push_u64(buf: &mut Vec<u8>, v: u64) {
    match u32::try_from(v) {
        Ok(v) => push_u32(buf, v),
        Err(_) => {
            push_u64(buf, v / 100_000_000);
            buf.extend_from_slice(&(digits8((v % 100_000_000) as u32) | ZEROS).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn u32_text(v: u32) -> String {
        let mut buf = b"x".to_vec();
        push_u32(&mut buf, v);
        String::from_utf8(buf).unwrap()
    }

    fn u64_text(v: u64) -> String {
        let mut buf = b"x".to_vec();
        push_u64(&mut buf, v);
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn every_number_of_up_to_six_digits_and_every_power_of_ten_boundary() {
        for v in 0..1_000_000u32 {
            assert_eq!(u32_text(v), format!("x{v}"));
        }
        let mut p = 1u64;
        while let Some(next) = p.checked_mul(10) {
            for v in [p - 1, p, p + 1, 2 * p - 1, 9 * p, next - 1] {
                assert_eq!(u64_text(v), format!("x{v}"), "{v}");
                if let Ok(v) = u32::try_from(v) {
                    assert_eq!(u32_text(v), format!("x{v}"));
                }
            }
            p = next;
        }
        for v in [u32::MAX, u32::MAX - 1, 4_000_000_000] {
            assert_eq!(u32_text(v), format!("x{v}"));
        }
        for v in [u64::MAX, u64::MAX - 1, u32::MAX as u64 + 1, 10u64.pow(19), 12_345_678_900_000_000] {
            assert_eq!(u64_text(v), format!("x{v}"));
        }
    }

    proptest! {
        #[test]
        fn numbers_read_as_to_string_writes_them(v in any::<u32>(), w in any::<u64>(), digits in 1u32..20) {
            prop_assert_eq!(u32_text(v), format!("x{v}"));
            prop_assert_eq!(u64_text(w), format!("x{w}"));
            let short = w % 10u64.pow(digits.min(19));
            prop_assert_eq!(u64_text(short), format!("x{short}"));
        }
    }
}
