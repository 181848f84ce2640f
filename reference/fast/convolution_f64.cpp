// CONVOLUTION's fast path for FLOAT32 and FLOAT16, FORWARD (reference/fast/convolution_f64.hpp):
// the same bits as the plain loop of reference/convolution.cpp, each element the exact sum of its
// products and its bias rounded once, at the speed of a float64 matrix product.
//
// How (docs/golden.md, "How convolution's golden is computed"): for batch n and group g, the
// output planes of the group's Mg channels are a matrix product. F is the filter as Mg rows of
// K = Cg * taps weights (Cg the group's input channels, taps the kernel's positions; row m holds
// W[m, c, t] for c, then t, in order; for Mode CONVOLUTION the kernel reversed along every spatial
// dimension, which for a row-major tap index t is taps - 1 - t). X is the input's windows, K rows
// and one column per output position p: X[(c, t), p] = InputTensor[n, g Cg + c, o(p) Strides -
// StartPadding + t Dilations], and 0 where that position is padding. Then output element (m, p)
// is Bias[m] + sum_k F[m, k] X[k, p]: GEMM's element with Alpha = 1 and Beta C = Bias[m], over
// K products. The padding's products are exact zeros: they change neither the exact sum nor
// sum_k |p_k| (bounded, as in GEMM, by ||F_m|| ||X_p||, norms of the real operands only), and
// GEMM's bound holds for any number of terms up to K. So gemm_f64.cpp's derivation (its header,
// steps 1 to 6) holds word for word:
//  1. InputTensor, FilterTensor and BiasTensor as float64 (f64::read_doubles); a NaN or infinite
//     element anywhere: the plain loop runs for the whole call.
//  2. Each task builds its tile of X (a range of output positions, each position's window
//     contiguous), the norms of its columns, and S = F x X by the product kernel
//     (f64::product_kernel).
//  3-5. Each element decided from S and its bound (decide_row_float, decide_row); an undecided
//     one by the compensated dot product of its row of F and column of X (step 5a) while the tile
//     is there; a zero, a tie or an element within about 2^-52 of a rounding boundary by the plain
//     loop's element (convolution_element: FastSum, then ExactSum) on the same float64 copies.
//  6. The FusedActivation, as the plain loop applies it, to the rounded value.
// Tasks: one per batch, group and range of output positions, the ranges halved until there are
// two tasks per thread (down to 64 positions) and a tile of X or of S holds at most 2^21 float64.
// An element is computed by one task, and a decided element is the correct rounding whatever the
// tile, so the bits never depend on the cut or the thread count. BACKWARD (transposed)
// convolutions take the plain loop.
#include "convolution_f64.hpp"

#include "f64_product.hpp"
#include "parallel.hpp"

#include "../convolution.hpp"
#include "../fused_activation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

namespace dmlref::reference::fast {

namespace {

using CONV = DML_CONVOLUTION_OPERATOR_DESC;
using namespace f64;

std::atomic<uint64_t> decided_count{0}, compensated_count{0}, exact_count{0};

// The columns of X for output positions [p0, p0 + w) of batch n, group grp, as the rows of xt
// (w x K, row-major: each position's window contiguous, for its norm and step 5a): the input
// element under tap t of channel c of the window, 0 over padding. norm[q] gets step 3's rounded
// norm of row q: its squares (exact) added in the row's order, one order of the any-order bound.
void windows(const ConvolutionGeometry& g, const double* input, uint64_t n, uint64_t grp, uint64_t p0, uint64_t w,
             double* xt, double* norm) {
    const uint64_t Cg = g.in_channels / g.groups, taps = g.taps(), K = Cg * taps, plane = g.in_plane();
    const double* planes = input + (n * g.in_channels + grp * Cg) * plane;
    std::vector<int64_t> at(taps);  // each tap's offset in a channel's plane, or -1 over padding
    for (uint64_t q = 0; q < w; ++q) {
        int64_t origin[3];
        uint64_t p = p0 + q;
        for (size_t j = 3; j-- > 0;) {
            origin[j] = int64_t(p % uint64_t(g.out[j])) * g.stride[j] - g.start[j];
            p /= uint64_t(g.out[j]);
        }
        uint64_t t = 0;
        for (int64_t t0 = 0; t0 < g.kernel[0]; ++t0) {
            const int64_t i0 = origin[0] + t0 * g.dilation[0];
            const bool in0 = uint64_t(i0) < uint64_t(g.in[0]);
            for (int64_t t1 = 0; t1 < g.kernel[1]; ++t1) {
                const int64_t i1 = origin[1] + t1 * g.dilation[1];
                const bool in1 = in0 && uint64_t(i1) < uint64_t(g.in[1]);
                for (int64_t t2 = 0; t2 < g.kernel[2]; ++t2, ++t) {
                    const int64_t i2 = origin[2] + t2 * g.dilation[2];
                    at[t] = in1 && uint64_t(i2) < uint64_t(g.in[2]) ? (i0 * g.in[1] + i1) * g.in[2] + i2 : -1;
                }
            }
        }
        double* row = xt + q * K;
        double squares = 0;
        for (uint64_t c = 0; c < Cg; ++c) {
            const double* x = planes + c * plane;
            double* r = row + c * taps;
            for (uint64_t k = 0; k < taps; ++k) {
                const double v = at[k] >= 0 ? x[at[k]] : 0.0;
                r[k] = v;
                squares += v * v;
            }
        }
        norm[q] = std::sqrt(squares);
    }
}

template <class T> bool convolution_fast(const CONV& d, const Bindings& bind) {
    if (d.Direction == kConvolutionDirectionBackward) return false;
    const ConvolutionGeometry g = convolution_geometry(d);
    Doubles X, W, Bias;
    if (!read_doubles(d.InputTensor, bind.at("InputTensor"), X, kScratchA) ||
        !read_doubles(d.FilterTensor, bind.at("FilterTensor"), W, kScratchB))
        return false;
    if (d.BiasTensor && !read_doubles(*d.BiasTensor, bind.at("BiasTensor"), Bias, kScratchC)) return false;
    const double* bias = d.BiasTensor ? Bias.data() : nullptr;
    const uint64_t N = g.batch, G = g.groups, M = g.out_channels, Mg = M / G, taps = g.taps();
    const uint64_t K = (g.in_channels / G) * taps, P = g.out_plane();
    if (K >= (uint64_t(1) << 31)) return false;  // gemm_f64.cpp's bounds take K u < 2^-21

    // F: the filter's rows, the taps reversed for Mode CONVOLUTION; the rows' rounded norms.
    Doubles flipped = scratch(kScratchFilter, g.flip ? M * K : 0);
    if (g.flip)
        for (uint64_t r = 0; r < M * K / taps; ++r)
            for (uint64_t t = 0; t < taps; ++t) flipped.data()[r * taps + t] = W.data()[r * taps + taps - 1 - t];
    const double* F = g.flip ? flipped.data() : W.data();
    Doubles row_norm(M);
    norms(F, 1, M, K, true, row_norm.data());
    const double gamma = gamma_of(K), gamma2 = gamma2_of(K);

    LogicalOutput<T> out(d.OutputTensor, bind.at("OutputTensor"));
    T* r = out.data();

    // The cut: ranges of output positions, halved while there are fewer than two tasks per thread
    // (down to 64) or a tile of X or S is over 2^21 float64 (down to 8).
    const uint64_t threads = uint64_t(std::max(1, thread_count()));
    const uint64_t want = threads == 1 ? 1 : 2 * threads;
    uint64_t tp = P;
    auto tasks = [&] { return N * G * ((P + tp - 1) / tp); };
    while ((tasks() < want && tp > 64) || (tp * std::max(K, Mg) > (uint64_t(1) << 21) && tp > 8))
        tp = std::max<uint64_t>(8, (tp / 2 + 7) / 8 * 8);
    const uint64_t pt = (P + tp - 1) / tp;
    const ProductKernel kernel = product_kernel();
    std::vector<std::vector<uint64_t>> pending(N * G * pt);  // the elements each task leaves to step 5b
    std::vector<uint64_t> compensated(N * G * pt, 0);
    parallel_for(int64_t(N * G * pt), [&](int64_t task) {
        const uint64_t n = uint64_t(task) / (G * pt), grp = uint64_t(task) / pt % G;
        const uint64_t p0 = uint64_t(task) % pt * tp, w = std::min(P, p0 + tp) - p0;
        Doubles xt = scratch(kScratchWindows, w * K), column_norm(w), S = scratch(kScratchTile, Mg * w);
        windows(g, X.data(), n, grp, p0, w, xt.data(), column_norm.data());
        const double* f = F + grp * Mg * K;
        kernel(f, int64_t(K), 0, xt.data(), int64_t(K), 1, S.data(), int64_t(w), int64_t(Mg), int64_t(w), int64_t(K));
        std::vector<unsigned char> bad(w);
        std::vector<double> c(bias ? w : 0);
        for (uint64_t m = 0; m < Mg; ++m) {
            const uint64_t channel = grp * Mg + m, e0 = (n * M + channel) * P + p0;
            if (bias) std::fill(c.begin(), c.end(), bias[channel]);
            const double* s = S.data() + m * w;
            const double na = row_norm.data()[channel];
            uint64_t left;
            if constexpr (std::is_same_v<T, float>)
                left = decide_row_float(s, na, column_norm.data(), gamma, 1.0, bias ? c.data() : nullptr, r + e0,
                                        bad.data(), w);
            else
                left = decide_row<T>(s, na, column_norm.data(), gamma, 1.0, bias ? c.data() : nullptr, r + e0,
                                     bad.data(), w);
            if (!left) continue;
            for (uint64_t q = 0; q < w; ++q) {  // step 5a
                if (!bad[q]) continue;
                double sum, comp;
                compensated_dot(xt.data() + q * K, 1, f + m * K, K, sum, comp);
                const double s2 = sum + comp;
                const double E2 = (na * column_norm.data()[q]) * gamma2 + 0x1p-52 * std::fabs(s2);
                if (decide<T>(s2, E2, 1.0, bias ? bias[channel] : 0.0, r[e0 + q])) ++compensated[size_t(task)];
                else pending[size_t(task)].push_back(e0 + q);
            }
        }
    });
    // Step 5b: the plain loop's element, on the same float64 copies (W as stored: the element
    // reverses the kernel itself).
    std::vector<uint64_t> undecided;
    for (const auto& p : pending) undecided.insert(undecided.end(), p.begin(), p.end());
    parallel_for(int64_t(undecided.size()), [&](int64_t i) {
        const uint64_t e = undecided[size_t(i)];
        r[e] = convolution_element<T>(g, X.data(), W.data(), bias, e);
    });
    out.finish(d.FusedActivation);  // step 6
    const uint64_t count = N * M * P;
    uint64_t by_compensation = 0;
    for (uint64_t v : compensated) by_compensation += v;
    exact_count.store(undecided.size(), std::memory_order_relaxed);
    compensated_count.store(by_compensation, std::memory_order_relaxed);
    decided_count.store(count - by_compensation - undecided.size(), std::memory_order_relaxed);
    return true;
}

}  // namespace

bool convolution_f64(const CONV& d, const Bindings& b) {
    if (d.OutputTensor.DataType == DataType::FLOAT32) return convolution_fast<float>(d, b);
    if (d.OutputTensor.DataType == DataType::FLOAT16) return convolution_fast<half>(d, b);
    return false;
}

f64::PathCounts convolution_fast_counts() {
    return {decided_count.load(), compensated_count.load(), exact_count.load()};
}

}  // namespace dmlref::reference::fast
