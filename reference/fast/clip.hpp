// Fast path of ELEMENT_WISE_CLIP1 without ScaleBias and with numeric bounds: D3D's min and max
// on the element type itself, branch-free, instead of through exact Numbers. Internal to dmlref.
//
// The same values as element_wise_clip.cpp's plain loop (test/test_fast_paths.cpp): with Min and
// Max not NaN the result is always one of x, Min or Max, whose bits store<T> would give back
// unchanged; a NaN x is ignored by min (giving Max), and -0 orders below +0.
#pragma once

#include "streamed.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

namespace dmlref::reference::fast {

// a < b, a > b on values (FLOAT16 through its ordered key); neither holds for -0 against +0.
template <class T> inline bool less(T a, T b) {
    if constexpr (is_half_v<T>) return half_order_key(a) < half_order_key(b);
    else return a < b;
}
template <class T> inline bool negative_zero(T v) {
    if constexpr (std::is_integral_v<T>) return false;
    else return to_bits(v) == (bits_t<T>(1) << (sizeof(T) * 8 - 1));
}

// max(Min, min(x, Max)) with Min and Max not NaN.
template <class T> inline T clip1(T x, T Min, T Max) {
    // min_number(x, Max): NaN x gives Max; equal values give Max when it is -0, else x.
    const bool take_max = is_nan(x) | less(Max, x) | (!less(x, Max) & negative_zero(Max));
    const T m = select(take_max, Max, x);
    // max_number(Min, m): equal values give m when Min is -0, else Min.
    const bool take_m = less(Min, m) | (!less(m, Min) & negative_zero(Min));
    return select(take_m, m, Min);
}

// FLOAT16 on the bits alone: a 16-bit key that orders like the value (-0 and +0 both 0), so
// that the loop is 16-bit integer compares and selects, which vectorise.
inline int16_t half_key16(uint16_t b) {
    const int16_t magnitude = int16_t(b & 0x7fff), negative = int16_t(-(b >> 15));  // 0 or -1
    return int16_t((magnitude ^ negative) - negative);
}
inline bool half_bits_nan(uint16_t b) { return (b & 0x7fff) > 0x7c00; }

inline uint16_t clip1_half_bits(uint16_t x, uint16_t Min, uint16_t Max) {
    const int16_t kx = half_key16(x), kmin = half_key16(Min), kmax = half_key16(Max);
    const bool take_max = half_bits_nan(x) | (kmax < kx) | ((kx >= kmax) & (Max == 0x8000));
    const uint16_t m = take_max ? Max : x;
    const int16_t km = take_max ? kmax : kx;
    const bool take_m = (kmin < km) | ((km >= kmin) & (Min == 0x8000));
    return take_m ? m : Min;
}

// CLIP_GRAD1 on the bits: dY where Min < x < Max or x is NaN, else +0.
inline uint16_t clip_grad1_half_bits(uint16_t x, uint16_t dy, uint16_t Min, uint16_t Max) {
    const int16_t k = half_key16(x);
    const bool zero = (!half_bits_nan(x)) & ((k <= half_key16(Min)) | (k >= half_key16(Max)));
    return uint16_t(dy & uint16_t(zero ? 0 : 0xffff));
}

// The two over n contiguous elements (clip_runs.cpp, vectorised and cloned for AVX-512BW and AVX2),
// and CLIP_GRAD1's FLOAT32 loop (cloned for AVX2).
void clip1_half_run(uint16_t* __restrict y, const uint16_t* __restrict x, size_t n, uint16_t Min, uint16_t Max);
void clip_grad1_half_run(uint16_t* __restrict dx, const uint16_t* __restrict x, const uint16_t* __restrict dy, size_t n,
                         uint16_t Min, uint16_t Max);
void clip_grad1_float_run(float* __restrict dx, const float* __restrict x, const float* __restrict dy, size_t n,
                          float Min, float Max);
// CLIP_GRAD1 FLOAT32 over n contiguous elements with AVX-512 F, 64 bytes a vector, spread over the
// cores, its stores aligned to cache lines (for outputs that are not streamed: streamed ones keep
// the SSE2 loop, which ran faster than 64-byte non-temporal stores on an AMD EPYC VM). False, having
// written nothing, where the element-wise kernels' level is below AVX-512 (element_wise.hpp).
bool clip_grad1_float512(float* dx, const float* x, const float* dy, size_t n, float Min, float Max);

// FLOAT32 with Min and Max neither NaN nor zero, X and Y contiguous: x < Max ? x : Max, then
// m > Min ? m : Min, which are SSE's minps and maxps. The same as clip1: a NaN x gives Max; x
// equal to a non-zero bound has the bound's bits; no operand is a zero bound, so the -0/+0
// order never decides.
inline bool clip1_floats(const TensorView& X, const TensorView& Y, float Min, float Max) {
#if defined(__SSE2__)
    if (Min == 0 || Max == 0 || !one_contiguous_run(Y, {&X})) return false;
    const float* x = X.data<float>();
    const __m128 lo = _mm_set1_ps(Min), hi = _mm_set1_ps(Max);
    floats_streamed(
        Y.data<float>(), size_t(element_count(Y.desc)), 8,
        [=](size_t i) { return _mm_max_ps(_mm_min_ps(_mm_loadu_ps(x + i), hi), lo); },
        [=](size_t i) {
        const float m = x[i] < Max ? x[i] : Max;
        return m > Min ? m : Min;
        });
    return true;
#else
    (void)X, (void)Y, (void)Min, (void)Max;
    return false;
#endif
}

// False, having written nothing, where the bounds are NaN.
template <class T> bool clip1_elements(const TensorView& X, const TensorView& Y, T Min, T Max) {
    if (is_nan(Min) || is_nan(Max)) return false;
    if constexpr (std::is_same_v<T, float>)
        if (clip1_floats(X, Y, Min, Max)) return true;
    if constexpr (is_half_v<T>) {
        const uint16_t lo = to_bits(Min), hi = to_bits(Max);
        if (one_contiguous_run(Y, {&X}))
            in_runs(size_t(element_count(Y.desc)), [&](size_t b, size_t e) {
                clip1_half_run(Y.data<uint16_t>() + b, X.data<uint16_t>() + b, e - b, lo, hi);
            });
        else
            map_elements<T, T>(
                Y, [=](T x) { return from_bits<half>(clip1_half_bits(to_bits(x), lo, hi)); }, X);
    } else {
        map_elements<T, T>(
            Y, [=](T x) { return clip1(x, Min, Max); }, X);
    }
    return true;
}

// CLIP_GRAD1 for FLOAT16 with Min and Max not NaN: dX = (x <= Min) | (x >= Max) ? +0 : dY, a NaN
// x passing dY (element_wise_clip.cpp's clip_grad). False, having written nothing, otherwise.
inline bool clip_grad1_half(const TensorView& X, const TensorView& dY, const TensorView& dX, half Min, half Max) {
    if (is_nan(Min) || is_nan(Max)) return false;
    const uint16_t lo = to_bits(Min), hi = to_bits(Max);
    if (one_contiguous_run(dX, {&X, &dY})) {
        in_runs(size_t(element_count(dX.desc)), [&](size_t b, size_t e) {
            clip_grad1_half_run(dX.data<uint16_t>() + b, X.data<uint16_t>() + b, dY.data<uint16_t>() + b, e - b, lo,
                                hi);
        });
        return true;
    }
    map_elements<half, half, half>(
        dX, [=](half x, half dy) { return from_bits<half>(clip_grad1_half_bits(to_bits(x), to_bits(dy), lo, hi)); }, X,
        dY);
    return true;
}

// CLIP_GRAD1 for FLOAT32 with Min and Max not NaN, X, dY and dX contiguous: dX = (x <= Min) |
// (x >= Max) ? +0 : dY, both compares false for a NaN x (element_wise_clip.cpp's clip_grad).
// Outputs that stay in the cache by clip_grad1_float512 (AVX-512) or the cloned loop (AVX2 where
// the CPU has it); large outputs streamed with SSE2 (streamed.hpp). False, having written nothing,
// otherwise.
inline bool clip_grad1_floats(const TensorView& X, const TensorView& dY, const TensorView& dX, float Min, float Max) {
#if defined(__SSE2__)
    if (is_nan(Min) || is_nan(Max) || !one_contiguous_run(dX, {&X, &dY})) return false;
    const float *x = X.data<float>(), *dy = dY.data<float>();
    const size_t n = size_t(element_count(dX.desc));
    if (!stream_output(n, n * 12)) {
        if (clip_grad1_float512(dX.data<float>(), x, dy, n, Min, Max)) return true;
        float* const out = dX.data<float>();
        in_runs(n, [=](size_t b, size_t e) { clip_grad1_float_run(out + b, x + b, dy + b, e - b, Min, Max); });
        return true;
    }
    const __m128 lo = _mm_set1_ps(Min), hi = _mm_set1_ps(Max);
    floats_streamed(
        dX.data<float>(), size_t(element_count(dX.desc)), 12,
        [=](size_t i) {
        const __m128 v = _mm_loadu_ps(x + i);
        return _mm_andnot_ps(_mm_or_ps(_mm_cmple_ps(v, lo), _mm_cmpge_ps(v, hi)), _mm_loadu_ps(dy + i));
        },
        [=](size_t i) { return select((x[i] <= Min) | (x[i] >= Max), 0.0f, dy[i]); });
    return true;
#else
    (void)X, (void)dY, (void)dX, (void)Min, (void)Max;
    return false;
#endif
}

}  // namespace dmlref::reference::fast
