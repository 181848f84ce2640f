// Ziv's strategy for values that are not rational (docs/golden.md, Computed values): evaluate the formula in
// MPFR at rising precision until every real number within the evaluation's error bound rounds
// to the same element of the output type; exact evaluations are rounded at once. Internal.
#pragma once

#include "exact_rational.hpp"

#include <mpfr.h>

#include <climits>
#include <functional>
#include <optional>

namespace dmlref::reference {

// One evaluation of a formula at working precision `precision` (bits). It writes an
// approximation into `result` (already initialised to `precision` bits) and returns
//   kExact  when `result` is the exact value (every MPFR operation returned ternary 0, or the
//           formula's exactness test said so: a perfect square, a perfect power...), or
//   b       the number of correct bits: |result - exact| < 2^(EXP(result) - b), where
//           EXP(result) is MPFR's exponent (|result| in [2^(EXP-1), 2^EXP)).
// A result that is NaN or an infinity is taken as exact. A zero result must be exact (a zero
// has no relative error bound); an inexact zero just raises the precision.
inline constexpr long kExact = LONG_MAX;
using Evaluation = std::function<long(mpfr_ptr result, mpfr_prec_t precision)>;

struct ZivOptions {
    mpfr_prec_t first_precision = 64;
    mpfr_prec_t max_precision = 1 << 16;  // then std::runtime_error: undecided (an undetected exact case)
};

// The evaluation's value rounded once to T, and the precision that decided it.
struct ZivResult {
    mpq_class lower, upper;  // the exact value lies in [lower, upper] (equal when exact)
    bool exact = false;
    bool nan = false;
    int infinity = 0;            // +1 or -1 for an infinite result
    bool negative_zero = false;  // an exact -0 (MPFR keeps the sign of zero as IEEE does)
    mpfr_prec_t precision = 0;   // the working precision that decided the rounding
    int evaluations = 0;
};

// Rounds an interval (or exact value) to T; `decided` is whether both ends give the same bits.
template <class T> T round_interval(const ZivResult& r, bool& decided) {
    if (r.nan) {
        decided = true;
        if constexpr (std::is_integral_v<T>) return T(0);
        else return canonical_nan<T>();
    }
    if (r.infinity != 0) {
        decided = true;
        if constexpr (std::is_integral_v<T>)
            return r.infinity > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
        else
            return round_to_float<T>(r.infinity > 0 ? std::numeric_limits<double>::infinity()
                                                    : -std::numeric_limits<double>::infinity());
    }
    if constexpr (!std::is_integral_v<T>) {
        if (r.negative_zero) {
            decided = true;
            return round_to_float<T>(-0.0);
        }
    }
    const T lo = round_rational<T>(r.lower);
    const T hi = round_rational<T>(r.upper);
    decided = to_bits(lo) == to_bits(hi);
    return lo;
}

// b^e exactly, when it is rational: b > 0 rational, e a finite double m * 2^-k (odd m), and b's
// numerator and denominator perfect 2^k-th powers (the exactness test of a power with a dyadic
// exponent: 16^-0.75 = 1/8, (1/9)^-0.5 = 3). nullopt otherwise, or when the result would pass
// `max_bits` bits (a huge integer power is left to MPFR).
// MPFR keeps constant caches and an mpz pool per thread: a thread that calls MPFR (`run -j` and
// `gen -j` workers) calls this once, and frees them when it ends, so nothing is left behind for
// LeakSanitizer. ziv_evaluate does; code that calls MPFR directly must too.
void release_mpfr_caches_at_thread_exit();

std::optional<mpq_class> exact_power(const mpq_class& b, double e, unsigned long max_bits = 1 << 16);

// Evaluates at rising precision (doubling) until round_interval decides T's value.
ZivResult ziv_evaluate(const Evaluation& f, const std::function<bool(const ZivResult&)>& decided,
                       const ZivOptions& options = {});

template <class T> T correctly_rounded(const Evaluation& f, const ZivOptions& options = {}, ZivResult* info = nullptr) {
    ZivResult r = ziv_evaluate(
        f,
        [](const ZivResult& z) {
        bool d = false;
        round_interval<T>(z, d);
        return d;
        },
        options);
    bool d = false;
    const T v = round_interval<T>(r, d);
    if (info) *info = std::move(r);
    return v;
}

}  // namespace dmlref::reference
