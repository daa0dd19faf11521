// The GSI join (§V, Alg. 3 and 4; load balancing §VI-A), compiled after pcsr.cu and slices.cu.
// The table M holds one partial embedding per row (u32 per column, row-major). For the next
// query vertex u with links (u'_j, dir_j, l_j) to earlier columns:
//   join_sizes:    one warp per row; the size of every link's slice N(M[u'_j], dir_j, l_j,
//                  L(u)) and the smallest one (the row's first link and its upper bound);
//   join_rows:     one warp per row (light rows only when load balancing is on): the row in
//                  shared memory, the first slice streamed in 32-element (128-byte) batches,
//                  each lane testing the candidate bitset, injectivity against the row, the
//                  other links (their slices streamed in 128-byte batches from a cursor that
//                  only moves forward, each lane binary-searching the batch), and for induced
//                  matching the absence of data edges; survivors compacted with ballot/popc and
//                  written through a per-warp 32-entry write cache into the row's buffer;
//   join_classify / join_expand: heavy rows gathered on the device into tasks (one per row
//                  above the heavy threshold, W2 or raised by the host's cost model; one per
//                  W1 elements above the grid threshold);
//   join_tasks:    one block per task, its warps taking interleaved batches of the slice;
//   join_link:     the combine step, row ++ [z] for every z of the row's buffer.
// Slices come from slices.cu's slice_of.

#define J_MAX_COLUMNS 64
#define J_ROW_WARPS 8
#define J_TASK_WARPS 16
#define J_COUNT_ONLY 1u
#define J_WRITE_CACHE 2u

// Level descriptor: [0] columns of M, [1] links k, [2] non-edges m, [3] injective,
// [4] label of u, [5] symmetry bounds b; links at 8 + 3j: (from, structure, edge label);
// non-edges at 8 + 3k + 2q: (from, direction 0 out / 1 in); bounds at 8 + 3k + 2m + t: a
// column whose vertex the candidate must exceed (symmetry breaking).
struct JLevel {
    const unsigned int* desc;
    const unsigned int* bitset;
    const unsigned int* cands;
    unsigned int ncands;
};

struct JWarp {
    unsigned int row[J_MAX_COLUMNS];
    u64 lo[J_MAX_COLUMNS];
    u64 hi[J_MAX_COLUMNS];
    u64 cur[J_MAX_COLUMNS];
    unsigned int cache[32];
    unsigned int batch[32];
};

// Extends row r by the elements [from, to) of its first slice (above the symmetry bounds), this warp taking the batches
// at from, from + stride, ...; survivors go to out[out_base + ...], positions reserved by
// atomicAdd on *counter (or only counted there in count-only mode).
__device__ void extend_row(const JGraph& g, const JLevel& q, const unsigned int* table, u64 r,
                           unsigned int first, u64 out_base, unsigned int* counter,
                           unsigned int* out, unsigned int flags, u64 from, u64 to, u64 stride,
                           JWarp& w) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int cols = q.desc[0], k = q.desc[1], m = q.desc[2], inj = q.desc[3];
    const unsigned int nl = q.desc[4];
    for (unsigned int c = lane; c < cols; c += 32) w.row[c] = table[r * cols + c];
    __syncwarp();
    for (unsigned int j = 0; j < k; ++j) {
        u64 s, e;
        slice_of(g, q.desc[9 + 3 * j], q.desc[10 + 3 * j], nl, w.row[q.desc[8 + 3 * j]], &s, &e);
        if (lane == 0) {
            w.lo[j] = s;
            w.hi[j] = e;
            w.cur[j] = s;
        }
    }
    __syncwarp();
    const unsigned int* src = k ? g.columns : q.cands;
    const u64 e0 = k ? w.hi[first] : (u64)q.ncands;
    const u64 s0 = above_bounds(q.desc, w.row, src, k ? w.lo[first] : 0ull, e0);
    const u64 end = to < e0 - s0 ? s0 + to : e0;
    const int count_only = (flags & J_COUNT_ONLY) != 0u;
    const int use_cache = (flags & J_WRITE_CACHE) != 0u;
    unsigned int local = 0, cached = 0;
    for (u64 base = s0 + from; base < end; base += stride) {
        const u64 idx = base + lane;
        const int valid = idx < end;
        const unsigned int c = valid ? src[idx] : 0u;
        int live = valid && ((q.bitset[c >> 5] >> (c & 31u)) & 1u);
        if (inj && live)
            for (unsigned int t = 0; t < cols; ++t)
                if (w.row[t] == c) live = 0;
        for (unsigned int j = 0; j < k; ++j) {
            if (j == first) continue;
            const unsigned int mask = __ballot_sync(J_FULL, live);
            if (mask == 0u) break;
            const unsigned int amin = __shfl_sync(J_FULL, c, __ffs(mask) - 1);
            const unsigned int amax = __shfl_sync(J_FULL, c, 31 - __clz(mask));
            u64 lo = w.cur[j], hi = w.hi[j];
            while (lo < hi) {
                const u64 mid = (lo + hi) >> 1;
                if (g.columns[mid] < amin) lo = mid + 1; else hi = mid;
            }
            hi = w.hi[j];
            int found = 0;
            u64 pos = lo;
            while (pos < hi) {
                const u64 x = pos + lane;
                w.batch[lane] = x < hi ? g.columns[x] : J_FULL;
                __syncwarp();
                const unsigned int len = hi - pos < 32ull ? (unsigned int)(hi - pos) : 32u;
                if (live && !found) {
                    unsigned int a = 0, b = len;
                    while (a < b) {
                        const unsigned int mid = (a + b) >> 1;
                        if (w.batch[mid] < c) a = mid + 1; else b = mid;
                    }
                    found = a < len && w.batch[a] == c;
                }
                const unsigned int last = w.batch[len - 1];
                __syncwarp();
                if (last >= amax) break;
                pos += 32;
            }
            if (lane == 0) w.cur[j] = pos;
            __syncwarp();
            live = live && found;
        }
        if (live)
            for (unsigned int t = 0; t < m && live; ++t) {
                const unsigned int v = w.row[q.desc[8 + 3 * k + 2 * t]];
                const u64 ab = (u64)q.desc[9 + 3 * k + 2 * t] * (g.nverts + 1ull);
                if (sorted_has(g.adj_col, g.adj_off[ab + v], g.adj_off[ab + v + 1], c)) live = 0;
            }
        const unsigned int mask = __ballot_sync(J_FULL, live);
        const unsigned int n = __popc(mask);
        if (n == 0u) continue;
        if (count_only) {
            local += n;
            continue;
        }
        const unsigned int rank = __popc(mask & ((1u << lane) - 1u));
        if (use_cache) {
            if (live && cached + rank < 32u) w.cache[cached + rank] = c;
            __syncwarp();
            if (cached + n >= 32u) {
                unsigned int p = 0;
                if (lane == 0) p = atomicAdd(counter, 32u);
                p = __shfl_sync(J_FULL, p, 0);
                out[out_base + p + lane] = w.cache[lane];
                __syncwarp();
                if (live && cached + rank >= 32u) w.cache[cached + rank - 32u] = c;
                __syncwarp();
                cached = cached + n - 32u;
            } else {
                cached += n;
            }
        } else {
            unsigned int p = 0;
            if (lane == 0) p = atomicAdd(counter, n);
            p = __shfl_sync(J_FULL, p, 0);
            if (live) out[out_base + p + rank] = c;
        }
    }
    if (count_only) {
        if (lane == 0 && local) atomicAdd(counter, local);
    } else if (use_cache && cached) {
        unsigned int p = 0;
        if (lane == 0) p = atomicAdd(counter, cached);
        p = __shfl_sync(J_FULL, p, 0);
        if (lane < cached) out[out_base + p + lane] = w.cache[lane];
    }
    __syncwarp();
}

#define J_LEVEL_PARAMS                                                                     \
    const unsigned int *desc, const unsigned int *bitset, const unsigned int *cands,         \
        unsigned int ncands
#define J_LEVEL {desc, bitset, cands, ncands}

// One warp per row of the whole table: sizes[r] = the smallest link slice above the row's
// symmetry bounds (C(u) above them without links), firsts[r] = its link.
extern "C" __global__ void join_sizes(J_GRAPH_PARAMS, J_LEVEL_PARAMS, const unsigned int* table,
                                      u64 nrows, unsigned int* sizes, unsigned int* firsts) {
    const JGraph g = J_GRAPH;
    const u64 r = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= nrows) return;
    const unsigned int cols = desc[0], k = desc[1], nl = desc[4];
    const unsigned int* row = table + r * cols;
    u64 best = k ? ~0ull : (u64)ncands - above_bounds(desc, row, cands, 0ull, (u64)ncands);
    unsigned int arg = 0;
    for (unsigned int j = 0; j < k; ++j) {
        u64 s, e;
        slice_of(g, desc[9 + 3 * j], desc[10 + 3 * j], nl, row[desc[8 + 3 * j]], &s, &e);
        s = above_bounds(desc, row, g.columns, s, e);
        if (e - s < best) {
            best = e - s;
            arg = j;
        }
    }
    if ((threadIdx.x & 31u) == 0u) {
        sizes[r] = (unsigned int)best;
        firsts[r] = arg;
    }
}

// One warp per row of the chunk [row0, row0 + nrows); rows whose size exceeds `heavy` are left
// to join_tasks.
extern "C" __global__ void join_rows(J_GRAPH_PARAMS, J_LEVEL_PARAMS, const unsigned int* table,
                                     u64 row0, u64 nrows, const unsigned int* sizes,
                                     const unsigned int* firsts, const u64* offsets, u64 f_row0,
                                     u64 gba_base, unsigned int* counts, unsigned int* out,
                                     unsigned int flags, unsigned int heavy) {
    __shared__ JWarp mem[J_ROW_WARPS];
    const JGraph g = J_GRAPH;
    const JLevel q = J_LEVEL;
    const u64 i = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i >= nrows) return;
    const u64 r = row0 + i;
    if (sizes[r] > heavy) return;
    const u64 ob = (flags & J_COUNT_ONLY) ? 0ull : offsets[r - f_row0] - gba_base;
    extend_row(g, q, table, r, firsts[r], ob, &counts[i], out, flags, 0ull, ~0ull >> 1, 32ull,
               mem[threadIdx.x >> 5]);
}

// One block per task (row, lo, len) of the chunk; its warps take interleaved batches.
extern "C" __global__ void join_tasks(J_GRAPH_PARAMS, J_LEVEL_PARAMS, const unsigned int* table,
                                      u64 row0, const unsigned int* firsts, const u64* offsets,
                                      u64 f_row0, u64 gba_base, unsigned int* counts,
                                      unsigned int* out, unsigned int flags,
                                      const unsigned int* task_row, const unsigned int* task_lo,
                                      const unsigned int* task_len, unsigned int ntasks) {
    __shared__ JWarp mem[J_TASK_WARPS];
    const JGraph g = J_GRAPH;
    const JLevel q = J_LEVEL;
    const unsigned int t = blockIdx.x;
    if (t >= ntasks) return;
    const unsigned int wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const unsigned int i = task_row[t];
    const u64 r = row0 + i;
    const u64 lo = task_lo[t];
    const u64 ob = (flags & J_COUNT_ONLY) ? 0ull : offsets[r - f_row0] - gba_base;
    extend_row(g, q, table, r, firsts[r], ob, &counts[i], out, flags, lo + 32ull * wid,
               lo + task_len[t], 32ull * nw, mem[wid]);
}

// Per row of the chunk: nblock = 1 when heavy < size <= grid; above grid, ngrid = ceil(size /
// piece), the pieces join_expand makes (GSI: heavy = W2, grid = piece = W1; the cost model
// raises heavy and grid, never the piece).
extern "C" __global__ void join_classify(const unsigned int* sizes, u64 row0, u64 nrows,
                                         unsigned int heavy, unsigned int grid,
                                         unsigned int piece, unsigned int* nblock,
                                         unsigned int* ngrid) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    const unsigned int s = sizes[row0 + i];
    nblock[i] = s > heavy && s <= grid;
    ngrid[i] = s > grid ? (unsigned int)((s + (u64)piece - 1) / piece) : 0u;
}

// SGSI §7's histogram of a chunk's first-slice sizes: bins[b] counts the rows whose size lies
// in [32b, 32(b + 1)), the last bin also every larger one.
extern "C" __global__ void join_histogram(const unsigned int* sizes, u64 row0, u64 nrows,
                                          unsigned int* bins, unsigned int nbins) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    const unsigned int b = sizes[row0 + i] >> 5;
    atomicAdd(&bins[b < nbins ? b : nbins - 1u], 1u);
}

// Writes the ntask[i] tasks of chunk row i at offs[i]: task q covers [q * piece, (q + 1) *
// piece) of the row's slice, clipped to its size.
extern "C" __global__ void join_expand(const unsigned int* ntask, const u64* offs,
                                       const unsigned int* sizes, u64 row0, u64 nrows,
                                       unsigned int piece, unsigned int* task_row,
                                       unsigned int* task_lo, unsigned int* task_len) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    const unsigned int t = ntask[i];
    const unsigned int s = sizes[row0 + i];
    for (unsigned int p = 0; p < t; ++p) {
        const u64 lo = (u64)p * piece;
        const u64 at = offs[i] + p;
        task_row[at] = (unsigned int)i;
        task_lo[at] = (unsigned int)lo;
        task_len[at] = (unsigned int)(s - lo < (u64)piece ? s - lo : (u64)piece);
    }
}

// Combine (Alg. 3): one warp per chunk row writes row ++ [z] for each z of its buffer at
// row offs[i] of the next table, coalesced over the (cols + 1)-wide output rows; or, where
// `column` is a column of the next table (not J_ALL_COLUMNS), only that column's element of
// each of those rows into a one-column output (SGSI's Alg. 6: a table made column by column).
#define J_ALL_COLUMNS 0xFFFFFFFFu
extern "C" __global__ void join_link(const unsigned int* table, u64 row0, u64 nrows,
                                     unsigned int cols, const u64* offsets, u64 f_row0,
                                     u64 gba_base, const unsigned int* gba,
                                     const unsigned int* counts, const u64* offs,
                                     unsigned int column, unsigned int* next) {
    __shared__ unsigned int rows[J_ROW_WARPS][J_MAX_COLUMNS];
    const u64 i = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i >= nrows) return;
    const unsigned int lane = threadIdx.x & 31u;
    unsigned int* row = rows[threadIdx.x >> 5];
    const u64 r = row0 + i;
    for (unsigned int c = lane; c < cols; c += 32) row[c] = table[r * cols + c];
    __syncwarp();
    const u64 ob = offsets[r - f_row0] - gba_base;
    if (column != J_ALL_COLUMNS) {
        for (u64 kk = lane; kk < counts[i]; kk += 32)
            next[offs[i] + kk] = column < cols ? row[column] : gba[ob + kk];
        return;
    }
    const u64 nc = cols + 1ull;
    const u64 dst = offs[i] * nc;
    const u64 total = (u64)counts[i] * nc;
    for (u64 e = lane; e < total; e += 32) {
        const u64 kk = e / nc;
        const unsigned int col = (unsigned int)(e - kk * nc);
        next[dst + e] = col < cols ? row[col] : gba[ob + kk];
    }
}
