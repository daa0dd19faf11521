// Exclusive prefix sum of u32 counts into u64 offsets, the CUB DeviceScan step of GSI's
// filtering (§III-A) and Prealloc-Combine (§V). Three passes over tiles of 4096 elements
// (1024 threads x 4): per-tile sums, a single-block scan of the tile sums, and the per-tile
// scan that adds its tile's offset. out has n + 1 entries; out[n] is the total.

#define SCAN_ITEMS 4u
#define FULL_MASK 0xFFFFFFFFu

// Exclusive scan of one value per thread over the block; *total gets the block's sum.
// Every thread of the block must call it.
__device__ unsigned long long block_exclusive_scan(unsigned long long x,
                                                   unsigned long long* total) {
    __shared__ unsigned long long warp_sums[32];
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = (blockDim.x + 31u) >> 5;
    unsigned long long v = x;
    for (unsigned int o = 1; o < 32u; o <<= 1) {
        const unsigned long long t = __shfl_up_sync(FULL_MASK, v, o);
        if (lane >= o) v += t;
    }
    if (lane == 31u) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0u) {
        unsigned long long s = lane < warps ? warp_sums[lane] : 0ull;
        for (unsigned int o = 1; o < 32u; o <<= 1) {
            const unsigned long long t = __shfl_up_sync(FULL_MASK, s, o);
            if (lane >= o) s += t;
        }
        warp_sums[lane] = s;
    }
    __syncthreads();
    const unsigned long long before = warp == 0u ? 0ull : warp_sums[warp - 1u];
    *total = warp_sums[warps - 1u];
    __syncthreads();
    return before + v - x;
}

// The sum of this thread's SCAN_ITEMS consecutive elements of the block's tile.
__device__ __forceinline__ unsigned long long thread_sum(const unsigned int* in, unsigned int n,
                                                         unsigned long long first) {
    unsigned long long s = 0;
    for (unsigned int j = 0; j < SCAN_ITEMS; ++j)
        if (first + j < n) s += in[first + j];
    return s;
}

extern "C" __global__ void scan_tile_sums(const unsigned int* in, unsigned int n,
                                          unsigned long long* tile_sums) {
    const unsigned long long tile = (unsigned long long)blockDim.x * SCAN_ITEMS;
    const unsigned long long first = blockIdx.x * tile + threadIdx.x * SCAN_ITEMS;
    unsigned long long total;
    block_exclusive_scan(thread_sum(in, n, first), &total);
    if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// One block: tile_sums becomes its exclusive scan.
extern "C" __global__ void scan_tile_offsets(unsigned long long* tile_sums,
                                             unsigned int num_tiles) {
    unsigned long long carry = 0;
    for (unsigned int base = 0; base < num_tiles; base += blockDim.x) {
        const unsigned int i = base + threadIdx.x;
        const unsigned long long x = i < num_tiles ? tile_sums[i] : 0ull;
        unsigned long long total;
        const unsigned long long ex = block_exclusive_scan(x, &total);
        if (i < num_tiles) tile_sums[i] = carry + ex;
        carry += total;
    }
}

extern "C" __global__ void scan_tile_apply(const unsigned int* in, unsigned int n,
                                           const unsigned long long* tile_offsets,
                                           unsigned long long* out) {
    const unsigned long long tile = (unsigned long long)blockDim.x * SCAN_ITEMS;
    const unsigned long long first = blockIdx.x * tile + threadIdx.x * SCAN_ITEMS;
    unsigned long long total;
    unsigned long long run =
        tile_offsets[blockIdx.x] + block_exclusive_scan(thread_sum(in, n, first), &total);
    for (unsigned int j = 0; j < SCAN_ITEMS; ++j) {
        if (first + j < n) {
            out[first + j] = run;
            run += in[first + j];
        }
    }
    if (blockIdx.x == gridDim.x - 1u && threadIdx.x == 0)
        out[n] = tile_offsets[blockIdx.x] + total;
}

// out[i] = offsets[at[i]] for i < n: after a scan over several lists laid one after another
// (list u's entries from at[u]), where each list's scanned entries begin.
extern "C" __global__ void scan_gather(const unsigned long long* offsets,
                                       const unsigned long long* at, unsigned int n,
                                       unsigned long long* out) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = offsets[at[i]];
}
