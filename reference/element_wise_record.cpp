// The element-wise family's record (reference/kit/family.hpp): the facts of
// DML_ELEMENT_WISE_ADD_OPERATOR_DESC and of SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN and MEAN from their
// pages ("Availability", "Tensor support"), and how their outputs are judged (docs/tolerance.md,
// "Element-wise arithmetic").
#include "element_wise.hpp"

#include "fast/element_wise.hpp"
#include "fused_activation.hpp"
#include "kit/policies.hpp"

#include <cmath>

namespace dmlref::reference {

namespace rec_element_wise {

using namespace kit;
using ADD = DML_ELEMENT_WISE_ADD_OPERATOR_DESC;

// --max-work's rounding cost per element (docs/rules.md, limit.work): an exact result rounded once
// takes the exact accumulator where the terms' exponents lie far apart (dyadic data; FLOAT16 the
// dearest), measured.
constexpr uint64_t kExactCost = 300;

constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};
const std::vector<DT> kAdd30 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::UINT32};
const std::vector<DT> kAdd41 = {DT::FLOAT32, DT::FLOAT16, DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};

// Float outputs: a + b rounded once. A backend adding in the type's precision or wider, in either
// order, is within (2 - 1/2) ULP of the golden: the Summed bound of two terms (docs/tolerance.md,
// "Summed outputs"); a NaN golden matches any NaN. Integer outputs are exact: Bits.
std::optional<Tolerance> add_tolerance(const OperatorDesc& d, std::string_view) {
    if (!is_float(get<ADD>(d).OutputTensor.DataType)) return std::nullopt;  // Bits
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 2;
    t.Why =
        "a + b, the exact sum rounded once to nearest-even (docs/golden.md, Element-wise): a backend's own rounding of "
        "the two terms is within (2 - 1/2) ULP of it; a NaN sum matches any NaN (docs/tolerance.md)";
    return t;
}

OperatorRecord add() {
    auto r = operator_record<ADD, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        // The page's rows from DML_FEATURE_LEVEL_3_0 on (the 1.0 row: 4-D FLOAT32 and FLOAT16).
        .Support = {{0x1000, {}, 4, 4, kF32F16},
                    {0x3000, {}, 1, 8, kAdd30},
                    {0x4100, {}, 1, 8, kAdd41},
                    {0x5100, {}, 1, 8, kTenTypes}},
        .Policies = {kNonFiniteSum, kIntegerOverflow, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = add_tolerance;
    r.explain = explain_element_wise;
    r.rounding_cost = rounding_cost<kExactCost>;
    r.BaseTensors = {"ATensor", "BTensor"};
    r.fast = fast_as<ADD, fast::element_wise_fast>;
    return r;
}

// ---- SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN, MEAN ---------------------------------------------

using SUB = DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC;
using MUL = DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC;
using DIV = DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC;
using MAX = DML_ELEMENT_WISE_MAX_OPERATOR_DESC;
using MIN = DML_ELEMENT_WISE_MIN_OPERATOR_DESC;
using MEAN = DML_ELEMENT_WISE_MEAN_OPERATOR_DESC;

constexpr Policy kNaNResult{"NaNResult", "CanonicalNaN"};
constexpr Policy kIntegerDivisionByZero{"IntegerDivisionByZero", "AllBitsSet"};
constexpr Policy kMinMaxNaN{"MinMaxNaN", "IgnoreNaNOperand"};
constexpr Policy kSignedZeroMinMax{"SignedZeroMinMax", "NegativeZeroBelowPositiveZero"};
constexpr Policy kIntegerMean{"IntegerMean", "ExactSumTruncated"};

const std::vector<DT> kF32F16I32U32 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::UINT32};

// Float outputs judged as "Summed" with MaxTerms k: |actual - golden| <= (k - 1/2) ULP of the
// golden, and a NaN golden matches any NaN. docs/tolerance.md ("Element-wise arithmetic")
// derives each k from what a conforming backend may do; integer outputs are exact (Bits).
template <class D, uint64_t K> std::optional<Tolerance> float_tolerance(const OperatorDesc& d, std::string_view) {
    if (!is_float(get<D>(d).OutputTensor.DataType)) return std::nullopt;  // Bits
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = K;
    if constexpr (std::is_same_v<D, SUB>)
        t.Why =
            "a - b, the exact difference rounded once: a sum of two terms, within (2 - 1/2) ULP for a backend's own "
            "rounding; a NaN matches any NaN (docs/tolerance.md, Element-wise arithmetic)";
    else if constexpr (std::is_same_v<D, MUL>)
        t.Why =
            "a * b, the exact product rounded once: a backend's product correctly rounded or within 1 ULP (truncation "
            "permitted) is within 1.5 ULP of it; a NaN matches any NaN (docs/tolerance.md, Element-wise arithmetic)";
    else if constexpr (std::is_same_v<D, DIV>)
        t.Why =
            "a / b, the correctly rounded quotient: a backend's division within 2.5 ULP in its working type, rounded "
            "to the output, is within 3.5 ULP of it; a NaN matches any NaN (docs/tolerance.md, Element-wise arithmetic)";
    else if constexpr (std::is_same_v<D, MEAN>)
        t.Why =
            "(a + b) / 2 rounded once: a backend's sum (within 1 ULP) halved (exact above the subnormals, one more "
            "rounding in them) is within 2.5 ULP of it; a NaN matches any NaN (docs/tolerance.md, Element-wise arithmetic)";
    else if constexpr (std::is_same_v<D, DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC>)
        t.Why =
            "(a - b)^2 rounded once: a backend's difference and product, each within 1 ULP, are within 6 ULP of the "
            "exact value, 6.5 of the golden; a NaN matches any NaN (docs/tolerance.md, Element-wise arithmetic)";
    else if constexpr (std::is_same_v<D, MAX> || std::is_same_v<D, MIN>)
        t.Why =
            "a selected operand, bit for bit; only a NaN golden (both operands NaN) matches any NaN "
            "(docs/tolerance.md, Element-wise arithmetic)";
    else
        t.Why =
            "an exact remainder, bit for bit; a NaN golden matches any NaN (docs/tolerance.md, Element-wise arithmetic)";
    return t;
}

// The logical elements of ATensor and BTensor as bits, for the boundary flags.
template <class D> bool operand_bits(const Case& c, std::vector<uint64_t>& a, std::vector<uint64_t>& b) {
    const D& d = get<D>(c.op.Desc);
    auto ia = c.inputs.find("ATensor"), ib = c.inputs.find("BTensor");
    if (ia == c.inputs.end() || ib == c.inputs.end() || !is_valid(d.OutputTensor.DataType)) return false;
    dispatch(d.OutputTensor.DataType, [&]<class T>() {
        for (T v : logical_values<T>(d.ATensor, ia->second)) a.push_back(uint64_t(to_bits(v)));
        for (T v : logical_values<T>(d.BTensor, ib->second)) b.push_back(uint64_t(to_bits(v)));
    });
    return a.size() == b.size();
}

// MAX and MIN: the elements whose operands are zeros of opposite signs, where a backend that does
// not order -0 below +0 (D3D recommends it, without requiring it) would pick the other zero.
template <class D> std::vector<BoundaryElement> signed_zero_boundary(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    std::vector<uint64_t> a, b;
    const DataType t = get<D>(c.op.Desc).OutputTensor.DataType;
    if (!is_float(t) || !operand_bits<D>(c, a, b)) return out;
    const uint64_t sign = uint64_t(1) << (element_size(t) * 8 - 1);
    for (size_t i = 0; i < a.size(); ++i)
        if ((a[i] & ~sign) == 0 && (b[i] & ~sign) == 0 && a[i] != b[i]) out.push_back({i, "SignedZeroMinMax"});
    return out;
}

// DIVIDE: integer elements with a zero divisor, whose value the page leaves open.
template <class D> std::vector<BoundaryElement> zero_divisor_boundary(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    std::vector<uint64_t> a, b;
    if (is_float(get<D>(c.op.Desc).OutputTensor.DataType) || !operand_bits<D>(c, a, b)) return out;
    for (size_t i = 0; i < b.size(); ++i)
        if (b[i] == 0) out.push_back({i, "IntegerDivisionByZero"});
    return out;
}

template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&), uint64_t K>
OperatorRecord binary(std::vector<SupportRow> support, std::vector<Policy> policies) {
    auto r = operator_record<D, V, E>({
        .IntroducedIn = 0x1000,
        .InPlace = {{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        .Support = std::move(support),
        .Policies = std::move(policies),
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = float_tolerance<D, K>;
    r.explain = explain_element_wise;
    r.rounding_cost = rounding_cost<kExactCost>;
    r.BaseTensors = {"ATensor", "BTensor"};
    return r;
}

OperatorRecord subtract() {
    // The page's rows: 1.0 and 2.1 4-D; 3.0, 4.1 and 5.1 1 to 8 dimensions.
    auto r = binary<SUB, validate, evaluate, 2>({{0x1000, {}, 4, 4, kF32F16},
                                                 {0x2100, {}, 4, 4, kF32F16I32U32},
                                                 {0x3000, {}, 1, 8, kF32F16I32U32},
                                                 {0x4100, {}, 1, 8, kAdd41},
                                                 {0x5100, {}, 1, 8, kTenTypes}},
                                                {kNonFiniteSum, kIntegerOverflow, kSubnormals});
    r.fast = fast_as<SUB, fast::element_wise_fast>;
    return r;
}

OperatorRecord multiply() {
    // 1.0 and 2.1: 4 to 5 dimensions.
    auto r = binary<MUL, validate, evaluate, 2>({{0x1000, {}, 4, 5, kF32F16},
                                                 {0x2100, {}, 4, 5, kF32F16I32U32},
                                                 {0x3000, {}, 1, 8, kF32F16I32U32},
                                                 {0x4100, {}, 1, 8, kAdd41},
                                                 {0x5100, {}, 1, 8, kTenTypes}},
                                                {kNaNResult, kIntegerOverflow, kSubnormals});
    r.fast = fast_as<MUL, fast::element_wise_fast>;
    return r;
}

OperatorRecord divide() {
    auto r = binary<DIV, validate, evaluate, 4>({{0x1000, {}, 4, 4, kF32F16},
                                                 {0x2100, {}, 4, 4, kF32F16I32U32},
                                                 {0x3000, {}, 1, 8, kF32F16I32U32},
                                                 {0x5100, {}, 1, 8, kEightTypes},
                                                 {0x6000, {}, 1, 8, kTenTypes}},
                                                {kNaNResult, kIntegerDivisionByZero, kIntegerOverflow, kSubnormals});
    r.case_boundary = zero_divisor_boundary<DIV>;
    r.fast = fast_as<DIV, fast::element_wise_fast>;
    return r;
}

constexpr Policy kModulusFloorZero{"ModulusFloorZero", "DivisorSign"};

template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&)> OperatorRecord modulus() {
    auto r = binary<D, V, E, 1>(
        {{0x2100, {}, 4, 4, kEightTypes}, {0x3000, {}, 1, 8, kEightTypes}, {0x6000, {}, 1, 8, kTenTypes}},
        std::is_same_v<D, DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC>
            ? std::vector<Policy>{kNaNResult, kModulusFloorZero, kIntegerDivisionByZero, kSubnormals}
            : std::vector<Policy>{kNaNResult, kIntegerDivisionByZero, kSubnormals});
    r.info.IntroducedIn = 0x2100;
    r.case_boundary = zero_divisor_boundary<D>;
    r.fast = fast_as<D, fast::element_wise_fast>;  // integer types (reference/fast/element_wise.hpp)
    return r;
}

OperatorRecord difference_square() {
    auto r = binary<DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC, validate, evaluate, 7>(
        {{0x3100, {}, 1, 8, kF32F16I32U32}}, {kNaNResult, kIntegerOverflow, kSubnormals});
    r.info.IntroducedIn = 0x3100;
    return r;
}

// VALUE_SCALE_2D: the exact Scale * x + Bias[c] rounded once (ComputedValue=ExactThenRoundOnce),
// judged as a sum of its two terms, x * Scale (rounded by a backend) and Bias[c]: each element's
// bound from its own terms (docs/tolerance.md, "VALUE_SCALE_2D"), cancellation included.
// ADD1: ADD with an optional fused activation of the rounded sum (FusedActivationInput=RoundedSum).
// Float outputs: each element's bound from the sum's rounding carried through the activation
// (add1_bounds; docs/tolerance.md, "ELEMENT_WISE_ADD1"); the golden states Summed with MaxTerms 2.
constexpr Policy kFusedActivationInput{"FusedActivationInput", "RoundedSum"};

std::optional<Tolerance> add1_tolerance(const OperatorDesc& d, std::string_view) {
    if (!is_float(get<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(d).OutputTensor.DataType)) return std::nullopt;  // Bits
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 2;
    t.Why =
        "FusedActivation(a + b): the sum rounded once, then the activation of it rounded once; dmlref diff bounds each "
        "element by the sum's rounding in the profile's precision carried through the activation (docs/tolerance.md, "
        "ELEMENT_WISE_ADD1); a NaN matches any NaN";
    return t;
}

void add1_features(const Case& c, std::vector<std::string>& f) {
    if (get<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(c.op.Desc).FusedActivation) f.push_back("fused-activation");
}

OperatorRecord add1_record() {
    auto r = operator_record<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x2000,
        .InPlace = {{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        .Support = {{0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
        .Policies = {kNonFiniteSum, kIntegerOverflow, kFusedActivationInput, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, add1_bounds},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = add1_tolerance;
    r.explain = explain_element_wise;
    r.rounding_cost = [](const OperatorDesc& d) {
        return kExactCost + fused_activation_cost(get<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(d).FusedActivation);
    };
    r.BaseTensors = {"ATensor", "BTensor"};
    r.features = {"fused-activation"};
    r.detect = add1_features;
    r.fast = fast_as<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, fast::element_wise_fast>;
    return r;
}

std::optional<Tolerance> value_scale_2d_tolerance(const OperatorDesc& d, std::string_view) {
    if (!is_float(get<DML_VALUE_SCALE_2D_OPERATOR_DESC>(d).OutputTensor.DataType)) return std::nullopt;  // Bits
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 2;
    t.Why =
        "Scale * x + Bias[c], exact and rounded once: judged as a sum of its two terms, x * Scale (rounded by a backend) "
        "and Bias[c]; dmlref diff bounds each element from its own terms, fused or not, in the profile's precision; a NaN "
        "matches any NaN (docs/tolerance.md, VALUE_SCALE_2D)";
    return t;
}

OperatorRecord value_scale_2d_record() {
    auto r = operator_record<DML_VALUE_SCALE_2D_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {},
        .Support = {{0x1000, {}, 4, 4, kF32F16}},
        .Policies = {kComputedValue, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, nullptr,
                  value_scale_2d_terms},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = value_scale_2d_tolerance;
    r.explain = explain_value_scale_2d;
    r.rounding_cost = rounding_cost<kExactCost>;
    r.MinRank = 4;
    r.MaxRank = 4;
    r.ScopeTypes = {DT::FLOAT32, DT::FLOAT16, DT::FLOAT64};
    r.BaseTensors = {"InputTensor"};
    return r;
}

template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&)> OperatorRecord min_max() {
    auto r = binary<D, V, E, 1>({{0x1000, {}, 4, 4, kF32F16},
                                 {0x2100, {}, 4, 4, kEightTypes},
                                 {0x3000, {}, 1, 8, kEightTypes},
                                 {0x5000, {}, 1, 8, kTenTypes}},
                                {kMinMaxNaN, kSignedZeroMinMax, kSubnormals});
    r.case_boundary = signed_zero_boundary<D>;
    r.fast = fast_as<D, fast::element_wise_fast>;
    return r;
}

OperatorRecord mean() {
    return binary<MEAN, validate, evaluate, 3>(
        {{0x1000, {}, 4, 4, kF32F16}, {0x2100, {}, 4, 4, kF32F16I32U32}, {0x3000, {}, 1, 8, kF32F16I32U32}},
        {kNonFiniteSum, kIntegerMean, kSubnormals});
}

// ---- IDENTITY, ABS, CEIL, FLOOR, SIGN, NEGATE (reference/element_wise_unary.cpp) --------------

using IDENTITY = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC;
using ABS = DML_ELEMENT_WISE_ABS_OPERATOR_DESC;
using CEIL = DML_ELEMENT_WISE_CEIL_OPERATOR_DESC;
using FLOOR = DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC;
using SIGN = DML_ELEMENT_WISE_SIGN_OPERATOR_DESC;
using NEGATE = DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC;

constexpr Policy kScaleBias{"ScaleBiasArithmetic", "Float32UnfusedFloat64ForFloat64"};
constexpr Policy kSignBitOperation{"SignBitOperation", "IEEE754"};
constexpr Policy kSignOfZero{"SignOfZero", "PositiveZero"};
constexpr Policy kSignOfNaN{"SignOfNaN", "CanonicalNaN"};

const std::vector<DT> kAbsTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::INT8};
const std::vector<DT> kAbsTypes41 = {DT::FLOAT32, DT::FLOAT16, DT::INT64, DT::INT32, DT::INT16, DT::INT8};

template <class D> bool unary_scale_bias(const D& d) {
    if constexpr (requires { d.ScaleBias; }) return d.ScaleBias.has_value();
    else return false;
}

// Float outputs (docs/tolerance.md, "Element-wise unary operators"), as Summed with MaxTerms k:
// (k - 1/2) ULP, a NaN golden matching any NaN. K without ScaleBias (0: Bits, IDENTITY's copy; 1:
// an exact result, bit for bit), KSB with it (g(x) fused or unfused, within 1 ULP, carried through
// f). Integers: Bits.
template <class D, uint64_t K, uint64_t KSB>
std::optional<Tolerance> unary_tolerance(const OperatorDesc& od, std::string_view) {
    const D& d = get<D>(od);
    if (!is_float(d.OutputTensor.DataType)) return std::nullopt;
    const bool sb = unary_scale_bias(d);
    if (!sb && K == 0) return std::nullopt;  // Bits: a copy
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = sb ? KSB : K;
    if constexpr (std::is_same_v<D, DML_ELEMENT_WISE_SQRT_OPERATOR_DESC>)
        t.Why =
            sb ? "sqrt(x * Scale + Bias): g within 1 ULP (fused or not) moves the root by at most 1 ULP, the root within "
                 "3 ULP, then one rounding: within 4.5 ULP; a NaN matches any NaN (docs/tolerance.md, Element-wise unary operators)"
               : "sqrt(x) correctly rounded: a backend's root within 3 ULP (assumed) is within 3.5 ULP of it; a NaN matches any "
                 "NaN (docs/tolerance.md, Element-wise unary operators)";
    else if constexpr (std::is_same_v<D, DML_ELEMENT_WISE_RECIP_OPERATOR_DESC>)
        t.Why =
            sb ? "1 / (x * Scale + Bias): g within 1 ULP (fused or not) moves 1/g by at most 2 ULP, the reciprocal or "
                 "division within 2.5 ULP, then one rounding: within 5.5 ULP; a NaN matches any NaN (docs/tolerance.md, "
                 "Element-wise unary operators)"
               : "1 / x correctly rounded: a backend's reciprocal (1 ULP) or division (2.5 ULP) is within 3.5 ULP of it; a "
                 "NaN matches any NaN (docs/tolerance.md, Element-wise unary operators)";
    else
        t.Why =
            sb ? "f(x * Scale + Bias): g(x) fused or unfused is within 1 ULP, f exact, then one rounding: within 1.5 ULP; "
                 "a NaN matches any NaN (docs/tolerance.md, Element-wise unary operators)"
               : "an exact result (a sign-bit operation, an integer value or a sign), bit for bit; only a NaN golden "
                 "matches any NaN (docs/tolerance.md, Element-wise unary operators)";
    return t;
}

template <class D> void scale_bias_feature(const Case& c, std::vector<std::string>& f) {
    if (unary_scale_bias(get<D>(c.op.Desc))) f.push_back("scale-bias");
}

template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&), uint64_t K = 1,
          uint64_t KSB = 2>
OperatorRecord unary(uint32_t introduced, std::vector<SupportRow> support, std::vector<Policy> policies) {
    auto r = operator_record<D, V, E>({
        .IntroducedIn = introduced,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = std::move(support),
        .Policies = std::move(policies),
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = unary_tolerance<D, K, KSB>;
    r.explain = explain_unary;
    r.rounding_cost = rounding_cost<kExactCost>;
    if constexpr (requires(D d) { d.ScaleBias; }) {
        r.features = {"scale-bias"};
        r.detect = scale_bias_feature<D>;
    }
    return r;
}

OperatorRecord identity_record() {
    return unary<IDENTITY, validate, evaluate, 0, 2>(0x1000,
                                                     {{0x1000, {}, 4, 5, kF32F16},
                                                      {0x2100, {}, 4, 5, kEightTypes},
                                                      {0x3000, {}, 1, 8, kEightTypes},
                                                      {0x4100, {}, 1, 8, kElevenTypes}},
                                                     {kScaleBias, kSubnormals});
}
OperatorRecord abs_record() {
    return unary<ABS, validate, evaluate>(0x1000,
                                          {{0x1000, {}, 4, 4, kF32F16},
                                           {0x2100, {}, 4, 4, kAbsTypes},
                                           {0x3000, {}, 1, 8, kAbsTypes},
                                           {0x4100, {}, 1, 8, kAbsTypes41}},
                                          {kSignBitOperation, kIntegerOverflow, kScaleBias, kSubnormals});
}
OperatorRecord ceil_record() {
    return unary<CEIL, validate, evaluate>(0x1000, {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
                                           {kNaNResult, kScaleBias, kSubnormals});
}
OperatorRecord floor_record() {
    return unary<FLOOR, validate, evaluate>(0x1000, {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
                                            {kNaNResult, kScaleBias, kSubnormals});
}
OperatorRecord sign_record() {
    return unary<SIGN, validate, evaluate>(0x2000,
                                           {{0x2000, {}, 4, 4, kF32F16},
                                            {0x2100, {}, 4, 4, kEightTypes},
                                            {0x3000, {}, 1, 8, kEightTypes},
                                            {0x4100, {}, 1, 8, kTenTypes}},
                                           {kSignOfZero, kSignOfNaN, kSubnormals});
}
OperatorRecord sqrt_record() {
    auto r = unary<DML_ELEMENT_WISE_SQRT_OPERATOR_DESC, validate, evaluate, 4, 5>(
        0x1000, {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
        {kNaNResult, kIntegerResult, kScaleBias, kSubnormals});
    r.fast = fast_as<DML_ELEMENT_WISE_SQRT_OPERATOR_DESC, fast::element_wise_fast>;
    return r;
}
OperatorRecord recip_record() {
    return unary<DML_ELEMENT_WISE_RECIP_OPERATOR_DESC, validate, evaluate, 4, 6>(
        0x1000, {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}},
        {kNaNResult, kIntegerDivisionByZero, kScaleBias, kSubnormals});
}

// THRESHOLD selects x or Min, as CLIP does: Bits, 1 ULP with ScaleBias (Ulp1WithScaleBias).
constexpr Policy kClipFloatBound{"ClipFloatBoundCompare", "ExactValues"};
constexpr Policy kClipBoundStore{"ClipBoundStore", "RoundNearestEvenSaturate"};
bool threshold_scale_bias(const OperatorDesc& d) {
    return get<DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC>(d).ScaleBias.has_value();
}

OperatorRecord threshold_record() {
    auto r = unary<DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC, validate, evaluate>(
        0x1000, {{0x1000, {}, 4, 4, kF32F16}, {0x2100, {}, 4, 4, kEightTypes}, {0x3000, {}, 1, 8, kEightTypes}},
        {kForwardNaN, kSignedZeroMinMax, kClipFloatBound, kClipBoundStore, kScaleBias, kSubnormals});
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::Ulp1WithScaleBias},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = nullptr;
    r.has_scale_bias = threshold_scale_bias;
    return r;
}

OperatorRecord round_record() {
    return unary<DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, validate, evaluate>(
        0x2100, {{0x2100, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kF32F16}}, {kNaNResult, kSubnormals});
}

OperatorRecord negate_record() {
    return unary<NEGATE, validate, evaluate>(0x5000, {{0x5000, {}, 1, 8, kAbsTypes41}},
                                             {kSignBitOperation, kIntegerOverflow, kSubnormals});
}

}  // namespace rec_element_wise

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& element_wise_family() {
    using namespace reference::rec_element_wise;
    static const FamilyRecord f{
        "element_wise",
        {add(),
         subtract(),
         multiply(),
         divide(),
         min_max<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, reference::validate, reference::evaluate>(),
         min_max<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, reference::validate, reference::evaluate>(),
         mean(),
         identity_record(),
         abs_record(),
         ceil_record(),
         floor_record(),
         sign_record(),
         negate_record(),
         sqrt_record(),
         recip_record(),
         threshold_record(),
         round_record(),
         modulus<DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC, reference::validate, reference::evaluate>(),
         modulus<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC, reference::validate, reference::evaluate>(),
         difference_square(),
         value_scale_2d_record(),
         add1_record()},
        // docs/golden.md, "Alternative readings" (reference/element_wise.cpp, saturated_binary;
        // element_wise_unary.cpp, ABS and NEGATE; reduction.cpp, integer_reduce_alternative;
        // cumulative.cpp, saturating_scan; fill.cpp, saturating_step; fold.cpp, gemm_integer.cpp and
        // convolution.cpp, where each sums).
        {{.Policy = "IntegerOverflow",
          .Value = "Saturate",
          .Meaning = "an integer result beyond the type's range is clamped to it, not wrapped: INT8 100 + 100 is 127, "
                     "-128 * -1 and abs(-128) are 127, UINT8 1 - 2 is 0; the exact sums and products of REDUCE, "
                     "FOLD, MATRIX_MULTIPLY_INTEGER and CONVOLUTION_INTEGER and each prefix of CUMULATIVE_SUMMATION "
                     "and CUMULATIVE_PRODUCT clamped once, at the end, and FILL_VALUE_SEQUENCE's Value += Delta "
                     "clamped at every step",
          .Who = "saturating integer arithmetic (SIMD adds with saturation, kernels that accumulate wide and clamp "
                 "on the store)",
          .Operators = {OperatorType::ELEMENT_WISE_ADD, OperatorType::ELEMENT_WISE_ADD1,
                        OperatorType::ELEMENT_WISE_SUBTRACT, OperatorType::ELEMENT_WISE_MULTIPLY,
                        OperatorType::ELEMENT_WISE_DIVIDE, OperatorType::ELEMENT_WISE_DIFFERENCE_SQUARE,
                        OperatorType::ELEMENT_WISE_ABS, OperatorType::ELEMENT_WISE_NEGATE, OperatorType::REDUCE,
                        OperatorType::CUMULATIVE_SUMMATION, OperatorType::CUMULATIVE_PRODUCT,
                        OperatorType::FILL_VALUE_SEQUENCE, OperatorType::FOLD, OperatorType::MATRIX_MULTIPLY_INTEGER,
                        OperatorType::CONVOLUTION_INTEGER}}}};
    return f;
}
}  // namespace dmlref::kit
