// The cumulative family: CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT. Expected values come from
// the pages' examples, by hand (written out below with why), or from a naive loop in this file
// over exact small integers (every order gives the same value); none comes from dmlref.
#include "support.hpp"

#include "dmlref/descs/cumulative.hpp"
#include "dmlref/diff.hpp"

#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_cumulative {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using SUM = DML_CUMULATIVE_SUMMATION_OPERATOR_DESC;
using PROD = DML_CUMULATIVE_PRODUCT_OPERATOR_DESC;

template <class D>
Operator scan_op(DataType t, std::vector<uint32_t> sizes, uint32_t axis, bool decreasing, bool exclusive,
                 std::vector<uint32_t> strides = {}) {
    D d;
    d.InputTensor = desc(t, sizes, std::move(strides));
    d.OutputTensor = desc(t, sizes);
    d.Axis = axis;
    d.AxisDirection = decreasing ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    if constexpr (std::is_same_v<D, SUM>) d.HasExclusiveSum = exclusive;
    else d.HasExclusiveProduct = exclusive;
    return {D::kType, d};
}

template <class D, class T>
std::vector<T> scan(const std::vector<T>& x, std::vector<uint32_t> sizes, uint32_t axis, bool decreasing,
                    bool exclusive) {
    const Operator op = scan_op<D>(data_type_of<T>(), sizes, axis, decreasing, exclusive);
    return as_values<T>(run(op, {{"InputTensor", logical_buffer(get<D>(op.Desc).InputTensor, x)}}).at("OutputTensor"));
}

float f32(uint32_t bits) { return from_bits<float>(bits); }

// The pages' 1x1x3x4 input.
const std::vector<float> kPage = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
const std::vector<uint32_t> kPageSizes = {1, 1, 3, 4};

}  // namespace

TEST_CASE("CUMULATIVE_SUMMATION: the page's four examples") {
    CHECK(scan<SUM>(kPage, kPageSizes, 3, false, false) ==
          std::vector<float>{2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21});
    CHECK(scan<SUM>(kPage, kPageSizes, 3, false, true) == std::vector<float>{0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17});
    CHECK(scan<SUM>(kPage, kPageSizes, 3, true, false) == std::vector<float>{11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4});
    CHECK(scan<SUM>(kPage, kPageSizes, 2, false, false) == std::vector<float>{2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12});
}

TEST_CASE("CUMULATIVE_PRODUCT: the page's four examples") {
    CHECK(scan<PROD>(kPage, kPageSizes, 3, false, false) ==
          std::vector<float>{2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432});
    CHECK(scan<PROD>(kPage, kPageSizes, 3, false, true) ==
          std::vector<float>{1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108});
    CHECK(scan<PROD>(kPage, kPageSizes, 3, true, false) ==
          std::vector<float>{30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4});
    CHECK(scan<PROD>(kPage, kPageSizes, 2, false, false) ==
          std::vector<float>{2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60});
}

TEST_CASE("CUMULATIVE_SUMMATION and _PRODUCT: a naive loop over every axis, both directions, exclusive and not") {
    // 2x3x4 INT32 of small values: sums and products are exact in every order.
    const std::vector<uint32_t> sizes = {2, 3, 4};
    std::vector<int32_t> x(24);
    for (size_t i = 0; i < x.size(); ++i) x[i] = int32_t((i * 5) % 7) - 3;
    for (uint32_t axis = 0; axis < 3; ++axis)
        for (int dec = 0; dec < 2; ++dec)
            for (int exc = 0; exc < 2; ++exc) {
                std::vector<int32_t> s(24), p(24);
                for (uint32_t a = 0; a < 2; ++a)
                    for (uint32_t b = 0; b < 3; ++b)
                        for (uint32_t c = 0; c < 4; ++c) {
                            const uint32_t at[3] = {a, b, c};
                            int32_t sum = 0, prod = 1;
                            // Every element j along the axis that comes before (or is) this one in traversal order.
                            for (uint32_t j = 0; j < sizes[axis]; ++j) {
                                const bool before = dec ? j > at[axis] : j < at[axis];
                                if (!(before || (!exc && j == at[axis]))) continue;
                                uint32_t w[3] = {a, b, c};
                                w[axis] = j;
                                const int32_t v = x[w[0] * 12 + w[1] * 4 + w[2]];
                                sum += v;
                                prod *= v;
                            }
                            s[a * 12 + b * 4 + c] = sum;
                            p[a * 12 + b * 4 + c] = prod;
                        }
                INFO("axis " << axis << " decreasing " << dec << " exclusive " << exc);
                CHECK(scan<SUM>(x, sizes, axis, dec, exc) == s);
                CHECK(scan<PROD>(x, sizes, axis, dec, exc) == p);
            }
}

TEST_CASE("CUMULATIVE_SUMMATION: each prefix exact, rounded once; +0 start; NaN and infinities") {
    // Prefixes of {1, 2^-24, 2^-24, -1}: 1, 1 + 2^-24 (a tie: 1), 1 + 2^-23 (0x3f800001), 2^-23
    // (0x34000000). A running float32 sum gives 1, 1, 1, 0.
    check_bits(scan<SUM>(std::vector<float>{1.f, 0x1p-24f, 0x1p-24f, -1.f}, {4}, 0, false, false),
               std::vector<float>{1.f, 1.f, f32(0x3f800001), f32(0x34000000)});
    // -0 alone is +0 (a sum starts from +0); the exclusive first element is +0.
    check_bits(scan<SUM>(std::vector<float>{-0.f, -0.f}, {2}, 0, false, false), std::vector<float>{0.f, 0.f});
    check_bits(scan<SUM>(std::vector<float>{-0.f, -1.f}, {2}, 0, false, true), std::vector<float>{0.f, 0.f});
    // +inf, then -inf: +inf, then NaN (canonical) from there on; NaN payloads are not kept.
    const float inf = std::numeric_limits<float>::infinity();
    check_bits(scan<SUM>(std::vector<float>{inf, 1.f, -inf, 2.f}, {4}, 0, false, false),
               std::vector<float>{inf, inf, f32(0x7fc00000), f32(0x7fc00000)});
    check_bits(scan<SUM>(std::vector<float>{1.f, f32(0x7fc00123)}, {2}, 0, true, false),
               std::vector<float>{f32(0x7fc00000), f32(0x7fc00000)});
    // Integers wrap: UINT16 65535 + 1 = 0.
    CHECK(scan<SUM>(std::vector<uint16_t>{65535, 1, 5}, {3}, 0, false, false) == std::vector<uint16_t>{65535, 0, 5});
}

TEST_CASE("CUMULATIVE_PRODUCT: each prefix exact, rounded once; signs of zeros; wrapping integers") {
    // Prefixes of {2^-100, 2^-100, 2^100, 2^100}: 2^-100, 2^-200 (underflows to +0 in float32),
    // 2^-100, 1: each prefix is exact, so the third and fourth are not lost to the underflow.
    check_bits(scan<PROD>(std::vector<float>{0x1p-100f, 0x1p-100f, 0x1p100f, 0x1p100f}, {4}, 0, false, false),
               std::vector<float>{0x1p-100f, 0.f, 0x1p-100f, 1.f});
    // -0 times positive numbers stays -0; times an infinity it is NaN.
    const float inf = std::numeric_limits<float>::infinity();
    check_bits(scan<PROD>(std::vector<float>{-0.f, 3.f, inf}, {3}, 0, false, false),
               std::vector<float>{-0.f, -0.f, f32(0x7fc00000)});
    // UINT32 65536 * 65536 wraps to 0.
    CHECK(scan<PROD>(std::vector<uint32_t>{65536, 65536, 7}, {3}, 0, false, false) ==
          std::vector<uint32_t>{65536, 0, 0});
}

TEST_CASE("CUMULATIVE_*: strided input and in place") {
    // The page's 3x4 input stored transposed (strides 1, 3); the sum along axis 1.
    const Operator op = scan_op<SUM>(DataType::FLOAT32, {3, 4}, 1, false, false, {1, 3});
    const auto out = as_values<float>(
        run(op, {{"InputTensor", logical_buffer(get<SUM>(op.Desc).InputTensor, kPage)}}).at("OutputTensor"));
    CHECK(out == std::vector<float>{2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21});
    // In place: OutputTensor bound to InputTensor's buffer (the pages allow it).
    Case c;
    c.op = scan_op<PROD>(DataType::FLOAT32, {1, 1, 3, 4}, 3, true, false);
    c.inputs["InputTensor"] = logical_buffer(get<PROD>(c.op.Desc).InputTensor, kPage);
    c.in_place["OutputTensor"] = "InputTensor";
    CHECK(as_values<float>(run_case(c).values.at("OutputTensor")) ==
          std::vector<float>{30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4});
}

TEST_CASE("CUMULATIVE_*: every rule of the pages, with its rule id") {
    Operator op = scan_op<SUM>(DataType::FLOAT32, {2, 3}, 2, false, false);
    CHECK(has_error(op, "cumulative-summation.axis-range", "/desc/Axis"));
    op = scan_op<SUM>(DataType::FLOAT32, {2, 3}, 1, false, false);
    get<SUM>(op.Desc).HasExclusiveSum = 2;
    CHECK(has_error(op, "cumulative-summation.exclusive-bool", "/desc/HasExclusiveSum"));
    op = scan_op<PROD>(DataType::FLOAT32, {2, 3}, 1, false, false);
    get<PROD>(op.Desc).OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "cumulative-product.same-data-type", "/desc/OutputTensor/DataType"));
    op = scan_op<PROD>(DataType::FLOAT32, {2, 3}, 1, false, false);
    get<PROD>(op.Desc).OutputTensor.Sizes = {3, 2};
    CHECK(has_error(op, "cumulative-product.same-sizes", "/desc/OutputTensor/Sizes"));
}

TEST_CASE("CUMULATIVE_* judging: a running float32 scan passes, a scan that skips an element fails") {
    std::vector<float> x(40);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 29 % 23) - 11) * 0x1p-5f + (i % 4 == 0 ? 1024.f : 0.f);
    auto judged = [&](bool product, const std::vector<float>& actual) {
        Case c;
        c.op = product ? scan_op<PROD>(DataType::FLOAT32, {40}, 0, false, false)
                       : scan_op<SUM>(DataType::FLOAT32, {40}, 0, false, false);
        const TensorDesc& in = product ? get<PROD>(c.op.Desc).InputTensor : get<SUM>(c.op.Desc).InputTensor;
        c.inputs["InputTensor"] = logical_buffer(in, x);
        c = with_golden(c, "OutputTensor");
        std::vector<std::byte> b(actual.size() * 4);
        std::memcpy(b.data(), actual.data(), b.size());
        return census(c, "OutputTensor", b, {}).passed();
    };
    std::vector<float> run(40), skipped(40);
    float acc = 0, acc2 = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        acc += x[i];
        if (i != 7) acc2 += x[i];
        run[i] = acc;
        skipped[i] = acc2;
    }
    CHECK(judged(false, run));
    CHECK_FALSE(judged(false, skipped));
    // Products of 40 factors near 1 (1 + k 2^-10): a running float32 product passes.
    for (size_t i = 0; i < x.size(); ++i) x[i] = 1.f + float(int(i % 7) - 3) * 0x1p-10f;
    std::vector<float> prod(40), off(40);
    float p = 1;
    for (size_t i = 0; i < x.size(); ++i) {
        p *= x[i];
        prod[i] = p;
        off[i] = i == 20 ? p * (1.f + 0x1p-8f) : p;  // one element off by 2^-8 relative
    }
    CHECK(judged(true, prod));
    CHECK_FALSE(judged(true, off));
}

TEST_CASE("CUMULATIVE_PRODUCT judging: a running FLOAT16 product that overflows before a zero gives NaN, and passes") {
    // 4^8 = 65536 passes FLOAT16's largest finite value (65504): a running product in FLOAT16 is
    // +inf from the eighth factor on, and inf * 0 = NaN at the zero. The exact prefix products
    // are 4^k (the golden +inf from k = 8) and then exactly 0.
    auto judged = [](const std::vector<half>& x, const std::vector<half>& actual) {
        Case c;
        c.op = scan_op<PROD>(DataType::FLOAT16, {uint32_t(x.size())}, 0, false, false);
        c.inputs["InputTensor"] = logical_buffer(get<PROD>(c.op.Desc).InputTensor, x);
        c = with_golden(c, "OutputTensor");
        std::vector<std::byte> b(actual.size() * 2);
        std::memcpy(b.data(), actual.data(), b.size());
        return census(c, "OutputTensor", b, {}).passed();
    };
    const half four = from_bits<half>(0x4400), zero = from_bits<half>(0x0000), one = from_bits<half>(0x3c00);
    const half inf = from_bits<half>(0x7c00), nan = from_bits<half>(0x7e00);
    std::vector<half> x(8, four), running;
    x.push_back(zero);
    float p = 1;  // 4^k is exact in float; rounded to FLOAT16 it is 4^k up to 4^7, then +inf
    for (size_t k = 0; k < 8; ++k) {
        p *= 4;
        running.push_back(k < 7 ? from_bits<half>(uint16_t(0x4400 + 0x800 * k)) : inf);
    }
    REQUIRE(p == 65536.f);
    running.push_back(nan);
    CHECK(judged(x, running));
    // With factors that cannot overflow (2, 1 and a zero), the product is exactly 0 in every
    // order: NaN is a wrong answer there.
    CHECK(judged({from_bits<half>(0x4000), one, zero}, {from_bits<half>(0x4000), from_bits<half>(0x4000), zero}));
    CHECK_FALSE(judged({from_bits<half>(0x4000), one, zero}, {from_bits<half>(0x4000), from_bits<half>(0x4000), nan}));
}

}  // namespace dmlref_test_cumulative
