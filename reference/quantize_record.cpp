// The quantize family's record (reference/kit/family.hpp): the facts of DML_QUANTIZE_OPERATOR_DESC
// and DML_DEQUANTIZE_OPERATOR_DESC from their pages ("Availability", "Tensor support"; INT4 and
// UINT4 left out, docs/golden.md "Quantize and dequantize"), the policies their goldens record,
// and how their outputs are judged (docs/tolerance.md, "Quantization"): QUANTIZE's output bit for
// bit, or within 1 where some quotient lies within FLOAT32's error of a rounding tie (the
// QuantizeTie elements); DEQUANTIZE's as ELEMENT_WISE_DEQUANTIZE_LINEAR's 8-bit inputs.
#include "quantize.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_quantize {

using namespace kit;
using Q = DML_QUANTIZE_OPERATOR_DESC;
using DQ = DML_DEQUANTIZE_OPERATOR_DESC;

// The element-wise operators' policies (docs/golden.md, "Quantization"), which the element
// functions of reference/quantization.hpp apply, and this family's own ("Quantize and dequantize").
constexpr Policy kQuantizeValue{"QuantizeValue", "ExactQuotient"};
constexpr Policy kQuantizeRounding{"QuantizeRounding", "HalfToEven"};
constexpr Policy kQuantizeNaN{"QuantizeNaN", "Minimum"};
constexpr Policy kNegativeScale{"NegativeScale", "FormulaLiteral"};
constexpr Policy kDequantizeValue{"DequantizeValue", "ExactThenRoundOnce"};
constexpr Policy kQuantizationBlocks{"QuantizationBlocks", "WholeBlocks"};
constexpr Policy kQuantizationTensorTypes{"QuantizationTensorTypes", "AsElementWise"};

const std::vector<DT> kI8U8 = {DT::INT8, DT::UINT8};
const std::vector<std::string_view> kQuantization = {"QuantizationTensors[0]", "QuantizationTensors[1]"};

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    if (d.QuantizationType == DML_QUANTIZATION_TYPE_SCALE) f.push_back("no-zero-point");
    bool blocks = false;
    for (const TensorDesc& q : d.QuantizationTensors)
        for (size_t i = 0; i < q.Sizes.size() && i < d.InputTensor.Sizes.size(); ++i)
            blocks = blocks || (q.Sizes[i] > 1 && q.Sizes[i] < d.InputTensor.Sizes[i]);
    if (blocks) f.push_back("block-wise");
    if (c.op.Type == OperatorType::QUANTIZE && !quantize_block_ties(c, "OutputTensor").empty())
        f.push_back("rounding-tie");
}

OperatorRecord quantize() {
    auto r = operator_record<Q, validate, evaluate>({
        .IntroducedIn = 0x6300,
        .InPlace = {},
        .Support = {{0x6300, {"InputTensor"}, 1, 8, kF32F16},
                    {0x6300, kQuantization, 1, 8, kF32F16I8U8},
                    {0x6300, {"OutputTensor"}, 1, 8, kI8U8}},
        .Policies = {kQuantizeValue, kQuantizeRounding, kQuantizeNaN, kNegativeScale, kQuantizationBlocks,
                     kQuantizationTensorTypes, kSubnormals},
    });
    r.validate_values = validate_values_as<Q, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated}};
    r.case_tolerance = quantize_block_tolerance;
    r.rounding_cost = rounding_cost<100>;  // the quotient, exact and rounded once (measured; docs/rules.md, limit.work)
    r.case_boundary = quantize_block_ties;
    r.reads_inputs = true;
    r.explain = explain_quantize_block;
    r.ScopeTypes = kF32F16;  // InputTensor's types (OutputTensor is INT8 or UINT8)
    r.features = {"no-zero-point", "block-wise", "rounding-tie"};
    r.detect = detect<Q>;
    r.work_factor = [](const OperatorDesc&) -> uint64_t { return 3; };
    return r;
}

OperatorRecord dequantize() {
    auto r = operator_record<DQ, validate, evaluate>({
        .IntroducedIn = 0x6300,
        .InPlace = {},
        .Support = {{0x6300, {"InputTensor"}, 1, 8, kI8U8},
                    {0x6300, kQuantization, 1, 8, kF32F16I8U8},
                    {0x6300, {"OutputTensor"}, 1, 8, kF32F16}},
        .Policies = {kDequantizeValue, kNegativeScale, kQuantizationBlocks, kQuantizationTensorTypes, kNonFiniteSum,
                     kSubnormals},
    });
    r.validate_values = validate_values_as<DQ, validate_values>;
    // Integer outputs are refused (dequantize.output-data-type).
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = tolerance_as<DQ, dequantize_block_tolerance>;
    r.rounding_cost = rounding_cost<100>;  // the product, exact and rounded once (measured; docs/rules.md, limit.work)
    r.explain = explain_quantize_block;
    r.ScopeTypes = kI8U8;  // InputTensor's types (OutputTensor is FLOAT32 or FLOAT16)
    r.features = {"no-zero-point", "block-wise"};
    r.detect = detect<DQ>;
    r.work_factor = [](const OperatorDesc&) -> uint64_t { return 3; };
    return r;
}

}  // namespace rec_quantize

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& quantize_family() {
    using namespace reference::rec_quantize;
    static const FamilyRecord f{"quantize", {quantize(), dequantize()}};
    return f;
}
}  // namespace dmlref::kit
