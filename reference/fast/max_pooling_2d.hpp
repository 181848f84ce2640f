// Fast path of MAX_POOLING* and MAX_POOLING_GRAD for two spatial dimensions (rank 4): windows
// walked with row pointers, one (n, c) plane per job, sums kept per plane. Internal to dmlref.
//
// It computes what max_pooling.cpp's plain loop computes, element for element
// (test/test_fast_paths.cpp): the same argmax (real elements in increasing logical index, a
// later one wins only when greater, NaN loses to any number), the same values and indices; the
// grad's float sums go through FastSum (fast_sum.hpp) with ExactSum when a rounding is not
// proved, integer sums wrap. A dX element with no term is +0 and one with one term takes no sum.
#pragma once

#include "../fast_sum.hpp"
#include "parallel.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace dmlref::reference::fast {

// The window geometry along one spatial dimension.
struct PoolAxis {
    int64_t in, out, stride, size, start, dilation;
    // Output position o reads input o * stride - start + k * dilation for k in [lo[o], hi[o]).
    std::vector<int64_t> lo, hi;
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
    }
    int64_t position(int64_t o, int64_t k) const { return o * stride - start + k * dilation; }
};

// max_pooling.cpp's beats(x, best), branch-free: greater, or best is NaN and x is not.
template <class T> inline bool beats_fast(T x, T best) {
    if constexpr (is_half_v<T>) return is_nan(best) ? !is_nan(x) : !is_nan(x) && half_order_key(x) > half_order_key(best);
    else if constexpr (std::is_floating_point_v<T>) return (x > best) | ((best != best) & (x == x));
    else return x > best;
}

// The window of output (oh, ow) in the plane at x: the spatial index (h * in_w + w) of its
// argmax and the value, or index -1 for a window of padding only.
template <class T> struct Best { int64_t index; T value; };
template <class T>
inline Best<T> argmax_2d(const PoolAxis& H, const PoolAxis& W, const T* x, int64_t xs_h, int64_t xs_w, int64_t oh, int64_t ow) {
    Best<T> best{-1, T(0)};
    const int64_t hl = H.lo[size_t(oh)], hh = H.hi[size_t(oh)], wl = W.lo[size_t(ow)], wh = W.hi[size_t(ow)];
    if (hl == hh || wl == wh) return best;
    for (int64_t kh = hl; kh < hh; ++kh) {
        const int64_t ph = H.position(oh, kh);
        const T* row = x + ph * xs_h;
        int64_t kw = wl;
        if (best.index < 0) {  // the first real element
            const int64_t pw = W.position(ow, kw++);
            best = {ph * W.in + pw, row[pw * xs_w]};
        }
        for (; kw < wh; ++kw) {
            const int64_t pw = W.position(ow, kw);
            const T v = row[pw * xs_w];
            const bool wins = beats_fast(v, best.value);
            best.index = wins ? ph * W.in + pw : best.index;
            best.value = wins ? v : best.value;
        }
    }
    return best;
}

// The argmax of every window of output row oh: best[ow] for ow in [0, W.out). Windows whose
// columns are all real (the interior) are scanned side by side, candidate by candidate in the
// same increasing logical order, with beats_fast's branch-free update; the others one by one.
template <class T>
inline void argmax_row(const PoolAxis& H, const PoolAxis& W, const T* x, int64_t xs_h, int64_t xs_w, int64_t oh, Best<T>* best) {
    const int64_t hl = H.lo[size_t(oh)], hh = H.hi[size_t(oh)];
    int64_t a = 0, b = W.out;  // the interior: a full window of real columns
    while (a < b && (W.lo[size_t(a)] != 0 || W.hi[size_t(a)] != W.size)) ++a;
    while (b > a && (W.lo[size_t(b - 1)] != 0 || W.hi[size_t(b - 1)] != W.size)) --b;
    for (int64_t ow = a; ow < b; ++ow)
        if (W.lo[size_t(ow)] != 0 || W.hi[size_t(ow)] != W.size) { a = b; break; }  // not one run: no interior
    if (hl == hh || H.in * W.in > int64_t(INT32_MAX)) a = b;
    for (int64_t ow = 0; ow < W.out; ++ow)
        if (ow < a || ow >= b) best[ow] = argmax_2d(H, W, x, xs_h, xs_w, oh, ow);
    if (a == b) return;
    thread_local std::vector<T> value;
    thread_local std::vector<int32_t> index;
    value.resize(size_t(b - a));
    index.resize(size_t(b - a));
    T* __restrict bv = value.data();
    int32_t* __restrict bi = index.data();
    const int64_t n = b - a, step = W.stride * xs_w;
    bool first = true;
    for (int64_t kh = hl; kh < hh; ++kh) {
        const int64_t ph = H.position(oh, kh);
        for (int64_t kw = 0; kw < W.size; ++kw) {
            const int64_t p0 = W.position(a, kw);  // the column of the first interior window
            const T* __restrict v = x + ph * xs_h + p0 * xs_w;
            const int32_t i0 = int32_t(ph * W.in + p0);
            const int32_t si = int32_t(W.stride);
            if (first) {
                for (int64_t k = 0; k < n; ++k) { bv[k] = v[k * step]; bi[k] = i0 + int32_t(k) * si; }
                first = false;
                continue;
            }
            for (int64_t k = 0; k < n; ++k) {
                const T c = v[k * step];
                const bool wins = beats_fast(c, bv[k]);
                bv[k] = wins ? c : bv[k];
                bi[k] = wins ? i0 + int32_t(k) * si : bi[k];
            }
        }
    }
    for (int64_t k = 0; k < n; ++k) best[a + k] = {bi[k], bv[k]};
}

// X, the pooled tensor P and (optionally) the indices, all rank 4 with P's sizes {N, C, OH, OW}.
template <class T>
void max_pool_2d(const PoolAxis& H, const PoolAxis& W, const TensorView& X, const TensorView& Y, const std::optional<TensorView>& I,
                 bool wide_indices) {
    const int64_t N = Y.sizes()[0], Cn = Y.sizes()[1];
    const int64_t in_plane = H.in * W.in;
    parallel_for(N * Cn, [&](int64_t plane) {
        const int64_t n = plane / Cn, c = plane % Cn;
        const T* x = X.data<T>() + n * X.strides[0] + c * X.strides[1];
        T* y = Y.data<T>() + n * Y.strides[0] + c * Y.strides[1];
        thread_local std::vector<Best<T>> row;
        row.resize(size_t(W.out));
        for (int64_t oh = 0; oh < H.out; ++oh) {
            argmax_row(H, W, x, X.strides[2], X.strides[3], oh, row.data());
            for (int64_t ow = 0; ow < W.out; ++ow) {
                const Best<T> b = row[size_t(ow)];
                y[oh * Y.strides[2] + ow * Y.strides[3]] = b.index < 0 ? T(0) : b.value;
                if (!I) continue;
                const uint64_t index = b.index < 0 ? 0 : uint64_t(plane) * uint64_t(in_plane) + uint64_t(b.index);
                const int64_t at = n * I->strides[0] + c * I->strides[1] + oh * I->strides[2] + ow * I->strides[3];
                if (wide_indices) I->data<uint64_t>()[at] = index;
                else I->data<uint32_t>()[at] = uint32_t(index);
            }
        }
    });
}

// MAX_POOLING_GRAD: dX (X's sizes) = for every dY element, its value added at its window's argmax.
template <class T>
void max_pool_grad_2d(const PoolAxis& H, const PoolAxis& W, const TensorView& X, const TensorView& dY, const TensorView& dX) {
    const int64_t N = dY.sizes()[0], Cn = dY.sizes()[1];
    const int64_t in_plane = H.in * W.in, out_plane = H.out * W.out;
    parallel_for(N * Cn, [&](int64_t plane) {
        const int64_t n = plane / Cn, c = plane % Cn;
        const T* x = X.data<T>() + n * X.strides[0] + c * X.strides[1];
        const T* dy = dY.data<T>() + n * dY.strides[0] + c * dY.strides[1];
        T* dx = dX.data<T>() + n * dX.strides[0] + c * dX.strides[1];
        thread_local std::vector<int64_t> target;  // per dY element of the plane: its argmax, or -1
        thread_local std::vector<uint32_t> count;  // per dX element: its number of terms
        thread_local std::vector<double> acc;      // FastSum's s, c, b per dX element (float types)
        thread_local std::vector<uint64_t> wrap;   // the wrapping sum per dX element (integer types)
        target.resize(size_t(out_plane));
        count.assign(size_t(in_plane), 0);
        if constexpr (std::is_integral_v<T>) wrap.assign(size_t(in_plane), 0);
        else acc.assign(size_t(in_plane) * 3, 0.0);
        double* S = acc.data();
        double* Cc = S + in_plane;
        double* B = Cc + in_plane;
        uint64_t* wrapped = wrap.data();
        auto dy_at = [&](int64_t j) { return dy[(j / W.out) * dY.strides[2] + (j % W.out) * dY.strides[3]]; };
        thread_local std::vector<Best<T>> row;
        row.resize(size_t(W.out));
        for (int64_t oh = 0, j = 0; oh < H.out; ++oh) {
            argmax_row(H, W, x, X.strides[2], X.strides[3], oh, row.data());
            for (int64_t ow = 0; ow < W.out; ++ow, ++j) {
                const int64_t t = row[size_t(ow)].index;
                target[size_t(j)] = t;
                if (t < 0) continue;
                const T v = dy[oh * dY.strides[2] + ow * dY.strides[3]];
                ++count[size_t(t)];
                if constexpr (std::is_integral_v<T>) wrapped[t] += uint64_t(v);
                else FastSum::add(S[t], Cc[t], B[t], widen_fast(v));
            }
        }
        for (int64_t h = 0, e = 0; h < H.in; ++h)
            for (int64_t w = 0; w < W.in; ++w, ++e) {
                T& out = dx[h * dX.strides[2] + w * dX.strides[3]];
                if constexpr (std::is_integral_v<T>) {
                    out = static_cast<T>(wrapped[e]);
                } else {
                    if (B[e] == 0) { out = exact_result<T>(S[e]); continue; }  // every addition exact: the common case
                    const uint32_t k = count[size_t(e)];
                    if (k <= 1) { out = single_term<T>(S[e]); continue; }  // +0 + term, or +0
                    out = finish_sum<T>(FastSum{S[e], Cc[e], B[e]}, [&](auto&& add) {
                        for (int64_t j = 0; j < out_plane; ++j) if (target[size_t(j)] == e) add(widen(dy_at(j)));
                    });
                }
            }
    });
}

}  // namespace dmlref::reference::fast
