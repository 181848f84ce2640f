// Rows of FLOAT16 converted in bulk for the fast paths' float64 sums (unit_tap_sums.hpp,
// max_pooling_grad.hpp): F16C where the CPU has it (x86-64 with AVX2 and F16C, asked at run
// time), the inline per-element conversions of fast_sum.hpp elsewhere; the same bits either way.
// Internal to dmlref.
//
//   - widen_halves: every binary16 is a binary32; VCVTPH2PS converts exactly (a NaN stays a NaN,
//     which the sums that read it send to their exact path);
//   - narrow_halves: exact_result<half> (fast_sum.hpp) of any double s: s + 0 (so -0 is +0) is
//     rounded to odd at float32's 24 bits (truncated, the last bit set where bits were dropped),
//     then to FLOAT16 by VCVTPS2PH (nearest even). That is the one correct rounding: every FLOAT16
//     value and every midpoint between two has at most 12 significant bits, so it is an even
//     24-bit number (last bit 0). An s with more bits lies strictly between two neighbouring 24-bit
//     numbers, one even and one odd, and its rounding to odd r is the odd one: from s to r (r
//     included) there is no even 24-bit number, so no FLOAT16 value or midpoint, and s and r round
//     to the same FLOAT16. The truncation is exact where s is a normal float32, and outside that
//     range both steps give what one rounding gives: below
//     2^-126 a signed zero (FLOAT16's smallest rounding boundary is 2^-25), beyond FLOAT32's range
//     an infinity (FLOAT16's overflow boundary 65520 is a float32), and a NaN keeps its sign and
//     its payload's top bits, as half_from_double does (test/test_fast_unit_taps.cpp checks all
//     of these).
#pragma once

#include "dmlref/types.hpp"

#include <cstddef>
#include <cstdint>

namespace dmlref::reference::fast {

// Whether the CPU runs the F16C kernels (AVX2 and F16C).
bool have_f16c();

// out[i] = in[i] widened to float32, i < n.
void widen_halves(float* __restrict out, const half* __restrict in, size_t n);

// out[i] = exact_result<half>(in[i]), i < n.
void narrow_halves(half* __restrict out, const double* __restrict in, size_t n);

// out[i] = the rounding of a[2i] + a[2i + 1] + b[2i] + b[2i + 1] (summed from +0), i < n, where
// no term is an infinity or NaN: the float64 sum of four FLOAT16 values is exact (all are
// multiples of 2^-24 below 2^16 in magnitude, so every partial sum is a multiple of 2^-24 below
// 2^18, 42 bits), so rounding it once is ExactSum's result. Returns false when a term is an
// infinity or NaN (the caller sums the row again).
bool sum_half_quads(half* __restrict out, const half* __restrict a, const half* __restrict b, size_t n);

}  // namespace dmlref::reference::fast
