// ELEMENT_WISE_ADD. Expected values are derived by hand from the page's formula f(a, b) = a + b,
// rounded once to nearest-even (written out as bit patterns below), or wrapped to the integer
// width; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/element_wise.hpp"
#include "mpfr_round.hpp"

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_element_wise {

using namespace dmlref;
using namespace dmlref::test;

namespace {

Operator add_op(DataType t, std::vector<uint32_t> sizes, std::vector<uint32_t> b_strides = {}) {
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC d;
    d.ATensor = d.OutputTensor = desc(t, sizes);
    d.BTensor = desc(t, sizes, std::move(b_strides));
    return {OperatorType::ELEMENT_WISE_ADD, d};
}

template <class T, class B> std::vector<T> from_bits_list(std::initializer_list<B> bits) {
    std::vector<T> v;
    for (B b : bits) v.push_back(from_bits<T>(b));
    return v;
}

template <class T> std::vector<T> add(DataType t, const std::vector<T>& a, const std::vector<T>& b) {
    const Operator op = add_op(t, {uint32_t(a.size())});
    const auto& d = get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(op.Desc);
    return as_values<T>(
        run(op, {{"ATensor", buffer(d.ATensor, a)}, {"BTensor", buffer(d.BTensor, b)}}).at("OutputTensor"));
}

}  // namespace

TEST_CASE("ELEMENT_WISE_ADD FLOAT32: the exact sum rounded once, ties to even") {
    // 1 + 2^-24: halfway between 1 and 1 + 2^-23, ties to the even 1.0 (0x3f800000).
    // 1 + 3 * 2^-25 = 1 + 0.75 ULP: rounds up to 1 + 2^-23 (0x3f800001).
    // (1 + 2^-23) + 2^-24: halfway between 1 + 2^-23 (odd) and 1 + 2^-22: to 0x3f800002.
    // 2^-149 + 2^-149 = 2^-148 (subnormals are kept: 0x00000002).
    // -0 + -0 = -0; -0 + +0 = +0; 5 + -5 = +0; inf + -inf = NaN (canonical 0x7fc00000); 2^127 + 2^127 = inf.
    const auto a = from_bits_list<float, uint32_t>(
        {0x3f800000, 0x3f800000, 0x3f800001, 0x00000001, 0x80000000, 0x80000000, 0x40a00000, 0x7f800000, 0x7f000000});
    const auto b = from_bits_list<float, uint32_t>(
        {0x33800000, 0x33c00000, 0x33800000, 0x00000001, 0x80000000, 0x00000000, 0xc0a00000, 0xff800000, 0x7f000000});
    check_bits(add(DataType::FLOAT32, a, b),
               from_bits_list<float, uint32_t>({0x3f800000, 0x3f800001, 0x3f800002, 0x00000002, 0x80000000, 0x00000000,
                                                0x00000000, 0x7fc00000, 0x7f800000}));
}

TEST_CASE("ELEMENT_WISE_ADD FLOAT16: ties to even, overflow at the rounding boundary") {
    // 2048 + 1 = 2049, halfway between 2048 (0x6800) and 2050 (0x6801): the even 2048.
    // 2048 + 3 = 2051, halfway between 2050 (odd) and 2052 (0x6802): 2052.
    // 65504 + 16 = 65520, halfway between 65504 (0x7bff, odd) and 65536: rounds to 65536, +inf (0x7c00).
    // 65504 + 8 = 65512: below the halfway point, 65504.
    // A NaN operand gives the canonical 0x7e00 whatever its payload (0x7d00 is a signalling NaN).
    const auto a = from_bits_list<half, uint16_t>({0x6800, 0x6800, 0x7bff, 0x7bff, 0x7d00});
    const auto b = from_bits_list<half, uint16_t>({0x3c00, 0x4200, 0x4c00, 0x4800, 0x3c00});
    check_bits(add(DataType::FLOAT16, a, b), from_bits_list<half, uint16_t>({0x6800, 0x6802, 0x7c00, 0x7bff, 0x7e00}));
}

TEST_CASE("ELEMENT_WISE_ADD FLOAT64: one IEEE addition") {
    // 1 + 2^-53 ties to 1; 1 + 3 * 2^-54 rounds up to 1 + 2^-52.
    const auto a = from_bits_list<double, uint64_t>({0x3ff0000000000000ull, 0x3ff0000000000000ull});
    const auto b = from_bits_list<double, uint64_t>({0x3ca0000000000000ull, 0x3ca8000000000000ull});
    check_bits(add(DataType::FLOAT64, a, b),
               from_bits_list<double, uint64_t>({0x3ff0000000000000ull, 0x3ff0000000000001ull}));
}

TEST_CASE("ELEMENT_WISE_ADD integers wrap to the width") {
    check_bits(add<int8_t>(DataType::INT8, {127, -128, 100, -1}, {1, -1, 27, 1}),
               std::vector<int8_t>{-128, 127, 127, 0});
    check_bits(add<uint8_t>(DataType::UINT8, {255, 200, 0}, {1, 100, 0}), std::vector<uint8_t>{0, 44, 0});
    check_bits(add<uint16_t>(DataType::UINT16, {65535}, {2}), std::vector<uint16_t>{1});
    check_bits(add<int64_t>(DataType::INT64, {INT64_MAX, INT64_MIN}, {1, -1}),
               std::vector<int64_t>{INT64_MIN, INT64_MAX});
    check_bits(add<uint64_t>(DataType::UINT64, {UINT64_MAX}, {UINT64_MAX}), std::vector<uint64_t>{UINT64_MAX - 1});
}

TEST_CASE("ELEMENT_WISE_ADD broadcasts by zero strides and runs in place") {
    // A = [[1, 2, 3], [4, 5, 6]], B = [10, 20, 30] broadcast along dimension 0 (Strides 0, 1).
    const Operator op = add_op(DataType::INT32, {2, 3}, {0, 1});
    const auto& d = get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(op.Desc);
    const auto out = run(op, {{"ATensor", buffer<int32_t>(d.ATensor, {1, 2, 3, 4, 5, 6})},
                              {"BTensor", buffer<int32_t>(d.BTensor, {10, 20, 30})}});
    check_bits(as_values<int32_t>(out.at("OutputTensor")), std::vector<int32_t>{11, 22, 33, 14, 25, 36});

    Case c;
    c.op = add_op(DataType::INT32, {3});
    c.inputs["ATensor"] = buffer<int32_t>(get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(c.op.Desc).ATensor, {1, 2, 3});
    c.inputs["BTensor"] = buffer<int32_t>(get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(c.op.Desc).BTensor, {7, 7, 7});
    c.in_place["OutputTensor"] = "ATensor";
    check_bits(as_values<int32_t>(run_case(c).values.at("OutputTensor")), std::vector<int32_t>{8, 9, 10});
}

TEST_CASE("ELEMENT_WISE_ADD validation: one type and one shape") {
    Operator op = add_op(DataType::FLOAT32, {2, 3});
    CHECK_FALSE(validate(op).has_errors());
    get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(op.Desc).BTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "add.same-data-type", "/desc/BTensor/DataType"));
    op = add_op(DataType::FLOAT32, {2, 3});
    get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(op.Desc).OutputTensor.Sizes = {3, 2};
    CHECK(has_error(op, "add.same-sizes", "/desc/OutputTensor/Sizes"));
}

// ---- SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN, MEAN ------------------------------------------------
// Expected values are derived by hand from each page's formula (the bit patterns and the reasoning
// are in the comments), or computed by MPFR below (an independent rounding of the exact result);
// none comes from dmlref's evaluation.

namespace {

template <class D> Operator binary_op(DataType t, std::vector<uint32_t> sizes, std::vector<uint32_t> b_strides = {}) {
    D d;
    d.ATensor = d.OutputTensor = desc(t, sizes);
    d.BTensor = desc(t, sizes, std::move(b_strides));
    return {D::kType, d};
}

template <class D, class T> std::vector<T> binary(DataType t, const std::vector<T>& a, const std::vector<T>& b) {
    const Operator op = binary_op<D>(t, {uint32_t(a.size())});
    const auto& d = get<D>(op.Desc);
    return as_values<T>(
        run(op, {{"ATensor", buffer(d.ATensor, a)}, {"BTensor", buffer(d.BTensor, b)}}).at("OutputTensor"));
}

using SUB = DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC;
using MUL = DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC;
using DIV = DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC;
using MAX = DML_ELEMENT_WISE_MAX_OPERATOR_DESC;
using MIN = DML_ELEMENT_WISE_MIN_OPERATOR_DESC;
using MEAN = DML_ELEMENT_WISE_MEAN_OPERATOR_DESC;

template <class D, class T, class B>
std::vector<T> binary_bits(DataType t, std::initializer_list<B> a, std::initializer_list<B> b) {
    return binary<D, T>(t, from_bits_list<T, B>(a), from_bits_list<T, B>(b));
}

}  // namespace

TEST_CASE("ELEMENT_WISE_SUBTRACT FLOAT32: a - b rounded once, IEEE zeros, canonical NaN") {
    // 1 - 2^-25: halfway between 1 - 2^-24 (0x3f7fffff, odd) and 1 (0x3f800000, even): 1.
    // 1 - 2^-24 = 0x3f7fffff exactly. -0 - +0 = -0; +0 - +0 = +0; -0 - -0 = +0 (x - x is +0).
    // inf - inf = NaN (canonical 0x7fc00000); a signalling NaN operand (0x7f800001) too.
    // -max - max = -2 max: overflows to -inf (0xff800000).
    check_bits(binary_bits<SUB, float, uint32_t>(
                   DataType::FLOAT32,
                   {0x3f800000, 0x3f800000, 0x80000000, 0x00000000, 0x80000000, 0x7f800000, 0x7f800001, 0xff7fffff},
                   {0x33000000, 0x33800000, 0x00000000, 0x00000000, 0x80000000, 0x7f800000, 0x3f800000, 0x7f7fffff}),
               from_bits_list<float, uint32_t>(
                   {0x3f800000, 0x3f7fffff, 0x80000000, 0x00000000, 0x00000000, 0x7fc00000, 0x7fc00000, 0xff800000}));
}

TEST_CASE("ELEMENT_WISE_SUBTRACT FLOAT16 and FLOAT64, integers wrap") {
    // FLOAT16: 2048 - 1 = 2047 exactly (0x67ff); 2050 - 1 = 2049, halfway between 2048 (0x6800, even) and
    // 2050 (0x6801): 2048. -65504 - 16 = -65520: halfway, rounds to -65536: -inf (0xfc00).
    check_bits(binary_bits<SUB, half, uint16_t>(DataType::FLOAT16, {0x6800, 0x6801, 0xfbff}, {0x3c00, 0x3c00, 0x4c00}),
               from_bits_list<half, uint16_t>({0x67ff, 0x6800, 0xfc00}));
    // FLOAT64: 1 - 2^-54 ties to 1 (2^-54 is half the spacing below 1); 1 - 2^-53 = 0x3fefffffffffffff.
    check_bits(binary_bits<SUB, double, uint64_t>(DataType::FLOAT64, {0x3ff0000000000000ull, 0x3ff0000000000000ull},
                                                  {0x3c90000000000000ull, 0x3ca0000000000000ull}),
               from_bits_list<double, uint64_t>({0x3ff0000000000000ull, 0x3fefffffffffffffull}));
    check_bits(binary<SUB, int8_t>(DataType::INT8, {-128, 127, 5}, {1, -1, 7}), std::vector<int8_t>{127, -128, -2});
    check_bits(binary<SUB, uint8_t>(DataType::UINT8, {0, 10}, {1, 3}), std::vector<uint8_t>{255, 7});
    check_bits(binary<SUB, int32_t>(DataType::INT32, {INT32_MIN}, {1}), std::vector<int32_t>{INT32_MAX});
    check_bits(binary<SUB, uint64_t>(DataType::UINT64, {0}, {1}), std::vector<uint64_t>{UINT64_MAX});
    check_bits(binary<SUB, int64_t>(DataType::INT64, {INT64_MAX}, {-1}), std::vector<int64_t>{INT64_MIN});
}

TEST_CASE("ELEMENT_WISE_MULTIPLY FLOAT32: the exact product rounded once") {
    // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: rounds to 1 + 2^-22 (0x3f800002).
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: 2^-24 is half the spacing (2^-23); 1 + 2^-11 (0x3f801000) has
    // an even last bit: ties to it.
    // 2^-149 * 0.5 = 2^-150: halfway between 0 and 2^-149, ties to even: +0. 2^-149 * 0.75: nearer
    // 2^-149 (0x00000001). 0 * inf = NaN (0x7fc00000). -0 * 5 = -0. -2 * -3 = 6 (0x40c00000).
    // 2^127 * 2 = 2^128: overflows to inf.
    check_bits(binary_bits<MUL, float, uint32_t>(
                   DataType::FLOAT32,
                   {0x3f800001, 0x3f800800, 0x00000001, 0x00000001, 0x00000000, 0x80000000, 0xc0000000, 0x7f000000},
                   {0x3f800001, 0x3f800800, 0x3f000000, 0x3f400000, 0x7f800000, 0x40a00000, 0xc0400000, 0x40000000}),
               from_bits_list<float, uint32_t>(
                   {0x3f800002, 0x3f801000, 0x00000000, 0x00000001, 0x7fc00000, 0x80000000, 0x40c00000, 0x7f800000}));
}

TEST_CASE("ELEMENT_WISE_MULTIPLY FLOAT16, FLOAT64 and integers") {
    // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: 1 + 2^-9 (0x3c02). 255 (0x5bf8) * 257 (0x5c08) = 65535, above
    // the overflow threshold 65520: +inf (0x7c00).
    check_bits(binary_bits<MUL, half, uint16_t>(DataType::FLOAT16, {0x3c01, 0x5bf8}, {0x3c01, 0x5c08}),
               from_bits_list<half, uint16_t>({0x3c02, 0x7c00}));
    // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: 1 + 2^-51 (0x3ff0000000000002).
    check_bits(binary_bits<MUL, double, uint64_t>(DataType::FLOAT64, {0x3ff0000000000001ull}, {0x3ff0000000000001ull}),
               from_bits_list<double, uint64_t>({0x3ff0000000000002ull}));
    // 16 * 16 = 256 = 0 mod 2^8; -128 * -1 = 128 = -128 mod 2^8; 300 * 300 = 90000 = 24464 mod 2^16;
    // 2^16 * 2^16 = 0 mod 2^32; (2^32 + 1)^2 = 2^64 + 2^33 + 1 = 2^33 + 1 mod 2^64.
    check_bits(binary<MUL, int8_t>(DataType::INT8, {16, -128, -3}, {16, -1, 5}), std::vector<int8_t>{0, -128, -15});
    check_bits(binary<MUL, uint16_t>(DataType::UINT16, {300}, {300}), std::vector<uint16_t>{24464});
    check_bits(binary<MUL, int32_t>(DataType::INT32, {65536}, {65536}), std::vector<int32_t>{0});
    check_bits(binary<MUL, uint64_t>(DataType::UINT64, {(uint64_t(1) << 32) + 1}, {(uint64_t(1) << 32) + 1}),
               std::vector<uint64_t>{(uint64_t(1) << 33) + 1});
    check_bits(binary<MUL, int64_t>(DataType::INT64, {INT64_MIN, -4}, {-1, 3}), std::vector<int64_t>{INT64_MIN, -12});
}

TEST_CASE("ELEMENT_WISE_DIVIDE FLOAT32 and FLOAT16: the correctly rounded quotient") {
    // 1/3 = 0x3eaaaaab and 2/3 = 0x3f2aaaab (the quotients' expansions 0.0101...b and 0.1010...b
    // rounded at 24 bits: the next bit is 1 and more follow, so up). 1/0 = inf, -1/0 = -inf,
    // 1/-0 = -inf, 0/0 = NaN, inf/inf = NaN (canonical). 3 * 2^-149 / 2 = 1.5 * 2^-149: halfway,
    // ties to the even 2 * 2^-149 (0x00000002). 2^-126 / 4 = 2^-128 (subnormal 0x00200000, exact).
    check_bits(binary_bits<DIV, float, uint32_t>(DataType::FLOAT32,
                                                 {0x3f800000, 0x40000000, 0x3f800000, 0xbf800000, 0x3f800000,
                                                  0x00000000, 0x7f800000, 0x00000003, 0x00800000},
                                                 {0x40400000, 0x40400000, 0x00000000, 0x00000000, 0x80000000,
                                                  0x00000000, 0x7f800000, 0x40000000, 0x40800000}),
               from_bits_list<float, uint32_t>({0x3eaaaaab, 0x3f2aaaab, 0x7f800000, 0xff800000, 0xff800000, 0x7fc00000,
                                                0x7fc00000, 0x00000002, 0x00200000}));
    // FLOAT16: 1/3 = 1.0101010101|0101...b * 2^-2: the 11-bit significand's next bit is 0, so down: 0x3555;
    // 2/3 has the same significand one binade up: 0x3955. 65504 / 0.5 = 131008: +inf.
    check_bits(binary_bits<DIV, half, uint16_t>(DataType::FLOAT16, {0x3c00, 0x4000, 0x7bff}, {0x4200, 0x4200, 0x3800}),
               from_bits_list<half, uint16_t>({0x3555, 0x3955, 0x7c00}));
}

TEST_CASE("ELEMENT_WISE_DIVIDE integers: truncated toward zero; zero divisors and INT_MIN / -1") {
    // The page: "For integer divisions, the result is truncated." 7/2 = 3, -7/2 = -3 (not -4), 7/-2 = -3,
    // -7/-2 = 3. x/0: all bits set (IntegerDivisionByZero=AllBitsSet): -1 signed, the maximum unsigned.
    // INT32_MIN / -1 = 2^31 wraps to INT32_MIN (IntegerOverflow=WrapToWidth).
    check_bits(binary<DIV, int32_t>(DataType::INT32, {7, -7, 7, -7, 5, 0, INT32_MIN}, {2, 2, -2, -2, 0, 0, -1}),
               std::vector<int32_t>{3, -3, -3, 3, -1, -1, INT32_MIN});
    check_bits(binary<DIV, uint8_t>(DataType::UINT8, {255, 200, 0}, {2, 0, 7}), std::vector<uint8_t>{127, 255, 0});
    check_bits(binary<DIV, int8_t>(DataType::INT8, {-128, -128}, {-1, 3}), std::vector<int8_t>{-128, -42});
    check_bits(binary<DIV, int64_t>(DataType::INT64, {INT64_MIN, INT64_MIN}, {-1, 0}),
               std::vector<int64_t>{INT64_MIN, -1});
    check_bits(binary<DIV, uint64_t>(DataType::UINT64, {UINT64_MAX, 1}, {3, 0}),
               std::vector<uint64_t>{6148914691236517205ull, UINT64_MAX});
}

TEST_CASE("ELEMENT_WISE_MAX and MIN: D3D's NaN rule, -0 below +0, the operand's bits") {
    // max(-0, +0) = max(+0, -0) = +0; min of them = -0. One NaN operand (any payload, either side) is
    // ignored; both NaN give the canonical NaN. max(-inf, -2^-149) keeps -2^-149's bits.
    const std::initializer_list<uint32_t> a = {0x80000000, 0x00000000, 0x7fc00001, 0x3f800000,
                                               0xffc00001, 0xff800000, 0x3f800000};
    const std::initializer_list<uint32_t> b = {0x00000000, 0x80000000, 0x3f800000, 0x7f800001,
                                               0x7f800001, 0x80000001, 0x40000000};
    check_bits(binary_bits<MAX, float, uint32_t>(DataType::FLOAT32, a, b),
               from_bits_list<float, uint32_t>(
                   {0x00000000, 0x00000000, 0x3f800000, 0x3f800000, 0x7fc00000, 0x80000001, 0x40000000}));
    check_bits(binary_bits<MIN, float, uint32_t>(DataType::FLOAT32, a, b),
               from_bits_list<float, uint32_t>(
                   {0x80000000, 0x80000000, 0x3f800000, 0x3f800000, 0x7fc00000, 0xff800000, 0x3f800000}));
    // FLOAT16: a NaN against -inf gives -inf's bits; 0x0001 (2^-24) against 0x8001.
    check_bits(binary_bits<MAX, half, uint16_t>(DataType::FLOAT16, {0x7e01, 0x0001}, {0xfc00, 0x8001}),
               from_bits_list<half, uint16_t>({0xfc00, 0x0001}));
    check_bits(binary_bits<MIN, half, uint16_t>(DataType::FLOAT16, {0x7e01, 0x0001}, {0xfc00, 0x8001}),
               from_bits_list<half, uint16_t>({0xfc00, 0x8001}));
    check_bits(binary_bits<MAX, double, uint64_t>(DataType::FLOAT64, {0x8000000000000000ull}, {0x0000000000000000ull}),
               from_bits_list<double, uint64_t>({0x0000000000000000ull}));
    check_bits(binary<MAX, int64_t>(DataType::INT64, {INT64_MIN, 5}, {-1, 4}), std::vector<int64_t>{-1, 5});
    check_bits(binary<MIN, int64_t>(DataType::INT64, {INT64_MIN, 5}, {-1, 4}), std::vector<int64_t>{INT64_MIN, 4});
    check_bits(binary<MAX, uint64_t>(DataType::UINT64, {uint64_t(1) << 63}, {1}),
               std::vector<uint64_t>{uint64_t(1) << 63});
    check_bits(binary<MIN, int8_t>(DataType::INT8, {-128, 7}, {127, 7}), std::vector<int8_t>{-128, 7});
}

TEST_CASE("ELEMENT_WISE_MEAN: (a + b) / 2 rounded once, no intermediate overflow; integers truncate") {
    // FLOAT32: (1 + (1 + 2^-23)) / 2 = 1 + 2^-24: halfway, ties to 1 (0x3f800000).
    // ((1 + 2^-23) + (1 + 2^-22)) / 2 = 1 + 1.5 * 2^-23: halfway between 0x3f800001 (odd) and 0x3f800002.
    // (max + max) / 2 = max (0x7f7fffff): the sum is never rounded to the type first.
    // (2^-149 + 0) / 2 = 2^-150: ties to +0; (3 * 2^-149 + 0) / 2: ties to 2 * 2^-149. inf + -inf: NaN.
    // (-0 + -0) / 2 = -0.
    check_bits(
        binary_bits<MEAN, float, uint32_t>(
            DataType::FLOAT32, {0x3f800000, 0x3f800001, 0x7f7fffff, 0x00000001, 0x00000003, 0x7f800000, 0x80000000},
            {0x3f800001, 0x3f800002, 0x7f7fffff, 0x00000000, 0x00000000, 0xff800000, 0x80000000}),
        from_bits_list<float, uint32_t>(
            {0x3f800000, 0x3f800002, 0x7f7fffff, 0x00000000, 0x00000002, 0x7fc00000, 0x80000000}));
    // FLOAT16: (65504 + 65504) / 2 = 65504 (0x7bff).
    check_bits(binary_bits<MEAN, half, uint16_t>(DataType::FLOAT16, {0x7bff}, {0x7bff}),
               from_bits_list<half, uint16_t>({0x7bff}));
    // FLOAT64: (max + max) / 2 = max; (-max + -max) / 2 = -max; (2^-1074 + 0) / 2 ties to +0; (3 * 2^-1074) / 2
    // ties to 2 * 2^-1074; (1 + (1 + 2^-52)) / 2 = 1 + 2^-53 ties to 1.
    check_bits(
        binary_bits<MEAN, double, uint64_t>(
            DataType::FLOAT64, {0x7fefffffffffffffull, 0xffefffffffffffffull, 0x1ull, 0x3ull, 0x3ff0000000000000ull},
            {0x7fefffffffffffffull, 0xffefffffffffffffull, 0x0ull, 0x0ull, 0x3ff0000000000001ull}),
        from_bits_list<double, uint64_t>(
            {0x7fefffffffffffffull, 0xffefffffffffffffull, 0x0ull, 0x2ull, 0x3ff0000000000000ull}));
    // Integers (IntegerMean=ExactSumTruncated): (127 + 127) / 2 = 127, no wrap; (-3 + 0) / 2 = -1.5 truncates
    // to -1; (-128 + -127) / 2 = -127.5 to -127; (3 + 4) / 2 = 3.
    check_bits(binary<MEAN, int8_t>(DataType::INT8, {127, -3, -128}, {127, 0, -127}),
               std::vector<int8_t>{127, -1, -127});
    check_bits(binary<MEAN, int32_t>(DataType::INT32, {3, INT32_MIN}, {4, INT32_MIN}),
               std::vector<int32_t>{3, INT32_MIN});
    check_bits(binary<MEAN, uint64_t>(DataType::UINT64, {UINT64_MAX}, {UINT64_MAX}), std::vector<uint64_t>{UINT64_MAX});
}

namespace {
// MPFR's exact operation rounded once into T, against dmlref, over random operands of every binade
// (random bit patterns, NaN excluded: their bits are the decision checked above).
template <class D, class T, class B>
void check_against_mpfr(DataType t, int (*op)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t), bool halve) {
    std::mt19937_64 rng(20261126);
    std::vector<T> a, b;
    while (a.size() < 4000) {
        const T x = from_bits<T>(B(rng())), y = from_bits<T>(B(rng()));
        if (is_nan(x) || is_nan(y) || std::isinf(widen(x)) || std::isinf(widen(y))) continue;
        a.push_back(x);
        b.push_back(y);
    }
    // Operands of nearby magnitudes too, where cancellation and ties happen.
    for (size_t i = 0; i < 2000; ++i) {
        const B bits = B(rng());
        a.push_back(from_bits<T>(bits));
        b.push_back(from_bits<T>(B(bits + B(rng() % 5) - 2)));
        if (is_nan(a.back()) || is_nan(b.back()) || std::isinf(widen(a.back())) || std::isinf(widen(b.back()))) {
            a.pop_back();
            b.pop_back();
        }
    }
    const std::vector<T> got = binary<D, T>(t, a, b);
    mpfr_t x, y, r;
    mpfr_inits2(2200, x, y, r, (mpfr_ptr) nullptr);
    for (size_t i = 0; i < a.size(); ++i) {
        mpfr_set_d(x, widen(a[i]), MPFR_RNDN);
        mpfr_set_d(y, widen(b[i]), MPFR_RNDN);
        op(r, x, y, MPFR_RNDN);  // exact at 2200 bits for + - *; the quotient correctly rounded to 2200 bits
        if (halve) mpfr_div_2ui(r, r, 1, MPFR_RNDN);
        if (mpfr_nan_p(r)) {
            CHECK(is_nan(got[i]));
            continue;
        }
        const double want = mpfr_rounded<T>(static_cast<mpfr_srcptr>(r));
        const double have = widen(got[i]);
        INFO("a = " << widen(a[i]) << ", b = " << widen(b[i]));
        CHECK(to_bits(have) == to_bits(want));
    }
    mpfr_clears(x, y, r, (mpfr_ptr) nullptr);
}
}  // namespace

TEST_CASE("ELEMENT_WISE_SUBTRACT, MULTIPLY, DIVIDE, MEAN against MPFR's once-rounded result") {
    check_against_mpfr<SUB, float, uint32_t>(DataType::FLOAT32, mpfr_sub, false);
    check_against_mpfr<SUB, half, uint16_t>(DataType::FLOAT16, mpfr_sub, false);
    check_against_mpfr<MUL, float, uint32_t>(DataType::FLOAT32, mpfr_mul, false);
    check_against_mpfr<MUL, half, uint16_t>(DataType::FLOAT16, mpfr_mul, false);
    check_against_mpfr<MUL, double, uint64_t>(DataType::FLOAT64, mpfr_mul, false);
    check_against_mpfr<DIV, float, uint32_t>(DataType::FLOAT32, mpfr_div, false);
    check_against_mpfr<DIV, half, uint16_t>(DataType::FLOAT16, mpfr_div, false);
    check_against_mpfr<DIV, double, uint64_t>(DataType::FLOAT64, mpfr_div, false);
    check_against_mpfr<MEAN, float, uint32_t>(DataType::FLOAT32, mpfr_add, true);
    check_against_mpfr<MEAN, half, uint16_t>(DataType::FLOAT16, mpfr_add, true);
    check_against_mpfr<MEAN, double, uint64_t>(DataType::FLOAT64, mpfr_add, true);
}

TEST_CASE("ELEMENT_WISE binary operators broadcast by zero strides and run in place") {
    // A = [[1, 2, 3], [4, 5, 6]], B = [10, 20, 30] broadcast along dimension 0: A - B, in INT32.
    const Operator op = binary_op<SUB>(DataType::INT32, {2, 3}, {0, 1});
    const auto& d = get<SUB>(op.Desc);
    const auto out = run(op, {{"ATensor", buffer<int32_t>(d.ATensor, {1, 2, 3, 4, 5, 6})},
                              {"BTensor", buffer<int32_t>(d.BTensor, {10, 20, 30})}});
    check_bits(as_values<int32_t>(out.at("OutputTensor")), std::vector<int32_t>{-9, -18, -27, -6, -15, -24});

    // In place: OutputTensor bound to BTensor's buffer; 12 / B with B = [1, 2, 5] gives [12, 6, 2].
    Case c;
    c.op = binary_op<DIV>(DataType::INT32, {3});
    c.inputs["ATensor"] = buffer<int32_t>(get<DIV>(c.op.Desc).ATensor, {12, 12, 12});
    c.inputs["BTensor"] = buffer<int32_t>(get<DIV>(c.op.Desc).BTensor, {1, 2, 5});
    c.in_place["OutputTensor"] = "BTensor";
    check_bits(as_values<int32_t>(run_case(c).values.at("OutputTensor")), std::vector<int32_t>{12, 6, 2});
}

TEST_CASE("ELEMENT_WISE binary operators' validation: one type and one shape") {
    auto check = [&]<class D>(const std::string& prefix) {
        Operator op = binary_op<D>(DataType::FLOAT32, {2, 3});
        CHECK_FALSE(validate(op).has_errors());
        get<D>(op.Desc).BTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op, prefix + ".same-data-type", "/desc/BTensor/DataType"));
        op = binary_op<D>(DataType::FLOAT32, {2, 3});
        get<D>(op.Desc).OutputTensor.Sizes = {3, 2};
        CHECK(has_error(op, prefix + ".same-sizes", "/desc/OutputTensor/Sizes"));
    };
    check.operator()<SUB>("subtract");
    check.operator()<MUL>("multiply");
    check.operator()<DIV>("divide");
    check.operator()<MAX>("max");
    check.operator()<MIN>("min");
    check.operator()<MEAN>("mean");
}

// ---- IDENTITY, ABS, CEIL, FLOOR, SIGN, NEGATE ---------------------------------------------------

namespace {

template <class D>
Operator unary_op(DataType t, std::vector<uint32_t> sizes, std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
    D d;
    d.InputTensor = d.OutputTensor = desc(t, sizes);
    if constexpr (requires { d.ScaleBias; }) d.ScaleBias = sb;
    return {D::kType, d};
}

template <class D, class T>
std::vector<T> unary(DataType t, const std::vector<T>& x, std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
    const Operator op = unary_op<D>(t, {uint32_t(x.size())}, sb);
    return as_values<T>(run(op, {{"InputTensor", buffer(get<D>(op.Desc).InputTensor, x)}}).at("OutputTensor"));
}

template <class D, class T, class B>
std::vector<T> unary_bits(DataType t, std::initializer_list<B> x, std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
    return unary<D, T>(t, from_bits_list<T, B>(x), sb);
}

using IDENTITY = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC;
using ABS = DML_ELEMENT_WISE_ABS_OPERATOR_DESC;
using CEIL = DML_ELEMENT_WISE_CEIL_OPERATOR_DESC;
using FLOOR = DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC;
using SIGN = DML_ELEMENT_WISE_SIGN_OPERATOR_DESC;
using NEGATE = DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC;

}  // namespace

TEST_CASE("ELEMENT_WISE_IDENTITY: a copy of the bits; ScaleBias in float32, unfused") {
    // Without ScaleBias every bit passes: a signalling NaN's payload, -0, a subnormal, a negative NaN.
    check_bits(
        unary_bits<IDENTITY, float, uint32_t>(DataType::FLOAT32, {0x7f800001, 0x80000000, 0x00000001, 0xffc12345}),
        from_bits_list<float, uint32_t>({0x7f800001, 0x80000000, 0x00000001, 0xffc12345}));
    check_bits(unary<IDENTITY, uint64_t>(DataType::UINT64, {UINT64_MAX, 0}), std::vector<uint64_t>{UINT64_MAX, 0});
    // x = Scale = 1 + 2^-12 (0x3f800800), Bias = -1: x * Scale = 1 + 2^-11 + 2^-24 rounds (a tie, to even)
    // to 1 + 2^-11 in float32; + -1 gives 2^-11 (0x3a000000). A fused multiply-add would give 2^-11 + 2^-24:
    // the golden pins ScaleBiasArithmetic=Float32UnfusedFloat64ForFloat64.
    const float s = from_bits<float>(0x3f800800u);
    check_bits(unary_bits<IDENTITY, float, uint32_t>(DataType::FLOAT32, {0x3f800800}, DML_SCALE_BIAS{s, -1.0f}),
               from_bits_list<float, uint32_t>({0x3a000000}));
    // FLOAT16 with Scale 0.5, Bias 0.25: g(1) = 0.75 (0x3a00), g(4) = 2.25 (0x4080), g(-0.5) = +0, g(65504) =
    // 32752.25 in float32, rounded once to FLOAT16 (spacing 16 there): 32752 (0x77ff).
    check_bits(unary_bits<IDENTITY, half, uint16_t>(DataType::FLOAT16, {0x3c00, 0x4400, 0xb800, 0x7bff},
                                                    DML_SCALE_BIAS{0.5f, 0.25f}),
               from_bits_list<half, uint16_t>({0x3a00, 0x4080, 0x0000, 0x77ff}));
}

TEST_CASE("ELEMENT_WISE_ABS and NEGATE: IEEE sign-bit operations; integers wrap") {
    // abs clears the sign bit, NaN payloads kept: -0 -> +0, 0xff800001 -> 0x7f800001, -2.5 -> 2.5, -inf -> inf.
    check_bits(unary_bits<ABS, float, uint32_t>(DataType::FLOAT32,
                                                {0x80000000, 0xff800001, 0xc0200000, 0xff800000, 0x80000001}),
               from_bits_list<float, uint32_t>({0x00000000, 0x7f800001, 0x40200000, 0x7f800000, 0x00000001}));
    // negate flips it: +0 -> -0, -0 -> +0, 0x7e01 -> 0xfe01, 1 -> -1 (0xbc00).
    check_bits(unary_bits<NEGATE, half, uint16_t>(DataType::FLOAT16, {0x0000, 0x8000, 0x7e01, 0x3c00}),
               from_bits_list<half, uint16_t>({0x8000, 0x0000, 0xfe01, 0xbc00}));
    check_bits(unary_bits<NEGATE, double, uint64_t>(DataType::FLOAT64, {0x3ff0000000000000ull}),
               from_bits_list<double, uint64_t>({0xbff0000000000000ull}));
    // abs(-128) and -(-128) are 128, which wraps to -128 in INT8; unsigned negation is 2^N - x.
    check_bits(unary<ABS, int8_t>(DataType::INT8, {-128, -5, 127, 0}), std::vector<int8_t>{-128, 5, 127, 0});
    check_bits(unary<ABS, int64_t>(DataType::INT64, {INT64_MIN, -1}), std::vector<int64_t>{INT64_MIN, 1});
    check_bits(unary<ABS, uint8_t>(DataType::UINT8, {255}), std::vector<uint8_t>{255});
    check_bits(unary<NEGATE, int8_t>(DataType::INT8, {-128, 5, 0, 127}), std::vector<int8_t>{-128, -5, 0, -127});
    check_bits(unary<NEGATE, uint16_t>(DataType::UINT16, {1, 0}), std::vector<uint16_t>{65535, 0});
    // ABS with ScaleBias (-1, 0.5): g(2) = -1.5, abs 1.5 (0x3fc00000).
    check_bits(unary_bits<ABS, float, uint32_t>(DataType::FLOAT32, {0x40000000}, DML_SCALE_BIAS{-1.0f, 0.5f}),
               from_bits_list<float, uint32_t>({0x3fc00000}));
}

TEST_CASE("ELEMENT_WISE_CEIL and FLOOR: exact integers, IEEE's signed zeros, canonical NaN") {
    // ceil: -0.5 -> -0, 0.5 -> 1, -0 -> -0, 2.5 -> 3, -2.5 -> -2, inf, NaN -> 0x7fc00000, 2^23 - 0.5 -> 2^23.
    check_bits(unary_bits<CEIL, float, uint32_t>(DataType::FLOAT32, {0xbf000000, 0x3f000000, 0x80000000, 0x40200000,
                                                                     0xc0200000, 0x7f800000, 0x7fc00001, 0x4affffff}),
               from_bits_list<float, uint32_t>(
                   {0x80000000, 0x3f800000, 0x80000000, 0x40400000, 0xc0000000, 0x7f800000, 0x7fc00000, 0x4b000000}));
    // floor: -0.5 -> -1, 0.5 -> +0, -0 -> -0, 2.5 -> 2, -2.5 -> -3, -inf, NaN -> 0x7fc00000, -(2^23 - 0.5) -> -2^23.
    check_bits(unary_bits<FLOOR, float, uint32_t>(DataType::FLOAT32, {0xbf000000, 0x3f000000, 0x80000000, 0x40200000,
                                                                      0xc0200000, 0xff800000, 0x7fc00001, 0xcaffffff}),
               from_bits_list<float, uint32_t>(
                   {0xbf800000, 0x00000000, 0x80000000, 0x40000000, 0xc0400000, 0xff800000, 0x7fc00000, 0xcb000000}));
    // FLOAT64: 1 + 2^-52 -> ceil 2, floor 1. FLOAT16: 1023.5 (0x63ff) -> ceil 1024 (0x6400), floor 1023 (0x63fe).
    check_bits(unary_bits<CEIL, double, uint64_t>(DataType::FLOAT64, {0x3ff0000000000001ull}),
               from_bits_list<double, uint64_t>({0x4000000000000000ull}));
    check_bits(unary_bits<FLOOR, double, uint64_t>(DataType::FLOAT64, {0x3ff0000000000001ull}),
               from_bits_list<double, uint64_t>({0x3ff0000000000000ull}));
    check_bits(unary_bits<CEIL, half, uint16_t>(DataType::FLOAT16, {0x63ff}), from_bits_list<half, uint16_t>({0x6400}));
    check_bits(unary_bits<FLOOR, half, uint16_t>(DataType::FLOAT16, {0x63ff}),
               from_bits_list<half, uint16_t>({0x63fe}));
    // Integers are their own ceiling and floor.
    check_bits(unary<CEIL, int32_t>(DataType::INT32, {-7, 7, INT32_MIN}), std::vector<int32_t>{-7, 7, INT32_MIN});
    check_bits(unary<FLOOR, uint64_t>(DataType::UINT64, {UINT64_MAX}), std::vector<uint64_t>{UINT64_MAX});
    // With ScaleBias (0.5, 0): g(1) = 0.5 -> ceil 1; g(-1) = -0.5 -> ceil -0. FLOAT16 with (0.5, 0.25): g(3) = 1.75 -> floor 1.
    check_bits(
        unary_bits<CEIL, float, uint32_t>(DataType::FLOAT32, {0x3f800000, 0xbf800000}, DML_SCALE_BIAS{0.5f, 0.0f}),
        from_bits_list<float, uint32_t>({0x3f800000, 0x80000000}));
    check_bits(unary_bits<FLOOR, half, uint16_t>(DataType::FLOAT16, {0x4200}, DML_SCALE_BIAS{0.5f, 0.25f}),
               from_bits_list<half, uint16_t>({0x3c00}));
}

TEST_CASE("ELEMENT_WISE_SIGN: -1, +0 or 1; sign(-0) = +0, sign(NaN) = NaN") {
    check_bits(
        unary_bits<SIGN, float, uint32_t>(DataType::FLOAT32,
                                          {0x80000000, 0x00000000, 0x7f800001, 0xc0000000, 0x00000001, 0xff800000}),
        from_bits_list<float, uint32_t>({0x00000000, 0x00000000, 0x7fc00000, 0xbf800000, 0x3f800000, 0xbf800000}));
    check_bits(unary_bits<SIGN, half, uint16_t>(DataType::FLOAT16, {0x8000, 0x7e01, 0x0001, 0xfc00}),
               from_bits_list<half, uint16_t>({0x0000, 0x7e00, 0x3c00, 0xbc00}));
    check_bits(unary<SIGN, int8_t>(DataType::INT8, {-128, 0, 5}), std::vector<int8_t>{-1, 0, 1});
    check_bits(unary<SIGN, int64_t>(DataType::INT64, {INT64_MIN, INT64_MAX}), std::vector<int64_t>{-1, 1});
    check_bits(unary<SIGN, uint8_t>(DataType::UINT8, {0, 200}), std::vector<uint8_t>{0, 1});
}

TEST_CASE("ELEMENT_WISE unary operators: in place, broadcast, validation") {
    // In place: NEGATE of [1, -2, 3] written over its input.
    Case c;
    c.op = unary_op<NEGATE>(DataType::INT32, {3});
    c.inputs["InputTensor"] = buffer<int32_t>(get<NEGATE>(c.op.Desc).InputTensor, {1, -2, 3});
    c.in_place["OutputTensor"] = "InputTensor";
    check_bits(as_values<int32_t>(run_case(c).values.at("OutputTensor")), std::vector<int32_t>{-1, 2, -3});
    // Broadcast: an input of Sizes [2, 3] with Strides [0, 1] reads the same row twice.
    Operator op = unary_op<ABS>(DataType::INT16, {2, 3});
    get<ABS>(op.Desc).InputTensor.Strides = {0, 1};
    const auto out = run(op, {{"InputTensor", buffer<int16_t>(get<ABS>(op.Desc).InputTensor, {-1, 2, -3})}});
    check_bits(as_values<int16_t>(out.at("OutputTensor")), std::vector<int16_t>{1, 2, 3, 1, 2, 3});

    auto check = [&]<class D>(const std::string& prefix) {
        Operator v = unary_op<D>(DataType::FLOAT32, {2, 3});
        CHECK_FALSE(validate(v).has_errors());
        get<D>(v.Desc).OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(v, prefix + ".same-data-type", "/desc/OutputTensor/DataType"));
        v = unary_op<D>(DataType::FLOAT32, {2, 3});
        get<D>(v.Desc).OutputTensor.Sizes = {3, 2};
        CHECK(has_error(v, prefix + ".same-sizes", "/desc/OutputTensor/Sizes"));
        if constexpr (requires(D d) { d.ScaleBias; }) {
            v = unary_op<D>(DataType::INT32, {2, 3}, DML_SCALE_BIAS{2.0f, 0.0f});
            CHECK(has_error(v, prefix + ".scale-bias-integer", "/desc/ScaleBias"));
        }
    };
    check.operator()<IDENTITY>("identity");
    check.operator()<ABS>("abs");
    check.operator()<CEIL>("ceil");
    check.operator()<FLOOR>("floor");
    check.operator()<SIGN>("sign");
    check.operator()<NEGATE>("negate");
}

// ---- SQRT, RECIP, THRESHOLD -----------------------------------------------------------------------

namespace {
using SQRT = DML_ELEMENT_WISE_SQRT_OPERATOR_DESC;
using RECIP = DML_ELEMENT_WISE_RECIP_OPERATOR_DESC;
using THRESHOLD = DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC;

template <class T> std::vector<T> threshold(DataType t, const std::vector<T>& x, float min) {
    Operator op = unary_op<THRESHOLD>(t, {uint32_t(x.size())});
    get<THRESHOLD>(op.Desc).Min = min;
    return as_values<T>(run(op, {{"InputTensor", buffer(get<THRESHOLD>(op.Desc).InputTensor, x)}}).at("OutputTensor"));
}

// MPFR's correctly rounded f(x) rounded once into T against dmlref, over random bit patterns.
template <class D, class T, class B>
void check_unary_against_mpfr(DataType t, int (*f)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t)) {
    std::mt19937_64 rng(20261126);
    std::vector<T> x;
    while (x.size() < 6000) {
        const T v = from_bits<T>(B(rng()));
        if (!is_nan(v)) x.push_back(v);
    }
    const std::vector<T> got = unary<D, T>(t, x);
    mpfr_t a, r;
    mpfr_inits2(2200, a, r, (mpfr_ptr) nullptr);
    for (size_t i = 0; i < x.size(); ++i) {
        mpfr_set_d(a, widen(x[i]), MPFR_RNDN);
        f(r, a, MPFR_RNDN);
        INFO("x = " << widen(x[i]));
        if (mpfr_nan_p(r)) {
            CHECK(to_bits(got[i]) == to_bits(canonical_nan<T>()));
            continue;
        }
        CHECK(to_bits(widen(got[i])) == to_bits(mpfr_rounded<T>(static_cast<mpfr_srcptr>(r))));
    }
    mpfr_clears(a, r, (mpfr_ptr) nullptr);
}
int mpfr_recip(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) { return mpfr_ui_div(r, 1, x, rnd); }
}  // namespace

TEST_CASE("ELEMENT_WISE_SQRT and RECIP: correctly rounded; IEEE's special cases") {
    // sqrt(2) = 1.0110101000001001111001100110011...b: 0x3fb504f3 (FLOAT32), 0x3da8 (FLOAT16: 1.4140625, nearer
    // than 1.4150390625). sqrt(4) = 2, sqrt(-0) = -0, sqrt(-1) = NaN (canonical), sqrt(inf) = inf.
    check_bits(unary_bits<SQRT, float, uint32_t>(DataType::FLOAT32,
                                                 {0x40000000, 0x40800000, 0x80000000, 0xbf800000, 0x7f800000}),
               from_bits_list<float, uint32_t>({0x3fb504f3, 0x40000000, 0x80000000, 0x7fc00000, 0x7f800000}));
    check_bits(unary_bits<SQRT, half, uint16_t>(DataType::FLOAT16, {0x4000}), from_bits_list<half, uint16_t>({0x3da8}));
    // 1/3 = 0x3eaaaaab; 1/-0 = -inf; 1/inf = +0; 1/2^-128 = 2^128 overflows to inf; 1/max = 2^-128 (1 + 2^-24 + ...)
    // rounds to the subnormal 2^-128 (0x00200000: the excess is 1/8 of the subnormal spacing).
    check_bits(unary_bits<RECIP, float, uint32_t>(DataType::FLOAT32,
                                                  {0x40400000, 0x80000000, 0x7f800000, 0x00200000, 0x7f7fffff}),
               from_bits_list<float, uint32_t>({0x3eaaaaab, 0xff800000, 0x00000000, 0x7f800000, 0x00200000}));
    check_bits(unary_bits<RECIP, half, uint16_t>(DataType::FLOAT16, {0x4200}),
               from_bits_list<half, uint16_t>({0x3555}));
    // With ScaleBias (2, 0): sqrt(g(2)) = sqrt(4) = 2; 1 / g(-0.25) = 1 / -0.5 = -2.
    check_bits(unary_bits<SQRT, float, uint32_t>(DataType::FLOAT32, {0x40000000}, DML_SCALE_BIAS{2.0f, 0.0f}),
               from_bits_list<float, uint32_t>({0x40000000}));
    check_bits(unary_bits<RECIP, float, uint32_t>(DataType::FLOAT32, {0xbe800000}, DML_SCALE_BIAS{2.0f, 0.0f}),
               from_bits_list<float, uint32_t>({0xc0000000}));
    // Integers: the root rounded to nearest (sqrt 2 = 1.41 -> 1, sqrt 3 = 1.73 -> 2, sqrt 15 = 3.87 -> 4,
    // sqrt(2^31 - 1) = 46340.95 -> 46341), 0 for a negative x; sqrt(2^64 - 1) = 2^32 - 2^-33 -> 2^32.
    check_bits(unary<SQRT, int32_t>(DataType::INT32, {0, 1, 2, 3, 4, 15, -4, INT32_MAX}),
               std::vector<int32_t>{0, 1, 1, 2, 2, 4, 0, 46341});
    check_bits(unary<SQRT, uint64_t>(DataType::UINT64, {UINT64_MAX}), std::vector<uint64_t>{uint64_t(1) << 32});
    // Integer 1 / x truncates: 1/2 = 0, 1/-128 = 0; 1/0 is all bits set.
    check_bits(unary<RECIP, int8_t>(DataType::INT8, {0, 1, -1, 2, -128}), std::vector<int8_t>{-1, 1, -1, 0, 0});
    check_bits(unary<RECIP, uint8_t>(DataType::UINT8, {0, 1, 255}), std::vector<uint8_t>{255, 1, 0});
}

TEST_CASE("ELEMENT_WISE_SQRT and RECIP against MPFR's once-rounded result") {
    check_unary_against_mpfr<SQRT, float, uint32_t>(DataType::FLOAT32, mpfr_sqrt);
    check_unary_against_mpfr<SQRT, half, uint16_t>(DataType::FLOAT16, mpfr_sqrt);
    check_unary_against_mpfr<SQRT, double, uint64_t>(DataType::FLOAT64, mpfr_sqrt);
    check_unary_against_mpfr<RECIP, float, uint32_t>(DataType::FLOAT32, mpfr_recip);
    check_unary_against_mpfr<RECIP, half, uint16_t>(DataType::FLOAT16, mpfr_recip);
    check_unary_against_mpfr<RECIP, double, uint64_t>(DataType::FLOAT64, mpfr_recip);
}

TEST_CASE("ELEMENT_WISE_THRESHOLD: max(x, Min) on exact values, D3D's NaN and zero rules") {
    // Min = 0.5: 0.25 -> 0.5, 1 stays, NaN is ignored -> 0.5, -0 -> 0.5, -inf -> 0.5.
    check_bits(threshold<float>(
                   DataType::FLOAT32,
                   from_bits_list<float, uint32_t>({0x3e800000, 0x3f800000, 0x7fc00001, 0x80000000, 0xff800000}), 0.5f),
               from_bits_list<float, uint32_t>({0x3f000000, 0x3f800000, 0x3f000000, 0x3f000000, 0x3f000000}));
    // Min = +0: max(-0, +0) = +0; a subnormal 2^-149 stays.
    check_bits(threshold<float>(DataType::FLOAT32, from_bits_list<float, uint32_t>({0x80000000, 0x00000001}), 0.0f),
               from_bits_list<float, uint32_t>({0x00000000, 0x00000001}));
    // FLOAT16 against Min = 0.1f (0x3dcccccd = 0.100000001490116...): 0x2e67 = 0.10003662109375 is above it and stays;
    // 0x2e66 = 0.0999755859375 is below it, so Min is the result, rounded to FLOAT16: 0x2e66 again (2.44e-5 away,
    // against 3.66e-5 for 0x2e67); 0 gives that too.
    check_bits(threshold<half>(DataType::FLOAT16, from_bits_list<half, uint16_t>({0x2e67, 0x2e66, 0x0000}), 0.1f),
               from_bits_list<half, uint16_t>({0x2e67, 0x2e66, 0x2e66}));
    // Integers: Min = 2.5 is stored rounded half to even, 2 (ClipBoundStore); 3 > 2.5 stays; 2 < 2.5 gives Min, 2.
    check_bits(threshold<int8_t>(DataType::INT8, {0, 3, -128, 2}, 2.5f), std::vector<int8_t>{2, 3, 2, 2});
    // Min = 300 saturates to 255 in UINT8.
    check_bits(threshold<uint8_t>(DataType::UINT8, {0, 200}, 300.0f), std::vector<uint8_t>{255, 255});
    // With ScaleBias (2, -1) and Min = 0: g(0.25) = -0.5 -> 0; g(3) = 5.
    Operator op = unary_op<THRESHOLD>(DataType::FLOAT32, {2}, DML_SCALE_BIAS{2.0f, -1.0f});
    const auto out = run(op, {{"InputTensor", buffer<float>(get<THRESHOLD>(op.Desc).InputTensor, {0.25f, 3.0f})}});
    check_bits(as_values<float>(out.at("OutputTensor")), std::vector<float>{0.0f, 5.0f});
}

TEST_CASE("ELEMENT_WISE SQRT, RECIP, THRESHOLD validation") {
    auto check = [&]<class D>(const std::string& prefix) {
        Operator v = unary_op<D>(DataType::FLOAT32, {2, 3});
        CHECK_FALSE(validate(v).has_errors());
        get<D>(v.Desc).OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(v, prefix + ".same-data-type", "/desc/OutputTensor/DataType"));
        v = unary_op<D>(DataType::FLOAT32, {2, 3});
        get<D>(v.Desc).OutputTensor.Sizes = {3, 2};
        CHECK(has_error(v, prefix + ".same-sizes", "/desc/OutputTensor/Sizes"));
        v = unary_op<D>(DataType::INT32, {2, 3}, DML_SCALE_BIAS{2.0f, 0.0f});
        CHECK(has_error(v, prefix + ".scale-bias-integer", "/desc/ScaleBias"));
    };
    check.operator()<SQRT>("sqrt");
    check.operator()<RECIP>("recip");
    check.operator()<THRESHOLD>("threshold");
}

// ---- ROUND, MODULUS_TRUNCATE, MODULUS_FLOOR, DIFFERENCE_SQUARE -------------------------------------

namespace {
using ROUND = DML_ELEMENT_WISE_ROUND_OPERATOR_DESC;
using MODT = DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC;
using MODF = DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC;
using DSQ = DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC;

template <class T, class B> std::vector<T> round_bits(DataType t, uint32_t mode, std::initializer_list<B> x) {
    Operator op = unary_op<ROUND>(t, {uint32_t(x.size())});
    get<ROUND>(op.Desc).RoundingMode = mode;
    return as_values<T>(run(op, {{"InputTensor", buffer(get<ROUND>(op.Desc).InputTensor, from_bits_list<T, B>(x))}})
                            .at("OutputTensor"));
}
}  // namespace

TEST_CASE("ELEMENT_WISE_ROUND: the three rounding modes, IEEE's signed zeros") {
    // x = 0.5, 1.5, 2.5, -0.5, -2.5, -0.4, 2.6, NaN, inf.
    const std::initializer_list<uint32_t> x = {0x3f000000, 0x3fc00000, 0x40200000, 0xbf000000, 0xc0200000,
                                               0xbecccccd, 0x40266666, 0x7fc00001, 0x7f800000};
    // HALVES_TO_NEAREST_EVEN: 0, 2, 2, -0, -2, -0, 3, NaN (canonical), inf.
    check_bits(round_bits<float, uint32_t>(DataType::FLOAT32, 0, x),
               from_bits_list<float, uint32_t>({0x00000000, 0x40000000, 0x40000000, 0x80000000, 0xc0000000, 0x80000000,
                                                0x40400000, 0x7fc00000, 0x7f800000}));
    // TOWARD_ZERO: 0, 1, 2, -0, -2, -0, 2, NaN, inf.
    check_bits(round_bits<float, uint32_t>(DataType::FLOAT32, 1, x),
               from_bits_list<float, uint32_t>({0x00000000, 0x3f800000, 0x40000000, 0x80000000, 0xc0000000, 0x80000000,
                                                0x40000000, 0x7fc00000, 0x7f800000}));
    // TOWARD_INFINITY (halves away from zero): 1, 2, 3, -1, -3, -0, 3, NaN, inf.
    check_bits(round_bits<float, uint32_t>(DataType::FLOAT32, 2, x),
               from_bits_list<float, uint32_t>({0x3f800000, 0x40000000, 0x40400000, 0xbf800000, 0xc0400000, 0x80000000,
                                                0x40400000, 0x7fc00000, 0x7f800000}));
    // FLOAT16 1023.5 (0x63ff): 1024 (0x6400), 1023 (0x63fe), 1024.
    check_bits(round_bits<half, uint16_t>(DataType::FLOAT16, 0, {0x63ff}), from_bits_list<half, uint16_t>({0x6400}));
    check_bits(round_bits<half, uint16_t>(DataType::FLOAT16, 1, {0x63ff}), from_bits_list<half, uint16_t>({0x63fe}));
    check_bits(round_bits<half, uint16_t>(DataType::FLOAT16, 2, {0x63ff}), from_bits_list<half, uint16_t>({0x6400}));
    Operator op = unary_op<ROUND>(DataType::FLOAT32, {2});
    get<ROUND>(op.Desc).RoundingMode = 3;
    CHECK(has_error(op, "round.rounding-mode", "/desc/RoundingMode"));
}

TEST_CASE("ELEMENT_WISE_MODULUS_TRUNCATE and MODULUS_FLOOR: exact remainders, the C and Python signs") {
    // (5.5, 2), (-5.5, 2), (5.5, -2), (-4, 2), (4, -2), (1, 0), (inf, 2), (3, inf), (1, 0.1f), (-1, 0.1f), (-2^-30, 1), (-1, inf).
    const std::initializer_list<uint32_t> a = {0x40b00000, 0xc0b00000, 0x40b00000, 0xc0800000, 0x40800000, 0x3f800000,
                                               0x7f800000, 0x40400000, 0x3f800000, 0xbf800000, 0xb0800000, 0xbf800000};
    const std::initializer_list<uint32_t> b = {0x40000000, 0x40000000, 0xc0000000, 0x40000000, 0xc0000000, 0x00000000,
                                               0x40000000, 0x7f800000, 0x3dcccccd, 0x3dcccccd, 0x3f800000, 0x7f800000};
    // C: 1.5, -1.5, 1.5, -0, +0, NaN, NaN, 3; 1 - 9 * 0.1f = (2^27 - 9 * 13421773) * 2^-27 = 13421771 * 2^-27 (0x3dcccccb, exact),
    // its negation for -1; -2^-30 (|a| < |b|: a itself); -1.
    check_bits(
        binary_bits<MODT, float, uint32_t>(DataType::FLOAT32, a, b),
        from_bits_list<float, uint32_t>({0x3fc00000, 0xbfc00000, 0x3fc00000, 0x80000000, 0x00000000, 0x7fc00000,
                                         0x7fc00000, 0x40400000, 0x3dcccccb, 0xbdcccccb, 0xb0800000, 0xbf800000}));
    // Python: 1.5, -1.5 + 2 = 0.5, 1.5 - 2 = -0.5, +0 and -0 (the divisor's sign), NaN, NaN, 3;
    // 0x3dcccccb; -13421771 * 2^-27 + 13421773 * 2^-27 = 2^-26 (0x32800000); -2^-30 + 1 = 1 - 2^-30 rounds
    // (once) to 1 in FLOAT32; -1 + inf = inf (Python's -1.0 % inf).
    check_bits(
        binary_bits<MODF, float, uint32_t>(DataType::FLOAT32, a, b),
        from_bits_list<float, uint32_t>({0x3fc00000, 0x3f000000, 0xbf000000, 0x00000000, 0x80000000, 0x7fc00000,
                                         0x7fc00000, 0x40400000, 0x3dcccccb, 0x32800000, 0x3f800000, 0x7f800000}));
    // Integers: C's % and Python's %; x % 0 is all bits set; INT_MIN % -1 = 0.
    check_bits(binary<MODT, int32_t>(DataType::INT32, {7, -7, 7, -7, 5, INT32_MIN}, {3, 3, -3, -3, 0, -1}),
               std::vector<int32_t>{1, -1, 1, -1, -1, 0});
    check_bits(binary<MODF, int32_t>(DataType::INT32, {7, -7, 7, -7, 5, INT32_MIN}, {3, 3, -3, -3, 0, -1}),
               std::vector<int32_t>{1, 2, -2, -1, -1, 0});
    check_bits(binary<MODT, uint8_t>(DataType::UINT8, {200, 5}, {7, 0}), std::vector<uint8_t>{4, 255});
    check_bits(binary<MODF, uint8_t>(DataType::UINT8, {200, 5}, {7, 0}), std::vector<uint8_t>{4, 255});
    check_bits(binary<MODF, int64_t>(DataType::INT64, {INT64_MIN}, {3}),
               std::vector<int64_t>{1});  // -2^63 = -3074457345618258603 * 3 + 1
}

TEST_CASE("ELEMENT_WISE_DIFFERENCE_SQUARE: the exact square of the exact difference, rounded once") {
    // (3 - 1)^2 = 4. (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a tie, to the even 1 + 2^-11 (0x3f801000).
    // (1 + 2^-12 - (-2^-149))^2 = 1 + 2^-11 + 2^-24 + 2^-148 + ...: just above the tie, so up to 0x3f801001 (a difference
    // rounded to float64 first would lose the 2^-149 and tie to even). (inf - 1)^2 = inf; inf - inf: NaN. (-0 - 0)^2 = +0.
    // (2^-75 - 0)^2 = 2^-150: halfway to 2^-149, ties to +0. (2^64 - -2^64)^2 = 2^130: inf.
    check_bits(binary_bits<DSQ, float, uint32_t>(
                   DataType::FLOAT32,
                   {0x40400000, 0x3f800800, 0x3f800800, 0x7f800000, 0x7f800000, 0x80000000, 0x1a000000, 0x5f800000},
                   {0x3f800000, 0x00000000, 0x80000001, 0x3f800000, 0x7f800000, 0x00000000, 0x00000000, 0xdf800000}),
               from_bits_list<float, uint32_t>(
                   {0x40800000, 0x3f801000, 0x3f801001, 0x7f800000, 0x7fc00000, 0x00000000, 0x00000000, 0x7f800000}));
    // FLOAT16: 255^2 = 65025: spacing 32 there, 65024 (0x7bf0); 256^2 = 65536: inf.
    check_bits(binary_bits<DSQ, half, uint16_t>(DataType::FLOAT16, {0x5bf8, 0x5c00}, {0x0000, 0x0000}),
               from_bits_list<half, uint16_t>({0x7bf0, 0x7c00}));
    // Integers wrap: (10 - -10)^2 = 400 = 144 = -112 in INT8; (-128 - 127) = -255 = 1 mod 256, squared 1;
    // (0 - 16)^2 = 256 = 0 in UINT8; (0 - 65536)^2 = 2^32 = 0 in UINT32.
    check_bits(binary<DSQ, int8_t>(DataType::INT8, {10, -128}, {-10, 127}), std::vector<int8_t>{-112, 1});
    check_bits(binary<DSQ, uint8_t>(DataType::UINT8, {0}, {16}), std::vector<uint8_t>{0});
    check_bits(binary<DSQ, uint32_t>(DataType::UINT32, {0}, {65536}), std::vector<uint32_t>{0});
    check_bits(binary<DSQ, int64_t>(DataType::INT64, {3}, {5}), std::vector<int64_t>{4});
}

namespace {
template <class D, class T, class B> void check_binary_exact_mpfr(DataType t, bool square) {
    std::mt19937_64 rng(7);
    std::vector<T> a, b;
    while (a.size() < 4000) {
        const T x = from_bits<T>(B(rng())),
                y = from_bits<T>(B(rng() % 3 == 0 ? rng() : to_bits(x) + B(rng() % 64) - 32));
        if (is_nan(x) || is_nan(y) || std::isinf(widen(x)) || std::isinf(widen(y))) continue;
        a.push_back(x);
        b.push_back(y);
    }
    const std::vector<T> got = binary<D, T>(t, a, b);
    mpfr_t x, y, r;
    mpfr_inits2(4400, x, y, r, (mpfr_ptr) nullptr);
    for (size_t i = 0; i < a.size(); ++i) {
        mpfr_set_d(x, widen(a[i]), MPFR_RNDN);
        mpfr_set_d(y, widen(b[i]), MPFR_RNDN);
        if (square) {
            mpfr_sub(r, x, y, MPFR_RNDN);  // exact at 4400 bits
            mpfr_sqr(r, r, MPFR_RNDN);     // exact
        } else {
            mpfr_fmod(r, x, y, MPFR_RNDN);  // C's fmod, exact
        }
        INFO("a = " << widen(a[i]) << ", b = " << widen(b[i]));
        if (mpfr_nan_p(r)) {
            CHECK(to_bits(got[i]) == to_bits(canonical_nan<T>()));
            continue;
        }
        CHECK(to_bits(widen(got[i])) == to_bits(mpfr_rounded<T>(static_cast<mpfr_srcptr>(r))));
    }
    mpfr_clears(x, y, r, (mpfr_ptr) nullptr);
}
}  // namespace

TEST_CASE("ELEMENT_WISE_DIFFERENCE_SQUARE and MODULUS_TRUNCATE against MPFR") {
    check_binary_exact_mpfr<DSQ, float, uint32_t>(DataType::FLOAT32, true);
    check_binary_exact_mpfr<DSQ, half, uint16_t>(DataType::FLOAT16, true);
    check_binary_exact_mpfr<DSQ, double, uint64_t>(DataType::FLOAT64, true);
    check_binary_exact_mpfr<MODT, float, uint32_t>(DataType::FLOAT32, false);
    check_binary_exact_mpfr<MODT, half, uint16_t>(DataType::FLOAT16, false);
    check_binary_exact_mpfr<MODT, double, uint64_t>(DataType::FLOAT64, false);
}

// ---- VALUE_SCALE_2D -------------------------------------------------------------------------------

namespace {
using VS2D = DML_VALUE_SCALE_2D_OPERATOR_DESC;
Operator value_scale_op(DataType t, std::vector<uint32_t> sizes, float scale, std::vector<float> bias) {
    VS2D d;
    d.InputTensor = d.OutputTensor = desc(t, sizes);
    d.Scale = scale;
    d.ChannelCount = sizes.size() > 1 ? sizes[1] : 0;
    d.Bias = std::move(bias);
    return {OperatorType::VALUE_SCALE_2D, d};
}
}  // namespace

TEST_CASE("VALUE_SCALE_2D: Scale * x + Bias[channel], exact, rounded once") {
    // 1x3x1x2, Scale 2, Bias {0.5, -1, 0}: channel 0: 2 * 1 + 0.5 = 2.5, 2 * 2 + 0.5 = 4.5; channel 1: 2 * 0.5 - 1 = +0,
    // 2 * 3 - 1 = 5; channel 2: 2 * -0 + 0 = +0 (IEEE: -0 + +0), 2 * 2^-149 = 2^-148 (0x00000002).
    const Operator op = value_scale_op(DataType::FLOAT32, {1, 3, 1, 2}, 2.0f, {0.5f, -1.0f, 0.0f});
    const auto out = run(
        op, {{"InputTensor", buffer(get<VS2D>(op.Desc).InputTensor,
                                    from_bits_list<float, uint32_t>(
                                        {0x3f800000, 0x40000000, 0x3f000000, 0x40400000, 0x80000000, 0x00000001}))}});
    check_bits(
        as_values<float>(out.at("OutputTensor")),
        from_bits_list<float, uint32_t>({0x40200000, 0x40900000, 0x00000000, 0x40a00000, 0x00000000, 0x00000002}));
    // One rounding: x = Scale = 1 + 2^-12, Bias = -1: exactly 2^-11 + 2^-24 = 2^-11 (1 + 2^-13), a FLOAT32
    // (0x3a000400); an unfused float32 evaluation would round the product to 1 + 2^-11 first and give 2^-11.
    const float s = from_bits<float>(0x3f800800u);
    const Operator one = value_scale_op(DataType::FLOAT32, {1, 1, 1, 1}, s, {-1.0f});
    const auto o1 = run(one, {{"InputTensor", buffer<float>(get<VS2D>(one.Desc).InputTensor, {s})}});
    check_bits(as_values<float>(o1.at("OutputTensor")), from_bits_list<float, uint32_t>({0x3a000400}));
    // FLOAT16: 65504 * 2 + 0 = 131008: +inf; 1 * 0.1 + 0: 0.1f (0x3dcccccd = 0.100000001490116...) rounded once to
    // FLOAT16, 0x2e66 (0.0999755859375, nearer than 0x2e67 = 0.10003662109375).
    const Operator h = value_scale_op(DataType::FLOAT16, {1, 1, 1, 2}, 2.0f, {0.0f});
    const auto oh = run(
        h, {{"InputTensor", buffer(get<VS2D>(h.Desc).InputTensor, from_bits_list<half, uint16_t>({0x7bff, 0x0000}))}});
    check_bits(as_values<half>(oh.at("OutputTensor")), from_bits_list<half, uint16_t>({0x7c00, 0x0000}));
    const Operator h2 = value_scale_op(DataType::FLOAT16, {1, 1, 1, 1}, 0.1f, {0.0f});
    const auto oh2 = run(
        h2, {{"InputTensor", buffer(get<VS2D>(h2.Desc).InputTensor, from_bits_list<half, uint16_t>({0x3c00}))}});
    check_bits(as_values<half>(oh2.at("OutputTensor")), from_bits_list<half, uint16_t>({0x2e66}));
}

TEST_CASE("VALUE_SCALE_2D validation") {
    Operator op = value_scale_op(DataType::FLOAT32, {1, 3, 2, 2}, 1.0f, {0, 0, 0});
    CHECK_FALSE(validate(op).has_errors());
    get<VS2D>(op.Desc).Bias = {0, 0};
    CHECK(has_error(op, "value-scale-2d.bias-length", "/desc/Bias"));
    op = value_scale_op(DataType::FLOAT32, {1, 2, 2, 2}, 1.0f, {0, 0});
    CHECK(has_error(op, "value-scale-2d.channel-count", "/desc/ChannelCount"));
    op = value_scale_op(DataType::FLOAT32, {3, 2, 2}, 1.0f, {0, 0});
    CHECK(has_error(op, "value-scale-2d.dimension-count", "/desc/InputTensor/Sizes"));
    op = value_scale_op(DataType::INT32, {1, 1, 2, 2}, 1.0f, {0});
    CHECK(has_error(op, "value-scale-2d.float-data", "/desc/InputTensor/DataType"));
    op = value_scale_op(DataType::FLOAT32, {1, 1, 2, 2}, 1.0f, {0});
    get<VS2D>(op.Desc).OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "value-scale-2d.same-data-type", "/desc/OutputTensor/DataType"));
    op = value_scale_op(DataType::FLOAT32, {1, 1, 2, 2}, 1.0f, {0});
    get<VS2D>(op.Desc).OutputTensor.Sizes = {1, 1, 4, 1};
    CHECK(has_error(op, "value-scale-2d.same-sizes", "/desc/OutputTensor/Sizes"));
}

// ---- ADD1 -----------------------------------------------------------------------------------------

namespace {
using ADD1 = DML_ELEMENT_WISE_ADD1_OPERATOR_DESC;
// fused_activation_types(): LINEAR is 0, RELU 5, LEAKY_RELU 6.
std::vector<float> add1(const std::vector<float>& a, const std::vector<float>& b,
                        std::optional<DML_FUSED_ACTIVATION> fa) {
    Operator op = binary_op<ADD1>(DataType::FLOAT32, {uint32_t(a.size())});
    get<ADD1>(op.Desc).FusedActivation = fa;
    const auto& d = get<ADD1>(op.Desc);
    return as_values<float>(
        run(op, {{"ATensor", buffer(d.ATensor, a)}, {"BTensor", buffer(d.BTensor, b)}}).at("OutputTensor"));
}
}  // namespace

TEST_CASE("ELEMENT_WISE_ADD1: the fused activation of the rounded sum") {
    const float one = 1.0f, tiny = from_bits<float>(0x33800000u);  // 2^-24
    // Without an activation ADD1 is ADD: 1 + 2^-24 ties to 1; INT8 127 + 1 wraps to -128.
    check_bits(add1({one}, {tiny}, std::nullopt), std::vector<float>{1.0f});
    check_bits(binary<ADD1, int8_t>(DataType::INT8, {127}, {1}), std::vector<int8_t>{-128});
    // LINEAR (Alpha 1, Beta -1) of the rounded sum: 1 * 1 - 1 = +0 (FusedActivationInput=RoundedSum); applied to the
    // exact sum it would give 2^-24.
    check_bits(add1({one}, {tiny}, DML_FUSED_ACTIVATION{0, {1.0f, -1.0f}}), std::vector<float>{0.0f});
    // LINEAR (2, 1): 2 * (1 + 2) + 1 = 7. RELU: -0.5 + 0 -> +0, 2 + 1 -> 3. LEAKY_RELU (0.5): -3 + 0 -> -1.5.
    check_bits(add1({1.0f}, {2.0f}, DML_FUSED_ACTIVATION{0, {2.0f, 1.0f}}), std::vector<float>{7.0f});
    check_bits(add1({-0.5f, 2.0f}, {0.0f, 1.0f}, DML_FUSED_ACTIVATION{5, {0, 0}}), std::vector<float>{0.0f, 3.0f});
    check_bits(add1({-3.0f}, {0.0f}, DML_FUSED_ACTIVATION{6, {0.5f, 0}}), std::vector<float>{-1.5f});
    // Validation: an activation only for FLOAT16 and FLOAT32 outputs; its parameters finite.
    Operator op = binary_op<ADD1>(DataType::INT32, {2});
    get<ADD1>(op.Desc).FusedActivation = DML_FUSED_ACTIVATION{5, {0, 0}};
    CHECK(has_error(op, "add1.fused-activation-type", "/desc/FusedActivation"));
    op = binary_op<ADD1>(DataType::FLOAT32, {2});
    get<ADD1>(op.Desc).FusedActivation = DML_FUSED_ACTIVATION{6, {std::numeric_limits<float>::quiet_NaN(), 0}};
    CHECK(has_error(op, "add1.fused-activation-parameter", "/desc/FusedActivation/Alpha"));
    op = binary_op<ADD1>(DataType::FLOAT32, {2});
    get<ADD1>(op.Desc).OutputTensor.Sizes = {3};
    CHECK(has_error(op, "add1.same-sizes", "/desc/OutputTensor/Sizes"));
    op = binary_op<ADD1>(DataType::FLOAT32, {2});
    get<ADD1>(op.Desc).BTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "add1.same-data-type", "/desc/BTensor/DataType"));
}

}  // namespace dmlref_test_element_wise
