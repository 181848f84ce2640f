// Fast path of MAX_POOLING_GRAD for two or three spatial dimensions: dY added at its windows'
// argmaxes into a rolling accumulator of the few input rows (or depth slices) that the current
// output rows reach, each dX row written once no later window can reach it. Internal to dmlref.
//
// It computes what max_pooling.cpp's plain loop computes, element for element
// (test/test_fast_pooling.cpp): the argmaxes are max_pooling_windows.hpp's; float sums are float64
// sums checked exact addition by addition (TwoSum), and a dX element where one addition was not
// (an inexact sum, an infinity or a NaN) is summed again by exact_sum_of (fast_sum.hpp) over its
// terms, found again by recomputing the argmax of each window that holds it; integer sums wrap.
#pragma once

#include "half_rows.hpp"
#include "max_pooling_windows.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dmlref::reference::fast {

// Calls f(od, oh, ow) for every window of the volume whose argmax is volume element e = (d * H.in
// + h) * W.in + w: the windows that hold e (at most one per window element), argmaxes recomputed.
template <class T, class F> void windows_choosing(const Volume& v, const T* x, int64_t e, F&& f) {
    const int64_t w = e % v.W.in, h = e / v.W.in % v.H.in, d = e / v.W.in / v.H.in;
    auto holding =
        [](const PoolAxis& a, int64_t p, auto&& g) {  // the outputs o with o * stride - start + k * dilation = p
        for (int64_t k = 0; k < a.size; ++k) {
            const int64_t q = p + a.start - k * a.dilation;
            if (q >= 0 && q % a.stride == 0 && q / a.stride < a.out) g(q / a.stride);
        }
    };
    holding(v.D, d, [&](int64_t od) {
        holding(v.H, h, [&](int64_t oh) {
            holding(v.W, w, [&](int64_t ow) {
                if (argmax_window(v, x, od, oh, ow).index == e) f(od, oh, ow);
            });
        });
    });
}

// The terms of one output row: dy[ow * dy_step] added at slot index[ow] + shift (less RS from RS
// on) of acc, for each window with index[ow] >= 0; for a float T, index[ow] listed in retry where
// the float64 addition was not exact (TwoSum's error non-zero) or met an infinity or NaN (NaN error).
template <class T>
inline void add_terms(std::conditional_t<std::is_integral_v<T>, uint64_t, double>* __restrict acc,
                      const int64_t* __restrict index, const T* __restrict dy, int64_t dy_step, int64_t n,
                      int64_t shift, int64_t RS, std::vector<int64_t>& retry) {
    for (int64_t ow = 0; ow < n; ++ow) {
        const int64_t i = index[ow];
        if (i < 0) continue;
        int64_t t = i + shift;
        t -= t >= RS ? RS : 0;
        const T e = dy[ow * dy_step];
        if constexpr (std::is_integral_v<T>) {
            acc[t] += uint64_t(e);  // wraps
        } else {
            if (two_sum(acc[t], widen_fast(e), acc[t]) != 0)
                retry.push_back(i);  // also for a NaN error (an infinity or NaN term)
        }
    }
}

// MAX_POOLING_GRAD: dX (X's sizes) = for every dY element, its value added at its window's argmax.
//
// The accumulator rolls along one axis A: the rows (H) of a volume with one depth position and one
// output depth (2-D pooling), the depth (D) otherwise. Output position o along A reads positions
// [o * stride - start, + span) with span = (size - 1) * dilation + 1, so the accumulator holds R =
// min(span, A.in) slabs (a slab: the elements of one position along A), position p in slot p mod R;
// once the windows of o are added, every position before the next output's first is final: it is
// written to dX (zero where no window chose it) and its slot cleared for reuse.
//
// Float sums: each dX element's terms are added in float64 as they come (from +0), each addition
// checked exact with TwoSum's error. An element whose additions were all exact holds its exact sum
// (+0 for no term or cancelling terms), which is what ExactSum rounds: exact_result, as FastSum's
// b == 0 case. Any other element (an inexact addition, an infinity or a NaN: the error is then
// non-zero or NaN) is listed and, once final, summed again by exact_sum_of over its terms.
template <class T>
void max_pool_grad_fast(const Volume& v, const TensorView& X, const TensorView& dY, const TensorView& dX) {
    const int64_t N = dY.sizes()[0], Cn = dY.sizes()[1];
    const auto ys = spatial_strides(dY), xs = spatial_strides(dX);
    const bool by_rows = v.D.in == 1 && v.D.out == 1;
    const PoolAxis& A = by_rows ? v.H : v.D;
    const int64_t S = by_rows ? v.W.in : v.H.in * v.W.in;  // elements per slab
    const int64_t R = std::min(A.in, (A.size - 1) * A.dilation + 1), RS = R * S;
    parallel_for(N * Cn, [&](int64_t plane) {
        const int64_t n = plane / Cn, c = plane % Cn;
        const T* x = X.data<T>() + n * X.strides[0] + c * X.strides[1];
        const T* dy = dY.data<T>() + n * dY.strides[0] + c * dY.strides[1];
        T* dx = dX.data<T>() + n * dX.strides[0] + c * dX.strides[1];
        using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;  // wrapping sum, or float64 sum
        thread_local std::vector<Acc> ring_buffer;
        thread_local std::vector<int64_t> retry_buffer, ready_buffer;
        thread_local RowScratch<T> row_buffer;
        std::vector<Acc>& ring = tls_once(ring_buffer);
        std::vector<int64_t>& retry = tls_once(
            retry_buffer);  // volume indices of dX elements to sum again exactly (repeats possible)
        std::vector<int64_t>& ready = tls_once(ready_buffer);
        RowScratch<T>& row = tls_once(row_buffer);
        ring.assign(size_t(RS), Acc(0));
        retry.clear();
        row.resize(size_t(v.W.out));
        Acc* const acc = ring.data();
        const int64_t* best = row.index.data();

        // dX of positions [next, limit) along A, from their slots, which are cleared.
        int64_t next = 0;
        auto finish = [&](int64_t limit) {
            for (; next < limit; ++next) {
                Acc* slab = acc + next % R * S;
                for (int64_t r = 0; r < S / v.W.in; ++r) {
                    T* out = by_rows ? dx + next * xs[1] : dx + next * xs[0] + r * xs[1];
                    Acc* a = slab + r * v.W.in;
                    // Written, and the slot cleared for the slab that reuses it.
                    if constexpr (std::is_integral_v<T>) {
                        for (int64_t w = 0; w < v.W.in; ++w) {
                            out[w * xs[2]] = static_cast<T>(a[w]);
                            a[w] = 0;
                        }
                    } else if (xs[2] == 1) {
                        if constexpr (is_half_v<T>) {  // narrowed in bulk (half_rows.hpp)
                            narrow_halves(out, a, size_t(v.W.in));
                            std::fill_n(a, v.W.in, 0.0);
                        } else
                            for (int64_t w = 0; w < v.W.in; ++w) {
                                out[w] = exact_result<T>(a[w]);
                                a[w] = 0;
                            }
                    } else {
                        for (int64_t w = 0; w < v.W.in; ++w) {
                            out[w * xs[2]] = exact_result<T>(a[w]);
                            a[w] = 0;
                        }
                    }
                }
            }
            if (retry.empty()) return;
            ready.clear();
            std::erase_if(retry, [&](int64_t e) { return e < limit * S && (ready.push_back(e), true); });
            std::sort(ready.begin(), ready.end());
            ready.erase(std::unique(ready.begin(), ready.end()), ready.end());
            for (const int64_t e : ready) {
                const int64_t w = e % v.W.in, h = e / v.W.in % v.H.in, d = e / v.W.in / v.H.in;
                dx[d * xs[0] + h * xs[1] + w * xs[2]] = exact_sum_of<T>([&](auto&& add) {
                    windows_choosing(v, x, e, [&](int64_t od, int64_t oh, int64_t ow) {
                        add(widen(dy[od * ys[0] + oh * ys[1] + ow * ys[2]]));
                    });
                });
            }
        };

        // The windows of output row (od, oh), added; `shift` takes a volume index to its slot
        // offset, less RS where it passes the end.
        // FLOAT16 dY rows of stride 1 are widened to FLOAT32 in bulk first (half_rows.hpp), exactly.
        thread_local std::vector<float> wide_buffer;
        std::vector<float>& wide = tls_once(wide_buffer);
        auto add_row = [&](int64_t od, int64_t oh, int64_t shift) {
            argmax_row(v, x, od, oh, row);
            const T* dy_row = dy + od * ys[0] + oh * ys[1];
            if constexpr (is_half_v<T>)
                if (ys[2] == 1) {
                    wide.resize(size_t(v.W.out));
                    widen_halves(wide.data(), dy_row, size_t(v.W.out));
                    add_terms<float>(acc, best, wide.data(), 1, v.W.out, shift, RS, retry);
                    return;
                }
            add_terms<T>(acc, best, dy_row, ys[2], v.W.out, shift, RS, retry);
        };

        for (int64_t o = 0; o < A.out; ++o) {
            // The real positions output o reads along A lie in [b, b + R): b's slot is b mod R, and
            // a position p's is p - b + b mod R, or that less R.
            const int64_t b = std::max<int64_t>(A.position(o, 0), 0);
            const int64_t shift = (b % R - b) * S;
            if (by_rows) add_row(0, o, shift);
            else
                for (int64_t oh = 0; oh < v.H.out; ++oh) add_row(o, oh, shift);
            finish(o + 1 < A.out ? std::clamp<int64_t>(A.position(o + 1, 0), 0, A.in) : A.in);
        }
        finish(A.in);
        if (ring.capacity() > (size_t(1) << 22)) ring = {};  // a large volume's buffers are not kept by the thread
        if (retry.capacity() > (size_t(1) << 22)) retry = {};
    });
}

}  // namespace dmlref::reference::fast
