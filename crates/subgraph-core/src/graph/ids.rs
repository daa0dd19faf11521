//! The vertex ids a file used, kept when the reader compacted them to 0..n (edge lists with
//! sparse ids, named vertices): vertex v of the graph is the v-th smallest original id, and
//! output prints the originals. A graph renumbered after reading (`graph::renumber`) keeps the
//! way back to them.

use std::fmt;
use std::sync::Arc;

/// Original ids of a graph's vertices: strictly increasing with the vertex number, as a reader
/// makes them, or a renumbering's way back to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VertexIds {
    /// Numbers, in numeric order.
    Numbers(Vec<u64>),
    /// Names (UTF-8), in byte order: vertex v's is `bytes[offsets[v]..offsets[v + 1]]`.
    Names { offsets: Vec<u64>, bytes: Vec<u8> },
    /// A renumbered graph's: vertex v was vertex `old[v]` of the graph as read, whose ids are
    /// `base` (None: its vertex numbers were the file's ids); `new` is `old`'s inverse.
    Renumbered { base: Option<Arc<VertexIds>>, old: Vec<u32>, new: Vec<u32> },
}

/// One vertex's original id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id<'a> {
    Number(u64),
    Name(&'a str),
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(x) => write!(f, "{x}"),
            Id::Name(s) => f.write_str(s),
        }
    }
}

impl VertexIds {
    /// Names from strings already in byte order (checked by [`VertexIds::check`]).
    pub fn names<S: AsRef<str>>(sorted: &[S]) -> VertexIds {
        let mut offsets = Vec::with_capacity(sorted.len() + 1);
        let mut bytes = Vec::new();
        offsets.push(0);
        for s in sorted {
            bytes.extend_from_slice(s.as_ref().as_bytes());
            offsets.push(bytes.len() as u64);
        }
        VertexIds::Names { offsets, bytes }
    }

    /// A renumbering's ids: vertex v was vertex `old[v]` of a graph whose ids are `base`, and
    /// `new` is made as `old`'s inverse (`inverse`; whether `old` is a permutation is for
    /// [`VertexIds::check`] to say).
    pub fn renumbering(base: Option<Arc<VertexIds>>, old: Vec<u32>) -> VertexIds {
        let new = inverse(&old);
        VertexIds::Renumbered { base, old, new }
    }

    /// Vertices the ids are for.
    pub fn len(&self) -> usize {
        match self {
            VertexIds::Numbers(v) => v.len(),
            VertexIds::Names { offsets, .. } => offsets.len().saturating_sub(1),
            VertexIds::Renumbered { old, .. } => old.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the ids hold.
    pub fn memory_bytes(&self) -> u64 {
        match self {
            VertexIds::Numbers(v) => v.len() as u64 * 8,
            VertexIds::Names { offsets, bytes } => offsets.len() as u64 * 8 + bytes.len() as u64,
            VertexIds::Renumbered { base, old, new } => {
                (old.len() + new.len()) as u64 * 4 + base.as_ref().map_or(0, |b| b.memory_bytes())
            }
        }
    }

    /// Vertex v's original id.
    pub fn get(&self, v: u32) -> Id<'_> {
        match self {
            VertexIds::Numbers(x) => Id::Number(x[v as usize]),
            VertexIds::Names { .. } => Id::Name(self.name(v as usize)),
            VertexIds::Renumbered { base: None, old, .. } => Id::Number(old[v as usize] as u64),
            VertexIds::Renumbered { base: Some(b), old, .. } => b.get(old[v as usize]),
        }
    }

    /// Whether the ids are numbers (a renumbering's, where the graph as read had no ids, are
    /// its vertex numbers).
    pub fn are_numbers(&self) -> bool {
        match self {
            VertexIds::Numbers(_) => true,
            VertexIds::Names { .. } => false,
            VertexIds::Renumbered { base, .. } => base.as_deref().is_none_or(VertexIds::are_numbers),
        }
    }

    /// Whether the ids are numbers the file wrote, wider than a vertex number (u64), not the
    /// vertex numbers of a graph read without ids.
    pub fn are_wide_numbers(&self) -> bool {
        match self {
            VertexIds::Numbers(_) => true,
            VertexIds::Names { .. } => false,
            VertexIds::Renumbered { base, .. } => base.as_deref().is_some_and(VertexIds::are_wide_numbers),
        }
    }

    fn name(&self, i: usize) -> &str {
        match self {
            VertexIds::Names { offsets, bytes } => {
                let b = &bytes[offsets[i] as usize..offsets[i + 1] as usize];
                std::str::from_utf8(b).expect("names are checked UTF-8 when made")
            }
            _ => unreachable!("only names have names"),
        }
    }

    /// The vertex whose original id is `id`, if any.
    pub fn find(&self, id: Id<'_>) -> Option<u32> {
        let i = match (self, id) {
            (VertexIds::Renumbered { base: None, new, .. }, Id::Number(n)) => {
                return u32::try_from(n).ok().and_then(|o| new.get(o as usize).copied())
            }
            (VertexIds::Renumbered { base: Some(b), new, .. }, id) => return b.find(id).map(|o| new[o as usize]),
            (VertexIds::Numbers(x), Id::Number(n)) => x.binary_search(&n).ok()?,
            (VertexIds::Names { .. }, Id::Name(s)) => {
                let (mut lo, mut hi) = (0, self.len());
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    match self.name(mid).as_bytes().cmp(s.as_bytes()) {
                        std::cmp::Ordering::Less => lo = mid + 1,
                        std::cmp::Ordering::Greater => hi = mid,
                        std::cmp::Ordering::Equal => return Some(mid as u32),
                    }
                }
                return None;
            }
            _ => return None,
        };
        Some(i as u32)
    }

    /// Checks that there are `n` ids, strictly increasing, names in UTF-8 with consistent
    /// offsets: what a loader must know before it trusts a file's ids. A renumbering's are
    /// never read from a file: its `old` must be a permutation of 0..n, `new` its inverse, over
    /// ids that pass.
    pub fn check(&self, n: usize) -> Result<(), String> {
        if self.len() != n {
            return Err(format!("{} vertex ids for {n} vertices", self.len()));
        }
        match self {
            VertexIds::Renumbered { base, old, new } => {
                let inverse =
                    new.len() == n && old.iter().enumerate().all(|(i, &o)| new.get(o as usize) == Some(&(i as u32)));
                if !inverse {
                    return Err("a renumbering that is not a permutation of the vertices".into());
                }
                base.as_ref().map_or(Ok(()), |b| b.check(n))
            }
            VertexIds::Numbers(x) => match x.windows(2).position(|w| w[0] >= w[1]) {
                Some(i) => Err(format!("vertex ids not increasing at vertex {}", i + 1)),
                None => Ok(()),
            },
            VertexIds::Names { offsets, bytes } => {
                if offsets.first() != Some(&0) || offsets.last() != Some(&(bytes.len() as u64)) {
                    return Err("vertex name offsets do not span the names".into());
                }
                if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
                    return Err(format!("vertex name offsets decrease at vertex {i}"));
                }
                let mut prev: Option<&[u8]> = None;
                for i in 0..n {
                    let b = &bytes[offsets[i] as usize..offsets[i + 1] as usize];
                    if std::str::from_utf8(b).is_err() {
                        return Err(format!("vertex name {i} is not UTF-8"));
                    }
                    if prev.is_some_and(|p| p >= b) {
                        return Err(format!("vertex names not increasing at vertex {i}"));
                    }
                    prev = Some(b);
                }
                Ok(())
            }
        }
    }
}

/// The inverse of a permutation: `new[old[i]] = i`. Where `old` is not one, the entries it
/// names twice keep the last, those outside it are skipped and those it misses stay
/// `u32::MAX`, so that the pair fails [`VertexIds::check`].
pub(crate) fn inverse(old: &[u32]) -> Vec<u32> {
    let mut new = vec![u32::MAX; old.len()];
    for (i, &o) in old.iter().enumerate() {
        if let Some(slot) = new.get_mut(o as usize) {
            *slot = i as u32;
        }
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_look_up_and_check() {
        let n = VertexIds::Numbers(vec![3, 10, 4_000_000_000]);
        assert_eq!(n.get(2).to_string(), "4000000000");
        assert_eq!(n.find(Id::Number(10)), Some(1));
        assert_eq!(n.find(Id::Number(11)), None);
        assert_eq!(n.find(Id::Name("10")), None);
        assert!(n.check(3).is_ok());
        assert_eq!(n.check(2).unwrap_err(), "3 vertex ids for 2 vertices");
        assert!(VertexIds::Numbers(vec![1, 1]).check(2).is_err());

        let s = VertexIds::names(&["alice", "bob", "é"]);
        assert_eq!(s.get(1), Id::Name("bob"));
        assert_eq!(s.find(Id::Name("é")), Some(2));
        assert_eq!(s.find(Id::Name("carol")), None);
        assert!(s.check(3).is_ok());
        assert!(VertexIds::names(&["b", "a"]).check(2).is_err());
        let bad = VertexIds::Names { offsets: vec![0, 1], bytes: vec![0xff] };
        assert_eq!(bad.check(1).unwrap_err(), "vertex name 0 is not UTF-8");
        let bad = VertexIds::Names { offsets: vec![0, 3], bytes: vec![b'a'] };
        assert!(bad.check(1).is_err());
    }
}
