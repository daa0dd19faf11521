// SGD for matrix factorisation on the GPU (thesis §3.1's update, §3.2's GPU side: CuMF_SGD,
// Xie et al., HPDC 2017): batch-Hogwild!, one warp a parallel worker.
//
// sgd_update: the ratings [start, end) of a device array of (u, v, r) triples (r as float bits)
// are cut into chunks of CHUNK; worker w (warp w of the launch, w < workers) takes the w-th of
// `workers` even runs of consecutive chunks, in order, so `workers` bounds the warps at work
// and one worker updates every rating in order. (CuMF_SGD deals chunks w, w + workers, ...
// instead; on a range ordered by groups of users, a hybrid phase's, that would crowd the
// warps at work onto one group's rows at a time, while runs spread them over the whole range.)
// The warp reads its ratings 32 at a time, one a lane, the next
// 32 while it updates these, and hands each round by shuffles. Per rating it loads rows p_u and
// q_v coalesced, lane l holding columns j*SPAN + l*VEC .. + VEC (VEC consecutive factors, one
// vector load each), sums p_u·q_v by butterfly shuffles (every lane ends with the same sum), and
// each lane updates its columns of both rows from their old values:
//     e = r - p·q;  p += lr (e q - lambda_p p);  q += lr (e p - lambda_q q)
// and stores them. Workers race on shared rows as Hogwild! does; a lane always reads back the
// columns it wrote itself (its own load after its own store of the same address).
//
// The rows are read by plain (weak) loads, as CuMF_SGD's are: they may be served by this
// multiprocessor's L1, so a row another worker updated meanwhile can be read stale until its
// line leaves L1 (Hogwild! tolerates it; the test RMSE after 20 epochs on a Netflix-shaped set
// is unchanged). Loads through L2 only (__ldcg) are strong loads on sm_70 and later
// (LDG.E.STRONG.GPU), and each one waited for the warp's stores before it: an epoch took twice
// as long (bench/results/2026-11-29-mf-kernel.md).
//
// to_half, from_half (HALF only): factors between float rows and the half matrix, from element
// `at` of the matrix, one thread an element.
//
// Defined before this text (gpu/source.rs): K (the rank, 1 to 1024), HALF (1: factors stored
// as IEEE half, arithmetic in float; 0: float), VEC (factors a lane loads at once, dividing K:
// 1, 2 or 4 floats, 1, 2, 4 or 8 halves), WPB (warps a block), CHUNK (a multiple of 32).

#if K < 1 || K > 1024 || K % VEC != 0
#error "K must be 1 to 1024, a multiple of VEC"
#endif
#if CHUNK % 32 != 0
#error "CHUNK must be a multiple of 32"
#endif

#define FULL 0xFFFFFFFFu
#define SPAN (32 * VEC)
#define NV ((K + SPAN - 1) / SPAN)
#define NE (NV * VEC)
#define EVEN (K % SPAN == 0)

#if HALF
typedef unsigned short factor;
// The matrices as kernel parameters: two halves a word, element c at the low half of word c/2.
typedef unsigned factor_word;
__device__ __forceinline__ float lo(unsigned w) { return half_to_f32((unsigned short)(w & 0xFFFFu)); }
__device__ __forceinline__ float hi(unsigned w) { return half_to_f32((unsigned short)(w >> 16)); }
__device__ __forceinline__ unsigned pack(float a, float b) {
    return (unsigned)f32_to_half(a) | ((unsigned)f32_to_half(b) << 16);
}
#else
typedef float factor;
typedef float factor_word;
#endif

// x[0 .. VEC) = the factors at `at` (VEC-aligned).
__device__ __forceinline__ void load_vec(const factor* at, float* x) {
#if HALF && VEC == 8
    const uint4 w = *(const uint4*)at;
    x[0] = lo(w.x); x[1] = hi(w.x); x[2] = lo(w.y); x[3] = hi(w.y);
    x[4] = lo(w.z); x[5] = hi(w.z); x[6] = lo(w.w); x[7] = hi(w.w);
#elif HALF && VEC == 4
    const uint2 w = *(const uint2*)at;
    x[0] = lo(w.x); x[1] = hi(w.x); x[2] = lo(w.y); x[3] = hi(w.y);
#elif HALF && VEC == 2
    const unsigned w = *(const unsigned*)at;
    x[0] = lo(w); x[1] = hi(w);
#elif HALF
    x[0] = half_to_f32(*at);
#elif VEC == 4
    const float4 w = *(const float4*)at;
    x[0] = w.x; x[1] = w.y; x[2] = w.z; x[3] = w.w;
#elif VEC == 2
    const float2 w = *(const float2*)at;
    x[0] = w.x; x[1] = w.y;
#else
    x[0] = *at;
#endif
}

// The factors at `at` (VEC-aligned) = x[0 .. VEC).
__device__ __forceinline__ void store_vec(factor* at, const float* x) {
#if HALF && VEC == 8
    uint4 w;
    w.x = pack(x[0], x[1]); w.y = pack(x[2], x[3]); w.z = pack(x[4], x[5]); w.w = pack(x[6], x[7]);
    *(uint4*)at = w;
#elif HALF && VEC == 4
    uint2 w;
    w.x = pack(x[0], x[1]); w.y = pack(x[2], x[3]);
    *(uint2*)at = w;
#elif HALF && VEC == 2
    *(unsigned*)at = pack(x[0], x[1]);
#elif HALF
    *at = f32_to_half(x[0]);
#elif VEC == 4
    float4 w;
    w.x = x[0]; w.y = x[1]; w.z = x[2]; w.w = x[3];
    *(float4*)at = w;
#elif VEC == 2
    float2 w;
    w.x = x[0]; w.y = x[1];
    *(float2*)at = w;
#else
    *at = x[0];
#endif
}

// The lane's columns of `row` into x (zero past the row's end).
__device__ __forceinline__ void load_row(const factor* row, unsigned lane, float* x) {
#pragma unroll
    for (unsigned j = 0; j < NV; ++j) {
        const unsigned c = j * SPAN + lane * VEC;
        if (EVEN || c < K) {
            load_vec(row + c, x + j * VEC);
        } else {
#pragma unroll
            for (unsigned e = 0; e < VEC; ++e) x[j * VEC + e] = 0.0f;
        }
    }
}

__device__ __forceinline__ void store_row(factor* row, unsigned lane, const float* x) {
#pragma unroll
    for (unsigned j = 0; j < NV; ++j) {
        const unsigned c = j * SPAN + lane * VEC;
        if (EVEN || c < K) store_vec(row + c, x + j * VEC);
    }
}

// One rating's update by the whole warp (converged); returns its error before the update.
__device__ __forceinline__ float sgd_one(factor* prow, factor* qrow, float r, unsigned lane, float lr, float lambda_p,
                                        float lambda_q) {
    float p[NE], q[NE];
    load_row(prow, lane, p);
    load_row(qrow, lane, q);
    float dot = 0.0f;
#pragma unroll
    for (unsigned e = 0; e < NE; ++e) dot += p[e] * q[e];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(FULL, dot, o);
    const float err = r - dot;
#pragma unroll
    for (unsigned e = 0; e < NE; ++e) {
        const float a = p[e], b = q[e];
        p[e] = a + lr * (err * b - lambda_p * a);
        q[e] = b + lr * (err * a - lambda_q * b);
    }
    store_row(prow, lane, p);
    store_row(qrow, lane, q);
    return err;
}

extern "C" __global__ void __launch_bounds__(WPB * 32)
    sgd_update(const unsigned* __restrict__ ratings, unsigned long long start, unsigned long long end,
               factor_word* p_words, factor_word* q_words, float lr, float lambda_p, float lambda_q,
               unsigned workers, float* __restrict__ losses) {
    factor* p = (factor*)p_words;
    factor* q = (factor*)q_words;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned worker = blockIdx.x * WPB + (threadIdx.x >> 5);
    if (worker >= workers) return;
    // The worker's share: chunks [worker·C/workers, (worker + 1)·C/workers) of the range's C
    // chunks, so its ratings are one stretch, first .. first + n (the last chunk maybe partial).
    const unsigned long long chunks = (end - start + CHUNK - 1) / CHUNK;
    const unsigned long long first = start + worker * chunks / workers * CHUNK;
    const unsigned long long stop = start + (worker + 1ull) * chunks / workers * CHUNK;
    float loss = 0.0f;
    if (first < end) {
        const unsigned long long n = (stop < end ? stop : end) - first;
        // 32 ratings at a time, one a lane.
        unsigned u = 0, v = 0, r = 0;
        if (lane < n) {
            u = __ldg(ratings + 3 * (first + lane));
            v = __ldg(ratings + 3 * (first + lane) + 1);
            r = __ldg(ratings + 3 * (first + lane) + 2);
        }
        for (unsigned long long s = 0; s < n; s += 32) {
            // The next 32, read while these are updated.
            unsigned nu = 0, nv = 0, nr = 0;
            const unsigned long long sn = s + 32 + lane;
            if (sn < n) {
                const unsigned long long i = first + sn;
                nu = __ldg(ratings + 3 * i);
                nv = __ldg(ratings + 3 * i + 1);
                nr = __ldg(ratings + 3 * i + 2);
            }
            const unsigned m = n - s < 32 ? (unsigned)(n - s) : 32u;
            for (unsigned t = 0; t < m; ++t) {
                const unsigned ut = __shfl_sync(FULL, u, t);
                const unsigned vt = __shfl_sync(FULL, v, t);
                const float rt = __uint_as_float(__shfl_sync(FULL, r, t));
                const float err = sgd_one(p + (unsigned long long)ut * K, q + (unsigned long long)vt * K, rt, lane,
                                          lr, lambda_p, lambda_q);
                loss += err * err;
            }
            u = nu;
            v = nv;
            r = nr;
        }
    }
    // Each worker's sum of squared errors (LIBMF's training loss), added to its own slot: the
    // runs of one engine are in stream order, so no two add to a slot at once.
    if (lane == 0) losses[worker] += loss;
}

#if HALF
extern "C" __global__ void to_half(const float* __restrict__ src, unsigned long long n, unsigned* dst,
                                   unsigned long long at) {
    factor* d = (factor*)dst + at;
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        d[i] = f32_to_half(src[i]);
}

extern "C" __global__ void from_half(const unsigned* __restrict__ src, unsigned long long at, unsigned long long n,
                                     float* dst) {
    const factor* s = (const factor*)src + at;
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        dst[i] = half_to_f32(s[i]);
}
#endif
