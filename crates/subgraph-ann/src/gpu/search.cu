// GANNS search kernel (thesis §2.2) over a proximity graph held on the device, one warp a query
// at a time, WPB warps a block: for each query, ganns_search's warp descends an HNSW graph's
// upper layers greedily (§4.3's extension) to the entry of layer 0, searches layer 0 by GANNS
// (ganns.cuh) and answers: the first k entries of N among its first ef that pass the filter,
// padded with NONE_ID and infinity.
//
// With HALF 1 the descent and the search read the base's rows in half precision (`half`, two a
// word: rows of half the bytes), and N's first ef entries are ranked again by their distances
// over the full-precision rows (`base`) before the answer, so that the distances returned are
// exact; with HALF 0 `half` is not read.
//
// Compile-time constants, besides common.cuh's and ganns.cuh's: WPB, warps (queries) a block;
// HALF (0 or 1); TO_HALF_THREADS, threads a block of ann_to_half; HALF_MAX, the largest finite
// half-precision value (a float literal).

#if WPB < 1 || WPB > 32
#error "WPB must be 1 to 32"
#endif
#if HALF != 0 && HALF != 1
#error "HALF must be 0 or 1"
#endif

// The rows the search reads: the halves (two a word) or the floats.
#if HALF
#define SEARCH_ROWS(base, half) reinterpret_cast<const half_row*>(half)
#else
#define SEARCH_ROWS(base, half) (base)
#endif

// dst := the n floats of src as halves, rounded to nearest even, two a word (element i in the
// low half of word i / 2; a last odd element's high half 0); *beyond := the least index of an
// element beyond HALF_MAX in magnitude, where it held more (the caller sets it to all ones
// before). A thread a word, TO_HALF_THREADS a block.
extern "C" __global__ void __launch_bounds__(TO_HALF_THREADS)
    ann_to_half(const float* __restrict__ src, unsigned long long n, unsigned* __restrict__ dst,
                unsigned long long* __restrict__ beyond) {
    const unsigned long long w = (unsigned long long)blockIdx.x * TO_HALF_THREADS + threadIdx.x;
    if (2ull * w >= n) return;
    const float a = src[2ull * w], b = 2ull * w + 1ull < n ? src[2ull * w + 1ull] : 0.0f;
    if (fabsf(a) > HALF_MAX) atomicMin(beyond, 2ull * w);
    else if (fabsf(b) > HALF_MAX) atomicMin(beyond, 2ull * w + 1ull);
    dst[w] = (unsigned)f32_to_half(a) | ((unsigned)f32_to_half(b) << 16);
}

static_assert(sizeof(ann_key) * WPB * (LN + TL) + sizeof(unsigned) * WPB * (TL + HS) + sizeof(float) * WPB * QLEN <=
                  49152u,
              "static shared memory of ganns_search over 48 KiB");

// Copies query row q into this warp's shared row s (QLEN floats, the tail zero).
__device__ __forceinline__ void load_query(const float* __restrict__ queries, unsigned q, float* s) {
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned i = lane; i < QLEN; i += 32u) s[i] = i < DIM ? __ldg(queries + (size_t)q * DIM + i) : 0.0f;
    __syncwarp();
}

// GANNS search of layer 0 (n vertices, DEG slots a row) for each query, from the entry that the
// descent of the upper layers (`upper`, `meta` and `layers` as ganns_entry takes them) gives,
// with exploration bound ef; writes the first k entries of N among its first min(ef, LN) whose id
// passes `allowed` (every id when filtered == 0) to out_ids/out_dist[q * k ..], each id as
// id_map[id] where mapped != 0 (the caller's numbering), then NONE_ID and infinity. Each warp
// takes the next query from the counter *next (zero at the launch) until none is left, so that
// a warp whose query ends early takes another where it would idle until its block's slowest
// query ended, and a grid of as many blocks as the device holds at once has no last wave: the
// answer of a query does not depend on which warp searched it.
extern "C" __global__ void __launch_bounds__(WPB * 32, MINB)
    ganns_search(const float* __restrict__ queries, unsigned nq, const float* __restrict__ base,
                 const unsigned* __restrict__ half, unsigned n, const unsigned* __restrict__ adj,
                 const unsigned* __restrict__ upper, const unsigned* __restrict__ meta, unsigned layers, unsigned ef,
                 unsigned k, const unsigned* __restrict__ allowed, unsigned filtered,
                 const unsigned* __restrict__ id_map, unsigned mapped, unsigned* __restrict__ next,
                 unsigned* __restrict__ out_ids, float* __restrict__ out_dist) {
    __shared__ ann_key s_n[WPB][LN];
    __shared__ ann_key s_t[WPB][TL];
    __shared__ unsigned s_id[WPB][TL];
    __shared__ unsigned s_h[WPB][HS];
    __shared__ __align__(16) float s_q[WPB][QLEN];
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned e = ef < 1u ? 1u : (ef > LN ? LN : ef);
    for (;;) {
        unsigned q = 0u;
        if (lane == 0u) q = atomicAdd(next, 1u);
        q = __shfl_sync(FULL_MASK, q, 0);
        if (q >= nq) return;
        load_query(queries, q, s_q[w]);
        const auto rows = SEARCH_ROWS(base, half);
        const unsigned entry = ganns_entry(s_q[w], rows, upper, meta, layers, n);
        ganns_search_warp(s_q[w], rows, n, adj, entry, ef, s_n[w], s_t[w], s_id[w], s_h[w]);
#if HALF
        ganns_rerank(s_q[w], base, s_n[w], e, s_t[w], s_id[w]);
#endif
        const ann_key* nn = s_n[w];
        unsigned found = 0u;
        for (unsigned c = 0u; c < e && found < k; c += 32u) {
            const unsigned i = c + lane;
            const ann_key key = i < e ? nn[i] : EMPTY_KEY;
            const unsigned id = ganns_id(key);
            const bool pass = key != EMPTY_KEY && (filtered == 0u || allowed_bit(allowed, id));
            const unsigned b = __ballot_sync(FULL_MASK, pass);
            const unsigned r = found + (unsigned)__popc(b & ((1u << lane) - 1u));
            if (pass && r < k) {
                out_ids[(size_t)q * k + r] = mapped != 0u ? __ldg(id_map + id) : id;
                out_dist[(size_t)q * k + r] = ganns_distance(key);
            }
            found += (unsigned)__popc(b);
        }
        for (unsigned r = found + lane; r < k; r += 32u) {
            out_ids[(size_t)q * k + r] = NONE_ID;
            out_dist[(size_t)q * k + r] = infinity_f32();
        }
        // The query row and N are read by every lane above: none is overwritten before.
        __syncwarp();
    }
}
