// The requantization tie test of the quantization family (reference/quantization.cpp), shared with
// QUANTIZED_LINEAR_AVERAGE_POOLING (reference/quantized_pooling.cpp). Internal to dmlref.
#pragma once

#include <gmpxx.h>

#include <cstdint>

namespace dmlref::reference {

// Whether rounding a backend's value of the exact quotient q, formed with at most n roundings of
// relative error u = 2^-24 on terms whose magnitudes, over the scale, sum to m (m >= |q|), may give
// the other neighbour: |q - (k + 1/2)| <= gamma_n m, i.e. d (2^24 - n) <= n m, and the two
// neighbours stay apart after the zero point and the saturation (docs/tolerance.md, "Quantization").
bool requantize_near_tie(const mpq_class& q, const mpq_class& m, long n, int64_t zero_point, int64_t lo, int64_t hi);

}  // namespace dmlref::reference
