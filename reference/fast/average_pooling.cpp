// The fast paths of AVERAGE_POOLING, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD (average_pooling.hpp):
// FLOAT32 and FLOAT16 data. docs/golden.md ("How average pooling's golden is computed") sums up
// why each element is the plain loop's bits; the derivations are here.
//
// Summation trees. The sums below are not added one term after another but as a tree: first
// down the columns (the window rows, one after another), then along the row. Every real term x_i
// reaches the root through h_i additions, each of which multiplies what it adds by some (1 + d),
// |d| <= u = 2^-53 (an addition of +0 is exact: d = 0). So the computed sum s of terms x_i obeys
// |s - S| <= sum |x_i| ((1 + u)^h_i - 1) <= gamma_h A, A = sum |x_i|, h the largest h_i,
// gamma_k = k u / (1 - k u) (Higham, "Accuracy and Stability of Numerical Algorithms", 4.2, for
// any order and grouping), and the same tree over the |x_i| gives a >= (1 - u)^h A >=
// (1 - gamma_h) A. A window of R rows and KW columns has h <= (R - 1) + (KW - 1) <= R KW - 1.
//
// The forward. Element o is V = S / D, S the exact sum of the n real elements x_i of o's window,
// D its divisor (docs/golden.md, Average pooling). Every FLOAT32 or FLOAT16 value is a double, a
// multiple of 2^-149 below 2^128: float64 sums of them never underflow (a sum whose result is
// subnormal is exact anyway) nor overflow, and S / D with D <= 2^20 is at least 2^-169, normal.
//   - s = the window's terms added in float64 as above, padding read as +0 (adding zero is
//     exact): h <= T - 1, T = prod(WindowSize), so |s - S| <= gamma_(T-1) A and
//     a >= (1 - gamma_(T-1)) A; q = fl(s / D); m = fl(a r), r = fl(1 / D) (tabled once per
//     call), so m >= (a / D)(1 - u)^2;
//   - |q - V| <= u |s / D| + |s - S| / D <= u |q| / (1 - u) + gamma_(T-1) m / ((1 - u)^2 (1 - gamma_(T-1)))
//     <= u (1 + 2^-31) (|q| + (T - 1) m) for T <= 2^20 ((T - 1) u <= 2^-33, so
//     (T - 1) u / ((1 - u)^2 (1 - 2 (T - 1) u)) <= (T - 1) u (1 + 2^-31));
//   - e = fl(fl(fl((T - 1) m) + |q|) 2^-53 (1 + 2^-30)): three roundings down by at most (1 - u)
//     each, and (1 - u)^3 (1 + 2^-30) > 1 + 2^-31, so e bounds |q - V|; decide (decide.hpp) gives
//     the output's bits where [q - e, q + e] rounds to one value.
// FLOAT16 windows of T <= 2^13 taps need no magnitudes: every FLOAT16 value is a multiple of
// 2^-24 below 2^16 in magnitude, so every partial sum of at most T of them is a multiple of 2^-24
// below T 2^16 <= 2^29, a double: s = S exactly (a NaN or an infinity makes s NaN or infinite:
// undecided). Then |q - V| <= u |V| <= u |q| / (1 - u) <= e = |q| 2^-52 (exact: a power of two).
// Undecided elements (V within about 2^-50 |V| of a rounding boundary or tie of the output type,
// a NaN or infinite element in the window) are tried with decide's own interval, then with the
// exact sum S: FLOAT16's s, or the window summed again with TwoSum (FastSum, fast_sum.hpp), S
// where every addition was exact (b == 0). Where the remainder fma(-q, D, S) (exact: the
// remainder of a rounded quotient is a double) is 0, q = S / D = V exactly, rounded once (a value
// on a tie of the output type: 2x2 windows of FLOAT16 data, say). The rest take the plain loop's
// element (avgpool::average_element: exact rationals).
//
// The grad. Element x of dX is V = sum over the k windows o that hold x of dY[o] / D(o).
//   - t_o = fl(dY[o] r_o), r_o = fl(1 / D(o)) (tabled once per call): t_o = (dY[o] / D(o))(1 + d)
//     with |d| <= gamma_2, so |t_o - dY[o] / D(o)| <= gamma_2 |t_o| / (1 - gamma_2);
//   - s = the t_o of x's windows added as a tree (down the dY rows that hold x's row, then along
//     the row: R rows, c columns, k = R c), a = their |t_o| the same way, with h <= R + c - 2
//     <= K - 1, K = prod(ceil(WindowSize / Strides)) >= R c (no dilation: a position is held by at
//     most ceil(WindowSize / Strides) windows along each dimension; columns of windows outside
//     the tensor read +0), K <= 2^20: |s - sum t_o| <= gamma_(K-1) sum |t_o|,
//     a >= (1 - gamma_(K-1)) sum |t_o|;
//   - |s - V| <= (gamma_2 / (1 - gamma_2) + gamma_(K-1)) a / (1 - gamma_(K-1)) <= (K + 1) u (1 + 2^-31) a;
//   - e = fl(fl((K + 1) a) 2^-53 (1 + 2^-29)) >= (K + 1) a u (1 + 2^-29)(1 - u)^2 bounds it.
// FLOAT16 where K M <= 2^13, M the least common multiple of the call's divisors (those not 0),
// sums exactly instead: V = S' / M, S' = sum dY[o] (M / D(o)); each product is exact (11
// significant bits times an integer of at most 2^13) and a multiple of 2^-24 below 2^16 M, so
// every partial sum of at most K of them is a multiple of 2^-24 below K M 2^16 <= 2^29: s = S'
// exactly, q = fl(s / M), e = |q| 2^-52 as in the forward (four at a time, grad_plane_exact_f16c
// decides from fl32(s fl(1 / M)) and its float neighbours instead, no interval needed).
// Undecided elements: V = S' / M as well for any multiple M of their own windows' divisors, with
// M <= 2^29 (a FLOAT32 significand of 24 bits times M / D(o) is exact); where FastSum finds S'
// exact (FLOAT16's s is) and the remainder fma(-q, M, S') is 0, q = V. The rest take the plain
// loop's element (avgpool::average_grad_element).
//
// Layout and work. The last spatial dimension is a row. A task is a run of rows of outputs
// (forward) or of dX (grad), spread by parallel_for over at most one thread per grain of work (so
// small tensors stay on one thread); every element is computed by one task the same way, so the bits never
// depend on the thread count. Forward: the window's input rows are read as floats (FLOAT16
// converted in bulk with F16C where the CPU has it: exact, as Eigen's conversion is) and added
// into float64 column sums over the padded row, then the KW columns of each window along it.
// Grad: the dY rows that hold the dX row give column sums of t_o (or of dY (M / D)); dX positions
// of one residue of (position + padding) modulo Strides are held by the same run of columns, so
// each residue is one contiguous window sum (a gather; no scatter). The rows' kernels are plain
// loops of IEEE operations, unfused (-ffp-contract=off), cloned for AVX-512 and AVX2, or AVX2
// intrinsics doing the same operations in the same order: every version gives the same bits.
// The output decision is decide_all (decide.hpp), four at a time with AVX2 and F16C (decide4).
#include "average_pooling.hpp"

#include "../fast_sum.hpp"
#include "decide.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define DMLREF_POOL_F16C_PATHS 1
#define DMLREF_POOL_F16C __attribute__((target("avx2,f16c")))
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_POOL_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define DMLREF_POOL_CLONES
#endif

namespace dmlref::reference::fast {

// ---- Kernels over contiguous float64 rows (the same IEEE operations in every clone) ----------

// v[i] += x[i] and, where a is given, a[i] += |x[i]| (x widened exactly).
DMLREF_POOL_CLONES void pool_add_floats(double* __restrict v, double* __restrict a, const float* __restrict x,
                                        int64_t n) {
    if (a == nullptr) {
        for (int64_t i = 0; i < n; ++i) v[i] += double(x[i]);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        v[i] += double(x[i]);
        a[i] += std::fabs(double(x[i]));
    }
}

// The grad's terms: t = x[i] R[i] (R = fl(1 / D), 0 where D is 0), then v[i] += t, a[i] += |t|.
DMLREF_POOL_CLONES void pool_add_terms(double* __restrict v, double* __restrict a, const float* __restrict x,
                                       const double* __restrict R, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        const double t = double(x[i]) * R[i];
        v[i] += t;
        a[i] += std::fabs(t);
    }
}

// The FLOAT16 grad's exact terms: v[i] += x[i] Wt[i] (Wt = M / D, an integer: exact products).
DMLREF_POOL_CLONES void pool_add_weighted(double* __restrict v, const float* __restrict x, const double* __restrict Wt,
                                          int64_t n) {
    for (int64_t i = 0; i < n; ++i) v[i] += double(x[i]) * Wt[i];
}

// s[j] = v[j S] + v[j S + dil] + ... + v[j S + (K - 1) dil], added in that order (K >= 1); stride
// S given at compile time where it is 1 or 2 (contiguous or paired loads), else read at run time.
template <int kS>
inline void pool_window_sums_t(double* __restrict s, const double* __restrict v, int64_t n, int64_t S, int64_t K,
                               int64_t dil) {
    const int64_t step = kS > 0 ? kS : S;
    for (int64_t j = 0; j < n; ++j) s[j] = v[j * step];
    for (int64_t t = 1; t < K; ++t) {
        const double* __restrict vt = v + t * dil;
        for (int64_t j = 0; j < n; ++j) s[j] += vt[j * step];
    }
}
DMLREF_POOL_CLONES void pool_window_sums(double* __restrict s, const double* __restrict v, int64_t n, int64_t S,
                                         int64_t K, int64_t dil) {
    if (S == 1) pool_window_sums_t<1>(s, v, n, 1, K, dil);
    else if (S == 2) pool_window_sums_t<2>(s, v, n, 2, K, dil);
    else pool_window_sums_t<0>(s, v, n, S, K, dil);
}

// The forward's quotient and bound in place: q = s / D, e = ((T - 1)(a R) + |q|) 2^-53 (1 + 2^-30),
// R = fl(1 / D).
DMLREF_POOL_CLONES void pool_quotients(double* __restrict s, double* __restrict a, const double* __restrict D,
                                       const double* __restrict R, double n1, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
        const double q = s[j] / D[j];
        a[j] = (n1 * (a[j] * R[j]) + std::fabs(q)) * 0x1p-53 * (1 + 0x1p-30);
        s[j] = q;
    }
}

// The same where s is the exact sum (FLOAT16 data, few taps), s kept: q = s / D, e = |q| 2^-52.
DMLREF_POOL_CLONES void pool_exact_quotients(const double* __restrict s, double* __restrict q, double* __restrict e,
                                             const double* __restrict D, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
        q[j] = s[j] / D[j];
        e[j] = std::fabs(q[j]) * 0x1p-52;
    }
}

// The grad's bound in place: e = (K a) 2^-53 (1 + 2^-29), K given (the header comment's K + 1).
DMLREF_POOL_CLONES void pool_grad_bounds(double* __restrict a, double K, int64_t n) {
    for (int64_t j = 0; j < n; ++j) a[j] = K * a[j] * 0x1p-53 * (1 + 0x1p-29);
}

// decide_all (decide.hpp) for FLOAT32, cloned.
DMLREF_POOL_CLONES void pool_decide_floats(const double* v, const double* e, float* res, uint8_t* undecided,
                                           int64_t n) {
    decide_all(v, e, res, undecided, n);
}

namespace {

#if defined(DMLREF_POOL_F16C_PATHS)

// AVX2 and F16C (CPUID leaf 1, ECX bit 29), as reference/fast/element_wise.cpp asks.
bool have_f16c() {
    static const bool yes = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    }();
    return yes;
}

// out[i] = x[i] (FLOAT16 bits) as a float: F16C's half-to-float is exact for every binary16
// (subnormals included), as Eigen's is.
DMLREF_POOL_F16C void halves_to_floats_f16c(float* __restrict out, const uint16_t* __restrict x, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
    for (; i < n; ++i) out[i] = _cvtsh_ss(x[i]);
}

// The undecided flags of four elements (one byte each, 1: undecided) from the mask of the decided.
inline void store_flags(uint8_t* undecided, int decided) {
    static constexpr auto kFlags = [] {
        std::array<uint32_t, 16> f{};
        for (uint32_t d = 0; d < 16; ++d)
            for (uint32_t k = 0; k < 4; ++k) f[d] |= uint32_t(((d >> k) & 1) ^ 1) << (8 * k);
        return f;
    }();
    std::memcpy(undecided, &kFlags[size_t(decided)], 4);
}

// decide_all's interval for four values (decide.hpp): [lo, hi] with fl(v - w) <= v - e and
// fl(v + w) >= v + e; ok where it is ordered and finite.
DMLREF_POOL_F16C inline __m256d interval4(__m256d V, __m256d E, __m256d& lo, __m256d& hi) {
    const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
    const __m256d largest = _mm256_set1_pd(std::numeric_limits<double>::max());
    const __m256d absV = _mm256_andnot_pd(sign, V);
    __m256d w = _mm256_add_pd(
        _mm256_mul_pd(_mm256_add_pd(E, _mm256_mul_pd(absV, _mm256_set1_pd(0x1p-52))), _mm256_set1_pd(1 + 0x1p-50)),
        _mm256_set1_pd(0x1p-1072));
    w = _mm256_blendv_pd(w, zero, _mm256_cmp_pd(E, zero, _CMP_EQ_OQ));
    lo = _mm256_add_pd(_mm256_sub_pd(V, w), zero);
    hi = _mm256_add_pd(_mm256_add_pd(V, w), zero);
    return _mm256_and_pd(_mm256_cmp_pd(lo, hi, _CMP_LE_OQ),
                         _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, lo), largest, _CMP_LE_OQ),
                                       _mm256_cmp_pd(_mm256_andnot_pd(sign, hi), largest, _CMP_LE_OQ)));
}

// decide_all's FLOAT32 loop (decide.hpp) for four values: the same operations on the same values,
// so the same decisions and bits. Stores the four results, returns the mask of the decided.
DMLREF_POOL_F16C inline int decide4(__m256d V, __m256d E, float* res) {
    __m256d lo, hi;
    const __m256d ok = interval4(V, E, lo, hi);
    const __m128 a = _mm256_cvtpd_ps(lo), b = _mm256_cvtpd_ps(hi);
    const __m128i same = _mm_cmpeq_epi32(_mm_castps_si128(a), _mm_castps_si128(b));
    _mm_storeu_ps(res, a);
    return _mm256_movemask_pd(ok) & _mm_movemask_ps(_mm_castsi128_ps(same));
}

// decide_all for four FLOAT16 results (res as bits). The interval [lo, hi] is decide_all's
// FLOAT32 one (interval4), so it holds the exact value V. a = fl32(lo) and b = fl32(hi) (to
// nearest): where a and b are the same float f, every real of [lo, hi] rounds to f in FLOAT32
// (monotone); where moreover f is no FLOAT16 rounding midpoint, each of those reals rounds to
// f's FLOAT16 (rounding twice errs only where the first rounding lands on a midpoint of the
// second), and f is none when the floats on either side of it round to the same FLOAT16 as f
// (rounds_to_one, decide.hpp); f = +-0 or +-infinity is decided as it stands. F16C's
// float-to-half rounds to nearest even, as round_to_float does. The others are undecided here.
DMLREF_POOL_F16C inline int decide4(__m256d V, __m256d E, half* res) {
    constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const __m128i one = _mm_set1_epi32(1);
    __m256d lo, hi;
    const __m256d ok = interval4(V, E, lo, hi);
    const __m128i a = _mm_castps_si128(_mm256_cvtpd_ps(lo)), b = _mm_castps_si128(_mm256_cvtpd_ps(hi));
    const __m128i h = _mm_cvtps_ph(_mm_castsi128_ps(a), kNearest);
    const __m128i below = _mm_cvtps_ph(_mm_castsi128_ps(_mm_sub_epi32(a, one)), kNearest);
    const __m128i above = _mm_cvtps_ph(_mm_castsi128_ps(_mm_add_epi32(a, one)), kNearest);
    const __m128i alone = _mm_cvtepi16_epi32(_mm_and_si128(_mm_cmpeq_epi16(below, h), _mm_cmpeq_epi16(above, h)));
    const __m128i m = _mm_and_si128(a, _mm_set1_epi32(0x7fffffff));
    const __m128i edge = _mm_or_si128(_mm_cmpeq_epi32(m, _mm_setzero_si128()),
                                      _mm_cmpgt_epi32(m, _mm_set1_epi32(0x7f7fffff)));
    const __m128i same = _mm_and_si128(_mm_cmpeq_epi32(a, b), _mm_or_si128(edge, alone));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(res), h);
    return _mm256_movemask_pd(ok) & _mm_movemask_ps(_mm_castsi128_ps(same));
}

// decide_all (decide.hpp) for FLOAT32 or FLOAT16, four at a time; true when some are undecided.
template <class T>
DMLREF_POOL_F16C bool decide_f16c(const double* v, const double* e, T* res, uint8_t* undecided, int64_t n) {
    int64_t i = 0;
    int all = 15;
    for (; i + 4 <= n; i += 4) {
        const int decided = decide4(_mm256_loadu_pd(v + i), _mm256_loadu_pd(e + i), res + i);
        store_flags(undecided + i, decided);
        all &= decided;
    }
    bool some = all != 15;
    for (; i < n; ++i) {
        undecided[i] = uint8_t(!decide(v[i], e[i], res[i]));
        some = some || undecided[i];
    }
    return some;
}

// The grad's plane (see backward): s[m] = u[m] + u[m + 1] + ... + u[m + nr - 1], a[m] the same of
// ua, e = (K a) 2^-53 (1 + 2^-29) (pool_window_sums and pool_grad_bounds, the same operations
// in the same order), decided four at a time as decide_f16c; true when some are undecided.
template <class T>
DMLREF_POOL_F16C bool grad_plane_f16c(const double* u, const double* ua, int64_t nr, double K, int64_t count, T* res,
                                      uint8_t* undecided) {
    const __m256d k = _mm256_set1_pd(K), scale = _mm256_set1_pd(0x1p-53), grow = _mm256_set1_pd(1 + 0x1p-29);
    int64_t m = 0;
    int all = 15;
    for (; m + 4 <= count; m += 4) {
        __m256d s = _mm256_loadu_pd(u + m), a = _mm256_loadu_pd(ua + m);
        for (int64_t t = 1; t < nr; ++t) {
            s = _mm256_add_pd(s, _mm256_loadu_pd(u + m + t));
            a = _mm256_add_pd(a, _mm256_loadu_pd(ua + m + t));
        }
        const __m256d e = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(k, a), scale), grow);
        const int decided = decide4(s, e, res + m);
        store_flags(undecided + m, decided);
        all &= decided;
    }
    bool some = all != 15;
    for (; m < count; ++m) {
        double s = u[m], a = ua[m];
        for (int64_t t = 1; t < nr; ++t) {
            s += u[m + t];
            a += ua[m + t];
        }
        undecided[m] = uint8_t(!decide(s, K * a * 0x1p-53 * (1 + 0x1p-29), res[m]));
        some = some || undecided[m];
    }
    return some;
}

// The FLOAT16 grad's plane of exact sums (see backward): s[m] = u[m] + ... + u[m + nr - 1] = S'
// exactly, V = S' / M, a multiple of 2^-24 / M >= 2^-37 below 2^29 in magnitude, or 0 (s is never
// -0: the column sums start at +0). q = fl(s r), r = fl(1 / M): |q - V| <= 2^-51.9 |q|. f =
// fl32(q + 0) (a float, normal or +0; + 0 as decide_all's interval does), and q lies within half a
// float spacing of f, so V lies strictly between f's float neighbours f- and f+. Rounding to
// FLOAT16 is monotone: where f-, f and f+ round to the same h (F16C's float-to-half, to nearest
// even), so does V: h is V's correct rounding. f = +0 is V = 0 exactly: +0. Infinite or NaN s
// (such dY) are left undecided, as are f next to a FLOAT16 rounding boundary (about 2^-12 of
// them). Four at a time; the scalar tail takes decide with e = |q| 2^-52, q = fl(s / M) (header
// comment). True when some are undecided.
DMLREF_POOL_F16C bool grad_plane_exact_f16c(const double* u, int64_t nr, double M, int64_t count, half* res,
                                            uint8_t* undecided) {
    constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const __m256d r = _mm256_set1_pd(1 / M), zero = _mm256_setzero_pd();
    const __m128i one = _mm_set1_epi32(1), magnitude = _mm_set1_epi32(0x7fffffff);
    const __m128i infinity = _mm_set1_epi32(0x7f800000);
    int64_t m = 0;
    int all = 15;
    for (; m + 4 <= count; m += 4) {
        __m256d s = _mm256_loadu_pd(u + m);
        for (int64_t t = 1; t < nr; ++t) s = _mm256_add_pd(s, _mm256_loadu_pd(u + m + t));
        const __m128i f = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(s, r), zero)));
        const __m128i h = _mm_cvtps_ph(_mm_castsi128_ps(f), kNearest);
        const __m128i below = _mm_cvtps_ph(_mm_castsi128_ps(_mm_sub_epi32(f, one)), kNearest);
        const __m128i above = _mm_cvtps_ph(_mm_castsi128_ps(_mm_add_epi32(f, one)), kNearest);
        const __m128i alone = _mm_cvtepi16_epi32(_mm_and_si128(_mm_cmpeq_epi16(below, h), _mm_cmpeq_epi16(above, h)));
        const __m128i fm = _mm_and_si128(f, magnitude);
        const __m128i same = _mm_andnot_si128(
            _mm_or_si128(_mm_cmpgt_epi32(fm, infinity), _mm_cmpeq_epi32(fm, infinity)),
            _mm_or_si128(alone, _mm_cmpeq_epi32(fm, _mm_setzero_si128())));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(res + m), h);
        const int decided = _mm_movemask_ps(_mm_castsi128_ps(same));
        store_flags(undecided + m, decided);
        all &= decided;
    }
    bool some = all != 15;
    for (; m < count; ++m) {
        double s = u[m];
        for (int64_t t = 1; t < nr; ++t) s += u[m + t];
        const double q = s / M;
        undecided[m] = uint8_t(!decide(q, std::fabs(q) * 0x1p-52, res[m]));
        some = some || undecided[m];
    }
    return some;
}

// out[2 m] = even[m], out[2 m + 1] = odd[m] for m < pairs: FLOAT16 bits, eight pairs at a time.
DMLREF_POOL_F16C void interleave_halves_f16c(uint16_t* __restrict out, const uint16_t* __restrict even,
                                             const uint16_t* __restrict odd, int64_t pairs) {
    int64_t m = 0;
    for (; m + 8 <= pairs; m += 8) {
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(even + m));
        const __m128i o = _mm_loadu_si128(reinterpret_cast<const __m128i*>(odd + m));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * m), _mm_unpacklo_epi16(e, o));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * m + 8), _mm_unpackhi_epi16(e, o));
    }
    for (; m < pairs; ++m) {
        out[2 * m] = even[m];
        out[2 * m + 1] = odd[m];
    }
}

#endif

// row[2 m] = even[m], row[2 m + 1] = odd[m] for m < pairs.
template <class T>
void interleave(T* __restrict row, const T* __restrict even, const T* __restrict odd, int64_t pairs) {
#if defined(DMLREF_POOL_F16C_PATHS)
    if constexpr (is_half_v<T>) {
        if (have_f16c()) {
            interleave_halves_f16c(reinterpret_cast<uint16_t*>(row), reinterpret_cast<const uint16_t*>(even),
                                   reinterpret_cast<const uint16_t*>(odd), pairs);
            return;
        }
    }
#endif
    for (int64_t m = 0; m < pairs; ++m) {
        row[2 * m] = even[m];
        row[2 * m + 1] = odd[m];
    }
}

using avgpool::Coord;

constexpr uint64_t kMaxTaps = uint64_t(1) << 20;
// FLOAT16 windows of at most this many taps are summed exactly in float64 (header comment).
constexpr uint64_t kExactHalfTaps = uint64_t(1) << 13;
// The grad's exact retry scales its terms to a common divisor of at most this.
constexpr uint64_t kMaxMultiple = uint64_t(1) << 29;
// Rows go to the threads in runs of at most about kTaskWork units of work (a row's estimate: the
// forward's additions, the grad's terms and window taps), as many runs as a multiple of the
// threads allows (rows_per_task, parallel.hpp), on at most one thread per grain of work
// (threads_for_work): kForwardGrain for the forward, kGradGrain for the grad, so that a small call
// does not pay more threads' start than they bring. A grain is about 9 us of one thread's work on
// a 2-core AMD EPYC VM (the forward about 1.05 ns a unit, the grad about 0.6 ns: 3x3 windows,
// Strides 2, padding 1, FLOAT32 1xCx64x64), some four times the fork and join of a parallel region
// there (about 2 us, an empty `omp parallel for` on two threads, best of 20,000) and about what
// one costs on 16 cores; so a call of 1x16x64x64 (147,456 forward units) takes every thread of
// 16 cores, about 9 us each, rather than four of 37 us. (Timings of one thread against two on the
// VM do not say where a second thread pays: its other core is shared with other work, and the
// dynamic schedule leaves the tasks to the first thread while the second is not running.)
constexpr int64_t kTaskWork = int64_t(1) << 13;
constexpr int64_t kForwardGrain = int64_t(1) << 13, kGradGrain = int64_t(1) << 14;

std::atomic<uint64_t> decided_count{0}, exact_count{0}, plain_count{0};

// x[0], x[step], ..., x[(n - 1) step] as contiguous floats (exact: every FLOAT16 is a float): x
// itself where it is FLOAT32 of step 1, else `room` filled, in bulk with F16C where it can.
template <class T> const float* row_floats(const T* x, int64_t step, int64_t n, float* room) {
    if constexpr (std::is_same_v<T, float>) {
        if (step == 1) return x;
    }
#if defined(DMLREF_POOL_F16C_PATHS)
    if constexpr (is_half_v<T>) {
        if (step == 1 && have_f16c()) {
            halves_to_floats_f16c(room, reinterpret_cast<const uint16_t*>(x), n);
            return room;
        }
    }
#endif
    for (int64_t i = 0; i < n; ++i) room[i] = static_cast<float>(x[i * step]);
    return room;
}

// The divisors D(o) of the rows of windows and their reciprocals fl(1 / D) (0 where D is 0): one
// row per distinct number of real taps across the dimensions before the row's; outer position p
// (row-major over those dimensions of the output) takes row index[p].
struct DivisorRows {
    int64_t width = 0;
    std::vector<double> D, R, Wt;  // Wt: M / D for a multiple M of every D (weights())
    std::vector<int32_t> index;
    const double* divisors(int64_t p) const { return D.data() + index[size_t(p)] * width; }
    const double* reciprocals(int64_t p) const { return R.data() + index[size_t(p)] * width; }
    const double* weights(int64_t p) const { return Wt.data() + index[size_t(p)] * width; }
    // The least common multiple M of the divisors (those not 0), and Wt; 0 (and no Wt) where M
    // would pass `most`.
    uint64_t set_weights(uint64_t most) {
        uint64_t m = 1;
        for (const double d : D)
            if (d != 0 && m <= most) m = std::lcm(m, uint64_t(d));
        if (m > most) return 0;
        Wt.resize(D.size());
        for (size_t j = 0; j < D.size(); ++j) Wt[j] = D[j] == 0 ? 0.0 : double(m / uint64_t(D[j]));
        return m;
    }
};

DivisorRows divisor_rows(const avgpool::Window& w, uint64_t taps) {
    const size_t L = w.spatial - 1;
    DivisorRows d;
    d.width = w.out[L];
    int64_t outer = 1;
    for (size_t i = 0; i < L; ++i) outer *= w.out[i];
    d.index.resize(size_t(outer));
    std::vector<int64_t> counts;  // the distinct numbers of real taps before the row's dimension
    for (int64_t p = 0; p < outer; ++p) {
        int64_t rest = p, count = 1;
        for (size_t i = L; i-- > 0;) {
            const TapRange r = pooling_real_taps(w, i, rest % w.out[i]);
            rest /= w.out[i];
            count *= r.hi - r.lo;
        }
        if (w.include_padding) count = 0;  // one row: every D is prod(WindowSize)
        const auto it = std::find(counts.begin(), counts.end(), count);
        d.index[size_t(p)] = int32_t(it - counts.begin());
        if (it != counts.end()) continue;
        counts.push_back(count);
        for (int64_t j = 0; j < d.width; ++j) {
            const TapRange r = pooling_real_taps(w, L, j);
            const double D = double(w.include_padding ? int64_t(taps) : count * (r.hi - r.lo));
            d.D.push_back(D);
            d.R.push_back(D == 0 ? 0.0 : 1 / D);
        }
    }
    return d;
}

// decide_all (decide.hpp) for a row, four at a time with AVX2 and F16C where the CPU has them;
// true when some are undecided.
template <class T> bool decide_row(const double* v, const double* e, T* res, uint8_t* undecided, int64_t n) {
#if defined(DMLREF_POOL_F16C_PATHS)
    if (have_f16c()) return decide_f16c(v, e, res, undecided, n);
#endif
    if constexpr (std::is_same_v<T, float>) pool_decide_floats(v, e, res, undecided, n);
    else decide_all(v, e, res, undecided, n);
    uint8_t some = 0;
    for (int64_t j = 0; j < n; ++j) some |= undecided[j];
    return some != 0;
}

// T's rounding of S / D where FastSum f holds S exactly (every addition exact) and the quotient
// is exact; false otherwise.
template <class T> bool exact_quotient(const FastSum& f, double D, T& out) {
    if (f.b != 0 || !std::isfinite(f.s)) return false;
    const double q = f.s / D;
    if (std::fma(-q, D, f.s) != 0) return false;  // the remainder S - q D, exact
    return rounds_to_one(q, q, out);
}

// One thread's rows: the float64 work rows and a row's decisions (decide_all: the values and the
// undecided flags). Kept between calls: fresh buffers cost their page faults again.
template <class T> struct Scratch {
    std::vector<float> room;
    std::vector<double> v, a, s, e, q;
    std::vector<T> value, row;
    std::vector<uint8_t> undecided;
    std::vector<std::pair<double, uint64_t>> terms;  // an undecided grad element's dY and divisors
    uint64_t exact = 0, plain = 0;                   // the task's undecided elements, each way
};
// Not inlined: inlined, GCC reaches every member of the scratch through the thread_local itself,
// one __tls_get_addr call per use in the shared library (perf: 3.6% of the FLOAT16 grad's time).
template <class T> [[gnu::noinline]] Scratch<T>& scratch() {
    thread_local Scratch<T> s;
    return s;
}

// Writes the row's decided values to out[j * step] (`some`: whether some are undecided).
template <class T>
void write_decided(const T* __restrict value, const uint8_t* __restrict undecided, bool some, T* out, int64_t step,
                   int64_t n) {
    if (!some && step == 1) {
        std::memcpy(static_cast<void*>(out), value, size_t(n) * sizeof(T));
    } else if (!some) {
        for (int64_t j = 0; j < n; ++j) out[j * step] = value[j];
    } else {
        for (int64_t j = 0; j < n; ++j)
            if (!undecided[j]) out[j * step] = value[j];
    }
}

// f(j) for every j < n with undecided[j] set, eight flags at a time (few are set).
template <class F> void for_each_undecided(const uint8_t* undecided, int64_t n, F&& f) {
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        uint64_t word;
        std::memcpy(&word, undecided + j, 8);
        if (word == 0) continue;
        for (int64_t k = j; k < j + 8; ++k)
            if (undecided[k]) f(k);
    }
    for (; j < n; ++j)
        if (undecided[j]) f(j);
}

// Task `row`'s (n, c) and position `at` along the dimensions before the row's (extents `extent`);
// returns c.
int64_t split_row(int64_t row, const Coord& extent, size_t L, int64_t C, Coord& at, int64_t& n) {
    for (size_t i = L; i-- > 0;) {
        at[i] = row % extent[i];
        row /= extent[i];
    }
    n = row / C;
    return row % C;
}

// The most threads the last call allowed (for the tests).
std::atomic<int> threads_allowed{0};

// The call's undecided elements, each way: added to once a task, on a cache line of their own (the
// threads read the call's shared state through references to the caller's frame; an atomic there
// added to once a row sent that line from core to core).
struct alignas(64) Tally {
    std::atomic<uint64_t> exact{0}, plain{0};
};

// parallel_for over rows in runs of at most about kTaskWork units (each row `work` of them), as
// many runs as a multiple of the threads allows (rows_per_task), on at most one thread per `grain`
// units in all: f(row, b) with the running thread's scratch b, looked up once a run (a
// thread_local costs a call); f counts the run's undecided elements in b.exact and b.plain, added
// to `tally` once a run.

template <class T, class F> void for_rows(int64_t rows, int64_t work, int64_t grain, Tally& tally, F&& f) {
    work = std::max<int64_t>(1, work);
    const int most = threads_for_work(rows * work, grain);
    const int64_t per = rows_per_task(rows, work, kTaskWork, parallel_threads(rows, most));
    threads_allowed.store(most, std::memory_order_relaxed);
    parallel_for(
        (rows + per - 1) / per,
        [&](int64_t task) {
        Scratch<T>& b = scratch<T>();
        b.exact = b.plain = 0;
        const int64_t last = std::min(rows, (task + 1) * per);
        for (int64_t row = task * per; row < last; ++row) f(row, b);
        if (b.exact) tally.exact.fetch_add(b.exact, std::memory_order_relaxed);
        if (b.plain) tally.plain.fetch_add(b.plain, std::memory_order_relaxed);
        },
        most);
}

// ---- Forward -------------------------------------------------------------------------------

template <class T> bool forward(const avgpool::Window& w, const TensorView& X, const TensorView& Y) {
    if (w.taps > kMaxTaps) return false;
    const uint64_t taps = w.taps.get_ui();
    const size_t L = w.spatial - 1;  // the row's dimension
    const int64_t W = w.in[L], OW = w.out[L], S = w.stride[L], dil = w.dilation[L], KW = w.size[L], pad = w.start[L];
    const int64_t Wp = (OW - 1) * S + (KW - 1) * dil + 1;  // padded positions a row of windows reads
    const int64_t jlo = std::min(pad, Wp), jhi = std::max(jlo, std::min(pad + W, Wp));  // the real ones
    const bool exact_sums = is_half_v<T> && taps <= kExactHalfTaps;
    const DivisorRows divisors = divisor_rows(w, taps);
    int64_t outer = 1;
    for (size_t i = 0; i < L; ++i) outer *= w.out[i];
    const int64_t C = Y.sizes()[1], rows = int64_t(Y.sizes()[0]) * C * outer;
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    const int64_t xstep = X.strides[L + 2], ystep = Y.strides[L + 2];
    const double n1 = double(taps - 1);
    Tally tally;
    for_rows<T>(rows, int64_t(taps) * OW, kForwardGrain, tally, [&](int64_t row, Scratch<T>& b) {
        b.room.resize(size_t(Wp));
        b.v.assign(size_t(Wp), 0.0);
        b.a.assign(exact_sums ? 0 : size_t(Wp), 0.0);
        b.s.resize(size_t(OW));
        b.e.resize(size_t(OW));
        b.q.resize(exact_sums ? size_t(OW) : 0);
        b.value.resize(size_t(OW));
        b.undecided.resize(size_t(OW));
        double* s = b.s.data();
        double* e = b.e.data();
        Coord o{}, lo{}, hi{}, k{};
        int64_t n = 0;
        const int64_t c = split_row(row, w.out, L, C, o, n);
        int64_t outer_count = 1;
        for (size_t i = 0; i < L; ++i) {
            const TapRange r = pooling_real_taps(w, i, o[i]);
            lo[i] = k[i] = r.lo;
            hi[i] = r.hi;
            outer_count *= r.hi - r.lo;
        }
        // The column sums: v[j] = the sum of padded position j over the window rows (+0 for
        // padding), a[j] the same of the magnitudes.
        if (outer_count > 0 && jhi > jlo) do {
                Coord pos{};
                for (size_t i = 0; i < L; ++i) pos[i] = o[i] * w.stride[i] - w.start[i] + k[i] * w.dilation[i];
                pos[L] = jlo - pad;
                const float* f = row_floats(x + pooling_offset(X.strides, n, c, pos, w.spatial), xstep, jhi - jlo,
                                            b.room.data());
                pool_add_floats(b.v.data() + jlo, exact_sums ? nullptr : b.a.data() + jlo, f, jhi - jlo);
            } while (pooling_next(k, lo, hi, L));
        // The window sums along the row, then q and its bound e in place of s and a.
        pool_window_sums(s, b.v.data(), OW, S, KW, dil);
        const double* D = divisors.divisors(row % outer);
        double* q = s;  // the quotients: in place of the sums, or beside the exact ones
        if (exact_sums) {
            q = b.q.data();
            pool_exact_quotients(s, q, e, D, OW);
        } else {
            pool_window_sums(e, b.a.data(), OW, S, KW, dil);
            pool_quotients(s, e, D, divisors.reciprocals(row % outer), n1, OW);
        }
        Coord at = o;
        at[L] = 0;
        T* out = y + pooling_offset(Y.strides, n, c, at, w.spatial);
        uint8_t* undecided = b.undecided.data();
        const bool some = decide_row(q, e, b.value.data(), undecided, OW);
        write_decided(b.value.data(), undecided, some, out, ystep, OW);
        if (!some) return;
        for_each_undecided(undecided, OW, [&](int64_t j) {
            T& v = out[j * ystep];
            const double Dj = D[j];
            if (Dj == 0) {  // no real element, IncludePadding FALSE: +0 (DontCare)
                v = T(0);
                return;
            }
            if (decide(q[j], e[j], v)) return;  // decide's own interval, a little narrower
            at[L] = j;
            FastSum f;  // S exactly where f.b is 0: then V = q exactly where the remainder S - q D is 0
            if (exact_sums) {
                f.s = s[j];
            } else {  // the window's real elements: rows k in [lo, hi), taps [r.lo, r.hi) along the row
                const TapRange r = pooling_real_taps(w, L, j);
                Coord kk = lo;
                if (r.hi > r.lo && outer_count > 0) do {
                        Coord pos{};
                        for (size_t i = 0; i < L; ++i) pos[i] = o[i] * w.stride[i] - w.start[i] + kk[i] * w.dilation[i];
                        pos[L] = j * S - pad + r.lo * dil;
                        const T* p = x + pooling_offset(X.strides, n, c, pos, w.spatial);
                        for (int64_t t = r.lo; t < r.hi; ++t, p += xstep * dil) f.add(widen_fast(*p));
                    } while (pooling_next(kk, lo, hi, L));
            }
            if (exact_quotient(f, Dj, v)) {
                ++b.exact;
                return;
            }
            v = avgpool::average_element(w, x, X.strides, n, c, at);
            ++b.plain;
        });
    });
    decided_count = uint64_t(rows * OW) - tally.exact - tally.plain;
    exact_count = tally.exact.load();
    plain_count = tally.plain.load();
    return true;
}

// ---- Grad ----------------------------------------------------------------------------------

// The dY positions o along dimension i whose windows hold position x: [lo, hi) (no dilation).
TapRange holders(const avgpool::Window& w, size_t i, int64_t x) {
    const int64_t t = x + w.start[i];  // o * stride <= t <= o * stride + size - 1
    const int64_t first = t - w.size[i] + 1;
    const int64_t lo = first <= 0 ? 0 : (first + w.stride[i] - 1) / w.stride[i];
    const int64_t hi = std::min(w.out[i], t / w.stride[i] + 1);
    return {lo, std::max(lo, hi)};
}

template <class T> bool backward(const avgpool::Window& w, const TensorView& dY, const TensorView& dX) {
    if (w.taps > kMaxTaps) return false;
    const uint64_t taps = w.taps.get_ui();
    uint64_t K = 1;  // windows holding one position, at most
    for (size_t i = 0; i < w.spatial; ++i) K *= uint64_t((w.size[i] + w.stride[i] - 1) / w.stride[i]);
    const size_t L = w.spatial - 1;
    const int64_t W = w.in[L], OW = w.out[L], S = w.stride[L], KW = w.size[L], pad = w.start[L];
    int64_t in_outer = 1;
    for (size_t i = 0; i < L; ++i) in_outer *= w.in[i];
    const int64_t C = dX.sizes()[1], N = dX.sizes()[0];
    const T* dy = dY.data<T>();
    T* dx = dX.data<T>();
    const int64_t dystep = dY.strides[L + 2], dxstep = dX.strides[L + 2];
    DivisorRows divisors = divisor_rows(w, taps);
    // FLOAT16 with K M <= 2^13, M the divisors' least common multiple: exact sums of dY (M / D)
    // (header comment), whose quotient by M is V.
    const uint64_t multiple = is_half_v<T> && K <= kExactHalfTaps ? divisors.set_weights(kExactHalfTaps / K) : 0;
    const bool exact_sums = multiple != 0;
    const double Md = double(multiple);
    // The column sums u[o] (o < OW) of a dX row live in a row of zeros: G before (windows left of
    // the first), and up to the last window any dX position of the row could need.
    const int64_t G = (KW + S - 1) / S;
    const int64_t ulen = G + std::max(OW, (W - 1 + pad) / S + 1) + 1;
    // Along the row: dX position p (padded t = p + pad = q S + r) is held by the windows q - i,
    // i < n_r = ceil((KW - r) / S) (those outside [0, OW) read zeros). The positions of one r are
    // a plane p0, p0 + S, ... (count of them, q = q0, q0 + 1, ...).
    struct Plane {
        int64_t p0, count, q0, nr;
    };
    std::vector<Plane> planes;
    for (int64_t r = 0; r < S; ++r) {
        const int64_t p0 = ((r - pad) % S + S) % S;
        if (p0 < W) planes.push_back({p0, (W - p0 + S - 1) / S, (p0 + pad) / S, r < KW ? (KW - r + S - 1) / S : 0});
    }
    // The plain element's table of the windows reading each position (avgpool::readers): built
    // once, by the first element left to it (most calls have none: a table of vectors per call
    // was a fixed cost of every call).
    std::once_flag readers_once;
    avgpool::Readers readers;
    auto plain_element = [&](int64_t n, int64_t c, const Coord& at) {
        std::call_once(readers_once, [&] { readers = avgpool::readers(w); });
        return avgpool::average_grad_element(w, readers, dy, dY.strides, n, c, at);
    };
    const double Kd = double(K + 1);  // the bound's K + 1 (header comment)
    Tally tally;
    for_rows<T>(N * C * in_outer, int64_t(K) * W + OW * int64_t(taps), kGradGrain, tally,
                [&](int64_t row, Scratch<T>& b) {
        b.room.resize(size_t(OW));
        b.v.assign(size_t(ulen), 0.0);
        b.a.assign(exact_sums ? 0 : size_t(ulen), 0.0);
        b.s.resize(size_t(W));
        b.e.resize(size_t(W));
        b.value.resize(planes.size() * size_t(W));
        b.row.resize(size_t(W));
        b.undecided.resize(planes.size() * size_t(W));
        double* u = b.v.data() + G;
        double* ua = exact_sums ? nullptr : b.a.data() + G;
        Coord x{}, lo{}, hi{}, k{};
        int64_t n = 0;
        const int64_t c = split_row(row, w.in, L, C, x, n);
        bool any = true;
        for (size_t i = 0; i < L; ++i) {
            const TapRange r = holders(w, i, x[i]);
            lo[i] = k[i] = r.lo;
            hi[i] = r.hi;
            any = any && r.hi > r.lo;
        }
        // The column sums: u[o] = the sum of the terms t = dY / D(o) of column o over the dY rows
        // holding the dX row, ua[o] the same of their magnitudes.
        if (any) do {
                int64_t p = 0;  // k's outer position
                for (size_t i = 0; i < L; ++i) p = p * w.out[i] + k[i];
                Coord o = k;
                o[L] = 0;
                const float* f = row_floats(dy + pooling_offset(dY.strides, n, c, o, w.spatial), dystep, OW,
                                            b.room.data());
                if (exact_sums) pool_add_weighted(u, f, divisors.weights(p), OW);
                else pool_add_terms(u, ua, f, divisors.reciprocals(p), OW);
            } while (pooling_next(k, lo, hi, L));
        Coord at = x;
        at[L] = 0;
        T* out = dx + pooling_offset(dX.strides, n, c, at, w.spatial);
        // An undecided element j: V = sum dY[o] / D(o) = (sum dY[o] (M / D(o))) / M, M the
        // divisors' least common multiple: each product is exact (a significand of at most 24
        // bits times an integer of at most 2^29), so where their FastSum is exact and so is its
        // quotient by M, that quotient is V. Otherwise the plain loop's element.
        // The row is assembled in row_out (in the cache), then written out in one pass.
        T* row_out = b.row.data();
        // Position j's windows are the dY rows k in [lo, hi) times the columns top - i, i < nr, in
        // [0, OW).
        auto settle = [&](int64_t j, int64_t top, int64_t nr, double sum) {
            T& v = row_out[j];
            at[L] = j;
            if (exact_sums) {  // sum is S' = M V exactly
                FastSum f;
                f.s = sum;
                if (exact_quotient(f, Md, v)) {
                    ++b.exact;
                    return;
                }
                v = plain_element(n, c, at);
                ++b.plain;
                return;
            }
            std::vector<std::pair<double, uint64_t>>& terms = b.terms;
            terms.clear();
            uint64_t multiple = 1;
            Coord o = lo;
            do {
                int64_t p = 0;  // the dY row's outer position
                for (size_t i = 0; i < L; ++i) p = p * w.out[i] + o[i];
                const double* D = divisors.divisors(p);
                for (int64_t i = 0; i < nr; ++i) {
                    o[L] = top - i;
                    if (o[L] < 0 || o[L] >= OW) continue;
                    const uint64_t d = uint64_t(D[o[L]]);
                    multiple = multiple > kMaxMultiple ? multiple : std::lcm(multiple, d);
                    terms.push_back({widen_fast(dy[pooling_offset(dY.strides, n, c, o, w.spatial)]), d});
                }
            } while (pooling_next(o, lo, hi, L));
            if (multiple <= kMaxMultiple) {
                FastSum f;
                for (const auto& [term, d] : terms) f.add(term * double(multiple / d));
                if (exact_quotient(f, double(multiple), v)) {
                    ++b.exact;
                    return;
                }
            }
            v = plain_element(n, c, at);
            ++b.plain;
        };
        // Each plane: a contiguous window sum of u, decided as a row and written with step S.
        // Each plane decided into its own row (row_out itself for Strides 1), then spread into
        // row_out: one interleaving pass for two planes, else with step S.
        bool any_undecided = false;
        for (size_t pi = 0; pi < planes.size(); ++pi) {
            const Plane& plane = planes[pi];
            const int64_t p0 = plane.p0, count = plane.count, q0 = plane.q0, nr = plane.nr;
            T* value = S == 1 ? row_out : b.value.data() + pi * size_t(W);
            uint8_t* undecided = b.undecided.data() + pi * size_t(W);
            bool some = false;
            if (nr == 0) {  // held by no window: +0
                std::fill(value, value + count, T(0));
                std::fill(undecided, undecided + count, uint8_t(0));
#if defined(DMLREF_POOL_F16C_PATHS)
            } else if (have_f16c()) {
                const double* top = u + q0 - (nr - 1);
                if constexpr (is_half_v<T>) {
                    if (exact_sums) some = grad_plane_exact_f16c(top, nr, Md, count, value, undecided);
                }
                if (!exact_sums) some = grad_plane_f16c(top, ua + q0 - (nr - 1), nr, Kd, count, value, undecided);
#endif
            } else {
                double* s = b.s.data();
                double* e = b.e.data();
                pool_window_sums(s, u + q0 - (nr - 1), count, 1, nr, 1);
                if (exact_sums) {
                    for (int64_t m = 0; m < count; ++m) {
                        s[m] = s[m] / Md;
                        e[m] = std::fabs(s[m]) * 0x1p-52;
                    }
                } else {
                    pool_window_sums(e, ua + q0 - (nr - 1), count, 1, nr, 1);
                    pool_grad_bounds(e, Kd, count);
                }
                some = decide_row(s, e, value, undecided, count);
            }
            any_undecided = any_undecided || some;
            if (S > 2) {
                for (int64_t m = 0; m < count; ++m) row_out[p0 + m * S] = value[m];
            }
        }
        if (S == 2) {
            const size_t first = planes[0].p0 == 0 ? 0 : 1;  // the plane of the even positions
            const T* __restrict even = b.value.data() + first * size_t(W);
            const T* __restrict odd = b.value.data() + (first ^ 1) * size_t(W);
            const int64_t pairs = W / 2;
            interleave(row_out, even, odd, pairs);
            if (W % 2) row_out[W - 1] = even[pairs];
        }
        if (any_undecided) {
            for (size_t pi = 0; pi < planes.size(); ++pi) {
                const Plane& plane = planes[pi];
                const int64_t p0 = plane.p0, q0 = plane.q0, nr = plane.nr;
                for_each_undecided(b.undecided.data() + pi * size_t(W), plane.count, [&](int64_t m) {
                    double sum = 0;  // the plane's sum, again (exact where exact_sums)
                    if (exact_sums) {
                        sum = u[q0 + m - (nr - 1)];
                        for (int64_t t = 1; t < nr; ++t) sum += u[q0 + m - (nr - 1) + t];
                    }
                    settle(p0 + m * S, q0 + m, nr, sum);
                });
            }
        }
        if (dxstep == 1) std::memcpy(static_cast<void*>(out), row_out, size_t(W) * sizeof(T));
        else
            for (int64_t j = 0; j < W; ++j) out[j * dxstep] = row_out[j];
    });
    decided_count = uint64_t(N * C * in_outer * W) - tally.exact - tally.plain;
    exact_count = tally.exact.load();
    plain_count = tally.plain.load();
    return true;
}

}  // namespace

bool average_pool(const avgpool::Window& w, const TensorView& X, const TensorView& Y) {
    switch (X.desc.DataType) {
        case DataType::FLOAT32: return forward<float>(w, X, Y);
        case DataType::FLOAT16: return forward<half>(w, X, Y);
        default: return false;
    }
}

bool average_pool_grad(const avgpool::Window& w, const TensorView& dY, const TensorView& dX) {
    switch (dY.desc.DataType) {
        case DataType::FLOAT32: return backward<float>(w, dY, dX);
        case DataType::FLOAT16: return backward<half>(w, dY, dX);
        default: return false;
    }
}

AveragePoolingFastCounts average_pooling_fast_counts() {
    return {decided_count.load(), exact_count.load(), plain_count.load(), threads_allowed.load()};
}

}  // namespace dmlref::reference::fast
