//! Deterministic rating matrices with a planted low-rank model and Gaussian noise, shaped like
//! Netflix's and Yahoo!Music's (skewed activity and popularity), split into train and test.
//!
//! **The model.** Users and items get planted factors of length `rank`: the first entry is
//! √[`MEAN`] for both, the others independent normals of variance (1 / (rank − 1))^½, so that
//! a true rating p_u·q_v has mean [`MEAN`] (3.6) and standard deviation [`SIGNAL`] (1) over
//! random pairs: a 1-to-5 scale, without rounding or clipping. A rating is its true value plus
//! noise ε ~ N(0, `noise`²). The planted model predicts every rating's expectation, so no model
//! does better on test in expectation: its test RMSE, [`planted_rmse`], is `noise` up to the
//! sampling error (≈ noise / √(2·|test|)), and it is the target an engine must reach (within 1%
//! in the crate's tests). A model of any rank ≥ `rank` can represent it. A model fitted to the
//! training set also pays for estimating its factors: by a least-squares count (λ left out),
//! about noise·√(1 + rank·(1/d_u + 1/d_v)) on test, d_u and d_v the mean ratings a user and an
//! item. Reaching the planted RMSE within 1% so asks for a rank small against the users'
//! rating counts (rank 4 with 500 ratings a user: ≈ 0.5% above); the presets' rank 32 with
//! Netflix's 208 ratings a user leaves about 8% above `noise`.
//!
//! **The shape.** A user's activity and an item's popularity are log-normal, with σ
//! [`USER_SPREAD`] (1.2) and [`ITEM_SPREAD`] (1.8): on Netflix's shape a median user has about
//! half the mean's ratings, a few users rate nearly every item, and the most popular items are
//! rated by most users, as in the Netflix prize's data (median user 96 of a mean 209; most rated
//! movie 232,944 of 480,189 users). Each user's rating count is its share of `ratings` by
//! weight (at least 1 each while `ratings` ≥ `users`, at most `items`), the counts summing to
//! `ratings` exactly. A user's items are drawn by popularity without repetition (so no pair
//! (user, item) occurs twice): by popularity through an alias table, a repeated item drawn
//! again, and, for the rare heavy user for whom repeats take more than 8 draws a rating, the rest
//! uniformly among the items it has not rated.
//!
//! **The split.** Each rating is a test rating with probability `test_fraction`, then two rules
//! keep every test user and item in train: a user whose ratings all fell in test keeps its first
//! in train, and an item none of whose ratings fell in train gets its test rating of the
//! lowest user id moved to train. So the test share is `test_fraction`, a little less on small
//! sets. Ratings come grouped by user in increasing user id; ids are the planted rows, 0-based
//! (user id u is row u of [`planted_model`]'s P, item id v row v of its Q). With fewer ratings
//! than users, or many items, some ids rate or are rated nothing and occur in neither set.
//!
//! **Determinism and cost.** Every draw comes from a xoshiro256++ seeded by the seed, a stream
//! name and the user (or factor chunk): the output depends on neither the thread count nor the
//! order of work. Users are made in blocks on every core, twice (a first pass counts each
//! block's train and test ratings and finds the items the split rule moves; the second writes
//! each block into its place in the output), so that memory is the output's 20 bytes a rating
//! (`RawRatings`: two u64 ids and an f32) plus 8 bytes a user, 17 an item and the planted
//! factors (4·rank bytes a user and an item).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::error::{MfError, Result};
use crate::model::{Model, MAX_RANK};
use crate::ratings::RawRatings;

/// The mean of the true ratings.
pub const MEAN: f64 = 3.6;
/// The standard deviation of the true ratings around [`MEAN`] (for `rank` ≥ 2).
pub const SIGNAL: f64 = 1.0;
/// σ of the logarithm of a user's activity.
pub const USER_SPREAD: f64 = 1.2;
/// σ of the logarithm of an item's popularity.
pub const ITEM_SPREAD: f64 = 1.8;

/// Users made one after another by one task.
const BLOCK: usize = 1024;
/// Factor rows (and weights) drawn from one generator.
const CHUNK: usize = 4096;
/// Draws a rating allowed before a user's remaining items are taken uniformly.
const DRAWS: usize = 8;

/// The shape of a generated rating matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenSpec {
    /// Users (ids 0..users), at least 1.
    pub users: usize,
    /// Items (ids 0..items), at least 1.
    pub items: usize,
    /// Ratings in all, train and test together: 1 to users × items.
    pub ratings: usize,
    /// The planted model's rank, 1 to [`MAX_RANK`].
    pub rank: usize,
    /// σ of the Gaussian noise on each rating: the best test RMSE a model can expect.
    pub noise: f64,
    /// The share of ratings held out for test, in [0, 1).
    pub test_fraction: f64,
    pub seed: u64,
}

impl GenSpec {
    /// The Netflix prize's shape: 480,189 users × 17,770 movies, 10^8 ratings, 1.4% of them
    /// for test (the probe set's share); rank 32, noise 0.5.
    pub fn netflix() -> GenSpec {
        GenSpec {
            users: 480_189,
            items: 17_770,
            ratings: 100_000_000,
            rank: 32,
            noise: 0.5,
            test_fraction: 0.014,
            seed: 0,
        }
    }

    /// Yahoo!Music's shape (KDD Cup 2011, track 1): 10^6 users × 6·10^5 items, 2.5·10^8
    /// ratings, 1.6% of them for test; rank 32, noise 0.5.
    pub fn yahoo() -> GenSpec {
        GenSpec {
            users: 1_000_000,
            items: 600_000,
            ratings: 250_000_000,
            rank: 32,
            noise: 0.5,
            test_fraction: 0.016,
            seed: 0,
        }
    }

    /// Checks every field's range.
    pub fn check(&self) -> Result<()> {
        let most = u32::MAX as usize - 1;
        if self.users == 0 || self.items == 0 || self.users > most || self.items > most {
            let (u, i) = (self.users, self.items);
            return Err(MfError::Parameter(format!("{u} users × {i} items: 1 to {most} of each")));
        }
        if self.ratings == 0 || self.ratings as u128 > self.users as u128 * self.items as u128 {
            let (r, u, i) = (self.ratings, self.users, self.items);
            return Err(MfError::Parameter(format!("{r} ratings: 1 to {u} users × {i} items, without repeats")));
        }
        if self.rank == 0 || self.rank > MAX_RANK {
            return Err(MfError::Parameter(format!("planted rank {}: must be 1 to {MAX_RANK}", self.rank)));
        }
        if !(self.noise.is_finite() && self.noise >= 0.0) {
            return Err(MfError::Parameter(format!("noise {}: must be a finite number ≥ 0", self.noise)));
        }
        if !(0.0..1.0).contains(&self.test_fraction) {
            return Err(MfError::Parameter(format!("test fraction {}: must be in [0, 1)", self.test_fraction)));
        }
        Ok(())
    }
}

/// The ratings of `spec`: (train, test), as the module describes.
pub fn generate(spec: &GenSpec) -> Result<(RawRatings, RawRatings)> {
    spec.check()?;
    let model = planted_model(spec)?;
    let degrees = degrees(spec);
    let popularity = Alias::new(&lognormal(spec.items, ITEM_SPREAD, spec.seed, b"item-weights"));

    // Pass 1: each user's test count, which items have a train rating, and each item's test
    // rating of the lowest user id.
    let in_train: Vec<AtomicBool> = (0..spec.items).map(|_| AtomicBool::new(false)).collect();
    let first_test: Vec<AtomicU32> = (0..spec.items).map(|_| AtomicU32::new(u32::MAX)).collect();
    let mut tests = vec![0u32; spec.users];
    tests.par_chunks_mut(BLOCK).enumerate().for_each(|(b, tests)| {
        let mut user = UserDraw::new(spec.items);
        for (i, t) in tests.iter_mut().enumerate() {
            let u = (b * BLOCK + i) as u32;
            user.draw(spec, &popularity, u, degrees[u as usize] as usize);
            for (&v, &test) in user.items.iter().zip(&user.test) {
                if !test {
                    if !in_train[v as usize].load(Relaxed) {
                        in_train[v as usize].store(true, Relaxed);
                    }
                } else if first_test[v as usize].load(Relaxed) > u {
                    first_test[v as usize].fetch_min(u, Relaxed);
                }
            }
            *t = user.test.iter().filter(|&&t| t).count() as u32;
        }
    });
    // The (user, item) ratings moved to train, in order.
    let mut moved: Vec<(u32, u32)> = (0..spec.items)
        .filter(|&v| !in_train[v].load(Relaxed) && first_test[v].load(Relaxed) != u32::MAX)
        .map(|v| (first_test[v].load(Relaxed), v as u32))
        .collect();
    moved.sort_unstable();
    for &(u, _) in &moved {
        tests[u as usize] -= 1;
    }
    drop((in_train, first_test));

    // Pass 2: every block written into its place.
    let blocks = spec.users.div_ceil(BLOCK);
    let count = |b: usize, test: bool| -> usize {
        let users = b * BLOCK..((b + 1) * BLOCK).min(spec.users);
        users.map(|u| if test { tests[u] as usize } else { (degrees[u] - tests[u]) as usize }).sum()
    };
    let train_sizes: Vec<usize> = (0..blocks).into_par_iter().map(|b| count(b, false)).collect();
    let test_sizes: Vec<usize> = (0..blocks).into_par_iter().map(|b| count(b, true)).collect();
    let mut train = zeroed(train_sizes.iter().sum());
    let mut test = zeroed(test_sizes.iter().sum());
    let train_parts = Parts::cut(&mut train, &train_sizes);
    let test_parts = Parts::cut(&mut test, &test_sizes);
    train_parts.into_par_iter().zip(test_parts).enumerate().for_each(|(b, (mut train, mut test))| {
        let mut user = UserDraw::new(spec.items);
        let (mut at_train, mut at_test) = (0, 0);
        for u in b * BLOCK..((b + 1) * BLOCK).min(spec.users) {
            let u = u as u32;
            user.draw(spec, &popularity, u, degrees[u as usize] as usize);
            let from = moved.partition_point(|&(m, _)| m < u);
            for &(_, v) in moved[from..].iter().take_while(|&&(m, _)| m == u) {
                if let Some(i) = user.items.iter().position(|&w| w == v) {
                    user.test[i] = false;
                }
            }
            let mut noise = rng(spec.seed, b"noise", u64::from(u));
            let p = model.p_row(u);
            for (&v, &is_test) in user.items.iter().zip(&user.test) {
                let z: f64 = noise.sample(StandardNormal);
                let r = (truth(p, model.q_row(v)) + spec.noise * z) as f32;
                let (out, at) = if is_test { (&mut test, &mut at_test) } else { (&mut train, &mut at_train) };
                out.set(*at, u64::from(u), u64::from(v), r);
                *at += 1;
            }
        }
        debug_assert!(at_train == train.values.len() && at_test == test.values.len());
    });
    Ok((train, test))
}

/// The planted model of `spec`: row u of P is user id u's factors, row v of Q item id v's, and
/// `mean` is [`MEAN`]. Its predictions are the true ratings (up to f32 rounding of the dot).
pub fn planted_model(spec: &GenSpec) -> Result<Model> {
    spec.check()?;
    let rank = spec.rank;
    let scale = if rank > 1 { (SIGNAL * SIGNAL / (rank - 1) as f64).sqrt().sqrt() } else { 0.0 };
    let factors = |n: usize, stream: &[u8]| {
        let mut f = vec![0f32; n * rank];
        f.par_chunks_mut(CHUNK * rank).enumerate().for_each(|(c, rows)| {
            let mut rng = rng(spec.seed, stream, c as u64);
            for row in rows.chunks_exact_mut(rank) {
                row[0] = MEAN.sqrt() as f32;
                for x in &mut row[1..] {
                    *x = (scale * rng.sample::<f64, _>(StandardNormal)) as f32;
                }
            }
        });
        f
    };
    let (p, q) = (factors(spec.users, b"user-factors"), factors(spec.items, b"item-factors"));
    Ok(Model { rank, users: spec.users, items: spec.items, p, q, mean: MEAN as f32 })
}

/// The planted model's RMSE on `test` (ratings of `spec`'s ids, such as [`generate`]'s test
/// set): about `spec.noise`, the best a trained model can expect to reach.
pub fn planted_rmse(spec: &GenSpec, test: &RawRatings) -> Result<f64> {
    let model = planted_model(spec)?;
    if test.users.len() != test.len() || test.items.len() != test.len() {
        return Err(MfError::Ratings("user ids, item ids and values of unequal lengths".into()));
    }
    if test.is_empty() {
        return Err(MfError::Ratings("no test ratings".into()));
    }
    let chunks: Vec<f64> = (0..test.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut sum = 0.0;
            for i in c * CHUNK..((c + 1) * CHUNK).min(test.len()) {
                let (u, v) = (test.users[i], test.items[i]);
                if u >= spec.users as u64 || v >= spec.items as u64 {
                    return Err(MfError::Ratings(format!(
                        "rating {i}: user {u} item {v} outside the {} users × {} items generated",
                        spec.users, spec.items
                    )));
                }
                let e = test.values[i] as f64 - truth(model.p_row(u as u32), model.q_row(v as u32));
                sum += e * e;
            }
            Ok(sum)
        })
        .collect::<Result<_>>()?;
    Ok((chunks.iter().sum::<f64>() / test.len() as f64).sqrt())
}

/// A true rating: p · q, summed in f64 in order (the same on every machine).
fn truth(p: &[f32], q: &[f32]) -> f64 {
    p.iter().zip(q).map(|(&a, &b)| a as f64 * b as f64).sum()
}

/// The generator of `stream`'s `index`-th user or chunk.
fn rng(seed: u64, stream: &[u8], index: u64) -> Xoshiro256PlusPlus {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&xxh3_64(stream).to_le_bytes());
    key[8..].copy_from_slice(&index.to_le_bytes());
    Xoshiro256PlusPlus::seed_from_u64(xxh3_64_with_seed(&key, seed))
}

/// `n` log-normal weights exp(σ·z), drawn in chunks from `stream`.
fn lognormal(n: usize, sigma: f64, seed: u64, stream: &[u8]) -> Vec<f64> {
    let mut w = vec![0f64; n];
    w.par_chunks_mut(CHUNK).enumerate().for_each(|(c, w)| {
        let mut rng = rng(seed, stream, c as u64);
        for x in w {
            *x = (sigma * rng.sample::<f64, _>(StandardNormal)).exp();
        }
    });
    w
}

/// Each user's rating count: 1 each (while there are enough ratings), then the rest shared by
/// activity weight, at most `items` each, summing to `spec.ratings`.
fn degrees(spec: &GenSpec) -> Vec<u32> {
    let weights = lognormal(spec.users, USER_SPREAD, spec.seed, b"user-weights");
    let cap = spec.items as u64;
    let base = u64::from(spec.ratings >= spec.users);
    let mut degrees = vec![base; spec.users];
    let mut left = spec.ratings as u64 - base * spec.users as u64;
    // Shares by weight among the users below the cap, until a round gives less than half.
    while left > 0 {
        let open: f64 = degrees.iter().zip(&weights).filter(|(&d, _)| d < cap).map(|(_, &w)| w).sum();
        let share = left as f64 / open;
        let mut given = 0;
        for (d, &w) in degrees.iter_mut().zip(&weights) {
            let add = ((w * share) as u64).min(cap - *d).min(left - given);
            *d += add;
            given += add;
        }
        left -= given;
        if given < left {
            break;
        }
    }
    // The rest one at a time, round the users below the cap.
    while left > 0 {
        for d in degrees.iter_mut().filter(|d| **d < cap).take(left as usize) {
            *d += 1;
            left -= 1;
        }
    }
    degrees.into_iter().map(|d| d as u32).collect()
}

/// One user's ratings as drawn: items and whether each is a test rating, with the set of items
/// drawn (cleared after each user).
struct UserDraw {
    items: Vec<u32>,
    test: Vec<bool>,
    seen: Vec<u64>,
    all: u32,
}

impl UserDraw {
    fn new(items: usize) -> Self {
        UserDraw { items: Vec::new(), test: Vec::new(), seen: vec![0; items.div_ceil(64)], all: items as u32 }
    }

    /// Marks `v` drawn; false if it was.
    fn insert(&mut self, v: u32) -> bool {
        let (word, bit) = (v as usize / 64, 1u64 << (v % 64));
        let new = self.seen[word] & bit == 0;
        self.seen[word] |= bit;
        new
    }

    /// User `u`'s `d` items and test flags: the same for the same (seed, u, d) on every call.
    fn draw(&mut self, spec: &GenSpec, popularity: &Alias, u: u32, d: usize) {
        let mut rng = rng(spec.seed, b"items", u64::from(u));
        self.items.clear();
        let mut draws = 0;
        while self.items.len() < d && draws < DRAWS * d {
            draws += 1;
            let v = popularity.sample(&mut rng);
            if self.insert(v) {
                self.items.push(v);
            }
        }
        if self.items.len() < d {
            let mut rest: Vec<u32> =
                (0..self.all).filter(|&v| self.seen[v as usize / 64] & 1 << (v % 64) == 0).collect();
            let need = d - self.items.len();
            for k in 0..need {
                let j = rng.random_range(k as u32..rest.len() as u32) as usize;
                rest.swap(k, j);
            }
            for &v in &rest[..need] {
                self.insert(v);
                self.items.push(v);
            }
        }
        for &v in &self.items {
            self.seen[v as usize / 64] = 0;
        }
        self.test.clear();
        self.test.extend((0..d).map(|_| rng.random::<f64>() < spec.test_fraction));
        if d > 0 && self.test.iter().all(|&t| t) {
            self.test[0] = false;
        }
    }
}

/// Vose's alias table: a draw in O(1) from a discrete distribution.
struct Alias {
    keep: Vec<f64>,
    alias: Vec<u32>,
}

impl Alias {
    fn new(weights: &[f64]) -> Self {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        let mut keep: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut alias: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<u32>, Vec<u32>) = (0..n as u32).partition(|&i| keep[i as usize] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            alias[s as usize] = l;
            keep[l as usize] -= 1.0 - keep[s as usize];
            if keep[l as usize] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        for i in small.into_iter().chain(large) {
            keep[i as usize] = 1.0;
        }
        Alias { keep, alias }
    }

    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> u32 {
        let x: u64 = rng.random();
        let i = ((x >> 32) * self.keep.len() as u64) >> 32;
        let frac = (x as u32) as f64 / 4_294_967_296.0;
        if frac < self.keep[i as usize] {
            i as u32
        } else {
            self.alias[i as usize]
        }
    }
}

/// `n` ratings of zeros, the pages left to be touched by whichever thread writes them.
fn zeroed(n: usize) -> RawRatings {
    RawRatings { users: vec![0; n], items: vec![0; n], values: vec![0.0; n] }
}

/// A block's part of an output.
struct Parts<'a> {
    users: &'a mut [u64],
    items: &'a mut [u64],
    values: &'a mut [f32],
}

impl<'a> Parts<'a> {
    /// `out` cut into consecutive parts of `sizes`.
    fn cut(out: &'a mut RawRatings, sizes: &[usize]) -> Vec<Parts<'a>> {
        let (mut users, mut items, mut values) = (&mut out.users[..], &mut out.items[..], &mut out.values[..]);
        let mut parts = Vec::with_capacity(sizes.len());
        for &n in sizes {
            let (u, rest_u) = std::mem::take(&mut users).split_at_mut(n);
            let (i, rest_i) = std::mem::take(&mut items).split_at_mut(n);
            let (v, rest_v) = std::mem::take(&mut values).split_at_mut(n);
            parts.push(Parts { users: u, items: i, values: v });
            (users, items, values) = (rest_u, rest_i, rest_v);
        }
        parts
    }

    fn set(&mut self, at: usize, user: u64, item: u64, value: f32) {
        self.users[at] = user;
        self.items[at] = item;
        self.values[at] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn small() -> GenSpec {
        GenSpec { users: 3000, items: 800, ratings: 60_000, rank: 8, noise: 0.5, test_fraction: 0.1, seed: 7 }
    }

    fn pairs(raw: &RawRatings) -> Vec<(u64, u64)> {
        raw.users.iter().copied().zip(raw.items.iter().copied()).collect()
    }

    fn degrees_of(ids: &[u64]) -> Vec<usize> {
        let mut count: HashMap<u64, usize> = HashMap::new();
        for &id in ids {
            *count.entry(id).or_default() += 1;
        }
        let mut d: Vec<usize> = count.into_values().collect();
        d.sort_unstable();
        d
    }

    #[test]
    fn the_split_is_whole_without_repeats_and_covers_test_ids() {
        let spec = small();
        let (train, test) = generate(&spec).unwrap();
        assert_eq!(train.len() + test.len(), spec.ratings);
        let all: HashSet<(u64, u64)> = pairs(&train).into_iter().chain(pairs(&test)).collect();
        assert_eq!(all.len(), spec.ratings, "a pair (user, item) repeated");
        assert!(all.iter().all(|&(u, v)| u < spec.users as u64 && v < spec.items as u64));
        let share = test.len() as f64 / spec.ratings as f64;
        assert!((share - spec.test_fraction).abs() < 0.01, "test share {share}");
        let (users, items): (HashSet<u64>, HashSet<u64>) =
            (train.users.iter().copied().collect(), train.items.iter().copied().collect());
        assert!(test.users.iter().all(|u| users.contains(u)) && test.items.iter().all(|v| items.contains(v)));
        assert_eq!(users.len(), spec.users, "every user has a rating when ratings ≥ users");
        assert!(train.users.windows(2).all(|w| w[0] <= w[1]) && test.users.windows(2).all(|w| w[0] <= w[1]));
        // A test fraction near 1 leaves each user's first rating and each item's lowest-user
        // rating in train.
        let (train, test) = generate(&GenSpec { test_fraction: 0.95, ..small() }).unwrap();
        let users: HashSet<u64> = train.users.iter().copied().collect();
        let items: HashSet<u64> = train.items.iter().copied().collect();
        assert!(test.users.iter().all(|u| users.contains(u)) && test.items.iter().all(|v| items.contains(v)));
        assert!(test.len() > train.len());
    }

    #[test]
    fn the_output_depends_on_the_seed_alone() {
        let spec = small();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| generate(&spec).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one, run(1));
        let other = generate(&GenSpec { seed: 8, ..spec }).unwrap();
        assert_ne!(one.0.items, other.0.items);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        assert_eq!(planted_model(&spec).unwrap(), pool.install(|| planted_model(&spec).unwrap()));
    }

    #[test]
    fn the_planted_model_reaches_the_noise_and_ratings_look_like_stars() {
        let spec = GenSpec { test_fraction: 0.2, ..small() };
        let (train, test) = generate(&spec).unwrap();
        let rmse = planted_rmse(&spec, &test).unwrap();
        assert!((rmse - spec.noise).abs() < 0.03 * spec.noise, "planted test RMSE {rmse}");
        let n = train.len() as f64;
        let mean = train.values.iter().map(|&r| r as f64).sum::<f64>() / n;
        let sd = (train.values.iter().map(|&r| (r as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!((mean - MEAN).abs() < 0.1, "mean {mean}");
        let want = (SIGNAL * SIGNAL + spec.noise * spec.noise).sqrt();
        assert!((sd - want).abs() < 0.1 * want, "standard deviation {sd}, want {want}");
        // Without noise the planted model is exact, to f32 rounding.
        let exact = GenSpec { noise: 0.0, ..spec };
        let (_, test) = generate(&exact).unwrap();
        assert!(planted_rmse(&exact, &test).unwrap() < 1e-5);
        // Through the model's own prediction too.
        let model = planted_model(&exact).unwrap();
        let (u, v, r) = (test.users[0] as u32, test.items[0] as u32, test.values[0]);
        assert!((model.predict(u, v) - r).abs() < 1e-4);
        let mut foreign = test.clone();
        foreign.users[0] = spec.users as u64;
        assert!(planted_rmse(&spec, &foreign).unwrap_err().to_string().starts_with("rating 0: user 3000"));
    }

    #[test]
    fn activity_and_popularity_are_skewed() {
        let spec = small();
        let (train, test) = generate(&spec).unwrap();
        let users: Vec<u64> = train.users.iter().chain(&test.users).copied().collect();
        let items: Vec<u64> = train.items.iter().chain(&test.items).copied().collect();
        for (what, d) in [("user", degrees_of(&users)), ("item", degrees_of(&items))] {
            let (median, max) = (d[d.len() / 2], d[d.len() - 1]);
            let mean = d.iter().sum::<usize>() as f64 / d.len() as f64;
            assert!(
                max >= 10 * median && mean > 1.3 * median as f64,
                "{what}s: median {median}, mean {mean}, max {max}"
            );
        }
    }

    #[test]
    fn full_and_sparse_extremes_hold() {
        // Every pair once: the heavy users' uniform fill.
        let full = GenSpec { users: 30, items: 20, ratings: 600, test_fraction: 0.3, ..small() };
        let (train, test) = generate(&full).unwrap();
        let all: HashSet<(u64, u64)> = pairs(&train).into_iter().chain(pairs(&test)).collect();
        assert_eq!(all.len(), 600);
        // Fewer ratings than users: some users have none.
        let sparse = GenSpec { users: 1000, items: 5, ratings: 300, ..small() };
        let (train, test) = generate(&sparse).unwrap();
        assert_eq!(train.len() + test.len(), 300);
        let one = GenSpec { users: 1, items: 1, ratings: 1, rank: 1, ..small() };
        let (train, test) = generate(&one).unwrap();
        assert_eq!((train.len(), test.len()), (1, 0));
        assert!((train.values[0] as f64 - MEAN).abs() < 5.0 * one.noise);
    }

    #[test]
    fn specs_out_of_range_are_refused() {
        let e = |spec: GenSpec| generate(&spec).unwrap_err().to_string();
        assert_eq!(e(GenSpec { users: 0, ..small() }), "0 users × 800 items: 1 to 4294967294 of each");
        assert_eq!(
            e(GenSpec { ratings: 2_400_001, ..small() }),
            "2400001 ratings: 1 to 3000 users × 800 items, without repeats"
        );
        assert_eq!(e(GenSpec { ratings: 0, ..small() }), "0 ratings: 1 to 3000 users × 800 items, without repeats");
        assert_eq!(e(GenSpec { rank: 0, ..small() }), "planted rank 0: must be 1 to 1024");
        assert_eq!(e(GenSpec { noise: f64::NAN, ..small() }), "noise NaN: must be a finite number ≥ 0");
        assert_eq!(e(GenSpec { test_fraction: 1.0, ..small() }), "test fraction 1: must be in [0, 1)");
        for spec in [GenSpec::netflix(), GenSpec::yahoo()] {
            spec.check().unwrap();
        }
        assert_eq!(
            (GenSpec::netflix().users, GenSpec::netflix().items, GenSpec::netflix().ratings),
            (480_189, 17_770, 100_000_000)
        );
        assert_eq!(
            (GenSpec::yahoo().users, GenSpec::yahoo().items, GenSpec::yahoo().ratings),
            (1_000_000, 600_000, 250_000_000)
        );
    }

    /// The time of a Netflix-shaped set of `SUBGRAPH_MF_GEN_RATINGS` ratings (10^7 unless set),
    /// its degrees, and the time to write and read its training set as LIBMF text: `cargo test -p subgraph-mf --release gen::tests::netflix_shape -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn netflix_shape_at_scale() {
        let ratings = std::env::var("SUBGRAPH_MF_GEN_RATINGS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000_000);
        let spec = GenSpec { ratings, ..GenSpec::netflix() };
        let start = std::time::Instant::now();
        let (train, test) = generate(&spec).unwrap();
        let elapsed = start.elapsed();
        println!(
            "{} ratings ({} train, {} test) on {} threads in {:.2} s",
            spec.ratings,
            train.len(),
            test.len(),
            rayon::current_num_threads(),
            elapsed.as_secs_f64()
        );
        let users: Vec<u64> = train.users.iter().chain(&test.users).copied().collect();
        let items: Vec<u64> = train.items.iter().chain(&test.items).copied().collect();
        for (what, d) in [("user", degrees_of(&users)), ("item", degrees_of(&items))] {
            let mean = d.iter().sum::<usize>() as f64 / d.len() as f64;
            println!(
                "{what}s: {} with ratings, median {}, mean {mean:.0}, max {}",
                d.len(),
                d[d.len() / 2],
                d[d.len() - 1]
            );
        }
        println!("planted test RMSE {:.4} (noise {})", planted_rmse(&spec, &test).unwrap(), spec.noise);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("train.txt");
        let start = std::time::Instant::now();
        crate::formats::write_libmf(&path, &train).unwrap();
        let written = start.elapsed().as_secs_f64();
        let start = std::time::Instant::now();
        let back = crate::formats::read_ratings(&path, None).unwrap();
        let read = start.elapsed().as_secs_f64();
        assert_eq!(back, train);
        let mb = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
        println!("train as LIBMF text: {mb:.0} MB written in {written:.2} s, read back in {read:.2} s");
    }
}
