// REDUCE's fast path for SUM of FLOAT32 and FLOAT16 (reference/fast/reduce_sum.cpp): the exact
// sum rounded once, as the plain loop of reference/reduction.cpp gives it, at the speed of a
// float64 sum. Internal to dmlref.
#pragma once

#include "dmlref/descs/reduction.hpp"
#include "dmlref/operators.hpp"

#include <cstdint>

namespace dmlref::reference::fast {

// False where it does not apply (another Function or type; reduced axes that are not one block
// of neighbouring axes, or whose elements are not contiguous or strided rows of contiguous
// outputs): the plain loop runs.
bool reduce_sum(const DML_REDUCE_OPERATOR_DESC& d, const Bindings& b);

// For the tests: the output elements the last call decided from its compensated sums, and those
// it left to the plain loop's exact sum; the blocks of contiguous terms whose float64 sum it
// proved exact, and those it summed again with FastSum (reduce_sum.cpp, step 2a).
struct ReduceSumCounts {
    uint64_t decided = 0, exact = 0, certified_blocks = 0, uncertified_blocks = 0;
};
ReduceSumCounts reduce_sum_counts();

}  // namespace dmlref::reference::fast
