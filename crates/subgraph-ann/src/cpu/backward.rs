//! Step 2 of a merge (both builders', thesis §2.3, Algorithm 5): the backward edges of a group's
//! forward lists, grouped by source, each source's sorted by (distance, vertex), in the order a
//! sort by (source, distance, vertex) gives. A stable radix sort by source over the edges listed
//! in vertex order, then a stable sort by distance within each source's run (runs are short),
//! with the buffers kept from merge to merge: a merge of 946 vertices at 1M vertices sorts about
//! 15,000 edges, too few for threads to pay for themselves.

use crate::graph::NONE;

/// Bits of a source id one counting pass of the radix sort takes.
const RADIX_BITS: u32 = 11;

/// One backward edge: `vertex` (of the group) joins `source`'s row at `distance`.
#[derive(Clone, Copy, Debug)]
struct Edge {
    source: u32,
    vertex: u32,
    distance: f32,
}

/// The backward edges of one merge, one segment a source, and the buffers that sort them.
#[derive(Default)]
pub(crate) struct BackwardEdges {
    /// The sources, ascending, one a segment.
    pub sources: Vec<u32>,
    /// Segment `i` is `edges[bounds[i]..bounds[i + 1]]`.
    pub bounds: Vec<u32>,
    /// (vertex, distance), each segment nearest first (ties by vertex).
    pub edges: Vec<(u32, f32)>,
    sorted: Vec<Edge>,
    spare: Vec<Edge>,
    counts: Vec<u32>,
}

impl BackwardEdges {
    /// The backward edges of the forward lists `found` (`link` slots a vertex, padded with
    /// `NONE`; the first vertex is `start`).
    pub fn sort(&mut self, found: &[(u32, f32)], link: usize, start: usize) {
        let (mut sorted, mut spare) = (std::mem::take(&mut self.sorted), std::mem::take(&mut self.spare));
        sorted.clear();
        for (i, mine) in found.chunks(link).enumerate() {
            let vertex = (start + i) as u32;
            sorted.extend(mine.iter().filter(|(u, _)| *u != NONE).map(|&(source, distance)| Edge {
                source,
                vertex,
                distance,
            }));
        }
        // Stable by source, so each run keeps the vertex order it was listed in.
        let bits = sorted.iter().map(|e| e.source).max().map_or(0, |m| u32::BITS - m.leading_zeros());
        let mut shift = 0;
        while shift < bits {
            self.counts.clear();
            self.counts.resize(1 << RADIX_BITS, 0);
            let digit = |e: &Edge| ((e.source >> shift) & ((1 << RADIX_BITS) - 1)) as usize;
            for e in &sorted {
                self.counts[digit(e)] += 1;
            }
            let mut at = 0;
            for c in self.counts.iter_mut() {
                (*c, at) = (at, at + *c);
            }
            spare.clear();
            spare.resize(sorted.len(), Edge { source: 0, vertex: 0, distance: 0.0 });
            for e in &sorted {
                let slot = &mut self.counts[digit(e)];
                spare[*slot as usize] = *e;
                *slot += 1;
            }
            std::mem::swap(&mut sorted, &mut spare);
            shift += RADIX_BITS;
        }
        self.sources.clear();
        self.bounds.clear();
        self.edges.clear();
        self.bounds.push(0);
        for run in sorted.chunk_by_mut(|a, b| a.source == b.source) {
            // Stable: equal distances stay in vertex order.
            run.sort_by(|a, b| a.distance.total_cmp(&b.distance));
            self.sources.push(run[0].source);
            self.edges.extend(run.iter().map(|e| (e.vertex, e.distance)));
            self.bounds.push(self.edges.len() as u32);
        }
        (self.sorted, self.spare) = (sorted, spare);
    }

    /// The edges of segment `i`: (vertex, distance), nearest first.
    pub fn segment(&self, i: usize) -> &[(u32, f32)] {
        &self.edges[self.bounds[i] as usize..self.bounds[i + 1] as usize]
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rayon::prelude::*;

    /// The sort this one replaced: every edge as (source, distance, vertex), sorted by all three.
    fn oracle(found: &[(u32, f32)], link: usize, start: usize) -> Vec<(u32, f32, u32)> {
        let mut backward: Vec<(u32, f32, u32)> = found
            .par_chunks(link)
            .enumerate()
            .flat_map_iter(|(i, mine)| {
                mine.iter().filter(|(u, _)| *u != NONE).map(move |&(u, d)| (u, d, (start + i) as u32))
            })
            .collect();
        backward.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        backward
    }

    fn flattened(b: &BackwardEdges) -> Vec<(u32, f32, u32)> {
        (0..b.sources.len()).flat_map(|i| b.segment(i).iter().map(move |&(v, d)| (b.sources[i], d, v))).collect()
    }

    fn check(found: &[(u32, f32)], link: usize, start: usize, b: &mut BackwardEdges) {
        b.sort(found, link, start);
        let want = oracle(found, link, start);
        let got = flattened(b);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!((g.0, g.1.to_bits(), g.2), (w.0, w.1.to_bits(), w.2));
        }
        assert!(b.sources.windows(2).all(|w| w[0] < w[1]), "one segment a source");
        assert_eq!(b.bounds.len(), b.sources.len() + 1);
        assert_eq!(b.is_empty(), want.is_empty());
    }

    /// Forward lists of `count` vertices: sources below `sources` (or `NONE`), distances from a
    /// few values (ties), signed zeros and NaN included.
    fn lists(link: usize, count: usize, sources: u32) -> impl Strategy<Value = Vec<(u32, f32)>> {
        let distance = prop_oneof![
            (0u32..6).prop_map(|d| d as f32 * 0.5),
            Just(-0.0f32),
            Just(f32::NAN),
            Just(f32::INFINITY),
            any::<f32>(),
        ];
        let source = prop_oneof![1 => Just(NONE), 6 => 0..sources];
        prop::collection::vec((source, distance), link * count)
    }

    proptest! {
        #[test]
        fn the_same_edges_in_the_same_order_as_the_full_sort(
            (link, found) in (1usize..6, 0usize..40, prop_oneof![Just(1u32), Just(7), Just(5000), Just(3_000_000)])
                .prop_flat_map(|(link, count, sources)| (Just(link), lists(link, count, sources))),
            start in 0usize..1000,
        ) {
            let mut b = BackwardEdges::default();
            check(&found, link, start, &mut b);
            // Buffers reused by the next merge.
            let shorter = &found[..found.len() / 2 / link * link];
            check(shorter, link, start + 1, &mut b);
        }
    }

    /// The forward lists of a merge of `count` vertices of `link` links at `start`: sources
    /// spread over `0..start` with hubs (the first 64), a few empty slots, tied distances.
    fn merge_lists(link: usize, count: usize, start: usize, seed: u64) -> Vec<(u32, f32)> {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        (0..link * count)
            .map(|_| {
                let r = next();
                let source = if r % 50 == 0 {
                    NONE
                } else if r % 7 == 0 {
                    r % 64
                } else {
                    r % start as u32
                };
                (source, (next() % 1000) as f32 / 8.0)
            })
            .collect()
    }

    #[test]
    fn a_merge_of_a_million_vertex_layer() {
        check(&merge_lists(16, 946, 900_000, 1), 16, 900_000, &mut BackwardEdges::default());
    }

    /// The GPU builder's 1,057 merges of 946 vertices (16 links each) at 1M vertices, sorted by
    /// the full sort and by this one: `cargo test -p subgraph-ann --release
    /// backward::tests::merges_of_a_million_vertices -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn merges_of_a_million_vertices() {
        let (link, group, n) = (16, 946, 1_000_000);
        let merges: Vec<(usize, Vec<(u32, f32)>)> = (group..n)
            .step_by(group)
            .map(|start| (start, merge_lists(link, group.min(n - start), start, start as u64)))
            .collect();
        let clock = std::time::Instant::now();
        let edges: usize = merges.iter().map(|(start, found)| oracle(found, link, *start).len()).sum();
        let full = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let mut b = BackwardEdges::default();
        let mut again = 0;
        for (start, found) in &merges {
            b.sort(found, link, *start);
            again += b.edges.len();
        }
        let radix = clock.elapsed().as_secs_f64();
        assert_eq!(edges, again);
        println!(
            "{} merges, {edges} edges, {} threads: full sort {full:.3} s, radix by source {radix:.3} s",
            merges.len(),
            rayon::current_num_threads()
        );
    }
}
