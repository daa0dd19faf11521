// GANNS search of one query by one warp (thesis §2.2, Fig. 4.1), as a __device__ function that
// the search kernel (search.cu) calls and that a graph builder (GGraphCon, §2.3: insertions and
// batch merges search the graph built so far) can call from its own kernel after this text.
//
// Compile-time constants, besides common.cuh's:
//   LN   length of N, a power of two, 32 to 1024: the best vertices found so far, sorted;
//   DEG  slots of an adjacency row (the out-degree bound of the searched layer);
//   TL   length of T, the power of two at least max(DEG, 32): the explored vertex's neighbours.
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
#if DEG < 1 || TL < DEG || TL < 32 || (TL & (TL - 1)) != 0
#error "TL must be the power of two at least max(DEG, 32)"
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

// nn := the LN smallest of nn ∪ tk (both sorted ascending): the smaller of nn[i] and
// tk[LN - 1 - i] at each i makes a bitonic sequence holding them, which a bitonic merge sorts.
__device__ __forceinline__ void ganns_merge(ann_key* nn, const ann_key* tk) {
    const unsigned lane = threadIdx.x & 31u;
    __syncwarp();
    if (tk[0] >= nn[LN - 1u]) return;  // nothing in T beats N's last (uniform: shared reads)
    __syncwarp();
    constexpr unsigned M = LN < TL ? LN : TL;
    for (unsigned i = LN - M + lane; i < LN; i += 32u) {
        const ann_key t = tk[LN - 1u - i];
        if (t < nn[i]) nn[i] = t;
    }
    __syncwarp();
    for (unsigned s = LN / 2u; s > 0u; s >>= 1) {
        for (unsigned p = lane; p < LN / 2u; p += 32u) {
            const unsigned i = 2u * p - (p & (s - 1u));  // bit s of i clear
            const ann_key x = nn[i], y = nn[i + s];
            if (x > y) {
                nn[i] = y;
                nn[i + s] = x;
            }
        }
        __syncwarp();
    }
}

// The distances from q to DEG vertices tid[0..DEG) (NONE_ID: an empty slot) as keys in
// tk[0..DEG), four rows at a time so that their loads overlap. Every lane must call it.
__device__ __forceinline__ void ganns_distances(const float* q, const float* __restrict__ base,
                                                const unsigned* tid, ann_key* tk) {
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned t0 = 0u; t0 < DEG; t0 += 4u) {
        unsigned id[4];
        float part[4];
#pragma unroll
        for (unsigned u = 0u; u < 4u; ++u) {
            id[u] = t0 + u < DEG ? tid[t0 + u] : NONE_ID;
            part[u] = id[u] != NONE_ID ? lane_partial(q, base + (size_t)id[u] * DIM) : 0.0f;
        }
#pragma unroll
        for (unsigned u = 0u; u < 4u; ++u) {
            const float d = warp_total(part[u]);
            if (lane == 0u && t0 + u < DEG) tk[t0 + u] = id[u] != NONE_ID ? ganns_key(d, id[u]) : EMPTY_KEY;
        }
    }
}

// Searches the layer `adj` (n vertices, DEG slots a row, NONE_ID padding) for the query q from
// vertex `entry`, exploring the first e entries of N (e is clamped to 1..LN). On return nn[0..LN)
// holds the best vertices found, sorted by (distance, id), EMPTY_KEY after them; the answer is
// its first entries. nn, tk and tid are this warp's arrays in shared memory (LN, TL and TL
// long); q is the query (in shared memory, 16-byte aligned where DIM % 4 == 0). Every lane of
// the warp must call it with the same arguments.
__device__ void ganns_search_warp(const float* q, const float* __restrict__ base, unsigned n,
                                  const unsigned* __restrict__ adj, unsigned entry, unsigned e, ann_key* nn,
                                  ann_key* tk, unsigned* tid) {
    const unsigned lane = threadIdx.x & 31u;
    if (e > LN) e = LN;
    if (e == 0u) e = 1u;
    if (entry >= n) entry = 0u;
    for (unsigned i = lane; i < LN; i += 32u) nn[i] = EMPTY_KEY;
    // The entry's distance, by the same code as every other vertex's.
    for (unsigned t = lane; t < TL; t += 32u) tid[t] = t == 0u ? entry : NONE_ID;
    __syncwarp();
    ganns_distances(q, base, tid, tk);
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
        // 2. Neighbourhood exploration: v's row into T (ids out of range read as empty).
        const unsigned* row = adj + (size_t)v * DEG;
        for (unsigned t = lane; t < TL; t += 32u) {
            unsigned u = t < DEG ? ADJ_LOAD(row + t) : NONE_ID;
            if (u >= n) u = NONE_ID;
            tid[t] = u;
        }
        __syncwarp();
        // 3. Bulk distance computation.
        ganns_distances(q, base, tid, tk);
        for (unsigned t = DEG + lane; t < TL; t += 32u) tk[t] = EMPTY_KEY;
        __syncwarp();
        // 4. Lazy check: a neighbour already in N (or repeated earlier in the row) is dropped.
        for (unsigned t = lane; t < DEG; t += 32u) {
            const ann_key key = tk[t];
            if (key == EMPTY_KEY) continue;
            bool drop = ganns_in_list(nn, key);
            const unsigned u = tid[t];
            for (unsigned j = 0u; j < t && !drop; ++j) drop = tid[j] == u;
            if (drop) tk[t] = EMPTY_KEY;
        }
        // 5. Sort T by (distance, id); 6. merge it into N, keeping the LN best.
        warp_sort<TL>(tk);
        ganns_merge(nn, tk);
    }
    __syncwarp();
}
