// Batch normalization's per-channel work without rationals (batch_normalization_channel.hpp), for the fast path
// (reference/fast/batch_normalization.cpp, whose header's steps S3, G0 and G1 these serve). Every value here is an
// integer; nothing is estimated, so every result is the rational computation's, bit for bit.
//  C1. The totals (ExactTotal). Every term the sums take is a multiple of 2^-298: a FLOAT32 or a FLOAT16 of
//      2^-149, a product of two of 2^-298, and the level sums of steps S1 to S5 and the bins of Moments and
//      GradSums are exact sums of those. Their magnitudes stay below 2^295 (M < 2^38 terms, each below 2^128,
//      or 2^256 for a product), and the grads' sum dY (X - Mean) = sum dY X - Mean sum dY below 2^296. So each
//      total is an integer z below 2^594 in units of 2^-298, and 640-bit two's complement arithmetic, which is
//      arithmetic modulo 2^640, gives z exactly: the partial sums may wrap, the total cannot. A double d = m
//      2^k (frexp: |m| < 2^53 an integer) is m 2^(k + 298) units, an integer where the bits of m below 2^(-k -
//      298) are 0 (add checks it; a double that is not such a multiple, or not finite, leaves the channel to
//      the rationals). Mean sum dY: Mean = m 2^k with m odd; sum dY is a multiple of 2^-149 (FLOAT32) or 2^-24
//      (FLOAT16) and Mean one of 2^-149 or 2^-24, so m z 2^k is an integer of units: z m (exact modulo 2^640,
//      and below 2^(bits(z) + 53) < 2^640 where subtract_multiple checks that), then shifted by k (an
//      arithmetic right shift is exact when the bits shifted out are 0, which subtract_multiple checks).
//  C2. Truncation (truncated): the top 53 bits of |z| and the weight of the lowest of them, the value scaled by
//      2^-298 (a multiple of 2^-298 at least 2^-298: normal), rounded toward zero, the sign restored: mpq_get_d's
//      value, so step G0 sees the same k as from the rational.
//  C3. Quotients (quotient_rn): RN53(z 2^(e - 298) / D) for 0 < D < 2^64. The long division of |z| 2^128 by D,
//      64 bits a step (each step's remainder below D, so each quotient digit below 2^64), gives the integer
//      quotient p and whether a remainder is left (sticky). |z| >= 1 makes p >= 2^128 / D > 2^64, at least 12
//      bits more than the 53 kept: p's bits below its top 53 against half their weight, ties broken by sticky
//      and then to even, round |z| 2^128 / D to 53 bits as round_rational would (p's floor loses only the
//      fraction, which sticky stands for). The scaled result is returned where its exponent is within the
//      normal range (2^-1021 to 2^1000), otherwise NaN (then the caller takes the rationals). The training grad's
//      a~ = RN(sum dY / M) is quotient_rn(sum dY, M, 0), and c~ = RN(sum_c / (M D)) with D = Variance + Epsilon =
//      n 2^l (n an odd integer, from the two doubles' significands aligned at the lower one's lowest bit, below
//      2^100 before the check) is quotient_rn(sum_c, M n, -l) where 0 < M n < 2^64 (otherwise the rationals).
//      Variance + Epsilon <= 0 or a non-finite Variance: c~ = 0, as training_grad_constants gives it.
//      test/test_fast_batch_normalization.cpp checks every value against the rationals (training_grad_constants,
//      mpq_get_d), on random totals and on planted ties, exact halves, cancellations and ranges.
#include "batch_normalization_channel.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace dmlref::reference::fast {

namespace {

__extension__ typedef unsigned __int128 u128;
using Limbs = std::array<uint64_t, ExactTotal::kLimbs>;

Limbs magnitude(const ExactTotal& t) {
    Limbs a = t.limb;
    if (!t.negative()) return a;
    uint64_t carry = 1;  // ~a + 1
    for (uint64_t& w : a) {
        const u128 s = u128(~w) + carry;
        w = uint64_t(s);
        carry = uint64_t(s >> 64);
    }
    return a;
}

// The index of the top set bit of a (at least one set).
template <size_t N> int top_bit(const std::array<uint64_t, N>& a) {
    int i = int(N) - 1;
    while (a[size_t(i)] == 0) --i;
    return 64 * i + 63 - std::countl_zero(a[size_t(i)]);
}
template <size_t N> bool all_zero(const std::array<uint64_t, N>& a) {
    for (const uint64_t w : a)
        if (w != 0) return false;
    return true;
}
// The 64 bits of a from bit `low` on (zeros past the top).
template <size_t N> uint64_t bits_from(const std::array<uint64_t, N>& a, int low) {
    const size_t q = size_t(low / 64);
    const int r = low % 64;
    const uint64_t lo = a[q] >> r;
    const uint64_t hi = r != 0 && q + 1 < N ? a[q + 1] << (64 - r) : 0;
    return lo | hi;
}
// Whether any bit of a below bit `end` is set.
template <size_t N> bool any_below(const std::array<uint64_t, N>& a, int end) {
    const size_t q = size_t(end / 64);
    for (size_t i = 0; i < q && i < N; ++i)
        if (a[i] != 0) return true;
    const int r = end % 64;
    return r != 0 && q < N && (a[q] & ((uint64_t(1) << r) - 1)) != 0;
}

// (hi 2^64 + lo) / d and the remainder r, for hi < d (so the quotient fits 64 bits): one DIV on x86-64 (the u128
// division calls a library routine for any divisor).
inline uint64_t divide(uint64_t hi, uint64_t lo, uint64_t d, uint64_t& r) {
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t q;
    __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(d) : "cc");
    return q;
#else
    const u128 cur = (u128(hi) << 64) | lo;
    r = uint64_t(cur % d);
    return uint64_t(cur / d);
#endif
}

// frexp's d = m 2^(k - 53) with |m| < 2^53 an integer (m = frexp(d, &k) 2^53), from d's bits where d is normal (no
// library call), through frexp otherwise. d finite and nonzero.
inline int64_t significand(double d, int& k) {
    const uint64_t bits = std::bit_cast<uint64_t>(d);
    const int field = int((bits >> 52) & 0x7ffu);
    if (field == 0) return int64_t(std::ldexp(std::frexp(d, &k), 53));
    k = field - 1022;
    const int64_t m = int64_t((bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52));
    return (bits >> 63) != 0 ? -m : m;
}

// a 2^k modulo 2^640, 0 < k < 640.
Limbs shifted_left(const Limbs& a, int k) {
    Limbs s{};
    const int q = k / 64, r = k % 64;
    for (int i = ExactTotal::kLimbs - 1; i >= q; --i) {
        const uint64_t lo = a[size_t(i - q)];
        const uint64_t below = i - q >= 1 ? a[size_t(i - q - 1)] : 0;
        s[size_t(i)] = r == 0 ? lo : (lo << r) | (below >> (64 - r));
    }
    return s;
}
// floor(a 2^-k) for a in two's complement, 0 < k < 640.
Limbs shifted_right(const Limbs& a, int k) {
    const uint64_t fill = (a[ExactTotal::kLimbs - 1] >> 63) != 0 ? ~uint64_t(0) : 0;
    Limbs s;
    const int q = k / 64, r = k % 64;
    for (int i = 0; i < ExactTotal::kLimbs; ++i) {
        const uint64_t lo = i + q < ExactTotal::kLimbs ? a[size_t(i + q)] : fill;
        const uint64_t hi = i + q + 1 < ExactTotal::kLimbs ? a[size_t(i + q + 1)] : fill;
        s[size_t(i)] = r == 0 ? lo : (lo >> r) | (hi << (64 - r));
    }
    return s;
}

}  // namespace

bool ExactTotal::zero() const { return all_zero(limb); }

void ExactTotal::add(wide_int v, int shift) {
    if (v == 0) return;
    const size_t q = size_t(shift / 64);
    const int r = shift % 64;
    const u128 u = u128(v);
    const uint64_t lo = uint64_t(u), hi = uint64_t(u >> 64), ext = v < 0 ? ~uint64_t(0) : 0;
    // v 2^r as three limbs, the sign's extension (ext) above them.
    const uint64_t t[3] = {r == 0 ? lo : lo << r, r == 0 ? hi : (hi << r) | (lo >> (64 - r)),
                           r == 0 ? ext : (ext << r) | (hi >> (64 - r))};
    uint64_t carry = 0;
    for (size_t i = q; i < size_t(kLimbs); ++i) {
        const u128 s = u128(limb[i]) + (i - q < 3 ? t[i - q] : ext) + carry;
        limb[i] = uint64_t(s);
        carry = uint64_t(s >> 64);
    }
}

bool ExactTotal::add(double d) {
    if (d == 0) return true;
    if (!std::isfinite(d)) return false;
    // A subnormal double (below 2^-1022) is no multiple of 2^-298; otherwise d = m 2^(k - 53), |m| < 2^53.
    if (std::fabs(d) < 0x1p-1022) return false;
    int k;
    int64_t m = significand(d, k);
    if (k > 330) return false;  // beyond every total of step C1
    int shift = k - 53 - kUnit;
    if (shift < 0) {
        if (shift <= -53 || (m & ((int64_t(1) << -shift) - 1)) != 0) return false;  // not a multiple of 2^-298
        m >>= -shift;                                                               // exact
        shift = 0;
    }
    add(wide_int(m), shift);
    return true;
}

bool ExactTotal::subtract_multiple(const ExactTotal& x, double m) {
    if (!std::isfinite(m)) return false;
    if (m == 0 || x.zero()) return true;
    int k;
    int64_t mm = significand(m, k);  // m = mm 2^(k - 53)
    k -= 53;
    const int z = std::countr_zero(uint64_t(mm));
    mm >>= z;  // odd
    k += z;
    const bool minus = mm < 0;
    const uint64_t um = uint64_t(minus ? -mm : mm);  // below 2^53
    if (top_bit(magnitude(x)) + 1 + (64 - std::countl_zero(um)) >= 64 * kLimbs - 1) return false;
    // t = x um, exact (below 2^639 in magnitude: two's complement modulo 2^640 holds it).
    Limbs t;
    uint64_t carry = 0;
    for (size_t i = 0; i < size_t(kLimbs); ++i) {
        const u128 p = u128(x.limb[i]) * um + carry;
        t[i] = uint64_t(p);
        carry = uint64_t(p >> 64);
    }
    if (k < 0) {  // t 2^k: an arithmetic right shift, exact only where the bits shifted out are 0
        if (-k >= 64 * kLimbs - 1 || any_below(t, -k)) return false;
        t = shifted_right(t, -k);
    } else if (k > 0) {  // t 2^k modulo 2^640 (the caller's total fits: step C1)
        if (k >= 64 * kLimbs) return false;
        t = shifted_left(t, k);
    }
    // this -= t (this += t where m < 0).
    uint64_t c = minus ? 0 : 1;  // a - t = a + ~t + 1
    for (size_t i = 0; i < size_t(kLimbs); ++i) {
        const u128 s = u128(limb[i]) + (minus ? t[i] : ~t[i]) + c;
        limb[i] = uint64_t(s);
        c = uint64_t(s >> 64);
    }
    return true;
}

double ExactTotal::truncated() const {
    if (zero()) return 0.0;
    const Limbs a = magnitude(*this);
    const int b = top_bit(a);
    const int low = std::max(0, b - 52);
    const uint64_t top = bits_from(a, low) & ((uint64_t(1) << 53) - 1);
    const double v = double(top) * pow2(low + kUnit);  // exact: 53 bits, normal (low + kUnit in [-298, 341])
    return negative() ? -v : v;
}

mpq_class ExactTotal::rational() const {
    const Limbs a = magnitude(*this);
    mpz_class z;
    mpz_import(z.get_mpz_t(), a.size(), -1, sizeof(uint64_t), 0, 0, a.data());
    if (negative()) z = -z;
    mpq_class r(z);
    mpq_div_2exp(r.get_mpq_t(), r.get_mpq_t(), mp_bitcnt_t(-kUnit));  // canonical
    return r;
}

double quotient_rn(const ExactTotal& n, uint64_t D, int e) {
    if (n.zero()) return 0.0;
    const Limbs a = magnitude(n);
    // p = floor(|z| 2^128 / D), two limbs of zeros below a's.
    std::array<uint64_t, ExactTotal::kLimbs + 2> p{};
    uint64_t rem = 0;  // below D after every step
    for (int i = ExactTotal::kLimbs + 1; i >= 0; --i) p[size_t(i)] = divide(rem, i >= 2 ? a[size_t(i - 2)] : 0, D, rem);
    const int b = top_bit(p);  // at least 64
    const int low = b - 52;
    const uint64_t top = bits_from(p, low) & ((uint64_t(1) << 53) - 1);
    const bool half = ((bits_from(p, low - 1)) & 1) != 0;
    const bool up = half && (any_below(p, low - 1) || rem != 0 || (top & 1) != 0);
    const int scale = low - 128 + e + ExactTotal::kUnit;  // the weight of top's lowest bit
    if (scale + 52 < -1021 || scale + 52 > 1000) return std::numeric_limits<double>::quiet_NaN();
    // top + up (at most 2^53, exact) times 2^scale, in two exact steps by powers of two in float64's normal range (the
    // result, at least 2^-1021, is normal).
    const int half_scale = scale / 2;
    const double v = double(top + uint64_t(up)) * pow2(half_scale) * pow2(scale - half_scale);
    return n.negative() ? -v : v;
}

bool training_grad_constants_exact(const ExactTotal& sum_dy, const ExactTotal& sum_c, uint64_t M, double variance,
                                   float epsilon, double& a, double& c) {
    if (M == 0 || !std::isfinite(epsilon)) return false;
    a = quotient_rn(sum_dy, M, 0);
    if (std::isnan(a)) return false;
    if (!std::isfinite(variance)) {
        c = 0;
        return true;
    }
    // D = Variance + Epsilon = n 2^l.
    wide_int n = 0;
    int l = 0;
    const double parts[2] = {variance, double(epsilon)};
    int64_t m[2] = {0, 0};
    int k[2] = {0, 0};
    for (int i = 0; i < 2; ++i)
        if (parts[i] != 0) {
            m[i] = significand(parts[i], k[i]);
            k[i] -= 53;
        }
    if (m[0] == 0 && m[1] == 0) l = 0;
    else if (m[0] == 0 || m[1] == 0) {
        const int i = m[0] != 0 ? 0 : 1;
        n = m[i];
        l = k[i];
    } else {
        l = std::min(k[0], k[1]);
        if (k[0] - l > 40 || k[1] - l > 40) return false;  // n below 2^94
        n = (wide_int(m[0]) << (k[0] - l)) + (wide_int(m[1]) << (k[1] - l));
    }
    if (n <= 0) {
        c = 0;
        return true;
    }
    while ((n & 1) == 0) {
        n >>= 1;
        ++l;
    }
    if (n >= (wide_int(1) << 64) || u128(n) * M >= (u128(1) << 64)) return false;
    c = quotient_rn(sum_c, uint64_t(n) * M, -l);
    return !std::isnan(c);
}

}  // namespace dmlref::reference::fast
