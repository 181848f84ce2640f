// RESAMPLE fast path for at most 2 x 2 taps per output (LINEAR): one fused loop per row. Internal to dmlref.
//
// Every LINEAR forward resample fits, and a grad whose inputs are each read by at most two
// outputs per axis (a downsampling's); other sums take fast/resample_sums.hpp's row tables.
//
// It computes what resample.cpp's plain loop computes, element for element (test/test_fast_resample_linear.cpp):
//   - output (h, w) reads the source rows of H's taps (index i0, i1, weight a0, a1; a row of one
//     tap has i1 = i0, a1 = 0) at W's slots (fast/resample_sums.hpp: index and weight c0[w],
//     c1[w]; a missing slot weighs 0). Its terms are (a_k * c_j[w]) * value, as the plain loop
//     forms them (weights multiplied in dimension order, the leading taps weighing exactly 1);
//     a zero-weight term adds +-0 (no change), or NaN for an infinite or NaN value;
//   - the four terms are added left to right by TwoSum (fast_sum.hpp). When every TwoSum error is
//     0, every addition was exact, every term finite and nothing overflowed: the sum is s itself
//     and is rounded once to T (exact_result, FastSum's b == 0 case; a NaN anywhere makes an
//     error NaN). Any other output (rare for finite data: its terms span more than 53 bits) takes
//     FastSum over the same four terms and finish_column: proved, or summed exactly over the plain
//     loop's terms;
//   - the values a slot reads are laid out once per source row and job (an "expanded row": slot
//     j's value of every column, widened to float64, with plain loads where the slot's index is
//     affine or halved, a gather elsewhere), so that the loop reads only contiguous arrays.
#pragma once

#include "resample_sums.hpp"

namespace dmlref::reference::fast {

// The four terms of one output added left to right from the first: the sum s; `inexact` is
// nonzero when an addition was not exact (a NaN, an infinity or an overflow included). The same
// inline code in the vectorised loops and in the scalar retry.
inline double linear_sum(double a0, double a1, double c0, double c1, double v00, double v01, double v10, double v11,
                         uint64_t& inexact) {
    const double t[3] = {(a0 * c1) * v01, (a1 * c0) * v10, (a1 * c1) * v11};
    double s = (a0 * c0) * v00;
    uint64_t bad = 0;  // 64-bit like the doubles: one mask lane per column, no packing
    for (const double x : t) bad |= uint64_t(two_sum(s, x, s) != 0);
    inexact = bad;
    return s;
}

// Over columns k < n (resample_linear.cpp, vectorised): out[k] = the sum of the terms
// (a0 * c0[k]) * e00[k], (a0 * c1[k]) * e01[k], (a1 * c0[k]) * e10[k], (a1 * c1[k]) * e11[k]
// (linear_sum) rounded to float, or the float64 sum s + 0. True when every addition of every
// column was exact; otherwise the inexact columns' out must be recomputed.
bool linear_sums(float* out, const double* e00, const double* e01, const double* e10, const double* e11,
                 const double* c0, const double* c1, double a0, double a1, size_t n);
bool linear_sums(double* out, const double* e00, const double* e01, const double* e10, const double* e11,
                 const double* c0, const double* c1, double a0, double a1, size_t n);
// out[2i] = out[2i + 1] = v[i] for i < pairs (a row upsampled by 2); out[i] = v[step * i] for i < n.
void expand_pairs(double* out, const float* v, size_t pairs);
void expand_pairs(double* out, const double* v, size_t pairs);
void expand_strided(double* out, const float* v, int step, size_t n);
void expand_strided(double* out, const double* v, int step, size_t n);

// out[w] = v[index[w]] for w < cols, with plain loads inside the slot's run (slot_runs).
template <class V> void expand_slot(double* out, const V* v, const int32_t* index, const SlotRun& run, uint32_t cols) {
    const uint32_t a = run.begin, e = run.end;  // a halved run holds whole pairs
    for (uint32_t w = 0; w < a; ++w) out[w] = double(v[index[w]]);
    if (e > a && run.step == kHalved) expand_pairs(out + a, v + run.first, (e - a) / 2);
    else if (e > a) expand_strided(out + a, v + run.first, run.step, e - a);
    for (uint32_t w = e; w < cols; ++w) out[w] = double(v[index[w]]);
}

// Evaluates the plan's sums when every row and column has at most two taps; false, having
// written nothing, otherwise. Jobs are blocks of output rows of one plane; in a job each
// source row is expanded once (four cached). Memory per thread: 8 + 1 doubles per column and
// one widened source row.
template <class T> bool linear_rows(const RowPlan& p, const TensorView& src, const TensorView& dst) {
    if (p.slots == 0 || p.slots > 2 || p.cols == 0) return false;
    for (uint32_t h = 0; h < p.rows; ++h)
        if (p.H.first[h + 1] - p.H.first[h] > 2) return false;
    constexpr uint32_t kBlock = 16, kCached = 4;
    const uint32_t rows = p.rows, cols = p.cols, blocks = (rows + kBlock - 1) / kBlock, src_cols = p.src_cols;
    const int64_t sW = p.sW, dW = p.dW;
    const std::vector<double> zeros(cols, 0.0);
    const double* c0 = p.slot_weight.data();
    const double* c1 = p.slots == 2 ? c0 + cols : zeros.data();
    const T* s_base = src.data<T>();
    T* d_base = dst.data<T>();
    // FLOAT32 rows along a contiguous last dimension are expanded in place; others widened first.
    constexpr bool is_float = std::is_same_v<T, float>;
    const bool widened = !is_float || p.sW != 1;
    parallel_for(int64_t(p.planes.size()) * blocks, [&](int64_t job) {
        const T* plane = s_base + p.planes[size_t(job / blocks)][0];
        T* d_plane = d_base + p.planes[size_t(job / blocks)][1];
        const uint32_t h_begin = uint32_t(job % blocks) * kBlock, h_end = std::min(h_begin + kBlock, rows);
        thread_local std::vector<double>
            buf;  // kCached expanded rows (p.slots x cols each); a widened row; a float64 row
        const size_t need = kCached * size_t(p.slots) * cols + p.src_cols + cols;
        if (buf.size() < need) buf.resize(need);
        double* V = buf.data() + kCached * size_t(p.slots) * cols;
        double* D = V + p.src_cols;
        thread_local std::vector<float> F;  // FLOAT32 output along a strided last dimension
        if constexpr (is_float)
            if (p.dW != 1 && F.size() < cols) F.resize(cols);
        int64_t key[kCached] = {-1, -1, -1, -1};
        uint64_t used[kCached] = {}, clock = 0;
        // The expanded source row i (slot j at + j * cols), not evicting entry `keep`.
        auto expanded = [&](uint32_t i, int keep) -> int {
            int victim = keep == 0 ? 1 : 0;
            for (int k = 0; k < int(kCached); ++k) {
                if (key[k] == int64_t(i)) {
                    used[k] = ++clock;
                    return k;
                }
                if (k != keep && used[k] < used[victim]) victim = k;
            }
            double* e = buf.data() + size_t(victim) * p.slots * cols;
            const T* row = plane + int64_t(i) * p.sH;
            for (uint32_t j = 0; j < p.slots; ++j) {
                const int32_t* index = p.slot_index.data() + size_t(j) * cols;
                if (!widened) {
                    if constexpr (is_float) expand_slot(e + size_t(j) * cols, row, index, p.runs[j], cols);
                } else {
                    if (j == 0)
                        for (uint32_t x = 0; x < src_cols; ++x) V[x] = widen_fast(row[int64_t(x) * sW]);
                    expand_slot(e + size_t(j) * cols, static_cast<const double*>(V), index, p.runs[j], cols);
                }
            }
            key[victim] = i;
            used[victim] = ++clock;
            return victim;
        };
        for (uint32_t h = h_begin; h < h_end; ++h) {
            const uint32_t t0 = p.H.first[h], n = p.H.first[h + 1] - t0;
            T* out = d_plane + int64_t(h) * p.dH;
            if (n == 0) {  // no source row: every output is the empty sum
                sum_row<T>(p.H, p.W, p.runs, p.slot_index, p.slot_weight, plane, p.sH, p.sW, p.src_cols, h, out, p.dW);
                continue;
            }
            const Tap r0 = p.H.taps[t0], r1 = n == 2 ? p.H.taps[t0 + 1] : Tap{r0.index, 0.0};
            const int k0 = expanded(r0.index, -1);
            const double* e0 = buf.data() + size_t(k0) * p.slots * cols;
            const double* e1 = buf.data() + size_t(expanded(r1.index, k0)) * p.slots * cols;
            const double* e01 = p.slots == 2 ? e0 + cols : e0;
            const double* e11 = p.slots == 2 ? e1 + cols : e1;
            bool exact;
            if constexpr (is_float) {
                float* o = dW == 1 ? out : F.data();
                exact = linear_sums(o, e0, e01, e1, e11, c0, c1, r0.weight, r1.weight, cols);
                if (dW != 1)
                    for (uint32_t w = 0; w < cols; ++w) out[int64_t(w) * dW] = o[w];
            } else {
                exact = linear_sums(D, e0, e01, e1, e11, c0, c1, r0.weight, r1.weight, cols);
                if (exact)
                    for (uint32_t w = 0; w < cols; ++w) out[int64_t(w) * dW] = exact_result<T>(D[w]);
            }
            if (exact) continue;
            for (uint32_t w = 0; w < cols; ++w) {  // the same sums again, one by one
                uint64_t inexact;
                const double s = linear_sum(r0.weight, r1.weight, c0[w], c1[w], e0[w], e01[w], e1[w], e11[w], inexact);
                T& y = out[int64_t(w) * dW];
                if (!inexact) {
                    y = exact_result<T>(s);
                    continue;
                }
                FastSum f;
                f.add((r0.weight * c0[w]) * e0[w]);
                f.add((r0.weight * c1[w]) * e01[w]);
                f.add((r1.weight * c0[w]) * e1[w]);
                f.add((r1.weight * c1[w]) * e11[w]);
                finish_column<T>(p.H, p.W, plane, p.sH, p.sW, h, w, f.s, f.c, f.b, y);
            }
        }
    });
    return true;
}

// Writes dst[c] = the sum over c's taps of weight * src[tap] (sums == true), or copies the one
// tap's value (sums == false, nearest neighbour forward). Returns false, having written
// nothing, where the shape is not the row loops' (a leading dimension that is not an identity).
template <class T>
bool resample_rows(const std::vector<Axis>& axes, const TensorView& src, const TensorView& dst, bool sums) {
    const std::optional<RowPlan> plan = row_plan(axes, src, dst);
    if (!plan) return false;
    if (sums && linear_rows<T>(*plan, src, dst)) return true;
    row_loop<T>(*plan, src, dst, sums);
    return true;
}

}  // namespace dmlref::reference::fast
