// The descs of QUANTIZE and DEQUANTIZE, with DirectML.h's struct and field names in DirectML.h's
// order (DML_QUANTIZE_OPERATOR_DESC, DML_DEQUANTIZE_OPERATOR_DESC), and DML_QUANTIZATION_TYPE.
// QuantizationTensorCount is the length of the tensor array (FieldVisitor::tensor_array): the
// scale, then (SCALE_ZERO_POINT) the zero point, named QuantizationTensors[0] and [1].
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_QUANTIZATION_TYPE, stored as uint32_t like every enum field.
inline constexpr uint32_t DML_QUANTIZATION_TYPE_NONE = 0;
inline constexpr uint32_t DML_QUANTIZATION_TYPE_SCALE = 1;
inline constexpr uint32_t DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT = 2;
inline const EnumNames kQuantizationTypeNames{"DML_QUANTIZATION_TYPE_", {"NONE", "SCALE", "SCALE_ZERO_POINT"}};

namespace quantize_desc {
template <OperatorType T> struct Blockwise {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    uint32_t QuantizationType = DML_QUANTIZATION_TYPE_SCALE;
    std::vector<TensorDesc> QuantizationTensors;  // QuantizationTensorCount = QuantizationTensors.size()
    TensorDesc OutputTensor;
    uint32_t QuantizationTensorCount() const { return uint32_t(QuantizationTensors.size()); }
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.enumeration("QuantizationType", s.QuantizationType, kQuantizationTypeNames);
        v.tensor_array("QuantizationTensorCount", "QuantizationTensors", s.QuantizationTensors, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};
}  // namespace quantize_desc

// Output = clamp(round(Input / Scale) + ZeroPoint, Min, Max), each element with the scale (and zero
// point) of its block.
using DML_QUANTIZE_OPERATOR_DESC = quantize_desc::Blockwise<OperatorType::QUANTIZE>;
// Output = (Input - ZeroPoint) * Scale, each element with the scale (and zero point) of its block.
using DML_DEQUANTIZE_OPERATOR_DESC = quantize_desc::Blockwise<OperatorType::DEQUANTIZE>;

}  // namespace dmlref
