// What reference/average_pooling.cpp (the plain loops) and reference/fast/average_pooling.cpp
// (their fast paths) share: the windows with their divisors, and the plain loop's value of one
// element, which the fast paths take for the elements their error bound leaves undecided.
// Internal to dmlref.
#pragma once

#include "exact_rational.hpp"
#include "pooling_geometry.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace dmlref::reference::avgpool {

constexpr size_t kMaxSpatial = kMaxPoolingSpatial;
using Coord = PoolingCoord;

// The windows of one validated desc (reference/pooling_geometry.hpp) and their divisor.
struct Window : PoolingWindows {
    mpz_class taps = 1;  // prod(WindowSize): up to (2^32 - 1)^6, beyond 64 bits
    bool include_padding = false;
};

// The number of real elements of o's window (a box: the product of the per-dimension counts).
inline uint64_t real_count(const Window& w, const Coord& o) {
    uint64_t n = 1;
    for (size_t i = 0; i < w.spatial; ++i) {
        const TapRange r = pooling_real_taps(w, i, o[i]);
        n *= uint64_t(r.hi - r.lo);
    }
    return n;
}

// D(o): the divisor of o's window; 0 for a window with no real element when IncludePadding is FALSE.
inline mpz_class divisor(const Window& w, const Coord& o) {
    return w.include_padding ? w.taps : mpz_class(static_cast<unsigned long>(real_count(w, o)));
}

// For each spatial dimension and input position, the output positions whose window reads it.
using Readers = std::array<std::vector<std::vector<int64_t>>, kMaxSpatial>;
inline Readers readers(const Window& w) {
    Readers r;
    for (size_t i = 0; i < w.spatial; ++i) {
        r[i].resize(size_t(w.in[i]));
        for (int64_t o = 0; o < w.out[i]; ++o) {
            const TapRange k = pooling_real_taps(w, i, o);
            for (int64_t j = k.lo; j < k.hi; ++j)
                r[i][size_t(o * w.stride[i] - w.start[i] + j * w.dilation[i])].push_back(o);
        }
    }
    return r;
}

// Calls f(o) for every output position whose window reads input position x (all spatial dims).
template <class F> void for_each_reader(const Window& w, const Readers& r, const Coord& x, F&& f) {
    Coord pick{}, count{};
    for (size_t i = 0; i < w.spatial; ++i) {
        count[i] = int64_t(r[i][size_t(x[i])].size());
        if (count[i] == 0) return;
    }
    do {
        Coord o{};
        for (size_t i = 0; i < w.spatial; ++i) o[i] = r[i][size_t(x[i])][size_t(pick[i])];
        f(o);
    } while (pooling_next(pick, Coord{}, count, w.spatial));
}

// The forward's element (n, c, o) of input x (element strides xs): the exact sum of the window's
// real elements divided by D(o), rounded once; +0 for an empty window without IncludePadding.
template <class T>
T average_element(const Window& w, const T* x, const std::vector<int64_t>& xs, int64_t n, int64_t c, const Coord& o) {
    ExactRationalSum sum;
    for_each_real_tap(
        w, o, [&](const Coord& pos) { sum.add_quotient(x[pooling_offset(xs, n, c, pos, w.spatial)], mpz_class(1)); });
    const mpz_class D = divisor(w, o);
    return D == 0 ? T(0) : sum.template result<T>(D);
}

// The grad's element (n, c, x) from dY (element strides dys): the exact sum of dY[o] / D(o) over
// the windows o that hold x, rounded once.
template <class T>
T average_grad_element(const Window& w, const Readers& r, const T* dy, const std::vector<int64_t>& dys, int64_t n,
                       int64_t c, const Coord& x) {
    ExactRationalSum sum;
    for_each_reader(
        w, r, x, [&](const Coord& o) { sum.add_quotient(dy[pooling_offset(dys, n, c, o, w.spatial)], divisor(w, o)); });
    return sum.template result<T>();
}

}  // namespace dmlref::reference::avgpool
