// The descs of REDUCE, ARGMIN and ARGMAX, with DirectML.h's struct and field names
// (DML_REDUCE_OPERATOR_DESC, DML_ARGMIN_OPERATOR_DESC, DML_ARGMAX_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"
#include "dmlref/descs/resample.hpp"   // DML_AXIS_DIRECTION and its names
#include "dmlref/descs/roi_align.hpp"  // DML_REDUCE_FUNCTION's names

namespace dmlref {

// DML_REDUCE_FUNCTION, stored as uint32_t like every enum field (ARGMAX = 0 ... SUM_SQUARE = 11).
inline constexpr uint32_t DML_REDUCE_FUNCTION_ARGMAX = 0;
inline constexpr uint32_t DML_REDUCE_FUNCTION_ARGMIN = 1;
inline constexpr uint32_t DML_REDUCE_FUNCTION_L1 = 3;
inline constexpr uint32_t DML_REDUCE_FUNCTION_L2 = 4;
inline constexpr uint32_t DML_REDUCE_FUNCTION_LOG_SUM = 5;
inline constexpr uint32_t DML_REDUCE_FUNCTION_LOG_SUM_EXP = 6;
inline constexpr uint32_t DML_REDUCE_FUNCTION_MIN = 8;
inline constexpr uint32_t DML_REDUCE_FUNCTION_MULTIPLY = 9;
inline constexpr uint32_t DML_REDUCE_FUNCTION_SUM = 10;
inline constexpr uint32_t DML_REDUCE_FUNCTION_SUM_SQUARE = 11;

// OutputTensor has InputTensor's DimensionCount and Sizes, with 1 in every reduced axis.
struct DML_REDUCE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::REDUCE;
    uint32_t Function = DML_REDUCE_FUNCTION_SUM;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t AxisCount = 0;
    std::vector<uint32_t> Axes;
    template <class S, class V> static void fields(S& s, V& v) {
        v.enumeration("Function", s.Function, kReduceFunctionNames);
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("AxisCount", s.AxisCount);
        v.uint_array("Axes", s.Axes);
    }
};

namespace reduction_desc {

// DML_ARGMIN_OPERATOR_DESC and DML_ARGMAX_OPERATOR_DESC { InputTensor; OutputTensor; AxisCount;
// Axes; AxisDirection; }: the same fields, one struct per operator type.
template <OperatorType T> struct ArgMinMax {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t AxisCount = 0;
    std::vector<uint32_t> Axes;
    uint32_t AxisDirection = DML_AXIS_DIRECTION_INCREASING;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("AxisCount", s.AxisCount);
        v.uint_array("Axes", s.Axes);
        v.enumeration("AxisDirection", s.AxisDirection, kAxisDirectionNames);
    }
};

}  // namespace reduction_desc

using DML_ARGMIN_OPERATOR_DESC = reduction_desc::ArgMinMax<OperatorType::ARGMIN>;
using DML_ARGMAX_OPERATOR_DESC = reduction_desc::ArgMinMax<OperatorType::ARGMAX>;

}  // namespace dmlref
