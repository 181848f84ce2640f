// The descs of SCATTER (SCATTER_ELEMENTS) and SCATTER_ND, with DirectML.h's struct and field
// names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// output = input; output[i, indices[i, j, k], k] = updates[i, j, k] for Axis 1
// (DML_SCATTER_OPERATOR_DESC; DML_OPERATOR_SCATTER is DML_OPERATOR_SCATTER_ELEMENTS).
struct DML_SCATTER_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::SCATTER_ELEMENTS;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc UpdatesTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("UpdatesTensor", s.UpdatesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
    }
};
using DML_SCATTER_ELEMENTS_OPERATOR_DESC = DML_SCATTER_OPERATOR_DESC;

// output = input; output[indices[...]] = updates[...], index tuples into the leading dimensions
// (DML_SCATTER_ND_OPERATOR_DESC).
struct DML_SCATTER_ND_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::SCATTER_ND;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc UpdatesTensor;
    TensorDesc OutputTensor;
    uint32_t InputDimensionCount = 0;
    uint32_t IndicesDimensionCount = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("UpdatesTensor", s.UpdatesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("InputDimensionCount", s.InputDimensionCount);
        v.uint("IndicesDimensionCount", s.IndicesDimensionCount);
    }
};

}  // namespace dmlref
