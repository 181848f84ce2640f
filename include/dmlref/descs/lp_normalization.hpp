// The desc of LP_NORMALIZATION, with DirectML.h's struct and field names
// (DML_LP_NORMALIZATION_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// Axis: the dimension the norm is taken along; P: the norm's order (1 or 2).
struct DML_LP_NORMALIZATION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::LP_NORMALIZATION;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    float Epsilon = 0.0f;
    uint32_t P = 2;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
        v.float32("Epsilon", s.Epsilon);
        v.uint("P", s.P);
    }
};

}  // namespace dmlref
