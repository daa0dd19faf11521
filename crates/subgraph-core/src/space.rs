//! The candidate space: for every plan link (p → i) and every candidate of position p, the
//! sorted indices of the candidates of position i adjacent to it (CFL's CPI, DP-iso's candidate
//! space, Sun & Luo §4.3). The CPU engine intersects these lists instead of the data graph.
//!
//! The lists are made either all before the search (eager: in parallel, one array per link) or
//! by blocks of `BLOCK` consecutive candidates, each the first time the search reads one of
//! its lists (lazy). A lazy space costs nothing for the candidates a query never reaches: under
//! a limit, or in a trial that is cut short, most of them.
//!
//! An eager space also keeps a position's lists as bitmaps where they are dense (`bits`).

mod bits;

use crate::graph::Graph;
use crate::plan::Plan;
use crate::sink::Control;
use rayon::prelude::*;
use std::sync::OnceLock;

pub use bits::{Bitmaps, Bits, MAX_BYTES as BITMAP_BYTES};

/// When the lists are made (`--space`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpaceBuild {
    /// All of them before the search.
    Eager,
    /// A block when the search first reads it.
    Lazy,
    /// Lazy for large spaces whose search may stop early, else eager (see
    /// [`SpaceBuild::resolve`]).
    Auto,
}

/// Neighbours a space scans (its loose bound) below which `auto` builds it eagerly: a few
/// hundred microseconds on one thread, and the exact longest lists then spare the planner a
/// sample on small queries.
pub const EAGER_BELOW: u64 = 1 << 17;

impl SpaceBuild {
    pub fn name(self) -> &'static str {
        match self {
            SpaceBuild::Eager => "eager",
            SpaceBuild::Lazy => "lazy",
            SpaceBuild::Auto => "auto",
        }
    }

    pub fn from_name(name: &str) -> Option<SpaceBuild> {
        [SpaceBuild::Eager, SpaceBuild::Lazy, SpaceBuild::Auto].into_iter().find(|b| b.name() == name)
    }

    /// Eager or lazy for a space whose loose bound scans `scanned` neighbours, for a search
    /// that `may_stop` before reading all of it (a limit, a trial). A search that reads it all
    /// is faster over an eager space: wordnet's enumeration-bound set (bench/queries/heavy,
    /// complete counts) took 5 % longer in sum over lazy ones.
    pub fn resolve(self, scanned: u64, may_stop: bool) -> SpaceBuild {
        match self {
            SpaceBuild::Auto if may_stop && scanned >= EAGER_BELOW => SpaceBuild::Lazy,
            SpaceBuild::Auto => SpaceBuild::Eager,
            b => b,
        }
    }
}

/// Nanoseconds an eager build takes per neighbour it scans, on one thread (wordnet, yeast and
/// hprd under NLF candidates: 0.18·10^6 neighbours per millisecond at the median of spaces
/// over 10^5 neighbours, 2026-11-26, 2-core development machine).
pub const NS_PER_SCAN: f64 = 5.5;

/// Candidates per parallel piece of an eager build.
const CHUNK: usize = 1024;

/// log2 of [`BLOCK`].
const BLOCK_BITS: u32 = 6;
/// Candidates whose lists a lazy space makes together.
const BLOCK: usize = 1 << BLOCK_BITS;

/// The candidates of one position as a bitmap over the data vertices with a running count per
/// word: a vertex's candidate index in one cache line.
struct Members {
    /// (bits, members in the words before).
    words: Vec<(u64, u32)>,
}

impl Members {
    fn new(vertices: usize, candidates: &[u32]) -> Members {
        let mut words = vec![(0u64, 0u32); vertices.div_ceil(64)];
        for &v in candidates {
            words[v as usize >> 6].0 |= 1 << (v & 63);
        }
        let mut before = 0u32;
        for w in &mut words {
            w.1 = before;
            before += w.0.count_ones();
        }
        Members { words }
    }

    #[inline]
    fn index(&self, v: u32) -> Option<u32> {
        let (bits, before) = self.words[v as usize >> 6];
        let bit = 1u64 << (v & 63);
        (bits & bit != 0).then(|| before + (bits & (bit - 1)).count_ones())
    }

    fn memory_bytes(&self) -> u64 {
        (self.words.len() * std::mem::size_of::<(u64, u32)>()) as u64
    }
}

/// Bytes of one block's slot, made or not.
const SLOT_BYTES: u64 = std::mem::size_of::<OnceLock<Vec<u32>>>() as u64;

/// Candidate edges of one link.
#[derive(Debug)]
enum Edges {
    /// Made before the search: targets[offsets[a]..offsets[a + 1]] for candidate a.
    Made { offsets: Vec<u64>, targets: Vec<u32> },
    /// Made as the search reads them, per block of [`BLOCK`] sources: the block's m + 1 offsets
    /// into itself, then its targets.
    Blocks(Vec<OnceLock<Vec<u32>>>),
}

/// The candidate edges of every link of a plan, in the plan's link order, made eagerly or
/// lazily (the lists of candidates are candidate indices of the linked position); read through
/// [`CandidateSpace::lists`].
#[derive(Default)]
pub struct CandidateSpace {
    links: Vec<Vec<Edges>>,
    /// Per position, its candidates as [`Members`] once a lazy list into it is made.
    members: Vec<OnceLock<Members>>,
    /// Per link, the longest list: exact when eager, else a bound from the sources' degrees.
    longest: Vec<Vec<u64>>,
    /// Neighbours that making every list scans.
    scanned: u64,
    build: Option<SpaceBuild>,
    /// Per position, its lists as bitmaps, where made ([`Bits::make`]).
    bits: Vec<Option<Bits>>,
}

/// What a space would scan and hold, from the data graph's degrees (see
/// [`CandidateSpace::bound`]).
#[derive(Debug, Clone)]
pub struct SpaceBound {
    /// Bytes of the lists if every scanned neighbour were a candidate, besides the offsets.
    pub bytes: u64,
    /// Neighbours scanned to make every list.
    pub scanned: u64,
    /// Per link, an upper bound of its longest list.
    pub longest: Vec<Vec<u64>>,
}

impl CandidateSpace {
    /// An upper bound of what the space of `plan` holds, in one pass over its sources. With
    /// `exact`, every neighbour in a link's group counts as a candidate edge; without, every
    /// neighbour in the link's direction does (looser, but one subtraction per candidate).
    pub fn bound(data: &Graph, plan: &Plan, exact: bool) -> SpaceBound {
        let mut b = SpaceBound { bytes: 0, scanned: 0, longest: Vec::with_capacity(plan.len()) };
        if plan.empty {
            b.longest = plan.backward.iter().map(|back| vec![0; back.len()]).collect();
            return b;
        }
        for (i, back) in plan.backward.iter().enumerate() {
            let mut longest = Vec::with_capacity(back.len());
            for link in back {
                let sources = &plan.candidates[link.from];
                let (sum, max) = sources
                    .par_iter()
                    .with_min_len(BLOCK * 16)
                    .map(|&v| match exact {
                        true => data.neighbors_by_pair(v, link.dir, link.pair).len() as u64,
                        false => data.degree(v, link.dir) as u64,
                    })
                    .fold(|| (0u64, 0u64), |(s, m), d| (s + d, m.max(d)))
                    .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
                b.scanned += sum;
                // The larger of the two layouts: offsets and targets, or blocks.
                let (n, blocks) = (sources.len() as u64, (sources.len() as u64).div_ceil(BLOCK as u64));
                b.bytes += ((n + 1) * 8 + sum * 4).max(blocks * SLOT_BYTES + (n + blocks + sum) * 4);
                longest.push(max.min(plan.sizes[i] as u64));
            }
            b.longest.push(longest);
        }
        let targets = plan.backward.iter().filter(|back| !back.is_empty()).count() as u64;
        b.bytes += targets * (data.num_vertices() as u64).div_ceil(64) * std::mem::size_of::<(u64, u32)>() as u64;
        b
    }

    /// The space of `plan`, made as `build` says (`auto` resolved by the loose bound, as for a
    /// search that may stop), with bitmaps where `auto` finds them dense; None when `control`
    /// has stopped or stops an eager build.
    pub fn build(data: &Graph, plan: &Plan, build: SpaceBuild, control: &Control) -> Option<Self> {
        let bound = CandidateSpace::bound(data, plan, false);
        let build = build.resolve(bound.scanned, true);
        CandidateSpace::build_with(data, plan, bound, build, (Bitmaps::Auto, bits::MAX_BYTES), control)
    }

    /// The space of `plan`, with its loose `bound` from [`CandidateSpace::bound`]: made now
    /// (`Eager`, with bitmaps as `bitmaps` says, within its bytes) or as the search reads it;
    /// None when `control` has stopped (or stops an eager build, asked once per block).
    pub fn build_with(
        data: &Graph,
        plan: &Plan,
        bound: SpaceBound,
        build: SpaceBuild,
        bitmaps: (Bitmaps, u64),
        control: &Control,
    ) -> Option<Self> {
        if control.should_stop() {
            return None;
        }
        let members = plan.backward.iter().map(|_| OnceLock::new()).collect();
        let mut space = CandidateSpace {
            links: Vec::new(),
            members,
            longest: bound.longest,
            scanned: bound.scanned,
            build: Some(build),
            bits: Vec::new(),
        };
        if build == SpaceBuild::Lazy || plan.empty {
            space.links = plan
                .backward
                .iter()
                .map(|back| {
                    back.iter()
                        .map(|link| {
                            let blocks = plan.candidates[link.from].len().div_ceil(BLOCK);
                            Edges::Blocks((0..blocks).map(|_| OnceLock::new()).collect())
                        })
                        .collect()
                })
                .collect();
            return Some(space);
        }
        // index_of[v] = 1 + the index of v among the current position's candidates, 0 if absent:
        // one array reused position by position, read directly (the lazy space's bitmaps are
        // smaller but count bits at every lookup: wordnet's eager builds took 27 % longer).
        let mut index_of = vec![0u32; data.num_vertices()];
        // The exact longest lists replace the bound's, found while the offsets are written.
        space.longest.clear();
        for (i, back) in plan.backward.iter().enumerate() {
            plan.candidates[i].iter().enumerate().for_each(|(k, &v)| index_of[v as usize] = k as u32 + 1);
            let idx = &index_of;
            let (made, longest): (Vec<Edges>, Vec<u64>) = back
                .iter()
                .map(|link| {
                    let chunks: Vec<(Vec<u64>, Vec<u32>)> = plan.candidates[link.from]
                        .par_chunks(CHUNK)
                        .map(|chunk| {
                            let (mut counts, mut out) = (Vec::with_capacity(chunk.len()), Vec::new());
                            if !control.should_stop() {
                                for &v in chunk {
                                    let before = out.len();
                                    let nbrs = data.neighbors_by_pair(v, link.dir, link.pair);
                                    out.extend(nbrs.iter().filter_map(|&w| idx[w as usize].checked_sub(1)));
                                    counts.push((out.len() - before) as u64);
                                }
                            }
                            (counts, out)
                        })
                        .collect();
                    let mut offsets = Vec::with_capacity(plan.candidates[link.from].len() + 1);
                    offsets.push(0u64);
                    let mut targets = Vec::with_capacity(chunks.iter().map(|c| c.1.len()).sum());
                    let mut longest = 0;
                    for (counts, out) in chunks {
                        for c in counts {
                            offsets.push(offsets.last().expect("non-empty") + c);
                            longest = longest.max(c);
                        }
                        targets.extend_from_slice(&out);
                    }
                    (Edges::Made { offsets, targets }, longest)
                })
                .unzip();
            plan.candidates[i].iter().for_each(|&v| index_of[v as usize] = 0);
            if control.should_stop() {
                return None;
            }
            space.links.push(made);
            space.longest.push(longest);
        }
        let mut made: Vec<Option<Bits>> = plan.backward.iter().map(|_| None).collect();
        for pos in bits::positions(plan, bitmaps.1) {
            let lists = space.lists(data, plan);
            let edges = |j: usize| match &space.links[pos][j] {
                Edges::Made { targets, .. } => targets.len() as u64,
                Edges::Blocks(_) => unreachable!("an eager space's lists are made"),
            };
            made[pos] = Bits::make(plan, pos, bitmaps.0, |j, a| lists.of(pos, j, a), edges);
        }
        space.bits = made;
        Some(space)
    }

    /// The lists of this space, which was built for `plan` over `data`.
    pub fn lists<'a>(&'a self, data: &'a Graph, plan: &'a Plan) -> Lists<'a> {
        Lists { space: self, data, plan }
    }

    /// Milliseconds an eager build of this space takes on `threads` threads (predicted).
    pub fn eager_ms(&self, threads: f64) -> f64 {
        self.scanned as f64 * NS_PER_SCAN * 1e-6 / threads.max(1.0)
    }

    /// How the lists were made (`None` for the space of no plan).
    pub fn build_kind(&self) -> Option<SpaceBuild> {
        self.build
    }

    /// An upper bound of the longest candidate-edge list of every link of every position
    /// (exact when built eagerly).
    pub fn longest_lists(&self) -> &[Vec<u64>] {
        &self.longest
    }

    /// Bytes held (by the lists made so far).
    pub fn memory_bytes(&self) -> u64 {
        let links: u64 = self
            .links
            .iter()
            .flatten()
            .map(|e| match e {
                Edges::Made { offsets, targets } => (offsets.len() * 8 + targets.capacity() * 4) as u64,
                Edges::Blocks(blocks) => {
                    let made: usize = blocks.iter().filter_map(OnceLock::get).map(Vec::capacity).sum();
                    blocks.len() as u64 * SLOT_BYTES + made as u64 * 4
                }
            })
            .sum();
        let members: u64 = self.members.iter().filter_map(OnceLock::get).map(Members::memory_bytes).sum();
        links + members + self.bitmap_bytes()
    }

    /// Bytes held by the bitmaps (at most the budget they were made within).
    pub fn bitmap_bytes(&self) -> u64 {
        self.bits.iter().flatten().map(Bits::memory_bytes).sum()
    }

    /// Position `pos`'s lists as bitmaps, where they were made.
    pub fn bits(&self, pos: usize) -> Option<&Bits> {
        self.bits.get(pos).and_then(Option::as_ref)
    }

    /// Positions whose lists were also made as bitmaps.
    pub fn bitmap_positions(&self) -> usize {
        self.bits.iter().flatten().count()
    }

    /// Candidate edges made so far.
    pub fn edge_count(&self) -> u64 {
        self.links
            .iter()
            .flatten()
            .map(|e| match e {
                Edges::Made { targets, .. } => targets.len() as u64,
                Edges::Blocks(blocks) => {
                    blocks.iter().filter_map(OnceLock::get).map(|b| (b.len() - b[0] as usize) as u64).sum()
                }
            })
            .sum()
    }
}

/// A candidate space with the plan and data graph it was built for, which make its lists.
#[derive(Clone, Copy)]
pub struct Lists<'a> {
    space: &'a CandidateSpace,
    data: &'a Graph,
    plan: &'a Plan,
}

impl<'a> Lists<'a> {
    /// The candidate indices of position `pos` adjacent to candidate `a` of the position that
    /// link `j` of `pos` comes from, sorted.
    #[inline(always)]
    pub fn of(&self, pos: usize, j: usize, a: u32) -> &'a [u32] {
        match &self.space.links[pos][j] {
            Edges::Made { offsets, targets } => {
                &targets[offsets[a as usize] as usize..offsets[a as usize + 1] as usize]
            }
            Edges::Blocks(blocks) => {
                let b = (a >> BLOCK_BITS) as usize;
                let block = blocks[b].get_or_init(|| self.make(pos, j, b));
                let i = (a as usize) & (BLOCK - 1);
                &block[block[i] as usize..block[i + 1] as usize]
            }
        }
    }

    /// Makes block `b` of link `j` of `pos`.
    #[cold]
    fn make(&self, pos: usize, j: usize, b: usize) -> Vec<u32> {
        let link = self.plan.backward[pos][j];
        let sources = &self.plan.candidates[link.from];
        let sources = &sources[b * BLOCK..sources.len().min((b + 1) * BLOCK)];
        let m = sources.len();
        // Room for every neighbour, so that nothing is copied while the lists grow; returned
        // when most of them were not candidates.
        let mut groups: [&[u32]; BLOCK] = [&[]; BLOCK];
        for (g, &v) in groups.iter_mut().zip(sources) {
            *g = self.data.neighbors_by_pair(v, link.dir, link.pair);
        }
        let targets =
            self.space.members[pos].get_or_init(|| Members::new(self.data.num_vertices(), &self.plan.candidates[pos]));
        let mut out = Vec::with_capacity(m + 1 + groups.iter().map(|g| g.len()).sum::<usize>());
        out.resize(m + 1, 0u32);
        out[0] = (m + 1) as u32;
        for (k, nbrs) in groups[..m].iter().enumerate() {
            out.extend(nbrs.iter().filter_map(|&w| targets.index(w)));
            out[k + 1] = out.len() as u32;
        }
        if out.capacity() > 2 * out.len() {
            out.shrink_to_fit();
        }
        out
    }
}

impl std::fmt::Debug for CandidateSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CandidateSpace").field("build", &self.build).field("edges", &self.edge_count()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_give_each_candidate_its_index() {
        let cands = [0, 5, 63, 64, 65, 200, 1000];
        let m = Members::new(1001, &cands);
        for (i, &v) in cands.iter().enumerate() {
            assert_eq!(m.index(v), Some(i as u32));
        }
        for v in [1, 4, 62, 66, 199, 999] {
            assert_eq!(m.index(v), None);
        }
    }

    #[test]
    fn auto_is_lazy_for_large_spaces_whose_search_may_stop() {
        assert_eq!(SpaceBuild::Auto.resolve(10, true), SpaceBuild::Eager);
        assert_eq!(SpaceBuild::Auto.resolve(EAGER_BELOW, true), SpaceBuild::Lazy);
        assert_eq!(SpaceBuild::Auto.resolve(EAGER_BELOW, false), SpaceBuild::Eager);
        assert_eq!(SpaceBuild::Eager.resolve(EAGER_BELOW, true), SpaceBuild::Eager);
        assert_eq!(SpaceBuild::Lazy.resolve(10, false), SpaceBuild::Lazy);
    }
}
