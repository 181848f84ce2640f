// The window geometry of the fast paths of MAX_POOLING* and MAX_POOLING_GRAD for two or three spatial
// dimensions (rank 4 or 5). Their entry points are reference/max_pooling.hpp's max_pooling_fast, in
// max_pooling.cpp of this folder, the one place the kernels (max_pooling_windows.hpp,
// max_pooling_grad.hpp) are instantiated: in the fast library, at the build's optimisation level.
// Internal to dmlref.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dmlref::reference::fast {

// The window geometry along one spatial dimension.
struct PoolAxis {
    int64_t in, out, stride, size, start, dilation;
    // Output position o reads input o * stride - start + k * dilation for k in [lo[o], hi[o]).
    std::vector<int64_t> lo, hi;
    // The interior [interior_begin, interior_end): one run of windows of `size` real positions
    // each (empty when they do not form one run).
    int64_t interior_begin = 0, interior_end = 0;
    void ranges() {
        lo.resize(size_t(out));
        hi.resize(size_t(out));
        for (int64_t o = 0; o < out; ++o) {
            const int64_t first = o * stride - start;
            const int64_t l = first >= 0 ? 0 : (-first + dilation - 1) / dilation;
            const int64_t h = first >= in ? 0 : std::min(size, (in - 1 - first) / dilation + 1);
            lo[size_t(o)] = l;
            hi[size_t(o)] = std::max(l, h);
        }
        auto full = [&](int64_t o) { return lo[size_t(o)] == 0 && hi[size_t(o)] == size; };
        int64_t a = 0, b = out;
        while (a < b && !full(a)) ++a;
        while (b > a && !full(b - 1)) --b;
        for (int64_t o = a; o < b; ++o)
            if (!full(o)) {
                a = b;
                break;
            }
        interior_begin = a;
        interior_end = b;
    }
    int64_t position(int64_t o, int64_t k) const { return o * stride - start + k * dilation; }
};

// The window geometry of one (n, c) volume: depth (a single position for two spatial
// dimensions), rows and columns, with X's element strides along them.
struct Volume {
    PoolAxis D, H, W;
    int64_t xs_d = 0, xs_h = 0, xs_w = 0;
    int64_t in() const { return D.in * H.in * W.in; }
    int64_t out() const { return D.out * H.out * W.out; }
};

// A dimension of one position, one window element: the depth of a 2-D pooling.
inline PoolAxis unit_axis() {
    PoolAxis a{1, 1, 1, 1, 0, 1, {}, {}};
    a.ranges();
    return a;
}

}  // namespace dmlref::reference::fast
