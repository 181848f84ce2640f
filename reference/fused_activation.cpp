// The fused activations of batch normalization, one function per DirectML activation page, each
// returning the exact real value of the page's formula before its one rounding.
//
// Spec: the DML_ACTIVATION_*_OPERATOR_DESC pages (formulas below, parameter names as the structs);
// docs/golden.md, BnFusedActivation and the BnActivation* rows:
//   - the activation is applied to the rounded normalized value y and rounded once more
//     (RoundThenActivateAsSeparateOperator); rational formulas exactly (GMP), the others through
//     Ziv's loop in MPFR (correctly_rounded.hpp), written without cancellation (expm1, log1p,
//     erfc) so that each evaluation's relative error is a small multiple of 2^-precision;
//   - NaN gives the canonical NaN (RELU: +0, its own policy); +-infinity gives the activation's
//     limit (BnActivationInfinity); an exact zero is +0, except where the formula selects y
//     itself (LEAKY_RELU, ELU, THRESHOLDED_RELU, IDENTITY): y's bits, so -0 stays -0
//     (BnActivationSignedZero);
//   - |x| beyond 2^10 (exp's argument beyond 1024), where the value is within 2^-1400 relative of
//     its limit, is rounded as that limit nudged by 2^-2000 toward the value: every element type
//     rounds both alike (a rounding boundary at the limit sends both the same way; any other is
//     farther than 2^-110 relative). Below it Ziv's loop decides even next to a tie within 4000 bits.
#include "fused_activation.hpp"

#include "common.hpp"
#include "correctly_rounded.hpp"
#include "dmlref/readings.hpp"

#include <cmath>

namespace dmlref::reference {

namespace {

// The activation's input: a finite rational, or one of IEEE's special values.
struct In {
    enum Kind { Finite, NaN, PosInf, NegInf } kind = Finite;
    mpq_class q{0};
    int sign() const { return kind == PosInf ? 1 : kind == NegInf ? -1 : kind == NaN ? 0 : sgn(q); }
};

// What an activation returns before its one rounding. Selected: the formula returns its input y
// itself (LEAKY_RELU's and ELU's y >= 0, THRESHOLDED_RELU's y > Alpha), y's bits, so a -0 stays -0
// (docs/golden.md, BnActivationSignedZero).
struct Out {
    enum Kind { Exact, NaN, PosInf, NegInf, Computed, Selected } kind = Exact;
    mpq_class q{0};  // Exact
    Evaluation f;    // Computed: an MPFR evaluation of a value that is not rational
};
Out exact(const mpq_class& q) { return {Out::Exact, q, {}}; }
Out nan_value() { return {Out::NaN, 0, {}}; }
Out infinity(int sign) { return {sign > 0 ? Out::PosInf : Out::NegInf, 0, {}}; }
Out selected() { return {Out::Selected, 0, {}}; }

mpq_class q_of(float f) { return mpq_class(double(f)); }  // a desc FLOAT, exactly
const mpq_class kLarge(1024);

// c (1 - tiny): a value within 2^-2000 relative below |c| in magnitude, rounded as c nudged toward 0.
Out just_inside(const mpq_class& c) { return exact(c - c * kTiny); }

// An MPFR evaluation whose relative error is at most K 2^-w at working precision w (K from the
// formula's condition numbers; two bits of margin for the second-order terms). A zero result is
// inexact here (the formulas are non-zero): more precision.
using Formula = std::function<void(mpfr_ptr y, mpfr_prec_t w)>;
Out computed(Formula f, double K) {
    const long lost = long(std::ceil(std::log2(std::max(K, 1.0)))) + 2;
    return {Out::Computed, 0, [f = std::move(f), lost](mpfr_ptr y, mpfr_prec_t w) -> long {
                f(y, w);
                return mpfr_zero_p(y) ? 0 : long(w) - lost;
            }};
}

// An MPFR number for the evaluations.
struct M {
    mpfr_t v;
    explicit M(mpfr_prec_t w) { mpfr_init2(v, w); }
    M(mpfr_prec_t w, const mpq_class& q) : M(w) { mpfr_set_q(v, q.get_mpq_t(), MPFR_RNDN); }
    ~M() { mpfr_clear(v); }
    M(const M&) = delete;
    M& operator=(const M&) = delete;
};

double mag(const mpq_class& q) { return std::fabs(q.get_d()); }

// ---- One function per activation (x: the rounded normalized value) -----------------------------

// LINEAR: f(x) = Alpha * x + Beta (IEEE's rules on infinities: 0 * inf is NaN).
Out linear(const In& x, const mpq_class& alpha, const mpq_class& beta) {
    if (x.kind == In::NaN) return nan_value();
    if (x.kind != In::Finite) return sgn(alpha) == 0 ? nan_value() : infinity(x.sign() * sgn(alpha));
    return exact(alpha * x.q + beta);
}

// SIGMOID: f(x) = 1 / (1 + exp(-x)).
Out sigmoid(const In& x) {
    if (x.kind == In::PosInf) return exact(1);
    if (x.kind == In::NegInf) return exact(0);
    if (sgn(x.q) == 0) return exact(mpq_class(1, 2));
    if (x.q > kLarge) return just_inside(1);
    if (x.q < -kLarge) return exact(kTiny);
    // exp's argument carries |x| 2^-w, exp and 1 + e and the division 2^-w each.
    return computed(
        [q = x.q](mpfr_ptr y, mpfr_prec_t w) {
        M e(w, q);
        mpfr_neg(e.v, e.v, MPFR_RNDN);
        mpfr_exp(e.v, e.v, MPFR_RNDN);
        mpfr_add_ui(e.v, e.v, 1, MPFR_RNDN);
        mpfr_ui_div(y, 1, e.v, MPFR_RNDN);
        },
        mag(x.q) + 4);
}

// HARD_SIGMOID: f(x) = max(0, min(Alpha * x + Beta, 1)).
Out hard_sigmoid(const In& x, const mpq_class& alpha, const mpq_class& beta) {
    mpq_class v;
    if (x.kind == In::Finite) v = alpha * x.q + beta;
    else if (sgn(alpha) == 0) v = beta;  // the limit of a constant function
    else v = x.sign() * sgn(alpha) > 0 ? 1 : 0;
    if (v > 1) v = 1;
    if (v < 0) v = 0;
    return exact(v);
}

// TANH: f(x) = tanh(x) (its condition number x tanh'(x) / tanh(x) is at most 1).
Out tanh_of(const mpq_class& z) {
    if (sgn(z) == 0) return exact(0);
    if (z > kLarge) return just_inside(1);
    if (z < -kLarge) return just_inside(-1);
    return computed(
        [z](mpfr_ptr y, mpfr_prec_t w) {
        M a(w, z);
        mpfr_tanh(y, a.v, MPFR_RNDN);
        },
        3);
}
Out tanh_activation(const In& x) {
    if (x.kind != In::Finite) return exact(x.sign());
    return tanh_of(x.q);
}

// SCALED_TANH: f(x) = Alpha * tanh(Beta * x).
Out scaled_tanh(const In& x, const mpq_class& alpha, const mpq_class& beta) {
    if (x.kind != In::Finite) return exact(sgn(beta) == 0 ? mpq_class(0) : mpq_class(alpha * (x.sign() * sgn(beta))));
    const mpq_class z = beta * x.q;
    if (sgn(alpha) == 0 || sgn(z) == 0) return exact(0);
    if (z > kLarge) return just_inside(alpha);
    if (z < -kLarge) return just_inside(-alpha);
    return computed(
        [z, alpha](mpfr_ptr y, mpfr_prec_t w) {
        M a(w, z), c(w, alpha);  // Alpha is exact (a float32)
        mpfr_tanh(a.v, a.v, MPFR_RNDN);
        mpfr_mul(y, a.v, c.v, MPFR_RNDN);
        },
        4);
}

// RELU: f(x) = max(0, x): NaN and -0 give +0 (docs/golden.md, ForwardNaN).
Out relu(const In& x) {
    if (x.kind == In::PosInf) return infinity(1);
    if (x.kind == In::Finite && sgn(x.q) > 0) return exact(x.q);
    return exact(0);
}

// LEAKY_RELU: f(x) = x if x >= 0, Alpha * x otherwise (IEEE's rules: 0 * -inf is NaN). -0 >= 0:
// a -0 is selected and stays -0.
Out leaky_relu(const In& x, const mpq_class& alpha) {
    if (x.kind == In::NaN) return nan_value();
    if (x.sign() >= 0) return selected();
    if (x.kind == In::NegInf) return sgn(alpha) == 0 ? nan_value() : infinity(-sgn(alpha));
    return exact(alpha * x.q);
}

// THRESHOLDED_RELU: f(x) = x if x > Alpha (x itself: a -0 stays -0 when Alpha < 0), 0 otherwise.
Out thresholded_relu(const In& x, const mpq_class& alpha) {
    if (x.kind == In::PosInf) return selected();
    if (x.kind == In::NegInf) return exact(0);
    return x.q > alpha ? selected() : exact(0);
}

// c * expm1(z) for z < 0 or small z > 0 (c exact): expm1's condition number is at most
// max(1, |z| + 1); the argument and c's product carry 2^-w each.
Out scaled_expm1(const mpq_class& c, const mpq_class& z) {
    return computed(
        [c, z](mpfr_ptr y, mpfr_prec_t w) {
        M a(w, z), k(w, c);  // c: a float32 or a product of two (exact at w >= 64)
        mpfr_expm1(a.v, a.v, MPFR_RNDN);
        mpfr_mul(y, a.v, k.v, MPFR_RNDN);
        },
        mag(z) + 4);
}

// ELU: f(x) = x if x >= 0 (x itself: a -0 stays -0), Alpha * (exp(x) - 1) otherwise.
Out elu(const In& x, const mpq_class& alpha) {
    if (x.kind == In::PosInf) return selected();
    if (x.kind == In::NegInf) return exact(-alpha);
    if (sgn(x.q) >= 0) return selected();
    if (sgn(alpha) == 0) return exact(0);
    if (x.q < -kLarge) return just_inside(-alpha);
    return scaled_expm1(alpha, x.q);
}

// CELU: f(x) = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)). Alpha (exp(x / Alpha) - 1) has
// x's sign whatever Alpha's, so f is x for x >= 0 and Alpha * expm1(x / Alpha) below. Alpha != 0
// (validated: the formula divides by it).
Out celu(const In& x, const mpq_class& alpha) {
    if (sgn(alpha) == 0) return nan_value();
    if (x.kind == In::PosInf) return infinity(1);
    if (x.kind == In::NegInf) return sgn(alpha) > 0 ? exact(-alpha) : infinity(-1);
    if (sgn(x.q) >= 0) return exact(x.q);
    const mpq_class z = x.q / alpha;
    if (z < -kLarge) return just_inside(-alpha);
    if (z > kLarge) return infinity(-1);  // |Alpha| e^z > 2^-149 2^1477: beyond every type (Alpha < 0)
    return scaled_expm1(alpha, z);
}

// SCALED_ELU: f(x) = Gamma * x if x > 0, Gamma * (Alpha * exp(x) - Alpha) otherwise.
Out scaled_elu(const In& x, const mpq_class& alpha, const mpq_class& gamma) {
    const mpq_class c = gamma * alpha;
    if (x.kind == In::PosInf) return sgn(gamma) == 0 ? exact(0) : infinity(sgn(gamma));
    if (x.kind == In::NegInf) return exact(-c);
    if (sgn(x.q) > 0) return exact(gamma * x.q);
    if (sgn(c) == 0 || sgn(x.q) == 0) return exact(0);
    if (x.q < -kLarge) return just_inside(-c);
    return scaled_expm1(c, x.q);
}

// c * ln(1 + exp(z)) / s, finite z within [-2^10, 2^10]: exp's argument carries |z| 2^-w;
// log1p's condition number is at most 1 on a positive argument.
Out scaled_softplus(const mpq_class& c, const mpq_class& z, const mpq_class& s) {
    return computed(
        [c, z, s](mpfr_ptr y, mpfr_prec_t w) {
        M a(w, z), k(w, c), d(w, s);
        mpfr_exp(a.v, a.v, MPFR_RNDN);
        mpfr_log1p(a.v, a.v, MPFR_RNDN);
        mpfr_mul(a.v, a.v, k.v, MPFR_RNDN);
        mpfr_div(y, a.v, d.v, MPFR_RNDN);
        },
        mag(z) + 6);
}

// SOFTPLUS: f(x) = ln(1 + exp(Steepness * x)) / Steepness (Steepness >= 1, validated).
Out softplus(const In& x, const mpq_class& steepness) {
    if (x.kind == In::PosInf) return infinity(1);
    if (x.kind == In::NegInf) return exact(0);
    const mpq_class z = steepness * x.q;
    if (z > kLarge) return exact(x.q + kTiny);  // x + ln(1 + e^-z) / Steepness
    if (z < -kLarge) return exact(kTiny);
    return scaled_softplus(1, z, steepness);
}

// PARAMETRIC_SOFTPLUS: f(x) = Alpha * ln(1 + exp(Beta * x)).
Out parametric_softplus(const In& x, const mpq_class& alpha, const mpq_class& beta) {
    if (sgn(alpha) == 0) return exact(0);
    mpq_class z;
    if (x.kind != In::Finite) {
        if (sgn(beta) == 0) return scaled_softplus(alpha, 0, 1);  // the constant Alpha ln 2
        if (x.sign() * sgn(beta) < 0) return exact(0);
        return infinity(sgn(alpha));
    }
    z = beta * x.q;
    if (z > kLarge) return exact(alpha * z + sgn(alpha) * kTiny);
    if (z < -kLarge) return exact(sgn(alpha) * kTiny);
    return scaled_softplus(alpha, z, 1);
}

// SOFTSIGN: f(x) = x / (1 + |x|).
Out softsign(const In& x) {
    if (x.kind != In::Finite) return exact(x.sign());
    return exact(x.q / (1 + abs(x.q)));
}

// SHRINK: f(x) = x - Bias if x > Threshold, x + Bias if x < -Threshold, 0 otherwise (the first
// line that holds, in the page's order, when Threshold < 0).
Out shrink(const In& x, const mpq_class& bias, const mpq_class& threshold) {
    if (x.kind != In::Finite) return infinity(x.sign());
    if (x.q > threshold) return exact(x.q - bias);
    if (x.q < -threshold) return exact(x.q + bias);
    return exact(0);
}

// GELU: f(x) = 0.5 * x * (1 + erf(x / sqrt(2))), evaluated as x erfc(-x / sqrt(2)) / 2. With
// z = -x / sqrt(2) (3 roundings), erfc's condition number is below 1 for z < 0 and below 3 z^2 + 1
// for z > 0 (erfc(z) > 2 e^(-z^2) / (sqrt(pi) (z + sqrt(z^2 + 2)))).
Out gelu(const In& x) {
    if (x.kind == In::PosInf) return infinity(1);
    if (x.kind == In::NegInf) return exact(0);
    if (sgn(x.q) == 0) return exact(0);
    if (x.q > kLarge) return just_inside(x.q);
    if (x.q < -kLarge) return exact(-kTiny);  // -|x| erfc(|x| / sqrt(2)) / 2 > -2^-700000
    const double z2 = x.q.get_d() * x.q.get_d() / 2;
    return computed(
        [q = x.q](mpfr_ptr y, mpfr_prec_t w) {
        M a(w, q), s(w);
        mpfr_sqrt_ui(s.v, 2, MPFR_RNDN);
        mpfr_div(s.v, a.v, s.v, MPFR_RNDN);
        mpfr_neg(s.v, s.v, MPFR_RNDN);
        mpfr_erfc(s.v, s.v, MPFR_RNDN);
        mpfr_mul(y, s.v, a.v, MPFR_RNDN);
        mpfr_div_2ui(y, y, 1, MPFR_RNDN);
        },
        3 * (3 * z2 + 1) + 4);
}

Out activation_value(const DML_FUSED_ACTIVATION& a, const In& x) {
    const std::string_view n = a.name();
    const mpq_class p0 = q_of(a.Parameters[0]), p1 = q_of(a.Parameters[1]);
    if (n == "ACTIVATION_LINEAR") return linear(x, p0, p1);
    if (n == "ACTIVATION_SIGMOID") return x.kind == In::NaN ? nan_value() : sigmoid(x);
    if (n == "ACTIVATION_HARD_SIGMOID") return x.kind == In::NaN ? nan_value() : hard_sigmoid(x, p0, p1);
    if (n == "ACTIVATION_TANH") return x.kind == In::NaN ? nan_value() : tanh_activation(x);
    if (n == "ACTIVATION_SCALED_TANH") return x.kind == In::NaN ? nan_value() : scaled_tanh(x, p0, p1);
    if (n == "ACTIVATION_RELU") return relu(x);
    if (n == "ACTIVATION_LEAKY_RELU") return leaky_relu(x, p0);
    if (x.kind == In::NaN) return nan_value();  // every activation below (docs/golden.md, BnActivationNaN)
    if (n == "ACTIVATION_THRESHOLDED_RELU") return thresholded_relu(x, p0);
    if (n == "ACTIVATION_ELU") return elu(x, p0);
    if (n == "ACTIVATION_CELU") return celu(x, p0);
    if (n == "ACTIVATION_SCALED_ELU") return scaled_elu(x, p0, p1);
    if (n == "ACTIVATION_SOFTPLUS") return softplus(x, p0);
    if (n == "ACTIVATION_PARAMETRIC_SOFTPLUS") return parametric_softplus(x, p0, p1);
    if (n == "ACTIVATION_SOFTSIGN") return softsign(x);
    if (n == "ACTIVATION_SHRINK") return shrink(x, p0, p1);
    if (n == "ACTIVATION_GELU") return gelu(x);
    return x.kind == In::Finite ? exact(x.q) : x.kind == In::PosInf ? infinity(1) : infinity(-1);  // IDENTITY
}

template <class T> In input(T y) {
    if constexpr (!std::is_integral_v<T>) {
        if (is_nan(y)) return {In::NaN, 0};
        const double d = widen(y);
        if (std::isinf(d)) return {d > 0 ? In::PosInf : In::NegInf, 0};
    }
    return {In::Finite, exact_value(y)};
}

template <class T> T rounded(const Out& v) {
    switch (v.kind) {
        case Out::Exact: return round_rational<T>(v.q);
        case Out::Computed: return correctly_rounded<T>(v.f);
        case Out::NaN:
            if constexpr (std::is_integral_v<T>) return T(0);
            else return canonical_nan<T>();
        default: break;
    }
    const int s = v.kind == Out::PosInf ? 1 : -1;
    if constexpr (std::is_integral_v<T>) return s > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    else return round_to_float<T>(s * std::numeric_limits<double>::infinity());
}

}  // namespace

template <class T> T fused_activation(const DML_FUSED_ACTIVATION& a, T y) {
    if (a.name() == "ACTIVATION_IDENTITY") return y;
    const Out v = activation_value(a, input(y));
    if (v.kind != Out::Selected) return rounded<T>(v);
    // BnActivationSignedZero=PositiveZero (docs/golden.md, "Alternative readings"): no -0.
    if constexpr (!std::is_integral_v<T>)
        if (in_force<"BnActivationSignedZero", "PositiveZero">() && widen(y) == 0) return round_to_float<T>(0.0);
    return y;
}

#define DMLREF_FUSED_ACTIVATION(T) template T fused_activation<T>(const DML_FUSED_ACTIVATION&, T);
DMLREF_FUSED_ACTIVATION(float)
DMLREF_FUSED_ACTIVATION(half)
DMLREF_FUSED_ACTIVATION(double)
DMLREF_FUSED_ACTIVATION(uint8_t)
DMLREF_FUSED_ACTIVATION(uint16_t)
DMLREF_FUSED_ACTIVATION(uint32_t)
DMLREF_FUSED_ACTIVATION(uint64_t)
DMLREF_FUSED_ACTIVATION(int8_t)
DMLREF_FUSED_ACTIVATION(int16_t)
DMLREF_FUSED_ACTIVATION(int32_t)
DMLREF_FUSED_ACTIVATION(int64_t)
#undef DMLREF_FUSED_ACTIVATION

void validate_fused_activation(Diagnostics& diags, const DML_FUSED_ACTIVATION& a, std::string_view op) {
    const auto& params = fused_activation_types().at(a.Type).Parameters;
    bool finite = true;
    for (size_t k = 0; k < 2; ++k)
        if (!params[k].empty() && !std::isfinite(a.Parameters[k])) {
            diags.error(
                desc_path("FusedActivation") + "/" + std::string(params[k]), rule(op, "fused-activation-parameter"),
                std::string(params[k]) + " of the fused activation is not finite; it must be finite (docs/golden.md)");
            finite = false;
        }
    if (!finite) return;
    if (a.name() == "ACTIVATION_SOFTPLUS" && !(a.Parameters[0] >= 1))
        diags.error(desc_path("FusedActivation") + "/Steepness", rule(op, "fused-activation-steepness"),
                    "Steepness of ACTIVATION_SOFTPLUS is " + std::to_string(a.Parameters[0]) +
                        "; DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC says it cannot be less than 1");
    if (a.name() == "ACTIVATION_CELU" && a.Parameters[0] == 0)
        diags.error(desc_path("FusedActivation") + "/Alpha", rule(op, "fused-activation-celu-alpha"),
                    "Alpha of ACTIVATION_CELU is 0; the formula divides by Alpha (exp(x / Alpha)), so it must not be 0 "
                    "(docs/golden.md, BnActivationCeluAlpha)");
}

uint64_t fused_activation_cost(const std::optional<DML_FUSED_ACTIVATION>& a) {
    if (!a) return 0;
    return a->name() == "ACTIVATION_GELU" ? 1600 : 700;  // erf; the other activations' exp, tanh, log
}

}  // namespace dmlref::reference
