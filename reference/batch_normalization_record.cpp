// The BATCH_NORMALIZATION family's record (reference/kit/family.hpp): the facts of
// DML_BATCH_NORMALIZATION_OPERATOR_DESC, _GRAD, _TRAINING and _TRAINING_GRAD from their pages, how
// each computed output is bounded, the statistics' shapes before DML_FEATURE_LEVEL_4_0, and
// coverage.
#include "batch_normalization.hpp"

#include "fast/batch_normalization.hpp"
#include "fused_activation.hpp"
#include "fused_activation_policies.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_batch_normalization {

using namespace kit;
using BN = DML_BATCH_NORMALIZATION_OPERATOR_DESC;
using GRAD = DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC;
using TRAINING = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC;
using TRAINING_GRAD = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;

constexpr Policy kBnFusedAdd{"BnFusedAdd", "ExactSumBeforeActivation"};
constexpr Policy kBnTrainingStatistics{"BnTrainingStatistics", "ExactBatchMeanAndVarianceForOutput"};
constexpr Policy kBnVariance{"BnVariance", "PopulationTwoPassNoEpsilon"};
constexpr Policy kBnTrainingGradMean{"BnTrainingGradMean", "SuppliedMeanTensorEverywhere"};
constexpr Policy kBnBroadcast{"BnBroadcast", "EachTensorIndependently"};
constexpr Policy kBnSpecialValues{"BnSpecialValues", "IeeeOnTheExactFormula"};
constexpr Policy kBnSpatial{"BnSpatial", "NoEffectOnValues"};

// BATCH_NORMALIZATION before DML_FEATURE_LEVEL_4_0 (docs/golden.md, Batch normalization):
// MeanTensor, VarianceTensor, ScaleTensor and BiasTensor take the Input's channel count and its
// other sizes or 1; Spatial FALSE also requires Mean's and Variance's spatial sizes.
void bn_support_rules(const OperatorDesc& desc, uint32_t level, std::vector<std::string>& why) {
    if (level >= 0x4000) return;
    const BN& d = get<BN>(desc);
    const auto& in = d.InputTensor.Sizes;
    const std::pair<const char*, const TensorDesc*> stats[] = {{"MeanTensor", &d.MeanTensor},
                                                               {"VarianceTensor", &d.VarianceTensor},
                                                               {"ScaleTensor", &d.ScaleTensor},
                                                               {"BiasTensor", &d.BiasTensor}};
    for (const auto& [field, t] : stats) {
        if (t->Sizes.size() != in.size()) continue;  // a rule of the operator's validation
        for (size_t i = 0; i < in.size(); ++i) {
            const bool spatial = i >= 2 && !d.Spatial && (t == &d.MeanTensor || t == &d.VarianceTensor);
            if (t->Sizes[i] == in[i] || (t->Sizes[i] == 1 && i != 1 && !spatial)) continue;
            why.push_back(std::string(field) + ": Sizes[" + std::to_string(i) + "] " + std::to_string(t->Sizes[i]) +
                          " must be " + std::to_string(in[i]) + (i == 1 || spatial ? "" : " or 1") +
                          " before DML_FEATURE_LEVEL_4_0" + (spatial ? " (Spatial FALSE)" : ""));
        }
    }
}

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    const TensorDesc* stat;  // a statistic over (or broadcast to) several elements
    if constexpr (std::is_same_v<D, TRAINING>) stat = &d.ScaleTensor;
    else stat = &d.MeanTensor;
    if (element_count(*stat) < element_count(d.InputTensor)) f.push_back("reduced-statistics");
    if constexpr (std::is_same_v<D, BN> || std::is_same_v<D, TRAINING>)
        if (d.FusedActivation) f.push_back("fused-activation");
    if constexpr (std::is_same_v<D, TRAINING>)
        if (d.FusedAddTensor) f.push_back("fused-add");
    if constexpr (std::is_same_v<D, BN>)
        if (d.MeanTensor.Sizes != d.VarianceTensor.Sizes || d.MeanTensor.Sizes != d.ScaleTensor.Sizes ||
            d.MeanTensor.Sizes != d.BiasTensor.Sizes)
            f.push_back("independent-broadcast");
}

// The element's operands: x (and dY) at its index, each statistic at the index it broadcasts from
// (size-1 dimensions read index 0), and the formula of the output.
template <class D> bool explain(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const D& d = get<D>(c.op.Desc);
    constexpr bool training = std::is_same_v<D, TRAINING> || std::is_same_v<D, TRAINING_GRAD>;
    constexpr bool grad = std::is_same_v<D, GRAD> || std::is_same_v<D, TRAINING_GRAD>;
    const bool per_element = output == "OutputTensor" || output == "OutputGradientTensor";
    if (per_element) {
        const std::vector<uint64_t> at = nd_coordinate(d.InputTensor.Sizes, flat);
        auto stat = [&](const char* field, const TensorDesc& t, const char* role) {
            std::vector<uint64_t> i = at;
            for (size_t k = 0; k < i.size() && k < t.Sizes.size(); ++k)
                if (t.Sizes[k] == 1) i[k] = 0;
            out.inputs.push_back(input_element(c, field, i, role));
        };
        out.inputs.push_back(input_element(c, "InputTensor", at, "x"));
        if constexpr (grad) out.inputs.push_back(input_element(c, "InputGradientTensor", at, "dY"));
        if constexpr (std::is_same_v<D, TRAINING>) {
            stat("ScaleTensor", d.ScaleTensor, "scale");
            stat("BiasTensor", d.BiasTensor, "bias");
        } else {
            stat("MeanTensor", d.MeanTensor, "mean");
            stat("VarianceTensor", d.VarianceTensor, "variance");
            stat("ScaleTensor", d.ScaleTensor, "scale");
            if constexpr (std::is_same_v<D, BN>) stat("BiasTensor", d.BiasTensor, "bias");
        }
    }
    const char* formula = grad ? "dX, dScale and dBias of y = (x - mean) / sqrt(variance + Epsilon) * scale + bias"
                          : training ? "(x - batch mean) / sqrt(batch variance + Epsilon) * scale + bias"
                                     : "(x - mean) / sqrt(variance + Epsilon) * scale + bias";
    out.facts.emplace_back("formula", formula);
    out.facts.emplace_back("output", std::string(output) + ": the exact value of the formula, rounded once");
    out.policies.push_back("ComputedValue");
    if constexpr (training && !grad) out.policies.push_back("BnTrainingStatistics");
    return true;
}

OutputRule computed(std::string_view output, ComputedBounds bounds) {
    return {output, TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, bounds};
}

// Batch normalization: 4-D FLOAT32/FLOAT16 at 1.0, 1 to 8 dimensions from 3.1 (the operators added
// later start there); dmlref evaluates ranks 1 to 8 and every type. Goldens state Summed without
// terms; diff bounds each element by its formula's parts' magnitudes
// (reference/batch_normalization_bound.cpp, docs/tolerance.md).
template <class D> OperatorRecord bn_record(OperatorInfo info, std::vector<OutputRule> outputs) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.outputs = std::move(outputs);
    r.desc_tolerance = tolerance_as<D, tolerance>;
    r.explain = explain<D>;
    r.reads_inputs = true;
    // --max-work: a square root and a division per element in MPFR, and the fused activation's
    // (measured; docs/rules.md, limit.work).
    if constexpr (std::is_same_v<D, BN> || std::is_same_v<D, TRAINING>)
        r.rounding_cost = [](const OperatorDesc& d) { return 400 + fused_activation_cost(get<D>(d).FusedActivation); };
    else r.rounding_cost = rounding_cost<400>;
    r.features = {"reduced-statistics"};
    if constexpr (std::is_same_v<D, BN> || std::is_same_v<D, TRAINING>) r.features.push_back("fused-activation");
    if constexpr (std::is_same_v<D, TRAINING>) r.features.push_back("fused-add");
    if constexpr (std::is_same_v<D, BN>) r.features.push_back("independent-broadcast");
    r.detect = detect<D>;
    return r;
}

const std::vector<Policy> kCommon = {kComputedValue, kBnSpecialValues, kIntegerResult, kZeroResult, kSubnormals};
const std::vector<Policy>& kActivation = kFusedActivationPolicies;  // reference/fused_activation_policies.hpp
std::vector<Policy> join(std::initializer_list<std::vector<Policy>> parts) {
    std::vector<Policy> v;
    for (const auto& p : parts) v.insert(v.end(), p.begin(), p.end());
    return v;
}

OperatorRecord bn() {
    auto r = bn_record<BN>(
        {.IntroducedIn = 0x1000,
         // 0x4000: the same table; MeanTensor to BiasTensor may broadcast any dimension from then
         // on (bn_support_rules).
         .Support = {{0x1000, {}, 4, 4, kF32F16}, {0x3100, {}, 1, 8, kF32F16}, {0x4000, {}, 1, 8, kF32F16}},
         .Policies = join({{kBnBroadcast, kBnSpatial}, kActivation, kCommon})},
        {computed("OutputTensor", batch_normalization_output_bounds)});
    r.support_rules = bn_support_rules;
    r.fast = fast_as<BN, fast::batch_normalization>;  // FLOAT32 and FLOAT16: reference/fast/batch_normalization.cpp
    return r;
}

template <class D> OperatorRecord grad(uint32_t level, std::vector<Policy> policies) {
    auto r = bn_record<D>(
        {.IntroducedIn = level, .Support = {{level, {}, 1, 8, kF32F16}}, .Policies = std::move(policies)},
        {computed("OutputGradientTensor", batch_normalization_gradient_bounds),
         computed("OutputScaleGradientTensor", batch_normalization_scale_gradient_bounds),
         computed("OutputBiasGradientTensor", batch_normalization_bias_gradient_bounds)});
    if constexpr (std::is_same_v<D, GRAD>) r.fast = fast_as<GRAD, fast::batch_normalization_grad>;
    else r.fast = fast_as<TRAINING_GRAD, fast::batch_normalization_training_grad>;
    return r;
}

OperatorRecord training() {
    auto r = bn_record<TRAINING>(
        {.IntroducedIn = 0x4100,
         .Support = {{0x4100, {}, 1, 8, kF32F16}},
         .Policies = join({{kBnVariance, kBnTrainingStatistics, kBnFusedAdd}, kActivation, kCommon})},
        {computed("OutputTensor", batch_normalization_output_bounds),
         computed("OutputMeanTensor", batch_normalization_mean_bounds),
         computed("OutputVarianceTensor", batch_normalization_variance_bounds)});
    r.fast = fast_as<TRAINING, fast::batch_normalization_training>;  // reference/fast/batch_normalization.cpp
    return r;
}

}  // namespace rec_batch_normalization

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& batch_normalization_family() {
    using namespace reference;
    using namespace reference::rec_batch_normalization;
    static const FamilyRecord f{
        "batch_normalization",
        {bn(), grad<GRAD>(0x3100, join({{kNonFiniteSum}, kCommon})), training(),
         grad<TRAINING_GRAD>(0x4100, join({{kBnTrainingGradMean, kNonFiniteSum}, kCommon}))},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "BnActivationSignedZero",
          .Value = "PositiveZero",
          .Meaning =
              "a fused activation never gives -0: where the formula selects y itself (LEAKY_RELU's and ELU's y >= 0, "
              "THRESHOLDED_RELU's y > Alpha), a -0 normalized value gives +0",
          .Who =
              "activations written without a branch on y >= 0: PyTorch's elu (x > 0 ? x : Alpha (exp(x) - 1)), a LEAKY_RELU "
              "written as max(0, y) + Alpha min(0, y)",
          .Operators = {OperatorType::BATCH_NORMALIZATION, OperatorType::BATCH_NORMALIZATION_TRAINING}}}};
    return f;
}
}  // namespace dmlref::kit
