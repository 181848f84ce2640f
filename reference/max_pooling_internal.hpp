// What max_pooling.cpp (the operators), max_pooling_terms.cpp (their terms and ties) and fast/max_pooling.cpp
// (the fast paths, which take the window) share: the window and its argmax. Internal to dmlref.
#pragma once

#include "dmlref/readings.hpp"
#include "common.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace dmlref::reference::maxpool {

constexpr size_t kMaxSpatial = kMaxDimensionCount - 2;
using PoolCoord = std::array<int64_t, kMaxSpatial>;
constexpr uint64_t kNoElement = ~uint64_t(0);

// ---- The window ----------------------------------------------------------------------------

// The geometry of one validated desc, per spatial dimension.
struct Window {
    size_t spatial = 0;
    PoolCoord in{}, out{}, stride{}, size{}, start{}, dilation{};
    PoolCoord in_packed{};                // packed strides of the input's spatial dimensions (for logical indices)
    int64_t in_plane = 1, out_plane = 1;  // elements per (n, c) of the input and the pooled tensor
};

inline Window window_of(const TensorDesc& input, const TensorDesc& output, const std::vector<uint32_t>& Strides,
                        const std::vector<uint32_t>& WindowSize, const std::vector<uint32_t>& StartPadding,
                        const std::vector<uint32_t>* Dilations) {
    Window w;
    w.spatial = input.DimensionCount() - 2;
    for (size_t i = w.spatial; i-- > 0;) {
        w.in[i] = input.Sizes[i + 2];
        w.out[i] = output.Sizes[i + 2];
        w.stride[i] = Strides[i];
        w.size[i] = WindowSize[i];
        w.start[i] = StartPadding[i];
        w.dilation[i] = Dilations ? (*Dilations)[i] : 1;
        w.in_packed[i] = w.in_plane;
        w.in_plane *= w.in[i];
        w.out_plane *= w.out[i];
    }
    return w;
}

// The window positions k along dimension i that read a real element for output position o:
// k in [lo, hi). Input position o * stride - start + k * dilation must lie in [0, in).
struct KRange {
    int64_t lo, hi;
};
inline KRange real_positions(const Window& w, size_t i, int64_t o) {
    const int64_t first = o * w.stride[i] - w.start[i];
    const int64_t lo = first >= 0 ? 0 : (-first + w.dilation[i] - 1) / w.dilation[i];
    const int64_t hi = first >= w.in[i] ? 0 : std::min(w.size[i], (w.in[i] - 1 - first) / w.dilation[i] + 1);
    return {lo, std::max(lo, hi)};
}

inline bool window_is_empty(const Window& w, const PoolCoord& o) {
    for (size_t i = 0; i < w.spatial; ++i) {
        const KRange r = real_positions(w, i, o[i]);
        if (r.lo == r.hi) return true;
    }
    return false;
}

// Steps a row-major coordinate within [lo, hi) per dimension; false after the last one.
inline bool next(PoolCoord& c, const PoolCoord& lo, const PoolCoord& hi, size_t n) {
    for (size_t i = n; i-- > 0;) {
        if (++c[i] < hi[i]) return true;
        c[i] = lo[i];
    }
    return false;
}

// A candidate replaces the best so far only when it is greater, or when the best is NaN and
// the candidate is not: ties keep the lower index, NaN loses to any number.
template <class T> bool beats(T x, T best) {
    if (in_force<"ArgmaxNaN", "NaNWins">()) {  // `x > best || isnan(x)`, the last NaN wins
        if (is_nan(x)) return true;
        if (is_nan(best)) return false;
    } else if (is_nan(best)) return !is_nan(x);
    if constexpr (is_half_v<T>) return widen(x) > widen(best);
    else return x > best;
}

// Calls f(spatial logical index, element offset) for the real elements of output position o's
// window in one (n, c) plane of X, in increasing logical index. `plane` is the element offset
// of the plane in X's buffer; `xs` are X's strides of the spatial dimensions.
template <class F>
void for_each_window_element(const Window& w, int64_t plane, const int64_t* xs, const PoolCoord& o, F&& f) {
    PoolCoord lo{}, hi{}, k{};
    for (size_t i = 0; i < w.spatial; ++i) {
        const KRange r = real_positions(w, i, o[i]);
        if (r.lo == r.hi) return;
        lo[i] = k[i] = r.lo;
        hi[i] = r.hi;
    }
    do {
        int64_t offset = plane, index = 0;
        for (size_t i = 0; i < w.spatial; ++i) {
            const int64_t p = o[i] * w.stride[i] - w.start[i] + k[i] * w.dilation[i];
            offset += p * xs[i];
            index += p * w.in_packed[i];
        }
        f(uint64_t(index), offset);
    } while (next(k, lo, hi, w.spatial));
}

// The argmax of output position o's window: the spatial logical index of the winner (add
// plane_index * in_plane for the flat index) and its element offset, or kNoElement.
struct Argmax {
    uint64_t index;
    int64_t offset;
};
template <class T>
Argmax window_argmax(const Window& w, const T* x, int64_t plane, const int64_t* xs, const PoolCoord& o) {
    Argmax best{kNoElement, 0};
    for_each_window_element(w, plane, xs, o, [&](uint64_t index, int64_t offset) {
        if (best.index == kNoElement || beats(x[offset], x[best.offset])) best = {index, offset};
    });
    return best;
}

// Calls f(plane_index, plane offset in X, o, element offset in P) for every element of the
// pooled tensor P (sizes and element strides) in logical row-major order.
template <class F>
void for_each_output(const Window& w, const TensorView& X, const std::vector<uint32_t>& sizes,
                     const std::vector<int64_t>& strides, F&& f) {
    for (int64_t n = 0; n < sizes[0]; ++n)
        for (int64_t c = 0; c < sizes[1]; ++c) {
            const int64_t plane_index = n * sizes[1] + c;
            const int64_t x_plane = n * X.strides[0] + c * X.strides[1];
            const int64_t p_plane = n * strides[0] + c * strides[1];
            PoolCoord o{}, zero{};
            do {
                int64_t p_offset = p_plane;
                for (size_t i = 0; i < w.spatial; ++i) p_offset += o[i] * strides[i + 2];
                f(plane_index, x_plane, o, p_offset);
            } while (next(o, zero, w.out, w.spatial));
        }
}

// ---- The grad's targets -------------------------------------------------------------------

// For each element of dY (logical row-major order), the flat logical index in X of its window's
// argmax, or kNoElement for a window of padding only.
template <class T>
std::vector<uint64_t> grad_targets(const Window& w, const TensorView& X, const std::vector<uint32_t>& dy_sizes) {
    std::vector<uint64_t> targets;
    targets.reserve(w.out_plane * dy_sizes[0] * dy_sizes[1]);
    const T* x = X.data<T>();
    for_each_output(w, X, dy_sizes, packed_strides(dy_sizes),
                    [&](int64_t plane_index, int64_t x_plane, const PoolCoord& o, int64_t) {
        const Argmax a = window_argmax(w, x, x_plane, X.strides.data() + 2, o);
        targets.push_back(a.index == kNoElement ? kNoElement : uint64_t(plane_index) * uint64_t(w.in_plane) + a.index);
    });
    return targets;
}

}  // namespace dmlref::reference::maxpool
