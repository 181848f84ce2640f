// CAST's record (reference/kit/family.hpp): the facts of DML_CAST_OPERATOR_DESC from its page
// ("Availability", "Tensor support"), the policies its goldens record (docs/golden.md, "Cast"),
// and how its output is judged: every conversion is exact by its policy (one rounding, or none),
// so Bits.
#include "cast.hpp"

#include "fast/element_wise.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace {

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

}  // namespace

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& cast_family() {
    static const FamilyRecord f{"cast", {reference::cast()}};
    return f;
}
}  // namespace dmlref::kit
