// Batch normalization's magnitude bound (reference/batch_normalization_bound.cpp, docs/tolerance.md
// "Batch normalization"): independent float32 evaluations of the formulas (naive loops here, in
// several orders, rsqrt against 1/sqrt, folded scale and shift, fma) are accepted against the
// goldens over random cases with Bias cancelling the normalized value, and planted errors (one
// float beyond the bound, a wrong-sign Bias, FLOAT16-rounded statistics under the float32
// profile) are rejected.
#include "../reference/batch_normalization.hpp"
#include "bn_naive.hpp"

#include "dmlref/tolerance.hpp"

#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_batch_normalization_bound {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

namespace {

// How a float32 backend's value of an element compares with the golden under the bound.
template <class T> Verdict verdict(T golden, T actual, double bound) {
    ElementTolerance e;
    e.kind = "Summed";
    e.bound = bound;
    return judge(data_type_of<T>(), to_bits(golden), to_bits(actual), e, DiffSwitches{}).verdict;
}
template <class T> bool accepted(T golden, T actual, double bound) {
    return verdict(golden, actual, bound) != Verdict::Over;
}

float nudge(float v, int ulps) {
    for (int i = 0; i < std::abs(ulps); ++i) v = std::nextafter(v, ulps > 0 ? INFINITY : -INFINITY);
    return v;
}

// An rsqrt within 2 ULP of float32 (the float32 root of the float64 value, moved 0 to 2 ULP).
float rsqrt_2ulp(float d, std::mt19937_64& rng) {
    return nudge(float(1 / std::sqrt(double(d))), std::uniform_int_distribution<int>(-2, 2)(rng));
}

struct Data {
    uint32_t N, C;
    std::vector<float> x, mean, var, scale, bias;
};

// Per-channel statistics; Bias chosen to cancel the normalized value of one element per channel
// (and nearly cancel others): the golden there is tiny against |q| and |Bias|.
Data bn_data(std::mt19937_64& rng, float offset) {
    Data d;
    d.N = std::uniform_int_distribution<uint32_t>(2, 24)(rng);
    d.C = std::uniform_int_distribution<uint32_t>(1, 4)(rng);
    std::uniform_real_distribution<float> U(-1, 1);
    for (uint32_t i = 0; i < d.N * d.C; ++i) d.x.push_back(offset + 4 * U(rng));
    for (uint32_t c = 0; c < d.C; ++c) {
        d.mean.push_back(offset + U(rng));
        d.var.push_back(std::ldexp(1 + U(rng) * 0.9f, std::uniform_int_distribution<int>(-6, 4)(rng)));
        d.scale.push_back(3 * U(rng));
        const uint32_t j = std::uniform_int_distribution<uint32_t>(0, d.N - 1)(rng) * d.C + c;
        d.bias.push_back(
            float(-double(d.scale[c]) * (double(d.x[j]) - d.mean[c]) / std::sqrt(double(d.var[c]) + 1e-5)));
    }
    return d;
}

Case forward_case(const Data& d, float eps) {
    const Shape s{{d.N, d.C}, {1, d.C}, {1, d.C}, {1, d.C}, {1, d.C}};
    Case c;
    c.op = bn_op(DataType::FLOAT32, s, eps, std::nullopt, false);
    const auto& D = get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(c.op.Desc);
    c.inputs = {{"InputTensor", buffer(D.InputTensor, d.x)},
                {"MeanTensor", buffer(D.MeanTensor, d.mean)},
                {"VarianceTensor", buffer(D.VarianceTensor, d.var)},
                {"ScaleTensor", buffer(D.ScaleTensor, d.scale)},
                {"BiasTensor", buffer(D.BiasTensor, d.bias)}};
    return c;
}

}  // namespace

TEST_CASE("batch normalization bound: float32 evaluations in several orders are accepted, planted errors rejected") {
    std::mt19937_64 rng(2026);
    const float eps = 1e-5f;
    uint64_t elements = 0, cancelling = 0, wrong_sign_checked = 0;
    for (int trial = 0; trial < 60; ++trial) {
        CAPTURE(trial);
        const Data d = bn_data(rng, trial % 3 == 0 ? 8.0f : 0.0f);
        const Case c = forward_case(d, eps);
        const auto golden = as_values<float>(run_case(c).values.at("OutputTensor"));
        const auto bounds = batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
        REQUIRE(bounds.has_value());
        for (uint32_t i = 0; i < d.N * d.C; ++i) {
            const uint32_t k = i % d.C;
            const float x = d.x[i], m = d.mean[k], s = d.scale[k], b = d.bias[k];
            const float D = d.var[k] + eps;
            const float r1 = 1.0f / std::sqrt(D), r2 = rsqrt_2ulp(D, rng);
            const float a = s * r2;
            const float forms[] = {
                (x - m) * s / std::sqrt(D) + b,      // divide by the root
                ((x - m) * s) * r1 + b,              // reciprocal of the root
                (x - m) * (s * r2) + b,              // rsqrt, scale first
                s * ((x - m) * r2) + b,              // rsqrt, normalize first
                x * a + (b - m * a),                 // folded scale and shift
                std::fma(x, a, std::fma(-m, a, b)),  // folded with fma
                std::fma((x - m) * r2, s, b),        // fma for + Bias
            };
            const double bound = (*bounds)[i];
            for (size_t f = 0; f < std::size(forms); ++f) {
                CAPTURE(i);
                CAPTURE(f);
                CHECK(accepted(golden[i], forms[f], bound));
            }
            ++elements;
            const double q = double(s) * (double(x) - m) / std::sqrt(double(D));
            if (std::fabs(double(golden[i])) < 1e-3 * std::fabs(q)) ++cancelling;
            // A wrong-sign Bias: rejected wherever it moves the result by more than the bound.
            const float wrong = (x - m) * s / std::sqrt(D) - b;
            if (std::fabs(2.0 * b) > 2 * bound) {
                CHECK_FALSE(accepted(golden[i], wrong, bound));
                ++wrong_sign_checked;
            }
            // The first float beyond the bound on either side is rejected; the last one inside accepted.
            for (int dir : {1, -1}) {
                REQUIRE(std::isfinite(bound));
                float v = float(double(golden[i]) + dir * bound);  // near the edge, then out by whole floats
                while (std::fabs(double(v) - golden[i]) > bound) v = nudge(v, -dir);
                while (std::fabs(double(v) - golden[i]) <= bound) v = nudge(v, dir);
                CHECK(verdict(golden[i], v, bound) == Verdict::Over);
                CHECK(accepted(golden[i], nudge(v, -dir), bound));
            }
        }
    }
    CHECK(cancelling >= 60);  // Bias cancelled q to 1e-3 of |q| or better in at least one element per case
    CHECK(wrong_sign_checked > elements / 2);
}

TEST_CASE(
    "batch normalization bound: _TRAINING in float32 (two-pass and Welford) accepted; FLOAT16-rounded statistics rejected under float32") {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const uint32_t N = std::uniform_int_distribution<uint32_t>(4, 64)(rng), C = 2;
        const float offset = trial % 2 ? 100.0f : 0.0f, eps = 1e-5f;
        std::vector<float> x, scale, bias;
        for (uint32_t i = 0; i < N * C; ++i) x.push_back(offset + 2 * U(rng));
        for (uint32_t c = 0; c < C; ++c) {
            scale.push_back(2 * U(rng));
            bias.push_back(U(rng));
        }
        // Float32: the naive two-pass loop and Welford's updates.
        {
            Case c;
            c.op = training_op(DataType::FLOAT32, {N, C}, {1, C}, eps, false);
            const auto& D = get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(c.op.Desc);
            c.inputs = {{"InputTensor", logical_buffer(D.InputTensor, x)},
                        {"ScaleTensor", buffer(D.ScaleTensor, scale)},
                        {"BiasTensor", buffer(D.BiasTensor, bias)}};
            const auto out = run_case(c).values;
            const auto y = as_values<float>(out.at("OutputTensor")), gm = as_values<float>(out.at("OutputMeanTensor")),
                       gv = as_values<float>(out.at("OutputVarianceTensor"));
            const auto by = *batch_normalization_bounds(c, "OutputTensor", {}),
                       bm = *batch_normalization_bounds(c, "OutputMeanTensor", {}),
                       bv = *batch_normalization_bounds(c, "OutputVarianceTensor", {});
            for (uint32_t k = 0; k < C; ++k) {
                float sum = 0, m = 0, M2 = 0;
                for (uint32_t j = N; j-- > 0;) sum += x[j * C + k];  // backwards
                const float mean = sum / float(N);
                float ss = 0;
                for (uint32_t j = 0; j < N; ++j) ss += (x[j * C + k] - mean) * (x[j * C + k] - mean);
                const float var = ss / float(N);
                for (uint32_t j = 0; j < N; ++j) {  // Welford
                    const float v = x[j * C + k], delta = v - m;
                    m += delta / float(j + 1);
                    M2 += delta * (v - m);
                }
                CHECK(accepted(gm[k], mean, bm[k]));
                CHECK(accepted(gv[k], var, bv[k]));
                CHECK(accepted(gm[k], m, bm[k]));
                CHECK(accepted(gv[k], M2 / float(N), bv[k]));
                for (uint32_t j = 0; j < N; ++j) {
                    const uint32_t i = j * C + k;
                    CHECK(accepted(y[i], (x[i] - mean) * scale[k] / std::sqrt(var + eps) + bias[k], by[i]));
                    CHECK(accepted(y[i], (x[i] - m) * (scale[k] * rsqrt_2ulp(M2 / float(N) + eps, rng)) + bias[k],
                                   by[i]));
                }
            }
        }
        // FLOAT16 data computed in float32 (the float32 profile): exact statistics accepted; the
        // statistics rounded to FLOAT16 first (the OutputMean/OutputVariance reading) rejected
        // where the offset makes that rounding matter.
        {
            std::vector<half> xh;
            for (float v : x) xh.push_back(round_to_float<half>(v));
            std::vector<half> sh, bh;
            for (uint32_t k = 0; k < C; ++k) {
                sh.push_back(round_to_float<half>(scale[k]));
                bh.push_back(round_to_float<half>(bias[k]));
            }
            Case c;
            c.op = training_op(DataType::FLOAT16, {N, C}, {1, C}, eps, false);
            const auto& D = get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(c.op.Desc);
            c.inputs = {{"InputTensor", logical_buffer(D.InputTensor, xh)},
                        {"ScaleTensor", buffer(D.ScaleTensor, sh)},
                        {"BiasTensor", buffer(D.BiasTensor, bh)}};
            const auto y = as_values<half>(run_case(c).values.at("OutputTensor"));
            ArithmeticProfile p;
            p.accumulate = Accumulate::Float32;
            const auto by = *batch_normalization_bounds(c, "OutputTensor", p);
            uint64_t rejected = 0;
            for (uint32_t k = 0; k < C; ++k) {
                float sum = 0;
                for (uint32_t j = 0; j < N; ++j) sum += float(half_to_double(xh[j * C + k]));
                const float mean = sum / float(N);
                float ss = 0;
                for (uint32_t j = 0; j < N; ++j) {
                    const float dv = float(half_to_double(xh[j * C + k])) - mean;
                    ss += dv * dv;
                }
                const float var = ss / float(N);
                const float mean16 = float(half_to_double(round_to_float<half>(mean)));
                const float var16 = float(half_to_double(round_to_float<half>(var)));
                for (uint32_t j = 0; j < N; ++j) {
                    const uint32_t i = j * C + k;
                    const float xv = float(half_to_double(xh[i])), s = float(half_to_double(sh[k])),
                                b = float(half_to_double(bh[k]));
                    const half exact_stats = round_to_float<half>((xv - mean) * s / std::sqrt(var + eps) + b);
                    const half rounded_stats = round_to_float<half>((xv - mean16) * s / std::sqrt(var16 + eps) + b);
                    CHECK(accepted(y[i], exact_stats, by[i]));
                    rejected += !accepted(y[i], rounded_stats, by[i]);
                }
            }
            if (offset > 0) CHECK(rejected > 0);
        }
    }
}

TEST_CASE("batch normalization bound: _GRAD and _TRAINING_GRAD in float32 loops accepted, a planted error rejected") {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const bool training = trial % 2;
        const uint32_t N = std::uniform_int_distribution<uint32_t>(2, 48)(rng), C = 3;
        const float eps = 1e-3f;
        std::vector<float> x, dy, mean, var, scale;
        for (uint32_t i = 0; i < N * C; ++i) {
            x.push_back(2 * U(rng));
            dy.push_back(U(rng));
        }
        for (uint32_t k = 0; k < C; ++k) {
            mean.push_back(0.5f * U(rng));
            var.push_back(0.5f + U(rng) * 0.4f);
            scale.push_back(2 * U(rng));
        }
        Case c;
        c.op = training ? grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(
                              OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, DataType::FLOAT32, {N, C}, {1, C}, eps)
                        : grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(OperatorType::BATCH_NORMALIZATION_GRAD,
                                                                              DataType::FLOAT32, {N, C}, {1, C}, eps);
        const TensorDesc in = desc(DataType::FLOAT32, {N, C}, packed_plus({N, C}, 2)),
                         st = desc(DataType::FLOAT32, {1, C});
        c.inputs = {{"InputTensor", logical_buffer(in, x)},
                    {"InputGradientTensor", buffer(desc(DataType::FLOAT32, {N, C}), dy)},
                    {"MeanTensor", buffer(st, mean)},
                    {"VarianceTensor", buffer(st, var)},
                    {"ScaleTensor", buffer(st, scale)}};
        const auto out = run_case(c).values;
        const auto gx = as_values<float>(out.at("OutputGradientTensor")),
                   gs = as_values<float>(out.at("OutputScaleGradientTensor")),
                   gb = as_values<float>(out.at("OutputBiasGradientTensor"));
        const auto bx = *batch_normalization_bounds(c, "OutputGradientTensor", {}),
                   bs = *batch_normalization_bounds(c, "OutputScaleGradientTensor", {}),
                   bb = *batch_normalization_bounds(c, "OutputBiasGradientTensor", {});
        for (uint32_t k = 0; k < C; ++k) {
            const float r = rsqrt_2ulp(var[k] + eps, rng);
            float sdy = 0, sc = 0, scn = 0;
            for (uint32_t j = 0; j < N; ++j) {
                const uint32_t i = j * C + k;
                sdy += dy[i];
                sc += dy[i] * (x[i] - mean[k]);
                scn += dy[i] * ((x[i] - mean[k]) * r);
            }
            CHECK(accepted(gb[k], sdy, bb[k]));
            CHECK(accepted(gs[k], sc * r, bs[k]));
            CHECK(accepted(gs[k], scn, bs[k]));
            CHECK_FALSE(accepted(gb[k], sdy + 2 * float(bb[k]) + 1e-3f, bb[k]));  // planted
            for (uint32_t j = 0; j < N; ++j) {
                const uint32_t i = j * C + k;
                float g;
                if (!training) g = dy[i] * scale[k] * r;
                else g = (dy[i] - sdy / float(N) - (x[i] - mean[k]) * (sc / float(N)) * (r * r)) * (scale[k] * r);
                CHECK(accepted(gx[i], g, bx[i]));
                if (training) {  // PyTorch's order: the projection's scale first
                    const float proj = sc * (r * r) / float(N);
                    CHECK(accepted(gx[i], scale[k] * r * (dy[i] - (x[i] - mean[k]) * proj - sdy / float(N)), bx[i]));
                }
            }
        }
    }
}

namespace {

// One output's bounds (golden's half ULP included) of a _TRAINING case under one statistics form.
std::vector<double> form_bounds(const Case& c, const char* output, BnStatistics form, const ArithmeticProfile& p) {
    const auto golden = run_case(c).values.at(output);
    const auto& D = get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(c.op.Desc);
    const TensorDesc& t = std::string_view(output) == "OutputTensor" ? D.OutputTensor : D.OutputVarianceTensor;
    const uint64_t n = golden.size() / element_size(t.DataType);
    TermSink sink(n);
    const InputBuffer in = [&](const char* f) { return std::span<const std::byte>(c.inputs.at(f)); };
    batch_normalization_training_bounds(c.op, in, output, p, form, sink);
    std::vector<double> b;
    for (uint64_t i = 0; i < n; ++i)
        b.push_back(element_bound(sink.elements()[i], t.DataType,
                                  load_bits(t.DataType, golden.data() + i * element_size(t.DataType)), p));
    return b;
}

// One FLOAT32 channel of N values: BATCH_NORMALIZATION_TRAINING with Scale 1, Bias 0, Epsilon 1e-5.
Case one_channel(const std::vector<float>& x) {
    const uint32_t N = uint32_t(x.size());
    Case c;
    c.op = training_op(DataType::FLOAT32, {N, 1}, {1, 1}, 1e-5f, false);
    const auto& D = get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(c.op.Desc);
    c.inputs = {{"InputTensor", logical_buffer(D.InputTensor, x)},
                {"ScaleTensor", buffer(D.ScaleTensor, std::vector<float>{1})},
                {"BiasTensor", buffer(D.BiasTensor, std::vector<float>{0})}};
    return c;
}

}  // namespace

TEST_CASE("batch normalization bound: _TRAINING statistics forms; the Bessel-corrected variance against each") {
    // One channel of 1,024 FLOAT32 values uniform on [3, 5): the mean is 7 times the spread. The
    // exact variance (naive double loop over the float32 data; within 1e-12 relative) and n / (n - 1)
    // of it, the Bessel-corrected one, off by 1/1023 relative.
    std::mt19937_64 rng(24);
    std::uniform_real_distribution<float> U(3, 5);
    const uint32_t N = 1024;
    std::vector<float> x(N);
    for (float& v : x) v = U(rng);
    double mean = 0, ss = 0;
    for (float v : x) mean += v;
    mean /= N;
    for (float v : x) ss += (v - mean) * (v - mean);
    const float bessel = float(ss / (N - 1));
    const Case c = one_channel(x);
    const float golden = as_values<float>(run_case(c).values.at("OutputVarianceTensor"))[0];
    CHECK(std::fabs(golden - ss / N) <= 0.5 * (std::nextafter(golden, INFINITY) - golden));
    ArithmeticProfile p;
    const double two_pass = form_bounds(c, "OutputVarianceTensor", BnStatistics::TwoPass, p)[0],
                 online = form_bounds(c, "OutputVarianceTensor", BnStatistics::Online, p)[0],
                 one_pass = form_bounds(c, "OutputVarianceTensor", BnStatistics::OnePass, p)[0],
                 any = form_bounds(c, "OutputVarianceTensor", BnStatistics::Any, p)[0];
    MESSAGE("variance " << golden << ": Bessel off by " << (bessel - golden) << "; bounds two-pass " << two_pass
                        << ", online " << online << ", one-pass " << one_pass << ", any " << any);
    CHECK(any == (*batch_normalization_bounds(c, "OutputVarianceTensor", p))[0]);
    CHECK(any == std::max(online, one_pass));
    // The two-pass and online forms reject it; the one-pass form E[X^2] - E[X]^2 in float32 cannot
    // (its cancellation: sum X^2 is 50 times n Variance here), so the union accepts it.
    CHECK_FALSE(accepted(golden, bessel, two_pass));
    CHECK_FALSE(accepted(golden, bessel, online));
    CHECK(accepted(golden, bessel, one_pass));
    // The statistics bound by the data: two-pass within n u of the variance (the mean's error
    // enters only squared); one-pass about sum X^2 / (n Variance) = 50 times larger.
    const double u = std::ldexp(1.0, -24);
    CHECK(two_pass < N * u * golden);
    CHECK(one_pass > 20 * two_pass);
    // Float32 loops of each form are inside their own form's bound.
    float s = 0, s2 = 0, m = 0, M2 = 0;
    for (float v : x) s += v;
    const float tm = s / float(N);
    for (float v : x) s2 += (v - tm) * (v - tm);
    CHECK(accepted(golden, s2 / float(N), two_pass));
    s2 = 0;
    for (float v : x) s2 += v * v;
    CHECK(accepted(golden, s2 / float(N) - tm * tm, one_pass));
    for (uint32_t j = 0; j < N; ++j) {
        const float d = x[j] - m;
        m += d / float(j + 1);
        M2 += d * (x[j] - m);
    }
    CHECK(accepted(golden, M2 / float(N), online));
}

namespace {

// A float32 backend's statistics of one channel in each form: two-pass (the sum backwards, then
// the squared deviations), Welford's updates, and a sequential one-pass E[X^2] - E[X]^2.
struct FormStatistics {
    float mean, var;
};
FormStatistics two_pass_f32(const std::vector<float>& x) {
    float s = 0, ss = 0;
    for (size_t j = x.size(); j-- > 0;) s += x[j];
    const float m = s / float(x.size());
    for (float v : x) ss += (v - m) * (v - m);
    return {m, ss / float(x.size())};
}
FormStatistics welford_f32(const std::vector<float>& x) {
    float m = 0, M2 = 0;
    for (size_t j = 0; j < x.size(); ++j) {
        const float d = x[j] - m;
        m += d / float(j + 1);
        M2 += d * (x[j] - m);
    }
    return {m, M2 / float(x.size())};
}
FormStatistics one_pass_f32(const std::vector<float>& x) {
    float s = 0, s2 = 0;
    for (float v : x) {
        s += v;
        s2 += v * v;
    }
    const float m = s / float(x.size());
    return {m, s2 / float(x.size()) - m * m};
}

// The exact (double, within 1e-12 relative) mean and variance of float32 data.
void exact_statistics(const std::vector<float>& x, double& mean, double& var) {
    mean = 0;
    for (float v : x) mean += v;
    mean /= double(x.size());
    double ss = 0;
    for (float v : x) ss += (v - mean) * (v - mean);
    var = ss / double(x.size());
}

// An upper estimate, from the derivation (docs/tolerance.md, "The statistics forms"), of the
// stable (online) bound of a float32 channel's variance, the golden's half ULP included: the mean's
// error e_m <= u (n + 1) max |X| (a sum in any order within u (n - 1) sum |X|, times 1/n rounded);
// the two-pass variance's e_m^2 + 3u (Var + e_m^2) + its order error, at most u (n - 1) times the
// mean of (|d_i| + e_m)^2, plus 1/n's rounding; all times 1.01. Online is twice that.
double stable_variance_upper(const std::vector<float>& x, double mean, double var) {
    const double u = std::ldexp(1.0, -24), n = double(x.size());
    double xmax = 0, dmax = 0;
    for (float v : x) {
        xmax = std::max(xmax, std::fabs(double(v)));
        dmax = std::max(dmax, std::fabs(v - mean));
    }
    const double em = 1.01 * u * (n + 1) * xmax;
    const double two_pass = 1.01 * (em * em + u * (n + 6) * (var + 2 * em * dmax + em * em));
    return 2 * two_pass + u * var;
}

}  // namespace

// --statistics stable (docs/tolerance.md, "Batch normalization": the statistics forms) admits the
// two-pass and online forms only: a backend computing E[X^2] - E[X]^2 on data whose mean is large
// against its spread is rejected under it, as intended (the profile claims the backend does not
// use that form), and so is the Bessel-corrected variance that the default must admit. Each
// verdict below is predicted from the derivation's inequalities, which the test checks first.
TEST_CASE(
    "batch normalization bound: the stable statistics profile rejects n - 1 and one-pass, admits two-pass and Welford") {
    const double u = std::ldexp(1.0, -24);
    const uint32_t N = 1024;
    ArithmeticProfile any, stable;
    stable.statistics = Statistics::Stable;
    CHECK(profile_text(stable) ==
          "accumulate=any coordinates=any subnormals=kept operands=exact convolution=direct statistics=stable");
    for (const float lo : {3.0f, 64.0f}) {
        CAPTURE(lo);
        // X uniform on [3, 5) (mean 7 times the spread) and on [64, 65) (220 times).
        std::mt19937_64 rng(lo == 3.0f ? 24 : 65);
        std::uniform_real_distribution<float> U(lo, lo == 3.0f ? 5.0f : 65.0f);
        std::vector<float> x(N);
        for (float& v : x) v = U(rng);
        double mean = 0, var = 0;
        exact_statistics(x, mean, var);
        const Case c = one_channel(x);
        const auto out = run_case(c).values;
        const float gm = as_values<float>(out.at("OutputMeanTensor"))[0],
                    gv = as_values<float>(out.at("OutputVarianceTensor"))[0];
        const auto gy = as_values<float>(out.at("OutputTensor"));
        const auto bm = *batch_normalization_bounds(c, "OutputMeanTensor", stable),
                   bv = *batch_normalization_bounds(c, "OutputVarianceTensor", stable),
                   by = *batch_normalization_bounds(c, "OutputTensor", stable),
                   av = *batch_normalization_bounds(c, "OutputVarianceTensor", any);
        // Stable is the online form's bounds (twice the two-pass ones), within the derivation's
        // upper estimate.
        const double upper = stable_variance_upper(x, mean, var);
        CHECK(bv[0] == form_bounds(c, "OutputVarianceTensor", BnStatistics::Online, any)[0]);
        CHECK(bv[0] <= upper);
        CHECK(bv[0] <= av[0]);
        MESSAGE("X uniform on [" << lo << ", " << U.b() << "): variance " << var << "; bound stable " << bv[0]
                                 << ", any " << av[0] << " (the estimate of stable's " << upper << "); n - 1 off by "
                                 << var / (N - 1));
        // Two-pass and Welford in float32 pass under stable: mean, variance and the normalized output.
        for (const FormStatistics f : {two_pass_f32(x), welford_f32(x)}) {
            CHECK(accepted(gm, f.mean, bm[0]));
            CHECK(accepted(gv, f.var, bv[0]));
            for (uint32_t i = 0; i < N; ++i) {
                CAPTURE(i);
                CHECK(accepted(gy[i], (x[i] - f.mean) / std::sqrt(f.var + 1e-5f), by[i]));
            }
        }
        // The Bessel-corrected variance, off by Var / (n - 1), more than that estimate plus its own
        // and the golden's roundings: rejected under stable.
        const float bessel = float(var * N / (N - 1));
        REQUIRE(var / (N - 1) > upper + 2 * u * var);
        CHECK_FALSE(accepted(gv, bessel, bv[0]));
        // Under any the variance's bound is at least the one-pass form's error of mean~^2, 2 |m| e_m,
        // with e_m at least the order error of n terms of at least min X, times 1/n:
        // u min X (n - 1)(n + 2) / (2 n). That exceeds n - 1's error: any admits it.
        const double xmin = *std::min_element(x.begin(), x.end());
        const double lower = 2 * std::fabs(mean) * u * xmin * (N - 1) * (N + 2) / (2.0 * N);
        CHECK(av[0] >= lower);
        REQUIRE(lower > std::fabs(double(bessel) - gv));
        CHECK(accepted(gv, bessel, av[0]));
        // The one-pass backend: under any its form's own bound holds it.
        const FormStatistics op = one_pass_f32(x);
        CHECK(accepted(gv, op.var, av[0]));
        if (lo == 64.0f) {
            // X in [64, 65): s2 / n and m~^2 are floats in [2^12, 2^13), multiples of 2^-11, and so
            // is their difference (exact, Sterbenz): the one-pass variance is at least the exact
            // one's distance to that grid away, more than stable's bound (the estimate, plus the
            // golden's half ULP). Rejected under stable.
            const double grid = std::ldexp(1.0, -11);
            REQUIRE(std::fmod(double(op.var), grid) == 0);
            const double off_grid = std::fabs(var - grid * std::nearbyint(var / grid));
            REQUIRE(off_grid > upper + u * var);
            CHECK_FALSE(accepted(gv, op.var, bv[0]));
            MESSAGE("one-pass off by " << std::fabs(op.var - var) << ", at least " << off_grid);
        }
    }
}

}  // namespace dmlref_test_batch_normalization_bound
