//! Global candidate refinement: arc consistency (CFL / DP-iso, Sun & Luo §4.2) and GraphQL's
//! semi-perfect bipartite matching between neighbourhoods (Sun & Luo §4.1).

use super::candidates::{keep_while_running, Candidates};
use crate::bitset::Bitset;
use crate::graph::{Dir, Graph};
use crate::query::{Query, Semantics};
use crate::sink::Control;

/// Arc-consistency passes at most; each pass only removes candidates, so stopping early is safe.
const CS_ROUNDS: usize = 8;
/// GraphQL refinement rounds (Sun & Luo use a small constant: further rounds rarely prune).
const GQL_ROUNDS: usize = 2;

/// A query neighbour x of u with the (direction, data pair id) of every edge between them.
struct Link {
    to: u32,
    edges: Vec<(Dir, u32)>,
}

/// The query neighbours of u. None when an edge's label pair occurs nowhere in the data.
fn links(data: &Graph, query: &Query, u: u32) -> Option<Vec<Link>> {
    let mut out: Vec<Link> = Vec::new();
    for e in query.edges(u) {
        let pair = data.pair_id(e.label, query.label(e.to))?;
        match out.iter_mut().find(|l| l.to == e.to) {
            Some(l) => l.edges.push((e.dir, pair)),
            None => out.push(Link { to: e.to, edges: vec![(e.dir, pair)] }),
        }
    }
    Some(out)
}

/// The data vertices that may host x next to v hosting u: candidates of x adjacent to v through
/// every edge of the link.
fn admissible<'a>(data: &'a Graph, v: u32, link: &'a Link, sets: &'a [Bitset]) -> impl Iterator<Item = u32> + 'a {
    let (dir, pair) = link.edges[0];
    let (set, rest) = (&sets[link.to as usize], &link.edges[1..]);
    data.neighbors_by_pair(v, dir, pair).iter().copied().filter(move |&w| {
        set.contains(w) && rest.iter().all(|&(d, p)| data.neighbors_by_pair(v, d, p).binary_search(&w).is_ok())
    })
}

/// The neighbour slice of one (direction, pair) of a vertex, looked up once for consecutive
/// links that share it (on graphs of few labels, all of a query vertex's links).
#[derive(Default)]
struct LastSlice<'a> {
    key: Option<(Dir, u32)>,
    slice: &'a [u32],
}

impl<'a> LastSlice<'a> {
    fn get(&mut self, data: &'a Graph, v: u32, dir: Dir, pair: u32) -> &'a [u32] {
        if self.key != Some((dir, pair)) {
            (self.key, self.slice) = (Some((dir, pair)), data.neighbors_by_pair(v, dir, pair));
        }
        self.slice
    }
}

/// Appends v's admissible neighbours for `link` to `out` and returns how many: all of them
/// when fewer than `enough`, otherwise at least `enough`. A link of one edge (the usual case)
/// is collected branch-free over the neighbour slice (from `last`, when the link before had
/// the same one).
fn collect_admissible<'a>(
    data: &'a Graph,
    v: u32,
    link: &Link,
    sets: &[Bitset],
    enough: usize,
    out: &mut Vec<u32>,
    last: &mut LastSlice<'a>,
) -> usize {
    match link.edges[..] {
        [(dir, pair)] => sets[link.to as usize].collect_in(last.get(data, v, dir, pair), enough, out),
        _ => {
            let start = out.len();
            out.extend(admissible(data, v, link, sets).take(enough));
            out.len() - start
        }
    }
}

/// How many admissible neighbours v has for `link`, exact below `enough`. A link of one edge
/// (the usual case) is counted branch-free over the neighbour slice (from `last`, as above).
fn admissible_count<'a>(
    data: &'a Graph,
    v: u32,
    link: &Link,
    sets: &[Bitset],
    enough: usize,
    last: &mut LastSlice<'a>,
) -> usize {
    match link.edges[..] {
        [(dir, pair)] => sets[link.to as usize].count_in(last.get(data, v, dir, pair), enough),
        _ => admissible(data, v, link, sets).take(enough).count(),
    }
}

/// The data vertices a refinement checks: all, or those a predicate accepts (the others'
/// candidacy is kept as it is).
pub(super) type Within<'a> = Option<&'a (dyn Fn(u32) -> bool + Sync)>;

/// Repeats `keep(u, v)` over all candidates (those `within` accepts) until nothing changes,
/// `rounds` passes are done or `control` says stop (the candidates not yet checked are kept).
fn refine<F>(
    data: &Graph,
    query: &Query,
    cands: &mut Candidates,
    rounds: usize,
    within: Within,
    control: &Control,
    keep: F,
) where
    F: Fn(&[Link], u32, &[Bitset]) -> bool + Sync,
{
    let n = data.num_vertices();
    let qn = query.num_vertices();
    let Some(all_links) = (0..qn as u32).map(|u| links(data, query, u)).collect::<Option<Vec<_>>>() else {
        // No vertex checked can host every query vertex; those not checked may.
        if within.is_none() {
            cands.iter_mut().for_each(Vec::clear);
        }
        return;
    };
    let keep = |links: &[Link], v: u32, sets: &[Bitset]| within.is_some_and(|w| !w(v)) || keep(links, v, sets);
    let mut sets: Vec<Bitset> = cands.iter().map(|c| Bitset::from_sorted(n, c)).collect();
    // A check of (u, v) depends only on the candidate sets of u's neighbours: u needs a new
    // pass only when one of them changed since u's last pass.
    let mut dirty = vec![true; qn];
    for _ in 0..rounds {
        let mut changed = false;
        for u in 0..qn {
            if !std::mem::replace(&mut dirty[u], false) {
                continue;
            }
            if control.should_stop() {
                return;
            }
            let kept = keep_while_running(&cands[u], control, |v| keep(&all_links[u], v, &sets));
            if kept.len() != cands[u].len() {
                changed = true;
                cands[u].iter().for_each(|&v| sets[u].remove(v));
                kept.iter().for_each(|&v| sets[u].insert(v));
                cands[u] = kept;
                if cands[u].is_empty() {
                    return;
                }
                all_links[u].iter().for_each(|l| dirty[l.to as usize] = true);
            }
        }
        if !changed {
            break;
        }
    }
}

/// Keeps v in C(u) only if every query neighbour of u has a candidate adjacent to v.
pub(super) fn arc_consistency(data: &Graph, query: &Query, cands: &mut Candidates, control: &Control) {
    refine(data, query, cands, CS_ROUNDS, None, control, |links, v, sets| {
        let mut last = LastSlice::default();
        links.iter().all(|l| admissible_count(data, v, l, sets, 1, &mut last) > 0)
    });
}

/// Keeps v in C(u) (of the vertices `within` accepts) only if u's neighbours can be matched to
/// distinct admissible neighbours of v (for homomorphisms: each to some admissible neighbour).
pub(super) fn graphql(
    data: &Graph,
    query: &Query,
    semantics: Semantics,
    cands: &mut Candidates,
    within: Within,
    control: &Control,
) {
    refine(data, query, cands, GQL_ROUNDS, within, control, |links, v, sets| {
        // Collect admissible neighbours up to k = the number of links. A link with none fails
        // at once. A link with k or more can always be matched last, whatever the others took
        // (fewer than k), so only the links with fewer than k need a matching among
        // themselves, over lists shorter than k.
        let k = if semantics.injective() { links.len() } else { 1 };
        MATCHING.with(|m| {
            let m = &mut *m.borrow_mut();
            m.clear();
            let mut last = LastSlice::default();
            for l in links {
                let start = m.flat.len();
                if collect_admissible(data, v, l, sets, k, &mut m.flat, &mut last) == 0 {
                    return false;
                }
                m.close_list(start, k);
            }
            m.lists.len() < 2 || m.semi_perfect()
        })
    });
}

thread_local! {
    /// Each thread's buffers for the bipartite matchings of the GraphQL check.
    static MATCHING: std::cell::RefCell<Matching> = std::cell::RefCell::new(Matching::default());
}

/// Left vertices with their admissible right vertices (flat), and Kuhn's state; reused across
/// checks so the hot loop allocates nothing.
#[derive(Default)]
struct Matching {
    flat: Vec<u32>,
    lists: Vec<(usize, usize)>,
    owner: Vec<(u32, usize)>,
    seen: Vec<u32>,
}

impl Matching {
    fn clear(&mut self) {
        self.flat.clear();
        self.lists.clear();
        self.owner.clear();
    }

    /// Adds a left vertex whose right vertices were appended to `flat` from `start`, unless it
    /// has `k` or more (then it always matches, and its list is dropped).
    fn close_list(&mut self, start: usize, k: usize) {
        if self.flat.len() - start < k {
            self.lists.push((start, self.flat.len()));
        } else {
            self.flat.truncate(start);
        }
    }

    /// Whether every left vertex can be matched to a distinct right vertex of its list.
    fn semi_perfect(&mut self) -> bool {
        (0..self.lists.len()).all(|i| {
            self.seen.clear();
            self.augment(i)
        })
    }

    /// Kuhn's augmenting path from left vertex i.
    fn augment(&mut self, i: usize) -> bool {
        let (s, e) = self.lists[i];
        for x in s..e {
            let w = self.flat[x];
            if self.seen.contains(&w) {
                continue;
            }
            self.seen.push(w);
            match self.owner.iter().position(|&(r, _)| r == w) {
                None => {
                    self.owner.push((w, i));
                    return true;
                }
                Some(at) => {
                    let j = self.owner[at].1;
                    if self.augment(j) {
                        let at = self.owner.iter().position(|&(r, _)| r == w).expect("still owned");
                        self.owner[at].1 = i;
                        return true;
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Matching;

    fn semi_perfect(lists: &[Vec<u32>]) -> bool {
        let mut m = Matching::default();
        for l in lists {
            push(&mut m, l, usize::MAX);
        }
        m.semi_perfect()
    }

    fn push(m: &mut Matching, rights: &[u32], k: usize) {
        let start = m.flat.len();
        m.flat.extend_from_slice(rights);
        m.close_list(start, k);
    }

    #[test]
    fn matching() {
        assert!(semi_perfect(&[vec![1, 2], vec![1]]));
        assert!(!semi_perfect(&[vec![1], vec![1]]));
        assert!(semi_perfect(&[vec![1, 2, 3], vec![1, 2], vec![1]]));
        assert!(!semi_perfect(&[vec![1, 2], vec![1, 2], vec![2, 1]]));
        // A list as long as k is left out: it always finds a partner.
        let mut m = Matching::default();
        push(&mut m, &[1], 2);
        push(&mut m, &[1, 2], 2);
        assert_eq!(m.lists.len(), 1);
        assert!(m.semi_perfect());
    }
}
