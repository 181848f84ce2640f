// The LP_NORMALIZATION family's record (reference/kit/family.hpp): the facts of
// DML_LP_NORMALIZATION_OPERATOR_DESC from its page, how the output is bounded
// (reference/lp_normalization.cpp), and coverage.
#include "lp_normalization.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_lp_normalization {

using namespace kit;
using LPN = DML_LP_NORMALIZATION_OPERATOR_DESC;

// docs/golden.md, "Lp normalization".
constexpr Policy kLpNormalizationEpsilon{"LpNormalizationEpsilon", "MaxOfNormAndEpsilon"};
constexpr Policy kLpNormalizationSpecialValues{"LpNormalizationSpecialValues", "IeeeOnTheExactFormula"};

void detect(const Case& c, std::vector<std::string>& f) {
    const LPN& d = get<LPN>(c.op.Desc);
    if (d.P == 1) f.push_back("p1");
    if (d.Axis + 1 < d.InputTensor.DimensionCount()) f.push_back("inner-axis");
}

bool explain(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const LPN& d = get<LPN>(c.op.Desc);
    const std::vector<uint64_t> at = nd_coordinate(d.InputTensor.Sizes, flat);
    out.inputs.push_back(input_element(c, "InputTensor", at, "x"));
    uint64_t groups = 0;
    const auto k_of = lp_groups(d, groups);
    out.facts.emplace_back("vector", "vector " + std::to_string(k_of.at(flat)) + " of " + std::to_string(groups) +
                                         ": the " + std::to_string(d.InputTensor.Sizes.at(d.Axis)) +
                                         " elements along Axis " + std::to_string(d.Axis));
    out.facts.emplace_back("formula", d.P == 1 ? "x / max(sum |x|, Epsilon)" : "x / max(sqrt(sum x^2), Epsilon)");
    out.facts.emplace_back("output", std::string(output) + ": the exact value of the formula, rounded once");
    out.policies = {"ComputedValue", "LpNormalizationEpsilon"};
    return true;
}

OperatorRecord lp_normalization() {
    auto r = operator_record<LPN, validate, evaluate>(
        {.IntroducedIn = 0x1000,
         .Support = {{0x1000, {}, 4, 4, kF32F16}},
         .Policies = {kComputedValue, kLpNormalizationEpsilon, kLpNormalizationSpecialValues, kIntegerResult,
                      kZeroResult, kSubnormals}});
    r.outputs = {
        {"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, lp_normalization_bounds}};
    r.desc_tolerance = tolerance_as<LPN, tolerance>;
    r.rounding_cost =
        rounding_cost<300>;  // a root and a division per element in MPFR (measured; docs/rules.md, limit.work)
    r.explain = explain;
    r.reads_inputs = true;
    r.features = {"p1", "inner-axis"};
    r.detect = detect;
    return r;
}

}  // namespace rec_lp_normalization

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& lp_normalization_family() {
    using namespace reference::rec_lp_normalization;
    static const FamilyRecord f{"lp_normalization", {lp_normalization()}};
    return f;
}
}  // namespace dmlref::kit
