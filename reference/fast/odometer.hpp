// The coordinates of a tensor's leading dimensions, row after row, for fast paths that cut their
// rows into parallel tasks: each task starts at its first flat row by division, then counts.
// Internal to dmlref.
#pragma once

#include "dmlref/tensor.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace dmlref::reference::fast {

// The coordinates of dimensions [0, n) in row-major order from flat row r on: by division for the
// first, then counted.
template <class S> struct Odometer {
    const S* sizes;
    size_t n;
    std::array<int64_t, kMaxDimensionCount> c{};
    Odometer(const S* s, size_t count, int64_t r) : sizes(s), n(count) {
        for (size_t i = n; i-- > 0;) {
            c[i] = r % int64_t(sizes[i]);
            r /= int64_t(sizes[i]);
        }
    }
    void next() {
        for (size_t i = n; i-- > 0;) {
            if (++c[i] < int64_t(sizes[i])) return;
            c[i] = 0;
        }
    }
    int64_t offset(const int64_t* strides) const {
        int64_t o = 0;
        for (size_t i = 0; i < n; ++i) o += c[i] * strides[i];
        return o;
    }
};

}  // namespace dmlref::reference::fast
