// GGQ's thread-ID enumeration (seeds/004 §3, Figs. 3-7; ../shared/papers/gpsm-ggq.md B.4-B.6):
// each thread is one candidate match. Its number, taken after the launch's `base`, is read as a
// prefix row (a partial match of the earlier phases, or a root candidate in the first) and a
// mixed-radix number whose digits, lowest first, pick for each step of the phase (a tree edge,
// parent before child, by depth) the digit-th edge of the parent's data vertex in that edge's
// stream (its direction and label). A thread dies where the digit passes the vertex's edges or
// the edge's far end fails the child's label or tests; a survivor is a homomorphism of the tree
// so far. Survivors of an earlier phase are appended as rows of q words; those of the last are
// counted, projected onto the returned columns and written, or made distinct in a hash set.
//
// A step record is 6 u64 words: the stream's offsets and neighbours (device addresses), the
// radix, the child's allowed-vertex bitset (0: none), parent | child << 32, and the child's
// label (G_ANY: any).
//
// With `distinct`, the last phase's projected rows are inserted into `table` (else it is unused).
// counters[0]: rows appended (earlier phases) or matches found (the last, cumulative);
// counters[1]: distinct rows found (the last phase, cumulative). `before` is counters[0] (or
// [1] when distinct) before this launch, so that this launch's rows start at rows[0]; `cap`
// stops the last phase (matches, or distinct rows) and no row past it is written.

#define G_ANY 0xFFFFFFFFu
#define G_FULL 0xFFFFFFFFu
#define G_MAX_Q 32u

__device__ __forceinline__ unsigned long long g_mix(unsigned long long x) {
    // splitmix64's finaliser.
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

// Inserts key + 1 (0 marks an empty slot) into the open-addressing set `table` (mask + 1 slots,
// at most half full); returns whether it was new.
__device__ __forceinline__ bool g_insert(unsigned long long* table, unsigned long long mask,
                                         unsigned long long key) {
    const unsigned long long k = key + 1ull;
    unsigned long long slot = g_mix(key) & mask;
    while (true) {
        const unsigned long long old = atomicCAS(table + slot, 0ull, k);
        if (old == 0ull) return true;
        if (old == k) return false;
        slot = (slot + 1ull) & mask;
    }
}

// A warp's survivors claim consecutive places: lane 0 of them adds their number to `counter`;
// returns this lane's place (meaningful where `alive`).
__device__ __forceinline__ unsigned long long g_claim(unsigned long long* counter, bool alive) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int mask = __ballot_sync(G_FULL, alive);
    const unsigned int leader = mask == 0u ? 0u : (unsigned int)(__ffs(mask) - 1);
    unsigned long long first = 0ull;
    if (mask != 0u && lane == leader) first = atomicAdd(counter, (unsigned long long)__popc(mask));
    first = __shfl_sync(G_FULL, first, leader);
    return first + (unsigned long long)__popc(mask & ((1u << lane) - 1u));
}

extern "C" __global__ void ggq_ids(const unsigned int* __restrict__ labels,
                                   const unsigned long long* __restrict__ steps, unsigned int first,
                                   unsigned int nsteps, unsigned int q,
                                   const unsigned int* __restrict__ prefix, unsigned int root,
                                   unsigned int from_roots, unsigned long long space,
                                   unsigned long long base, unsigned long long count, unsigned int last,
                                   const unsigned int* __restrict__ columns, unsigned int p,
                                   unsigned int write, unsigned int distinct, unsigned long long* table,
                                   unsigned long long mask, unsigned int bits, unsigned long long cap,
                                   unsigned long long before, unsigned int* rows,
                                   unsigned long long* counters) {
    const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    // Whole warps go on to the ballots below; threads past the launch are dead from the start.
    bool alive = t < count;
    if (last != 0u && alive) {
        // Existence and LIMIT: nothing more is wanted once the cap is reached.
        const volatile unsigned long long* c = counters + (distinct != 0u ? 1 : 0);
        alive = *c < cap;
    }
    unsigned int bind[G_MAX_Q];
    if (alive) {
        const unsigned long long id = base + t;
        const unsigned long long row = id / space;
        unsigned long long digits = id % space;
        if (from_roots != 0u) {
            bind[root] = prefix[row];
        } else {
            for (unsigned int c = 0; c < q; ++c) bind[c] = prefix[row * q + c];
        }
        for (unsigned int s = first; s < first + nsteps; ++s) {
            const unsigned long long* st = steps + 6ull * s;
            const unsigned long long radix = st[2];
            const unsigned long long digit = digits % radix;
            digits /= radix;
            const unsigned int parent = (unsigned int)st[4];
            const unsigned int child = (unsigned int)(st[4] >> 32);
            const unsigned long long* off = (const unsigned long long*)st[0];
            const unsigned int* nbr = (const unsigned int*)st[1];
            const unsigned int v = bind[parent];
            const unsigned long long from = off[v];
            if (digit >= off[v + 1] - from) {
                alive = false;
                break;
            }
            const unsigned int w = nbr[from + digit];
            const unsigned int want = (unsigned int)st[5];
            const unsigned int* allowed = (const unsigned int*)st[3];
            if ((want != G_ANY && labels[w] != want) ||
                (allowed != 0 && ((allowed[w >> 5] >> (w & 31u)) & 1u) == 0u)) {
                alive = false;
                break;
            }
            bind[child] = w;
        }
    }
    if (last == 0u) {
        const unsigned long long at = g_claim(counters, alive);
        if (alive) {
            for (unsigned int c = 0; c < q; ++c) rows[at * q + c] = bind[c];
        }
        return;
    }
    const unsigned long long found = g_claim(counters, alive);
    unsigned long long place = found;
    bool keep = alive;
    if (distinct != 0u) {
        unsigned long long key = 0ull;
        if (alive) {
            for (unsigned int c = 0; c < p; ++c) key |= (unsigned long long)bind[columns[c]] << (bits * c);
        }
        keep = alive && g_insert(table, mask, key);
        place = g_claim(counters + 1, keep);
    }
    if (write != 0u && keep && place < cap) {
        for (unsigned int c = 0; c < p; ++c) rows[(place - before) * p + c] = bind[columns[c]];
    }
}

// Moves the keys of `old` (n slots) into `table` (mask + 1 slots, empty).
extern "C" __global__ void ggq_rehash(const unsigned long long* __restrict__ old, unsigned long long n,
                                      unsigned long long* table, unsigned long long mask) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && old[i] != 0ull) g_insert(table, mask, old[i] - 1ull);
}

// A stream (GGQ's per-label edge stream, B.9): each vertex's edges of one label in one
// direction. First the degrees, one thread per vertex...
extern "C" __global__ void ggq_stream_degrees(const unsigned long long* __restrict__ off,
                                              const unsigned int* __restrict__ el, unsigned int n,
                                              unsigned int label, unsigned int* degrees) {
    const unsigned long long v = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    unsigned int d = 0u;
    for (unsigned long long i = off[v]; i < off[v + 1]; ++i) d += el[i] == label ? 1u : 0u;
    degrees[v] = d;
}

// ...then, after their scan into `to`, the neighbours.
extern "C" __global__ void ggq_stream_fill(const unsigned long long* __restrict__ off,
                                           const unsigned int* __restrict__ nbr,
                                           const unsigned int* __restrict__ el, unsigned int n,
                                           unsigned int label, const unsigned long long* __restrict__ to,
                                           unsigned int* out) {
    const unsigned long long v = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    unsigned long long at = to[v];
    for (unsigned long long i = off[v]; i < off[v + 1]; ++i) {
        if (el[i] == label) out[at++] = nbr[i];
    }
}
