//! Writing a graph as `.sgb` (the newest version its contents need), and sealing a file's
//! checksums in place ([`seal`], for tools and the fuzzer).

use super::format::{
    of_chunk_sums, padded, Counts, CHUNK, FLAG_DIRECTED, FLAG_IDS, FLAG_NAMES, FLAG_PROPS, FLAG_SETS, HEADER_LEN,
    HEADER_SUM_AT, MAGIC, VERSION, VERSION_1, VERSION_2, VERSION_3, VERSION_4,
};
use super::{ids, props, sets};
use crate::graph::{Adjacency, Graph};
use std::borrow::Cow;
use std::io::Write;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// An array of the payload in file order.
enum Section<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl Section<'_> {
    /// The array's bytes, little-endian.
    fn bytes(&self) -> Cow<'_, [u8]> {
        match (self, cfg!(target_endian = "little")) {
            (Section::U32(v), true) => Cow::Borrowed(bytemuck::cast_slice(v)),
            (Section::U64(v), true) => Cow::Borrowed(bytemuck::cast_slice(v)),
            (Section::U32(v), false) => Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            (Section::U64(v), false) => Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        }
    }
}

fn sections<'a>(g: &'a Graph, pairs: &'a [u32]) -> Vec<Section<'a>> {
    let adj = |a: &'a Adjacency| {
        [
            Section::U64(&a.offsets),
            Section::U32(&a.nbrs),
            Section::U64(&a.group_offsets),
            Section::U32(&a.group_pair),
            Section::U32(&a.group_end),
        ]
    };
    let mut s = vec![Section::U32(&g.labels)];
    s.extend(adj(&g.out));
    if let Some(inc) = &g.inc {
        s.extend(adj(inc));
    }
    s.extend([
        Section::U32(pairs),
        Section::U32(&g.vlabel_values),
        Section::U64(&g.vlabel_offsets),
        Section::U32(&g.vlabel_vertices),
        Section::U32(&g.elabel_values),
    ]);
    s
}

/// The version 2 payload checksum, fed the payload in order.
struct ChunkSums {
    chunk: Xxh3,
    filled: usize,
    sums: Vec<u64>,
}

impl ChunkSums {
    fn new() -> ChunkSums {
        ChunkSums { chunk: Xxh3::new(), filled: 0, sums: Vec::new() }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let k = (CHUNK - self.filled).min(bytes.len());
            self.chunk.update(&bytes[..k]);
            self.filled += k;
            bytes = &bytes[k..];
            if self.filled == CHUNK {
                self.sums.push(self.chunk.digest());
                self.chunk.reset();
                self.filled = 0;
            }
        }
    }

    fn digest(mut self) -> u64 {
        if self.filled > 0 {
            self.sums.push(self.chunk.digest());
        }
        of_chunk_sums(&self.sums)
    }
}

/// Writes `g` in the binary format: version [`VERSION`] when it has label sets or self loops,
/// [`VERSION_4`] when it has label names or properties, [`VERSION_3`] when it has original ids,
/// else [`VERSION_2`].
pub fn write<W: Write>(g: &Graph, mut w: W) -> std::io::Result<()> {
    let counts = Counts::of(g);
    let pairs: Vec<u32> = g.pairs.iter().flat_map(|&(e, v)| [e, v]).collect();
    let sections = sections(g, &pairs);
    let zeros = [0u8; 8];
    let mut sums = ChunkSums::new();
    let mut payload_len = 0u64;
    for s in &sections {
        let b = s.bytes();
        let pad = padded(b.len() as u64) as usize - b.len();
        sums.update(&b);
        sums.update(&zeros[..pad]);
        payload_len += (b.len() + pad) as u64;
    }
    let mut head = Vec::with_capacity(HEADER_LEN);
    head.extend_from_slice(&MAGIC);
    let has_sets = g.label_sets.is_some() || !g.loops.is_empty();
    let version = match (has_sets, g.label_names.is_some() || g.properties.is_some(), &g.ids) {
        (true, _, _) => VERSION,
        (false, true, _) => VERSION_4,
        (false, false, Some(_)) => VERSION_3,
        (false, false, None) => VERSION_2,
    };
    let flags = if counts.directed { FLAG_DIRECTED } else { 0 }
        | if g.ids.is_some() { FLAG_IDS } else { 0 }
        | if g.label_names.is_some() { FLAG_NAMES } else { 0 }
        | if g.properties.is_some() { FLAG_PROPS } else { 0 }
        | if has_sets { FLAG_SETS } else { 0 };
    head.extend_from_slice(&version.to_le_bytes());
    head.extend_from_slice(&flags.to_le_bytes());
    for x in [
        counts.vertices,
        counts.edges,
        counts.out_entries,
        counts.out_groups,
        counts.in_entries,
        counts.in_groups,
        counts.pairs,
        counts.vertex_labels,
        counts.edge_labels,
        payload_len,
        sums.digest(),
    ] {
        head.extend_from_slice(&x.to_le_bytes());
    }
    let sum = xxh3_64(&head);
    head.extend_from_slice(&sum.to_le_bytes());
    debug_assert_eq!(head.len(), HEADER_LEN);
    w.write_all(&head)?;
    for s in &sections {
        let b = s.bytes();
        w.write_all(&b)?;
        w.write_all(&zeros[..padded(b.len() as u64) as usize - b.len()])?;
    }
    if let Some(v) = &g.ids {
        w.write_all(&ids::encode(v))?;
    }
    if let Some(names) = &g.label_names {
        w.write_all(&ids::encode_names(&names.vertex))?;
        w.write_all(&ids::encode_names(&names.edge))?;
    }
    if let Some(p) = &g.properties {
        w.write_all(&props::encode(p))?;
    }
    if has_sets {
        w.write_all(&sets::encode(&g.loops, g.label_sets.as_deref()))?;
    }
    w.flush()
}

/// Writes both checksums of the binary graph in `data` for its bytes as they stand: the payload
/// checksum the header's format version calls for, then the header checksum. For tools and
/// tests that edit a file's fields in place (the fuzzer forges files past the checksums with
/// it, so that validation alone must reject the damage): the payload as long as the header
/// says (or the file allows), and the id, label name, property and label set sections after it
/// that its flags announce; data shorter than the header is left as it is.
pub fn seal(data: &mut [u8]) {
    if data.len() < HEADER_LEN {
        return;
    }
    let word = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes"));
    let payload_len = usize::try_from(word(88)).unwrap_or(usize::MAX).min(data.len() - HEADER_LEN);
    let end = HEADER_LEN + payload_len;
    let payload = &data[HEADER_LEN..end];
    let sum = if data[8..12] == VERSION_1.to_le_bytes() {
        xxh3_64(payload)
    } else {
        let mut sums = ChunkSums::new();
        sums.update(payload);
        sums.digest()
    };
    data[96..HEADER_SUM_AT].copy_from_slice(&sum.to_le_bytes());
    let head = xxh3_64(&data[..HEADER_SUM_AT]);
    data[HEADER_SUM_AT..HEADER_LEN].copy_from_slice(&head.to_le_bytes());
    let version = u32::from_le_bytes(data[8..12].try_into().expect("4"));
    let flags = if version >= VERSION_3 { u32::from_le_bytes(data[12..16].try_into().expect("4")) } else { 0 };
    let mut at = end;
    let sections = usize::from(flags & FLAG_IDS != 0)
        + if flags & FLAG_NAMES != 0 { 2 } else { 0 }
        + usize::from(flags & FLAG_PROPS != 0)
        + usize::from(flags & FLAG_SETS != 0);
    for _ in 0..sections {
        at += ids::seal(&mut data[at..]);
    }
}
