// The descs of MAX_POOLING, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// Max pooling: the arrays have DimensionCount entries, one per spatial dimension (the
// tensors' dimensions after batch and channel), in the tensors' order.
struct DML_MAX_POOLING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MAX_POOLING;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

struct DML_MAX_POOLING1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MAX_POOLING1;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputIndicesTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputIndicesTensor", s.OutputIndicesTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

struct DML_MAX_POOLING2_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MAX_POOLING2;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputIndicesTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputIndicesTensor", s.OutputIndicesTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
    }
};

struct DML_MAX_POOLING_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MAX_POOLING_GRAD;
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
    }
};

}  // namespace dmlref
