// The search kernel (ganns_search: descent, search, answer) runs on the emulator (emu.h) against GANNS as
// defined, computed here on the CPU: small integer vectors, whose distances are exact in any
// order of summation, so ids and distances must be the same bit for bit.
//
// Usage: search N QUERIES EF K UPPER SEED [FILTER [UNTIDY]]
//   a k-NN graph of N random vectors (DEG - 1 nearest and the next id, which keeps every vertex
//   reachable), with an upper layer over the first UPPER ids (degree 6) unless 0, and one above
//   it over the first UPPER / 5 (degree 4) where that is at least 2; FILTER > 0
//   passes the ids i with i % FILTER != 1; UNTIDY puts repeats and holes in layer 0's rows and
//   empties row N / 2. With an odd SEED the answers are in a caller's numbering (vertex v as
//   N - 1 - v). Prints one line ending in "N mismatches"; exits 1 on any.
#include "emu.h"
// The kernel source exactly as gpu/source.rs makes it: #defines, common.cuh, ganns.cuh, search.cu.
#include "kernel.cu"

// The entry of each query's search, which ganns_search computes (by ganns_entry) and does not
// return: the same descent, launched as ganns_search's warps would run it.
__global__ void entry_of(const float* queries, unsigned nq, const float* base, const unsigned* half,
                         const unsigned* upper, const unsigned* meta, unsigned layers, unsigned n, unsigned* entries) {
    __shared__ __align__(16) float s_q[WPB][QLEN];
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned q = blockIdx.x * WPB + w;
    if (q >= nq) return;
    load_query(queries, q, s_q[w]);
    const unsigned entry = ganns_entry(s_q[w], SEARCH_ROWS(base, half), upper, meta, layers, n);
    if (lane == 0u) entries[q] = entry;
}

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
    if (argc < 7) { fprintf(stderr, "usage: search N QUERIES EF K UPPER SEED [FILTER [UNTIDY]]\n"); return 2; }
    const unsigned n = atoi(argv[1]), nq = atoi(argv[2]), ef = atoi(argv[3]), k = atoi(argv[4]);
    const unsigned upper_len = atoi(argv[5]), upper_deg = 6, seed = atoi(argv[6]);
    const int filter_mod = argc > 7 ? atoi(argv[7]) : 0, untidy = argc > 8 ? atoi(argv[8]) : 0;
    emu->rng.seed(seed);
    Xor x{seed * 0x9E3779B97F4A7C15ull | 1};
    std::vector<float> base(n * DIM), qs(nq * DIM);
    for (auto& v : base) v = float(int(x.next() % 17) - 8);
    for (auto& v : qs) v = float(int(x.next() % 17) - 8);
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

    // The kernels, launched as gpu/search.rs launches them; with HALF, over the rows made half
    // by ann_to_half (small integers: the same values, so the same distances as the definition's).
    std::vector<unsigned> half((n * DIM + 1) / 2 + 1, 0xDEADBEEFu);
    if (HALF) {
        const unsigned long long count = (unsigned long long)n * DIM;
        const unsigned grid = unsigned(((count + 1) / 2 + TO_HALF_THREADS - 1) / TO_HALF_THREADS);
        unsigned long long beyond = ~0ull;
        launch(grid, TO_HALF_THREADS, [&] { ann_to_half(base.data(), count, half.data(), &beyond); });
        if (half.back() != 0xDEADBEEFu) { printf("ann_to_half wrote past its words: 1 mismatches\n"); return 1; }
        if (beyond != ~0ull) { printf("ann_to_half found %llu beyond half: 1 mismatches\n", beyond); return 1; }
        // The least index of a component beyond half's range, among two (in rows 3 and 5).
        if (n > 5) {
            std::vector<float> wide = base;
            std::vector<unsigned> scratch(half.size());
            wide[5 * DIM + DIM - 1] = 70000.0f;
            wide[3 * DIM + DIM / 2] = -1e6f;  // an even index at some dimensions, odd at others
            launch(grid, TO_HALF_THREADS, [&] { ann_to_half(wide.data(), count, scratch.data(), &beyond); });
            if (beyond != 3ull * DIM + DIM / 2) { printf("ann_to_half found %llu beyond half: 1 mismatches\n", beyond); return 1; }
        }
    }
    std::vector<unsigned> ids(nq * k, 12345);
    std::vector<float> ds(nq * k, -1);
    const unsigned grid = (nq + WPB - 1) / WPB;
    // The upper layers as gpu/resident.rs's UpperLayers holds them: their rows one after
    // another, (offset, degree, vertices) each, bottom first.
    const unsigned top_len = upper_len / 5, top_deg = 4, layers = upper_len ? (top_len >= 2 ? 2u : 1u) : 0u;
    std::vector<unsigned> adj2, rows(1, NONE_ID), meta{0u, upper_deg, upper_len};
    if (layers == 2) {
        adj2 = layer(top_len, top_deg);
        meta.insert(meta.end(), {(unsigned)adj1.size(), top_deg, top_len});
    }
    if (layers) {
        rows = adj1;
        rows.insert(rows.end(), adj2.begin(), adj2.end());
    }
    const unsigned mapped = seed % 2u;
    std::vector<unsigned> id_map(n);
    for (unsigned v = 0; v < n; ++v) id_map[v] = n - 1 - v;
    std::vector<unsigned> entries(nq, 12345);
    launch(grid, WPB * 32, [&] {
        entry_of(qs.data(), nq, base.data(), half.data(), rows.data(), meta.data(), layers, n, entries.data());
    });
    // The search on fewer blocks than queries where there are several: warps take queries
    // from the counter until none is left.
    unsigned next = 0;
    launch(std::max(1u, grid / 2), WPB * 32, [&] {
        ganns_search(qs.data(), nq, base.data(), half.data(), n, adj0.data(), rows.data(), meta.data(), layers, ef,
                     k, words.data(), filter_mod ? 1 : 0, id_map.data(), mapped, &next, ids.data(), ds.data());
    });
    if (next < nq) { printf("the counter ended at %u of %u queries: 1 mismatches\n", next, nq); return 1; }

    // The definition.
    unsigned bad = 0;
    for (unsigned q = 0; q < nq; ++q) {
        auto d = [&](unsigned v) { return dist(&qs[q * DIM], &base[v * DIM]); };
        unsigned cur = 0;
        float dcur = d(0);
        // The descent: the top layer, then the one below.
        const std::vector<std::pair<const std::vector<unsigned>*, unsigned>> down =
            layers == 2 ? std::vector<std::pair<const std::vector<unsigned>*, unsigned>>{{&adj2, top_deg}, {&adj1, upper_deg}}
            : layers == 1 ? std::vector<std::pair<const std::vector<unsigned>*, unsigned>>{{&adj1, upper_deg}}
                          : std::vector<std::pair<const std::vector<unsigned>*, unsigned>>{};
        for (const auto& [adj, deg] : down) {
            const unsigned len = (unsigned)adj->size() / deg;
            for (;;) {
                bool have = false;
                DI best;
                for (unsigned t = 0; t < deg; ++t) {
                    const unsigned u = (*adj)[cur * deg + t];
                    if (u >= len) continue;
                    const DI c{d(u), u};
                    if (!have || less_di(c, best)) best = c, have = true;
                }
                if (!have || !(best.first < dcur)) break;
                cur = best.second, dcur = best.first;
            }
        }
        if (entries[q] != cur) {
            if (bad < 5) printf("query %u: entry %u, want %u\n", q, entries[q], cur);
            bad++;
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
            const unsigned wid = r >= want.size() ? NONE_ID : mapped ? id_map[want[r].second] : want[r].second;
            const float wd = r < want.size() ? want[r].first : INFINITY;
            if (ids[q * k + r] != wid || __float_as_uint(ds[q * k + r]) != __float_as_uint(wd)) {
                if (bad < 5) printf("query %u, rank %u: got %u at %g, want %u at %g\n", q, r, ids[q * k + r], ds[q * k + r], wid, wd);
                bad++;
            }
        }
    }
    printf("search DIM %d METRIC %d LN %d DEG %d HS %u WPB %d HALF %d, n %u, %u queries, ef %u, k %u, upper %u, filter %d, untidy %d, "
           "mapped %u: %llu warp barriers, %u mismatches\n",
           DIM, METRIC, LN, DEG, HS, WPB, HALF, n, nq, ef, k, upper_len, filter_mod, untidy, mapped, emu->warp_barriers, bad);
    return bad != 0;
}
