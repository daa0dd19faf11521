// Device code shared by the vector-search kernels of subgraph-ann (thesis ch. 4, §2.2): keys
// ordered by (distance, id), the distance of two rows computed by one warp, and the warp-level
// bitonic sort and stable merge of sorted key lists in shared memory.
//
// Compile-time constants (#defines put before this text by gpu/source.rs):
//   DIM     the dimension of the vectors;
//   METRIC  0: squared Euclidean distance; 1: 1 - a.b (inner product, and cosine over rows
//           normalised beforehand).
//
// A base row is read as floats, or as IEEE half-precision values (`half_row`: the 16 bits of
// each, two a word, component c of a row in the low half of word c / 2 where DIM is even),
// widened to float before any arithmetic (half_to_f32, from subgraph-cuda's half.cuh, which
// gpu/source.rs puts before this text); queries are always floats.
//
// Distances are computed with explicit __fsub_rn/__fmaf_rn, in a fixed order, so that the same
// pair of rows always gives the same bits wherever the code is inlined (the search's lazy check
// finds a vertex in N by its distance).

#define FULL_MASK 0xFFFFFFFFu
#define NONE_ID 0xFFFFFFFFu
#define EMPTY_KEY 0xFFFFFFFFFFFFFFFFull
#define QLEN ((DIM + 3) / 4 * 4)

#if DIM < 1 || DIM > 4096
#error "DIM must be 1 to 4096"
#endif
#if METRIC != 0 && METRIC != 1
#error "METRIC must be 0 (l2) or 1 (1 - dot)"
#endif

// A sortable entry: the distance's ordered bits in the high word, an id (and flags) below.
typedef unsigned long long ann_key;

// The bits of a distance as an unsigned integer of the same order (negatives flipped), with
// -0 read as +0 so that both zeros are one distance.
__device__ __forceinline__ unsigned ord_bits(float d) {
    unsigned b = __float_as_uint(d);
    if (b == 0x80000000u) b = 0u;
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// The distance whose ordered bits are `o`.
__device__ __forceinline__ float ord_float(unsigned o) {
    return __uint_as_float((o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o);
}

__device__ __forceinline__ float infinity_f32() { return __uint_as_float(0x7F800000u); }

// Whether id passes the filter bitset `words` (bit id % 32 of word id / 32).
__device__ __forceinline__ bool allowed_bit(const unsigned* __restrict__ words, unsigned id) {
    return ((__ldg(words + (id >> 5)) >> (id & 31u)) & 1u) != 0u;
}

// The bits of an IEEE half-precision value, as base rows held in half precision store them.
typedef unsigned short half_row;

// A row's component as a float.
__device__ __forceinline__ float widen(float x) { return x; }
__device__ __forceinline__ float widen(half_row x) { return half_to_f32(x); }

// Components 4i to 4i + 3 of a row (DIM % 4 == 0, so a row's groups are aligned: 16 bytes of
// floats, 8 of halves) as loaded, and as floats.
__device__ __forceinline__ float4 raw4(const float* __restrict__ x, unsigned i) {
    return __ldg(reinterpret_cast<const float4*>(x) + i);
}
__device__ __forceinline__ uint2 raw4(const half_row* __restrict__ x, unsigned i) {
    return __ldg(reinterpret_cast<const uint2*>(x) + i);
}
__device__ __forceinline__ float4 widen4(float4 x) { return x; }
__device__ __forceinline__ float4 widen4(uint2 w) {
    return make_float4(half_to_f32((half_row)(w.x & 0xFFFFu)), half_to_f32((half_row)(w.x >> 16)),
                       half_to_f32((half_row)(w.y & 0xFFFFu)), half_to_f32((half_row)(w.y >> 16)));
}

// Adds one component pair to a lane's share of a distance: (a - b)^2, or a.b.
__device__ __forceinline__ float accumulate1(float acc, float a, float b) {
#if METRIC == 0
    const float d = __fsub_rn(a, b);
    return __fmaf_rn(d, d, acc);
#else
    return __fmaf_rn(a, b, acc);
#endif
}

// Adds four component pairs, in order (x, y, z, w), as four calls of accumulate1 would.
__device__ __forceinline__ float accumulate4(float acc, float4 a, float4 b) {
#if METRIC == 0
    const float d0 = __fsub_rn(a.x, b.x), d1 = __fsub_rn(a.y, b.y);
    const float d2 = __fsub_rn(a.z, b.z), d3 = __fsub_rn(a.w, b.w);
    acc = __fmaf_rn(d0, d0, acc);
    acc = __fmaf_rn(d1, d1, acc);
    acc = __fmaf_rn(d2, d2, acc);
    return __fmaf_rn(d3, d3, acc);
#else
    acc = __fmaf_rn(a.x, b.x, acc);
    acc = __fmaf_rn(a.y, b.y, acc);
    acc = __fmaf_rn(a.z, b.z, acc);
    return __fmaf_rn(a.w, b.w, acc);
#endif
}

// This lane's share of the distance between q and x: dimensions lane, lane + 32, ... (as
// groups of four where DIM % 4 == 0). x is a row of the base (floats or halves) in global
// memory; q may be anywhere.
template <class T>
__device__ __forceinline__ float lane_partial(const float* q, const T* __restrict__ x) {
    const unsigned lane = threadIdx.x & 31u;
    float acc = 0.0f;
#if DIM % 4 == 0
    const float4* q4 = reinterpret_cast<const float4*>(q);
    for (unsigned i = lane; i < DIM / 4; i += 32u) acc = accumulate4(acc, q4[i], widen4(raw4(x, i)));
#else
    for (unsigned i = lane; i < DIM; i += 32u) acc = accumulate1(acc, q[i], widen(__ldg(x + i)));
#endif
    return acc;
}

// This lane's shares of the distances between q and the R base rows id[0..R) (NONE_ID: no
// row, a share of 0), each with lane_partial's bits: at each step every row's components are
// loaded before any is used, so that the R rows' reads are in flight together (a loop of
// lane_partial calls waits for each row before it asks for the next). Components are kept as
// loaded until used: a half row's take half the registers of a float row's, so twice the rows
// can be in flight for the registers.
template <unsigned R, class T>
__device__ __forceinline__ void lane_partials(const float* q, const T* __restrict__ base, const unsigned (&id)[R],
                                              float (&acc)[R]) {
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned u = 0u; u < R; ++u) acc[u] = 0.0f;
#if DIM % 4 == 0
    const float4* q4 = reinterpret_cast<const float4*>(q);
    for (unsigned i = lane; i < DIM / 4; i += 32u) {
        decltype(raw4(base, 0u)) b[R];
#pragma unroll
        for (unsigned u = 0u; u < R; ++u) {
            b[u] = {};
            if (id[u] != NONE_ID) b[u] = raw4(base + (size_t)id[u] * DIM, i);
        }
        const float4 a = q4[i];
#pragma unroll
        for (unsigned u = 0u; u < R; ++u) acc[u] = accumulate4(acc[u], a, widen4(b[u]));
    }
#else
    for (unsigned i = lane; i < DIM; i += 32u) {
        T b[R];
#pragma unroll
        for (unsigned u = 0u; u < R; ++u) b[u] = id[u] != NONE_ID ? __ldg(base + (size_t)id[u] * DIM + i) : T(0);
        const float a = q[i];
#pragma unroll
        for (unsigned u = 0u; u < R; ++u) acc[u] = accumulate1(acc[u], a, widen(b[u]));
    }
#endif
#pragma unroll
    for (unsigned u = 0u; u < R; ++u)
        if (id[u] == NONE_ID) acc[u] = 0.0f;
}

// The distance from the lanes' shares, in every lane (lane 0's sum, broadcast).
__device__ __forceinline__ float warp_total(float part) {
    for (unsigned o = 16u; o > 0u; o >>= 1) part = __fadd_rn(part, __shfl_xor_sync(FULL_MASK, part, o));
    part = __shfl_sync(FULL_MASK, part, 0);
#if METRIC == 1
    part = __fsub_rn(1.0f, part);
#endif
    return part;
}

// The totals of R values across the warp (R a power of two, 1 to 32), each lane holding its
// share of all R in v (overwritten): lane l gets the total of v[l / (32 / R)], computed, like
// warp_total, over the pairs of lanes l ^ 16, then l ^ 8, ..., l ^ 1, so that each total has
// warp_total's bits (an IEEE sum of two is commutative). Each level sends half of what a lane
// still holds: R - 1 + log2(32 / R) shuffles for R totals, where warp_total takes 5 for one.
template <unsigned R>
__device__ __forceinline__ float warp_totals(float (&v)[R]) {
    static_assert(R >= 1u && R <= 32u && (R & (R - 1u)) == 0u, "R must be a power of two, 1 to 32");
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned h = R / 2u, o = 16u; h > 0u; h >>= 1, o >>= 1) {
        const bool upper = (lane & o) != 0u;
#pragma unroll
        for (unsigned j = 0u; j < h; ++j) {
            const float keep = upper ? v[j + h] : v[j];
            const float send = upper ? v[j] : v[j + h];
            v[j] = __fadd_rn(keep, __shfl_xor_sync(FULL_MASK, send, o));
        }
    }
    float part = v[0];
#pragma unroll
    for (unsigned o = 16u / R; o > 0u; o >>= 1) part = __fadd_rn(part, __shfl_xor_sync(FULL_MASK, part, o));
#if METRIC == 1
    part = __fsub_rn(1.0f, part);
#endif
    return part;
}

// The distance between q and the base row x, computed by the whole warp (every lane must call
// it, with the same arguments), returned in every lane.
template <class T>
__device__ __forceinline__ float warp_distance(const float* q, const T* __restrict__ x) {
    return warp_total(lane_partial(q, x));
}

// Sorts a[0..LEN) ascending (LEN a power of two, at least 2) with the warp: a bitonic network,
// one compare-exchange per pair and lane at a time. Every lane must call it.
template <unsigned LEN>
__device__ __forceinline__ void warp_sort(ann_key* a) {
    static_assert(LEN >= 2 && (LEN & (LEN - 1u)) == 0u, "LEN must be a power of two");
    const unsigned lane = threadIdx.x & 31u;
    __syncwarp();
    for (unsigned kk = 2u; kk <= LEN; kk <<= 1) {
        for (unsigned j = kk >> 1; j > 0u; j >>= 1) {
            for (unsigned p = lane; p < LEN / 2u; p += 32u) {
                const unsigned i = 2u * p - (p & (j - 1u));  // bit j of i clear
                const unsigned l = i + j;
                const ann_key x = a[i], y = a[l];
                const bool up = (i & kk) == 0u;
                if (up ? x > y : x < y) {
                    a[i] = y;
                    a[l] = x;
                }
            }
            __syncwarp();
        }
    }
}

// Entries of sorted a[0..len) below x (at most x when or_equal).
__device__ __forceinline__ unsigned count_below(const ann_key* a, unsigned len, ann_key x, bool or_equal) {
    unsigned lo = 0u, hi = len;
    while (lo < hi) {
        const unsigned mid = (lo + hi) >> 1;
        const ann_key y = a[mid];
        if (or_equal ? y <= x : y < x) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

// out[0..k) := the k smallest of a[0..k) and b[0..lb), both sorted ascending: each entry goes
// to its rank in the stable merge (a's first among equal keys), computed by binary search in
// the other list. out must not overlap a or b. Every lane must call it; the caller syncs the
// warp before (inputs written) and after (before reading out).
__device__ __forceinline__ void warp_merge_k(const ann_key* a, unsigned k, const ann_key* b, unsigned lb,
                                             ann_key* out) {
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned j = lane; j < k; j += 32u) {
        const ann_key x = a[j];
        const unsigned at = j + count_below(b, lb, x, false);
        if (at < k) out[at] = x;
    }
    for (unsigned i = lane; i < lb && i < k; i += 32u) {
        const ann_key x = b[i];
        const unsigned at = i + count_below(a, k, x, true);
        if (at < k) out[at] = x;
    }
}
