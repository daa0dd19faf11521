// The data graph as the join and the refinement read it, and the slice N(v, dir, el) of the
// neighbours labelled nl (GSI §IV-A lookups: PCSR hashed per (edge label, direction), the plain
// CSR baseline of Table II, or FSIG's auxiliary structure A of one query's candidate edges).
// Compiled after pcsr.cu, before join.cu and refine.cu.

#define J_FULL 0xFFFFFFFFu

typedef unsigned long long u64;

struct JGraph {
    const unsigned int* groups;
    const u64* meta;
    const unsigned int* columns;
    const unsigned int* elabels;
    const unsigned int* labels;
    const u64* adj_off;
    const unsigned int* adj_col;
    unsigned int mode;
    unsigned int nverts;
};

// CSR mode: the first index of [lo, hi) whose (edge label, neighbour label) is >= (or, when
// strict, >) (el, nl), scanning 32 entries per step; warp-uniform.
__device__ u64 csr_scan(const JGraph& g, u64 lo, u64 hi, unsigned int el, unsigned int nl,
                        int strict) {
    const unsigned int lane = threadIdx.x & 31u;
    for (u64 base = lo; base < hi; base += 32) {
        const u64 x = base + lane;
        int hit = 0;
        if (x < hi) {
            const unsigned int a = g.elabels[x];
            const unsigned int b = g.labels[g.columns[x]];
            hit = a > el || (a == el && (strict ? b > nl : b >= nl));
        }
        const unsigned int m = __ballot_sync(J_FULL, hit);
        if (m) return base + (unsigned int)(__ffs(m) - 1);
    }
    return hi;
}

// The slice of `columns` holding N(v, dir, el) restricted to neighbours labelled nl, sorted by
// id; `st` is the PCSR index (mode 0), the direction (mode 1) or the plan link's table of FSIG's
// auxiliary structure (mode 2: N(v, dir, el) within the link's candidates). Warp-uniform.
__device__ void slice_of(const JGraph& g, unsigned int st, unsigned int el, unsigned int nl,
                         unsigned int v, u64* s, u64* e) {
    if (g.mode == 0u) {
        const u64 gbase = g.meta[3ull * st];
        const unsigned int ngroups = (unsigned int)g.meta[3ull * st + 1];
        const u64 cbase = g.meta[3ull * st + 2];
        unsigned int a = 0, b = 0;
        if (!pcsr_locate(g.groups + gbase, ngroups, v, &a, &b)) {
            *s = 0;
            *e = 0;
            return;
        }
        u64 lo = cbase + a, hi = cbase + b;
        while (lo < hi) {
            const u64 mid = (lo + hi) >> 1;
            if (g.labels[g.columns[mid]] < nl) lo = mid + 1; else hi = mid;
        }
        const u64 start = lo;
        hi = cbase + b;
        while (lo < hi) {
            const u64 mid = (lo + hi) >> 1;
            if (g.labels[g.columns[mid]] <= nl) lo = mid + 1; else hi = mid;
        }
        *s = start;
        *e = lo;
    } else if (g.mode == 2u) {
        // FSIG's auxiliary structure A: table st holds meta[3st] (its keys' first index in
        // groups), meta[3st + 1] (their number) and meta[3st + 2] (where its key offsets into
        // columns start in meta); v's list is already restricted to the link's candidates.
        const unsigned int* keys = g.groups + g.meta[3ull * st];
        u64 lo = 0, hi = g.meta[3ull * st + 1];
        while (lo < hi) {
            const u64 mid = (lo + hi) >> 1;
            if (keys[mid] < v) lo = mid + 1; else hi = mid;
        }
        if (lo < g.meta[3ull * st + 1] && keys[lo] == v) {
            const u64* offsets = g.meta + g.meta[3ull * st + 2];
            *s = offsets[lo];
            *e = offsets[lo + 1];
        } else {
            *s = 0;
            *e = 0;
        }
    } else {
        const u64 base = (u64)st * (g.nverts + 1ull);
        const u64 lo = g.meta[base + v], hi = g.meta[base + v + 1];
        const u64 start = csr_scan(g, lo, hi, el, nl, 0);
        *s = start;
        *e = csr_scan(g, start, hi, el, nl, 1);
    }
}

// The list owning entry i of lists laid one after another: the last t < n with
// starts[stride * t] <= i (list t's first entry at starts[stride * t]; starts[0] = 0).
__device__ __forceinline__ unsigned int list_owner(const u64* starts, unsigned int stride, unsigned int n, u64 i) {
    unsigned int lo = 0, hi = n;
    while (hi - lo > 1) {
        const unsigned int mid = (lo + hi) >> 1;
        if (starts[(u64)stride * mid] <= i) lo = mid; else hi = mid;
    }
    return lo;
}

// Whether c is in the sorted global range [lo, hi) of a.
__device__ __forceinline__ int sorted_has(const unsigned int* a, u64 lo, u64 hi,
                                          unsigned int c) {
    const u64 end = hi;
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        if (a[mid] < c) lo = mid + 1; else hi = mid;
    }
    return lo < end && a[lo] == c;
}

// The first index of the sorted range [lo, hi) of a holding a value above the row's symmetry
// bounds (lo when the level has none); `desc` is a level descriptor (join.cu's layout).
__device__ __forceinline__ u64 above_bounds(const unsigned int* desc, const unsigned int* row,
                                           const unsigned int* a, u64 lo, u64 hi) {
    const unsigned int k = desc[1], m = desc[2], b = desc[5];
    if (b == 0u) return lo;
    unsigned int floor = 0;
    for (unsigned int t = 0; t < b; ++t) {
        const unsigned int v = row[desc[8 + 3 * k + 2 * m + t]];
        floor = v > floor ? v : floor;
    }
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        if (a[mid] <= floor) lo = mid + 1; else hi = mid;
    }
    return lo;
}

#define J_GRAPH_PARAMS                                                                     \
    const unsigned int *groups, const u64 *meta, const unsigned int *columns,               \
        const unsigned int *elabels, const unsigned int *labels, const u64 *adj_off,        \
        const unsigned int *adj_col, unsigned int mode, unsigned int nverts
#define J_GRAPH {groups, meta, columns, elabels, labels, adj_off, adj_col, mode, nverts}
