//! The graph's adjacency arrays: owned vectors, or ranges of a memory-mapped `.sgb` file, so
//! that a graph larger than half the host's memory is paged in from the file instead of copied
//! (the out-of-core direction of SGSI §6, on the host side).

use memmap2::Mmap;
use std::fmt;
use std::fs::File;
use std::ops::Deref;
use std::sync::Arc;

/// A read-only array of plain numbers, owned or borrowed from a mapped file.
pub struct Array<T: bytemuck::Pod> {
    /// Where the elements start: into `owner`'s vector or mapping.
    ptr: *const T,
    len: usize,
    owner: Owner<T>,
}

enum Owner<T> {
    Vec(Vec<T>),
    Map(Arc<Mmap>),
}

// SAFETY: `ptr` points into memory that `owner` keeps alive and never writes while the array
// exists (a vector the array owns, or a read-only mapping): the array is a shared slice.
unsafe impl<T: bytemuck::Pod + Send> Send for Array<T> {}
// SAFETY: as above; nothing is written through a shared array.
unsafe impl<T: bytemuck::Pod + Sync> Sync for Array<T> {}

impl<T: bytemuck::Pod> Array<T> {
    /// `len` elements of `map` from byte `start` on, read in place. None when they do not lie
    /// inside the mapping, are not aligned for `T`, or the host is big-endian (the file's
    /// numbers are little-endian): the caller copies them instead.
    pub(crate) fn mapped(map: &Arc<Mmap>, start: usize, len: usize) -> Option<Array<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let slice = map.get(start..start.checked_add(bytes)?)?;
        if cfg!(target_endian = "big") {
            return None;
        }
        let typed: &[T] = bytemuck::try_cast_slice(slice).ok()?;
        Some(Array { ptr: typed.as_ptr(), len, owner: Owner::Map(Arc::clone(map)) })
    }

    /// Whether the elements are read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.owner, Owner::Map(_))
    }

    /// The elements, writable: a mapped array is copied into a vector first.
    pub(crate) fn make_mut(&mut self) -> &mut [T] {
        if let Owner::Map(_) = self.owner {
            *self = Array::from(self.to_vec());
        }
        match &mut self.owner {
            Owner::Vec(v) => v.as_mut_slice(),
            Owner::Map(_) => unreachable!("copied above"),
        }
    }
}

impl<T: bytemuck::Pod> From<Vec<T>> for Array<T> {
    fn from(v: Vec<T>) -> Array<T> {
        Array { ptr: v.as_ptr(), len: v.len(), owner: Owner::Vec(v) }
    }
}

impl<T: bytemuck::Pod> Deref for Array<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` and `len` describe initialised, aligned elements that `owner` keeps
        // alive and unchanged (see the constructors; a vector owner is never resized).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: bytemuck::Pod> Clone for Array<T> {
    fn clone(&self) -> Array<T> {
        match &self.owner {
            Owner::Vec(v) => Array::from(v.clone()),
            Owner::Map(m) => Array { ptr: self.ptr, len: self.len, owner: Owner::Map(Arc::clone(m)) },
        }
    }
}

impl<T: bytemuck::Pod> Default for Array<T> {
    fn default() -> Array<T> {
        Array::from(Vec::new())
    }
}

impl<T: bytemuck::Pod + fmt::Debug> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Maps `file` read-only.
///
/// The file must not be changed while the graph is in use: subgraph checks the mapped bytes
/// once (checksum and structure) when it loads them, and reads them again later.
pub(crate) fn map(file: &File) -> std::io::Result<Arc<Mmap>> {
    // SAFETY: the mapping is read-only and only read as plain numbers, whatever its bytes are;
    // a file truncated by another process while mapped faults the reader, which the docs of
    // `--mmap` warn about.
    let map = unsafe { Mmap::map(file)? };
    Ok(Arc::new(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_mapped_range_reads_like_the_vector_it_was_written_from() {
        let values: Vec<u32> = (0..1000).map(|i| i * 7 + 1).collect();
        let dir = std::env::temp_dir().join(format!("subgraph-array-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.bin");
        let mut f = File::create(&path).unwrap();
        f.write_all(&[0u8; 8]).unwrap();
        f.write_all(bytemuck::cast_slice(&values)).unwrap();
        drop(f);
        let m = map(&File::open(&path).unwrap()).unwrap();
        let mut a = Array::<u32>::mapped(&m, 8, 1000).unwrap();
        assert!(a.is_mapped());
        assert_eq!(&*a, &values[..]);
        assert_eq!(&*a.clone(), &values[..]);
        // Out of range or misaligned: not mapped.
        assert!(Array::<u32>::mapped(&m, 8, 1001).is_none());
        assert!(Array::<u32>::mapped(&m, 6, 10).is_none());
        assert!(Array::<u64>::mapped(&m, 4, 10).is_none());
        // Writing copies first; the mapping is untouched.
        a.make_mut()[0] = 99;
        assert!(!a.is_mapped());
        assert_eq!(a[0], 99);
        assert_eq!(&*Array::<u32>::mapped(&m, 8, 1000).unwrap(), &values[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
