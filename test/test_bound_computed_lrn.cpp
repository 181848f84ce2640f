// The per-element bound of computed values (docs/tolerance.md, "Computed values") for LRN and
// its grad, judged through dmlref diff's census. Accepted: naive evaluations (three
// associations of B, x * B^-Beta or x / B^Beta, powf or exp2(p log2 b), the grad as written and
// through the chain rule). Rejected: planted errors (the first float beyond the bound, a flipped
// sign, the other side of an even LRN window).
#include "bound_support.hpp"
#include "test_tier.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_bound_computed_lrn {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::computed;

// ---- LRN: {1, C, H, W}, across channels ---------------------------------------------------------

namespace {

struct LrnSetup {
    uint32_t C = 6, H = 3, W = 2, L = 3;
    float Alpha = 1.0f, Beta = 0.75f, Bias = 1.0f;
};

template <class D> D lrn_desc(DataType t, const LrnSetup& s) {
    D d;
    d.InputTensor = desc(t, {1, s.C, s.H, s.W});
    d.CrossChannel = 1;
    d.LocalSize = s.L;
    d.Alpha = s.Alpha;
    d.Beta = s.Beta;
    d.Bias = s.Bias;
    return d;
}

// Channel window of c: [c - floor((L-1)/2), c + ceil((L-1)/2)] (DirectML, docs/golden.md), or
// the other side for even L (`mirrored`: PyTorch's padding).
std::vector<uint64_t> region(const LrnSetup& s, uint64_t i, bool mirrored) {
    const uint64_t plane = uint64_t(s.H) * s.W, c = i / plane, rest = i % plane;
    int64_t before = (int64_t(s.L) - 1) / 2, after = int64_t(s.L) / 2;
    if (mirrored) std::swap(before, after);
    std::vector<uint64_t> r;
    for (int64_t k = int64_t(c) - before; k <= int64_t(c) + after; ++k)
        if (k >= 0 && k < int64_t(s.C)) r.push_back(uint64_t(k) * plane + rest);
    return r;
}

// B of element i: variant 0 Bias + (Alpha / L) S, 1 (S / L) Alpha + Bias (PyTorch), 2 Alpha S / L + Bias
// (variant 2 also takes pow as exp2(p * log2 b)).
double naive_b(const Naive& n, const LrnSetup& s, const std::vector<double>& x, uint64_t i, int variant, int order,
               bool mirrored) {
    std::vector<double> sq;
    for (uint64_t j : region(s, i, mirrored)) sq.push_back(n.mul(x[j], x[j]));
    const double S = sum_in(n, sq, order), a = rnd(n.w, s.Alpha), L = s.L;
    const double scaled = variant == 0   ? n.mul(n.div(a, L), S)
                          : variant == 1 ? n.mul(n.div(S, L), a)
                                         : n.div(n.mul(a, S), L);
    return n.add(rnd(n.w, s.Bias), scaled);
}

std::vector<double> naive_lrn(const LrnSetup& s, const std::vector<double>& x, Work w, int variant, int order, Work out,
                              bool mirrored = false) {
    const Naive n{w, variant == 2};
    std::vector<double> y;
    for (uint64_t i = 0; i < x.size(); ++i) {
        const double B = naive_b(n, s, x, i, variant, order, mirrored);
        y.push_back(rnd(out, variant == 1 ? n.div(x[i], n.pow(B, s.Beta)) : n.mul(x[i], n.pow(B, -double(s.Beta)))));
    }
    return y;
}

// The grad as written (variant 0, 2) or through the chain rule as autograd runs it (variant 1).
std::vector<double> naive_lrn_grad(const LrnSetup& s, const std::vector<double>& x, const std::vector<double>& dy,
                                   Work w, int variant, int order, Work out) {
    const Naive n{w, variant == 2};
    const double beta = s.Beta, alpha = rnd(w, s.Alpha), L = s.L;
    std::vector<double> B(x.size());
    for (uint64_t i = 0; i < x.size(); ++i) B[i] = naive_b(n, s, x, i, variant, order, false);
    std::vector<double> dx;
    for (uint64_t j = 0; j < x.size(); ++j) {
        std::vector<double> terms;
        for (uint64_t c = 0; c < x.size(); ++c) {
            const auto r = region(s, c, false);
            if (std::find(r.begin(), r.end(), j) == r.end()) continue;
            if (variant == 1) {
                const double D = n.pow(B[c], beta);
                const double m = n.mul(dy[c], n.div(n.div(x[c], D), D));
                terms.push_back(n.div(n.mul(n.mul(m, n.mul(beta, n.pow(B[c], beta - 1))), alpha), L));
            } else {
                terms.push_back(n.mul(n.mul(dy[c], x[c]), n.pow(B[c], -beta - 1)));
            }
        }
        const double M = sum_in(n, terms, order);
        double v;
        if (variant == 1) v = n.add(n.div(dy[j], n.pow(B[j], beta)), -n.mul(2, n.mul(x[j], M)));
        else v = n.add(n.mul(dy[j], n.pow(B[j], -beta)), -n.mul(n.mul(n.div(n.mul(2 * alpha, beta), L), x[j]), M));
        dx.push_back(rnd(out, v));
    }
    return dx;
}

Case lrn_case(DataType t, const LrnSetup& s, const std::vector<double>& x, const std::vector<double>* dy) {
    Case c;
    if (dy) {
        auto d = lrn_desc<DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>(t, s);
        d.InputGradientTensor = d.OutputGradientTensor = d.InputTensor;
        c.op = {OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD, d};
        c.inputs["InputGradientTensor"] = stored(t, *dy);
    } else {
        auto d = lrn_desc<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC>(t, s);
        d.OutputTensor = d.InputTensor;
        c.op = {OperatorType::LOCAL_RESPONSE_NORMALIZATION, d};
    }
    c.inputs["InputTensor"] = stored(t, x);
    return with_golden(c, dy ? "OutputGradientTensor" : "OutputTensor");
}

}  // namespace

TEST_CASE(
    "LRN: naive evaluations (three associations of B, x * B^-Beta or x / B^Beta, the grad both ways, a cancelling B) are accepted") {
    // The sanitizer build (DMLREF_TEST_TIER=sanitizer, test/meson.build) takes Beta 0.75 only: the
    // same code paths, at half this case's time there.
    const bool sanitizer = sanitizer_tier();
    for (DataType t : {DataType::FLOAT16, DataType::FLOAT32, DataType::FLOAT64})
        for (uint32_t L : {3u, 4u})
            for (float beta : {0.75f, 1.5f})
                for (float alpha : {1.0f, -0.2f}) {  // -0.2: B = 1 - 0.2 S / L in [0.2, 1], a cancellation
                    if (sanitizer && beta != 0.75f) continue;
                    LrnSetup s;
                    s.L = L;
                    s.Beta = beta;
                    s.Alpha = alpha;
                    const size_t n = size_t(s.C) * s.H * s.W;
                    const auto x = random_values(n, -2, 2, 21 + L, t);
                    const auto dy = random_values(n, -1, 1, 23 + L, t);
                    const Case fwd = lrn_case(t, s, x, nullptr), grad = lrn_case(t, s, x, &dy);
                    for (const Profile& pr : profiles(t))
                        for (int variant = 0; variant < 3; ++variant)
                            for (int order = 0; order < 4; order += 3) {
                                const std::string what = std::string(name(t)) + " L " + std::to_string(L) +
                                                         " variant " + std::to_string(variant);
                                check_accepted(fwd, "OutputTensor",
                                               naive_lrn(s, x, pr.work, variant, order, work_of(t)), pr.accumulate,
                                               what);
                                check_accepted(grad, "OutputGradientTensor",
                                               naive_lrn_grad(s, x, dy, pr.work, variant, order, work_of(t)),
                                               pr.accumulate, "grad " + what);
                            }
                }
}

TEST_CASE("LRN: planted errors fail: 1 ULP beyond the bound, a flipped sign, the even window read on the other side") {
    const DataType t = DataType::FLOAT32;
    LrnSetup s;
    s.L = 4;
    const size_t n = size_t(s.C) * s.H * s.W;
    const auto x = random_values(n, 0.5, 2, 31, t);
    const auto dy = random_values(n, 0.5, 1, 33, t);
    const Case fwd = lrn_case(t, s, x, nullptr);
    const auto g = golden_values(fwd, "OutputTensor", t);
    const auto b = bounds_of(fwd, "OutputTensor", t, Accumulate::Any);
    for (size_t i = 0; i < g.size(); ++i) {
        const double ulp = std::ldexp(1.0, std::ilogb(g[i]) - 23);
        // Not vacuous: squares, sum, scaling, pow (stated 2 ULP plus its exp2/log2 allowance),
        // product: far below 2^-14 relative.
        CHECK(b[i] < std::ldexp(std::fabs(g[i]), -14));
        CHECK(b[i] > ulp / 2);
        float inside = float(g[i]);
        while (std::fabs(double(std::nextafter(inside, -10.0f)) - g[i]) <= b[i])
            inside = std::nextafter(inside, -10.0f);
        std::vector<double> a = g;
        a[i] = inside;
        CHECK(judge_all(fwd, "OutputTensor", a, Accumulate::Any).over == 0);
        a[i] = std::nextafter(inside, -10.0f);
        CHECK(judge_all(fwd, "OutputTensor", a, Accumulate::Any).over == 1);
    }
    std::vector<double> a = g;
    a[5] = -a[5];
    CHECK(judge_all(fwd, "OutputTensor", a, Accumulate::Any).over == 1);
    // PyTorch's padding reads an even window on the other side: every element whose region
    // differs fails (x in [0.5, 2]: each square moves B by at least 1/16).
    const auto mirrored = naive_lrn(s, x, Work::Float, 1, 0, Work::Float, true);
    size_t differ = 0;
    for (uint64_t i = 0; i < n; ++i) differ += region(s, i, false) != region(s, i, true);
    REQUIRE(differ > 0);
    CHECK(judge_all(fwd, "OutputTensor", mirrored, Accumulate::Any).over == differ);
    // The grad: the correct float32 chain rule passes, a flipped sign and a lost reader fail.
    const Case grad = lrn_case(t, s, x, &dy);
    const auto gd = naive_lrn_grad(s, x, dy, Work::Float, 1, 0, Work::Float);
    CHECK(judge_all(grad, "OutputGradientTensor", gd, Accumulate::Float32).over == 0);
    auto flipped = gd;
    const size_t big = size_t(
        std::max_element(gd.begin(), gd.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); }) -
        gd.begin());
    flipped[big] = -flipped[big];
    CHECK(judge_all(grad, "OutputGradientTensor", flipped, Accumulate::Any).over == 1);
    LrnSetup s1 = s;
    s1.Alpha = 0;  // the second part of the grad lost
    CHECK(judge_all(grad, "OutputGradientTensor", naive_lrn_grad(s1, x, dy, Work::Float, 0, 0, Work::Float),
                    Accumulate::Any)
              .over > n / 2);
}

}  // namespace dmlref_test_bound_computed_lrn
