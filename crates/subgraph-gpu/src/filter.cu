// GSI filtering on the device (§III-A, Fig. 8): one thread per data vertex reads its
// signature column by column (coalesced: word k of vertex i at k * n + i), keeps it when the
// label word equals the query's and every query counter bit is set, writes a 0/1 flag and,
// through a warp ballot, the vertex's bit of the candidate bitset (word i / 32, bit i % 32).
// After the scan of the flags, filter_scatter writes the candidates in ascending order.

#define FILTER_WORDS 16u

extern "C" __global__ void filter_flags(const unsigned int* __restrict__ table, unsigned int n,
                                        const unsigned int* __restrict__ query,
                                        unsigned int* flags, unsigned int* bitset) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    int keep = 0;
    if (i < n) {
        keep = table[i] == __ldg(&query[0]);
        for (unsigned int k = 1; keep && k < FILTER_WORDS; ++k) {
            const unsigned int q = __ldg(&query[k]);
            keep = (table[(unsigned long long)k * n + i] & q) == q;
        }
        flags[i] = keep;
    }
    const unsigned int word = __ballot_sync(0xFFFFFFFFu, keep);
    if ((threadIdx.x & 31u) == 0u && i < n) bitset[i >> 5] = word;
}

extern "C" __global__ void filter_scatter(const unsigned int* __restrict__ flags, unsigned int n,
                                          const unsigned long long* __restrict__ offsets,
                                          unsigned int* candidates) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i]) candidates[offsets[i]] = (unsigned int)i;
}
