// The transcendental activations' record (reference/kit/family.hpp): the facts of
// DML_ACTIVATION_SIGMOID_OPERATOR_DESC, _TANH_ and _GELU_ from their pages (Availability, in-place
// execution, Tensor support), the policies their goldens record (docs/golden.md, "Transcendental
// activations") and how their outputs are judged (docs/tolerance.md, "Transcendental activations").
#include "activation_math.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace {

using namespace kit;

// As the activation family's (docs/golden.md, Activations), where these are named.
constexpr Policy kActivationNaN{"ActivationNaN", "NaNGivesNaN"};
constexpr Policy kActivationInfinity{"ActivationInfinity", "LimitOfTheFunction"};

std::optional<Tolerance> activation_math_tolerance(const OperatorDesc& od, std::string_view) {
    const TensorDesc* out = nullptr;
    const char* formula = "";
    if (const auto* d = od.get_if<DML_ACTIVATION_SIGMOID_OPERATOR_DESC>()) out = &d->OutputTensor, formula = "1 / (1 + exp(-x))";
    if (const auto* d = od.get_if<DML_ACTIVATION_TANH_OPERATOR_DESC>()) out = &d->OutputTensor, formula = "tanh(x)";
    if (const auto* d = od.get_if<DML_ACTIVATION_GELU_OPERATOR_DESC>()) out = &d->OutputTensor, formula = "0.5 x (1 + erf(x / sqrt(2)))";
    if (!out || !is_float(out->DataType)) return std::nullopt;  // Bits
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 0;
    t.Why = std::string(formula) +
            ": the exact value rounded once (docs/golden.md, Transcendental activations); dmlref diff bounds each element as the "
            "fused activation's error at the exact x in the working types a backend may use (docs/tolerance.md, Transcendental "
            "activations); a NaN golden matches any NaN";
    return t;
}

// The activation family's table (4-D at 1.0, 4 to 5 at 2.0, 1 to 8 from 3.0, FLOAT32 and FLOAT16);
// GELU from DML_FEATURE_LEVEL_5_1, 1 to 8 dimensions.
std::vector<SupportRow> since_1_0() { return {{0x1000, {}, 4, 4, kF32F16}, {0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16}}; }

template <class D> OperatorRecord activation(uint32_t introduced, std::vector<SupportRow> support) {
    auto r = operator_record<D, validate, evaluate>({
        .IntroducedIn = introduced,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = std::move(support),
        .Policies = {kComputedValue, kActivationNaN, kActivationInfinity, kZeroResult, kIntegerResult, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, activation_math_bounds},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = activation_math_tolerance;
    r.reads_inputs = true;
    r.explain = explain_activation_math;
    return r;
}

}  // namespace

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& activation_math_family() {
    using namespace reference;
    static const FamilyRecord f{"activation_math",
                                {activation<DML_ACTIVATION_SIGMOID_OPERATOR_DESC>(0x1000, since_1_0()),
                                 activation<DML_ACTIVATION_TANH_OPERATOR_DESC>(0x1000, since_1_0()),
                                 activation<DML_ACTIVATION_GELU_OPERATOR_DESC>(0x5100, {{0x5100, {}, 1, 8, kF32F16}})}};
    return f;
}
}  // namespace dmlref::kit
