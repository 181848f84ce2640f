// The ACTIVATION_RELU family's record (reference/kit/family.hpp): its operators' facts from their
// pages (DML_ACTIVATION_RELU_OPERATOR_DESC, DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC), how their
// outputs are judged, and the fast paths chosen before the plain loops of activation_relu.cpp.
#include "activation_relu.hpp"

#include "fast/relu.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_activation_relu {

using namespace kit;

const std::vector<DT> kReluTypes51 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::INT8};

bool relu_fast(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    if (d.InputTensor.DataType == DataType::FLOAT16) {
        fast::relu_half(X, Y);
        return true;
    }
    return d.InputTensor.DataType == DataType::FLOAT32 && fast::relu_floats(X, Y);
}

bool relu_grad_fast(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    if (d.InputTensor.DataType == DataType::FLOAT16) {
        fast::relu_grad_half(X, dY, dX);
        return true;
    }
    return d.InputTensor.DataType == DataType::FLOAT32 && fast::relu_grad_floats(X, dY, dX);
}

// ReluGradAtZero: the InputTensor elements that are +0 or -0 (x > 0 against x >= 0).
std::vector<BoundaryElement> relu_grad_boundary(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    const auto& d = get<DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC>(c.op.Desc);
    auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end() || !is_valid(d.InputTensor.DataType)) return out;
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, in->second);
        for (size_t i = 0; i < x.size(); ++i)
            if (exact_compare(x[i], 0) == std::partial_ordering::equivalent) out.push_back({i, "ReluGradAtZero"});
    });
    return out;
}

OperatorRecord relu() {
    auto r = operator_record<DML_ACTIVATION_RELU_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .InPlace = {{"OutputTensor", "InputTensor"}},
        .Support = {{0x1000, {}, 4, 4, kF32F16},
                    {0x2000, {}, 4, 5, kF32F16},
                    {0x3000, {}, 1, 8, kF32F16},
                    {0x5100, {}, 1, 8, kReluTypes51}},
        .Policies = {kForwardNaN, kSelectedZero, kSubnormals},
    });
    r.fast = fast_as<DML_ACTIVATION_RELU_OPERATOR_DESC, relu_fast>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_relu;
    return r;
}

OperatorRecord relu_grad() {
    auto r = operator_record<DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x3000,
        .Support = {{0x3000, {}, 1, 8, kF32F16}, {0x5100, {}, 1, 8, kReluTypes51}},
        .Policies = {kGradNaN, kSelectedZero, kSubnormals},
    });
    r.fast = fast_as<DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC, relu_grad_fast>;
    r.outputs = {{"OutputGradientTensor", TypeClass::Any, ToleranceRule::Bits, BoundaryRule::ReluGradAtZero}};
    r.case_boundary = relu_grad_boundary;
    r.explain = explain_relu;
    return r;
}

}  // namespace rec_activation_relu

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& activation_relu_family() {
    using namespace reference::rec_activation_relu;
    static const FamilyRecord f{
        "activation_relu",
        {relu(), relu_grad()},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "GradNaN",
          .Value = "PassesGradient",
          .Meaning = "RELU_GRAD computes x <= 0 ? 0 : dY, so a NaN x passes dY",
          .Who = "PyTorch threshold_backward (relu's gradient)",
          .Operators = {OperatorType::ACTIVATION_RELU_GRAD}},
         {.Policy = "ForwardNaN",
          .Value = "NaNPropagates",
          .Meaning = "min and max propagate a NaN operand: RELU(NaN) and CLIP(NaN) are that NaN (its bits); REDUCE's "
                     "MAX and MIN of elements with a NaN are the first NaN (its bits)",
          .Who = "PyTorch relu, clamp and amax/amin, JAX jnp.maximum/jnp.clip, IEEE 754-2019 minimum/maximum",
          // CLIP's loop (reference/element_wise_clip.cpp) and REDUCE's MAX and MIN
          // (reference/reduction.cpp) follow it too.
          .Operators = {OperatorType::ACTIVATION_RELU, OperatorType::ELEMENT_WISE_CLIP,
                        OperatorType::ELEMENT_WISE_CLIP1, OperatorType::REDUCE}}}};
    return f;
}
}  // namespace dmlref::kit
