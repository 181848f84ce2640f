// clip.hpp's loops over contiguous elements, cloned for x86-64-v4 (AVX-512BW) and AVX2. FLOAT16: 16-bit
// integer operations on the bit patterns alone; FLOAT32 CLIP_GRAD1: two IEEE compares and a select of
// dY's bits or +0. Every clone gives the same bits.
#include "clip.hpp"

namespace dmlref::reference::fast {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void clip1_half_run(uint16_t* __restrict y, const uint16_t* __restrict x, size_t n, uint16_t Min, uint16_t Max) {
    for (size_t i = 0; i < n; ++i) y[i] = clip1_half_bits(x[i], Min, Max);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void clip_grad1_half_run(uint16_t* __restrict dx, const uint16_t* __restrict x, const uint16_t* __restrict dy, size_t n,
                         uint16_t Min, uint16_t Max) {
    for (size_t i = 0; i < n; ++i) dx[i] = clip_grad1_half_bits(x[i], dy[i], Min, Max);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void clip_grad1_float_run(float* __restrict dx, const float* __restrict x, const float* __restrict dy, size_t n,
                          float Min, float Max) {
    for (size_t i = 0; i < n; ++i) dx[i] = (x[i] <= Min) | (x[i] >= Max) ? 0.0f : dy[i];
}

}  // namespace dmlref::reference::fast
