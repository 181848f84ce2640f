// The value codec and exact arithmetic: decimal -> each type rounded once, shortest round-trip
// writing, FLOAT16 conversions, and exact comparison across types.
#include "support.hpp"
#include "test_tier.hpp"

#include <cstdlib>
#include <string_view>

#include <algorithm>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_values {

using namespace dmlref;
using namespace dmlref::test;

namespace {
uint64_t parse_bits(DataType t, const std::string& text) {
    ValueToken tok;
    tok.kind = ValueToken::Kind::String;
    tok.text = text;
    const ParsedValue p = parse_value(t, tok);
    INFO(text << ": " << p.error);
    REQUIRE(p.ok);
    return p.bits;
}
std::string parse_error(DataType t, const std::string& text) {
    ValueToken tok;
    tok.kind = ValueToken::Kind::String;
    tok.text = text;
    return parse_value(t, tok).error;
}
}  // namespace

TEST_CASE("decimals round once, to nearest-even, from the exact decimal") {
    // 0.1 lies between halves 0x2e66 (0.0999755859375) and 0x2e67 (0.10003662109375);
    // 0.1 - 0.0999755859375 = 0.0000244140625 < 0.00003662109375: nearest is 0x2e66.
    CHECK(parse_decimal(DataType::FLOAT16, "0.1").bits == 0x2e66);
    CHECK(parse_decimal(DataType::FLOAT16, "0.1").inexact);
    CHECK(parse_decimal(DataType::FLOAT16, "65504").bits == 0x7bff);
    CHECK_FALSE(parse_decimal(DataType::FLOAT16, "65504").inexact);
    // 65520 is the midpoint between 65504 (odd mantissa 0x3ff) and 2^16: ties to even -> inf.
    CHECK(parse_decimal(DataType::FLOAT16, "65520").bits == 0x7c00);
    CHECK(parse_decimal(DataType::FLOAT16, "65519.99").bits == 0x7bff);
    // 2^-24, the smallest subnormal, written exactly.
    CHECK(parse_decimal(DataType::FLOAT16, "5.9604644775390625e-08").bits == 0x0001);
    CHECK_FALSE(parse_decimal(DataType::FLOAT16, "5.9604644775390625e-08").inexact);
    // Half of it is a tie between 0 and 2^-24: even is 0.
    CHECK(parse_decimal(DataType::FLOAT16, "2.98023223876953125e-08").bits == 0x0000);
    // Double rounding trap: 1 + 2^-11 + 2^-60 is just above the midpoint of 1 and 1 + 2^-10, so
    // the binary16 answer is 1 + 2^-10 (0x3c01). Through a double it would first become exactly
    // 1 + 2^-11 (the midpoint) and then tie to even, 1.0 (0x3c00).
    CHECK(parse_decimal(DataType::FLOAT16, "1.000488281250000000867361737988403547205962240695953369140625").bits ==
          0x3c01);
    CHECK(parse_decimal(DataType::FLOAT16, "-1.000488281250000000867361737988403547205962240695953369140625").bits ==
          0xbc01);
    // FLOAT32: 2^24 + 1 is a tie between 2^24 and 2^24 + 2; even mantissa is 2^24.
    CHECK(parse_decimal(DataType::FLOAT32, "16777217").bits == 0x4b800000);
    CHECK(parse_decimal(DataType::FLOAT32, "16777217").inexact);
    CHECK(parse_decimal(DataType::FLOAT32, "0.1").bits == 0x3dcccccd);
    CHECK(parse_decimal(DataType::FLOAT64, "0.1").bits == 0x3fb999999999999aull);
    CHECK(parse_decimal(DataType::FLOAT64, "0.5").bits == 0x3fe0000000000000ull);
    CHECK_FALSE(parse_decimal(DataType::FLOAT64, "0.5").inexact);
    CHECK(parse_decimal(DataType::FLOAT32, "1e39").bits == 0x7f800000);  // overflow to infinity
}

TEST_CASE("special spellings and raw bits") {
    CHECK(parse_bits(DataType::FLOAT32, "nan") == 0x7fc00000);
    CHECK(parse_bits(DataType::FLOAT32, "-nan") == 0xffc00000);
    CHECK(parse_bits(DataType::FLOAT16, "nan") == 0x7e00);
    CHECK(parse_bits(DataType::FLOAT64, "-inf") == 0xfff0000000000000ull);
    CHECK(parse_bits(DataType::FLOAT32, "0x7fc00001") == 0x7fc00001);
    CHECK(parse_bits(DataType::FLOAT16, "0x7d00") == 0x7d00);
    CHECK(parse_bits(DataType::INT8, "0xff") == 0xff);
    CHECK(parse_bits(DataType::FLOAT32, "-0.0") == 0x80000000);
    CHECK(parse_error(DataType::UINT8, "0x1ff").find("more bits than a 8-bit UINT8") != std::string::npos);
    CHECK(parse_error(DataType::INT32, "nan").find("integer type") != std::string::npos);
    CHECK(parse_error(DataType::FLOAT32, "NaN").find("is not a value") != std::string::npos);
}

TEST_CASE("integers: exact, in range, never through a double") {
    CHECK(parse_bits(DataType::INT64, "9223372036854775807") == 0x7fffffffffffffffull);
    CHECK(parse_bits(DataType::INT64, "-9223372036854775808") == 0x8000000000000000ull);
    CHECK(parse_bits(DataType::UINT64, "18446744073709551615") == 0xffffffffffffffffull);
    CHECK(parse_bits(DataType::INT64, "9007199254740993") == 9007199254740993ull);  // 2^53 + 1
    CHECK(parse_bits(DataType::INT8, "-128") == 0x80);
    CHECK(parse_error(DataType::INT64, "9223372036854775808").find("outside the range of INT64") != std::string::npos);
    CHECK(parse_error(DataType::UINT8, "256").find("outside the range of UINT8 (0 to 255)") != std::string::npos);
    CHECK(parse_error(DataType::UINT16, "-1").find("outside the range") != std::string::npos);
    CHECK(parse_error(DataType::INT32, "1.5").find("is not an integer") != std::string::npos);
}

TEST_CASE("writing: shortest round-trip decimal, explicit -0, NaNs and big integers") {
    CHECK(format_value(DataType::FLOAT16, 0x3c00) == "1");
    CHECK(format_value(DataType::FLOAT16, 0x8000) == "-0.0");
    CHECK(format_value(DataType::FLOAT16, 0x2e66) == "0.1");
    CHECK(format_value(DataType::FLOAT16, 0x7e00) == "\"nan\"");
    CHECK(format_value(DataType::FLOAT16, 0xfe00) == "\"-nan\"");
    CHECK(format_value(DataType::FLOAT16, 0x7e01) == "\"0x7e01\"");
    CHECK(format_value(DataType::FLOAT16, 0xfc00) == "\"-inf\"");
    CHECK(format_value(DataType::FLOAT32, 0x3dcccccd) == "0.1");
    CHECK(format_value(DataType::FLOAT32, 0x00000001) == "1e-45");
    CHECK(format_value(DataType::UINT64, 0xffffffffffffffffull) == "\"18446744073709551615\"");
    CHECK(format_value(DataType::INT64, uint64_t(int64_t(1) << 53)) == "9007199254740992");
    CHECK(format_value(DataType::INT64, uint64_t((int64_t(1) << 53) + 1)) == "\"9007199254740993\"");
    CHECK(format_value(DataType::INT8, 0xff) == "-1");
}

TEST_CASE("every FLOAT16 bit pattern survives format then parse") {
    for (uint32_t b = 0; b < 0x10000; ++b) {
        const std::string text = format_value(DataType::FLOAT16, b);
        ValueToken tok;
        if (text.front() == '"') {
            tok.kind = ValueToken::Kind::String;
            tok.text = text.substr(1, text.size() - 2);
        } else {
            tok.kind = ValueToken::Kind::Number;
            tok.text = text;
        }
        const ParsedValue p = parse_value(DataType::FLOAT16, tok);
        INFO(std::hex << b << " -> " << text);
        REQUIRE(p.ok);
        REQUIRE(p.bits == b);
    }
}

TEST_CASE_TEMPLATE("random bit patterns of every type survive format then parse", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    std::mt19937_64 rng(12345);
    std::vector<uint64_t> patterns = {0, 1, ~uint64_t(0)};
    for (int i = 0; i < 20000; ++i) patterns.push_back(rng());
    const uint64_t mask = element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1;
    for (uint64_t raw : patterns) {
        const uint64_t b = raw & mask;
        const std::string text = format_value(t, b);
        ValueToken tok;
        if (text.front() == '"') {
            tok.kind = ValueToken::Kind::String;
            tok.text = text.substr(1, text.size() - 2);
        } else {
            tok.kind = ValueToken::Kind::Number;
            tok.text = text;
        }
        const ParsedValue p = parse_value(t, tok);
        INFO(hex_bits(t, b) << " -> " << text);
        REQUIRE(p.ok);
        REQUIRE(p.bits == b);
    }
}

// An independent binary16 rounding: the nearest of all finite halves (found by search over
// their exact values), ties to the even encoding, overflow past 65520 to infinity.
TEST_CASE("half_from_double is the nearest half, ties to even") {
    std::vector<std::pair<double, uint16_t>> halves;  // all non-negative finite halves, ascending
    for (uint32_t b = 0; b <= 0x7bff; ++b)
        halves.emplace_back(half_to_double(from_bits<half>(uint16_t(b))), uint16_t(b));
    auto oracle = [&](double d) -> uint16_t {
        const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
        const double a = std::fabs(d);
        if (a >= 65520.0) return sign | 0x7c00;
        auto hi = std::lower_bound(halves.begin(), halves.end(), std::make_pair(a, uint16_t(0)));
        if (hi == halves.end()) return sign | 0x7bff;
        if (hi->first == a || hi == halves.begin()) return sign | hi->second;
        auto lo = hi - 1;
        const double dl = a - lo->first, dh = hi->first - a;
        if (dl < dh) return sign | lo->second;
        if (dh < dl) return sign | hi->second;
        return sign | ((lo->second & 1) ? hi->second : lo->second);
    };
    std::mt19937_64 rng(7);
    std::vector<double> samples;
    for (const auto& [v, b] : halves) {  // every half, its midpoints with the next, and near them
        samples.push_back(v);
        if (b < 0x7bff) {
            const double mid = (v + half_to_double(from_bits<half>(uint16_t(b + 1)))) / 2;
            samples.push_back(mid);
            samples.push_back(std::nextafter(mid, 0.0));
            samples.push_back(std::nextafter(mid, 1e9));
        }
    }
    for (int i = 0; i < 100000; ++i) samples.push_back(std::ldexp(double(rng() >> 11) * 0x1p-53, int(rng() % 50) - 30));
    for (double d : samples) {
        for (double s : {d, -d}) {
            INFO(s);
            REQUIRE(to_bits(half_from_double(s)) == oracle(s));
        }
    }
    CHECK(to_bits(half_from_double(std::numeric_limits<double>::quiet_NaN())) == 0x7e00);
}

TEST_CASE("exact comparison across types, where a double would be wrong") {
    // INT64 max = 2^63 - 1; as a double it would round to 2^63 and compare equal.
    const float two63 = 9223372036854775808.0f;
    CHECK(exact_compare(std::numeric_limits<int64_t>::max(), two63) == std::partial_ordering::less);
    CHECK(exact_compare(std::numeric_limits<uint64_t>::max(), 18446744073709551616.0f) == std::partial_ordering::less);
    CHECK(exact_compare(int64_t(9007199254740993), 9007199254740992.0) ==
          std::partial_ordering::greater);  // 2^53+1 > 2^53
    CHECK(exact_compare(int64_t(-3), -2.5f) == std::partial_ordering::less);
    CHECK(exact_compare(int64_t(-2), -2.5f) == std::partial_ordering::greater);
    CHECK(exact_compare(int32_t(2), 2.0f) == std::partial_ordering::equivalent);
    CHECK(exact_compare(int32_t(2), std::numeric_limits<float>::quiet_NaN()) == std::partial_ordering::unordered);
    CHECK(exact_compare(uint8_t(255), std::numeric_limits<float>::infinity()) == std::partial_ordering::less);
    CHECK(exact_compare(int8_t(-128), -std::numeric_limits<float>::infinity()) == std::partial_ordering::greater);
    // FLOAT16 0x2e67 = 0.10003662109375 against the float32 0.1f = 0.100000001490116...
    CHECK(exact_compare(from_bits<half>(0x2e67), 0.1f) == std::partial_ordering::greater);
    CHECK(exact_compare(from_bits<half>(0x2e66), 0.1f) == std::partial_ordering::less);
    CHECK(exact_compare(-0.0f, 0.0f) == std::partial_ordering::equivalent);
}

TEST_CASE("D3D min and max: a NaN operand is ignored, -0 orders below +0") {
    const Number nan = Number::of(std::numeric_limits<double>::quiet_NaN());
    const Number one = Number::of(1.0), pz = Number::of(0.0), nz = Number::of(-0.0);
    CHECK(max_number(nan, one).f == 1.0);
    CHECK(min_number(one, nan).f == 1.0);
    CHECK_FALSE(std::signbit(max_number(nz, pz).f));
    CHECK_FALSE(std::signbit(max_number(pz, nz).f));
    CHECK(std::signbit(min_number(pz, nz).f));
    CHECK(std::signbit(min_number(nz, pz).f));
}

// The branch-free FLOAT16 comparisons against the exact float comparison, for every half x
// against a spread of y (zeros of both signs, subnormals, normals, infinities, NaNs).
TEST_CASE("FLOAT16 comparisons by ordered key agree with float comparison") {
    std::vector<uint16_t> ys = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01,
                                0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x2e66, 0xae66};
    // The sanitizer build (DMLREF_TEST_TIER=sanitizer, test/meson.build) takes the special ys only:
    // 1.2 million pairs instead of 18, the same code; the release build runs them all.
    if (!sanitizer_tier())
        for (uint32_t y = 0; y < 0x10000; y += 257) ys.push_back(uint16_t(y));
    // 18 million pairs: counted here and asserted once (an assertion per pair costs minutes in the
    // tests' unoptimised, sanitized build), naming the first pair that disagrees.
    uint64_t mismatches = 0;
    uint32_t first_x = 0, first_y = 0;
    for (uint32_t xb = 0; xb < 0x10000; ++xb) {
        const half x = from_bits<half>(uint16_t(xb));
        const float fx = static_cast<float>(x);
        for (uint16_t yb : ys) {
            const half y = from_bits<half>(yb);
            const float fy = static_cast<float>(y);
            const bool agree = exact_le(x, y) == (fx <= fy) && exact_lt(x, y) == (fx < fy) &&
                               exact_ge(x, y) == (fx >= fy) && exact_gt(x, y) == (fx > fy);
            if (!agree && mismatches++ == 0) first_x = xb, first_y = yb;
        }
    }
    INFO("first disagreement: x bits 0x" << std::hex << first_x << ", y bits 0x" << first_y);
    CHECK(mismatches == 0);
}

}  // namespace dmlref_test_values
