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
// lo >= 0, V >= 0: +0. Both ends must be finite: an interval with an infinite or NaN end (an
// overflowed or NaN approximation) is undecided.
#pragma once

#include "dmlref/numeric.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace dmlref::reference {

// out = T's rounding of every real in [lo, hi], and true, when they all round to the same bits
// (floating T). lo <= hi, both finite; otherwise false.
template <class T> inline bool rounds_to_one(double lo, double hi, T& out) {
    constexpr double kMax = std::numeric_limits<double>::max();
    if (!(lo <= hi) || !(std::fabs(lo) <= kMax) || !(std::fabs(hi) <= kMax)) return false;
    const T a = round_to_float<T>(lo + 0.0), b = round_to_float<T>(hi + 0.0);  // + 0.0: -0 is +0
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
    if (e == 0) return rounds_to_one(v, v, out);
    return rounds_to_one(next_down(v - e), next_up(v + e), out);
}

}  // namespace dmlref::reference
