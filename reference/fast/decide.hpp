// The decision step of the fast paths of computed values (docs/golden.md, Computed values): from
// a float64 approximation and a rigorous bound on its error, the output type's rounding of the
// exact value, when every real the bound allows rounds to the same bits; otherwise "undecided",
// and the caller takes its plain loop's exact path for that element. FastSum's narrow results
// (reference/fast_sum.hpp) decide through it too. Internal to dmlref.
//
// Why it is right: rounding to T (nearest, ties to even, subnormals kept, overflow to infinity:
// round_to_float) is monotone, so when both ends of an interval holding the exact value V round
// to the same bits, V does. Zero: an exact zero is +0 (sums start from +0), and a negative V
// however small rounds to -0; an end at zero counts as +0, so an interval from a negative lo to
// a zero hi is undecided (lo gives -0 or less, hi +0), and one whose ends both give +0 has
// lo >= 0, V >= 0: +0. An infinite end is a bound like any other (beyond every finite double,
// it rounds to infinity as every real beyond the output type's range does); a NaN end, or a NaN
// or infinite approximation given to decide, is undecided.
#pragma once

#include "dmlref/numeric.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace dmlref::reference {

// out = T's rounding of every real in [lo, hi], and true, when they all round to the same bits
// (floating T). False where lo > hi or either is NaN.
template <class T> inline bool rounds_to_one(double lo, double hi, T& out) {
    if (!(lo <= hi)) return false;  // NaN
    lo += 0.0;                      // -0 is +0
    hi += 0.0;
    if constexpr (is_half_v<T>) {
        // FLOAT16 through FLOAT32 first, without half_from_double's call: where lo and hi round to
        // one float f (so every real between them does), and f is no FLOAT16 rounding midpoint,
        // every real between them rounds to f's FLOAT16 (rounding twice errs only where the first
        // rounding lands on a midpoint of the second). f is no midpoint when the floats on either
        // side of it round to the same FLOAT16 as f (Eigen's inline float-to-half: nearest even).
        // Otherwise the ends are rounded directly, as for the other types.
        const float a = static_cast<float>(lo), b = static_cast<float>(hi);
        const uint32_t bits = to_bits(a);
        if (bits == to_bits(b)) {
            const T h = T(a);
            const uint32_t magnitude = bits & 0x7fffffffu;
            if (magnitude == 0 || magnitude >= 0x7f800000u ||
                (to_bits(T(from_bits<float>(bits - 1))) == to_bits(h) &&
                 to_bits(T(from_bits<float>(bits + 1))) == to_bits(h))) {
                out = h;
                return true;
            }
        }
    }
    const T a = round_to_float<T>(lo), b = round_to_float<T>(hi);
    if (to_bits(a) != to_bits(b)) return false;
    out = a;
    return true;
}

// The next double above a finite x (+inf above the largest); any bits for a NaN or an infinity,
// which rounds_to_one refuses.
inline double next_up(double x) {
    if (x == 0) return std::numeric_limits<double>::denorm_min();
    const uint64_t b = to_bits(x);
    return from_bits<double>(x > 0 ? b + 1 : b - 1);
}
inline double next_down(double x) { return -next_up(-x); }

// v approximates the exact value V with |v - V| <= e, e a rigorous bound (>= 0): T's rounding of
// V, and true, when every real in [v - e, v + e] rounds to it. v - e and v + e are rounded to
// float64 and moved one float64 outward (a rounding to nearest moves a value by at most half a
// spacing, so the interval still holds V); e == 0 says v is V itself. A NaN or infinite v or e
// is undecided.
template <class T> inline bool decide(double v, double e, T& out) {
    if (!std::isfinite(v) || !std::isfinite(e)) return false;
    if (e == 0) return rounds_to_one(v, v, out);
    return rounds_to_one(next_down(v - e), next_up(v + e), out);
}

// decide for n values side by side: res[k] = T's rounding of V_k and undecided[k] = 0 where
// every real within e[k] of v[k] rounds to it, undecided[k] = 1 otherwise (res[k] is then
// garbage). For FLOAT32 one branch-free, vectorised loop: instead of moving v - e and v + e one
// float64 outward it widens e to w = (e + 2^-52 |v|)(1 + 2^-50) + 2^-1072, computed in float64,
// which covers the roundings of w itself and of v - w and v + w (each off by at most
// 2^-53 |v - w| plus 2^-1075 below the normal range): fl(v - w) <= v - e and fl(v + w) >= v + e.
// A decided value is the correct rounding either way, so the bits are decide's.
template <class T> inline void decide_all(const double* v, const double* e, T* res, uint8_t* undecided, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
        constexpr double kMax = std::numeric_limits<double>::max();
        for (int64_t k = 0; k < n; ++k) {
            const double w = e[k] == 0 ? 0.0 : (e[k] + std::fabs(v[k]) * 0x1p-52) * (1 + 0x1p-50) + 0x1p-1072;
            const double lo = v[k] - w + 0.0, hi = v[k] + w + 0.0;  // + 0.0: -0 is +0
            const float a = static_cast<float>(lo), b = static_cast<float>(hi);
            undecided[k] = uint8_t(!(lo <= hi) | !(std::fabs(lo) <= kMax) | !(std::fabs(hi) <= kMax) |
                                   (to_bits(a) != to_bits(b)));
            res[k] = a;
        }
    } else {
        for (int64_t k = 0; k < n; ++k) undecided[k] = uint8_t(!decide(v[k], e[k], res[k]));
    }
}

}  // namespace dmlref::reference
