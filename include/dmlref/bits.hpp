// One element's bits, decoded: its value widened to double, and whether it is a NaN. The judge,
// diff, the bounds and explain all read elements through these (one copy, lib/core/values.cpp).
#pragma once

#include "dmlref/types.hpp"

#include <cstdint>

namespace dmlref {

// The element's value as a double: exact for FLOAT16, FLOAT32, FLOAT64 and integers up to 2^53
// in magnitude, rounded to nearest beyond (INT64 and UINT64).
double element_value(DataType t, uint64_t bits);
// Whether the bits are a NaN of the float type t (never for integer types).
bool is_nan_bits(DataType t, uint64_t bits);

}  // namespace dmlref
