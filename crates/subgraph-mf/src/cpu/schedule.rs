//! FPSGD's scheduler (Zhuang et al., RecSys 2013; LIBMF's `Scheduler`): a thread asks for a
//! block whose row and column no other thread holds, and gets the free one updated least often
//! (ties broken at random); an epoch hands out as many blocks as the grid has.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The blocks of a `rows` × `cols` grid, their update counts and which rows and columns are
/// held.
pub struct Scheduler {
    cols: usize,
    state: Mutex<State>,
}

struct State {
    /// (updates so far, random tie, block), least first.
    queue: BinaryHeap<Reverse<(u32, u32, u32)>>,
    busy_rows: Vec<bool>,
    busy_cols: Vec<bool>,
    /// Updates of each block so far.
    counts: Vec<u32>,
    /// Blocks handed out in this epoch, and the epoch's total.
    handed: usize,
    target: usize,
    rng: Xoshiro256PlusPlus,
}

impl Scheduler {
    /// A grid of `rows` × `cols` blocks; an epoch hands out `rows × cols` of them. Needs more
    /// rows and columns than threads, so that a free block always exists.
    pub fn new(rows: usize, cols: usize, seed: u64) -> Scheduler {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let queue = (0..rows * cols).map(|b| Reverse((0, rng.random::<u32>(), b as u32))).collect();
        let state = State {
            queue,
            busy_rows: vec![false; rows],
            busy_cols: vec![false; cols],
            counts: vec![0; rows * cols],
            handed: 0,
            target: rows * cols,
            rng,
        };
        Scheduler { cols, state: Mutex::new(state) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts an epoch.
    pub fn start_epoch(&self) {
        self.lock().handed = 0;
    }

    /// The block (row, column) a thread is to update next, its row and column now held; None
    /// when the epoch has handed out its blocks.
    pub fn take(&self) -> Option<(usize, usize)> {
        let mut s = self.lock();
        if s.handed == s.target {
            return None;
        }
        let mut held = Vec::new();
        let mut found = None;
        while let Some(Reverse((count, tie, b))) = s.queue.pop() {
            let (i, j) = (b as usize / self.cols, b as usize % self.cols);
            if s.busy_rows[i] || s.busy_cols[j] {
                held.push(Reverse((count, tie, b)));
                continue;
            }
            s.busy_rows[i] = true;
            s.busy_cols[j] = true;
            s.handed += 1;
            found = Some((i, j));
            break;
        }
        s.queue.extend(held);
        found
    }

    /// Returns block (`i`, `j`), updated once more: it goes back to the queue behind the blocks
    /// updated fewer times.
    pub fn give_back(&self, i: usize, j: usize) {
        let mut s = self.lock();
        let b = i * self.cols + j;
        s.busy_rows[i] = false;
        s.busy_cols[j] = false;
        s.counts[b] += 1;
        let (count, tie) = (s.counts[b], s.rng.random::<u32>());
        s.queue.push(Reverse((count, tie, b as u32)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_held_at_once_share_no_row_or_column_and_an_epoch_covers_the_grid_evenly() {
        let s = Scheduler::new(5, 5, 7);
        for _ in 0..3 {
            s.start_epoch();
            let mut taken = Vec::new();
            while let Some((i, j)) = s.take() {
                assert!(taken.iter().all(|&(a, b)| a != i && b != j), "({i}, {j}) against {taken:?}");
                taken.push((i, j));
                if taken.len() == 4 {
                    let (a, b) = taken.remove(0);
                    s.give_back(a, b);
                }
            }
            for (a, b) in taken {
                s.give_back(a, b);
            }
        }
        let st = s.lock();
        assert_eq!(st.counts.iter().sum::<u32>(), 75);
        assert!(st.counts.iter().all(|&c| (2..=4).contains(&c)), "least updated first: {:?}", st.counts);
    }
}
