// DML_OPERATOR_ACTIVATION_SIGMOID, _TANH, _GELU, _ELU, _CELU, _SCALED_ELU, _SOFTPLUS,
// _PARAMETRIC_SOFTPLUS, _SCALED_TANH and _SWISH: the activations whose values are not rational.
//
// Spec: DirectML API reference, "DML_ACTIVATION_SIGMOID_OPERATOR_DESC structure" (f(x) = 1 / (1 +
// exp(-x))), "DML_ACTIVATION_TANH_OPERATOR_DESC structure" (f(x) = (1 - exp(-2 * x)) / (1 + exp(-2 *
// x))), "DML_ACTIVATION_GELU_OPERATOR_DESC structure" (f(x) = 0.5 * x * (1 + erf(x / sqrt(2)))),
// "DML_ACTIVATION_ELU_OPERATOR_DESC structure" (x if x >= 0, Alpha * (exp(x) - 1) otherwise),
// "DML_ACTIVATION_CELU_OPERATOR_DESC structure" (max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1))),
// "DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC structure" (Gamma * x if x > 0, Gamma * (Alpha * exp(x) -
// Alpha) otherwise), "DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC structure" (ln(1 + exp(Steepness * x)) /
// Steepness; Steepness "cannot be less than 1", which DML_FEATURE_LEVEL_6_4 lifts: "DirectML feature
// level history"), "DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC structure" (Alpha * ln(1 +
// exp(Beta * x))), "DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC structure" (Alpha * tanh(Beta * x)),
// "DML_ACTIVATION_SWISH_OPERATOR_DESC structure" (x * sigmoid(SigmoidInputScale * x)).
// InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes; in-place
// execution is allowed. The FLOAT parameters are FLOAT32 values, taken exactly.
//
// Decisions (docs/golden.md, "Transcendental activations"): each value is the one batch
// normalization's fused activation of the same name gives (reference/fused_activation.cpp; the
// DirectML documentation's "Using fused operators for improved performance": a fused activation
// produces the same result as the separate operator), so the two can never disagree (SWISH, which
// that page does not list for fusion, is evaluated here the same way):
//   - the exact value of the page's formula rounded once (ComputedValue), through Ziv's loop in
//     MPFR, written without cancellation (GELU as x erfc(-x / sqrt(2)) / 2);
//   - NaN gives the canonical NaN (ActivationNaN); +-inf the function's limit (ActivationInfinity:
//     sigmoid 0 and 1, tanh -1 and 1, gelu +0 and inf);
//   - an exact zero is +0 (ZeroResult=PositiveZero: tanh(-0) = gelu(-0) = swish(-0) = +0; sigmoid has
//     none); ELU's x >= 0 selects x itself, so elu(-0) = -0 (ActivationSignedZero);
//   - SOFTPLUS's exp(Steepness x) beyond the working type is no overflow: the exact value, x plus a
//     term below 2^-1400 relative, rounded once (SoftplusLargeInput=ExactValue);
//   - Steepness must not be 0 or negative, CELU's Alpha not 0: the formulas divide by them
//     (softplus.steepness-positive, celu.alpha-nonzero; SoftplusSteepness, CeluAlpha);
//   - integer data (outside the pages' tables): the exact value rounded half to even and saturated
//     (IntegerResult).
#include "activation_math.hpp"

#include "computed_zero.hpp"
#include "correctly_rounded.hpp"
#include "fused_activation.hpp"

#include "dmlref/bits.hpp"
#include "dmlref/bound.hpp"
#include "dmlref/working_types.hpp"
#include "dmlref/terms.hpp"

#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using ELU = DML_ACTIVATION_ELU_OPERATOR_DESC;
using CELU = DML_ACTIVATION_CELU_OPERATOR_DESC;
using SCALED_ELU = DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC;
using SOFTPLUS = DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC;
using PARAMETRIC_SOFTPLUS = DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC;
using SCALED_TANH = DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC;
using SWISH = DML_ACTIVATION_SWISH_OPERATOR_DESC;

// The operator as the fused activation that evaluates it; SWISH (not fusable) as its scale.
struct Form {
    DML_FUSED_ACTIVATION a;
    bool swish = false;
    float scale = 0;  // SWISH's SigmoidInputScale
};
Form form_of(const OperatorDesc& od) {
    if (od.get_if<DML_ACTIVATION_SIGMOID_OPERATOR_DESC>()) return {fused("ACTIVATION_SIGMOID")};
    if (od.get_if<DML_ACTIVATION_TANH_OPERATOR_DESC>()) return {fused("ACTIVATION_TANH")};
    if (od.get_if<DML_ACTIVATION_GELU_OPERATOR_DESC>()) return {fused("ACTIVATION_GELU")};
    if (const auto* d = od.get_if<ELU>()) return {fused("ACTIVATION_ELU", d->Alpha)};
    if (const auto* d = od.get_if<CELU>()) return {fused("ACTIVATION_CELU", d->Alpha)};
    if (const auto* d = od.get_if<SCALED_ELU>()) return {fused("ACTIVATION_SCALED_ELU", d->Alpha, d->Gamma)};
    if (const auto* d = od.get_if<SOFTPLUS>()) return {fused("ACTIVATION_SOFTPLUS", d->Steepness)};
    if (const auto* d = od.get_if<PARAMETRIC_SOFTPLUS>())
        return {fused("ACTIVATION_PARAMETRIC_SOFTPLUS", d->Alpha, d->Beta)};
    if (const auto* d = od.get_if<SCALED_TANH>()) return {fused("ACTIVATION_SCALED_TANH", d->Alpha, d->Beta)};
    const auto& d = get<SWISH>(od);
    return {fused("ACTIVATION_IDENTITY"), true, d.SigmoidInputScale};
}

void validate_same(const TensorDesc& in, const TensorDesc& out, Diagnostics& diags, std::string_view same_type,
                   std::string_view same_sizes) {
    const std::initializer_list<Named> all = {{"InputTensor", in}, {"OutputTensor", out}};
    require_same_data_type(diags, all, same_type);
    require_same_sizes(diags, all, same_sizes);
}

// The tensors, then every FLOAT parameter finite (`<op>.parameter-finite`: the pages give a NaN or
// infinite coefficient no meaning, as the rational activations' rule); true when they are.
template <class D> bool validate_parametric(const D& d, Diagnostics& diags, std::string_view op) {
    validate_same(d.InputTensor, d.OutputTensor, diags, std::string(op) + ".same-data-type",
                  std::string(op) + ".same-sizes");
    bool finite = true;
    auto check = [&](std::string_view field, float v) {
        if (std::isfinite(v)) return;
        finite = false;
        diags.error(desc_path(field), std::string(op) + ".parameter-finite",
                    std::string(field) + " is " +
                        (std::isnan(v) ? "NaN"
                         : v > 0       ? "+infinity"
                                       : "-infinity") +
                        "; it must be finite (the " + std::string(operator_type_name(D::kType)) +
                        " page gives a non-finite coefficient no meaning; docs/golden.md, Transcendental activations)");
    };
    if constexpr (requires { d.Alpha; }) check("Alpha", d.Alpha);
    if constexpr (requires { d.Beta; }) check("Beta", d.Beta);
    if constexpr (requires { d.Gamma; }) check("Gamma", d.Gamma);
    if constexpr (requires { d.Steepness; }) check("Steepness", d.Steepness);
    if constexpr (requires { d.SigmoidInputScale; }) check("SigmoidInputScale", d.SigmoidInputScale);
    return finite;
}

// One loop for all: the activation is a value (a DML_FUSED_ACTIVATION), not a template argument.
void evaluate_activation(const Form& f, const TensorDesc& in, const TensorDesc& out, const Bindings& b) {
    const TensorView X(in, b.at("InputTensor"));
    const TensorView Y(out, b.at("OutputTensor"));
    dispatch(in.DataType, [&]<class T>() {
        map_elements<T, T>(
            Y, [&](T x) { return f.swish ? swish<T>(x, f.scale) : fused_activation<T>(f.a, x); }, X);
    });
}

template <class D> void evaluate_desc(const D& d, const Bindings& b) {
    evaluate_activation(form_of(OperatorDesc(d)), d.InputTensor, d.OutputTensor, b);
}

}  // namespace

void validate(const DML_ACTIVATION_SIGMOID_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_same(d.InputTensor, d.OutputTensor, diags, "sigmoid.same-data-type", "sigmoid.same-sizes");
}
void evaluate(const DML_ACTIVATION_SIGMOID_OPERATOR_DESC& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const DML_ACTIVATION_TANH_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_same(d.InputTensor, d.OutputTensor, diags, "activation-tanh.same-data-type", "activation-tanh.same-sizes");
}
void evaluate(const DML_ACTIVATION_TANH_OPERATOR_DESC& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const DML_ACTIVATION_GELU_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_same(d.InputTensor, d.OutputTensor, diags, "gelu.same-data-type", "gelu.same-sizes");
}
void evaluate(const DML_ACTIVATION_GELU_OPERATOR_DESC& d, const Bindings& b) { evaluate_desc(d, b); }

void validate(const ELU& d, Diagnostics& diags) { validate_parametric(d, diags, "elu"); }
void evaluate(const ELU& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const CELU& d, Diagnostics& diags) {
    // The formula divides by Alpha (exp(x / Alpha)): dmlref's rule, as the fused CELU's.
    if (validate_parametric(d, diags, "celu") && d.Alpha == 0)
        diags.error(
            desc_path("Alpha"), "celu.alpha-nonzero",
            "Alpha is 0; the formula divides by Alpha (exp(x / Alpha)), so it must not be 0 (docs/golden.md, CeluAlpha)");
}
void evaluate(const CELU& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const SCALED_ELU& d, Diagnostics& diags) { validate_parametric(d, diags, "scaled-elu"); }
void evaluate(const SCALED_ELU& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const SOFTPLUS& d, Diagnostics& diags) {
    // The formula divides by Steepness; the page asks for at least 1 (a support rule: DML_FEATURE_LEVEL_6_4
    // allows less), dmlref for more than 0 at every level (docs/golden.md, SoftplusSteepness).
    if (validate_parametric(d, diags, "softplus") && !(d.Steepness > 0))
        diags.error(desc_path("Steepness"), "softplus.steepness-positive",
                    "Steepness is " + std::to_string(d.Steepness) +
                        "; the formula divides by it and the page asks for at least 1, so it must be greater than 0 "
                        "(docs/golden.md, SoftplusSteepness)");
}
void evaluate(const SOFTPLUS& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const PARAMETRIC_SOFTPLUS& d, Diagnostics& diags) {
    validate_parametric(d, diags, "parametric-softplus");
}
void evaluate(const PARAMETRIC_SOFTPLUS& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const SCALED_TANH& d, Diagnostics& diags) { validate_parametric(d, diags, "scaled-tanh"); }
void evaluate(const SCALED_TANH& d, const Bindings& b) { evaluate_desc(d, b); }
void validate(const SWISH& d, Diagnostics& diags) { validate_parametric(d, diags, "swish"); }
void evaluate(const SWISH& d, const Bindings& b) { evaluate_desc(d, b); }

void softplus_support_rules(const OperatorDesc& od, uint32_t level, std::vector<std::string>& why) {
    const auto& d = get<SOFTPLUS>(od);
    if (level < 0x6400 && d.Steepness < 1)
        why.push_back(
            "until DML_FEATURE_LEVEL_6_4 Steepness cannot be less than 1 (DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC)");
}

// SWISH: x * sigmoid(s x) = x / (1 + exp(-s x)), the exact value rounded once (Ziv's loop in MPFR).
// Exact where rational: x = 0 gives +0 (ZeroResult), s = 0 gives x / 2. A NaN x gives the canonical
// NaN; an infinite x the limit (x where s x -> +inf or s = 0, +0 where s x -> -inf). Beyond s x >
// 2^10 the value is x (1 - d) with 0 < d < 2^-1400, rounded as x (1 - 2^-2000); where |x| e^(s x) <
// 2^-1100 it is below every type's smallest subnormal and rounds as +-2^-2000 (x's sign: -0 for a
// negative x). Between, exp's argument |s x| is at most 1500 and the evaluation's relative error
// at most (|s x| + 4) 2^-w at w bits (the argument's rounding |s x| 2^-w, exp, 1 + e and the
// division 2^-w each; x exact at w >= 64).
template <class T> T swish(T x, float sigmoid_input_scale) {
    if constexpr (!std::is_integral_v<T>) {
        if (is_nan(x)) return canonical_nan<T>();
        const double w = widen(x);
        if (std::isinf(w)) {
            const int direction = (w > 0 ? 1 : -1) * (sigmoid_input_scale > 0 ? 1 : sigmoid_input_scale < 0 ? -1 : 0);
            return direction < 0 ? round_rational<T>(mpq_class(0)) : x;
        }
    }
    const mpq_class q = exact_value(x);
    if (sgn(q) == 0) return round_rational<T>(mpq_class(0));
    if (sigmoid_input_scale == 0) return round_rational<T>(mpq_class(q / 2));
    const mpq_class z = q * mpq_class(double(sigmoid_input_scale));
    const double zd = z.get_d();
    if (zd > 1024) return round_rational<T>(mpq_class(q - q * kTiny));
    if (zd < -1024 && std::log2(std::fabs(q.get_d())) + zd / std::log(2.0) < -1100)
        return round_rational<T>(mpq_class(sgn(q) * kTiny));
    const long lost = long(std::ceil(std::log2(std::fabs(zd) + 4))) + 2;
    const Evaluation f = [&](mpfr_ptr y, mpfr_prec_t w) -> long {
        mpfr_t e, a;
        mpfr_init2(e, w);
        mpfr_init2(a, w);
        mpfr_set_q(e, z.get_mpq_t(), MPFR_RNDN);
        mpfr_neg(e, e, MPFR_RNDN);
        mpfr_exp(e, e, MPFR_RNDN);
        mpfr_add_ui(e, e, 1, MPFR_RNDN);
        mpfr_set_q(a, q.get_mpq_t(), MPFR_RNDN);
        mpfr_div(y, a, e, MPFR_RNDN);
        mpfr_clear(e);
        mpfr_clear(a);
        return mpfr_zero_p(y) ? 0 : long(w) - lost;
    };
    return correctly_rounded<T>(f);
}

#define DMLREF_SWISH(T) template T swish<T>(T, float);
DMLREF_SWISH(float)
DMLREF_SWISH(half)
DMLREF_SWISH(double)
DMLREF_SWISH(uint8_t)
DMLREF_SWISH(uint16_t)
DMLREF_SWISH(uint32_t)
DMLREF_SWISH(uint64_t)
DMLREF_SWISH(int8_t)
DMLREF_SWISH(int16_t)
DMLREF_SWISH(int32_t)
DMLREF_SWISH(int64_t)
#undef DMLREF_SWISH

// ---- Judging (docs/tolerance.md, "Transcendental activations") -------------------------------

namespace {

// A working type's unit roundoff, smallest magnitude (eta: half the smallest subnormal, or the
// smallest normal where subnormals may be flushed) and largest finite value.
struct MathWork {
    double u, eta, max;
    double ulps(double k, double r) const { return 2 * k * u * r + 2 * k * eta; }  // k ULPs of a result |r| <= r
    double rnd(double r) const { return u * r + eta; }                             // one rounding to nearest
};
MathWork work(DataType w, bool flush) {
    return {unit_roundoff(w), flush ? smallest_normal(w) : subnormal_rounding_error(w),
            w == DataType::FLOAT16   ? 65504.0
            : w == DataType::FLOAT32 ? double(std::numeric_limits<float>::max())
                                     : std::numeric_limits<double>::max()};
}

// SWISH x * sigmoid(s x) at an exact x, evaluated in w as x * (1 / (1 + exp(-s x))) or x / (1 + exp(-s x)):
// s x rounded (u |s x| absolute: that much relative in exp), exp(-s x) within 3 ULP plus 2u |s x| relative
// (as exp2(-s x log2 e)), which reach the sigmoid times e / (1 + e) = 1 - sigmoid; 1 + e (u), the division
// (2.5 ULP, relative to the sigmoid or to the result), the product (u). A sigmoid that underflows in w costs its absolute error times |x|. Where exp(-s x)
// overflows w the backend's sigmoid is 0: an error of the whole value M.
ActivationError swish_error(double x, double s, const MathWork& w) {
    const double z = s * x, az = std::fabs(z);
    const double sig = z >= 0 ? 1 / (1 + std::exp(-z)) : std::exp(z) / (1 + std::exp(z));
    const double rest = z >= 0 ? std::exp(-z) / (1 + std::exp(-z)) : 1 / (1 + std::exp(z));  // 1 - sig = e / (1 + e)
    const double M = std::fabs(x) * sig;
    // A relative error r of e = exp(-s x) is r (1 - sig) relative in 1 / (1 + e).
    const double rel = (2 * kStatedAccuracy.exp2 * w.u + 3 * w.u * az) * rest + w.u +
                       2 * kStatedAccuracy.division * w.u + w.u;
    double err = rel * M + std::fabs(x) * w.ulps(kStatedAccuracy.division, sig) + w.ulps(kStatedAccuracy.division, M) +
                 w.rnd(M);
    if (-z > std::log(w.max)) err += M;
    return {err, M};
}

// SOFTPLUS and PARAMETRIC_SOFTPLUS where exp(b x) may overflow w (fused_activation_error gives no
// bound there): the exact value is c (b x + ln(1 + exp(-b x))) / s, and a backend must give the
// asymptote c b x / s (softplus: x) there (SoftplusLargeInput). Its error: the neglected term (at most
// |c / s| exp(-b x)) and the asymptote's products and division (2.5 ULP and two roundings).
ActivationError softplus_asymptote_error(double x, double c, double b, double s, const MathWork& w) {
    const double z = b * x;
    if (!(z > 0)) return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    const double tail = std::fabs(c / s) * std::exp(-z);
    const double M = std::fabs(c * b / s * x) + tail;
    return {tail + w.ulps(kStatedAccuracy.division, M) + 2 * w.rnd(M), M};
}

// The golden of a float element, widened to double.
double golden_double(const Form& f, DataType t, double v) {
    auto at = [&]<class T>() {
        const T xt = round_to_float<T>(v);  // x came from T: exact
        return double(widen(f.swish ? swish<T>(xt, f.scale) : fused_activation<T>(f.a, xt)));
    };
    if (t == DataType::FLOAT16) return at.template operator()<half>();
    if (t == DataType::FLOAT32) return at.template operator()<float>();
    return at.template operator()<double>();
}

}  // namespace

// Each element's bound as the fused activation's (docs/tolerance.md, "Fused activations"): x is
// exact (E = 0), the activation's own error in each working type w the profile allows
// (fused_activation_error: the stated exp, tanh and erf accuracies through the formula, its
// cancellations included; swish_error for SWISH), then the rounding to the output type when w is
// wider. An infinite x gives the function's limit, which a backend must give: bound 0; so does a
// finite x whose golden overflows to an infinity (ELU, SCALED_ELU and CELU with large parameters).
void activation_math_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const Form f = form_of(op.Desc);
    const std::string_view name = f.a.name();
    const bool softplus = name == "ACTIVATION_SOFTPLUS" || name == "ACTIVATION_PARAMETRIC_SOFTPLUS";
    const TensorDesc& in = *tensor_fields(op).front().desc;  // InputTensor; OutputTensor has its type
    const DataType t = in.DataType;
    const std::vector<double> x = logical_doubles(in, input("InputTensor"));
    const std::vector<DataType> ws = working_types(p, t);  // the working types the profile admits
    const bool flush = p.flush_subnormals;
    auto eta = [&](DataType w) { return flush ? smallest_normal(w) : subnormal_rounding_error(w); };
    const double inf = std::numeric_limits<double>::infinity();
    for (uint64_t e = 0; e < x.size() && e < sink.elements().size(); ++e) {
        const double v = x[e];
        if (!is_float(t)) {
            sink.set_computed(e, 0, std::fabs(v), 1);
            continue;
        }  // integers: Bits
        if (v != v) {
            sink.set_computed(e, 0, 0, 1, true, false);
            continue;
        }
        double worst = 0, magnitude = 0;
        for (DataType w : ws) {
            const MathWork wk = work(w, flush);
            ActivationError r = f.swish ? swish_error(v, f.scale, wk) : fused_activation_error(f.a, v, 0, w, flush);
            if (!std::isfinite(r.error) && softplus && std::isfinite(v)) {
                const float p0 = f.a.Parameters[0], p1 = f.a.Parameters[1];
                r = name == "ACTIVATION_SOFTPLUS" ? softplus_asymptote_error(v, 1, p0, p0, wk)
                                                  : softplus_asymptote_error(v, p0, p1, 1, wk);
            }
            double err = r.error;
            if (std::isfinite(err) && w != t) err += unit_roundoff(t) * (r.magnitude + r.error) + eta(t);
            worst = std::max(worst, err * (1 + 1e-9));
            magnitude = std::max(magnitude, r.magnitude);
        }
        // Where the value may reach the output type's infinity (an infinite x, or a finite one whose
        // golden overflows), the golden's class decides: an infinity must be matched.
        if (std::isinf(v) || !std::isfinite(worst) || magnitude >= 0.5 * work(t, false).max) {
            const double g = golden_double(f, t, v);
            if (std::isinf(g)) {
                sink.set_computed(e, inf, std::fabs(v), 1, false, true);
                continue;
            }
            if (std::isinf(v)) worst = 0;  // a finite limit: exact
        }
        // A zero the formula computes may come out as -0 from IEEE arithmetic (CELU's
        // expm1(-0) = -0; a negative Alpha times a +0 limit): computed_zero.hpp. ELU's x >= 0
        // selects x itself, -0 included, which must be kept.
        const bool selected = name == "ACTIVATION_ELU" && v >= 0;
        if (!selected && (v == 0 || std::isinf(v) || magnitude < smallest_normal(t)) && golden_double(f, t, v) == 0)
            worst = std::max(worst, computed_zero_bound(t));
        sink.set_computed(e, worst, std::isinf(v) ? 1 : std::fabs(v), 1);
    }
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

namespace {

const char* activation_math_formula(OperatorType t) {
    switch (t) {
        case OperatorType::ACTIVATION_SIGMOID: return "1 / (1 + exp(-x))";
        case OperatorType::ACTIVATION_TANH: return "(1 - exp(-2 x)) / (1 + exp(-2 x)) = tanh(x)";
        case OperatorType::ACTIVATION_GELU: return "0.5 x (1 + erf(x / sqrt(2)))";
        case OperatorType::ACTIVATION_ELU: return "x if x >= 0, Alpha (exp(x) - 1) otherwise";
        case OperatorType::ACTIVATION_CELU: return "max(0, x) + min(0, Alpha (exp(x / Alpha) - 1))";
        case OperatorType::ACTIVATION_SCALED_ELU: return "Gamma x if x > 0, Gamma (Alpha exp(x) - Alpha) otherwise";
        case OperatorType::ACTIVATION_SOFTPLUS: return "ln(1 + exp(Steepness x)) / Steepness";
        case OperatorType::ACTIVATION_PARAMETRIC_SOFTPLUS: return "Alpha ln(1 + exp(Beta x))";
        case OperatorType::ACTIVATION_SCALED_TANH: return "Alpha tanh(Beta x)";
        case OperatorType::ACTIVATION_SWISH:
            return "x sigmoid(SigmoidInputScale x) = x / (1 + exp(-SigmoidInputScale x))";
        default: return nullptr;
    }
}

}  // namespace

bool explain_activation_math(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const OperatorType t = c.op.Type;
    const char* formula = activation_math_formula(t);
    if (!formula) return false;
    const TensorDesc& in = *tensor_fields(c.op).front().desc;
    const ExplainedInput xin = input_element(c, "InputTensor", nd_coordinate(in.Sizes, flat), "x");
    out.inputs.push_back(xin);
    out.facts.emplace_back("formula", formula);
    if (!is_float(in.DataType)) {
        out.facts.emplace_back("decided by", "the exact value rounded half to even and saturated");
        out.policies.push_back("IntegerResult");
        return true;
    }
    const double x = element_value(in.DataType, xin.bits);
    if (x != x) {
        out.facts.emplace_back("decided by", "x is NaN: the canonical NaN");
        out.policies.push_back("ActivationNaN");
    } else if (std::isinf(x)) {
        out.facts.emplace_back("decided by", "x is infinite: the function's limit");
        out.policies.push_back("ActivationInfinity");
    } else if (t == OperatorType::ACTIVATION_ELU && x >= 0) {
        out.facts.emplace_back("decided by", "x >= 0 holds: x, bit for bit (-0 included)");
        out.policies.push_back("ActivationSignedZero");
    } else if (x == 0 && t != OperatorType::ACTIVATION_SIGMOID && t != OperatorType::ACTIVATION_SOFTPLUS &&
               t != OperatorType::ACTIVATION_PARAMETRIC_SOFTPLUS) {
        out.facts.emplace_back("decided by", "an exact zero: +0");
        out.policies.push_back("ZeroResult");
    } else {
        out.facts.emplace_back(
            "decided by", "the exact value rounded once to nearest-even (Ziv's loop in MPFR), as the fused activation");
        out.policies.push_back("ComputedValue");
        if (t == OperatorType::ACTIVATION_SOFTPLUS || t == OperatorType::ACTIVATION_PARAMETRIC_SOFTPLUS)
            out.policies.push_back("SoftplusLargeInput");
    }
    return true;
}

}  // namespace dmlref::reference
