// The search kernels (ganns_descend, ganns_search) run on the emulator (emu.h) against GANNS as
// defined, computed here on the CPU: small integer vectors, whose distances are exact in any
// order of summation (and whose halves are exact), so ids and distances must be the same bit for
// bit, for the float search and the half-precision one (HALF) alike.
//
// On FLOAT vectors (random floats, most not halves) the definition's double sums are not the
// kernels' float ones, so the answer is checked against the float search's own distances (a warp
// of lane_partial and warp_total per vertex, as ganns_distances computes them): every distance
// returned is that of its id, bit for bit (for HALF: the re-ranking's exact distances), rows are
// sorted by (distance, id) without repeats or failing ids; and where EF covers every vertex
// (and the rows are tidy, so that every vertex is reached), the answer is brute force's.
//
// Usage: search N QUERIES EF K UPPER SEED [FILTER [UNTIDY [FLOAT]]]
//   a k-NN graph of N random vectors (DEG - 1 nearest and the next id, which keeps every vertex
//   reachable), with an upper layer over the first UPPER ids (degree 6) unless 0; FILTER > 0
//   passes the ids i with i % FILTER != 1; UNTIDY puts repeats and holes in layer 0's rows and
//   empties row N / 2. Prints one line ending in "N mismatches"; exits 1 on any.
#include "emu.h"

// What emu.h lacks and the half-precision search uses: 8-byte loads, and halves widened to
// float (x86's _Float16, exact as cvt.f32.f16 is); the base's half copy is made with it too,
// rounded to nearest even as the host's conversion (subgraph_ann::half) does.
struct uint2 { unsigned x, y; };
inline float h2f(unsigned short h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
inline unsigned short f2h(float f) { _Float16 x = (_Float16)f; unsigned short h; memcpy(&h, &x, 2); return h; }
// The kernel source exactly as gpu/source.rs makes it: #defines, common.cuh, ganns.cuh, search.cu.
#include "kernel.cu"

typedef std::pair<float, unsigned> DI;
static bool less_di(const DI& a, const DI& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); }

struct Xor {
    unsigned long long s;
    unsigned long long next() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
};

// Exact for small integers (a double sum, rounded once).
static float dist(const float* a, const float* b) {
    double acc = 0;
    for (int i = 0; i < DIM; ++i) acc += METRIC == 0 ? double(a[i] - b[i]) * (a[i] - b[i]) : double(a[i]) * b[i];
    return METRIC == 0 ? (float)acc : (float)(1.0 - acc);
}

int main(int argc, char** argv) {
    if (argc < 7) { fprintf(stderr, "usage: search N QUERIES EF K UPPER SEED [FILTER [UNTIDY [FLOAT]]]\n"); return 2; }
    const unsigned n = atoi(argv[1]), nq = atoi(argv[2]), ef = atoi(argv[3]), k = atoi(argv[4]);
    const unsigned upper_len = atoi(argv[5]), upper_deg = 6, seed = atoi(argv[6]);
    const int filter_mod = argc > 7 ? atoi(argv[7]) : 0, untidy = argc > 8 ? atoi(argv[8]) : 0;
    const int floats = argc > 9 ? atoi(argv[9]) : 0;
    emu->rng.seed(seed);
    Xor x{seed * 0x9E3779B97F4A7C15ull | 1};
    std::vector<float> base(n * DIM), qs(nq * DIM);
    auto value = [&] { return floats ? float(int(x.next() % 2000001) - 1000000) / 777777.0f : float(int(x.next() % 17) - 8); };
    for (auto& v : base) v = value();
    for (auto& v : qs) v = value();
#ifdef HALF
    // The base's half copy, two halves a word, as gpu/search.rs uploads it.
    std::vector<unsigned> halves((n * DIM + 1) / 2, 0);
    for (unsigned i = 0; i < n * DIM; ++i) halves[i / 2] |= (unsigned)f2h(base[i]) << (16 * (i % 2));
#define SEARCHED_ARG halves.data()
#define HALF_ARG halves.data(),
#define HALF_ON 1
#else
#define SEARCHED_ARG base.data()
#define HALF_ARG
#define HALF_ON 0
#endif
    auto layer = [&](unsigned len, unsigned deg) {
        std::vector<unsigned> adj(len * deg, NONE_ID);
        for (unsigned v = 0; v < len; ++v) {
            std::vector<DI> near;
            for (unsigned u = 0; u < len; ++u)
                if (u != v) near.push_back({dist(&base[v * DIM], &base[u * DIM]), u});
            std::sort(near.begin(), near.end(), less_di);
            std::vector<unsigned> row;
            for (unsigned i = 0; i + 1 < deg && i < near.size(); ++i) row.push_back(near[i].second);
            const unsigned next = (v + 1) % len;
            if (next != v && std::find(row.begin(), row.end(), next) == row.end()) row.push_back(next);
            else if (deg - 1 < near.size()) row.push_back(near[deg - 1].second);
            for (unsigned i = 0; i < row.size(); ++i) adj[v * deg + i] = row[i];
        }
        return adj;
    };
    std::vector<unsigned> adj0 = layer(n, DEG), adj1;
    if (untidy) {
        for (unsigned v = 0; v < n; ++v) {
            unsigned* row = &adj0[v * DEG];
            const unsigned next = (v + 1) % n;
            if (DEG > 4 && row[3] != next && row[0] != next) row[3] = row[0];
            if (DEG > 6 && row[5] != next) row[5] = NONE_ID;
        }
        for (unsigned i = 0; i < DEG; ++i) adj0[(n / 2) * DEG + i] = NONE_ID;
    }
    if (upper_len) adj1 = layer(upper_len, upper_deg);
    std::vector<unsigned> words((n + 31) / 32, 0);
    auto passes = [&](unsigned i) { return !filter_mod || i % filter_mod != 1; };
    for (unsigned i = 0; i < n; ++i)
        if (passes(i)) words[i / 32] |= 1u << (i % 32);

    // The kernels, launched as gpu/search.rs launches them.
    std::vector<unsigned> entries(nq, 0), ids(nq * k, 12345);
    std::vector<float> ds(nq * k, -1);
    const unsigned grid = (nq + WPB - 1) / WPB;
    if (upper_len)
        launch(grid, WPB * 32, [&] {
            ganns_descend(qs.data(), nq, SEARCHED_ARG, n, adj1.data(), upper_deg, upper_len, entries.data());
        });
    launch(grid, WPB * 32, [&] {
        ganns_search(qs.data(), nq, base.data(), HALF_ARG n, adj0.data(), entries.data(), ef, k, words.data(),
                     filter_mod ? 1 : 0, ids.data(), ds.data());
    });

    unsigned bad = 0;
    if (floats) {
        // The float search's distance of every (query, vertex), by its own code.
        std::vector<float> exact((size_t)nq * n);
        launch(nq, 32, [&] {
            __shared__ __align__(16) float s_q[QLEN];
            load_query(qs.data(), blockIdx.x, s_q);
            for (unsigned v = 0; v < n; ++v) {
                const float d = warp_total(lane_partial(s_q, base.data() + (size_t)v * DIM));
                if ((threadIdx.x & 31u) == 0u) exact[(size_t)blockIdx.x * n + v] = d;
            }
        });
        unsigned differ = 0;
        for (unsigned i = 0; i < n * DIM; ++i) differ += h2f(f2h(base[i])) != base[i];
        const bool full = std::min<unsigned>(ef, LN) >= n && !untidy;
        for (unsigned q = 0; q < nq; ++q) {
            std::vector<DI> all;
            for (unsigned v = 0; v < n; ++v)
                if (passes(v)) all.push_back({exact[(size_t)q * n + v], v});
            std::sort(all.begin(), all.end(), less_di);
            for (unsigned r = 0; r < k; ++r) {
                const unsigned id = ids[q * k + r];
                const float dd = ds[q * k + r];
                const char* why = nullptr;
                if (id == NONE_ID) {
                    if (!std::isinf(dd)) why = "none at a finite distance";
                } else if (id >= n || !passes(id)) {
                    why = "an id out of range or failing the filter";
                } else if (__float_as_uint(dd) != __float_as_uint(exact[(size_t)q * n + id])) {
                    why = "not the id's float distance";
                } else if (r > 0 && (ids[q * k + r - 1] == NONE_ID || !less_di({ds[q * k + r - 1], ids[q * k + r - 1]}, {dd, id}))) {
                    why = "out of (distance, id) order, a repeat or after a none";
                }
                if (!why && full) {
                    const unsigned wid = r < all.size() ? all[r].second : NONE_ID;
                    if (id != wid) why = "not brute force's at full ef";
                }
                if (why) {
                    if (bad < 5) printf("query %u, rank %u: %u at %g: %s\n", q, r, id, dd, why);
                    bad++;
                }
            }
        }
        printf("search DIM %d METRIC %d LN %d DEG %d HS %u WPB %d HALF %d, n %u, %u queries, ef %u, k %u, upper %u, filter %d, "
               "untidy %d, floats (%u of %u not halves), full %d: %llu warp barriers, %u mismatches\n",
               DIM, METRIC, LN, DEG, HS, WPB, HALF_ON, n, nq, ef, k, upper_len, filter_mod, untidy, differ, n * DIM, full,
               emu->warp_barriers, bad);
        return bad != 0;
    }

    // The definition.
    for (unsigned q = 0; q < nq; ++q) {
        auto d = [&](unsigned v) { return dist(&qs[q * DIM], &base[v * DIM]); };
        unsigned cur = 0;
        float dcur = d(0);
        if (upper_len) {
            for (;;) {
                bool have = false;
                DI best;
                for (unsigned t = 0; t < upper_deg; ++t) {
                    const unsigned u = adj1[cur * upper_deg + t];
                    if (u >= upper_len) continue;
                    const DI c{d(u), u};
                    if (!have || less_di(c, best)) best = c, have = true;
                }
                if (!have || !(best.first < dcur)) break;
                cur = best.second, dcur = best.first;
            }
            if (entries[q] != cur) {
                if (bad < 5) printf("query %u: entry %u, want %u\n", q, entries[q], cur);
                bad++;
            }
        }
        const unsigned ln = LN, e = std::min(ef, ln);
        struct E { float d; unsigned id; bool explored; };
        std::vector<E> nn{{d(cur), cur, false}};
        for (;;) {
            int pos = -1;
            for (unsigned i = 0; i < std::min<size_t>(e, nn.size()); ++i)
                if (!nn[i].explored) { pos = i; break; }
            if (pos < 0) break;
            nn[pos].explored = true;
            const unsigned v = nn[pos].id;
            std::vector<E> t;
            for (unsigned i = 0; i < DEG; ++i) {
                const unsigned u = adj0[v * DEG + i];
                if (u == NONE_ID) continue;
                bool seen = false;
                for (unsigned j = 0; j < i; ++j) seen |= adj0[v * DEG + j] == u;
                for (auto& z : nn) seen |= z.id == u;
                if (!seen) t.push_back({d(u), u, false});
            }
            nn.insert(nn.end(), t.begin(), t.end());
            std::sort(nn.begin(), nn.end(), [](const E& a, const E& b) { return less_di({a.d, a.id}, {b.d, b.id}); });
            if (nn.size() > ln) nn.resize(ln);
        }
        std::vector<DI> want;
        for (unsigned i = 0; i < std::min<size_t>(e, nn.size()) && want.size() < k; ++i)
            if (passes(nn[i].id)) want.push_back({nn[i].d, nn[i].id});
        for (unsigned r = 0; r < k; ++r) {
            const unsigned wid = r < want.size() ? want[r].second : NONE_ID;
            const float wd = r < want.size() ? want[r].first : INFINITY;
            if (ids[q * k + r] != wid || __float_as_uint(ds[q * k + r]) != __float_as_uint(wd)) {
                if (bad < 5) printf("query %u, rank %u: got %u at %g, want %u at %g\n", q, r, ids[q * k + r], ds[q * k + r], wid, wd);
                bad++;
            }
        }
    }
    printf("search DIM %d METRIC %d LN %d DEG %d HS %u WPB %d HALF %d, n %u, %u queries, ef %u, k %u, upper %u, filter %d, "
           "untidy %d: %llu warp barriers, %u mismatches\n",
           DIM, METRIC, LN, DEG, HS, WPB, HALF_ON, n, nq, ef, k, upper_len, filter_mod, untidy, emu->warp_barriers, bad);
    return bad != 0;
}
