// Fast path of the RESAMPLE family (forward and grads): every dimension but the last two is one
// tap of weight 1, so the loop runs row by row with the sums kept side by side. Internal to dmlref.
//
// It computes what resample.cpp's plain loop computes, element for element (test/test_fast_paths.cpp):
//   - an element's terms are (weight of the row's tap * weight of the column's tap) * value, the
//     weights multiplied in dimension order (the leading taps weigh exactly 1), a zero weight
//     being no term;
//   - sums go through FastSum (fast_sum.hpp); an element whose rounding FastSum cannot prove is
//     summed again by ExactSum over the same terms. Zero- and one-term elements take no sum.
// The columns' taps are laid out as slots (slot j of every column side by side, weight 0 where
// a column has fewer taps): a zero-weight slot adds +-0 (no change), or NaN for an infinite or
// NaN value, which leaves the element undecided and so summed again exactly.
#pragma once

#include "../fast_sum.hpp"
#include "../resample_taps.hpp"
#include "parallel.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace dmlref::reference::fast {

// Position p has one tap, index p, weight 1.
inline bool is_identity(const Axis& a) {
    for (size_t p = 0; p + 1 < a.first.size(); ++p)
        if (a.first[p + 1] - a.first[p] != 1 || a.taps[a.first[p]].index != p || a.taps[a.first[p]].weight != 1.0) return false;
    return true;
}

// One of the two innermost dimensions, seen by the row loop; a missing one (rank 1) is a
// single position with one tap of weight 1 and stride 0.
struct RowAxis {
    const Axis* axis = nullptr;
    Axis unit;
    int64_t src_stride = 0, dst_stride = 0;
    uint32_t positions() const { return uint32_t(axis->first.size() - 1); }
};

// Writes dst[c] = the sum over c's taps of weight * src[tap] (sums == true), or copies the one
// tap's value (sums == false, nearest neighbour forward). `axes` index src from dst's positions.
// Returns false, having written nothing, where the shape is not this path's.
template <class T>
bool resample_rows(const std::vector<Axis>& axes, const TensorView& src, const TensorView& dst, bool sums) {
    const size_t n = axes.size();
    for (size_t i = 0; i + 2 < n; ++i)
        if (!is_identity(axes[i])) return false;
    std::array<RowAxis, 2> hw;  // rows (H) and columns (W)
    for (size_t k = 0; k < 2; ++k) {
        RowAxis& r = hw[k];
        if (n + k >= 2) {
            const size_t i = n + k - 2;
            r.axis = &axes[i];
            r.src_stride = src.strides[i];
            r.dst_stride = dst.strides[i];
        } else {
            r.unit.taps = {{0, 1.0}};
            r.unit.first = {0, 1};
            r.axis = &r.unit;
        }
    }
    const Axis& H = *hw[0].axis;
    const Axis& W = *hw[1].axis;
    const uint32_t rows = hw[0].positions(), cols = hw[1].positions();

    // The leading (identity) coordinates: element offsets in src and dst.
    std::vector<std::array<int64_t, 2>> planes;
    const size_t lead = n >= 2 ? n - 2 : 0;
    {
        std::vector<uint32_t> sizes(dst.sizes().begin(), dst.sizes().begin() + lead);
        const std::array<const int64_t*, 2> strides = {src.strides.data(), dst.strides.data()};
        for_each_run<2>(sizes, strides, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t count, const std::array<int64_t, 2>& step) {
            for (int64_t i = 0; i < count; ++i) planes.push_back({off[0] + i * step[0], off[1] + i * step[1]});
        });
    }

    // Column slots: slot j of column w is its j-th tap (src offset along W and weight), or weight 0.
    uint32_t slots = 0;
    for (uint32_t w = 0; w < cols; ++w) slots = std::max(slots, W.first[w + 1] - W.first[w]);
    const uint32_t src_cols = src.sizes()[n - 1];  // the source row along the last dimension
    if (src_cols > uint32_t(INT32_MAX)) return false;  // the row gather uses 32-bit indices
    std::vector<int64_t> slot_offset(size_t(slots) * cols, 0);
    std::vector<int32_t> slot_index(size_t(slots) * cols, 0);  // the same as an index into the widened row
    std::vector<double> slot_weight(size_t(slots) * cols, 0.0);
    for (uint32_t w = 0; w < cols; ++w) {
        const uint32_t t0 = W.first[w], t1 = W.first[w + 1];
        if (t0 == t1) continue;  // no tap: offset 0 and weight 0 (such an element is not read from the slots)
        for (uint32_t j = 0; j < slots; ++j) {
            const uint32_t k = std::min(t0 + j, t1 - 1);
            slot_offset[size_t(j) * cols + w] = int64_t(W.taps[k].index) * hw[1].src_stride;
            slot_index[size_t(j) * cols + w] = int32_t(W.taps[k].index);
            slot_weight[size_t(j) * cols + w] = t0 + j < t1 ? W.taps[k].weight : 0.0;
        }
    }

    const T* s_base = src.data<T>();
    T* d_base = dst.data<T>();
    const int64_t sH = hw[0].src_stride, dH = hw[0].dst_stride, dW = hw[1].dst_stride;
    parallel_for(int64_t(planes.size()) * rows, [&](int64_t job) {
        const int64_t s_plane = planes[size_t(job / rows)][0], d_plane = planes[size_t(job / rows)][1];
        const uint32_t h = uint32_t(job % rows);
        T* out = d_base + d_plane + int64_t(h) * dH;
        const uint32_t h0 = H.first[h], h1 = H.first[h + 1];
        if (!sums) {  // nearest neighbour: one tap per dimension, a copy
            const T* row = s_base + s_plane + int64_t(H.taps[h0].index) * sH;
            for (uint32_t w = 0; w < cols; ++w) out[int64_t(w) * dW] = row[slot_offset[w]];
            return;
        }
        thread_local std::vector<double> acc;  // FastSum's s, c and b of every column, side by side; a source row widened
        acc.assign(size_t(cols) * 3 + src_cols, 0.0);
        double* S = acc.data();
        double* C = S + cols;
        double* B = C + cols;
        double* V = B + cols;
        for (uint32_t k = h0; k < h1; ++k) {
            const double wh = H.taps[k].weight;
            const T* row = s_base + s_plane + int64_t(H.taps[k].index) * sH;
            for (uint32_t i = 0; i < src_cols; ++i) V[i] = widen_fast(row[int64_t(i) * hw[1].src_stride]);
            for (uint32_t j = 0; j < slots; ++j)
                FastSum::add_gathered(S, C, B, slot_weight.data() + size_t(j) * cols, V, slot_index.data() + size_t(j) * cols, wh, cols);
        }
        for (uint32_t w = 0; w < cols; ++w) {
            if (B[w] == 0) {  // every addition exact (zero-weight slots add +-0): the common case
                out[int64_t(w) * dW] = exact_result<T>(S[w]);
                continue;
            }
            // The plain loop's terms of this element, for the one-term case and the exact retry.
            auto terms = [&](auto&& add) {
                for (uint32_t k = h0; k < h1; ++k) {
                    const T* row = s_base + s_plane + int64_t(H.taps[k].index) * sH;
                    for (uint32_t j = W.first[w]; j < W.first[w + 1]; ++j) {
                        const double weight = H.taps[k].weight * W.taps[j].weight;
                        if (weight != 0) add(weight * widen(row[int64_t(W.taps[j].index) * hw[1].src_stride]));
                    }
                }
            };
            const uint64_t count = uint64_t(h1 - h0) * (W.first[w + 1] - W.first[w]);
            T& y = out[int64_t(w) * dW];
            if (count <= 1) y = exact_sum_of<T>(terms);  // no accumulator for zero or one term
            else y = finish_sum<T>(FastSum{S[w], C[w], B[w]}, terms);
        }
    });
    return true;
}

}  // namespace dmlref::reference::fast
