// RESAMPLE_GRAD and RESAMPLE_GRAD1: the adjoint identity, linear spreading, zero-weight taps,
// exact sums, strided dY and dX; and forward and grad at every rank and type against the naive
// computation of resample_support.hpp, with hand-derived values beside them.
#include "resample_support.hpp"

#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_resample_grad {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::resample;

// ---- Grads ----------------------------------------------------------------------------------

TEST_CASE("resample grad: the adjoint identity sum(Resample2(x) * dy) == sum(x * ResampleGrad1(dy))") {
    // Dyadic data and power-of-two scales: every weight and every output is exact in float64,
    // so both sides are exact sums, computed here in long double (exact for these magnitudes).
    const std::vector<float> scales = {2.0f, 0.5f, 1.0f, 4.0f};
    for (size_t rank = 1; rank <= 4; ++rank)
        for (uint32_t mode : {NN, LINEAR})
            for (uint32_t dir : {UP, DOWN})
                for (bool half : {true, false}) {
                    Geometry g;
                    for (size_t i = 0; i < rank; ++i) {
                        const uint32_t in = uint32_t(2 + i % 3);
                        const float s = scales[(i + rank) % scales.size()];
                        g.in.push_back(in);
                        g.out.push_back(std::max(1u, uint32_t(float(in) * s)));
                        g.Scales.push_back(s);
                        g.InputPixelOffsets.push_back(half ? 0.5f : 0.0f);
                        g.OutputPixelOffsets.push_back(half ? -0.5f : 0.0f);
                    }
                    std::vector<double> x(product(g.in)), dy(product(g.out));
                    for (size_t i = 0; i < x.size(); ++i) x[i] = double(int(i * 7 % 13) - 6) / 4;
                    for (size_t i = 0; i < dy.size(); ++i) dy[i] = double(int(i * 5 % 9) - 3) / 8;
                    const auto y = forward(resample2(DataType::FLOAT64, g, mode, dir), x);
                    const auto dx = backward(grad1(DataType::FLOAT64, g, mode, dir), dy);
                    long double lhs = 0, rhs = 0;
                    for (size_t i = 0; i < y.size(); ++i) lhs += (long double)y[i] * dy[i];
                    for (size_t i = 0; i < x.size(); ++i) rhs += (long double)x[i] * dx[i];
                    INFO("rank " << rank << " mode " << mode << " dir " << dir << " half " << half);
                    CHECK(lhs == rhs);
                    CHECK(lhs != 0);  // the check means something
                }
}

TEST_CASE("resample grad: linear spreads each gradient over its taps") {
    // The 2x2 -> 4x4 upsampling above, transposed: along one dimension output o reads
    // (0: a), (1: 0.75a + 0.25b), (2: 0.25a + 0.75b), (3: b), so dX[0] gets dY0 + 0.75 dY1 + 0.25 dY2
    // and dX[1] gets 0.25 dY1 + 0.75 dY2 + dY3 per dimension. With dY all 1: 2 and 2 per dimension,
    // 4 per element in 2-D.
    const Geometry g = half_pixel({2, 2}, {4, 4}, {2.0f, 2.0f});
    check_bits(backward(grad1(DataType::FLOAT32, g, LINEAR, UP), std::vector<float>(16, 1.0f)), {4, 4, 4, 4});
    // 1-D with dY = [1, 2, 4, 8]: dX[0] = 1 + 1.5 + 1 = 3.5, dX[1] = 0.5 + 3 + 8 = 11.5.
    check_bits(
        backward(grad1(DataType::FLOAT32, half_pixel({2}, {4}, {2.0f}), LINEAR, UP), std::vector<float>{1, 2, 4, 8}),
        {3.5f, 11.5f});
}

TEST_CASE("resample: zero-weight taps add nothing (no 0 * inf = NaN)") {
    // Linear, scale 1, corner offsets, 2 -> 3: x = 0, 1, 2 -> clamped 2 -> 1. Output 0 is exactly
    // on element 0, so its tap on element 1 has weight 0 and is no term.
    const Geometry g = corner({2}, {3}, {1.0f});
    const float inf = std::numeric_limits<float>::infinity();
    check_bits(forward(resample2(DataType::FLOAT32, g, LINEAR, UP), std::vector<float>{1, inf}), {1, inf, inf});
    // dY = [inf, 1, 2]: dX[0] = inf, dX[1] = 1 + 2 = 3 (not NaN from 0 * inf).
    check_bits(backward(grad1(DataType::FLOAT32, g, LINEAR, UP), std::vector<float>{inf, 1, 2}), {inf, 3});
    // +inf and -inf into one element: the canonical NaN.
    const auto nan = backward(grad1(DataType::FLOAT32, corner({1}, {2}, {1.0f}), NN, DOWN),
                              std::vector<float>{inf, -inf});
    CHECK(to_bits(nan[0]) == 0x7fc00000u);
}

TEST_CASE("resample grad: float sums are exact, then rounded once; sums start from +0") {
    // FLOAT16, 1 -> 3: dX[0] = 1 + 2^-11 + 2^-11 = 1 + 2^-10 exactly, a half. Adding in half
    // precision one by one would give 1 (1 + 2^-11 is a tie and rounds to even, twice).
    const Geometry g = half_pixel({1}, {3}, {3.0f});
    const auto dx = backward(grad1(DataType::FLOAT16, g, NN, DOWN), values_of<half>({1, 1.0 / 2048, 1.0 / 2048}));
    CHECK(widen(dx[0]) == 1.0 + 1.0 / 1024);
    // -0 terms only: +0. An element nothing reads: +0.
    check_bits(backward(grad1(DataType::FLOAT32, g, NN, DOWN), std::vector<float>{-0.0f, -0.0f, -0.0f}), {0.0f});
    // FLOAT16 overflow: 60000 + 60000 = 120000 rounds to +inf in half.
    const auto big = backward(grad1(DataType::FLOAT16, half_pixel({1}, {2}, {2.0f}), NN, DOWN),
                              values_of<half>({60000, 60000}));
    CHECK(to_bits(big[0]) == 0x7c00u);
}

TEST_CASE("resample grad: strided dY and a sentinel-filled strided dX") {
    // The forward 3x2 -> 6x4 (scales 2, 2), linear and nearest. dY (6x4) is read through a
    // transposing stride; dX (3x2) is written with rows padded to 3 elements into a buffer of
    // 0xAB bytes. Expected: the naive adjoint of the test, on the logical dY.
    const Geometry g = half_pixel({3, 2}, {6, 4}, {2.0f, 2.0f});
    std::vector<float> dy_logical(24);
    for (size_t i = 0; i < dy_logical.size(); ++i) dy_logical[i] = float(int(i % 7) - 3) * 0.25f;
    for (uint32_t mode : {NN, LINEAR}) {
        Operator op = grad1(DataType::FLOAT32, g, mode, DOWN);
        auto& d = get<DML_RESAMPLE_GRAD1_OPERATOR_DESC>(op.Desc);
        d.InputGradientTensor.Strides = {1, 6};   // column-major dY
        d.OutputGradientTensor.Strides = {3, 1};  // dX rows padded to 3
        REQUIRE_FALSE(validate(op).has_errors());
        auto dy = logical_buffer(d.InputGradientTensor, dy_logical);
        std::vector<std::byte> dx(buffer_size(d.OutputGradientTensor), std::byte{0xAB});
        Bindings b;
        b.bind("InputGradientTensor", dy);
        b.bind("OutputGradientTensor", dx);
        evaluate(op, b);
        const auto expected = naive_grad<float>(g, mode, DOWN, dy_logical);
        check_bits(as_values<float>(gather_logical(d.OutputGradientTensor, dx)), expected);
        // Rows 0 and 1 have a pad element at 2 and 5; the buffer ends with row 2's last element.
        const auto raw = as_values<uint32_t>(dx);
        REQUIRE(raw.size() == 8);
        CHECK(raw[2] == 0xABABABABu);
        CHECK(raw[5] == 0xABABABABu);
    }
}

// ---- Every type and rank ----------------------------------------------------------------------

TEST_CASE_TEMPLATE("resample: ranks 1 to 8 against the naive computation", T, DMLREF_ALL_TYPES) {
    // Dyadic weights (scales powers of two, offsets multiples of 1/4), so that the naive long
    // double sums are exact; scales need not be Out / In.
    const std::vector<uint32_t> in = {2, 1, 3, 2, 2, 1, 2, 2}, out = {3, 2, 2, 1, 4, 2, 1, 2};
    const std::vector<float> scales = {2.0f, 4.0f, 0.5f, 0.25f, 2.0f, 1.0f, 0.5f, 1.0f};
    const std::vector<float> ipo = {0.5f, 0.0f, 0.25f, 0.5f, 0.0f, 0.5f, -0.25f, 0.5f};
    const std::vector<float> opo = {-0.5f, 0.0f, 0.5f, -0.5f, 0.25f, -0.5f, 0.0f, -0.5f};
    const DataType t = data_type_of<T>();
    const bool is_unsigned = std::is_unsigned_v<T>;
    for (size_t rank = 1; rank <= 8; ++rank) {
        Geometry g;
        for (size_t i = 0; i < rank; ++i) {
            g.in.push_back(in[i]);
            g.out.push_back(out[i]);
            g.Scales.push_back(scales[i]);
            g.InputPixelOffsets.push_back(ipo[i]);
            g.OutputPixelOffsets.push_back(opo[i]);
        }
        std::vector<T> x, dy;
        for (uint64_t i = 0; i < product(g.in); ++i)
            x.push_back(value_of<T>(double(int(i * 37 % 101) - (is_unsigned ? 0 : 50))));
        for (uint64_t i = 0; i < product(g.out); ++i)
            dy.push_back(value_of<T>(double(int(i * 13 % 21) - (is_unsigned ? 0 : 10))));
        for (uint32_t mode : {NN, LINEAR})
            for (uint32_t dir : {UP, DOWN}) {
                INFO("rank " << rank << " mode " << mode << " dir " << dir);
                check_bits(forward(resample2(t, g, mode, dir), x), naive_forward(g, mode, dir, x));
                check_bits(backward(grad1(t, g, mode, dir), dy), naive_grad(g, mode, dir, dy));
            }
        INFO("old operators, rank " << rank);
        check_bits(forward(resample1(t, g, NN), x), naive_forward(g, NN, DOWN, x, true));
        check_bits(backward(grad0(t, g, NN), dy), naive_grad(g, NN, DOWN, dy, true));
        check_bits(backward(grad0(t, g, LINEAR), dy), naive_grad(g, LINEAR, DOWN, dy));
    }
}

}  // namespace dmlref_test_resample_grad
