// FSIG's candidate refinement on the device (Yu's thesis §5.4, Alg. 7), after GSI's signature
// filter; compiled after pcsr.cu and slices.cu. Each round is a Jacobi step over all query
// vertices at once: refine_check reads every query vertex's candidate bitset from the round's
// input and clears removals in a copy, one warp per entry of the concatenated candidate lists
// (entry i belongs to the query vertex u with at[u] <= i < at[u + 1], slices.cu's list_owner):
// for each query edge of u, to u' through structure st with edge label el, it streams the slice
// N(v, st, el) of
// neighbours labelled L(u') in 32-element batches and probes C(u') in the bitset; v stays only
// when every such edge finds a candidate (edge consistency: a match f with f(u) = v has f(u') in
// that slice, so no match is lost). refine_flags, a scan, refine_scatter and scan.cu's
// scan_gather (the new list starts) then compact the lists to their survivors.

// links: 4 words per query edge, (u', st, el, L(u')), those of u at link_at[u] .. link_at[u + 1].
// Bitsets of all query vertices lie in `bits`, `words` words each; v's bit of C(u) is cleared
// in out[u * words + v / 32].

// Whether query edge l (4 words) finds a candidate of its other end u' in v's slice: streamed
// in 32-element batches, each probed in C(u')'s bitset. Warp-uniform.
__device__ int edge_found(const JGraph& g, const unsigned int* l, const unsigned int* bits, u64 words,
                          unsigned int v) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int* c = bits + (u64)l[0] * words;
    u64 s, e;
    slice_of(g, l[1], l[2], l[3], v, &s, &e);
    int found = 0;
    for (u64 base = s; base < e && !found; base += 32) {
        const u64 x = base + lane;
        int hit = 0;
        if (x < e) {
            const unsigned int w = g.columns[x];
            hit = (c[w >> 5] >> (w & 31u)) & 1u;
        }
        found = __ballot_sync(J_FULL, hit) != 0u;
    }
    return found;
}

extern "C" __global__ void refine_check(J_GRAPH_PARAMS, const unsigned int* links,
                                        const unsigned int* link_at, const unsigned int* bits,
                                        u64 words, const unsigned int* cands, const u64* at,
                                        unsigned int nq, unsigned int* out) {
    const JGraph g = J_GRAPH;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= at[nq]) return;
    const unsigned int u = list_owner(at, 1, nq, warp);
    const unsigned int v = cands[warp];
    for (unsigned int j = link_at[u]; j < link_at[u + 1]; ++j) {
        if (!edge_found(g, links + 4 * j, bits, words, v)) {
            if (lane == 0) atomicAnd(&out[(u64)u * words + (v >> 5)], ~(1u << (v & 31u)));
            return;
        }
    }
}

// flags[i] = whether entry i is still in its query vertex's bitset.
extern "C" __global__ void refine_flags(const unsigned int* cands, const u64* at, unsigned int nq,
                                        const unsigned int* bits, u64 words, unsigned int* flags) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < at[nq]) {
        const unsigned int u = list_owner(at, 1, nq, i);
        const unsigned int v = cands[i];
        flags[i] = (bits[(u64)u * words + (v >> 5)] >> (v & 31u)) & 1u;
    }
}

// The kept entries, in their order, at their scanned positions.
extern "C" __global__ void refine_scatter(const unsigned int* cands, u64 n,
                                          const unsigned int* flags, const u64* offsets,
                                          unsigned int* out) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i]) out[offsets[i]] = cands[i];
}

// A partitioned graph's check (partition.rs), once per segment of a round: the query edges
// entry i's lists satisfy in this segment are added to seen[i] (bit k: u's k-th query edge,
// those found already skipped); after every segment, refine_unseen clears in `out` the entries
// some query edge found in none. Entries outside the segment's sources, (first label, first
// id) to (last label, last id), have nothing here.
extern "C" __global__ void refine_seen(J_GRAPH_PARAMS, const unsigned int* links,
                                       const unsigned int* link_at, const unsigned int* bits,
                                       u64 words, const unsigned int* cands, const u64* at,
                                       unsigned int nq, u64* seen, unsigned int first_label,
                                       unsigned int first_id, unsigned int last_label,
                                       unsigned int last_id) {
    const JGraph g = J_GRAPH;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= at[nq]) return;
    const unsigned int u = list_owner(at, 1, nq, warp);
    const unsigned int v = cands[warp];
    const unsigned int lv = g.labels[v];
    if (lv < first_label || (lv == first_label && v < first_id) || lv > last_label ||
        (lv == last_label && v > last_id))
        return;
    u64 mask = seen[warp];
    for (unsigned int j = link_at[u]; j < link_at[u + 1]; ++j) {
        const u64 bit = 1ull << (j - link_at[u]);
        if (!(mask & bit) && edge_found(g, links + 4 * j, bits, words, v)) mask |= bit;
    }
    if (lane == 0) seen[warp] = mask;
}

// One thread per entry: v leaves C(u) in `out` unless every query edge of u was seen.
extern "C" __global__ void refine_unseen(const unsigned int* cands, const u64* at, unsigned int nq,
                                         const unsigned int* link_at, const u64* seen, u64 words,
                                         unsigned int* out) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= at[nq]) return;
    const unsigned int u = list_owner(at, 1, nq, i);
    const unsigned int edges = link_at[u + 1] - link_at[u];
    const u64 all = edges >= 64u ? ~0ull : (1ull << edges) - 1ull;
    const unsigned int v = cands[i];
    if ((seen[i] & all) != all) atomicAnd(&out[(u64)u * words + (v >> 5)], ~(1u << (v & 31u)));
}
