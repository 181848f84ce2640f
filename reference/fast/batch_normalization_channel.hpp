// Batch normalization's per-channel work without rationals (reference/fast/batch_normalization_channel.cpp): a
// statistics element's exact sums as one fixed-point integer each, and the constants the fast path
// (reference/fast/batch_normalization.cpp, steps G0, G1 and C1 to C3 of its header) derives from them by integer
// arithmetic, exactly. Internal to dmlref.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include <gmpxx.h>

namespace dmlref::reference::fast {

// 2^k exactly, for k in float64's normal range [-1022, 1023]: its bits, not a call of ldexp (the extraction's
// sigmas and the per-channel constants, reference/fast/batch_normalization.cpp and _channel.cpp).
inline double pow2(int k) { return std::bit_cast<double>(uint64_t(k + 1023) << 52); }

__extension__ typedef __int128 wide_int;  // GCC's and Clang's

// An exact sum of multiples of 2^-298 (every FLOAT32, FLOAT16 and product of two of them is one) as an integer
// z in units of 2^-298: 640 bits, two's complement. Additions are modulo 2^640, so the total is z exactly
// wherever the true total lies below 2^639 units (2^341) in magnitude, whatever its partial sums.
struct ExactTotal {
    static constexpr int kLimbs = 10;
    static constexpr int kUnit = -298;  // the weight of z's lowest bit is 2^kUnit
    std::array<uint64_t, kLimbs> limb{};

    // Adds the double d; false (nothing added) where d is not finite or not a multiple of 2^-298.
    bool add(double d);
    // Adds v 2^(shift - 298), 0 <= shift (bits past the 640th drop: modulo 2^640).
    void add(wide_int v, int shift);
    // Subtracts m times x, for a double m; false (nothing changed) where m is not finite or m x is not a
    // multiple of 2^-298.
    bool subtract_multiple(const ExactTotal& x, double m);
    bool negative() const { return (limb[kLimbs - 1] >> 63) != 0; }
    bool zero() const;
    // The value truncated to float64 (toward zero), as mpq_get_d gives it; the value must lie below 2^341.
    double truncated() const;
    // The value as a rational.
    mpq_class rational() const;
};

// RN53(z 2^(e - 298) / D) for the value z 2^-298 of n, 0 < D < 2^64, to nearest even, where the result is 0
// or normal (the caller's ranges; step C1).
double quotient_rn(const ExactTotal& n, uint64_t D, int e);

// The training grad's a~ = RN(sum dY / M) and c~ = RN(sum_c / (M D)), D = Variance + Epsilon (c~ = 0 where D is
// not finite or D <= 0), from the exact sums (step C2): false (a, c unset) where M D's integer does not fit the
// division, and the caller forms them from rationals.
bool training_grad_constants_exact(const ExactTotal& sum_dy, const ExactTotal& sum_c, uint64_t M, double variance,
                                   float epsilon, double& a, double& c);

}  // namespace dmlref::reference::fast
