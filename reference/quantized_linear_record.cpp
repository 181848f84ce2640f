// The quantized linear family's record (reference/kit/family.hpp): the facts of
// DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC and DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC
// from their pages ("Availability", "Tensor support"), the policies their goldens record, and how
// their outputs are judged (docs/tolerance.md, "Quantized linear products"): bit for bit, or within
// 1 at the elements whose exact value lies within FLOAT32's error of a rounding tie (QuantizeTie).
#include "quantized_linear.hpp"

#include "gemm.hpp"
#include "kit/policies.hpp"

#include "dmlref/checked.hpp"

#include <algorithm>

namespace dmlref::reference {

namespace rec_quantized_linear {

using namespace kit;
using QLMM = DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC;
using QLCONV = DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC;

// The policies (docs/golden.md, "Quantized linear products"); the quantization family's names
// where the decision is the same.
constexpr Policy kQuantizedAccumulator{"QuantizedAccumulator", "Exact"};
constexpr Policy kRequantizeValue{"RequantizeValue", "ExactThenRoundOnce"};
constexpr Policy kQuantizeRounding{"QuantizeRounding", "HalfToEven"};
constexpr Policy kNegativeScale{"NegativeScale", "FormulaLiteral"};
constexpr Policy kQuantizedConvolutionBias{"QuantizedConvolutionBias", "AccumulatorUnits"};
constexpr Policy kIntegerPadding{"IntegerPadding", "InputZeroPoint"};
constexpr Policy kConvolutionOutputSizes{"ConvolutionOutputSizes", "Floor"};

const std::vector<DT> kF32 = {DT::FLOAT32};
const std::vector<DT> kI8U8 = {DT::INT8, DT::UINT8};
const std::vector<DT> kI32 = {DT::INT32};

bool zero_stride(const TensorDesc& d, size_t dims) {
    for (size_t i = 0; i < dims && i < d.Strides.size() && i < d.Sizes.size(); ++i)
        if (d.Strides[i] == 0 && d.Sizes[i] > 1) return true;
    return false;
}

// What every quantized linear output shares: ties, saturation.
void value_features(const Case& c, std::vector<std::string>& f) {
    if (!quantized_linear_ties(c, "OutputTensor").empty()) f.push_back("rounding-tie");
    const auto r = requantize_elements(c);
    if (!r) return;
    for (const RequantizeTerms& t : r->terms) {
        const int64_t v = requantized_element(t, r->lo, r->hi);
        if (v == r->lo || v == r->hi) {
            f.push_back("saturated");
            break;
        }
    }
}

void matmul_detect(const Case& c, std::vector<std::string>& f) {
    const QLMM& d = get<QLMM>(c.op.Desc);
    if (!d.AZeroPointTensor && !d.BZeroPointTensor && !d.OutputZeroPointTensor) f.push_back("no-zero-point");
    if (element_count(d.AScaleTensor) > 1 || (d.AZeroPointTensor && element_count(*d.AZeroPointTensor) > 1))
        f.push_back("per-row-a");
    if (element_count(d.BScaleTensor) > 1 || (d.BZeroPointTensor && element_count(*d.BZeroPointTensor) > 1))
        f.push_back("per-column-b");
    if (element_count(d.OutputScaleTensor) > 1 ||
        (d.OutputZeroPointTensor && element_count(*d.OutputZeroPointTensor) > 1))
        f.push_back("per-row-output");
    const size_t batch = d.OutputTensor.Sizes.size() >= 2 ? d.OutputTensor.Sizes.size() - 2 : 0;
    if (zero_stride(d.ATensor, batch) || zero_stride(d.BTensor, batch)) f.push_back("batch-broadcast");
    if (d.ATensor.DataType != d.BTensor.DataType || d.ATensor.DataType != d.OutputTensor.DataType)
        f.push_back("mixed-signedness");
    value_features(c, f);
}

// The estimate (lib/case/case_run.cpp) multiplies every tensor's elements by the factor: reading
// `reads` elements for each of `outputs` elements over `elements` in all is this factor.
uint64_t spread(uint64_t reads, uint64_t outputs, uint64_t elements) {
    const uint64_t e = std::max<uint64_t>(elements, 1);
    return 1 + saturating_add(saturating_mul(reads, outputs), e - 1) / e;
}

uint64_t matmul_work(const OperatorDesc& desc) {
    const QLMM& d = get<QLMM>(desc);
    const uint64_t out = element_count(d.OutputTensor);
    return spread(saturating_mul(2, gemm_shape(d.OutputTensor, d.ATensor, false).K) + 4, out,
                  element_count(d.ATensor) + element_count(d.BTensor) + out);
}

OperatorRecord quantized_linear_matrix_multiply() {
    const std::vector<std::string_view> integers = {"ATensor",          "AZeroPointTensor",      "BTensor",
                                                    "BZeroPointTensor", "OutputZeroPointTensor", "OutputTensor"};
    const std::vector<std::string_view> scales = {"AScaleTensor", "BScaleTensor", "OutputScaleTensor"};
    auto r = operator_record<QLMM, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .InPlace = {},
        .Support = {{0x2100, integers, 4, 4, kI8U8},
                    {0x2100, scales, 4, 4, kF32},
                    {0x4000, {"ATensor", "BTensor", "OutputTensor"}, 2, 4, kI8U8},
                    {0x4000, {"AZeroPointTensor", "BZeroPointTensor", "OutputZeroPointTensor"}, 1, 4, kI8U8},
                    {0x4000, scales, 1, 4, kF32}},
        .Policies = {kQuantizedAccumulator, kRequantizeValue, kQuantizeRounding, kNegativeScale, kSubnormals},
    });
    r.validate_values = validate_values_as<QLMM, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated}};
    r.case_tolerance = quantized_linear_tolerance;
    r.rounding_cost =
        rounding_cost<200>;  // the requantization, exact and rounded once (measured; docs/rules.md, limit.work)
    r.case_boundary = quantized_linear_ties;
    r.reads_inputs = true;
    r.explain = explain_quantized_linear;
    r.MinRank = 2;
    r.MaxRank = 4;
    r.ScopeTypes = kI8U8;  // ATensor's types
    r.features = {"no-zero-point",   "per-row-a",        "per-column-b", "per-row-output",
                  "batch-broadcast", "mixed-signedness", "rounding-tie", "saturated"};
    r.detect = matmul_detect;
    r.work_factor = matmul_work;
    r.BaseTensors = {"ATensor"};
    return r;
}

void convolution_detect(const Case& c, std::vector<std::string>& f) {
    const QLCONV& d = get<QLCONV>(c.op.Desc);
    if (d.BiasTensor) f.push_back("bias");
    if (element_count(d.FilterScaleTensor) > 1 ||
        (d.FilterZeroPointTensor && element_count(*d.FilterZeroPointTensor) > 1))
        f.push_back("per-channel");
    if (!d.InputZeroPointTensor && !d.FilterZeroPointTensor && !d.OutputZeroPointTensor) f.push_back("no-zero-point");
    const uint64_t channels = d.InputTensor.Sizes.size() > 1 ? d.InputTensor.Sizes[1] : 0;
    if (d.GroupCount > 1) f.push_back(d.GroupCount == channels ? "depthwise" : "grouped");
    for (size_t i = 0; i < d.StartPadding.size() && i < d.EndPadding.size(); ++i)
        if (d.StartPadding[i] || d.EndPadding[i]) {
            f.push_back("padding");
            break;
        }
    f.push_back("spatial-" + std::to_string(d.InputTensor.Sizes.size() >= 2 ? d.InputTensor.Sizes.size() - 2 : 0) +
                "d");
    value_features(c, f);
}

uint64_t convolution_work(const OperatorDesc& desc) {
    const QLCONV& d = get<QLCONV>(desc);
    uint64_t k = d.FilterTensor.Sizes.size() > 1 ? d.FilterTensor.Sizes[1] : 1;
    for (size_t i = 2; i < d.FilterTensor.Sizes.size(); ++i) k = saturating_mul(k, d.FilterTensor.Sizes[i]);
    const uint64_t out = element_count(d.OutputTensor);
    return spread(saturating_mul(2, k) + 4, out, element_count(d.InputTensor) + element_count(d.FilterTensor) + out);
}

OperatorRecord quantized_linear_convolution() {
    const std::vector<std::string_view> data = {"InputTensor", "FilterTensor", "OutputTensor"};
    const std::vector<std::string_view> zero_points = {"InputZeroPointTensor", "FilterZeroPointTensor",
                                                       "OutputZeroPointTensor"};
    const std::vector<std::string_view> scales = {"InputScaleTensor", "OutputScaleTensor"};
    auto r = operator_record<QLCONV, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .InPlace = {},
        .Support = {{0x2100, data, 4, 4, kI8U8},
                    {0x2100, zero_points, 4, 4, kI8U8},
                    {0x2100, {"InputScaleTensor", "FilterScaleTensor", "OutputScaleTensor"}, 4, 4, kF32},
                    {0x2100, {"BiasTensor"}, 4, 4, kI32},
                    {0x4000, data, 3, 4, kI8U8},
                    {0x4000, zero_points, 1, 4, kI8U8},
                    {0x4000, scales, 1, 4, kF32},
                    {0x4000, {"FilterScaleTensor"}, 3, 4, kF32},
                    {0x4000, {"BiasTensor"}, 3, 4, kI32},
                    {0x5200, data, 3, 4, kI8U8},
                    {0x5200, zero_points, 1, 4, kI8U8},
                    {0x5200, {"InputScaleTensor", "FilterScaleTensor", "OutputScaleTensor"}, 1, 4, kF32},
                    {0x5200, {"BiasTensor"}, 3, 4, kI32}},
        .Policies = {kQuantizedAccumulator, kRequantizeValue, kQuantizeRounding, kNegativeScale,
                     kQuantizedConvolutionBias, kIntegerPadding, kConvolutionOutputSizes, kSubnormals},
    });
    r.validate_values = validate_values_as<QLCONV, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated}};
    r.case_tolerance = quantized_linear_tolerance;
    r.rounding_cost =
        rounding_cost<200>;  // the requantization, exact and rounded once (measured; docs/rules.md, limit.work)
    r.case_boundary = quantized_linear_ties;
    r.reads_inputs = true;
    r.explain = explain_quantized_linear;
    r.MinRank = 3;
    r.MaxRank = 4;
    r.ScopeTypes = kI8U8;  // InputTensor's types
    r.features = {"bias",    "per-channel", "no-zero-point", "depthwise",    "grouped",
                  "padding", "spatial-1d",  "spatial-2d",    "rounding-tie", "saturated"};
    r.detect = convolution_detect;
    r.work_factor = convolution_work;
    r.ArraysFrom = 2;
    r.BaseTensors = {"InputTensor"};
    return r;
}

}  // namespace rec_quantized_linear

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& quantized_linear_family() {
    using namespace reference::rec_quantized_linear;
    static const FamilyRecord f{
        "quantized_linear",
        {quantized_linear_matrix_multiply(), quantized_linear_convolution()},
        // docs/golden.md, "Alternative readings" (reference/quantized_linear.cpp, wrap_accumulators).
        {{.Policy = "QuantizedAccumulator",
          .Value = "WrapToInt32",
          .Meaning = "the integer accumulator (the products and the convolution's Bias) is an INT32 that wraps: the "
                     "exact sum modulo 2^32, two's complement, then requantized as usual",
          .Who = "kernels that accumulate in a 32-bit integer register, as MATRIX_MULTIPLY_INTEGER's "
                 "IntegerOverflow=WrapToWidth reads its INT32 output",
          .Operators = {OperatorType::QUANTIZED_LINEAR_MATRIX_MULTIPLY, OperatorType::QUANTIZED_LINEAR_CONVOLUTION}}}};
    return f;
}
}  // namespace dmlref::kit
