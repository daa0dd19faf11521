//! The `.sgb` binary graph format: a versioned, checksummed header followed by the
//! [`Graph`](crate::graph::Graph)'s own arrays, little-endian and 8-byte aligned, so that
//! loading is reading the arrays straight into their vectors plus validation (the
//! load-the-CSR-as-is approach of GSI's and Sun & Luo's preprocessed inputs, here with a
//! checksum and a full structural check).
//!
//! Layout (every integer little-endian):
//!
//! | offset | field |
//! |---|---|
//! | 0 | magic `\x89SGB\r\n\x1a\n` |
//! | 8 | format version (u32), flags (u32; bit 0: directed) |
//! | 16 | vertices, edges, out entries, out groups, in entries, in groups, pairs, vertex labels, edge labels, payload bytes (u64 each) |
//! | 96 | payload checksum, XXH3-64 of header bytes 0..104 |
//! | 112 | payload |
//!
//! The payload holds, each array padded with zero bytes to a multiple of 8: vertex labels (u32),
//! out offsets (u64), out neighbours (u32), out group offsets (u64), out group pairs (u32), out
//! group ends (u32), the same five for in-adjacency when directed, the pairs as (edge label,
//! vertex label) u32 pairs, vertex label values (u32), vertex label offsets (u64), vertices by
//! label (u32), edge label values (u32).
//!
//! The payload checksum of version 2 is the XXH3-64 of the XXH3-64s (u64 each) of the payload's
//! 1 MiB chunks, the last one shorter, so that a loader reads and hashes the chunks in parallel.
//! Version 1, which is still read, has the XXH3-64 of the whole payload there; nothing else
//! differs.
//!
//! Version 3 adds flag bit 1: the payload is followed by the vertex id section of `ids` (the
//! file's original ids, when its reader compacted them). Graphs without such ids are written
//! as version 2, which older builds read.
//!
//! Version 4 adds flag bit 2: after the payload (and the id section, if any) come two label
//! name sections of `ids`, vertex then edge (an empty list where that kind of label is a
//! number), and with flag bit 3 the vertex property section of `props`. Graphs with neither
//! are written as version 3 or 2.
//!
//! Version 5 adds flag bit 4: last comes the label set section of `sets`: the graph's self
//! loops, and the sets behind the labels of vertices with several labels and of pairs with
//! several edges (`graph::sets`). Graphs with neither are written as version 4, 3 or 2, byte
//! for byte as before.
//!
//! The code: `format` holds what both directions share (header constants and counts, padding,
//! checksums, reads at offsets); `write` writes and seals; `read` reads or maps and checks the
//! checksums; `validate` checks the structure; `ids`, `props` and `sets` are the sections after
//! the payload.

mod format;
mod ids;
mod props;
mod read;
mod sets;
#[cfg(test)]
mod tests;
mod validate;
mod write;

pub use format::{has_magic, Source, HEADER_LEN, MAGIC, VERSION, VERSION_2, VERSION_3, VERSION_4};
pub use read::{decode, read, MapMode};
pub use write::{seal, write};
