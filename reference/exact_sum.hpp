// ExactSum: the exact sum of float64 terms, rounded once (docs/golden.md, Decisions). Shared by the
// operators whose values are sums (MAX_POOLING_GRAD, the RESAMPLE family). Internal to dmlref.
#pragma once

#include "dmlref/numeric.hpp"
#include "dmlref/types.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace dmlref::reference {

// The exact sum of float64 terms: a two's-complement fixed-point integer in units of 2^-1074
// (the smallest subnormal). A finite double is below 2^1024 = 2^2098 units; 2^32 terms add 32
// bits; 34 words (2176 bits) hold any sum of up to 2^32 terms with room for the sign.
// Infinities and NaN are tracked apart (docs/golden.md, Decisions).
class ExactSum {
public:
    void add(double d) {
        if (std::isnan(d)) {
            nan_ = true;
            return;
        }
        if (std::isinf(d)) {
            (d > 0 ? pos_inf_ : neg_inf_) = true;
            return;
        }
        const uint64_t bits = to_bits(d);
        const uint64_t exponent = (bits >> 52) & 0x7ff;
        uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1);
        if (mantissa == 0 && exponent == 0) return;  // ±0 adds nothing; the sum starts from +0
        // d = mantissa * 2^(shift - 1074): subnormals have shift 0, normals the hidden bit.
        size_t shift = 0;
        if (exponent != 0) {
            mantissa |= uint64_t(1) << 52;
            shift = exponent - 1;
        }
        const size_t word = shift / 64, bit = shift % 64;
        const uint64_t lo = mantissa << bit, hi = bit ? mantissa >> (64 - bit) : 0;
        if (d > 0) add_at(word, lo, hi);
        else sub_at(word, lo, hi);
    }

    // Rounded once to float64 (nearest, ties to even, overflow to infinity), then once to T:
    // a floating T rounds to nearest even; an integer T rounds half to even and saturates
    // (infinities saturate; NaN, which integer terms never give, becomes 0).
    template <class T> T result() const {
        if constexpr (std::is_integral_v<T>) {
            if (nan_ || (pos_inf_ && neg_inf_)) return T(0);
            if (pos_inf_) return std::numeric_limits<T>::max();
            if (neg_inf_) return std::numeric_limits<T>::min();
            return round_to_integer_saturate<T>(to_double());
        } else {
            if (nan_ || (pos_inf_ && neg_inf_)) return canonical_nan<T>();
            if (pos_inf_) return T(std::numeric_limits<float>::infinity());
            if (neg_inf_) return T(-std::numeric_limits<float>::infinity());
            return round_to_float<T>(to_double());
        }
    }

private:
    static constexpr size_t kWords = 34;
    std::array<uint64_t, kWords> w_{};
    bool nan_ = false, pos_inf_ = false, neg_inf_ = false;

    void add_at(size_t i, uint64_t lo, uint64_t hi) {
        uint64_t carry = 0;
        for (uint64_t v : {lo, hi}) {
            const uint64_t s = w_[i] + v;
            const uint64_t c1 = s < v;
            w_[i] = s + carry;
            carry = c1 + (w_[i] < carry);
            ++i;
        }
        for (; carry && i < kWords; ++i) carry = ++w_[i] == 0;
    }
    void sub_at(size_t i, uint64_t lo, uint64_t hi) {
        uint64_t borrow = 0;
        for (uint64_t v : {lo, hi}) {
            const uint64_t d = w_[i] - v;
            const uint64_t b1 = w_[i] < v;
            w_[i] = d - borrow;
            borrow = b1 + (d < borrow);
            ++i;
        }
        for (; borrow && i < kWords; ++i) borrow = w_[i]-- == 0;
    }

    double to_double() const {
        std::array<uint64_t, kWords> m = w_;
        const bool negative = m[kWords - 1] >> 63;
        if (negative) {  // magnitude = -m (two's complement)
            uint64_t carry = 1;
            for (auto& x : m) {
                x = ~x + carry;
                carry = carry && x == 0;
            }
        }
        size_t top = kWords;
        while (top > 0 && m[top - 1] == 0) --top;
        if (top == 0) return 0.0;                                             // +0, also for terms that cancel
        const int h = int(top - 1) * 64 + 63 - std::countl_zero(m[top - 1]);  // highest set bit
        auto bit = [&](int i) { return (m[size_t(i) / 64] >> (i % 64)) & 1; };
        // The significand is bits [low, h], at most 53 of them. With low == 0 nothing is dropped:
        // every multiple of 2^-1074 below 2^53 units is a double.
        const int low = std::max(0, h - 52);
        const size_t word = size_t(low) / 64, shift = size_t(low) % 64;
        uint64_t significand = m[word] >> shift;
        if (shift && word + 1 < kWords) significand |= m[word + 1] << (64 - shift);  // bits above h are 0
        if (low > 0) {  // round the dropped bits [0, low) to nearest, ties to even
            const bool half = bit(low - 1);
            const size_t below = size_t(low) - 1;  // the sticky bits are [0, below)
            bool sticky = (m[below / 64] & ((uint64_t(1) << (below % 64)) - 1)) != 0;
            for (size_t i = 0; i < below / 64 && !sticky; ++i) sticky = m[i] != 0;
            if (half && (sticky || (significand & 1))) ++significand;  // 2^53 is still exact
        }
        const double magnitude = std::ldexp(double(significand), low - 1074);  // overflows to inf
        return negative ? -magnitude : magnitude;
    }
};

}  // namespace dmlref::reference
