// IEEE half-precision values as 16-bit patterns, for kernels compiled by NVRTC (which has no
// cuda_fp16.h without the toolkit's headers): half to float (exact), and float to half rounded
// to nearest even, by the PTX conversions. A host emulator (no __CUDA_ARCH__) defines both
// itself, with the same rounding.
#ifdef __CUDA_ARCH__
__device__ __forceinline__ float half_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short f32_to_half(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#endif
