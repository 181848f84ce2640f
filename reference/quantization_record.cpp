// The quantization family's record (reference/kit/family.hpp): the facts of
// DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC,
// DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC and DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC
// from their pages ("Availability", "Tensor support"), the
// policies their goldens record, and how their outputs are judged (docs/tolerance.md,
// "Quantization"): a quantized output bit for bit, or within 1 where some quotient lies within
// FLOAT32's error of a rounding tie (the QuantizeTie elements, named in the diff); a dequantized
// output as ELEMENT_WISE_MULTIPLY; DYNAMIC_QUANTIZE_LINEAR's scale and zero point bit for bit.
#include "quantization.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_quantization {

using namespace kit;

// --max-work's rounding cost per element: the requantization or quotient, exact and rounded once
// (measured; docs/rules.md, limit.work).
constexpr uint64_t kRequantizeCost = 200;
using QL = DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC;
using DQL = DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC;
using DYN = DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC;

// The policies (docs/golden.md, "Quantization").
constexpr Policy kQuantizeValue{"QuantizeValue", "ExactQuotient"};
constexpr Policy kQuantizeRounding{"QuantizeRounding", "HalfToEven"};
constexpr Policy kQuantizeNaN{"QuantizeNaN", "Minimum"};
constexpr Policy kNegativeScale{"NegativeScale", "FormulaLiteral"};
constexpr Policy kDequantizeValue{"DequantizeValue", "ExactThenRoundOnce"};
constexpr Policy kDynamicRange{"DynamicRange", "IncludesZero"};
constexpr Policy kDynamicArithmetic{"DynamicArithmetic", "Float32Chain"};
constexpr Policy kDynamicZeroRange{"DynamicZeroRange", "ZeroPointMinimum"};
constexpr Policy kDynamicNonFinite{"DynamicNonFinite", "FiniteRange"};
constexpr Policy kRequantizeValue{"RequantizeValue", "ExactThenRoundOnce"};

const std::vector<DT> kF32 = {DT::FLOAT32};
const std::vector<DT> kU8 = {DT::UINT8};
const std::vector<DT> kI8U8 = {DT::INT8, DT::UINT8};
const std::vector<DT> kF32I32 = {DT::FLOAT32, DT::INT32};
const std::vector<DT> kF32F16I32 = {DT::FLOAT32, DT::FLOAT16, DT::INT32};
const std::vector<DT> kSixIntegers = {DT::INT32, DT::INT16, DT::INT8, DT::UINT32, DT::UINT16, DT::UINT8};
const std::vector<std::string_view> kInput = {"InputTensor"};
const std::vector<std::string_view> kScale = {"ScaleTensor"};
const std::vector<std::string_view> kZeroPoint = {"ZeroPointTensor"};
const std::vector<std::string_view> kOutput = {"OutputTensor"};
const std::vector<std::string_view> kZeroPointOutput = {"ZeroPointTensor", "OutputTensor"};

bool has_broadcast(const TensorDesc& d) {
    for (size_t i = 0; i < d.Strides.size() && i < d.Sizes.size(); ++i)
        if (d.Strides[i] == 0 && d.Sizes[i] > 1) return true;
    return false;
}

// ZeroPointTensor is an optional input from DML_FEATURE_LEVEL_6_2 (the tables' "Optional input").
template <class D> void zero_point_from_6_2(const OperatorDesc& desc, uint32_t level, std::vector<std::string>& why) {
    if (!get<D>(desc).ZeroPointTensor && level < 0x6200)
        why.push_back("ZeroPointTensor: optional only from DML_FEATURE_LEVEL_6_2");
}

template <class D> void elementwise_detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    if (!d.ZeroPointTensor) f.push_back("no-zero-point");
    if (has_broadcast(d.ScaleTensor) || (d.ZeroPointTensor && has_broadcast(*d.ZeroPointTensor)))
        f.push_back("per-tensor-broadcast");
    if (c.op.Type == OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR && !quantize_ties(c, "OutputTensor").empty())
        f.push_back("rounding-tie");
}

OperatorRecord quantize_linear() {
    auto r = operator_record<QL, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {},
        .Support = {{0x1000, kInput, 4, 4, kF32},
                    {0x1000, kScale, 4, 4, kF32},
                    {0x1000, kZeroPointOutput, 4, 4, kU8},
                    {0x2100, kInput, 4, 4, kF32I32},
                    {0x2100, kScale, 4, 4, kF32},
                    {0x2100, kZeroPointOutput, 4, 4, kI8U8},
                    {0x3000, kInput, 1, 8, kF32I32},
                    {0x3000, kScale, 1, 8, kF32},
                    {0x3000, kZeroPointOutput, 1, 8, kI8U8},
                    {0x6000, kInput, 1, 8, kF32F16I32},
                    {0x6000, kScale, 1, 8, kF32F16},
                    {0x6000, kZeroPointOutput, 1, 8, kI8U8},
                    {0x6200, kInput, 1, 8, kF32F16I32},
                    {0x6200, kScale, 1, 8, kF32F16},
                    {0x6200, kZeroPointOutput, 1, 8, kI8U8}},
        .Policies = {kQuantizeValue, kQuantizeRounding, kQuantizeNaN, kNegativeScale, kSubnormals},
    });
    r.validate_values = validate_values_as<QL, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated}};
    r.case_tolerance = quantize_tolerance;
    r.rounding_cost = rounding_cost<kRequantizeCost>;
    r.case_boundary = quantize_ties;
    r.reads_inputs = true;
    r.support_rules = zero_point_from_6_2<QL>;
    r.explain = explain_quantize;
    r.ScopeTypes = kF32F16I32;  // InputTensor's types (OutputTensor is INT8 or UINT8)
    r.features = {"no-zero-point", "per-tensor-broadcast", "rounding-tie"};
    r.detect = elementwise_detect<QL>;
    r.work_factor = [](const OperatorDesc&) -> uint64_t { return 2; };
    return r;
}

OperatorRecord dequantize_linear() {
    auto r = operator_record<DQL, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {},
        .Support = {{0x1000, {"InputTensor", "ZeroPointTensor"}, 4, 4, kU8},
                    {0x1000, {"ScaleTensor", "OutputTensor"}, 4, 4, kF32},
                    {0x2100, {"InputTensor", "ZeroPointTensor"}, 4, 4, kSixIntegers},
                    {0x2100, {"ScaleTensor", "OutputTensor"}, 4, 4, kF32},
                    {0x3000, {"InputTensor", "ZeroPointTensor"}, 1, 8, kSixIntegers},
                    {0x3000, {"ScaleTensor", "OutputTensor"}, 1, 8, kF32},
                    {0x6000, {"InputTensor", "ZeroPointTensor"}, 1, 8, kSixIntegers},
                    {0x6000, {"ScaleTensor", "OutputTensor"}, 1, 8, kF32F16},
                    {0x6200, {"InputTensor", "ZeroPointTensor"}, 1, 8, kSixIntegers},
                    {0x6200, {"ScaleTensor", "OutputTensor"}, 1, 8, kF32F16}},
        .Policies = {kDequantizeValue, kNegativeScale, kNonFiniteSum, kSubnormals},
    });
    r.validate_values = validate_values_as<DQL, validate_values>;
    // Integer outputs are refused (element-wise-dequantize-linear.output-data-type).
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = tolerance_as<DQL, dequantize_tolerance>;
    r.rounding_cost = rounding_cost<kRequantizeCost>;
    r.support_rules = zero_point_from_6_2<DQL>;
    r.explain = explain_quantize;
    r.ScopeTypes = kSixIntegers;  // InputTensor's types (OutputTensor is FLOAT32 or FLOAT16)
    r.features = {"no-zero-point", "per-tensor-broadcast"};
    r.detect = elementwise_detect<DQL>;
    r.work_factor = [](const OperatorDesc&) -> uint64_t { return 2; };
    return r;
}

void dynamic_detect(const Case& c, std::vector<std::string>& f) {
    if (!quantize_ties(c, "OutputTensor").empty()) f.push_back("rounding-tie");
    const auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end()) return;
    const auto& d = get<DYN>(c.op.Desc);
    try {
        const std::vector<double> x = logical_doubles(d.InputTensor, in->second);
        bool negative = false, positive = false;
        for (double v : x)
            if (std::isfinite(v)) negative = negative || v < 0, positive = positive || v > 0;
        if (!negative && !positive) f.push_back("all-zero");
        else if (!negative || !positive) f.push_back("one-signed");
    } catch (const std::exception&) {
    }
}

OperatorRecord dynamic_quantize_linear() {
    const std::vector<std::string_view> quantized = {"OutputTensor", "OutputZeroPointTensor"};
    auto r = operator_record<DYN, validate, evaluate>({
        .IntroducedIn = 0x4000,
        .InPlace = {},
        .Support = {{0x4000, kInput, 1, 8, kF32F16},
                    {0x4000, quantized, 1, 8, kI8U8},
                    {0x4000, {"OutputScaleTensor"}, 1, 8, kF32}},
        .Policies = {kDynamicRange, kDynamicArithmetic, kDynamicZeroRange, kDynamicNonFinite, kQuantizeRounding,
                     kQuantizeNaN, kSubnormals},
    });
    r.validate_values = validate_values_as<DYN, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated},
                 {"OutputScaleTensor", TypeClass::Any, ToleranceRule::Bits},
                 {"OutputZeroPointTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.case_tolerance = quantize_tolerance;
    r.rounding_cost = rounding_cost<kRequantizeCost>;
    r.case_boundary = quantize_ties;
    r.reads_inputs = true;
    r.explain = explain_quantize;
    r.ScopeTypes = kF32F16;
    r.features = {"rounding-tie", "all-zero", "one-signed"};
    r.detect = dynamic_detect;
    r.work_factor = [](const OperatorDesc&) -> uint64_t { return 3; };
    return r;
}

using QADD = DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC;

void add_detect(const Case& c, std::vector<std::string>& f) {
    const QADD& d = get<QADD>(c.op.Desc);
    if (!d.AZeroPointTensor || !d.BZeroPointTensor || !d.OutputZeroPointTensor) f.push_back("no-zero-point");
    if (d.ATensor.DataType != d.BTensor.DataType || d.ATensor.DataType != d.OutputTensor.DataType)
        f.push_back("mixed-signedness");
    if (!quantize_ties(c, "OutputTensor").empty()) f.push_back("rounding-tie");
}

OperatorRecord quantized_linear_add() {
    const std::vector<std::string_view> integers = {"ATensor",          "AZeroPointTensor",      "BTensor",
                                                    "BZeroPointTensor", "OutputZeroPointTensor", "OutputTensor"};
    auto r = operator_record<QADD, validate, evaluate>({
        .IntroducedIn = 0x4000,
        .InPlace = {},
        .Support = {{0x4000, integers, 1, 8, kI8U8},
                    {0x4000, {"AScaleTensor", "BScaleTensor", "OutputScaleTensor"}, 1, 8, kF32}},
        .Policies = {kRequantizeValue, kQuantizeRounding, kQuantizeNaN, kNegativeScale, kSubnormals},
    });
    r.validate_values = validate_values_as<QADD, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated}};
    r.case_tolerance = quantize_tolerance;
    r.rounding_cost = rounding_cost<kRequantizeCost>;
    r.case_boundary = quantize_ties;
    r.reads_inputs = true;
    r.explain = explain_quantize;
    r.ScopeTypes = kI8U8;  // ATensor's types
    r.features = {"no-zero-point", "mixed-signedness", "rounding-tie"};
    r.detect = add_detect;
    r.work_factor = [](const OperatorDesc&) -> uint64_t { return 2; };
    r.BaseTensors = {"ATensor"};
    return r;
}

}  // namespace rec_quantization

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& quantization_family() {
    using namespace reference::rec_quantization;
    static const FamilyRecord f{
        "quantization",
        {quantize_linear(), dequantize_linear(), dynamic_quantize_linear(), quantized_linear_add()},
        // docs/golden.md, "Alternative readings" (reference/quantization.cpp).
        {{.Policy = "DequantizeValue",
          .Value = "WrapToInt32",
          .Meaning = "InputTensor - ZeroPointTensor is an INT32 subtraction that wraps: the exact difference "
                     "modulo 2^32, two's complement (INT32 2147483647 - (-2147483648) is -1), then times "
                     "the scale, rounded once",
          .Who = "kernels that subtract the zero point in a 32-bit integer register",
          .Operators = {OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR}}}};
    return f;
}
}  // namespace dmlref::kit
