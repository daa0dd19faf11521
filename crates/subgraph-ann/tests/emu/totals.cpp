// warp_totals<R> (common.cuh) against warp_total on random floats, where the order of
// summation shows: each lane's total of v[lane / (32 / R)] must have warp_total's bits, for
// every R from 1 to 32.
//
// Usage: totals ROUNDS SEED. Prints one line ending in "N mismatches"; exits 1 on any.
#include "emu.h"
// A kernel source as gpu/source.rs makes it (its #defines, common.cuh, ...).
#include "kernel.cu"

template <unsigned R>
static unsigned check(const std::vector<float>& x) {
    // x[lane * 32 + u]: lane's share of value u (32 values).
    static unsigned bad;
    bad = 0;
    launch(1, 32, [&] {
        const unsigned lane = threadIdx.x & 31u;
        float v[R], want[R];
        for (unsigned u = 0; u < R; ++u) {
            v[u] = x[lane * 32 + u];
            want[u] = warp_total(v[u]);
        }
        const float got = warp_totals<R>(v);
        const unsigned u = lane / (32u / R);
        if (__float_as_uint(got) != __float_as_uint(want[u])) {
            if (bad < 5) printf("R %u, lane %u: got %a, want %a\n", R, lane, got, want[u]);
            bad++;
        }
    });
    return bad;
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: totals ROUNDS SEED\n"); return 2; }
    const unsigned rounds = atoi(argv[1]), seed = atoi(argv[2]);
    emu->rng.seed(seed);
    std::mt19937 g(seed);
    // Magnitudes over many binades, both signs: sums that round differently in another order.
    std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exp(-20, 20);
    unsigned bad = 0;
    for (unsigned r = 0; r < rounds; ++r) {
        std::vector<float> x(32 * 32);
        for (auto& v : x) v = std::ldexp(mant(g), exp(g));
        bad += check<1>(x) + check<2>(x) + check<4>(x) + check<8>(x) + check<16>(x) + check<32>(x);
    }
    printf("totals METRIC %d, %u rounds: %u mismatches\n", METRIC, rounds, bad);
    return bad != 0;
}
