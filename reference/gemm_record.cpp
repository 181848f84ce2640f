// The GEMM family's record (reference/kit/family.hpp): the facts of DML_GEMM_OPERATOR_DESC,
// DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC and DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC
// from their pages ("Availability", "Tensor support"),
// the policies their goldens record, and how their outputs are judged: GEMM's float elements
// from their own K products and Beta * c (docs/tolerance.md, "GEMM"), the integer products bit
// for bit.
#include "gemm.hpp"

#include "fast/gemm_f64.hpp"
#include "fused_activation.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_gemm {

using namespace kit;
using GEMM = DML_GEMM_OPERATOR_DESC;
using MMI = DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC;

constexpr Policy kGemmValue{"GemmValue", "ExactThenRoundOnce"};
constexpr Policy kFusedActivationInput{"FusedActivationInput", "RoundedSum"};
constexpr Policy kGemmBetaWithoutC{"GemmBetaWithoutC", "Ignored"};
constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};

const std::vector<DT> kI8U8 = {DT::INT8, DT::UINT8};
const std::vector<DT> kI32 = {DT::INT32};

bool has_zero_stride(const TensorDesc& d, size_t dims) {
    for (size_t i = 0; i < dims && i < d.Strides.size() && i < d.Sizes.size(); ++i)
        if (d.Strides[i] == 0 && d.Sizes[i] > 1) return true;
    return false;
}

void gemm_detect(const Case& c, std::vector<std::string>& f) {
    const GEMM& d = get<GEMM>(c.op.Desc);
    if (d.TransA) f.push_back("trans-a");
    if (d.TransB) f.push_back("trans-b");
    if (d.CTensor) f.push_back("c-tensor");
    if (d.CTensor && has_zero_stride(*d.CTensor, d.CTensor->Sizes.size())) f.push_back("c-broadcast");
    if (d.FusedActivation) f.push_back("fused-activation");
    if (d.Alpha != 1 || (d.CTensor && d.Beta != 1)) f.push_back("alpha-beta");
    const size_t batch = d.OutputTensor.Sizes.size() >= 2 ? d.OutputTensor.Sizes.size() - 2 : 0;
    if (has_zero_stride(d.ATensor, batch) || has_zero_stride(d.BTensor, batch)) f.push_back("batch-broadcast");
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, d.TransA != 0);
    if (s.K == 1) f.push_back("k1");
    if (s.K >= 256) f.push_back("large-k");
}

// An output element's K products are 2K reads; the factor counts each element of A, B and
// Output, about three of them per output element in a square product, so a third of that
// (docs/cli.md, "Work"; the plain loop took 12 to 14 us an element at K = 1024, about 700
// units, against about 2050 counted).
uint64_t gemm_work(const OperatorDesc& desc) {
    const GEMM& d = get<GEMM>(desc);
    return (2 * gemm_shape(d.OutputTensor, d.ATensor, d.TransA != 0).K + 2) / 3 + 1;
}

OperatorRecord gemm_record() {
    auto r = operator_record<GEMM, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {},
        .Support = {{0x1000, {}, 4, 4, kF32F16}, {0x4000, {}, 2, 4, kF32F16}},
        .Policies = {kGemmValue, kFusedActivationInput, kGemmBetaWithoutC, kNonFiniteSum, kZeroResult, kSubnormals},
    });
    // Integer outputs are refused (gemm.data-type); their row says how they would be judged.
    r.outputs = {
        {"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, nullptr, gemm_terms},
        {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = tolerance_as<GEMM, gemm_tolerance>;
    // --max-work: the products counted cover the sum; the fused activation costs its own (measured;
    // docs/rules.md, limit.work).
    r.rounding_cost = [](const OperatorDesc& d) { return 100 + fused_activation_cost(get<GEMM>(d).FusedActivation); };
    r.explain = explain_gemm;
    r.fast = fast_as<GEMM, fast::gemm_f64>;  // reference/fast/gemm_f64.cpp
    r.MinRank = 2;
    r.MaxRank = 4;
    r.ScopeTypes = kF32F16;
    r.features = {"trans-a",    "trans-b",         "c-tensor", "c-broadcast", "fused-activation",
                  "alpha-beta", "batch-broadcast", "k1",       "large-k"};
    r.detect = gemm_detect;
    r.work_factor = gemm_work;
    r.BaseTensors = {"ATensor"};
    return r;
}

void mmi_detect(const Case& c, std::vector<std::string>& f) {
    const MMI& d = get<MMI>(c.op.Desc);
    auto count = [](const TensorDesc& z) { return element_count(z); };
    if (d.AZeroPointTensor) f.push_back(count(*d.AZeroPointTensor) > 1 ? "a-zero-point-per-row" : "a-zero-point");
    if (d.BZeroPointTensor) f.push_back(count(*d.BZeroPointTensor) > 1 ? "b-zero-point-per-column" : "b-zero-point");
    const size_t batch = d.OutputTensor.Sizes.size() >= 2 ? d.OutputTensor.Sizes.size() - 2 : 0;
    if (has_zero_stride(d.ATensor, batch) || has_zero_stride(d.BTensor, batch)) f.push_back("batch-broadcast");
    if (d.ATensor.DataType != d.BTensor.DataType) f.push_back("mixed-signedness");
}

uint64_t mmi_work(const OperatorDesc& desc) {
    const MMI& d = get<MMI>(desc);
    return 2 * gemm_shape(d.OutputTensor, d.ATensor, false).K + 1;
}

OperatorRecord mmi_record() {
    const std::vector<std::string_view> ab = {"ATensor", "BTensor"};
    auto r = operator_record<MMI, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .InPlace = {},
        .Support = {{0x2100, {"ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor"}, 4, 4, kI8U8},
                    {0x2100, {"OutputTensor"}, 4, 4, kI32},
                    {0x4000, ab, 2, 4, kI8U8},
                    {0x4000, {"AZeroPointTensor"}, 1, 4, kI8U8},
                    {0x4000, {"BZeroPointTensor"}, 2, 4, kI8U8},
                    {0x4000, {"OutputTensor"}, 2, 4, kI32},
                    {0x5200, ab, 2, 4, kI8U8},
                    {0x5200, {"AZeroPointTensor", "BZeroPointTensor"}, 1, 4, kI8U8},
                    {0x5200, {"OutputTensor"}, 2, 4, kI32}},
        .Policies = {kIntegerOverflow},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_matrix_multiply_integer;
    r.MinRank = 2;
    r.MaxRank = 4;
    r.ScopeTypes = kI8U8;  // ATensor's types (OutputTensor is INT32)
    r.features = {"a-zero-point",    "a-zero-point-per-row", "b-zero-point", "b-zero-point-per-column",
                  "batch-broadcast", "mixed-signedness"};
    r.detect = mmi_detect;
    r.work_factor = mmi_work;
    r.BaseTensors = {"ATensor"};
    return r;
}

using MMIF = DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC;
constexpr Policy kMmiToFloatValue{"MmiToFloatValue", "ExactThenRoundOnce"};
const std::vector<DT> kSixIntegers = {DT::INT32, DT::INT16, DT::INT8, DT::UINT32, DT::UINT16, DT::UINT8};

void mmif_detect(const Case& c, std::vector<std::string>& f) {
    const MMIF& d = get<MMIF>(c.op.Desc);
    if (d.AZeroPointTensor) f.push_back("a-zero-point");
    if (d.BZeroPointTensor) f.push_back("b-zero-point");
    if (element_count(d.AScaleTensor) > 1) f.push_back("a-scale-per-row");
    if (element_count(d.BScaleTensor) > 1) f.push_back("b-scale-per-column");
    if (d.BiasTensor) f.push_back("bias");
    const size_t batch = d.OutputTensor.Sizes.size() >= 2 ? d.OutputTensor.Sizes.size() - 2 : 0;
    if (has_zero_stride(d.ATensor, batch) || has_zero_stride(d.BTensor, batch)) f.push_back("batch-broadcast");
}

uint64_t mmif_work(const OperatorDesc& desc) {
    const MMIF& d = get<MMIF>(desc);
    return 2 * gemm_shape(d.OutputTensor, d.ATensor, false).K + 5;
}

OperatorRecord mmif_record() {
    auto r = operator_record<MMIF, validate, evaluate>({
        .IntroducedIn = 0x6200,
        .InPlace = {},
        .Support = {{0x6200, {"ATensor", "BTensor"}, 2, 4, kSixIntegers},
                    {0x6200, {"AZeroPointTensor", "BZeroPointTensor"}, 1, 4, kSixIntegers},
                    {0x6200, {"AScaleTensor", "BScaleTensor"}, 1, 4, kF32F16},
                    {0x6200, {"BiasTensor", "OutputTensor"}, 2, 4, kF32F16}},
        .Policies = {kMmiToFloatValue, kNonFiniteSum, kZeroResult, kSubnormals},
    });
    // Integer outputs are refused (matrix-multiply-integer-to-float.output-data-type).
    r.outputs = {
        {"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, mmi_to_float_bounds},
        {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = tolerance_as<MMIF, mmi_to_float_tolerance>;
    r.rounding_cost = rounding_cost<100>;  // the scaled sum rounded once (measured; docs/rules.md, limit.work)
    r.explain = explain_matrix_multiply_integer_to_float;
    r.MinRank = 2;
    r.MaxRank = 4;
    r.ScopeTypes = kSixIntegers;  // ATensor's types (OutputTensor is FLOAT32 or FLOAT16)
    r.features = {"a-zero-point", "b-zero-point", "a-scale-per-row", "b-scale-per-column", "bias", "batch-broadcast"};
    r.detect = mmif_detect;
    r.work_factor = mmif_work;
    r.BaseTensors = {"ATensor"};
    return r;
}

}  // namespace rec_gemm

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& gemm_family() {
    using namespace reference::rec_gemm;
    static const FamilyRecord f{"gemm", {gemm_record(), mmi_record(), mmif_record()}};
    return f;
}
}  // namespace dmlref::kit
