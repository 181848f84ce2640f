// The desc of QUANTIZED_LINEAR_AVERAGE_POOLING, with DirectML.h's struct and field names
// (DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"

#include <optional>

namespace dmlref {

// DML_FEATURE_LEVEL_6_2. The scales and zero points are per tensor ({1, 1, 1, 1}) or per channel
// ({1, ChannelCount, 1, 1}); an absent zero point is 0. The arrays have one entry per spatial
// dimension.
struct DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::QUANTIZED_LINEAR_AVERAGE_POOLING;
    TensorDesc InputTensor;
    TensorDesc InputScaleTensor;
    std::optional<TensorDesc> InputZeroPointTensor;
    TensorDesc OutputScaleTensor;
    std::optional<TensorDesc> OutputZeroPointTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    uint32_t IncludePadding = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputScaleTensor", s.InputScaleTensor, TensorRole::Input);
        v.optional_tensor("InputZeroPointTensor", s.InputZeroPointTensor, TensorRole::Input);
        v.tensor("OutputScaleTensor", s.OutputScaleTensor, TensorRole::Input);
        v.optional_tensor("OutputZeroPointTensor", s.OutputZeroPointTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
        v.uint("IncludePadding", s.IncludePadding);
    }
};

}  // namespace dmlref
