// DML_OPERATOR_ACTIVATION_SIGMOID, _TANH and _GELU: the activations whose values are not rational.
//
// Spec: DirectML API reference, "DML_ACTIVATION_SIGMOID_OPERATOR_DESC structure" (f(x) = 1 / (1 +
// exp(-x))), "DML_ACTIVATION_TANH_OPERATOR_DESC structure" (f(x) = (1 - exp(-2 * x)) / (1 + exp(-2 *
// x))), "DML_ACTIVATION_GELU_OPERATOR_DESC structure" (f(x) = 0.5 * x * (1 + erf(x / sqrt(2)))).
// InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes; in-place
// execution is allowed.
//
// Decisions (docs/golden.md, "Transcendental activations"): each value is the one batch
// normalization's fused activation of the same name gives (reference/fused_activation.cpp; the
// DirectML documentation's "Using fused operators for improved performance": a fused activation
// produces the same result as the separate operator), so the two can never disagree:
//   - the exact value of the page's formula rounded once (ComputedValue), through Ziv's loop in
//     MPFR, written without cancellation (GELU as x erfc(-x / sqrt(2)) / 2);
//   - NaN gives the canonical NaN (ActivationNaN); +-inf the function's limit (ActivationInfinity:
//     sigmoid 0 and 1, tanh -1 and 1, gelu +0 and inf);
//   - an exact zero is +0 (ZeroResult=PositiveZero: tanh(-0) = gelu(-0) = +0; sigmoid has none);
//   - integer data (outside the pages' tables): the exact value rounded half to even and saturated
//     (IntegerResult).
#include "activation_math.hpp"

#include "fused_activation.hpp"

#include "dmlref/bits.hpp"
#include "dmlref/bound.hpp"
#include "dmlref/working_types.hpp"
#include "dmlref/terms.hpp"

#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

DML_FUSED_ACTIVATION fused(std::string_view name) {
    DML_FUSED_ACTIVATION a;
    for (uint32_t i = 0; i < fused_activation_types().size(); ++i)
        if (fused_activation_types()[i].Name == name) a.Type = i;
    return a;
}

void validate_same(const TensorDesc& in, const TensorDesc& out, Diagnostics& diags, std::string_view same_type, std::string_view same_sizes) {
    const std::initializer_list<Named> all = {{"InputTensor", in}, {"OutputTensor", out}};
    require_same_data_type(diags, all, same_type);
    require_same_sizes(diags, all, same_sizes);
}

// One loop for the three: the activation is a value (a DML_FUSED_ACTIVATION), not a template argument.
void evaluate_activation(std::string_view name, const TensorDesc& in, const TensorDesc& out, const Bindings& b) {
    const DML_FUSED_ACTIVATION a = fused(name);
    const TensorView X(in, b.at("InputTensor"));
    const TensorView Y(out, b.at("OutputTensor"));
    dispatch(in.DataType, [&]<class T>() { map_elements<T, T>(Y, [&](T x) { return fused_activation<T>(a, x); }, X); });
}

}  // namespace

void validate(const DML_ACTIVATION_SIGMOID_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_same(d.InputTensor, d.OutputTensor, diags, "sigmoid.same-data-type", "sigmoid.same-sizes");
}
void evaluate(const DML_ACTIVATION_SIGMOID_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_activation("ACTIVATION_SIGMOID", d.InputTensor, d.OutputTensor, b);
}
void validate(const DML_ACTIVATION_TANH_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_same(d.InputTensor, d.OutputTensor, diags, "activation-tanh.same-data-type", "activation-tanh.same-sizes");
}
void evaluate(const DML_ACTIVATION_TANH_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_activation("ACTIVATION_TANH", d.InputTensor, d.OutputTensor, b);
}
void validate(const DML_ACTIVATION_GELU_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_same(d.InputTensor, d.OutputTensor, diags, "gelu.same-data-type", "gelu.same-sizes");
}
void evaluate(const DML_ACTIVATION_GELU_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_activation("ACTIVATION_GELU", d.InputTensor, d.OutputTensor, b);
}

// ---- Judging (docs/tolerance.md, "Transcendental activations") -------------------------------

// Each element's bound as the fused activation's (docs/tolerance.md, "Fused activations"): x is
// exact (E = 0), the activation's own error in each working type w the profile allows
// (fused_activation_error: the stated exp, tanh and erf accuracies through the formula, its
// cancellations included), then the rounding to the output type when w is wider. An infinite x
// gives the function's limit, which a backend must give: bound 0.
void activation_math_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const char* name = op.Type == OperatorType::ACTIVATION_SIGMOID ? "ACTIVATION_SIGMOID"
                       : op.Type == OperatorType::ACTIVATION_TANH  ? "ACTIVATION_TANH"
                                                                   : "ACTIVATION_GELU";
    const DML_FUSED_ACTIVATION a = fused(name);
    const TensorDesc& in = *tensor_fields(op).front().desc;  // InputTensor; OutputTensor has its type
    const DataType t = in.DataType;
    const std::vector<double> x = logical_doubles(in, input("InputTensor"));
    const std::vector<DataType> ws = working_types(p, t);  // the working types the profile admits
    const bool flush = p.flush_subnormals;
    auto eta = [&](DataType w) { return flush ? smallest_normal(w) : subnormal_rounding_error(w); };
    for (uint64_t e = 0; e < x.size() && e < sink.elements().size(); ++e) {
        const double v = x[e];
        if (!is_float(t)) { sink.set_computed(e, 0, std::fabs(v), 1); continue; }  // integers: Bits
        if (v != v) { sink.set_computed(e, 0, 0, 1, true, false); continue; }
        if (std::isinf(v)) {
            const bool infinite = op.Type == OperatorType::ACTIVATION_GELU && v > 0;
            sink.set_computed(e, 0, infinite ? std::numeric_limits<double>::infinity() : 1, 1, false, infinite);
            continue;
        }
        double worst = 0;
        for (DataType w : ws) {
            const ActivationError r = fused_activation_error(a, v, 0, w, flush);
            double err = r.error;
            if (std::isfinite(err) && w != t) err += unit_roundoff(t) * (r.magnitude + r.error) + eta(t);
            worst = std::max(worst, err * (1 + 1e-9));
        }
        sink.set_computed(e, worst, std::fabs(v), 1);
    }
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_activation_math(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const OperatorType t = c.op.Type;
    const char* formula = t == OperatorType::ACTIVATION_SIGMOID ? "1 / (1 + exp(-x))"
                          : t == OperatorType::ACTIVATION_TANH  ? "(1 - exp(-2 x)) / (1 + exp(-2 x)) = tanh(x)"
                          : t == OperatorType::ACTIVATION_GELU  ? "0.5 x (1 + erf(x / sqrt(2)))"
                                                                : nullptr;
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
    } else if (x == 0 && t != OperatorType::ACTIVATION_SIGMOID) {
        out.facts.emplace_back("decided by", "an exact zero: +0");
        out.policies.push_back("ZeroResult");
    } else {
        out.facts.emplace_back("decided by", "the exact value rounded once to nearest-even (Ziv's loop in MPFR), as the fused activation");
        out.policies.push_back("ComputedValue");
    }
    return true;
}

}  // namespace dmlref::reference
