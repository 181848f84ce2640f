// CAST's record (reference/kit/family.hpp): the facts of DML_CAST_OPERATOR_DESC from its page
// ("Availability", "Tensor support"), the policies its goldens record (docs/golden.md, "Cast"),
// and how its output is judged: every conversion is exact by its policy (one rounding, or none),
// so Bits.
#include "cast.hpp"

#include "fast/element_wise.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_cast {

using namespace kit;

constexpr Policy kCastFloatToFloat{"CastFloatToFloat", "RoundNearestEven"};
constexpr Policy kCastNaN{"CastNaN", "QuietKeepsSignAndPayload"};
constexpr Policy kCastFloatToInteger{"CastFloatToInteger", "TruncateSaturateNaNZero"};
constexpr Policy kCastIntegerToFloat{"CastIntegerToFloat", "RoundNearestEven"};
constexpr Policy kCastIntegerToInteger{"CastIntegerToInteger", "WrapToWidth"};

// The page's rows: 1.0 4-D FLOAT32, FLOAT16, INT16, INT8, UINT16, UINT8; 3.0 4-D ten types (no
// FLOAT64); 3.1 1 to 8 dimensions; 4.1 all eleven.
const std::vector<DT> kCast10 = {DT::FLOAT32, DT::FLOAT16, DT::INT16, DT::INT8, DT::UINT16, DT::UINT8};

OperatorRecord cast() {
    auto r = operator_record<DML_CAST_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {}, 4, 4, kCast10},
                    {0x3000, {}, 4, 4, kTenTypes},
                    {0x3100, {}, 1, 8, kTenTypes},
                    {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kCastFloatToFloat, kCastNaN, kCastFloatToInteger, kCastIntegerToFloat, kCastIntegerToInteger,
                     kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_cast;
    r.fast = fast_as<DML_CAST_OPERATOR_DESC, fast::element_wise_fast>;
    return r;
}

}  // namespace rec_cast

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& cast_family() {
    using namespace reference::rec_cast;
    static const FamilyRecord f{
        "cast",
        {cast()},
        // docs/golden.md, "Alternative readings" (reference/cast.cpp, cast_value).
        {{.Policy = "CastFloatToInteger",
          .Value = "RoundHalfEven",
          .Meaning = "a float into an integer type is rounded to the nearest integer, halves to the even one, then "
                     "saturated; NaN 0: 2.5 is 2, 2.75 is 3, -2.75 is -3",
          .Who = "conversions under the default rounding mode (x86 cvtss2si, numpy's rint then astype)",
          .Operators = {OperatorType::CAST}},
         {.Policy = "CastFloatToInteger",
          .Value = "Wrap",
          .Meaning = "a float into an integer type is truncated toward zero and taken modulo 2^width, two's "
                     "complement (300 is 44 and -300 is -44 in INT8); NaN and +-inf give 0",
          .Who = "kernels that convert through a wider integer register and keep its low bits",
          .Operators = {OperatorType::CAST}},
         {.Policy = "CastFloatToInteger",
          .Value = "NaNIsMinimum",
          .Meaning = "as the default (truncated, saturated), but NaN gives the type's minimum: INT32 0x80000000, INT8 "
                     "-128 (unsigned types 0)",
          .Who = "x86's integer indefinite (cvttss2si), a saturating conversion that does not test for NaN",
          .Operators = {OperatorType::CAST}},
         {.Policy = "CastIntegerToInteger",
          .Value = "Saturate",
          .Meaning = "an integer into another integer type is clamped to its range: 300 into UINT8 is 255, -1 is 0",
          .Who = "saturating conversions (HLSL min/max before a narrowing store, packing instructions)",
          .Operators = {OperatorType::CAST}},
         {.Policy = "CastIntegerToFloat",
          .Value = "ThroughDouble",
          .Meaning = "an integer is converted to a double, then to the float type: INT64 and UINT64 into FLOAT32 "
                     "round twice (2^60 + 2^36 + 1 gives 2^60, not 2^60 + 2^37)",
          .Who = "conversions written as float(double(x)), GPUs without a direct 64-bit integer to FLOAT32 conversion",
          .Operators = {OperatorType::CAST}},
         {.Policy = "CastNaN",
          .Value = "Canonical",
          .Meaning = "a NaN into another float type is the canonical quiet NaN (FLOAT16 0x7e00, FLOAT32 0x7fc00000), "
                     "sign and payload dropped; a cast to the same type still copies the bits",
          .Who = "conversions that produce a default NaN (Arm's default NaN mode, many GPU converters)",
          .Operators = {OperatorType::CAST}}}};
    return f;
}
}  // namespace dmlref::kit
