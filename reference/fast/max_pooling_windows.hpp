// Fast path of MAX_POOLING* and MAX_POOLING_GRAD for two or three spatial dimensions (rank 4
// or 5): windows walked with row pointers, the interior windows of an output row scanned side by
// side, one (n, c) volume per job, sums kept per volume. Internal to dmlref.
//
// It computes what max_pooling.cpp's plain loop computes, element for element
// (test/test_fast_paths.cpp): the same argmax (real elements in increasing logical index, a
// later one wins only when greater, NaN loses to any number), the same values and indices; the
// grad's float sums are float64 sums checked exact addition by addition, with exact_sum_of
// (fast_sum.hpp) for an element where one was not; integer sums wrap.
#pragma once

#include "../fast_sum.hpp"
#include "parallel.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
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
            if (!full(o)) { a = b; break; }
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

// max_pooling.cpp's beats(x, best), branch-free: greater, or best is NaN and x is not.
template <class T> inline bool beats_fast(T x, T best) {
    if constexpr (is_half_v<T>) return is_nan(best) ? !is_nan(x) : !is_nan(x) && half_order_key(x) > half_order_key(best);
    else if constexpr (std::is_floating_point_v<T>) return (x > best) | ((best != best) & (x == x));
    else return x > best;
}

// The window of output (od, oh, ow) in the volume at x: the spatial index ((d * in_h + h) * in_w
// + w) of its argmax and the value, or index -1 for a window of padding only.
template <class T> struct Best { int64_t index; T value; };
template <class T>
inline Best<T> argmax_window(const Volume& v, const T* x, int64_t od, int64_t oh, int64_t ow) {
    const PoolAxis &D = v.D, &H = v.H, &W = v.W;
    Best<T> best{-1, T(0)};
    const int64_t dl = D.lo[size_t(od)], dh = D.hi[size_t(od)];
    const int64_t hl = H.lo[size_t(oh)], hh = H.hi[size_t(oh)], wl = W.lo[size_t(ow)], wh = W.hi[size_t(ow)];
    if (dl == dh || hl == hh || wl == wh) return best;
    for (int64_t kd = dl; kd < dh; ++kd) {
        const int64_t pd = D.position(od, kd);
        for (int64_t kh = hl; kh < hh; ++kh) {
            const int64_t ph = H.position(oh, kh);
            const T* row = x + pd * v.xs_d + ph * v.xs_h;
            const int64_t row_index = (pd * H.in + ph) * W.in;
            int64_t kw = wl;
            if (best.index < 0) {  // the first real element
                const int64_t pw = W.position(ow, kw++);
                best = {row_index + pw, row[pw * v.xs_w]};
            }
            for (; kw < wh; ++kw) {
                const int64_t pw = W.position(ow, kw);
                const T c = row[pw * v.xs_w];
                const bool wins = beats_fast(c, best.value);
                best.index = wins ? row_index + pw : best.index;
                best.value = wins ? c : best.value;
            }
        }
    }
    return best;
}

// The argmax of every window of output row (od, oh): best[ow] for ow in [0, W.out). Windows whose
// columns are all real (the interior) are scanned side by side, candidate by candidate in the
// same increasing logical order, with beats_fast's branch-free update; the others one by one.
// Scratch for argmax_row, W.out elements each, held by the caller (no thread_local per row).
template <class T> struct RowScratch {
    std::vector<Best<T>> best;
    std::vector<T> value;
    std::vector<int32_t> index;
    void resize(size_t n) { best.resize(n); value.resize(n); index.resize(n); }
};

template <class T>
inline void argmax_row(const Volume& v, const T* x, int64_t od, int64_t oh, RowScratch<T>& scratch) {
    Best<T>* best = scratch.best.data();
    const PoolAxis &D = v.D, &H = v.H, &W = v.W;
    const int64_t dl = D.lo[size_t(od)], dh = D.hi[size_t(od)], hl = H.lo[size_t(oh)], hh = H.hi[size_t(oh)];
    int64_t a = W.interior_begin, b = W.interior_end;  // the interior: a full window of real columns
    if (dl == dh || hl == hh || v.in() > int64_t(INT32_MAX)) a = b;
    for (int64_t ow = 0; ow < W.out; ++ow)
        if (ow < a || ow >= b) best[ow] = argmax_window(v, x, od, oh, ow);
    if (a == b) return;
    T* __restrict bv = scratch.value.data();
    int32_t* __restrict bi = scratch.index.data();  // the winning candidate's index for window 0; window k's is k * stride more
    const int64_t n = b - a, step = W.stride * v.xs_w;
    bool first = true;
    for (int64_t kd = dl; kd < dh; ++kd)
        for (int64_t kh = hl; kh < hh; ++kh) {
            const int64_t pd = D.position(od, kd), ph = H.position(oh, kh);
            for (int64_t kw = 0; kw < W.size; ++kw) {
                const int64_t p0 = W.position(a, kw);  // the column of the first interior window
                const T* __restrict c = x + pd * v.xs_d + ph * v.xs_h + p0 * v.xs_w;
                const int32_t i0 = int32_t((pd * H.in + ph) * W.in + p0);
                // The candidates' step as a constant where it is 1 or 2 (a contiguous row, stride
                // 1 or 2): plain or deinterleaving vector loads instead of one load per element.
                auto candidate = [&]<int64_t S>(std::integral_constant<int64_t, S>) {
                    const int64_t s = S ? S : step;
                    if (first) {
                        for (int64_t k = 0; k < n; ++k) { bv[k] = c[k * s]; bi[k] = i0; }
                        return;
                    }
                    for (int64_t k = 0; k < n; ++k) {
                        const T e = c[k * s];
                        const bool wins = beats_fast(e, bv[k]);
                        bv[k] = wins ? e : bv[k];
                        bi[k] = wins ? i0 : bi[k];
                    }
                };
                if (step == 1) candidate(std::integral_constant<int64_t, 1>{});
                else if (step == 2) candidate(std::integral_constant<int64_t, 2>{});
                else candidate(std::integral_constant<int64_t, 0>{});
                first = false;
            }
        }
    for (int64_t k = 0; k < n; ++k) best[a + k] = {int64_t(bi[k]) + k * W.stride, bv[k]};
}

// The element strides of a rank 4 or 5 tensor along depth (0 for rank 4), rows and columns.
inline std::array<int64_t, 3> spatial_strides(const TensorView& t) {
    const std::vector<int64_t>& s = t.strides;
    return s.size() == 5 ? std::array<int64_t, 3>{s[2], s[3], s[4]} : std::array<int64_t, 3>{0, s[2], s[3]};
}

// X, the pooled tensor P and (optionally) the indices, all of P's rank with sizes {N, C, [OD,] OH, OW}.
template <class T>
void max_pool_fast(const Volume& v, const TensorView& X, const TensorView& Y, const std::optional<TensorView>& I, bool wide_indices) {
    const int64_t N = Y.sizes()[0], Cn = Y.sizes()[1];
    const auto ys = spatial_strides(Y);
    const auto is = I ? spatial_strides(*I) : std::array<int64_t, 3>{};
    parallel_for(N * Cn, [&](int64_t plane) {
        const int64_t n = plane / Cn, c = plane % Cn;
        const T* x = X.data<T>() + n * X.strides[0] + c * X.strides[1];
        T* y = Y.data<T>() + n * Y.strides[0] + c * Y.strides[1];
        thread_local RowScratch<T> scratch;
        RowScratch<T>& row = scratch;  // bound once
        row.resize(size_t(v.W.out));
        for (int64_t od = 0; od < v.D.out; ++od)
            for (int64_t oh = 0; oh < v.H.out; ++oh) {
                argmax_row(v, x, od, oh, row);
                for (int64_t ow = 0; ow < v.W.out; ++ow) {
                    const Best<T> b = row.best[size_t(ow)];
                    y[od * ys[0] + oh * ys[1] + ow * ys[2]] = b.index < 0 ? T(0) : b.value;
                    if (!I) continue;
                    const uint64_t index = b.index < 0 ? 0 : uint64_t(plane) * uint64_t(v.in()) + uint64_t(b.index);
                    const int64_t at = n * I->strides[0] + c * I->strides[1] + od * is[0] + oh * is[1] + ow * is[2];
                    if (wide_indices) I->data<uint64_t>()[at] = index;
                    else I->data<uint32_t>()[at] = uint32_t(index);
                }
            }
    });
}

// MAX_POOLING_GRAD: dX (X's sizes) = for every dY element, its value added at its window's argmax.
// Float sums: each dX element's terms are added in float64 as they come (no accumulator beyond
// one double, which starts at +0), each addition checked exact with TwoSum's error. An element
// whose additions were all exact holds its exact sum (+0 for no term or cancelling terms), which
// is what ExactSum rounds: exact_result, as FastSum's b == 0 case. Any other element (an
// inexact addition, an infinity or a NaN: the error is then non-zero or NaN) is summed again by
// exact_sum_of over its terms. Integer sums wrap.
template <class T>
void max_pool_grad_fast(const Volume& v, const TensorView& X, const TensorView& dY, const TensorView& dX) {
    const int64_t N = dY.sizes()[0], Cn = dY.sizes()[1];
    const int64_t in_volume = v.in(), out_volume = v.out();
    const auto ys = spatial_strides(dY), xs = spatial_strides(dX);
    parallel_for(N * Cn, [&](int64_t plane) {
        const int64_t n = plane / Cn, c = plane % Cn;
        const T* x = X.data<T>() + n * X.strides[0] + c * X.strides[1];
        const T* dy = dY.data<T>() + n * dY.strides[0] + c * dY.strides[1];
        T* dx = dX.data<T>() + n * dX.strides[0] + c * dX.strides[1];
        using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;  // wrapping sum, or float64 sum
        thread_local std::vector<Acc> acc_buffer;
        thread_local std::vector<int64_t> target_buffer, retry_buffer;
        thread_local RowScratch<T> row_buffer;
        // Bound once: each use of a thread_local in the loops below would look its address up again.
        std::vector<Acc>& acc = acc_buffer;
        std::vector<int64_t>& target = target_buffer;  // per dY element of the volume: its argmax, or -1
        std::vector<int64_t>& retry = retry_buffer;    // dX elements to sum again exactly (repeats possible)
        RowScratch<T>& row = row_buffer;
        acc.assign(size_t(in_volume), Acc(0));
        target.resize(size_t(out_volume));
        retry.clear();
        row.resize(size_t(v.W.out));
        Acc* A = acc.data();
        int64_t* to = target.data();
        const Best<T>* best = row.best.data();
        auto dy_offset = [&](int64_t od, int64_t oh, int64_t ow) { return od * ys[0] + oh * ys[1] + ow * ys[2]; };
        int64_t j = 0;
        for (int64_t od = 0; od < v.D.out; ++od)
            for (int64_t oh = 0; oh < v.H.out; ++oh) {
                argmax_row(v, x, od, oh, row);
                const T* dy_row = dy + od * ys[0] + oh * ys[1];
                for (int64_t ow = 0; ow < v.W.out; ++ow, ++j) {
                    const int64_t t = best[ow].index;
                    to[j] = t;
                    if (t < 0) continue;
                    const T e = dy_row[ow * ys[2]];
                    if constexpr (std::is_integral_v<T>) {
                        A[t] += uint64_t(e);
                    } else {
                        const double s = A[t], u = widen_fast(e);
                        const double sum = s + u, tt = sum - s;
                        const double error = (s - (sum - tt)) + (u - tt);  // s + u = sum + error exactly (TwoSum)
                        A[t] = sum;
                        if (error != 0) retry.push_back(t);  // also for a NaN error (an infinity or NaN term)
                    }
                }
            }
        for (int64_t d = 0; d < v.D.in; ++d)
            for (int64_t h = 0; h < v.H.in; ++h) {
                T* out = dx + d * xs[0] + h * xs[1];
                const Acc* a = A + (d * v.H.in + h) * v.W.in;
                if constexpr (std::is_integral_v<T>) {
                    for (int64_t w = 0; w < v.W.in; ++w) out[w * xs[2]] = static_cast<T>(a[w]);
                } else if (xs[2] == 1) {
                    for (int64_t w = 0; w < v.W.in; ++w) out[w] = exact_result<T>(a[w]);
                } else {
                    for (int64_t w = 0; w < v.W.in; ++w) out[w * xs[2]] = exact_result<T>(a[w]);
                }
            }
        if constexpr (!std::is_integral_v<T>) if (!retry.empty()) {
            std::sort(retry.begin(), retry.end());
            retry.erase(std::unique(retry.begin(), retry.end()), retry.end());
            // The dY elements of each retried dX element, grouped once (a counting sort of target).
            std::vector<int64_t> first(retry.size() + 1, 0), order;
            auto slot = [&](int64_t t) {
                const auto it = std::lower_bound(retry.begin(), retry.end(), t);
                return it != retry.end() && *it == t ? int64_t(it - retry.begin()) : int64_t(-1);
            };
            std::vector<int64_t> slot_of(size_t(out_volume), -1);
            for (int64_t k = 0; k < out_volume; ++k)
                if (target[size_t(k)] >= 0 && (slot_of[size_t(k)] = slot(target[size_t(k)])) >= 0) ++first[size_t(slot_of[size_t(k)]) + 1];
            for (size_t r = 0; r < retry.size(); ++r) first[r + 1] += first[r];
            order.resize(size_t(first.back()));
            std::vector<int64_t> fill(first.begin(), first.end() - 1);
            int64_t k = 0;
            for (int64_t od = 0; od < v.D.out; ++od)
                for (int64_t oh = 0; oh < v.H.out; ++oh)
                    for (int64_t ow = 0; ow < v.W.out; ++ow, ++k)
                        if (slot_of[size_t(k)] >= 0) order[size_t(fill[size_t(slot_of[size_t(k)])]++)] = dy_offset(od, oh, ow);
            for (size_t r = 0; r < retry.size(); ++r) {
                const int64_t e = retry[r], w = e % v.W.in, h = e / v.W.in % v.H.in, d = e / v.W.in / v.H.in;
                dx[d * xs[0] + h * xs[1] + w * xs[2]] = exact_sum_of<T>([&](auto&& add) {
                    for (int64_t i = first[r]; i < first[r + 1]; ++i) add(widen(dy[order[size_t(i)]]));
                });
            }
        }
        if (acc.capacity() > (size_t(1) << 22)) acc = {};  // a large volume's buffers are not kept by the thread
        if (target.capacity() > (size_t(1) << 22)) target = {};
    });
}

}  // namespace dmlref::reference::fast
