// Depth-first counting (beyond GSI; the warp-level DFS of STMatch, T-DFS and gMatch, with the
// counted tail of the "Heavy queries" plan), compiled after pcsr.cu and slices.cu. Persistent warps
// take rows of a frontier table M (c0 columns, made by the breadth-first join) from an atomic
// counter, `batch` rows a claim, and extend each depth first through positions c0..t0-1, keeping
// each level's local candidates in the warp's own global scratch; at position t0 the counted
// positions t0..n-1 are counted for the partial match without being enumerated: per label group of
// the tail, inclusion-exclusion over the counts of every subset's common candidates (the members'
// lists are scanned once, each by its position's record, into the warp's scratch, and every larger
// subset is counted by probing its shortest member list in the others), a lone vertex's count
// otherwise. Counts accumulate per warp in 128 bits. A host-mapped flag stops every warp (deadline,
// Ctrl-C, or a limit reached, which the kernel sets), relayed through device memory: each warp
// looks at the relay once per D_CHECK_CYCLES of its SM's clock wherever it is in its search, and at
// most one warp per D_HOST_POLL_NS reads the host flag and copies it there.
//
// A record (4 words of `recs`): descriptor offset into `descs` (the join's level descriptor
// layout), candidate bitset address, candidate list address, list length; record p is plan
// position p. The tail program `tail`: number of groups, then per group m and its members'
// positions; for m > 1 each member's scratch (at lvl_at[pos]) holds its candidate list while
// the group is counted.

#define D_MAX_COLUMNS 64
#define D_WARPS 8
// Blocks of D_WARPS warps each kernel is compiled to fit on one SM, which bounds its registers
// (40 a thread): the warps wait on memory, and more of them hide more of it. Measured at 4 to 8
// (bench/results/2026-11-26-dfs-steal.md): 6 counted G1's dense_8_4 in 4.6 s where 4 took 5.7 s.
#define D_MIN_BLOCKS 6
#define D_MAX_GROUP 5
#define D_CHECK_CYCLES (1ll << 19)
#define D_HOST_POLL_NS 200000ull

struct DWarp {
    unsigned int row[D_MAX_COLUMNS];
    unsigned int len[D_MAX_COLUMNS];
    unsigned int cur[D_MAX_COLUMNS];
    u64 lo[D_MAX_COLUMNS];
    u64 hi[D_MAX_COLUMNS];
};

// The local candidates of record `rec` for the warp's row (`cols` columns bound): within the
// record's candidate set, adjacent as its links say, above its bounds, (injective) not in the
// row, (induced) without the forbidden edges. Written to out[0..) when out is not null; the
// count is returned (the same in every lane).
__device__ unsigned int d_scan(const JGraph& g, const unsigned int* descs, const u64* recs,
                               unsigned int rec, unsigned int cols, unsigned int* out,
                               DWarp& w) {
    const unsigned int lane = threadIdx.x & 31u;
    const u64* r = recs + 4ull * rec;
    const unsigned int* desc = descs + r[0];
    const unsigned int* bitset = (const unsigned int*)r[1];
    const unsigned int* cands = (const unsigned int*)r[2];
    const u64 ncands = r[3];
    const unsigned int k = desc[1], m = desc[2], inj = desc[3], nl = desc[4];
    unsigned int first = 0;
    u64 best = ~0ull;
    for (unsigned int j = 0; j < k; ++j) {
        u64 s, e;
        slice_of(g, desc[9 + 3 * j], desc[10 + 3 * j], nl, w.row[desc[8 + 3 * j]], &s, &e);
        if (lane == 0) {
            w.lo[j] = s;
            w.hi[j] = e;
        }
        if (e - s < best) {
            best = e - s;
            first = j;
        }
    }
    __syncwarp();
    const unsigned int* src = k ? g.columns : cands;
    const u64 end = k ? w.hi[first] : ncands;
    const u64 start = above_bounds(desc, w.row, src, k ? w.lo[first] : 0ull, end);
    unsigned int count = 0;
    for (u64 base = start; base < end; base += 32) {
        const u64 idx = base + lane;
        const int valid = idx < end;
        const unsigned int c = valid ? src[idx] : 0u;
        int live = valid && ((bitset[c >> 5] >> (c & 31u)) & 1u);
        if (inj && live)
            for (unsigned int t = 0; t < cols; ++t)
                if (w.row[t] == c) live = 0;
        for (unsigned int j = 0; j < k && live; ++j)
            if (j != first && !sorted_has(g.columns, w.lo[j], w.hi[j], c)) live = 0;
        for (unsigned int t = 0; t < m && live; ++t) {
            const unsigned int v = w.row[desc[8 + 3 * k + 2 * t]];
            const u64 ab = (u64)desc[9 + 3 * k + 2 * t] * (g.nverts + 1ull);
            if (sorted_has(g.adj_col, g.adj_off[ab + v], g.adj_off[ab + v + 1], c)) live = 0;
        }
        const unsigned int mask = __ballot_sync(J_FULL, live);
        if (out && live) out[count + __popc(mask & ((1u << lane) - 1u))] = c;
        count += __popc(mask);
    }
    __syncwarp();
    return count;
}

// How many of the shortest of the member lists of `mask` (lists at buf + at[pos[i]], len[i]
// long, sorted) every other member list holds (the same in every lane).
__device__ unsigned int d_common(const unsigned int* buf, const u64* at, const unsigned int* pos,
                                 const unsigned int* len, unsigned int m, unsigned int mask) {
    const unsigned int lane = threadIdx.x & 31u;
    unsigned int least = 0;
    for (unsigned int i = 1; i < m; ++i)
        if ((mask >> i) & 1u && (!((mask >> least) & 1u) || len[i] < len[least])) least = i;
    const unsigned int* a = buf + at[pos[least]];
    unsigned int count = 0;
    for (unsigned int base = 0; base < len[least]; base += 32) {
        const unsigned int idx = base + lane;
        int live = idx < len[least];
        const unsigned int c = live ? a[idx] : 0u;
        for (unsigned int j = 0; j < m && live; ++j)
            if (j != least && (mask >> j) & 1u && !sorted_has(buf + at[pos[j]], 0ull, len[j], c)) live = 0;
        count += __popc(__ballot_sync(J_FULL, live));
    }
    return count;
}

// The matches of the counted positions for the warp's row (t0 columns bound): per group of
// the tail program, a lone vertex's count or inclusion-exclusion over its subsets' counts.
__device__ unsigned __int128 d_tail(const JGraph& g, const unsigned int* descs, const u64* recs,
                                    const unsigned int* tail, unsigned int t0, unsigned int* buf,
                                    const u64* lvl_at, DWarp& w) {
    unsigned __int128 total = 1;
    const unsigned int groups = tail[0];
    unsigned int at = 1;
    for (unsigned int q = 0; q < groups && total != 0; ++q) {
        const unsigned int m = tail[at];
        const unsigned int* pos = tail + at + 1;
        at += 1 + m;
        if (m == 1u) {
            total *= d_scan(g, descs, recs, pos[0], t0, nullptr, w);
            continue;
        }
        const unsigned int full = (1u << m) - 1u;
        unsigned int len[D_MAX_GROUP];
        __int128 size[1 << D_MAX_GROUP];
        __int128 ways[1 << D_MAX_GROUP];
        for (unsigned int i = 0; i < m; ++i) {
            len[i] = d_scan(g, descs, recs, pos[i], t0, buf + lvl_at[pos[i]], w);
            size[1u << i] = len[i];
        }
        __syncwarp();
        for (unsigned int mask = 1; mask <= full; ++mask)
            if (mask & (mask - 1u)) size[mask] = d_common(buf, lvl_at, pos, len, m, mask);
        ways[0] = 1;
        for (unsigned int mask = 1; mask <= full; ++mask) {
            const unsigned int a = mask & (0u - mask), others = mask ^ a;
            __int128 sum = 0;
            unsigned int sub = others;
            while (true) {
                const unsigned int block = sub | a;
                const int kk = __popc(block);
                __int128 weight = 1;
                for (int f = 2; f < kk; ++f) weight *= f;
                if ((kk & 1) == 0) weight = -weight;
                sum += weight * size[block] * ways[mask ^ block];
                if (sub == 0u) break;
                sub = (sub - 1u) & others;
            }
            ways[mask] = sum;
        }
        total *= ways[full] > 0 ? (unsigned __int128)ways[full] : (unsigned __int128)0;
        __syncwarp();
    }
    return total;
}

// The global timer, in nanoseconds.
__device__ __forceinline__ u64 d_now() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Whether to stop (the same in every lane). The host's flag lives in host memory, where one read
// costs a PCIe round trip, and thousands of warps reading it each millisecond made the kernel 10
// to 200 times slower (bench/results/2026-11-25-timeouts.md). So lane 0 reads the SM's cycle
// counter (a few cycles) at every call and, once D_CHECK_CYCLES (a fraction of a millisecond)
// have passed since its last look (`last`), reads the relay in device memory: relay[0] the stop
// word, relay[1] the global time of the last host read. The warp whose look finds that host read
// D_HOST_POLL_NS old, and wins the compare-and-swap on it, reads the host flag and relays it.
__device__ __forceinline__ int d_stopped(volatile unsigned int* host, u64* relay, long long& last) {
    unsigned int s = 0;
    if ((threadIdx.x & 31u) == 0u) {
        const long long now = clock64();
        if (now - last >= D_CHECK_CYCLES) {
            last = now;
            volatile u64* r = relay;
            s = (unsigned int)r[0];
            if (s == 0u) {
                const u64 t = d_now();
                const u64 seen = r[1];
                if (t - seen >= D_HOST_POLL_NS &&
                    atomicCAS((unsigned long long*)&relay[1], (unsigned long long)seen,
                              (unsigned long long)t) == (unsigned long long)seen) {
                    s = *host;
                    if (s != 0u) r[0] = 1ull;
                }
            }
        }
    }
    return __shfl_sync(J_FULL, s, 0) != 0u;
}

// Work stealing (beyond the thesis; as in STMatch, T-DFS and gMatch, but asked for by the idle
// and handed over by the busy, so that no warp reads another's stack): once the frontier table
// is used up, a warp waits for work handed over by busy warps instead of leaving. `share` (u64
// words): 0 entries claimed, 1 entries reserved, 2 warps at work, 3 warps waiting. A busy warp
// looks at the waiting count once per D_SHARE_CYCLES; when more warps wait than entries are
// pending, it splits the candidates left at its shallowest level that has any (the largest
// subtrees it holds) and hands over the upper half as one entry of `width` words: the level d,
// the half's range of positions in the level's candidate list, then the row's first d columns.
// The thief scans level d again for that row (the same list, in the same order) and walks the
// range. At the last enumerated level, each candidate is one counted tail: only ranges of at
// least D_MIN_TAIL_SPLIT of them are split. Entries live in a ring of `cap` slots, reserved at
// most `cap` ahead of the claims; slot i % cap's word in `ready` says its state in lap
// L = i / cap: 2L free, 2L + 1 written, 2L + 2 read. A waiting warp leaves when no warp is at
// work and nothing is pending: a warp hands over only while at work, and looks at the entries
// itself before it leaves, so nothing handed over is lost.

#define D_SHARE_CYCLES (1ll << 14)
#define D_WAIT_NS 2000u
#define D_MIN_TAIL_SPLIT 8u

struct DShare {
    u64* words;
    unsigned int* entries;
    unsigned int* ready;
    u64 cap;
    unsigned int width;
    unsigned int on;
};

// Hands over the upper half of the candidates left at the warp's shallowest level with any
// (between `base` and `depth`) when warps wait for work (every lane calls it).
__device__ void d_hand_over(const DShare& sh, unsigned int base, unsigned int depth, unsigned int t0, DWarp& w,
                            long long& last) {
    const unsigned int lane = threadIdx.x & 31u;
    unsigned int wanted = 0;
    if (lane == 0u) {
        const long long now = clock64();
        if (now - last >= D_SHARE_CYCLES) {
            last = now;
            volatile u64* v = sh.words;
            const u64 waiting = v[3], reserved = v[1], taken = v[0];
            const u64 pending = reserved > taken ? reserved - taken : 0ull;
            wanted = waiting > pending;
        }
    }
    if (__shfl_sync(J_FULL, wanted, 0) == 0u) return;
    unsigned int d = base;
    while (d <= depth && w.cur[d] == w.len[d]) ++d;
    if (d > depth) return;
    const unsigned int left = w.len[d] - w.cur[d];
    // A lone candidate of a shallower level is a whole subtree; at the last enumerated level
    // only a range of several tails is worth the hand-over.
    if (d + 1u == t0 ? left < D_MIN_TAIL_SPLIT : (left < 2u && d == depth)) return;
    const unsigned int mid = w.len[d] - (left + 1u) / 2u;
    u64 slot = 0;
    unsigned int got = 0;
    if (lane == 0u) {
        // One slot of the ring (none when it is full or another warp reserved meanwhile).
        volatile u64* v = sh.words;
        const u64 reserved = v[1], claimed = v[0];
        got = claimed + sh.cap > reserved &&
              atomicCAS((unsigned long long*)&sh.words[1], reserved, reserved + 1ull) == reserved;
        slot = reserved;
    }
    if (__shfl_sync(J_FULL, got, 0) == 0u) return;
    slot = __shfl_sync(J_FULL, slot, 0);
    // The slot is free once the entry a lap before it was read (its reader claimed it, since
    // reservations stay within a lap of the claims).
    volatile unsigned int* ready = sh.ready;
    const unsigned int i = (unsigned int)(slot % sh.cap), lap = (unsigned int)(2ull * (slot / sh.cap));
    if (lane == 0u) {
        while (ready[i] != lap) __nanosleep(100u);
        __threadfence();
    }
    __syncwarp();
    unsigned int* e = sh.entries + (u64)i * sh.width;
    for (unsigned int k = lane; k < d + 3u; k += 32u)
        e[k] = k == 0u ? d : k == 1u ? mid : k == 2u ? w.len[d] : w.row[k - 3u];
    __syncwarp();
    if (lane == 0u) {
        __threadfence();
        ready[i] = lap + 1u;
        w.len[d] = mid;
    }
    __syncwarp();
}

// Waits for a handed-over range and loads its row into the warp; its level, or 0 when every
// warp is done or the search stops (every lane calls it, and gets the same). The range goes to
// *lo and *hi.
__device__ unsigned int d_claim(const DShare& sh, DWarp& w, volatile unsigned int* stop, u64* relay,
                                long long& last, unsigned int* lo, unsigned int* hi) {
    const unsigned int lane = threadIdx.x & 31u;
    u64* words = sh.words;
    if (lane == 0u) {
        atomicAdd((unsigned long long*)&words[3], 1ull);
        atomicAdd((unsigned long long*)&words[2], ~0ull);
    }
    // 0 wait, 1 claimed, 2 retry, 3 done. A warp leaves after two looks in a row, D_WAIT_NS
    // apart, found no warp at work and nothing pending: a thief is counted at work only once
    // it holds its entry, and the second look sees the thief that the first one missed.
    unsigned int state = 0, quiet = 0;
    u64 slot = 0;
    while (true) {
        if (d_stopped(stop, relay, last)) return 0u;
        if (lane == 0u) {
            volatile u64* v = words;
            const u64 working = v[2];
            __threadfence();
            const u64 next = v[0];
            state = 0u;
            if (next < v[1]) {
                // Counted at work only once it holds the entry (no count to undo for the many
                // that lose the race).
                quiet = 0;
                if (atomicCAS((unsigned long long*)&words[0], next, next + 1ull) == next) {
                    atomicAdd((unsigned long long*)&words[2], 1ull);
                    atomicAdd((unsigned long long*)&words[3], ~0ull);
                    slot = next;
                    state = 1u;
                } else {
                    state = 2u;
                }
            } else if (working == 0ull && ++quiet == 2u) {
                atomicAdd((unsigned long long*)&words[3], ~0ull);
                state = 3u;
            } else if (working != 0ull) {
                quiet = 0;
            }
        }
        state = __shfl_sync(J_FULL, state, 0);
        if (state == 1u || state == 3u) break;
        // Waiting, or another warp took the entry: back off, the losers of a race for a
        // few microseconds each (thousands of warps may race for one entry).
        __nanosleep(state == 0u ? D_WAIT_NS : D_WAIT_NS / 2u + (unsigned int)(threadIdx.x >> 5) * 250u);
    }
    if (state == 3u) return 0u;
    slot = __shfl_sync(J_FULL, slot, 0);
    volatile unsigned int* ready = sh.ready;
    const unsigned int i = (unsigned int)(slot % sh.cap), lap = (unsigned int)(2ull * (slot / sh.cap));
    if (lane == 0u) {
        while (ready[i] != lap + 1u) __nanosleep(100u);
        __threadfence();
    }
    __syncwarp();
    const volatile unsigned int* e = sh.entries + (u64)i * sh.width;
    const unsigned int d = e[0];
    *lo = e[1];
    *hi = e[2];
    for (unsigned int c = lane; c < d; c += 32u) w.row[c] = e[3u + c];
    __syncwarp();
    if (lane == 0u) {
        __threadfence();
        ready[i] = lap + 2u;
    }
    return d;
}

// Adds `found` matches to the launch's progress towards `limit` (0: none), and stops every warp
// once it is reached.
__device__ __forceinline__ void d_progress(unsigned __int128 found, u64 limit, u64* progress,
                                           volatile unsigned int* stop, u64* relay) {
    if (limit == 0ull || found == 0 || (threadIdx.x & 31u) != 0u) return;
    const u64 add = found > (unsigned __int128)(1ull << 62) ? (1ull << 62) : (u64)found;
    const u64 seen = atomicAdd((unsigned long long*)progress, (unsigned long long)add) + add;
    if (seen >= limit) {
        *stop = 1u;
        relay[0] = 1ull;
    }
}

// A warp's last words: its count (128 bits in acc), then in `stats` its busy cycles, cycles
// alive, and birth and end in global nanoseconds (lane 0).
__device__ __forceinline__ void d_finish(u64* acc, u64* stats, u64 warp, unsigned __int128 total, long long busy,
                                         long long born_cycles, u64 born) {
    if ((threadIdx.x & 31u) != 0u) return;
    acc[2 * warp] = (u64)total;
    acc[2 * warp + 1] = (u64)(total >> 64);
    stats[4 * warp] = (u64)busy;
    stats[4 * warp + 1] = (u64)(clock64() - born_cycles);
    stats[4 * warp + 2] = born;
    stats[4 * warp + 3] = d_now();
}

// A frontier at the first counted position (c0 = t0): each warp counts the tails of the rows it
// takes, one at a time; nothing is enumerated, so there is nothing to steal (a kernel of its own,
// without the depth-first walk's registers).
extern "C" __global__ void __launch_bounds__(D_WARPS * 32, D_MIN_BLOCKS)
    dfs_tails(J_GRAPH_PARAMS, const unsigned int* descs, const u64* recs, const unsigned int* tail,
              const unsigned int* table, u64 nrows, unsigned int c0, unsigned int t0,
              unsigned int* scratch, const u64* lvl_at, u64 stride, unsigned int* next_row,
              u64* acc, u64 stop_addr, u64* relay, u64* progress, u64 limit, u64* stats) {
    __shared__ DWarp mem[D_WARPS];
    const JGraph g = J_GRAPH;
    DWarp& w = mem[threadIdx.x >> 5];
    const unsigned int lane = threadIdx.x & 31u;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    volatile unsigned int* stop = (volatile unsigned int*)stop_addr;
    unsigned int* buf = scratch + warp * stride;
    unsigned __int128 total = 0;
    long long last = clock64(), busy = 0;
    const long long born_cycles = last;
    const u64 born = d_now();
    while (true) {
        unsigned int r = 0;
        if (lane == 0) r = atomicAdd(next_row, 1u);
        r = __shfl_sync(J_FULL, r, 0);
        if ((u64)r >= nrows || d_stopped(stop, relay, last)) break;
        for (unsigned int c = lane; c < c0; c += 32) w.row[c] = table[(u64)r * c0 + c];
        const long long began = clock64();
        __syncwarp();
        const unsigned __int128 found = d_tail(g, descs, recs, tail, t0, buf, lvl_at, w);
        total += found;
        d_progress(found, limit, progress, stop, relay);
        busy += clock64() - began;
    }
    d_finish(acc, stats, warp, total, busy, born_cycles, born);
}

extern "C" __global__ void __launch_bounds__(D_WARPS * 32, D_MIN_BLOCKS)
    dfs_count(J_GRAPH_PARAMS, const unsigned int* descs, const u64* recs, const unsigned int* tail,
              const unsigned int* table, u64 nrows, unsigned int c0, unsigned int t0,
              unsigned int* scratch, const u64* lvl_at, u64 stride, unsigned int* next_row,
              u64* acc, u64 stop_addr, u64* relay, u64* progress, u64 limit, u64* stats,
              u64* share_words, unsigned int* entries, unsigned int* ready, u64 cap,
              unsigned int width, unsigned int steal) {
    __shared__ DWarp mem[D_WARPS];
    const JGraph g = J_GRAPH;
    DWarp& w = mem[threadIdx.x >> 5];
    const unsigned int lane = threadIdx.x & 31u;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    volatile unsigned int* stop = (volatile unsigned int*)stop_addr;
    unsigned int* buf = scratch + warp * stride;
    const DShare sh = {share_words, entries, ready, cap, width, steal};
    unsigned __int128 total = 0;
    // Busy time in the SM's cycles (a global timer read costs more), converted on the host by
    // the warp's own span in both clocks.
    long long last = clock64(), last_share = last;
    const long long born_cycles = last;
    const u64 born = d_now();
    long long busy = 0;
    int halted = 0, rows_left = 1;
    while (!halted) {
        // The warp's next partial match: a frontier row (all of level c0's candidates), else
        // (stealing) a range of a level's candidates handed over.
        unsigned int base = 0, lo = 0, hi = ~0u;
        if (rows_left) {
            unsigned int r = 0;
            if (lane == 0) r = atomicAdd(next_row, 1u);
            r = __shfl_sync(J_FULL, r, 0);
            if ((u64)r < nrows) {
                for (unsigned int c = lane; c < c0; c += 32) w.row[c] = table[(u64)r * c0 + c];
                base = c0;
            } else {
                rows_left = 0;
            }
        }
        if (!rows_left) {
            if (!sh.on) break;
            base = d_claim(sh, w, stop, relay, last, &lo, &hi);
            if (base == 0u) break;
        }
        if (d_stopped(stop, relay, last)) break;
        const long long began = clock64();
        __syncwarp();
        unsigned int depth = base;
        unsigned int n0 = d_scan(g, descs, recs, depth, depth, buf + lvl_at[depth], w);
        if (lane == 0) {
            w.len[depth] = n0 < hi ? n0 : hi;
            w.cur[depth] = lo < w.len[depth] ? lo : w.len[depth];
        }
        __syncwarp();
        while (true) {
            if (d_stopped(stop, relay, last)) {
                halted = 1;
                break;
            }
            if (sh.on) d_hand_over(sh, base, depth, t0, w, last_share);
            if (w.cur[depth] == w.len[depth]) {
                if (depth == base) break;
                --depth;
                continue;
            }
            const unsigned int v = buf[lvl_at[depth] + w.cur[depth]];
            __syncwarp();
            if (lane == 0) {
                w.cur[depth] += 1;
                w.row[depth] = v;
            }
            __syncwarp();
            if (depth + 1 == t0) {
                const unsigned __int128 found = d_tail(g, descs, recs, tail, t0, buf, lvl_at, w);
                total += found;
                d_progress(found, limit, progress, stop, relay);
            } else {
                ++depth;
                const unsigned int nd = d_scan(g, descs, recs, depth, depth, buf + lvl_at[depth], w);
                if (lane == 0) {
                    w.len[depth] = nd;
                    w.cur[depth] = 0;
                }
                __syncwarp();
            }
        }
        busy += clock64() - began;
    }
    d_finish(acc, stats, warp, total, busy, born_cycles, born);
}
