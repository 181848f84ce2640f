// The descs of CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT, with DirectML.h's struct and field
// names (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, DML_CUMULATIVE_PRODUCT_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"
#include "dmlref/descs/resample.hpp"  // DML_AXIS_DIRECTION and its names

namespace dmlref {

// HasExclusiveSum and HasExclusiveProduct are DirectML's BOOL: 0 (FALSE) or 1 (TRUE).
struct DML_CUMULATIVE_SUMMATION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::CUMULATIVE_SUMMATION;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    uint32_t AxisDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t HasExclusiveSum = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
        v.enumeration("AxisDirection", s.AxisDirection, kAxisDirectionNames);
        v.uint("HasExclusiveSum", s.HasExclusiveSum);
    }
};

struct DML_CUMULATIVE_PRODUCT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::CUMULATIVE_PRODUCT;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    uint32_t AxisDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t HasExclusiveProduct = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
        v.enumeration("AxisDirection", s.AxisDirection, kAxisDirectionNames);
        v.uint("HasExclusiveProduct", s.HasExclusiveProduct);
    }
};

}  // namespace dmlref
