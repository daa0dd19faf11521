// The GPU engine's kernels (gpu/sgd.cu, as gpu/source.rs makes it) on the warp emulator of
// subgraph-ann (crates/subgraph-ann/tests/emu/emu.h: each thread a fiber, lanes in a random
// order between barriers, shuffles through barriers), launched as gpu/sgd.rs launches them:
// for HALF, the factors go in through to_half and come out through from_half; sgd_update runs
// over ratings [START, END) with WORKERS workers, WPB warps a block. tests/emulated.rs compares
// the factors it writes with the crate's reference.
//
// Usage: sgd IN OUT WORKERS START END
//   IN: u64 users, items, ratings; f32 lr, lambda_p, lambda_q; P (users × K floats), Q (items ×
//   K floats), the ratings (3 u32 each: u, v, r's bits); all little-endian.
//   OUT: P and Q as floats after the run.
#include "emu.h"

// What emu.h lacks and sgd.cu uses: the other vector types, loads through L2, the launch's
// dimensions. The half conversions are emu.h's, which round as cvt.rn.f16.f32 does.
struct float2 { float x, y; };
struct uint4 { unsigned x, y, z, w; };
template <class T> inline T __ldcg(const T* p) { return *p; }
inline Dim3 emu_block_dim, emu_grid_dim;
#define blockDim emu_block_dim
#define gridDim emu_grid_dim

// The kernel source exactly as gpu/source.rs makes it: #defines, subgraph-cuda's half.cuh, then
// sgd.cu.
#include "kernel.cu"

static void run(unsigned grid, unsigned block, std::function<void()> body) {
    emu_grid_dim.x = grid;
    emu_block_dim.x = block;
    launch(grid, block, body);
}

template <class T> static std::vector<T> read_n(FILE* f, size_t n) {
    std::vector<T> v(n);
    if (n && fread(v.data(), sizeof(T), n, f) != n) { fprintf(stderr, "short input\n"); exit(2); }
    return v;
}

int main(int argc, char** argv) {
    if (argc != 6) { fprintf(stderr, "usage: sgd IN OUT WORKERS START END\n"); return 2; }
    FILE* in = fopen(argv[1], "rb");
    if (!in) { perror(argv[1]); return 2; }
    const auto sizes = read_n<unsigned long long>(in, 3);
    const auto step = read_n<float>(in, 3);
    const size_t users = sizes[0], items = sizes[1], n = sizes[2];
    auto p = read_n<float>(in, users * K);
    auto q = read_n<float>(in, items * K);
    const auto ratings = read_n<unsigned>(in, 3 * n);
    fclose(in);
    const unsigned workers = atoi(argv[3]);
    const unsigned long long start = atoll(argv[4]), end = atoll(argv[5]);

#if HALF
    // Two halves a word, as gpu/sgd.rs allocates them; in through to_half, out through from_half.
    std::vector<unsigned> pw((users * K + 1) / 2), qw((items * K + 1) / 2);
    run(2, 64, [&] { to_half(p.data(), users * K, pw.data(), 0); });
    run(3, 32, [&] { to_half(q.data(), items * K, qw.data(), 0); });
    factor_word *pd = pw.data(), *qd = qw.data();
#else
    factor_word *pd = p.data(), *qd = q.data();
#endif
    std::vector<float> losses(workers, 0.0f);
    run((workers + WPB - 1) / WPB, WPB * 32, [&] {
        sgd_update(ratings.data(), start, end, pd, qd, step[0], step[1], step[2], workers, losses.data());
    });
#if HALF
    run(1, 32, [&] { from_half(pw.data(), 0, users * K, p.data()); });
    run(4, 64, [&] { from_half(qw.data(), 0, items * K, q.data()); });
#endif

    FILE* out = fopen(argv[2], "wb");
    if (!out) { perror(argv[2]); return 2; }
    fwrite(p.data(), sizeof(float), p.size(), out);
    fwrite(q.data(), sizeof(float), q.size(), out);
    fwrite(losses.data(), sizeof(float), losses.size(), out);
    fclose(out);
    printf("sgd K %d HALF %d VEC %d: %zu users, %zu items, ratings %llu..%llu of %zu, %u workers\n", K, HALF, VEC,
           users, items, start, end, n, workers);
    return 0;
}
