// GGQ's tree-pattern queries on the device (seeds/004; ../shared/papers/gpsm-ggq.md Part B),
// counted without enumeration as subgraph-core's `tree` does on the CPU: one launch per query
// vertex u, from the leaves to the root, one warp per data vertex v. Lane 0 tests v against u's
// label and allowed set; then for each child c of u the lanes sum cnt(c, w) over v's neighbours
// w in c's direction whose edge label c's link allows (cnt(c, w) is 0 where w fails c's own
// label or tests), and lane 0 multiplies the sums into cnt(u, v). Counts are u64, saturating:
// a saturated count stays positive (the answers stay exact) and raises `overflow`, after which
// the host counts on the CPU in 128 bits.
//
// A child record (4 words of `children`): direction (0 out, 1 in), edge label (G_ANY: any),
// the child's row in `counts` (n words a row), unused.

#define G_ANY 0xFFFFFFFFu
#define G_MAX 0xFFFFFFFFFFFFFFFFull

__device__ __forceinline__ unsigned long long g_add(unsigned long long a, unsigned long long b, unsigned int& over) {
    const unsigned long long s = a + b;
    if (s < a) {
        over = 1u;
        return G_MAX;
    }
    return s;
}

extern "C" __global__ void ggq_pass(const unsigned int* __restrict__ labels, unsigned int n,
                                    const unsigned long long* __restrict__ off_out,
                                    const unsigned int* __restrict__ nbr_out,
                                    const unsigned int* __restrict__ el_out,
                                    const unsigned long long* __restrict__ off_in,
                                    const unsigned int* __restrict__ nbr_in,
                                    const unsigned int* __restrict__ el_in, unsigned int want,
                                    const unsigned int* __restrict__ allowed, unsigned int restricted,
                                    const unsigned int* __restrict__ children, unsigned int nchildren,
                                    const unsigned long long* __restrict__ counts, unsigned long long* out,
                                    unsigned int* overflow) {
    const unsigned long long warp = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned int lane = threadIdx.x & 31u;
    if (warp >= n) return;
    const unsigned int v = (unsigned int)warp;
    const bool admitted = (want == G_ANY || labels[v] == want) &&
                          (restricted == 0u || ((allowed[v >> 5] >> (v & 31u)) & 1u) != 0u);
    unsigned long long product = admitted ? 1ull : 0ull;
    unsigned int over = 0u;
    for (unsigned int c = 0; c < nchildren && product != 0ull; ++c) {
        const unsigned int* rec = children + 4u * c;
        const bool in = rec[0] == 1u;
        const unsigned long long* off = in ? off_in : off_out;
        const unsigned int* nbr = in ? nbr_in : nbr_out;
        const unsigned int* el = in ? el_in : el_out;
        const unsigned int label = rec[1];
        const unsigned long long* below = counts + (unsigned long long)rec[2] * n;
        unsigned long long sum = 0ull;
        for (unsigned long long i = off[v] + lane; i < off[v + 1]; i += 32ull) {
            if (label == G_ANY || el[i] == label) sum = g_add(sum, below[nbr[i]], over);
        }
        // A butterfly: every lane ends with the whole sum, each addition of disjoint parts.
        for (unsigned int d = 16; d > 0; d >>= 1) sum = g_add(sum, __shfl_xor_sync(0xFFFFFFFFu, sum, d), over);
        const unsigned long long high = __umul64hi(product, sum);
        product = high != 0ull ? G_MAX : product * sum;
        over |= high != 0ull ? 1u : 0u;
    }
    if (lane == 0u) {
        out[v] = product;
    }
    over = __any_sync(0xFFFFFFFFu, over != 0u) ? 1u : 0u;
    if (lane == 0u && over != 0u) atomicOr(overflow, 1u);
}
