// The cumulative family's record (reference/kit/family.hpp): the facts of
// DML_CUMULATIVE_SUMMATION_OPERATOR_DESC and DML_CUMULATIVE_PRODUCT_OPERATOR_DESC from their pages
// ("Availability", in-place execution, "Tensor support"), the policies their goldens record, and
// how their outputs are judged: float prefix sums by each element's own terms (Summed), float
// prefix products by a per-element bound, integers bit for bit.
#include "cumulative.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_cumulative {

using namespace kit;
using SUM = DML_CUMULATIVE_SUMMATION_OPERATOR_DESC;
using PROD = DML_CUMULATIVE_PRODUCT_OPERATOR_DESC;

constexpr Policy kPrefixValue{"PrefixValue", "EachPrefixExactThenRoundOnce"};
constexpr Policy kProductSign{"ProductSign", "ExclusiveOrOfSigns"};
constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};

// The pages' tables: FLOAT32, FLOAT16, INT32, UINT32 (4-D, then 1 to 8 dimensions from 4.0); 5.0 adds
// INT64 and UINT64.
const std::vector<DT> kTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::UINT32};
const std::vector<DT> kTypes50 = {DT::FLOAT32, DT::FLOAT16, DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    f.push_back(d.AxisDirection == DML_AXIS_DIRECTION_DECREASING ? "decreasing" : "increasing");
    uint32_t exclusive = 0;
    if constexpr (std::is_same_v<D, SUM>) exclusive = d.HasExclusiveSum;
    else exclusive = d.HasExclusiveProduct;
    f.push_back(exclusive ? "exclusive" : "inclusive");
    if (d.Axis < d.InputTensor.Sizes.size() && d.InputTensor.Sizes[d.Axis] >= 64) f.push_back("long-scan");
    if (d.Axis + 1 != d.InputTensor.Sizes.size()) f.push_back("axis-not-last");
}

// Element reads per output element: the prefix, at most the axis's size.
template <class D> uint64_t work(const OperatorDesc& desc) {
    const D& d = get<D>(desc);
    return d.Axis < d.InputTensor.Sizes.size() ? d.InputTensor.Sizes[d.Axis] : 1;
}

std::vector<uint32_t> sum_term_counts(const Case& c, std::string_view) { return cumulative_term_counts(c.op.Desc); }

template <class D> OperatorRecord cumulative_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.explain = explain_cumulative;
    r.features = {"increasing", "decreasing", "inclusive", "exclusive", "long-scan", "axis-not-last"};
    r.detect = detect<D>;
    r.work_factor = work<D>;
    return r;
}

OperatorRecord summation() {
    auto r = cumulative_record<SUM>(
        {.IntroducedIn = 0x2100,
         .InPlace = {{"OutputTensor", "InputTensor"}},
         .Support = {{0x2100, {}, 4, 4, kTypes}, {0x4000, {}, 1, 8, kTypes}, {0x5000, {}, 1, 8, kTypes50}},
         .Policies = {kPrefixValue, kZeroResult, kNonFiniteSum, kIntegerOverflow, kSubnormals}});
    // Each float element is an exact sum of its prefix rounded once, judged by its own terms;
    // integer sums wrap exactly (docs/tolerance.md, "Cumulative sum and product").
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::Summed, BoundaryRule::None, nullptr,
                  cumulative_summation_terms, nullptr, sum_term_counts},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    return r;
}

OperatorRecord product() {
    auto r = cumulative_record<PROD>(
        {.IntroducedIn = 0x3100,
         .InPlace = {{"OutputTensor", "InputTensor"}},
         .Support = {{0x3100, {}, 4, 4, kTypes}, {0x4000, {}, 1, 8, kTypes}, {0x5000, {}, 1, 8, kTypes50}},
         .Policies = {kPrefixValue, kProductSign, kNonFiniteSum, kIntegerOverflow, kSubnormals}});
    r.outputs = {
        {"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, cumulative_product_bounds}};
    r.desc_tolerance = tolerance_as<PROD, tolerance>;
    r.rounding_cost = rounding_cost<100>;  // the exact product rounded once (measured; docs/rules.md, limit.work)
    return r;
}

}  // namespace rec_cumulative

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& cumulative_family() {
    using namespace reference::rec_cumulative;
    static const FamilyRecord f{"cumulative", {summation(), product()}};
    return f;
}
}  // namespace dmlref::kit
