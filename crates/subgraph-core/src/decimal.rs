//! Unsigned integers appended as decimal text, eight digits at a time: the digits of a number
//! below 10^8 are computed together in the byte lanes of one u64 (SWAR division by constants),
//! stored in one 8-byte write, and the leading zeros cut off. [`Columns`] writes rows of them
//! (the text formats' rows of vertex numbers, `sink`), keeping each column's digits while its
//! number repeats from row to row, as a join's rows do. On the H200 host the GPU's text rows of
//! 12 columns went from 7.8·10^7 to 1.3–1.4·10^8 a second, CSV twice as fast
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

/// `v` (below 10^8) in decimal without leading zeros (0 is "0"): the ASCII digits in the low
/// bytes of a u64 (little-endian), and how many there are.
fn short_digits(v: u32) -> (u64, usize) {
    let digits = digits8(v);
    // Leading zeros are the zero bytes at the low end; 0 keeps its last digit.
    let zeros = if v == 0 { 7 } else { digits.trailing_zeros() as usize / 8 };
    ((digits | ZEROS) >> (8 * zeros), 8 - zeros)
}

/// The eight ASCII digits of `v` (below 10^8), leading zeros included.
fn full_digits(v: u32) -> [u8; 8] {
    (digits8(v) | ZEROS).to_le_bytes()
}

/// Appends `v` (below 10^8) in decimal, without leading zeros: all eight bytes, then cut.
fn push_below_1e8(buf: &mut Vec<u8>, v: u32) {
    let (digits, len) = short_digits(v);
    buf.extend_from_slice(&digits.to_le_bytes());
    buf.truncate(buf.len() - 8 + len);
}

/// Appends `v` in decimal, as `v.to_string()` writes it.
pub fn push_u32(buf: &mut Vec<u8>, v: u32) {
    if v < 100_000_000 {
        push_below_1e8(buf, v);
    } else {
        push_below_1e8(buf, v / 100_000_000);
        buf.extend_from_slice(&full_digits(v % 100_000_000));
    }
}

/// Appends `v` in decimal, as `v.to_string()` writes it.
pub fn push_u64(buf: &mut Vec<u8>, v: u64) {
    match u32::try_from(v) {
        Ok(v) => push_u32(buf, v),
        Err(_) => {
            push_u64(buf, v / 100_000_000);
            buf.extend_from_slice(&full_digits((v % 100_000_000) as u32));
        }
    }
}

/// Writes `v` in decimal at the start of `out` and returns its length.
fn put_u32(out: &mut [u8; 16], v: u32) -> usize {
    if v < 100_000_000 {
        let (digits, len) = short_digits(v);
        out[..8].copy_from_slice(&digits.to_le_bytes());
        len
    } else {
        let high = put_u32(out, v / 100_000_000);
        out[high..high + 8].copy_from_slice(&full_digits(v % 100_000_000));
        high + 8
    }
}

/// Rows of numbers written as text, each column's digits kept from the row before where its
/// number is the same: a join's consecutive rows share their first columns (the children of
/// one partial match), and rows expanded by automorphisms are the same numbers reordered.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    /// Each column's last number, its digits and then `sep`, and their length.
    numbers: Vec<u32>,
    texts: Vec<[u8; 16]>,
    lens: Vec<u8>,
    sep: u8,
}

impl Columns {
    /// Appends `row[c]` for each `c` of `columns`, in decimal, separated by `sep` and ended by
    /// a newline (nothing but the newline for no columns).
    pub fn push_row(&mut self, row: &[u32], columns: &[usize], sep: u8, buf: &mut Vec<u8>) {
        if self.numbers.len() != row.len() || self.sep != sep {
            self.sep = sep;
            self.numbers = row.iter().map(|&v| !v).collect();
            self.texts = vec![[0; 16]; row.len()];
            self.lens = vec![0; row.len()];
        }
        for (c, &v) in row.iter().enumerate() {
            if self.numbers[c] != v {
                let text = &mut self.texts[c];
                let len = put_u32(text, v);
                text[len] = sep;
                self.numbers[c] = v;
                self.lens[c] = len as u8 + 1;
            }
        }
        // Each text copied whole (one 16-byte move), then cut to its length.
        for &c in columns {
            buf.extend_from_slice(&self.texts[c]);
            buf.truncate(buf.len() - 16 + self.lens[c] as usize);
        }
        if !columns.is_empty() {
            buf.pop();
        }
        buf.push(b'\n');
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

    /// `row[c]` for `c` of `columns`, joined by `sep`, and a newline.
    fn joined(row: &[u32], columns: &[usize], sep: char) -> String {
        let words: Vec<String> = columns.iter().map(|&c| row[c].to_string()).collect();
        format!("{}\n", words.join(&sep.to_string()))
    }

    #[test]
    fn rows_of_no_columns_are_newlines() {
        let mut buf = Vec::new();
        Columns::default().push_row(&[], &[], b' ', &mut buf);
        Columns::default().push_row(&[5], &[], b' ', &mut buf);
        assert_eq!(buf, b"\n\n");
    }

    proptest! {
        #[test]
        fn rows_read_as_the_numbers_joined(
            rows in proptest::collection::vec(proptest::collection::vec(prop_oneof![0u32..3, any::<u32>()], 3), 1..40),
            columns in proptest::collection::vec(0usize..3, 0..6),
            sep in prop_oneof![Just(b' '), Just(b',')],
        ) {
            // Few distinct numbers, so that columns repeat from row to row, and now and then
            // the negation of the last one (the cache's initial value), and a row of another
            // width in between.
            let mut columns_text = Columns::default();
            let (mut buf, mut want) = (Vec::new(), String::new());
            for (i, row) in rows.iter().enumerate() {
                columns_text.push_row(row, &columns, sep, &mut buf);
                want += &joined(row, &columns, sep as char);
                if i == 2 {
                    let wide = [!row[0], row[1], row[2], 7];
                    columns_text.push_row(&wide, &[3, 0, 3], sep, &mut buf);
                    want += &joined(&wide, &[3, 0, 3], sep as char);
                }
            }
            // The same numbers again with the other separator.
            let (last, other) = (rows.last().unwrap(), if sep == b' ' { b',' } else { b' ' });
            columns_text.push_row(last, &columns, other, &mut buf);
            want += &joined(last, &columns, other as char);
            prop_assert_eq!(String::from_utf8(buf).unwrap(), want);
        }

        #[test]
        fn numbers_read_as_to_string_writes_them(v in any::<u32>(), w in any::<u64>(), digits in 1u32..20) {
            prop_assert_eq!(u32_text(v), format!("x{v}"));
            prop_assert_eq!(u64_text(w), format!("x{w}"));
            let short = w % 10u64.pow(digits.min(19));
            prop_assert_eq!(u64_text(short), format!("x{short}"));
            let mut text = [0u8; 16];
            let len = put_u32(&mut text, v);
            prop_assert_eq!(String::from_utf8_lossy(&text[..len]), v.to_string());
        }
    }
}
