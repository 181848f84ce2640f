// DML_OPERATOR_ACTIVATION_RELU and DML_OPERATOR_ACTIVATION_RELU_GRAD.
//
// Spec: DML_ACTIVATION_RELU_OPERATOR_DESC and DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC (DirectML API
// reference); docs/golden.md.
//
//   RELU       f(x) = max(0, x)
//   RELU_GRAD  OutputGradientTensor = (X > 0 ? dY : 0)
//
// Decisions (docs/golden.md, Decisions, recorded as policies in golden files):
//   - max(0, x) is D3D's max: a NaN operand is ignored, so RELU(NaN) = +0; and RELU(-0) = +0.
//     Both fall out of "x > 0 ? x : +0", since NaN > 0 and -0 > 0 are false.
//   - select(c, a, b) is c ? a : b on bits, and exact_gt(x, y) is x > y on exact values, both
//     without a branch (include/dmlref/numeric.hpp).
//   - RELU_GRAD takes the formula literally: X = NaN, -0 or +0 gives +0; dY passes bit for bit.
// Alternative readings (docs/golden.md, "Alternative readings"; `run --policy`): ForwardNaN=
// NaNPropagates (RELU(NaN) = NaN), GradNaN=PassesGradient (x <= 0 ? 0 : dY), SelectedZero=
// MaskProduct (dY * mask): one branch each below, off by default.
#include "activation_relu.hpp"
#include "common.hpp"
#include "dmlref/explain.hpp"

#include <cstring>
#include "dmlref/readings.hpp"

namespace dmlref::reference {

// ---- ACTIVATION_RELU ----------------------------------------------------------------------

void validate(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, Diagnostics& diags) {
    // "InputTensor and OutputTensor must have the same DataType, DimensionCount, and Sizes."
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "relu.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, "relu.same-sizes");
}

void evaluate(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    if (in_force<"ForwardNaN", "NaNPropagates">()) {  // a NaN passes as it is
        dispatch(d.InputTensor.DataType, [&]<class T>() {
            map_elements<T, T>(
                Y, [](T x) { return select(exact_gt(x, T(0)) | is_nan(x), x, T(0)); }, X);
        });
        return;
    }
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        map_elements<T, T>(
            Y, [](T x) { return select(exact_gt(x, T(0)), x, T(0)); }, X);
    });
}

// ---- ACTIVATION_RELU_GRAD -----------------------------------------------------------------

void validate(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    // "InputGradientTensor, InputTensor, and OutputGradientTensor must have the same DataType,
    // DimensionCount, and Sizes."
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},
                                              {"InputGradientTensor", d.InputGradientTensor},
                                              {"OutputGradientTensor", d.OutputGradientTensor}};
    require_same_data_type(diags, all, "relu-grad.same-data-type");
    require_same_sizes(diags, all, "relu-grad.same-sizes");
}

void evaluate(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    if (any_reading_in_force()) {  // the alternative readings, each where it decides (docs/golden.md)
        const bool nan_passes = in_force<"GradNaN", "PassesGradient">();      // x <= 0 ? 0 : dY
        const bool mask_product = in_force<"SelectedZero", "MaskProduct">();  // dY * mask
        dispatch(d.InputTensor.DataType, [&]<class T>() {
            map_elements<T, T, T>(
                dX,
                [=](T x, T dy) {
                const bool passes = nan_passes ? !exact_le(x, T(0)) : exact_gt(x, T(0));
                return select(passes, dy, mask_product ? mask_product_zero(dy) : T(0));
                },
                X, dY);
        });
        return;
    }
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        map_elements<T, T, T>(
            dX, [](T x, T dy) { return select(exact_gt(x, T(0)), dy, T(0)); }, X, dY);
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

namespace {
// An input element of the explained position and its value as T (little-endian bits).
}  // namespace

// The comparison x > 0 (exact_gt, as the loops use it) and what it selected.
bool explain_relu(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    (void)output;
    const bool grad = holds<DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC>(c.op.Desc);
    const TensorDesc& in = *tensor_fields(c.op).front().desc;  // InputTensor first in both
    const std::vector<uint64_t> at = nd_coordinate(in.Sizes, flat);
    const ExplainedInput xin = input_element(c, "InputTensor", at, "x");
    out.inputs.push_back(xin);
    if (grad) out.inputs.push_back(input_element(c, "InputGradientTensor", at, "dY"));
    dispatch(in.DataType, [&]<class T>() {
        const T x = explained_value<T>(xin);
        const bool gt = exact_gt(x, T(0));
        const bool nan = Number::of(x).is_nan();
        out.facts.emplace_back("decided by", std::string(gt ? "x > 0 holds: " : "x > 0 does not hold") +
                                                 (nan ? " (x is NaN)" : "") +
                                                 (gt ? (grad ? "dY passes" : "x passes") : ": the result is +0"));
        if (nan) out.policies.push_back(grad ? "GradNaN" : "ForwardNaN");
        if (!gt) out.policies.push_back("SelectedZero");
    });
    return true;
}

}  // namespace dmlref::reference
