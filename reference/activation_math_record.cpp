// The transcendental activations' record (reference/kit/family.hpp): the facts of
// DML_ACTIVATION_SIGMOID_OPERATOR_DESC, _TANH_, _GELU_, _ELU_, _CELU_, _SCALED_ELU_, _SOFTPLUS_,
// _PARAMETRIC_SOFTPLUS_, _SCALED_TANH_ and _SWISH_ from their pages (Availability, in-place
// execution, Tensor support), the policies their goldens record (docs/golden.md, "Transcendental
// activations") and how their outputs are judged (docs/tolerance.md, "Transcendental activations").
#include "activation_math.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_activation_math {

using namespace kit;

// As the activation family's (docs/golden.md, Activations), where these are named.
constexpr Policy kActivationNaN{"ActivationNaN", "NaNGivesNaN"};
constexpr Policy kActivationInfinity{"ActivationInfinity", "LimitOfTheFunction"};
constexpr Policy kActivationSignedZero{"ActivationSignedZero", "SelectedInputKeepsSign"};
// The parametric ones' own decisions (docs/golden.md, Transcendental activations).
constexpr Policy kSoftplusLargeInput{"SoftplusLargeInput", "ExactValue"};
constexpr Policy kSoftplusSteepness{"SoftplusSteepness", "PositiveRequired"};
constexpr Policy kCeluAlpha{"CeluAlpha", "AlphaZeroRefused"};

// The output desc and formula of any operator of the family.
struct Facts {
    const TensorDesc* out = nullptr;
    const char* formula = "";
};
template <class D> bool facts_of(const OperatorDesc& od, const char* formula, Facts& f) {
    const auto* d = od.get_if<D>();
    if (d) f = {&d->OutputTensor, formula};
    return d != nullptr;
}

std::optional<Tolerance> activation_math_tolerance(const OperatorDesc& od, std::string_view) {
    Facts f;
    facts_of<DML_ACTIVATION_SIGMOID_OPERATOR_DESC>(od, "1 / (1 + exp(-x))", f) ||
        facts_of<DML_ACTIVATION_TANH_OPERATOR_DESC>(od, "tanh(x)", f) ||
        facts_of<DML_ACTIVATION_GELU_OPERATOR_DESC>(od, "0.5 x (1 + erf(x / sqrt(2)))", f) ||
        facts_of<DML_ACTIVATION_ELU_OPERATOR_DESC>(od, "x if x >= 0, Alpha (exp(x) - 1) otherwise", f) ||
        facts_of<DML_ACTIVATION_CELU_OPERATOR_DESC>(od, "max(0, x) + min(0, Alpha (exp(x / Alpha) - 1))", f) ||
        facts_of<DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC>(
            od, "Gamma x if x > 0, Gamma (Alpha exp(x) - Alpha) otherwise", f) ||
        facts_of<DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC>(od, "ln(1 + exp(Steepness x)) / Steepness", f) ||
        facts_of<DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC>(od, "Alpha ln(1 + exp(Beta x))", f) ||
        facts_of<DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC>(od, "Alpha tanh(Beta x)", f) ||
        facts_of<DML_ACTIVATION_SWISH_OPERATOR_DESC>(od, "x sigmoid(SigmoidInputScale x)", f);
    if (!f.out || !is_float(f.out->DataType)) return std::nullopt;  // Bits
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 0;
    t.Why =
        std::string(f.formula) +
        ": the exact value rounded once (docs/golden.md, Transcendental activations); dmlref diff bounds each element as the "
        "fused activation's error at the exact x in the working types a backend may use (docs/tolerance.md, Transcendental "
        "activations); a NaN golden matches any NaN";
    return t;
}

// The activation family's table (4-D at 1.0, 4 to 5 at 2.0, 1 to 8 from 3.0, FLOAT32 and FLOAT16);
// GELU from DML_FEATURE_LEVEL_5_1, CELU from 3.0 and SWISH from 6.2, 1 to 8 dimensions.
std::vector<SupportRow> since_1_0() {
    return {{0x1000, {}, 4, 4, kF32F16}, {0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16}};
}

template <class D>
OperatorRecord activation(uint32_t introduced, std::vector<SupportRow> support, std::vector<Policy> own = {}) {
    std::vector<Policy> policies = {kComputedValue, kActivationNaN, kActivationInfinity};
    policies.insert(policies.end(), own.begin(), own.end());
    policies.insert(policies.end(), {kZeroResult, kIntegerResult, kSubnormals});
    auto r = operator_record<D, validate, evaluate>({
        .IntroducedIn = introduced,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = std::move(support),
        .Policies = std::move(policies),
    });
    r.outputs = {
        {"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, activation_math_bounds},
        {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = activation_math_tolerance;
    r.reads_inputs = true;
    r.explain = explain_activation_math;
    // --max-work: an MPFR evaluation per element, GELU's erf the dearest (measured; docs/rules.md, limit.work).
    r.rounding_cost = std::is_same_v<D, DML_ACTIVATION_GELU_OPERATOR_DESC> ? rounding_cost<1600> : rounding_cost<700>;
    return r;
}

// SOFTPLUS: Steepness below 1 only from DML_FEATURE_LEVEL_6_4 (a support rule; the row at 6.4 repeats
// 3.0's table so that `dmlref validate --feature-level` can name that level).
OperatorRecord softplus_record() {
    std::vector<SupportRow> rows = since_1_0();
    rows.push_back({0x6400, {}, 1, 8, kF32F16});
    OperatorRecord r = activation<DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC>(0x1000, std::move(rows),
                                                                         {kSoftplusLargeInput, kSoftplusSteepness});
    r.support_rules = softplus_support_rules;
    return r;
}

}  // namespace rec_activation_math

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& activation_math_family() {
    using namespace reference;
    using namespace reference::rec_activation_math;
    static const FamilyRecord f{
        "activation_math",
        {activation<DML_ACTIVATION_SIGMOID_OPERATOR_DESC>(0x1000, since_1_0()),
         activation<DML_ACTIVATION_TANH_OPERATOR_DESC>(0x1000, since_1_0()),
         activation<DML_ACTIVATION_GELU_OPERATOR_DESC>(0x5100, {{0x5100, {}, 1, 8, kF32F16}}),
         activation<DML_ACTIVATION_ELU_OPERATOR_DESC>(0x1000, since_1_0(), {kActivationSignedZero}),
         activation<DML_ACTIVATION_CELU_OPERATOR_DESC>(0x3000, {{0x3000, {}, 1, 8, kF32F16}}, {kCeluAlpha}),
         activation<DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC>(0x1000, since_1_0()), softplus_record(),
         activation<DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC>(0x1000, since_1_0(), {kSoftplusLargeInput}),
         activation<DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC>(0x1000, since_1_0()),
         activation<DML_ACTIVATION_SWISH_OPERATOR_DESC>(0x6200, {{0x6200, {}, 1, 8, kF32F16}})}};
    return f;
}
}  // namespace dmlref::kit
