// The descs of TOP_K and TOP_K1, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"
#include "dmlref/descs/resample.hpp"  // DML_AXIS_DIRECTION

namespace dmlref {

// The K largest elements of each sequence along Axis, sorted descending, and their indices
// (DML_TOP_K_OPERATOR_DESC).
struct DML_TOP_K_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::TOP_K;
    TensorDesc InputTensor;
    TensorDesc OutputValueTensor;
    TensorDesc OutputIndexTensor;
    uint32_t Axis = 0;
    uint32_t K = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputValueTensor", s.OutputValueTensor, TensorRole::Output);
        v.tensor("OutputIndexTensor", s.OutputIndexTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
        v.uint("K", s.K);
    }
};

// The K largest (DECREASING) or smallest (INCREASING) elements (DML_TOP_K1_OPERATOR_DESC).
struct DML_TOP_K1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::TOP_K1;
    TensorDesc InputTensor;
    TensorDesc OutputValueTensor;
    TensorDesc OutputIndexTensor;
    uint32_t Axis = 0;
    uint32_t K = 0;
    uint32_t AxisDirection = DML_AXIS_DIRECTION_INCREASING;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputValueTensor", s.OutputValueTensor, TensorRole::Output);
        v.tensor("OutputIndexTensor", s.OutputIndexTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
        v.uint("K", s.K);
        v.enumeration("AxisDirection", s.AxisDirection, kAxisDirectionNames);
    }
};

}  // namespace dmlref
