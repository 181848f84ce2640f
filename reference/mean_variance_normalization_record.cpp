// The MEAN_VARIANCE_NORMALIZATION family's record (reference/kit/family.hpp): the facts of
// DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, ...1 and ...2 from their pages, how the output is
// bounded (reference/mean_variance_normalization.cpp), the tensors' shapes before
// DML_FEATURE_LEVEL_4_0 and 5_2, and coverage.
#include "mean_variance_normalization.hpp"
#include "batch_normalization_internal.hpp"

#include "fused_activation.hpp"
#include "fused_activation_policies.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_mean_variance_normalization {

using namespace kit;
using MVN = DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC;
using MVN1 = DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC;
using MVN2 = DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC;

// docs/golden.md, "Mean variance normalization".
constexpr Policy kMvnVariance{"MvnVariance", "PopulationExact"};
constexpr Policy kMvnEpsilon{"MvnEpsilon", "InsideSquareRoot"};
constexpr Policy kMvnCrossChannelAxes{"MvnCrossChannelAxes", "ChannelAndSpatialOrSpatial"};
constexpr Policy kMvnUseMean{"MvnUseMean", "FalseMeansRootMeanSquare"};
constexpr Policy kMvnScaleBias{"MvnScaleBias", "AbsentScaleOneAbsentBiasZero"};
constexpr Policy kMvnSpecialValues{"MvnSpecialValues", "IeeeOnTheExactFormula"};

// Before DML_FEATURE_LEVEL_4_0 (MVN1's page) ScaleTensor and BiasTensor take the Input's channel
// count; before DML_FEATURE_LEVEL_5_2 (all three pages) each needs the other.
template <class D> void support_rules(const OperatorDesc& desc, uint32_t level, std::vector<std::string>& why) {
    const D& d = get<D>(desc);
    if (level < 0x5200 && bool(d.ScaleTensor) != bool(d.BiasTensor))
        why.push_back(std::string(d.ScaleTensor ? "ScaleTensor without BiasTensor" : "BiasTensor without ScaleTensor") +
                      ": each requires the other before DML_FEATURE_LEVEL_5_2");
    if constexpr (!std::is_same_v<D, MVN>) {
        if (level >= 0x4000) return;
        for (const auto& [field, t] :
             {std::pair{"ScaleTensor", &d.ScaleTensor}, std::pair{"BiasTensor", &d.BiasTensor}})
            if (*t && (*t)->Sizes.size() > 1 && d.InputTensor.Sizes.size() > 1 &&
                (*t)->Sizes[1] != d.InputTensor.Sizes[1])
                why.push_back(std::string(field) + ": Sizes[1] " + std::to_string((*t)->Sizes[1]) +
                              " must be the ChannelCount " + std::to_string(d.InputTensor.Sizes[1]) +
                              " before DML_FEATURE_LEVEL_4_0");
    }
}

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    const MvnPlan p = mvn_plan(d);
    if (d.ScaleTensor || d.BiasTensor) f.push_back("scale-bias");
    if (bool(d.ScaleTensor) != bool(d.BiasTensor)) f.push_back("scale-or-bias-alone");
    if (d.FusedActivation) f.push_back("fused-activation");
    if (!p.use_variance) f.push_back("no-variance");
    if (!p.use_mean) f.push_back("no-mean");
    uint64_t groups = 0, count = 0;
    mvn_groups(p, groups, count);
    if (groups > 1) f.push_back("several-groups");
}

template <class D> bool explain(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const D& d = get<D>(c.op.Desc);
    const MvnPlan p = mvn_plan(d);
    const std::vector<uint64_t> at = nd_coordinate(d.InputTensor.Sizes, flat);
    out.inputs.push_back(input_element(c, "InputTensor", at, "x"));
    for (const auto& [field, t, role] :
         {std::tuple{"ScaleTensor", &d.ScaleTensor, "scale"}, std::tuple{"BiasTensor", &d.BiasTensor, "bias"}})
        if (*t) {
            std::vector<uint64_t> i = at;
            for (size_t k = 0; k < i.size() && k < (*t)->Sizes.size(); ++k)
                if ((*t)->Sizes[k] == 1) i[k] = 0;
            out.inputs.push_back(input_element(c, field, i, role));
        }
    uint64_t groups = 0, count = 0;
    const auto k_of = mvn_groups(p, groups, count);
    std::string axes;
    for (uint32_t a = 0; a < d.InputTensor.DimensionCount(); ++a)
        if ((p.axes >> a) & 1u) axes += (axes.empty() ? "" : ", ") + std::to_string(a);
    out.facts.emplace_back("group", "statistics group " + std::to_string(k_of.at(flat)) + " of " +
                                        std::to_string(groups) + ": " + std::to_string(count) +
                                        " elements, over dimensions {" + axes + "}");
    const char* formula = !p.use_variance ? (p.use_mean ? "scale * (x - mean) + bias" : "scale * x + bias")
                          : p.use_mean    ? "scale * (x - mean) / sqrt(variance + Epsilon) + bias"
                                          : "scale * x / sqrt(mean of x^2 + Epsilon) + bias";
    out.facts.emplace_back("formula", formula);
    out.facts.emplace_back(
        "output",
        std::string(output) + ": the exact value of the formula (exact mean and population variance), rounded once");
    out.policies = {"ComputedValue", "MvnVariance", "MvnEpsilon"};
    if constexpr (std::is_same_v<D, MVN>) out.policies.push_back("MvnCrossChannelAxes");
    if constexpr (std::is_same_v<D, MVN2>) out.policies.push_back("MvnUseMean");
    return true;
}

// The fused activations' policies are batch normalization's (reference/fused_activation_policies.hpp).
std::vector<Policy> policies() {
    std::vector<Policy> p = {kComputedValue, kMvnVariance, kMvnEpsilon, kMvnScaleBias, kMvnSpecialValues};
    p.insert(p.end(), kFusedActivationPolicies.begin(), kFusedActivationPolicies.end());
    p.insert(p.end(), {kIntegerResult, kZeroResult, kSubnormals});
    return p;
}

template <class D>
OperatorRecord mvn_record(uint32_t level, std::vector<SupportRow> support, std::vector<Policy> extra) {
    std::vector<Policy> all = std::move(extra);
    for (const Policy& p : policies()) all.push_back(p);
    auto r = operator_record<D, validate, evaluate>(
        {.IntroducedIn = level, .Support = std::move(support), .Policies = std::move(all)});
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None,
                  mean_variance_normalization_bounds}};
    r.desc_tolerance = tolerance_as<D, tolerance>;
    // --max-work: a square root and a division per element in MPFR, and the fused activation's
    // (measured; docs/rules.md, limit.work).
    r.rounding_cost = [](const OperatorDesc& d) { return 400 + fused_activation_cost(get<D>(d).FusedActivation); };
    r.explain = explain<D>;
    r.reads_inputs = true;
    r.features = {"scale-bias", "scale-or-bias-alone", "fused-activation", "no-variance", "several-groups"};
    if constexpr (std::is_same_v<D, MVN2>) r.features.push_back("no-mean");
    r.detect = detect<D>;
    r.support_rules = support_rules<D>;
    if constexpr (std::is_same_v<D, MVN>) r.MinRank = 2;
    return r;
}

}  // namespace rec_mean_variance_normalization

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& mean_variance_normalization_family() {
    using namespace reference;
    using namespace reference::rec_mean_variance_normalization;
    static const FamilyRecord f{
        "mean_variance_normalization",
        {mvn_record<MVN>(0x1000, {{0x1000, {}, 4, 4, kF32F16}}, {kMvnCrossChannelAxes}),
         mvn_record<MVN1>(0x2100, {{0x2100, {}, 4, 4, kF32F16}, {0x3100, {}, 1, 8, kF32F16}}, {}),
         mvn_record<MVN2>(0x6300, {{0x6300, {}, 1, 8, kF32F16}}, {kMvnUseMean})}};
    return f;
}
}  // namespace dmlref::kit
