// The per-element bound of computed values (docs/tolerance.md, "Computed values") for average
// pooling, judged through dmlref diff's census, and the bound arithmetic itself. Accepted: naive
// evaluations (bound_support.hpp's float32, emulated FLOAT16 and float64 loops in several
// summation orders and divisions). Rejected: planted errors (the first float beyond the bound, a
// flipped sign, the other IncludePadding divisor). LRN: test_bound_computed_lrn.cpp.
#include "bound_support.hpp"

#include <cmath>
#include <functional>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_bound_computed {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::computed;

namespace {

// ---- Average pooling: 2-D, {1, C, H, W} ----------------------------------------------------------

struct Pool {
    uint32_t C = 2, H = 7, W = 6, k = 3, s = 2, pad = 1;
    uint32_t include = 0;
    uint32_t out(uint32_t n) const { return (n + 2 * pad - k) / s + 1; }
};

Operator pool_op(DataType t, const Pool& p, bool grad) {
    const std::vector<uint32_t> in{1, p.C, p.H, p.W}, out{1, p.C, p.out(p.H), p.out(p.W)};
    if (grad) {
        DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC d;
        d.InputGradientTensor = desc(t, out);
        d.OutputGradientTensor = desc(t, in);
        d.DimensionCount = 2;
        d.Strides = {p.s, p.s};
        d.WindowSize = {p.k, p.k};
        d.StartPadding = d.EndPadding = {p.pad, p.pad};
        d.IncludePadding = p.include;
        return {OperatorType::AVERAGE_POOLING_GRAD, d};
    }
    DML_AVERAGE_POOLING_OPERATOR_DESC d;
    d.InputTensor = desc(t, in);
    d.OutputTensor = desc(t, out);
    d.DimensionCount = 2;
    d.Strides = {p.s, p.s};
    d.WindowSize = {p.k, p.k};
    d.StartPadding = d.EndPadding = {p.pad, p.pad};
    d.IncludePadding = p.include;
    return {OperatorType::AVERAGE_POOLING, d};
}

// Per output element: the real input indices of its window and its divisor.
struct Tap {
    std::vector<uint64_t> in;
    double D;
};
std::vector<Tap> windows(const Pool& p, bool include) {
    std::vector<Tap> r;
    const uint32_t OH = p.out(p.H), OW = p.out(p.W);
    for (uint32_t c = 0; c < p.C; ++c)
        for (uint32_t oy = 0; oy < OH; ++oy)
            for (uint32_t ox = 0; ox < OW; ++ox) {
                Tap t;
                for (uint32_t ky = 0; ky < p.k; ++ky)
                    for (uint32_t kx = 0; kx < p.k; ++kx) {
                        const int64_t y = int64_t(oy * p.s + ky) - p.pad, x = int64_t(ox * p.s + kx) - p.pad;
                        if (y >= 0 && y < p.H && x >= 0 && x < p.W)
                            t.in.push_back((c * p.H + uint64_t(y)) * p.W + uint64_t(x));
                    }
                t.D = include ? double(p.k * p.k) : double(t.in.size());
                r.push_back(t);
            }
    return r;
}

// A naive forward: variant 0 sums then divides, 1 multiplies the sum by a reciprocal, 2 divides
// every term first; `order` picks the summation order; the result rounded to `out`.
std::vector<double> naive_pool(const Pool& p, bool include, const std::vector<double>& x, Work w, int variant,
                               int order, Work out) {
    const Naive n{w};
    std::vector<double> y;
    for (const Tap& t : windows(p, include)) {
        std::vector<double> v;
        for (uint64_t i : t.in) v.push_back(variant == 2 ? n.div(x[i], t.D) : x[i]);
        const double s = sum_in(n, v, order);
        const double r = variant == 0 ? n.div(s, t.D) : variant == 1 ? n.mul(s, n.rcp(t.D)) : s;
        y.push_back(rnd(out, r));
    }
    return y;
}

// A naive grad: dX[i] = sum over windows holding i of dY[o] / D(o) (or dY[o] * rcp(D(o))).
std::vector<double> naive_pool_grad(const Pool& p, const std::vector<double>& dy, Work w, int variant, int order,
                                    Work out) {
    const Naive n{w};
    std::vector<std::vector<double>> terms(size_t(p.C) * p.H * p.W);
    const auto win = windows(p, p.include);
    for (size_t o = 0; o < win.size(); ++o)
        for (uint64_t i : win[o].in)
            terms[i].push_back(variant == 0 ? n.div(dy[o], win[o].D) : n.mul(dy[o], n.rcp(win[o].D)));
    std::vector<double> dx;
    for (const auto& t : terms) dx.push_back(rnd(out, sum_in(n, t, order)));
    return dx;
}

}  // namespace

TEST_CASE("average pooling: naive evaluations in every profile, order and division are accepted") {
    for (DataType t : {DataType::FLOAT16, DataType::FLOAT32, DataType::FLOAT64})
        for (uint32_t include : {0u, 1u})
            for (double lo : {-1.0, 0.25}) {  // signed (cancellation) and positive terms
                Pool p;
                p.include = include;
                const auto x = random_values(size_t(p.C) * p.H * p.W, lo, 1, 7 + include, t);
                Case c;
                c.op = pool_op(t, p, false);
                c.inputs["InputTensor"] = stored(t, x);
                const Case golden = with_golden(c, "OutputTensor");
                for (const Profile& pr : profiles(t))
                    for (int variant = 0; variant < 3; ++variant)
                        for (int order = 0; order < 4; ++order)
                            check_accepted(
                                golden, "OutputTensor", naive_pool(p, include, x, pr.work, variant, order, work_of(t)),
                                pr.accumulate,
                                "type " + std::string(name(t)) + " include " + std::to_string(include) + " variant " +
                                    std::to_string(variant) + " order " + std::to_string(order));
                // dY for the grad: the forward's output shape.
                const auto dy = random_values(windows(p, include).size(), lo, 1, 11 + include, t);
                Case g;
                g.op = pool_op(t, p, true);
                g.inputs["InputGradientTensor"] = stored(t, dy);
                const Case grad = with_golden(g, "OutputGradientTensor");
                for (const Profile& pr : profiles(t))
                    for (int variant = 0; variant < 2; ++variant)
                        for (int order = 0; order < 4; ++order)
                            check_accepted(grad, "OutputGradientTensor",
                                           naive_pool_grad(p, dy, pr.work, variant, order, work_of(t)), pr.accumulate,
                                           "grad type " + std::string(name(t)));
            }
}

TEST_CASE("average pooling: the bound is a few ULPs, exact at its edge, and planted errors fail") {
    const DataType t = DataType::FLOAT32;
    Pool p;
    const auto x = random_values(size_t(p.C) * p.H * p.W, 0.25, 1, 3, t);
    Case c;
    c.op = pool_op(t, p, false);
    c.inputs["InputTensor"] = stored(t, x);
    const Case golden = with_golden(c, "OutputTensor");
    const auto g = golden_values(golden, "OutputTensor", t);
    const auto b = bounds_of(golden, "OutputTensor", t, Accumulate::Float32);
    for (size_t i = 0; i < g.size(); ++i) {
        // Positive terms, at most 9 of them, divided by D <= 9: hand count, relative to |g| (all
        // terms >= 1/4 so |g| >= 1/4 of the window's scale): 8 additions, 2.5 ULP division, the
        // golden's 1/2 ULP -- well under 64 ULPs of the golden.
        const double ulp = std::ldexp(1.0, std::ilogb(g[i]) - 23);
        CHECK(b[i] > 0);
        CHECK(b[i] < 64 * ulp);
        // The last float inside the bound passes, the next one (1 ULP further) fails.
        float inside = float(g[i]);
        while (std::fabs(double(std::nextafter(inside, 2.0f)) - g[i]) <= b[i]) inside = std::nextafter(inside, 2.0f);
        const float beyond = std::nextafter(inside, 2.0f);
        CHECK(within_bound(t, to_bits(float(g[i])), to_bits(inside), b[i]));
        CHECK_FALSE(within_bound(t, to_bits(float(g[i])), to_bits(beyond), b[i]));
        std::vector<double> a = g;
        a[i] = beyond;
        CHECK(judge_all(golden, "OutputTensor", a, Accumulate::Float32).over == 1);
        a[i] = inside;
        CHECK(judge_all(golden, "OutputTensor", a, Accumulate::Float32).over == 0);
    }
    // A flipped sign.
    std::vector<double> a = g;
    a[3] = -a[3];
    CHECK(judge_all(golden, "OutputTensor", a, Accumulate::Any).over == 1);
    // The other IncludePadding reading: every window whose divisor differs fails, under any profile.
    const auto wrong = naive_pool(p, true, x, Work::Float, 0, 0, Work::Float);
    size_t differ = 0;
    for (const Tap& w : windows(p, false)) differ += w.D != double(p.k * p.k);
    REQUIRE(differ > 0);
    CHECK(judge_all(golden, "OutputTensor", wrong, Accumulate::Any).over == differ);
    // The grad: the other reading too.
    const auto dy = random_values(windows(p, false).size(), 0.25, 1, 5, t);
    Case gc;
    gc.op = pool_op(t, p, true);
    gc.inputs["InputGradientTensor"] = stored(t, dy);
    const Case grad = with_golden(gc, "OutputGradientTensor");
    Pool q = p;
    q.include = 1;
    const auto wrong_grad = naive_pool_grad(q, dy, Work::Float, 0, 0, Work::Float);
    CHECK(judge_all(grad, "OutputGradientTensor", wrong_grad, Accumulate::Any).over > 0);
    CHECK(judge_all(grad, "OutputGradientTensor", naive_pool_grad(p, dy, Work::Float, 0, 0, Work::Float),
                    Accumulate::Float32)
              .over == 0);
}

TEST_CASE("computed bounds: a base that may reach 0 gives no bound; the flushing profile only widens") {
    const Arithmetic ar(DataType::FLOAT32, false), fl(DataType::FLOAT32, true);
    const Quantity b{1e-30, 1e-30, 1e-29};  // the backend's base may be <= 0
    CHECK(std::isinf(ar.pow(b, -0.75).err));
    CHECK(std::isinf(ar.div(ar.input(1), b).err));
    const Quantity x = ar.input(3), y = ar.input(7);
    // 3 / 7: the division's 2.5 ULP of a result below 1/2 (5u * (3/7 + 0)) and nothing else.
    const Quantity q = ar.div(x, y);
    CHECK(q.err >= 5 * 0x1p-24 * (3.0 / 7));
    CHECK(q.err <= 5 * 0x1p-24 * (3.0 / 7) * (1 + 1e-12) + 3 * 0x1p-149);
    CHECK(q.lo <= 3.0 / 7);
    CHECK(q.hi >= 3.0 / 7);
    CHECK(fl.div(fl.input(3), fl.input(7)).err > q.err);
    // 16^-0.75 = 1/8 exactly: the error is the stated pow accuracy (K ULP of 1/8, K = 2, at most
    // 2K u relative) plus the exp2(p log2 b) allowance 2^e - 1, e = |p| (log2 16 * 7u + 8u) =
    // 0.75 * 36u = 27u: at least ln 2 * 27u relative, and no more than twice the two together.
    const Quantity p = ar.pow(ar.input(16), -0.75);
    const double u = 0x1p-24, K = kStatedAccuracy.pow;
    CHECK(K == 2);
    CHECK(p.err >= 0.125 * (2 * K * u + 27 * u * std::log(2.0)));
    CHECK(p.err <= 2 * 0.125 * (2 * K * u + 27 * u));
}

}  // namespace dmlref_test_bound_computed
