// The desc of NONZERO_COORDINATES, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// OutputCountTensor: the number of non-zero InputTensor elements; OutputCoordinatesTensor
// ({1,1,M,N}): row k the coordinate of the k-th of them in ascending element order, the rows past
// the count undefined (DML_NONZERO_COORDINATES_OPERATOR_DESC).
struct DML_NONZERO_COORDINATES_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::NONZERO_COORDINATES;
    TensorDesc InputTensor;
    TensorDesc OutputCountTensor;
    TensorDesc OutputCoordinatesTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputCountTensor", s.OutputCountTensor, TensorRole::Output);
        v.tensor("OutputCoordinatesTensor", s.OutputCoordinatesTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
