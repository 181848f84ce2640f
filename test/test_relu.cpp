// ACTIVATION_RELU and ACTIVATION_RELU_GRAD. Expected values are the page's formulas applied by
// hand: RELU_GRAD dX = (X > 0 ? dY : 0); RELU(x) = max(0, x) with D3D's max (NaN -> 0), -0 -> +0.
#include "support.hpp"

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_relu {

using namespace dmlref;
using namespace dmlref::test;

namespace {

Operator relu_grad_op(DataType t, std::vector<uint32_t> sizes) {
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(t, sizes);
    return {OperatorType::ACTIVATION_RELU_GRAD, d};
}

Operator relu_op(DataType t, std::vector<uint32_t> sizes) {
    DML_ACTIVATION_RELU_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(t, sizes);
    return {OperatorType::ACTIVATION_RELU, d};
}

// Values that exercise the comparison with 0 in each type: positive, zero, negative where
// the type has them, extremes.
template <class T> std::vector<T> probe_x() {
    std::vector<T> x = {value_of<T>(3), value_of<T>(0), value_of<T>(1)};
    if constexpr (std::is_signed_v<T> || is_floating_v<T>) x.push_back(value_of<T>(-2));
    if constexpr (std::is_integral_v<T>) {
        x.push_back(std::numeric_limits<T>::max());
        x.push_back(std::numeric_limits<T>::min());
    }
    return x;
}

// x > 0 computed here, independently of dmlref: FLOAT16 through Eigen's float conversion.
template <class T> bool positive(T v) {
    if constexpr (is_half_v<T>) return static_cast<float>(v) > 0.0f;
    else return v > T(0);
}

}  // namespace

TEST_CASE_TEMPLATE("ReluGrad: X > 0 passes dY, anything else gives +0", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    const std::vector<T> x = probe_x<T>();
    std::vector<T> dy, expected;
    for (size_t i = 0; i < x.size(); ++i) {
        dy.push_back(value_of<T>(double(10 + i)));
        // By hand: the comparison X > 0 in the type's own values.
        expected.push_back(positive(x[i]) ? dy.back() : T(0));
    }
    const Operator op = relu_grad_op(t, {uint32_t(x.size())});
    auto out = run(op, {{"InputTensor", buffer(desc(t, {uint32_t(x.size())}), x)},
                        {"InputGradientTensor", buffer(desc(t, {uint32_t(x.size())}), dy)}});
    check_bits(as_values<T>(out["OutputGradientTensor"]), expected);
}

TEST_CASE_TEMPLATE("ReluGrad float probes: NaN X, -0 X, subnormal X, NaN payload and -0 in dY", T, float, half,
                   double) {
    const DataType t = data_type_of<T>();
    const T nan = canonical_nan<T>();
    const T neg_zero = value_of<T>(-0.0);
    const T min_sub = from_bits<T>(bits_t<T>(1));                                        // smallest positive subnormal
    const T neg_sub = from_bits<T>(bits_t<T>(bits_t<T>(1) << (sizeof(T) * 8 - 1) | 1));  // -smallest subnormal
    const T payload = from_bits<T>(bits_t<T>(to_bits(nan) | 1));                         // a NaN with payload 1
    const T inf = value_of<T>(std::numeric_limits<double>::infinity());
    //                       X:    NaN   -0        +sub     -sub     1        1        1             +inf
    const std::vector<T> x = {nan, neg_zero, min_sub, neg_sub, value_of<T>(1), value_of<T>(1), value_of<T>(1), inf};
    const std::vector<T> dy = {value_of<T>(5), value_of<T>(5), value_of<T>(7), value_of<T>(7),
                               payload,        neg_zero,       -inf,           value_of<T>(2)};
    // NaN > 0 false -> +0; -0 > 0 false -> +0; +subnormal > 0 -> dY (never flushed); -subnormal -> +0;
    // X = 1: dY's bits exactly (NaN payload, -0, -inf); X = +inf > 0 -> dY.
    const std::vector<T> expected = {T(0), T(0), value_of<T>(7), T(0), payload, neg_zero, -inf, value_of<T>(2)};
    const auto d = desc(t, {uint32_t(x.size())});
    auto out = run(relu_grad_op(t, {uint32_t(x.size())}),
                   {{"InputTensor", buffer(d, x)}, {"InputGradientTensor", buffer(d, dy)}});
    check_bits(as_values<T>(out["OutputGradientTensor"]), expected);
}

TEST_CASE_TEMPLATE("Relu: max(0, x) with NaN -> +0 and -0 -> +0", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    std::vector<T> x = probe_x<T>();
    if constexpr (is_floating_v<T>) {
        x.push_back(canonical_nan<T>());
        x.push_back(value_of<T>(-0.0));
        x.push_back(from_bits<T>(bits_t<T>(1)));
    }
    std::vector<T> expected;
    for (T v : x) expected.push_back(positive(v) ? v : T(0));
    const auto d = desc(t, {uint32_t(x.size())});
    auto out = run(relu_op(t, {uint32_t(x.size())}), {{"InputTensor", buffer(d, x)}});
    check_bits(as_values<T>(out["OutputTensor"]), expected);
}

// Ranks 1..8 with random shapes; the expected tensor comes from a loop over the flat index.
TEST_CASE_TEMPLATE("ReluGrad over ranks 1 to 8", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    std::mt19937 rng(11);
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank);
        for (auto& s : sizes) s = 1 + rng() % 3;
        const auto d = desc(t, sizes);
        const size_t n = element_count(d);
        std::vector<T> x(n), dy(n), expected(n);
        for (size_t i = 0; i < n; ++i) {
            x[i] = value_of<T>(double(int(rng() % 7) - (std::is_signed_v<T> || is_floating_v<T> ? 3 : 0)));
            dy[i] = value_of<T>(double(rng() % 100));
            expected[i] = positive(x[i]) ? dy[i] : T(0);
        }
        INFO("rank " << rank);
        auto out = run(relu_grad_op(t, sizes), {{"InputTensor", buffer(d, x)}, {"InputGradientTensor", buffer(d, dy)}});
        check_bits(as_values<T>(out["OutputGradientTensor"]), expected);
    }
}

// Broadcast X (stride 0), padded dY, and a padded output pre-filled with a sentinel: the
// logical elements get the formula, every other byte of the output keeps the sentinel.
TEST_CASE("ReluGrad with broadcast and strided inputs, and a sentinel-filled strided output") {
    const DataType t = DataType::FLOAT32;
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC d;
    d.InputTensor = desc(t, {2, 3}, {0, 1});           // one row [1, -1, 2] seen twice
    d.InputGradientTensor = desc(t, {2, 3}, {4, 1});   // rows at 0 and 4; element 3 is padding
    d.OutputGradientTensor = desc(t, {2, 3}, {1, 2});  // column-major: (r, c) at r + 2c
    const Operator op{OperatorType::ACTIVATION_RELU_GRAD, d};
    REQUIRE_FALSE(validate(op).has_errors());
    auto x = buffer<float>(d.InputTensor, {1, -1, 2});
    auto dy = buffer<float>(d.InputGradientTensor, {10, 20, 30, 99, 40, 50, 60});
    std::vector<std::byte> out(buffer_size(d.OutputGradientTensor) + 8, std::byte{0xAB});  // 0xABABABAB sentinel
    Bindings b;
    b.bind("InputTensor", x);
    b.bind("InputGradientTensor", dy);
    b.bind("OutputGradientTensor", out);
    evaluate(op, b);
    const auto v = as_values<uint32_t>(out);
    // Row 0: x = [1,-1,2], dy = [10,20,30] -> [10, 0, 30]; row 1: dy = [40,50,60] -> [40, 0, 60].
    // Address r + 2c: (0,0)=0 (1,0)=1 (0,1)=2 (1,1)=3 (0,2)=4 (1,2)=5.
    const std::vector<float> expected = {10, 40, 0, 0, 30, 60};
    for (size_t i = 0; i < 6; ++i) CHECK(v[i] == to_bits(expected[i]));
    for (size_t i = 6; i < v.size(); ++i) CHECK(v[i] == 0xABABABABu);  // past the logical elements: untouched
}

TEST_CASE("Relu in place: the output bound to the input's buffer") {
    const DataType t = DataType::FLOAT32;
    DML_ACTIVATION_RELU_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(t, {5});
    auto buf = buffer<float>(d.InputTensor, {-1, 2, -0.0f, 4, -5});
    Bindings b;
    b.bind("InputTensor", buf);
    b.bind("OutputTensor", buf);
    evaluate({OperatorType::ACTIVATION_RELU, d}, b);
    check_bits(as_values<float>(buf), std::vector<float>{0, 2, 0, 4, 0});
}

TEST_CASE("evaluate refuses a tensor bound to fewer bytes than its desc needs, naming it") {
    DML_ACTIVATION_RELU_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {5});  // 5 x 4 = 20 bytes each
    auto in = buffer<float>(d.InputTensor, {1, 2, 3, 4, 5});
    std::vector<std::byte> out(16, std::byte{0xAB});  // 4 bytes short
    Bindings b;
    b.bind("InputTensor", in);
    b.bind("OutputTensor", out);
    CHECK_THROWS_WITH_AS(evaluate({OperatorType::ACTIVATION_RELU, d}, b),
                         "OutputTensor is bound to 16 bytes; its desc needs 20", std::invalid_argument);
    for (std::byte v : out) CHECK(v == std::byte{0xAB});  // nothing written
}

}  // namespace dmlref_test_relu
