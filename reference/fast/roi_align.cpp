// ROI_ALIGN's and ROI_ALIGN1's fast path (roi_align.hpp): FLOAT32 and FLOAT16 data, both
// interpolation modes, AVERAGE and MAX. The plain loop (reference/roi_align.cpp, whose header
// states the formula) places every sample exactly (GMP rationals), sums the taps exactly and rounds
// once. docs/golden.md ("How ROI align's golden is computed") sums up why a decided element has the
// plain loop's bits; the derivation, step by step (u = 2^-53, gamma_k = k u / (1 - k u); Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., 3.1 and 4.2). Every operation below is
// an IEEE float64 +, -, *, / (or floor, nearbyint, fabs, comparisons: exact); no libm function.
//
// A. The geometry, once per region (it is the same for every channel).
//   A1. ROI coordinates and scales are FLOAT32 or FLOAT16 (finite: checked before the path runs):
//       significands of at most 24 bits, so lo = x1 * SpatialScaleX and hi = x2 * SpatialScaleX are
//       exact in float64 (48 bits, magnitudes 0 or between 2^-298 and 2^256). The sample counts
//       Sx, Sy are the plain loop's own (roi::region, exact). The path takes a region where
//       Sx, Sy <= 2^20, Sx * Sy <= 2^20, Out * S <= 2^24 along each axis and its table of taps
//       (below) has at most 2^22 entries; any other region is the plain loop's, element by element.
//   A2. Sample s of n = Out * S (s < n <= 2^24, exact) along an axis: in float64,
//           t = fl(fl(s - OutputPixelOffset) / d),  d = n, or n - 1 with AlignRegionsToCorners
//           (t = 1/2, exact, where AlignRegionsToCorners and n = 1),
//           w = fl(hi - lo),  p = fl(t w),  a = fl(lo + p),  x = fl(a - InputPixelOffset).
//       s - OutputPixelOffset is 0 or at least 2^-149 (a multiple of the float's spacing), so t is
//       0 or at least 2^-173 and t w is 0 or at least 2^-471: no rounding underflows (a sum's
//       rounding never does). With the exact T and W, t = T (1 + d1)(1 + d2), w = W (1 + d3),
//       p = T W (1 + d1)(1 + d2)(1 + d3)(1 + d4), |di| <= u, so |p - T W| <= gamma_4 |T W| <=
//       4 u (1 + 2^-50) |p|; then |a - (lo + p)| <= u |a| and |x - (a - IPO)| <= u |x|. The exact
//       X = lo + T W - IPO therefore satisfies
//           |x - X| <= u (|x| + |a| + 4 (1 + 2^-50) |p|) <= ex := fl(fl(fl(|x| + |a|) + fl(4 |p|)) * c1) + 2^-400,
//       c1 = 2^-53 (1 + 2^-40) (exact): the three roundings of the non-negative sum and the product
//       lose at most a factor (1 - u)^4, which (1 + 2^-40) covers. The term 2^-400 is slack that
//       keeps every weight below at least 2^-400 (A5).
//   A3. lo' = fl(x - ex), hi' = fl(x + ex). Rounding is monotone and -1, the size W and the
//       integers and half-integers below 2^50 are doubles, so a strict comparison of lo' or hi'
//       with one of them is that comparison for x - ex or x + ex, and so brackets X:
//       hi' < -1 or lo' > W: X < -1 or X > W, the sample is out of bounds (OutOfBoundsInputValue).
//       Otherwise the path needs lo' > -1 and hi' < W (X in (-1, W), in bounds) and:
//       LINEAR: k = floor(lo') with lo' > k and hi' < k + 1, so X is in the open cell (k, k + 1).
//         k = -1 (X in (-1, 0): clamped to 0) or k >= W - 1 (X in (W - 1, W): clamped to W - 1):
//         one tap, the clamped element, weight 1 exactly (the plain loop's "last element" or its
//         zero-weight second tap, which is no term). Otherwise taps k and k + 1 with weights
//         w0 = fl((k + 1) - x) and w1 = fl(x - k): x - k is exact (Sterbenz for k >= 1, x itself
//         for k = 0), so |w1 - (X - k)| <= ex, and |w0 - (k + 1 - X)| <= ex + 2^-53 (w0 < 1 rounds
//         by at most 2^-54). Both exact weights lie in (ex, 1 - ex): neither is 0, as in the plain
//         loop (l = X - k in (0, 1)). The axis error is ea = ex + 2^-53; the path needs ea <= 2^-40.
//       NEAREST_NEIGHBOR: k = nearbyint(x) with lo' > k - 1/2 and hi' < k + 1/2: X in
//         (k - 1/2, k + 1/2), and the plain loop's ceil(clamp(X, 0, W - 1) - 1/2) is clamp(k, 0,
//         W - 1) (for X in (-1, 0) both give 0, for X in (W - 1, W) both W - 1). Weight 1, ea = 0.
//   A4. Any other sample position (X within ex of an integer, of a half-integer for
//       NEAREST_NEIGHBOR, or of -1 or W; a large ex) takes the plain loop's exact AxisSample
//       (roi::Region, GMP): its indices, out-of-bounds flag and weights, rounded to float64 by
//       mpq_get_d (truncation: a weight in [0, 1) is off by less than 2^-53, weight 1 is exact);
//       ea = 2^-53 (0 with one tap, whose weight is 1). A zero weight is dropped (no term, as in
//       the plain loop). A non-zero weight below 2^-400 makes every output that reads the sample
//       undecided (the bounds below assume no underflow).
//   A5. A tap of an in-bounds sample (iy, ix) reads element (ky, kx) with weight
//       wt = fl(wy wx), wy, wx in [0, 1] off by at most ey, ex from the exact WY, WX in [0, 1]:
//       |wt - WY WX| <= u + ey + ex + ey ex =: g, and wt >= 2^-800 (each weight >= 2^-400), so
//       wt v neither underflows nor overflows for a finite FLOAT32 or FLOAT16 v (0 or at least
//       2^-949, below 2^129). Per output, E = the largest ey + ex of its samples (each <= 2^-40,
//       so ey ex <= 2^-40 (ey + ex)).
//
// B. AVERAGE, per channel: V = (sum of the taps' WY WX v and of one OutOfBoundsInputValue per
//   out-of-bounds sample) / D, D = Sx Sy <= 2^20. In float64, from +0: s = sum of the N terms
//   fl(wt v) and OutOfBoundsInputValue (exact), and m = sum of |v| over the same N terms (|OOB| for
//   the out-of-bounds ones). With M = the exact sum of those |v|:
//       |s - S| <= gamma_(N-1) (1 + u) M + u M + g M <= ((N + 1) u + E (1 + 2^-30)) (1 + 2^-28) M
//   (the N - 1 additions of terms of magnitude at most (1 + u) |v|, Higham 4.2: any summation
//   tree, here four partial sums added pairwise, then the out-of-bounds values; each
//   product's rounding; each weight's error g, u counted in the (N + 1) u; N <= 2^22 + 2^20 so
//   gamma_(N-1) <= (N - 1) u (1 + 2^-28)), and M <= m (1 + 2^-28) likewise. q = fl(s / D):
//   |q - s / D| <= u (1 + 2u) |q| + 2^-1075 (a quotient may be subnormal). So
//       |q - V| <= (c m / D + u |q|)(1 + 2^-27) + 2^-1074,  c = (N + 1) u + E (1 + 2^-30),
//   which e = fl(fl(fl(c m) / D) + fl(|q| 2^-53)) (1 + 2^-20) + 2^-1070 covers: c itself and the
//   four roundings of e lose less than (1 - u)^6, far inside (1 + 2^-20) / (1 + 2^-27), and
//   2^-1070 covers the at most 2^-1075 each of them can lose to underflow. m = 0 means every term
//   is +-0: V = 0 exactly, and the plain loop's +0 is written as it is. A NaN or an infinity among
//   the terms makes m or s non-finite, and decide refuses it.
// C. MAX, per channel: V = the greatest exact sample value V_i. An out-of-bounds sample is
//   OutOfBoundsInputValue exactly (finite, else undecided). An in-bounds one, of n <= 4 taps:
//   s_i = their sum in float64, m_i of their |v|, |s_i - V_i| <= (5 u + E (1 + 2^-30))(1 + 2^-27)
//   m_i (B with N = n <= 4), covered by e_i = fl(c m_i)(1 + 2^-20) + 2^-1070, c = 5 u + E (1 +
//   2^-30); m_i = 0 makes V_i = 0, e_i = 0. [next_down(fl(s_i - e_i)), next_up(fl(s_i + e_i))]
//   holds V_i (a rounding moves a value by at most half a spacing), so the greatest lower and upper
//   ends [lo, hi] hold max V_i; a NaN or infinity anywhere leaves the element undecided.
// D. decide (decide.hpp) gives the output type's rounding where every real within e of q (AVERAGE),
//   or in [lo, hi] (MAX, rounds_to_one), rounds to the same bits; an exact zero is +0, as in the
//   plain loop (sums start from +0, MAX compares rationals, which have no -0).
// E. Everything else is the plain loop's element (roi::forward_element): within about 2^-50 of a
//   rounding boundary or tie of the output type, non-finite values, a hard sample position (A4),
//   a region past A1's limits. A decided element is the correct rounding of the exact value, an
//   undecided one the plain loop's: the bits depend neither on the thread count nor on the order
//   of the additions.
//
// B' (first_pass) comes before B: the same sums for 8 channels side by side, with M bounded from
// each plane's largest |x| rather than summed; B then takes the outputs B' leaves undecided.
// The image is copied once into floats (FLOAT16 widened exactly), 8 channels to a block, each
// block channel-last (a tap is one int32 offset into a block's plane: an image whose plane holds
// 2^31 or more of them, 2^28 pixels, leaves everything to the plain loop); the regions' tables
// are built in batches (one thread), then the regions of a batch are spread over the threads
// (parallel.hpp), each running every block of channels.
#include "roi_align.hpp"

#include "../fast_sum.hpp"
#include "decide.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <tuple>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dmlref::reference::fast {

namespace {

using roi::Params;

constexpr double kU = 0x1p-53;
constexpr double kMaxDouble = std::numeric_limits<double>::max();
constexpr double kMaxAxisError = 0x1p-40;  // A3
constexpr double kMinWeight = 0x1p-400;    // A2, A4
constexpr uint64_t kMaxSamples = uint64_t(1) << 20;
constexpr uint64_t kMaxAxisPositions = uint64_t(1) << 24;
constexpr uint64_t kMaxTaps = uint64_t(1) << 22;
constexpr uint64_t kBatchTaps = uint64_t(1) << 20;  // a batch's tables: about 16 MiB at most
constexpr int kLanes = 8;                           // channels side by side (B')

std::atomic<uint64_t> decided_count{0}, undecided_count{0}, float_count{0}, exact_count{0};

// A2, A3: the position in float64; false where its cell is not certain.
bool float_tap(const Params& p, double lo, double hi, uint64_t n, uint64_t s, int64_t size, AxisTap& t) {
    const double tt = p.corners && n == 1 ? 0.5 : (double(s) - double(p.opo)) / double(p.corners ? n - 1 : n);
    const double w = hi - lo;
    const double prod = tt * w;
    const double a = lo + prod;
    const double x = a - double(p.ipo);
    const double ex = (std::fabs(x) + std::fabs(a) + 4 * std::fabs(prod)) * (kU * (1 + 0x1p-40)) + kMinWeight;
    const double below = x - ex, above = x + ex;
    const double limit = double(size);
    if (above < -1 || below > limit) {
        t.taps = 0;
        return true;
    }
    if (!(below > -1 && above < limit)) return false;  // also a NaN or an infinity
    if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        const double k = std::nearbyint(x);
        if (!(below > k - 0.5 && above < k + 0.5)) return false;
        t.index[0] = t.index[1] = std::clamp<int64_t>(int64_t(k), 0, size - 1);
        t.weight[0] = 1;
        t.weight[1] = 0;
        t.error = 0;
        t.taps = 1;
        return true;
    }
    const double k = std::floor(below);
    if (!(below > k && above < k + 1)) return false;
    if (k < 0 || k >= limit - 1) {  // clamped: one tap, weight 1
        t.index[0] = t.index[1] = k < 0 ? 0 : size - 1;
        t.weight[0] = 1;
        t.weight[1] = 0;
        t.error = 0;
        t.taps = 1;
        return true;
    }
    t.error = ex + kU;
    if (!(t.error <= kMaxAxisError)) return false;
    t.index[0] = int64_t(k);
    t.index[1] = int64_t(k) + 1;
    t.weight[0] = (k + 1) - x;
    t.weight[1] = x - k;
    t.taps = 2;
    return true;
}

// A4: the plain loop's exact sample.
AxisTap exact_tap(const roi::AxisSample& a) {
    AxisTap t;
    if (a.oob) return t;
    t.index[0] = a.index[0];
    t.index[1] = a.index[1];
    t.taps = sgn(a.weight[1]) == 0 ? 1 : 2;
    for (int k = 0; k < t.taps; ++k) {
        t.weight[k] = a.weight[k].get_d();  // truncated: off by less than 2^-53 in [0, 1), exact at 1
        if (t.weight[k] < kMinWeight) t.hard = true;
    }
    if (t.taps == 1) t.weight[0] = 1;  // 1 - 0 or a nearest element: exactly 1
    t.error = t.taps == 2 ? kU : 0;
    return t;
}

// One output element's part of the region's table: its taps [tap_begin, tap_begin + taps) and
// samples [sample_begin, sample_begin + samples) (each sample's tap count, 0 when out of bounds).
struct Output {
    uint64_t tap_begin = 0, sample_begin = 0;
    uint32_t taps = 0, oob = 0, samples = 0;
    double c = 0;  // B's or C's c
    bool hard = false;
};

struct Table {
    std::vector<AxisTap> ax, ay;
    std::vector<int32_t> offset;  // in a block's plane, below 2^31 (checked)
    std::vector<double> weight;
    std::vector<uint8_t> sample_taps;
    std::vector<Output> outputs;
};

// A1 to A5 for region g: false where the region is past A1's limits. Offsets are in elements of
// the source (strides s2, s3 along y and x).
bool build(const Params& p, const roi::Region& g, double lo_x, double hi_x, double lo_y, double hi_y, int64_t s2,
           int64_t s3, Table& t) {
    if (!region_fits(g)) return false;
    const uint64_t out_h = g.ay.out, out_w = g.ax.out;
    if (out_h * out_w > kMaxTaps || out_h * out_w * g.sx * g.sy * 4 > kMaxTaps) return false;
    const AxisCounts cx = axis_taps(p, g, true, lo_x, hi_x, t.ax), cy = axis_taps(p, g, false, lo_y, hi_y, t.ay);
    float_count += cx.floats + cy.floats;
    exact_count += cx.exacts + cy.exacts;
    t.offset.clear();
    t.weight.clear();
    t.sample_taps.clear();
    t.outputs.assign(out_h * out_w, Output{});
    for (uint64_t oy = 0; oy < out_h; ++oy)
        for (uint64_t ox = 0; ox < out_w; ++ox) {
            Output& o = t.outputs[oy * out_w + ox];
            o.tap_begin = t.offset.size();
            o.sample_begin = t.sample_taps.size();
            double e = 0;
            for (uint64_t iy = 0; iy < g.sy; ++iy)
                for (uint64_t ix = 0; ix < g.sx; ++ix) {
                    const AxisTap& a = t.ay[oy * g.sy + iy];
                    const AxisTap& b = t.ax[ox * g.sx + ix];
                    if (a.hard || b.hard) o.hard = true;
                    if (a.taps == 0 || b.taps == 0) {
                        t.sample_taps.push_back(0);
                        ++o.oob;
                        continue;
                    }
                    for (int ka = 0; ka < a.taps; ++ka)
                        for (int kb = 0; kb < b.taps; ++kb) {
                            t.offset.push_back(int32_t(a.index[ka] * s2 + b.index[kb] * s3));
                            t.weight.push_back(a.weight[ka] * b.weight[kb]);
                        }
                    t.sample_taps.push_back(uint8_t(a.taps * b.taps));
                    e = std::max(e, a.error + b.error);
                }
            o.taps = uint32_t(t.offset.size() - o.tap_begin);
            o.samples = uint32_t(g.sx * g.sy);
            const double n = p.reduction == DML_REDUCE_FUNCTION_MAX ? 4 : double(o.taps + o.oob);
            o.c = (n + 1) * kU + e * (1 + 0x1p-30);
        }
    return true;
}

// B, D: one AVERAGE element of plane x (the source), or false.
template <class T, class S>
bool average(const Table& t, const Output& o, const S* x, double oob, double divisor, T& out) {
    const int32_t* off = t.offset.data() + o.tap_begin;
    const double* w = t.weight.data() + o.tap_begin;
    // Four partial sums (a fixed summation tree: B's bound holds for any), then the
    // out-of-bounds values.
    double s4[4] = {0, 0, 0, 0}, m4[4] = {0, 0, 0, 0};
    uint32_t j = 0;
    for (; j + 4 <= o.taps; j += 4)
        for (int k = 0; k < 4; ++k) {
            const double v = widen_fast(x[off[j + k]]);
            s4[k] += w[j + k] * v;
            m4[k] += std::fabs(v);
        }
    for (int k = 0; j < o.taps; ++j, ++k) {
        const double v = widen_fast(x[off[j]]);
        s4[k] += w[j] * v;
        m4[k] += std::fabs(v);
    }
    double s = (s4[0] + s4[1]) + (s4[2] + s4[3]), m = (m4[0] + m4[1]) + (m4[2] + m4[3]);
    for (uint32_t k = 0; k < o.oob; ++k) {
        s += oob;
        m += std::fabs(oob);
    }
    if (m == 0) {
        out = T(0.0f);
        return true;
    }
    const double q = s / divisor;
    const double e = ((o.c * m) / divisor + std::fabs(q) * kU) * (1 + 0x1p-20) + 0x1p-1070;
    return decide<T>(q, e, out);
}

// C, D: one MAX element, or false.
template <class T, class S> bool greatest(const Table& t, const Output& o, const S* x, double oob, T& out) {
    double lo = -std::numeric_limits<double>::infinity(), hi = lo;
    const int32_t* off = t.offset.data() + o.tap_begin;
    const double* w = t.weight.data() + o.tap_begin;
    const uint8_t* samples = t.sample_taps.data() + o.sample_begin;
    uint32_t j = 0;
    for (uint32_t k = 0; k < o.samples; ++k) {
        const uint8_t n = samples[k];
        double l, h;
        if (n == 0) {
            l = h = oob;
        } else {
            double s = 0, m = 0;
            for (uint8_t i = 0; i < n; ++i, ++j) {
                const double v = widen_fast(x[off[j]]);
                s += w[j] * v;
                m += std::fabs(v);
            }
            if (m == 0) {
                l = h = 0;
            } else {
                const double e = o.c * m * (1 + 0x1p-20) + 0x1p-1070;
                l = next_down(s - e);
                h = next_up(s + e);
            }
        }
        if (!std::isfinite(l) || !std::isfinite(h)) return false;
        lo = std::max(lo, l);
        hi = std::max(hi, h);
    }
    return rounds_to_one<T>(lo, hi, out);
}

// B': the first pass of AVERAGE over every output of a region, for kLanes channels side by side
// (the image is channel-last, so a tap's kLanes values are contiguous and the arithmetic is one
// vector loop). It bounds M by the largest |x| of each channel's plane instead of summing the
// |v|: M <= taps A + oob |OOB| (A >= every |v| read), so with B's c,
// e' = fl(fl(c fl(fl(taps A) + fl(oob |OOB|))) / D) + fl(|q| 2^-53)) (1 + 2^-20) + 2^-1070 bounds
// |q - V| as e does (two more roundings, inside the same margin). An output it leaves undecided
// (a hard sample, a bound too loose, NaN or infinite values: A = +inf) takes B.
void first_pass(const Table& t, const float* x, double oob, double divisor, const double* a, double* q, double* e) {
    const double oob_magnitude = std::fabs(oob);
    for (size_t i = 0; i < t.outputs.size(); ++i) {
        const Output& o = t.outputs[i];
        const int32_t* off = t.offset.data() + o.tap_begin;
        const double* w = t.weight.data() + o.tap_begin;
        double s[kLanes] = {};
#if defined(__SSE2__)
        static_assert(kLanes == 8);
        __m128d s0 = _mm_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
        for (uint32_t j = 0; j < o.taps; ++j) {
            const float* v = x + off[j];
            const __m128d wj = _mm_set1_pd(w[j]);
            const __m128 lo = _mm_loadu_ps(v), hi = _mm_loadu_ps(v + 4);
            s0 = _mm_add_pd(s0, _mm_mul_pd(wj, _mm_cvtps_pd(lo)));
            s1 = _mm_add_pd(s1, _mm_mul_pd(wj, _mm_cvtps_pd(_mm_movehl_ps(lo, lo))));
            s2 = _mm_add_pd(s2, _mm_mul_pd(wj, _mm_cvtps_pd(hi)));
            s3 = _mm_add_pd(s3, _mm_mul_pd(wj, _mm_cvtps_pd(_mm_movehl_ps(hi, hi))));
        }
        _mm_storeu_pd(s, s0);
        _mm_storeu_pd(s + 2, s1);
        _mm_storeu_pd(s + 4, s2);
        _mm_storeu_pd(s + 6, s3);
#else
        for (uint32_t j = 0; j < o.taps; ++j) {
            const float* __restrict v = x + off[j];
            const double wj = w[j];
            for (int l = 0; l < kLanes; ++l) s[l] += wj * double(v[l]);
        }
#endif
        for (uint32_t k = 0; k < o.oob; ++k)
            for (int l = 0; l < kLanes; ++l) s[l] += oob;
        double* __restrict qi = q + i * kLanes;
        double* __restrict ei = e + i * kLanes;
        const double taps = double(o.taps), oobs = double(o.oob) * oob_magnitude, c = o.c;
        for (int l = 0; l < kLanes; ++l) {
            qi[l] = s[l] / divisor;
            ei[l] = ((c * (taps * a[l] + oobs)) / divisor + std::fabs(qi[l]) * kU) * (1 + 0x1p-20) + 0x1p-1070;
        }
        if (o.hard)
            for (int l = 0; l < kLanes; ++l) ei[l] = std::numeric_limits<double>::infinity();
    }
}

// One task's scratch, per thread: a region's outputs' q and e, and decide_all's results.
template <class T> struct Scratch {
    std::vector<double> q, e;
    std::vector<T> res;
    std::vector<uint8_t> undecided;
};
template <class T> Scratch<T>& scratch(uint64_t n) {
    thread_local Scratch<T> w;
    if (w.q.size() < n) {
        w.q.resize(n);
        w.e.resize(n);
        w.res.resize(n);
        w.undecided.resize(n);
    }
    return w;
}

}  // namespace

bool region_fits(const roi::Region& g) {
    if (g.sx > kMaxSamples || g.sy > kMaxSamples || g.sx * g.sy > kMaxSamples) return false;
    return g.ax.out * g.sx <= kMaxAxisPositions && g.ay.out * g.sy <= kMaxAxisPositions;
}

AxisCounts axis_taps(const Params& p, const roi::Region& g, bool is_x, double lo, double hi,
                     std::vector<AxisTap>& taps) {
    const roi::Axis& a = is_x ? g.ax : g.ay;
    const uint64_t n = a.out * a.samples;
    AxisCounts counts;
    taps.assign(n, AxisTap{});
    for (uint64_t s = 0; s < n; ++s) {
        if (float_tap(p, lo, hi, n, s, a.size, taps[s])) {
            ++counts.floats;
            continue;
        }
        ++counts.exacts;
        const uint64_t o = s / a.samples, i = s % a.samples;
        taps[s] = exact_tap(is_x ? g.x(o, i) : g.y(o, i));
    }
    return counts;
}

RoiFastCounts roi_fast_counts() {
    return {decided_count.load(), undecided_count.load(), float_count.load(), exact_count.load()};
}

template <class T>
void roi_align_decide(const Params& p, std::span<const std::byte> roi, std::span<const std::byte> indices,
                      const TensorView& X, const TensorView& Y, std::vector<RoiElement>& undecided) {
    decided_count = undecided_count = float_count = exact_count = 0;
    const TensorDesc& in = *p.input;
    const uint64_t channels = p.pooled.Sizes[1], out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    // The source: a float copy of X (every FLOAT32 and FLOAT16 is a float) in blocks of kLanes
    // channels, each block channel-last: [image][block][H][W][kLanes], channels padded with
    // zeros; a block's plane is contiguous and a tap's kLanes values are neighbours. Also the
    // largest |x| of each plane (B': +inf where the plane holds a NaN or an infinity).
    const int64_t images = int64_t(in.Sizes[0]), planes_per_image = int64_t(in.Sizes[1]);
    const int64_t height = int64_t(in.Sizes[2]), width = int64_t(in.Sizes[3]);
    const int64_t blocks = (planes_per_image + kLanes - 1) / kLanes, lanes = blocks * kLanes;
    const int64_t block_size = height * width * kLanes;
    std::vector<float> source(static_cast<size_t>(images * blocks * block_size));
    std::vector<double> plane_max(static_cast<size_t>(images * lanes));
    const T* xs = X.data<T>();
    parallel_for(images * lanes, [&](int64_t k) {
        const int64_t n = k / lanes, c = k % lanes;
        float* dst = source.data() + (n * blocks + c / kLanes) * block_size + c % kLanes;
        if (c >= planes_per_image) {
            for (int64_t i = 0; i < height * width; ++i) dst[i * kLanes] = 0;
            return;
        }
        const T* src = xs + n * X.strides[0] + c * X.strides[1];
        double m = 0;
        bool finite = true;
        for (int64_t i = 0; i < height; ++i)
            for (int64_t j = 0; j < width; ++j) {
                const float v = static_cast<float>(src[i * X.strides[2] + j * X.strides[3]]);
                dst[(i * width + j) * kLanes] = v;
                const double a = std::fabs(double(v));
                finite = finite && a <= kMaxDouble;
                m = a > m ? a : m;
            }
        plane_max[size_t(k)] = finite ? m : std::numeric_limits<double>::infinity();
    });
    const std::vector<int64_t> strides = {blocks * block_size, block_size, width * kLanes, kLanes};
    const bool offsets_fit = block_size <= int64_t(INT32_MAX);  // the tables' int32 offsets
    T* y = Y.data<T>();
    const double oob = double(p.oob_value);
    const int64_t ys0 = Y.strides[0], ys1 = Y.strides[1], ys2 = Y.strides[2], ys3 = Y.strides[3];
    const bool max = p.reduction == DML_REDUCE_FUNCTION_MAX;
    std::vector<int64_t> out_offset;  // output i = oy * out_w + ox of a region and channel
    for (uint64_t oy = 0; oy < out_h; ++oy)
        for (uint64_t ox = 0; ox < out_w; ++ox) out_offset.push_back(int64_t(oy) * ys2 + int64_t(ox) * ys3);
    std::vector<std::vector<RoiElement>> pending;
    // Regions in batches of at most kBatchTaps taps in all: each batch's tables are built (one
    // thread), then every channel runs through the batch's regions, its plane staying in cache.
    std::vector<Table> tables;
    std::vector<uint64_t> batch_regions, batch_images;
    std::vector<double> divisors;
    const uint64_t count = roi::region_count(p);
    for (uint64_t next = 0; next < count;) {
        uint64_t taps = 0;
        batch_regions.clear();
        batch_images.clear();
        divisors.clear();
        for (; next < count && taps < kBatchTaps; ++next) {
            const uint64_t r = next;
            const roi::Region g = roi::region(p, roi, indices, r);
            const double lo_x = roi::roi_value(p, roi, r, 0) * double(p.scale_x);  // exact (A1)
            const double lo_y = roi::roi_value(p, roi, r, 1) * double(p.scale_y);
            const double hi_x = roi::roi_value(p, roi, r, 2) * double(p.scale_x);
            const double hi_y = roi::roi_value(p, roi, r, 3) * double(p.scale_y);
            if (tables.size() <= batch_regions.size()) tables.emplace_back();
            Table& t = tables[batch_regions.size()];
            if (!offsets_fit || !build(p, g, lo_x, hi_x, lo_y, hi_y, strides[2], strides[3], t)) {
                for (uint64_t c = 0; c < channels; ++c)
                    for (uint64_t oy = 0; oy < out_h; ++oy)
                        for (uint64_t ox = 0; ox < out_w; ++ox) undecided.push_back({r, c, oy, ox});
                undecided_count += channels * out_h * out_w;
                continue;
            }
            taps += t.offset.size() + t.outputs.size();
            batch_regions.push_back(r);
            batch_images.push_back(g.batch);
            divisors.push_back(double(g.sx * g.sy));
        }
        // One task per region: its table stays in cache while its blocks of channels run through it.
        pending.resize(batch_regions.size());
        parallel_for(int64_t(batch_regions.size()), [&](int64_t task) {
            const size_t b = size_t(task);
            std::vector<RoiElement>& left = pending[b];
            left.clear();
            Scratch<T>& w = scratch<T>(out_h * out_w * kLanes);
            const int64_t outputs = int64_t(out_h * out_w);
            uint64_t done = 0;
            for (int64_t k = 0; k < blocks; ++k) {
                const uint64_t c0 = uint64_t(k) * kLanes, c_end = std::min<uint64_t>(channels, c0 + kLanes);
                const Table& t = tables[b];
                const uint64_t r = batch_regions[b];
                const float* x0 = source.data() + int64_t(batch_images[b]) * strides[0] + k * strides[1];
                if (!max) {  // B' for every output and lane, one decide_all
                    first_pass(t, x0, oob, divisors[b], plane_max.data() + batch_images[b] * lanes + c0, w.q.data(),
                               w.e.data());
                    decide_all<T>(w.q.data(), w.e.data(), w.res.data(), w.undecided.data(), outputs * kLanes);
                }
                const T* __restrict res = w.res.data();
                const uint8_t* __restrict open = w.undecided.data();
                for (uint64_t c = c0; c < c_end; ++c) {
                    const float* x = x0 + (c - c0);
                    T* __restrict yc = y + int64_t(r) * ys0 + int64_t(c) * ys1;
                    const size_t lane = c - c0;
                    if (!max) {  // B's decided outputs, then B for the rest
                        uint8_t any = 0;
                        for (int64_t i = 0; i < outputs; ++i) {
                            const size_t at = size_t(i) * kLanes + lane;
                            any |= open[at];
                            if (!open[at]) yc[out_offset[size_t(i)]] = res[at];
                        }
                        done += uint64_t(outputs);
                        if (!any) continue;
                    }
                    size_t i = 0;
                    for (uint64_t oy = 0; oy < out_h; ++oy)
                        for (uint64_t ox = 0; ox < out_w; ++ox, ++i) {
                            if (!max && !open[i * kLanes + lane]) continue;
                            const Output& o = t.outputs[i];
                            T v;
                            const bool ok = !o.hard && (max ? greatest<T, float>(t, o, x, oob, v)
                                                            : average<T, float>(t, o, x, oob, divisors[b], v));
                            if (ok) {
                                yc[int64_t(oy) * ys2 + int64_t(ox) * ys3] = v;
                                done += max;
                            } else {
                                left.push_back({r, c, oy, ox});
                                done -= !max;
                            }
                        }
                }
            }
            decided_count += done;
            undecided_count += left.size();
        });
        for (const auto& left : pending) undecided.insert(undecided.end(), left.begin(), left.end());
    }
    // Region by region for the plain loop (which builds each region's exact geometry once).
    std::sort(undecided.begin(), undecided.end(), [](const RoiElement& a, const RoiElement& b) {
        return std::tie(a.r, a.c, a.oy, a.ox) < std::tie(b.r, b.c, b.oy, b.ox);
    });
}

template void roi_align_decide<float>(const Params&, std::span<const std::byte>, std::span<const std::byte>,
                                      const TensorView&, const TensorView&, std::vector<RoiElement>&);
template void roi_align_decide<half>(const Params&, std::span<const std::byte>, std::span<const std::byte>,
                                     const TensorView&, const TensorView&, std::vector<RoiElement>&);

}  // namespace dmlref::reference::fast
