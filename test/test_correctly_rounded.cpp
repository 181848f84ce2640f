// The shared helpers for computed values: the exact rational rounding (reference/exact_rational.hpp)
// and Ziv's loop (reference/correctly_rounded.hpp). Expected values are hand derived (bits
// written beside them) or exact by construction.
#include "support.hpp"

#include "../reference/correctly_rounded.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_correctly_rounded {

using namespace dmlref;
using namespace dmlref::reference;

namespace {

// x^y for small integers x and a double y, with MPFR's exactness (ternary 0 = exact).
Evaluation power(long x, double y) {
    return [=](mpfr_ptr r, mpfr_prec_t p) -> long {
        mpfr_t b, e;
        mpfr_inits2(p, b, e, (mpfr_ptr) nullptr);
        mpfr_set_si(b, x, MPFR_RNDN);
        mpfr_set_d(e, y, MPFR_RNDN);
        const int t = mpfr_pow(r, b, e, MPFR_RNDN);
        mpfr_clears(b, e, (mpfr_ptr) nullptr);
        return t == 0 ? kExact : long(p) - 1;  // correctly rounded: error below half an ulp
    };
}

// sqrt of an exact rational num / 2^k.
Evaluation square_root(mpq_class v) {
    return [=](mpfr_ptr r, mpfr_prec_t p) -> long {
        mpfr_t a;
        mpfr_init2(a, p);
        const int t0 = mpfr_set_q(a, v.get_mpq_t(), MPFR_RNDN);
        const int t1 = mpfr_sqrt(r, a, MPFR_RNDN);
        mpfr_clear(a);
        return t0 == 0 && t1 == 0 ? kExact : long(p) - 2;  // two roundings, each half an ulp
    };
}

mpq_class pow2(long e) {
    mpq_class q = 1;
    if (e >= 0) mpq_mul_2exp(q.get_mpq_t(), q.get_mpq_t(), mp_bitcnt_t(e));
    else mpq_div_2exp(q.get_mpq_t(), q.get_mpq_t(), mp_bitcnt_t(-e));
    return q;
}

}  // namespace

TEST_CASE("round_rational: ties to even, subnormals, overflow, integers") {
    CHECK(to_bits(round_rational<float>(1 + pow2(-24))) == 0x3f800000u);              // midpoint, even is 1
    CHECK(to_bits(round_rational<float>(1 + 3 * pow2(-24))) == 0x3f800002u);          // midpoint, even is 1 + 2^-22
    CHECK(to_bits(round_rational<float>(1 + pow2(-24) + pow2(-80))) == 0x3f800001u);  // just above the midpoint
    CHECK(to_bits(round_rational<float>(-(1 + pow2(-24) + pow2(-80)))) == 0xbf800001u);
    CHECK(to_bits(round_rational<float>(pow2(-150))) == 0x00000000u);      // half the smallest subnormal: 0
    CHECK(to_bits(round_rational<float>(-pow2(-150))) == 0x80000000u);     // a negative one: -0
    CHECK(to_bits(round_rational<float>(3 * pow2(-150))) == 0x00000002u);  // 1.5 quanta: 2
    CHECK(to_bits(round_rational<float>(pow2(-150) + pow2(-200))) == 0x00000001u);
    CHECK(to_bits(round_rational<float>(mpq_class(1, 3))) == 0x3eaaaaabu);
    // FLOAT32 max = (2^24 - 1) 2^104; the midpoint to 2^128 rounds to even: infinity.
    CHECK(to_bits(round_rational<float>((pow2(24) - mpq_class(1, 2)) * pow2(104))) == 0x7f800000u);
    CHECK(to_bits(round_rational<float>((pow2(24) - mpq_class(1, 2)) * pow2(104) - 1)) == 0x7f7fffffu);
    // FLOAT16: 65520 is the midpoint of 65504 and 65536 -> infinity; just below -> 65504.
    CHECK(to_bits(round_rational<half>(mpq_class(65520))) == 0x7c00u);
    CHECK(to_bits(round_rational<half>(mpq_class(65520) - pow2(-30))) == 0x7bffu);
    CHECK(to_bits(round_rational<half>(pow2(-25))) == 0x0000u);
    CHECK(to_bits(round_rational<half>(3 * pow2(-25))) == 0x0002u);
    CHECK(to_bits(round_rational<double>(mpq_class(1, 10))) == 0x3fb999999999999aull);
    CHECK(to_bits(round_rational<double>(mpq_class(0))) == 0ull);
    CHECK(round_rational<int8_t>(mpq_class(5, 2)) == 2);
    CHECK(round_rational<int8_t>(mpq_class(7, 2)) == 4);
    CHECK(round_rational<int8_t>(mpq_class(-5, 2)) == -2);
    CHECK(round_rational<int8_t>(mpq_class(-7, 2)) == -4);
    CHECK(round_rational<int8_t>(mpq_class(1000)) == 127);
    CHECK(round_rational<int8_t>(mpq_class(-1000)) == -128);
    CHECK(round_rational<uint8_t>(mpq_class(-1, 3)) == 0);
    CHECK(round_rational<uint64_t>(pow2(64)) == ~0ull);
    CHECK(round_rational<int64_t>(-pow2(63)) == INT64_MIN);
}

TEST_CASE("Ziv: exact results are found at once (16^-0.75 = 1/8, sqrt of a perfect square)") {
    ZivResult info;
    CHECK(correctly_rounded<float>(power(16, -0.75), {}, &info) == 0.125f);
    CHECK(info.exact);
    CHECK(info.evaluations == 1);
    CHECK(to_bits(correctly_rounded<half>(power(16, -0.75))) == 0x3000u);  // 0.125
    CHECK(correctly_rounded<double>(power(4, 1.5)) == 8.0);
    CHECK(correctly_rounded<double>(square_root(9 * pow2(-20)), {}, &info) == 3.0 / 1024);
    CHECK(info.exact);
    CHECK(correctly_rounded<int32_t>(square_root(mpq_class(25, 4))) == 2);  // 2.5: ties to even
    CHECK(correctly_rounded<int32_t>(square_root(mpq_class(49, 4))) == 4);  // 3.5: ties to even
    // An exact midpoint of FLOAT32: sqrt((1 + 2^-24)^2) = 1 + 2^-24, ties to even -> 1.
    CHECK(to_bits(correctly_rounded<float>(square_root((1 + pow2(-24)) * (1 + pow2(-24))))) == 0x3f800000u);
}

TEST_CASE("Ziv: irrational values, rounded once") {
    CHECK(to_bits(correctly_rounded<float>(square_root(mpq_class(2)))) == 0x3fb504f3u);
    CHECK(to_bits(correctly_rounded<double>(square_root(mpq_class(2)))) == 0x3ff6a09e667f3bcdull);
    CHECK(to_bits(correctly_rounded<half>(square_root(mpq_class(2)))) == 0x3da8u);
    CHECK(to_bits(correctly_rounded<float>(power(2, -0.5))) == 0x3f3504f3u);  // 1/sqrt(2) = 0.70710677
}

TEST_CASE("Ziv: a value just above a midpoint needs more precision, and gets it") {
    // sqrt((1 + 2^-24)^2 + 2^-100) = 1 + 2^-24 + 2^-101 (1 - ...): above FLOAT32's midpoint by
    // about 2^-101, beyond what 64 bits resolve; the loop doubles until the rounding is decided.
    ZivResult info;
    const mpq_class v = (1 + pow2(-24)) * (1 + pow2(-24)) + pow2(-100);
    CHECK(to_bits(correctly_rounded<float>(square_root(v), {}, &info)) == 0x3f800001u);
    CHECK_FALSE(info.exact);
    CHECK(info.evaluations >= 2);
    CHECK(info.precision >= 128);
    // Just below: rounds down.
    const mpq_class w = (1 + pow2(-24)) * (1 + pow2(-24)) - pow2(-100);
    CHECK(to_bits(correctly_rounded<float>(square_root(w))) == 0x3f800000u);
}

TEST_CASE("Ziv: an exact midpoint the evaluation does not recognise is an error, not a hang") {
    // Claims an error bound even though the value is exactly the midpoint 1 + 2^-24.
    Evaluation blind = [](mpfr_ptr r, mpfr_prec_t p) -> long {
        mpfr_set_ui(r, 1, MPFR_RNDN);
        mpfr_add_d(r, r, std::ldexp(1.0, -24), MPFR_RNDN);
        return long(p) - 1;
    };
    CHECK_THROWS_AS(correctly_rounded<float>(blind, {64, 1024}), std::runtime_error);
}

TEST_CASE("Ziv: NaN and infinities are exact") {
    CHECK(to_bits(correctly_rounded<float>(power(0, -0.75))) == 0x7f800000u);  // 0^-0.75 = +inf
    CHECK(to_bits(correctly_rounded<float>(power(-2, 0.5))) == 0x7fc00000u);   // NaN: canonical
}

TEST_CASE("exact_power: rational powers with dyadic exponents, and only those") {
    auto is = [](const std::optional<mpq_class>& v, const mpq_class& want) { return v && *v == want; };
    CHECK(is(exact_power(mpq_class(16), -0.75), mpq_class(1, 8)));
    CHECK(is(exact_power(mpq_class(1, 9), -0.5), mpq_class(3)));
    CHECK(is(exact_power(mpq_class(9, 4), 1.5), mpq_class(27, 8)));
    CHECK(is(exact_power(mpq_class(5, 3), 0.0), mpq_class(1)));
    CHECK(is(exact_power(mpq_class(3, 2), -2.0), mpq_class(4, 9)));
    CHECK(is(exact_power(mpq_class(256), 0.125), mpq_class(2)));
    CHECK_FALSE(exact_power(mpq_class(2), 0.5));
    CHECK_FALSE(exact_power(mpq_class(16), 0.1));  // 0.1 as a double is m / 2^55: no 2^55-th root of 16
    CHECK_FALSE(exact_power(mpq_class(-4), 0.5));  // negative base
    CHECK_FALSE(exact_power(mpq_class(3), 1e30));  // too large to form
}

TEST_CASE("Ziv: a power beyond MPFR's exponent range rounds to a zero or an infinity") {
    CHECK(to_bits(correctly_rounded<float>(power(2, -3e38))) == 0x00000000u);
    CHECK(to_bits(correctly_rounded<double>(power(2, 3e38))) == 0x7ff0000000000000ull);
    CHECK(correctly_rounded<int32_t>(power(2, 3e38)) == INT32_MAX);
}

}  // namespace dmlref_test_correctly_rounded
