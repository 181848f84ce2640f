// ADAM_OPTIMIZER. Expected values come from hand derivations (parameters chosen so that every
// square root is rational: each stated with its arithmetic), from a naive MPFR evaluation of the
// page's formula at 256 bits written here (not reference/adam_optimizer.cpp's intervals), and the
// judging from naive backends (bound_support.hpp: every operation rounded to a working type, the
// moments stored or not) that must pass and planted bugs that must fail. None comes from dmlref's
// evaluation.
#include "bound_support.hpp"

#include "dmlref/descs/adam_optimizer.hpp"

#include <mpfr.h>

#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_adam_optimizer {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::computed;

namespace {

using ADAM = DML_ADAM_OPTIMIZER_OPERATOR_DESC;

struct Hyper {
    float lr = 0.25f, b1 = 0.5f, b2 = 0.75f, eps = 0;
    double T = 1;
};

ADAM adam(DataType t, std::vector<uint32_t> sizes, const Hyper& h) {
    ADAM d;
    d.InputParametersTensor = d.InputFirstMomentTensor = d.InputSecondMomentTensor = d.GradientTensor = desc(t, sizes);
    d.OutputParametersTensor = d.OutputFirstMomentTensor = d.OutputSecondMomentTensor = desc(t, sizes);
    d.TrainingStepTensor = desc(t, std::vector<uint32_t>(sizes.size(), 1));
    d.LearningRate = h.lr;
    d.Beta1 = h.b1;
    d.Beta2 = h.b2;
    d.Epsilon = h.eps;
    return d;
}

// The case with X, M, V, G given as doubles (exact in the type) and T.
Case adam_case(DataType t, const Hyper& h, const std::vector<double>& X, const std::vector<double>& M,
               const std::vector<double>& V, const std::vector<double>& G) {
    Case c;
    const ADAM d = adam(t, {uint32_t(X.size())}, h);
    c.op = Operator{ADAM::kType, d};
    // Each buffer DMLCalcBufferTensorSize long (a multiple of 4 bytes).
    auto buf = [&](const TensorDesc& td, const std::vector<double>& v) {
        std::vector<std::byte> b = stored(t, v);
        b.resize(buffer_size(td));
        return b;
    };
    c.inputs = {{"InputParametersTensor", buf(d.InputParametersTensor, X)},
                {"InputFirstMomentTensor", buf(d.InputFirstMomentTensor, M)},
                {"InputSecondMomentTensor", buf(d.InputSecondMomentTensor, V)},
                {"GradientTensor", buf(d.GradientTensor, G)},
                {"TrainingStepTensor", buf(d.TrainingStepTensor, {h.T})}};
    return c;
}

std::vector<double> out(const Case& c, const std::string& field, DataType t) {
    const auto o = run(c.op, c.inputs);
    Case g;
    g.expected[field].values = o.at(field);
    return golden_values(g, field, t);
}

// The page's formula at 256 bits in MPFR, each operation rounded to nearest, then rounded to the
// output type (a naive evaluation: 256 bits leave no double rounding on these inputs). `rounded`
// uses M' and V' rounded to the type first (AdamMomentsInUpdate=Rounded).
double naive_parameter(DataType t, const Hyper& h, double x, double m, double v, double g, bool rounded) {
    mpfr_t X, M, V, G, b1, b2, a, b, tmp;
    mpfr_inits2(256, X, M, V, G, b1, b2, a, b, tmp, (mpfr_ptr) nullptr);
    mpfr_set_d(X, x, MPFR_RNDN);
    mpfr_set_d(G, g, MPFR_RNDN);
    mpfr_set_d(b1, h.b1, MPFR_RNDN);
    mpfr_set_d(b2, h.b2, MPFR_RNDN);
    // M = b1 m + (1 - b1) g; V = b2 v + (1 - b2) g g
    mpfr_ui_sub(tmp, 1, b1, MPFR_RNDN);
    mpfr_mul(tmp, tmp, G, MPFR_RNDN);
    mpfr_set_d(M, m, MPFR_RNDN);
    mpfr_fma(M, b1, M, tmp, MPFR_RNDN);
    mpfr_ui_sub(tmp, 1, b2, MPFR_RNDN);
    mpfr_mul(tmp, tmp, G, MPFR_RNDN);
    mpfr_mul(tmp, tmp, G, MPFR_RNDN);
    mpfr_set_d(V, v, MPFR_RNDN);
    mpfr_fma(V, b2, V, tmp, MPFR_RNDN);
    if (rounded) {
        const mpfr_prec_t p = t == DataType::FLOAT16 ? 11 : 24;
        mpfr_prec_round(M, p, MPFR_RNDN);
        mpfr_prec_round(V, p, MPFR_RNDN);
        mpfr_prec_round(M, 256, MPFR_RNDN);
        mpfr_prec_round(V, 256, MPFR_RNDN);
    }
    // Alpha = sqrt(1 - b2^T) / (1 - b1^T)
    mpfr_pow_ui(a, b2, (unsigned long)h.T, MPFR_RNDN);
    mpfr_ui_sub(a, 1, a, MPFR_RNDN);
    mpfr_sqrt(a, a, MPFR_RNDN);
    mpfr_pow_ui(b, b1, (unsigned long)h.T, MPFR_RNDN);
    mpfr_ui_sub(b, 1, b, MPFR_RNDN);
    mpfr_div(a, a, b, MPFR_RNDN);
    // X - lr Alpha M / (sqrt(V) + eps)
    mpfr_sqrt(V, V, MPFR_RNDN);
    mpfr_add_d(V, V, h.eps, MPFR_RNDN);
    mpfr_mul_d(a, a, h.lr, MPFR_RNDN);
    mpfr_mul(a, a, M, MPFR_RNDN);
    mpfr_div(a, a, V, MPFR_RNDN);
    mpfr_sub(X, X, a, MPFR_RNDN);
    mpfr_prec_round(X, t == DataType::FLOAT16 ? 11 : 24, MPFR_RNDN);
    const double r = mpfr_get_d(X, MPFR_RNDN);
    mpfr_clears(X, M, V, G, b1, b2, a, b, tmp, (mpfr_ptr) nullptr);
    return r;
}

// A naive backend in working arithmetic n: every operation rounded; `store` rounds the moments
// to the tensor type before the update; `bug` plants an error.
enum class Bug { None, NoBiasCorrection, EpsilonInsideRoot };
std::vector<double> backend(const Naive& n, DataType t, const Hyper& h, const std::vector<double>& X,
                            const std::vector<double>& M, const std::vector<double>& V, const std::vector<double>& G,
                            bool store, Bug bug) {
    const Work tw = work_of(t);
    const double b1 = rnd(n.w, h.b1), b2 = rnd(n.w, h.b2);
    double alpha = n.div(rnd(n.w, std::sqrt(n.add(1, -n.pow(b2, h.T)))), n.add(1, -n.pow(b1, h.T)));
    if (bug == Bug::NoBiasCorrection) alpha = 1;
    std::vector<double> r(X.size());
    for (size_t i = 0; i < X.size(); ++i) {
        double m = n.add(n.mul(b1, M[i]), n.mul(n.add(1, -b1), G[i]));
        double v = n.add(n.mul(b2, V[i]), n.mul(n.mul(n.add(1, -b2), G[i]), G[i]));
        if (store) m = rnd(tw, m), v = rnd(tw, v);
        const double d = bug == Bug::EpsilonInsideRoot ? rnd(n.w, std::sqrt(n.add(v, h.eps)))
                                                       : n.add(rnd(n.w, std::sqrt(v)), h.eps);
        r[i] = rnd(tw, n.add(X[i], -n.div(n.mul(n.mul(h.lr, alpha), m), d)));
    }
    return r;
}

}  // namespace

TEST_CASE("ADAM_OPTIMIZER: hand values where every square root is rational") {
    // Beta1 1/2, Beta2 3/4, T 1: Alpha = sqrt(1 - 3/4) / (1 - 1/2) = (1/2) / (1/2) = 1. LR 1/4, Epsilon 0.
    // X 1, M 2, V 3, G 4: M' = 1 + 2 = 3, V' = 9/4 + 16/4 = 25/4, sqrt 5/2; X' = 1 - (1/4) 3 / (5/2) = 1 - 3/10 = 7/10.
    // X 0, M 0, V 0, G -2: M' = -1, V' = 1; X' = 0 + 1/4 = 1/4.
    // X -3, M 4, V 0, G 0: M' = 2, V' = 0: D = Epsilon = 0, X' = -3 - 1/4 * 2 / 0 = -inf.
    const Hyper h;
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT16}) {
        INFO(name(t));
        const Case c = adam_case(t, h, {1, 0, -3}, {2, 0, 4}, {3, 0, 0}, {4, -2, 0});
        const auto x = out(c, "OutputParametersTensor", t);
        CHECK(x[0] == (t == DataType::FLOAT32 ? double(0.7f) : half_to_double(half_from_double(0.7))));
        CHECK(x[1] == 0.25);
        CHECK(x[2] == -std::numeric_limits<double>::infinity());
        CHECK(out(c, "OutputFirstMomentTensor", t) == std::vector<double>{3, -1, 2});
        CHECK(out(c, "OutputSecondMomentTensor", t) == std::vector<double>{6.25, 1, 0});
    }
    // The moments rounded once: Beta1 0.9f, G 1, M 0: M' = 1 - 0.9f exactly (0.1000000238418579...),
    // which FLOAT32 holds (Sterbenz): the same bits as 1 - 0.9f computed in float.
    Hyper k{0.001f, 0.9f, 0.999f, 1e-8f, 1};
    const Case c = adam_case(DataType::FLOAT32, k, {0}, {0}, {0}, {1});
    CHECK(out(c, "OutputFirstMomentTensor", DataType::FLOAT32)[0] == double(1.0f - 0.9f));
}

TEST_CASE("ADAM_OPTIMIZER: special values, T = 0 and the Beta bounds") {
    const Hyper h;
    // T = 0: Alpha = sqrt(1 - 1) / (1 - 1) = 0 / 0: X' NaN (AdamTrainingStep=AsGiven); the moments are finite.
    Hyper z = h;
    z.T = 0;
    const Case c0 = adam_case(DataType::FLOAT32, z, {1}, {2}, {3}, {4});
    CHECK(std::isnan(out(c0, "OutputParametersTensor", DataType::FLOAT32)[0]));
    CHECK(out(c0, "OutputFirstMomentTensor", DataType::FLOAT32)[0] == 3);
    // Beta2 1: Alpha = 0, the update is zero: X' = X, -0 kept (AdamZeroStep=KeepsParameter).
    Hyper one2 = h;
    one2.b2 = 1;
    const auto x = out(adam_case(DataType::FLOAT32, one2, {-0.0, 5}, {2, 2}, {3, 3}, {4, 4}), "OutputParametersTensor",
                       DataType::FLOAT32);
    CHECK(std::signbit(x[0]));
    CHECK(x[0] == 0);
    CHECK(x[1] == 5);
    // Beta1 1 (T 1): Alpha = (1/2) / 0 = +inf; M' = M = 2 > 0: X' = -inf; M' = 0 gives inf * 0 = NaN.
    Hyper one1 = h;
    one1.b1 = 1;
    const auto y = out(adam_case(DataType::FLOAT32, one1, {1, 1}, {2, 0}, {3, 3}, {4, 4}), "OutputParametersTensor",
                       DataType::FLOAT32);
    CHECK(y[0] == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(y[1]));
    // A NaN gradient: every output NaN; an infinite X with a finite update stays.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const Case s = adam_case(DataType::FLOAT16, h, {1, inf}, {0, 1}, {0, 1}, {nan, 1});
    const auto xs = out(s, "OutputParametersTensor", DataType::FLOAT16);
    CHECK(std::isnan(xs[0]));
    CHECK(xs[1] == inf);
    CHECK(std::isnan(out(s, "OutputSecondMomentTensor", DataType::FLOAT16)[0]));
}

TEST_CASE("ADAM_OPTIMIZER: irrational updates rounded once, against a naive 256-bit evaluation") {
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT16}) {
        for (double T : {1.0, 10.0, 1000.0}) {
            INFO(name(t) << ", T " << T);
            const Hyper h{0.001f, 0.9f, 0.999f, t == DataType::FLOAT16 ? 1e-4f : 1e-8f, T};
            const size_t n = 24;
            const auto X = random_values(n, -2, 2, 11, t), M = random_values(n, -0.1, 0.1, 12, t),
                       G = random_values(n, -1, 1, 14, t);
            auto V = random_values(n, 0, 0.01, 13, t);
            const Case c = adam_case(t, h, X, M, V, G);
            const auto x = out(c, "OutputParametersTensor", t);
            for (size_t i = 0; i < n; ++i) {
                INFO("element " << i);
                CHECK(x[i] == naive_parameter(t, h, X[i], M[i], V[i], G[i], false));
            }
        }
    }
}

TEST_CASE("ADAM_OPTIMIZER: AdamMomentsInUpdate, and judging naive backends and planted bugs") {
    // FLOAT16 with moments that FLOAT16 rounds: Exact (the golden) and Rounded (the alternative)
    // differ on some elements (X near 0, so that X' is about the update itself, whose relative
    // change from the rounded moments then shows: about one element in four); the bound admits both.
    const DataType t = DataType::FLOAT16;
    const Hyper h{0.01f, 0.9f, 0.999f, 1e-4f, 3};
    const size_t n = 64;
    const auto X = random_values(n, -0.001, 0.001, 21, t), M = random_values(n, -0.3, 0.3, 22, t),
               V = random_values(n, 0, 0.05, 23, t), G = random_values(n, -1, 1, 24, t);
    Case c = adam_case(t, h, X, M, V, G);
    c = with_golden(with_golden(with_golden(c, "OutputParametersTensor"), "OutputFirstMomentTensor"),
                    "OutputSecondMomentTensor");
    const auto golden = golden_values(c, "OutputParametersTensor", t);
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i) {
        CHECK(golden[i] == naive_parameter(t, h, X[i], M[i], V[i], G[i], false));
        differ += naive_parameter(t, h, X[i], M[i], V[i], G[i], true) != golden[i];
    }
    CHECK(differ > 0);  // the two readings are distinguishable here
    std::vector<double> rounded(n);
    for (size_t i = 0; i < n; ++i) rounded[i] = naive_parameter(t, h, X[i], M[i], V[i], G[i], true);
    check_accepted(c, "OutputParametersTensor", rounded, Accumulate::Output, "AdamMomentsInUpdate=Rounded");
    // Naive backends in every working type the profiles admit, moments stored or not, pass.
    for (const Profile& p : profiles(t))
        for (bool store : {false, true}) {
            const Naive nv{p.work};
            check_accepted(c, "OutputParametersTensor", backend(nv, t, h, X, M, V, G, store, Bug::None), p.accumulate,
                           store ? "stored moments" : "moments kept");
        }
    // Planted bugs fail under the float32 working type: no bias correction (Alpha = 1, not
    // sqrt(1 - 0.999^3) / (1 - 0.9^3) = 0.2), Epsilon inside the square root. (FLOAT16 working
    // arithmetic cannot tell 1 - 0.999^3 from 0 within its own error: no finite bound there.)
    const Naive f{Work::Float};
    for (Bug bug : {Bug::NoBiasCorrection, Bug::EpsilonInsideRoot}) {
        const OutputCensus r = judge_all(c, "OutputParametersTensor", backend(f, t, h, X, M, V, G, false, bug),
                                         Accumulate::Float32);
        CHECK(r.over > 0);
    }
}

TEST_CASE("ADAM_OPTIMIZER: validation") {
    auto op = [](const ADAM& d) { return Operator{ADAM::kType, d}; };
    const Hyper h;
    ADAM d = adam(DataType::FLOAT32, {2, 3}, h);
    d.TrainingStepTensor.DataType = DataType::UINT32;  // the member text's type, refused (AdamTrainingStepType)
    CHECK(has_error(op(d), "adam-optimizer.same-data-type", "/desc/TrainingStepTensor/DataType"));
    d = adam(DataType::FLOAT64, {2, 3}, h);
    CHECK(has_error(op(d), "adam-optimizer.data-type", "/desc/InputParametersTensor/DataType"));
    d = adam(DataType::FLOAT32, {2, 3}, h);
    d.GradientTensor.Sizes = {3, 2};
    CHECK(has_error(op(d), "adam-optimizer.same-sizes", "/desc/GradientTensor/Sizes"));
    d = adam(DataType::FLOAT32, {2, 3}, h);
    d.TrainingStepTensor.Sizes = {1, 2};
    CHECK(has_error(op(d), "adam-optimizer.training-step-sizes", "/desc/TrainingStepTensor/Sizes"));
    d = adam(DataType::FLOAT32, {2, 3}, h);
    d.Beta2 = 1.5f;
    CHECK(has_error(op(d), "adam-optimizer.beta-range", "/desc/Beta2"));
    d = adam(DataType::FLOAT32, {2, 3}, h);
    d.Epsilon = std::numeric_limits<float>::infinity();
    CHECK(has_error(op(d), "adam-optimizer.hyperparameter", "/desc/Epsilon"));
    // T on the input values: 2.5 and -1 are refused.
    for (double T : {2.5, -1.0}) {
        Hyper bad = h;
        bad.T = T;
        const Case c = adam_case(DataType::FLOAT32, bad, {1}, {1}, {1}, {1});
        const Diagnostics g = validate_input_values(c.op, c.inputs, ~uint64_t(0));
        CHECK(g.has_errors());
    }
}

}  // namespace dmlref_test_adam_optimizer
