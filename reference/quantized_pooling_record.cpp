// The QUANTIZED_LINEAR_AVERAGE_POOLING family's record (reference/kit/family.hpp): the facts of
// DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC from its page ("Availability", "Tensor
// support"), the policies its goldens record, how its output is judged (docs/tolerance.md,
// "Quantized average pooling": bit for bit, or within 1 at the QuantizeTie elements), coverage,
// gen and the work estimate (the window geometry of reference/pooling_geometry.hpp).
#include "quantized_pooling.hpp"

#include "kit/policies.hpp"

#include <algorithm>

namespace dmlref::reference {

namespace rec_quantized_pooling {

using namespace kit;

// docs/golden.md, "Quantized average pooling". The divisor's and the requantization's policies
// are average pooling's and the quantization family's, by name.
constexpr Policy kRequantizeValue{"RequantizeValue", "ExactThenRoundOnce"};
constexpr Policy kQuantizeRounding{"QuantizeRounding", "HalfToEven"};
constexpr Policy kQuantizeNaN{"QuantizeNaN", "Minimum"};
constexpr Policy kNegativeScale{"NegativeScale", "FormulaLiteral"};
constexpr Policy kIncludePaddingDivisor{"IncludePaddingDivisor", "WindowSizeProduct"};
constexpr Policy kExcludePaddingDivisor{"ExcludePaddingDivisor", "RealElementCount"};
constexpr Policy kQuantizedPoolingPadding{"QuantizedPoolingPadding", "DequantizedZero"};
constexpr Policy kQuantizedPoolingEmptyWindow{"QuantizedPoolingEmptyWindow", "DontCareZeroPoint"};

const std::vector<DT> kF32 = {DT::FLOAT32};
const std::vector<DT> kI8U8 = {DT::INT8, DT::UINT8};

bool per_channel(const TensorDesc& t) { return element_count(t) > 1; }

void detect(const Case& c, std::vector<std::string>& f) {
    const QAP& d = get<QAP>(c.op.Desc);
    pooling_window_features(view(d), f);
    if (d.IncludePadding == 0 && pooling_empty_windows(view(d)) > 0) f.push_back("all-padding-window");
    f.push_back(d.IncludePadding ? "include-padding" : "exclude-padding");
    if (!d.InputZeroPointTensor || !d.OutputZeroPointTensor) f.push_back("no-zero-point");
    if (per_channel(d.InputScaleTensor) || per_channel(d.OutputScaleTensor) ||
        (d.InputZeroPointTensor && per_channel(*d.InputZeroPointTensor)) ||
        (d.OutputZeroPointTensor && per_channel(*d.OutputZeroPointTensor)))
        f.push_back("per-channel");
    if (d.InputTensor.DataType != d.OutputTensor.DataType) f.push_back("mixed-signedness");
    if (!quantized_pool_ties(c, "OutputTensor").empty()) f.push_back("rounding-tie");
}

uint64_t taps(const OperatorDesc& d) { return pooling_window_taps(view(get<QAP>(d))); }

uint64_t empty_entries(const OperatorDesc& desc) {
    const QAP& d = get<QAP>(desc);
    return d.IncludePadding == 0 ? pooling_empty_windows(view(d)) : 0;
}

std::vector<uint64_t> windows(const Operator& op, const TensorDesc& in, int where) {
    return pooling_window_positions(view(get<QAP>(op.Desc)), in, where);
}

bool explain(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const QAP& d = get<QAP>(c.op.Desc);
    explain_pooling_window(c, view(d), false, flat, "InputTensor", "InputTensor", out);
    out.facts.emplace_back("formula",
                           "clamp(round_half_even(S * InputScale / (D * OutputScale)) + OutputZeroPoint, Min, Max), "
                           "S the exact sum of (q - InputZeroPoint) over the window's real elements");
    out.facts.emplace_back("divisor", d.IncludePadding ? "the window's size, padding included (IncludePadding TRUE)"
                                                       : "the window's real elements (IncludePadding FALSE)");
    const auto ties = quantized_pool_ties(c, "OutputTensor");
    if (std::any_of(ties.begin(), ties.end(), [&](const BoundaryElement& e) { return e.Index == flat; }))
        out.facts.emplace_back(
            "tie",
            "the exact quotient is within FLOAT32's error of a half-integer: a backend may give the other neighbour");
    out.policies = {"RequantizeValue", "QuantizeRounding",
                    d.IncludePadding ? "IncludePaddingDivisor" : "ExcludePaddingDivisor", "QuantizedPoolingPadding"};
    return true;
}

OperatorRecord quantized_linear_average_pooling() {
    auto r = operator_record<QAP, validate, evaluate>({
        .IntroducedIn = 0x6200,
        .InPlace = {},
        .Support = {{0x6200, {"InputTensor", "OutputTensor"}, 4, 5, kI8U8},
                    {0x6200, {"InputScaleTensor", "OutputScaleTensor"}, 1, 5, kF32},
                    {0x6200, {"InputZeroPointTensor", "OutputZeroPointTensor"}, 1, 5, kI8U8}},
        .Policies = {kRequantizeValue, kQuantizeRounding, kQuantizeNaN, kNegativeScale, kIncludePaddingDivisor,
                     kExcludePaddingDivisor, kQuantizedPoolingPadding, kQuantizedPoolingEmptyWindow, kOutputSizes},
    });
    r.validate_values = validate_values_as<QAP, validate_values>;
    r.dont_care = dont_care_as<QAP, quantized_pool_dont_care>;
    r.dont_care_entries = empty_entries;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated}};
    r.case_tolerance = quantized_pool_tolerance;
    r.case_boundary = quantized_pool_ties;
    r.reads_inputs = true;
    r.explain = explain;
    r.MinRank = 3;
    r.ScopeTypes = kI8U8;  // InputTensor's types
    r.features = {"padding",       "stride>1",           "overlapping-windows", "ceil-size",
                  "dilation>1",    "all-padding-window", "include-padding",     "exclude-padding",
                  "no-zero-point", "per-channel",        "mixed-signedness",    "rounding-tie"};
    r.detect = detect;
    r.work_factor = taps;
    r.rounding_cost =
        rounding_cost<100>;  // the requantization, exact and rounded once (measured; docs/rules.md, limit.work)
    r.ArraysFrom = 2;
    r.sizes = pooling_sizes;
    r.windows = windows;
    return r;
}

}  // namespace rec_quantized_pooling

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& quantized_pooling_family() {
    using namespace reference::rec_quantized_pooling;
    static const FamilyRecord f{
        "quantized_pooling",
        {quantized_linear_average_pooling()},
        // docs/golden.md, "Alternative readings" (reference/quantized_pooling.cpp, pooled).
        {{.Policy = "QuantizedPoolingPadding",
          .Value = "RawZero",
          .Meaning = "with IncludePadding, each padding position of a window is the quantized value 0, dequantized "
                     "(0 - InputZeroPoint) * InputScale, a term of the sum (without IncludePadding padding is no term "
                     "either way)",
          .Who = "kernels that pad the quantized input with 0 bytes before averaging",
          .Operators = {OperatorType::QUANTIZED_LINEAR_AVERAGE_POOLING}}}};
    return f;
}
}  // namespace dmlref::kit
