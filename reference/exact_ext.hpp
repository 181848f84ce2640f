// Exact values with IEEE's special values, and K D^(-1/2) + c rounded once: the exact arithmetic of
// the normalizations (BATCH_NORMALIZATION*, reference/batch_normalization.cpp; MEAN_VARIANCE_NORMALIZATION*,
// reference/mean_variance_normalization.cpp). Everything but the root is an exact rational (GMP);
// a value K r + c is exact when D is a perfect square and otherwise goes through Ziv's loop in MPFR
// (correctly_rounded.hpp). Non-finite values and D <= 0 follow IEEE's rules on the exact formula.
// Internal to dmlref.
#pragma once

#include "common.hpp"
#include "correctly_rounded.hpp"

#include <cmath>
#include <optional>

namespace dmlref::reference::exact {

// ---- Exact values with IEEE's special values -------------------------------------------------

struct Ext {
    enum Kind { Finite, NaN, PosInf, NegInf } kind = Finite;
    mpq_class q{0};
    bool finite() const { return kind == Finite; }
    int sign() const { return kind == PosInf ? 1 : kind == NegInf ? -1 : kind == NaN ? 0 : sgn(q); }
};
inline const Ext kNaN{Ext::NaN, 0};
inline Ext inf_of(int sign) { return {sign > 0 ? Ext::PosInf : Ext::NegInf, 0}; }

template <class T> Ext ext(T v) {
    if constexpr (!std::is_integral_v<T>) {
        if (is_nan(v)) return kNaN;
        const double d = widen(v);
        if (std::isinf(d)) return inf_of(d > 0 ? 1 : -1);
    }
    return {Ext::Finite, exact_value(v)};
}
inline Ext ext_float(float f) { return {Ext::Finite, mpq_class(double(f))}; }  // a finite desc value

inline Ext add(const Ext& a, const Ext& b) {
    if (a.kind == Ext::NaN || b.kind == Ext::NaN) return kNaN;
    if (!a.finite() && !b.finite()) return a.kind == b.kind ? a : kNaN;
    if (!a.finite()) return a;
    if (!b.finite()) return b;
    return {Ext::Finite, a.q + b.q};
}
inline Ext neg(const Ext& a) {
    if (a.kind == Ext::PosInf) return inf_of(-1);
    if (a.kind == Ext::NegInf) return inf_of(1);
    return a.kind == Ext::NaN ? kNaN : Ext{Ext::Finite, -a.q};
}
inline Ext sub(const Ext& a, const Ext& b) { return add(a, neg(b)); }
inline Ext mul(const Ext& a, const Ext& b) {
    if (a.kind == Ext::NaN || b.kind == Ext::NaN) return kNaN;
    if (a.finite() && b.finite()) return {Ext::Finite, a.q * b.q};
    const int s = a.sign() * b.sign();
    return s == 0 ? kNaN : inf_of(s);  // inf * 0 is NaN
}
inline Ext div(const Ext& a, const Ext& b) {
    if (a.kind == Ext::NaN || b.kind == Ext::NaN || (!a.finite() && !b.finite())) return kNaN;
    if (!b.finite()) return {};  // finite / inf = 0
    if (sgn(b.q) == 0) return a.sign() == 0 ? kNaN : inf_of(a.sign());
    if (!a.finite()) return inf_of(a.sign() * sgn(b.q));
    return {Ext::Finite, a.q / b.q};
}

// An exact value rounded once to T: NaN is the canonical NaN (0 for integers), an infinity
// saturates integers, an exact zero is +0.
template <class T> T round_ext(const Ext& v) {
    if (v.kind == Ext::NaN) {
        if constexpr (std::is_integral_v<T>) return T(0);
        else return canonical_nan<T>();
    }
    if (!v.finite()) {
        if constexpr (std::is_integral_v<T>)
            return v.sign() > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
        else
            return round_to_float<T>(v.sign() > 0 ? std::numeric_limits<double>::infinity()
                                                  : -std::numeric_limits<double>::infinity());
    }
    return round_rational<T>(v.q);
}

// ---- K r + c, rounded once ---------------------------------------------------------------------

// D = Variance + Epsilon and, when D > 0 is a perfect square, r = D^(-1/2) exactly.
struct Root {
    Ext D;
    std::optional<mpq_class> r;
};
inline Root root_of(const Ext& D) {
    Root R{D, std::nullopt};
    if (D.finite() && sgn(D.q) > 0) R.r = exact_power(D.q, -0.5);
    return R;
}

// RN(K * D^(-1/2) + c): special values by IEEE's rules on K / sqrt(D) + c, rational values
// exactly, the rest through Ziv's loop (K r is irrational there and c rational, so K r + c is
// not zero and the loop ends).
template <class T> T scaled_root(const Ext& K, const Root& R, const Ext& c) {
    const Ext& D = R.D;
    Ext q;
    if (K.kind == Ext::NaN || D.kind == Ext::NaN || D.sign() < 0) q = kNaN;  // sqrt of a negative
    else if (D.kind == Ext::PosInf) q = K.finite() ? Ext{} : kNaN;           // K / inf
    else if (D.sign() == 0) q = K.sign() == 0 ? kNaN : inf_of(K.sign());     // K / 0
    else if (!K.finite() || K.sign() == 0) q = K;                            // inf / sqrt(D), 0 / sqrt(D)
    else if (R.r) q = {Ext::Finite, K.q * *R.r};                             // a perfect square
    else {
        if (!c.finite()) return round_ext<T>(c);
        return correctly_rounded<T>([&](mpfr_ptr y, mpfr_prec_t w) -> long {
            mpfr_t s, k, b, e1, e2;
            mpfr_inits2(w, s, k, b, (mpfr_ptr) nullptr);
            mpfr_inits2(32, e1, e2, (mpfr_ptr) nullptr);
            mpfr_set_q(s, D.q.get_mpq_t(), MPFR_RNDN);
            mpfr_sqrt(s, s, MPFR_RNDN);
            mpfr_set_q(k, K.q.get_mpq_t(), MPFR_RNDN);
            mpfr_div(k, k, s, MPFR_RNDN);  // K r within 4 roundings of 2^-w (D, sqrt, K, div)
            mpfr_set_q(b, c.q.get_mpq_t(), MPFR_RNDN);
            mpfr_add(y, k, b, MPFR_RNDN);
            long bits = 0;  // an inexact zero: more precision
            if (!mpfr_zero_p(y)) {
                // |error| <= 2^-w (4 |K r| (1 + 2^-w)^4 + |c| + |y|) <= 2^(3-w) (|K r~| + |c~| + |y|).
                mpfr_abs(e1, k, MPFR_RNDU);
                mpfr_abs(e2, b, MPFR_RNDU);
                mpfr_add(e1, e1, e2, MPFR_RNDU);
                mpfr_abs(e2, y, MPFR_RNDU);
                mpfr_add(e1, e1, e2, MPFR_RNDU);
                mpfr_mul_2si(e1, e1, 3 - long(w), MPFR_RNDU);
                bits = long(mpfr_get_exp(y)) - long(mpfr_get_exp(e1));
            }
            mpfr_clears(s, k, b, e1, e2, (mpfr_ptr) nullptr);
            return bits;
        });
    }
    return round_ext<T>(add(q, c));
}

}  // namespace dmlref::reference::exact
