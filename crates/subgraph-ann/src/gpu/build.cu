// GGraphCon's construction kernels (thesis §2.3, Algorithm 5), one warp per block: local NSW
// graphs built by sequential insertion, one group of consecutive ids per block (ggc_local);
// then, group after group, each vertex of the group searching its nearest in the graph of the
// groups before it and joining them (ggc_search, step 1 and the forward edges), and each
// source of a backward edge merging its edges into its row (ggc_backward, step 3; step 2, the
// sort of the backward edges by source, is the host's). Rows are kept sorted by (distance, id)
// beside their distances; a row that overflows keeps its DEG nearest, or (PRUNE 1) HNSW's
// diverse neighbours: a candidate is left out when one already kept is nearer to it than the
// row's vertex is. Searches are GANNS' (ganns.cuh); the upper layers of an HNSW graph, already
// built, give each search its entry by greedy descent.
//
// Compile-time constants, besides common.cuh's and ganns.cuh's: PRUNE (0 nearest, 1 diverse),
// XMAX (the most new neighbours one row merge takes) and CL (the power of two at least
// DEG + XMAX: a row merge's candidates).

#if PRUNE != 0 && PRUNE != 1
#error "PRUNE must be 0 (nearest) or 1 (diverse)"
#endif
#if CL < DEG + XMAX || (CL & (CL - 1)) != 0
#error "CL must be the power of two at least DEG + XMAX"
#endif

// One warp's shared arrays.
struct GgcShared {
    ann_key n[LN];
    ann_key t[TL];
    unsigned tid[TL];
    unsigned h[HS];
    ann_key c[CL];
    unsigned kid[DEG];
    float kd[DEG];
    unsigned fid[DEG];
    float fd[DEG];
    unsigned xid[XMAX];
    float xd[XMAX];
    __align__(16) float q[QLEN];
};

__device__ __forceinline__ void ggc_load_row(const float* __restrict__ base, unsigned v, float* q) {
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned i = lane; i < QLEN; i += 32u) q[i] = i < DIM ? base[(size_t)v * DIM + i] : 0.0f;
    __syncwarp();
}

// The kept list s->kid/kd[0..return) := at most `width` of the sorted keys cand[0..len) (their
// distances to one vertex): the first ones, or (PRUNE 1) each whose distance to every one
// kept before it is at least its own distance to the vertex. Every lane must call it.
__device__ unsigned ggc_select(const float* __restrict__ base, const ann_key* cand, unsigned len, unsigned width,
                               GgcShared* s) {
    const unsigned lane = threadIdx.x & 31u;
    unsigned kept = 0u;
    for (unsigned i = 0u; i < len && kept < width; ++i) {
        const ann_key key = cand[i];
        if (key == EMPTY_KEY) break;
        const unsigned c = ganns_id(key);
        const float dc = ganns_distance(key);
        bool keep = true;
#if PRUNE == 1
        // c's distances to the kept, ROWS at a time (their loads in flight together), each with
        // warp_distance's bits, until one is nearer to c than the vertex is.
        constexpr unsigned SPAN = 32u / ROWS;
        for (unsigned j0 = 0u; j0 < kept && keep; j0 += ROWS) {
            unsigned id[ROWS];
#pragma unroll
            for (unsigned u = 0u; u < ROWS; ++u) id[u] = j0 + u < kept ? s->kid[j0 + u] : NONE_ID;
            float part[ROWS];
            lane_partials<ROWS>(base + (size_t)c * DIM, base, id, part);
            const float dcs = warp_totals<ROWS>(part);
            const unsigned j = j0 + lane / SPAN;
            keep = __ballot_sync(FULL_MASK, lane % SPAN == 0u && j < kept && dcs < dc) == 0u;
        }
#endif
        if (keep) {
            if (lane == 0u) {
                s->kid[kept] = c;
                s->kd[kept] = dc;
            }
            ++kept;
            __syncwarp();
        }
    }
    __syncwarp();
    return kept;
}

// Merges xid/xd[0..nx) (new neighbours of u with their distances, in shared memory; none
// repeated) into u's row: all kept while they fit, else DEG chosen by ggc_select. Every lane
// must call it.
__device__ void ggc_merge_row(const float* __restrict__ base, unsigned* __restrict__ adj, float* __restrict__ dist,
                              unsigned u, const unsigned* xid, const float* xd, unsigned nx, GgcShared* s) {
    const unsigned lane = threadIdx.x & 31u;
    unsigned* row = adj + (size_t)u * DEG;
    float* drow = dist + (size_t)u * DEG;
    if (nx > XMAX) nx = XMAX;
    for (unsigned t = lane; t < CL; t += 32u) {
        ann_key key = EMPTY_KEY;
        if (t < DEG) {
            const unsigned id = row[t];
            if (id != NONE_ID) key = ganns_key(drow[t], id);
        } else if (t - DEG < nx) {
            const unsigned id = xid[t - DEG];
            bool present = id == u;
            for (unsigned j = 0u; j < DEG && !present; ++j) present = row[j] == id;
            if (!present) key = ganns_key(xd[t - DEG], id);
        }
        s->c[t] = key;
    }
    __syncwarp();
    warp_sort<CL>(s->c);
    unsigned count = 0u;
    for (unsigned c0 = 0u; c0 < CL; c0 += 32u) {
        count += (unsigned)__popc(__ballot_sync(FULL_MASK, c0 + lane < CL && s->c[c0 + lane] != EMPTY_KEY));
    }
    if (count <= DEG) {
        for (unsigned t = lane; t < DEG; t += 32u) {
            const ann_key key = s->c[t];
            row[t] = key == EMPTY_KEY ? NONE_ID : ganns_id(key);
            drow[t] = key == EMPTY_KEY ? infinity_f32() : ganns_distance(key);
        }
    } else {
        const unsigned kept = ggc_select(base, s->c, count, DEG, s);
        for (unsigned t = lane; t < DEG; t += 32u) {
            row[t] = t < kept ? s->kid[t] : NONE_ID;
            drow[t] = t < kept ? s->kd[t] : infinity_f32();
        }
    }
    __syncwarp();
}

// The forward neighbours of the vertex searched: `link` chosen from N by ggc_select, copied to
// s->fid/fd; returns how many.
__device__ unsigned ggc_forward(const float* __restrict__ base, unsigned link, GgcShared* s) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned kept = ggc_select(base, s->n, LN, link, s);
    for (unsigned t = lane; t < kept; t += 32u) {
        s->fid[t] = s->kid[t];
        s->fd[t] = s->kd[t];
    }
    __syncwarp();
    return kept;
}

// Local NSW of each group: block b inserts vertices first + b * group + 1 .. (its group's end,
// at most n) one after another, each searching the group's graph so far (from the group's first
// vertex) and joining its forward neighbours both ways.
extern "C" __global__ void __launch_bounds__(32)
    ggc_local(const float* __restrict__ base, unsigned n, unsigned* __restrict__ adj, float* __restrict__ dist,
              unsigned first, unsigned group, unsigned link, unsigned ef) {
    __shared__ GgcShared s;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned start = first + blockIdx.x * group;
    if (start >= n) return;
    const unsigned end = min(n, start + group);
    for (unsigned v = start + 1u; v < end; ++v) {
        ggc_load_row(base, v, s.q);
        ganns_search_warp(s.q, base, v, adj, start, ef, s.n, s.t, s.tid, s.h);
        const unsigned kept = ggc_forward(base, link, &s);
        ggc_merge_row(base, adj, dist, v, s.fid, s.fd, kept, &s);
        for (unsigned j = 0u; j < kept; ++j) {
            // The one new neighbour of fid[j]: v.
            if (lane == 0u) {
                s.xid[0] = v;
                s.xd[0] = s.fd[j];
            }
            __syncwarp();
            ggc_merge_row(base, adj, dist, s.fid[j], s.xid, s.xd, 1u, &s);
        }
    }
}

// Step 1 of a merge: vertex start + b (b < count) searches vertices 0..start from its entry,
// chooses `link` forward neighbours (out_ids/out_dist[b * link ..], padded with NONE_ID and
// infinity) and merges them into its own row.
extern "C" __global__ void __launch_bounds__(32)
    ggc_search(const float* __restrict__ base, unsigned* __restrict__ adj, float* __restrict__ dist, unsigned start,
               unsigned count, const unsigned* __restrict__ upper, const unsigned* __restrict__ meta, unsigned layers,
               unsigned link, unsigned ef, unsigned* __restrict__ out_ids, float* __restrict__ out_dist) {
    __shared__ GgcShared s;
    const unsigned lane = threadIdx.x & 31u;
    if (blockIdx.x >= count) return;
    const unsigned v = start + blockIdx.x;
    ggc_load_row(base, v, s.q);
    const unsigned entry = ganns_entry(s.q, base, upper, meta, layers, start);
    ganns_search_warp(s.q, base, start, adj, entry, ef, s.n, s.t, s.tid, s.h);
    const unsigned kept = ggc_forward(base, link, &s);
    for (unsigned t = lane; t < link; t += 32u) {
        out_ids[(size_t)blockIdx.x * link + t] = t < kept ? s.fid[t] : NONE_ID;
        out_dist[(size_t)blockIdx.x * link + t] = t < kept ? s.fd[t] : infinity_f32();
    }
    ggc_merge_row(base, adj, dist, v, s.fid, s.fd, kept, &s);
}

// Step 3 of a merge: segment b (seg[3b]: the source u, seg[3b + 1] .. seg[3b + 2]: its backward
// edges in e_v/e_d, sorted by distance) merged into u's row, its XMAX nearest at most.
extern "C" __global__ void __launch_bounds__(32)
    ggc_backward(const float* __restrict__ base, unsigned* __restrict__ adj, float* __restrict__ dist,
                 const unsigned* __restrict__ seg, unsigned nseg, const unsigned* __restrict__ e_v,
                 const float* __restrict__ e_d) {
    __shared__ GgcShared s;
    const unsigned lane = threadIdx.x & 31u;
    if (blockIdx.x >= nseg) return;
    const unsigned u = seg[3u * blockIdx.x], begin = seg[3u * blockIdx.x + 1u], end = seg[3u * blockIdx.x + 2u];
    const unsigned nx = min(end - begin, (unsigned)XMAX);
    for (unsigned t = lane; t < nx; t += 32u) {
        s.xid[t] = e_v[begin + t];
        s.xd[t] = e_d[begin + t];
    }
    __syncwarp();
    ggc_merge_row(base, adj, dist, u, s.xid, s.xd, nx, &s);
}
