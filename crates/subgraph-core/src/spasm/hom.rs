//! Homomorphism counts of a small labelled pattern (one term of the spasm, [`super`]) by
//! dynamic programming over its block–cut tree, as [`super::plan`] roots it. Every vertex v
//! gets F_v(x): the homomorphisms of the part below v with v ↦ x, the product of its child
//! blocks' values (zero where x fails v's tests). A block below its cut vertex r is counted per
//! image x of r: its set R ∋ r is mapped first (r alone, an edge, a path of three), then each
//! tree of B − R is a tree DP whose vertices next to R may only take common neighbours of R's
//! images. A vertex next to R pulls its children's sums per candidate (reading the shorter of
//! the candidate's neighbour list and the child's vertices); one that is not takes its
//! candidates from the sums its children push. The work per x is about its two-step
//! neighbourhood, not the number of homomorphisms. A bridge is the smallest block: R = {r} and
//! a tree of one vertex, summed over a neighbour list.

use super::pattern::{Declined, Pattern};
use super::plan::{BlockPlan, Classes, Node, Plan};
use crate::intersect::{intersect_in_place, intersect_into};
use crate::sink::Control;
use rayon::prelude::*;
use std::sync::Mutex;

/// A neighbour list is searched for a child's vertices rather than walked when it is longer
/// than this many times their number (a binary search reads about log2 of the list).
const SEARCH_FACTOR: usize = 16;
/// Bytes of per-thread scratch (over all threads) above which a count is declined.
const MAX_SCRATCH: u64 = 8 << 30;

/// The number of homomorphisms of `p` in the data graph, counted by `plan` (made for `p`).
pub(super) fn count(c: &Classes, p: &Pattern, plan: &Plan, control: &Control) -> Result<u128, Declined> {
    let data = c.data;
    let n = p.labels.len();
    let class = |v: u32| data.vertices_with_label(p.labels[v as usize]);
    let passes = |v: u32, w: u32| p.allowed[v as usize].as_ref().is_none_or(|a| a.contains(w));
    let threads = rayon::current_num_threads().max(1);
    let scratch_bytes: u64 = plan
        .groups
        .iter()
        .flat_map(|(_, g)| g)
        .map(|b| {
            let bitmap = data.num_vertices().div_ceil(64) as u64 * 8;
            // (Kept only where the parent pulls; counted for every vertex, an upper bound.)
            b.trees.iter().flatten().map(|node| 2 * class(node.u).len() as u64 * 20 + bitmap).sum::<u64>()
        })
        .max()
        .unwrap_or(0)
        * threads as u64;
    if scratch_bytes > MAX_SCRATCH.min(crate::host::available_memory().unwrap_or(u64::MAX) / 2) {
        return Err(Declined::Size);
    }
    let base = |v: u32| -> Vec<u128> { class(v).par_iter().map(|&w| passes(v, w) as u128).collect() };
    // F_v by rank in v's class: its tests times its child blocks, set once they are counted.
    let mut f: Vec<Option<Vec<u128>>> = vec![None; n];
    for (r, group) in plan.groups.iter().rev() {
        let mut partial = base(*r);
        for b in group {
            for v in b.set[1..].iter().copied().chain(b.trees.iter().flatten().map(|node| node.u)) {
                if f[v as usize].is_none() {
                    f[v as usize] = Some(base(v));
                }
            }
            let fs: Vec<&[u128]> = f.iter().map(|v| v.as_deref().unwrap_or(&[])).collect();
            let pool: Vec<Mutex<Option<Scratch>>> = (0..threads).map(|_| Mutex::new(None)).collect();
            let values: Result<Vec<u128>, Declined> = class(*r)
                .par_iter()
                .zip(&partial)
                .with_max_len(256)
                .map(|(&x, &before)| {
                    if before == 0 {
                        return Ok(0);
                    }
                    if control.should_stop() {
                        return Err(Declined::Stopped);
                    }
                    let t = rayon::current_thread_index().unwrap_or(0) % threads;
                    let mut slot = pool[t].lock().unwrap_or_else(|e| e.into_inner());
                    let scratch = slot.get_or_insert_with(|| Scratch::new(b, |u| class(u).len(), data.num_vertices()));
                    let v = block_at(c, b, &fs, x, scratch)?;
                    before.checked_mul(v).ok_or(Declined::Size)
                })
                .collect();
            partial = values?;
        }
        f[*r as usize] = Some(partial);
    }
    let top = f[plan.root as usize].take().unwrap_or_else(|| base(plan.root));
    top.iter().try_fold(0u128, |acc, &v| acc.checked_add(v).ok_or(Declined::Size))
}

/// Sparse values over one label class: dense by rank, with the ranks set in this round, and
/// for a tree vertex's values (which pulls read per neighbour) a bitmap of the data vertices
/// set: a pull tests one bit, in cache, for each neighbour, and reads the rank and the value
/// only for the few that are set (G1's dense_8_5: most of its time went to those reads).
struct Dense {
    val: Vec<u128>,
    stamp: Vec<u32>,
    epoch: u32,
    /// The data vertices set this round.
    list: Vec<u32>,
    /// Bit w set where data vertex w is in `list` (empty: not kept).
    bits: Vec<u64>,
}

impl Dense {
    /// Values over a class of `len` vertices; `vertices` > 0 keeps the bitmap over that many
    /// data vertices.
    fn new(len: usize, vertices: usize) -> Dense {
        Dense {
            val: vec![0; len],
            stamp: vec![0; len],
            epoch: 0,
            list: Vec::new(),
            bits: vec![0; vertices.div_ceil(64)],
        }
    }

    fn clear(&mut self) {
        if !self.bits.is_empty() {
            for &w in &self.list {
                self.bits[w as usize >> 6] &= !(1 << (w & 63));
            }
        }
        self.list.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
    }

    /// The value of data vertex w, through the bitmap (kept for this Dense).
    #[inline]
    fn value(&self, c: &Classes, w: u32) -> u128 {
        if self.bits[w as usize >> 6] >> (w & 63) & 1 == 1 {
            self.val[c.rank(w)]
        } else {
            0
        }
    }

    #[inline]
    fn get(&self, i: usize) -> u128 {
        if self.stamp[i] == self.epoch {
            self.val[i]
        } else {
            0
        }
    }

    #[inline]
    fn add(&mut self, i: usize, w: u32, x: u128) -> Result<(), Declined> {
        if self.stamp[i] == self.epoch {
            self.val[i] = self.val[i].checked_add(x).ok_or(Declined::Size)?;
        } else {
            self.stamp[i] = self.epoch;
            self.val[i] = x;
            self.list.push(w);
            if !self.bits.is_empty() {
                self.bits[w as usize >> 6] |= 1 << (w & 63);
            }
        }
        Ok(())
    }
}

/// One thread's scratch for one block: per tree node its values and the sums it pushes up to
/// its parent's class (empty where the parent pulls them).
struct Scratch {
    trees: Vec<Vec<(Dense, Dense)>>,
    /// Per tree: its value from the pass over the vertices fixed by x (where its root is).
    fixed: Vec<u128>,
    img: Vec<u32>,
    lists: Lists,
}

/// A tree vertex's candidates, and the spare list intersections swap with.
#[derive(Default)]
struct Lists {
    cand: Vec<u32>,
    spare: Vec<u32>,
}

impl Scratch {
    fn new(b: &BlockPlan, class_len: impl Fn(u32) -> usize, vertices: usize) -> Scratch {
        let trees: Vec<Vec<(Dense, Dense)>> = b
            .trees
            .iter()
            .map(|t| {
                t.iter()
                    .map(|node| {
                        // Sums are pushed only into a parent with no anchor.
                        let up = node.parent.filter(|&p| t[p].anchors.is_empty()).map_or(0, |p| class_len(t[p].u));
                        // The bitmap only where the parent pulls the values.
                        let pulled = node.parent.is_some_and(|p| !t[p].anchors.is_empty());
                        (Dense::new(class_len(node.u), if pulled { vertices } else { 0 }), Dense::new(up, 0))
                    })
                    .collect()
            })
            .collect();
        Scratch { fixed: vec![0; trees.len()], trees, img: vec![0; b.set.len()], lists: Lists::default() }
    }
}

/// Which tree vertices a pass computes: all of them (R = {r}), those that depend on r's
/// image alone (once per x), or the others (once per image of R).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    All,
    Fixed,
    Varying,
}

/// The block's homomorphisms with r ↦ x (its F factors for every vertex but r included).
fn block_at(c: &Classes, b: &BlockPlan, f: &[&[u128]], x: u32, s: &mut Scratch) -> Result<u128, Declined> {
    s.img[0] = x;
    if b.set.len() == 1 {
        return extend_set(c, b, f, 1, 1, s, Pass::All);
    }
    for t in 0..b.trees.len() {
        let v = tree_at(c, &b.trees[t], f, &s.img, &mut s.trees[t], &mut s.lists, Pass::Fixed)?;
        s.fixed[t] = v;
        // A tree that depends on r alone and has no homomorphism: nothing for this x.
        if v == 0 && b.trees[t].last().is_some_and(|root| root.fixed) {
            return Ok(0);
        }
    }
    extend_set(c, b, f, 1, 1, s, Pass::Varying)
}

/// Maps `set[i..]` in every way, then counts the trees (the vertices `pass` names); `weight`
/// the F factors so far.
fn extend_set(
    c: &Classes,
    b: &BlockPlan,
    f: &[&[u128]],
    i: usize,
    weight: u128,
    s: &mut Scratch,
    pass: Pass,
) -> Result<u128, Declined> {
    if i == b.set.len() {
        let mut total = weight;
        for t in 0..b.trees.len() {
            let v = match (pass, b.trees[t].last().is_some_and(|root| root.fixed)) {
                (Pass::Varying, true) => s.fixed[t],
                _ => tree_at(c, &b.trees[t], f, &s.img, &mut s.trees[t], &mut s.lists, pass)?,
            };
            total = total.checked_mul(v).ok_or(Declined::Size)?;
            if total == 0 {
                break;
            }
        }
        return Ok(total);
    }
    let u = b.set[i];
    let (from, link) = b.via[i - 1];
    let mut sum = 0u128;
    for &y in c.nbrs(s.img[from], link) {
        let fy = f[u as usize][c.rank(y)];
        if fy == 0 || !b.checks[i - 1].iter().all(|&(k, l)| c.nbrs(s.img[k], l).binary_search(&y).is_ok()) {
            continue;
        }
        s.img[i] = y;
        let w = weight.checked_mul(fy).ok_or(Declined::Size)?;
        let v = extend_set(c, b, f, i + 1, w, s, pass)?;
        sum = sum.checked_add(v).ok_or(Declined::Size)?;
    }
    Ok(sum)
}

/// The homomorphisms of one tree of B − R with R mapped to `img`: Σ over the root's values.
fn tree_at(
    c: &Classes,
    tree: &[Node],
    f: &[&[u128]],
    img: &[u32],
    sc: &mut [(Dense, Dense)],
    lists: &mut Lists,
    pass: Pass,
) -> Result<u128, Declined> {
    let wanted = |node: &Node| match pass {
        Pass::All => true,
        Pass::Fixed => node.fixed,
        Pass::Varying => !node.fixed,
    };
    if !tree.iter().any(wanted) {
        return Ok(0);
    }
    // One vertex next to one of R (a bridge): a sum over a neighbour list.
    if let [node] = tree {
        if let ([(k, l)], []) = (node.anchors.as_slice(), node.children.as_slice()) {
            let fu = f[node.u as usize];
            return c
                .nbrs(img[*k], *l)
                .iter()
                .try_fold(0u128, |a, &w| a.checked_add(fu[c.rank(w)]).ok_or(Declined::Size));
        }
    }
    for (ni, node) in tree.iter().enumerate() {
        if !wanted(node) {
            continue;
        }
        let fu = f[node.u as usize];
        let (done, here) = sc.split_at_mut(ni);
        let Lists { cand, spare } = &mut *lists;
        cand.clear();
        if !node.anchors.is_empty() {
            // The candidates of an anchored vertex: common neighbours of the anchors' images,
            // intersected shortest first; its children's sums are pulled per candidate
            // ([`pull`]).
            let mut nbrs: Vec<&[u32]> = node.anchors.iter().map(|&(k, l)| c.nbrs(img[k], l)).collect();
            nbrs.sort_unstable_by_key(|l| l.len());
            match nbrs.as_slice() {
                [one] => cand.extend_from_slice(one),
                [a, b, rest @ ..] => {
                    intersect_into(a, b, cand);
                    rest.iter().for_each(|l| intersect_in_place(cand, l, spare));
                }
                [] => unreachable!("anchored"),
            }
            cand.retain(|&w| fu[c.rank(w)] != 0);
        } else {
            // An unanchored vertex's children push their sums into their `up`, which make its
            // candidates.
            for &(ch, _, up) in &node.children {
                let (child, acc) = (&done[ch].0, &mut done[ch].1);
                acc.clear();
                for &w in &child.list {
                    let v = child.get(c.rank(w));
                    for &y in c.nbrs(w, up) {
                        acc.add(c.rank(y), y, v)?;
                    }
                }
            }
            let &(first, _, _) = node.children.first().expect("an unanchored tree vertex has children");
            cand.extend(done[first].1.list.iter().copied().filter(|&w| fu[c.rank(w)] != 0));
        }
        let out = &mut here[0].0;
        out.clear();
        for &w in cand.iter() {
            let mut v = fu[c.rank(w)];
            for &(ch, down, _) in &node.children {
                let sum = match node.anchors.is_empty() {
                    true => done[ch].1.get(c.rank(w)),
                    false => pull(c, &done[ch].0, c.nbrs(w, down))?,
                };
                v = v.checked_mul(sum).ok_or(Declined::Size)?;
                if v == 0 {
                    break;
                }
            }
            if v != 0 {
                out.add(c.rank(w), w, v)?;
            }
        }
    }
    if !tree.last().is_some_and(wanted) {
        return Ok(0);
    }
    let root = &sc[tree.len() - 1].0;
    root.list.iter().try_fold(0u128, |a, &w| a.checked_add(root.get(c.rank(w))).ok_or(Declined::Size))
}

/// Σ of `child`'s values over the neighbours `nbrs` of one candidate: the shorter side read,
/// the neighbour list walked against the child's values, or the child's vertices searched in
/// the list (a hub's neighbours against the few common neighbours of R's images, as in
/// triangle counting).
fn pull(c: &Classes, child: &Dense, nbrs: &[u32]) -> Result<u128, Declined> {
    let add = |a: u128, y: u32| a.checked_add(child.value(c, y)).ok_or(Declined::Size);
    if nbrs.len() <= child.list.len().saturating_mul(SEARCH_FACTOR) {
        nbrs.iter().try_fold(0u128, |a, &y| add(a, y))
    } else {
        child.list.iter().filter(|y| nbrs.binary_search(y).is_ok()).try_fold(0u128, |a, &y| add(a, y))
    }
}
