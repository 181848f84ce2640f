// The descs of DIAGONAL_MATRIX and DIAGONAL_MATRIX1, with DirectML.h's struct and field names, in
// DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

#include <climits>
#include <optional>

namespace dmlref {

// OutputTensor[..., y, x] = (y + Offset == x) ? Value : 0 (DML_DIAGONAL_MATRIX_OPERATOR_DESC).
struct DML_DIAGONAL_MATRIX_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::DIAGONAL_MATRIX;
    TensorDesc OutputTensor;
    int32_t Offset = 0;
    float Value = 1.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.int32("Offset", s.Offset);
        v.float32("Value", s.Value);
    }
};

// OutputTensor[..., y, x] = Value where x - y lies in [DiagonalFillBegin, DiagonalFillEnd) (the
// complement when Begin > End), else InputTensor[..., y, x], or 0 without an InputTensor
// (DML_DIAGONAL_MATRIX1_OPERATOR_DESC).
struct DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::DIAGONAL_MATRIX1;
    std::optional<TensorDesc> InputTensor;
    TensorDesc OutputTensor;
    DataType ValueDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION Value;
    int32_t DiagonalFillBegin = 0;
    int32_t DiagonalFillEnd = 1;
    template <class S, class V> static void fields(S& s, V& v) {
        v.optional_tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.data_type("ValueDataType", s.ValueDataType);
        v.scalar("Value", s.Value, s.ValueDataType);
        v.int32("DiagonalFillBegin", s.DiagonalFillBegin);
        v.int32("DiagonalFillEnd", s.DiagonalFillEnd);
    }
};

}  // namespace dmlref
