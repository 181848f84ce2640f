// The desc of ONE_HOT, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// output[o] = o[Axis] == indices[o with o[Axis] = 0] ? values[on] : values[off]
// (DML_ONE_HOT_OPERATOR_DESC).
struct DML_ONE_HOT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ONE_HOT;
    TensorDesc IndicesTensor;
    TensorDesc ValuesTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("ValuesTensor", s.ValuesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
    }
};

}  // namespace dmlref
