// AVERAGE_POOLING's, AVERAGE_POOLING1's and AVERAGE_POOLING_GRAD's fast paths
// (reference/fast/average_pooling.cpp): FLOAT32 and FLOAT16 sums in float64 with a rigorous
// error bound, decided by fast/decide.hpp, the plain loop's exact element only where the bound
// leaves it undecided (docs/golden.md, "How average pooling's golden is computed"). Internal to
// dmlref.
#pragma once

#include "../average_pooling_internal.hpp"

#include "dmlref/tensor.hpp"

#include <cstdint>

namespace dmlref::reference::fast {

// Y (the pooled tensor) from X, or dX from dY, for the windows w. False, with nothing written,
// where the path does not apply (integer or FLOAT64 data, a window of more than 2^20 taps).
bool average_pool(const avgpool::Window& w, const TensorView& X, const TensorView& Y);
bool average_pool_grad(const avgpool::Window& w, const TensorView& dY, const TensorView& dX);

// For the tests: of the last call's elements, those decided by the float64 bound, those found
// exact by the compensated sum (a value on a rounding tie, say), and those left to the plain
// loop's exact element; and the most threads the call's work allowed (before the switch's count).
struct AveragePoolingFastCounts {
    uint64_t decided = 0, exact = 0, plain = 0;
    int threads = 0;
};
AveragePoolingFastCounts average_pooling_fast_counts();

}  // namespace dmlref::reference::fast
