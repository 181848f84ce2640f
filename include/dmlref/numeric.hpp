// Exact arithmetic helpers: NaN tests, exact widening, correctly rounded narrowing, and an
// exact comparison between values of any two element types (docs/golden.md, Comparisons).
//
// Nothing here goes through a wider-but-inexact path: INT64 and UINT64 are never compared
// through a double, FLOAT16 is widened bit by bit, and every narrowing rounds once, to
// nearest with ties to even.
#pragma once

#include "dmlref/types.hpp"

#include <cmath>
#include <compare>
#include <limits>

namespace dmlref {

// c ? a : b on bit patterns, without a branch: element-wise kernels select with it so that
// their contiguous inner loops vectorise, and the selected value's bits pass unchanged.
template <class T> inline T select(bool c, T a, T b) {
    using B = bits_t<T>;
    const B mask = B(B(0) - B(c));
    return from_bits<T>(B((to_bits(a) & mask) | (to_bits(b) & B(~mask))));
}

template <class T> inline bool is_nan(T v) {
    if constexpr (is_half_v<T>) return (to_bits(v) & 0x7fffu) > 0x7c00u;
    else if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
    else return false;
}

// The type's canonical quiet NaN: positive sign, only the quiet bit set (docs/golden.md, Decisions).
template <class T> inline T canonical_nan() {
    if constexpr (is_half_v<T>) return from_bits<half>(0x7e00u);
    else if constexpr (std::is_same_v<T, float>) return from_bits<float>(0x7fc00000u);
    else return from_bits<double>(0x7ff8000000000000ull);
}

// Exact value of a FLOAT16 as a double (every binary16 is a double).
double half_to_double(half h);
// Correctly rounded double -> binary16: nearest, ties to even, overflow to infinity,
// subnormals kept, NaN keeps its sign and the top 9 payload bits (quiet bit forced).
half half_from_double(double d);

// Exact widening of a floating element to double.
template <class T> inline double widen(T v) {
    if constexpr (is_half_v<T>) return half_to_double(v);
    else return static_cast<double>(v);
}

// Rounds a double once to the floating type T (nearest-even, overflow to infinity).
template <class T> inline T round_to_float(double d) {
    if constexpr (is_half_v<T>) return half_from_double(d);
    else return static_cast<T>(d);  // SSE2 conversion: nearest-even (-frounding-math keeps it at run time)
}

// Rounds a double to the integer type T: nearest, ties to even, then saturates to T's range.
// NaN becomes 0 (callers that can meet NaN decide before calling).
template <class T> inline T round_to_integer_saturate(double d) {
    static_assert(std::is_integral_v<T>);
    if (std::isnan(d)) return T(0);
    const double r = std::nearbyint(d);  // default rounding mode: ties to even
    if (r <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    // 2^64 and 2^63 are doubles; max() of the 64-bit types is not, so compare with max()+1.
    const double limit = std::ldexp(1.0, int(sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0)));
    if (r >= limit) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
}

// ---- Exact numbers ---------------------------------------------------------------------
// A value of any element type held exactly: integers as a 128-bit integer, floats as a double
// (every FLOAT16/32/64 value is a double). Comparisons between the two kinds are exact.
struct Number {
    bool is_integer = false;
    int128_t i = 0;
    double f = 0.0;

    template <class T> static Number of(T v) {
        Number n;
        if constexpr (std::is_integral_v<T>) {
            n.is_integer = true;
            n.i = v;
        } else n.f = widen(v);
        return n;
    }
    bool is_nan() const { return !is_integer && std::isnan(f); }
};

// IEEE comparison of exact values: NaN is unordered, -0 == +0.
std::partial_ordering compare(const Number& a, const Number& b);
inline bool operator<(const Number& a, const Number& b) { return compare(a, b) == std::partial_ordering::less; }
inline bool operator>(const Number& a, const Number& b) { return compare(a, b) == std::partial_ordering::greater; }
inline bool operator<=(const Number& a, const Number& b) {
    auto c = compare(a, b);
    return c == std::partial_ordering::less || c == std::partial_ordering::equivalent;
}
inline bool operator>=(const Number& a, const Number& b) {
    auto c = compare(a, b);
    return c == std::partial_ordering::greater || c == std::partial_ordering::equivalent;
}

// D3D's min and max instructions (docs/golden.md, Decisions): a NaN operand is ignored (the other
// operand is returned; with both NaN the result is the second, a NaN), and -0 orders below +0 (IEEE 754-2019
// minimumNumber / maximumNumber, which D3D recommends).
Number min_number(const Number& a, const Number& b);
Number max_number(const Number& a, const Number& b);

// Stores an exact number into T: floats round once to nearest-even; integers that are already
// integers are range-checked by the caller; float values stored into integer types round to
// nearest-even and saturate (the policy "ClipBoundStore", docs/golden.md).
template <class T> inline T store(const Number& n) {
    if constexpr (std::is_integral_v<T>) {
        if (n.is_integer) {
            if (n.i < std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
            if (n.i > std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
            return static_cast<T>(n.i);
        }
        return round_to_integer_saturate<T>(n.f);
    } else {
        // An integer reaches a float type only from integer data, which dmlref never stores
        // into a float tensor; exact below 2^53.
        if (n.is_integer) return round_to_float<T>(static_cast<double>(n.i));
        return round_to_float<T>(n.f);
    }
}

}  // namespace dmlref

namespace dmlref {

// Exact comparison of two element values of any types: the same type compares natively (not
// FLOAT16), floating types (FLOAT16 included) through their exact double values, anything with
// an integer through Number. NaN is unordered; -0 == +0. The boolean forms below (exact_le ...)
// compare two FLOAT16 by an ordered integer key instead, for the vectoriser.
template <class A, class B> inline std::partial_ordering exact_compare(A a, B b) {
    if constexpr (std::is_same_v<A, B> && !is_half_v<A>) return a <=> b;
    else if constexpr (is_floating_v<A> && is_floating_v<B>) return widen(a) <=> widen(b);
    else return compare(Number::of(a), Number::of(b));
}
// FLOAT16 against FLOAT16 without converting: a half's bits map to an integer key that orders
// like its value (sign-magnitude to two's complement; -0 and +0 both map to 0), and a NaN is
// unordered. Exact, and branch-free so that element-wise loops vectorise.
inline int32_t half_order_key(half h) {
    const int32_t b = to_bits(h);
    const int32_t magnitude = b & 0x7fff;
    const int32_t negative = -(b >> 15);  // 0 or -1
    return (magnitude ^ negative) - negative;
}
inline bool half_ordered(half a, half b) {
    // int '&', not '&&': both sides are evaluated, so no branch.
    return static_cast<int>((to_bits(a) & 0x7fff) <= 0x7c00) & static_cast<int>((to_bits(b) & 0x7fff) <= 0x7c00);
}

// a <= b, a >= b, a > b, a < b on exact values (false when either is NaN).
template <class A, class B> inline bool exact_le(A a, B b) {
    if constexpr (is_half_v<A> && is_half_v<B>) return half_ordered(a, b) & (half_order_key(a) <= half_order_key(b));
    else if constexpr (std::is_same_v<A, B>) return a <= b;  // branch-free for the vectoriser
    else {
        auto c = exact_compare(a, b);
        return c == std::partial_ordering::less || c == std::partial_ordering::equivalent;
    }
}
template <class A, class B> inline bool exact_ge(A a, B b) { return exact_le(b, a); }
template <class A, class B> inline bool exact_lt(A a, B b) {
    if constexpr (is_half_v<A> && is_half_v<B>) return half_ordered(a, b) & (half_order_key(a) < half_order_key(b));
    else if constexpr (std::is_same_v<A, B>) return a < b;
    else return exact_compare(a, b) == std::partial_ordering::less;
}
template <class A, class B> inline bool exact_gt(A a, B b) { return exact_lt(b, a); }

}  // namespace dmlref
