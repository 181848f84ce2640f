// Values shared by the fast-path tests (test_fast_paths.cpp, test_fast_sums.cpp): hard doubles
// for sums, small floats whose sums fall on rounding midpoints, and bit-for-bit comparisons.
#pragma once

#include "dmlref/numeric.hpp"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>

namespace dmlref::test {

// Doubles that make sums hard: ties at the float64 (and float32, float16) rounding midpoints,
// cancellation, subnormals, the largest finite values, infinities and NaN.
inline double hard_value(std::mt19937_64& rng) {
    static const double pool[] = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  0x1p-53,
                                  -0x1p-53,
                                  0x1p-54,
                                  3 * 0x1p-54,
                                  0x1p-106,
                                  1 + 0x1p-52,
                                  -(1 + 0x1p-52),
                                  0x1p-1074,
                                  -0x1p-1074,
                                  0x1p-1022,
                                  0x1p-149,
                                  0x1p-24,
                                  0x1p-11,
                                  0x1p-25,
                                  0x1p-12,
                                  3.0,
                                  0.1,
                                  -0.1,
                                  0x1p60,
                                  -0x1p60,
                                  std::numeric_limits<double>::max(),
                                  -std::numeric_limits<double>::max(),
                                  3.4028234663852886e38,
                                  65504.0,
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
    const size_t k = rng() % (std::size(pool) + 4);
    if (k < std::size(pool)) return pool[k];
    return std::ldexp(double(int64_t(rng() % 2001) - 1000), int(rng() % 12) - 6);  // plain values
}

template <class T> inline bool same_bits(T a, T b) { return to_bits(a) == to_bits(b); }
// The same bits, or both NaN: a NaN's payload may depend on the order a vectorised loop adds in
// (a NaN anywhere leaves a sum undecided, so its payload never reaches a result).
inline bool same_double(double a, double b) { return same_bits(a, b) || (std::isnan(a) && std::isnan(b)); }

// Sums whose terms are small floats: exact in float64, often on a FLOAT32 or FLOAT16 rounding
// midpoint (the case narrow_rounded must decide from FastSum's b == 0), with hard values mixed in.
inline double midpoint_value(std::mt19937_64& rng) {
    if (rng() % 5 == 0) return hard_value(rng);
    const int bits = rng() % 2 ? 24 : 11;  // FLOAT32 or FLOAT16 significands
    return std::ldexp(double(int64_t(rng() % (uint64_t(1) << bits)) - (int64_t(1) << (bits - 1))),
                      int(rng() % 6) - bits);
}

}  // namespace dmlref::test
