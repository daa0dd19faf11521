// GANNS search of one query by one warp (thesis §2.2, Fig. 4.1), as a __device__ function that
// the search kernel (search.cu) calls and that a graph builder (GGraphCon, §2.3: insertions and
// batch merges search the graph built so far) can call from its own kernel after this text.
//
// Compile-time constants, besides common.cuh's:
//   LN   length of N, a power of two, 32 to 1024: the best vertices found so far, sorted;
//   DEG  slots of an adjacency row (the out-degree bound of the searched layer);
//   TL   length of T, the power of two at least max(DEG, 32): the explored vertex's neighbours;
//   HS_LOG2  log2 of HS, the slots of the visited set (a power of two, at least 4 TL), or 0 for
//            none (GANNS as published: every neighbour's distance computed);
//   ROWS  the rows whose distances the warp computes at once (their loads in flight together),
//         a power of two, 1 to 32.
//
// An entry of N and T is a key: the distance's ordered bits (high word), then id << 1, then the
// explored flag (bit 0). Sorted keys are sorted by (distance, id); ids are below 2^31 - 1.
// EMPTY_KEY (all ones) is an empty slot: it sorts last and counts as explored.

// How a row of the adjacency is read: through the read-only cache, unless the includer (a
// builder that writes rows in the same launch) says otherwise.
#ifndef ADJ_LOAD
#define ADJ_LOAD(p) __ldg(p)
#endif

#if LN < 32 || LN > 1024 || (LN & (LN - 1)) != 0
#error "LN must be a power of two, 32 to 1024"
#endif
#if ROWS < 1 || ROWS > 32 || (ROWS & (ROWS - 1)) != 0
#error "ROWS must be a power of two, 1 to 32"
#endif
#if DEG < 1 || TL < DEG || TL < 32 || (TL & (TL - 1)) != 0
#error "TL must be the power of two at least max(DEG, 32)"
#endif
#if HS_LOG2 == 0
#define HS 1u
#elif HS_LOG2 < 7 || HS_LOG2 > 16 || (1 << HS_LOG2) < 4 * TL
#error "HS must be a power of two, at least 4 TL"
#else
#define HS (1u << HS_LOG2)
#endif

__device__ __forceinline__ ann_key ganns_key(float d, unsigned id) {
    return ((ann_key)ord_bits(d) << 32) | ((ann_key)id << 1);
}

__device__ __forceinline__ unsigned ganns_id(ann_key key) { return (unsigned)(key & 0xFFFFFFFFull) >> 1; }

__device__ __forceinline__ float ganns_distance(ann_key key) { return ord_float((unsigned)(key >> 32)); }

// Whether the vertex of `key` is in nn[0..LN) (explored or not): binary search for its
// (distance, id), the flag left out. A vertex's distance is the same bits every time it is
// computed (common.cuh), so equal ids mean equal keys.
__device__ __forceinline__ bool ganns_in_list(const ann_key* nn, ann_key key) {
    const ann_key x = key & ~1ull;
    const unsigned at = count_below(nn, LN, x, false);
    return at < LN && (nn[at] >> 1) == (x >> 1);
}

#if HS_LOG2 != 0
// The visited set: the ids whose distance the search has computed since the set was last
// emptied, in HS slots (NONE_ID: empty) by open addressing, never more than half full. Lanes add
// ids concurrently: of two lanes adding one id, exactly one is told it is new.
__device__ __forceinline__ bool ganns_visit(unsigned* hs, unsigned id) {
    unsigned s = (id * 2654435761u) >> (32 - HS_LOG2);
    for (;;) {
        const unsigned old = atomicCAS(hs + s, NONE_ID, id);
        if (old == NONE_ID) return true;
        if (old == id) return false;
        s = (s + 1u) & (HS - 1u);
    }
}

// Empties the visited set, then adds the ids of nn's first min(LN, HS / 4) entries; returns how
// many ids it holds. Every lane must call it.
__device__ unsigned ganns_reset(unsigned* hs, const ann_key* nn) {
    const unsigned lane = threadIdx.x & 31u;
    constexpr unsigned R = LN < HS / 4u ? LN : HS / 4u;
    __syncwarp();
    for (unsigned i = lane; i < HS; i += 32u) hs[i] = NONE_ID;
    __syncwarp();
    unsigned held = 0u;
    for (unsigned c = 0u; c < R; c += 32u) {
        const ann_key key = nn[c + lane];
        const bool added = key != EMPTY_KEY && ganns_visit(hs, ganns_id(key));
        held += (unsigned)__popc(__ballot_sync(FULL_MASK, added));
    }
    __syncwarp();
    return held;
}
#endif

// nn := the LN smallest of nn ∪ tk[0..count), sorted (nn sorted ascending on entry; tk's keys in
// any order, EMPTY_KEY for none, no two equal and none equal to an entry of nn). The keys of tk
// below N's last are gathered at the front of tk; each goes to its rank in the union (its rank
// in N, by binary search, plus the gathered keys below it), and each entry of N moves up by
// the gathered keys of rank in N at most its own index, dropped past LN. N is rewritten a warp's
// width at a time from the top, each part read before it is written: an entry only moves up,
// into a part already read. tid (TL slots) is scratch. Every lane must call it.
__device__ __forceinline__ void ganns_insert(ann_key* nn, ann_key* tk, unsigned* tid, unsigned count) {
    const unsigned lane = threadIdx.x & 31u;
    __syncwarp();
    const ann_key last = nn[LN - 1u];
    unsigned m = 0u;
    for (unsigned c = 0u; c < count; c += 32u) {
        const unsigned t = c + lane;
        const ann_key x = t < count ? tk[t] : EMPTY_KEY;
        const bool below = x < last;
        const unsigned b = __ballot_sync(FULL_MASK, below);
        __syncwarp();  // this part read before a key is gathered into it
        if (below) tk[m + (unsigned)__popc(b & ((1u << lane) - 1u))] = x;
        m += (unsigned)__popc(b);
    }
    if (m == 0u) return;
    __syncwarp();
    constexpr unsigned PER_LANE = TL / 32u;
    ann_key xs[PER_LANE];
    unsigned at[PER_LANE];
#pragma unroll
    for (unsigned u = 0u; u < PER_LANE; ++u) {
        const unsigned j = lane + 32u * u;
        xs[u] = EMPTY_KEY;
        at[u] = LN;
        if (j < m) {
            xs[u] = tk[j];
            const unsigned r = count_below(nn, LN, xs[u], false);
            unsigned before = 0u;
            for (unsigned i = 0u; i < m; ++i) before += tk[i] < xs[u] ? 1u : 0u;
            tid[j] = r;
            at[u] = r + before;
        }
    }
    __syncwarp();
    unsigned low = LN;
    for (unsigned j = 0u; j < m; ++j) low = tid[j] < low ? tid[j] : low;
    for (unsigned c = LN - 32u;; c -= 32u) {
        const unsigned i = c + lane;
        const ann_key y = nn[i];
        unsigned up = 0u;
        for (unsigned j = 0u; j < m; ++j) up += tid[j] <= i ? 1u : 0u;
        __syncwarp();
        if (i + up < LN) nn[i + up] = y;
        if (c <= low) break;
    }
#pragma unroll
    for (unsigned u = 0u; u < PER_LANE; ++u)
        if (at[u] < LN) nn[at[u]] = xs[u];
    __syncwarp();
}

// The distances from q to the `count` vertices tid[0..count) as keys in tk[0..count), ROWS
// rows at a time so that their loads overlap, totalled together (warp_totals). Every lane
// must call it.
template <class T>
__device__ __forceinline__ void ganns_distances(const float* q, const T* __restrict__ base, const unsigned* tid,
                                                unsigned count, ann_key* tk) {
    const unsigned lane = threadIdx.x & 31u;
    constexpr unsigned SPAN = 32u / ROWS;
    for (unsigned t0 = 0u; t0 < count; t0 += ROWS) {
        unsigned id[ROWS];
#pragma unroll
        for (unsigned u = 0u; u < ROWS; ++u) id[u] = t0 + u < count ? tid[t0 + u] : NONE_ID;
        float part[ROWS];
        lane_partials<ROWS>(q, base, id, part);
        const float d = warp_totals<ROWS>(part);
        const unsigned t = t0 + lane / SPAN;
        if (lane % SPAN == 0u && t < count) tk[t] = ganns_key(d, tid[t]);
    }
}

// Greedy descent in one layer from `cur` (dcur its distance to q): while the nearest
// out-neighbour (by (distance, id); ids of `len` and above are not of the layer) is strictly
// nearer, move to it. Returns where it stops, its distance in dcur. Rows of `deg` slots are
// read ROWS at a time so that their loads overlap. Every lane must call it.
template <class T>
__device__ unsigned ganns_greedy(const float* q, const T* __restrict__ base, const unsigned* adj, unsigned deg,
                                 unsigned len, unsigned cur, float& dcur) {
    const unsigned lane = threadIdx.x & 31u;
    constexpr unsigned SPAN = 32u / ROWS;
    for (;;) {
        ann_key best = EMPTY_KEY;
        const unsigned* row = adj + (size_t)cur * deg;
        for (unsigned t0 = 0u; t0 < deg; t0 += ROWS) {
            // One read of the slots: lane l holds slot t0 + l / SPAN, whose total it gets.
            const unsigned t = t0 + lane / SPAN;
            const unsigned x = t < deg ? ADJ_LOAD(row + t) : NONE_ID;
            unsigned id[ROWS];
#pragma unroll
            for (unsigned u = 0u; u < ROWS; ++u) {
                const unsigned y = __shfl_sync(FULL_MASK, x, u * SPAN);
                id[u] = y < len ? y : NONE_ID;
            }
            float part[ROWS];
            lane_partials<ROWS>(q, base, id, part);
            const float d = warp_totals<ROWS>(part);
            const ann_key key = ((ann_key)ord_bits(d) << 32) | x;
            if (x < len && key < best) best = key;
        }
        for (unsigned o = 16u; o > 0u; o >>= 1) {
            const ann_key other = __shfl_xor_sync(FULL_MASK, best, o);
            if (other < best) best = other;
        }
        if (best == EMPTY_KEY) return cur;
        const float dbest = ord_float((unsigned)(best >> 32));
        if (!(dbest < dcur)) return cur;
        cur = (unsigned)(best & 0xFFFFFFFFull);
        dcur = dbest;
    }
}

// The entry of a search among vertices 0..limit: greedy descent (ganns_greedy) from vertex 0
// through the upper layers, top first (layer l's rows at upper + meta[3l], its degree
// meta[3l + 1], its vertices 0..meta[3l + 2]; meta lists the layers bottom first); vertex 0
// where there are none. Every lane must call it.
template <class T>
__device__ unsigned ganns_entry(const float* q, const T* __restrict__ base, const unsigned* __restrict__ upper,
                                const unsigned* __restrict__ meta, unsigned layers, unsigned limit) {
    unsigned cur = 0u;
    if (layers == 0u) return cur;
    float dcur = warp_distance(q, base);
    for (unsigned l = layers; l-- > 0u;) {
        const unsigned len = meta[3u * l + 2u] < limit ? meta[3u * l + 2u] : limit;
        cur = ganns_greedy(q, base, upper + meta[3u * l], meta[3u * l + 1u], len, cur, dcur);
    }
    return cur;
}

// Searches the layer `adj` (n vertices, DEG slots a row, NONE_ID padding) for the query q from
// vertex `entry`, exploring the first e entries of N (e is clamped to 1..LN). On return nn[0..LN)
// holds the best vertices found, sorted by (distance, id), EMPTY_KEY after them; the answer is
// its first entries. nn, tk and tid are this warp's arrays in shared memory (LN, TL and TL
// long), hs its visited set (HS slots); q is the query (in shared memory, 16-byte aligned where
// DIM % 4 == 0); base holds the rows as floats or halves (common.cuh). Every lane of the warp
// must call it with the same arguments.
//
// GANNS computes the distance of every neighbour and drops those already in N by the lazy
// check. With a visited set, a neighbour already in it is dropped before its distance is
// computed, and N is the same at every step: the set holds N's ids (all of them where
// LN <= HS / 4; else the lazy check still runs, on the new neighbours alone), and an id it holds
// that is not in N was computed and left out of N earlier, so it is farther than N's last
// entry, which only moves nearer, and the merge would leave it out again.
template <class T>
__device__ void ganns_search_warp(const float* q, const T* __restrict__ base, unsigned n,
                                  const unsigned* __restrict__ adj, unsigned entry, unsigned e, ann_key* nn,
                                  ann_key* tk, unsigned* tid, unsigned* hs) {
    const unsigned lane = threadIdx.x & 31u;
    if (e > LN) e = LN;
    if (e == 0u) e = 1u;
    if (entry >= n) entry = 0u;
    for (unsigned i = lane; i < LN; i += 32u) nn[i] = EMPTY_KEY;
#if HS_LOG2 != 0
    unsigned held = ganns_reset(hs, nn) + 1u;
    if (lane == 0u) ganns_visit(hs, entry);
#endif
    // The entry's distance, by the same code as every other vertex's.
    if (lane == 0u) tid[0] = entry;
    __syncwarp();
    ganns_distances(q, base, tid, 1u, tk);
    __syncwarp();
    if (lane == 0u) nn[0] = tk[0];
    __syncwarp();
    for (;;) {
        // 1. Candidate locating: the first unexplored entry among the first e.
        unsigned pos = LN;
        for (unsigned c = 0u; c < e; c += 32u) {
            const unsigned i = c + lane;
            const bool open = i < e && (nn[i] & 1ull) == 0ull;
            const unsigned b = __ballot_sync(FULL_MASK, open);
            if (b != 0u) {
                pos = c + (unsigned)(__ffs(b) - 1);
                break;
            }
        }
        if (pos == LN) break;
        const ann_key cur = nn[pos];
        const unsigned v = ganns_id(cur);
        __syncwarp();
        if (lane == 0u) nn[pos] = cur | 1ull;
#if HS_LOG2 != 0
        if (held + DEG > HS / 2u) held = ganns_reset(hs, nn);
#endif
        // 2. Neighbourhood exploration: v's neighbours (not yet visited, where there is a
        // visited set, which takes a repeated id once) into tid[0..fresh); ids out of range
        // are empty slots.
        const unsigned* row = adj + (size_t)v * DEG;
        unsigned fresh = 0u;
        for (unsigned c = 0u; c < DEG; c += 32u) {
            const unsigned t = c + lane;
            const unsigned u = t < DEG ? ADJ_LOAD(row + t) : NONE_ID;
#if HS_LOG2 != 0
            const bool add = u < n && ganns_visit(hs, u);
#else
            const bool add = u < n;
#endif
            const unsigned b = __ballot_sync(FULL_MASK, add);
            if (add) tid[fresh + (unsigned)__popc(b & ((1u << lane) - 1u))] = u;
            fresh += (unsigned)__popc(b);
        }
#if HS_LOG2 != 0
        held += fresh;
#endif
        __syncwarp();
        if (fresh == 0u) continue;
        // 3. Bulk distance computation.
        ganns_distances(q, base, tid, fresh, tk);
        __syncwarp();
#if LN > HS / 4
        // 4. Lazy check: a neighbour already in N (where there is a visited set, one left out
        // of it when it was last emptied) is dropped, as is (without one) a repeat in the row.
        for (unsigned t = lane; t < fresh; t += 32u) {
            bool drop = ganns_in_list(nn, tk[t]);
#if HS_LOG2 == 0
            for (unsigned j = 0u; j < t && !drop; ++j) drop = tid[j] == tid[t];
#endif
            if (drop) tk[t] = EMPTY_KEY;
        }
#endif
        // 5. T into N, keeping the LN best.
        ganns_insert(nn, tk, tid, fresh);
    }
    __syncwarp();
}

// Ranks N's first e entries again by their distances over `base` (the full-precision rows of a
// search made over half-precision ones): nn[0..e) := those vertices sorted by (distance over
// base, id), unexplored, EMPTY_KEY after them (and where N held fewer than e). tk and tid are
// the warp's T arrays (TL long). Every lane must call it.
__device__ void ganns_rerank(const float* q, const float* __restrict__ base, ann_key* nn, unsigned e, ann_key* tk,
                             unsigned* tid) {
    const unsigned lane = threadIdx.x & 31u;
    if (e > LN) e = LN;
    for (unsigned c = 0u; c < e; c += TL) {
        const unsigned m = e - c < TL ? e - c : TL;
        __syncwarp();
        for (unsigned j = lane; j < m; j += 32u) tid[j] = nn[c + j] == EMPTY_KEY ? NONE_ID : ganns_id(nn[c + j]);
        __syncwarp();
        ganns_distances(q, base, tid, m, tk);
        __syncwarp();
        for (unsigned j = lane; j < m; j += 32u) nn[c + j] = tid[j] == NONE_ID ? EMPTY_KEY : tk[j];
    }
    for (unsigned i = e + lane; i < LN; i += 32u) nn[i] = EMPTY_KEY;
    warp_sort<LN>(nn);
}
