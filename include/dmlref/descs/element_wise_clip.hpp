// The descs of ELEMENT_WISE_CLIP, CLIP1, CLIP_GRAD and CLIP_GRAD1, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

struct DML_ELEMENT_WISE_CLIP_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CLIP;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    float Min = 0.0f;
    float Max = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
        v.float32("Min", s.Min);
        v.float32("Max", s.Max);
    }
};

struct DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CLIP1;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    DataType MinMaxDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION Min;
    DML_SCALAR_UNION Max;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
        v.data_type("MinMaxDataType", s.MinMaxDataType);
        v.scalar("Min", s.Min, s.MinMaxDataType);
        v.scalar("Max", s.Max, s.MinMaxDataType);
    }
};

struct DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CLIP_GRAD;
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    float Min = 0.0f;
    float Max = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.float32("Min", s.Min);
        v.float32("Max", s.Max);
    }
};

struct DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CLIP_GRAD1;
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    DataType MinMaxDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION Min;
    DML_SCALAR_UNION Max;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.data_type("MinMaxDataType", s.MinMaxDataType);
        v.scalar("Min", s.Min, s.MinMaxDataType);
        v.scalar("Max", s.Max, s.MinMaxDataType);
    }
};

}  // namespace dmlref
