// The descs of QUANTIZED_LINEAR_MATRIX_MULTIPLY and QUANTIZED_LINEAR_CONVOLUTION, with DirectML.h's
// struct and field names, in DirectML.h's order (DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC,
// DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// Output = quantize((dequantize(A) x dequantize(B)), OutputScale, OutputZeroPoint), over the last
// two dimensions; the leading ones (up to two) are batch dimensions. Scales and zero points per
// tensor, per row of A (and of the output), per column of B.
struct DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::QUANTIZED_LINEAR_MATRIX_MULTIPLY;
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

// A forward cross-correlation of quantized data: the dequantized input and filter convolved, the
// INT32 bias added, the result quantized with OutputScale and OutputZeroPoint.
struct DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::QUANTIZED_LINEAR_CONVOLUTION;
    TensorDesc InputTensor;
    TensorDesc InputScaleTensor;
    std::optional<TensorDesc> InputZeroPointTensor;
    TensorDesc FilterTensor;
    TensorDesc FilterScaleTensor;
    std::optional<TensorDesc> FilterZeroPointTensor;
    std::optional<TensorDesc> BiasTensor;
    TensorDesc OutputScaleTensor;
    std::optional<TensorDesc> OutputZeroPointTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> Dilations;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t GroupCount = 1;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputScaleTensor", s.InputScaleTensor, TensorRole::Input);
        v.optional_tensor("InputZeroPointTensor", s.InputZeroPointTensor, TensorRole::Input);
        v.tensor("FilterTensor", s.FilterTensor, TensorRole::Input);
        v.tensor("FilterScaleTensor", s.FilterScaleTensor, TensorRole::Input);
        v.optional_tensor("FilterZeroPointTensor", s.FilterZeroPointTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputScaleTensor", s.OutputScaleTensor, TensorRole::Input);
        v.optional_tensor("OutputZeroPointTensor", s.OutputZeroPointTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("Dilations", s.Dilations);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint("GroupCount", s.GroupCount);
    }
};

}  // namespace dmlref
