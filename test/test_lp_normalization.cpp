// LP_NORMALIZATION. Expected values come from a naive evaluation written here (each element's
// vector walked through the Axis dimension's packed stride, the norm in MPFR at 300 bits, the
// division, one rounding), from hand derivations (0.6, 0.8 for (3, 4); the floor Epsilon) and from
// planted float32 backends against the bound.
#include "bn_naive.hpp"

#include "dmlref/descs/lp_normalization.hpp"

#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_lp_normalization {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

namespace {

using LPN = DML_LP_NORMALIZATION_OPERATOR_DESC;

Operator lp_op(DataType t, const std::vector<uint32_t>& in, uint32_t axis, float eps, uint32_t p,
               bool strided = false) {
    LPN d;
    d.InputTensor = desc(t, in, strided ? packed_plus(in, 2) : std::vector<uint32_t>{});
    d.OutputTensor = desc(t, in, strided ? packed_plus(in, 3) : std::vector<uint32_t>{});
    d.Axis = axis;
    d.Epsilon = eps;
    d.P = p;
    return {OperatorType::LP_NORMALIZATION, d};
}

// x / max(||x||, eps) by walking the axis: element i's vector starts at i - c * stride.
template <class T>
std::vector<T> naive(const std::vector<T>& x, const std::vector<uint32_t>& in, uint32_t axis, float eps, uint32_t p) {
    uint64_t stride = 1;
    for (size_t d = axis + 1; d < in.size(); ++d) stride *= in[d];
    const uint64_t len = in[axis];
    std::vector<T> y;
    for (uint64_t i = 0; i < x.size(); ++i) {
        const uint64_t c = (i / stride) % len, start = i - c * stride;
        Big s;
        for (uint64_t j = 0; j < len; ++j) {
            Big v = big(x[start + j * stride]);
            mpfr_abs(v.v, v.v, MPFR_RNDN);
            s = s + (p == 1 ? v : v * v);
        }
        Big norm = p == 1 ? s : sqrt_of(s);
        if (mpfr_cmp_d(norm.v, double(eps)) < 0) norm = Big(double(eps));
        y.push_back(round_big<T>(big(x[i]) / norm));
    }
    return y;
}

template <class T> void naive_trials(int trials, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        CAPTURE(trial);
        std::vector<uint32_t> in;
        const int rank = std::uniform_int_distribution<int>(1, 5)(rng);
        for (int d = 0; d < rank; ++d) in.push_back(uint32_t(std::uniform_int_distribution<int>(1, 3)(rng)));
        const uint32_t axis = std::uniform_int_distribution<uint32_t>(0, uint32_t(rank - 1))(rng);
        const float eps = trial % 3 == 0 ? 0.0f : trial % 3 == 1 ? 1e-5f : 4.0f;  // 4: the floor is often in force
        const uint32_t p = 1 + trial % 2;
        const auto x = random_values<T>(rng, product(in));
        const Operator op = lp_op(data_type_of<T>(), in, axis, eps, p, trial % 2);
        const auto& d = get<LPN>(op.Desc);
        check_bits(
            as_values<T>(
                run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x77})}}).at("OutputTensor")),
            naive<T>(x, in, axis, eps, p));
    }
}

std::vector<float> run_f32(const std::vector<uint32_t>& in, uint32_t axis, float eps, uint32_t p,
                           const std::vector<float>& x) {
    const Operator op = lp_op(DataType::FLOAT32, in, axis, eps, p);
    return as_values<float>(
        run(op, {{"InputTensor", logical_buffer(get<LPN>(op.Desc).InputTensor, x)}}).at("OutputTensor"));
}

}  // namespace

TEST_CASE("lp normalization: against a naive evaluation at 300 bits") {
    naive_trials<float>(30, 741);
    naive_trials<half>(12, 742);
    naive_trials<double>(12, 743);
    naive_trials<int32_t>(12, 744);
}

TEST_CASE("lp normalization: by hand") {
    // (3, 4): norm 5, so 0.6 and 0.8 rounded once; P = 1: 3/7, 4/7.
    CHECK(run_f32({2}, 0, 0, 2, {3, 4}) == std::vector<float>{0.6f, 0.8f});
    CHECK(run_f32({2}, 0, 0, 1, {3, -4}) == std::vector<float>{3.0f / 7.0f, -4.0f / 7.0f});
    // Along Axis 0 of 2 x 2: the columns (1, 1) and (0, -2): 2^-1/2 rounded once (0x3f3504f3), 0 and -1.
    const auto y = run_f32({2, 2}, 0, 0, 2, {1, 0, 1, -2});
    CHECK(to_bits(y[0]) == 0x3f3504f3u);
    CHECK(to_bits(y[2]) == 0x3f3504f3u);
    CHECK(to_bits(y[1]) == 0u);
    CHECK(y[3] == -1.0f);
    // The floor: norm 2^-20 below Epsilon 2^-10 divides by Epsilon; a zero vector gives +0, or NaN without Epsilon.
    CHECK(run_f32({2}, 0, 0x1p-10f, 2, {0x1p-20f, 0}) == std::vector<float>{0x1p-10f, 0});
    CHECK(run_f32({2}, 0, 0x1p-10f, 1, {0, 0}) == std::vector<float>{0, 0});
    CHECK(std::isnan(run_f32({2}, 0, 0, 1, {0, 0})[0]));
    // An infinite element: inf / inf is NaN, 1 / inf is 0.
    const auto z = run_f32({2}, 0, 0, 2, {INFINITY, 1});
    CHECK(std::isnan(z[0]));
    CHECK(z[1] == 0.0f);
}

TEST_CASE("lp normalization: the page's rules") {
    CHECK_FALSE(validate(lp_op(DataType::FLOAT32, {1, 2, 2, 2}, 3, 0, 2)).has_errors());
    CHECK(has_error(lp_op(DataType::FLOAT32, {1, 2, 2, 2}, 4, 0, 2), "lp-normalization.axis", "/desc/Axis"));
    CHECK(has_error(lp_op(DataType::FLOAT32, {1, 2, 2, 2}, 1, 0, 3), "lp-normalization.p", "/desc/P"));
    CHECK(has_error(lp_op(DataType::FLOAT32, {1, 2, 2, 2}, 1, NAN, 2), "lp-normalization.epsilon-finite",
                    "/desc/Epsilon"));
    Operator op = lp_op(DataType::FLOAT32, {1, 2, 2, 2}, 1, 0, 2);
    get<LPN>(op.Desc).OutputTensor.Sizes = {1, 2, 2, 3};
    CHECK(has_error(op, "lp-normalization.same-sizes", "/desc/OutputTensor/Sizes"));
}

// The bound (docs/tolerance.md, "Lp normalization"): float32 backends (the norm summed in two
// orders, x / norm or x * (1 / norm)) are within it; P's other value, Epsilon added to the norm
// and a value 1% off are not, where they differ enough.
TEST_CASE("lp normalization: the bound accepts float32 backends and rejects wrong ones") {
    std::mt19937_64 rng(745);
    std::uniform_real_distribution<float> U(-1, 1);
    int rejected_p = 0, rejected_plus = 0, rejected_off = 0;
    for (int trial = 0; trial < 12; ++trial) {
        CAPTURE(trial);
        const uint32_t n = std::uniform_int_distribution<uint32_t>(2, 30)(rng), p = 1 + trial % 2;
        const float eps = trial % 3 == 0 ? 0.5f : 1e-5f;
        std::vector<float> x;
        for (uint32_t i = 0; i < 2 * n; ++i) x.push_back(U(rng) * (trial % 4 == 3 ? 0.01f : 1.0f));
        Case c;
        c.op = lp_op(DataType::FLOAT32, {2, n}, 1, eps, p);
        c.inputs["InputTensor"] = logical_buffer(get<LPN>(c.op.Desc).InputTensor, x);
        const auto golden = as_values<float>(run_case(c).values.at("OutputTensor"));
        const auto bound = batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
        REQUIRE(bound.has_value());
        for (uint32_t g = 0; g < 2; ++g) {
            const float* v = x.data() + g * n;
            float s = 0, r = 0, s1 = 0, s2 = 0;
            for (uint32_t i = 0; i < n; ++i) s += p == 1 ? std::fabs(v[i]) : v[i] * v[i];
            for (uint32_t i = n; i-- > 0;) r += p == 1 ? std::fabs(v[i]) : v[i] * v[i];
            for (uint32_t i = 0; i < n; ++i) {
                s1 += std::fabs(v[i]);
                s2 += v[i] * v[i];
            }
            const float norm = std::max(p == 1 ? s : std::sqrt(s), eps),
                        norm_r = std::max(p == 1 ? r : std::sqrt(r), eps);
            const float other = std::max(p == 1 ? std::sqrt(s2) : s1, eps);
            for (uint32_t i = 0; i < n; ++i) {
                const size_t k = g * n + i;
                CAPTURE(k);
                auto within = [&](float a) { return std::fabs(double(a) - double(golden[k])) <= (*bound)[k]; };
                CHECK(within(v[i] / norm));
                CHECK(within(v[i] * (1.0f / norm_r)));
                rejected_p += !within(v[i] / other);
                rejected_plus += !within(v[i] / ((p == 1 ? s : std::sqrt(s)) + eps));
                rejected_off += !within(golden[k] * 1.01f + (golden[k] == 0 ? 0.01f : 0));
            }
        }
    }
    CHECK(rejected_p > 0);
    CHECK(rejected_plus > 0);
    CHECK(rejected_off > 0);
}

}  // namespace dmlref_test_lp_normalization
