//! The index file (`.sgi`): one versioned, checksummed little-endian file holding everything an
//! index needs, read back by validating every part before anything is trusted.
//!
//! Layout (version 1): the magic `SGANNIDX`; the version (u32); metric, graph kind, pruning and
//! whether labels follow (one byte each); the dimension (u32); the vectors (u64); `d_min`,
//! `d_max`, `ef_construction`, `iterations` (u32 each) and the seed (u64); the layers (u32),
//! each with its degree (u32) and vertices (u64); then the prepared vectors in internal order
//! (f32), the caller's id of each internal id (u32), each layer's adjacency (u32, `NONE` as
//! `u32::MAX`), the labels (u32) where present; last the XXH3-64 of every byte before it (u64).
//! The file's length is checked against the header before anything is allocated.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use crate::cpu::{BuildParams, Prune, MAX_DEGREE};
use crate::error::{AnnError, Result};
use crate::graph::{GraphKind, Layer, ProximityGraph};
use crate::index::Index;
use crate::vectors::{Metric, Vectors, MAX_DIM};

const MAGIC: &[u8; 8] = b"SGANNIDX";
/// The version this code writes and reads.
pub const VERSION: u32 = 1;
/// The most layers a file may declare.
const MAX_LAYERS: usize = 64;

/// Bytes written, hashed on the way.
struct Hashed<W> {
    inner: W,
    hash: Xxh3,
}

impl<W: Write> Hashed<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)
    }

    fn words(&mut self, words: impl Iterator<Item = [u8; 4]>) -> std::io::Result<()> {
        let mut buffer = Vec::with_capacity(1 << 16);
        for w in words {
            buffer.extend_from_slice(&w);
            if buffer.len() >= 1 << 16 {
                self.put(&buffer)?;
                buffer.clear();
            }
        }
        self.put(&buffer)
    }
}

/// Writes `index` to `path`.
pub fn save(index: &Index, path: &Path) -> Result<()> {
    let io = |e| AnnError::io(path, e);
    let file = File::create(path).map_err(io)?;
    let mut out = Hashed { inner: BufWriter::new(file), hash: Xxh3::new() };
    let p = &index.params;
    let mut header = Vec::new();
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.push(Metric::ALL.iter().position(|m| *m == index.metric).expect("a metric") as u8);
    header.push(GraphKind::ALL.iter().position(|k| *k == index.graph.kind).expect("a kind") as u8);
    header.push(matches!(p.prune, Prune::Diverse) as u8);
    header.push(index.labels.is_some() as u8);
    header.extend_from_slice(&(index.dim() as u32).to_le_bytes());
    header.extend_from_slice(&(index.len() as u64).to_le_bytes());
    for v in [p.d_min, p.d_max, p.ef_construction, p.iterations] {
        header.extend_from_slice(&(v as u32).to_le_bytes());
    }
    header.extend_from_slice(&p.seed.to_le_bytes());
    header.extend_from_slice(&(index.graph.layers.len() as u32).to_le_bytes());
    for layer in &index.graph.layers {
        header.extend_from_slice(&(layer.degree as u32).to_le_bytes());
        header.extend_from_slice(&(layer.len() as u64).to_le_bytes());
    }
    out.put(&header).map_err(io)?;
    out.words(index.vectors.as_slice().iter().map(|v| v.to_le_bytes())).map_err(io)?;
    out.words(index.order.iter().map(|v| v.to_le_bytes())).map_err(io)?;
    for layer in &index.graph.layers {
        out.words(layer.adjacency.iter().map(|v| v.to_le_bytes())).map_err(io)?;
    }
    if let Some(labels) = &index.labels {
        out.words(labels.iter().map(|v| v.to_le_bytes())).map_err(io)?;
    }
    let digest = out.hash.digest();
    out.inner.write_all(&digest.to_le_bytes()).map_err(io)?;
    out.inner.flush().map_err(io)
}

/// Bytes read, hashed on the way, with what a short read means in the message.
struct Source<R> {
    inner: R,
    hash: Xxh3,
}

impl<R: Read> Source<R> {
    fn take(&mut self, buffer: &mut [u8]) -> std::io::Result<()> {
        self.inner.read_exact(buffer)?;
        self.hash.update(buffer);
        Ok(())
    }

    fn u8(&mut self) -> std::io::Result<u8> {
        let mut b = [0u8; 1];
        self.take(&mut b)?;
        Ok(b[0])
    }

    fn u32(&mut self) -> std::io::Result<u32> {
        let mut b = [0u8; 4];
        self.take(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        self.take(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// `count` little-endian words.
    fn words(&mut self, count: usize) -> std::io::Result<Vec<u32>> {
        let mut out = Vec::with_capacity(count);
        let mut buffer = vec![0u8; 1 << 16];
        let mut left = count;
        while left > 0 {
            let take = left.min(buffer.len() / 4);
            self.take(&mut buffer[..take * 4])?;
            out.extend(buffer[..take * 4].chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
            left -= take;
        }
        Ok(out)
    }
}

/// Reads and validates an index written by [`save`].
pub fn load(path: &Path) -> Result<Index> {
    let file = File::open(path).map_err(|e| AnnError::io(path, e))?;
    let length = file.metadata().map_err(|e| AnnError::io(path, e))?.len();
    let bad = |message: String| AnnError::file(path, message);
    let short = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => AnnError::file(path, "truncated: the file ends inside the index"),
        _ => AnnError::io(path, e),
    };
    let mut src = Source { inner: BufReader::new(file), hash: Xxh3::new() };
    let mut magic = [0u8; 8];
    src.take(&mut magic).map_err(short)?;
    if &magic != MAGIC {
        return Err(bad("not a subgraph vector index (no SGANNIDX magic)".into()));
    }
    let version = src.u32().map_err(short)?;
    if version != VERSION {
        return Err(bad(format!("index version {version}; this build reads version {VERSION}")));
    }
    let code = |c: u8, names: &[&str], what: &str| -> Result<usize> {
        if (c as usize) < names.len() {
            Ok(c as usize)
        } else {
            Err(AnnError::file(path, format!("unknown {what} code {c}")))
        }
    };
    let metric = Metric::ALL[code(src.u8().map_err(short)?, &["l2", "ip", "cos"], "metric")?];
    let kind = GraphKind::ALL[code(src.u8().map_err(short)?, &["nsw", "hnsw", "knn"], "graph")?];
    let prune = [Prune::Nearest, Prune::Diverse][code(src.u8().map_err(short)?, &["nearest", "diverse"], "pruning")?];
    let has_labels = code(src.u8().map_err(short)?, &["no", "yes"], "labels flag")? == 1;
    let dim = src.u32().map_err(short)? as usize;
    let n = src.u64().map_err(short)?;
    if dim == 0 || dim > MAX_DIM {
        return Err(bad(format!("dimension {dim}: must be 1 to {MAX_DIM}")));
    }
    if n == 0 || n >= u32::MAX as u64 {
        return Err(bad(format!("{n} vectors: must be 1 to {}", u32::MAX - 1)));
    }
    let n = n as usize;
    let mut numbers = [0usize; 4];
    for v in &mut numbers {
        *v = src.u32().map_err(short)? as usize;
    }
    let [d_min, d_max, ef_construction, iterations] = numbers;
    let seed = src.u64().map_err(short)?;
    let params = BuildParams { kind, d_min, d_max, ef_construction, iterations, seed, prune };
    params.check().map_err(|e| bad(e.to_string()))?;
    let layers = src.u32().map_err(short)? as usize;
    if layers == 0 || layers > MAX_LAYERS {
        return Err(bad(format!("{layers} layers: must be 1 to {MAX_LAYERS}")));
    }
    let mut shapes = Vec::with_capacity(layers);
    for l in 0..layers {
        let degree = src.u32().map_err(short)? as usize;
        let len = src.u64().map_err(short)?;
        let below = if l == 0 { n as u64 } else { shapes.last().map_or(0, |&(_, len)| len as u64) };
        if degree == 0 || degree > MAX_DEGREE || len > below || (l == 0 && len != n as u64) {
            return Err(bad(format!("layer {l}: degree {degree} and {len} vertices do not fit the index")));
        }
        shapes.push((degree, len as usize));
    }
    // Every section's size, checked against the file before anything is allocated.
    let header = 8 + 4 + 4 + 4 + 8 + 16 + 8 + 4 + 12 * layers as u64;
    let words = n as u64 * dim as u64
        + n as u64
        + shapes.iter().map(|&(d, len)| d as u64 * len as u64).sum::<u64>()
        + if has_labels { n as u64 } else { 0 };
    let expected = header + 4 * words + 8;
    if length != expected {
        return Err(bad(format!("{length} bytes; the header describes {expected} (truncated or damaged)")));
    }
    let data: Vec<f32> = src.words(n * dim).map_err(short)?.into_iter().map(f32::from_bits).collect();
    let order = src.words(n).map_err(short)?;
    let mut graph_layers = Vec::with_capacity(layers);
    for &(degree, len) in &shapes {
        graph_layers.push(Layer { degree, adjacency: src.words(len * degree).map_err(short)? });
    }
    let labels = if has_labels { Some(src.words(n).map_err(short)?) } else { None };
    let digest = src.hash.digest();
    let mut stored = [0u8; 8];
    src.inner.read_exact(&mut stored).map_err(short)?;
    if u64::from_le_bytes(stored) != digest {
        return Err(bad("checksum mismatch: the file is damaged".into()));
    }
    let vectors = Vectors::new(dim, data).map_err(|e| bad(e.to_string()))?;
    let graph = ProximityGraph { kind, layers: graph_layers };
    graph.validate().map_err(|e| bad(format!("graph: {e}")))?;
    let mut seen = vec![false; n];
    for &id in &order {
        if id as usize >= n || std::mem::replace(&mut seen[id as usize], true) {
            return Err(bad(format!("the id table repeats or exceeds id {id}")));
        }
    }
    Ok(Index { metric, params, vectors, graph, order, labels })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neighbours::SearchParams;

    fn index(labels: bool) -> Index {
        let v = Vectors::new(3, (0..600).map(|i| ((i * 37) % 101) as f32 * 0.1).collect()).unwrap();
        let params = BuildParams::new(GraphKind::Hnsw, 8).unwrap();
        Index::build(v, Metric::Cos, &params, labels.then(|| (0..200).map(|i| i % 4).collect())).unwrap()
    }

    #[test]
    fn round_trip_keeps_every_answer() {
        let dir = tempfile::tempdir().unwrap();
        for labels in [false, true] {
            let built = index(labels);
            let path = dir.path().join("x.sgi");
            save(&built, &path).unwrap();
            let back = load(&path).unwrap();
            assert_eq!(back.vectors, built.vectors);
            assert_eq!(back.graph, built.graph);
            assert_eq!(back.order, built.order);
            assert_eq!(back.labels, built.labels);
            assert_eq!(back.params, built.params);
            let q = Vectors::new(3, vec![1.0, 2.0, 3.0, 0.5, 0.1, 0.0]).unwrap();
            let p = SearchParams::new(5, Some(32)).unwrap();
            assert_eq!(back.search(q.clone(), p, None).unwrap(), built.search(q, p, None).unwrap());
        }
    }

    #[test]
    fn damage_is_one_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.sgi");
        save(&index(true), &path).unwrap();
        let good = std::fs::read(&path).unwrap();
        let damaged = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            load(&path).unwrap_err().to_string()
        };
        assert!(damaged(&good[..good.len() - 3]).contains("bytes; the header describes"));
        assert!(damaged(&good[..20]).contains("truncated"));
        assert!(damaged(b"nothing here at all").contains("no SGANNIDX magic"));
        let mut flipped = good.clone();
        let at = good.len() - 100;
        flipped[at] ^= 0x40;
        assert!(damaged(&flipped).contains("checksum mismatch"));
        let mut version = good.clone();
        version[8] = 9;
        assert!(damaged(&version).contains("index version 9"));
        let mut huge = good.clone();
        huge[20..28].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(damaged(&huge).contains("vectors: must be"));
        assert!(load(&dir.path().join("missing.sgi")).unwrap_err().to_string().contains("missing.sgi"));
    }
}
