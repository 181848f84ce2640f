// The tests' one rounding of an exact or high-precision value to an element type, done by MPFR
// (nearest, ties to even; the format's exponent range and subnormals), for the independent
// evaluations the goldens are checked against. The sign of a zero and NaN's bits are the caller's.
#pragma once

#include "dmlref/numeric.hpp"

#include <gmpxx.h>
#include <mpfr.h>

#include <cmath>
#include <limits>
#include <type_traits>

namespace dmlref::test {

// `set(x)` stores the value into x (of T's precision) with MPFR_RNDN and returns the ternary
// value; the result is x rounded into T's range, as a double (exact for every T).
template <class T, class Set> double mpfr_rounded(Set&& set) {
    int p, emin, emax;
    if constexpr (is_half_v<T>) {
        p = 11;
        emin = -23;
        emax = 16;
    } else if constexpr (std::is_same_v<T, float>) {
        p = 24;
        emin = -148;
        emax = 128;
    } else {
        p = 53;
        emin = -1073;
        emax = 1024;
    }
    const auto old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_t x;
    mpfr_init2(x, p);
    int t = set(x);
    t = mpfr_check_range(x, t, MPFR_RNDN);
    mpfr_subnormalize(x, t, MPFR_RNDN);
    const double d = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return d;
}
template <class T> double mpfr_rounded(mpfr_srcptr v) {
    return mpfr_rounded<T>([&](mpfr_ptr x) { return mpfr_set(x, v, MPFR_RNDN); });
}
template <class T> double mpfr_rounded(const mpq_class& q) {
    return mpfr_rounded<T>([&](mpfr_ptr x) { return mpfr_set_q(x, q.get_mpq_t(), MPFR_RNDN); });
}

// An integer type: nearest with ties to even, saturated to T's range; NaN gives 0.
template <class T> T mpfr_rounded_integer(mpfr_srcptr v) {
    if (mpfr_nan_p(v)) return T(0);
    mpfr_t r;
    mpfr_init2(r, mpfr_get_prec(v));
    mpfr_rint(r, v, MPFR_RNDN);  // ties to even
    T out;
    if (mpfr_cmp_d(r, double(std::numeric_limits<T>::min())) <= 0) out = std::numeric_limits<T>::min();
    else if (mpfr_cmp_d(r, std::ldexp(1.0, int(sizeof(T) * 8 - std::is_signed_v<T>))) >= 0)
        out = std::numeric_limits<T>::max();
    else out = std::is_signed_v<T> ? T(mpfr_get_si(r, MPFR_RNDN)) : T(mpfr_get_ui(r, MPFR_RNDN));
    mpfr_clear(r);
    return out;
}

}  // namespace dmlref::test
