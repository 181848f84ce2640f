// Fast path of ACTIVATION_RELU and ACTIVATION_RELU_GRAD for FLOAT16: "x > 0" read off the bits
// (the positive, non-zero, non-NaN halves are exactly the bit patterns 0x0001..0x7c00), one
// unsigned 16-bit compare that vectorises; and for contiguous FLOAT32, SSE2. Internal to dmlref.
//
// The same values as activation_relu.cpp's plain loop (test/test_fast_paths.cpp): x itself or dY
// where x > 0, else +0.
#pragma once

#include "streamed.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

namespace dmlref::reference::fast {

inline uint16_t half_positive_mask(half x) { return uint16_t(0) - uint16_t(uint16_t(to_bits(x) - 1u) < 0x7c00u); }

inline half relu_grad_half_value(half x, half dy) {
    return from_bits<half>(uint16_t(to_bits(dy) & half_positive_mask(x)));
}

// Contiguous tensors in runs over the cores (streamed.hpp), others through map_elements.
inline void relu_grad_half(const TensorView& X, const TensorView& dY, const TensorView& dX) {
    if (!one_contiguous_run(dX, {&X, &dY})) return map_elements<half, half, half>(dX, relu_grad_half_value, X, dY);
    const half *x = X.data<half>(), *dy = dY.data<half>();
    half* dx = dX.data<half>();
    in_runs(size_t(element_count(dX.desc)), [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) dx[i] = relu_grad_half_value(x[i], dy[i]);
    });
}

// RELU is RELU_GRAD with dY = x: x's bits where x > 0, else +0 (NaN and -0 give +0).
inline void relu_half(const TensorView& X, const TensorView& Y) { relu_grad_half(X, X, Y); }

// RELU_GRAD for FLOAT32 with X, dY and dX contiguous: dY's bits under the mask x > 0 (false for
// NaN), else +0; SSE2, large outputs streamed (streamed.hpp). False, having written nothing,
// otherwise.
inline bool relu_grad_floats(const TensorView& X, const TensorView& dY, const TensorView& dX) {
#if defined(__SSE2__)
    if (!one_contiguous_run(dX, {&X, &dY})) return false;
    const float *x = X.data<float>(), *dy = dY.data<float>();
    const __m128 zero = _mm_setzero_ps();
    floats_streamed(
        dX.data<float>(), size_t(element_count(dX.desc)), &X == &dY ? 8 : 12,
        [=](size_t i) { return _mm_and_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + i), zero), _mm_loadu_ps(dy + i)); },
        [=](size_t i) { return select(x[i] > 0.0f, dy[i], 0.0f); });
    return true;
#else
    (void)X, (void)dY, (void)dX;
    return false;
#endif
}

// RELU for FLOAT32 as RELU_GRAD with dY = x.
inline bool relu_floats(const TensorView& X, const TensorView& Y) { return relu_grad_floats(X, X, Y); }

}  // namespace dmlref::reference::fast
