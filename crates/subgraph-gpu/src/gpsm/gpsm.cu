// GpSM (Tran, Kim & He, DASFAA 2015) on the device: the candidate filter (§4.1, Alg. 2: the
// label and degree check, exploration along the query's spanning tree, rounds of neighbour
// refinement), the candidate-edge tables (§4.2, two-step output) and the edge join (§4.3, one
// warp per partial row, binary-search lookups, two-step output). The data graph is read as
// id-sorted adjacency lists per direction (direction d's offsets at d * (n + 1)), each entry's
// edge label beside it. Bitsets hold one query vertex each, `words` words long, one after
// another. Compiled after pcsr.cu and slices.cu (for u64 and list_owner).

#define G_FULL 0xffffffffu
#define G_NONE 0xffffffffu
// Most columns of a partial row (the GPU engine's query-size limit).
#define G_MAX_COLS 64
// Warps per block of the warp-per-row kernels.
#define G_WARPS 8

__device__ __forceinline__ unsigned int g_bit(const unsigned int* bits, unsigned int v) {
    return (bits[v >> 5] >> (v & 31u)) & 1u;
}

// Whether w is in the sorted list[s, e).
__device__ __forceinline__ int g_contains(const unsigned int* list, u64 s, u64 e, unsigned int w) {
    while (s < e) {
        const u64 mid = (s + e) >> 1;
        const unsigned int x = list[mid];
        if (x == w) return 1;
        if (x < w) s = mid + 1; else e = mid;
    }
    return 0;
}

// The index of `key` in the sorted keys[0, n), or G_NONE.
__device__ __forceinline__ unsigned int g_find(const unsigned int* keys, u64 n, unsigned int key) {
    u64 s = 0, e = n;
    while (s < e) {
        const u64 mid = (s + e) >> 1;
        const unsigned int x = keys[mid];
        if (x == key) return (unsigned int)mid;
        if (x < key) s = mid + 1; else e = mid;
    }
    return G_NONE;
}

// Def. 3 for every query vertex u and data vertex v (one thread per word of u's bitset): the
// label equal, at least u's out- and in-degree (min_out, min_in), and in u's allowed set where
// the query restricts u. qinfo holds (label, min_out, min_in, restricted) per query vertex;
// allowed holds a bitset per query vertex (read only where restricted).
extern "C" __global__ void gpsm_check(const unsigned int* labels, const u64* adj_off, unsigned int n,
                                      unsigned int directed, const unsigned int* qinfo, unsigned int nq,
                                      u64 words, const unsigned int* allowed, unsigned int* ok) {
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (u64)nq * words) return;
    const unsigned int u = (unsigned int)(j / words);
    const unsigned int first = (unsigned int)(j % words) * 32u;
    const unsigned int* q = qinfo + 4 * u;
    unsigned int word = 0;
    for (unsigned int b = 0; b < 32u && first + b < n; ++b) {
        const unsigned int v = first + b;
        const u64 out = adj_off[v + 1] - adj_off[v];
        const u64 in = directed ? adj_off[(u64)n + 2 + v] - adj_off[(u64)n + 1 + v] : out;
        if (labels[v] == q[0] && out >= q[1] && in >= q[2]) word |= 1u << b;
    }
    if (q[3]) word &= allowed[j];
    ok[j] = word;
}

// counts[j] = the population count of word j.
extern "C" __global__ void gpsm_popc(const unsigned int* bits, u64 total, unsigned int* counts) {
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < total) counts[j] = __popc(bits[j]);
}

// Whether some entry of the adjacency slice [s, e) has edge label el and its vertex in
// `target` (one warp, every lane returns the answer).
__device__ __forceinline__ int g_any(const unsigned int* adj_col, const unsigned int* adj_lab, u64 s, u64 e,
                                     unsigned int el, const unsigned int* target) {
    const unsigned int lane = threadIdx.x & 31u;
    for (u64 base = s; base < e; base += 32) {
        const u64 x = base + lane;
        const int hit = x < e && adj_lab[x] == el && g_bit(target, adj_col[x]);
        if (__ballot_sync(G_FULL, hit) != 0u) return 1;
    }
    return 0;
}

// Alg. 2's exploration from query vertex u, one warp per candidate u' of u: u' stays only when
// every tree neighbour v of u has a candidate among u''s neighbours through the tree edge
// (the parent's current candidates, a child's Def. 3 set); then every such neighbour of a
// child passing Def. 3 becomes a candidate of that child. tree holds (v, direction, edge
// label, child) per tree neighbour.
extern "C" __global__ void gpsm_explore(const u64* adj_off, const unsigned int* adj_col,
                                        const unsigned int* adj_lab, unsigned int n, const unsigned int* cands,
                                        u64 ncands, unsigned int u, const unsigned int* tree, unsigned int ntree,
                                        const unsigned int* ok, unsigned int* bits, u64 words) {
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= ncands) return;
    const unsigned int up = cands[warp];
    for (unsigned int t = 0; t < ntree; ++t) {
        const unsigned int* e = tree + 4 * t;
        const u64 at = (u64)e[1] * ((u64)n + 1) + up;
        const unsigned int* target = (e[3] ? ok : bits) + (u64)e[0] * words;
        if (!g_any(adj_col, adj_lab, adj_off[at], adj_off[at + 1], e[2], target)) {
            if (lane == 0) atomicAnd(&bits[(u64)u * words + (up >> 5)], ~(1u << (up & 31u)));
            return;
        }
    }
    for (unsigned int t = 0; t < ntree; ++t) {
        const unsigned int* e = tree + 4 * t;
        if (!e[3]) continue;
        const u64 at = (u64)e[1] * ((u64)n + 1) + up;
        const unsigned int* target = ok + (u64)e[0] * words;
        unsigned int* child = bits + (u64)e[0] * words;
        for (u64 x = adj_off[at] + lane; x < adj_off[at + 1]; x += 32) {
            const unsigned int w = adj_col[x];
            if (adj_lab[x] == e[2] && g_bit(target, w)) atomicOr(&child[w >> 5], 1u << (w & 31u));
        }
    }
}

// One refinement round (§4.1, lines 16–18 of Alg. 2 over the simplified query), one warp per
// entry of the concatenated candidate lists: u' of u stays only when each of u's links (v,
// direction, edge label) finds a current candidate of v among its neighbours. Removals are
// cleared in place (they only ever remove what no match uses) and counted in removed[0].
extern "C" __global__ void gpsm_refine(const u64* adj_off, const unsigned int* adj_col,
                                       const unsigned int* adj_lab, unsigned int n, const unsigned int* cands,
                                       const u64* at, unsigned int nq, const unsigned int* links,
                                       const unsigned int* link_at, unsigned int* bits, u64 words,
                                       unsigned int* removed) {
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= at[nq]) return;
    const unsigned int u = list_owner(at, 1, nq, warp);
    const unsigned int up = cands[warp];
    for (unsigned int j = link_at[u]; j < link_at[u + 1]; ++j) {
        const unsigned int* l = links + 3 * j;
        const u64 a = (u64)l[1] * ((u64)n + 1) + up;
        if (!g_any(adj_col, adj_lab, adj_off[a], adj_off[a + 1], l[2], bits + (u64)l[0] * words)) {
            if (lane == 0) {
                atomicAnd(&bits[(u64)u * words + (up >> 5)], ~(1u << (up & 31u)));
                atomicAdd(removed, 1u);
            }
            return;
        }
    }
}

// The candidate-edge table of one query edge seen from its key endpoint (§4.2), one warp per
// key u': the neighbours w of u' in direction d with edge label el that are candidates of the
// other endpoint (its bitset at word at_word of `bits`), counted (write = 0: counts[i]) or written in id order
// from offsets[i] (write = 1).
extern "C" __global__ void gpsm_edges(const u64* adj_off, const unsigned int* adj_col, const unsigned int* adj_lab,
                                      unsigned int n, const unsigned int* keys, u64 nkeys, unsigned int d,
                                      unsigned int el, const unsigned int* bits, u64 at_word, unsigned int write,
                                      const u64* offsets, unsigned int* counts, unsigned int* values) {
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= nkeys) return;
    const unsigned int* target = bits + at_word;
    const u64 at = (u64)d * ((u64)n + 1) + keys[warp];
    const u64 s = adj_off[at], e = adj_off[at + 1];
    u64 pos = write ? offsets[warp] : 0;
    for (u64 base = s; base < e; base += 32) {
        const u64 x = base + lane;
        const unsigned int w = x < e ? adj_col[x] : 0u;
        const int hit = x < e && adj_lab[x] == el && g_bit(target, w);
        const unsigned int mask = __ballot_sync(G_FULL, hit);
        if (write && hit) values[pos + __popc(mask & ((1u << lane) - 1u))] = w;
        pos += __popc(mask);
    }
    if (!write && lane == 0) counts[warp] = (unsigned int)pos;
}

// One join step (§4.3) over rows [row0, row0 + nrows) of `table` (`cols` columns), one warp
// per row, the row in shared memory. The step's candidate-edge table is keyed on column kc
// (keys, toff: nkeys + 1 offsets, tval); kc = G_NONE takes all of tval[0, nkeys) for every row
// (a vertex of a new component: its candidate list). A closing step (cc < cols) keeps the row
// when column cc's vertex is in the key's run; an expanding step (cc = G_NONE) extends the row
// by each run vertex w that is not in the row (when injective) and, for induced matching, not
// adjacent to the columns of `forbid` ((column, mask) pairs: mask 1 forbids an edge from the
// column's vertex to w, 2 one from w to it). Counts per row (write = 0: counts[r]), or writes
// the surviving rows from offsets[row0 + r] - base (write = 1).
extern "C" __global__ void gpsm_join(const u64* adj_off, const unsigned int* adj_col, unsigned int n,
                                     const unsigned int* table, u64 row0, u64 nrows, unsigned int cols,
                                     unsigned int kc, const unsigned int* keys, u64 nkeys, const u64* toff,
                                     const unsigned int* tval, unsigned int cc, unsigned int injective,
                                     const unsigned int* forbid, unsigned int nforbid, unsigned int write,
                                     const u64* offsets, u64 base, unsigned int* counts, unsigned int* out) {
    __shared__ unsigned int rowbuf[G_WARPS][G_MAX_COLS];
    const u64 r = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int slot = (threadIdx.x >> 5) & (G_WARPS - 1);
    if (r >= nrows) return;
    const unsigned int* src = table + (row0 + r) * cols;
    unsigned int* row = rowbuf[slot];
    for (unsigned int c = lane; c < cols; c += 32) row[c] = src[c];
    __syncwarp();
    u64 s = 0, e = nkeys;
    if (kc != G_NONE) {
        const unsigned int i = g_find(keys, nkeys, row[kc]);
        if (i == G_NONE) {
            e = 0;
        } else {
            s = toff[i];
            e = toff[i + 1];
        }
    }
    u64 pos = write ? offsets[row0 + r] - base : 0;
    if (cc != G_NONE) {
        const int keep = s < e && g_contains(tval, s, e, row[cc]);
        if (write && keep) {
            for (unsigned int c = lane; c < cols; c += 32) out[pos * cols + c] = row[c];
        } else if (!write && lane == 0) {
            counts[r] = (unsigned int)keep;
        }
        return;
    }
    const unsigned int next = cols + 1;
    for (u64 b = s; b < e; b += 32) {
        const u64 x = b + lane;
        int fits = x < e;
        const unsigned int w = fits ? tval[x] : 0u;
        for (unsigned int c = 0; fits && injective && c < cols; ++c) fits = row[c] != w;
        for (unsigned int f = 0; fits && f < nforbid; ++f) {
            const unsigned int a = row[forbid[2 * f]], mask = forbid[2 * f + 1];
            if ((mask & 1u) && g_contains(adj_col, adj_off[a], adj_off[a + 1], w)) fits = 0;
            const u64 in = (u64)n + 1 + a;
            if ((mask & 2u) && g_contains(adj_col, adj_off[in], adj_off[in + 1], w)) fits = 0;
        }
        const unsigned int mask = __ballot_sync(G_FULL, fits);
        if (write && fits) {
            unsigned int* o = out + (pos + __popc(mask & ((1u << lane) - 1u))) * next;
            for (unsigned int c = 0; c < cols; ++c) o[c] = row[c];
            o[cols] = w;
        }
        pos += __popc(mask);
    }
    if (!write && lane == 0) counts[r] = (unsigned int)pos;
}
