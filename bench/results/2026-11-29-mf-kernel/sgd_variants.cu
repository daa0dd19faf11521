// SGD for matrix factorisation on the GPU (thesis §3.1's update, §3.2's GPU side: CuMF_SGD,
// Xie et al., HPDC 2017): batch-Hogwild!, one warp a parallel worker.
//
// sgd_update: the ratings [start, end) of a device array of (u, v, r) triples (r as float bits)
// are cut into chunks of CHUNK; worker w (warp w of the launch, w < workers) takes chunks w,
// w + workers, w + 2 workers, ... in order, so `workers` bounds the warps at work and one worker
// updates every rating in order. Per rating the warp loads rows p_u and q_v coalesced, lane l
// holding columns j*SPAN + l*VEC .. + VEC (VEC consecutive factors, one vector load each), sums
// p_u·q_v by butterfly shuffles (every lane ends with the same sum), and each lane updates its
// columns of both rows from their old values:
//     e = r - p·q;  p += lr (e q - lambda_p p);  q += lr (e p - lambda_q q)
// and stores them. Workers race on shared rows as Hogwild! does; a lane always reads back the
// columns it wrote itself. Rows are read through L2 (__ldcg), never a possibly stale L1.
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
#ifdef __CUDA_ARCH__
// IEEE half to float, and float to half rounded to nearest even (NVRTC has no cuda_fp16.h
// without the toolkit's headers). A host emulator (no __CUDA_ARCH__) defines both itself.
__device__ __forceinline__ float h2f(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short f2h(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#endif
__device__ __forceinline__ float lo(unsigned w) { return h2f((unsigned short)(w & 0xFFFFu)); }
__device__ __forceinline__ float hi(unsigned w) { return h2f((unsigned short)(w >> 16)); }
__device__ __forceinline__ unsigned pack(float a, float b) { return (unsigned)f2h(a) | ((unsigned)f2h(b) << 16); }
#else
typedef float factor;
typedef float factor_word;
#endif

#ifndef G
#define G 1
#endif
#if G != 1 && G != 2 && G != 4
#error "G must be 1, 2 or 4"
#endif
// A step's ratings are updated by groups of LG lanes, group g the step's rating g: lane l of
// a group holds columns j*GSPAN + l*VEC .. + VEC of both rows, j < GNV.
#define LG (32 / G)
#define GSPAN (LG * VEC)
#define GNV ((K + GSPAN - 1) / GSPAN)
#define GNE (GNV * VEC)
#define GEVEN (K % GSPAN == 0)

#ifndef LDMODE
#define LDMODE 1
#endif
#if defined(__CUDA_ARCH__)
// Weak loads that do not allocate in L1.
__device__ __forceinline__ uint4 ldna(const uint4* a) {
    uint4 w;
    asm volatile("ld.global.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w) : "l"(a) : "memory");
    return w;
}
__device__ __forceinline__ uint2 ldna(const uint2* a) {
    uint2 w;
    asm volatile("ld.global.L1::no_allocate.v2.u32 {%0,%1}, [%2];" : "=r"(w.x), "=r"(w.y) : "l"(a) : "memory");
    return w;
}
__device__ __forceinline__ unsigned ldna(const unsigned* a) {
    unsigned w;
    asm volatile("ld.global.L1::no_allocate.u32 %0, [%1];" : "=r"(w) : "l"(a) : "memory");
    return w;
}
__device__ __forceinline__ unsigned short ldna(const unsigned short* a) {
    unsigned short w;
    asm volatile("ld.global.L1::no_allocate.u16 %0, [%1];" : "=h"(w) : "l"(a) : "memory");
    return w;
}
__device__ __forceinline__ float4 ldna(const float4* a) {
    float4 w;
    asm volatile("ld.global.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(w.x), "=f"(w.y), "=f"(w.z), "=f"(w.w) : "l"(a) : "memory");
    return w;
}
__device__ __forceinline__ float2 ldna(const float2* a) {
    float2 w;
    asm volatile("ld.global.L1::no_allocate.v2.f32 {%0,%1}, [%2];" : "=f"(w.x), "=f"(w.y) : "l"(a) : "memory");
    return w;
}
__device__ __forceinline__ float ldna(const float* a) {
    float w;
    asm volatile("ld.global.L1::no_allocate.f32 %0, [%1];" : "=f"(w) : "l"(a) : "memory");
    return w;
}
#define LDNA(T, a) ldna((const T*)(a))
#else
#define LDNA(T, a) (*(const T*)(a))
#endif
// Loads of P's rows (mode MP) and Q's (MQ): 0 through L2 (__ldcg, a strong load on sm_70+),
// 1 plain (weak, allocating in L1), 2 weak without allocating in L1.
#if LDMODE == 3
#define MP 2
#define MQ 1
#else
#define MP LDMODE
#define MQ LDMODE
#endif
template <int M, class T>
__device__ __forceinline__ T ld(const void* a) {
    if constexpr (M == 0) {
        return __ldcg((const T*)a);
    } else if constexpr (M == 1) {
        return *(const T*)a;
    } else {
        return LDNA(T, a);
    }
}
#define LD(T, a) ld<M, T>(a)

// x[0 .. VEC) = the factors at `at` (VEC-aligned).
template <int M>
__device__ __forceinline__ void load_vec(const factor* at, float* x) {
#if HALF && VEC == 8
    const uint4 w = LD(uint4, at);
    x[0] = lo(w.x); x[1] = hi(w.x); x[2] = lo(w.y); x[3] = hi(w.y);
    x[4] = lo(w.z); x[5] = hi(w.z); x[6] = lo(w.w); x[7] = hi(w.w);
#elif HALF && VEC == 4
    const uint2 w = LD(uint2, at);
    x[0] = lo(w.x); x[1] = hi(w.x); x[2] = lo(w.y); x[3] = hi(w.y);
#elif HALF && VEC == 2
    const unsigned w = LD(unsigned, at);
    x[0] = lo(w); x[1] = hi(w);
#elif HALF
    x[0] = h2f(LD(unsigned short, at));
#elif VEC == 4
    const float4 w = LD(float4, at);
    x[0] = w.x; x[1] = w.y; x[2] = w.z; x[3] = w.w;
#elif VEC == 2
    const float2 w = LD(float2, at);
    x[0] = w.x; x[1] = w.y;
#else
    x[0] = LD(float, at);
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
    *at = f2h(x[0]);
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

// The columns of `row` that lane `l` of a group holds into x (zero past the row's end).
template <int M>
__device__ __forceinline__ void load_row(const factor* row, unsigned l, float* x) {
#pragma unroll
    for (unsigned j = 0; j < GNV; ++j) {
        const unsigned c = j * GSPAN + l * VEC;
        if (GEVEN || c < K) {
            load_vec<M>(row + c, x + j * VEC);
        } else {
#pragma unroll
            for (unsigned e = 0; e < VEC; ++e) x[j * VEC + e] = 0.0f;
        }
    }
}

__device__ __forceinline__ void store_row(factor* row, unsigned l, const float* x) {
#pragma unroll
    for (unsigned j = 0; j < GNV; ++j) {
        const unsigned c = j * GSPAN + l * VEC;
        if (GEVEN || c < K) store_vec(row + c, x + j * VEC);
    }
}

#ifndef MINB
#define MINB 0
#endif
#if MINB > 0
#define BOUNDS __launch_bounds__(WPB * 32, MINB)
#else
#define BOUNDS __launch_bounds__(WPB * 32)
#endif

// Whether two ratings share a row of P or of Q.
__device__ __forceinline__ bool clash(unsigned ua, unsigned va, unsigned ub, unsigned vb) { return ua == ub || va == vb; }

extern "C" __global__ void BOUNDS sgd_update(const unsigned* __restrict__ ratings, unsigned long long start,
                                             unsigned long long end, factor_word* p_words, factor_word* q_words,
                                             float lr, float lambda_p, float lambda_q, unsigned workers,
                                             float* __restrict__ losses) {
    factor* p = (factor*)p_words;
    factor* q = (factor*)q_words;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned worker = blockIdx.x * WPB + (threadIdx.x >> 5);
    if (worker >= workers) return;
    // The lane's group and its place in it.
    const unsigned g = lane / LG, l = lane % LG;
    const unsigned long long stride = (unsigned long long)workers * CHUNK;
    const unsigned long long first = start + (unsigned long long)worker * CHUNK;
    float loss = 0.0f;
    if (first < end) {
        // The worker's ratings, n of them: chunk after chunk, the last one maybe partial; the
        // one at place s of this sequence is ratings[first + s / CHUNK * stride + s % CHUNK].
        const unsigned long long chunks = (end - first - 1) / stride + 1;
        const unsigned long long last = first + (chunks - 1) * stride;
        const unsigned long long n = (chunks - 1) * CHUNK + (end - last < CHUNK ? end - last : CHUNK);
        // Ratings 32 at a time, one a lane (a batch never crosses a chunk), the next batch read
        // while this one is updated.
        unsigned bu = 0, bv = 0, br = 0;
        {
            const unsigned long long i = first + lane;
            if (lane < n) {
                bu = __ldg(ratings + 3 * i);
                bv = __ldg(ratings + 3 * i + 1);
                br = __ldg(ratings + 3 * i + 2);
            }
        }
        for (unsigned long long s = 0; s < n; s += 32) {
            unsigned nu = 0, nv = 0, nr = 0;
            const unsigned long long sn = s + 32 + lane;
            if (sn < n) {
                const unsigned long long i = first + sn / CHUNK * stride + sn % CHUNK;
                nu = __ldg(ratings + 3 * i);
                nv = __ldg(ratings + 3 * i + 1);
                nr = __ldg(ratings + 3 * i + 2);
            }
            const unsigned m = n - s < 32 ? (unsigned)(n - s) : 32u;
            for (unsigned t = 0; t < m;) {
                // A step: ratings t .. t + taken of the batch, at most G, none sharing a row
                // with another (so updated at once they give the in-order result); group g
                // updates rating t + g, or idles (on rating t's rows, storing nothing).
                unsigned us[G], vs[G];
                float rs[G];
#pragma unroll
                for (unsigned j = 0; j < G; ++j) {
                    const unsigned at = t + j < m ? t + j : t;
                    us[j] = __shfl_sync(FULL, bu, at);
                    vs[j] = __shfl_sync(FULL, bv, at);
                    rs[j] = __uint_as_float(__shfl_sync(FULL, br, at));
                }
                unsigned taken = 1;
                bool open = true;
#pragma unroll
                for (unsigned j = 1; j < G; ++j) {
                    bool free = t + j < m;
#pragma unroll
                    for (unsigned i = 0; i < j; ++i) free = free && !clash(us[i], vs[i], us[j], vs[j]);
                    open = open && free;
                    taken += open ? 1u : 0u;
                }
                const bool active = g < taken;
                unsigned u = us[0], v = vs[0];
                float r = rs[0];
#pragma unroll
                for (unsigned j = 1; j < G; ++j) {
                    if (g == j && active) {
                        u = us[j];
                        v = vs[j];
                        r = rs[j];
                    }
                }
#ifdef DIAG_PMASK
                u &= DIAG_PMASK;
#endif
                factor* prow = p + (unsigned long long)u * K;
                factor* qrow = q + (unsigned long long)v * K;
                float pe[GNE], qe[GNE];
                load_row<MP>(prow, l, pe);
                load_row<MQ>(qrow, l, qe);
                float dot = 0.0f;
#pragma unroll
                for (unsigned e = 0; e < GNE; ++e) dot += pe[e] * qe[e];
#pragma unroll
                for (int o = LG / 2; o > 0; o >>= 1) dot += __shfl_xor_sync(FULL, dot, o);
                const float err = r - dot;
#pragma unroll
                for (unsigned e = 0; e < GNE; ++e) {
                    const float a = pe[e], b = qe[e];
                    pe[e] = a + lr * (err * b - lambda_p * a);
                    qe[e] = b + lr * (err * a - lambda_q * b);
                }
#ifndef DIAG_NOSTORE
                if (active) {
                    store_row(prow, l, pe);
                    store_row(qrow, l, qe);
                }
#endif
                loss += active ? err * err : 0.0f;
                t += taken;
            }
            bu = nu;
            bv = nv;
            br = nr;
        }
    }
    // Each worker's sum of squared errors (LIBMF's training loss) over its groups, added to its
    // own slot: the runs of one engine are in stream order, so no two add to a slot at once.
#pragma unroll
    for (int o = 16; o >= LG; o >>= 1) loss += __shfl_xor_sync(FULL, loss, o);
    if (lane == 0) losses[worker] += loss;
}

#if HALF
extern "C" __global__ void to_half(const float* __restrict__ src, unsigned long long n, unsigned* dst,
                                   unsigned long long at) {
    factor* d = (factor*)dst + at;
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        d[i] = f2h(src[i]);
}

extern "C" __global__ void from_half(const unsigned* __restrict__ src, unsigned long long at, unsigned long long n,
                                     float* dst) {
    const factor* s = (const factor*)src + at;
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        dst[i] = h2f(s[i]);
}
#endif
