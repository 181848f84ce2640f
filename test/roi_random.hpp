// Random regions and values for the ROI align fast-path tests (test_fast_roi_align.cpp,
// test_fast_roi_align_grad.cpp): region coordinates in and around the image, on the grid of exact
// sample positions and far outside, and element values from plain floats to hard ones.
#pragma once

#include "fast_check.hpp"
#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

namespace dmlref::test {

template <class T> T pick(std::mt19937_64& rng, std::initializer_list<T> list) {
    return *(list.begin() + rng() % list.size());
}

// A region coordinate along an axis of `size`: anywhere in and around the image, on the integer
// and half grid (exact sample positions), at the edges and far outside, or a float between.
inline float roi_coordinate(std::mt19937_64& rng, uint32_t size, int kind) {
    const double s = double(size);
    std::uniform_real_distribution<double> in(0, s), around(-3, s + 3);
    switch (kind) {
        case 0: return float(in(rng));
        case 1: return float(around(rng));
        case 2: return float(std::round(around(rng) * 2) / 2);  // integers and halves
        default: return pick<float>(rng, {-1.0f, 0.0f, float(s - 1), float(s), -1.5f, float(s + 0.5), -1e6f, 3e5f});
    }
}

// Values: plain small floats (nearly every element decided), small integers (ties among samples,
// sums on the grid), or hard values (NaN, infinities, subnormals, +-0, the largest) mixed in.
template <class T> std::vector<T> roi_values(std::mt19937_64& rng, size_t n, int kind) {
    std::vector<T> v(n);
    std::uniform_real_distribution<double> plain(-4, 4);
    for (T& x : v) {
        if (kind == 0) x = value_of<T>(plain(rng));
        else if (kind == 1) x = value_of<T>(double(int64_t(rng() % 7) - 3));
        else x = rng() % 3 ? value_of<T>(plain(rng)) : hard_element<T>(rng);
    }
    return v;
}

}  // namespace dmlref::test
