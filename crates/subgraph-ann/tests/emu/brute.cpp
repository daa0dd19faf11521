// The brute-force kernels (brute_topk, brute_finish) run on the emulator (emu.h) against exact
// k-NN computed here on the CPU: small integer vectors, whose distances are exact in any order
// of summation (many of them equal: ties go to the smaller id), so ids and distances must be the
// same bit for bit.
//
// Usage: brute N QUERIES K SPLITS SEED FILTER [RANGE]
//   the base split in about SPLITS parts (as gpu/brute.rs splits it); FILTER > 0 passes the
//   ids i with i % FILTER == 0; values are integers in [-RANGE/2, RANGE/2] (RANGE 17 unless
//   given). Prints one line ending in "N mismatches"; exits 1 on any.
#include "emu.h"
// The kernel source exactly as gpu/source.rs makes it: #defines, common.cuh, brute.cu.
#include "kernel.cu"

typedef std::pair<float, unsigned> DI;
static bool less_di(const DI& a, const DI& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); }

struct Xor {
    unsigned long long s;
    unsigned long long next() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
};

static float dist(const float* a, const float* b) {
    double acc = 0;
    for (int i = 0; i < DIM; ++i) acc += METRIC == 0 ? double(a[i] - b[i]) * (a[i] - b[i]) : double(a[i]) * b[i];
    return METRIC == 0 ? (float)acc : (float)(1.0 - acc);
}

int main(int argc, char** argv) {
    if (argc < 7) { fprintf(stderr, "usage: brute N QUERIES K SPLITS SEED FILTER [RANGE]\n"); return 2; }
    const unsigned n = atoi(argv[1]), nq = atoi(argv[2]), k = atoi(argv[3]), splits_wanted = atoi(argv[4]);
    const unsigned seed = atoi(argv[5]);
    const int filter_mod = atoi(argv[6]), range = argc > 7 ? atoi(argv[7]) : 17;
    emu->rng.seed(seed);
    Xor x{seed * 0x9E3779B97F4A7C15ull | 1};
    std::vector<float> base(n * DIM), qs(nq * DIM);
    for (auto& v : base) v = float(int(x.next() % range) - range / 2);
    for (auto& v : qs) v = float(int(x.next() % range) - range / 2);
    auto passes = [&](unsigned i) { return !filter_mod || i % filter_mod == 0; };
    std::vector<unsigned> words((n + 31) / 32, 0);
    for (unsigned i = 0; i < n; ++i)
        if (passes(i)) words[i / 32] |= 1u << (i % 32);

    // The kernels, launched as gpu/brute.rs launches them.
    const unsigned tiles = (nq + QT - 1) / QT;
    const unsigned rows_per_split = ((n + splits_wanted - 1) / splits_wanted + 63) / 64 * 64;
    const unsigned splits = (n + rows_per_split - 1) / rows_per_split;
    std::vector<unsigned long long> partial((size_t)splits * nq * k, 0);
    std::vector<unsigned> ids(nq * k, 12345);
    std::vector<float> ds(nq * k, -1);
    launch(tiles * splits, WARPS * 32, [&] {
        brute_topk(qs.data(), nq, base.data(), n, rows_per_split, tiles, k, words.data(), filter_mod ? 1 : 0,
                   partial.data());
    });
    launch(nq, 32, [&] { brute_finish(partial.data(), nq, k, splits, ids.data(), ds.data()); });

    unsigned bad = 0;
    for (unsigned q = 0; q < nq; ++q) {
        std::vector<DI> all;
        for (unsigned i = 0; i < n; ++i)
            if (passes(i)) all.push_back({dist(&qs[q * DIM], &base[i * DIM]), i});
        std::sort(all.begin(), all.end(), less_di);
        for (unsigned r = 0; r < k; ++r) {
            const unsigned wid = r < all.size() ? all[r].second : NONE_ID;
            const float wd = r < all.size() ? all[r].first : INFINITY;
            if (ids[q * k + r] != wid || __float_as_uint(ds[q * k + r]) != __float_as_uint(wd)) {
                if (bad < 5) printf("query %u, rank %u: got %u at %g, want %u at %g\n", q, r, ids[q * k + r], ds[q * k + r], wid, wd);
                bad++;
            }
        }
    }
    printf("brute DIM %d METRIC %d KP %d QT %d WARPS %d, n %u, %u queries, k %u, %u splits, filter %d, range %d: "
           "%u mismatches\n",
           DIM, METRIC, KP, QT, WARPS, n, nq, k, splits, filter_mod, range, bad);
    return bad != 0;
}
