// The activation family: DML_OPERATOR_ACTIVATION_IDENTITY, _LINEAR, _LEAKY_RELU,
// _PARAMETERIZED_RELU, _THRESHOLDED_RELU, _SHRINK, _HARD_SIGMOID, _HARD_SWISH and _SOFTSIGN.
//
// Spec: DirectML API reference, the DML_ACTIVATION_<NAME>_OPERATOR_DESC structure pages:
//
//   IDENTITY            f(x) = x
//   LINEAR              f(x) = Alpha * x + Beta
//   LEAKY_RELU          f(x) = x if x >= 0, Alpha * x otherwise
//   PARAMETERIZED_RELU  f(x, slope) = x if x >= 0, slope * x otherwise (SlopeTensor: the slope of each element)
//   THRESHOLDED_RELU    f(x) = x if x > Alpha, 0 otherwise
//   SHRINK              f(x) = x - Bias if x > Threshold, x + Bias if x < -Threshold, 0 otherwise
//   HARD_SIGMOID        f(x) = max(0, min(Alpha * x + Beta, 1))
//   HARD_SWISH          f(x) = x * HardSigmoid(x, Alpha, Beta)
//   SOFTSIGN            f(x) = x / (1 + abs(x))
//
// Every tensor has one DataType, DimensionCount and Sizes; an input may be read through any
// strides (zero strides broadcast it), and OutputTensor may alias InputTensor (every page allows
// in-place execution): each element is read before it is written.
//
// Decisions (docs/golden.md, "Activations", recorded as policies in golden files):
//   - The golden is the exact real value of the page's formula, rounded once to nearest-even
//     (ComputedValue); Alpha, Beta, Bias and Threshold are FLOAT32 values, exact rationals. The
//     formulas that BATCH_NORMALIZATION fuses are evaluated by the same functions
//     (reference/fused_activation.cpp, which returns the exact value before its one rounding), so
//     a fused and a standalone activation agree bit for bit; HARD_SWISH and PARAMETERIZED_RELU
//     (not fusable) are evaluated here in the same exact rationals.
//   - A NaN input gives the canonical NaN (ActivationNaN=NaNGivesNaN), even where the formula's
//     comparisons read with IEEE rules would select the "otherwise" line (THRESHOLDED_RELU,
//     SHRINK, HARD_SIGMOID's min and max); IDENTITY copies the NaN's bits.
//   - A value the formula selects (x itself: IDENTITY, LEAKY_RELU and PARAMETERIZED_RELU for
//     x >= 0, THRESHOLDED_RELU for x > Alpha) keeps its bits, -0 included
//     (ActivationSignedZero=SelectedInputKeepsSign); every zero the formula computes is +0
//     (ZeroResult=PositiveZero), and judging admits either zero there.
//   - An infinite input gives the function's limit (ActivationInfinity=LimitOfTheFunction):
//     SOFTSIGN +-1, HARD_SIGMOID its clamp, HARD_SWISH 0 where the clamp is 0 there; LINEAR,
//     LEAKY_RELU and PARAMETERIZED_RELU keep IEEE's rules (0 * inf is NaN).
//   - Comparisons with Alpha, Threshold and 0 are on exact values (ActivationCompare=ExactValues):
//     the FLOAT32 parameter is never rounded to FLOAT16 or to an integer type first.
//   - SHRINK with a negative Threshold takes the first line that holds (ShrinkOrder=PageOrder).
//   - Integer types (SHRINK and PARAMETERIZED_RELU list some from DML_FEATURE_LEVEL_5_1; dmlref
//     evaluates every type): the exact value rounded half to even and saturated
//     (IntegerResult=RoundHalfEvenSaturate).
//   - Every FLOAT parameter must be finite (`<op>.parameter-finite`): the pages give no meaning to
//     a NaN or infinite coefficient.
#include "activation.hpp"

#include "computed_zero.hpp"

#include "exact_rational.hpp"
#include "fused_activation.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>

namespace dmlref::reference {

namespace {

using IDENTITY = DML_ACTIVATION_IDENTITY_OPERATOR_DESC;
using LINEAR = DML_ACTIVATION_LINEAR_OPERATOR_DESC;
using LEAKY_RELU = DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC;
using PRELU = DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC;
using THRESHOLDED_RELU = DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC;
using SHRINK = DML_ACTIVATION_SHRINK_OPERATOR_DESC;
using HARD_SIGMOID = DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC;
using HARD_SWISH = DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC;
using SOFTSIGN = DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC;

// ---- The formulas ---------------------------------------------------------------------------

DML_FUSED_ACTIVATION form(const IDENTITY&) { return fused("ACTIVATION_IDENTITY"); }
DML_FUSED_ACTIVATION form(const LINEAR& d) { return fused("ACTIVATION_LINEAR", d.Alpha, d.Beta); }
DML_FUSED_ACTIVATION form(const LEAKY_RELU& d) { return fused("ACTIVATION_LEAKY_RELU", d.Alpha); }
DML_FUSED_ACTIVATION form(const THRESHOLDED_RELU& d) { return fused("ACTIVATION_THRESHOLDED_RELU", d.Alpha); }
DML_FUSED_ACTIVATION form(const SHRINK& d) { return fused("ACTIVATION_SHRINK", d.Bias, d.Threshold); }
DML_FUSED_ACTIVATION form(const HARD_SIGMOID& d) { return fused("ACTIVATION_HARD_SIGMOID", d.Alpha, d.Beta); }
DML_FUSED_ACTIVATION form(const SOFTSIGN&) { return fused("ACTIVATION_SOFTSIGN"); }
template <class D>
concept Fusable = requires(const D& d) {
    form(d);
};

mpq_class clamp01(mpq_class v) {
    if (v > 1) v = 1;
    if (v < 0) v = 0;
    return v;
}

// HARD_SWISH: x * max(0, min(Alpha x + Beta, 1)), exactly, rounded once. At +-infinity the
// limit: the clamp's value there (1 or 0 by the sign of Alpha x; clamp(Beta) for Alpha = 0) times
// x, which is +0 where that value is 0 (x * 0 for every large x), +-infinity otherwise.
template <class T> T hard_swish(T x, float alpha, float beta) {
    const mpq_class a{double(alpha)}, b{double(beta)};
    if constexpr (!std::is_integral_v<T>) {
        if (is_nan(x)) return canonical_nan<T>();
        const double w = widen(x);
        if (std::isinf(w)) {
            const int s = w > 0 ? 1 : -1;
            const mpq_class h = sgn(a) == 0 ? clamp01(b) : mpq_class(s * sgn(a) > 0 ? 1 : 0);
            return sgn(h) == 0 ? T(0) : x;
        }
    }
    const mpq_class q = exact_value(x);
    return round_rational<T>(mpq_class(q * clamp01(a * q + b)));
}

// PARAMETERIZED_RELU: x for x >= 0 (its bits: -0 stays -0), slope * x rounded once below; a NaN
// x, or slope * x NaN (a NaN slope, 0 * -inf), gives the canonical NaN.
template <class T> T prelu(T x, T s) {
    if constexpr (!std::is_integral_v<T>) {
        if (is_nan(x)) return canonical_nan<T>();
    }
    if (exact_ge(x, T(0))) return x;
    if constexpr (!std::is_integral_v<T>) {
        const double xs = widen(x), ss = widen(s);
        if (std::isnan(ss) || std::isinf(xs) || std::isinf(ss)) {
            const double p = xs * ss;  // IEEE's rules on the special values: exact here
            return std::isnan(p) ? canonical_nan<T>() : round_to_float<T>(p);
        }
    }
    return round_rational<T>(mpq_class(exact_value(x) * exact_value(s)));
}

// One element of any operator of the family (s: PARAMETERIZED_RELU's slope, unused elsewhere).
template <class T, class D> T activate(const D& d, const DML_FUSED_ACTIVATION* a, T x, T s) {
    if constexpr (std::is_same_v<D, PRELU>) return prelu(x, s);
    else if constexpr (std::is_same_v<D, HARD_SWISH>) return hard_swish(x, d.Alpha, d.Beta);
    else return fused_activation<T>(*a, x);
}

// ---- validate and the plain loops -------------------------------------------------------------

// Rule ids name the operator: ACTIVATION_IDENTITY's are activation-identity.*, apart from
// ELEMENT_WISE_IDENTITY's identity.* (one id, one rule).
template <class D> constexpr std::string_view prefix() {
    if constexpr (std::is_same_v<D, IDENTITY>) return "activation-identity";
    else if constexpr (std::is_same_v<D, LINEAR>) return "linear";
    else if constexpr (std::is_same_v<D, LEAKY_RELU>) return "leaky-relu";
    else if constexpr (std::is_same_v<D, PRELU>) return "parameterized-relu";
    else if constexpr (std::is_same_v<D, THRESHOLDED_RELU>) return "thresholded-relu";
    else if constexpr (std::is_same_v<D, SHRINK>) return "shrink";
    else if constexpr (std::is_same_v<D, HARD_SIGMOID>) return "hard-sigmoid";
    else if constexpr (std::is_same_v<D, HARD_SWISH>) return "hard-swish";
    else return "softsign";
}
template <class D> std::string activation_rule(std::string_view id) {
    return std::string(prefix<D>()) + "." + std::string(id);
}

template <class D> void require_finite(Diagnostics& diags, std::string_view field, float v) {
    if (std::isfinite(v)) return;
    diags.error(desc_path(field), activation_rule<D>("parameter-finite"),
                std::string(field) + " is " +
                    (std::isnan(v) ? "NaN"
                     : v > 0       ? "+infinity"
                                   : "-infinity") +
                    "; it must be finite (the " + std::string(operator_type_name(D::kType)) +
                    " page gives a non-finite coefficient no meaning; docs/golden.md, Activations)");
}

template <class D> void validate_activation(const D& d, Diagnostics& diags) {
    // "InputTensor and OutputTensor must have the same DataType, DimensionCount, and Sizes."
    // PARAMETERIZED_RELU: "InputTensor, OutputTensor, and SlopeTensor must have the same ..."
    if constexpr (std::is_same_v<D, PRELU>) {
        const std::initializer_list<Named> all = {
            {"InputTensor", d.InputTensor}, {"SlopeTensor", d.SlopeTensor}, {"OutputTensor", d.OutputTensor}};
        require_same_data_type(diags, all, activation_rule<D>("same-data-type"));
        require_same_sizes(diags, all, activation_rule<D>("same-sizes"));
    } else {
        const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
        require_same_data_type(diags, all, activation_rule<D>("same-data-type"));
        require_same_sizes(diags, all, activation_rule<D>("same-sizes"));
    }
    if constexpr (requires { d.Alpha; }) require_finite<D>(diags, "Alpha", d.Alpha);
    if constexpr (requires { d.Beta; }) require_finite<D>(diags, "Beta", d.Beta);
    if constexpr (requires { d.Bias; }) require_finite<D>(diags, "Bias", d.Bias);
    if constexpr (requires { d.Threshold; }) require_finite<D>(diags, "Threshold", d.Threshold);
}

template <class D> void evaluate_activation(const D& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    if constexpr (std::is_same_v<D, PRELU>) {
        const TensorView S(d.SlopeTensor, b.at("SlopeTensor"));
        dispatch(d.InputTensor.DataType, [&]<class T>() {
            map_elements<T, T, T>(
                Y, [](T x, T s) { return prelu(x, s); }, X, S);
        });
    } else {
        std::optional<DML_FUSED_ACTIVATION> a;
        if constexpr (Fusable<D>) a = form(d);
        dispatch(d.InputTensor.DataType, [&]<class T>() {
            map_elements<T, T>(
                Y, [&](T x) { return activate<T>(d, a ? &*a : nullptr, x, T(0)); }, X);
        });
    }
}

// Goldens state Summed without terms for float outputs (judged per element by activation_bounds);
// IDENTITY and integer outputs are bit for bit.
template <class D> std::optional<Tolerance> tolerance_of(const D& d, const char* formula) {
    if (std::is_same_v<D, IDENTITY> || !is_float(d.OutputTensor.DataType)) return std::nullopt;
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 0;
    t.Why = std::string(formula) +
            ": the exact value rounded once (docs/golden.md, Activations); dmlref diff bounds each element by the "
            "formula's forward error in the working types a backend may use, 0 where the value is selected or exact "
            "(docs/tolerance.md, Activations); a NaN golden matches any NaN";
    return t;
}

template <class D> const char* formula_of() {
    if constexpr (std::is_same_v<D, IDENTITY>) return "x";
    else if constexpr (std::is_same_v<D, LINEAR>) return "Alpha * x + Beta";
    else if constexpr (std::is_same_v<D, LEAKY_RELU>) return "x if x >= 0, Alpha * x otherwise";
    else if constexpr (std::is_same_v<D, PRELU>) return "x if x >= 0, slope * x otherwise";
    else if constexpr (std::is_same_v<D, THRESHOLDED_RELU>) return "x if x > Alpha, 0 otherwise";
    else if constexpr (std::is_same_v<D, SHRINK>)
        return "x - Bias if x > Threshold, x + Bias if x < -Threshold, 0 otherwise";
    else if constexpr (std::is_same_v<D, HARD_SIGMOID>) return "max(0, min(Alpha * x + Beta, 1))";
    else if constexpr (std::is_same_v<D, HARD_SWISH>) return "x * max(0, min(Alpha * x + Beta, 1))";
    else return "x / (1 + abs(x))";
}

}  // namespace

#define DMLREF_ACTIVATION_DEFINE(D)                                                  \
    void validate(const D& d, Diagnostics& diags) { validate_activation(d, diags); } \
    void evaluate(const D& d, const Bindings& b) { evaluate_activation(d, b); }      \
    std::optional<Tolerance> tolerance(const D& d, std::string_view) { return tolerance_of(d, formula_of<D>()); }
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_IDENTITY_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_LINEAR_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_SHRINK_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC)
DMLREF_ACTIVATION_DEFINE(DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC)
#undef DMLREF_ACTIVATION_DEFINE

template <class T> T activation_value(const OperatorDesc& od, T x, T s) {
    return visit_as<DMLREF_ACTIVATION_DESCS>(od, [&](const auto& d) -> T {
        using D = std::decay_t<decltype(d)>;
        std::optional<DML_FUSED_ACTIVATION> a;
        if constexpr (Fusable<D>) a = form(d);
        return activate<T>(d, a ? &*a : nullptr, x, s);
    });
}
#define DMLREF_ACTIVATION_VALUE(T) template T activation_value<T>(const OperatorDesc&, T, T);
DMLREF_ACTIVATION_VALUE(float)
DMLREF_ACTIVATION_VALUE(half)
DMLREF_ACTIVATION_VALUE(double)
DMLREF_ACTIVATION_VALUE(uint8_t)
DMLREF_ACTIVATION_VALUE(uint16_t)
DMLREF_ACTIVATION_VALUE(uint32_t)
DMLREF_ACTIVATION_VALUE(uint64_t)
DMLREF_ACTIVATION_VALUE(int8_t)
DMLREF_ACTIVATION_VALUE(int16_t)
DMLREF_ACTIVATION_VALUE(int32_t)
DMLREF_ACTIVATION_VALUE(int64_t)
#undef DMLREF_ACTIVATION_VALUE

// ---- Judging (docs/tolerance.md, "Activations") -----------------------------------------------

namespace {

// HARD_SIGMOID's clamp of v = Alpha x + Beta: 1-Lipschitz, so the backend's clamped value is
// within v's error of the golden's; where v is beyond 1 or below 0 by more than its error, the
// backend's clamp gives exactly 1 or 0, with no error.
Quantity clamped(const Quantity& v) {
    Quantity h{std::clamp(v.lo, 0.0, 1.0), std::clamp(v.hi, 0.0, 1.0), v.err};
    if (v.lo - v.err >= 1 || v.hi + v.err <= 0) h.err = 0;
    return h;
}

// Element i's bound: x (and s) exact, g the golden at double (its class: NaN, infinite, finite).
template <class D>
void bound_element(const D& d, DataType t, uint64_t i, double x, double s, const ArithmeticProfile& p, TermSink& sink) {
    std::optional<DML_FUSED_ACTIVATION> a;
    if constexpr (Fusable<D>) a = form(d);
    const double g = activate<double>(d, a ? &*a : nullptr, x, s);
    if (std::isnan(g) || std::isinf(g)) {
        sink.set_computed(i, std::numeric_limits<double>::infinity(), std::fabs(x), 1, std::isnan(g), true);
        return;
    }
    bool selected = false;  // the golden is x itself, bit for bit
    double E = 0;           // stays 0 where the value is certain (a limit, a constant, a selected x)
    auto error = [&](const std::function<Quantity(const Arithmetic&)>& f) { return computed_error(p, t, f); };
    if (std::isfinite(x)) {
        if constexpr (std::is_same_v<D, IDENTITY>) {
            selected = true;
        } else if constexpr (std::is_same_v<D, LINEAR>) {
            E = error([&](const Arithmetic& ar) {
                return ar.add(ar.mul(ar.constant(d.Alpha), ar.input(x)), ar.constant(d.Beta));
            });
        } else if constexpr (std::is_same_v<D, LEAKY_RELU>) {
            if (x >= 0) selected = true;
            else E = error([&](const Arithmetic& ar) { return ar.mul(ar.constant(d.Alpha), ar.input(x)); });
        } else if constexpr (std::is_same_v<D, PRELU>) {
            if (x >= 0) selected = true;
            else E = error([&](const Arithmetic& ar) { return ar.mul(ar.input(s), ar.input(x)); });
        } else if constexpr (std::is_same_v<D, THRESHOLDED_RELU>) {
            selected = x > double(d.Alpha);
        } else if constexpr (std::is_same_v<D, SHRINK>) {
            if (x > double(d.Threshold))
                E = error([&](const Arithmetic& ar) { return ar.add(ar.input(x), ar.neg(ar.constant(d.Bias))); });
            else if (x < -double(d.Threshold))
                E = error([&](const Arithmetic& ar) { return ar.add(ar.input(x), ar.constant(d.Bias)); });
        } else if constexpr (std::is_same_v<D, HARD_SIGMOID>) {
            E = error([&](const Arithmetic& ar) {
                return clamped(ar.add(ar.mul(ar.constant(d.Alpha), ar.input(x)), ar.constant(d.Beta)));
            });
        } else if constexpr (std::is_same_v<D, HARD_SWISH>) {
            E = error([&](const Arithmetic& ar) {
                const Quantity h = clamped(ar.add(ar.mul(ar.constant(d.Alpha), ar.input(x)), ar.constant(d.Beta)));
                return ar.mul(ar.input(x), h);
            });
        } else {
            static_assert(std::is_same_v<D, SOFTSIGN>);
            E = error([&](const Arithmetic& ar) {
                const Quantity den = ar.add(ar.constant(1), ar.input(std::fabs(x)));
                return worst(ar.div(ar.input(x), den), ar.mul(ar.input(x), ar.reciprocal(den)));
            });
        }
    }
    // A zero the formula computes (+0 in the golden) may come out as -0 from a backend's IEEE
    // arithmetic (-3 * 0, x - x in the other order): computed_zero.hpp.
    if (g == 0 && !selected) E = std::max(E, computed_zero_bound(t));
    sink.set_computed(i, E, std::fabs(x), 1);
}

}  // namespace

void activation_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    visit_as<DMLREF_ACTIVATION_DESCS>(op.Desc, [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        const DataType t = d.OutputTensor.DataType;
        const std::vector<double> x = logical_doubles(d.InputTensor, input("InputTensor"));
        std::vector<double> s;
        if constexpr (std::is_same_v<D, PRELU>) s = logical_doubles(d.SlopeTensor, input("SlopeTensor"));
        for (uint64_t i = 0; i < x.size() && i < sink.elements().size(); ++i) {
            if (!is_float(t)) {
                sink.set_computed(i, 0, std::fabs(x[i]), 1);
                continue;
            }  // integers: Bits
            bound_element(d, t, i, x[i], s.empty() ? 0.0 : s[i], p, sink);
        }
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The element's input (and slope), the page's formula, and which line of it decided.
bool explain_activation(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    return visit_as<DMLREF_ACTIVATION_DESCS>(c.op.Desc, [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        const std::vector<uint64_t> at = nd_coordinate(d.OutputTensor.Sizes, flat);
        const ExplainedInput xin = input_element(c, "InputTensor", at, "x");
        out.inputs.push_back(xin);
        const DataType t = d.InputTensor.DataType;
        double x = element_value(t, xin.bits), s = 0;
        if constexpr (std::is_same_v<D, PRELU>) {
            const ExplainedInput sin = input_element(c, "SlopeTensor", at, "slope");
            out.inputs.push_back(sin);
            s = element_value(t, sin.bits);
        }
        out.facts.emplace_back("formula", formula_of<D>());
        std::string why;
        if (std::isnan(x)) {
            why = std::is_same_v<D, IDENTITY> ? "x is NaN: copied bit for bit" : "x is NaN: the canonical NaN";
            out.policies.push_back("ActivationNaN");
        } else if (std::isinf(x)) {
            why = "x is infinite: the function's limit (IEEE's rules for a product)";
            out.policies.push_back("ActivationInfinity");
        } else if constexpr (std::is_same_v<D, IDENTITY>) {
            why = "x, bit for bit";
        } else if constexpr (std::is_same_v<D, LEAKY_RELU> || std::is_same_v<D, PRELU>) {
            why = x >= 0 ? "x >= 0 holds: x, bit for bit (-0 included)" : "x < 0: the exact product, rounded once";
            if (x >= 0) out.policies.push_back("ActivationSignedZero");
        } else if constexpr (std::is_same_v<D, THRESHOLDED_RELU>) {
            why = x > double(d.Alpha) ? "x > Alpha holds (exact values): x, bit for bit"
                                      : "x > Alpha does not hold (exact values): +0";
            out.policies.push_back("ActivationCompare");
        } else if constexpr (std::is_same_v<D, SHRINK>) {
            why = x > double(d.Threshold)    ? "x > Threshold: x - Bias, exact, rounded once"
                  : x < -double(d.Threshold) ? "x < -Threshold: x + Bias, exact, rounded once"
                                             : "neither: +0";
            out.policies.push_back("ActivationCompare");
            out.policies.push_back("ShrinkOrder");
        } else {
            why = "the exact value of the formula, rounded once to nearest-even";
        }
        (void)s;
        out.facts.emplace_back("decided by", why);
        if constexpr (!std::is_same_v<D, IDENTITY>) {
            out.policies.push_back("ComputedValue");
            if (!is_float(t)) out.policies.push_back("IntegerResult");
        }
        return true;
    });
}

}  // namespace dmlref::reference
