// Fast path of MAX_POOLING* for two or three spatial dimensions (rank 4 or 5), and the window
// argmaxes MAX_POOLING_GRAD's (max_pooling_grad.hpp) uses: windows walked with row pointers, the
// interior windows of an output row scanned side by side, one (n, c) volume per job. Internal to dmlref.
//
// It computes what max_pooling.cpp's plain loop computes, element for element
// (test/test_fast_pooling.cpp): the same argmax (real elements in increasing logical index, a
// later one wins only when greater, NaN loses to any number), the same values and indices.
#pragma once

#include "../fast_sum.hpp"
#include "max_pooling.hpp"
#include "parallel.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace dmlref::reference::fast {

// A FLOAT16's key for beats_fast: half_order_key (ordered like the values, -0 and +0 both 0; -inf
// is -0x7c00) for a number, and below every number's for a NaN. Then x beats best exactly when
// its key is greater: a number beats a NaN, a NaN beats nothing, and numbers compare by value.
inline int32_t half_argmax_key(half h) { return is_nan(h) ? INT32_MIN : half_order_key(h); }

// max_pooling.cpp's beats(x, best), branch-free: greater, or best is NaN and x is not.
template <class T> inline bool beats_fast(T x, T best) {
    if constexpr (is_half_v<T>) return half_argmax_key(x) > half_argmax_key(best);
    else if constexpr (std::is_floating_point_v<T>) return (x > best) | ((best != best) & (x == x));
    else return x > best;
}

// The window of output (od, oh, ow) in the volume at x: the spatial index ((d * in_h + h) * in_w
// + w) of its argmax and the value, or index -1 for a window of padding only.
template <class T> struct Best {
    int64_t index;
    T value;
};
template <class T> inline Best<T> argmax_window(const Volume& v, const T* x, int64_t od, int64_t oh, int64_t ow) {
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

// The argmax of every window of output row (od, oh): index[ow] and value[ow] for ow in [0,
// W.out). Windows whose columns are all real (the interior) are scanned side by side, candidate
// by candidate in the same increasing logical order, with beats_fast's branch-free update; the
// others one by one. The scratch, W.out elements each, is held by the caller (no thread_local per row).
template <class T> struct RowScratch {
    std::vector<int64_t> index;  // the result: argmax_window's index and value of each window of the row
    std::vector<T> value;
    std::vector<T> scan_value;  // the interior scan's
    std::vector<int32_t> scan_index;
    std::vector<const T*> candidates;  // scan_windows' candidates and their spatial indices
    std::vector<int32_t> candidate_index;
    void resize(size_t n) {
        index.resize(n);
        value.resize(n);
        scan_value.resize(n);
        scan_index.resize(n);
    }
    void set(int64_t ow, const Best<T>& b) {
        index[size_t(ow)] = b.index;
        value[size_t(ow)] = b.value;
    }
};

// FLOAT32 windows side by side in vector registers (max_pooling_scan.cpp): for windows k < n,
// whose j-th candidate (j < m, in the plain loop's order) is candidates[j][k * step], step 1 or 2,
// of spatial index candidate_index[j] + k * step, the winner's value[k] and index[k], with
// beats_fast's rule. It reads candidates[j][0 .. n * step) and returns n, or 0 (nothing done)
// for fewer than 8 windows or another step.
int64_t scan_windows(const float* const* candidates, const int32_t* candidate_index, int32_t m, int64_t n, int64_t step,
                     float* value, int64_t* index);
// The same for FLOAT16, sixteen windows at a time (fewer than 16 windows, or more than INT16_MAX
// candidates: 0), comparing half_argmax_key on the bits.
int64_t scan_windows(const half* const* candidates, const int32_t* candidate_index, int32_t m, int64_t n, int64_t step,
                     half* value, int64_t* index);

// argmax_row's interior windows [a, a + n) of output row (od, oh) through scan_windows, for a
// FLOAT32 or FLOAT16 X with contiguous rows; the windows it leaves are the caller's. Returns how many it did.
template <class T>
inline int64_t argmax_row_vector(const Volume& v, const T* x, int64_t od, int64_t oh, int64_t a, int64_t n,
                                 RowScratch<T>& scratch) {
    if constexpr (!std::is_same_v<T, float> && !is_half_v<T>) {
        return 0;
    } else {
        const PoolAxis &D = v.D, &H = v.H, &W = v.W;
        const int64_t step = W.stride;
        if (v.xs_w != 1 || (step != 1 && step != 2)) return 0;
        // Only windows whose reads (step - 1 past their last candidate) stay inside the row.
        const int64_t last = W.position(a, W.size - 1), room = W.in - last - step;
        n = room < 0 ? 0 : std::min(n, room / step + 1);
        if (n < 8) return 0;
        std::vector<const T*>& c = scratch.candidates;
        std::vector<int32_t>& ci = scratch.candidate_index;
        c.clear();
        ci.clear();
        for (int64_t kd = D.lo[size_t(od)]; kd < D.hi[size_t(od)]; ++kd)
            for (int64_t kh = H.lo[size_t(oh)]; kh < H.hi[size_t(oh)]; ++kh) {
                const int64_t pd = D.position(od, kd), ph = H.position(oh, kh);
                for (int64_t kw = 0; kw < W.size; ++kw) {
                    const int64_t p0 = W.position(a, kw);
                    c.push_back(x + pd * v.xs_d + ph * v.xs_h + p0);
                    ci.push_back(int32_t((pd * H.in + ph) * W.in + p0));  // < v.in() <= INT32_MAX (argmax_row)
                }
            }
        if (c.size() > size_t(INT32_MAX)) return 0;
        if (oh + 1 < H.out)  // the next output row's rows, on their way to the cache while this one is scanned
            for (int64_t kh = H.lo[size_t(oh + 1)]; kh < H.hi[size_t(oh + 1)]; ++kh) {
                const T* r = x + D.position(od, D.lo[size_t(od)]) * v.xs_d + H.position(oh + 1, kh) * v.xs_h;
                for (int64_t w = 0; w < W.in; w += 64 / int64_t(sizeof(T))) __builtin_prefetch(r + w);
            }
        return scan_windows(c.data(), ci.data(), int32_t(c.size()), n, step, scratch.value.data() + a,
                            scratch.index.data() + a);
    }
}

template <class T> inline void argmax_row(const Volume& v, const T* x, int64_t od, int64_t oh, RowScratch<T>& scratch) {
    const PoolAxis &D = v.D, &H = v.H, &W = v.W;
    const int64_t dl = D.lo[size_t(od)], dh = D.hi[size_t(od)], hl = H.lo[size_t(oh)], hh = H.hi[size_t(oh)];
    int64_t a = W.interior_begin, b = W.interior_end;  // the interior: a full window of real columns
    if (dl == dh || hl == hh || v.in() > int64_t(INT32_MAX)) a = b;
    for (int64_t ow = 0; ow < a; ++ow) scratch.set(ow, argmax_window(v, x, od, oh, ow));
    for (int64_t ow = std::max(a, b); ow < W.out; ++ow) scratch.set(ow, argmax_window(v, x, od, oh, ow));
    if (a == b) return;
    if (const int64_t done = argmax_row_vector(v, x, od, oh, a, b - a, scratch)) {  // FLOAT32, FLOAT16: vectors
        for (int64_t ow = a + done; ow < b; ++ow) scratch.set(ow, argmax_window(v, x, od, oh, ow));
        return;
    }
    T* __restrict bv = scratch.scan_value.data();
    int32_t* __restrict bi =
        scratch.scan_index.data();  // the winning candidate's index for window 0; window k's is k * stride more
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
                        for (int64_t k = 0; k < n; ++k) {
                            bv[k] = c[k * s];
                            bi[k] = i0;
                        }
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
    for (int64_t k = 0; k < n; ++k) {
        scratch.index[size_t(a + k)] = int64_t(bi[k]) + k * W.stride;
        scratch.value[size_t(a + k)] = bv[k];
    }
}

// The element strides of a rank 4 or 5 tensor along depth (0 for rank 4), rows and columns.
inline std::array<int64_t, 3> spatial_strides(const TensorView& t) {
    const std::vector<int64_t>& s = t.strides;
    return s.size() == 5 ? std::array<int64_t, 3>{s[2], s[3], s[4]} : std::array<int64_t, 3>{0, s[2], s[3]};
}

// X, the pooled tensor P and (optionally) the indices, all of P's rank with sizes {N, C, [OD,] OH, OW}.
template <class T>
void max_pool_fast(const Volume& v, const TensorView& X, const TensorView& Y, const std::optional<TensorView>& I,
                   bool wide_indices) {
    const int64_t N = Y.sizes()[0], Cn = Y.sizes()[1];
    const auto ys = spatial_strides(Y);
    const auto is = I ? spatial_strides(*I) : std::array<int64_t, 3>{};
    parallel_for(N * Cn, [&](int64_t plane) {
        const int64_t n = plane / Cn, c = plane % Cn;
        const T* x = X.data<T>() + n * X.strides[0] + c * X.strides[1];
        T* y = Y.data<T>() + n * Y.strides[0] + c * Y.strides[1];
        thread_local RowScratch<T> scratch;
        RowScratch<T>& row = tls_once(scratch);
        row.resize(size_t(v.W.out));
        // The indices' plane, and the strides in locals: the stores below cannot move them.
        uint64_t* const i64 = I && wide_indices ? I->data<uint64_t>() + n * I->strides[0] + c * I->strides[1] : nullptr;
        uint32_t* const i32 = I && !wide_indices ? I->data<uint32_t>() + n * I->strides[0] + c * I->strides[1]
                                                 : nullptr;
        const int64_t y_step = ys[2], i_step = is[2], W_out = v.W.out;
        const uint64_t first = uint64_t(plane) * uint64_t(v.in());  // the plane's first element's index
        for (int64_t od = 0; od < v.D.out; ++od)
            for (int64_t oh = 0; oh < v.H.out; ++oh) {
                argmax_row(v, x, od, oh, row);
                const int64_t* __restrict index = row.index.data();
                const T* __restrict value = row.value.data();
                T* __restrict y_row = y + od * ys[0] + oh * ys[1];
                // An empty window's value is +0 and its index 0; indices are < 2^32 where UINT32
                // (element counts are). Contiguous rows get loops of their own, vectorised.
                auto write = [&](auto* out, int64_t step, auto&& f) {
                    if (step == 1)
                        for (int64_t ow = 0; ow < W_out; ++ow) out[ow] = f(ow);
                    else
                        for (int64_t ow = 0; ow < W_out; ++ow) out[ow * step] = f(ow);
                };
                write(y_row, y_step, [&](int64_t ow) { return index[ow] < 0 ? T(0) : value[ow]; });
                const int64_t at = od * is[0] + oh * is[1];
                auto index_of = [&](int64_t ow) { return index[ow] < 0 ? 0 : first + uint64_t(index[ow]); };
                if (i64) write(i64 + at, i_step, index_of);
                if (i32) write(i32 + at, i_step, [&](int64_t ow) { return uint32_t(index_of(ow)); });
            }
    });
}

}  // namespace dmlref::reference::fast
