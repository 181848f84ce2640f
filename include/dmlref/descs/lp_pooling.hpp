// The descs of LP_POOLING and LP_POOLING1, with DirectML.h's struct and field names
// (DML_LP_POOLING_OPERATOR_DESC, DML_LP_POOLING1_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// The arrays have one entry per spatial dimension; P is the norm's order (a UINT, at least 1).
struct DML_LP_POOLING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::LP_POOLING;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t P = 2;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint("P", s.P);
    }
};

// LP_POOLING with Dilations (DML_FEATURE_LEVEL_6_2).
struct DML_LP_POOLING1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::LP_POOLING1;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    uint32_t P = 2;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
        v.uint("P", s.P);
    }
};

}  // namespace dmlref
