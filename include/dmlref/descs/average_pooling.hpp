// The descs of AVERAGE_POOLING, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// ---- Average pooling (DML_AVERAGE_POOLING*_OPERATOR_DESC) ---------------------------------
// BOOL fields (IncludePadding) are DirectML's BOOL, an integer: 0 (FALSE) or 1 (TRUE); the
// operator's validate rejects anything else. The arrays have one entry per spatial dimension.
struct DML_AVERAGE_POOLING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::AVERAGE_POOLING;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t IncludePadding = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint("IncludePadding", s.IncludePadding);
    }
};

struct DML_AVERAGE_POOLING1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::AVERAGE_POOLING1;
    TensorDesc InputTensor;
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

// InputGradientTensor has the forward output's sizes, OutputGradientTensor the forward input's.
// No Dilations (there is no AVERAGE_POOLING1 grad).
struct DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::AVERAGE_POOLING_GRAD;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t IncludePadding = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint("IncludePadding", s.IncludePadding);
    }
};

}  // namespace dmlref
