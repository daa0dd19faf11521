// FSIG's candidate refinement on the device (Yu's thesis §5.4, Alg. 7), after GSI's signature
// filter; compiled after pcsr.cu and slices.cu. Each round is a Jacobi step: refine_check
// reads every query vertex's candidate bitset from the round's input and clears removals in a
// copy, one warp per candidate v of u: for each query edge of u, to u' through structure st
// with edge label el, it streams the slice N(v, st, el) of neighbours labelled L(u') in
// 32-element batches and probes C(u') in the bitset; v stays only when every such edge finds
// a candidate (edge consistency: a match f with f(u) = v has f(u') in that slice, so no match
// is lost). refine_flags and refine_scatter then compact C(u) to its survivors.

// links: 4 words per query edge of u: (u', st, el, L(u')). Bitsets of all query vertices lie
// in `bits`, `words` words each; v's bit of C(u) is cleared in out[out_at + v / 32].
extern "C" __global__ void refine_check(J_GRAPH_PARAMS, const unsigned int* links,
                                        unsigned int nlinks, const unsigned int* bits, u64 words,
                                        const unsigned int* cands, unsigned int ncands,
                                        unsigned int* out, u64 out_at) {
    const JGraph g = J_GRAPH;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= ncands) return;
    const unsigned int v = cands[warp];
    for (unsigned int j = 0; j < nlinks; ++j) {
        const unsigned int* l = links + 4 * j;
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
        if (!found) {
            if (lane == 0) atomicAnd(&out[out_at + (v >> 5)], ~(1u << (v & 31u)));
            return;
        }
    }
}

// flags[i] = whether cands[i] is still in the bitset at bits[at ...].
extern "C" __global__ void refine_flags(const unsigned int* cands, unsigned int ncands,
                                        const unsigned int* bits, u64 at, unsigned int* flags) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ncands) {
        const unsigned int v = cands[i];
        flags[i] = (bits[at + (v >> 5)] >> (v & 31u)) & 1u;
    }
}

// The kept candidates, in their order, at their scanned positions.
extern "C" __global__ void refine_scatter(const unsigned int* cands, unsigned int ncands,
                                          const unsigned int* flags, const u64* offsets,
                                          unsigned int* out) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ncands && flags[i]) out[offsets[i]] = cands[i];
}
