// The activation family (reference/activation.cpp): IDENTITY, LINEAR, LEAKY_RELU,
// PARAMETERIZED_RELU, THRESHOLDED_RELU, SHRINK, HARD_SIGMOID, HARD_SWISH, SOFTSIGN. Expected
// values come from the pages' formulas worked by hand (bit patterns and their derivation in the
// comments; the roundings were checked with Python's fractions module), or from integer
// arithmetic written here; none comes from dmlref's evaluation. Judging: correct float32 and
// FLOAT16 evaluations (with and without FMA) pass under each element's bound, planted errors fail.
#include "support.hpp"

#include "dmlref/descs/activation.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/tolerance.hpp"

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_activation {

using namespace dmlref;
using namespace dmlref::test;

namespace {

template <class D> Operator unary_op(DataType t, std::vector<uint32_t> sizes, D d = {}) {
    d.InputTensor = d.OutputTensor = desc(t, sizes);
    return {D::kType, d};
}

template <class T, class D> std::vector<T> act(D d, const std::vector<T>& x) {
    const DataType t = data_type_of<T>();
    const Operator op = unary_op<D>(t, {uint32_t(x.size())}, d);
    return as_values<T>(run(op, {{"InputTensor", buffer(desc(t, {uint32_t(x.size())}), x)}}).at("OutputTensor"));
}

template <class T, class B> std::vector<T> bits_list(std::initializer_list<B> bits) {
    std::vector<T> v;
    for (B b : bits) v.push_back(from_bits<T>(b));
    return v;
}

DML_ACTIVATION_LINEAR_OPERATOR_DESC linear(float a, float b) {
    DML_ACTIVATION_LINEAR_OPERATOR_DESC d;
    d.Alpha = a;
    d.Beta = b;
    return d;
}
DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky(float a) {
    DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC d;
    d.Alpha = a;
    return d;
}
DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC thresholded(float a) {
    DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC d;
    d.Alpha = a;
    return d;
}
DML_ACTIVATION_SHRINK_OPERATOR_DESC shrink(float bias, float threshold) {
    DML_ACTIVATION_SHRINK_OPERATOR_DESC d;
    d.Bias = bias;
    d.Threshold = threshold;
    return d;
}
DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC hard_sigmoid(float a, float b) {
    DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC d;
    d.Alpha = a;
    d.Beta = b;
    return d;
}
DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC hard_swish(float a, float b) {
    DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC d;
    d.Alpha = a;
    d.Beta = b;
    return d;
}

const float kTenth = from_bits<float>(uint32_t(0x3dcccccd));  // 0.1f = 13421773 * 2^-27
const float kFifth = from_bits<float>(uint32_t(0x3e4ccccd));  // 0.2f = 13421773 * 2^-26
const float kSixth = from_bits<float>(uint32_t(0x3e2aaaab));  // 1/6 rounded: 11184811 * 2^-26 = 1/6 + 2^-26/3
const float kInf = std::numeric_limits<float>::infinity();

// A case with its golden, and the census of a backend's values against it.
template <class T> Case golden_case(const Operator& op, const std::vector<T>& x, std::vector<T> slope = {}) {
    Case c;
    c.op = op;
    const DataType t = data_type_of<T>();
    c.inputs["InputTensor"] = buffer(desc(t, {uint32_t(x.size())}), x);
    if (!slope.empty()) c.inputs["SlopeTensor"] = buffer(desc(t, {uint32_t(x.size())}), slope);
    return with_golden(c, "OutputTensor");
}
template <class T> OutputCensus judged(const Case& c, const std::vector<T>& actual) {
    std::vector<std::byte> b(actual.size() * sizeof(T));
    std::memcpy(b.data(), static_cast<const void*>(actual.data()), b.size());
    return census(c, "OutputTensor", b, {});
}

}  // namespace

// ---- IDENTITY ------------------------------------------------------------------------------

TEST_CASE_TEMPLATE("ACTIVATION_IDENTITY copies every element bit for bit, over ranks 1 to 8", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    std::mt19937 rng(3);
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank);
        for (auto& s : sizes) s = 1 + rng() % 3;
        const auto d = desc(t, sizes);
        std::vector<T> x(element_count(d));
        for (auto& v : x) v = from_bits<T>(bits_t<T>(rng()));  // any bit pattern: NaN payloads, -0, subnormals
        INFO("rank " << rank);
        check_bits(
            as_values<T>(run(unary_op<DML_ACTIVATION_IDENTITY_OPERATOR_DESC>(t, sizes), {{"InputTensor", buffer(d, x)}})
                             .at("OutputTensor")),
            x);
    }
}

// ---- LINEAR --------------------------------------------------------------------------------

TEST_CASE("ACTIVATION_LINEAR FLOAT32: Alpha x + Beta exact, rounded once (not through float64 or float32)") {
    // Alpha = 1 + 2^-23 (0x3f800001), x = 1 - 2^-24 (0x3f7fffff), Beta = 2^-47 + 2^-70 (0x28000001):
    // Alpha x = (1 + 2^-23)(1 - 2^-24) = 1 + 2^-23 - 2^-24 - 2^-47 = 1 + 2^-24 - 2^-47; + Beta
    // = 1 + 2^-24 + 2^-70, just above the tie between 1 and 1 + 2^-23: rounds up, 0x3f800001. In
    // float64 the sum rounds to 1 + 2^-24 (the tie) and then to the even 1.0; in float32 Alpha x
    // is already 1.0. So the golden is neither.
    // 0.1f * 3 = 40265319 * 2^-27: 26 bits, /4 = 10066329.75 -> 10066330 * 2^-25 = 0x3e99999a.
    // Alpha = 0.1f, x = -0: the exact value 0 is +0 (ZeroResult). NaN -> canonical 0x7fc00000.
    // +inf * 0.1 = +inf; Alpha = 0: 0 * inf is NaN (IEEE's rule, kept for LINEAR).
    check_bits(act(linear(from_bits<float>(uint32_t(0x3f800001)), from_bits<float>(uint32_t(0x28000001))),
                   bits_list<float, uint32_t>({0x3f7fffff})),
               bits_list<float, uint32_t>({0x3f800001}));
    check_bits(act(linear(kTenth, 0.0f), bits_list<float, uint32_t>({0x40400000, 0x80000000, 0x7fc00123, 0x7f800000})),
               bits_list<float, uint32_t>({0x3e99999a, 0x00000000, 0x7fc00000, 0x7f800000}));
    check_bits(act(linear(0.0f, 2.0f), bits_list<float, uint32_t>({0x7f800000, 0x3f800000})),
               bits_list<float, uint32_t>({0x7fc00000, 0x40000000}));
}

TEST_CASE("ACTIVATION_LINEAR FLOAT16: one rounding from the exact value, not through float32") {
    // Alpha = 1 + 2^-11 (0x3f801000), Beta = 2^-30 (0x30800000), x = 1 (0x3c00): the exact value
    // 1 + 2^-11 + 2^-30 lies just above the FLOAT16 tie between 1 and 1 + 2^-10: rounds up to
    // 0x3c01. Through float32 the 2^-30 is lost (below half of 2^-23), the tie goes to the even 0x3c00.
    // x = 2 (0x4000): 2 + 2^-10 + 2^-30, above the tie between 2 and 2 + 2^-9: 0x4001.
    // x = 65504 (0x7bff), Alpha = 2, Beta = 0: 131008 overflows to +inf (0x7c00).
    check_bits(act(linear(from_bits<float>(uint32_t(0x3f801000)), from_bits<float>(uint32_t(0x30800000))),
                   bits_list<half, uint16_t>({0x3c00, 0x4000})),
               bits_list<half, uint16_t>({0x3c01, 0x4001}));
    check_bits(act(linear(2.0f, 0.0f), bits_list<half, uint16_t>({0x7bff})), bits_list<half, uint16_t>({0x7c00}));
}

TEST_CASE_TEMPLATE("ACTIVATION_LINEAR over every type and ranks 1 to 8: 2x - 1, integers saturated", T,
                   DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    std::mt19937 rng(17);
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank);
        for (auto& s : sizes) s = 1 + rng() % 3;
        const auto d = desc(t, sizes);
        std::vector<T> x, expected;
        for (uint64_t i = 0; i < element_count(d); ++i) {
            int64_t v = int64_t(rng() % 9) - (std::is_signed_v<T> || is_floating_v<T> ? 4 : 0);
            if constexpr (std::is_integral_v<T> && sizeof(T) < 8)
                if (i == 0) v = int64_t(std::numeric_limits<T>::max() / 2 + 2);  // 2x - 1 above max: saturates
            x.push_back(value_of<T>(double(v)));
            // By hand: 2v - 1 is an integer, exact in every float type here; integers saturate.
            const int64_t y = 2 * v - 1;
            if constexpr (std::is_integral_v<T>) {
                const int64_t lo = int64_t(std::numeric_limits<T>::min());
                expected.push_back(y < lo ? std::numeric_limits<T>::min()
                                   : (y > 0 && uint64_t(y) > uint64_t(std::numeric_limits<T>::max()))
                                       ? std::numeric_limits<T>::max()
                                       : T(y));
            } else {
                expected.push_back(value_of<T>(double(y)));
            }
        }
        INFO("rank " << rank);
        const Operator op = unary_op(t, sizes, linear(2.0f, -1.0f));
        check_bits(as_values<T>(run(op, {{"InputTensor", buffer(d, x)}}).at("OutputTensor")), expected);
    }
}

TEST_CASE("ACTIVATION_LINEAR broadcast input and in-place execution") {
    // InputTensor [2, 3] with Strides 0, 1: one row [1, -2, 4] read twice; 0.5 x + 1 = [1.5, 0, 3].
    DML_ACTIVATION_LINEAR_OPERATOR_DESC d = linear(0.5f, 1.0f);
    d.InputTensor = desc(DataType::FLOAT32, {2, 3}, {0, 1});
    d.OutputTensor = desc(DataType::FLOAT32, {2, 3});
    const auto out = as_values<float>(
        run({OperatorType::ACTIVATION_LINEAR, d}, {{"InputTensor", buffer<float>(d.InputTensor, {1, -2, 4})}})
            .at("OutputTensor"));
    check_bits(out, std::vector<float>{1.5f, 0.0f, 3.0f, 1.5f, 0.0f, 3.0f});
    // In place: OutputTensor bound to InputTensor's bytes.
    DML_ACTIVATION_LINEAR_OPERATOR_DESC p = linear(-1.0f, 0.25f);
    p.InputTensor = p.OutputTensor = desc(DataType::FLOAT32, {4});
    auto bytes = buffer<float>(p.InputTensor, {1, 2, -3, 0.25f});
    Bindings b;
    b.bind("InputTensor", bytes);
    b.bind("OutputTensor", bytes);
    evaluate(Operator{OperatorType::ACTIVATION_LINEAR, p}, b);
    check_bits(as_values<float>(bytes), std::vector<float>{-0.75f, -1.75f, 3.25f, 0.0f});
}

// ---- LEAKY_RELU and PARAMETERIZED_RELU ------------------------------------------------------

TEST_CASE("ACTIVATION_LEAKY_RELU: x >= 0 selected (bits, -0 kept), Alpha x rounded once below") {
    // x = -3, Alpha = 0.1f: -0x3e99999a = 0xbe99999a (as LINEAR above). -0 >= 0: -0 stays (0x80000000).
    // 5 selected; NaN with a payload -> canonical 0x7fc00000; -inf * 0.1 = -inf; subnormal 2^-149 selected.
    check_bits(act(leaky(kTenth), bits_list<float, uint32_t>(
                                      {0xc0400000, 0x80000000, 0x40a00000, 0xffc00001, 0xff800000, 0x00000001})),
               bits_list<float, uint32_t>({0xbe99999a, 0x80000000, 0x40a00000, 0x7fc00000, 0xff800000, 0x00000001}));
    // Alpha = 0: -inf * 0 is NaN; a finite negative x gives the exact 0, +0.
    check_bits(act(leaky(0.0f), bits_list<float, uint32_t>({0xff800000, 0xc0400000})),
               bits_list<float, uint32_t>({0x7fc00000, 0x00000000}));
    // INT8, Alpha = 0.5: -3 * 0.5 = -1.5 -> -2 (half to even); -5 -> -2.5 -> -2; 7 selected.
    check_bits(act(leaky(0.5f), std::vector<int8_t>{-3, -5, 7}), std::vector<int8_t>{-2, -2, 7});
}

TEST_CASE("ACTIVATION_PARAMETERIZED_RELU: the slope tensor broadcast, products rounded once, integers saturated") {
    // SlopeTensor [2, 3] with Strides 1, 0... here 0, 1: one row [0.5, -2, 0.1f] for both rows of x.
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {2, 3});
    d.SlopeTensor = desc(DataType::FLOAT32, {2, 3}, {0, 1});
    // x row 0: [-4, -1, -3] -> [-2, 2, 0xbe99999a]; row 1: [-0, 8, -inf] -> [-0 (selected), 8, -inf * 0.1 = -inf].
    const auto x = bits_list<float, uint32_t>({0xc0800000, 0xbf800000, 0xc0400000, 0x80000000, 0x41000000, 0xff800000});
    const auto s = std::vector<float>{0.5f, -2.0f, kTenth};
    const auto out = as_values<float>(
        run({OperatorType::ACTIVATION_PARAMETERIZED_RELU, d},
            {{"InputTensor", buffer(d.InputTensor, x)}, {"SlopeTensor", buffer(d.SlopeTensor, s)}})
            .at("OutputTensor"));
    check_bits(out,
               bits_list<float, uint32_t>({0xc0000000, 0x40000000, 0xbe99999a, 0x80000000, 0x41000000, 0xff800000}));
    // INT8: -100 * 2 = -200 saturates to -128; -3 * -5 = 15; 127 selected; -128 * -1 = 128 saturates to 127.
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC i;
    i.InputTensor = i.OutputTensor = i.SlopeTensor = desc(DataType::INT8, {4});
    const auto iout = as_values<int8_t>(run({OperatorType::ACTIVATION_PARAMETERIZED_RELU, i},
                                            {{"InputTensor", buffer<int8_t>(i.InputTensor, {-100, -3, 127, -128})},
                                             {"SlopeTensor", buffer<int8_t>(i.SlopeTensor, {2, -5, 9, -1})}})
                                            .at("OutputTensor"));
    check_bits(iout, std::vector<int8_t>{-128, 15, 127, 127});
    // FLOAT16: -3 * 0.1 (0x2e66 = 1638.4 -> 1638 * 2^-14 = 0.0999755859375): -0.2999267578125 = -4914 * 2^-14,
    // 13 bits: 4914 / 4 = 1228.5 -> ties to even 1228 * 2^-12 = 0.2998046875 -> 0xb4cc.
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC h;
    h.InputTensor = h.OutputTensor = h.SlopeTensor = desc(DataType::FLOAT16, {1});
    const auto hout = as_values<half>(run({OperatorType::ACTIVATION_PARAMETERIZED_RELU, h},
                                          {{"InputTensor", buffer(h.InputTensor, bits_list<half, uint16_t>({0xc200}))},
                                           {"SlopeTensor", buffer(h.SlopeTensor, bits_list<half, uint16_t>({0x2e66}))}})
                                          .at("OutputTensor"));
    check_bits(hout, bits_list<half, uint16_t>({0xb4cc}));
}

// ---- THRESHOLDED_RELU and SHRINK --------------------------------------------------------------

TEST_CASE("ACTIVATION_THRESHOLDED_RELU compares exact values; selected x keeps its bits") {
    // FLOAT16 x against Alpha = 1.0001f (no FLOAT16): 1.0 (0x3c00) > 1.0001 fails -> +0; the next
    // half 1 + 2^-10 (0x3c01) passes. Rounding Alpha to FLOAT16 first (1.0) would give the same
    // here; Alpha = 0.9999f would round to 1.0 and flip x = 1.0: with the exact compare 1 > 0.9999 holds.
    check_bits(act(thresholded(1.0001f), bits_list<half, uint16_t>({0x3c00, 0x3c01, 0x7e01, 0xfc00})),
               bits_list<half, uint16_t>({0x0000, 0x3c01, 0x7e00, 0x0000}));
    check_bits(act(thresholded(0.9999f), bits_list<half, uint16_t>({0x3c00})), bits_list<half, uint16_t>({0x3c00}));
    // Alpha = -1: -0 > -1 holds: -0 selected (0x80000000); -2 -> +0; +inf selected.
    check_bits(act(thresholded(-1.0f), bits_list<float, uint32_t>({0x80000000, 0xc0000000, 0x7f800000})),
               bits_list<float, uint32_t>({0x80000000, 0x00000000, 0x7f800000}));
    // INT32, Alpha = 2.5: 3 passes, 2 does not (never rounded to an integer threshold).
    check_bits(act(thresholded(2.5f), std::vector<int32_t>{3, 2, -7}), std::vector<int32_t>{3, 0, 0});
}

TEST_CASE("ACTIVATION_SHRINK: x - Bias above Threshold, x + Bias below -Threshold, +0 between; page order") {
    // Bias 0.5, Threshold 1: 2 -> 1.5, -2 -> -1.5, 0.5 -> +0, -1 (not < -1) -> +0, 1.5 - 0.5 = 1.
    check_bits(act(shrink(0.5f, 1.0f), std::vector<float>{2, -2, 0.5f, -1, 1.5f}),
               std::vector<float>{1.5f, -1.5f, 0, 0, 1});
    // Threshold -1, Bias 3: x = 0 satisfies both x > -1 and x < 1: the first line, 0 - 3 = -3.
    check_bits(act(shrink(3.0f, -1.0f), std::vector<float>{0}), std::vector<float>{-3});
    // INT8, Bias 0.5, Threshold 0: 3 - 0.5 = 2.5 -> 2, 4 - 0.5 = 3.5 -> 4 (half to even); -3 + 0.5 = -2.5 -> -2.
    check_bits(act(shrink(0.5f, 0.0f), std::vector<int8_t>{3, 4, -3, 0}), std::vector<int8_t>{2, 4, -2, 0});
    // INT8, Bias -10, Threshold 0: 120 + 10 = 130 saturates to 127. UINT8: 5 - 10 = -5 saturates to 0.
    check_bits(act(shrink(-10.0f, 0.0f), std::vector<int8_t>{120}), std::vector<int8_t>{127});
    check_bits(act(shrink(10.0f, 0.0f), std::vector<uint8_t>{5, 200}), std::vector<uint8_t>{0, 190});
    // NaN -> canonical NaN (not the "otherwise" +0); +-inf stay infinite.
    check_bits(act(shrink(0.5f, 1.0f), bits_list<float, uint32_t>({0x7fa00000, 0xff800000})),
               bits_list<float, uint32_t>({0x7fc00000, 0xff800000}));
}

// ---- HARD_SIGMOID, HARD_SWISH, SOFTSIGN --------------------------------------------------------

TEST_CASE("ACTIVATION_HARD_SIGMOID: the clamp of the exact Alpha x + Beta, rounded once") {
    // Alpha = 0.2f = 13421773 * 2^-26, Beta 0.5, x = 1: 0.2f + 0.5 = 46976205 * 2^-26 (26 bits) =
    // 0.70000000298...: between 0x3f333333 (0.69999998808) and 0x3f333334 (0.70000004768), nearer the first.
    // x = 10: 2.5 -> 1; x = -10: -1.5 -> +0; +inf -> 1, -inf -> +0 (the clamp's limits); NaN -> canonical.
    check_bits(act(hard_sigmoid(kFifth, 0.5f), bits_list<float, uint32_t>({0x3f800000, 0x41200000, 0xc1200000,
                                                                           0x7f800000, 0xff800000, 0x7fc00001})),
               bits_list<float, uint32_t>({0x3f333333, 0x3f800000, 0x00000000, 0x3f800000, 0x00000000, 0x7fc00000}));
    // Alpha = 0: the constant clamp(Beta), also at infinity: clamp(0.25) = 0.25.
    check_bits(act(hard_sigmoid(0.0f, 0.25f), bits_list<float, uint32_t>({0x7f800000})),
               bits_list<float, uint32_t>({0x3e800000}));
}

TEST_CASE("ACTIVATION_HARD_SWISH: x times the hard sigmoid, exactly, rounded once") {
    // Alpha = 1/6 rounded (0x3e2aaaab = 1/6 + 2^-26/3), Beta 0.5:
    // x = 1: 0x3e2aaaab + 0.5 = 11184811 * 2^-26 + 2^-1
    //   = (11184811 + 33554432) * 2^-26 = 44739243 * 2^-26 (26 bits) -> /4 = 11184810.75 -> 11184811 * 2^-24 = 0x3f2aaaab.
    // x = 3: 3 Alpha + 0.5 = 1 + 2^-26 > 1, clamped to 1: 3 exactly. x = -3: 0.5 - 3 Alpha = -2^-26 < 0: +0.
    // x = -0: +0 (a computed zero). +inf: the clamp is 1 there: +inf; -inf: the clamp is 0 there: +0 (the limit).
    check_bits(act(hard_swish(kSixth, 0.5f), bits_list<float, uint32_t>({0x3f800000, 0x40400000, 0xc0400000, 0x80000000,
                                                                         0x7f800000, 0xff800000})),
               bits_list<float, uint32_t>({0x3f2aaaab, 0x40400000, 0x00000000, 0x00000000, 0x7f800000, 0x00000000}));
}

TEST_CASE("ACTIVATION_SOFTSIGN: x / (1 + |x|) exact, rounded once; the limits at infinity") {
    // FLOAT32: 1 -> 0.5; 3 -> 0.75; x = 1e30 (0x7149f2ca): 1 - 1/(1 + x), within 2^-99 of 1: 1.0;
    // +-inf -> +-1 (the limit, not inf / inf); -0 -> +0 (a computed zero); NaN -> canonical.
    check_bits(act(DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC{},
                   bits_list<float, uint32_t>(
                       {0x3f800000, 0x40400000, 0x7149f2ca, 0x7f800000, 0xff800000, 0x80000000, 0x7f800002})),
               bits_list<float, uint32_t>(
                   {0x3f000000, 0x3f400000, 0x3f800000, 0x3f800000, 0xbf800000, 0x00000000, 0x7fc00000}));
    // FLOAT16: 5 / 6 = 0.8333...: between 0x3aaa (0.8330078125) and 0x3aab (0.83349609375); 5/6 - 0.8330078125
    // = 0.000325..., 0.83349609375 - 5/6 = 0.000162...: 0x3aab. -3 -> -0.75 (0xba00).
    check_bits(act(DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC{}, bits_list<half, uint16_t>({0x4500, 0xc200})),
               bits_list<half, uint16_t>({0x3aab, 0xba00}));
    // INT32: 3 / 4 -> 1 (0.75 rounds to 1); 1 / 2 -> 0 (half to even); -7 / 8 -> -1.
    check_bits(act(DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC{}, std::vector<int32_t>{3, 1, -7}),
               std::vector<int32_t>{1, 0, -1});
}

// ---- Validation ------------------------------------------------------------------------------

TEST_CASE("activation validation: one type, one shape, finite parameters; each error names its rule and path") {
    {
        DML_ACTIVATION_LINEAR_OPERATOR_DESC d = linear(1, 0);
        d.InputTensor = desc(DataType::FLOAT32, {2, 3});
        d.OutputTensor = desc(DataType::FLOAT16, {2, 3});
        CHECK(has_error({OperatorType::ACTIVATION_LINEAR, d}, "linear.same-data-type", "/desc/OutputTensor/DataType"));
        d.OutputTensor = desc(DataType::FLOAT32, {3, 2});
        CHECK(has_error({OperatorType::ACTIVATION_LINEAR, d}, "linear.same-sizes", "/desc/OutputTensor/Sizes"));
        d.OutputTensor = d.InputTensor;
        d.Beta = std::numeric_limits<float>::quiet_NaN();
        CHECK(has_error({OperatorType::ACTIVATION_LINEAR, d}, "linear.parameter-finite", "/desc/Beta"));
    }
    {
        DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC d;
        d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {2, 3});
        d.SlopeTensor = desc(DataType::FLOAT32, {3});
        CHECK(has_error({OperatorType::ACTIVATION_PARAMETERIZED_RELU, d}, "parameterized-relu.same-sizes",
                        "/desc/SlopeTensor/Sizes"));
    }
    CHECK(
        has_error(unary_op(DataType::FLOAT32, {2}, shrink(0.5f, kInf)), "shrink.parameter-finite", "/desc/Threshold"));
    CHECK(has_error(unary_op(DataType::FLOAT32, {2}, hard_swish(-kInf, 0.5f)), "hard-swish.parameter-finite",
                    "/desc/Alpha"));
    CHECK(has_error(unary_op(DataType::FLOAT32, {2}, thresholded(kInf)), "thresholded-relu.parameter-finite",
                    "/desc/Alpha"));
    CHECK(has_error(unary_op(DataType::FLOAT32, {2}, leaky(kInf)), "leaky-relu.parameter-finite", "/desc/Alpha"));
    CHECK(has_error(unary_op(DataType::FLOAT32, {2}, hard_sigmoid(0.2f, kInf)), "hard-sigmoid.parameter-finite",
                    "/desc/Beta"));
}

// ---- Judging (docs/tolerance.md, Activations) --------------------------------------------------

TEST_CASE("activation judging: float32 and FLOAT16 evaluations with and without FMA pass; a wrong Alpha fails") {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<float> U(-8, 8);
    std::vector<float> x;
    for (int i = 0; i < 400; ++i) x.push_back(U(rng));
    const float alpha = kTenth, beta = from_bits<float>(uint32_t(0x3eaaaaab));  // 0.1f, 1/3 rounded
    // LINEAR in float32: unfused and with FMA; float64 then rounded.
    const Case lin = golden_case(unary_op(DataType::FLOAT32, {uint32_t(x.size())}, linear(alpha, beta)), x);
    std::vector<float> unfused, fused, wide, wrong;
    for (float v : x) {
        unfused.push_back(alpha * v + beta);
        fused.push_back(std::fma(alpha, v, beta));
        wide.push_back(float(double(alpha) * v + double(beta)));
        wrong.push_back(float(half(alpha)) * v + beta);  // Alpha stored as FLOAT16 (a planted error)
    }
    CHECK(judged(lin, unfused).passed());
    CHECK(judged(lin, fused).passed());
    CHECK(judged(lin, wide).passed());
    // Alpha as FLOAT16 (0.0999755859375, 2.44e-5 below 0.1f) moves the value by 2.44e-5 |x|, beyond
    // the bound (under 2 ULP of |Alpha x + Beta| < 1.2, about 2.4e-7) wherever |x| > 0.01.
    CHECK(judged(lin, wrong).over > 300);
    // 4 ULP off an element without cancellation (x > 0, so Alpha x and Beta add up; value >= 0.25,
    // bound about 1.3 u |Alpha x| + u |value| + ULP / 2 < 2 ULP) is rejected.
    size_t k = 0;
    while (!(x[k] > 0 && unfused[k] >= 0.25f)) ++k;
    auto far = unfused;
    far[k] = from_bits<float>(uint32_t(to_bits(far[k]) + 4));
    CHECK(judged(lin, far).over == 1);

    // FLOAT16 output, evaluated natively in FLOAT16 (Alpha and Beta rounded to FLOAT16, each
    // operation rounded) and in float32 then rounded: both pass; Alpha = 0.11 does not.
    std::vector<half> hx;
    for (float v : x) hx.push_back(half(v));
    const Case lin16 = golden_case(unary_op(DataType::FLOAT16, {uint32_t(hx.size())}, linear(alpha, beta)), hx);
    std::vector<half> native, via32, wrong16;
    for (half v : hx) {
        const float f = float(v);
        native.push_back(half(float(half(float(half(alpha)) * f)) + float(half(beta))));
        via32.push_back(half(std::fma(alpha, f, beta)));
        wrong16.push_back(half(0.11f * f + beta));
    }
    CHECK(judged(lin16, native).passed());
    CHECK(judged(lin16, via32).passed());
    CHECK(judged(lin16, wrong16).over > 50);

    // LEAKY_RELU: a selected -0 must stay -0 (bound 0), a computed +0 may come back as -0.
    const Case lr = golden_case(unary_op(DataType::FLOAT32, {3}, leaky(0.0f)),
                                bits_list<float, uint32_t>({0x80000000, 0xc0400000, 0x40000000}));
    CHECK(
        judged(lr, bits_list<float, uint32_t>({0x80000000, 0x80000000, 0x40000000})).passed());  // -3 * 0 = -0 in IEEE
    CHECK(judged(lr, bits_list<float, uint32_t>({0x00000000, 0x00000000, 0x40000000})).over ==
          1);  // the selected -0 lost its sign
    // FLOAT64 likewise: no double lies below half its smallest subnormal, so the computed zero's
    // bound is that subnormal (docs/tolerance.md, "Zeros"), and not 0.
    const Case lr64 = golden_case(unary_op(DataType::FLOAT64, {3}, leaky(0.0f)), std::vector<double>{-0.0, -3.0, 2.0});
    CHECK(judged(lr64, std::vector<double>{-0.0, -0.0, 2.0}).passed());
    CHECK(judged(lr64, std::vector<double>{0.0, 0.0, 2.0}).over == 1);
    CHECK(judged(lr64, std::vector<double>{-0.0, -1e-300, 2.0}).over == 1);

    // SOFTSIGN in float32 (a division, or a reciprocal and a product) passes; x / (1 + x) for x < 0 fails.
    const Case ss = golden_case(
        unary_op<DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC>(DataType::FLOAT32, {uint32_t(x.size())}), x);
    std::vector<float> div, rcp, wrong_ss;
    for (float v : x) {
        div.push_back(v / (1.0f + std::fabs(v)));
        rcp.push_back(v * (1.0f / (1.0f + std::fabs(v))));
        wrong_ss.push_back(v / (1.0f + v));
    }
    CHECK(judged(ss, div).passed());
    CHECK(judged(ss, rcp).passed());
    CHECK(judged(ss, wrong_ss).over > 100);

    // HARD_SWISH and HARD_SIGMOID in float32 with FMA and without pass; Beta = 0.4 fails.
    const Case hs = golden_case(unary_op(DataType::FLOAT32, {uint32_t(x.size())}, hard_swish(kSixth, 0.5f)), x);
    const Case hg = golden_case(unary_op(DataType::FLOAT32, {uint32_t(x.size())}, hard_sigmoid(kFifth, 0.5f)), x);
    std::vector<float> hs_plain, hs_fma, hs_wrong, hg_plain, hg_fma, hg_wrong;
    auto clamp01 = [](float v) { return std::min(std::max(v, 0.0f), 1.0f); };
    for (float v : x) {
        hs_plain.push_back(v * clamp01(kSixth * v + 0.5f));
        hs_fma.push_back(v * clamp01(std::fma(kSixth, v, 0.5f)));
        hs_wrong.push_back(v * clamp01(kSixth * v + 0.4f));
        hg_plain.push_back(clamp01(kFifth * v + 0.5f));
        hg_fma.push_back(clamp01(std::fma(kFifth, v, 0.5f)));
        hg_wrong.push_back(clamp01(kFifth * v + 0.4f));
    }
    CHECK(judged(hs, hs_plain).passed());
    CHECK(judged(hs, hs_fma).passed());
    CHECK(judged(hs, hs_wrong).over > 50);
    CHECK(judged(hg, hg_plain).passed());
    CHECK(judged(hg, hg_fma).passed());
    CHECK(judged(hg, hg_wrong).over > 50);

    // SHRINK and THRESHOLDED_RELU: Bias subtracted in float32 passes; the other Bias sign fails;
    // THRESHOLDED_RELU is exact (bound 0): any other value fails.
    const Case sh = golden_case(unary_op(DataType::FLOAT32, {uint32_t(x.size())}, shrink(kTenth, 1.0f)), x);
    std::vector<float> sh_ok, sh_wrong;
    for (float v : x) {
        sh_ok.push_back(v > 1.0f ? v - kTenth : v < -1.0f ? v + kTenth : 0.0f);
        sh_wrong.push_back(v > 1.0f ? v + kTenth : v < -1.0f ? v - kTenth : 0.0f);
    }
    CHECK(judged(sh, sh_ok).passed());
    CHECK(judged(sh, sh_wrong).over > 100);
    const Case tr = golden_case(unary_op(DataType::FLOAT32, {4}, thresholded(1.0f)),
                                std::vector<float>{2, 0.5f, 1, -3});
    CHECK(judged(tr, std::vector<float>{2, 0, 0, -0.0f}).passed());  // a computed zero of either sign
    CHECK(judged(tr, std::vector<float>{std::nextafter(2.0f, 3.0f), 0, 0, 0}).over == 1);  // 1 ULP off a selected value
    CHECK(judged(tr, bits_list<float, uint32_t>({0x40000000, 0x00000001, 0, 0})).over ==
          1);  // a subnormal for the constant 0

    // PARAMETERIZED_RELU in FLOAT16: a float32 product rounded to FLOAT16 passes; a slope read
    // from the wrong element (the next one) fails.
    std::vector<half> sx, sl;
    for (int i = 0; i < 200; ++i) {
        sx.push_back(half(U(rng)));
        sl.push_back(half(U(rng) / 8));
    }
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC pd;
    pd.InputTensor = pd.OutputTensor = pd.SlopeTensor = desc(DataType::FLOAT16, {uint32_t(sx.size())});
    const Case pr = golden_case(Operator{OperatorType::ACTIVATION_PARAMETERIZED_RELU, pd}, sx, sl);
    std::vector<half> pr_ok, pr_wrong;
    for (size_t i = 0; i < sx.size(); ++i) {
        const float v = float(sx[i]);
        pr_ok.push_back(v >= 0 ? sx[i] : half(v * float(sl[i])));
        pr_wrong.push_back(v >= 0 ? sx[i] : half(v * float(sl[(i + 1) % sl.size()])));
    }
    CHECK(judged(pr, pr_ok).passed());
    CHECK(judged(pr, pr_wrong).over > 50);
}

}  // namespace dmlref_test_activation
