// An exact product of float elements, rounded once (docs/golden.md, Reduction: ProductSign): the
// product of the finite factors is an integer times a power of two, kept exactly; zeros,
// infinities and NaN follow IEEE multiplication (the sign of a zero or an infinity is the
// exclusive or of the signs, 0 times an infinity is NaN). Used by REDUCE's MULTIPLY and
// CUMULATIVE_PRODUCT, whose prefixes read the running product after each factor. Internal.
#pragma once

#include "exact_rational.hpp"

#include <cmath>
#include <limits>

namespace dmlref::reference {

class ExactProduct {
public:
    template <class T> void multiply(T v) {
        if (is_nan(v)) {
            nan_ = true;
            return;
        }
        const double d = widen(v);
        negative_ = negative_ != std::signbit(d);
        if (std::isinf(d)) {
            inf_ = true;
            return;
        }
        if (d == 0) {
            zero_ = true;
            return;
        }
        if (zero_) return;  // the value is 0 (or NaN with an infinity) from now on
        int e = 0;
        const double frac = std::frexp(std::fabs(d), &e);                   // |d| = frac * 2^e, frac in [0.5, 1)
        m_ *= mpz_class(static_cast<unsigned long>(std::ldexp(frac, 53)));  // exact: 53 bits
        exponent_ += e - 53;
        // Keep the integer odd: its trailing zero bits go into the exponent.
        const mp_bitcnt_t tz = mpz_scan1(m_.get_mpz_t(), 0);
        if (tz > 0) {
            mpz_tdiv_q_2exp(m_.get_mpz_t(), m_.get_mpz_t(), tz);
            exponent_ += long(tz);
        }
    }

    // The product so far rounded once to T (the empty product is 1).
    template <class T> T result() const {
        const double sign = negative_ ? -1.0 : 1.0;
        if (nan_ || (inf_ && zero_)) return canonical_nan<T>();
        if (inf_) return round_to_float<T>(sign * std::numeric_limits<double>::infinity());
        if (zero_) return round_to_float<T>(sign * 0.0);
        const FloatFormat fmt = float_format<T>();
        // |product| = m * 2^exponent in [2^(top - 1), 2^top): far outside the format, an infinity or a zero.
        const long top = long(mpz_sizeinbase(m_.get_mpz_t(), 2)) + exponent_;
        if (top > fmt.max_exponent + 2) return round_to_float<T>(sign * std::numeric_limits<double>::infinity());
        if (top < fmt.min_exponent - 2) return round_to_float<T>(sign * 0.0);
        mpq_class q(m_);
        if (exponent_ >= 0) mpq_mul_2exp(q.get_mpq_t(), q.get_mpq_t(), mp_bitcnt_t(exponent_));
        else mpq_div_2exp(q.get_mpq_t(), q.get_mpq_t(), mp_bitcnt_t(-exponent_));
        return round_to_float<T>(sign * round_rational_to_format(q, fmt));  // an underflow to +0 takes the sign
    }

private:
    mpz_class m_ = 1;
    long exponent_ = 0;
    bool negative_ = false, zero_ = false, inf_ = false, nan_ = false;
};

}  // namespace dmlref::reference
