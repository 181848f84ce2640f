#include "dmlref/numeric.hpp"

namespace dmlref {

double half_to_double(half h) {
    const uint16_t b = to_bits(h);
    const bool negative = (b & 0x8000u) != 0;
    const int exponent = (b >> 10) & 0x1f;
    const int mantissa = b & 0x3ff;
    double magnitude;
    if (exponent == 0x1f) {
        magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    } else if (exponent == 0) {
        magnitude = std::ldexp(double(mantissa), -24);  // subnormal: mantissa * 2^-24
    } else {
        magnitude = std::ldexp(double(mantissa | 0x400), exponent - 25);  // 1.m * 2^(e-15)
    }
    return negative ? -magnitude : magnitude;
}

half half_from_double(double d) {
    const uint64_t b = to_bits(d);
    const uint16_t sign = uint16_t((b >> 48) & 0x8000u);
    if (std::isnan(d)) {
        // Quiet NaN with the top 9 bits of the double's payload below the quiet bit.
        const uint16_t payload = uint16_t((b >> 42) & 0x1ffu);
        return from_bits<half>(uint16_t(sign | 0x7e00u | payload));
    }
    const double a = std::fabs(d);
    // 65520 = 65504 + half an ULP: the tie rounds to the even neighbour, 2^16, which overflows.
    if (a >= 65520.0) return from_bits<half>(uint16_t(sign | 0x7c00u));
    if (a < std::ldexp(1.0, -14)) {
        // Subnormal range: units of 2^-24; nearbyint rounds ties to even. 1024 units is the
        // smallest normal, whose encoding is also 1024 (0x0400), so no special case.
        const double units = std::nearbyint(std::ldexp(a, 24));
        return from_bits<half>(uint16_t(sign | uint16_t(units)));
    }
    int e2;
    std::frexp(a, &e2);                                      // a = f * 2^e2 with f in [0.5, 1)
    const int e = e2 - 1;                                    // a in [2^e, 2^(e+1)), e in [-14, 15]
    const double m = std::nearbyint(std::ldexp(a, 10 - e));  // [1024, 2048]
    // m == 2048 carries into the exponent field, which the addition does by itself.
    const uint32_t bits = (uint32_t(e + 15) << 10) + (uint32_t(m) - 1024u);
    return from_bits<half>(uint16_t(sign | bits));
}

std::partial_ordering compare(const Number& a, const Number& b) {
    if (a.is_integer && b.is_integer) return a.i <=> b.i;
    if (!a.is_integer && !b.is_integer) return a.f <=> b.f;  // IEEE: NaN unordered, -0 == +0
    // One integer x against one float f, exactly.
    const bool swapped = !a.is_integer;
    const int128_t x = swapped ? b.i : a.i;
    const double f = swapped ? a.f : b.f;
    std::partial_ordering r = std::partial_ordering::unordered;
    if (std::isnan(f)) return r;
    const double big = std::ldexp(1.0, 126);  // beyond any 64-bit integer, inside int128_t
    if (f >= big) r = std::partial_ordering::less;
    else if (f <= -big) r = std::partial_ordering::greater;
    else {
        const double fl = std::floor(f);
        const int128_t xf = static_cast<int128_t>(fl);  // exact: fl is an integer below 2^126
        if (x < xf) r = std::partial_ordering::less;
        else if (x > xf) r = std::partial_ordering::greater;  // x >= floor(f) + 1 > f
        else r = (fl == f) ? std::partial_ordering::equivalent : std::partial_ordering::less;
    }
    if (!swapped) return r;
    if (r == std::partial_ordering::less) return std::partial_ordering::greater;
    if (r == std::partial_ordering::greater) return std::partial_ordering::less;
    return r;
}

namespace {
bool is_negative_zero(const Number& n) { return !n.is_integer && n.f == 0.0 && std::signbit(n.f); }
}  // namespace

Number min_number(const Number& a, const Number& b) {
    if (a.is_nan()) return b;
    if (b.is_nan()) return a;
    const auto c = compare(a, b);
    if (c == std::partial_ordering::less) return a;
    if (c == std::partial_ordering::greater) return b;
    return is_negative_zero(b) ? b : a;  // -0 orders below +0
}

Number max_number(const Number& a, const Number& b) {
    if (a.is_nan()) return b;
    if (b.is_nan()) return a;
    const auto c = compare(a, b);
    if (c == std::partial_ordering::greater) return a;
    if (c == std::partial_ordering::less) return b;
    return is_negative_zero(a) ? b : a;  // +0 orders above -0
}

}  // namespace dmlref
