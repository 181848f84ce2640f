// MEAN_VARIANCE_NORMALIZATION, _NORMALIZATION1 and _NORMALIZATION2. Expected values come from a
// naive evaluation written here (each element's group found by comparing coordinates with every
// other element, the variance as E[X^2] - E[X]^2 in MPFR at 300 bits: another formula than the
// reference's two exact passes), from the pages' formula worked by hand (values below derived with
// Python's decimal module at 80 digits, rounded to nearest even by hand), and from the bound's
// planted float32 backends (two-pass, one-pass with its cancellation, and wrong ones).
#include "bn_naive.hpp"

#include "dmlref/descs/mean_variance_normalization.hpp"
#include "dmlref/tolerance.hpp"

#include <algorithm>
#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_mean_variance_normalization {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

namespace {

using MVN = DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC;
using MVN1 = DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC;
using MVN2 = DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC;

// What a test case asks for, whichever the operator.
struct Spec {
    OperatorType type = OperatorType::MEAN_VARIANCE_NORMALIZATION1;
    DataType t = DataType::FLOAT32;
    std::vector<uint32_t> in;
    std::vector<uint32_t> axes;  // MVN1, MVN2
    bool cross_channel = false;  // MVN
    bool use_mean = true, use_variance = true;
    std::optional<std::vector<uint32_t>> scale, bias;
    float eps = 0;
    std::optional<DML_FUSED_ACTIVATION> act;
    bool strided = false;
};

template <class D> void fill_common(D& d, const Spec& s) {
    d.InputTensor = desc(s.t, s.in, s.strided ? packed_plus(s.in, 3) : std::vector<uint32_t>{});
    d.OutputTensor = desc(s.t, s.in, s.strided ? packed_plus(s.in, 2) : std::vector<uint32_t>{});
    if (s.scale) d.ScaleTensor = desc(s.t, *s.scale);
    if (s.bias) d.BiasTensor = desc(s.t, *s.bias);
    d.Epsilon = s.eps;
    d.FusedActivation = s.act;
}

Operator make(const Spec& s) {
    if (s.type == OperatorType::MEAN_VARIANCE_NORMALIZATION) {
        MVN d;
        fill_common(d, s);
        d.CrossChannel = s.cross_channel;
        d.NormalizeVariance = s.use_variance;
        return {s.type, d};
    }
    if (s.type == OperatorType::MEAN_VARIANCE_NORMALIZATION1) {
        MVN1 d;
        fill_common(d, s);
        d.AxisCount = uint32_t(s.axes.size());
        d.Axes = s.axes;
        d.NormalizeVariance = s.use_variance;
        return {s.type, d};
    }
    MVN2 d;
    fill_common(d, s);
    d.AxisCount = uint32_t(s.axes.size());
    d.Axes = s.axes;
    d.UseMean = s.use_mean;
    d.UseVariance = s.use_variance;
    return {s.type, d};
}

// The reduced dimensions as the pages define them.
std::vector<bool> reduced(const Spec& s) {
    std::vector<bool> r(s.in.size(), false);
    if (s.type == OperatorType::MEAN_VARIANCE_NORMALIZATION)
        for (size_t d = s.cross_channel ? 1 : 2; d < s.in.size(); ++d) r[d] = true;
    else
        for (uint32_t a : s.axes) r[a] = true;
    return r;
}

// The naive evaluation: group members by coordinate comparison, E[X^2] - E[X]^2 at 300 bits.
template <class T>
std::vector<T> naive(const Spec& s, const std::vector<T>& x, const std::vector<T>& scale, const std::vector<T>& bias) {
    const auto red = reduced(s);
    const uint64_t n = x.size();
    std::vector<T> y;
    for (uint64_t i = 0; i < n; ++i) {
        const auto ci = unflatten(i, s.in);
        Big sum, sum_sq, m;
        mpfr_set_zero(sum.v, 1);
        mpfr_set_zero(sum_sq.v, 1);
        uint64_t count = 0;
        for (uint64_t j = 0; j < n; ++j) {
            const auto cj = unflatten(j, s.in);
            bool same = true;
            for (size_t d = 0; d < ci.size(); ++d) same = same && (red[d] || ci[d] == cj[d]);
            if (!same) continue;
            ++count;
            sum = sum + big(x[j]);
            sum_sq = sum_sq + big(x[j]) * big(x[j]);
        }
        mpfr_set_ui(m.v, static_cast<unsigned long>(count), MPFR_RNDN);
        Big mean = sum / m;
        if (!s.use_mean) mpfr_set_zero(mean.v, 1);
        const Big var = sum_sq / m - mean * mean;  // about Mean (UseMean FALSE: about 0)
        Big v = big(x[i]) - mean;
        if (s.scale) v = big(scale[broadcast_index(i, s.in, *s.scale)]) * v;
        if (s.use_variance) v = v / sqrt_of(var + Big(double(s.eps)));
        if (s.bias) v = v + big(bias[broadcast_index(i, s.in, *s.bias)]);
        y.push_back(naive_activate<T>(s.act, round_big<T>(v)));
    }
    return y;
}

std::optional<std::vector<uint32_t>> maybe_stat(std::mt19937_64& rng, const std::vector<uint32_t>& in) {
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) return std::nullopt;
    return random_stat_sizes(rng, in);
}

template <class T> void naive_trials(int trials, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::optional<DML_FUSED_ACTIVATION> acts[] = {std::nullopt, std::nullopt, activation("ACTIVATION_RELU"),
                                                        activation("ACTIVATION_LEAKY_RELU", 0.125f),
                                                        activation("ACTIVATION_SIGMOID")};
    const OperatorType types[] = {OperatorType::MEAN_VARIANCE_NORMALIZATION, OperatorType::MEAN_VARIANCE_NORMALIZATION1,
                                  OperatorType::MEAN_VARIANCE_NORMALIZATION2};
    for (int trial = 0; trial < trials; ++trial) {
        CAPTURE(trial);
        Spec s;
        s.type = types[trial % 3];
        s.t = data_type_of<T>();
        const int rank = std::uniform_int_distribution<int>(s.type == OperatorType::MEAN_VARIANCE_NORMALIZATION ? 2 : 1,
                                                            5)(rng);
        for (int d = 0; d < rank; ++d) s.in.push_back(uint32_t(std::uniform_int_distribution<int>(1, 3)(rng)));
        for (uint32_t a = 0; a < uint32_t(rank); ++a)
            if (std::uniform_int_distribution<int>(0, 1)(rng)) s.axes.push_back(a);
        if (s.axes.empty()) s.axes.push_back(uint32_t(rank - 1));
        std::shuffle(s.axes.begin(), s.axes.end(), rng);
        s.cross_channel = trial % 2;
        s.use_mean = s.type != OperatorType::MEAN_VARIANCE_NORMALIZATION2 || trial % 4 != 2;
        s.use_variance = trial % 5 != 3;
        s.scale = maybe_stat(rng, s.in);
        s.bias = maybe_stat(rng, s.in);
        s.eps = kEpsilons[trial % 4];
        s.act = acts[trial % 5];
        s.strided = trial % 2 == 0;
        CAPTURE(operator_type_name(s.type));
        const Operator op = make(s);
        const auto x = random_values<T>(rng, product(s.in));
        const auto scale = s.scale ? random_values<T>(rng, product(*s.scale)) : std::vector<T>{};
        const auto bias = s.bias ? random_values<T>(rng, product(*s.bias)) : std::vector<T>{};
        std::map<std::string, std::vector<std::byte>> inputs;
        inputs["InputTensor"] = logical_buffer(
            desc(s.t, s.in, s.strided ? packed_plus(s.in, 3) : std::vector<uint32_t>{}), x, std::byte{0x5a});
        if (s.scale) inputs["ScaleTensor"] = buffer(desc(s.t, *s.scale), scale);
        if (s.bias) inputs["BiasTensor"] = buffer(desc(s.t, *s.bias), bias);
        check_bits(as_values<T>(run(op, inputs).at("OutputTensor")), naive<T>(s, x, scale, bias));
    }
}

std::vector<float> run_f32(const Spec& s, const std::vector<float>& x, const std::vector<float>& scale = {},
                           const std::vector<float>& bias = {}) {
    std::map<std::string, std::vector<std::byte>> inputs = {{"InputTensor", logical_buffer(desc(s.t, s.in), x)}};
    if (s.scale) inputs["ScaleTensor"] = buffer(desc(s.t, *s.scale), scale);
    if (s.bias) inputs["BiasTensor"] = buffer(desc(s.t, *s.bias), bias);
    return as_values<float>(run(make(s), inputs).at("OutputTensor"));
}

void check_f32_bits(const std::vector<float>& y, std::initializer_list<uint32_t> bits) {
    REQUIRE(y.size() == bits.size());
    size_t i = 0;
    for (uint32_t b : bits) {
        CAPTURE(i);
        CHECK(to_bits(y[i++]) == b);
    }
}

}  // namespace

TEST_CASE("mean variance normalization: the three operators against a naive evaluation at 300 bits") {
    naive_trials<float>(30, 731);
    naive_trials<half>(15, 732);
    naive_trials<double>(15, 733);
    naive_trials<int16_t>(15, 734);
}

TEST_CASE("mean variance normalization: the pages' formula by hand") {
    Spec s;
    s.in = {1, 1, 2, 2};
    s.axes = {2, 3};
    // X = 1, 2, 3, 4: Mean 5/2, population Variance 5/4 (MvnVariance), Epsilon 0.
    check_f32_bits(run_f32(s, {1, 2, 3, 4}), {0xbfabbae3, 0xbee4f92e, 0x3ee4f92e, 0x3fabbae3});
    // Epsilon 1e-5f (0.00000999999974737875...) inside the root (MvnEpsilon).
    s.eps = 1e-5f;
    check_f32_bits(run_f32(s, {1, 2, 3, 4}), {0xbfabbab6, 0xbee4f8f2, 0x3ee4f8f2, 0x3fabbab6});
    // NormalizeVariance FALSE: Scale (X - Mean) + Bias = 2 (X - 5/2) + 1, exact.
    s.use_variance = false;
    s.scale = s.bias = std::vector<uint32_t>{1, 1, 1, 1};
    CHECK(run_f32(s, {1, 2, 3, 4}, {2}, {1}) == std::vector<float>{-2, 0, 2, 4});
    // A perfect square: X = 1, 3 over one group is Mean 2, Variance 1: -1, 1 exactly; then * 3 - 0.5.
    s.use_variance = true;
    s.eps = 0;
    s.in = {2};
    s.axes = {0};
    s.scale = s.bias = std::vector<uint32_t>{1};
    CHECK(run_f32(s, {1, 3}, {3}, {-0.5f}) == std::vector<float>{-3.5f, 2.5f});
    // Equal values with Epsilon 0: 0 / 0 is NaN (MvnSpecialValues); with Epsilon 1/4, +0.
    s.scale = s.bias = std::nullopt;
    const auto nan = run_f32(s, {5, 5});
    CHECK((std::isnan(nan[0]) && std::isnan(nan[1])));
    s.eps = 0.25f;
    check_f32_bits(run_f32(s, {5, 5}), {0, 0});
}

TEST_CASE("mean variance normalization: CrossChannel's axes, MVN2's UseMean and UseVariance") {
    Spec s;
    s.type = OperatorType::MEAN_VARIANCE_NORMALIZATION;
    s.in = {1, 2, 1, 2};
    // X = 1, 3 | 5, 9. TRUE: one group of four, Mean 9/2, Variance 35/4.
    s.cross_channel = true;
    check_f32_bits(run_f32(s, {1, 3, 5, 9}), {0xbf97739f, 0xbf01d0d1, 0x3e2d166c, 0x3fc2b93a});
    // FALSE: each channel alone (1, 3: Mean 2, Variance 1; 5, 9: Mean 7, Variance 4).
    s.cross_channel = false;
    CHECK(run_f32(s, {1, 3, 5, 9}) == std::vector<float>{-1, 1, -1, 1});
    // FALSE with two batches of one channel: each batch alone (MvnCrossChannelAxes), not {0, 2, 3}'s
    // one group (which would give 0xbf97739f...).
    s.in = {2, 1, 1, 2};
    CHECK(run_f32(s, {1, 3, 5, 9}) == std::vector<float>{-1, 1, -1, 1});
    // MVN1 with Axes {0, 2, 3} is that other reading.
    s.type = OperatorType::MEAN_VARIANCE_NORMALIZATION1;
    s.axes = {0, 2, 3};
    check_f32_bits(run_f32(s, {1, 3, 5, 9}), {0xbf97739f, 0xbf01d0d1, 0x3e2d166c, 0x3fc2b93a});
    // MVN2 UseMean FALSE: X / sqrt(mean(X^2) + Epsilon). 1, 7: mean square 25, so 1/5 and 7/5
    // rounded once (MvnUseMean); 3, 4: 12.5, irrational.
    s.type = OperatorType::MEAN_VARIANCE_NORMALIZATION2;
    s.in = {2};
    s.axes = {0};
    s.use_mean = false;
    CHECK(run_f32(s, {1, 7}) == std::vector<float>{0.2f, 1.4f});
    check_f32_bits(run_f32(s, {3, 4}), {0x3f593924, 0x3f90d0c3});
    // Both FALSE: Scale X + Bias, each optional on its own (MvnScaleBias): Bias alone adds.
    s.use_variance = false;
    s.bias = std::vector<uint32_t>{1};
    CHECK(run_f32(s, {3, 4}, {}, {0.5f}) == std::vector<float>{3.5f, 4.5f});
}

TEST_CASE("mean variance normalization: the pages' rules") {
    Spec s;
    s.in = {1, 2, 2, 2};
    s.axes = {2, 3};
    s.scale = std::vector<uint32_t>{1, 2, 1, 1};
    s.bias = std::vector<uint32_t>{1, 2, 1, 1};
    CHECK_FALSE(validate(make(s)).has_errors());
    Spec b = s;
    b.bias = std::vector<uint32_t>{1, 3, 1, 1};
    CHECK(has_error(make(b), "mvn1.broadcast", "/desc/BiasTensor/Sizes/1"));
    b = s;
    b.scale = std::vector<uint32_t>{2, 1, 1};
    CHECK(has_error(make(b), "mvn1.same-dimension-count", "/desc/ScaleTensor/Sizes"));
    b = s;
    b.axes = {2, 2};
    CHECK(has_error(make(b), "mvn1.axes-distinct", "/desc/Axes/1"));
    b.axes = {4};
    CHECK(has_error(make(b), "mvn1.axis-range", "/desc/Axes/0"));
    b.axes = {};
    CHECK(has_error(make(b), "mvn1.axis-count", "/desc/AxisCount"));
    b = s;
    b.type = OperatorType::MEAN_VARIANCE_NORMALIZATION2;
    b.eps = INFINITY;
    CHECK(has_error(make(b), "mvn2.epsilon-finite", "/desc/Epsilon"));
    b.type = OperatorType::MEAN_VARIANCE_NORMALIZATION;
    b.eps = 0;
    b.in = {4};
    b.scale = b.bias = std::nullopt;
    CHECK(has_error(make(b), "mvn.rank", "/desc/InputTensor/Sizes"));
    b = s;
    b.type = OperatorType::MEAN_VARIANCE_NORMALIZATION;
    MVN m = get<MVN>(make(b).Desc);
    CHECK_FALSE(validate(Operator{b.type, m}).has_errors());
    m.CrossChannel = 2;
    CHECK(has_error({b.type, m}, "mvn.cross-channel", "/desc/CrossChannel"));
}

// The bound (docs/tolerance.md, "Mean variance normalization"): float32 backends computing the
// statistics two-pass or as E[X^2] - E[X]^2 (with its cancellation: X near 1000, spread about 1)
// are within it; sample variance (M - 1), Epsilon outside the root and a value 1% off are not.
TEST_CASE("mean variance normalization: the bound takes either variance form and rejects wrong ones") {
    std::mt19937_64 rng(735);
    std::uniform_real_distribution<float> U(-1, 1);
    int rejected_sample = 0, rejected_outside = 0, rejected_off = 0;
    for (int trial = 0; trial < 12; ++trial) {
        CAPTURE(trial);
        const float offset = trial % 2 ? 1000.0f : 0.0f;
        const uint32_t M = std::uniform_int_distribution<uint32_t>(3, 24)(rng);
        Spec s;
        s.in = {2, M};
        s.axes = {1};
        s.eps = trial % 3 == 0 ? 0.25f : 1e-5f;
        std::vector<float> x;
        for (uint32_t i = 0; i < 2 * M; ++i) x.push_back(offset + U(rng));
        Case c;
        c.op = make(s);
        c.inputs["InputTensor"] = logical_buffer(desc(s.t, s.in), x);
        const auto golden = as_values<float>(run_case(c).values.at("OutputTensor"));
        const auto bound = batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
        REQUIRE(bound.has_value());
        for (uint32_t g = 0; g < 2; ++g) {
            const float* v = x.data() + g * M;
            float sum = 0, sq = 0;
            for (uint32_t i = 0; i < M; ++i) {
                sum += v[i];
                sq += v[i] * v[i];
            }
            const float mean = sum / float(M);
            float cen = 0;
            for (uint32_t i = 0; i < M; ++i) cen += (v[i] - mean) * (v[i] - mean);
            const float two_pass = cen / float(M), one_pass = sq / float(M) - mean * mean;
            for (uint32_t i = 0; i < M; ++i) {
                const size_t k = g * M + i;
                CAPTURE(k);
                const double b = (*bound)[k];
                auto within = [&](float a) { return std::fabs(double(a) - double(golden[k])) <= b; };
                CHECK(within((v[i] - mean) / std::sqrt(two_pass + s.eps)));
                if (one_pass + s.eps > 0) CHECK(within((v[i] - mean) * (1.0f / std::sqrt(one_pass + s.eps))));
                rejected_sample += !within((v[i] - mean) / std::sqrt(cen / float(M - 1) + s.eps));
                rejected_outside += !within((v[i] - mean) / (std::sqrt(two_pass) + s.eps));
                rejected_off += !within(golden[k] * 1.01f + (golden[k] == 0 ? 0.01f : 0));
            }
        }
    }
    CHECK(rejected_sample > 0);
    CHECK(rejected_outside > 0);
    CHECK(rejected_off > 0);
}

// --statistics stable (docs/tolerance.md, "Mean variance normalization"): groups of M = 64 values
// near 1000 (spread 1). Under the default the one-pass form's error bound of the variance is at
// least 2 |mean| e_mean, e_mean >= (M - 1) u min X (gamma_(M-1) of the sum, times 1/M, at least),
// which exceeds Variance + Epsilon: the root is unbounded and every bound is +infinity. Without
// the one-pass form the bounds are finite and hold float32 two-pass and Welford backends.
TEST_CASE("mean variance normalization: the stable statistics profile bounds what the default cannot") {
    std::mt19937_64 rng(736);
    std::uniform_real_distribution<float> U(-1, 1);
    const double u = std::ldexp(1.0, -24);
    const uint32_t M = 64;
    Spec s;
    s.in = {2, M};
    s.axes = {1};
    s.eps = 1e-5f;
    std::vector<float> x;
    for (uint32_t i = 0; i < 2 * M; ++i) x.push_back(1000.0f + U(rng));
    Case c;
    c.op = make(s);
    c.inputs["InputTensor"] = logical_buffer(desc(s.t, s.in), x);
    const auto golden = as_values<float>(run_case(c).values.at("OutputTensor"));
    ArithmeticProfile stable;
    stable.statistics = Statistics::Stable;
    const auto any = *batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{}),
               bound = *batch_normalization_bounds(c, "OutputTensor", stable);
    for (uint32_t g = 0; g < 2; ++g) {
        const float* v = x.data() + g * M;
        double mean = 0, var = 0;
        for (uint32_t i = 0; i < M; ++i) mean += v[i];
        mean /= M;
        for (uint32_t i = 0; i < M; ++i) var += (v[i] - mean) * (v[i] - mean);
        var /= M;
        REQUIRE(2 * std::fabs(mean) * (M - 1) * u * *std::min_element(v, v + M) > var + s.eps);
        float sum = 0, cen = 0, m = 0, M2 = 0;
        for (uint32_t i = 0; i < M; ++i) sum += v[i];
        const float tm = sum / float(M);
        for (uint32_t i = 0; i < M; ++i) cen += (v[i] - tm) * (v[i] - tm);
        for (uint32_t i = 0; i < M; ++i) {  // Welford
            const float d = v[i] - m;
            m += d / float(i + 1);
            M2 += d * (v[i] - m);
        }
        for (uint32_t i = 0; i < M; ++i) {
            const size_t k = g * M + i;
            CAPTURE(k);
            CHECK(std::isinf(any[k]));
            REQUIRE(std::isfinite(bound[k]));
            auto within = [&](float a) { return std::fabs(double(a) - double(golden[k])) <= bound[k]; };
            CHECK(within((v[i] - tm) / std::sqrt(cen / float(M) + s.eps)));
            CHECK(within((v[i] - m) / std::sqrt(M2 / float(M) + s.eps)));
        }
    }
}

}  // namespace dmlref_test_mean_variance_normalization
