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
//!
//! Kind 4, a renumbered graph's (`graph::renumber`): the kind of the ids of the graph as read
//! (u64: 0 none, its vertex numbers; 1 numbers; 2 names), then `old` (one u32 per vertex: the
//! vertex of the graph as read, a permutation), zero-padded to a multiple of 8, then those ids'
//! data as kinds 1 and 2 have it.
//!
//! Version 4's label name sections (`graph::LabelNames`, vertex then edge) have the same head,
//! kind 3, and data: the number of names k (u64), k + 1 offsets, the name bytes; names
//! strictly increasing in byte order.

use super::format::{padded, read_exact_at, Source};
use crate::error::Error;
use crate::graph::VertexIds;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Bytes before the section's data.
pub(super) const HEAD_LEN: u64 = 24;
const NUMBERS: u64 = 1;
const NAMES: u64 = 2;
const LABEL_NAMES: u64 = 3;
const RENUMBERED: u64 = 4;

fn checksum(head: &[u8], data: &[u8]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&head[..16]);
    h.update(data);
    h.digest()
}

/// The section for `ids`, padded.
pub(super) fn encode(ids: &VertexIds) -> Vec<u8> {
    let (kind, data) = kind_and_data(ids);
    frame(kind, &data)
}

/// The kind and data of `ids`' section.
fn kind_and_data(ids: &VertexIds) -> (u64, Vec<u8>) {
    match ids {
        VertexIds::Numbers(x) => (NUMBERS, x.iter().flat_map(|v| v.to_le_bytes()).collect()),
        VertexIds::Names { offsets, bytes } => {
            let mut d: Vec<u8> = offsets.iter().flat_map(|v| v.to_le_bytes()).collect();
            d.extend_from_slice(bytes);
            (NAMES, d)
        }
        VertexIds::Renumbered { base, old, .. } => {
            let (base_kind, base_data) = base.as_deref().map_or((0, Vec::new()), kind_and_data);
            let mut d = base_kind.to_le_bytes().to_vec();
            old.iter().for_each(|o| d.extend_from_slice(&o.to_le_bytes()));
            d.resize(d.len().next_multiple_of(8), 0);
            d.extend_from_slice(&base_data);
            (RENUMBERED, d)
        }
    }
}

/// A label name section for `names`, padded.
pub(super) fn encode_names(names: &[String]) -> Vec<u8> {
    let mut data: Vec<u8> = (names.len() as u64).to_le_bytes().to_vec();
    let mut at = 0u64;
    data.extend_from_slice(&at.to_le_bytes());
    for n in names {
        at += n.len() as u64;
        data.extend_from_slice(&at.to_le_bytes());
    }
    names.iter().for_each(|n| data.extend_from_slice(n.as_bytes()));
    frame(LABEL_NAMES, &data)
}

/// A section of `kind` holding `data`: head, data, padding.
pub(super) fn frame(kind: u64, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD_LEN as usize + data.len() + 8);
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let sum = checksum(&out, data);
    out.extend_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(data);
    out.resize(HEAD_LEN as usize + padded(data.len() as u64) as usize, 0);
    out
}

/// Writes the checksum of the section at the start of `section` for its bytes as they stand
/// ([`super::seal`]) and returns the section's length as its head says (at most the bytes
/// there); a section shorter than its head is left as it is.
pub(super) fn seal(section: &mut [u8]) -> usize {
    if section.len() < HEAD_LEN as usize {
        return section.len();
    }
    let data_len = u64::from_le_bytes(section[8..16].try_into().expect("8 bytes"));
    let rest = section.len() - HEAD_LEN as usize;
    let end = HEAD_LEN as usize + usize::try_from(data_len).unwrap_or(usize::MAX).min(rest);
    let sum = checksum(&section[..16], &section[HEAD_LEN as usize..end]);
    section[16..24].copy_from_slice(&sum.to_le_bytes());
    (HEAD_LEN as usize + padded(end as u64 - HEAD_LEN) as usize).min(section.len())
}

/// Reads the section at `at` of a file of `len` bytes, for `n` vertices; returns the ids and
/// where the section ends.
pub(super) fn decode<S: Source + ?Sized>(
    file: &Path,
    src: &S,
    at: u64,
    len: u64,
    n: u64,
) -> Result<(VertexIds, u64), Error> {
    let bad =
        |msg: String| Error::Parse { file: file.to_path_buf(), line: 0, msg: format!("vertex id section: {msg}") };
    let (kind, data, end) = read_section(src, file, at, len, &bad, |kind, data_len| match kind {
        NUMBERS | NAMES => fits(kind, data_len, n),
        // The base's kind and `old`, then at least the base's data.
        RENUMBERED => match n.checked_mul(4).map(|b| 8 + padded(b)) {
            Some(head) if data_len >= head => Ok(()),
            _ => Err(format!("{data_len} bytes of data do not fit {n} vertices")),
        },
        k => Err(format!("unknown kind {k}")),
    })?;
    let ids = match kind {
        RENUMBERED => {
            let base_kind = u64::from_le_bytes(data[..8].try_into().expect("8 bytes"));
            let split = 8 + padded(4 * n) as usize;
            let old: Vec<u32> = data[8..8 + 4 * n as usize]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            let rest = &data[split..];
            let base = match base_kind {
                0 if rest.is_empty() => None,
                NUMBERS | NAMES => {
                    fits(base_kind, rest.len() as u64, n).map_err(&bad)?;
                    Some(std::sync::Arc::new(plain(base_kind, rest, n)))
                }
                k => {
                    return Err(bad(format!("a renumbering over ids of unknown kind {k}, or of {} bytes", rest.len())))
                }
            };
            // Whether `old` is a permutation is checked with the rest below.
            VertexIds::renumbering(base, old)
        }
        _ => plain(kind, &data, n),
    };
    ids.check(n as usize).map_err(bad)?;
    Ok((ids, end))
}

/// Whether `data_len` bytes of data fit ids of `kind` (numbers or names) for `n` vertices.
fn fits(kind: u64, data_len: u64, n: u64) -> Result<(), String> {
    let fixed = match kind {
        NUMBERS => n.checked_mul(8),
        _ => n.checked_add(1).and_then(|k| k.checked_mul(8)),
    };
    match (kind, fixed) {
        (NUMBERS, Some(f)) if data_len == f => Ok(()),
        (NAMES, Some(f)) if data_len >= f => Ok(()),
        _ => Err(format!("{data_len} bytes of data do not fit {n} vertices")),
    }
}

/// Numbers or names (`kind`) from data that [`fits`].
fn plain(kind: u64, data: &[u8], n: u64) -> VertexIds {
    if kind == NUMBERS {
        VertexIds::Numbers(words(data))
    } else {
        let split = 8 * (n as usize + 1);
        VertexIds::Names { offsets: words(&data[..split]), bytes: data[split..].to_vec() }
    }
}

/// Reads the label name section at `at` of a file of `len` bytes (`what`: "vertex" or
/// "edge"); returns the names and where the section ends.
pub(super) fn decode_names<S: Source + ?Sized>(
    file: &Path,
    src: &S,
    at: u64,
    len: u64,
    what: &str,
) -> Result<(Vec<String>, u64), Error> {
    let bad = |msg: String| Error::Parse {
        file: file.to_path_buf(),
        line: 0,
        msg: format!("{what} label name section: {msg}"),
    };
    let (_, data, end) = read_section(src, file, at, len, &bad, |kind, data_len| match kind {
        LABEL_NAMES if data_len >= 16 => Ok(()),
        LABEL_NAMES => Err(format!("{data_len} bytes of data are too few")),
        k => Err(format!("unknown kind {k}")),
    })?;
    let k = u64::from_le_bytes(data[..8].try_into().expect("8 bytes"));
    let split = k.checked_add(2).and_then(|w| w.checked_mul(8)).filter(|&s| s <= data.len() as u64);
    let Some(split) = split else {
        return Err(bad(format!("{k} names do not fit {} bytes of data", data.len())));
    };
    let ids = VertexIds::Names { offsets: words(&data[8..split as usize]), bytes: data[split as usize..].to_vec() };
    ids.check(k as usize).map_err(|m| bad(m.replace("vertex ", "")))?;
    let names = (0..k as u32).map(|i| ids.get(i).to_string()).collect();
    Ok((names, end))
}

fn words(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

/// Reads one section's head and data: its kind and data length accepted by `fits`, inside the
/// file, checksum and zero padding right. Returns the kind, the data and the section's end.
pub(super) fn read_section<S: Source + ?Sized>(
    src: &S,
    file: &Path,
    at: u64,
    len: u64,
    bad: &dyn Fn(String) -> Error,
    fits: impl Fn(u64, u64) -> Result<(), String>,
) -> Result<(u64, Vec<u8>, u64), Error> {
    if at.checked_add(HEAD_LEN).is_none_or(|end| len < end) {
        return Err(bad(format!("truncated file: {len} bytes, the section starts at {at}")));
    }
    let mut head = [0u8; HEAD_LEN as usize];
    read_exact_at(file, src, &mut head, at)?;
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let (kind, data_len, sum) = (u64_at(0), u64_at(8), u64_at(16));
    fits(kind, data_len).map_err(bad)?;
    // A length from the file: padded and added without overflow, inside the file before
    // anything is allocated for it.
    let end = data_len.checked_add(7).map(|l| l / 8 * 8).and_then(|l| (at + HEAD_LEN).checked_add(l));
    let Some(end) = end.filter(|&e| e <= len) else {
        return Err(bad(format!(
            "the file has {len} bytes, the section implies {}",
            end.map_or("more".into(), |e| e.to_string())
        )));
    };
    let mut data = vec![0u8; padded(data_len) as usize];
    read_exact_at(file, src, &mut data, at + HEAD_LEN)?;
    if checksum(&head, &data[..data_len as usize]) != sum || data[data_len as usize..].iter().any(|&b| b != 0) {
        return Err(bad("corrupt (checksum mismatch)".into()));
    }
    data.truncate(data_len as usize);
    Ok((kind, data, end))
}
