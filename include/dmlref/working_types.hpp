// The working types a backend may compute in under a profile (docs/tolerance.md, "Arithmetic
// profiles"): the one list that the summed bounds, the computed bounds and the families' own
// bounds (GEMM, ADD1, the transcendental activations) take their worst case over.
#pragma once

#include "dmlref/bound.hpp"

#include <vector>

namespace dmlref {

// For output type t: `any` gives t and each of FLOAT32 and FLOAT64 at least as wide as t;
// `output` t; `float32` FLOAT32 (t where t is wider); `float64` FLOAT64. No type twice.
std::vector<DataType> working_types(const ArithmeticProfile& p, DataType t);

}  // namespace dmlref
