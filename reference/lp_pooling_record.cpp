// The LP_POOLING family's record (reference/kit/family.hpp): the facts of DML_LP_POOLING_OPERATOR_DESC
// and DML_LP_POOLING1_OPERATOR_DESC from their pages, how the output is bounded
// (reference/lp_pooling.cpp), coverage, gen and the work estimate (the window geometry of
// reference/pooling_geometry.hpp).
#include "lp_pooling.hpp"

#include "kit/policies.hpp"

#include "dmlref/checked.hpp"

namespace dmlref::reference {

namespace rec_lp_pooling {

using namespace kit;
using LP = DML_LP_POOLING_OPERATOR_DESC;
using LP1 = DML_LP_POOLING1_OPERATOR_DESC;

// docs/golden.md, "Lp pooling".
constexpr Policy kLpPoolingTerms{"LpPoolingTerms", "AbsoluteValue"};
constexpr Policy kLpPoolingPadding{"LpPoolingPadding", "NotATerm"};
constexpr Policy kLpPoolingEmptyWindow{"LpPoolingEmptyWindow", "Zero"};
constexpr Policy kLpPoolingIntermediateOverflow{"LpPoolingIntermediateOverflow", "ExactValue"};
constexpr Policy kLpPoolingSpecialValues{"LpPoolingSpecialValues", "NaNThenInfinity"};

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    pooling_window_features(view(d), f);
    if (pooling_empty_windows(view(d)) > 0) f.push_back("all-padding-window");
    f.push_back(d.P == 1 ? "p1" : d.P == 2 ? "p2" : "p3-or-more");
}

template <class D> uint64_t taps(const OperatorDesc& d) { return pooling_window_taps(view(get<D>(d))); }

template <class D> std::vector<uint64_t> windows(const Operator& op, const TensorDesc& in, int where) {
    return pooling_window_positions(view(get<D>(op.Desc)), in, where);
}

template <class D> bool explain(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const D& d = get<D>(c.op.Desc);
    explain_pooling_window(c, view(d), false, flat, "InputTensor", "InputTensor", out);
    out.facts.emplace_back("formula",
                           "Y = (sum of |x|^P over the window's real elements)^(1/P), P = " + std::to_string(d.P) +
                               "; padding is no term, a window of padding only gives +0");
    out.policies = {"ComputedValue", "LpPoolingTerms", "LpPoolingPadding", "LpPoolingIntermediateOverflow"};
    return true;
}

template <class D> OperatorRecord lp_pooling_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    // Each float element is the exact norm rounded once, bounded by the family's forward error
    // analysis (docs/tolerance.md, "Lp pooling"); integers are stated Bits.
    r.outputs = {
        {"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, lp_pooling_bounds}};
    r.desc_tolerance = tolerance_as<D, tolerance>;
    r.explain = explain<D>;
    r.MinRank = 3;
    r.features = {"padding", "stride>1", "overlapping-windows", "ceil-size", "all-padding-window"};
    if constexpr (std::is_same_v<D, LP1>) r.features.push_back("dilation>1");
    r.features.insert(r.features.end(), {"p1", "p2", "p3-or-more"});
    r.detect = detect<D>;
    r.work_factor = taps<D>;
    // --max-work: an MPFR power a tap, then a root (measured; docs/rules.md, limit.work).
    r.rounding_cost = [](const OperatorDesc& d) { return saturating_mul(70, taps<D>(d)); };
    r.ArraysFrom = 2;
    r.sizes = pooling_sizes;
    r.windows = windows<D>;
    return r;
}

const std::vector<Policy> kLp = {kLpPoolingTerms,
                                 kLpPoolingPadding,
                                 kLpPoolingEmptyWindow,
                                 kLpPoolingIntermediateOverflow,
                                 kLpPoolingSpecialValues,
                                 kOutputSizes,
                                 kComputedValue,
                                 kIntegerResult,
                                 kZeroResult,
                                 kSubnormals};

}  // namespace rec_lp_pooling

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& lp_pooling_family() {
    using namespace reference;
    using namespace reference::rec_lp_pooling;
    static const FamilyRecord f{
        "lp_pooling",
        {lp_pooling_record<LP>({.IntroducedIn = 0x1000, .Support = {{0x1000, {}, 4, 5, kF32F16}}, .Policies = kLp}),
         lp_pooling_record<LP1>({.IntroducedIn = 0x6200, .Support = {{0x6200, {}, 4, 5, kF32F16}}, .Policies = kLp})},
        // docs/golden.md, "Alternative readings" (reference/lp_pooling.cpp, lp_norm).
        {{.Policy = "LpPoolingTerms",
          .Value = "SignedPowers",
          .Meaning =
              "the page's formula without the bars: each term is x^P with its sign for an odd P (an even P is the "
              "same), the exact sum's P-th root rounded once; a negative sum has no real root, NaN, for P >= 3 "
              "(P = 1: the signed sum itself)",
          .Who = "PyTorch's LPPool1d/2d/3d (avg_pool of x.pow(p), then .pow(1 / p)), the formula as printed",
          .Operators = {OperatorType::LP_POOLING, OperatorType::LP_POOLING1}}}};
    return f;
}
}  // namespace dmlref::kit
