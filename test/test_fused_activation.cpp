// Batch normalization's fused activations (reference/fused_activation.cpp, docs/golden.md
// BnFusedActivation and the BnActivation* rows): hand-derived exact values and limits, the hard
// cases where the value is rational, underflow and huge arguments, every activation against the
// independent 300-bit formulas of bn_naive.hpp, and the bound (docs/tolerance.md, "Fused
// activations"): a float32 backend evaluating BN then the activation is accepted, a planted error
// beyond the bound and a wrong activation are rejected.
#include "bn_naive.hpp"

#include "../reference/fused_activation.hpp"
#include "dmlref/readings.hpp"

#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fused_activation {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

template <class T> T act(const char* name, T y, float a = 0, float b = 0) {
    return reference::fused_activation(*activation(name, a, b), y);
}
uint32_t bits(float v) { return to_bits(v); }

}  // namespace

TEST_CASE("fused activations: hand-derived exact values, clamps and thresholds") {
    // SIGMOID(0) = 1 / (1 + 1) = 1/2; TANH(0) = GELU(0) = 0 (+0); SOFTSIGN(1) = 1/2, SOFTSIGN(-3) = -3/4.
    CHECK(act("ACTIVATION_SIGMOID", 0.0f) == 0.5f);
    CHECK(to_bits(act("ACTIVATION_SIGMOID", half_from_double(0))) == to_bits(half_from_double(0.5)));
    CHECK(act("ACTIVATION_SIGMOID", 0.0) == 0.5);
    CHECK(bits(act("ACTIVATION_TANH", 0.0f)) == 0u);
    CHECK(bits(act("ACTIVATION_GELU", 0.0f)) == 0u);
    CHECK(act("ACTIVATION_SOFTSIGN", 1.0f) == 0.5f);
    CHECK(act("ACTIVATION_SOFTSIGN", -3.0f) == -0.75f);
    // SOFTSIGN(1/3 as a float) = x / (1 + x): one rounding of the exact quotient.
    const float third = 1.0f / 3;
    CHECK(act("ACTIVATION_SOFTSIGN", third) == float(double(third) / (1 + double(third))));
    // HARD_SIGMOID, Alpha 1/4, Beta 1/2: 4 -> 1.5 clamps to 1, -4 -> -0.5 clamps to 0, 1 -> 3/4.
    CHECK(act("ACTIVATION_HARD_SIGMOID", 4.0f, 0.25f, 0.5f) == 1.0f);
    CHECK(bits(act("ACTIVATION_HARD_SIGMOID", -4.0f, 0.25f, 0.5f)) == 0u);
    CHECK(act("ACTIVATION_HARD_SIGMOID", 1.0f, 0.25f, 0.5f) == 0.75f);
    // THRESHOLDED_RELU, Alpha 1/2: x > Alpha strictly.
    CHECK(act("ACTIVATION_THRESHOLDED_RELU", 0.5f, 0.5f) == 0.0f);
    CHECK(act("ACTIVATION_THRESHOLDED_RELU", 0.5000001f, 0.5f) == 0.5000001f);
    // SHRINK, Bias 1/4, Threshold 1/2: 3/4 -> 1/2, -3/4 -> -1/2, 1/2 -> 0; Threshold -1 (page order): 0 > -1 gives 0 - Bias.
    CHECK(act("ACTIVATION_SHRINK", 0.75f, 0.25f, 0.5f) == 0.5f);
    CHECK(act("ACTIVATION_SHRINK", -0.75f, 0.25f, 0.5f) == -0.5f);
    CHECK(bits(act("ACTIVATION_SHRINK", 0.5f, 0.25f, 0.5f)) == 0u);
    CHECK(act("ACTIVATION_SHRINK", 0.0f, 0.25f, -1.0f) == -0.25f);
    // ELU and CELU are x itself for x >= 0; SCALED_ELU is Gamma x rounded once for x > 0.
    CHECK(act("ACTIVATION_ELU", 3.5f, 0.5f) == 3.5f);
    CHECK(act("ACTIVATION_CELU", 3.5f, -2.0f) == 3.5f);
    CHECK(act("ACTIVATION_SCALED_ELU", 3.0f, 1.6732f, 1.0507f) == float(3.0 * double(1.0507f)));
    // Factors of 0 make the value exactly 0 (+0): ELU Alpha 0, SCALED_ELU Gamma 0, PARAMETRIC_SOFTPLUS
    // Alpha 0, SCALED_TANH Beta 0 (BnActivationExactCases).
    CHECK(bits(act("ACTIVATION_ELU", -2.0f, 0.0f)) == 0u);
    CHECK(bits(act("ACTIVATION_SCALED_ELU", -2.0f, 1.5f, 0.0f)) == 0u);
    CHECK(bits(act("ACTIVATION_PARAMETRIC_SOFTPLUS", 5.0f, 0.0f, 1.0f)) == 0u);
    CHECK(bits(act("ACTIVATION_SCALED_TANH", 5.0f, 2.0f, 0.0f)) == 0u);
    // Integers round half to even: SIGMOID(0) = 1/2 gives 0; SOFTSIGN(3) = 3/4 gives 1.
    CHECK(act("ACTIVATION_SIGMOID", int32_t(0)) == 0);
    CHECK(act("ACTIVATION_SOFTSIGN", int32_t(3)) == 1);
}

TEST_CASE("fused activations: a -0 normalized value (BnActivationSignedZero)") {
    // The pages' formulas at y = -0 (a tiny negative BN value rounded): LEAKY_RELU's y >= 0 ? y : Alpha y
    // and ELU's y >= 0 ? y : ... select y (-0 >= 0 holds): -0; THRESHOLDED_RELU's y > Alpha ? y : 0
    // selects y only for Alpha < 0. Zeros the formula computes are exact zeros, +0: RELU (max(0, -0),
    // SignedZeroMinMax), CELU (a sum), LINEAR's Alpha y + 0, TANH, GELU, SOFTSIGN, SHRINK's 0.
    const float nz = -0.0f;
    CHECK(bits(act("ACTIVATION_LEAKY_RELU", nz, 0.1f)) == 0x80000000u);
    CHECK(to_bits(act("ACTIVATION_LEAKY_RELU", half_from_double(-0.0), 0.1f)) == 0x8000u);
    CHECK(to_bits(act("ACTIVATION_LEAKY_RELU", -0.0, 0.1f)) == 0x8000000000000000u);
    CHECK(bits(act("ACTIVATION_ELU", nz, 1.0f)) == 0x80000000u);
    CHECK(bits(act("ACTIVATION_THRESHOLDED_RELU", nz, -1.0f)) == 0x80000000u);
    CHECK(bits(act("ACTIVATION_THRESHOLDED_RELU", nz, 0.5f)) == 0u);
    CHECK(bits(act("ACTIVATION_IDENTITY", nz)) == 0x80000000u);
    for (const char* n :
         {"ACTIVATION_RELU", "ACTIVATION_CELU", "ACTIVATION_TANH", "ACTIVATION_GELU", "ACTIVATION_SOFTSIGN",
          "ACTIVATION_SCALED_TANH", "ACTIVATION_SCALED_ELU", "ACTIVATION_SHRINK", "ACTIVATION_LINEAR"}) {
        CAPTURE(n);
        CHECK(bits(act(n, nz, 1.0f, 0.0f)) == 0u);
    }
    // +0 stays +0, and a selected non-zero value is unchanged.
    CHECK(bits(act("ACTIVATION_LEAKY_RELU", 0.0f, 0.1f)) == 0u);
    CHECK(act("ACTIVATION_LEAKY_RELU", 2.5f, 0.1f) == 2.5f);
    CHECK(act("ACTIVATION_LEAKY_RELU", kInf, 0.1f) == kInf);
    // The alternative reading PositiveZero: +0.
    {
        ScopedReadings r(reading_id("BnActivationSignedZero", "PositiveZero"));
        CHECK(bits(act("ACTIVATION_LEAKY_RELU", nz, 0.1f)) == 0u);
        CHECK(bits(act("ACTIVATION_ELU", nz, 1.0f)) == 0u);
        CHECK(act("ACTIVATION_LEAKY_RELU", 2.5f, 0.1f) == 2.5f);
    }
    CHECK(bits(act("ACTIVATION_LEAKY_RELU", nz, 0.1f)) == 0x80000000u);
}

TEST_CASE(
    "fused activations: NaN, infinities and huge or tiny values (BnActivationNaN, BnActivationInfinity, BnActivationTiny)") {
    for (const char* n : {"ACTIVATION_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_THRESHOLDED_RELU", "ACTIVATION_SHRINK",
                          "ACTIVATION_CELU", "ACTIVATION_HARD_SIGMOID", "ACTIVATION_GELU", "ACTIVATION_SOFTSIGN"}) {
        CAPTURE(n);
        CHECK(bits(act(n, kNaN, 0.5f, 0.5f)) == bits(canonical_nan<float>()));
    }
    CHECK(bits(act("ACTIVATION_RELU", kNaN)) == 0u);  // RELU keeps its own policy
    CHECK(act("ACTIVATION_SIGMOID", kInf) == 1.0f);
    CHECK(bits(act("ACTIVATION_SIGMOID", -kInf)) == 0u);
    CHECK(act("ACTIVATION_TANH", -kInf) == -1.0f);
    CHECK(act("ACTIVATION_SOFTSIGN", kInf) == 1.0f);   // inf / (1 + inf) would be NaN
    CHECK(bits(act("ACTIVATION_GELU", -kInf)) == 0u);  // -inf * 0 would be NaN
    CHECK(act("ACTIVATION_GELU", kInf) == kInf);
    CHECK(act("ACTIVATION_ELU", -kInf, 0.75f) == -0.75f);
    CHECK(act("ACTIVATION_CELU", -kInf, 0.75f) == -0.75f);
    CHECK(act("ACTIVATION_CELU", -kInf, -2.0f) == -kInf);
    CHECK(act("ACTIVATION_SCALED_ELU", -kInf, 2.0f, 1.5f) == -3.0f);
    CHECK(bits(act("ACTIVATION_SOFTPLUS", -kInf, 2.0f)) == 0u);
    CHECK(act("ACTIVATION_SCALED_TANH", -kInf, 1.5f, -0.5f) == 1.5f);
    CHECK(act("ACTIVATION_HARD_SIGMOID", kInf, 0.0f, 0.25f) == 0.25f);  // Alpha 0: the constant
    CHECK(act("ACTIVATION_SHRINK", -kInf, 0.25f, 0.5f) == -kInf);
    // exp underflows: the exact value is rounded. e^-110 = 1.7e-48 < 2^-150: SIGMOID(-110) is +0 in
    // FLOAT32; e^-100 = 3.72e-44 rounds to 27 * 2^-149 (3.78e-44; 26.5 * 2^-149 is 3.71e-44);
    // e^-90 = 8.19e-40 is a subnormal; GELU(-20) is a negative value below 2^-150: -0.
    CHECK(bits(act("ACTIVATION_SIGMOID", -110.0f)) == 0u);
    CHECK(bits(act("ACTIVATION_SIGMOID", -100.0f)) == 27u);
    const float s90 = act("ACTIVATION_SIGMOID", -90.0f);
    CHECK(s90 > 0.0f);
    CHECK(s90 < std::numeric_limits<float>::min());
    CHECK(std::fabs(double(s90) - std::exp(-90.0)) <=
          0x1p-150);  // within half the subnormal spacing (double's exp is far closer)
    CHECK(bits(act("ACTIVATION_GELU", -20.0f)) == 0x80000000u);
    // Huge arguments: beyond 2^10 the value is its limit nudged by far less than any spacing.
    CHECK(act("ACTIVATION_SIGMOID", 1e30f) == 1.0f);
    CHECK(bits(act("ACTIVATION_SIGMOID", -1e30f)) == 0u);
    CHECK(act("ACTIVATION_SOFTPLUS", 1e30f, 1.0f) == 1e30f);
    CHECK(act("ACTIVATION_ELU", -1e30f, 0.75f) == -0.75f);
    CHECK(act("ACTIVATION_GELU", 3000.0f) == 3000.0f);
    CHECK(bits(act("ACTIVATION_GELU", -3000.0f)) == 0x80000000u);
    CHECK(act("ACTIVATION_SIGMOID", 1e300) == 1.0);
    CHECK(act("ACTIVATION_CELU", -1e30f, -2.0f) == -kInf);  // -2 (e^(5e29) - 1) overflows
    // SIGMOID(20) in FLOAT32 is 1 - 2.06e-9: above 1 - 2^-25 (the midpoint between 1 - 2^-24 and 1), so 1.
    CHECK(act("ACTIVATION_SIGMOID", 20.0f) == 1.0f);
    // SIGMOID(16): 1 - 1.125e-7 lies between 1 - 2^-23 (1.19e-7) and 1 - 2^-24 (5.96e-8), nearer 1 - 2^-23.
    CHECK(act("ACTIVATION_SIGMOID", 16.0f) == 1.0f - 0x1p-23f);
}

TEST_CASE("fused activations: next to a rounding tie, Ziv's loop decides (hard cases)") {
    // 2.5 tanh(z) < 2.5 for every finite z: INT32 rounds it to 2 (below the tie, not by ties to
    // even); -2.5 tanh(z) gives -2 likewise. z = 900: 2.5 - 5 e^-1800 (2^-2596 below the tie: about
    // 2600 bits decide it); z = 2000: beyond 2^10, the limit nudged inward.
    CHECK(act("ACTIVATION_SCALED_TANH", int32_t(1000), 2.5f, 0.9f) == 2);
    CHECK(act("ACTIVATION_SCALED_TANH", int32_t(-1000), 2.5f, 0.9f) == -2);
    CHECK(act("ACTIVATION_SCALED_TANH", int32_t(2000), 2.5f, 1.0f) == 2);
    // ELU with Alpha 1.5 in INT32: -1.5 (1 - e^-800) rounds to -1 where -1.5 itself would tie to -2.
    CHECK(act("ACTIVATION_ELU", int32_t(-800), 1.5f) == -1);
    CHECK(act("ACTIVATION_ELU", int32_t(-5000), 1.5f) == -1);
    // FLOAT16: Alpha = 1 + 2^-11 is the midpoint between 1 and 1 + 2^-10; Alpha tanh(600) lies just
    // below it and rounds to 1, where Alpha itself would tie to 1 (even) and Alpha (1 + tiny) to 1 + 2^-10.
    CHECK(to_bits(act("ACTIVATION_SCALED_TANH", half_from_double(600), 1.0f + 0x1p-11f, 1.0f)) ==
          to_bits(half_from_double(1)));
    // SIGMOID in FLOAT64 at 700: 1 - e^-700 (1e-304) rounds to 1.
    CHECK(act("ACTIVATION_SIGMOID", 700.0) == 1.0);
}

TEST_CASE_TEMPLATE("fused activations: every activation against the independent 300-bit formulas", T, float, half,
                   double, int16_t) {
    std::mt19937_64 rng(404 + sizeof(T));
    const std::optional<DML_FUSED_ACTIVATION> acts[] = {activation("ACTIVATION_SIGMOID"),
                                                        activation("ACTIVATION_HARD_SIGMOID", 0.2f, 0.5f),
                                                        activation("ACTIVATION_TANH"),
                                                        activation("ACTIVATION_SCALED_TANH", 1.7159f, 0.6666f),
                                                        activation("ACTIVATION_THRESHOLDED_RELU", 1.0f),
                                                        activation("ACTIVATION_ELU", 1.0f),
                                                        activation("ACTIVATION_CELU", 0.5f),
                                                        activation("ACTIVATION_CELU", -1.5f),
                                                        activation("ACTIVATION_SCALED_ELU", 1.6732f, 1.0507f),
                                                        activation("ACTIVATION_SOFTPLUS", 1.0f),
                                                        activation("ACTIVATION_SOFTPLUS", 3.0f),
                                                        activation("ACTIVATION_PARAMETRIC_SOFTPLUS", 2.0f, 0.5f),
                                                        activation("ACTIVATION_PARAMETRIC_SOFTPLUS", -1.0f, -3.0f),
                                                        activation("ACTIVATION_SOFTSIGN"),
                                                        activation("ACTIVATION_SHRINK", 0.5f, 0.25f),
                                                        activation("ACTIVATION_GELU"),
                                                        activation("ACTIVATION_LEAKY_RELU", 0.01f),
                                                        activation("ACTIVATION_LINEAR", 0.5f, -0.125f),
                                                        activation("ACTIVATION_RELU")};
    std::uniform_real_distribution<double> U(-1, 1);
    for (const auto& a : acts) {
        CAPTURE(a->name());
        CAPTURE(a->Parameters[0]);
        for (int k = 0; k < 200; ++k) {
            // Values from 2^-30 to 2^6 in magnitude, both signs (integers: -40 to 40).
            T y;
            if constexpr (std::is_integral_v<T>) y = T(std::uniform_int_distribution<int>(-40, 40)(rng));
            else y = value_of<T>(U(rng) * std::ldexp(1.0, std::uniform_int_distribution<int>(-30, 6)(rng)));
            if (widen(y) == 0) y = value_of<T>(0.0);  // -0 has its own test (BnActivationSignedZero)
            CAPTURE(widen(y));
            CHECK(to_bits(reference::fused_activation(*a, y)) == to_bits(naive_activate<T>(a, y)));
        }
    }
}

namespace {

// A float32 backend: BN in float32 (x - m) * s / sqrt(D) + b, then the activation in float32 from
// <cmath> (expf, tanhf, erff, log1pf).
float backend_activation(const std::string& n, float y) {
    if (n == "ACTIVATION_SIGMOID") return 1.0f / (1.0f + std::exp(-y));
    if (n == "ACTIVATION_TANH") return std::tanh(y);
    if (n == "ACTIVATION_GELU") return 0.5f * y * (1.0f + std::erf(y * 0.70710678f));
    if (n == "ACTIVATION_SOFTPLUS") return std::log(1.0f + std::exp(2.0f * y)) / 2.0f;
    if (n == "ACTIVATION_ELU") return y >= 0 ? y : 0.75f * (std::exp(y) - 1.0f);
    if (n == "ACTIVATION_SOFTSIGN") return y / (1.0f + std::fabs(y));
    return y;
}

}  // namespace

TEST_CASE("fused activations: the bound accepts a float32 backend and rejects planted errors and a wrong activation") {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<float> U(-1, 1);
    const std::pair<const char*, float> names[] = {{"ACTIVATION_SIGMOID", 0.0f}, {"ACTIVATION_TANH", 0.0f},
                                                   {"ACTIVATION_GELU", 0.0f},    {"ACTIVATION_SOFTPLUS", 2.0f},
                                                   {"ACTIVATION_ELU", 0.75f},    {"ACTIVATION_SOFTSIGN", 0.0f}};
    uint64_t planted = 0, wrong = 0;
    for (const auto& [name_c, param] : names) {
        const std::string name = name_c;
        CAPTURE(name);
        for (int trial = 0; trial < 10; ++trial) {
            const uint32_t N = 8, C = 2;
            std::vector<float> x, mean, var, scale, bias;
            for (uint32_t i = 0; i < N * C; ++i) x.push_back(4 * U(rng));
            for (uint32_t c = 0; c < C; ++c) {
                mean.push_back(U(rng));
                var.push_back(0.25f + std::fabs(U(rng)));
                scale.push_back(2 * U(rng));
                bias.push_back(U(rng));
            }
            const Shape s{{N, C}, {1, C}, {1, C}, {1, C}, {1, C}};
            Case c;
            c.op = bn_op(DataType::FLOAT32, s, 1e-5f, activation(name, param), false);
            const auto& D = get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(c.op.Desc);
            c.inputs = {{"InputTensor", buffer(D.InputTensor, x)},
                        {"MeanTensor", buffer(D.MeanTensor, mean)},
                        {"VarianceTensor", buffer(D.VarianceTensor, var)},
                        {"ScaleTensor", buffer(D.ScaleTensor, scale)},
                        {"BiasTensor", buffer(D.BiasTensor, bias)}};
            const auto golden = as_values<float>(run_case(c).values.at("OutputTensor"));
            const auto bound = *batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
            ElementTolerance e;
            e.kind = "Summed";
            auto accepted = [&](float g, float a, double b) {
                e.bound = b;
                return judge(DataType::FLOAT32, to_bits(g), to_bits(a), e, DiffSwitches{}).verdict != Verdict::Over;
            };
            for (uint32_t i = 0; i < N * C; ++i) {
                CAPTURE(i);
                const uint32_t k = i % C;
                const float y = (x[i] - mean[k]) * scale[k] / std::sqrt(var[k] + 1e-5f) + bias[k];
                const float b = backend_activation(name, y);
                CHECK(accepted(golden[i], b, bound[i]));
                REQUIRE(std::isfinite(bound[i]));
                // A few ULPs beyond the bound: the first float past it, then 3 more. The walk starts at
                // the float nearest golden + bound (stepping from the golden itself takes up to 10^8
                // steps where the golden is tiny and the bound is not), steps back while the float
                // below is still past the bound, then forward until it is past.
                const auto past = [&](float v) { return std::fabs(double(v) - golden[i]) > bound[i]; };
                float over = float(double(golden[i]) + bound[i]);
                while (over > golden[i] && past(std::nextafter(over, -kInf))) over = std::nextafter(over, -kInf);
                while (!past(over)) over = std::nextafter(over, kInf);
                for (int u = 0; u < 3; ++u) over = std::nextafter(over, kInf);
                CHECK_FALSE(accepted(golden[i], over, bound[i]));
                ++planted;
                // A wrong activation (TANH for SIGMOID and the others, SIGMOID for TANH) where it differs by more than the bound.
                const float other = backend_activation(
                    name == "ACTIVATION_TANH" ? "ACTIVATION_SIGMOID" : "ACTIVATION_TANH", y);
                if (std::fabs(double(other) - golden[i]) > 2 * bound[i]) {
                    CHECK_FALSE(accepted(golden[i], other, bound[i]));
                    ++wrong;
                }
            }
        }
    }
    CHECK(planted == 6 * 10 * 16);
    CHECK(wrong > planted / 2);
}

TEST_CASE(
    "fused activations: FLOAT16 data computed in float32 (the float32 profile) is accepted; 3 halfs beyond the bound are not") {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> U(-1, 1);
    const std::pair<const char*, float> names[] = {{"ACTIVATION_SIGMOID", 0.0f},
                                                   {"ACTIVATION_GELU", 0.0f},
                                                   {"ACTIVATION_SOFTPLUS", 2.0f},
                                                   {"ACTIVATION_TANH", 0.0f}};
    ArithmeticProfile p;
    p.accumulate = Accumulate::Float32;
    for (const auto& [name_c, param] : names) {
        const std::string name = name_c;
        CAPTURE(name);
        const uint32_t N = 16;
        std::vector<half> x, mean, var, scale, bias;
        for (uint32_t i = 0; i < N; ++i) x.push_back(half_from_double(3 * U(rng)));
        mean.push_back(half_from_double(U(rng)));
        var.push_back(half_from_double(0.5 + std::fabs(U(rng))));
        scale.push_back(half_from_double(2 * U(rng)));
        bias.push_back(half_from_double(U(rng)));
        const Shape s{{1, N}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
        Case c;
        c.op = bn_op(DataType::FLOAT16, s, 1e-3f, activation(name, param), false);
        const auto& D = get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(c.op.Desc);
        c.inputs = {{"InputTensor", buffer(D.InputTensor, x)},
                    {"MeanTensor", buffer(D.MeanTensor, mean)},
                    {"VarianceTensor", buffer(D.VarianceTensor, var)},
                    {"ScaleTensor", buffer(D.ScaleTensor, scale)},
                    {"BiasTensor", buffer(D.BiasTensor, bias)}};
        const auto golden = as_values<half>(run_case(c).values.at("OutputTensor"));
        const auto bound = *batch_normalization_bounds(c, "OutputTensor", p);
        ElementTolerance e;
        e.kind = "Summed";
        auto accepted = [&](half g, half a, double b) {
            e.bound = b;
            return judge(DataType::FLOAT16, to_bits(g), to_bits(a), e, DiffSwitches{}).verdict != Verdict::Over;
        };
        auto f = [](half h) { return float(half_to_double(h)); };
        for (uint32_t i = 0; i < N; ++i) {
            CAPTURE(i);
            const float y = (f(x[i]) - f(mean[0])) * f(scale[0]) / std::sqrt(f(var[0]) + 1e-3f) + f(bias[0]);
            const half b = half_from_double(double(backend_activation(name, y)));
            CHECK(accepted(golden[i], b, bound[i]));
            REQUIRE(std::isfinite(bound[i]));
            // The next half up, by its bits (-0 goes to the smallest subnormal).
            auto up = [](half h) {
                const uint16_t u = to_bits(h);
                return from_bits<half>(uint16_t(u == 0x8000 ? 1 : (u & 0x8000) ? u - 1 : u + 1));
            };
            half over = golden[i];
            while (std::fabs(half_to_double(over) - half_to_double(golden[i])) <= bound[i]) over = up(over);
            for (int u = 0; u < 3; ++u) over = up(over);
            CHECK_FALSE(accepted(golden[i], over, bound[i]));
        }
    }
}

}  // namespace dmlref_test_fused_activation
