// The activation family's record (reference/kit/family.hpp): the facts of each operator from its
// page (DML_ACTIVATION_<NAME>_OPERATOR_DESC: Availability, Tensor support, in-place execution),
// the policies its goldens record (docs/golden.md, Activations) and how its output is judged
// (docs/tolerance.md, Activations).
#include "activation.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_activation {

using namespace kit;

// The family's own decisions (docs/golden.md, Activations).
constexpr Policy kActivationNaN{"ActivationNaN", "NaNGivesNaN"};
constexpr Policy kActivationInfinity{"ActivationInfinity", "LimitOfTheFunction"};
constexpr Policy kActivationSignedZero{"ActivationSignedZero", "SelectedInputKeepsSign"};
constexpr Policy kActivationCompare{"ActivationCompare", "ExactValues"};
constexpr Policy kShrinkOrder{"ShrinkOrder", "PageOrder"};

const std::vector<DT> kPrelu51 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::INT8};

// The support table most activation pages share: 4-D at 1.0, 4 to 5 at 2.0, 1 to 8 from 3.0,
// FLOAT32 and FLOAT16.
std::vector<SupportRow> since_1_0() {
    return {{0x1000, {}, 4, 4, kF32F16}, {0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16}};
}

template <class D>
OperatorRecord activation(uint32_t introduced, std::vector<SupportRow> support, std::vector<Policy> policies) {
    auto r = operator_record<D, validate, evaluate>({
        .IntroducedIn = introduced,
        .InPlace = {{"OutputTensor",
                     "InputTensor"}},  // every page: "the output tensor is permitted to alias InputTensor"
        .Support = std::move(support),
        .Policies = std::move(policies),
    });
    if constexpr (std::is_same_v<D, DML_ACTIVATION_IDENTITY_OPERATOR_DESC>) {
        r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};  // a copy
    } else {
        // Float outputs: each element within its own bound (activation_bounds: 0 where the value is
        // selected or certain); integers are the exact value rounded half to even: Bits.
        r.outputs = {
            {"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, activation_bounds},
            {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
        r.desc_tolerance = tolerance_as<D, tolerance>;
        r.reads_inputs = true;
        r.rounding_cost = rounding_cost<300>;  // exact rationals, rounded once (measured; docs/rules.md, limit.work)
    }
    r.explain = explain_activation;
    return r;
}

std::vector<Policy> computed(std::initializer_list<Policy> own) {
    std::vector<Policy> v = {kComputedValue, kActivationNaN};
    v.insert(v.end(), own.begin(), own.end());
    v.insert(v.end(), {kZeroResult, kIntegerResult, kSubnormals});
    return v;
}

}  // namespace rec_activation

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& activation_family() {
    using namespace reference;
    using namespace reference::rec_activation;
    static const FamilyRecord f{
        "activation",
        {
            activation<DML_ACTIVATION_IDENTITY_OPERATOR_DESC>(0x1000, since_1_0(), {kSubnormals}),
            activation<DML_ACTIVATION_LINEAR_OPERATOR_DESC>(0x1000, since_1_0(), computed({kActivationInfinity})),
            activation<DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC>(0x1000, since_1_0(),
                                                                computed({kActivationInfinity, kActivationSignedZero})),
            activation<DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC>(
                0x1000,
                [] {
        auto s = since_1_0();
        s.push_back({0x5100, {}, 1, 8, kPrelu51});
        return s;
                }(),
                computed({kActivationInfinity, kActivationSignedZero})),
            activation<DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC>(
                0x1000, since_1_0(), computed({kActivationSignedZero, kActivationCompare})),
            activation<DML_ACTIVATION_SHRINK_OPERATOR_DESC>(
                0x2000, {{0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16}, {0x5100, {}, 1, 8, kEightTypes}},
                computed({kActivationCompare, kShrinkOrder})),
            activation<DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC>(0x1000, since_1_0(), computed({kActivationInfinity})),
            activation<DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC>(0x6200, {{0x6200, {}, 1, 8, kF32F16}},
                                                                computed({kActivationInfinity})),
            activation<DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC>(0x1000, since_1_0(), computed({kActivationInfinity})),
        }};
    return f;
}
}  // namespace dmlref::kit
