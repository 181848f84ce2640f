// clip.hpp's loops over contiguous elements, cloned for x86-64-v4 (AVX-512BW) and AVX2. FLOAT16: 16-bit
// integer operations on the bit patterns alone; FLOAT32 CLIP_GRAD1: two IEEE compares and a select of
// dY's bits or +0, cloned for AVX2, and an AVX-512 kernel written out. Every clone gives the same
// bits.
#include "clip.hpp"

#include "element_wise.hpp"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DMLREF_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")))
#endif

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
__attribute__((target_clones("avx2", "default")))
#endif
void clip_grad1_float_run(float* __restrict dx, const float* __restrict x, const float* __restrict dy, size_t n,
                          float Min, float Max) {
    for (size_t i = 0; i < n; ++i) dx[i] = ((x[i] <= Min) | (x[i] >= Max)) ? 0.0f : dy[i];
}

#if defined(DMLREF_AVX512)
namespace {

// dX's 16 lanes: dY's bits where neither x <= Min nor x >= Max (ordered compares, false for a NaN
// x, which keeps dY; -0 and +0 equal), +0 elsewhere: the cloned loop's select, lane by lane.
DMLREF_AVX512 inline __m512 grad16(__m512 x, __m512 dy, __m512 lo, __m512 hi) {
    const __mmask16 zero = _mm512_cmp_ps_mask(x, lo, _CMP_LE_OQ) | _mm512_cmp_ps_mask(x, hi, _CMP_GE_OQ);
    return _mm512_maskz_mov_ps(__mmask16(~zero), dy);
}

// The first k lanes (k <= 16).
inline __mmask16 first16(size_t k) { return __mmask16((1u << k) - 1); }

// n elements: those before dX's first 64-byte boundary through masked loads and stores (none
// past the run, none where dX's elements are not aligned to 4 bytes), then two vectors at a time,
// their stores aligned to a cache line, the last fewer than 32 masked.
DMLREF_AVX512 void grad512(float* dx, const float* x, const float* dy, size_t n, float Min, float Max) {
    const __m512 lo = _mm512_set1_ps(Min), hi = _mm512_set1_ps(Max);
    size_t i = 0;
    const size_t off = size_t(reinterpret_cast<uintptr_t>(dx) % 64);
    if (off != 0 && off % 4 == 0) {
        i = std::min(n, (64 - off) / 4);
        const __mmask16 m = first16(i);
        _mm512_mask_storeu_ps(dx, m, grad16(_mm512_maskz_loadu_ps(m, x), _mm512_maskz_loadu_ps(m, dy), lo, hi));
    }
    for (; i + 32 <= n; i += 32) {
        const __m512 r0 = grad16(_mm512_loadu_ps(x + i), _mm512_loadu_ps(dy + i), lo, hi);
        const __m512 r1 = grad16(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(dy + i + 16), lo, hi);
        _mm512_storeu_ps(dx + i, r0);
        _mm512_storeu_ps(dx + i + 16, r1);
    }
    for (; i < n; i += 16) {
        const __mmask16 m = first16(std::min<size_t>(16, n - i));
        _mm512_mask_storeu_ps(dx + i, m,
                              grad16(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, dy + i), lo, hi));
    }
}

}  // namespace
#endif

bool clip_grad1_float512(float* dx, const float* x, const float* dy, size_t n, float Min, float Max) {
#if defined(DMLREF_AVX512)
    if (element_wise_isa() < 2) return false;
    in_runs(n, [=](size_t b, size_t e) { grad512(dx + b, x + b, dy + b, e - b, Min, Max); });
    return true;
#else
    (void)dx, (void)x, (void)dy, (void)n, (void)Min, (void)Max;
    return false;
#endif
}

}  // namespace dmlref::reference::fast
