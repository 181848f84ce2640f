// What REDUCE's fast path (reference/fast/reduce_sum.cpp) takes from the plain loop of
// reference/reduction.cpp. Internal to dmlref.
#pragma once

#include <cstdint>
#include <vector>

namespace dmlref::reference {

// SUM of the elements x[base + off], off in reduced: the exact sum rounded once to T, the plain
// loop's value for one output element. Instantiated for float and half.
template <class T> T reduce_sum_element(const T* x, int64_t base, const std::vector<int64_t>& reduced);

}  // namespace dmlref::reference
