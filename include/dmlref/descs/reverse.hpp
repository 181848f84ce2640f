// The desc of REVERSE_SUBSEQUENCES, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// Along Axis, the first SequenceLengthsTensor[...] elements of each sequence reversed, the rest
// copied (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC).
struct DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::REVERSE_SUBSEQUENCES;
    TensorDesc InputTensor;
    TensorDesc SequenceLengthsTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("SequenceLengthsTensor", s.SequenceLengthsTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
    }
};

}  // namespace dmlref
