//! Validation of a decoded `.sgb` graph: everything the accessors of [`Graph`] and the matcher
//! rely on (offsets, ids in range, groups, both ends of every edge, the label tables), checked
//! in parallel work items of bounded size, so that a corrupt or hostile file is an error, never
//! a panic or a wrong answer later.

use crate::graph::{Adjacency, Graph};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Vertices per parallel validation work item, at most.
const VALIDATE_CHUNK: usize = 4096;
/// Neighbours per parallel validation work item, about.
const VALIDATE_ENTRIES: u64 = 1 << 16;

fn strictly_increasing<T: PartialOrd + Sync>(v: &[T]) -> bool {
    v.par_windows(2).all(|w| w[0] < w[1])
}

/// Offsets start at 0, never decrease and end at `total`.
fn check_offsets(what: &str, offsets: &[u64], total: usize) -> Result<(), String> {
    if offsets.first() != Some(&0) || offsets.last() != Some(&(total as u64)) {
        return Err(format!("{what} do not run from 0 to {total}"));
    }
    if !offsets.par_windows(2).all(|w| w[0] <= w[1]) {
        return Err(format!("{what} decrease"));
    }
    Ok(())
}

/// Checks everything the accessors of [`Graph`] and the matcher rely on: offsets, ids in range,
/// no self loops, groups sorted by id and holding only neighbours of their pair's label, no
/// neighbour twice, every edge stored at both ends with one label (undirected: symmetric
/// adjacency; directed: in-adjacency the out-adjacency reversed), the label tables sorted and
/// complete.
pub(super) fn validate(g: &Graph) -> Result<(), String> {
    let n = g.labels.len();
    if !strictly_increasing(&g.vlabel_values) {
        return Err("vertex label values are not sorted and distinct".into());
    }
    if !strictly_increasing(&g.elabel_values) {
        return Err("edge label values are not sorted and distinct".into());
    }
    if !strictly_increasing(&g.pairs) {
        return Err("label pairs are not sorted and distinct".into());
    }
    if let Some(&(e, v)) = g
        .pairs
        .iter()
        .find(|(e, v)| g.elabel_values.binary_search(e).is_err() || g.vlabel_values.binary_search(v).is_err())
    {
        return Err(format!("label pair ({e}, {v}) names a label missing from the label tables"));
    }
    // The pairs are sorted by edge label: their edge labels, once each, must be the table (an
    // edge label is on some edge when its pairs are, which `unused_pair` checks).
    let mut pair_elabels: Vec<u32> = g.pairs.iter().map(|&(e, _)| e).collect();
    pair_elabels.dedup();
    if let Some(&e) = g.elabel_values.iter().find(|e| pair_elabels.binary_search(e).is_err()) {
        return Err(format!("edge label {e} is in the table but no edge has it"));
    }
    check_offsets("vertex label offsets", &g.vlabel_offsets, n)?;
    match g.vlabel_values.len() {
        0..=0x100 => validate_adjacencies::<u8>(g),
        0x101..=0x10000 => validate_adjacencies::<u16>(g),
        _ => validate_adjacencies::<u32>(g),
    }
}

/// Checks both adjacencies against vertex label ranks held in the narrowest integer type `T`
/// that fits them: the per-neighbour label check gathers from a table a quarter or half the
/// size of the labels, which keeps it in cache on large graphs.
fn validate_adjacencies<T: TryFrom<usize> + Copy + Default + Eq + Into<u64> + Send + Sync>(
    g: &Graph,
) -> Result<(), String> {
    let ranks = label_ranks::<T>(g)?;
    let rank = |l: u32| g.vlabel_values.binary_search(&l).ok().and_then(|r| T::try_from(r).ok());
    let pair_ranks: Vec<T> = g
        .pairs
        .iter()
        .map(|&(_, l)| rank(l))
        .collect::<Option<_>>()
        .ok_or_else(|| "a label pair's vertex label is missing from the label table".to_string())?;
    let pair_elabels: Vec<u32> = g.pairs.iter().map(|&(e, _)| e).collect();
    let key = MirrorKey::new();
    let pair_factors: Vec<u64> = pair_elabels.iter().map(|&e| key.label(e)).collect();
    let seen = (0..rayon::current_num_threads()).map(|_| Mutex::new(Vec::new())).collect();
    let tables = Tables {
        ranks: &ranks,
        pair_ranks: &pair_ranks,
        pair_elabels: &pair_elabels,
        pair_factors: &pair_factors,
        key,
        seen,
    };
    match &g.inc {
        None => {
            let [up, down] = validate_adjacency("out", &tables, &g.out, Arcs::Undirected)?;
            if up != down {
                return Err("the adjacency is not symmetric: an edge is stored at one end only, or with another \
                            label at its other end"
                    .into());
            }
        }
        Some(inc) => {
            let [out, _] = validate_adjacency("out", &tables, &g.out, Arcs::Out)?;
            let [in_, _] = validate_adjacency("in", &tables, inc, Arcs::In)?;
            if out != in_ {
                return Err("the in-adjacency is not the out-adjacency reversed: an arc is stored at one end \
                            only, or with another label at its other end"
                    .into());
            }
        }
    }
    unused_pair(g)
}

/// An error naming a label pair of the table that no group has (the builder lists only the
/// pairs its edges have). Group pair ids are in range, as [`validate_adjacency`] checked.
fn unused_pair(g: &Graph) -> Result<(), String> {
    let used: Vec<AtomicU64> = (0..g.pairs.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    for a in std::iter::once(&g.out).chain(g.inc.as_ref()) {
        a.group_pair.par_chunks(VALIDATE_CHUNK).for_each(|chunk| {
            for &p in chunk {
                let (word, bit) = (&used[p as usize >> 6], 1u64 << (p & 63));
                // Read first: the words stay shared between the cores until a new pair is met.
                if word.load(Ordering::Relaxed) & bit == 0 {
                    word.fetch_or(bit, Ordering::Relaxed);
                }
            }
        });
    }
    match (0..g.pairs.len()).find(|&p| used[p >> 6].load(Ordering::Relaxed) >> (p & 63) & 1 == 0) {
        Some(p) => Err(format!("label pair {:?} is in the table but no edge has it", g.pairs[p])),
        None => Ok(()),
    }
}

/// The key of the fingerprint that checks that every edge is stored at both of its ends: fresh
/// and random for each load, so that no file can be made to pass the check but by chance.
#[derive(Clone, Copy)]
struct MirrorKey([u64; 2]);

impl MirrorKey {
    fn new() -> MirrorKey {
        use std::hash::BuildHasher;
        let s = std::collections::hash_map::RandomState::new();
        MirrorKey([s.hash_one(0u64), s.hash_one(1u64)])
    }

    /// The factor of an edge label's arcs: odd, so never zero.
    fn label(self, label: u32) -> u64 {
        let mut x = u64::from(label) ^ self.0[1];
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (x ^ (x >> 31)) | 1
    }

    /// The arc `from -> to` of the label whose factor is `label`: one 64 x 64 -> 128-bit product
    /// of the keyed arc and the label factor, folded.
    #[inline]
    fn arc(self, from: u32, to: u32, label: u64) -> u64 {
        let p = u128::from(((u64::from(from) << 32) | u64::from(to)) ^ self.0[0]) * u128::from(label);
        (p as u64) ^ ((p >> 64) as u64)
    }
}

/// What the fingerprint of an adjacency sums: an undirected graph's arcs v -> w with v < w and,
/// apart, the arcs w -> v reversed with w > v, which are the same set when the adjacency is
/// symmetric; a directed graph's out-arcs v -> w, or its in-entries v of w as the arcs v -> w.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arcs {
    Undirected,
    Out,
    In,
}

/// What [`validate_adjacency`] checks each vertex against.
struct Tables<'a, T> {
    /// Each vertex's label rank.
    ranks: &'a [T],
    /// Each label pair's vertex label rank and edge label.
    pair_ranks: &'a [T],
    pair_elabels: &'a [u32],
    /// Each label pair's edge label factor ([`MirrorKey::label`]).
    pair_factors: &'a [u64],
    key: MirrorKey,
    /// One bit set of the vertices for each thread, allocated (zeroed by the system, page by
    /// page as they are touched) when the thread first meets a vertex with neighbours of
    /// several edge labels, and cleared after each.
    seen: Vec<Mutex<Vec<u64>>>,
}

/// Each vertex's label rank, the index of its label in the label table, from the vertex lists
/// of the labels, which must each be their label's vertices sorted by id: as they hold n
/// entries in all, every vertex is then listed exactly once and its label is in the table.
/// Blocks of vertices take their ranks from the part of each list that falls in them.
fn label_ranks<T: TryFrom<usize> + Copy + Default + Send>(g: &Graph) -> Result<Vec<T>, String> {
    let n = g.labels.len();
    let lists: Vec<&[u32]> =
        g.vlabel_offsets.windows(2).map(|r| &g.vlabel_vertices[r[0] as usize..r[1] as usize]).collect();
    let wrong = |i: usize| format!("the vertex list of label {} is not its vertices sorted by id", g.vlabel_values[i]);
    let sorted = |list: &&[u32]| {
        list.windows(2).fold(true, |ok, w| ok & (w[0] < w[1])) && list.last().map_or(0, |&v| v as usize + 1) <= n
    };
    if let Some(i) = lists.par_iter().position_first(|list| !sorted(list)) {
        return Err(wrong(i));
    }
    let mut ranks = vec![T::default(); n];
    let block = (16 * lists.len()).max(16 * VALIDATE_CHUNK);
    ranks.par_chunks_mut(block).enumerate().try_for_each(|(b, out)| {
        let first = (b * block) as u64;
        for (i, list) in lists.iter().enumerate() {
            let within = |v: u64| list.partition_point(|&w| u64::from(w) < v);
            let part = &list[within(first)..within(first + out.len() as u64)];
            let (want, rank) = (g.vlabel_values[i], T::try_from(i).map_err(|_| wrong(i))?);
            let mut labelled = true;
            for &v in part {
                labelled &= g.labels[v as usize] == want;
                out[(u64::from(v) - first) as usize] = rank;
            }
            if !labelled {
                return Err(wrong(i));
            }
        }
        Ok(())
    })?;
    Ok(ranks)
}

/// Vertex ranges of at most [`VALIDATE_CHUNK`] vertices and about [`VALIDATE_ENTRIES`]
/// neighbours each (one vertex may hold more), so that the few vertices holding most neighbours
/// do not make one work item hold most of the work.
fn work_items(offsets: &[u64]) -> Vec<std::ops::Range<usize>> {
    let n = offsets.len() - 1;
    let entries = offsets[n];
    let by_entries = (VALIDATE_ENTRIES..entries).step_by(VALIDATE_ENTRIES as usize);
    let mut cuts: Vec<usize> = (0..n)
        .step_by(VALIDATE_CHUNK)
        .chain(by_entries.map(|at| offsets.partition_point(|&o| o < at)))
        .chain([n])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Checks one adjacency: its offsets, then for each vertex its neighbour ids, its group table,
/// and that each group is sorted by id and holds only neighbours of its label. The last takes
/// no loop over each group's members: one branch-free pass over the vertex's neighbours counts
/// the breaks, the neighbours whose (label rank, id) key does not exceed their predecessor's.
/// Where the first and last neighbours of each group carry its label and breaks occur only
/// where groups start, the ranks inside a group cannot change and its ids increase. A vertex
/// with neighbours of several edge labels must not have one neighbour in two of their groups
/// (parallel edges), which a bit set of the vertices, one per thread, finds. Returns the
/// sums of the keyed fingerprints of the arcs that [`Arcs`] names, for the caller to compare.
fn validate_adjacency<T: Copy + Eq + Into<u64> + Sync>(
    dir: &str,
    t: &Tables<'_, T>,
    a: &Adjacency,
    arcs: Arcs,
) -> Result<[u64; 2], String> {
    let Tables { ranks, pair_ranks, pair_elabels, pair_factors, key: mirror, ref seen } = *t;
    let n = ranks.len();
    check_offsets(&format!("{dir} offsets"), &a.offsets, a.nbrs.len())?;
    check_offsets(&format!("{dir} group offsets"), &a.group_offsets, a.group_pair.len())?;
    let key = |rank: T, w: u32| (rank.into() << 32) | u64::from(w);
    let check = |v: usize, seen: &mut Vec<u64>| {
        let nbrs = &a.nbrs[a.offsets[v] as usize..a.offsets[v + 1] as usize];
        let (gs, ge) = (a.group_offsets[v] as usize, a.group_offsets[v + 1] as usize);
        let (pairs, ends) = (&a.group_pair[gs..ge], &a.group_end[gs..ge]);
        // v < n <= 2^32 - 1: comparing as u32 keeps the pass in 32-bit lanes.
        let v32 = v as u32;
        let (largest, self_loop) = nbrs.iter().fold((0, false), |(m, s), &w| (m.max(w), s | (w == v32)));
        if largest as usize >= n || self_loop {
            return Err(format!("{dir} neighbours of vertex {v}: an id out of range ({n} vertices) or a self loop"));
        }
        let groups_wrong =
            || format!("{dir} groups of vertex {v} are not sorted pairs ending in order at its degree {}", nbrs.len());
        if ends.last().map_or(0, |&e| e as usize) != nbrs.len() {
            return Err(groups_wrong());
        }
        // The keys on either side of a group start, as they are when each group's first and
        // last neighbours carry its label.
        let (mut start, mut last_pair, mut last_key) = (0, 0, 0);
        let (mut at_starts, mut labelled) = (0usize, true);
        for (&pair, &end) in pairs.iter().zip(ends) {
            let end = end as usize;
            if end <= start || end > nbrs.len() || (start > 0 && last_pair >= pair) || pair as usize >= pair_ranks.len()
            {
                return Err(groups_wrong());
            }
            let want = pair_ranks[pair as usize];
            let (first, last) = (nbrs[start], nbrs[end - 1]);
            labelled &= (ranks[first as usize] == want) & (ranks[last as usize] == want);
            at_starts += usize::from(start > 0 && last_key >= key(want, first));
            (start, last_pair, last_key) = (end, pair, key(want, last));
        }
        // Pairs are sorted by edge label first: the first and last groups tell whether the
        // vertex has neighbours of several edge labels. With one, its fingerprint is summed in
        // the pass that counts the breaks.
        let labels =
            pairs.first().zip(pairs.last()).map(|(&p, &q)| (pair_elabels[p as usize], pair_elabels[q as usize]));
        let one_label = labels.is_none_or(|(p, q)| p == q);
        let mut sums = [0u64; 2];
        let mut add = |w: u32, label: u64| match arcs {
            Arcs::Undirected => {
                let arc = mirror.arc(v32.min(w), v32.max(w), label);
                let up = 0u64.wrapping_sub(u64::from(v32 < w));
                sums[0] = sums[0].wrapping_add(arc & up);
                sums[1] = sums[1].wrapping_add(arc & !up);
            }
            Arcs::Out => sums[0] = sums[0].wrapping_add(mirror.arc(v32, w, label)),
            Arcs::In => sums[0] = sums[0].wrapping_add(mirror.arc(w, v32, label)),
        };
        let mut breaks = 0usize;
        if let Some((&first, rest)) = nbrs.split_first() {
            let label = pairs.first().map_or(0, |&p| pair_factors[p as usize]);
            let mut prev = key(ranks[first as usize], first);
            if one_label {
                add(first, label);
            }
            for &w in rest {
                let k = key(ranks[w as usize], w);
                breaks += usize::from(prev >= k);
                prev = k;
                if one_label {
                    add(w, label);
                }
            }
        }
        if breaks != at_starts || !labelled {
            return Err(format!("{dir} neighbours of vertex {v} are not its sorted group members"));
        }
        if !one_label {
            // A neighbour in two groups (parallel edges of two labels) is found marked in the
            // thread's bit set of the vertices, which is cleared after.
            if seen.is_empty() {
                *seen = vec![0; n.div_ceil(64)];
            }
            let (mut start, mut twice) = (0, false);
            for (&pair, &end) in pairs.iter().zip(ends) {
                let label = pair_factors[pair as usize];
                for &w in &nbrs[start..end as usize] {
                    add(w, label);
                    let (word, bit) = (w as usize / 64, 1u64 << (w % 64));
                    twice |= seen[word] & bit != 0;
                    seen[word] |= bit;
                }
                start = end as usize;
            }
            nbrs.iter().for_each(|&w| seen[w as usize / 64] = 0);
            if twice {
                return Err(format!("{dir} neighbours of vertex {v}: a neighbour twice (parallel edges)"));
            }
        }
        Ok(sums)
    };
    work_items(&a.offsets)
        .into_par_iter()
        .map(|vertices| {
            let slot = rayon::current_thread_index().unwrap_or(0) % seen.len();
            let mut bits = seen[slot].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            vertices.into_iter().try_fold([0u64; 2], |[a, b], v| {
                let [c, d] = check(v, &mut bits)?;
                Ok([a.wrapping_add(c), b.wrapping_add(d)])
            })
        })
        .try_reduce(|| [0, 0], |[a, b], [c, d]| Ok([a.wrapping_add(c), b.wrapping_add(d)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_items_cover_every_vertex_once_and_split_large_ones_off() {
        let mut offsets = vec![0u64, 3 * VALIDATE_ENTRIES];
        offsets.extend((1..=3 * VALIDATE_CHUNK as u64).map(|i| 3 * VALIDATE_ENTRIES + i));
        let items = work_items(&offsets);
        assert_eq!(items[0], 0..1);
        assert!(items.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
        assert!(items.iter().all(|r| r.len() <= VALIDATE_CHUNK));
        assert_eq!(items.last().map(|r| r.end), Some(offsets.len() - 1));
        assert_eq!(work_items(&[0]), Vec::<std::ops::Range<usize>>::new());
    }
}
