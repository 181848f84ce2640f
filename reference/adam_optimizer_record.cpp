// The ADAM_OPTIMIZER record (reference/kit/family.hpp): the facts of
// DML_ADAM_OPTIMIZER_OPERATOR_DESC from its page ("Availability", "Tensor support"; each output
// may alias its input), the policies its goldens record, judging and coverage features. Each
// output is the exact value of its formula rounded once, judged by a per-element forward error
// bound (docs/tolerance.md, "Adam optimizer").
#include "adam_optimizer.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_adam_optimizer {

using namespace kit;
using ADAM = DML_ADAM_OPTIMIZER_OPERATOR_DESC;

// The policies of docs/golden.md, "Adam optimizer" (the others are the kit's).
constexpr Policy kAdamMomentsInUpdate{"AdamMomentsInUpdate", "Exact"};
constexpr Policy kAdamTrainingStepType{"AdamTrainingStepType", "ParametersDataType"};
constexpr Policy kAdamTrainingStep{"AdamTrainingStep", "AsGiven"};
constexpr Policy kAdamZeroStep{"AdamZeroStep", "KeepsParameter"};

// T = 0 or 1, a Beta of 0 or 1, a zero Epsilon, non-finite or negative-moment inputs.
void detect(const Case& c, std::vector<std::string>& f) {
    const ADAM& d = get<ADAM>(c.op.Desc);
    if (d.Beta1 == 0 || d.Beta1 == 1 || d.Beta2 == 0 || d.Beta2 == 1) f.push_back("beta-at-bound");
    if (d.Epsilon == 0) f.push_back("zero-epsilon");
    auto values = [&](const char* field, const TensorDesc& t) {
        const auto i = c.inputs.find(field);
        return i == c.inputs.end() || i->second.size() < buffer_size(t) ? std::vector<double>{}
                                                                        : logical_doubles(t, i->second);
    };
    const std::vector<double> s = values("TrainingStepTensor", d.TrainingStepTensor);
    if (!s.empty() && s[0] == 0) f.push_back("step-zero");
    if (!s.empty() && s[0] == 1) f.push_back("step-one");
    bool special = false, negative_v = false;
    for (const auto& [field, t] :
         {std::pair<const char*, const TensorDesc*>{"InputParametersTensor", &d.InputParametersTensor},
          {"InputFirstMomentTensor", &d.InputFirstMomentTensor},
          {"InputSecondMomentTensor", &d.InputSecondMomentTensor},
          {"GradientTensor", &d.GradientTensor}})
        for (double v : values(field, *t)) {
            special = special || !std::isfinite(v);
            negative_v = negative_v || (t == &d.InputSecondMomentTensor && v < 0);
        }
    if (special) f.push_back("special-values");
    if (negative_v) f.push_back("negative-second-moment");
}

OperatorRecord adam_optimizer() {
    // DML_FEATURE_LEVEL_3_0: 4-D FLOAT32 and FLOAT16, every tensor.
    auto r = operator_record<ADAM, validate, evaluate>({
        .IntroducedIn = 0x3000,
        .InPlace = {{"OutputParametersTensor", "InputParametersTensor"},
                    {"OutputFirstMomentTensor", "InputFirstMomentTensor"},
                    {"OutputSecondMomentTensor", "InputSecondMomentTensor"}},
        .Support = {{0x3000, {}, 4, 4, kF32F16}},
        .Policies = {kComputedValue, kAdamMomentsInUpdate, kAdamTrainingStepType, kAdamTrainingStep, kAdamZeroStep,
                     kNonFiniteSum, kZeroResult, kSubnormals},
    });
    r.validate_values = validate_values_as<ADAM, validate_values>;
    r.outputs = {{"OutputParametersTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None,
                  adam_parameters_bounds},
                 {"OutputFirstMomentTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None,
                  adam_first_moment_bounds},
                 {"OutputSecondMomentTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None,
                  adam_second_moment_bounds},
                 // Integer types are refused (adam-optimizer.data-type); the table still has a row for every type.
                 {"OutputParametersTensor", TypeClass::Integer, ToleranceRule::Bits},
                 {"OutputFirstMomentTensor", TypeClass::Integer, ToleranceRule::Bits},
                 {"OutputSecondMomentTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = tolerance_as<ADAM, adam_optimizer_tolerance>;
    // --max-work: MPFR powers of the betas, a square root and a division per element (measured;
    // docs/rules.md, limit.work).
    r.rounding_cost = rounding_cost<1500>;
    r.reads_inputs = true;
    r.explain = explain_adam_optimizer;
    r.ScopeTypes = {DataType::FLOAT32, DataType::FLOAT16};
    r.features = {"beta-at-bound", "zero-epsilon", "step-zero", "step-one", "special-values", "negative-second-moment"};
    r.detect = detect;
    r.BaseTensors = {"InputParametersTensor"};
    return r;
}

}  // namespace rec_adam_optimizer

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& adam_optimizer_family() {
    using namespace reference::rec_adam_optimizer;
    static const FamilyRecord f{"adam_optimizer", {adam_optimizer()}};
    return f;
}
}  // namespace dmlref::kit
