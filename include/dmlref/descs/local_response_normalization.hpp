// The descs of LOCAL_RESPONSE_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION_GRAD, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// ---- Local response normalization (DML_LOCAL_RESPONSE_NORMALIZATION*_OPERATOR_DESC) --------------------
// CrossChannel is a BOOL (0 or 1, as IncludePadding). The grad's InputTensor is the forward
// operator's input (not its output): B is recomputed.
struct DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::LOCAL_RESPONSE_NORMALIZATION;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t CrossChannel = 0;
    uint32_t LocalSize = 0;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    float Bias = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("CrossChannel", s.CrossChannel);
        v.uint("LocalSize", s.LocalSize);
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
        v.float32("Bias", s.Bias);
    }
};

struct DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD;
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t CrossChannel = 0;
    uint32_t LocalSize = 0;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    float Bias = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("CrossChannel", s.CrossChannel);
        v.uint("LocalSize", s.LocalSize);
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
        v.float32("Bias", s.Bias);
    }
};

}  // namespace dmlref
