// The descs of ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR, DYNAMIC_QUANTIZE_LINEAR
// and ELEMENT_WISE_QUANTIZED_LINEAR_ADD, with DirectML.h's struct and field names
// (DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC,
// DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC, DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

namespace quantization_desc {
// ELEMENT_WISE_QUANTIZE_LINEAR and ELEMENT_WISE_DEQUANTIZE_LINEAR share their fields: InputTensor,
// ScaleTensor, ZeroPointTensor (optional from DML_FEATURE_LEVEL_6_2; absent: 0), OutputTensor.
template <OperatorType T> struct Linear {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    TensorDesc ScaleTensor;
    std::optional<TensorDesc> ZeroPointTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.optional_tensor("ZeroPointTensor", s.ZeroPointTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};
}  // namespace quantization_desc

// Output = clamp(round(Input / Scale) + ZeroPoint, Min, Max), element by element.
using DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC =
    quantization_desc::Linear<OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR>;
// Output = (Input - ZeroPoint) * Scale, element by element.
using DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC =
    quantization_desc::Linear<OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR>;

// The scale and zero point of the whole input from its minimum and maximum, then the input
// quantized with them: three outputs.
struct DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::DYNAMIC_QUANTIZE_LINEAR;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    TensorDesc OutputScaleTensor;
    TensorDesc OutputZeroPointTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.tensor("OutputScaleTensor", s.OutputScaleTensor, TensorRole::Output);
        v.tensor("OutputZeroPointTensor", s.OutputZeroPointTensor, TensorRole::Output);
    }
};

// Output = clamp(round(((A - AZeroPoint) * AScale + (B - BZeroPoint) * BScale) / OutputScale) +
// OutputZeroPoint, Min, Max), element by element; scales and zero points of one element each, the
// zero points optional (absent: 0).
struct DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD;
    TensorDesc ATensor;
    TensorDesc AScaleTensor;
    std::optional<TensorDesc> AZeroPointTensor;
    TensorDesc BTensor;
    TensorDesc BScaleTensor;
    std::optional<TensorDesc> BZeroPointTensor;
    TensorDesc OutputScaleTensor;
    std::optional<TensorDesc> OutputZeroPointTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("AScaleTensor", s.AScaleTensor, TensorRole::Input);
        v.optional_tensor("AZeroPointTensor", s.AZeroPointTensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("BScaleTensor", s.BScaleTensor, TensorRole::Input);
        v.optional_tensor("BZeroPointTensor", s.BZeroPointTensor, TensorRole::Input);
        v.tensor("OutputScaleTensor", s.OutputScaleTensor, TensorRole::Input);
        v.optional_tensor("OutputZeroPointTensor", s.OutputZeroPointTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
