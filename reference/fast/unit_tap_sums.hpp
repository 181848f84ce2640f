// Fast path of the RESAMPLE grads where every tap weighs 1 (nearest neighbour, FLOAT32 and
// FLOAT16): each dX element is the plain sum of a block of dY, added in float64 row by row with
// every addition checked exact. Internal to dmlref.
//
// It computes what resample.cpp's plain loop computes, element for element (test/test_fast_unit_taps.cpp):
//   - a term is weight * value with both weights 1, so the value itself, widened exactly;
//   - an element whose additions were all exact holds its exact sum in float64 (+0 for no term
//     or cancelling terms, the accumulator starting at +0), which exact_result rounds once, as
//     ExactSum would;
//   - any other element (an inexact addition, or an infinity or NaN, which make the recorded
//     error NaN) is summed again by exact_sum_of over the plain loop's terms.
// Columns of two taps at 2w + base (a row upsampled by 2, the common case) are read in pairs by
// one vectorised loop (unit_tap_sums.cpp, cloned for AVX-512 and AVX2; FLOAT16 through F16C,
// half_rows.hpp); other columns one by one.
#pragma once

#include "../fast_sum.hpp"
#include "../resample_taps.hpp"
#include "half_rows.hpp"
#include "parallel.hpp"
#include "resample_sums.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

namespace dmlref::reference::fast {

// s += t, with |the addition's rounding error| added to err (NaN for an infinity or NaN term).
inline void add_checked(double& s, double& err, double t) { err += std::fabs(two_sum(s, t, s)); }

// acc[i] += row[2i] + row[2i + 1] for i < n, every addition checked as add_checked does (FLOAT16
// rows come widened to FLOAT32).
void add_pairs(double* __restrict acc, double* __restrict err, const float* __restrict row, size_t n);

// out[i] = the rounding of a[2i] + a[2i + 1] + b[2i] + b[2i + 1] (to float64, then to T) where
// the additions are exact; returns whether all were (false for an infinity or NaN too), or else
// the caller sums the row again. For FLOAT16 every such float64 sum of finite terms is exact
// (half_rows.hpp's sum_half_quads).
bool sum_quads(float* __restrict out, const float* __restrict a, const float* __restrict b, size_t n);
inline bool sum_quads(half* __restrict out, const half* __restrict a, const half* __restrict b, size_t n) {
    return sum_half_quads(out, a, b, n);
}

// dst[e] = the sum of src over e's taps, where every dimension but the last two is the identity,
// every tap of the last two weighs 1, each column's taps are consecutive source columns and src's
// rows are contiguous. Returns false, having written nothing, where the shape is not this path's.
template <class T> bool unit_tap_sums(const std::vector<Axis>& axes, const TensorView& src, const TensorView& dst) {
    if constexpr (!std::is_same_v<T, float> && !is_half_v<T>) {
        return false;
    } else {
        const size_t n = axes.size();
        if (n < 2 || src.strides[n - 1] != 1) return false;
        for (size_t i = 0; i + 2 < n; ++i)
            if (!is_identity(axes[i])) return false;
        const Axis &H = axes[n - 2], &W = axes[n - 1];
        for (const Axis* a : {&H, &W})
            for (const Tap& t : a->taps)
                if (t.weight != 1.0) return false;
        const uint32_t rows = uint32_t(H.first.size() - 1), cols = uint32_t(W.first.size() - 1);
        for (uint32_t w = 0; w < cols; ++w)
            for (uint32_t j = W.first[w]; j + 1 < W.first[w + 1]; ++j)
                if (W.taps[j + 1].index != W.taps[j].index + 1) return false;
        // The paired columns [pa, pb): the first run of columns of two taps each, the first at 2w + pair_base.
        auto two_taps = [&](uint32_t w) { return W.first[w + 1] - W.first[w] == 2; };  // (else no first tap to read)
        auto first_tap = [&](uint32_t w) { return int64_t(W.taps[W.first[w]].index) - 2 * int64_t(w); };
        uint32_t pa = 0;
        while (pa < cols && !two_taps(pa)) ++pa;
        const int64_t pair_base = pa < cols ? first_tap(pa) : 0;
        uint32_t pb = pa < cols ? pa + 1 : pa;
        while (pb < cols && two_taps(pb) && first_tap(pb) == pair_base) ++pb;

        const auto planes = leading_planes(src, dst, n);
        const int64_t sH = src.strides[n - 2], dH = dst.strides[n - 2], dW = dst.strides[n - 1];
        const int64_t src_cols = src.sizes()[n - 1];  // every tap of W reads below it
        const T* s_base = src.data<T>();
        T* d_base = dst.data<T>();
        parallel_for(int64_t(planes.size()) * rows, [&](int64_t job) {
            const T* plane = s_base + planes[size_t(job / rows)][0];
            const uint32_t h = uint32_t(job % rows);
            T* out = d_base + planes[size_t(job / rows)][1] + int64_t(h) * dH;
            const uint32_t h0 = H.first[h], h1 = H.first[h + 1];
            // One element from its taps: float64 additions checked exact, else summed again exactly.
            auto one = [&](uint32_t w) {
                double s = 0, e = 0;
                for (uint32_t k = h0; k < h1; ++k)
                    for (uint32_t j = W.first[w]; j < W.first[w + 1]; ++j)
                        add_checked(s, e, widen_fast(plane[int64_t(H.taps[k].index) * sH + W.taps[j].index]));
                out[int64_t(w) * dW] =
                    e == 0 ? exact_result<T>(s) : exact_sum_of<T>([&](auto&& add) {  // the plain loop's terms
                        for (uint32_t k = h0; k < h1; ++k)
                            for (uint32_t j = W.first[w]; j < W.first[w + 1]; ++j)
                                add(H.taps[k].weight * W.taps[j].weight *
                                    widen(plane[int64_t(H.taps[k].index) * sH + W.taps[j].index]));
                    });
            };
            if (h1 - h0 == 2 && dW == 1 && pa < pb) {  // two rows of pairs: each element's four terms in registers
                const T* r0 = plane + int64_t(H.taps[h0].index) * sH + pair_base + 2 * int64_t(pa);
                const T* r1 = plane + int64_t(H.taps[h0 + 1].index) * sH + pair_base + 2 * int64_t(pa);
                const bool exact = sum_quads(out + pa, r0, r1, pb - pa);
                const uint32_t a = pa, b = pb;  // local copies: one() stores through out
                for (uint32_t w = 0; w < a; ++w) one(w);
                for (uint32_t w = b; w < cols; ++w) one(w);
                if (!exact)
                    for (uint32_t w = a; w < b; ++w) one(w);
                return;
            }
            thread_local std::vector<double> acc_buffer, err_buffer;
            std::vector<double>& acc_vector = tls_once(acc_buffer);
            std::vector<double>& err_vector = tls_once(err_buffer);
            acc_vector.assign(cols, 0.0);
            err_vector.assign(cols, 0.0);
            double* __restrict acc = acc_vector.data();
            double* __restrict err = err_vector.data();
            // A FLOAT16 source row is widened to FLOAT32 in bulk first (half_rows.hpp), exactly:
            // the same terms, read by the FLOAT32 loops.
            thread_local std::vector<float> wide_buffer;
            std::vector<float>& wide = wide_buffer;
            for (uint32_t k = h0; k < h1; ++k) {
                auto add_row = [&](const auto* row) {
                    for (uint32_t w = 0; w < cols; ++w) {
                        if (w == pa && pa < pb) {
                            add_pairs(acc + pa, err + pa, row + pair_base + 2 * int64_t(pa), pb - pa);
                            w = pb - 1;
                            continue;
                        }
                        for (uint32_t j = W.first[w]; j < W.first[w + 1]; ++j)
                            add_checked(acc[w], err[w], widen_fast(row[W.taps[j].index]));
                    }
                };
                const T* row = plane + int64_t(H.taps[k].index) * sH;
                if constexpr (is_half_v<T>) {
                    wide.resize(size_t(src_cols));
                    widen_halves(wide.data(), row, size_t(src_cols));
                    add_row(static_cast<const float*>(wide.data()));
                } else {
                    add_row(row);
                }
            }
            // Every element as if exact (one branch-free loop), then the others again.
            // FLOAT16 rows of stride 1 narrowed in bulk (half_rows.hpp).
            bool all_exact = true;
            if constexpr (is_half_v<T>) {
                if (dW == 1) narrow_halves(out, acc, cols);
                else
                    for (uint32_t w = 0; w < cols; ++w) out[int64_t(w) * dW] = exact_result<T>(acc[w]);
                for (uint32_t w = 0; w < cols; ++w) all_exact &= err[w] == 0;
            } else {
                for (uint32_t w = 0; w < cols; ++w) {
                    out[int64_t(w) * dW] = exact_result<T>(acc[w]);
                    all_exact &= err[w] == 0;
                }
            }
            if (!all_exact)
                for (uint32_t w = 0; w < cols; ++w)
                    if (err[w] != 0) one(w);
        });
        return true;
    }
}

}  // namespace dmlref::reference::fast
