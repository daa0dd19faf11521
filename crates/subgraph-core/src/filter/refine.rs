//! Global candidate refinement: arc consistency (CFL / DP-iso, Sun & Luo §4.2) and GraphQL's
//! semi-perfect bipartite matching between neighbourhoods (Sun & Luo §4.1).

use super::{Bitset, Candidates};
use crate::graph::{Dir, Graph};
use crate::query::{Query, Semantics};
use rayon::prelude::*;

/// Arc-consistency passes at most; each pass only removes candidates, so stopping early is safe.
const CS_ROUNDS: usize = 8;
/// GraphQL refinement rounds (Sun & Luo use a small constant: further rounds rarely prune).
const GQL_ROUNDS: usize = 2;
/// Candidates per parallel piece of work: below this, splitting costs more than it saves.
pub(super) const PAR_MIN: usize = 512;

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
    data.neighbors_by_pair(v, dir, pair).iter().copied().filter(move |&w| {
        sets[link.to as usize].contains(w)
            && link.edges[1..].iter().all(|&(d, p)| data.neighbors_by_pair(v, d, p).binary_search(&w).is_ok())
    })
}

/// Repeats `keep(u, v)` over all candidates until nothing changes or `rounds` passes are done.
fn refine<F>(data: &Graph, query: &Query, cands: &mut Candidates, rounds: usize, keep: F)
where
    F: Fn(&[Link], u32, &[Bitset]) -> bool + Sync,
{
    let n = data.num_vertices();
    let qn = query.num_vertices();
    let Some(all_links) = (0..qn as u32).map(|u| links(data, query, u)).collect::<Option<Vec<_>>>() else {
        cands.iter_mut().for_each(Vec::clear);
        return;
    };
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
            let kept: Vec<u32> =
                cands[u].par_iter().with_min_len(PAR_MIN).copied().filter(|&v| keep(&all_links[u], v, &sets)).collect();
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
pub(super) fn arc_consistency(data: &Graph, query: &Query, cands: &mut Candidates) {
    refine(data, query, cands, CS_ROUNDS, |links, v, sets| {
        links.iter().all(|l| admissible(data, v, l, sets).next().is_some())
    });
}

/// Keeps v in C(u) only if u's neighbours can be matched to distinct admissible neighbours of v
/// (for homomorphisms: each to some admissible neighbour).
pub(super) fn graphql(data: &Graph, query: &Query, semantics: Semantics, cands: &mut Candidates) {
    refine(data, query, cands, GQL_ROUNDS, |links, v, sets| {
        // Count admissible neighbours up to k = the number of links. A link with none fails at
        // once. A link with k or more can always be matched last, whatever the others took
        // (fewer than k), so only the links with fewer than k need a matching among
        // themselves, over lists shorter than k.
        let k = if semantics.injective() { links.len() } else { 1 };
        let mut short = 0;
        for l in links {
            match admissible(data, v, l, sets).take(k).count() {
                0 => return false,
                c if c < k => short += 1,
                _ => {}
            }
        }
        short < 2 || {
            let lists: Vec<Vec<u32>> = links
                .iter()
                .map(|l| admissible(data, v, l, sets).take(k).collect::<Vec<u32>>())
                .filter(|list| list.len() < k)
                .collect();
            semi_perfect(&lists)
        }
    });
}

/// Whether every left vertex i can be matched to a distinct right vertex of `lists[i]`
/// (Kuhn's augmenting paths; the lists are short).
fn semi_perfect(lists: &[Vec<u32>]) -> bool {
    let mut owner: Vec<(u32, usize)> = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    lists.iter().enumerate().all(|(i, _)| {
        seen.clear();
        augment(i, lists, &mut owner, &mut seen)
    })
}

fn augment(i: usize, lists: &[Vec<u32>], owner: &mut Vec<(u32, usize)>, seen: &mut Vec<u32>) -> bool {
    for &w in &lists[i] {
        if seen.contains(&w) {
            continue;
        }
        seen.push(w);
        match owner.iter().position(|&(x, _)| x == w) {
            None => {
                owner.push((w, i));
                return true;
            }
            Some(at) => {
                let j = owner[at].1;
                if augment(j, lists, owner, seen) {
                    let at = owner.iter().position(|&(x, _)| x == w).expect("still owned");
                    owner[at].1 = i;
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::semi_perfect;

    #[test]
    fn matching() {
        assert!(semi_perfect(&[vec![1, 2], vec![1]]));
        assert!(!semi_perfect(&[vec![1], vec![1]]));
        assert!(semi_perfect(&[vec![1, 2, 3], vec![1, 2], vec![1]]));
        assert!(!semi_perfect(&[vec![1, 2], vec![1, 2], vec![2, 1]]));
    }
}
