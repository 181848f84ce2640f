// Exact rationals (GMP) for the operators whose golden is "the exact real value of the formula,
// rounded once" (docs/golden.md, Computed values): the exact value of an element, an exact sum that tracks
// IEEE non-finite terms, and the one rounding to an element type. No floating-point arithmetic
// touches a value on this path. Internal to dmlref.
#pragma once

#include "dmlref/numeric.hpp"
#include "dmlref/types.hpp"

#include <gmpxx.h>

#include <limits>
#include <type_traits>

namespace dmlref::reference {

// A 128-bit integer as a GMP integer (GMP's constructors stop at long).
inline mpz_class to_mpz(uint128_t u) {
    mpz_class r(static_cast<unsigned long>(uint64_t(u >> 64)));
    r <<= 64;
    r += static_cast<unsigned long>(uint64_t(u));
    return r;
}
inline mpz_class to_mpz(int128_t v) {
    const mpz_class r = to_mpz(v < 0 ? uint128_t(0) - uint128_t(v) : uint128_t(v));
    return v < 0 ? mpz_class(-r) : r;
}

// 2^-2000: a value that far below every type's smallest subnormal rounds as 0 does, with its sign.
inline const mpq_class kTiny(mpz_class(1), mpz_class(1) << 2000);

// The exact value of a finite element: floats are dyadic rationals (mpq_set_d is exact),
// integers are themselves. NaN and infinities have no rational value (callers test first).
template <class T> mpq_class exact_value(T x) {
    if constexpr (std::is_integral_v<T>) {
        static_assert(sizeof(long) == 8, "64-bit long expected (LP64)");
        if constexpr (std::is_signed_v<T>) return mpq_class(mpz_class(static_cast<long>(x)));
        else return mpq_class(mpz_class(static_cast<unsigned long>(x)));
    } else {
        return mpq_class(widen(x));
    }
}

// A binary floating format: p significand bits, the smallest subnormal 2^min_exponent, the
// largest finite value (2^p - 1) * 2^(max_exponent - p + 1).
struct FloatFormat {
    int precision;
    long min_exponent;  // exponent of the smallest subnormal: -24, -149, -1074
    long max_exponent;  // exponent of the largest binade: 15, 127, 1023
};
template <class T> constexpr FloatFormat float_format() {
    if constexpr (is_half_v<T>) return {11, -24, 15};
    else if constexpr (std::is_same_v<T, float>) return {24, -149, 127};
    else return {53, -1074, 1023};
}

// v rounded once to the format, to nearest with ties to even (subnormals kept, overflow to
// infinity), returned as the double holding that value exactly. Zero gives +0.
double round_rational_to_format(const mpq_class& v, const FloatFormat& f);
// v rounded to the nearest integer, ties to even.
mpz_class round_rational_to_integer(const mpq_class& v);

// v rounded once to T: floats as above; integers half to even, then saturated to T's range.
template <class T> T round_rational(const mpq_class& v) {
    if constexpr (std::is_integral_v<T>) {
        const mpz_class r = round_rational_to_integer(v);
        if constexpr (std::is_signed_v<T>) {
            if (r < mpz_class(static_cast<long>(std::numeric_limits<T>::min()))) return std::numeric_limits<T>::min();
            if (r > mpz_class(static_cast<long>(std::numeric_limits<T>::max()))) return std::numeric_limits<T>::max();
            return static_cast<T>(r.get_si());
        } else {
            if (sgn(r) < 0) return T(0);
            if (r > mpz_class(static_cast<unsigned long>(std::numeric_limits<T>::max())))
                return std::numeric_limits<T>::max();
            return static_cast<T>(r.get_ui());
        }
    } else {
        return round_to_float<T>(round_rational_to_format(v, float_format<T>()));  // exact: already representable
    }
}

// An exact sum of rational terms with IEEE's non-finite rules (docs/golden.md, Decisions): a NaN
// term, or +inf with -inf, makes the canonical NaN; otherwise an infinite term makes that
// infinity. The sum starts from +0, so an exact zero is +0.
class ExactRationalSum {
public:
    void add(const mpq_class& q) {
        sum_ += q;
        ++terms_;
    }
    void add_nan() {
        nan_ = true;
        ++terms_;
    }
    void add_infinity(bool negative) {
        (negative ? neg_inf_ : pos_inf_) = true;
        ++terms_;
    }
    // One term x / divisor, formed once and added to several sums (a gradient spread over taps).
    struct Term {
        enum Kind { Finite, NaN, PositiveInfinity, NegativeInfinity } kind = Finite;
        mpq_class value;
    };
    template <class T> static Term term(T x, const mpz_class& divisor) {
        if constexpr (!std::is_integral_v<T>) {
            if (is_nan(x)) return {Term::NaN, {}};
            const double d = widen(x);
            if (d == std::numeric_limits<double>::infinity()) return {Term::PositiveInfinity, {}};
            if (d == -std::numeric_limits<double>::infinity()) return {Term::NegativeInfinity, {}};
        }
        Term t{Term::Finite, exact_value(x)};
        if (divisor != 1) t.value /= mpq_class(divisor);  // divisor > 0
        return t;
    }
    void add(const Term& t) {
        switch (t.kind) {
            case Term::Finite: add(t.value); break;
            case Term::NaN: add_nan(); break;
            case Term::PositiveInfinity: add_infinity(false); break;
            case Term::NegativeInfinity: add_infinity(true); break;
        }
    }
    template <class T> void add_quotient(T x, const mpz_class& divisor) { add(term(x, divisor)); }

    uint64_t terms() const { return terms_; }
    const mpq_class& value() const { return sum_; }

    // The sum divided by `divisor` (> 0), rounded once to T. Integer sums have no non-finite terms.
    template <class T> T result(const mpz_class& divisor = mpz_class(1)) const {
        if constexpr (!std::is_integral_v<T>) {
            if (nan_ || (pos_inf_ && neg_inf_)) return canonical_nan<T>();
            if (pos_inf_) return round_to_float<T>(std::numeric_limits<double>::infinity());
            if (neg_inf_) return round_to_float<T>(-std::numeric_limits<double>::infinity());
        }
        if (divisor == 1) return round_rational<T>(sum_);
        return round_rational<T>(mpq_class(sum_ / mpq_class(divisor)));
    }

private:
    mpq_class sum_{0};
    uint64_t terms_ = 0;
    bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
};

}  // namespace dmlref::reference
