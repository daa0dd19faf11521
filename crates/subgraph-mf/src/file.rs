//! The model file (`.sgm`): the factors of a trained model and the original ids of its users
//! and items, in one versioned, checksummed little-endian file, read back by checking every
//! part before anything is trusted.
//!
//! Layout (version 1): the magic `SGMFMODL`; the version (u32); the rank k (u32); the users m
//! and the items n (u64 each); the mean (f32); P (m·k f32, row-major, row u user u's factors);
//! Q (n·k f32); the original id of each user, in dense order (m u64), then of each item (n u64);
//! last the XXH3-64 of every byte before it (u64). The file's length is checked against the
//! header's sizes before anything is allocated, and the checksum before the ids are mapped.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::error::{MfError, Result};
use crate::model::{Model, MAX_RANK};
use crate::ratings::IdMap;

const MAGIC: &[u8; 8] = b"SGMFMODL";
/// The version this code writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before P: magic, version, rank, users, items, mean.
const HEADER: u64 = 8 + 4 + 4 + 8 + 8 + 4;
/// Values converted a piece at a time on the way in and out.
const PIECE: usize = 1 << 14;

/// A model with the ids of the files it was trained on: dense user u is `users.original(u)`.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedModel {
    pub model: Model,
    pub users: IdMap,
    pub items: IdMap,
}

impl SavedModel {
    /// Checks that the factors, sizes and maps agree.
    pub fn check(&self) -> Result<()> {
        let m = &self.model;
        let most = u32::MAX as usize - 1;
        if m.rank == 0 || m.rank > MAX_RANK {
            return Err(MfError::Parameter(format!("rank {}: must be 1 to {MAX_RANK}", m.rank)));
        }
        if m.users == 0 || m.items == 0 || m.users > most || m.items > most {
            return Err(MfError::Parameter(format!("{} users × {} items: 1 to {most} of each", m.users, m.items)));
        }
        if m.p.len() != m.users * m.rank || m.q.len() != m.items * m.rank {
            return Err(MfError::Parameter(format!(
                "P holds {} and Q {} values; {} users and {} items of rank {} need {} and {}",
                m.p.len(),
                m.q.len(),
                m.users,
                m.items,
                m.rank,
                m.users * m.rank,
                m.items * m.rank
            )));
        }
        if self.users.len() != m.users || self.items.len() != m.items {
            return Err(MfError::Parameter(format!(
                "{} user ids and {} item ids for a model of {} users and {} items",
                self.users.len(),
                self.items.len(),
                m.users,
                m.items
            )));
        }
        if !m.mean.is_finite() {
            return Err(MfError::Parameter(format!("mean {}: not a finite number", m.mean)));
        }
        Ok(())
    }
}

/// Writes `saved` to `path`: to a file beside it first, renamed onto `path` once whole, so that
/// a failed save leaves whatever `path` held.
pub fn save(path: impl AsRef<Path>, saved: &SavedModel) -> Result<()> {
    let path = path.as_ref();
    saved.check()?;
    let partial = partial_path(path);
    let written =
        write(&partial, saved).and_then(|()| std::fs::rename(&partial, path).map_err(|e| MfError::io(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

fn write(path: &Path, saved: &SavedModel) -> Result<()> {
    let io = |e| MfError::io(path, e);
    let m = &saved.model;
    let mut out =
        Hashed { inner: BufWriter::with_capacity(1 << 20, File::create(path).map_err(io)?), hash: Xxh3::new() };
    let mut header = Vec::with_capacity(HEADER as usize);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(m.rank as u32).to_le_bytes());
    header.extend_from_slice(&(m.users as u64).to_le_bytes());
    header.extend_from_slice(&(m.items as u64).to_le_bytes());
    header.extend_from_slice(&m.mean.to_le_bytes());
    out.put(&header).map_err(io)?;
    out.values(&m.p, f32::to_le_bytes).map_err(io)?;
    out.values(&m.q, f32::to_le_bytes).map_err(io)?;
    out.values(saved.users.ids(), u64::to_le_bytes).map_err(io)?;
    out.values(saved.items.ids(), u64::to_le_bytes).map_err(io)?;
    let digest = out.hash.digest();
    out.inner.write_all(&digest.to_le_bytes()).map_err(io)?;
    out.inner.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)
}

/// Reads and checks a model written by [`save`].
pub fn load(path: impl AsRef<Path>) -> Result<SavedModel> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| MfError::io(path, e))?;
    let length = file.metadata().map_err(|e| MfError::io(path, e))?.len();
    let bad = |message: String| MfError::file(path, message);
    let short = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => MfError::file(path, "truncated: the file ends inside the model"),
        _ => MfError::io(path, e),
    };
    let mut src = Source { inner: BufReader::with_capacity(1 << 20, file), hash: Xxh3::new() };
    let mut magic = [0u8; 8];
    if length < 8 || src.take(&mut magic).is_err() || &magic != MAGIC {
        return Err(bad("not a subgraph-mf model (no SGMFMODL magic)".into()));
    }
    let version = src.u32().map_err(short)?;
    if version != VERSION {
        return Err(bad(format!("model version {version}; this build reads version {VERSION}")));
    }
    let rank = src.u32().map_err(short)? as usize;
    let users = src.u64().map_err(short)?;
    let items = src.u64().map_err(short)?;
    let mean = f32::from_bits(src.u32().map_err(short)?);
    if rank == 0 || rank > MAX_RANK {
        return Err(bad(format!("rank {rank}: must be 1 to {MAX_RANK}")));
    }
    let most = u64::from(u32::MAX) - 1;
    if users == 0 || items == 0 || users > most || items > most {
        return Err(bad(format!("{users} users × {items} items: must be 1 to {most} of each")));
    }
    if !mean.is_finite() {
        return Err(bad(format!("mean {mean}: not a finite number")));
    }
    // Every section's size, checked against the file before anything is allocated.
    let rows = users as u128 + items as u128;
    let expected = HEADER as u128 + rows * (4 * rank as u128 + 8) + 8;
    if length as u128 != expected {
        return Err(bad(format!("{length} bytes; the header describes {expected} (truncated or damaged)")));
    }
    let (users, items) = (users as usize, items as usize);
    let p = src.values(users * rank, f32::from_le_bytes).map_err(short)?;
    let q = src.values(items * rank, f32::from_le_bytes).map_err(short)?;
    let user_ids = src.values(users, u64::from_le_bytes).map_err(short)?;
    let item_ids = src.values(items, u64::from_le_bytes).map_err(short)?;
    let digest = src.hash.digest();
    let mut stored = [0u8; 8];
    src.inner.read_exact(&mut stored).map_err(short)?;
    if u64::from_le_bytes(stored) != digest {
        return Err(bad("checksum mismatch: the file is damaged".into()));
    }
    let users_map = IdMap::from_ids(user_ids).map_err(|e| bad(format!("user ids: {e}")))?;
    let items_map = IdMap::from_ids(item_ids).map_err(|e| bad(format!("item ids: {e}")))?;
    let model = Model { rank, users, items, p, q, mean };
    Ok(SavedModel { model, users: users_map, items: items_map })
}

/// The file [`save`] writes before renaming it onto `path`: `path` with `.partial` added.
fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".partial");
    path.with_file_name(name)
}

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

    /// `values`, each as its `N` little-endian bytes.
    fn values<T: Copy, const N: usize>(&mut self, values: &[T], le: fn(T) -> [u8; N]) -> std::io::Result<()> {
        let mut buffer = Vec::with_capacity(PIECE * N);
        for piece in values.chunks(PIECE) {
            buffer.clear();
            for &v in piece {
                buffer.extend_from_slice(&le(v));
            }
            self.put(&buffer)?;
        }
        Ok(())
    }
}

/// Bytes read, hashed on the way.
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

    /// `count` values of `N` little-endian bytes each.
    fn values<T, const N: usize>(&mut self, count: usize, from: fn([u8; N]) -> T) -> std::io::Result<Vec<T>> {
        let mut out = Vec::with_capacity(count);
        let mut buffer = vec![0u8; PIECE * N];
        let mut left = count;
        while left > 0 {
            let take = left.min(PIECE);
            self.take(&mut buffer[..take * N])?;
            out.extend(buffer[..take * N].chunks_exact(N).map(|b| {
                let mut bytes = [0u8; N];
                bytes.copy_from_slice(b);
                from(bytes)
            }));
            left -= take;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(users: usize, items: usize, rank: usize) -> SavedModel {
        let mut model = Model::init(users, items, rank, 3.6, 5);
        model.p[0] = -0.0;
        *model.q.last_mut().unwrap() = f32::MIN_POSITIVE;
        let users =
            IdMap::from_ids((0..users as u64).map(|u| u.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect()).unwrap();
        let items =
            IdMap::from_ids((0..items as u64).rev().map(|v| v << 20).chain([u64::MAX]).skip(1).collect()).unwrap();
        SavedModel { model, users, items }
    }

    #[test]
    fn round_trip_keeps_every_bit_and_id() {
        let dir = tempfile::tempdir().unwrap();
        for (m, n, k) in [(1, 1, 1), (37, 20_000, 16), (3, 2, 131)] {
            let s = saved(m, n, k);
            let path = dir.path().join("m.sgm");
            save(&path, &s).unwrap();
            let back = load(&path).unwrap();
            assert_eq!(back, s);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&back.model.p), bits(&s.model.p));
            let last = n as u32 - 1;
            assert_eq!(back.items.get(s.items.original(last)), Some(last));
            let len = std::fs::metadata(&path).unwrap().len();
            assert_eq!(len, HEADER + ((m + n) * (4 * k + 8)) as u64 + 8);
            assert!(!partial_path(&path).exists());
        }
    }

    #[test]
    fn truncation_and_damage_are_one_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.sgm");
        save(&path, &saved(10, 7, 4)).unwrap();
        let good = std::fs::read(&path).unwrap();
        let damaged = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let e = load(&path).unwrap_err().to_string();
            assert!(e.starts_with(&path.display().to_string()) && !e.contains('\n'), "{e}");
            e
        };
        assert!(damaged(&good[..good.len() - 1]).contains("bytes; the header describes"));
        assert!(damaged(&good[..20]).contains("truncated: the file ends inside the model"));
        assert!(damaged(&good[..HEADER as usize]).contains("bytes; the header describes"));
        assert!(damaged(b"").contains("no SGMFMODL magic"));
        assert!(damaged(b"SGANNIDX and more").contains("no SGMFMODL magic"));
        for at in [HEADER as usize, HEADER as usize + 200, good.len() - 20, good.len() - 1] {
            let mut flipped = good.clone();
            flipped[at] ^= 0x10;
            assert!(damaged(&flipped).ends_with("checksum mismatch: the file is damaged"), "byte {at}");
        }
        let mut version = good.clone();
        version[8] = 2;
        assert!(damaged(&version).ends_with("model version 2; this build reads version 1"));
        let mut rank = good.clone();
        rank[12..16].copy_from_slice(&5000u32.to_le_bytes());
        assert!(damaged(&rank).ends_with("rank 5000: must be 1 to 1024"));
        let mut huge = good.clone();
        huge[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(damaged(&huge).contains("1099511627776 users × 7 items: must be"));
        // Sizes that fit the limits but not the file are refused before any allocation.
        let mut big = good.clone();
        big[16..24].copy_from_slice(&(u32::MAX as u64 - 1).to_le_bytes());
        big[12..16].copy_from_slice(&1024u32.to_le_bytes());
        let described = HEADER as u128 + (u32::MAX as u128 - 1 + 7) * (4 * 1024 + 8) + 8;
        assert!(damaged(&big).contains(&format!("bytes; the header describes {described} (truncated")));
        let mut nan = good.clone();
        nan[32..36].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(damaged(&nan).ends_with("mean NaN: not a finite number"));
        let missing = load(dir.path().join("none.sgm")).unwrap_err().to_string();
        assert!(missing.contains("none.sgm"), "{missing}");
    }

    #[test]
    fn repeated_ids_under_a_good_checksum_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.sgm");
        let s = saved(3, 2, 2);
        save(&path, &s).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let ids = bytes.len() - 8 - 5 * 8;
        let first = bytes[ids..ids + 8].to_vec();
        bytes[ids + 8..ids + 16].copy_from_slice(&first);
        let body = bytes.len() - 8;
        let digest = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
        bytes[body..].copy_from_slice(&digest.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.ends_with(&format!("user ids: id {} given twice", s.users.original(0))), "{e}");
    }

    #[test]
    fn inconsistent_models_are_not_saved_and_leave_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.sgm");
        save(&path, &saved(4, 3, 2)).unwrap();
        let mut bad = saved(4, 3, 2);
        bad.model.p.pop();
        assert_eq!(
            save(&path, &bad).unwrap_err().to_string(),
            "P holds 7 and Q 6 values; 4 users and 3 items of rank 2 need 8 and 6"
        );
        let mut bad = saved(4, 3, 2);
        bad.items = IdMap::from_ids(vec![1, 2]).unwrap();
        assert_eq!(
            save(&path, &bad).unwrap_err().to_string(),
            "4 user ids and 2 item ids for a model of 4 users and 3 items"
        );
        assert_eq!(load(&path).unwrap(), saved(4, 3, 2));
        let e = save(dir.path().join("no/such/dir.sgm"), &saved(1, 1, 1)).unwrap_err().to_string();
        assert!(e.contains("dir.sgm.partial"), "{e}");
    }
}
