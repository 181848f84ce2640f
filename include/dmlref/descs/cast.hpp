// The desc of CAST, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_CAST_OPERATOR_DESC: f(x) = cast(x), each element of InputTensor converted to OutputTensor's DataType.
struct DML_CAST_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::CAST;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
