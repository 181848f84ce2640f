// The descs of the ACTIVATION_* operators, with DirectML.h's struct and field names (DirectML's
// schema, DirectMLSchema.h, gives the field order): RELU and RELU_GRAD (reference/activation_relu.cpp),
// then the activation family (reference/activation.cpp).
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

// ---- The activation family (reference/activation.cpp) ------------------------------------------
// One input, one output of the same type and sizes, and the page's FLOAT parameters in struct order.
#define DMLREF_UNARY_ACTIVATION_FIELDS                         \
    v.tensor("InputTensor", s.InputTensor, TensorRole::Input); \
    v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);

struct DML_ACTIVATION_IDENTITY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_IDENTITY;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) { DMLREF_UNARY_ACTIVATION_FIELDS }
};

struct DML_ACTIVATION_LINEAR_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_LINEAR;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_UNARY_ACTIVATION_FIELDS
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
    }
};

struct DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_LEAKY_RELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_UNARY_ACTIVATION_FIELDS
        v.float32("Alpha", s.Alpha);
    }
};

struct DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_PARAMETERIZED_RELU;
    TensorDesc InputTensor;
    TensorDesc SlopeTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("SlopeTensor", s.SlopeTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

struct DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_THRESHOLDED_RELU;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_UNARY_ACTIVATION_FIELDS
        v.float32("Alpha", s.Alpha);
    }
};

struct DML_ACTIVATION_SHRINK_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SHRINK;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Bias = 0.0f;
    float Threshold = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_UNARY_ACTIVATION_FIELDS
        v.float32("Bias", s.Bias);
        v.float32("Threshold", s.Threshold);
    }
};

struct DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_HARD_SIGMOID;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_UNARY_ACTIVATION_FIELDS
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
    }
};

struct DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_HARD_SWISH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        DMLREF_UNARY_ACTIVATION_FIELDS
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
    }
};

struct DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ACTIVATION_SOFTSIGN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) { DMLREF_UNARY_ACTIVATION_FIELDS }
};

#undef DMLREF_UNARY_ACTIVATION_FIELDS

}  // namespace dmlref
