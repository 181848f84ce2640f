// LP_POOLING and LP_POOLING1. Expected values come from hand derivations (written beside them:
// 3-4-5 windows, 3^3 + 4^3 + 5^3 = 6^3, FLOAT16 roots that are rounding midpoints), from a naive
// evaluation written here (each window's taps from pooling_support.hpp's reading of the page, the
// sum and the root in MPFR at 300 bits, one rounding), and from planted float32 backends against
// the bound.
#include "bn_naive.hpp"
#include "pooling_support.hpp"

#include "dmlref/descs/lp_pooling.hpp"

#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_lp_pooling {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

namespace {

using LP = DML_LP_POOLING_OPERATOR_DESC;
using LP1 = DML_LP_POOLING1_OPERATOR_DESC;

struct Geometry {
    std::vector<uint32_t> in;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
    uint32_t P = 2;
};

Geometry plain(std::vector<uint32_t> in, std::vector<uint32_t> window, uint32_t P) {
    const size_t n = in.size() - 2;
    return {std::move(in),
            std::vector<uint32_t>(n, 1),
            std::move(window),
            std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 1),
            P};
}

// The floor size of each spatial dimension: (In + StartPadding + EndPadding - dilated window) / Strides + 1.
std::vector<uint32_t> out_sizes(const Geometry& g) {
    std::vector<uint32_t> out = {g.in[0], g.in[1]};
    for (size_t i = 0; i + 2 < g.in.size(); ++i)
        out.push_back(
            (g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i] - (1 + (g.WindowSize[i] - 1) * g.Dilations[i])) /
                g.Strides[i] +
            1);
    return out;
}

Operator lp_op(DataType t, const Geometry& g, bool strided = false) {
    LP1 d;
    d.InputTensor = desc(t, g.in, strided ? packed_plus(g.in, 2) : std::vector<uint32_t>{});
    d.OutputTensor = desc(t, out_sizes(g), strided ? packed_plus(out_sizes(g), 3) : std::vector<uint32_t>{});
    set_window(d, g);
    d.P = g.P;
    return {OperatorType::LP_POOLING1, d};
}

Operator lp_v0(DataType t, const Geometry& g) {
    LP d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, out_sizes(g));
    set_window(d, g);
    d.P = g.P;
    return {OperatorType::LP_POOLING, d};
}

template <class T> std::vector<T> pool(const Operator& op, const std::vector<T>& x) {
    const TensorDesc& in = op.Type == OperatorType::LP_POOLING ? get<LP>(op.Desc).InputTensor
                                                               : get<LP1>(op.Desc).InputTensor;
    return as_values<T>(run(op, {{"InputTensor", logical_buffer(in, x, std::byte{0x5a})}}).at("OutputTensor"));
}

// The naive reading: for each output, its real taps, then (sum |x|^P)^(1/P) at 300 bits, rounded once.
template <class T> std::vector<T> naive(const Geometry& g, const std::vector<T>& x) {
    const auto out = out_sizes(g);
    std::vector<T> y;
    for (uint64_t o = 0; o < product(out); ++o) {
        Big s;
        for (uint64_t i : window_taps(g, out, o)) {
            Big v = big(x[i]);
            mpfr_abs(v.v, v.v, MPFR_RNDN);
            mpfr_pow_ui(v.v, v.v, g.P, MPFR_RNDN);
            s = s + v;
        }
        mpfr_rootn_ui(s.v, s.v, g.P, MPFR_RNDN);
        y.push_back(round_big<T>(s));
    }
    return y;
}

Geometry random_geometry(std::mt19937_64& rng, bool dilate) {
    auto U = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    Geometry g;
    const uint32_t spatial = U(1, 3);
    g.in = {U(1, 2), U(1, 2)};
    for (uint32_t i = 0; i < spatial; ++i) {
        g.WindowSize.push_back(U(1, 3));
        g.Strides.push_back(U(1, 2));
        g.StartPadding.push_back(U(0, 1));
        g.EndPadding.push_back(U(0, 2));
        g.Dilations.push_back(dilate ? U(1, 2) : 1);
        g.in.push_back(U(1, 3) + (g.WindowSize.back() - 1) * g.Dilations.back());
    }
    g.P = U(1, 4);
    return g;
}

template <class T> void naive_trials(int trials, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        CAPTURE(trial);
        const Geometry g = random_geometry(rng, trial % 2 == 1);
        CAPTURE(g.P);
        const auto x = random_values<T>(rng, product(g.in));
        check_bits(pool<T>(lp_op(data_type_of<T>(), g, trial % 3 == 0), x), naive<T>(g, x));
    }
}

std::vector<float> f32(const Geometry& g, const std::vector<float>& x) {
    return pool<float>(lp_op(DataType::FLOAT32, g), x);
}

}  // namespace

TEST_CASE("lp pooling: by hand") {
    // A 1-D window of two over (3, 4, 0): sqrt(9 + 16) = 5 and sqrt(16 + 0) = 4; P = 1: 7 and 4.
    CHECK(f32(plain({1, 1, 3}, {2}, 2), {3, -4, 0}) == std::vector<float>{5, 4});
    CHECK(f32(plain({1, 1, 3}, {2}, 1), {3, -4, 0}) == std::vector<float>{7, 4});
    // P = 3: 3^3 + 4^3 + 5^3 = 216 = 6^3 exactly; one element alone is its magnitude for any P.
    CHECK(f32(plain({1, 1, 3}, {3}, 3), {3, -4, 5}) == std::vector<float>{6});
    CHECK(f32(plain({1, 1, 1}, {1}, 4000000000u), {-0.1f}) == std::vector<float>{0.1f});
    // sqrt(1 + 1) = 2^(1/2) rounded once: 0x3fb504f3; (1 + 1)^(1/3) = 1.2599211 (0x3fa14518).
    CHECK(to_bits(f32(plain({1, 1, 2}, {2}, 2), {1, -1})[0]) == 0x3fb504f3u);
    CHECK(to_bits(f32(plain({1, 1, 2}, {2}, 3), {1, 1})[0]) == 0x3fa14518u);
    // A huge P: (3^P + 3^P)^(1/P) = 3 * 2^(1/P), within 2^-31 relative of 3: FLOAT32 rounds to 3.
    CHECK(f32(plain({1, 1, 2}, {2}, 4294967295u), {3, 3}) == std::vector<float>{3});
    // 2-D, LP_POOLING1 with Dilations 2 and padding: the 2x2 window of taps 2 apart over a 3x3
    // input padded by 1 at the start: output (0,0) reads only (1,1) = 4 (the others are padding).
    Geometry g = plain({1, 1, 3, 3}, {2, 2}, 2);
    g.StartPadding = {1, 1};
    g.Dilations = {2, 2};
    // Outputs: (3 + 1 - 3) / 1 + 1 = 2 per dimension. (0,0): tap (1,1) = 4 -> 4. (0,1): taps (1,0)?
    // Positions o - 1 + 2k: o = 0 reads {-1, 1}, o = 1 reads {0, 2}. (0,1): rows {1}, cols {0, 2}:
    // x(1,0) = 3, x(1,2) = 4 -> 5. (1,0): rows {0, 2}, cols {1}: 0 and 0 -> 0. (1,1): rows {0, 2},
    // cols {0, 2}: 12, 0, 0, 5 -> 13.
    CHECK(f32(g, {12, 0, 0, 3, 4, 4, 0, 0, 5}) == std::vector<float>{4, 5, 0, 13});
}

TEST_CASE("lp pooling: roots that are FLOAT16 rounding midpoints, and an intermediate overflow") {
    // 2048^2 + 64^2 + 1^2 = 2049^2 and 2046^2 + 143^2 + 6^2 = 2051^2 (all exact in FLOAT16): the
    // roots 2049 and 2051 are midpoints of FLOAT16 (spacing 2 above 2048), so ties to even give
    // 2048 and 2052.
    const Geometry g = plain({1, 1, 3}, {3}, 2);
    auto h = [](std::vector<double> v) {
        std::vector<half> r;
        for (double d : v) r.push_back(half(d));
        return r;
    };
    CHECK(pool<half>(lp_op(DataType::FLOAT16, g), h({2048, 64, 1}))[0] == half(2048));
    CHECK(pool<half>(lp_op(DataType::FLOAT16, g), h({-2046, 143, -6}))[0] == half(2052));
    // 300^2 + 400^2 = 500^2: the squares are beyond FLOAT16's 65504, the root is not
    // (LpPoolingIntermediateOverflow=ExactValue).
    CHECK(pool<half>(lp_op(DataType::FLOAT16, plain({1, 1, 2}, {2}, 2)), h({300, -400}))[0] == half(500));
    // The same through LP_POOLING, and with INT8 data (sqrt(100^2 + 100^2) = 141.42 rounds to 141).
    CHECK(pool<half>(lp_v0(DataType::FLOAT16, plain({1, 1, 2}, {2}, 2)), h({300, -400}))[0] == half(500));
    CHECK(pool<int8_t>(lp_op(DataType::INT8, plain({1, 1, 2}, {2}, 2)), {100, -100})[0] == 127);  // 141 saturates
    CHECK(pool<int16_t>(lp_op(DataType::INT16, plain({1, 1, 2}, {2}, 2)), {100, -100})[0] == 141);
}

TEST_CASE("lp pooling: special values, zeros and windows of padding only") {
    const Geometry g = plain({1, 1, 8}, {2}, 2);
    Geometry g2 = g;
    g2.Strides = {2};
    const float inf = INFINITY, nan = NAN;
    const auto y = f32(g2, {inf, 1, -inf, 2, nan, inf, -0.0f, -0.0f});
    CHECK(y[0] == inf);
    CHECK(y[1] == inf);          // |-inf|^2 = inf
    CHECK(std::isnan(y[2]));     // NaN wins over inf
    CHECK(to_bits(y[3]) == 0u);  // -0 and -0: +0
    // StartPadding 3 with a window of 2: the first output's window is padding only, +0.
    Geometry p = plain({1, 1, 2}, {2}, 3);
    p.StartPadding = {3};
    p.EndPadding = {1};
    // Five outputs (2 + 3 + 1 - 2 + 1), windows {-3,-2}, {-2,-1}, {-1,0}, {0,1}, {1,2}: padding
    // only (+0) twice, then |-2| = 2, (8 + 8)^(1/3) = 2.5198421 (0x40214518), and 2.
    const auto z = f32(p, {-2, 2});
    REQUIRE(z.size() == 5);
    CHECK(to_bits(z[0]) == 0u);
    CHECK(to_bits(z[1]) == 0u);
    CHECK(z[2] == 2.0f);
    CHECK(to_bits(z[3]) == 0x40214518u);
    CHECK(z[4] == 2.0f);
}

TEST_CASE("lp pooling: against a naive evaluation at 300 bits") {
    naive_trials<float>(24, 851);
    naive_trials<half>(10, 852);
    naive_trials<double>(10, 853);
    naive_trials<int32_t>(8, 854);
}

TEST_CASE("lp pooling: every validation rule") {
    const Geometry g = plain({1, 1, 4, 4}, {2, 2}, 2);
    CHECK_FALSE(validate(lp_op(DataType::FLOAT32, g)).has_errors());
    CHECK_FALSE(validate(lp_v0(DataType::FLOAT32, g)).has_errors());
    Geometry zero = g;
    zero.P = 0;
    CHECK(has_error(lp_op(DataType::FLOAT32, zero), "lp-pooling1.p", "/desc/P"));
    CHECK(has_error(lp_v0(DataType::FLOAT32, zero), "lp-pooling.p", "/desc/P"));
    Operator op = lp_op(DataType::FLOAT32, g);
    get<LP1>(op.Desc).OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "lp-pooling1.same-data-type", "/desc/OutputTensor/DataType"));
    op = lp_op(DataType::FLOAT32, g);
    get<LP1>(op.Desc).OutputTensor.Sizes = {1, 1, 3, 5};
    CHECK(has_error(op, "lp-pooling1.output-size", "/desc/OutputTensor/Sizes/3"));
    op = lp_op(DataType::FLOAT32, g);
    get<LP1>(op.Desc).Dilations = {1, 4};
    CHECK(has_error(op, "lp-pooling1.window-fits", "/desc/WindowSize/1"));
    op = lp_op(DataType::FLOAT32, g);
    get<LP1>(op.Desc).Dilations = {1, 0};
    CHECK(has_error(op, "lp-pooling1.dilation-nonzero", "/desc/Dilations/1"));
    op = lp_v0(DataType::FLOAT32, g);
    get<LP>(op.Desc).Strides = {1};
    CHECK(has_error(op, "lp-pooling.array-length", "/desc/Strides"));
    op = lp_v0(DataType::FLOAT32, g);
    get<LP>(op.Desc).OutputTensor.Sizes = {1, 2, 3, 3};
    CHECK(has_error(op, "lp-pooling.batch-channel", "/desc/OutputTensor/Sizes/1"));
}

// The bound (docs/tolerance.md, "Lp pooling"): a float32 backend written here (powers by products
// or powf, the sum in two orders, sqrtf or powf(s, 1/P)) is within it; P read as 1 and a window
// shifted by one element are rejected wherever they change the value by more than the bound.
TEST_CASE("lp pooling: the bound accepts float32 backends and rejects planted bugs") {
    std::mt19937_64 rng(855);
    std::uniform_real_distribution<float> U(-2, 2);
    int rejected_p1 = 0, rejected_shift = 0, compared = 0;
    for (int trial = 0; trial < 12; ++trial) {
        CAPTURE(trial);
        const uint32_t n = std::uniform_int_distribution<uint32_t>(4, 40)(rng),
                       w = std::uniform_int_distribution<uint32_t>(2, 4)(rng);
        const uint32_t P = 2 + trial % 3;
        const Geometry g = plain({1, 1, n}, {w}, P);
        std::vector<float> x;
        for (uint32_t i = 0; i < n; ++i) x.push_back(U(rng));
        Case c;
        c.op = lp_op(DataType::FLOAT32, g);
        c.inputs["InputTensor"] = logical_buffer(get<LP1>(c.op.Desc).InputTensor, x);
        const auto golden = as_values<float>(run_case(c).values.at("OutputTensor"));
        const auto bound = batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
        REQUIRE(bound.has_value());
        auto backend = [&](uint32_t start, uint32_t p, bool reverse) {
            float s = 0;
            for (uint32_t k = 0; k < w; ++k) {
                const float v = std::fabs(x[std::min(n - 1, start + (reverse ? w - 1 - k : k))]);
                s += p == 2 ? v * v : p == 1 ? v : std::pow(v, float(p));
            }
            return p == 1 ? s : p == 2 ? std::sqrt(s) : std::pow(s, 1.0f / float(p));
        };
        for (uint32_t o = 0; o + w <= n; ++o) {
            CAPTURE(o);
            auto within = [&](float a) { return std::fabs(double(a) - double(golden[o])) <= (*bound)[o]; };
            CHECK(within(backend(o, P, false)));
            CHECK(within(backend(o, P, true)));
            ++compared;
            rejected_p1 += !within(backend(o, 1, false));
            rejected_shift += !within(backend(o + 1, P, false));
        }
    }
    // P read as 1 changes every window of two or more nonzero elements by far more than the bound.
    CHECK(rejected_p1 == compared);
    CHECK(rejected_shift > compared * 3 / 4);
}

}  // namespace dmlref_test_lp_pooling
