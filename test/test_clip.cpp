// The clip family. Expected values are the pages' formulas worked by hand for each probe:
//   CLIP        min(Max, max(Min, x))        CLIP1   max(Min, min(x, Max))
//   CLIP_GRAD*  (x <= Min || x >= Max) ? 0 : dY
// with D3D's min/max (a NaN operand is ignored) and the decisions of docs/golden.md, Decisions.
#include "support.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_clip {

using namespace dmlref;
using namespace dmlref::test;

namespace {

template <class T> Operator clip_grad1(uint32_t n, T Min, T Max) {
    const DataType t = data_type_of<T>();
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(t, {n});
    d.MinMaxDataType = t;
    d.Min = DML_SCALAR_UNION::of(Min);
    d.Max = DML_SCALAR_UNION::of(Max);
    return {OperatorType::ELEMENT_WISE_CLIP_GRAD1, d};
}

Operator clip_grad(DataType t, uint32_t n, float Min, float Max) {
    DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(t, {n});
    d.Min = Min;
    d.Max = Max;
    return {OperatorType::ELEMENT_WISE_CLIP_GRAD, d};
}

template <class T> std::vector<T> run_grad(const Operator& op, const std::vector<T>& x, const std::vector<T>& dy) {
    const auto d = desc(data_type_of<T>(), {uint32_t(x.size())});
    return as_values<T>(
        run(op, {{"InputTensor", buffer(d, x)}, {"InputGradientTensor", buffer(d, dy)}})["OutputGradientTensor"]);
}

template <class T>
std::vector<T> run_forward(const Operator& op, const std::vector<T>& x, const char* out = "OutputTensor") {
    const auto d = desc(data_type_of<T>(), {uint32_t(x.size())});
    return as_values<T>(run(op, {{"InputTensor", buffer(d, x)}})[out]);
}

}  // namespace

TEST_CASE_TEMPLATE("ClipGrad1: x == Min and x == Max get 0, strictly inside passes dY", T, DMLREF_ALL_TYPES) {
    // Min = 2, Max = 5. x:  1    2    3    4    5    6
    //                  ->   0    0   dY   dY    0    0
    const std::vector<T> x = {value_of<T>(1), value_of<T>(2), value_of<T>(3),
                              value_of<T>(4), value_of<T>(5), value_of<T>(6)};
    const std::vector<T> dy = {value_of<T>(11), value_of<T>(12), value_of<T>(13),
                               value_of<T>(14), value_of<T>(15), value_of<T>(16)};
    const std::vector<T> expected = {T(0), T(0), value_of<T>(13), value_of<T>(14), T(0), T(0)};
    check_bits(run_grad(clip_grad1<T>(6, value_of<T>(2), value_of<T>(5)), x, dy), expected);
    check_bits(run_grad(clip_grad(data_type_of<T>(), 6, 2.0f, 5.0f), x, dy), expected);
}

TEST_CASE_TEMPLATE("ClipGrad1: Min > Max gives all zeros", T, DMLREF_ALL_TYPES) {
    // Min = 5 > Max = 2: every x is <= 5 or >= 2.
    const std::vector<T> x = {value_of<T>(0), value_of<T>(3), value_of<T>(7)};
    const std::vector<T> dy = {value_of<T>(1), value_of<T>(1), value_of<T>(1)};
    check_bits(run_grad(clip_grad1<T>(3, value_of<T>(5), value_of<T>(2)), x, dy), std::vector<T>(3, T(0)));
}

TEST_CASE_TEMPLATE("ClipGrad1: integer extremes compare exactly", T, int64_t, uint64_t, int32_t, uint8_t) {
    using L = std::numeric_limits<T>;
    // Min = min()+1, Max = max()-1: x = min() and min()+1 -> 0; max()-1 and max() -> 0; min()+2 -> dY.
    const std::vector<T> x = {L::min(), T(L::min() + 1), T(L::min() + 2), T(L::max() - 1), L::max()};
    const std::vector<T> dy = {T(7), T(7), T(7), T(7), T(7)};
    check_bits(run_grad(clip_grad1<T>(5, T(L::min() + 1), T(L::max() - 1)), x, dy), std::vector<T>{0, 0, 7, 0, 0});
}

TEST_CASE_TEMPLATE("ClipGrad1 floats: NaN x passes dY bit for bit; subnormal bounds; -0 == +0", T, float, half,
                   double) {
    const T nan = canonical_nan<T>();
    const T payload = from_bits<T>(bits_t<T>(to_bits(nan) | 3));
    const T sub = from_bits<T>(bits_t<T>(1));   // smallest subnormal
    const T sub2 = from_bits<T>(bits_t<T>(2));  // twice that
    const T nz = value_of<T>(-0.0);
    // Min = +0, Max = sub2. x: NaN -> dY (neither comparison holds); -0 <= +0 -> 0;
    // sub: 0 < sub < sub2 -> dY (a flushing backend would give 0 here); sub2 >= Max -> 0.
    const std::vector<T> x = {nan, nz, sub, sub2};
    const std::vector<T> dy = {payload, value_of<T>(1), nz, value_of<T>(1)};
    const std::vector<T> expected = {payload, T(0), nz, T(0)};
    check_bits(run_grad(clip_grad1<T>(4, T(0), sub2), x, dy), expected);
}

TEST_CASE("ClipGrad1 FLOAT16 with Min and Max given as UInt16 bits") {
    // Min = 0x4000 (2.0), Max = 0x4400 (4.0), the DxDispatch encoding (docs/golden.md, Float16ScalarUnion;
    // docs/dxdispatch.md).
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(DataType::FLOAT16, {5});
    d.MinMaxDataType = DataType::FLOAT16;
    d.Min = DML_SCALAR_UNION::of(uint16_t(0x4000));
    d.Max = DML_SCALAR_UNION::of(uint16_t(0x4400));
    const std::vector<half> x = {half(1), half(2), half(3), half(4), half(5)};
    const std::vector<half> dy = {half(9), half(9), half(9), half(9), half(9)};
    check_bits(run_grad(Operator{OperatorType::ELEMENT_WISE_CLIP_GRAD1, d}, x, dy),
               std::vector<half>{half(0), half(0), half(9), half(0), half(0)});
}

TEST_CASE("ClipGrad (float bounds) against FLOAT16 data compares exact values, never a rounded bound") {
    // Min = 0.10001f lies between halves 0x2e66 (0.0999755859375) and 0x2e67 (0.10003662109375),
    // nearer 0x2e67. Exactly: 0x2e67 > Min, so dY passes. Had the bound been rounded to FLOAT16
    // first it would equal 0x2e67 and the gradient would be 0.
    const std::vector<half> x = {from_bits<half>(0x2e66), from_bits<half>(0x2e67)};
    const std::vector<half> dy = {half(1), half(1)};
    check_bits(run_grad(clip_grad(DataType::FLOAT16, 2, 0.10001f, 10.0f), x, dy), std::vector<half>{half(0), half(1)});
}

TEST_CASE("ClipGrad (float bounds) against INT64 data: no rounding through double") {
    // Max = 2^53 (a float). x = 2^53 + 1 >= Max -> 0; x = 2^53 - 1 < Max -> dY.
    // Through a double, 2^53 + 1 would become 2^53 (still >=) - so also check Min = -2.5:
    // x = -3 <= -2.5 -> 0, x = -2 > -2.5 -> dY.
    const std::vector<int64_t> x = {(int64_t(1) << 53) + 1, (int64_t(1) << 53) - 1, -3, -2};
    const std::vector<int64_t> dy = {5, 5, 5, 5};
    check_bits(run_grad(clip_grad(DataType::INT64, 4, -2.5f, 9007199254740992.0f), x, dy),
               std::vector<int64_t>{0, 5, 0, 5});
    // INT64 max against the float 2^63: as doubles they would be equal (so >= Max, gradient 0);
    // exactly, 2^63 - 1 < 2^63, so dY passes.
    const std::vector<int64_t> big = {std::numeric_limits<int64_t>::max()};
    check_bits(run_grad(clip_grad(DataType::INT64, 1, 0.0f, 9223372036854775808.0f), big, std::vector<int64_t>{5}),
               std::vector<int64_t>{5});
}

TEST_CASE("Clip1 and Clip forward: NaN, Min > Max, -0, ScaleBias") {
    auto clip1 = [](float Min, float Max, std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
        DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC d;
        d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {5});
        d.MinMaxDataType = DataType::FLOAT32;
        d.Min = DML_SCALAR_UNION::of(Min);
        d.Max = DML_SCALAR_UNION::of(Max);
        d.ScaleBias = sb;
        return Operator{OperatorType::ELEMENT_WISE_CLIP1, d};
    };
    auto clip0 = [](float Min, float Max) {
        DML_ELEMENT_WISE_CLIP_OPERATOR_DESC d;
        d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {5});
        d.Min = Min;
        d.Max = Max;
        return Operator{OperatorType::ELEMENT_WISE_CLIP, d};
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = {nan, -0.0f, 0.5f, 7.0f, -7.0f};
    // CLIP1 Min=0, Max=1: max(0, min(NaN, 1)) = max(0, 1) = 1; max(+0, min(-0, 1)) = max(+0, -0) = +0;
    // 0.5 inside; 7 -> 1; -7 -> 0.
    check_bits(run_forward(clip1(0, 1), x), std::vector<float>{1, 0.0f, 0.5f, 1, 0});
    // CLIP Min=0, Max=1: min(1, max(0, NaN)) = min(1, 0) = 0; min(1, max(+0, -0)) = +0.
    check_bits(run_forward(clip0(0, 1), x), std::vector<float>{0, 0.0f, 0.5f, 1, 0});
    // Min = 3 > Max = 1: CLIP1 gives Min everywhere (max(3, anything <= 1)); CLIP gives Max.
    check_bits(run_forward(clip1(3, 1), x), std::vector<float>(5, 3.0f));
    check_bits(run_forward(clip0(3, 1), x), std::vector<float>(5, 1.0f));
    // ScaleBias 2x + 0.25, Min -10, Max 10: NaN stays NaN -> max(-10, min(NaN, 10)) = 10;
    // -0*2+0.25 = 0.25; 0.5 -> 1.25; 7 -> 14.25 -> 10; -7 -> -13.75 -> -10.
    check_bits(run_forward(clip1(-10, 10, DML_SCALE_BIAS{2.0f, 0.25f}), x),
               std::vector<float>{10, 0.25f, 1.25f, 10, -10});
}

TEST_CASE("Clip forward with a FLOAT bound and integer data stores the bound rounded to nearest-even") {
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(DataType::INT32, {4});
    d.Min = 2.5f;  // x = 1 < 2.5: the result is the bound, 2.5, stored as 2 (ties to even)
    d.Max = 7.5f;  // x = 9 > 7.5: stored as 8
    const std::vector<int32_t> x = {1, 3, 9, 7};
    check_bits(run_forward(Operator{OperatorType::ELEMENT_WISE_CLIP, d}, x), std::vector<int32_t>{2, 3, 8, 7});
}

TEST_CASE("Clip1 FLOAT16: DxDispatch's dml_scalar_union_fp16 test, [1,2,3,4,5] with Min 2, Max 4 -> [2,2,3,4,4]") {
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(DataType::FLOAT16, {5});
    d.MinMaxDataType = DataType::FLOAT16;
    d.Min = DML_SCALAR_UNION::of(uint16_t(0x4000));
    d.Max = DML_SCALAR_UNION::of(uint16_t(0x4400));
    const std::vector<half> x = {half(1), half(2), half(3), half(4), half(5)};
    check_bits(run_forward(Operator{OperatorType::ELEMENT_WISE_CLIP1, d}, x),
               std::vector<half>{half(2), half(2), half(3), half(4), half(4)});
}

TEST_CASE("ClipGrad1 in place: OutputGradientTensor bound to InputTensor's buffer") {
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(DataType::INT16, {4});
    d.MinMaxDataType = DataType::INT16;
    d.Min = DML_SCALAR_UNION::of(int16_t(0));
    d.Max = DML_SCALAR_UNION::of(int16_t(10));
    auto xbuf = buffer<int16_t>(d.InputTensor, {-1, 5, 10, 3});
    auto dy = buffer<int16_t>(d.InputGradientTensor, {100, 200, 300, 400});
    Bindings b;
    b.bind("InputTensor", xbuf);
    b.bind("InputGradientTensor", dy);
    b.bind("OutputGradientTensor", xbuf);
    evaluate({OperatorType::ELEMENT_WISE_CLIP_GRAD1, d}, b);
    check_bits(as_values<int16_t>(xbuf), std::vector<int16_t>{0, 200, 0, 400});
}

}  // namespace dmlref_test_clip
