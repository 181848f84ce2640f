// The descs of the transcendental activations (ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_GELU,
// and the parametric ones: ACTIVATION_ELU, ACTIVATION_CELU, ACTIVATION_SCALED_ELU, ACTIVATION_SOFTPLUS,
// ACTIVATION_PARAMETRIC_SOFTPLUS, ACTIVATION_SCALED_TANH, ACTIVATION_SWISH), with DirectML.h's struct and
// field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// Every desc of the family starts with the same two tensors.
#define DMLREF_ACTIVATION_MATH_TENSORS                         \
    v.tensor("InputTensor", s.InputTensor, TensorRole::Input); \
    v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);

// DML_ACTIVATION_SIGMOID_OPERATOR_DESC: OutputTensor = 1 / (1 + exp(-x)).
struct DML_ACTIVATION_SIGMOID_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SIGMOID;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) { DMLREF_ACTIVATION_MATH_TENSORS }
};

// DML_ACTIVATION_TANH_OPERATOR_DESC: OutputTensor = (1 - exp(-2 x)) / (1 + exp(-2 x)).
struct DML_ACTIVATION_TANH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_TANH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) { DMLREF_ACTIVATION_MATH_TENSORS }
};

// DML_ACTIVATION_GELU_OPERATOR_DESC: OutputTensor = 0.5 x (1 + erf(x / sqrt(2))).
struct DML_ACTIVATION_GELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_GELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) { DMLREF_ACTIVATION_MATH_TENSORS }
};

// DML_ACTIVATION_ELU_OPERATOR_DESC: OutputTensor = x if x >= 0, Alpha * (exp(x) - 1) otherwise.
struct DML_ACTIVATION_ELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_ELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("Alpha", s.Alpha);
    }
};

// DML_ACTIVATION_CELU_OPERATOR_DESC: OutputTensor = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)).
struct DML_ACTIVATION_CELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_CELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("Alpha", s.Alpha);
    }
};

// DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC: OutputTensor = Gamma * x if x > 0, Gamma * (Alpha * exp(x) - Alpha) otherwise.
struct DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SCALED_ELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    float Gamma = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("Alpha", s.Alpha);
        v.float32("Gamma", s.Gamma);
    }
};

// DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC: OutputTensor = ln(1 + exp(Steepness * x)) / Steepness.
struct DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SOFTPLUS;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Steepness = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("Steepness", s.Steepness);
    }
};

// DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC: OutputTensor = Alpha * ln(1 + exp(Beta * x)).
struct DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_PARAMETRIC_SOFTPLUS;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
    }
};

// DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC: OutputTensor = Alpha * tanh(Beta * x).
struct DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SCALED_TANH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
    }
};

// DML_ACTIVATION_SWISH_OPERATOR_DESC: OutputTensor = x * sigmoid(SigmoidInputScale * x).
struct DML_ACTIVATION_SWISH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SWISH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float SigmoidInputScale = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_ACTIVATION_MATH_TENSORS
        v.float32("SigmoidInputScale", s.SigmoidInputScale);
    }
};

#undef DMLREF_ACTIVATION_MATH_TENSORS

}  // namespace dmlref
