// FSIG's auxiliary structure A (Yu's thesis ch. 5, Collect) for one query's plan, compiled after
// pcsr.cu and slices.cu: for each plan link t (tdesc: 5 words per link, the first index of its
// keys among all keys, its structure index, edge label and neighbour label, and the device
// address of the linked position's candidate bitset), each key v (a candidate of the link's
// source position) holds N(v, st, el) of label nl within that bitset, in id order. One warp per
// key of all links at once: counted (write = 0: added to counts[i]) or written from
// offsets[i] + counts[i] (write = 1, counts[i] then advanced past what was written), the two
// steps of GpSM's two-step output with a scan between. Adding up lets the lists be gathered
// from a partitioned graph (partition.rs): one launch per segment in each step, a key's pieces
// landing one after another in segment order.

// A launch takes the keys first_key .. end (a segment's, or all).
extern "C" __global__ void fsig_lists(J_GRAPH_PARAMS, const unsigned int* keys, u64 first_key, u64 end,
                                      const u64* tdesc, unsigned int ntables, unsigned int write,
                                      const u64* offsets, unsigned int* counts, unsigned int* values) {
    const JGraph g = J_GRAPH;
    const u64 warp = first_key + (((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= end) return;
    const u64* t = tdesc + 5ull * list_owner(tdesc, 5, ntables, warp);
    const unsigned int* bits = (const unsigned int*)t[4];
    u64 s, e;
    slice_of(g, (unsigned int)t[1], (unsigned int)t[2], (unsigned int)t[3], keys[warp], &s, &e);
    const u64 begin = write ? offsets[warp] + counts[warp] : 0;
    u64 pos = begin;
    for (u64 base = s; base < e; base += 32) {
        const u64 x = base + lane;
        const unsigned int w = x < e ? g.columns[x] : 0u;
        const int hit = x < e && ((bits[w >> 5] >> (w & 31u)) & 1u);
        const unsigned int mask = __ballot_sync(J_FULL, hit);
        if (write && hit) values[pos + __popc(mask & ((1u << lane) - 1u))] = w;
        pos += __popc(mask);
    }
    if (lane == 0) counts[warp] += (unsigned int)(pos - begin);
}
