// The element-wise family's record (reference/kit/family.hpp): the facts of
// DML_ELEMENT_WISE_ADD_OPERATOR_DESC from its page ("Tensor support"), and how its output is judged.
#include "element_wise.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace {

using namespace kit;
using ADD = DML_ELEMENT_WISE_ADD_OPERATOR_DESC;

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
    t.Why = "a + b, the exact sum rounded once to nearest-even (docs/golden.md, Element-wise): a backend's own rounding of "
            "the two terms is within (2 - 1/2) ULP of it; a NaN sum matches any NaN (docs/tolerance.md)";
    return t;
}

OperatorRecord add() {
    auto r = operator_record<ADD, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        // The page's rows from DML_FEATURE_LEVEL_3_0 on (the 1.0 row: 4-D FLOAT32 and FLOAT16).
        .Support = {{0x1000, {}, 4, 4, kF32F16}, {0x3000, {}, 1, 8, kAdd30}, {0x4100, {}, 1, 8, kAdd41},
                    {0x5100, {}, 1, 8, kTenTypes}},
        .Policies = {kNonFiniteSum, kIntegerOverflow, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = add_tolerance;
    r.explain = explain_element_wise;
    r.BaseTensors = {"ATensor", "BTensor"};
    return r;
}

}  // namespace

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& element_wise_family() {
    static const FamilyRecord f{"element_wise", {reference::add()}};
    return f;
}
}  // namespace dmlref::kit
