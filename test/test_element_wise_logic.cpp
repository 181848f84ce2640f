// The element-wise logic family: comparisons, LOGICAL_AND/OR/XOR/NOT, IS_NAN, IS_INFINITY, IF and
// the bitwise operators. Expected values come from the pages' formulas and examples, by hand (bit
// patterns written out below with why), or from a direct C++ expression on the same values
// (`a < b` on int64_t, popcount of the bit pattern) that does not go through dmlref's code;
// none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/element_wise_logic.hpp"

#include <bit>
#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_element_wise_logic {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using OT = OperatorType;

template <class D>
Operator binary_op(DataType in, DataType out, std::vector<uint32_t> sizes, std::vector<uint32_t> b_strides = {}) {
    D d;
    d.ATensor = desc(in, sizes);
    d.BTensor = desc(in, sizes, std::move(b_strides));
    d.OutputTensor = desc(out, sizes);
    return {D::kType, d};
}

template <class D> Operator unary_op(DataType in, DataType out, std::vector<uint32_t> sizes) {
    D d;
    d.InputTensor = desc(in, sizes);
    d.OutputTensor = desc(out, sizes);
    return {D::kType, d};
}

// Runs a binary operator on two 1-D inputs; the output as TOut.
template <class D, class TOut, class T> std::vector<TOut> binary(const std::vector<T>& a, const std::vector<T>& b) {
    const Operator op = binary_op<D>(data_type_of<T>(), data_type_of<TOut>(), {uint32_t(a.size())});
    const D& d = get<D>(op.Desc);
    return as_values<TOut>(
        run(op, {{"ATensor", buffer(d.ATensor, a)}, {"BTensor", buffer(d.BTensor, b)}}).at("OutputTensor"));
}

template <class D, class TOut, class T> std::vector<TOut> unary(const std::vector<T>& x) {
    const Operator op = unary_op<D>(data_type_of<T>(), data_type_of<TOut>(), {uint32_t(x.size())});
    const D& d = get<D>(op.Desc);
    return as_values<TOut>(run(op, {{"InputTensor", buffer(d.InputTensor, x)}}).at("OutputTensor"));
}

template <class T, class B> std::vector<T> bits(std::initializer_list<B> list) {
    std::vector<T> v;
    for (B b : list) v.push_back(from_bits<T>(b));
    return v;
}

using EQ = DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC;
using GT = DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC;
using LT = DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC;
using GE = DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC;
using LE = DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC;

}  // namespace

TEST_CASE("LOGICAL comparisons FLOAT32: NaN compares false, -0 == +0, subnormals are kept") {
    // Pairs (a, b), as bits:
    //   0: NaN (0x7fc00000) vs NaN        unordered: ==, >, <, >=, <= all false
    //   1: -0 (0x80000000) vs +0          equal
    //   2: 2^-149 (0x00000001) vs +0      greater (a backend flushing subnormals would say equal)
    //   3: +inf vs FLT_MAX (0x7f7fffff)   greater
    //   4: -inf vs -FLT_MAX               less
    //   5: 1.0 (0x3f800000) vs NaN        unordered
    //   6: 1 + 2^-23 (0x3f800001) vs 1.0  greater by one ULP
    const auto a = bits<float, uint32_t>(
        {0x7fc00000, 0x80000000, 0x00000001, 0x7f800000, 0xff800000, 0x3f800000, 0x3f800001});
    const auto b = bits<float, uint32_t>(
        {0x7fc00000, 0x00000000, 0x00000000, 0x7f7fffff, 0xff7fffff, 0x7fc00000, 0x3f800000});
    check_bits(binary<EQ, uint8_t>(a, b), std::vector<uint8_t>{0, 1, 0, 0, 0, 0, 0});
    check_bits(binary<GT, uint8_t>(a, b), std::vector<uint8_t>{0, 0, 1, 1, 0, 0, 1});
    check_bits(binary<LT, uint8_t>(a, b), std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0});
    check_bits(binary<GE, uint8_t>(a, b), std::vector<uint8_t>{0, 1, 1, 1, 0, 0, 1});
    check_bits(binary<LE, uint8_t>(a, b), std::vector<uint8_t>{0, 1, 0, 0, 1, 0, 0});
}

TEST_CASE("LOGICAL comparisons FLOAT16 and FLOAT64 by exact value") {
    // FLOAT16: 0x0001 (2^-24, the least subnormal) > 0x8000 (-0); 0x7c00 (+inf) > 0x7bff (65504);
    // 0x7e00 (NaN) vs 0x7e00 unordered; 0x3c01 (1 + 2^-10) > 0x3c00 (1).
    const auto ha = bits<half, uint16_t>({0x0001, 0x7c00, 0x7e00, 0x3c01, 0x8000});
    const auto hb = bits<half, uint16_t>({0x8000, 0x7bff, 0x7e00, 0x3c00, 0x0000});
    check_bits(binary<GT, uint32_t>(ha, hb), std::vector<uint32_t>{1, 1, 0, 1, 0});
    check_bits(binary<EQ, uint32_t>(ha, hb), std::vector<uint32_t>{0, 0, 0, 0, 1});
    // FLOAT64: 1 + 2^-52 (0x3ff0000000000001) > 1; the least subnormal 0x1 > 0; -0 <= +0.
    const auto da = bits<double, uint64_t>({0x3ff0000000000001ull, 0x0000000000000001ull, 0x8000000000000000ull});
    const auto db = bits<double, uint64_t>({0x3ff0000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull});
    check_bits(binary<GT, uint8_t>(da, db), std::vector<uint8_t>{1, 1, 0});
    check_bits(binary<LE, uint8_t>(da, db), std::vector<uint8_t>{0, 0, 1});
}

TEST_CASE("LOGICAL comparisons of 64-bit integers are exact, never through a double") {
    // 2^53 + 1 and 2^53 are one double apart only after rounding (both round to 2^53): compared
    // exactly they differ. INT64 and UINT64 extremes against their neighbours.
    const std::vector<int64_t> a = {(int64_t(1) << 53) + 1, INT64_MIN, INT64_MAX, -1, 0};
    const std::vector<int64_t> b = {int64_t(1) << 53, INT64_MIN + 1, INT64_MAX - 1, 0, 0};
    std::vector<uint8_t> gt, eq, le;
    for (size_t i = 0; i < a.size(); ++i) {  // the C++ comparisons of int64_t, independent of dmlref
        gt.push_back(a[i] > b[i]);
        eq.push_back(a[i] == b[i]);
        le.push_back(a[i] <= b[i]);
    }
    CHECK(gt == std::vector<uint8_t>{1, 0, 1, 0, 0});  // and by hand
    check_bits(binary<GT, uint8_t>(a, b), gt);
    check_bits(binary<EQ, uint8_t>(a, b), eq);
    check_bits(binary<LE, uint8_t>(a, b), le);
    const std::vector<uint64_t> ua = {UINT64_MAX, UINT64_MAX, (uint64_t(1) << 63), 0};
    const std::vector<uint64_t> ub = {UINT64_MAX - 1, UINT64_MAX, (uint64_t(1) << 63) - 1, UINT64_MAX};
    check_bits(binary<LT, uint32_t>(ua, ub), std::vector<uint32_t>{0, 0, 0, 1});
    check_bits(binary<GE, uint32_t>(ua, ub), std::vector<uint32_t>{1, 1, 1, 0});
    // INT8 and UINT16 extremes.
    check_bits(binary<LT, uint8_t>(std::vector<int8_t>{-128, 127}, std::vector<int8_t>{127, -128}),
               std::vector<uint8_t>{1, 0});
    check_bits(binary<GE, uint8_t>(std::vector<uint16_t>{65535, 0}, std::vector<uint16_t>{65535, 1}),
               std::vector<uint8_t>{1, 0});
}

TEST_CASE("LOGICAL comparisons: 1 and 0 of whatever DataType OutputTensor has") {
    const std::vector<int32_t> a = {1, 2}, b = {1, 3};
    // true, false as FLOAT16 (1.0 = 0x3c00, +0 = 0x0000), FLOAT32 (0x3f800000), FLOAT64
    // (0x3ff0000000000000), INT8 (1), UINT64 (1).
    check_bits(binary<EQ, half>(a, b), bits<half, uint16_t>({0x3c00, 0x0000}));
    check_bits(binary<EQ, float>(a, b), bits<float, uint32_t>({0x3f800000, 0x00000000}));
    check_bits(binary<EQ, double>(a, b), bits<double, uint64_t>({0x3ff0000000000000ull, 0}));
    check_bits(binary<EQ, int8_t>(a, b), std::vector<int8_t>{1, 0});
    check_bits(binary<EQ, uint64_t>(a, b), std::vector<uint64_t>{1, 0});
}

TEST_CASE("LOGICAL comparisons: broadcast and transposed inputs") {
    // A = [[0, 1, 2], [3, 4, 5]] (rank 2), B = [1, 2, 3] broadcast along dimension 0 (Strides 0, 1).
    const Operator op = binary_op<GE>(DataType::INT16, DataType::UINT8, {2, 3}, {0, 1});
    const auto& d = get<GE>(op.Desc);
    const auto out = run(op, {{"ATensor", buffer<int16_t>(d.ATensor, {0, 1, 2, 3, 4, 5})},
                              {"BTensor", buffer<int16_t>(d.BTensor, {1, 2, 3})}});
    // a >= b: 0>=1 0, 1>=2 0, 2>=3 0, 3>=1 1, 4>=2 1, 5>=3 1.
    check_bits(as_values<uint8_t>(out.at("OutputTensor")), std::vector<uint8_t>{0, 0, 0, 1, 1, 1});

    // A transposed (Strides 1, 2 over Sizes 2x3: element [i][j] at 2j + i), rank 8 shapes.
    GT g;
    g.ATensor = desc(DataType::UINT32, {1, 1, 1, 1, 1, 1, 2, 3}, {6, 6, 6, 6, 6, 6, 1, 2});
    g.BTensor = desc(DataType::UINT32, {1, 1, 1, 1, 1, 1, 2, 3});
    g.OutputTensor = desc(DataType::UINT8, {1, 1, 1, 1, 1, 1, 2, 3});
    // Memory of A: [10, 40, 20, 50, 30, 60] -> logical [[10, 20, 30], [40, 50, 60]].
    const auto o2 = run({OT::ELEMENT_WISE_LOGICAL_GREATER_THAN, g},
                        {{"ATensor", buffer<uint32_t>(g.ATensor, {10, 40, 20, 50, 30, 60})},
                         {"BTensor", buffer<uint32_t>(g.BTensor, {10, 19, 31, 39, 50, 61})}});
    check_bits(as_values<uint8_t>(o2.at("OutputTensor")), std::vector<uint8_t>{0, 1, 0, 1, 0, 0});
}

TEST_CASE("LOGICAL_AND, OR, XOR, NOT: any nonzero element is true (LogicalTruth=NonzeroIsTrue)") {
    using AND = DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC;
    using OR = DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC;
    using XOR = DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC;
    using NOT = DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC;
    // Truth table over {0, 1} plus 2 and 255 (true, though their low bit or their bits differ
    // from 1: bitwise 2 & 1 = 0, and a low-bit reading would call 2 false).
    const std::vector<uint8_t> a = {0, 0, 1, 1, 2, 255, 2};
    const std::vector<uint8_t> b = {0, 1, 0, 1, 1, 4, 0};
    check_bits(binary<AND, uint8_t>(a, b), std::vector<uint8_t>{0, 0, 0, 1, 1, 1, 0});
    check_bits(binary<OR, uint8_t>(a, b), std::vector<uint8_t>{0, 1, 1, 1, 1, 1, 1});
    check_bits(binary<XOR, uint8_t>(a, b), std::vector<uint8_t>{0, 1, 1, 0, 0, 0, 1});
    check_bits(unary<NOT, uint8_t>(std::vector<uint8_t>{0, 1, 2, 255}), std::vector<uint8_t>{1, 0, 0, 0});
    check_bits(unary<NOT, uint32_t>(std::vector<uint32_t>{0, 0x80000000u}), std::vector<uint32_t>{1, 0});
    // FLOAT32 (outside DirectML's tables): -0 is zero, NaN and 2^-149 are not; 1.0f is 0x3f800000.
    const auto f = bits<float, uint32_t>({0x80000000, 0x7fc00000, 0x00000001, 0x00000000});
    check_bits(unary<NOT, float>(f), bits<float, uint32_t>({0x3f800000, 0, 0, 0x3f800000}));
    // INT64: -1 and INT64_MIN are true.
    check_bits(binary<AND, int64_t>(std::vector<int64_t>{-1, INT64_MIN, 0}, std::vector<int64_t>{INT64_MIN, 7, -1}),
               std::vector<int64_t>{1, 1, 0});
}

TEST_CASE("LOGICAL_AND and BIT_XOR run in place; BIT_NOT in place") {
    Case c;
    c.op = binary_op<DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC>(DataType::UINT8, DataType::UINT8, {4});
    const auto& d = get<DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC>(c.op.Desc);
    c.inputs["ATensor"] = buffer<uint8_t>(d.ATensor, {0, 3, 3, 9});
    c.inputs["BTensor"] = buffer<uint8_t>(d.BTensor, {5, 0, 6, 9});
    c.in_place["OutputTensor"] = "BTensor";
    check_bits(as_values<uint8_t>(run_case(c).values.at("OutputTensor")), std::vector<uint8_t>{0, 0, 1, 1});

    Case x;
    x.op = binary_op<DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC>(DataType::UINT16, DataType::UINT16, {2});
    const auto& dx = get<DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC>(x.op.Desc);
    x.inputs["ATensor"] = buffer<uint16_t>(dx.ATensor, {0xff00, 0x1234});
    x.inputs["BTensor"] = buffer<uint16_t>(dx.BTensor, {0x0ff0, 0x1234});
    x.in_place["OutputTensor"] = "ATensor";
    check_bits(as_values<uint16_t>(run_case(x).values.at("OutputTensor")), std::vector<uint16_t>{0xf0f0, 0x0000});

    Case n;
    n.op = unary_op<DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC>(DataType::INT32, DataType::INT32, {2});
    n.inputs["InputTensor"] = buffer<int32_t>(get<DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC>(n.op.Desc).InputTensor,
                                              {0, -1});
    n.in_place["OutputTensor"] = "InputTensor";
    check_bits(as_values<int32_t>(run_case(n).values.at("OutputTensor")), std::vector<int32_t>{-1, 0});
}

TEST_CASE("IS_NAN: every NaN encoding is NaN; infinities, numbers and integers are not") {
    using ISNAN = DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC;
    // FLOAT32: quiet NaN 0x7fc00000, signalling NaN 0x7f800001 (exponent all ones, fraction not 0,
    // quiet bit 0), negative NaN 0xffc00001; +inf 0x7f800000, FLT_MAX 0x7f7fffff, -0.
    const auto f = bits<float, uint32_t>({0x7fc00000, 0x7f800001, 0xffc00001, 0x7f800000, 0x7f7fffff, 0x80000000});
    check_bits(unary<ISNAN, uint8_t>(f), std::vector<uint8_t>{1, 1, 1, 0, 0, 0});
    // FLOAT16: 0x7c01 signalling NaN, 0xfe00 negative quiet NaN, 0x7c00 +inf, 0x7bff 65504.
    const auto h = bits<half, uint16_t>({0x7c01, 0xfe00, 0x7c00, 0x7bff});
    check_bits(unary<ISNAN, uint32_t>(h), std::vector<uint32_t>{1, 1, 0, 0});
    // FLOAT64 signalling NaN 0x7ff0000000000001; integers are never NaN (0xffffffff as INT32 is -1).
    check_bits(unary<ISNAN, uint8_t>(bits<double, uint64_t>({0x7ff0000000000001ull, 0x7ff0000000000000ull})),
               std::vector<uint8_t>{1, 0});
    check_bits(unary<ISNAN, uint8_t>(std::vector<int32_t>{-1, 0x7fc00000}), std::vector<uint8_t>{0, 0});
    // A FLOAT16 output: 1.0 is 0x3c00.
    check_bits(unary<ISNAN, half>(f), bits<half, uint16_t>({0x3c00, 0x3c00, 0x3c00, 0, 0, 0}));
}

TEST_CASE("IS_INFINITY: InfinityMode EITHER, POSITIVE, NEGATIVE") {
    using ISINF = DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC;
    // +inf, -inf, NaN, FLT_MAX, -FLT_MAX, 0.
    const auto f = bits<float, uint32_t>({0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fffff, 0xff7fffff, 0x00000000});
    auto run_mode = [&](uint32_t mode) {
        Operator op = unary_op<ISINF>(DataType::FLOAT32, DataType::UINT8, {6});
        auto& d = get<ISINF>(op.Desc);
        d.InfinityMode = mode;
        return as_values<uint8_t>(run(op, {{"InputTensor", buffer(d.InputTensor, f)}}).at("OutputTensor"));
    };
    check_bits(run_mode(DML_IS_INFINITY_MODE_EITHER), std::vector<uint8_t>{1, 1, 0, 0, 0, 0});
    check_bits(run_mode(DML_IS_INFINITY_MODE_POSITIVE), std::vector<uint8_t>{1, 0, 0, 0, 0, 0});
    check_bits(run_mode(DML_IS_INFINITY_MODE_NEGATIVE), std::vector<uint8_t>{0, 1, 0, 0, 0, 0});
    // FLOAT16 infinities 0x7c00 and 0xfc00; 0x7bff (65504) is finite; INT16 32767 is not infinite.
    check_bits(unary<ISINF, uint8_t>(bits<half, uint16_t>({0x7c00, 0xfc00, 0x7bff})), std::vector<uint8_t>{1, 1, 0});
    check_bits(unary<ISINF, uint8_t>(std::vector<int16_t>{32767, -32768}), std::vector<uint8_t>{0, 0});
    // An InfinityMode beyond NEGATIVE (2) is an error (the case reader refuses it by name first).
    Operator bad = unary_op<ISINF>(DataType::FLOAT32, DataType::UINT8, {6});
    get<ISINF>(bad.Desc).InfinityMode = 3;
    CHECK(has_error(bad, "is-infinity.infinity-mode", "/desc/InfinityMode"));
}

TEST_CASE("IF: the page's example, float conditions, selected bits") {
    using IF = DML_ELEMENT_WISE_IF_OPERATOR_DESC;
    auto make = [](DataType cond, DataType v, std::vector<uint32_t> sizes) {
        IF d;
        d.ConditionTensor = desc(cond, sizes);
        d.ATensor = d.BTensor = d.OutputTensor = desc(v, sizes);
        return Operator{OT::ELEMENT_WISE_IF, d};
    };
    // The page: [[1, 0], [1, 1]], [[1, 2], [3, 4]], [[9, 8], [7, 6]] -> [[1, 8], [3, 4]].
    {
        const Operator op = make(DataType::UINT8, DataType::FLOAT32, {2, 2});
        const auto& d = get<IF>(op.Desc);
        const auto out = run(op, {{"ConditionTensor", buffer<uint8_t>(d.ConditionTensor, {1, 0, 1, 1})},
                                  {"ATensor", buffer<float>(d.ATensor, {1, 2, 3, 4})},
                                  {"BTensor", buffer<float>(d.BTensor, {9, 8, 7, 6})}});
        check_bits(as_values<float>(out.at("OutputTensor")), std::vector<float>{1, 8, 3, 4});
    }
    // A FLOAT32 condition: -0 (0x80000000) is zero and selects B; NaN and 2^-149 are not zero and
    // select A; a condition of 2 selects A. A holds a NaN with payload 0x7fc00123 and -0, copied as bits.
    {
        const Operator op = make(DataType::FLOAT32, DataType::FLOAT32, {4});
        const auto& d = get<IF>(op.Desc);
        const auto out = run(
            op,
            {{"ConditionTensor",
              buffer(d.ConditionTensor, bits<float, uint32_t>({0x80000000, 0x7fc00000, 0x00000001, 0x40000000}))},
             {"ATensor", buffer(d.ATensor, bits<float, uint32_t>({0x3f800000, 0x7fc00123, 0x80000000, 0x7f800001}))},
             {"BTensor", buffer(d.BTensor, bits<float, uint32_t>({0xff800001, 0x00000000, 0x3f800000, 0x00000000}))}});
        check_bits(as_values<float>(out.at("OutputTensor")),
                   bits<float, uint32_t>({0xff800001, 0x7fc00123, 0x80000000, 0x7f800001}));
    }
    // INT64 values with a broadcast UINT8 condition (Strides 1, 0: one condition per row).
    {
        IF d;
        d.ConditionTensor = desc(DataType::UINT8, {2, 2}, {1, 0});
        d.ATensor = d.BTensor = d.OutputTensor = desc(DataType::INT64, {2, 2});
        const auto out = run({OT::ELEMENT_WISE_IF, d},
                             {{"ConditionTensor", buffer<uint8_t>(d.ConditionTensor, {0, 200})},
                              {"ATensor", buffer<int64_t>(d.ATensor, {INT64_MIN, 1, 2, INT64_MAX})},
                              {"BTensor", buffer<int64_t>(d.BTensor, {5, 6, 7, 8})}});
        check_bits(as_values<int64_t>(out.at("OutputTensor")), std::vector<int64_t>{5, 6, 2, INT64_MAX});
    }
    // Validation: A, B and Output share a DataType; all four their Sizes.
    Operator op = make(DataType::UINT8, DataType::FLOAT32, {2, 2});
    CHECK_FALSE(validate(op).has_errors());
    get<IF>(op.Desc).BTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "if.same-data-type", "/desc/BTensor/DataType"));
    op = make(DataType::UINT8, DataType::FLOAT32, {2, 2});
    get<IF>(op.Desc).ATensor.Sizes = {4};  // differs from the first tensor, ConditionTensor
    CHECK(has_error(op, "if.same-sizes", "/desc/ATensor/Sizes"));
}

TEST_CASE("comparisons, IS_NAN, IS_INFINITY and IF over many elements into outputs of every width") {
    // Tens of thousands of elements: a 2- or 8-byte output takes each element's truth as a byte
    // first, then widens it (reference/element_wise_logic.cpp); the expected values are the
    // operators' formulas on the same values, written here in C++ (`<` on int32_t, isnan).
    uint32_t seed = 12345;
    auto next = [&] { return seed = seed * 1103515245u + 12345u; };

    // LESS_THAN on INT32: A packed 3x7x1000, B 7x1000 broadcast along dimension 0 (Strides 0, 1000, 1).
    const Operator lt = binary_op<LT>(DataType::INT32, DataType::UINT8, {3, 7, 1000}, {0, 1000, 1});
    std::vector<int32_t> a(21000), b(7000);
    for (auto& v : a) v = int32_t(next() % 201) - 100;
    for (auto& v : b) v = int32_t(next() % 201) - 100;
    std::vector<uint64_t> truth(21000);
    for (size_t i = 0; i < a.size(); ++i) truth[i] = a[i] < b[i % 7000] ? 1 : 0;
    auto expect = [&](auto one) {
        std::vector<decltype(one)> e;
        for (uint64_t t : truth) e.push_back(t ? one : decltype(one)(0));
        return e;
    };
    for (DataType out : {DataType::UINT8, DataType::UINT16, DataType::UINT32, DataType::FLOAT16, DataType::INT64}) {
        Operator op = lt;
        auto& d = get<LT>(op.Desc);
        d.OutputTensor.DataType = out;
        const auto y =
            run(op, {{"ATensor", buffer(d.ATensor, a)}, {"BTensor", buffer(d.BTensor, b)}}).at("OutputTensor");
        INFO(name(out));
        if (out == DataType::UINT8) check_bits(as_values<uint8_t>(y), expect(uint8_t(1)));
        if (out == DataType::UINT16) check_bits(as_values<uint16_t>(y), expect(uint16_t(1)));
        if (out == DataType::UINT32) check_bits(as_values<uint32_t>(y), expect(uint32_t(1)));
        if (out == DataType::FLOAT16) check_bits(as_values<uint16_t>(y), expect(uint16_t(0x3c00)));  // 1.0
        if (out == DataType::INT64) check_bits(as_values<int64_t>(y), expect(int64_t(1)));
    }

    // IS_NAN and IS_INFINITY of 40000 FLOAT32 values (1-D: blocks of a part of the one dimension)
    // into FLOAT64 (1.0 is 0x3ff0000000000000) and UINT32; about one value in 8 a NaN, one in 8 infinite.
    std::vector<float> x(40000);
    for (auto& v : x) {
        const uint32_t r = next();
        v = (r >> 29) == 0   ? from_bits<float>(0x7f800001u | (r & 0xffff))
            : (r >> 29) == 1 ? -std::numeric_limits<float>::infinity()
                             : float(r % 1000);
    }
    const auto nan_out = run(unary_op<DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT64,
                                                                             {40000}),
                             {{"InputTensor", buffer(desc(DataType::FLOAT32, {40000}), x)}})
                             .at("OutputTensor");
    const auto inf_out = run(unary_op<DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC>(DataType::FLOAT32, DataType::UINT32,
                                                                                  {40000}),
                             {{"InputTensor", buffer(desc(DataType::FLOAT32, {40000}), x)}})
                             .at("OutputTensor");
    std::vector<uint64_t> nan_expected;
    std::vector<uint32_t> inf_expected;
    for (float v : x) {
        nan_expected.push_back(std::isnan(v) ? 0x3ff0000000000000ull : 0);
        inf_expected.push_back(std::isinf(v) ? 1 : 0);
    }
    check_bits(as_values<uint64_t>(nan_out), nan_expected);
    check_bits(as_values<uint32_t>(inf_out), inf_expected);

    // IF on INT16 values 5x5000: A transposed (Strides 1, 5), the UINT8 condition one per column
    // (Strides 0, 1), B packed.
    DML_ELEMENT_WISE_IF_OPERATOR_DESC f;
    f.ConditionTensor = desc(DataType::UINT8, {5, 5000}, {0, 1});
    f.ATensor = desc(DataType::INT16, {5, 5000}, {1, 5});
    f.BTensor = f.OutputTensor = desc(DataType::INT16, {5, 5000});
    std::vector<uint8_t> c(5000);
    std::vector<int16_t> av(25000), bv(25000);
    for (auto& v : c) v = uint8_t(next() % 3);  // 0 selects B, 1 and 2 select A
    for (auto& v : av) v = int16_t(next());
    for (auto& v : bv) v = int16_t(next());
    const auto sel = run({OperatorType::ELEMENT_WISE_IF, f}, {{"ConditionTensor", buffer(f.ConditionTensor, c)},
                                                              {"ATensor", buffer(f.ATensor, av)},
                                                              {"BTensor", buffer(f.BTensor, bv)}})
                         .at("OutputTensor");
    std::vector<int16_t> sel_expected;
    for (uint32_t i = 0; i < 5; ++i)
        for (uint32_t j = 0; j < 5000; ++j) sel_expected.push_back(c[j] != 0 ? av[i + 5 * j] : bv[i * 5000 + j]);
    check_bits(as_values<int16_t>(sel), sel_expected);
}

TEST_CASE("BIT_AND, OR, XOR, NOT: the pages' example and the bits of every width") {
    using BAND = DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC;
    using BOR = DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC;
    using BXOR = DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC;
    using BNOT = DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC;
    // BIT_NOT's page: UINT8 [[0, 128], [42, 255]] -> [[255, 127], [213, 0]].
    check_bits(unary<BNOT, uint8_t>(std::vector<uint8_t>{0, 128, 42, 255}), std::vector<uint8_t>{255, 127, 213, 0});
    // 0b1100 op 0b1010: and 0b1000, or 0b1110, xor 0b0110.
    check_bits(binary<BAND, uint32_t>(std::vector<uint32_t>{12, 0xffffffff}, std::vector<uint32_t>{10, 0x80000001}),
               std::vector<uint32_t>{8, 0x80000001});
    check_bits(binary<BOR, uint16_t>(std::vector<uint16_t>{12, 0x8000}, std::vector<uint16_t>{10, 0x0001}),
               std::vector<uint16_t>{14, 0x8001});
    check_bits(binary<BXOR, uint64_t>(std::vector<uint64_t>{12, UINT64_MAX}, std::vector<uint64_t>{10, 1}),
               std::vector<uint64_t>{6, UINT64_MAX - 1});
    // Signed: -1 & 5 = 5; ~INT8_MIN (0x80) = 0x7f = 127.
    check_bits(binary<BAND, int8_t>(std::vector<int8_t>{-1}, std::vector<int8_t>{5}), std::vector<int8_t>{5});
    check_bits(unary<BNOT, int8_t>(std::vector<int8_t>{-128}), std::vector<int8_t>{127});
    // Floats by their bits (BitwiseFloats=RawBits): FLOAT32 0x7f800001 (a signalling NaN) & 0xffffffff
    // keeps 0x7f800001 (not quieted to 0x7fc00001); 0x3f800000 ^ 0x80000000 = 0xbf800000 (-1.0);
    // ~0x0000 (FLOAT16 +0) = 0xffff (a negative NaN); ~0x7bff = 0x8400 (-2^-14, the least normal).
    check_bits(binary<BAND, float>(bits<float, uint32_t>({0x7f800001}), bits<float, uint32_t>({0xffffffff})),
               bits<float, uint32_t>({0x7f800001}));
    check_bits(binary<BXOR, float>(bits<float, uint32_t>({0x3f800000}), bits<float, uint32_t>({0x80000000})),
               bits<float, uint32_t>({0xbf800000}));
    check_bits(unary<BNOT, half>(bits<half, uint16_t>({0x0000, 0x7bff})), bits<half, uint16_t>({0xffff, 0x8400}));
    check_bits(unary<BNOT, double>(bits<double, uint64_t>({0x0000000000000001ull})),
               bits<double, uint64_t>({0xfffffffffffffffeull}));
}

TEST_CASE("BIT_COUNT: the page's example, every width, any output type") {
    using BCOUNT = DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC;
    // The page: UINT32 [[0, 123], [456, 789]] -> [[0, 6], [4, 5]].
    check_bits(unary<BCOUNT, uint32_t>(std::vector<uint32_t>{0, 123, 456, 789}), std::vector<uint32_t>{0, 6, 4, 5});
    // Widths: UINT64_MAX has 64 bits set, INT8 -1 (0xff) 8, INT16 -32768 (0x8000) 1; FLOAT32 -0.0
    // (0x80000000) 1, 1.0 (0x3f800000: 0b0_01111111_000...) 7; FLOAT16 NaN 0x7e00 (0b0_11111_1000000000) 6.
    check_bits(unary<BCOUNT, uint8_t>(std::vector<uint64_t>{UINT64_MAX, 0}), std::vector<uint8_t>{64, 0});
    check_bits(unary<BCOUNT, uint8_t>(std::vector<int8_t>{-1, 1}), std::vector<uint8_t>{8, 1});
    check_bits(unary<BCOUNT, uint8_t>(std::vector<int16_t>{-32768}), std::vector<uint8_t>{1});
    check_bits(unary<BCOUNT, uint32_t>(bits<float, uint32_t>({0x80000000, 0x3f800000})), std::vector<uint32_t>{1, 7});
    check_bits(unary<BCOUNT, uint8_t>(bits<half, uint16_t>({0x7e00})), std::vector<uint8_t>{6});
    // An independent count: std::popcount of each pattern.
    const std::vector<uint32_t> v = {0xdeadbeef, 0x01010101, 0xf0f0f0f0};
    std::vector<uint32_t> expected;
    for (uint32_t x : v) expected.push_back(uint32_t(std::popcount(x)));
    check_bits(unary<BCOUNT, uint32_t>(v), expected);
    // FLOAT16 output: 6 is 0x4600 (1.5 * 2^2), 64 is 0x5400 (2^6).
    check_bits(unary<BCOUNT, half>(std::vector<uint64_t>{0x3f, UINT64_MAX}), bits<half, uint16_t>({0x4600, 0x5400}));
}

TEST_CASE("BIT_SHIFT_LEFT and RIGHT: logical shifts; counts of the width or more give 0") {
    using SHL = DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC;
    using SHR = DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC;
    // UINT8: 1 << 7 = 128; 3 << 7 = 0x180 -> 0x80 (the top bit falls out); 1 << 8 = 0 (ShiftCount);
    // 1 << 255 = 0; 0xff << 0 = 0xff. (Counts taken modulo 8 would give 1 and 0x80 for the last two.)
    check_bits(binary<SHL, uint8_t>(std::vector<uint8_t>{1, 3, 1, 1, 0xff}, std::vector<uint8_t>{7, 7, 8, 255, 0}),
               std::vector<uint8_t>{128, 0x80, 0, 0, 0xff});
    check_bits(binary<SHR, uint8_t>(std::vector<uint8_t>{128, 0xff, 0xff}, std::vector<uint8_t>{7, 8, 4}),
               std::vector<uint8_t>{1, 0, 0x0f});
    // UINT64: 1 << 63 = 2^63; 1 << 64 = 0; UINT64_MAX >> 63 = 1.
    check_bits(binary<SHL, uint64_t>(std::vector<uint64_t>{1, 1}, std::vector<uint64_t>{63, 64}),
               std::vector<uint64_t>{uint64_t(1) << 63, 0});
    check_bits(binary<SHR, uint64_t>(std::vector<uint64_t>{UINT64_MAX, UINT64_MAX}, std::vector<uint64_t>{63, 0}),
               std::vector<uint64_t>{1, UINT64_MAX});
    // UINT32 and UINT16 at the width: 0x80000000 >> 31 = 1, >> 32 = 0; 0xffff << 16 = 0.
    check_bits(binary<SHR, uint32_t>(std::vector<uint32_t>{0x80000000u, 0x80000000u}, std::vector<uint32_t>{31, 32}),
               std::vector<uint32_t>{1, 0});
    check_bits(binary<SHL, uint16_t>(std::vector<uint16_t>{0xffff, 0xffff}, std::vector<uint16_t>{15, 16}),
               std::vector<uint16_t>{0x8000, 0});
    // INT8 (SignedShift=LogicalOnBits): -128 (0x80) >> 1 = 0x40 = 64 (an arithmetic shift would give
    // -64); -1 (0xff) >> 7 = 1; a count of -1 is 0xff = 255 >= 8: 0. -1 << 1 = 0xfe = -2.
    check_bits(binary<SHR, int8_t>(std::vector<int8_t>{-128, -1, 5}, std::vector<int8_t>{1, 7, -1}),
               std::vector<int8_t>{64, 1, 0});
    check_bits(binary<SHL, int8_t>(std::vector<int8_t>{-1}, std::vector<int8_t>{1}), std::vector<int8_t>{-2});
    // INT32: INT32_MIN >> 31 = 1 (logical).
    check_bits(binary<SHR, int32_t>(std::vector<int32_t>{INT32_MIN}, std::vector<int32_t>{31}),
               std::vector<int32_t>{1});
    // FLOAT32 by bits: 1.0 (0x3f800000) >> count 0x00000001 (2^-149 as a float, 1 as bits) = 0x1fc00000.
    check_bits(binary<SHR, float>(bits<float, uint32_t>({0x3f800000}), bits<float, uint32_t>({0x00000001})),
               bits<float, uint32_t>({0x1fc00000}));
}

TEST_CASE("element-wise logic validation: the pages' constraints, each with its rule") {
    // Comparisons: A and B one DataType (the output may differ); A, B and Output one Sizes.
    Operator op = binary_op<EQ>(DataType::FLOAT32, DataType::UINT8, {2, 3});
    CHECK_FALSE(validate(op).has_errors());
    get<EQ>(op.Desc).BTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "logical-equals.same-data-type", "/desc/BTensor/DataType"));
    op = binary_op<LE>(DataType::FLOAT32, DataType::UINT8, {2, 3});
    get<LE>(op.Desc).OutputTensor.Sizes = {3, 2};
    CHECK(has_error(op, "logical-less-than-or-equal.same-sizes", "/desc/OutputTensor/Sizes"));
    // The logical and bitwise binaries: all three one DataType.
    Operator a = binary_op<DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC>(DataType::UINT8, DataType::UINT32, {2});
    CHECK(has_error(a, "logical-or.same-data-type", "/desc/OutputTensor/DataType"));
    Operator s = binary_op<DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC>(DataType::UINT8, DataType::UINT8, {2});
    get<DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC>(s.Desc).BTensor.Sizes = {3};
    CHECK(has_error(s, "bit-shift-right.same-sizes", "/desc/BTensor/Sizes"));
    // Unary: NOT keeps the DataType; IS_NAN and BIT_COUNT may change it, not the Sizes.
    Operator n = unary_op<DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC>(DataType::UINT8, DataType::UINT32, {2});
    CHECK(has_error(n, "logical-not.same-data-type", "/desc/OutputTensor/DataType"));
    Operator c = unary_op<DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC>(DataType::UINT64, DataType::UINT8, {2});
    CHECK_FALSE(validate(c).has_errors());
    get<DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC>(c.Desc).OutputTensor.Sizes = {1, 2};
    CHECK(has_error(c, "bit-count.same-sizes", "/desc/OutputTensor/Sizes"));
}

TEST_CASE("element-wise logic: feature levels from the pages' tables") {
    // LOGICAL_EQUALS: FLOAT32 into UINT32 at 4-D from 1.0; INT64 from 4.1; FLOAT64 never.
    Operator op = binary_op<EQ>(DataType::FLOAT32, DataType::UINT32, {1, 1, 2, 2});
    CHECK(lowest_supporting_feature_level(op, nullptr) == 0x1000u);
    op = binary_op<EQ>(DataType::INT64, DataType::UINT8, {2});
    CHECK(lowest_supporting_feature_level(op, nullptr) == 0x4100u);
    op = binary_op<EQ>(DataType::FLOAT64, DataType::UINT8, {2});
    CHECK_FALSE(lowest_supporting_feature_level(op, nullptr).has_value());
    // BIT_SHIFT_LEFT UINT64: 4.1; IF with FLOAT64 values: 5.0.
    op = binary_op<DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC>(DataType::UINT64, DataType::UINT64, {2});
    CHECK(lowest_supporting_feature_level(op, nullptr) == 0x4100u);
    DML_ELEMENT_WISE_IF_OPERATOR_DESC d;
    d.ConditionTensor = desc(DataType::UINT8, {2});
    d.ATensor = d.BTensor = d.OutputTensor = desc(DataType::FLOAT64, {2});
    CHECK(lowest_supporting_feature_level({OT::ELEMENT_WISE_IF, d}, nullptr) == 0x5000u);
}

TEST_CASE("BIT_SHIFT alternative readings: ShiftCount=ModuloWidth, SignedShift=Arithmetic") {
    using SHL = DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC;
    using SHR = DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC;
    auto shifted = [](auto tag, DataType t, auto a, auto b, std::map<std::string, std::string> policies) {
        using D = decltype(tag);
        using T = typename decltype(a)::value_type;
        Case c;
        c.op = binary_op<D>(t, t, {uint32_t(a.size())});
        const D& d = get<D>(c.op.Desc);
        c.inputs["ATensor"] = buffer(d.ATensor, a);
        c.inputs["BTensor"] = buffer(d.BTensor, b);
        c.policies = std::move(policies);
        return as_values<T>(run_case(c).values.at("OutputTensor"));
    };
    // UINT8 counts modulo 8: 1 << 8 -> 1 << 0 = 1; 3 << 255 -> 3 << 7 = 0x180 -> 0x80; 1 << 9 -> 1 << 1 = 2.
    check_bits(shifted(SHL{}, DataType::UINT8, std::vector<uint8_t>{1, 3, 1}, std::vector<uint8_t>{8, 255, 9},
                       {{"ShiftCount", "ModuloWidth"}}),
               std::vector<uint8_t>{1, 0x80, 2});
    // UINT32: 0x80000000 >> 32 -> >> 0 = 0x80000000; >> 33 -> >> 1 = 0x40000000.
    check_bits(shifted(SHR{}, DataType::UINT32, std::vector<uint32_t>{0x80000000u, 0x80000000u},
                       std::vector<uint32_t>{32, 33}, {{"ShiftCount", "ModuloWidth"}}),
               std::vector<uint32_t>{0x80000000u, 0x40000000u});
    // INT8 arithmetic: -128 (0x80) >> 1 = 0xc0 = -64; -1 >> 7 = -1; 64 >> 2 = 16; -128 >> 8 (count >= width) = -1;
    // a count of -1 (0xff = 255) also gives -1 for a negative value, 0 for 5.
    check_bits(shifted(SHR{}, DataType::INT8, std::vector<int8_t>{-128, -1, 64, -128, -3, 5},
                       std::vector<int8_t>{1, 7, 2, 8, -1, -1}, {{"SignedShift", "Arithmetic"}}),
               std::vector<int8_t>{-64, -1, 16, -1, -1, 0});
    // Both: INT16 -32768 >> 17 -> >> 1 = -16384 (0xc000).
    check_bits(shifted(SHR{}, DataType::INT16, std::vector<int16_t>{-32768}, std::vector<int16_t>{17},
                       {{"SignedShift", "Arithmetic"}, {"ShiftCount", "ModuloWidth"}}),
               std::vector<int16_t>{-16384});
    // Arithmetic leaves unsigned types logical: UINT8 0x80 >> 1 = 0x40.
    check_bits(shifted(SHR{}, DataType::UINT8, std::vector<uint8_t>{0x80}, std::vector<uint8_t>{1},
                       {{"SignedShift", "Arithmetic"}}),
               std::vector<uint8_t>{0x40});
}

}  // namespace dmlref_test_element_wise_logic
