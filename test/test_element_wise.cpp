// ELEMENT_WISE_ADD. Expected values are derived by hand from the page's formula f(a, b) = a + b,
// rounded once to nearest-even (written out as bit patterns below), or wrapped to the integer
// width; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/element_wise.hpp"

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
    return as_values<T>(run(op, {{"ATensor", buffer(d.ATensor, a)}, {"BTensor", buffer(d.BTensor, b)}}).at("OutputTensor"));
}

}  // namespace

TEST_CASE("ELEMENT_WISE_ADD FLOAT32: the exact sum rounded once, ties to even") {
    // 1 + 2^-24: halfway between 1 and 1 + 2^-23, ties to the even 1.0 (0x3f800000).
    // 1 + 3 * 2^-25 = 1 + 0.75 ULP: rounds up to 1 + 2^-23 (0x3f800001).
    // (1 + 2^-23) + 2^-24: halfway between 1 + 2^-23 (odd) and 1 + 2^-22: to 0x3f800002.
    // 2^-149 + 2^-149 = 2^-148 (subnormals are kept: 0x00000002).
    // -0 + -0 = -0; -0 + +0 = +0; 5 + -5 = +0; inf + -inf = NaN (canonical 0x7fc00000); 2^127 + 2^127 = inf.
    const auto a = from_bits_list<float, uint32_t>({0x3f800000, 0x3f800000, 0x3f800001, 0x00000001, 0x80000000, 0x80000000, 0x40a00000,
                                                    0x7f800000, 0x7f000000});
    const auto b = from_bits_list<float, uint32_t>({0x33800000, 0x33c00000, 0x33800000, 0x00000001, 0x80000000, 0x00000000, 0xc0a00000,
                                                    0xff800000, 0x7f000000});
    check_bits(add(DataType::FLOAT32, a, b), from_bits_list<float, uint32_t>({0x3f800000, 0x3f800001, 0x3f800002, 0x00000002, 0x80000000,
                                                                              0x00000000, 0x00000000, 0x7fc00000, 0x7f800000}));
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
    check_bits(add(DataType::FLOAT64, a, b), from_bits_list<double, uint64_t>({0x3ff0000000000000ull, 0x3ff0000000000001ull}));
}

TEST_CASE("ELEMENT_WISE_ADD integers wrap to the width") {
    check_bits(add<int8_t>(DataType::INT8, {127, -128, 100, -1}, {1, -1, 27, 1}), std::vector<int8_t>{-128, 127, 127, 0});
    check_bits(add<uint8_t>(DataType::UINT8, {255, 200, 0}, {1, 100, 0}), std::vector<uint8_t>{0, 44, 0});
    check_bits(add<uint16_t>(DataType::UINT16, {65535}, {2}), std::vector<uint16_t>{1});
    check_bits(add<int64_t>(DataType::INT64, {INT64_MAX, INT64_MIN}, {1, -1}), std::vector<int64_t>{INT64_MIN, INT64_MAX});
    check_bits(add<uint64_t>(DataType::UINT64, {UINT64_MAX}, {UINT64_MAX}), std::vector<uint64_t>{UINT64_MAX - 1});
}

TEST_CASE("ELEMENT_WISE_ADD broadcasts by zero strides and runs in place") {
    // A = [[1, 2, 3], [4, 5, 6]], B = [10, 20, 30] broadcast along dimension 0 (Strides 0, 1).
    const Operator op = add_op(DataType::INT32, {2, 3}, {0, 1});
    const auto& d = get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(op.Desc);
    const auto out = run(op, {{"ATensor", buffer<int32_t>(d.ATensor, {1, 2, 3, 4, 5, 6})}, {"BTensor", buffer<int32_t>(d.BTensor, {10, 20, 30})}});
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
