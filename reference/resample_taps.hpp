// The RESAMPLE family's per-dimension tap tables, shared by its plain loops (resample.cpp) and
// its fast path (fast/resample_sums.hpp). Internal to dmlref.
#pragma once

#include <cstdint>
#include <vector>

namespace dmlref::reference {

struct Tap {
    uint32_t index;  // along the dimension: the input index (forward) or output index (inverse)
    double weight;   // never 0
};

// The taps of every position along one dimension: position p's taps are
// taps[first[p] .. first[p + 1]).
struct Axis {
    std::vector<Tap> taps;
    std::vector<uint32_t> first{0};
};

}  // namespace dmlref::reference
