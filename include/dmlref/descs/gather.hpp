// The descs of GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1, with DirectML.h's struct and
// field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// output[...] = input[..., indices[...], ...] along Axis (DML_GATHER_OPERATOR_DESC).
struct DML_GATHER_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::GATHER;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    uint32_t IndexDimensions = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
        v.uint("IndexDimensions", s.IndexDimensions);
    }
};

// output[i, j, k] = input[i, indices[i, j, k], k] for Axis 1 (DML_GATHER_ELEMENTS_OPERATOR_DESC).
struct DML_GATHER_ELEMENTS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::GATHER_ELEMENTS;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
    }
};

// output[...] = input[indices[...]], index tuples into the leading dimensions
// (DML_GATHER_ND_OPERATOR_DESC).
struct DML_GATHER_ND_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::GATHER_ND;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc OutputTensor;
    uint32_t InputDimensionCount = 0;
    uint32_t IndicesDimensionCount = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("InputDimensionCount", s.InputDimensionCount);
        v.uint("IndicesDimensionCount", s.IndicesDimensionCount);
    }
};

// output[batch, ...] = input[batch, indices[batch, ...], ...] (DML_GATHER_ND1_OPERATOR_DESC).
struct DML_GATHER_ND1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::GATHER_ND1;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc OutputTensor;
    uint32_t InputDimensionCount = 0;
    uint32_t IndicesDimensionCount = 0;
    uint32_t BatchDimensionCount = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("InputDimensionCount", s.InputDimensionCount);
        v.uint("IndicesDimensionCount", s.IndicesDimensionCount);
        v.uint("BatchDimensionCount", s.BatchDimensionCount);
    }
};

}  // namespace dmlref
