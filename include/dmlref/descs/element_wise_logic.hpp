// The descs of the element-wise logic family, with DirectML.h's struct and field names: the
// comparisons (LOGICAL_EQUALS, _GREATER_THAN, _LESS_THAN, _GREATER_THAN_OR_EQUAL,
// _LESS_THAN_OR_EQUAL), the logical operators (LOGICAL_AND, _OR, _XOR, _NOT), IS_NAN,
// IS_INFINITY, IF, and the bitwise operators (BIT_AND, _OR, _XOR, _NOT, _COUNT, _SHIFT_LEFT,
// _SHIFT_RIGHT).
//
// Most of these structs have one of two shapes (ATensor, BTensor -> OutputTensor, or
// InputTensor -> OutputTensor); each DirectML struct is that shape for its operator type, under
// DirectML's name. IS_INFINITY (InfinityMode) and IF (ConditionTensor) have their own structs.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

namespace logic_desc {

// DML_ELEMENT_WISE_<OP>_OPERATOR_DESC { ATensor; BTensor; OutputTensor; }
template <OperatorType T> struct Binary {
    static constexpr OperatorType kType = T;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_<OP>_OPERATOR_DESC { InputTensor; OutputTensor; }
template <OperatorType T> struct Unary {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace logic_desc

// f(a, b) = (a == b), (a > b), (a < b), (a >= b), (a <= b): 1 for true, 0 for false.
using DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_EQUALS>;
using DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC =
    logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_GREATER_THAN>;
using DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC =
    logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_LESS_THAN>;
using DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC =
    logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL>;
using DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC =
    logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL>;

// f(a, b) = a && b, a || b, a xor b; f(x) = !x.
using DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_AND>;
using DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_OR>;
using DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_LOGICAL_XOR>;
using DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC = logic_desc::Unary<OperatorType::ELEMENT_WISE_LOGICAL_NOT>;

// f(x) = isnan(x).
using DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC = logic_desc::Unary<OperatorType::ELEMENT_WISE_IS_NAN>;

// DML_IS_INFINITY_MODE, stored as uint32_t like every enum field.
inline constexpr uint32_t DML_IS_INFINITY_MODE_EITHER = 0;
inline constexpr uint32_t DML_IS_INFINITY_MODE_POSITIVE = 1;
inline constexpr uint32_t DML_IS_INFINITY_MODE_NEGATIVE = 2;
inline const EnumNames kIsInfinityModeNames{"DML_IS_INFINITY_MODE_", {"EITHER", "POSITIVE", "NEGATIVE"}};

// f(x) = isinf(x) && ((x > 0 && POSITIVE) || (x < 0 && NEGATIVE) || EITHER).
struct DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_IS_INFINITY;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InfinityMode = DML_IS_INFINITY_MODE_EITHER;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InfinityMode", s.InfinityMode, kIsInfinityModeNames);
    }
};

// f(cond, a, b) = cond != 0 ? a : b.
struct DML_ELEMENT_WISE_IF_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_IF;
    TensorDesc ConditionTensor;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ConditionTensor", s.ConditionTensor, TensorRole::Input);
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// The bitwise operators, on each element's native encoding (its bits; the DataType only gives
// the width): a & b, a | b, a ^ b, ~x, popcount(x), a << b, a >> b.
using DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_BIT_AND>;
using DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_BIT_OR>;
using DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_BIT_XOR>;
using DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC = logic_desc::Unary<OperatorType::ELEMENT_WISE_BIT_NOT>;
using DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC = logic_desc::Unary<OperatorType::ELEMENT_WISE_BIT_COUNT>;
using DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_BIT_SHIFT_LEFT>;
using DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC = logic_desc::Binary<OperatorType::ELEMENT_WISE_BIT_SHIFT_RIGHT>;

}  // namespace dmlref
