// Fast paths of the copy-speed element-wise operators (reference/fast/element_wise.cpp): FLOAT16
// and FLOAT32 ADD (ADD1 without FusedActivation), SUBTRACT, MULTIPLY, DIVIDE and SQRT (without
// ScaleBias) through AVX2 and F16C, integer ADD, SUBTRACT, MULTIPLY, MAX, MIN, DIVIDE,
// MODULUS_TRUNCATE and MODULUS_FLOOR of every width, MAX and MIN of FLOAT16 (on the bits) and
// FLOAT32 (AVX2 VMAXPS and VMINPS), LESS_THAN into UINT8, and CAST between FLOAT32, FLOAT16 and the
// 8- and 32-bit integers; AVX-512 kernels for the arithmetic, MAX, MIN and INT8 LESS_THAN where
// the CPU has AVX-512 F, BW, VL and DQ (set_element_wise_isa below).
// Internal to dmlref.
//
// Each gives the plain loop's bits exactly (reference/element_wise.cpp, element_wise_unary.cpp,
// element_wise_logic.cpp, cast.cpp; test/test_fast_element_wise.cpp compares them element for
// element), for inputs and output whose elements lie in runs of stride 1 (packed tensors, or
// rows of the last dimension), and for binary maps whose output and one input are packed alike
// while the other input is broadcast (a row, a column, a channel's value over its image, a
// scalar: strides 0 outside one band of packed dimensions); anything else returns false, having
// written nothing, and the plain loop runs. The kit calls them only while every policy of
// the operator is at its default (lib/core/operators.cpp: fast_paths_enabled() is false while
// any alternative reading is in force).
#pragma once

#include "dmlref/descs/cast.hpp"
#include "dmlref/descs/element_wise.hpp"
#include "dmlref/descs/element_wise_logic.hpp"
#include "dmlref/operators.hpp"

namespace dmlref::reference::fast {

bool element_wise_fast(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_SQRT_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_MAX_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_MIN_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC& d, const Bindings& b);
bool element_wise_fast(const DML_CAST_OPERATOR_DESC& d, const Bindings& b);

// The instruction sets the kernels here may use, for the tests that compare each kernel with the
// plain loop on one machine: 2 (the default) AVX-512 (F, BW, VL, DQ) where the CPU has them, 1
// AVX2 and F16C at most, 0 neither (the kernels that need them decline, and the plain loops or
// the baseline loops run). Returns the level in use: the limit, or less where the CPU lacks the
// instructions. The bits never depend on it.
int set_element_wise_isa(int limit);
// The level in use now (the kernels of clip_runs.cpp follow it too).
int element_wise_isa();

}  // namespace dmlref::reference::fast
