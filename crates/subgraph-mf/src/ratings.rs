//! Ratings: the sparse matrix R (thesis §3.1) as (user, item, value) triples over dense ids, and
//! the maps from the ids of a file (any unsigned integer) to dense ones, in order of first
//! appearance, as the graph readers compact vertex ids.
//!
//! A test set is mapped through the training set's maps. A test rating whose user or item never
//! occurs in training has no factors; it is kept, and predicted as the training mean (LIBMF's
//! rule for a user or item without ratings), and counted ([`Mapped::unseen`]).

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};

use crate::error::{MfError, Result};

/// One rating: dense user `u` (a row of P), dense item `v` (a column of Q), value `r`.
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Rating {
    pub u: u32,
    pub v: u32,
    pub r: f32,
}

/// Ratings over dense ids: every `u < users`, every `v < items`, every `r` finite.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ratings {
    pub users: usize,
    pub items: usize,
    pub entries: Vec<Rating>,
}

impl Ratings {
    /// Checks the invariants: ids below the sizes, finite values.
    pub fn new(users: usize, items: usize, entries: Vec<Rating>) -> Result<Self> {
        if users > u32::MAX as usize || items > u32::MAX as usize {
            return Err(MfError::Ratings(format!("{users} users × {items} items: at most 2^32 - 1 of each")));
        }
        for (i, e) in entries.iter().enumerate() {
            if e.u as usize >= users || e.v as usize >= items {
                return Err(MfError::Ratings(format!(
                    "rating {i}: user {} item {} outside {users} users × {items} items",
                    e.u, e.v
                )));
            }
            if !e.r.is_finite() {
                return Err(MfError::Ratings(format!("rating {i}: {} is not a finite number", e.r)));
            }
        }
        Ok(Ratings { users, items, entries })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The mean rating (0 for no ratings), in f64.
    pub fn mean(&self) -> f64 {
        if self.entries.is_empty() {
            return 0.0;
        }
        self.entries.iter().map(|e| e.r as f64).sum::<f64>() / self.entries.len() as f64
    }
}

/// Ratings as a file gives them: original ids, one value each.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawRatings {
    pub users: Vec<u64>,
    pub items: Vec<u64>,
    pub values: Vec<f32>,
}

impl RawRatings {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn push(&mut self, user: u64, item: u64, value: f32) {
        self.users.push(user);
        self.items.push(item);
        self.values.push(value);
    }
}

/// Original ids ↔ dense ids, dense in order of first appearance.
#[derive(Debug, Clone, Default)]
pub struct IdMap {
    ids: Vec<u64>,
    index: Index,
}

/// The dense id of each original id: a table over the ids where they are small (most rating
/// files number their users and items from 0 or 1), else a hash map.
#[derive(Debug, Clone)]
enum Index {
    /// Entry `id`: its dense id, or `NONE`.
    Table(Vec<u32>),
    Hash(HashMap<u64, u32>),
}

impl Default for Index {
    fn default() -> Self {
        Index::Hash(HashMap::new())
    }
}

/// A table entry of an id not seen yet (dense ids stop below `u32::MAX`).
const NONE: u32 = u32::MAX;

/// A table serves ids below this many entries per rating, plus [`TABLE_SLACK`]: at most 16
/// bytes of table a rating, where the rating itself takes 20 as read.
const TABLE_PER_RATING: u64 = 4;
const TABLE_SLACK: u64 = 1 << 16;

/// Two maps are equal where they map the same ids in the same order, however they index them.
impl PartialEq for IdMap {
    fn eq(&self, other: &Self) -> bool {
        self.ids == other.ids
    }
}

impl IdMap {
    /// An empty map for the ids of `count` ratings, none larger than `largest`: a table where
    /// that costs at most `TABLE_PER_RATING` entries a rating (plus `TABLE_SLACK`).
    pub fn for_ids(largest: u64, count: usize) -> IdMap {
        let index = match largest.checked_add(1) {
            Some(len) if len <= TABLE_PER_RATING * count as u64 + TABLE_SLACK => Index::Table(vec![NONE; len as usize]),
            _ => Index::default(),
        };
        IdMap { ids: Vec::new(), index }
    }

    /// The dense id of `id`, given the next one when it is new.
    pub fn insert(&mut self, id: u64) -> Result<u32> {
        if let Some(d) = self.get(id) {
            return Ok(d);
        }
        let d = u32::try_from(self.ids.len())
            .ok()
            .filter(|&d| d < NONE)
            .ok_or_else(|| MfError::Ratings("more than 2^32 - 1 distinct ids".into()))?;
        if let Index::Table(table) = &self.index {
            if id >= table.len() as u64 {
                self.index = Index::Hash(self.ids.iter().zip(0u32..).map(|(&id, d)| (id, d)).collect());
            }
        }
        match &mut self.index {
            Index::Table(table) => table[id as usize] = d,
            Index::Hash(map) => {
                map.insert(id, d);
            }
        }
        self.ids.push(id);
        Ok(d)
    }

    pub fn get(&self, id: u64) -> Option<u32> {
        match &self.index {
            Index::Table(table) => table.get(usize::try_from(id).ok()?).copied().filter(|&d| d != NONE),
            Index::Hash(map) => map.get(&id).copied(),
        }
    }

    /// The original id of dense id `d`.
    pub fn original(&self, d: u32) -> u64 {
        self.ids[d as usize]
    }

    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The map of `ids`, which must be distinct.
    pub fn from_ids(ids: Vec<u64>) -> Result<Self> {
        let mut map = IdMap::default();
        for id in ids {
            if map.get(id).is_some() {
                return Err(MfError::Ratings(format!("id {id} given twice")));
            }
            map.insert(id)?;
        }
        Ok(map)
    }
}

/// A training set: dense ratings and the maps of its users and items.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dataset {
    pub ratings: Ratings,
    pub users: IdMap,
    pub items: IdMap,
}

impl Dataset {
    /// Compacts `raw`'s ids; refuses an empty set and a value that is not finite.
    pub fn compact(raw: &RawRatings) -> Result<Self> {
        if raw.is_empty() {
            return Err(MfError::Ratings("no ratings".into()));
        }
        let largest = |ids: &[u64]| ids.iter().copied().max().unwrap_or(0);
        let mut users = IdMap::for_ids(largest(&raw.users), raw.len());
        let mut items = IdMap::for_ids(largest(&raw.items), raw.len());
        let mut entries = Vec::with_capacity(raw.len());
        for i in 0..raw.len() {
            let r = raw.values[i];
            if !r.is_finite() {
                return Err(MfError::Ratings(format!("rating {i}: {r} is not a finite number")));
            }
            entries.push(Rating { u: users.insert(raw.users[i])?, v: items.insert(raw.items[i])?, r });
        }
        let ratings = Ratings { users: users.len(), items: items.len(), entries };
        Ok(Dataset { ratings, users, items })
    }

    /// Maps `raw` (a test set) through this set's maps (see the module's rule for unseen ids).
    pub fn map(&self, raw: &RawRatings) -> Result<Mapped> {
        let mut mapped = Mapped::default();
        for i in 0..raw.len() {
            let r = raw.values[i];
            if !r.is_finite() {
                return Err(MfError::Ratings(format!("rating {i}: {r} is not a finite number")));
            }
            match (self.users.get(raw.users[i]), self.items.get(raw.items[i])) {
                (Some(u), Some(v)) => mapped.ratings.push(Rating { u, v, r }),
                _ => mapped.unseen.push(r),
            }
        }
        mapped.users = self.ratings.users;
        mapped.items = self.ratings.items;
        Ok(mapped)
    }
}

/// A test set mapped onto a training set's ids: the ratings with factors, and the values of
/// those without (predicted as the training mean).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mapped {
    pub users: usize,
    pub items: usize,
    pub ratings: Vec<Rating>,
    pub unseen: Vec<f32>,
}

impl Mapped {
    pub fn len(&self) -> usize {
        self.ratings.len() + self.unseen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The mapped ratings alone, as a [`Ratings`].
    pub fn seen(&self) -> Ratings {
        Ratings { users: self.users, items: self.items, entries: self.ratings.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_and_a_hash_map_give_the_same_dense_ids() {
        let ids = [7u64, 3, 7, 0, 65_000, 3, 9];
        let mut table = IdMap::for_ids(65_000, ids.len());
        let mut hash = IdMap::default();
        assert!(matches!(table.index, Index::Table(_)) && matches!(hash.index, Index::Hash(_)));
        for id in ids {
            assert_eq!(table.insert(id).unwrap(), hash.insert(id).unwrap());
        }
        assert_eq!(table, hash);
        assert_eq!((table.get(9), table.get(8), table.get(1 << 40)), (Some(4), None, None));
        // An id beyond the table moves the map to a hash map, keeping every dense id.
        assert_eq!(table.insert(1 << 40).unwrap(), 5);
        assert!(matches!(table.index, Index::Hash(_)));
        assert_eq!((table.get(65_000), table.get(1 << 40), table.original(5)), (Some(3), Some(5), 1 << 40));
        // Ids far larger than the ratings call for a hash map from the start.
        assert!(matches!(IdMap::for_ids(1 << 40, 10).index, Index::Hash(_)));
        assert!(matches!(IdMap::for_ids(u64::MAX, 10).index, Index::Hash(_)));
    }

    #[test]
    fn compaction_is_by_first_appearance_and_test_sets_map_through_it() {
        let mut raw = RawRatings::default();
        raw.push(10, 7, 4.0);
        raw.push(3, 7, 2.0);
        raw.push(10, 1 << 40, 5.0);
        let d = Dataset::compact(&raw).unwrap();
        assert_eq!((d.ratings.users, d.ratings.items), (2, 2));
        assert_eq!(d.ratings.entries[1], Rating { u: 1, v: 0, r: 2.0 });
        assert_eq!(d.items.original(1), 1 << 40);
        let mut test = RawRatings::default();
        test.push(3, 1 << 40, 1.0);
        test.push(99, 7, 3.0);
        let m = d.map(&test).unwrap();
        assert_eq!(m.ratings, vec![Rating { u: 1, v: 1, r: 1.0 }]);
        assert_eq!(m.unseen, vec![3.0]);
    }

    #[test]
    fn empty_sets_and_nan_are_refused() {
        assert!(Dataset::compact(&RawRatings::default()).is_err());
        let mut raw = RawRatings::default();
        raw.push(1, 1, f32::NAN);
        assert!(Dataset::compact(&raw).unwrap_err().to_string().contains("rating 0"));
        assert!(Ratings::new(1, 1, vec![Rating { u: 1, v: 0, r: 1.0 }]).is_err());
    }
}
