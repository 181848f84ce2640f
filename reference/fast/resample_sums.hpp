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
#include <optional>
#include <vector>

namespace dmlref::reference::fast {

// Position p has one tap, index p, weight 1.
inline bool is_identity(const Axis& a) {
    for (size_t p = 0; p + 1 < a.first.size(); ++p)
        if (a.first[p + 1] - a.first[p] != 1 || a.taps[a.first[p]].index != p || a.taps[a.first[p]].weight != 1.0)
            return false;
    return true;
}

// Where slot j's source index follows a pattern over the columns [begin, end), it is read with
// plain loads instead of a gather: index = first + step * (w - begin) with step 1 or 2 (a row
// resampled by 1, or the inverse taps of a row upsampled by 2), or step kHalved: index = first +
// (w - begin) / 2 with begin even from the pattern's start (a row upsampled by 2). Columns
// outside [begin, end) are gathered.
constexpr int kHalved = -2;
struct SlotRun {
    uint32_t begin = 0, end = 0;
    int32_t first = 0;
    int step = 1;
};
inline std::vector<SlotRun> slot_runs(const std::vector<int32_t>& index, uint32_t slots, uint32_t cols) {
    std::vector<SlotRun> runs(slots);
    if (cols < 8) return runs;  // too short to matter: all gathered
    for (uint32_t j = 0; j < slots; ++j) {
        const int32_t* x = index.data() + size_t(j) * cols;
        const uint32_t c = cols / 2;
        SlotRun best;
        const int64_t step = int64_t(x[c + 1]) - x[c];
        if (step == 1 || step == 2) {
            uint32_t b = c, e = c + 1;
            while (b > 0 && int64_t(x[b - 1]) == int64_t(x[b]) - step) --b;
            while (e < cols && int64_t(x[e]) == int64_t(x[e - 1]) + step) ++e;
            best = {b, e, x[b], int(step)};
        }
        const uint32_t h = x[c] == x[c + 1] ? c : c + 1;  // a pair (h, h + 1) sharing an index?
        if (h + 2 < cols && x[h] == x[h + 1]) {
            uint32_t b = h, e = h + 2;
            while (b >= 2 && int64_t(x[b - 2]) == int64_t(x[b]) - 1 && x[b - 1] == x[b - 2]) b -= 2;
            while (e + 1 < cols && int64_t(x[e]) == int64_t(x[e - 1]) + 1 && x[e + 1] == x[e]) e += 2;
            if (e - b > best.end - best.begin) best = {b, e, x[b], kHalved};
        }
        runs[j] = best;
    }
    return runs;
}

// Column w of output row h from its FastSum s, c, b: proved (narrow_rounded for FLOAT32 and
// FLOAT16, every addition exact otherwise) or summed exactly over the plain loop's terms.
// Zero- and one-term columns take exact_sum_of.
template <class T>
void finish_column(const Axis& H, const Axis& W, const T* src, int64_t sH, int64_t sW, uint32_t h, uint32_t w, double S,
                   double C, double B, T& y) {
    if constexpr (is_narrow_v<T>) {
        if (narrow_rounded<T>(S, C, B, y)) return;
    } else {
        if (B == 0) {
            y = exact_result<T>(S);
            return;
        }  // every addition exact: the common case
    }
    const uint32_t h0 = H.first[h], h1 = H.first[h + 1];
    // The plain loop's terms of this element, for the one-term case and the exact retry.
    auto terms = [&](auto&& add) {
        for (uint32_t k = h0; k < h1; ++k) {
            const T* row = src + int64_t(H.taps[k].index) * sH;
            for (uint32_t j = W.first[w]; j < W.first[w + 1]; ++j) {
                const double weight = H.taps[k].weight * W.taps[j].weight;
                if (weight != 0) add(weight * widen(row[int64_t(W.taps[j].index) * sW]));
            }
        }
    };
    const uint64_t count = uint64_t(h1 - h0) * (W.first[w + 1] - W.first[w]);
    if (count <= 1 || is_narrow_v<T>) y = exact_sum_of<T>(terms);
    else y = finish_sum<T>(FastSum{S, C, B}, terms);
}

// One output row of a resample sum: for each chunk of columns, a table of every term (row tap x
// column slot; plain loads where the slot's index is affine or halved, a gather elsewhere), added
// column by column (FastSum::add_tables). A source row is read in place (FLOAT32 along a
// contiguous last dimension) or the part the chunk reads is widened first. Each column's result
// is then proved or, where not, summed exactly over the plain loop's terms (finish_column).
// Memory per thread: three doubles per column, one widened row, and a table of at most
// max(2^16, q) doubles for q terms per element (the chunk narrows as q grows).
template <class T>
void sum_row(const Axis& H, const Axis& W, const std::vector<SlotRun>& runs, const std::vector<int32_t>& slot_index,
             const std::vector<double>& slot_weight, const T* src, int64_t sH, int64_t sW, uint32_t src_cols,
             uint32_t h, T* out, int64_t dW) {
    const uint32_t cols = uint32_t(W.first.size() - 1), slots = uint32_t(runs.size());
    const uint32_t h0 = H.first[h], h1 = H.first[h + 1], rows = h1 - h0;
    const size_t q = size_t(rows) * slots;
    const uint32_t kChunk = uint32_t(std::clamp<size_t>((size_t(1) << 16) / std::max<size_t>(q, 1), 1, 256));
    thread_local std::vector<double> acc;  // s, c, b of every column; a widened source row; the term table
    const size_t need = size_t(cols) * 3 + src_cols + q * kChunk;
    if (acc.size() < need) acc.resize(need);
    double* S = acc.data();
    double* C = S + cols;
    double* B = C + cols;
    double* V = B + cols;
    double* table = V + src_cols;
    // FLOAT32 rows along a contiguous last dimension are read in place; others are widened first.
    constexpr bool in_place = std::is_same_v<T, float>;
    const bool widened = !in_place || sW != 1;
    auto add_terms = [&](double* t, const double* wt, const int32_t* ix, double wh, uint32_t k, const SlotRun& run,
                         uint32_t a, uint32_t e, uint32_t c0, uint32_t c1) {
        auto go = [&](const auto* v) {  // [c0, c1) split into gathered, patterned, gathered parts
            if (run.step == kHalved) {  // whole pairs only
                if ((a - run.begin) & 1) a = std::min(a + 1, e);
                e -= (e - a) & 1;
            }
            FastSum::terms_gathered(t, wt + c0, v, ix + c0, wh, a - c0);
            if (e > a && run.step == kHalved)
                FastSum::terms_halved(t + (a - c0), wt + a, v + run.first + (a - run.begin) / 2, wh, (e - a) / 2);
            else if (e > a)
                FastSum::terms_strided(t + (a - c0), wt + a, v + run.first + int64_t(a - run.begin) * run.step,
                                       run.step, wh, e - a);
            FastSum::terms_gathered(t + (e - c0), wt + e, v, ix + e, wh, c1 - e);
        };
        if constexpr (in_place)
            if (sW == 1) return go(src + int64_t(H.taps[h0 + k].index) * sH);
        go(static_cast<const double*>(V));
    };
    for (uint32_t c0 = 0; c0 < cols; c0 += kChunk) {
        const uint32_t n = std::min(kChunk, cols - c0);
        if (q == 0) {
            std::fill(S + c0, S + c0 + n, 0.0);
            std::fill(C + c0, C + c0 + n, 0.0);
            std::fill(B + c0, B + c0 + n, 0.0);
            continue;
        }
        int32_t lo = INT32_MAX, hi = -1;  // the source columns this chunk reads
        if (widened)
            for (uint32_t j = 0; j < slots; ++j)
                for (uint32_t w = c0; w < c0 + n; ++w) {
                    lo = std::min(lo, slot_index[size_t(j) * cols + w]);
                    hi = std::max(hi, slot_index[size_t(j) * cols + w]);
                }
        for (uint32_t k = 0; k < rows; ++k) {
            const double wh = H.taps[h0 + k].weight;
            if (widened) {
                const T* row = src + int64_t(H.taps[h0 + k].index) * sH;
                for (int32_t i = lo; i <= hi; ++i) V[i] = widen_fast(row[int64_t(i) * sW]);
            }
            for (uint32_t j = 0; j < slots; ++j) {
                const uint32_t a = std::clamp(runs[j].begin, c0, c0 + n), e = std::clamp(runs[j].end, a, c0 + n);
                add_terms(table + (size_t(k) * slots + j) * kChunk, slot_weight.data() + size_t(j) * cols,
                          slot_index.data() + size_t(j) * cols, wh, k, runs[j], a, e, c0, c0 + n);
            }
        }
        FastSum::add_tables(S + c0, C + c0, B + c0, table, q, kChunk, n);
    }
    if constexpr (std::is_same_v<T, float>)
        if (FastSum::narrow_floats(S, C, B, out, dW, cols)) return;
    for (uint32_t w = 0; w < cols; ++w)
        finish_column<T>(H, W, src, sH, sW, h, w, S[w], C[w], B[w], out[int64_t(w) * dW]);
}

// The element offsets (in src and in dst) of every position of the leading dimensions (all but
// the last two), in dst's logical order.
inline std::vector<std::array<int64_t, 2>> leading_planes(const TensorView& src, const TensorView& dst, size_t rank) {
    std::vector<std::array<int64_t, 2>> planes;
    const size_t lead = rank >= 2 ? rank - 2 : 0;
    std::vector<uint32_t> sizes(dst.sizes().begin(), dst.sizes().begin() + lead);
    const std::array<const int64_t*, 2> strides = {src.strides.data(), dst.strides.data()};
    for_each_run<2>(sizes, strides, {0, 0},
                    [&](const std::array<int64_t, 2>& off, int64_t count, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < count; ++i) planes.push_back({off[0] + i * step[0], off[1] + i * step[1]});
    });
    return planes;
}

// The row loop's view of a resample: the two innermost dimensions' taps (H: rows, W: columns),
// the leading (identity) coordinates as element offsets of src and dst, and the columns' slots.
struct RowPlan {
    Axis H, W;  // a missing dimension (rank 1): one position, one tap of weight 1
    uint32_t rows = 0, cols = 0, slots = 0, src_cols = 0;
    int64_t sH = 0, sW = 0, dH = 0, dW = 0;      // element strides along H and W
    std::vector<std::array<int64_t, 2>> planes;  // src and dst offsets of each leading coordinate
    // Slot j of column w (index j * cols + w): its j-th tap (src offset along W, index and
    // weight), or weight 0 (and the last tap's index) where the column has fewer taps.
    std::vector<int64_t> slot_offset;
    std::vector<int32_t> slot_index;
    std::vector<double> slot_weight;
    std::vector<SlotRun> runs;
};

// The plan of a resample whose leading dimensions are all identities; nullopt otherwise.
inline std::optional<RowPlan> row_plan(const std::vector<Axis>& axes, const TensorView& src, const TensorView& dst) {
    const size_t n = axes.size();
    for (size_t i = 0; i + 2 < n; ++i)
        if (!is_identity(axes[i])) return std::nullopt;
    RowPlan p;
    Axis unit;
    unit.taps = {{0, 1.0}};
    unit.first = {0, 1};
    p.H = n >= 2 ? axes[n - 2] : unit;
    p.W = axes[n - 1];
    if (n >= 2) {
        p.sH = src.strides[n - 2];
        p.dH = dst.strides[n - 2];
    }
    p.sW = src.strides[n - 1];
    p.dW = dst.strides[n - 1];
    p.rows = uint32_t(p.H.first.size() - 1);
    p.cols = uint32_t(p.W.first.size() - 1);
    p.src_cols = src.sizes()[n - 1];                            // the source row along the last dimension
    if (p.src_cols > uint32_t(INT32_MAX)) return std::nullopt;  // the row gather uses 32-bit indices
    p.planes = leading_planes(src, dst, n);
    const Axis& W = p.W;
    const uint32_t cols = p.cols;
    for (uint32_t w = 0; w < cols; ++w) p.slots = std::max(p.slots, W.first[w + 1] - W.first[w]);
    p.slot_offset.assign(size_t(p.slots) * cols, 0);
    p.slot_index.assign(size_t(p.slots) * cols, 0);
    p.slot_weight.assign(size_t(p.slots) * cols, 0.0);
    for (uint32_t w = 0; w < cols; ++w) {
        const uint32_t t0 = W.first[w], t1 = W.first[w + 1];
        if (t0 == t1) continue;  // no tap: offset 0 and weight 0 (such an element is not read from the slots)
        for (uint32_t j = 0; j < p.slots; ++j) {
            const uint32_t k = std::min(t0 + j, t1 - 1);
            p.slot_offset[size_t(j) * cols + w] = int64_t(W.taps[k].index) * p.sW;
            p.slot_index[size_t(j) * cols + w] = int32_t(W.taps[k].index);
            p.slot_weight[size_t(j) * cols + w] = t0 + j < t1 ? W.taps[k].weight : 0.0;
        }
    }
    p.runs = slot_runs(p.slot_index, p.slots, cols);
    return p;
}

// Writes dst[c] = the sum over c's taps of weight * src[tap] (sums == true), or copies the one
// tap's value (sums == false, nearest neighbour forward), row by row.
template <class T> void row_loop(const RowPlan& p, const TensorView& src, const TensorView& dst, bool sums) {
    const T* s_base = src.data<T>();
    T* d_base = dst.data<T>();
    const uint32_t rows = p.rows;
    parallel_for(int64_t(p.planes.size()) * rows, [&](int64_t job) {
        const int64_t s_plane = p.planes[size_t(job / rows)][0], d_plane = p.planes[size_t(job / rows)][1];
        const uint32_t h = uint32_t(job % rows);
        T* out = d_base + d_plane + int64_t(h) * p.dH;
        if (!sums) {  // nearest neighbour: one tap per dimension, a copy
            const T* row = s_base + s_plane + int64_t(p.H.taps[p.H.first[h]].index) * p.sH;
            const int64_t* offset = p.slot_offset.data();
            const uint32_t cols = p.cols;
            const int64_t dW = p.dW;
            for (uint32_t w = 0; w < cols; ++w) out[int64_t(w) * dW] = row[offset[w]];
            return;
        }
        sum_row<T>(p.H, p.W, p.runs, p.slot_index, p.slot_weight, s_base + s_plane, p.sH, p.sW, p.src_cols, h, out,
                   p.dW);
    });
}

}  // namespace dmlref::reference::fast
