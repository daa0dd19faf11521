//! The id section of `.sgb` version 3: the original vertex ids of a graph whose reader
//! compacted them (`graph::VertexIds`), after the payload.
//!
//! | offset | field |
//! |---|---|
//! | 0 | kind (u64): 1 numbers, 2 names |
//! | 8 | data bytes L (u64) |
//! | 16 | XXH3-64 of bytes 0..16 and the data |
//! | 24 | data, zero-padded to a multiple of 8 |
//!
//! Numbers: one u64 per vertex (L = 8n). Names: n + 1 u64 offsets into the name bytes that
//! follow them (L = 8(n + 1) + total name bytes). Either strictly increasing.

use super::{padded, read_exact_at, Source};
use crate::error::Error;
use crate::graph::VertexIds;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Bytes before the section's data.
pub(super) const HEAD_LEN: u64 = 24;
const NUMBERS: u64 = 1;
const NAMES: u64 = 2;

fn checksum(head: &[u8], data: &[u8]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&head[..16]);
    h.update(data);
    h.digest()
}

/// The section for `ids`, padded.
pub(super) fn encode(ids: &VertexIds) -> Vec<u8> {
    let (kind, data): (u64, Vec<u8>) = match ids {
        VertexIds::Numbers(x) => (NUMBERS, x.iter().flat_map(|v| v.to_le_bytes()).collect()),
        VertexIds::Names { offsets, bytes } => {
            let mut d: Vec<u8> = offsets.iter().flat_map(|v| v.to_le_bytes()).collect();
            d.extend_from_slice(bytes);
            (NAMES, d)
        }
    };
    let mut out = Vec::with_capacity(HEAD_LEN as usize + data.len() + 8);
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let sum = checksum(&out, &data);
    out.extend_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(&data);
    out.resize(HEAD_LEN as usize + padded(data.len() as u64) as usize, 0);
    out
}

/// Writes the checksum of the section at the start of `section` for its bytes as they stand
/// ([`super::seal`]); a section shorter than its head is left as it is.
pub(super) fn seal(section: &mut [u8]) {
    if section.len() < HEAD_LEN as usize {
        return;
    }
    let data_len = u64::from_le_bytes(section[8..16].try_into().expect("8 bytes"));
    let rest = section.len() - HEAD_LEN as usize;
    let end = HEAD_LEN as usize + usize::try_from(data_len).unwrap_or(usize::MAX).min(rest);
    let sum = checksum(&section[..16], &section[HEAD_LEN as usize..end]);
    section[16..24].copy_from_slice(&sum.to_le_bytes());
}

/// Reads the section at `at` of a file of `len` bytes, for `n` vertices: it must end the file.
pub(super) fn decode<S: Source + ?Sized>(file: &Path, src: &S, at: u64, len: u64, n: u64) -> Result<VertexIds, Error> {
    let bad =
        |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg: format!("vertex id section: {msg}") };
    if at.checked_add(HEAD_LEN).is_none_or(|end| len < end) {
        return Err(bad(format!("truncated file: {len} bytes, the section starts at {at}")));
    }
    let mut head = [0u8; HEAD_LEN as usize];
    read_exact_at(file, src, &mut head, at)?;
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let (kind, data_len, sum) = (u64_at(0), u64_at(8), u64_at(16));
    let fixed = match kind {
        NUMBERS => n.checked_mul(8),
        NAMES => n.checked_add(1).and_then(|k| k.checked_mul(8)),
        k => return Err(bad(format!("unknown kind {k}"))),
    };
    let fits = match (kind, fixed) {
        (NUMBERS, Some(f)) => data_len == f,
        (_, Some(f)) => data_len >= f,
        _ => false,
    };
    if !fits {
        return Err(bad(format!("{data_len} bytes of data do not fit {n} vertices")));
    }
    // A length from the file: padded and added without overflow.
    let expected = data_len.checked_add(7).map(|l| l / 8 * 8).and_then(|l| (at + HEAD_LEN).checked_add(l));
    if expected != Some(len) {
        return Err(bad(format!(
            "the file has {len} bytes, the section implies {}",
            expected.map_or("more".into(), |e| e.to_string())
        )));
    }
    let mut data = vec![0u8; padded(data_len) as usize];
    read_exact_at(file, src, &mut data, at + HEAD_LEN)?;
    let (data, pad) = data.split_at(data_len as usize);
    if checksum(&head, data) != sum || pad.iter().any(|&b| b != 0) {
        return Err(bad("corrupt (checksum mismatch)".into()));
    }
    let words = |b: &[u8]| -> Vec<u64> {
        b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
    };
    let ids = if kind == NUMBERS {
        VertexIds::Numbers(words(data))
    } else {
        let split = fixed.expect("checked above") as usize;
        VertexIds::Names { offsets: words(&data[..split]), bytes: data[split..].to_vec() }
    };
    ids.check(n as usize).map_err(bad)?;
    Ok(ids)
}
