// The descs of the transcendental activations (ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_GELU),
// with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_ACTIVATION_SIGMOID_OPERATOR_DESC: OutputTensor = 1 / (1 + exp(-x)).
struct DML_ACTIVATION_SIGMOID_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SIGMOID;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ACTIVATION_TANH_OPERATOR_DESC: OutputTensor = (1 - exp(-2 x)) / (1 + exp(-2 x)).
struct DML_ACTIVATION_TANH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_TANH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ACTIVATION_GELU_OPERATOR_DESC: OutputTensor = 0.5 x (1 + erf(x / sqrt(2))).
struct DML_ACTIVATION_GELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_GELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
