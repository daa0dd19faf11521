// Exact k nearest neighbours by brute force (ground truth, and filtered searches that pass too
// few vectors for the graph, thesis §2.1's problem with no index), k up to KP.
//
// brute_topk: a block takes a tile of QT queries and one split of the base rows, streamed in
// tiles of BT = 64 rows, DK dimensions at a time, through shared memory. Warp w owns queries
// w*QPW .. (w+1)*QPW of the tile; lane l accumulates their distances to rows l and l + 32 of
// the base tile in registers. A row whose key (distance, row) is below the query's threshold
// (the key of its k-th best so far) goes to the query's candidate buffer (CB slots, appended
// by ballot); a full buffer is sorted (bitonic) and merged into the query's sorted list of k
// (stable merge by ranks), which lowers the threshold. The k best of each (query, split) go to
// `partial`; brute_finish merges a query's splits into its answer.
//
// Compile-time constants, besides common.cuh's: KP (the power of two at least k, 32 to 1024),
// QT (queries a block), WARPS (warps a block), QPW = QT / WARPS.

#define BT 64u
#define CB 64u
#define DK (DIM < 32 ? DIM : 32)

#if KP < 32 || KP > 1024 || (KP & (KP - 1)) != 0
#error "KP must be a power of two, 32 to 1024"
#endif
#if QPW < 1 || QT != WARPS * QPW
#error "QT must be WARPS * QPW"
#endif

static_assert(sizeof(float) * (QT * DK + BT * (DK + 1)) + sizeof(ann_key) * (QT * (KP + CB) + WARPS * KP) <= 49152u,
              "static shared memory of brute_topk over 48 KiB");

__device__ __forceinline__ ann_key brute_key(float d, unsigned row) { return ((ann_key)ord_bits(d) << 32) | row; }

// Merges the query's cnt candidates into its sorted list of k, through the warp's scratch.
__device__ __noinline__ void brute_flush(ann_key* list, ann_key* cand, unsigned cnt, unsigned k,
                                        ann_key* scratch) {
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned i = cnt + lane; i < CB; i += 32u) cand[i] = EMPTY_KEY;
    warp_sort<CB>(cand);
    warp_merge_k(list, k, cand, cnt, scratch);
    __syncwarp();
    for (unsigned j = lane; j < k; j += 32u) list[j] = scratch[j];
    __syncwarp();
}

// Queries nq (row-major, DIM floats each) against base rows [split * rows_per_split, + rows_per_split)
// of n; block b takes query tile b % tiles and split b / tiles. Rows failing `allowed` (when
// filtered != 0) are left out. Writes the k best keys of each query and split, sorted,
// EMPTY_KEY where fewer, to partial[(split * nq + query) * k ..].
extern "C" __global__ void __launch_bounds__(WARPS * 32)
    brute_topk(const float* __restrict__ queries, unsigned nq, const float* __restrict__ base, unsigned n,
               unsigned rows_per_split, unsigned tiles, unsigned k, const unsigned* __restrict__ allowed,
               unsigned filtered, ann_key* __restrict__ partial) {
    __shared__ float s_q[QT][DK];
    __shared__ float s_b[BT][DK + 1];
    __shared__ ann_key s_list[QT][KP];
    __shared__ ann_key s_cand[QT][CB];
    __shared__ ann_key s_scratch[WARPS][KP];
    const unsigned tid = threadIdx.x, w = tid >> 5, lane = tid & 31u;
    const unsigned tile = blockIdx.x % tiles, split = blockIdx.x / tiles;
    const unsigned q0 = tile * QT;
    const unsigned long long first = (unsigned long long)split * rows_per_split;
    const unsigned r_begin = first < n ? (unsigned)first : n;
    const unsigned r_end = first + rows_per_split < n ? (unsigned)(first + rows_per_split) : n;
    if (k > KP) k = KP;
    for (unsigned i = tid; i < QT * KP; i += WARPS * 32u) (&s_list[0][0])[i] = EMPTY_KEY;
    ann_key thr[QPW];
    unsigned cnt[QPW];
#pragma unroll
    for (unsigned qi = 0u; qi < QPW; ++qi) {
        thr[qi] = EMPTY_KEY;
        cnt[qi] = 0u;
    }
    __syncthreads();
    for (unsigned r0 = r_begin; r0 < r_end; r0 += BT) {
        float acc[QPW][2];
#pragma unroll
        for (unsigned qi = 0u; qi < QPW; ++qi) acc[qi][0] = acc[qi][1] = 0.0f;
        for (unsigned d0 = 0u; d0 < DIM; d0 += DK) {
            __syncthreads();
            for (unsigned i = tid; i < QT * DK; i += WARPS * 32u) {
                const unsigned qq = i / DK, dd = i % DK, qg = q0 + qq, dim = d0 + dd;
                s_q[qq][dd] = qg < nq && dim < DIM ? __ldg(queries + (size_t)qg * DIM + dim) : 0.0f;
            }
            for (unsigned i = tid; i < BT * DK; i += WARPS * 32u) {
                const unsigned rr = i / DK, dd = i % DK, row = r0 + rr, dim = d0 + dd;
                s_b[rr][dd] = row < r_end && dim < DIM ? __ldg(base + (size_t)row * DIM + dim) : 0.0f;
            }
            __syncthreads();
#pragma unroll 8
            for (unsigned dd = 0u; dd < DK; ++dd) {
                const float b0 = s_b[lane][dd], b1 = s_b[lane + 32u][dd];
#pragma unroll
                for (unsigned qi = 0u; qi < QPW; ++qi) {
                    const float a = s_q[w * QPW + qi][dd];
#if METRIC == 0
                    const float t0 = __fsub_rn(a, b0), t1 = __fsub_rn(a, b1);
                    acc[qi][0] = __fmaf_rn(t0, t0, acc[qi][0]);
                    acc[qi][1] = __fmaf_rn(t1, t1, acc[qi][1]);
#else
                    acc[qi][0] = __fmaf_rn(a, b0, acc[qi][0]);
                    acc[qi][1] = __fmaf_rn(a, b1, acc[qi][1]);
#endif
                }
            }
        }
        const unsigned rows[2] = {r0 + lane, r0 + lane + 32u};
        bool ok[2];
#pragma unroll
        for (unsigned s = 0u; s < 2u; ++s) ok[s] = rows[s] < r_end && (filtered == 0u || allowed_bit(allowed, rows[s]));
#pragma unroll
        for (unsigned qi = 0u; qi < QPW; ++qi) {
            const unsigned qq = w * QPW + qi;
            if (q0 + qq >= nq) continue;  // uniform over the warp
#pragma unroll
            for (unsigned s = 0u; s < 2u; ++s) {
#if METRIC == 0
                const float d = acc[qi][s];
#else
                const float d = __fsub_rn(1.0f, acc[qi][s]);
#endif
                const ann_key key = brute_key(d, rows[s]);
                bool pass = ok[s] && key < thr[qi];
                unsigned b = __ballot_sync(FULL_MASK, pass);
                if (cnt[qi] + (unsigned)__popc(b) > CB) {
                    brute_flush(s_list[qq], s_cand[qq], cnt[qi], k, s_scratch[w]);
                    cnt[qi] = 0u;
                    thr[qi] = s_list[qq][k - 1u];
                    pass = pass && key < thr[qi];
                    b = __ballot_sync(FULL_MASK, pass);
                }
                if (pass) s_cand[qq][cnt[qi] + (unsigned)__popc(b & ((1u << lane) - 1u))] = key;
                cnt[qi] += (unsigned)__popc(b);
            }
        }
    }
#pragma unroll
    for (unsigned qi = 0u; qi < QPW; ++qi) {
        const unsigned qq = w * QPW + qi;
        if (q0 + qq >= nq) continue;
        if (cnt[qi] > 0u) brute_flush(s_list[qq], s_cand[qq], cnt[qi], k, s_scratch[w]);
        ann_key* out = partial + ((size_t)split * nq + q0 + qq) * k;
        for (unsigned j = lane; j < k; j += 32u) out[j] = s_list[qq][j];
    }
}

// One warp a query: merges the query's `splits` lists of k keys in `partial` into its k
// nearest, written as ids (NONE_ID where empty) and distances (infinity where empty).
extern "C" __global__ void __launch_bounds__(32)
    brute_finish(const ann_key* __restrict__ partial, unsigned nq, unsigned k, unsigned splits,
                 unsigned* __restrict__ out_ids, float* __restrict__ out_dist) {
    __shared__ ann_key s_acc[KP];
    __shared__ ann_key s_tmp[KP];
    const unsigned q = blockIdx.x, lane = threadIdx.x & 31u;
    if (q >= nq || threadIdx.x >= 32u) return;
    if (k > KP) k = KP;
    for (unsigned j = lane; j < k; j += 32u) s_acc[j] = partial[(size_t)q * k + j];
    for (unsigned s = 1u; s < splits; ++s) {
        __syncwarp();
        warp_merge_k(s_acc, k, partial + ((size_t)s * nq + q) * k, k, s_tmp);
        __syncwarp();
        for (unsigned j = lane; j < k; j += 32u) s_acc[j] = s_tmp[j];
    }
    __syncwarp();
    for (unsigned j = lane; j < k; j += 32u) {
        const ann_key key = s_acc[j];
        out_ids[(size_t)q * k + j] = key == EMPTY_KEY ? NONE_ID : (unsigned)(key & 0xFFFFFFFFull);
        out_dist[(size_t)q * k + j] = key == EMPTY_KEY ? infinity_f32() : ord_float((unsigned)(key >> 32));
    }
}
