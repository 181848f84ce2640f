// The desc of MAX_UNPOOLING, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// OutputTensor zero, then OutputTensor[IndicesTensor[i]] = InputTensor[i] with OutputTensor as a
// contiguous one-dimensional array (DML_MAX_UNPOOLING_OPERATOR_DESC).
struct DML_MAX_UNPOOLING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MAX_UNPOOLING;
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("IndicesTensor", s.IndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
