// ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR, DYNAMIC_QUANTIZE_LINEAR and
// ELEMENT_WISE_QUANTIZED_LINEAR_ADD. The expected values come from ONNX's operator examples
// (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear), from hand derivations written out
// below, from Python's fractions (written out where used), and from an independent integer
// computation of round_half_even(x / scale) (24-bit significands in 128-bit integers, no GMP);
// none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/quantization.hpp"
#include "dmlref/diff.hpp"

#include "../reference/quantization.hpp"

#include <cmath>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_quantization {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using QL = DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC;
using DQL = DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC;
using DYN = DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC;
using QADD = DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// QUANTIZE_LINEAR of FLOAT32 x with FLOAT32 scales and an optional zero point, into Out.
template <class Out, class In = float, class S = float>
std::vector<Out> quantize(const std::vector<In>& x, const std::vector<S>& s, std::optional<std::vector<Out>> z) {
    const uint32_t n = uint32_t(x.size());
    QL d;
    d.InputTensor = desc(data_type_of<In>(), {n});
    d.ScaleTensor = desc(data_type_of<S>(), {n});
    if (z) d.ZeroPointTensor = desc(data_type_of<Out>(), {n});
    d.OutputTensor = desc(data_type_of<Out>(), {n});
    std::map<std::string, std::vector<std::byte>> in = {{"InputTensor", buffer(d.InputTensor, x)},
                                                        {"ScaleTensor", buffer(d.ScaleTensor, s)}};
    if (z) in["ZeroPointTensor"] = buffer(*d.ZeroPointTensor, *z);
    return as_values<Out>(run({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, d}, in).at("OutputTensor"));
}

template <class Out, class In>
std::vector<Out> dequantize(const std::vector<In>& q, const std::vector<Out>& s, std::optional<std::vector<In>> z) {
    const uint32_t n = uint32_t(q.size());
    DQL d;
    d.InputTensor = desc(data_type_of<In>(), {n});
    d.ScaleTensor = desc(data_type_of<Out>(), {n});
    if (z) d.ZeroPointTensor = desc(data_type_of<In>(), {n});
    d.OutputTensor = desc(data_type_of<Out>(), {n});
    std::map<std::string, std::vector<std::byte>> in = {{"InputTensor", buffer(d.InputTensor, q)},
                                                        {"ScaleTensor", buffer(d.ScaleTensor, s)}};
    if (z) in["ZeroPointTensor"] = buffer(*d.ZeroPointTensor, *z);
    return as_values<Out>(run({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, d}, in).at("OutputTensor"));
}

template <class Out> struct Dynamic {
    float scale;
    Out zero_point;
    std::vector<Out> y;
};
template <class Out, class In = float>
Dynamic<Out> dynamic(const std::vector<In>& x, std::vector<uint32_t> sizes = {}) {
    if (sizes.empty()) sizes = {uint32_t(x.size())};
    std::vector<uint32_t> one(sizes.size(), 1);
    DYN d;
    d.InputTensor = desc(data_type_of<In>(), sizes);
    d.OutputTensor = desc(data_type_of<Out>(), sizes);
    d.OutputScaleTensor = desc(DataType::FLOAT32, one);
    d.OutputZeroPointTensor = desc(data_type_of<Out>(), one);
    const auto out = run({OperatorType::DYNAMIC_QUANTIZE_LINEAR, d}, {{"InputTensor", buffer(d.InputTensor, x)}});
    return {as_values<float>(out.at("OutputScaleTensor"))[0], as_values<Out>(out.at("OutputZeroPointTensor"))[0],
            as_values<Out>(out.at("OutputTensor"))};
}

// QUANTIZED_LINEAR_ADD of A (TA) and B (TB) into Out, the scales FLOAT32 and every zero point given.
struct AddParams {
    float sa, sb, so;
    int za, zb, zo;
};
template <class Out, class TA, class TB>
std::vector<Out> quantized_add(const std::vector<TA>& a, const std::vector<TB>& b, const AddParams& p) {
    const uint32_t n = uint32_t(a.size());
    QADD d;
    d.ATensor = desc(data_type_of<TA>(), {n});
    d.BTensor = desc(data_type_of<TB>(), {n});
    d.OutputTensor = desc(data_type_of<Out>(), {n});
    d.AScaleTensor = d.BScaleTensor = d.OutputScaleTensor = desc(DataType::FLOAT32, {1});
    d.AZeroPointTensor = desc(data_type_of<TA>(), {1});
    d.BZeroPointTensor = desc(data_type_of<TB>(), {1});
    d.OutputZeroPointTensor = desc(data_type_of<Out>(), {1});
    return as_values<Out>(
        run({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, d},
            {{"ATensor", buffer(d.ATensor, a)},
             {"BTensor", buffer(d.BTensor, b)},
             {"AScaleTensor", buffer(d.AScaleTensor, std::vector<float>{p.sa})},
             {"BScaleTensor", buffer(d.BScaleTensor, std::vector<float>{p.sb})},
             {"OutputScaleTensor", buffer(d.OutputScaleTensor, std::vector<float>{p.so})},
             {"AZeroPointTensor", buffer(*d.AZeroPointTensor, std::vector<TA>{TA(p.za)})},
             {"BZeroPointTensor", buffer(*d.BZeroPointTensor, std::vector<TB>{TB(p.zb)})},
             {"OutputZeroPointTensor", buffer(*d.OutputZeroPointTensor, std::vector<Out>{Out(p.zo)})}})
            .at("OutputTensor"));
}

// Independently of dmlref's GMP path: round_half_even(x / s) for finite non-zero FLOAT32 x and s
// whose quotient's binary exponent is small, with x = mx 2^ex and s = ms 2^es (frexp, 24-bit
// integer significands): x / s = mx 2^(ex - es) / ms, compared with half-integers in 128 bits.
int64_t naive_round_quotient(float x, float s) {
    int ex = 0, es = 0;
    const auto mx = static_cast<int128_t>(std::ldexp(std::frexp(double(x), &ex), 24));
    const auto ms = static_cast<int128_t>(std::ldexp(std::frexp(double(s), &es), 24));
    const int shift = ex - es;  // x / s = (mx / ms) 2^shift
    int128_t num = mx, den = ms;
    if (shift >= 0) num <<= shift;
    else den <<= -shift;
    if (den < 0) num = -num, den = -den;
    int128_t k = num / den;
    if (num % den != 0 && num < 0) --k;               // floor
    const int128_t twice_rest = 2 * (num - k * den);  // 2 (q - k) den, in [0, 2 den)
    if (twice_rest > den || (twice_rest == den && (k % 2 != 0))) ++k;
    return int64_t(k);
}

}  // namespace

TEST_CASE("QUANTIZE_LINEAR: ONNX's QuantizeLinear example, ties to even and saturation") {
    // ONNX QuantizeLinear: x = [0, 2, 3, 1000, -254, -1000], scale 2, zero point 128 (UINT8):
    // 0 + 128, 1 + 128, round(1.5) = 2 -> 130, 500 + 128 saturates to 255, -127 + 128 = 1, -500 + 128 -> 0.
    check_bits(
        quantize<uint8_t>({0, 2, 3, 1000, -254, -1000}, std::vector<float>(6, 2.0f), std::vector<uint8_t>(6, 128)),
        std::vector<uint8_t>{128, 129, 130, 255, 1, 0});
    // Halves go to the even neighbour, either sign: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4, and the
    // zero point 10 is added after the rounding.
    check_bits(quantize<int8_t>({0.5f, 1.5f, 2.5f, 3.5f, -0.5f, -1.5f, -2.5f, -3.5f}, std::vector<float>(8, 1.0f),
                                std::vector<int8_t>(8, 10)),
               std::vector<int8_t>{10, 12, 12, 14, 10, 8, 8, 6});
    // INT8 saturation: 127.5 -> 128 -> 127; -128.5 -> -128 (even) stays; -129.5 -> -130 -> -128.
    check_bits(
        quantize<int8_t>({127.5f, -128.5f, -129.5f, 126.5f}, std::vector<float>(4, 1.0f), std::vector<int8_t>(4, 0)),
        std::vector<int8_t>{127, -128, -128, 126});
    // Without a zero point (DML_FEATURE_LEVEL_6_2) it is 0: 7 / 2 = 3.5 -> 4; -7 / 2 -> -4 -> 0 in UINT8.
    check_bits(quantize<uint8_t>({7.0f, -7.0f}, {2.0f, 2.0f}, std::nullopt), std::vector<uint8_t>{4, 0});
}

TEST_CASE("QUANTIZE_LINEAR: the quotient is exact (QuantizeValue=ExactQuotient), FLOAT32 division may differ by one") {
    // 0.1f = 13421773 * 2^-27 is a little above 0.1, so 0.75 / 0.1f = 0.75 * 2^27 / 13421773 =
    // 100663296 / 13421773 = 7.49999988... (13421773 * 7.5 = 100663297.5 > 100663296): 7. Its
    // FLOAT32 quotient rounds to 7.5 (the spacing at 7.5 is 2^-21 = 4.8e-7 > 1.1e-7), which goes to 8.
    // 0.85f = 14260634 * 2^-24: 0.85f / 0.1f = 114085072 / 13421773 = 8.50000011 (13421773 * 8.5 =
    // 114085070.5): 9; FLOAT32 gives 8.5 -> 8. 0.35f = 11744051 * 2^-25: 46976204 / 13421773 =
    // 3.4999998882 (13421773 * 3.5 = 46976205.5): 3; FLOAT32 3.5 -> 4.
    const float tenth = from_bits<float>(uint32_t(0x3dcccccd)), x85 = from_bits<float>(uint32_t(0x3f59999a)),
                x35 = from_bits<float>(uint32_t(0x3eb33333));
    check_bits(quantize<int8_t>({0.75f, x85, x35, 0.7f}, std::vector<float>(4, tenth), std::vector<int8_t>(4, 0)),
               std::vector<int8_t>{7, 9, 3, 7});
    // These three lie within gamma_3 of a half-integer (|q - 7.5| = 1.1e-7 <= 3 * 2^-24 * 7.5 = 1.3e-6):
    // a FLOAT32 backend may give the other neighbour. 0.7f / 0.1f = 6.99999995 is 0.5 away from any tie.
    CHECK(reference::quantize_near_tie(0.75, double(tenth), 0, -128, 127));
    CHECK(reference::quantize_near_tie(double(x85), double(tenth), 0, -128, 127));
    CHECK(reference::quantize_near_tie(double(x35), double(tenth), 0, -128, 127));
    CHECK_FALSE(reference::quantize_near_tie(double(0.7f), double(tenth), 0, -128, 127));
    // An exact tie is one too (HalfAwayFromZero would differ), unless saturation joins the neighbours.
    CHECK(reference::quantize_near_tie(2.5, 1.0, 0, -128, 127));
    CHECK_FALSE(reference::quantize_near_tie(300.5, 1.0, 0, -128, 127));
    CHECK_FALSE(reference::quantize_near_tie(2.25, 1.0, 0, -128, 127));
}

TEST_CASE("QUANTIZE_LINEAR: NaN gives Min (QuantizeNaN=Minimum), infinities saturate, a negative scale flips") {
    // UINT8, zero point 100: NaN -> 0; +inf -> 255; -inf -> 0; x / inf = 0 -> 100; inf / inf is NaN -> 0;
    // 2 / -1 = -2 -> 98 (NegativeScale=FormulaLiteral); 1 / NaN -> 0; -inf / -1 = +inf -> 255.
    check_bits(quantize<uint8_t>({kNaN, kInf, -kInf, 5.0f, kInf, 2.0f, 1.0f, -kInf},
                                 {1, 1, 1, kInf, kInf, -1, kNaN, -1}, std::vector<uint8_t>(8, 100)),
               std::vector<uint8_t>{0, 255, 0, 100, 0, 98, 0, 255});
    // INT8: NaN -> -128 whatever the zero point.
    check_bits(quantize<int8_t>({kNaN, -kNaN}, {1.0f, 1.0f}, std::vector<int8_t>{5, -5}),
               std::vector<int8_t>{-128, -128});
}

TEST_CASE("QUANTIZE_LINEAR: INT32 and FLOAT16 inputs, subnormal scales") {
    // INT32 with FLOAT32 scales: 2^31 - 1 saturates; 7 / 2 -> 4; (2^24 + 1) / 2^24 = 1 + 2^-24 -> 1
    // (exact, though 2^24 + 1 is not a FLOAT32); -3 / 0.5 = -6 (+ zero point 6 = 0).
    check_bits(quantize<uint8_t, int32_t>({2147483647, 7, 16777217, -3}, {1.0f, 2.0f, 16777216.0f, 0.5f},
                                          std::vector<uint8_t>{0, 0, 0, 6}),
               std::vector<uint8_t>{255, 4, 1, 0});
    // FLOAT16 with FLOAT16 scales: 0x3c00 (1) / 0x3400 (0.25) = 4; 0x4100 (2.5) / 0x3c00 -> 2;
    // 0x0001 (2^-24) / 0x0001 = 1; 65504 / 0x1c00 (2^-8) = 16769024 -> 127.
    const std::vector<half> x = {from_bits<half>(uint16_t(0x3c00)), from_bits<half>(uint16_t(0x4100)),
                                 from_bits<half>(uint16_t(0x0001)), from_bits<half>(uint16_t(0x7bff))};
    const std::vector<half> s = {from_bits<half>(uint16_t(0x3400)), from_bits<half>(uint16_t(0x3c00)),
                                 from_bits<half>(uint16_t(0x0001)), from_bits<half>(uint16_t(0x1c00))};
    check_bits(quantize<int8_t, half, half>(x, s, std::vector<int8_t>(4, 0)), std::vector<int8_t>{4, 2, 1, 127});
    // A FLOAT32 subnormal scale: 2^-140 / 2^-149 = 512 -> 255; 3 * 2^-149 / 2^-148 = 1.5 -> 2.
    check_bits(quantize<uint8_t>({std::ldexp(1.0f, -140), 3 * std::ldexp(1.0f, -149)},
                                 {std::ldexp(1.0f, -149), std::ldexp(1.0f, -148)}, std::nullopt),
               std::vector<uint8_t>{255, 2});
}

TEST_CASE("QUANTIZE_LINEAR: random FLOAT32 quotients against an independent integer computation") {
    std::mt19937 rng(2211);
    std::uniform_real_distribution<float> xs(-300.0f, 300.0f), ss(0.01f, 4.0f);
    std::vector<float> x, s;
    for (int i = 0; i < 400; ++i) {
        x.push_back(xs(rng));
        s.push_back(i % 2 ? ss(rng) : -ss(rng));
    }
    // Halves of small scales: exact ties, both parities.
    for (int k = -9; k <= 9; ++k) x.push_back(float(k) + 0.5f), s.push_back(1.0f);
    const auto got = quantize<int8_t>(x, s, std::vector<int8_t>(x.size(), 3));
    for (size_t i = 0; i < x.size(); ++i) {
        INFO(i << ": " << x[i] << " / " << s[i]);
        CHECK(int64_t(got[i]) == std::clamp<int64_t>(naive_round_quotient(x[i], s[i]) + 3, -128, 127));
    }
}

TEST_CASE("DEQUANTIZE_LINEAR: ONNX's DequantizeLinear example, exact differences, one rounding") {
    // ONNX DequantizeLinear: x = [0, 3, 128, 255] (UINT8), scale 2, zero point 128: [-256, -250, 0, 254].
    check_bits(dequantize<float, uint8_t>({0, 3, 128, 255}, std::vector<float>(4, 2.0f), std::vector<uint8_t>(4, 128)),
               std::vector<float>{-256, -250, 0, 254});
    // UINT32 4294967295 - 0 = 2^32 - 1 rounds to 2^32 (0x4f800000); INT32 2^31 - 1 - (-2^31) = 2^32 - 1
    // likewise (no INT32 wrap: DequantizeValue=ExactThenRoundOnce); 16777217 (2^24 + 1) times 1 is a
    // FLOAT32 tie: 2^24 (even); times 3 = 50331651, between 50331648 and 50331652 (spacing 4): 50331652.
    check_bits(dequantize<float, uint32_t>({4294967295u, 16777217u, 16777217u}, {1.0f, 1.0f, 3.0f}, std::nullopt),
               std::vector<float>{4294967296.0f, 16777216.0f, 50331652.0f});
    check_bits(dequantize<float, int32_t>({2147483647}, {1.0f}, std::vector<int32_t>{-2147483647 - 1}),
               std::vector<float>{4294967296.0f});
    // FLOAT16: 3 * 0x3555 (0.333251953125 = 2730 * 2^-13) = 8190 * 2^-13 = 1 - 2^-12, halfway between
    // 0x3bff (1 - 2^-11) and 0x3c00 (1): the even 0x3c00. INT16 2049 * 1 = 2049: halfway between 2048
    // and 2050 (spacing 2): 2048 (0x6800).
    check_bits(dequantize<half, int16_t>(
                   {3, 2049}, {from_bits<half>(uint16_t(0x3555)), from_bits<half>(uint16_t(0x3c00))}, std::nullopt),
               std::vector<half>{from_bits<half>(uint16_t(0x3c00)), from_bits<half>(uint16_t(0x6800))});
}

TEST_CASE("DEQUANTIZE_LINEAR: signed zeros and non-finite scales follow IEEE's product") {
    // q == ZeroPoint: +0 times 2 is +0, times -2 is -0; 1 * -inf = -inf; 0 * inf and NaN scales: NaN.
    const auto y = dequantize<float, int8_t>({5, 5, 6, 5, 7}, {2.0f, -2.0f, -kInf, kInf, kNaN},
                                             std::vector<int8_t>(5, 5));
    CHECK(to_bits(y[0]) == 0x00000000u);
    CHECK(to_bits(y[1]) == 0x80000000u);
    CHECK(to_bits(y[2]) == 0xff800000u);
    CHECK(std::isnan(y[3]));
    CHECK(std::isnan(y[4]));
}

TEST_CASE("DYNAMIC_QUANTIZE_LINEAR: ONNX's DynamicQuantizeLinear examples") {
    // ONNX's three examples (UINT8). [0, 2, -3, -2.5, 1.34, 0.5]: scale = fl32(5 / 255) =
    // 0.019607844 (0x3ca0a0a1), zero point round(3 / scale) = 153, and 0.5 / scale = 25.4999997
    // whose FLOAT32 quotient is 25.5 -> 26: 179 (DynamicArithmetic=Float32Chain).
    auto a = dynamic<uint8_t>({0, 2, -3, -2.5f, 1.34f, 0.5f});
    CHECK(to_bits(a.scale) == 0x3ca0a0a1u);
    CHECK(a.zero_point == 153);
    check_bits(a.y, std::vector<uint8_t>{153, 255, 0, 26, 221, 179});
    // All negative: the range is [-4, 0]: scale 4 / 255 = 0.015686275 (0x3c808081), zero point 255.
    auto b = dynamic<uint8_t>({-1.0f, -2.1f, -1.3f, -2.5f, -3.34f, -4.0f});
    CHECK(to_bits(b.scale) == 0x3c808081u);
    CHECK(b.zero_point == 255);
    check_bits(b.y, std::vector<uint8_t>{191, 121, 172, 96, 42, 0});
    // All positive, [3, 4]: the range is [0, 4] (DynamicRange=IncludesZero), zero point 0.
    auto c = dynamic<uint8_t>({1, 2.1f, 1.3f, 2.5f, 3.34f, 4.0f, 1.5f, 2.6f, 3.9f, 4.0f, 3.0f, 2.345f}, {3, 4});
    CHECK(to_bits(c.scale) == 0x3c808081u);
    CHECK(c.zero_point == 0);
    check_bits(c.y, std::vector<uint8_t>{64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149});
}

TEST_CASE("DYNAMIC_QUANTIZE_LINEAR: INT8, FLOAT16 and an all-zero input") {
    // INT8, the first example: Min = -128, zero point fl32(-128 + 3 / scale) = 25 (3 / scale = 152.99999
    // rounded to FLOAT32 is 153); y = round(fl32(x / scale)) + 25: [25, 127, -128, -102, 93, 51]
    // (computed independently with Python's fractions, test-free of dmlref).
    auto a = dynamic<int8_t>({0, 2, -3, -2.5f, 1.34f, 0.5f});
    CHECK(to_bits(a.scale) == 0x3ca0a0a1u);
    CHECK(a.zero_point == 25);
    check_bits(a.y, std::vector<int8_t>{25, 127, -128, -102, 93, 51});
    // FLOAT16 [-1, 0.5]: range 1.5, scale fl32(1.5 / 255) = 0x3bc0c0c1; zero point round(255 * 1 / 1.5 = 170.0000..)
    // = 170; 0.5 -> 85 + 170 = 255; -1 -> -170 + 170 = 0.
    auto h = dynamic<uint8_t, half>({half_from_double(-1.0), half_from_double(0.5)});
    CHECK(to_bits(h.scale) == 0x3bc0c0c1u);
    CHECK(h.zero_point == 170);
    check_bits(h.y, std::vector<uint8_t>{0, 255});
    // NaN and infinities stay out of the range (DynamicNonFinite=FiniteRange): [-1, 0.5] as above,
    // then NaN -> 0 (Min), +inf -> 255, -inf -> 0.
    auto n = dynamic<uint8_t>({-1.0f, kNaN, 0.5f, kInf, -kInf});
    CHECK(to_bits(n.scale) == 0x3bc0c0c1u);
    CHECK(n.zero_point == 170);
    check_bits(n.y, std::vector<uint8_t>{0, 0, 255, 255, 0});
    // All zero: scale +0, zero point Min, every element Min (DynamicZeroRange=ZeroPointMinimum).
    auto z = dynamic<int8_t>({0.0f, -0.0f, 0.0f});
    CHECK(to_bits(z.scale) == 0u);
    CHECK(z.zero_point == -128);
    check_bits(z.y, std::vector<int8_t>{-128, -128, -128});
}

TEST_CASE("QUANTIZED_LINEAR_ADD: the page's formula, requantized exactly (RequantizeValue=ExactThenRoundOnce)") {
    // By hand: A (INT8) [10, -3] with zero point 2 and scale 0.5 is [4, -2.5]; B (UINT8) [100, 4] with
    // zero point 96 and scale 0.25 is [1, -23]; the sums 5 and -25.5. OutputScale 1, zero point 0:
    // [5, -26] (-25.5 to the even -26); OutputScale 0.5, zero point 10: [20, -41].
    check_bits(quantized_add<int8_t, int8_t, uint8_t>({10, -3}, {100, 4}, {0.5f, 0.25f, 1.0f, 2, 96, 0}),
               std::vector<int8_t>{5, -26});
    check_bits(quantized_add<int8_t, int8_t, uint8_t>({10, -3}, {100, 4}, {0.5f, 0.25f, 0.5f, 2, 96, 10}),
               std::vector<int8_t>{20, -41});
    // 1 * 0.75 / 0.1f = 7.4999999 exactly: 7 (a FLOAT32 chain gives 7.5 and 8: a QuantizeTie).
    const float tenth = from_bits<float>(uint32_t(0x3dcccccd));
    check_bits(quantized_add<uint8_t, uint8_t, uint8_t>({1}, {0}, {0.75f, 1.0f, tenth, 0, 0, 0}),
               std::vector<uint8_t>{7});
    CHECK(reference::quantized_add_near_tie({1, 0, 0.75, 0, 0, 1.0, double(tenth), 0}, 0, 255));
    CHECK_FALSE(reference::quantized_add_near_tie({10, 2, 0.5, 100, 96, 0.25, 1.0, 0}, -128, 127));
    // Saturation: (127 + 128) * 1 + 255 * 1 = 510 -> 255 in UINT8; (-128 + 128) + 0 = 0.
    check_bits(quantized_add<uint8_t, int8_t, uint8_t>({127, -128}, {255, 0}, {1.0f, 1.0f, 1.0f, -128, 0, 0}),
               std::vector<uint8_t>{255, 0});
    // Non-finite scales (IEEE; QuantizeNaN=Minimum): AScale inf with a - za = 1 -> +inf -> 127; with a - za = 0,
    // 0 * inf is NaN -> -128; an infinite OutputScale makes every quotient 0: the zero point 7.
    check_bits(quantized_add<int8_t, int8_t, int8_t>({1, 0}, {0, 0}, {kInf, 1.0f, 1.0f, 0, 0, 0}),
               std::vector<int8_t>{127, -128});
    check_bits(quantized_add<int8_t, int8_t, int8_t>({100, -100}, {3, 3}, {1.0f, 1.0f, kInf, 0, 0, 7}),
               std::vector<int8_t>{7, 7});
}

TEST_CASE("Quantization: every rule of the pages, with its id") {
    QL q;
    q.InputTensor = desc(DataType::FLOAT32, {2, 3});
    q.ScaleTensor = desc(DataType::FLOAT32, {2, 3});
    q.ZeroPointTensor = desc(DataType::UINT8, {2, 3});
    q.OutputTensor = desc(DataType::UINT8, {2, 3});
    CHECK_FALSE(validate({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, q}).has_errors());
    auto bad = q;
    bad.OutputTensor.Sizes = {3, 2};
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, bad}, "element-wise-quantize-linear.same-sizes",
                    "/desc/OutputTensor/Sizes"));
    bad = q;
    bad.ZeroPointTensor->DataType = DataType::INT8;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, bad},
                    "element-wise-quantize-linear.zero-point-data-type", "/desc/ZeroPointTensor/DataType"));
    bad = q;
    bad.InputTensor.DataType = DataType::INT32;
    bad.ScaleTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, bad}, "element-wise-quantize-linear.scale-data-type",
                    "/desc/ScaleTensor/DataType"));
    bad = q;
    bad.InputTensor.DataType = DataType::INT8;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, bad}, "element-wise-quantize-linear.data-type",
                    "/desc/InputTensor/DataType"));
    bad = q;
    bad.OutputTensor.DataType = bad.ZeroPointTensor->DataType = DataType::INT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, bad}, "element-wise-quantize-linear.output-data-type",
                    "/desc/OutputTensor/DataType"));
    // A scale of 0 (or -0) is the pages' undefined behaviour: refused at the element.
    const Diagnostics zero = validate_input_values(
        {OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, q},
        {{"InputTensor", buffer(q.InputTensor, std::vector<float>(6, 1.0f))},
         {"ScaleTensor", buffer(q.ScaleTensor, std::vector<float>{1, 1, 1, 1, -0.0f, 1})},
         {"ZeroPointTensor", buffer(*q.ZeroPointTensor, std::vector<uint8_t>(6, 0))}},
        1u << 30);
    REQUIRE(zero.has_errors());
    CHECK(zero.items()[0].rule == "element-wise-quantize-linear.scale-zero");
    CHECK(zero.items()[0].path == "/inputs/ScaleTensor/4");

    DQL dq;
    dq.InputTensor = desc(DataType::INT16, {4});
    dq.ScaleTensor = desc(DataType::FLOAT16, {4});
    dq.ZeroPointTensor = desc(DataType::INT16, {4});
    dq.OutputTensor = desc(DataType::FLOAT16, {4});
    CHECK_FALSE(validate({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, dq}).has_errors());
    auto dbad = dq;
    dbad.ScaleTensor.DataType = DataType::FLOAT32;
    CHECK(has_error({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, dbad},
                    "element-wise-dequantize-linear.scale-data-type", "/desc/ScaleTensor/DataType"));
    dbad = dq;
    dbad.ZeroPointTensor->DataType = DataType::UINT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, dbad},
                    "element-wise-dequantize-linear.zero-point-data-type", "/desc/ZeroPointTensor/DataType"));
    dbad = dq;
    dbad.InputTensor.DataType = dbad.ZeroPointTensor->DataType = DataType::FLOAT32;
    CHECK(has_error({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, dbad}, "element-wise-dequantize-linear.data-type",
                    "/desc/InputTensor/DataType"));
    dbad = dq;
    dbad.OutputTensor.DataType = dbad.ScaleTensor.DataType = DataType::INT32;
    CHECK(has_error({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, dbad},
                    "element-wise-dequantize-linear.output-data-type", "/desc/OutputTensor/DataType"));
    dbad = dq;
    dbad.ScaleTensor.Sizes = {2, 2};
    CHECK(has_error({OperatorType::ELEMENT_WISE_DEQUANTIZE_LINEAR, dbad}, "element-wise-dequantize-linear.same-sizes",
                    "/desc/ScaleTensor/Sizes"));

    DYN y;
    y.InputTensor = desc(DataType::FLOAT32, {2, 3});
    y.OutputTensor = desc(DataType::UINT8, {2, 3});
    y.OutputScaleTensor = desc(DataType::FLOAT32, {1, 1});
    y.OutputZeroPointTensor = desc(DataType::UINT8, {1, 1});
    CHECK_FALSE(validate({OperatorType::DYNAMIC_QUANTIZE_LINEAR, y}).has_errors());
    auto ybad = y;
    ybad.OutputScaleTensor = desc(DataType::FLOAT32, {1});
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.same-dimension-count",
                    "/desc/OutputScaleTensor/Sizes"));
    ybad = y;
    ybad.OutputScaleTensor = desc(DataType::FLOAT32, {1, 2});
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.scale-element-count",
                    "/desc/OutputScaleTensor/Sizes"));
    ybad = y;
    ybad.OutputZeroPointTensor = desc(DataType::UINT8, {2, 1});
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.zero-point-element-count",
                    "/desc/OutputZeroPointTensor/Sizes"));
    ybad = y;
    ybad.OutputZeroPointTensor.DataType = DataType::INT8;
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.zero-point-data-type",
                    "/desc/OutputZeroPointTensor/DataType"));
    ybad = y;
    ybad.OutputTensor.Sizes = {3, 2};
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.output-sizes",
                    "/desc/OutputTensor/Sizes"));
    ybad = y;
    ybad.OutputScaleTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.scale-data-type",
                    "/desc/OutputScaleTensor/DataType"));
    ybad = y;
    ybad.InputTensor.DataType = DataType::INT32;
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.data-type",
                    "/desc/InputTensor/DataType"));
    ybad = y;
    ybad.OutputTensor.DataType = ybad.OutputZeroPointTensor.DataType = DataType::INT32;
    CHECK(has_error({OperatorType::DYNAMIC_QUANTIZE_LINEAR, ybad}, "dynamic-quantize-linear.output-data-type",
                    "/desc/OutputTensor/DataType"));
    // A range that overflows FLOAT32 (3e38 - -3e38), and a non-zero range whose scale underflows:
    // 2^-149 / 255 rounds to 0.
    for (const std::vector<float>& x :
         {std::vector<float>{3e38f, -3e38f, 0, 0, 0, 0}, std::vector<float>{std::ldexp(1.0f, -149), 0, 0, 0, 0, 0}}) {
        const Diagnostics v = validate_input_values({OperatorType::DYNAMIC_QUANTIZE_LINEAR, y},
                                                    {{"InputTensor", buffer(y.InputTensor, x)}}, 1u << 30);
        REQUIRE(v.has_errors());
        CHECK(v.items()[0].rule == "dynamic-quantize-linear.input-values");
    }

    QADD a;
    a.ATensor = desc(DataType::INT8, {2, 3});
    a.BTensor = desc(DataType::UINT8, {2, 3});
    a.OutputTensor = desc(DataType::INT8, {2, 3});
    a.AScaleTensor = a.BScaleTensor = a.OutputScaleTensor = desc(DataType::FLOAT32, {1, 1});
    a.AZeroPointTensor = desc(DataType::INT8, {1, 1});
    CHECK_FALSE(validate({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, a}).has_errors());
    auto abad = a;
    abad.BScaleTensor = desc(DataType::FLOAT32, {1});
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.same-dimension-count", "/desc/BScaleTensor/Sizes"));
    abad = a;
    abad.OutputScaleTensor = desc(DataType::FLOAT32, {1, 2});
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.scale-element-count", "/desc/OutputScaleTensor/Sizes"));
    abad = a;
    abad.AZeroPointTensor = desc(DataType::INT8, {2, 1});
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.zero-point-element-count", "/desc/AZeroPointTensor/Sizes"));
    abad = a;
    abad.AZeroPointTensor->DataType = DataType::UINT8;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.zero-point-data-type", "/desc/AZeroPointTensor/DataType"));
    abad = a;
    abad.AScaleTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.scale-data-type", "/desc/AScaleTensor/DataType"));
    abad = a;
    abad.BTensor.DataType = DataType::INT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.data-type", "/desc/BTensor/DataType"));
    abad = a;
    abad.OutputTensor.DataType = DataType::INT32;
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.output-data-type", "/desc/OutputTensor/DataType"));
    abad = a;
    abad.BTensor.Sizes = {3, 2};
    CHECK(has_error({OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, abad},
                    "element-wise-quantized-linear-add.same-sizes", "/desc/BTensor/Sizes"));
    const Diagnostics so = validate_input_values(
        {OperatorType::ELEMENT_WISE_QUANTIZED_LINEAR_ADD, a},
        {{"OutputScaleTensor", buffer(a.OutputScaleTensor, std::vector<float>{0.0f})}}, 1u << 30);
    REQUIRE(so.has_errors());
    CHECK(so.items()[0].rule == "element-wise-quantized-linear-add.output-scale-zero");
}

TEST_CASE("Quantization: the stated tolerances") {
    // A quantized output is Bits unless some element sits within FLOAT32's error of a tie; then Ulp 1,
    // and those elements are the QuantizeTie boundary.
    auto make = [](std::vector<float> x, float s) {
        QL q;
        const uint32_t n = uint32_t(x.size());
        q.InputTensor = desc(DataType::FLOAT32, {n});
        q.ScaleTensor = desc(DataType::FLOAT32, {n});
        q.OutputTensor = desc(DataType::INT8, {n});
        Case c;
        c.op = {OperatorType::ELEMENT_WISE_QUANTIZE_LINEAR, q};
        c.inputs = {{"InputTensor", buffer(q.InputTensor, x)},
                    {"ScaleTensor", buffer(q.ScaleTensor, std::vector<float>(n, s))}};
        return c;
    };
    const float tenth = from_bits<float>(uint32_t(0x3dcccccd));
    const Case plain = make({0.7f, 0.2f, 1.0f}, tenth);
    CHECK(stated_tolerance(plain, "OutputTensor").Kind == "Bits");
    const Case tie = make({0.7f, 0.75f, 1.0f}, tenth);
    const Tolerance t = stated_tolerance(tie, "OutputTensor");
    CHECK(t.Kind == "Ulp");
    CHECK(t.Ulp == 1);
    const auto b = reference::quantize_ties(tie, "OutputTensor");
    REQUIRE(b.size() == 1);
    CHECK(b[0].Index == 1);
    // The diff admits the one at the tie only: [7, 8, 7] (the FLOAT32 quotient's 8 at the tie) passes,
    // [8, 7, 7] (one off at 0.7f / 0.1f = 6.99999996, far from a tie) does not.
    const Case golden = with_golden(tie, "OutputTensor");
    const auto at_tie = census(golden, "OutputTensor", buffer(desc(DataType::INT8, {3}), std::vector<int8_t>{7, 8, 10}),
                               DiffOptions{});
    CHECK(at_tie.within == 1);
    CHECK(at_tie.over == 0);
    const auto off_tie = census(golden, "OutputTensor",
                                buffer(desc(DataType::INT8, {3}), std::vector<int8_t>{8, 7, 10}), DiffOptions{});
    CHECK(off_tie.over == 1);
    // DEQUANTIZE_LINEAR: ELEMENT_WISE_MULTIPLY's 1.5 ULP, 2.5 for 32-bit integers.
    DQL dq;
    dq.InputTensor = desc(DataType::UINT32, {1});
    dq.ScaleTensor = dq.OutputTensor = desc(DataType::FLOAT32, {1});
    CHECK(reference::dequantize_tolerance(dq, "OutputTensor")->MaxTerms == 3);
    dq.InputTensor.DataType = DataType::UINT8;
    CHECK(reference::dequantize_tolerance(dq, "OutputTensor")->MaxTerms == 2);
}

}  // namespace dmlref_test_quantization
