// What batch_normalization.cpp shares with its bound (batch_normalization_bound.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace dmlref::reference {

// For every logical element of `in`, the logical index of the element of `stat` it broadcasts to
// (stat's dimensions are 1 or in's).
std::vector<uint64_t> stat_index(const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat);

}  // namespace dmlref::reference
