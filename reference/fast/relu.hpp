// Fast path of ACTIVATION_RELU and ACTIVATION_RELU_GRAD for FLOAT16: "x > 0" read off the bits
// (the positive, non-zero, non-NaN halves are exactly the bit patterns 0x0001..0x7c00), one
// unsigned 16-bit compare that vectorises. Internal to dmlref.
//
// The same values as activation_relu.cpp's plain loop (test/test_fast_paths.cpp): x itself or dY
// where x > 0, else +0.
#pragma once

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

namespace dmlref::reference::fast {

inline uint16_t half_positive_mask(half x) { return uint16_t(0) - uint16_t(uint16_t(to_bits(x) - 1u) < 0x7c00u); }

inline void relu_half(const TensorView& X, const TensorView& Y) {
    map_elements<half, half>(Y, [](half x) { return from_bits<half>(uint16_t(to_bits(x) & half_positive_mask(x))); }, X);
}

inline void relu_grad_half(const TensorView& X, const TensorView& dY, const TensorView& dX) {
    map_elements<half, half, half>(dX, [](half x, half dy) { return from_bits<half>(uint16_t(to_bits(dy) & half_positive_mask(x))); }, X, dY);
}

}  // namespace dmlref::reference::fast
