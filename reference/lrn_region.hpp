// The regions of local response normalization (reference/local_response_normalization.cpp):
// the desc's parameters and each element's window, shared by the evaluate loops and the
// per-element bound (reference/local_response_normalization_bound.cpp).
#pragma once

#include "common.hpp"
#include "dmlref/descs/local_response_normalization.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace dmlref::reference::lrn_region {

struct LrnParams {
    std::string_view op;  // rule prefix
    const TensorDesc& X;
    uint32_t CrossChannel, LocalSize;
    float Alpha, Beta, Bias;
};

inline LrnParams params(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d) {
    return {"lrn", d.InputTensor, d.CrossChannel, d.LocalSize, d.Alpha, d.Beta, d.Bias};
}
inline LrnParams params(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d) {
    return {"lrn-grad", d.InputTensor, d.CrossChannel, d.LocalSize, d.Alpha, d.Beta, d.Bias};
}

using RegionCoord = std::array<int64_t, kMaxDimensionCount>;

struct RegionGeometry {
    std::vector<uint32_t> sizes;
    std::vector<int64_t> packed;
    uint32_t first_windowed, last_windowed;  // dimensions [first, last) carry the window
    int64_t before, after;                   // floor((L - 1) / 2), ceil((L - 1) / 2)
};

inline RegionGeometry geometry_of(const LrnParams& p) {
    RegionGeometry g{p.X.Sizes, packed_strides(p.X.Sizes),      1,
                     2,         (int64_t(p.LocalSize) - 1) / 2, int64_t(p.LocalSize) / 2};
    if (!p.CrossChannel) {
        g.first_windowed = 2;
        g.last_windowed = uint32_t(p.X.Sizes.size());
    }
    return g;
}

inline RegionCoord coord_of(const RegionGeometry& g, uint64_t i) {
    RegionCoord c{};
    for (size_t d = g.sizes.size(); d-- > 0;) {
        c[d] = int64_t(i % g.sizes[d]);
        i /= g.sizes[d];
    }
    return c;
}

// Calls f(logical index) for every element of the box [c - down, c + up] (clipped) over the
// windowed dimensions.
template <class F>
void for_each_in_box(const RegionGeometry& g, const RegionCoord& c, int64_t down, int64_t up, F&& f) {
    RegionCoord lo = c, hi = c, k{};
    for (uint32_t d = g.first_windowed; d < g.last_windowed; ++d) {
        lo[d] = std::max<int64_t>(0, c[d] - down);
        hi[d] = std::min<int64_t>(g.sizes[d] - 1, c[d] + up);
    }
    k = lo;
    for (;;) {
        int64_t index = 0;
        for (size_t d = 0; d < g.sizes.size(); ++d) index += k[d] * g.packed[d];
        f(uint64_t(index));
        bool stepped = false;
        for (uint32_t d = g.last_windowed; d > g.first_windowed && !stepped;) {
            --d;
            if (++k[d] <= hi[d]) stepped = true;
            else k[d] = lo[d];
        }
        if (!stepped) return;
    }
}

}  // namespace dmlref::reference::lrn_region
