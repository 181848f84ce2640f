// The descs of CONVOLUTION and CONVOLUTION_INTEGER, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_CONVOLUTION_MODE and DML_CONVOLUTION_DIRECTION, in value order.
inline const EnumNames kConvolutionModeNames{"DML_CONVOLUTION_MODE_", {"CONVOLUTION", "CROSS_CORRELATION"}};
inline const EnumNames kConvolutionDirectionNames{"DML_CONVOLUTION_DIRECTION_", {"FORWARD", "BACKWARD"}};
inline constexpr uint32_t kConvolutionModeConvolution = 0, kConvolutionModeCrossCorrelation = 1;
inline constexpr uint32_t kConvolutionDirectionForward = 0, kConvolutionDirectionBackward = 1;

// Convolution: the arrays have DimensionCount entries, one per spatial dimension (the tensors'
// dimensions after batch and channel), in the tensors' order. A visitor reads FusedActivation
// with fused_activation(name, std::optional<...>&).
struct DML_CONVOLUTION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::CONVOLUTION;
    TensorDesc InputTensor;
    TensorDesc FilterTensor;
    std::optional<TensorDesc> BiasTensor;
    TensorDesc OutputTensor;
    uint32_t Mode = kConvolutionModeCrossCorrelation;
    uint32_t Direction = kConvolutionDirectionForward;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> Dilations;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> OutputPadding;
    uint32_t GroupCount = 1;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("FilterTensor", s.FilterTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("Mode", s.Mode, kConvolutionModeNames);
        v.enumeration("Direction", s.Direction, kConvolutionDirectionNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("Dilations", s.Dilations);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("OutputPadding", s.OutputPadding);
        v.uint("GroupCount", s.GroupCount);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

struct DML_CONVOLUTION_INTEGER_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::CONVOLUTION_INTEGER;
    TensorDesc InputTensor;
    std::optional<TensorDesc> InputZeroPointTensor;
    TensorDesc FilterTensor;
    std::optional<TensorDesc> FilterZeroPointTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> Dilations;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t GroupCount = 1;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.optional_tensor("InputZeroPointTensor", s.InputZeroPointTensor, TensorRole::Input);
        v.tensor("FilterTensor", s.FilterTensor, TensorRole::Input);
        v.optional_tensor("FilterZeroPointTensor", s.FilterZeroPointTensor, TensorRole::Input);
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
