// A CPU emulator of the CUDA subset the vector-search kernels use (tests/emulated.rs), so that
// their logic is checked where there is no GPU. Every thread is a fiber (ucontext), blocks run
// one after another; between two barriers the runnable lanes run in a random order, so a
// missing __syncwarp shows as answers that change. __syncwarp and __syncthreads are barriers;
// shuffles and ballots exchange through per-lane slots between two warp barriers. A warp
// barrier that some lanes of the warp miss (divergent control flow around warp collectives)
// aborts, as does any deadlock. __shared__ arrays are static: one kernel runs at a time.
// Not emulated: memory spaces, the memory model beyond barriers, timing, anything unused.
#pragma once
#include <ucontext.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

struct Dim3 { unsigned x = 0, y = 0, z = 0; };
struct Fiber {
    ucontext_t ctx;
    std::vector<char> stack;
    Dim3 tid;
    int state = 0;  // 0 runnable, 1 at a warp barrier, 2 at a block barrier, 3 done
    unsigned long long slot = 0;
    unsigned long long barriers = 0;
};
struct Emu {
    std::vector<Fiber> f;
    ucontext_t sched;
    Fiber* cur = nullptr;
    Dim3 bid;
    std::function<void()> body;
    std::mt19937 rng{12345};
    unsigned long long warp_barriers = 0;
};
inline Emu* emu = new Emu();
#define threadIdx (emu->cur->tid)
#define blockIdx (emu->bid)

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

struct float4 { float x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
struct uint2 { unsigned x, y; };
// IEEE half (its bits) to float, exactly, and float to half rounded to nearest even, as
// cvt.f32.f16 and cvt.rn.f16.f32 do (x86's _Float16 rounds the same way).
inline float half_to_f32(unsigned short h) { _Float16 f; memcpy(&f, &h, 2); return (float)f; }
inline unsigned short f32_to_half(float x) { const _Float16 f = (_Float16)x; unsigned short h; memcpy(&h, &f, 2); return h; }
template <class T> inline T __ldg(const T* p) { return *p; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
inline float __fmaf_rn(float a, float b, float c) { return std::fmaf(a, b, c); }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
// Fibers switch only at barriers, so an atomic is one uninterrupted step.
inline unsigned atomicCAS(unsigned* p, unsigned cmp, unsigned val) {
    const unsigned old = *p;
    if (old == cmp) *p = val;
    return old;
}

inline unsigned long long atomicMin(unsigned long long* p, unsigned long long val) {
    const unsigned long long old = *p;
    if (val < old) *p = val;
    return old;
}

inline unsigned atomicAdd(unsigned* p, unsigned val) {
    const unsigned old = *p;
    *p = old + val;
    return old;
}

inline void emu_yield(int state) {
    Fiber* me = emu->cur;
    me->state = state;
    me->barriers++;
    swapcontext(&me->ctx, &emu->sched);
}
inline void __syncwarp(unsigned = 0xFFFFFFFFu) { emu_yield(1); }
inline void __syncthreads() { emu_yield(2); }

template <class T> inline T emu_exchange(T v, unsigned src_lane) {
    Fiber* me = emu->cur;
    unsigned long long s = 0;
    memcpy(&s, &v, sizeof(T));
    me->slot = s;
    __syncwarp();
    Fiber& o = emu->f[(me->tid.x & ~31u) + (src_lane & 31u)];
    T r;
    memcpy(&r, &o.slot, sizeof(T));
    __syncwarp();
    return r;
}
inline float __shfl_xor_sync(unsigned, float v, int o) { return emu_exchange(v, (threadIdx.x & 31u) ^ (unsigned)o); }
inline float __shfl_sync(unsigned, float v, int src) { return emu_exchange(v, (unsigned)src); }
inline unsigned long long __shfl_xor_sync(unsigned, unsigned long long v, int o) {
    return emu_exchange(v, (threadIdx.x & 31u) ^ (unsigned)o);
}
inline unsigned __shfl_sync(unsigned, unsigned v, int src) { return emu_exchange(v, (unsigned)src); }
inline unsigned __ballot_sync(unsigned, int p) {
    Fiber* me = emu->cur;
    me->slot = p ? 1 : 0;
    __syncwarp();
    unsigned b = 0, base = me->tid.x & ~31u;
    for (unsigned l = 0; l < 32; ++l) b |= (emu->f[base + l].slot ? 1u : 0u) << l;
    __syncwarp();
    return b;
}

inline void emu_trampoline() {
    emu->body();
    emu->cur->state = 3;
    swapcontext(&emu->cur->ctx, &emu->sched);
}

// Runs body on grid blocks of `block` threads (a multiple of 32).
inline void launch(unsigned grid, unsigned block, std::function<void()> body) {
    if (block % 32 != 0) { fprintf(stderr, "block %u\n", block); abort(); }
    emu->body = body;
    for (unsigned b = 0; b < grid; ++b) {
        emu->bid.x = b;
        emu->f.assign(block, Fiber());
        for (unsigned t = 0; t < block; ++t) {
            Fiber& f = emu->f[t];
            f.tid.x = t;
            f.stack.resize(1 << 18);
            getcontext(&f.ctx);
            f.ctx.uc_stack.ss_sp = f.stack.data();
            f.ctx.uc_stack.ss_size = f.stack.size();
            f.ctx.uc_link = nullptr;
            makecontext(&f.ctx, emu_trampoline, 0);
        }
        std::vector<unsigned> order(block);
        for (;;) {
            bool ran = false;
            for (unsigned t = 0; t < block; ++t) order[t] = t;
            std::shuffle(order.begin(), order.end(), emu->rng);
            for (unsigned t : order) {
                Fiber& f = emu->f[t];
                if (f.state != 0) continue;
                emu->cur = &f;
                swapcontext(&emu->sched, &f.ctx);
                ran = true;
            }
            if (ran) continue;
            bool all_done = true, released = false;
            for (unsigned w = 0; w < block / 32; ++w) {
                unsigned at_warp = 0, done = 0, at_block = 0;
                for (unsigned l = 0; l < 32; ++l) {
                    int s = emu->f[w * 32 + l].state;
                    at_warp += s == 1; done += s == 3; at_block += s == 2;
                }
                if (done < 32) all_done = false;
                if (at_warp > 0 && (done > 0 || at_block > 0)) {
                    fprintf(stderr, "block %u warp %u: %u lanes at a warp barrier, %u done, %u at a block barrier\n", b, w, at_warp, done, at_block);
                    abort();
                }
                if (at_warp == 32) {
                    // every lane must have passed the same number of barriers
                    unsigned long long n0 = emu->f[w * 32].barriers;
                    for (unsigned l = 1; l < 32; ++l)
                        if (emu->f[w * 32 + l].barriers != n0) {
                            fprintf(stderr, "block %u warp %u: lanes at different barriers (%llu vs %llu)\n", b, w, n0, emu->f[w * 32 + l].barriers);
                            abort();
                        }
                    for (unsigned l = 0; l < 32; ++l) emu->f[w * 32 + l].state = 0;
                    released = true;
                    emu->warp_barriers++;
                }
            }
            if (all_done) break;
            if (released) continue;
            unsigned at_block = 0, done = 0;
            for (auto& f : emu->f) { at_block += f.state == 2; done += f.state == 3; }
            if (at_block + done == block && at_block > 0) {
                if (done > 0) { fprintf(stderr, "block barrier with %u threads done\n", done); abort(); }
                for (auto& f : emu->f) f.state = 0;
                continue;
            }
            fprintf(stderr, "deadlock in block %u\n", b);
            abort();
        }
    }
}
