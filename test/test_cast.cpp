// CAST. The page ("DML_CAST_OPERATOR_DESC structure") says only f(x) = cast(x); the expected values
// below follow docs/golden.md's "Cast" decisions and are derived by hand, the bit patterns written
// out with why; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/cast.hpp"

#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_cast {

using namespace dmlref;
using namespace dmlref::test;

namespace {

template <class To, class From> std::vector<To> cast(const std::vector<From>& x) {
    DML_CAST_OPERATOR_DESC d;
    d.InputTensor = desc(data_type_of<From>(), {uint32_t(x.size())});
    d.OutputTensor = desc(data_type_of<To>(), {uint32_t(x.size())});
    return as_values<To>(run({OperatorType::CAST, d}, {{"InputTensor", buffer(d.InputTensor, x)}}).at("OutputTensor"));
}

template <class T, class B> std::vector<T> bits(std::initializer_list<B> list) {
    std::vector<T> v;
    for (B b : list) v.push_back(from_bits<T>(b));
    return v;
}

}  // namespace

TEST_CASE("CAST float to float: one rounding to nearest-even, overflow to infinity, subnormals kept") {
    // FLOAT32 -> FLOAT16 (10 fraction bits):
    //   2049 = 2048 + 1: halfway between 2048 (0x6800) and 2050 (0x6801, odd): 2048.
    //   2051: halfway between 2050 (odd) and 2052 (0x6802): 2052.
    //   65519 < 65520, the midpoint of 65504 (0x7bff) and 65536: 65504.
    //   65520: the midpoint; 65504's fraction is odd, so it rounds up to 65536 = +inf (0x7c00).
    //   2^-25 (0x33000000): halfway between 0 and 2^-24 (0x0001): the even +0.
    //   3 * 2^-26 (0x33400000) = 0.75 * 2^-24: 2^-24 (0x0001), a subnormal kept.
    //   -0 -> 0x8000; -1e10 -> -inf (0xfc00).
    const auto f = bits<float, uint32_t>(
        {0x45001000, 0x45003000, 0x477fef00, 0x477ff000, 0x33000000, 0x33400000, 0x80000000, 0xd01502f9});
    check_bits(cast<half>(f), bits<half, uint16_t>({0x6800, 0x6802, 0x7bff, 0x7c00, 0x0000, 0x0001, 0x8000, 0xfc00}));
    // FLOAT64 -> FLOAT32: 1 + 2^-24 (0x3ff0000010000000) ties to 1.0 (0x3f800000); 1 + 3 * 2^-25
    // (0x3ff0000018000000) rounds up to 1 + 2^-23 (0x3f800001); 2^-1074 -> +0; DBL_MAX -> +inf.
    const auto d = bits<double, uint64_t>(
        {0x3ff0000010000000ull, 0x3ff0000018000000ull, 0x0000000000000001ull, 0x7fefffffffffffffull});
    check_bits(cast<float>(d), bits<float, uint32_t>({0x3f800000, 0x3f800001, 0x00000000, 0x7f800000}));
    // Widening is exact: FLOAT16 2^-24 (0x0001) -> FLOAT32 0x33800000; FLOAT32 2^-149 -> FLOAT64
    // 2^-149 (biased exponent 1023 - 149 = 874 = 0x36a: 0x36a0000000000000).
    check_bits(cast<float>(bits<half, uint16_t>({0x0001, 0xfbff})), bits<float, uint32_t>({0x33800000, 0xc77fe000}));
    check_bits(cast<double>(bits<float, uint32_t>({0x00000001})), bits<double, uint64_t>({0x36a0000000000000ull}));
}

TEST_CASE("CAST NaN: quiet, same sign, the payload shifted to the new width") {
    // FLOAT32 -> FLOAT16 (fraction 23 -> 10 bits: shift right by 13, then set the quiet bit 0x200):
    //   0x7f800001 (signalling, fraction 1): 1 >> 13 = 0 -> 0x7c00 | 0x200 = 0x7e00.
    //   0xffc02000 (negative, fraction 0x402000): >> 13 = 0x201 -> 0x8000 | 0x7c00 | 0x200 | 0x201 = 0xfe01.
    //   0x7fa00000 (signalling, fraction 0x200000): >> 13 = 0x100 -> 0x7c00 | 0x200 | 0x100 = 0x7f00.
    check_bits(cast<half>(bits<float, uint32_t>({0x7f800001, 0xffc02000, 0x7fa00000})),
               bits<half, uint16_t>({0x7e00, 0xfe01, 0x7f00}));
    // FLOAT16 -> FLOAT32 (shift left by 13, quiet bit 0x400000): 0x7d00 (fraction 0x100) -> 0x200000
    // -> 0x7f800000 | 0x400000 | 0x200000 = 0x7fe00000; 0xfe01 -> 0x402000 -> 0xffc02000.
    check_bits(cast<float>(bits<half, uint16_t>({0x7d00, 0xfe01})), bits<float, uint32_t>({0x7fe00000, 0xffc02000}));
    // FLOAT64 -> FLOAT32 (52 -> 23: shift right by 29): 0x7ff0000000000001 -> 0x7fc00000.
    check_bits(cast<float>(bits<double, uint64_t>({0x7ff0000000000001ull})), bits<float, uint32_t>({0x7fc00000}));
    // The same type copies the bits: a signalling NaN stays signalling.
    check_bits(cast<float>(bits<float, uint32_t>({0x7f800001})), bits<float, uint32_t>({0x7f800001}));
}

TEST_CASE("CAST float to integer: truncate toward zero, saturate, NaN gives 0") {
    const std::vector<float> f = {2.7f,
                                  -2.7f,
                                  300.0f,
                                  -300.0f,
                                  std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  -0.5f,
                                  127.9f,
                                  -128.9f};
    check_bits(cast<int8_t>(f), std::vector<int8_t>{2, -2, 127, -128, 0, 127, -128, 0, 127, -128});
    check_bits(cast<uint8_t>(std::vector<float>{-1.0f, 255.5f, 256.0f, -0.9f}), std::vector<uint8_t>{0, 255, 255, 0});
    // INT32: 2^31 - 128 (0x4effffff, the largest float below 2^31) is exact; 2^31 (0x4f000000) saturates.
    check_bits(cast<int32_t>(bits<float, uint32_t>({0x4effffff, 0x4f000000, 0xcf000000})),
               std::vector<int32_t>{2147483520, INT32_MAX, INT32_MIN});
    // INT64 and UINT64: 2^63 (0x43e0000000000000) saturates to INT64_MAX; -2^63 is INT64_MIN exactly;
    // 2^64 (FLOAT32 0x5f800000) saturates to UINT64_MAX; 2^63 fits UINT64.
    check_bits(
        cast<int64_t>(bits<double, uint64_t>({0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43dfffffffffffffull})),
        std::vector<int64_t>{INT64_MAX, INT64_MIN, 9223372036854774784});
    check_bits(cast<uint64_t>(bits<float, uint32_t>({0x5f800000, 0x5f000000, 0xbf800000})),
               std::vector<uint64_t>{UINT64_MAX, uint64_t(1) << 63, 0});
    // FLOAT16: 65504 (0x7bff) into INT16 saturates to 32767; -inf to -32768.
    check_bits(cast<int16_t>(bits<half, uint16_t>({0x7bff, 0xfc00, 0xc500})), std::vector<int16_t>{32767, -32768, -5});
}

TEST_CASE("CAST integer to float: the exact integer rounded once") {
    // UINT16 -> FLOAT16: 2049 ties to 2048 (0x6800); 2051 to 2052 (0x6802); 65504 (0x7bff) exact;
    // 65519 below the midpoint 65520: 65504; 65520 and 65535 overflow to +inf (0x7c00).
    check_bits(cast<half>(std::vector<uint16_t>{2049, 2051, 65504, 65519, 65520, 65535}),
               bits<half, uint16_t>({0x6800, 0x6802, 0x7bff, 0x7bff, 0x7c00, 0x7c00}));
    check_bits(cast<half>(std::vector<int32_t>{-65520, -3}), bits<half, uint16_t>({0xfc00, 0xc200}));
    // INT32 -> FLOAT32: 2^24 + 1 ties to 2^24 (0x4b800000); 2^24 + 3 to 2^24 + 4 (0x4b800002).
    check_bits(cast<float>(std::vector<int32_t>{16777217, 16777219}), bits<float, uint32_t>({0x4b800000, 0x4b800002}));
    // INT64 -> FLOAT32, rounded once: 2^60 + 2^36 + 1 is just above the midpoint (2^36) of FLOAT32's
    // ULP at 2^60 (2^37): 2^60 + 2^37 (0x5d800001). Through a double it would round to 2^60 + 2^36
    // first, then tie to 2^60 (0x5d800000).
    check_bits(cast<float>(std::vector<int64_t>{(int64_t(1) << 60) + (int64_t(1) << 36) + 1}),
               bits<float, uint32_t>({0x5d800001}));
    // UINT64 -> FLOAT32: 2^64 - 2^39 - 1 is below the midpoint of 2^64 - 2^40 (0x5f7fffff) and 2^64:
    // 0x5f7fffff (through a double: 2^64 - 2^39, a tie, then 2^64). UINT64_MAX rounds up to 2^64 (0x5f800000).
    check_bits(cast<float>(std::vector<uint64_t>{0xffffff7fffffffffull, UINT64_MAX}),
               bits<float, uint32_t>({0x5f7fffff, 0x5f800000}));
    // INT64 -> FLOAT64: 2^53 + 1 ties to 2^53 (0x4340000000000000); 2^53 + 3 to 2^53 + 4 (0x4340000000000002).
    check_bits(cast<double>(std::vector<int64_t>{9007199254740993, 9007199254740995}),
               bits<double, uint64_t>({0x4340000000000000ull, 0x4340000000000002ull}));
}

TEST_CASE("CAST integer to integer: modulo 2^width") {
    check_bits(cast<uint8_t>(std::vector<int32_t>{300, -1, 256, -129}), std::vector<uint8_t>{44, 255, 0, 127});
    check_bits(cast<int32_t>(std::vector<uint32_t>{0x80000000u, 0xffffffffu}), std::vector<int32_t>{INT32_MIN, -1});
    check_bits(cast<int16_t>(std::vector<int64_t>{0x12345678}), std::vector<int16_t>{0x5678});
    check_bits(cast<uint64_t>(std::vector<int8_t>{-1, -128}), std::vector<uint64_t>{UINT64_MAX, UINT64_MAX - 127});
    check_bits(cast<int8_t>(std::vector<uint8_t>{200, 127}), std::vector<int8_t>{-56, 127});
}

TEST_CASE("CAST reads strided and broadcast inputs; validation") {
    // InputTensor UINT8 [10, 20, 30] broadcast along dimension 0 (Strides 0, 1) into FLOAT32 2x3.
    DML_CAST_OPERATOR_DESC d;
    d.InputTensor = desc(DataType::UINT8, {2, 3}, {0, 1});
    d.OutputTensor = desc(DataType::FLOAT32, {2, 3});
    const auto out = run({OperatorType::CAST, d}, {{"InputTensor", buffer<uint8_t>(d.InputTensor, {10, 20, 30})}});
    check_bits(as_values<float>(out.at("OutputTensor")), std::vector<float>{10, 20, 30, 10, 20, 30});
    Operator op{OperatorType::CAST, d};
    get<DML_CAST_OPERATOR_DESC>(op.Desc).OutputTensor.Sizes = {3, 2};
    CHECK(has_error(op, "cast.same-sizes", "/desc/OutputTensor/Sizes"));
}

}  // namespace dmlref_test_cast
