// GEMM's fast path (reference/fast/gemm_f64.cpp): FLOAT32 and FLOAT16 GEMM through a float64
// matrix product and a per-element error bound, the plain loop's exact path only for the
// elements the bound leaves undecided. Internal to dmlref.
#pragma once

#include "dmlref/descs/gemm.hpp"
#include "dmlref/operators.hpp"

#include "f64_product.hpp"

#include <cstdint>

namespace dmlref::reference::fast {

// False where it does not apply (a NaN or infinite input, Alpha, or Beta with a CTensor): the
// plain loop runs.
bool gemm_f64(const DML_GEMM_OPERATOR_DESC& d, const Bindings& b);

// For the tests: the elements the last call decided by the product's bound, by the compensated
// sum, and those it left to the exact path; and the float64 kernel to use (0: the best the CPU supports; 1: the baseline,
// 2: AVX2 with FMA, 3: AVX-512, each where built and supported). Returns the kernel in use.
using GemmFastCounts = f64::PathCounts;
GemmFastCounts gemm_fast_counts();
int set_gemm_kernel(int kernel);

}  // namespace dmlref::reference::fast
