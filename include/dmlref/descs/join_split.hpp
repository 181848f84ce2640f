// The descs of JOIN and SPLIT, with DirectML.h's struct and field names. InputCount and
// OutputCount are the lengths of the tensor arrays (FieldVisitor::tensor_array).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

struct DML_JOIN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::JOIN;
    std::vector<TensorDesc> InputTensors;  // InputCount = InputTensors.size()
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    uint32_t InputCount() const { return uint32_t(InputTensors.size()); }
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor_array("InputCount", "InputTensors", s.InputTensors, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Axis", s.Axis);
    }
};

struct DML_SPLIT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::SPLIT;
    TensorDesc InputTensor;
    std::vector<TensorDesc> OutputTensors;  // OutputCount = OutputTensors.size()
    uint32_t Axis = 0;
    uint32_t OutputCount() const { return uint32_t(OutputTensors.size()); }
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor_array("OutputCount", "OutputTensors", s.OutputTensors, TensorRole::Output);
        v.uint("Axis", s.Axis);
    }
};

}  // namespace dmlref
