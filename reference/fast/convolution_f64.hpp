// CONVOLUTION's fast path (reference/fast/convolution_f64.cpp): FLOAT32 and FLOAT16 FORWARD
// convolutions as float64 products of the filter and the input's windows, with a bound per
// element, the plain loop's exact path only for the elements the bound leaves undecided.
// Internal to dmlref.
#pragma once

#include "dmlref/descs/convolution.hpp"
#include "dmlref/operators.hpp"

#include "f64_product.hpp"

#include <cstdint>

namespace dmlref::reference::fast {

// False where it does not apply (BACKWARD, a NaN or infinite input, filter or bias element): the
// plain loop runs.
bool convolution_f64(const DML_CONVOLUTION_OPERATOR_DESC& d, const Bindings& b);

// For the tests: the last call's counts (f64_product.hpp).
f64::PathCounts convolution_fast_counts();

}  // namespace dmlref::reference::fast
