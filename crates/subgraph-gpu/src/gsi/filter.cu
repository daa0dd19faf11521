// GSI filtering on the device (§III-A, Fig. 8), every query vertex in one pass: one thread per
// data vertex reads its label word (coalesced: word k of vertex i at k * n + i), and its 15
// counter words only when some query vertex has that label; for each query vertex u it keeps
// the vertex when the label equals u's and every counter bit of u is set, and a warp ballot
// writes word i / 32 of u's candidate bitset and its population count, within u's allowed set
// when the query restricts u to given data vertices (a pattern's property tests: `slots[u]` is
// the index of u's bitset in `allowed`, or none). After one exclusive scan
// of the counts (u's bitset, then u + 1's), filter_scatter writes every C(u) in ascending order,
// one list after another (scan.cu's scan_gather then reads where each begins).

#define FILTER_WORDS 16u
#define FILTER_MAX_QUERY 64u
#define FILTER_ANY 0xFFFFFFFFu

// The table may be one vertex segment of a partitioned graph (partition.rs, SGSI §6.1),
// column-major within the segment: its n vertices are ids[0 .. n) where `scattered` (their
// bits set one by one, and counted after every segment by filter_counts), else the ids from
// `first` (a multiple of 32; the whole table from 0).
extern "C" __global__ void filter_bits(const unsigned int* __restrict__ table, unsigned int n,
                                       unsigned int first, const unsigned int* __restrict__ ids,
                                       unsigned int scattered,
                                       const unsigned int* __restrict__ queries, unsigned int nq,
                                       unsigned int words, const unsigned int* __restrict__ allowed,
                                       const unsigned int* __restrict__ slots, unsigned int* bits,
                                       unsigned int* counts) {
    __shared__ unsigned int q[FILTER_MAX_QUERY * FILTER_WORDS];
    __shared__ unsigned int slot[FILTER_MAX_QUERY];
    for (unsigned int k = threadIdx.x; k < nq * FILTER_WORDS; k += blockDim.x) q[k] = queries[k];
    for (unsigned int k = threadIdx.x; k < nq; k += blockDim.x) slot[k] = slots[k];
    __syncthreads();
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool in = i < n;
    const unsigned int label = in ? table[i] : 0u;
    bool wanted = false;
    for (unsigned int u = 0; u < nq; ++u) wanted |= in && label == q[u * FILTER_WORDS];
    unsigned int sig[FILTER_WORDS];
#pragma unroll
    for (unsigned int k = 1; k < FILTER_WORDS; ++k) sig[k] = wanted ? table[(unsigned long long)k * n + i] : 0u;
    for (unsigned int u = 0; u < nq; ++u) {
        const unsigned int* s = q + u * FILTER_WORDS;
        bool keep = in && label == s[0];
#pragma unroll
        for (unsigned int k = 1; k < FILTER_WORDS; ++k) keep = keep && (sig[k] & s[k]) == s[k];
        if (scattered) {
            const unsigned int v = in ? ids[i] : 0u;
            const unsigned long long w = v >> 5;
            if (keep && slot[u] != FILTER_ANY) keep = (allowed[(unsigned long long)slot[u] * words + w] >> (v & 31u)) & 1u;
            if (keep) atomicOr(&bits[(unsigned long long)u * words + w], 1u << (v & 31u));
            continue;
        }
        unsigned int word = __ballot_sync(0xFFFFFFFFu, keep);
        if ((threadIdx.x & 31u) == 0u && in) {
            const unsigned long long w = (first + i) >> 5;
            if (slot[u] != FILTER_ANY) word &= allowed[(unsigned long long)slot[u] * words + w];
            const unsigned long long at = (unsigned long long)u * words + w;
            bits[at] = word;
            counts[at] = __popc(word);
        }
    }
}

// counts[j] = the population count of bitset word j (after scattered segments).
extern "C" __global__ void filter_counts(const unsigned int* __restrict__ bits, unsigned long long total,
                                         unsigned int* counts) {
    const unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < total) counts[j] = __popc(bits[j]);
}

// Word j of the concatenated bitsets (u = j / words) writes its vertices from offsets[j].
extern "C" __global__ void filter_scatter(const unsigned int* __restrict__ bits, unsigned long long total,
                                          unsigned int words, const unsigned long long* __restrict__ offsets,
                                          unsigned int* candidates) {
    const unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= total) return;
    unsigned int w = bits[j];
    unsigned long long at = offsets[j];
    const unsigned int base = (unsigned int)(j % words) * 32u;
    while (w != 0u) {
        candidates[at++] = base + (unsigned int)(__ffs(w) - 1);
        w &= w - 1u;
    }
}
