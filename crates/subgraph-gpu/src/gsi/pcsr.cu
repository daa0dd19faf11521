// PCSR lookup on the device (GSI §IV-A): one warp loads a 128-byte group (one word per lane),
// the even lanes below 30 compare their key with v, and a hit gives N(v,l) = ci[start, end)
// with start = word 2j+1 and end = word 2j+3; otherwise the warp follows the overflow link in
// word 30 until it is INVALID. The hash must equal hash.rs's murmur2_u32.

#define PCSR_INVALID 0xFFFFFFFFu
#define PCSR_SEED 17u

__device__ __forceinline__ unsigned int murmur2_u32(unsigned int v, unsigned int seed) {
    const unsigned int m = 0x5bd1e995u;
    unsigned int h = seed ^ 4u;
    unsigned int k = v * m;
    k ^= k >> 24;
    k *= m;
    h *= m;
    h ^= k;
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

// Warp-cooperative lookup; all 32 lanes must call it with the same v. Returns 1 and sets
// *start/*end when v is a key, else returns 0.
__device__ __forceinline__ int pcsr_locate(const unsigned int* __restrict__ groups,
                                           unsigned int num_groups, unsigned int v,
                                           unsigned int* start, unsigned int* end) {
    const unsigned int lane = threadIdx.x & 31u;
    if (num_groups == 0u) return 0;
    unsigned int g = murmur2_u32(v, PCSR_SEED) % num_groups;
    while (true) {
        const unsigned int word = groups[(unsigned long long)g * 32ull + lane];
        const int is_key = (lane & 1u) == 0u && lane < 30u && word == v;
        const unsigned int hit = __ballot_sync(0xFFFFFFFFu, is_key);
        const unsigned int next = __shfl_sync(0xFFFFFFFFu, word, 30);
        if (hit != 0u) {
            const int j = __ffs(hit) - 1;
            *start = __shfl_sync(0xFFFFFFFFu, word, j + 1);
            *end = __shfl_sync(0xFFFFFFFFu, word, j + 3);
            return 1;
        }
        if (next == PCSR_INVALID) return 0;
        g = next;
    }
}

// One warp per vertex: starts[i], ends[i] = the range of N(vertices[i], l) in ci, or
// (INVALID, INVALID) when vertices[i] has no l-edge.
extern "C" __global__ void pcsr_locate_kernel(const unsigned int* __restrict__ groups,
                                              unsigned int num_groups,
                                              const unsigned int* __restrict__ vertices,
                                              unsigned int n, unsigned int* starts,
                                              unsigned int* ends) {
    const unsigned long long warp =
        ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (warp >= n) return;
    unsigned int start = PCSR_INVALID, end = PCSR_INVALID;
    pcsr_locate(groups, num_groups, vertices[warp], &start, &end);
    if ((threadIdx.x & 31u) == 0u) {
        starts[warp] = start;
        ends[warp] = end;
    }
}
