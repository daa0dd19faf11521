//! The vertex property section of `.sgb` version 4 (flag bit 3), after the label name
//! sections: the head of [`super::ids`] with kind 4, and data of u64 words (little-endian),
//! every byte run zero-padded to a multiple of 8:
//!
//! | field | |
//! |---|---|
//! | columns c | then per column: |
//! | name bytes L, type (1 integer, 2 float, 3 string) | the name (L bytes, padded) |
//! | integer / float | n values (i64 / f64 bits), then n presence bytes (0 or 1, padded) |
//! | string | dictionary size d, d + 1 offsets, the names' bytes (padded), n u32 codes (padded; `u32::MAX` for none) |
//!
//! n is the graph's vertex count; a dictionary is strictly increasing and codes are below d.

use super::format::Source;
use super::ids::{frame, read_section};
use crate::error::Error;
use crate::graph::{Column, Properties, Values, VertexIds};
use std::path::Path;

const KIND: u64 = 4;
const INT: u64 = 1;
const FLOAT: u64 = 2;
const STR: u64 = 3;

fn pad(out: &mut Vec<u8>) {
    out.resize(out.len().div_ceil(8) * 8, 0);
}

fn word(out: &mut Vec<u8>, x: u64) {
    out.extend_from_slice(&x.to_le_bytes());
}

/// The section for `p`, padded; a sparse column is written with an entry for every vertex.
pub(super) fn encode(p: &Properties) -> Vec<u8> {
    let mut d = Vec::new();
    word(&mut d, p.columns().len() as u64);
    for c in p.columns() {
        let values = c.values.dense();
        word(&mut d, c.name.len() as u64);
        let kind = match *values {
            Values::Int { .. } => INT,
            Values::Float { .. } => FLOAT,
            Values::Str { .. } => STR,
            Values::Sparse { .. } => unreachable!("spread out by dense()"),
        };
        word(&mut d, kind);
        d.extend_from_slice(c.name.as_bytes());
        pad(&mut d);
        match &*values {
            Values::Int { values, present } => {
                values.iter().for_each(|&x| word(&mut d, x as u64));
                d.extend(present.iter().map(|&b| b as u8));
            }
            Values::Float { values, present } => {
                values.iter().for_each(|&x| word(&mut d, x.to_bits()));
                d.extend(present.iter().map(|&b| b as u8));
            }
            Values::Str { codes, dictionary } => {
                word(&mut d, dictionary.len() as u64);
                let mut at = 0u64;
                word(&mut d, 0);
                for s in dictionary {
                    at += s.len() as u64;
                    word(&mut d, at);
                }
                dictionary.iter().for_each(|s| d.extend_from_slice(s.as_bytes()));
                pad(&mut d);
                codes.iter().for_each(|&x| d.extend_from_slice(&x.to_le_bytes()));
            }
            Values::Sparse { .. } => unreachable!("spread out by dense()"),
        }
        pad(&mut d);
    }
    frame(KIND, &d)
}

/// A cursor over the section's data that fails, rather than panics, past its end.
pub(super) struct Cursor<'a> {
    pub(super) data: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn bytes(&mut self, len: u64) -> Result<&'a [u8], String> {
        let len = usize::try_from(len).map_err(|_| "a length beyond the data".to_string())?;
        let end = self.at.checked_add(len).filter(|&e| e <= self.data.len()).ok_or("a length beyond the data")?;
        let out = &self.data[self.at..end];
        self.at = end.div_ceil(8) * 8;
        Ok(out)
    }

    pub(super) fn word(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().expect("8 bytes")))
    }

    pub(super) fn words(&mut self, n: u64) -> Result<Vec<u64>, String> {
        let b = self.bytes(n.checked_mul(8).ok_or("a length beyond the data")?)?;
        Ok(b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
    }

    /// `n` u32 values, then padding to a multiple of 8 bytes.
    pub(super) fn u32s(&mut self, n: u64) -> Result<Vec<u32>, String> {
        let b = self.bytes(n.checked_mul(4).ok_or("a length beyond the data")?)?;
        Ok(b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
    }

    fn presence(&mut self, n: u64) -> Result<Vec<bool>, String> {
        self.bytes(n)?.iter().map(|&b| if b <= 1 { Ok(b == 1) } else { Err(format!("presence byte {b}")) }).collect()
    }
}

/// Reads the section at `at` of a file of `len` bytes, for `n` vertices; returns the
/// properties and where the section ends.
pub(super) fn decode<S: Source + ?Sized>(
    file: &Path,
    src: &S,
    at: u64,
    len: u64,
    n: u64,
) -> Result<(Properties, u64), Error> {
    let bad = |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg: format!("property section: {msg}") };
    let (_, data, end) = read_section(src, file, at, len, &bad, |kind, data_len| match kind {
        KIND if data_len >= 8 => Ok(()),
        KIND => Err(format!("{data_len} bytes of data are too few")),
        k => Err(format!("unknown kind {k}")),
    })?;
    let props = parse(&data, n).map_err(bad)?;
    Ok((props, end))
}

fn parse(data: &[u8], n: u64) -> Result<Properties, String> {
    let mut c = Cursor { data, at: 0 };
    let count = c.word()?;
    let mut columns = Vec::new();
    for _ in 0..count {
        let name_len = c.word()?;
        let kind = c.word()?;
        let name = std::str::from_utf8(c.bytes(name_len)?).map_err(|_| "a column name is not UTF-8")?.to_string();
        let values = match kind {
            INT => Values::Int { values: c.words(n)?.into_iter().map(|x| x as i64).collect(), present: c.presence(n)? },
            FLOAT => {
                Values::Float { values: c.words(n)?.into_iter().map(f64::from_bits).collect(), present: c.presence(n)? }
            }
            STR => {
                let d = c.word()?;
                let offsets = c.words(d.checked_add(1).ok_or("a dictionary too large")?)?;
                let total = *offsets.last().expect("d + 1 offsets");
                let names = VertexIds::Names { offsets, bytes: c.bytes(total)?.to_vec() };
                names
                    .check(d as usize)
                    .map_err(|m| format!("column '{name}' dictionary: {}", m.replace("vertex ", "")))?;
                let dictionary: Vec<String> = (0..d as u32).map(|i| names.get(i).to_string()).collect();
                let codes = c.u32s(n)?;
                if let Some(&x) = codes.iter().find(|&&x| x != u32::MAX && x as u64 >= d) {
                    return Err(format!("column '{name}' has code {x} of a dictionary of {d}"));
                }
                Values::Str { codes, dictionary }
            }
            k => return Err(format!("column '{name}' has unknown type {k}")),
        };
        if let Values::Float { values, .. } = &values {
            if values.iter().any(|x| !x.is_finite()) {
                return Err(format!("column '{name}' holds a value that is not finite"));
            }
        }
        columns.push(Column { name, values });
    }
    if c.at < data.len() {
        return Err("bytes after the last column".into());
    }
    Ok(Properties::new(columns))
}
