// The descs of FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE, with DirectML.h's struct and field
// names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// OutputTensor[coordinate] = Value (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC).
struct DML_FILL_VALUE_CONSTANT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::FILL_VALUE_CONSTANT;
    TensorDesc OutputTensor;
    DataType ValueDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION Value;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.data_type("ValueDataType", s.ValueDataType);
        v.scalar("Value", s.Value, s.ValueDataType);
    }
};

// For each coordinate in OutputTensor, in order: OutputTensor[coordinate] = Value; Value += Delta
// (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC), Value starting at ValueStart.
struct DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::FILL_VALUE_SEQUENCE;
    TensorDesc OutputTensor;
    DataType ValueDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION ValueStart;
    DML_SCALAR_UNION ValueDelta;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.data_type("ValueDataType", s.ValueDataType);
        v.scalar("ValueStart", s.ValueStart, s.ValueDataType);
        v.scalar("ValueDelta", s.ValueDelta, s.ValueDataType);
    }
};

}  // namespace dmlref
