// FastSum: ExactSum's result at float speed. Terms are added in float64 with an error-free
// transformation and a running error bound; the correctly rounded sum is proved or the caller
// falls back to ExactSum (reference/exact_sum.hpp). Internal to dmlref.
//
// How it proves the result (docs/golden.md, Decisions asks for the exact sum rounded once to float64):
//   - every addition s + t is split exactly into s' + e (Knuth's TwoSum, exact for any finite
//     doubles, subnormals included); the e go to a compensation c, whose own additions round:
//     each by at most 2^-53 |c'| (an addition with a subnormal result is exact), so the exact
//     sum lies within bound = 2^-52 * sum |c'| of s + c (2^-52 leaves room for the rounding of
//     the bound itself, for fewer than 2^50 terms);
//   - r = fl(s + c), again split exactly: exact sum = r + t + delta with |delta| <= bound;
//   - r is the exact sum rounded to nearest when |t| + bound is below half of the gap from |r|
//     to the next double toward 0 (the smaller of its two gaps), strictly: a sum on a rounding
//     midpoint, near 0, or with an infinity, NaN or overflow anywhere is left undecided.
// Nothing here reads or sets the rounding mode; -ffp-contract=off keeps every step unfused.
#pragma once

#include "exact_sum.hpp"
#include "fast/decide.hpp"
#include "fast/switch.hpp"

#include <cmath>
#include <optional>

namespace dmlref::reference {

// Knuth's TwoSum: sum = fl(a + b), and the returned error e with a + b = sum + e exactly (any
// finite doubles, subnormals included; NaN where an operand is infinite or NaN, or the sum
// overflows). Every fast path's checked addition is this one.
inline double two_sum(double a, double b, double& sum) {
    sum = a + b;
    const double bb = sum - a;
    return (a - (sum - bb)) + (b - bb);
}

struct FastSum {
    double s = 0, c = 0, b = 0;  // s + c approximates the sum; b accumulates |c'| for the bound

    void add(double t) { add(s, c, b, t); }
    // The same on three doubles held elsewhere (loops that keep many sums side by side).
    static void add(double& s, double& c, double& b, double t) {
        const double e = two_sum(s, t, s);  // s + t = s' + e exactly
        c += e;
        b += std::fabs(c);
    }
    // add for n sums side by side: sum k gets the term (scale * weight[k]) * value[k]. One
    // vectorised loop (fast_sum.cpp; AVX2 where the CPU has it: the same IEEE operations, unfused).
    static void add_scaled(double* __restrict s, double* __restrict c, double* __restrict b,
                           const double* __restrict weight, const double* __restrict value, double scale, size_t n);
    // The same with value[k] = row[index[k]] (a gather).
    static void add_gathered(double* __restrict s, double* __restrict c, double* __restrict b,
                             const double* __restrict weight, const double* __restrict row,
                             const int32_t* __restrict index, double scale, size_t n);

    // Term tables for sums kept side by side: out[k] = (scale * weight[k]) * row[index[k]] (a
    // gather), or the same with row[index[k]] = value[k * step], step 1 or 2 (plain loads).
    static void terms_gathered(double* __restrict out, const double* __restrict weight, const double* __restrict row,
                               const int32_t* __restrict index, double scale, size_t n);
    static void terms_strided(double* __restrict out, const double* __restrict weight, const double* __restrict value,
                              int step, double scale, size_t n);
    // The same reading a FLOAT32 row (widened exactly on the way).
    static void terms_gathered(double* __restrict out, const double* __restrict weight, const float* __restrict row,
                               const int32_t* __restrict index, double scale, size_t n);
    static void terms_strided(double* __restrict out, const double* __restrict weight, const float* __restrict value,
                              int step, double scale, size_t n);
    // The same with row[index[2i]] = row[index[2i + 1]] = value[i] (a row upsampled by 2), i < pairs.
    static void terms_halved(double* __restrict out, const double* __restrict weight, const double* __restrict value,
                             double scale, size_t pairs);
    static void terms_halved(double* __restrict out, const double* __restrict weight, const float* __restrict value,
                             double scale, size_t pairs);
    // Sum k (k < n) of q terms table[j * stride + k], j < q, added in that order from +0 into
    // registers: s[k], c[k], b[k] are the FastSum of those terms (any q; one vectorised loop
    // for q up to 16).
    static void add_tables(double* __restrict s, double* __restrict c, double* __restrict b,
                           const double* __restrict table, size_t q, size_t stride, size_t n);
    // out[k * out_step] = narrow_rounded<float>(s[k], c[k], b[k]) for every k, branch-free (one
    // vectorised loop). True when every one was proved; otherwise the caller finds the others
    // with narrow_rounded (their out holds garbage until then).
    static bool narrow_floats(const double* __restrict s, const double* __restrict c, const double* __restrict b,
                              float* out, int64_t out_step, size_t n);

    // The exact sum rounded once to float64, or nullopt when that is not proved.
    std::optional<double> rounded() const {
        if (!std::isfinite(s) || !std::isfinite(c) || !std::isfinite(b)) return std::nullopt;
        const double r = s + c;
        const double rr = r - s;
        const double t = (s - (r - rr)) + (c - rr);  // s + c = r + t exactly
        const double bound = b * 0x1p-52;
        if (t == 0 && bound == 0) return r + 0.0;  // exact: nothing was rounded (+0 when the terms cancel)
        if (r == 0 || !std::isfinite(r)) return std::nullopt;
        const double a = std::fabs(r);
        const double gap = a - from_bits<double>(to_bits(a) - 1);  // to the next double toward 0; exact
        const double slack = (std::fabs(t) + bound) * (1 + 0x1p-50);
        if (slack < gap * 0.5 && gap * 0.5 != 0) return r;
        return std::nullopt;
    }
};

// widen(v) inline: FLOAT16 through Eigen's exact half-to-float (every binary16 is a binary32,
// subnormals included), the others as widen does. For the fast paths' inner loops.
template <class T> inline double widen_fast(T v) {
    if constexpr (is_half_v<T>) return double(static_cast<float>(v));
    else return widen(v);
}

// The rounded sum when every addition was exact (b == 0: no compensation ever, hence finite
// terms, no overflow): s itself, +0 for cancelling terms. Covers zero and one term too.
template <class T> inline T exact_result(double s) {
    if constexpr (std::is_integral_v<T>) {
        return round_to_integer_saturate<T>(s);
    } else if constexpr (is_half_v<T>) {
        // A float64 that is a float32 rounds to FLOAT16 the same from either: Eigen's inline
        // float-to-half (nearest even) then; half_from_double otherwise.
        const float f = static_cast<float>(s + 0.0);
        return double(f) == s ? T(f) : round_to_float<T>(s + 0.0);
    } else {
        return round_to_float<T>(s + 0.0);
    }
}

// ---- Narrow results: FLOAT32 and FLOAT16 ---------------------------------------------------
// A sum whose result is T = FLOAT32 or FLOAT16 needs less than rounded()'s proof: T has 29 (or
// 42) bits fewer than float64, so FastSum's s, c and b almost always settle T's rounding of the
// exact sum even where its float64 rounding is undecided. Why:
//   - b == 0: every addition was exact (FastSum above), the sum is s itself (+0 for cancelling
//     terms): T's rounding of s; a sum on one of T's rounding midpoints is decided here;
//   - otherwise the exact sum lies within 2^-52 b of s + c; r = fl(s + c) rounds by 2^-53 |r|
//     more, ExactSum's rounding to float64 by 2^-53 |exact sum| more; w = 2^-51 b + 2^-50 |r| +
//     2^-1070 covers these, the roundings of r - w, r + w and of w itself, and underflow; so the
//     float64 rounding of the exact sum lies in [r - w, r + w];
//   - rounding to T is monotone: when r - w and r + w round to the same T (same bits: -0 and +0
//     differ), so does every value between them, that one included (rounds_to_one,
//     fast/decide.hpp).
// A NaN or infinity anywhere, or an overflow, makes b non-finite: undecided, and the caller sums
// exactly, as when the interval holds a rounding boundary.
template <class T> inline constexpr bool is_narrow_v = std::is_same_v<T, float> || is_half_v<T>;

// T's rounding of the exact sum from FastSum's s, c and b; false when not proved.
template <class T> inline bool narrow_rounded(double s, double c, double b, T& out) {
    static_assert(is_narrow_v<T>);
    if (b == 0) {
        out = exact_result<T>(s);
        return true;
    }
    if (!std::isfinite(b)) return false;
    const double r = s + c;
    const double w = b * 0x1p-51 + std::fabs(r) * 0x1p-50 + 0x1p-1070;
    return rounds_to_one(r - w, r + w, out);
}

// The one-term sum: ExactSum's result for a single term, without an accumulator.
template <class T> T single_term(double t) {
    if constexpr (std::is_integral_v<T>) {
        if (std::isnan(t)) return T(0);
        return round_to_integer_saturate<T>(t);  // infinities saturate
    } else {
        if (std::isnan(t)) return canonical_nan<T>();
        return round_to_float<T>(t + 0.0);  // -0 + +0 = +0: every sum starts from +0
    }
}

// The rounded result of a FastSum over `terms`, ExactSum when undecided.
template <class T, class Terms> T finish_sum(const FastSum& f, Terms&& terms) {
    if (const std::optional<double> r = f.rounded()) {
        if constexpr (std::is_integral_v<T>) return round_to_integer_saturate<T>(*r);
        else return round_to_float<T>(*r);
    }
    ExactSum e;
    terms([&](double t) { e.add(t); });
    return e.template result<T>();
}

// ExactSum's result<T>() of the terms that `terms(add)` passes to add, in any order. Zero terms
// give +0 and one term is rounded directly; otherwise FastSum, and ExactSum (calling `terms`
// a second time) only when FastSum leaves the rounding undecided. With the fast paths switched
// off (fast/switch.hpp), ExactSum alone: the plain loops the tests compare against are then
// exactly the reference.
template <class T, class Terms> T exact_sum_of(Terms&& terms) {
    if (!fast_paths_enabled()) {
        ExactSum e;
        terms([&](double t) { e.add(t); });
        return e.template result<T>();
    }
    FastSum f;
    uint32_t n = 0;
    double first = 0;
    terms([&](double t) {
        if (n++ == 0) first = t;
        f.add(t);
    });
    if (n == 0) return single_term<T>(0.0);
    if (n == 1) return single_term<T>(first);
    return finish_sum<T>(f, terms);
}

}  // namespace dmlref::reference
