// The descs of ACTIVATION_RELU and ACTIVATION_RELU_GRAD, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

struct DML_ACTIVATION_RELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_RELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

struct DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_RELU_GRAD;
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
