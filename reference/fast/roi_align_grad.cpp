// ROI_ALIGN_GRAD's fast path (roi_align.hpp): OutputGradientTensor of FLOAT32 and FLOAT16 data,
// both interpolation modes, AVERAGE and MAX. The plain loop (roi::backward in reference/roi_align.cpp,
// whose header states the formula) places every sample exactly (GMP rationals), spreads each dY over
// its samples' taps exactly and rounds each element of dX once. docs/golden.md ("How ROI align's
// golden is computed") sums up why a decided element has the plain loop's bits; the derivation,
// step by step, follows (u = 2^-53, gamma_k = k u / (1 - k u); Higham, "Accuracy and Stability of
// Numerical Algorithms", 2nd ed., 3.1 and 4.2). Items A1 to A5, B and C are the forward's
// (reference/fast/roi_align.cpp). Every operation is an IEEE float64 +, -, *, / (or fabs,
// comparisons: exact); no libm function. The path declines (the plain loop runs) where
// OutputROIGradientTensor is bound (its slopes stay with the plain loop), where OutputGradientTensor
// is not, where a region's coordinates are not finite or its batch index is out of range (the plain
// loop's errors), where a region is past A1's limits, and past G1's sizes.
//
// G. The geometry, once per region (the same for every channel): A1 to A4 (fast::axis_taps) place
//   each sample position along each axis, in float64 where the cell is certain, else exactly; a
//   tap of an in-bounds sample (iy, ix) of output (oy, ox) reads element (ky, kx) with weights wy,
//   wx in [0, 1], within ey, ex of the exact WY, WX in (0, 1] (exactly the plain loop's taps of
//   non-zero weight; a weight 1 is exact, e = 0).
//   G1. The transpose: for each position (image n, ky, kx) of a channel plane of dX, the list of
//       the taps that land on it (in the plain loop's order: regions, outputs, samples, taps), its
//       length N, and G = the largest g = u + ey + ex over the list; at most 2^25 taps in all (and
//       fewer than 2^31 positions and dY rows), else the path declines. A position a hard tap (A4:
//       a weight below 2^-400) lands on is undecided in every channel.
//   G2. A tap's weight: wt = fl(wy wx), |wt - WY WX| <= u wy wx + ey wx + WY ex <= g, wt in
//       [2^-800, 1]. AVERAGE: D = Sx Sy <= 2^20, r = fl(1 / D) (|r - 1/D| <= u / D), W' = fl(wt r):
//       |W' - WY WX / D| <= (u (1 + u) + u + g) / D, W' <= (1 + u)^2 / D, W' >= 2^-821 (normal).
//       MAX: the chosen sample's taps only (share 1): r = 1, W' = wt, the same bounds with D = 1.
//
// H. The element V = sum over the taps j of its list of dy_j WY_j WX_j / D_j (dy_j = dY of the
//   tap's output; MAX: 0 unless the tap's sample is its output's chosen sample, H2).
//   H1. t_j = fl(W'_j dy_j): dy_j is a FLOAT32 or FLOAT16 value (0 or at least 2^-149 in magnitude),
//       so t_j is 0 or at least 2^-970: no underflow; |t_j - dy_j W'_j| <= u |dy_j| W'_j, so
//       |t_j - dy_j WY_j WX_j / D_j| <= (|dy_j| / D_j)(g_j + 3u)(1 + 2^-50) and |t_j| <=
//       (|dy_j| / D_j)(1 + u)^3. In float64, from +0, per channel: s = sum of the t_j (H1':
//       four partial sums added pairwise; alone: in list order), a = sum of fl(r_j |dy_j|) (each at least (|dy_j| / D_j)(1 - u)^2, 2^-170 or 0: no
//       underflow). With N <= 2^25, gamma_(N-1) <= (N - 1) u (1 + 2^-27), so (Higham 4.2)
//           |s - V| <= sum_j (|dy_j| / D_j) ((g_j + 3u)(1 + 2^-50) + gamma_(N-1) (1 + u)^3)
//                   <= ((N + 2) u + G)(1 + 2^-26) A,   A = sum_j |dy_j| / D_j,
//       and a >= (1 - u)^2 (1 - gamma_(N-1)) A, A <= a (1 + 2^-26): |s - V| <= ((N + 2) u + G)
//       (1 + 2^-25) a. The path takes c = fl(fl((N + 2) u + G) (1 + 2^-22)) per position, G =
//       fl(fl(u + ey) + ex) at its largest, and e = fl(c a): the five roundings lose less than
//       (1 - u)^5, far inside (1 + 2^-22) / (1 + 2^-25), so e bounds |s - V|.
//       e = fl(c a) is 0 or at least 2^-222 (c >= 2^-52): no underflow. a = 0 means every dy_j
//       is +-0: V = 0 exactly, s = +0 (a sum from +0 of zeros), and e = 0 says so. A NaN or an
//       infinite dy_j makes s or a non-finite (|x| + ... >= |x|): decide refuses it; a hard
//       position has c = +inf, e = +inf or NaN: refused.
//   H1'. First, without a: M = the largest |dY| of the channel (+inf where it holds a NaN or an
//       infinity) bounds every |dy_j|, and 1 / D_j <= r_j / (1 - u), so A <= M R (1 + 2^-25), R =
//       the sum of the r_j of the list in float64 (from +0: at most gamma_(N-1) below the exact
//       sum). With k = fl(c R) per position and e' = fl(k M) (two more roundings; c's margin
//       (1 + 2^-22) covers (1 + 2^-26)(1 + 2^-25)(1 - u)^-7), e' bounds |s - V| as e does, and
//       e' = 0 only where M = 0 (every dy_j is 0, s = +0 = V) or N = 0 (s = +0 = V). An element e'
//       leaves undecided (or NaN: 0 * inf) takes H1's e, s summed again with a.
//   H2. MAX: each output's chosen sample is the plain loop's, the first greatest of its in-bounds
//       samples (docs/golden.md, RoiAlignMax and RoiAlignGradOutOfBounds). Per channel and output,
//       each in-bounds sample's value V_i (A5, C: its n <= 4 taps' s_i, m_i and e_i =
//       fl(c_i m_i)(1 + 2^-20) + 2^-1070, c_i = 5u + (ey + ex)(1 + 2^-30)) lies in [l_i, h_i] =
//       [next_down(fl(s_i - e_i)), next_up(fl(s_i + e_i))]; where the n taps' values are all equal
//       (v), V_i = v exactly (the exact weights sum to 1) and l_i = h_i = v. With L = the greatest
//       l_i, any sample with h_i < L has V_i < L <= max V: not chosen. The others are the
//       candidates: one candidate is the greatest (uniquely, so also the first greatest); several
//       whose values are all exact are compared as doubles (exact), the first with the greatest
//       value chosen. Anything else (several candidates not all exact, a NaN or an infinite tap
//       value, a hard sample) takes the plain loop's exact choice (roi::grad_max_sample). No
//       in-bounds sample: nothing is sent.
//   H3. decide (decide.hpp; decide_all) gives the output type's rounding of V where every real
//       within e of s rounds to the same bits; an exact zero is +0, as in the plain loop.
//   H4. Every other element (within about 2^-50 A of a rounding boundary or tie, non-finite
//       terms, a hard position) is the plain loop's element: grad_sum of its terms, each the
//       exact weight roi::grad_weight of a sample of its list (MAX: only chosen samples) times
//       dY. A decided element is the correct rounding of the exact value, an undecided one the
//       plain loop's: the bits depend neither on the thread count nor on the order of the additions.
//
// Layout and work. dY is copied once into doubles (widened exactly) in blocks of 8 channels,
// each block row-major over the dY rows (AVERAGE: a row per region and output; MAX: per region,
// output and sample, dY at the chosen sample, 0 elsewhere) with the block's 8 channels side by
// side, padded with zeros. The transpose (G1) is built once (one thread). Then every block of
// channels and run of positions is one task (parallel.hpp): each position gathers its list's rows
// (8 channels at a time, s in registers), e' = k M (H1'), then decide_all, and H1 for the
// elements it leaves undecided; each element of dX is written by one task. MAX's choices are made
// per region (one task each) while the copy is made. The undecided elements are the plain loop's,
// one thread, grouped by position (its exact weights once, each exact sample position once).
#include "roi_align.hpp"

#include "decide.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_ROI_GRAD_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define DMLREF_ROI_GRAD_CLONES
#endif

namespace dmlref::reference::fast {

namespace {
constexpr int kLanes = 8;  // channels side by side
}

// Four doubles (GCC's vector extensions: the same lane-wise IEEE operations in every clone, AVX
// in the AVX ones, pairs of SSE2 operations in the default one).
typedef double Doubles4 __attribute__((vector_size(32)));

// H1' over positions [0, n) of one block: s and e' for each lane and position (q[l * n + i],
// e[l * n + i]), the taps of position i being [begin[i], begin[i + 1]), k its H1' coefficient and M
// the lanes' bounds on |dY|. Four partial sums per lane (runs of four taps, the rest on the
// first), added pairwise at the end (a summation tree: H1's bound holds for any). No contraction
// (the build's -ffp-contract=off).
DMLREF_ROI_GRAD_CLONES void roi_grad_gather(const double* __restrict table, const uint32_t* __restrict begin,
                                            const int32_t* __restrict row, const double* __restrict weight,
                                            const double* __restrict k, const double* __restrict M, int64_t n,
                                            double* __restrict q, double* __restrict e) {
    static_assert(kLanes == 8);
    auto load = [&](uint32_t j, Doubles4& lo, Doubles4& hi) {
        std::memcpy(&lo, table + int64_t(row[j]) * kLanes, sizeof lo);
        std::memcpy(&hi, table + int64_t(row[j]) * kLanes + 4, sizeof hi);
    };
    for (int64_t i = 0; i < n; ++i) {
        Doubles4 s0 = {}, s1 = {}, s2 = {}, s3 = {}, t0 = {}, t1 = {}, t2 = {}, t3 = {};  // lanes 0-3, 4-7
        uint32_t j = begin[i];
        const uint32_t end = begin[i + 1];
        Doubles4 lo, hi;
        for (; j + 4 <= end; j += 4) {
            load(j, lo, hi);
            s0 += weight[j] * lo;
            t0 += weight[j] * hi;
            load(j + 1, lo, hi);
            s1 += weight[j + 1] * lo;
            t1 += weight[j + 1] * hi;
            load(j + 2, lo, hi);
            s2 += weight[j + 2] * lo;
            t2 += weight[j + 2] * hi;
            load(j + 3, lo, hi);
            s3 += weight[j + 3] * lo;
            t3 += weight[j + 3] * hi;
        }
        for (; j < end; ++j) {
            load(j, lo, hi);
            s0 += weight[j] * lo;
            t0 += weight[j] * hi;
        }
        const Doubles4 a = (s0 + s1) + (s2 + s3), b = (t0 + t1) + (t2 + t3);
        for (int l = 0; l < 4; ++l) {
            q[l * n + i] = a[l];
            q[(l + 4) * n + i] = b[l];
            e[l * n + i] = k[i] * M[l];
            e[(l + 4) * n + i] = k[i] * M[l + 4];
        }
    }
}

namespace {

using roi::Params;

constexpr double kU = 0x1p-53;
constexpr uint64_t kMaxEntries = uint64_t(1) << 25;  // G1
constexpr uint64_t kMaxIndex = uint64_t(1) << 31;    // positions, dY rows, samples: int32 and uint32
constexpr int64_t kChunk = 512;                      // positions per task

std::atomic<uint64_t> decided_count{0}, undecided_count{0}, float_count{0}, exact_count{0}, float_choice_count{0},
    exact_choice_count{0};

// One region's geometry (G): its sample positions along each axis, its first dY row and sample.
struct RegionTaps {
    std::vector<AxisTap> ax, ay;
    uint64_t batch = 0, sx = 1, sy = 1, row = 0, sample = 0;
    double share = 1;  // G2's r
};

// G1: the taps landing on position p are [begin[p], begin[p + 1]); each its dY row, W', r and
// sample (for H4); c and k per position (H1, H1').
struct Transpose {
    std::vector<uint32_t> begin;
    std::vector<int32_t> row;
    std::vector<double> weight, share, c, k;
    std::vector<uint32_t> sample;
};

// Every tap of every in-bounds sample, in the plain loop's order: f(region, output, sample, y tap,
// x tap, ka, kb).
template <class F> void each_tap(const std::vector<RegionTaps>& regions, uint64_t out_h, uint64_t out_w, F&& f) {
    for (const RegionTaps& g : regions)
        for (uint64_t oy = 0; oy < out_h; ++oy)
            for (uint64_t ox = 0; ox < out_w; ++ox)
                for (uint64_t iy = 0; iy < g.sy; ++iy)
                    for (uint64_t ix = 0; ix < g.sx; ++ix) {
                        const AxisTap& a = g.ay[oy * g.sy + iy];
                        const AxisTap& b = g.ax[ox * g.sx + ix];
                        if (a.taps == 0 || b.taps == 0) continue;  // out of bounds: sends nothing
                        for (int ka = 0; ka < a.taps; ++ka)
                            for (int kb = 0; kb < b.taps; ++kb) f(g, oy * out_w + ox, iy * g.sx + ix, a, b, ka, kb);
                    }
}

// G1, G2 and H1's c; false past G1's size.
bool transpose(const std::vector<RegionTaps>& regions, uint64_t height, uint64_t width, uint64_t positions,
               uint64_t out_h, uint64_t out_w, bool max, Transpose& t) {
    auto position = [&](const RegionTaps& g, const AxisTap& a, const AxisTap& b, int ka, int kb) {
        return (g.batch * height + uint64_t(a.index[ka])) * width + uint64_t(b.index[kb]);
    };
    t.begin.assign(positions + 1, 0);
    uint64_t total = 0;
    bool fits = true;
    each_tap(regions, out_h, out_w,
             [&](const RegionTaps& g, uint64_t, uint64_t, const AxisTap& a, const AxisTap& b, int ka, int kb) {
        if (++total > kMaxEntries) {
            fits = false;
            return;
        }
        ++t.begin[position(g, a, b, ka, kb) + 1];
    });
    if (!fits) return false;
    for (uint64_t p = 0; p < positions; ++p) t.begin[p + 1] += t.begin[p];
    t.row.resize(total);
    t.weight.resize(total);
    t.share.resize(total);
    t.sample.resize(total);
    std::vector<uint32_t> next(t.begin.begin(), t.begin.end() - 1);
    std::vector<double> G(positions, 0);
    std::vector<uint8_t> hard(positions, 0);
    each_tap(regions, out_h, out_w,
             [&](const RegionTaps& g, uint64_t o, uint64_t s, const AxisTap& a, const AxisTap& b, int ka, int kb) {
        const uint64_t p = position(g, a, b, ka, kb);
        const uint32_t j = next[p]++;
        const uint64_t sample = g.sample + o * g.sx * g.sy + s;
        t.row[j] = int32_t(max ? sample : g.row + o);
        t.weight[j] = (a.weight[ka] * b.weight[kb]) * g.share;  // G2: W' = fl(fl(wy wx) r)
        t.share[j] = g.share;
        t.sample[j] = uint32_t(sample);
        G[p] = std::max(G[p], (kU + a.error) + b.error);
        hard[p] |= uint8_t(a.hard || b.hard);
    });
    t.c.resize(positions);
    t.k.resize(positions);
    for (uint64_t p = 0; p < positions; ++p) {
        t.c[p] = hard[p] ? std::numeric_limits<double>::infinity()
                         : (double(t.begin[p + 1] - t.begin[p] + 2) * kU + G[p]) * (1 + 0x1p-22);
        double R = 0;  // H1': the sum of the r_j
        for (uint32_t j = t.begin[p]; j < t.begin[p + 1]; ++j) R += t.share[j];
        t.k[p] = t.c[p] * R;
    }
    return true;
}

// H2 in float64: the chosen sample of output (oy, ox) of region g in the plane at x (InputTensor's
// strides s2, s3); UINT64_MAX where no sample is in bounds; false where it takes the exact choice.
template <class T>
bool choose(const RegionTaps& g, uint64_t oy, uint64_t ox, const T* x, int64_t s2, int64_t s3, uint64_t& chosen,
            std::vector<double>& lo, std::vector<double>& hi) {
    const uint64_t samples = g.sx * g.sy;
    lo.resize(samples);
    hi.resize(samples);
    double L = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (uint64_t iy = 0, k = 0; iy < g.sy; ++iy)
        for (uint64_t ix = 0; ix < g.sx; ++ix, ++k) {
            const AxisTap& a = g.ay[oy * g.sy + iy];
            const AxisTap& b = g.ax[ox * g.sx + ix];
            if (a.taps == 0 || b.taps == 0) {  // not a candidate (RoiAlignGradOutOfBounds)
                lo[k] = hi[k] = std::numeric_limits<double>::quiet_NaN();
                continue;
            }
            if (a.hard || b.hard) return false;
            double v[4], s = 0, m = 0;
            bool equal = true;
            int n = 0;
            for (int ka = 0; ka < a.taps; ++ka)
                for (int kb = 0; kb < b.taps; ++kb, ++n) {
                    v[n] = widen(x[a.index[ka] * s2 + b.index[kb] * s3]);
                    if (!std::isfinite(v[n])) return false;
                    equal = equal && v[n] == v[0];
                    s += (a.weight[ka] * b.weight[kb]) * v[n];
                    m += std::fabs(v[n]);
                }
            if (equal) {
                lo[k] = hi[k] = v[0] + 0.0;
            } else {
                const double c = 5 * kU + (a.error + b.error) * (1 + 0x1p-30);
                const double e = c * m * (1 + 0x1p-20) + 0x1p-1070;
                lo[k] = next_down(s - e);
                hi[k] = next_up(s + e);
            }
            L = std::max(L, lo[k]);
            any = true;
        }
    if (!any) {
        chosen = UINT64_MAX;
        return true;
    }
    uint64_t first = UINT64_MAX, candidates = 0;
    bool exact = true;
    double best = -std::numeric_limits<double>::infinity();
    for (uint64_t k = 0; k < samples; ++k) {
        if (!(hi[k] >= L)) continue;  // out of bounds (NaN), or below the greatest lower end
        ++candidates;
        exact = exact && lo[k] == hi[k];
        if (first == UINT64_MAX || lo[k] > best) {  // the first of the greatest, where all are exact
            first = k;
            best = lo[k];
        }
    }
    if (candidates > 1 && !exact) return false;
    chosen = first;
    return true;
}

// H1 for one element (lane `lane` of position p of a block's table), or false.
template <class T> bool element(const Transpose& t, const double* table, uint64_t p, uint64_t lane, T& out) {
    double s = 0, a = 0;
    for (uint32_t j = t.begin[p]; j < t.begin[p + 1]; ++j) {
        const double d = table[int64_t(t.row[j]) * kLanes + int64_t(lane)];
        s += t.weight[j] * d;
        a += t.share[j] * std::fabs(d);
    }
    return decide<T>(s, t.c[p] * a, out);
}

// One task's scratch, per thread.
template <class T> struct Scratch {
    std::vector<double> q, e;
    std::vector<T> res;
    std::vector<uint8_t> undecided;
    std::vector<int64_t> offset;
};
template <class T> Scratch<T>& scratch(size_t n) {
    thread_local Scratch<T> w;
    if (w.offset.size() < n) {
        w.q.resize(n * kLanes);
        w.e.resize(n * kLanes);
        w.res.resize(n * kLanes);
        w.undecided.resize(n * kLanes);
        w.offset.resize(n);
    }
    return w;
}

}  // namespace

RoiGradFastCounts roi_grad_fast_counts() {
    return {decided_count.load(), undecided_count.load(),    float_count.load(),
            exact_count.load(),   float_choice_count.load(), exact_choice_count.load()};
}

template <class T>
bool roi_align_grad_fast(const Params& p, std::span<const std::byte> roi, std::span<const std::byte> indices,
                         const TensorView* X, const TensorView& dY, const TensorView& dX) {
    decided_count = undecided_count = float_count = exact_count = float_choice_count = exact_choice_count = 0;
    const TensorDesc& img = *p.dx;
    const uint64_t images = img.Sizes[0], channels = img.Sizes[1], height = img.Sizes[2], width = img.Sizes[3];
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3], outputs = out_h * out_w;
    const uint64_t count = roi::region_count(p);
    const bool max = p.reduction == DML_REDUCE_FUNCTION_MAX;
    if (max && X == nullptr) return false;
    const uint64_t positions = images * height * width;
    if (positions >= kMaxIndex) return false;
    // G: each region's sample positions (A1 to A4), its dY rows and samples.
    std::vector<RegionTaps> regions(count);
    std::vector<uint64_t> first_sample(count);
    uint64_t rows = 0, samples = 0, floats = 0, exacts = 0;
    for (uint64_t r = 0; r < count; ++r) {
        const roi::Region g = roi::region(p, roi, indices, r);
        if (!region_fits(g)) return false;
        RegionTaps& t = regions[r];
        const double lo_x = roi::roi_value(p, roi, r, 0) * double(p.scale_x);  // exact (A1)
        const double lo_y = roi::roi_value(p, roi, r, 1) * double(p.scale_y);
        const double hi_x = roi::roi_value(p, roi, r, 2) * double(p.scale_x);
        const double hi_y = roi::roi_value(p, roi, r, 3) * double(p.scale_y);
        const AxisCounts cx = axis_taps(p, g, true, lo_x, hi_x, t.ax), cy = axis_taps(p, g, false, lo_y, hi_y, t.ay);
        floats += cx.floats + cy.floats;
        exacts += cx.exacts + cy.exacts;
        t.batch = g.batch;
        t.sx = g.sx;
        t.sy = g.sy;
        t.share = max ? 1.0 : 1.0 / double(g.sx * g.sy);  // G2's r = fl(1 / D)
        t.row = rows;
        t.sample = first_sample[r] = samples;
        rows += max ? outputs * g.sx * g.sy : outputs;
        samples += outputs * g.sx * g.sy;
        if (rows >= kMaxIndex || samples >= kMaxIndex) return false;
    }
    float_count = floats;
    exact_count = exacts;
    Transpose tr;
    if (!transpose(regions, height, width, positions, out_h, out_w, max, tr)) return false;

    // The dY table: [block][row][kLanes]; zeros in the padding lanes and at MAX's other samples.
    const uint64_t blocks = (channels + kLanes - 1) / kLanes;
    std::unique_ptr<double[]> table(new double[blocks * rows * kLanes]);
    std::vector<uint32_t> chosen(max ? count * channels * outputs : 0);
    const T* dy = dY.data<T>();
    const int64_t d0 = dY.strides[0], d1 = dY.strides[1], d2 = dY.strides[2], d3 = dY.strides[3];
    const T* x = X ? X->data<T>() : nullptr;
    std::atomic<uint64_t> float_choices{0}, exact_choices{0};
    parallel_for(int64_t(count), [&](int64_t task) {
        const uint64_t r = uint64_t(task);
        const RegionTaps& g = regions[r];
        const uint64_t per = max ? g.sx * g.sy : 1;  // rows per output
        for (uint64_t k = max ? 0 : channels / kLanes; k < blocks; ++k)
            std::fill_n(table.get() + (k * rows + g.row) * kLanes, outputs * per * kLanes, 0.0);
        std::optional<roi::Region> exact;
        std::vector<double> lo, hi;
        uint64_t floats_here = 0, exacts_here = 0;
        for (uint64_t c = 0; c < channels; ++c) {
            double* block = table.get() + ((c / kLanes) * rows + g.row) * kLanes + c % kLanes;
            const T* dyc = dy + int64_t(r) * d0 + int64_t(c) * d1;
            const int64_t plane = max ? int64_t(g.batch) * X->strides[0] + int64_t(c) * X->strides[1] : 0;
            for (uint64_t oy = 0; oy < out_h; ++oy)
                for (uint64_t ox = 0; ox < out_w; ++ox) {
                    const uint64_t o = oy * out_w + ox;
                    const double v = widen(dyc[int64_t(oy) * d2 + int64_t(ox) * d3]);  // exact
                    if (!max) {
                        block[o * kLanes] = v;
                        continue;
                    }
                    uint64_t s;
                    if (choose<T>(g, oy, ox, x + plane, X->strides[2], X->strides[3], s, lo, hi)) {
                        ++floats_here;
                    } else {
                        ++exacts_here;
                        if (!exact) exact.emplace(roi::region(p, roi, indices, r));
                        s = roi::grad_max_sample<T>(p, *exact, x, X->strides, plane, oy, ox);
                    }
                    chosen[(r * channels + c) * outputs + o] = s == UINT64_MAX ? UINT32_MAX : uint32_t(s);
                    if (s != UINT64_MAX) block[(o * per + s) * kLanes] = v;
                }
        }
        float_choices += floats_here;
        exact_choices += exacts_here;
    });
    float_choice_count = float_choices.load();
    exact_choice_count = exact_choices.load();
    // H1's M: per channel, the largest |dY| in the table (+inf for a NaN or an infinity).
    std::vector<double> M(blocks * kLanes, 0);
    parallel_for(int64_t(blocks), [&](int64_t k) {
        const double* t = table.get() + uint64_t(k) * rows * kLanes;
        double m[kLanes] = {};
        for (uint64_t i = 0; i < rows; ++i)
            for (int l = 0; l < kLanes; ++l) {
                const double a = std::fabs(t[i * kLanes + uint64_t(l)]);
                m[l] = a > m[l] || a != a ? a : m[l];  // NaN is kept
            }
        for (int l = 0; l < kLanes; ++l)
            M[uint64_t(k) * kLanes + uint64_t(l)] = m[l] == m[l] ? m[l] : std::numeric_limits<double>::infinity();
    });

    // H1', H1, H3: a task per block and run of positions.
    T* out = dX.data<T>();
    const int64_t x0 = dX.strides[0], x1 = dX.strides[1], x2 = dX.strides[2], x3 = dX.strides[3];
    const int64_t chunks = int64_t((positions + kChunk - 1) / kChunk);
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> pending(size_t(chunks * int64_t(blocks)));
    std::atomic<uint64_t> decided{0};
    parallel_for(chunks * int64_t(blocks), [&](int64_t task) {
        const uint64_t k = uint64_t(task) / uint64_t(chunks), p0 = (uint64_t(task) % uint64_t(chunks)) * kChunk;
        const uint64_t n = std::min<uint64_t>(kChunk, positions - p0);
        const double* tk = table.get() + k * rows * kLanes;
        Scratch<T>& w = scratch<T>(n);
        roi_grad_gather(tk, tr.begin.data() + p0, tr.row.data(), tr.weight.data(), tr.k.data() + p0,
                        M.data() + k * kLanes, int64_t(n), w.q.data(), w.e.data());
        decide_all<T>(w.q.data(), w.e.data(), w.res.data(), w.undecided.data(), int64_t(n * kLanes));
        auto& left = pending[size_t(task)];
        const uint64_t c0 = k * kLanes, c_end = std::min<uint64_t>(channels, c0 + kLanes);
        int64_t* at = w.offset.data();  // each position's element of dX, channel 0
        for (uint64_t i = 0, pos = p0; i < n; ++i, ++pos)
            at[i] = int64_t(pos / width / height) * x0 + int64_t(pos / width % height) * x2 + int64_t(pos % width) * x3;
        uint64_t done = 0;
        for (uint64_t c = c0; c < c_end; ++c) {
            const T* __restrict res = w.res.data() + (c - c0) * n;
            const uint8_t* __restrict open = w.undecided.data() + (c - c0) * n;
            T* __restrict oc = out + int64_t(c) * x1;
            uint8_t any = 0;
            for (uint64_t i = 0; i < n; ++i) {  // every element; the undecided ones are written again below
                oc[at[i]] = res[i];
                any |= open[i];
            }
            done += n;
            if (!any) continue;
            for (uint64_t i = 0; i < n; ++i) {
                if (!open[i]) continue;
                T v;
                if (element<T>(tr, tk, p0 + i, c - c0, v)) {
                    oc[at[i]] = v;
                } else {
                    left.emplace_back(p0 + i, c);
                    --done;
                }
            }
        }
        decided += done;
    });
    decided_count = decided.load();

    // H4: the plain loop's elements, by position (its exact weights once for its channels), each
    // exact sample position computed once.
    std::vector<std::pair<uint64_t, uint64_t>> left;
    for (const auto& l : pending) left.insert(left.end(), l.begin(), l.end());
    undecided_count = left.size();
    std::sort(left.begin(), left.end());
    struct Exact {
        std::optional<roi::Region> g;
        std::vector<std::optional<roi::AxisSample>> y, x;
    };
    std::vector<Exact> exact(left.empty() ? 0 : count);
    auto sample_of = [&](std::vector<std::optional<roi::AxisSample>>& cache, const roi::Axis& a, uint64_t o,
                         uint64_t i) -> const roi::AxisSample& {
        auto& e = cache[o * a.samples + i];
        if (!e) e = roi::axis_sample(p, a, o, i);
        return *e;
    };
    std::vector<mpq_class> weights;
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> taps;  // region, output, sample
    std::vector<double> terms;
    std::vector<mpq_class> term_weights;
    for (size_t i = 0; i < left.size();) {
        const uint64_t pos = left[i].first, xx = pos % width, yy = pos / width % height, nn = pos / width / height;
        weights.clear();
        taps.clear();
        for (uint32_t j = tr.begin[pos]; j < tr.begin[pos + 1]; ++j) {
            const uint64_t sample = tr.sample[j];
            if (j > tr.begin[pos] && sample == tr.sample[j - 1]) continue;  // grad_weight takes all its taps here
            const uint64_t r =
                uint64_t(std::upper_bound(first_sample.begin(), first_sample.end(), sample) - first_sample.begin()) - 1;
            const RegionTaps& g = regions[r];
            const uint64_t o = (sample - g.sample) / (g.sx * g.sy), s = (sample - g.sample) % (g.sx * g.sy);
            Exact& e = exact[r];
            if (!e.g) {
                e.g.emplace(roi::region(p, roi, indices, r));
                e.y.resize(out_h * g.sy);
                e.x.resize(out_w * g.sx);
            }
            weights.push_back(roi::grad_weight(p, *e.g, sample_of(e.y, e.g->ay, o / out_w, s / g.sx),
                                               sample_of(e.x, e.g->ax, o % out_w, s % g.sx), int64_t(yy), int64_t(xx)));
            taps.emplace_back(r, o, s);
        }
        for (; i < left.size() && left[i].first == pos; ++i) {
            const uint64_t c = left[i].second;
            terms.clear();
            term_weights.clear();
            for (size_t j = 0; j < taps.size(); ++j) {
                const auto [r, o, s] = taps[j];
                if (max && chosen[(r * channels + c) * outputs + o] != s) continue;  // MAX: the chosen sample only
                terms.push_back(
                    widen(dy[int64_t(r) * d0 + int64_t(c) * d1 + int64_t(o / out_w) * d2 + int64_t(o % out_w) * d3]));
                term_weights.push_back(weights[j]);
            }
            out[int64_t(nn) * x0 + int64_t(c) * x1 + int64_t(yy) * x2 + int64_t(xx) * x3] = roi::grad_sum<T>(
                terms, term_weights);
        }
    }
    return true;
}

template bool roi_align_grad_fast<float>(const Params&, std::span<const std::byte>, std::span<const std::byte>,
                                         const TensorView*, const TensorView&, const TensorView&);
template bool roi_align_grad_fast<half>(const Params&, std::span<const std::byte>, std::span<const std::byte>,
                                        const TensorView*, const TensorView&, const TensorView&);

}  // namespace dmlref::reference::fast
