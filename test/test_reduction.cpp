// The reduction family: REDUCE (the twelve functions), ARGMIN, ARGMAX. Expected values come from
// the pages' examples, by hand (written out below with why), from a naive loop in this file that
// walks the coordinates differently (nested loops, not dmlref's offset tables), or from MPFR
// called here at a fixed high precision and rounded once by mpfr_get_flt/mpfr_get_d (dmlref uses
// Ziv's loop); none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/reduction.hpp"
#include "dmlref/diff.hpp"

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_reduction {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using RD = DML_REDUCE_OPERATOR_DESC;
using AMIN = DML_ARGMIN_OPERATOR_DESC;
using AMAX = DML_ARGMAX_OPERATOR_DESC;

std::vector<uint32_t> reduced_sizes(std::vector<uint32_t> s, const std::vector<uint32_t>& axes) {
    for (uint32_t a : axes) s[a] = 1;
    return s;
}

Operator reduce_op(uint32_t f, DataType in, DataType out, std::vector<uint32_t> sizes, std::vector<uint32_t> axes,
                   std::vector<uint32_t> strides = {}) {
    RD d;
    d.Function = f;
    d.InputTensor = desc(in, sizes, std::move(strides));
    d.OutputTensor = desc(out, reduced_sizes(sizes, axes));
    d.AxisCount = uint32_t(axes.size());
    d.Axes = std::move(axes);
    return {RD::kType, d};
}

template <class D>
Operator arg_op(DataType in, DataType out, std::vector<uint32_t> sizes, std::vector<uint32_t> axes,
                bool decreasing = false) {
    D d;
    d.InputTensor = desc(in, sizes);
    d.OutputTensor = desc(out, reduced_sizes(sizes, axes));
    d.AxisCount = uint32_t(axes.size());
    d.Axes = std::move(axes);
    d.AxisDirection = decreasing ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    return {D::kType, d};
}

// Runs `op` on logical input values; the output's logical values as TOut.
template <class TOut, class T> std::vector<TOut> run_values(const Operator& op, const std::vector<T>& x) {
    const TensorDesc* in = nullptr;
    if (auto* d = get_if<RD>(&op.Desc)) in = &d->InputTensor;
    else if (auto* d = get_if<AMIN>(&op.Desc)) in = &d->InputTensor;
    else in = &get<AMAX>(op.Desc).InputTensor;
    return as_values<TOut>(run(op, {{"InputTensor", logical_buffer(*in, x)}}).at("OutputTensor"));
}

template <class T> std::vector<T> reduce(uint32_t f, const std::vector<T>& x) {
    return run_values<T>(reduce_op(f, data_type_of<T>(), data_type_of<T>(), {uint32_t(x.size())}, {0}), x);
}

float f32(uint32_t bits) { return from_bits<float>(bits); }
half f16(uint16_t bits) { return from_bits<half>(bits); }

// A value computed by MPFR at 400 bits, rounded once to float / double / half here.
float mpfr_to_float(mpfr_srcptr v) { return mpfr_get_flt(v, MPFR_RNDN); }

// The 3x3 input of the ARGMAX page's examples.
const std::vector<float> kArgmaxPage = {1, 2, 3, 3, 0, 4, 2, 5, 2};
// The 3x3 input of the REDUCE page's examples.
const std::vector<float> kReducePage = {1, 2, 3, 3, 0, 4, 2, 4, 2};

}  // namespace

TEST_CASE("ARGMAX and ARGMIN: the ARGMAX page's examples and its AxisDirection example") {
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::UINT32, {3, 3}, {0}), kArgmaxPage) ==
          std::vector<uint32_t>{1, 2, 1});
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::UINT32, {3, 3}, {1}), kArgmaxPage) ==
          std::vector<uint32_t>{2, 2, 1});
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::UINT32, {3, 3}, {0, 1}), kArgmaxPage) ==
          std::vector<uint32_t>{7});
    // argmax({3,2,1,2,3}) = 0 (INCREASING), 4 (DECREASING); argmin: the 1 at index 2 either way.
    const std::vector<float> x = {3, 2, 1, 2, 3};
    CHECK(run_values<int64_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::INT64, {5}, {0}), x) ==
          std::vector<int64_t>{0});
    CHECK(run_values<int64_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::INT64, {5}, {0}, true), x) ==
          std::vector<int64_t>{4});
    CHECK(run_values<uint64_t>(arg_op<AMIN>(DataType::FLOAT32, DataType::UINT64, {5}, {0}, true), x) ==
          std::vector<uint64_t>{2});
    // argmin of {2,2,1,1,5}: INCREASING the first 1 (index 2), DECREASING the last (index 3).
    const std::vector<int8_t> y = {2, 2, 1, 1, 5};
    CHECK(run_values<int32_t>(arg_op<AMIN>(DataType::INT8, DataType::INT32, {5}, {0}), y) == std::vector<int32_t>{2});
    CHECK(run_values<int32_t>(arg_op<AMIN>(DataType::INT8, DataType::INT32, {5}, {0}, true), y) ==
          std::vector<int32_t>{3});
    // REDUCE's ARGMAX and ARGMIN are the INCREASING ones (the ARGMAX page's remarks).
    CHECK(run_values<uint32_t>(reduce_op(DML_REDUCE_FUNCTION_ARGMAX, DataType::FLOAT32, DataType::UINT32, {5}, {0}),
                               x) == std::vector<uint32_t>{0});
    CHECK(run_values<uint32_t>(reduce_op(DML_REDUCE_FUNCTION_ARGMIN, DataType::INT8, DataType::UINT32, {5}, {0}), y) ==
          std::vector<uint32_t>{2});
}

TEST_CASE("ARGMAX over two of three axes: the index is row-major over the reduced axes only") {
    // Input 2x3x2, axes {0, 2}: for each middle index m the four elements (a, c) are numbered
    // j = a * 2 + c. Values x[a][m][c] = 10 * a + 3 * c + (m == 1 ? -7 * c : 0), so the largest is
    // (1, 1) -> j = 3 for m = 0 and 2, and (1, 0) -> j = 2 for m = 1 (10 against 10 + 3 - 7 = 6).
    std::vector<int32_t> x(12);
    for (int a = 0; a < 2; ++a)
        for (int m = 0; m < 3; ++m)
            for (int c = 0; c < 2; ++c) x[size_t(a * 6 + m * 2 + c)] = 10 * a + 3 * c + (m == 1 ? -7 * c : 0);
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::INT32, DataType::UINT32, {2, 3, 2}, {0, 2}), x) ==
          std::vector<uint32_t>{3, 2, 3});
    // Axes given out of order name the same reduction.
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::INT32, DataType::UINT32, {2, 3, 2}, {2, 0}), x) ==
          std::vector<uint32_t>{3, 2, 3});
}

TEST_CASE("ARGMIN and ARGMAX: NaN loses to any number; -0 and +0 tie; INT64 and UINT64 compare exactly") {
    // {NaN, 1, NaN, 2}: argmax 3 and argmin 1 in either direction; all NaN: the first (INCREASING) or last.
    const std::vector<float> x = {std::numeric_limits<float>::quiet_NaN(), 1, std::numeric_limits<float>::quiet_NaN(),
                                  2};
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::UINT32, {4}, {0}), x) ==
          std::vector<uint32_t>{3});
    CHECK(run_values<uint32_t>(arg_op<AMIN>(DataType::FLOAT32, DataType::UINT32, {4}, {0}, true), x) ==
          std::vector<uint32_t>{1});
    const std::vector<float> nans(3, std::numeric_limits<float>::quiet_NaN());
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::UINT32, {3}, {0}), nans) ==
          std::vector<uint32_t>{0});
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT32, DataType::UINT32, {3}, {0}, true), nans) ==
          std::vector<uint32_t>{2});
    // {-0, +0}: equal, so INCREASING gives 0 and DECREASING 1, for ARGMAX and ARGMIN alike.
    const std::vector<half> z = {f16(0x8000), f16(0x0000)};
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT16, DataType::UINT32, {2}, {0}), z) ==
          std::vector<uint32_t>{0});
    CHECK(run_values<uint32_t>(arg_op<AMIN>(DataType::FLOAT16, DataType::UINT32, {2}, {0}, true), z) ==
          std::vector<uint32_t>{1});
    // 2^53 + 1 against 2^53: equal as doubles, not as INT64.
    const std::vector<int64_t> big = {(int64_t(1) << 53) + 1, int64_t(1) << 53};
    CHECK(run_values<uint32_t>(arg_op<AMIN>(DataType::INT64, DataType::UINT32, {2}, {0}), big) ==
          std::vector<uint32_t>{1});
    const std::vector<uint64_t> ubig = {~uint64_t(0) - 1, ~uint64_t(0)};
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::UINT64, DataType::UINT32, {2}, {0}), ubig) ==
          std::vector<uint32_t>{1});
}

TEST_CASE("REDUCE MAX and MIN: D3D's, NaN ignored, +0 above -0; all NaN gives the first NaN's bits") {
    const float nan1 = f32(0x7fc00001), nan2 = f32(0xffc00002);
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MAX, {nan1, -3.f, nan2, -5.f}), std::vector<float>{-3.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MIN, {nan1, -3.f, nan2, -5.f}), std::vector<float>{-5.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MAX, {-0.f, 0.f}), std::vector<float>{0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MAX, {0.f, -0.f}), std::vector<float>{0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MIN, {0.f, -0.f}), std::vector<float>{-0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MIN, {nan2, nan1}), std::vector<float>{nan2});
    // Subnormals are values: 2^-149 > 0.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MAX, {0.f, f32(1)}), std::vector<float>{f32(1)});
    CHECK(reduce<int8_t>(DML_REDUCE_FUNCTION_MIN, {5, -128, 127}) == std::vector<int8_t>{-128});
    CHECK(reduce<uint64_t>(DML_REDUCE_FUNCTION_MAX, {~uint64_t(0) - 1, ~uint64_t(0), 3}) ==
          std::vector<uint64_t>{~uint64_t(0)});
}

TEST_CASE("REDUCE SUM: the REDUCE page's examples, and a naive loop over axes, strides and broadcasts") {
    CHECK(run_values<float>(reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::FLOAT32, DataType::FLOAT32, {3, 3}, {0}),
                            kReducePage) == std::vector<float>{6, 6, 9});
    CHECK(run_values<float>(reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::FLOAT32, DataType::FLOAT32, {3, 3}, {1}),
                            kReducePage) == std::vector<float>{6, 7, 8});
    CHECK(run_values<float>(reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::FLOAT32, DataType::FLOAT32, {3, 3}, {0, 1}),
                            kReducePage) == std::vector<float>{21});
    // 2x3x4 INT32, axes {0, 2}, values small integers: every order gives the same sum; the
    // expected values by nested loops over (b, c) for each middle index.
    const std::vector<uint32_t> sizes = {2, 3, 4};
    std::vector<int32_t> x(24);
    for (size_t i = 0; i < x.size(); ++i) x[i] = int32_t((i * 7) % 11) - 5;
    std::vector<int32_t> want(3, 0);
    for (int m = 0; m < 3; ++m)
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 4; ++c) want[size_t(m)] += x[size_t(b * 12 + m * 4 + c)];
    CHECK(run_values<int32_t>(reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::INT32, DataType::INT32, sizes, {0, 2}), x) ==
          want);
    // The same logical values stored transposed (strides 1, 2, 6: dimension 0 fastest).
    CHECK(run_values<int32_t>(
              reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::INT32, DataType::INT32, sizes, {0, 2}, {1, 2, 6}), x) ==
          want);
    // A broadcast input (stride 0 along dimension 0): the logical values repeat, so the sum over
    // dimension 0 doubles each element.
    {
        const Operator op = reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::INT16, DataType::INT16, {2, 3}, {0}, {0, 1});
        const std::vector<int16_t> row = {1, -2, 300};
        const auto out = as_values<int16_t>(
            run(op, {{"InputTensor", buffer(get<RD>(op.Desc).InputTensor, row)}}).at("OutputTensor"));
        CHECK(out == std::vector<int16_t>{2, -4, 600});
    }
}

TEST_CASE("REDUCE SUM and AVERAGE of floats: the exact value rounded once") {
    // 1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly (0x3f800001); adding left to right in float32 gives 1
    // (each 1 + 2^-24 is a tie to even).
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM, {1.f, 0x1p-24f, 0x1p-24f}), std::vector<float>{f32(0x3f800001)});
    // FLOAT16: 2048 + 1 + 1 = 2050 (0x6801: the spacing is 2 there), where FLOAT16 additions give 2048.
    check_bits(reduce<half>(DML_REDUCE_FUNCTION_SUM, {f16(0x6800), f16(0x3c00), f16(0x3c00)}),
               std::vector<half>{f16(0x6801)});
    // Exact cancellation: +0 (a sum starts from +0), also for -0 + -0.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM, {1e30f, 1.f, -1e30f, -1.f}), std::vector<float>{0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM, {-0.f, -0.f}), std::vector<float>{0.f});
    // NaN, and +inf with -inf: the canonical NaN; one infinity wins over finite terms.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM, {f32(0x7f800000), f32(0xff800000)}),
               std::vector<float>{f32(0x7fc00000)});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM, {f32(0xff800000), 3.f}), std::vector<float>{f32(0xff800000)});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_AVERAGE, {f32(0x7fc12345), 3.f}), std::vector<float>{f32(0x7fc00000)});
    // FLT_MAX + FLT_MAX overflows to +inf; their average is FLT_MAX (the divisor is exact, no
    // overflow on the way).
    const float big = std::numeric_limits<float>::max();
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM, {big, big}),
               std::vector<float>{std::numeric_limits<float>::infinity()});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_AVERAGE, {big, big}), std::vector<float>{big});
    // (1 + 0 + 0) / 3 rounded once: double division then float is exact enough (53 >= 2 * 24 + 2).
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_AVERAGE, {1.f, 0.f, 0.f}), std::vector<float>{float(1.0 / 3.0)});
    // FLOAT16 average of 1 and 2^-11 (0x1000): (1 + 2^-11) / 2 = 0.5 + 2^-12, a tie between 0.5
    // and 0.5 + 2^-11 (0x3801): even is 0.5 (0x3800). Dividing by 2 after rounding the sum to
    // FLOAT16 gives the same here; the point is one rounding of the exact quotient.
    check_bits(reduce<half>(DML_REDUCE_FUNCTION_AVERAGE, {f16(0x3c00), f16(0x1000)}), std::vector<half>{f16(0x3800)});
    // L1 and SUM_SQUARE: |-3| + |4| = 7; 3^2 + 4^2 = 25; (-inf)^2 is +inf.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_L1, {-3.f, 4.f}), std::vector<float>{7.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM_SQUARE, {-3.f, 4.f}), std::vector<float>{25.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM_SQUARE, {f32(0xff800000), 1.f}),
               std::vector<float>{std::numeric_limits<float>::infinity()});
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: FLOAT32 rounds the square alone to 1 + 2^-11 (a tie
    // to even); summed exactly with (2^-12)^2 = 2^-24 it is 1 + 2^-11 + 2^-23: mantissa field
    // 2^12 + 1 (0x3f801001), where rounding each square and sum in FLOAT32 gives 0x3f801000.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_SUM_SQUARE, {1.f + 0x1p-12f, 0x1p-12f}),
               std::vector<float>{f32(0x3f801001)});
}

TEST_CASE("REDUCE on integers: SUM, MULTIPLY, L1 and SUM_SQUARE wrap; AVERAGE rounds half to even") {
    CHECK(reduce<int8_t>(DML_REDUCE_FUNCTION_SUM, {100, 100}) == std::vector<int8_t>{-56});        // 200 - 256
    CHECK(reduce<uint8_t>(DML_REDUCE_FUNCTION_MULTIPLY, {16, 16, 3}) == std::vector<uint8_t>{0});  // 768 mod 256
    CHECK(reduce<int32_t>(DML_REDUCE_FUNCTION_MULTIPLY, {65536, 65536}) == std::vector<int32_t>{0});
    CHECK(reduce<int8_t>(DML_REDUCE_FUNCTION_L1, {-128, 1}) == std::vector<int8_t>{-127});          // 129 - 256
    CHECK(reduce<uint16_t>(DML_REDUCE_FUNCTION_SUM_SQUARE, {256, 1}) == std::vector<uint16_t>{1});  // 65537 mod 65536
    CHECK(reduce<int32_t>(DML_REDUCE_FUNCTION_AVERAGE, {1, 2}) == std::vector<int32_t>{2});         // 1.5 -> 2
    CHECK(reduce<int32_t>(DML_REDUCE_FUNCTION_AVERAGE, {1, 4}) == std::vector<int32_t>{2});         // 2.5 -> 2
    CHECK(reduce<int32_t>(DML_REDUCE_FUNCTION_AVERAGE, {-1, -2}) == std::vector<int32_t>{-2});      // -1.5 -> -2
    // INT64 extremes: the mean of INT64_MAX and INT64_MAX - 2 is INT64_MAX - 1, with no overflow.
    const int64_t m = std::numeric_limits<int64_t>::max();
    CHECK(reduce<int64_t>(DML_REDUCE_FUNCTION_AVERAGE, {m, m - 2}) == std::vector<int64_t>{m - 1});
    CHECK(reduce<uint64_t>(DML_REDUCE_FUNCTION_SUM, {~uint64_t(0), 2}) == std::vector<uint64_t>{1});
}

TEST_CASE("REDUCE MULTIPLY of floats: the exact product rounded once; signs of zeros and infinities") {
    // 2^-100 * 2^-100 * 2^100 * 2^100 = 1 exactly; left to right in float32 underflows to 0.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {0x1p-100f, 0x1p-100f, 0x1p100f, 0x1p100f}),
               std::vector<float>{1.f});
    // (1 + 2^-12)^2 (1 + 2^-23) = 1 + 2^-11 + 2^-23 + 2^-24 + 2^-34 + 2^-47: in units of 2^-23
    // above 1, 4097.5 and a little, so 4098 (0x3f801002). Rounding after each product gives
    // 1 + 2^-11 (a tie to even), then 4097 (0x3f801001).
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {1.f + 0x1p-12f, 1.f + 0x1p-12f, 1.f + 0x1p-23f}),
               std::vector<float>{f32(0x3f801002)});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {-0.f, 3.f}), std::vector<float>{-0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {-1.f, 0x1p-149f, 0x1p-149f}),
               std::vector<float>{-0.f});  // underflow
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {-2.f, 0x1p127f, 0x1p127f}),
               std::vector<float>{-std::numeric_limits<float>::infinity()});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {f32(0x7f800000), 0.f}),
               std::vector<float>{f32(0x7fc00000)});
    // 2^-75 * 2^-75 = 2^-150: half the smallest subnormal, a tie to even: +0; times 3 it is
    // 1.5 * 2^-149, rounded to 2^-148 (0x00000002).
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {0x1p-75f, 0x1p-75f}), std::vector<float>{0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_MULTIPLY, {0x1p-75f, 0x1p-75f, 3.f}), std::vector<float>{f32(2)});
    // FLOAT16: 255 * 257 = 65535, at least 65520 (65504 plus half its ULP): +inf.
    check_bits(reduce<half>(DML_REDUCE_FUNCTION_MULTIPLY, {half(255.f), half(257.f)}), std::vector<half>{f16(0x7c00)});
}

TEST_CASE("REDUCE L2, LOG_SUM and LOG_SUM_EXP: correctly rounded, against MPFR at 400 bits") {
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_L2, {3.f, -4.f}), std::vector<float>{5.f});  // exact
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_L2, {0.75f, 1.f}), std::vector<float>{1.25f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_L2, {-0.f, 0.f}), std::vector<float>{0.f});
    mpfr_t a, b;
    mpfr_inits2(400, a, b, (mpfr_ptr) nullptr);
    // sqrt(1 + 1) and sqrt(0.1f^2 + 0.2f^2).
    mpfr_set_ui(a, 2, MPFR_RNDN);
    mpfr_sqrt(a, a, MPFR_RNDN);
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_L2, {1.f, 1.f}), std::vector<float>{mpfr_to_float(a)});
    mpfr_set_flt(a, 0.1f, MPFR_RNDN);
    mpfr_sqr(a, a, MPFR_RNDN);
    mpfr_set_flt(b, 0.2f, MPFR_RNDN);
    mpfr_sqr(b, b, MPFR_RNDN);
    mpfr_add(a, a, b, MPFR_RNDN);
    mpfr_sqrt(a, a, MPFR_RNDN);
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_L2, {0.1f, 0.2f}), std::vector<float>{mpfr_to_float(a)});
    // log(1 + 2) and log(0.1f + 0.7f).
    mpfr_set_ui(a, 3, MPFR_RNDN);
    mpfr_log(a, a, MPFR_RNDN);
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_LOG_SUM, {1.f, 2.f}), std::vector<float>{mpfr_to_float(a)});
    mpfr_set_flt(a, 0.1f, MPFR_RNDN);
    mpfr_add_d(a, a, double(0.7f), MPFR_RNDN);
    mpfr_log(a, a, MPFR_RNDN);
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_LOG_SUM, {0.1f, 0.7f}), std::vector<float>{mpfr_to_float(a)});
    // log of an exact 1 is +0; of 0, -inf; of a negative sum, NaN.
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_LOG_SUM, {0.25f, 0.75f}), std::vector<float>{0.f});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_LOG_SUM, {2.f, -2.f}),
               std::vector<float>{-std::numeric_limits<float>::infinity()});
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_LOG_SUM, {1.f, -2.f}), std::vector<float>{f32(0x7fc00000)});
    // log(exp(1000) + exp(1000)) = 1000 + log 2: finite although exp(1000) overflows float32.
    mpfr_set_ui(a, 1000, MPFR_RNDN);
    mpfr_exp(a, a, MPFR_RNDN);
    mpfr_mul_ui(a, a, 2, MPFR_RNDN);
    mpfr_log(a, a, MPFR_RNDN);
    check_bits(reduce<float>(DML_REDUCE_FUNCTION_LOG_SUM_EXP, {1000.f, 1000.f}), std::vector<float>{mpfr_to_float(a)});
    // log(exp(-1) + exp(0.5) + exp(2)) in FLOAT64, rounded by mpfr_get_d.
    mpfr_set_si(a, -1, MPFR_RNDN);
    mpfr_exp(a, a, MPFR_RNDN);
    mpfr_set_d(b, 0.5, MPFR_RNDN);
    mpfr_exp(b, b, MPFR_RNDN);
    mpfr_add(a, a, b, MPFR_RNDN);
    mpfr_set_ui(b, 2, MPFR_RNDN);
    mpfr_exp(b, b, MPFR_RNDN);
    mpfr_add(a, a, b, MPFR_RNDN);
    mpfr_log(a, a, MPFR_RNDN);
    const double lse = mpfr_get_d(a, MPFR_RNDN);
    check_bits(reduce<double>(DML_REDUCE_FUNCTION_LOG_SUM_EXP, {-1.0, 0.5, 2.0}), std::vector<double>{lse});
    mpfr_clears(a, b, (mpfr_ptr) nullptr);
    // One element (and -inf elements, which add exp(-inf) = 0): the element itself.
    check_bits(reduce<half>(DML_REDUCE_FUNCTION_LOG_SUM_EXP, {f16(0xfc00), f16(0x4200)}),
               std::vector<half>{f16(0x4200)});
    check_bits(reduce<half>(DML_REDUCE_FUNCTION_LOG_SUM_EXP, {f16(0xfc00), f16(0xfc00)}),
               std::vector<half>{f16(0xfc00)});
}

TEST_CASE("REDUCE, ARGMIN, ARGMAX: every rule of the pages, with its rule id") {
    CHECK(has_error(reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::FLOAT32, DataType::FLOAT16, {3}, {0}),
                    "reduce.same-data-type", "/desc/OutputTensor/DataType"));
    Operator op = reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::FLOAT32, DataType::FLOAT32, {3, 2}, {0});
    get<RD>(op.Desc).OutputTensor.Sizes = {1, 1};
    CHECK(has_error(op, "reduce.output-sizes", "/desc/OutputTensor/Sizes/1"));
    get<RD>(op.Desc).OutputTensor.Sizes = {1, 2, 1};
    CHECK(has_error(op, "reduce.same-dimension-count", "/desc/OutputTensor/Sizes"));
    op = reduce_op(DML_REDUCE_FUNCTION_SUM, DataType::FLOAT32, DataType::FLOAT32, {3, 2}, {0});
    get<RD>(op.Desc).Axes = {2};
    CHECK(has_error(op, "reduce.axis-range", "/desc/Axes/0"));
    get<RD>(op.Desc).Axes = {0, 0};
    get<RD>(op.Desc).AxisCount = 2;
    CHECK(has_error(op, "reduce.axes-distinct", "/desc/Axes/1"));
    get<RD>(op.Desc).AxisCount = 0;
    get<RD>(op.Desc).Axes = {};
    CHECK(has_error(op, "reduce.axis-count", "/desc/AxisCount"));
    get<RD>(op.Desc).AxisCount = 1;
    CHECK(has_error(op, "reduce.axes-length", "/desc/Axes"));
    CHECK(has_error(reduce_op(DML_REDUCE_FUNCTION_L2, DataType::INT32, DataType::INT32, {3}, {0}),
                    "reduce.function-data-type", "/desc/InputTensor/DataType"));
    CHECK(has_error(reduce_op(DML_REDUCE_FUNCTION_ARGMAX, DataType::FLOAT32, DataType::FLOAT32, {3}, {0}),
                    "reduce.index-type", "/desc/OutputTensor/DataType"));
    CHECK(has_error(arg_op<AMAX>(DataType::FLOAT32, DataType::INT8, {200}, {0}), "argmax.index-fits",
                    "/desc/OutputTensor/DataType"));
    CHECK_FALSE(has_error(arg_op<AMAX>(DataType::FLOAT32, DataType::INT8, {128}, {0}), "argmax.index-fits",
                          "/desc/OutputTensor/DataType"));
    CHECK(has_error(arg_op<AMIN>(DataType::FLOAT32, DataType::FLOAT16, {3}, {0}), "argmin.index-type",
                    "/desc/OutputTensor/DataType"));
    Operator am = arg_op<AMIN>(DataType::FLOAT32, DataType::UINT32, {3, 4}, {1});
    get<AMIN>(am.Desc).Axes = {5};
    CHECK(has_error(am, "argmin.axis-range", "/desc/Axes/0"));
}

TEST_CASE(
    "REDUCE judging: a float32 backend summing naively passes; a dropped term, a wrong divisor and underflow-free products are caught") {
    // 64 elements of one row, mixed signs and magnitudes (exact dyadic values).
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i)
        x[i] = float((int(i * 37 % 101) - 50)) * 0x1p-7f * (i % 3 == 0 ? 1024.f : 1.f);
    auto judged = [&](uint32_t f, float actual) {
        Case c;
        c.op = reduce_op(f, DataType::FLOAT32, DataType::FLOAT32, {64}, {0});
        c.inputs["InputTensor"] = logical_buffer(get<RD>(c.op.Desc).InputTensor, x);
        c = with_golden(c, "OutputTensor");
        std::vector<std::byte> b(4);
        std::memcpy(b.data(), &actual, 4);
        return census(c, "OutputTensor", b, {}).passed();
    };
    float naive = 0, dropped = 0, sq = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        naive += x[i];
        if (i != 5) dropped += x[i];
        sq += x[i] * x[i];
    }
    CHECK(judged(DML_REDUCE_FUNCTION_SUM, naive));
    CHECK_FALSE(judged(DML_REDUCE_FUNCTION_SUM, dropped));
    CHECK(judged(DML_REDUCE_FUNCTION_AVERAGE, naive / 64.f));
    CHECK_FALSE(judged(DML_REDUCE_FUNCTION_AVERAGE, naive / 63.f));  // the divisor off by one
    CHECK(judged(DML_REDUCE_FUNCTION_SUM_SQUARE, sq));
    CHECK(judged(DML_REDUCE_FUNCTION_L2, std::sqrt(sq)));
    CHECK_FALSE(judged(DML_REDUCE_FUNCTION_L2, sq));
}

TEST_CASE("REDUCE LOG_SUM judging: where rounding can flip the sum's sign, NaN and -inf pass; elsewhere they fail") {
    auto judged = [](const std::vector<float>& x, float actual) {
        Case c;
        c.op = reduce_op(DML_REDUCE_FUNCTION_LOG_SUM, DataType::FLOAT32, DataType::FLOAT32, {uint32_t(x.size())}, {0});
        c.inputs["InputTensor"] = logical_buffer(get<RD>(c.op.Desc).InputTensor, x);
        c = with_golden(c, "OutputTensor");
        std::vector<std::byte> b(4);
        std::memcpy(b.data(), &actual, 4);
        return census(c, "OutputTensor", b, {}).passed();
    };
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    // The exact sum is 0.5 (golden log 0.5); float32 adding left to right gets 2^100, 0, -0.5:
    // log(-0.5) = NaN. Adding 1 - 0.5 first gets 0.5; (2^100 + 1) + (-2^100 - 0.5) gets 0: -inf.
    const std::vector<float> flips = {0x1p100f, 1.f, -0x1p100f, -0.5f};
    float left = 0;
    for (float v : flips) left += v;
    REQUIRE(left == -0.5f);
    CHECK(judged(flips, std::log(left)));
    CHECK(judged(flips, -inf));
    CHECK(judged(flips, std::log(0.5f)));
    // A well-conditioned sum (1 + 2): its bound is finite, so a NaN or an infinity is a wrong answer.
    CHECK(judged({1.f, 2.f}, std::log(3.f)));
    CHECK_FALSE(judged({1.f, 2.f}, nan));
    CHECK_FALSE(judged({1.f, 2.f}, -inf));
}

// k * 2^-24 rounded to FLOAT16 nearest-even by integer arithmetic: keep the 11 leading bits
// (subnormals, below 2^10 * 2^-24, are on the grid already), ties to even. The result is on
// FLOAT16's grid, so converting the double to FLOAT16 is exact (65536 and above: infinity).
static double round_to_half_grid(int64_t k) {
    if (k == 0) return 0;
    const uint64_t m = uint64_t(k < 0 ? -k : k);
    const int bits = 64 - std::countl_zero(m);
    const int shift = std::max(bits - 11, 0);
    uint64_t r = m >> shift;
    if (shift > 0) {
        const uint64_t rem = m - (r << shift), tie = uint64_t(1) << (shift - 1);
        if (rem > tie || (rem == tie && (r & 1))) ++r;
    }
    const double v = std::ldexp(double(r), shift - 24);
    return k < 0 ? -v : v;
}

TEST_CASE("REDUCE SUM, L1, MAX and ARGMAX over FLOAT16: random data against an exact integer computation") {
    // Every finite FLOAT16 is k * 2^-24 with |k| < 2^41, so the sum of twelve is an exact int64
    // multiple of 2^-24, rounded here by round_to_half_grid. Nested loops over (i, b, c) of a
    // 3x5x4 input, axes {0, 2}, walk the elements differently from dmlref's offset tables.
    const std::vector<uint32_t> sizes = {3, 5, 4};
    uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return uint16_t(state >> 48);
    };
    std::vector<half> x(60);
    for (auto& v : x) {
        uint16_t b;
        do b = next();
        while ((b & 0x7c00) == 0x7c00);  // finite only
        v = from_bits<half>(b);
    }
    auto k_of = [](half h) { return int64_t(std::ldexp(double(widen(h)), 24)); };
    std::vector<half> sum(5), l1(5), mx(5);
    std::vector<uint32_t> arg(5);
    for (uint32_t b = 0; b < 5; ++b) {
        int64_t s = 0, a = 0;
        double best = -INFINITY;
        uint32_t at = 0, j = 0;
        half m = from_bits<half>(0xfc00);
        for (uint32_t i = 0; i < 3; ++i)
            for (uint32_t c = 0; c < 4; ++c, ++j) {
                const half h = x[i * 20 + b * 4 + c];
                s += k_of(h);
                a += std::llabs(k_of(h));
                if (double(widen(h)) > best) {
                    best = double(widen(h));
                    at = j;
                }
                // MAX: +0 over -0 (they compare equal, so look at the bits).
                if (widen(h) > widen(m) || (widen(h) == 0 && widen(m) == 0 && to_bits(h) == 0)) m = h;
            }
        sum[b] = half(round_to_half_grid(s));  // an exact zero sum is +0 (ZeroResult)
        l1[b] = half(round_to_half_grid(a));
        arg[b] = at;
        mx[b] = m;
    }
    auto out = [&](uint32_t f) {
        return run_values<half>(reduce_op(f, DataType::FLOAT16, DataType::FLOAT16, sizes, {0, 2}), x);
    };
    check_bits(out(DML_REDUCE_FUNCTION_SUM), sum);
    check_bits(out(DML_REDUCE_FUNCTION_L1), l1);
    check_bits(out(DML_REDUCE_FUNCTION_MAX), mx);
    CHECK(run_values<uint32_t>(arg_op<AMAX>(DataType::FLOAT16, DataType::UINT32, sizes, {0, 2}), x) == arg);
}

}  // namespace dmlref_test_reduction
