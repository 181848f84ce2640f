// DML_OPERATOR_ELEMENT_WISE_CLIP, _CLIP1, _CLIP_GRAD and _CLIP_GRAD1.
//
// Spec: DML_ELEMENT_WISE_CLIP, CLIP1, CLIP_GRAD and CLIP_GRAD1_OPERATOR_DESC (DirectML API reference);
// docs/golden.md.
//
//   CLIP        f(x) = min(Max, max(Min, g(x)))      Min, Max: FLOAT
//   CLIP1       f(x) = max(Min, min(g(x), Max))      Min, Max: DML_SCALAR_UNION in MinMaxDataType
//   CLIP_GRAD   dX = (x <= Min) ? 0 : (x >= Max) ? 0 : dY       Min, Max: FLOAT
//   CLIP_GRAD1  the same, Min and Max in MinMaxDataType
//   g(x) = x * Scale + Bias when ScaleBias is given, else x.
//
// Decisions (docs/golden.md, Decisions; docs/golden.md for the ones marked *):
//   - min and max are D3D's: a NaN operand is ignored and -0 orders below +0. So CLIP1(NaN) =
//     max(Min, Max) and CLIP(NaN) = min(Max, Min).
//   - Min > Max: each formula literally (CLIP gives Max, CLIP1 gives Min, the grads give 0).
//   - FLOAT Min/Max against FLOAT16 or integer data compare exact values; when a FLOAT bound is
//     the result for integer data it is stored rounded to nearest-even and saturated (*).
//   - ScaleBias: only for float data (integer data with ScaleBias is an error); x * Scale, then
//     + Bias, each rounded to float32 (float64 for FLOAT64 data), no fused multiply-add (*).
//   - The grads' "0" is +0; NaN x passes dY (neither x <= Min nor x >= Max holds).
// Alternative readings (docs/golden.md, "Alternative readings"; `run --policy`), each a branch
// below, off by default: ForwardNaN=NaNPropagates (CLIP(NaN) = NaN); in the grads GradNaN=
// ZeroGradient, ClipGradBounds=GradientAtBounds or HalfAtBounds, SelectedZero=MaskProduct.
#include "element_wise_clip.hpp"
#include "common.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/values.hpp"

#include <cstring>
#include "dmlref/readings.hpp"

namespace dmlref::reference {

namespace {

// Validation shared by the four: ScaleBias only on floats, MinMaxDataType. Rule ids are
// passed whole so that docs/rules.md can be checked against the code.
void validate_scale_bias(Diagnostics& diags, const std::optional<DML_SCALE_BIAS>& sb, DataType t,
                         std::string_view rule) {
    if (sb && is_valid(t) && !is_float(t))
        diags.error("/desc/ScaleBias", std::string(rule),
                    "ScaleBias is given for " + std::string(name(t)) +
                        " data; the spec does not define x * Scale + Bias for integer tensors (docs/golden.md)");
}

void validate_min_max_type(Diagnostics& diags, DataType minmax, const TensorDesc& out, std::string_view out_name,
                           const DML_SCALAR_UNION& Min, const DML_SCALAR_UNION& Max, std::string_view rule,
                           std::string_view upper_bytes_rule) {
    if (!is_valid(minmax)) {
        diags.error("/desc/MinMaxDataType", std::string(rule),
                    "MinMaxDataType must be one of the DML_TENSOR_DATA_TYPE values FLOAT32..INT64");
        return;
    }
    if (minmax != out.DataType)
        diags.error("/desc/MinMaxDataType", std::string(rule),
                    "MinMaxDataType is " + std::string(name(minmax)) + " but " + std::string(out_name) +
                        ".DataType is " + std::string(name(out.DataType)) +
                        "; MinMaxDataType must match the output's DataType");
    // Bytes past the member are not read; non-zero ones suggest another encoding (a FLOAT16
    // bound written as Float32, say), which dmlref would silently misread without this.
    for (const auto& [field, u] : {std::pair{"Min", &Min}, std::pair{"Max", &Max}})
        for (size_t i = element_size(minmax); i < 8; ++i)
            if (u->Bytes[i] != 0) {
                diags.warning(std::string("/desc/") + field, std::string(upper_bytes_rule),
                              std::string(field) + " has non-zero bytes beyond its " + std::string(name(minmax)) +
                                  " member; they are ignored (FLOAT16 is read from the UInt16 member)");
                break;
            }
}

// g(x) = x * Scale + Bias for float data, in float32 (float64 for FLOAT64), unfused.
template <class T> Number scaled(T x, const std::optional<DML_SCALE_BIAS>& sb) {
    if constexpr (is_floating_v<T>) {
        if (!sb) return Number::of(x);
        using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
        const W product = static_cast<W>(widen(x)) * static_cast<W>(sb->Scale);
        return Number::of(static_cast<W>(product + static_cast<W>(sb->Bias)));
    } else {
        return Number::of(x);  // validation rejects ScaleBias on integer data
    }
}

}  // namespace

// ---- ELEMENT_WISE_CLIP --------------------------------------------------------------------

void validate(const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "clip.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, "clip.same-sizes");
    validate_scale_bias(diags, d.ScaleBias, d.InputTensor.DataType, "clip.scale-bias-integer");
}

void evaluate(const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const Number Min = Number::of(d.Min), Max = Number::of(d.Max);
    const bool nan_propagates = in_force<"ForwardNaN", "NaNPropagates">();
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        map_elements<T, T>(
            Y,
            [&](T x) {
            const Number g = scaled(x, d.ScaleBias);
            if (nan_propagates && g.is_nan()) return is_nan(x) ? x : store<T>(g);
            return store<T>(min_number(Max, max_number(Min, g)));
            },
            X);
    });
}

// ---- ELEMENT_WISE_CLIP1 -------------------------------------------------------------------

void validate(const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "clip1.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, "clip1.same-sizes");
    validate_scale_bias(diags, d.ScaleBias, d.InputTensor.DataType, "clip1.scale-bias-integer");
    validate_min_max_type(diags, d.MinMaxDataType, d.OutputTensor, "OutputTensor", d.Min, d.Max,
                          "clip1.min-max-data-type", "clip1.scalar-union-upper-bytes");
}

void evaluate(const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const Number Min = Number::of(d.Min.as<T>()), Max = Number::of(d.Max.as<T>());
        const bool nan_propagates = in_force<"ForwardNaN", "NaNPropagates">();
        map_elements<T, T>(
            Y,
            [&](T x) {
            const Number g = scaled(x, d.ScaleBias);
            if (nan_propagates && g.is_nan()) return is_nan(x) ? x : store<T>(g);
            return store<T>(max_number(Min, min_number(g, Max)));
            },
            X);
    });
}

// ---- ELEMENT_WISE_CLIP_GRAD and CLIP_GRAD1 ------------------------------------------------

namespace {
// dX = (x <= Min) ? 0 : (x >= Max) ? 0 : dY, comparing exact values; B is the bounds' type.
template <class T, class B>
void clip_grad(const TensorView& X, const TensorView& dY, const TensorView& dX, B Min, B Max) {
    if (!any_reading_in_force()) {
        map_elements<T, T, T>(
            dX, [=](T x, T dy) { return select(exact_le(x, Min) | exact_ge(x, Max), T(0), dy); }, X, dY);
        return;
    }
    // The alternative readings (docs/golden.md), each where it decides.
    const bool at_bounds = in_force<"ClipGradBounds", "GradientAtBounds">();
    const bool half = in_force<"ClipGradBounds", "HalfAtBounds">();
    const bool nan_zero = in_force<"GradNaN", "ZeroGradient">();
    const bool mask_product = in_force<"SelectedZero", "MaskProduct">();
    map_elements<T, T, T>(
        dX,
        [=](T x, T dy) {
        const T zero = mask_product ? mask_product_zero(dy) : T(0);
        if (nan_zero && is_nan(x)) return zero;
        if (at_bounds) return (exact_lt(x, Min) | exact_gt(x, Max)) ? zero : dy;
        if (half && (exact_compare(x, Min) == std::partial_ordering::equivalent ||
                     exact_compare(x, Max) == std::partial_ordering::equivalent)) {
            // d/dx min(max(x, Min), Max): 1/2 for each bound x ties, 0 once x is past the other.
            if (exact_lt(x, Min) | exact_gt(x, Max)) return zero;
            const int k = (exact_compare(x, Min) == std::partial_ordering::equivalent) +
                          (exact_compare(x, Max) == std::partial_ordering::equivalent);
            return scaled_down(dy, k);
        }
        return (exact_le(x, Min) | exact_ge(x, Max)) ? zero : dy;
        },
        X, dY);
}
}  // namespace

void validate(const DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},
                                              {"InputGradientTensor", d.InputGradientTensor},
                                              {"OutputGradientTensor", d.OutputGradientTensor}};
    require_same_data_type(diags, all, "clip-grad.same-data-type");
    require_same_sizes(diags, all, "clip-grad.same-sizes");
}

void evaluate(const DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    dispatch(d.InputTensor.DataType, [&]<class T>() { clip_grad<T, float>(X, dY, dX, d.Min, d.Max); });
}

void validate(const DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},
                                              {"InputGradientTensor", d.InputGradientTensor},
                                              {"OutputGradientTensor", d.OutputGradientTensor}};
    require_same_data_type(diags, all, "clip-grad1.same-data-type");
    require_same_sizes(diags, all, "clip-grad1.same-sizes");
    validate_min_max_type(diags, d.MinMaxDataType, d.OutputGradientTensor, "OutputGradientTensor", d.Min, d.Max,
                          "clip-grad1.min-max-data-type", "clip-grad1.scalar-union-upper-bytes");
}

void evaluate(const DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    dispatch(d.InputTensor.DataType, [&]<class T>() { clip_grad<T, T>(X, dY, dX, d.Min.as<T>(), d.Max.as<T>()); });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

namespace {
// An input element of the explained position and its value as T (little-endian bits).
}  // namespace

// Which comparison of the formula decided the element: the same Number comparisons and D3D
// min/max (include/dmlref/numeric.hpp) the evaluate loops use.
bool explain_clip(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    (void)output;
    const Operator& op = c.op;
    const bool clip = holds<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>(op.Desc);
    const bool clip1 = holds<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>(op.Desc);
    const bool grad = holds<DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC>(op.Desc);
    const bool grad1 = holds<DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC>(op.Desc);
    const TensorDesc& in = *tensor_fields(op).front().desc;  // InputTensor comes first in every clip desc
    const std::vector<uint64_t> at = nd_coordinate(in.Sizes, flat);
    const ExplainedInput xin = input_element(c, "InputTensor", at, "x");
    out.inputs.push_back(xin);
    if (grad || grad1) out.inputs.push_back(input_element(c, "InputGradientTensor", at, "dY"));
    dispatch(in.DataType, [&]<class T>() {
        const T x = explained_value<T>(xin);
        Number Min, Max, g = Number::of(x);
        std::optional<DML_SCALE_BIAS> sb;
        if (auto* d = get_if<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>(&op.Desc)) {
            Min = Number::of(d->Min);
            Max = Number::of(d->Max);
            sb = d->ScaleBias;
        }
        if (auto* d = get_if<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>(&op.Desc)) {
            Min = Number::of(d->Min.as<T>());
            Max = Number::of(d->Max.as<T>());
            sb = d->ScaleBias;
        }
        if (auto* d = get_if<DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC>(&op.Desc)) {
            Min = Number::of(d->Min);
            Max = Number::of(d->Max);
        }
        if (auto* d = get_if<DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC>(&op.Desc)) {
            Min = Number::of(d->Min.as<T>());
            Max = Number::of(d->Max.as<T>());
        }
        auto text = [](const Number& n) {
            if (!n.is_integer) return format_exact_value(DataType::FLOAT64, to_bits(n.f));
            return n.i < 0 ? std::to_string(int64_t(n.i))
                           : std::to_string(uint64_t(n.i));  // integer types fit in 64 bits
        };
        out.facts.emplace_back("Min", text(Min));
        out.facts.emplace_back("Max", text(Max));
        if (sb) {
            g = scaled(x, sb);
            out.facts.emplace_back("g(x)", "x * Scale + Bias = " + text(g) + " (ScaleBias)");
            out.policies.push_back("ScaleBiasArithmetic");
        }
        const std::string gx = sb ? "g(x)" : "x";
        std::string decided;
        if (clip || clip1) {
            if (g.is_nan()) {
                decided = gx + " is NaN: D3D min and max ignore it, so the result is " +
                          std::string(clip ? "min(Max, Min)" : "max(Min, Max)");
                out.policies.push_back("ForwardNaN");
            } else if (g < Min) {
                decided = gx + " < Min: the result is Min" +
                          std::string(Min > Max ? (clip ? ", then min(Max, Min) = Max" : "") : "");
            } else if (g > Max) {
                decided = gx + " > Max: the result is Max" +
                          std::string(Min > Max ? (clip1 ? ", then max(Min, Max) = Min" : "") : "");
            } else {
                decided = "Min <= " + gx + " <= Max: " + gx + " passes";
            }
            if (Min > Max) out.policies.push_back("MinGreaterThanMax");
            if (!g.is_nan() && (compare(g, Min) == std::partial_ordering::equivalent ||
                                compare(g, Max) == std::partial_ordering::equivalent))
                out.policies.push_back("SignedZeroMinMax");
            if (!is_floating_v<T> && clip) out.policies.push_back("ClipBoundStore");
        } else {
            if (Number::of(x).is_nan()) decided = "x is NaN: neither x <= Min nor x >= Max holds, so dY passes";
            else if (Number::of(x) <= Min) decided = "x <= Min: the result is +0";
            else if (Number::of(x) >= Max) decided = "x >= Max: the result is +0";
            else decided = "Min < x < Max: dY passes";
            out.policies.push_back(Number::of(x).is_nan() ? "GradNaN" : "SelectedZero");
            if (Min > Max) out.policies.push_back("MinGreaterThanMax");
        }
        out.facts.emplace_back("decided by", decided);
        if (clip || grad) out.policies.push_back("ClipFloatBoundCompare");
    });
    return true;
}

}  // namespace dmlref::reference
