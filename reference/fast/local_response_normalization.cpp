// LOCAL_RESPONSE_NORMALIZATION's and its grad's fast paths (local_response_normalization.hpp): FLOAT32 and FLOAT16
// data. Element c's value is V = X_c B^(-Beta), B = Bias + (Alpha / L) S, S the exact sum of the
// squares of c's clipped region (reference/local_response_normalization.cpp). docs/golden.md ("How
// local response normalization's golden is computed") sums up why a decided element has the plain
// loop's bits; the derivation, step by step (u = 2^-53, gamma_k = k u / (1 - k u); Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., 3.1 and 4.2):
//
//   1. q_j = X_j^2 in float64 is exact: a FLOAT32 or FLOAT16 significand has at most 24 bits, its
//      square at most 48, and 2^-298 <= q_j < 2^256 (or q_j = 0): no underflow, no overflow.
//   2. s = the region's squares added in float64, one windowed dimension at a time (a sum along
//      the channel, or along each dimension after it in turn): a summation tree of non-negative
//      terms whose height is below the number of terms, at most N = prod over the windowed
//      dimensions of min(L, size) <= 2^20 (else the path does not apply), so
//      |s - S| <= gamma_(N-1) S (Higham 4.2: the bound holds for any order of the additions).
//   3. a = fl(Alpha / L), t = fl(a s): a = (Alpha / L)(1 + d1), t = a s (1 + d2), |d1|, |d2| <= u
//      (Alpha is a finite float and L <= 2^32: Alpha / L is 0 or at least 2^-181, and a s is 0 or
//      between 2^-479 and 2^404: normal). With T = (Alpha / L) S,
//      t = T (1 + d1)(1 + d2)(1 + dS), |dS| <= gamma_(N-1), so |t - T| <= gamma_(N+1) |T| (Higham
//      lemma 3.3) and |T| <= |t| / (1 - gamma_(N+1)): |t - T| <= (N + 1) u (1 + 2^-30) |t| for
//      N <= 2^20 (gamma_k / (1 - gamma_k) = k u / (1 - 2 k u)).
//   4. b = fl(Bias + t) = (Bias + t)(1 + d3) when b is normal (checked: b >= 2^-1021), so
//      |b - B| <= u |b| / (1 - u) + |t - T| <= u (1 + 2^-30) (|b| + (N + 1) |t|) =: eB. The path
//      needs b > 0 and r = eB / b <= 2^-20, and then B = b (1 + e), |e| <= r, B > 0.
//   5. P = B^(-Beta) = b^(-Beta) (1 + e)^(-Beta), and |(1 + e)^(-Beta) - 1| <= exp(z) - 1 with
//      z = |Beta| |ln(1 + e)| <= |Beta| r (1 + 2^-19); where |Beta| r <= 2^-12 (checked),
//      exp(z) - 1 <= z / (1 - z), so the relative distance of P from b^(-Beta) is at most
//      h = |Beta| r (1 + 2^-10).
//   6. p = pow(b, -Beta), the C library's power: the path assumes it within 4 ulps of b^(-Beta),
//      |p - b^(-Beta)| <= 2^-50 b^(-Beta), where p is a normal double (checked: 2^-1000 <= p <=
//      2^1000). glibc's pow, since 2.28, is within 1 ulp (0.52 ulp: its source's stated bound;
//      the GNU C Library manual's table of known maximum errors), and the tests check the
//      assumption on random powers against MPFR. Then |p - P| <= (2^-50 + h)(1 + 2^-11) P =: k P,
//      and P <= p / (1 - k).
//   7. v = fl(X_c p): |v - X_c p| <= u |X_c p| + 2^-1075 (the product may be subnormal), and
//      |X_c p - V| = |X_c| |p - P| <= k |X_c| p / (1 - k): with |X_c p| <= |v| / (1 - u) + 2^-1075,
//      |v - V| <= (u + k)(1 + 2^-9) |v| + 2^-1074 =: e.
//   8. decide (decide.hpp) gives the output's bits where every real within e of v rounds to one
//      value. X_c = 0 (either sign): V is that zero (B > 0 and P finite by 4 to 6), which the
//      plain loop keeps too: X_c is written as it is.
// The bounds eB, r and e are computed in float64 from non-negative values, a handful of roundings
// each: every factor above was taken with room for them (each (1 + 2^-j) with j <= 30 covers many
// factors (1 + u)). Undecided elements (V within about 2^-49 |V| of a rounding boundary or tie of
// the output type, a NaN or infinite value in the region, B <= 0 or near 0, a Beta so large that
// the power's condition spoils the bound) take the plain loop's element: exact rationals and
// Ziv's loop in MPFR.
#include "local_response_normalization.hpp"

#include "../fast_sum.hpp"
#include "decide.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

namespace dmlref::reference::fast {

namespace {

using namespace lrn_region;

constexpr double kU = 0x1p-53;
constexpr uint64_t kMaxTerms = uint64_t(1) << 20;
constexpr int64_t kChunk = 4096;  // elements per task

constexpr double kMaxDouble = std::numeric_limits<double>::max();

std::atomic<uint64_t> decided_count{0}, undecided_count{0};

// One task's scratch, per thread: kChunk elements of each.
struct Scratch {
    std::vector<double> base, h, v, e;
};
Scratch& scratch() {
    thread_local Scratch w;
    if (w.base.empty())
        for (auto* a : {&w.base, &w.h, &w.v, &w.e}) a->resize(kChunk);
    return w;
}

// Whole-tensor arrays, per calling thread (reused across calls): 0 and 1 the squares' sums, the
// rest the grad's.
std::vector<double>& sums(int which) {
    thread_local std::vector<double> s[7];
    return s[which];
}

// dst = the window sums of src along dimension d (packed layout): for every position c along d,
// the sum of positions [c - before, c + after] clipped, added in order; the inner dimensions form
// one contiguous run, so the additions are one vectorised loop per window position.
void window_sums(const RegionGeometry& g, uint32_t d, int64_t down, int64_t up, const std::vector<double>& src,
                 std::vector<double>& dst) {
    const int64_t n = g.sizes[d], inner = g.packed[d];
    const int64_t outer = int64_t(src.size()) / (n * inner);
    parallel_for(outer, [&](int64_t o) {
        const double* in = src.data() + o * n * inner;
        double* out = dst.data() + o * n * inner;
        for (int64_t c = 0; c < n; ++c) {
            const int64_t lo = std::max<int64_t>(0, c - down), hi = std::min<int64_t>(n - 1, c + up);
            double* __restrict r = out + c * inner;
            const double* first = in + lo * inner;
            for (int64_t i = 0; i < inner; ++i) r[i] = first[i];
            for (int64_t k = lo + 1; k <= hi; ++k) {
                const double* __restrict a = in + k * inner;
                for (int64_t i = 0; i < inner; ++i) r[i] += a[i];
            }
        }
    });
}

// N, the most elements of a region (clipped), or 0 where it is above 2^20.
uint64_t region_terms(const LrnParams& p, const RegionGeometry& g) {
    uint64_t terms = 1;
    for (uint32_t d = g.first_windowed; d < g.last_windowed; ++d) {
        terms *= std::min<uint64_t>(p.LocalSize, g.sizes[d]);
        if (terms > kMaxTerms) return 0;
    }
    return terms;
}

// v = its window sums over every windowed dimension in turn, the window [c - down, c + up].
void box_sums(const RegionGeometry& g, int64_t down, int64_t up, std::vector<double>& v, std::vector<double>& scratch) {
    scratch.resize(v.size());
    for (uint32_t d = g.first_windowed; d < g.last_windowed; ++d) {
        window_sums(g, d, down, up, v, scratch);
        v.swap(scratch);
    }
}

// s = the float64 sum of the squares of every element's region (1. and 2.).
template <class T> void region_sums(const RegionGeometry& g, const std::vector<T>& x, std::vector<double>& s) {
    const int64_t count = int64_t(x.size());
    s.resize(x.size());
    parallel_for((count + kChunk - 1) / kChunk, [&](int64_t k) {
        const int64_t end = std::min(count, (k + 1) * kChunk);
        for (int64_t i = k * kChunk; i < end; ++i) {
            const double v = widen_fast(x[size_t(i)]);
            s[size_t(i)] = v * v;  // exact (1.); NaN or inf where X is
        }
    });
    box_sums(g, g.before, g.after, s, sums(1));
}

}  // namespace

template <class T>
bool lrn_decide(const LrnParams& p, const RegionGeometry& g, const std::vector<T>& x, std::vector<T>& y,
                std::vector<uint8_t>& undecided) {
    const uint64_t terms = region_terms(p, g);
    if (terms == 0) return false;
    const int64_t count = int64_t(x.size());
    std::vector<double>& s = sums(0);
    region_sums(g, x, s);
    const double a = double(p.Alpha) / double(p.LocalSize);
    const double bias = double(p.Bias), beta = double(p.Beta), abs_beta = std::fabs(beta);
    const double n1 = double(terms + 1);
    std::atomic<uint64_t> decided{0}, left{0};
    parallel_for((count + kChunk - 1) / kChunk, [&](int64_t k) {
        const int64_t first = k * kChunk, n = std::min(count, first + kChunk) - first;
        Scratch& w = scratch();
        double* __restrict base = w.base.data();
        double* __restrict h = w.h.data();
        double* __restrict v = w.v.data();
        double* __restrict e = w.e.data();
        const double* __restrict sum = s.data() + first;
        const T* __restrict xs = x.data() + first;
        constexpr double kInf = std::numeric_limits<double>::infinity();
        // 3. to 5.: B, its bound and h; where the path does not apply, a base of 1 (a cheap power)
        // and h = +inf, which makes the element's e infinite or NaN: undecided.
        for (int64_t i = 0; i < n; ++i) {
            const double t = a * sum[i];
            const double b = bias + t;
            const double eB = (b + n1 * std::fabs(t)) * (kU * (1 + 0x1p-30));
            const double r = eB / b * (1 + 0x1p-40);
            const double hb = abs_beta * r;
            const double worst = std::fmax(r * 0x1p8, hb);  // <= 2^-12 when r <= 2^-20 and |Beta| r <= 2^-12
            const bool good = (b >= 0x1p-1021) & (b <= kMaxDouble) & (worst <= 0x1p-12);
            base[i] = good ? b : 1.0;
            h[i] = good ? hb * (1 + 0x1p-10) : kInf;
        }
        for (int64_t i = 0; i < n; ++i) v[i] = std::pow(base[i], -beta);  // 6.
        // 6.'s range check and 7.: the value and its bound.
        for (int64_t i = 0; i < n; ++i) {
            const double pw = v[i];
            const bool normal = (pw >= 0x1p-1000) & (pw <= 0x1p1000);
            const double kP = (0x1p-50 + h[i]) * (1 + 0x1p-11);
            const double product = widen_fast(xs[i]) * pw;
            v[i] = product;
            e[i] = normal ? (kU + kP) * (1 + 0x1p-9) * std::fabs(product) + 0x1p-1074 : kInf;
        }
        T* out = y.data() + first;
        uint8_t* flags = undecided.data() + first;
        decide_all<T>(v, e, out, flags, n);  // 8.
        uint64_t here = 0;
        for (int64_t i = 0; i < n; ++i) {
            if (widen_fast(xs[i]) == 0 && std::isfinite(e[i])) {  // 8.: the zero itself
                out[i] = xs[i];
                flags[i] = 0;
            }
            here += flags[i] == 0;
        }
        decided += here;
        left += uint64_t(n) - here;
    });
    decided_count = decided.load();
    undecided_count = left.load();
    return true;
}

// The grad: dX_j = dY_j P_j - C X_j M_j, P_c = B_c^(-Beta), C = 2 Alpha Beta / L and
// M_j = sum over the elements c whose region holds j (the mirrored window) of dY_c X_c Q_c,
// Q_c = B_c^(-Beta - 1). Steps 1. to 6. of the forward give b_c, r_c, p_c and k_c (|p_c - P_c| <=
// k_c P_c) for every c; then:
//   9. q_c = fl(p_c / b_c): Q_c = P_c / (b_c (1 + e_c)), so q_c / Q_c = (p_c / P_c)(1 + e_c)(1 + d),
//      |q_c - Q_c| <= kq_c Q_c, kq_c = (k_c + r_c + u)(1 + 2^-10) (each of k_c and r_c is at most
//      about 2^-12).
//  10. w_c = dY_c X_c is exact in float64 (48 significant bits at most); t_c = fl(w_c q_c):
//      |t_c - w_c Q_c| <= u |w_c q_c| + 2^-1075 + |w_c| kq_c Q_c <= (u + kq_c)(1 + 2^-9) |t_c| + 2^-1074
//      =: err_c. An element c outside steps 1. to 6. has t_c = NaN, which spreads to every j reading
//      it: undecided.
//  11. m_j = the t_c of j's mirrored window added as in 2. (a summation tree of at most N terms:
//      |m_j - sum t_c| <= gamma_(N-1) sum |t_c|), a_j and E_j the |t_c| and err_c added the same
//      way (sums of non-negative terms, low by at most a factor 1 - gamma_N), so
//      |m_j - M_j| <= (N u (1 + 2^-30) a_j + E_j)(1 + 2^-20) =: eM_j.
//  12. T1 = fl(dY_j p_j), within (u + k_j)(1 + 2^-9) |T1| + 2^-1074 of dY_j P_j (as 7.).
//  13. c = fl(fl(2 Alpha Beta) / L) = C (1 + d) (2 Alpha Beta is exact: 48 bits, at least 2^-297);
//      cx = fl(c X_j), T2 = fl(cx m_j): |T2 - C X_j M_j| <= u |cx m_j| + 2 u (1 + 2^-50) |cx| |m_j|
//      + (1 + 2^-50) |cx| eM_j + 2^-1075 <= (3 u |T2| + |cx| eM_j)(1 + 2^-20) + 2^-1074.
//  14. v = fl(T1 - T2) (a subnormal difference is exact): e = (u |v| + eT1 + eT2)(1 + 2^-20),
//      decided as in 8. X_j = dY_j = 0 (with P_j and every t_c finite) is an exact zero: +0, as the
//      plain loop gives (docs/golden.md, Computed values).
template <class T>
bool lrn_grad_decide(const LrnParams& p, const RegionGeometry& g, const std::vector<T>& x, const std::vector<T>& dy,
                     std::vector<T>& y, std::vector<uint8_t>& undecided) {
    const uint64_t terms = region_terms(p, g);
    if (terms == 0) return false;
    const int64_t count = int64_t(x.size());
    std::vector<double>& s = sums(0);
    region_sums(g, x, s);
    std::vector<double>&power = sums(2), &kp = sums(3), &t = sums(4), &mag = sums(5), &err = sums(6);
    for (auto* v : {&power, &kp, &t, &mag, &err}) v->resize(x.size());
    const double a = double(p.Alpha) / double(p.LocalSize);
    const double bias = double(p.Bias), beta = double(p.Beta), abs_beta = std::fabs(beta);
    const double n1 = double(terms + 1);
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    parallel_for((count + kChunk - 1) / kChunk, [&](int64_t k) {
        const int64_t end = std::min(count, (k + 1) * kChunk);
        for (int64_t i = k * kChunk; i < end; ++i) {
            const size_t c = size_t(i);
            const double tt = a * s[c];
            const double b = bias + tt;
            const double eB = (b + n1 * std::fabs(tt)) * (kU * (1 + 0x1p-30));
            const double r = eB / b * (1 + 0x1p-40);
            double pw = kNaN, kc = kNaN, q = kNaN;
            if (b >= 0x1p-1021 && b <= kMaxDouble && r <= 0x1p-20 && abs_beta * r <= 0x1p-12) {
                pw = std::pow(b, -beta);
                kc = (0x1p-50 + abs_beta * r * (1 + 0x1p-10)) * (1 + 0x1p-11);
                q = pw / b;
                if (!(pw >= 0x1p-1000 && pw <= 0x1p1000 && q >= 0x1p-1000 && q <= 0x1p1000)) pw = q = kNaN;
            }
            power[c] = pw;
            kp[c] = kc;
            const double kq = (kc + r + kU) * (1 + 0x1p-10);             // 9.
            const double tc = widen_fast(dy[c]) * widen_fast(x[c]) * q;  // 10.
            t[c] = tc;
            mag[c] = std::fabs(tc);
            err[c] = (kU + kq) * (1 + 0x1p-9) * std::fabs(tc) + 0x1p-1074;
        }
    });
    for (auto* v : {&t, &mag, &err}) box_sums(g, g.after, g.before, *v, sums(1));    // 11.: the mirrored window
    const double cc = 2.0 * double(p.Alpha) * double(p.Beta) / double(p.LocalSize);  // 13.
    const double nu = double(terms) * kU * (1 + 0x1p-30);
    std::atomic<uint64_t> decided{0}, left{0};
    parallel_for((count + kChunk - 1) / kChunk, [&](int64_t k) {
        const int64_t end = std::min(count, (k + 1) * kChunk);
        uint64_t here = 0;
        for (int64_t i = k * kChunk; i < end; ++i) {
            const size_t j = size_t(i);
            undecided[j] = 1;
            const double m = t[j], pw = power[j];
            if (!std::isfinite(m) || !std::isfinite(pw)) continue;
            const double xj = widen_fast(x[j]), dyj = widen_fast(dy[j]);
            if (xj == 0 && dyj == 0) {  // 14.: an exact zero
                y[j] = T(0.0f);
                undecided[j] = 0;
                ++here;
                continue;
            }
            const double eM = (nu * mag[j] + err[j]) * (1 + 0x1p-20);  // 11.
            const double t1 = dyj * pw;                                // 12.
            const double e1 = (kU + kp[j]) * (1 + 0x1p-9) * std::fabs(t1) + 0x1p-1074;
            const double cx = cc * xj;  // 13.
            const double t2 = cx * m;
            const double e2 = (3 * kU * std::fabs(t2) + std::fabs(cx) * eM) * (1 + 0x1p-20) + 0x1p-1074;
            const double v = t1 - t2;  // 14.
            const double e = (kU * std::fabs(v) + e1 + e2) * (1 + 0x1p-20);
            T out;
            if (decide(v, e, out)) {
                y[j] = out;
                undecided[j] = 0;
                ++here;
            }
        }
        decided += here;
        left += uint64_t(end - k * kChunk) - here;
    });
    decided_count = decided.load();
    undecided_count = left.load();
    return true;
}

template bool lrn_decide<float>(const LrnParams&, const RegionGeometry&, const std::vector<float>&, std::vector<float>&,
                                std::vector<uint8_t>&);
template bool lrn_decide<half>(const LrnParams&, const RegionGeometry&, const std::vector<half>&, std::vector<half>&,
                               std::vector<uint8_t>&);

template bool lrn_grad_decide<float>(const LrnParams&, const RegionGeometry&, const std::vector<float>&,
                                     const std::vector<float>&, std::vector<float>&, std::vector<uint8_t>&);
template bool lrn_grad_decide<half>(const LrnParams&, const RegionGeometry&, const std::vector<half>&,
                                    const std::vector<half>&, std::vector<half>&, std::vector<uint8_t>&);

LrnFastCounts lrn_fast_counts() { return {decided_count.load(), undecided_count.load()}; }

}  // namespace dmlref::reference::fast
