// The element-wise math family's record (reference/kit/family.hpp): the facts of each
// DML_ELEMENT_WISE_<OP>_OPERATOR_DESC from its page ("Availability", in-place execution, "Tensor
// support"), the policies its goldens record, and how its outputs are judged (docs/tolerance.md,
// "Element-wise math").
#include "element_wise_math.hpp"

#include "kit/policies.hpp"

#include <array>

namespace dmlref::reference {

namespace rec_element_wise_math {

using namespace kit;

// The policies (docs/golden.md, "Element-wise math").
constexpr Policy kNaNResult{"NaNResult", "CanonicalNaN"};
constexpr Policy kScaleBias{"ScaleBiasArithmetic", "Float32UnfusedFloat64ForFloat64"};
constexpr Policy kMathSpecialValues{"MathSpecialValues", "C99AnnexF"};
constexpr Policy kSignedZeroResult{"SignedZeroResult", "IEEE754"};

// Each operator's stated accuracy for float outputs (docs/tolerance.md, "Element-wise math": the
// table, each figure's origin, which are assumptions for the GPU crosscheck to check): a backend's
// f within `ulp` ULP of the exact value, plus the golden's own half ULP, stated as Summed with
// MaxTerms ulp + 1 ((MaxTerms - 1/2) ULP, a NaN golden matching any NaN). ScaleBias adds 2 ULP
// (g fused or unfused: 1 ULP of g through f's slope, assumed small), EXP's argument error instead
// (below).
struct Accuracy {
    uint64_t ulp;
    const char* why;
};
constexpr std::array<Accuracy, kMathFunctions> kAccuracy = {{
    {0, "exp(x) as exp2(x log2 e): exp2 within 3 ULP (Direct3D's figure) plus 2 |x| ULP from the rounded product"},
    {4,
     "log(x) as log2(x) ln 2: log2 within 3 ULP (Direct3D's figure away from 1, assumed near 1) plus the product's rounding"},
    {4,
     "sin(x) within 4 ULP (assumed: Direct3D states an absolute error only; CUDA documents 2 ULP for sinf, doubled)"},
    {4,
     "cos(x) within 4 ULP (assumed: Direct3D states an absolute error only; CUDA documents 2 ULP for cosf, doubled)"},
    {8, "tan(x) within 8 ULP (assumed: CUDA documents 4 ULP for tanf, doubled)"},
    {4, "asin(x) within 4 ULP (assumed: CUDA documents 2 ULP for asinf, doubled)"},
    {4, "acos(x) within 4 ULP (assumed: CUDA documents 2 ULP for acosf, doubled)"},
    {4, "atan(x) within 4 ULP (assumed: CUDA documents 2 ULP for atanf, doubled)"},
    {6, "sinh(x) within 6 ULP (assumed: CUDA documents 3 ULP for sinhf, doubled)"},
    {4, "cosh(x) within 4 ULP (assumed: CUDA documents 2 ULP for coshf, doubled)"},
    {4, "tanh(x) within 4 ULP (assumed: CUDA documents 2 ULP for tanhf, doubled, as for the fused TANH)"},
    {6, "asinh(x) within 6 ULP (assumed: CUDA documents 3 ULP for asinhf, doubled)"},
    {8, "acosh(x) within 8 ULP (assumed: CUDA documents 4 ULP for acoshf, doubled)"},
    {6, "atanh(x) within 6 ULP (assumed: CUDA documents 3 ULP for atanhf, doubled)"},
    {4, "erf(x) within 4 ULP (assumed: CUDA documents 2 ULP for erff, doubled, as for the fused ERF)"},
}};

// EXP: the largest |x| whose exp is finite and not rounded to zero (FLOAT16 17.3, FLOAT32 103.3,
// FLOAT64 744.4), rounded up: the product x log2 e rounded (1/2 ULP of it) and the constant's own
// rounding move exp2's argument by 2 u |x| relative, 2 |x| ULP of the result.
uint64_t exp_argument_ulp(DataType t) { return t == DataType::FLOAT16 ? 18 : t == DataType::FLOAT32 ? 104 : 745; }

std::optional<Tolerance> math_tolerance(const OperatorDesc& od, std::string_view) {
    const MathDesc d = math_desc(od);
    const DataType type = d.output->DataType;
    if (!is_float(type)) return std::nullopt;  // Bits: the integer result
    const Accuracy& a = kAccuracy[size_t(d.f)];
    const bool exp = d.f == MathFunction::Exp;
    const uint64_t ulp = exp ? 3 + 2 * exp_argument_ulp(type) : a.ulp;
    const uint64_t sb = !d.scale_bias ? 0 : exp ? exp_argument_ulp(type) : 2;
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = ulp + sb + 1;
    t.Why = std::string(a.why) + (exp ? " (" + std::to_string(ulp) + " ULP over the type's range)" : std::string()) +
            ", within " + std::to_string(ulp + sb) + ".5 ULP of the correctly rounded golden" +
            (d.scale_bias ? (exp ? " with ScaleBias's g(x) fused or unfused (1 ULP of g: |g| ULP of exp)"
                                 : " with ScaleBias's g(x) fused or unfused (2 ULP, assumed)")
                          : "") +
            "; a NaN matches any NaN (docs/tolerance.md, Element-wise math)";
    return t;
}

void scale_bias_feature(const Case& c, std::vector<std::string>& f) {
    if (math_desc(c.op.Desc).scale_bias) f.push_back("scale-bias");
}

// FLOAT32 and FLOAT16 on every page: 4-D from the operator's first feature level, 1 to 8
// dimensions from DML_FEATURE_LEVEL_3_0.
template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&)>
OperatorRecord math(uint32_t introduced) {
    auto r = operator_record<D, V, E>({
        .IntroducedIn = introduced,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = {{introduced, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
        .Policies = {kComputedValue, kNaNResult, kMathSpecialValues, kSignedZeroResult, kIntegerResult, kScaleBias,
                     kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = math_tolerance;
    r.explain = explain_math;
    // --max-work: an MPFR evaluation per element, erf the dearest (measured; docs/rules.md, limit.work).
    r.rounding_cost = std::is_same_v<D, DML_ELEMENT_WISE_ERF_OPERATOR_DESC> ? rounding_cost<1100> : rounding_cost<700>;
    r.features = {"scale-bias"};
    r.detect = scale_bias_feature;
    return r;
}

// ---- POW, CONSTANT_POW, ATAN_YX (reference/element_wise_pow.cpp) -----------------------------

constexpr Policy kPowIntegers{"PowIntegers", "ExactWrapped"};
constexpr Policy kIntegerDivisionByZero{"IntegerDivisionByZero", "AllBitsSet"};
constexpr Policy kAtanYxOrigin{"AtanYxOrigin", "C99AnnexF"};

// POW and CONSTANT_POW: 4 ULP (+2 with ScaleBias), ATAN_YX: 6 ULP (docs/tolerance.md, "Element-wise math").
std::optional<Tolerance> pow_tolerance(const OperatorDesc& od, std::string_view) {
    Tolerance t;
    t.Kind = "Summed";
    if (const auto* a = od.get_if<DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC>()) {
        if (!is_float(a->OutputTensor.DataType)) return std::nullopt;
        t.MaxTerms = 7;
        t.Why =
            "atan2(y, x) within 6 ULP (assumed: CUDA documents 3 ULP for atan2f, doubled), within 6.5 ULP of the correctly "
            "rounded golden; a NaN matches any NaN (docs/tolerance.md, Element-wise math)";
        return t;
    }
    DataType out = DataType::UNKNOWN;
    bool sb = false;
    if (const auto* d = od.get_if<DML_ELEMENT_WISE_POW_OPERATOR_DESC>())
        out = d->OutputTensor.DataType, sb = d->ScaleBias.has_value();
    if (const auto* d = od.get_if<DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC>())
        out = d->OutputTensor.DataType, sb = d->ScaleBias.has_value();
    if (!is_float(out)) return std::nullopt;
    t.MaxTerms = sb ? 7 : 5;
    t.Why =
        std::string(
            "pow(x, p) within 4 ULP (assumed: torch.pow measured within 0.88 ULP on a GPU, docs/tolerance.md; an exp2(p log2 x) "
            "lowering's exponent error is not covered)") +
        (sb ? ", ScaleBias's g(x) fused or unfused 2 more (assumed), within 6.5 ULP" : ", within 4.5 ULP") +
        " of the correctly rounded golden; a NaN matches any NaN (docs/tolerance.md, Element-wise math)";
    return t;
}

void pow_features(const Case& c, std::vector<std::string>& f) {
    if (const auto* d = c.op.Desc.get_if<DML_ELEMENT_WISE_POW_OPERATOR_DESC>(); d && d->ScaleBias)
        f.push_back("scale-bias");
    if (const auto* d = c.op.Desc.get_if<DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC>(); d && d->ScaleBias)
        f.push_back("scale-bias");
}

// POW below DML_FEATURE_LEVEL_3_0: "ExponentTensor must match the type of InputTensor".
void pow_support_rules(const OperatorDesc& od, uint32_t level, std::vector<std::string>& why) {
    const auto& d = get<DML_ELEMENT_WISE_POW_OPERATOR_DESC>(od);
    if (level < 0x3000 && d.ExponentTensor.DataType != d.InputTensor.DataType)
        why.push_back("until DML_FEATURE_LEVEL_3_0 ExponentTensor must match the type of InputTensor");
}

// ATAN_YX at the origin (y and x both zero), which the page leaves undefined.
std::vector<BoundaryElement> atan_yx_origin(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    const auto& d = get<DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC>(c.op.Desc);
    auto ia = c.inputs.find("ATensor"), ib = c.inputs.find("BTensor");
    if (ia == c.inputs.end() || ib == c.inputs.end() || !is_valid(d.ATensor.DataType) ||
        d.ATensor.DataType != d.BTensor.DataType)
        return out;
    dispatch(d.ATensor.DataType, [&]<class T>() {
        const std::vector<T> y = logical_values<T>(d.ATensor, ia->second), x = logical_values<T>(d.BTensor, ib->second);
        for (size_t i = 0; i < y.size() && i < x.size(); ++i) {
            const bool zy = is_floating_v<T> ? widen(y[i]) == 0 : y[i] == T(0);
            const bool zx = is_floating_v<T> ? widen(x[i]) == 0 : x[i] == T(0);
            if (zy && zx) out.push_back({i, "AtanYxOrigin"});
        }
    });
    return out;
}

template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&)>
OperatorRecord two_operand(OperatorInfo info) {
    auto r = operator_record<D, V, E>(std::move(info));
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = pow_tolerance;
    r.explain = explain_pow;
    r.rounding_cost = rounding_cost<700>;  // an MPFR evaluation per element (measured; docs/rules.md, limit.work)
    return r;
}

OperatorRecord pow_record() {
    auto r = two_operand<DML_ELEMENT_WISE_POW_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kEightTypes}},
        .Policies = {kComputedValue, kNaNResult, kMathSpecialValues, kPowIntegers, kIntegerDivisionByZero,
                     kIntegerResult, kScaleBias, kSubnormals},
    });
    r.features = {"scale-bias"};
    r.detect = pow_features;
    r.support_rules = pow_support_rules;
    r.BaseTensors = {"InputTensor"};
    return r;
}

OperatorRecord constant_pow_record() {
    auto r = two_operand<DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
        .Policies = {kComputedValue, kNaNResult, kMathSpecialValues, kIntegerResult, kScaleBias, kSubnormals},
    });
    r.features = {"scale-bias"};
    r.detect = pow_features;
    return r;
}

OperatorRecord atan_yx_record() {
    auto r = two_operand<DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x3100,
        .InPlace = {{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        .Support = {{0x3100, {}, 1, 8, kF32F16}},
        .Policies = {kComputedValue, kNaNResult, kMathSpecialValues, kSignedZeroResult, kAtanYxOrigin, kIntegerResult,
                     kSubnormals},
    });
    r.case_boundary = atan_yx_origin;
    r.BaseTensors = {"ATensor", "BTensor"};
    return r;
}

}  // namespace rec_element_wise_math

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& element_wise_math_family() {
    using namespace reference;
    using namespace reference::rec_element_wise_math;
    static const FamilyRecord f{"element_wise_math",
                                {math<DML_ELEMENT_WISE_EXP_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_LOG_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_SIN_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_COS_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_TAN_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_ASIN_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_ACOS_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_ATAN_OPERATOR_DESC, validate, evaluate>(0x1000),
                                 math<DML_ELEMENT_WISE_SINH_OPERATOR_DESC, validate, evaluate>(0x2000),
                                 math<DML_ELEMENT_WISE_COSH_OPERATOR_DESC, validate, evaluate>(0x2000),
                                 math<DML_ELEMENT_WISE_TANH_OPERATOR_DESC, validate, evaluate>(0x2000),
                                 math<DML_ELEMENT_WISE_ASINH_OPERATOR_DESC, validate, evaluate>(0x2000),
                                 math<DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC, validate, evaluate>(0x2000),
                                 math<DML_ELEMENT_WISE_ATANH_OPERATOR_DESC, validate, evaluate>(0x2000),
                                 math<DML_ELEMENT_WISE_ERF_OPERATOR_DESC, validate, evaluate>(0x2000), pow_record(),
                                 constant_pow_record(), atan_yx_record()}};
    return f;
}
}  // namespace dmlref::kit
