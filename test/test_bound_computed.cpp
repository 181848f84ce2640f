// The per-element bound of computed values (docs/tolerance.md, "Computed values"): average
// pooling and LRN, judged through dmlref diff's census. Accepted: naive evaluations written in
// this file (float32, emulated FLOAT16 and float64 loops in several summation orders and
// formulas, powf). Rejected: planted errors (the first float beyond the bound, a flipped sign,
// the other IncludePadding divisor, the other side of an even LRN window).
#include "support.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/tolerance.hpp"

#include <cmath>
#include <functional>
#include <random>

using namespace dmlref;
using namespace dmlref::test;

namespace {

// ---- Naive arithmetic in a working type: every operation rounded to it ------------------------

enum class Work { Half, Float, Double };
double rnd(Work w, double v) {
    switch (w) {
        case Work::Half: return half_to_double(half_from_double(v));
        case Work::Float: return double(float(v));
        default: return v;
    }
}
// The operation in double, then rounded to the working type: exact for + - * of halves and
// floats (the double result is exact or rounds once more harmlessly for *), a division or pow
// within a fraction of an ULP more (a double rounding), inside the stated accuracies.
struct Naive {
    Work w;
    bool exp2_log2 = false;  // pow as exp2(p * log2(b)), each step rounded (a shader's pow)
    double add(double a, double b) const { return rnd(w, a + b); }
    double mul(double a, double b) const { return rnd(w, a * b); }
    double div(double a, double b) const { return rnd(w, a / b); }
    double pow(double a, double b) const {
        if (exp2_log2) return rnd(w, std::exp2(mul(b, rnd(w, std::log2(a)))));
        return w == Work::Float ? double(std::pow(float(a), float(b))) : rnd(w, std::pow(a, b));
    }
    double rcp(double a) const { return rnd(w, 1 / a); }
};

// Sums in four orders: forward, backward, pairwise, and from the largest magnitude down.
double sum_in(const Naive& n, std::vector<double> v, int order) {
    if (v.empty()) return 0;
    if (order == 1) std::reverse(v.begin(), v.end());
    if (order == 3) std::sort(v.begin(), v.end(), [](double a, double b) { return std::fabs(a) > std::fabs(b); });
    if (order == 2) {
        while (v.size() > 1) {
            std::vector<double> next;
            for (size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(n.add(v[i], v[i + 1]));
            if (v.size() % 2) next.push_back(v.back());
            v = next;
        }
        return v[0];
    }
    double s = 0;
    for (double x : v) s = n.add(s, x);
    return s;
}

template <class T> std::vector<std::byte> bytes_of(const std::vector<double>& v) {
    std::vector<T> t(v.size());
    for (size_t i = 0; i < v.size(); ++i) t[i] = round_to_float<T>(v[i]);
    std::vector<std::byte> b(t.size() * sizeof(T));
    std::memcpy(b.data(), static_cast<const void*>(t.data()), b.size());
    return b;
}

std::vector<std::byte> stored(DataType t, const std::vector<double>& v) {
    return t == DataType::FLOAT16 ? bytes_of<half>(v) : t == DataType::FLOAT32 ? bytes_of<float>(v) : bytes_of<double>(v);
}

Case with_golden(Case c, const std::string& output) {
    auto out = run_case(c);
    ExpectedOutput& e = c.expected[output];
    e.values = out.values.at(output);
    e.tolerance = stated_tolerance(c, output);
    return c;
}

OutputCensus judge_all(const Case& golden, const std::string& output, const std::vector<double>& actual, Accumulate a) {
    DiffOptions o;
    o.profile.accumulate = a;
    const DataType t = golden.expected.at(output).values.size() / actual.size() == 2 ? DataType::FLOAT16
                       : golden.expected.at(output).values.size() / actual.size() == 4 ? DataType::FLOAT32 : DataType::FLOAT64;
    return census(golden, output, stored(t, actual), o);
}

std::vector<double> golden_values(const Case& c, const std::string& output, DataType t) {
    const auto& b = c.expected.at(output).values;
    const size_t w = element_size(t);
    std::vector<double> v(b.size() / w);
    for (size_t i = 0; i < v.size(); ++i) {
        const uint64_t bits = load_bits(t, b.data() + i * w);
        v[i] = t == DataType::FLOAT16 ? half_to_double(from_bits<half>(uint16_t(bits)))
             : t == DataType::FLOAT32 ? double(from_bits<float>(uint32_t(bits))) : from_bits<double>(bits);
    }
    return v;
}

// Each element's bound under the profile, as dmlref diff computes it.
std::vector<double> bounds_of(const Case& c, const std::string& output, DataType t, Accumulate a) {
    ArithmeticProfile p;
    p.accumulate = a;
    const auto sink = summed_terms(c, output, p);
    REQUIRE(sink.has_value());
    const auto& b = c.expected.at(output).values;
    std::vector<double> r;
    for (size_t i = 0; i < sink->elements().size(); ++i)
        r.push_back(element_bound(sink->elements()[i], t, load_bits(t, b.data() + i * element_size(t)), p));
    return r;
}

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
                        if (y >= 0 && y < p.H && x >= 0 && x < p.W) t.in.push_back((c * p.H + uint64_t(y)) * p.W + uint64_t(x));
                    }
                t.D = include ? double(p.k * p.k) : double(t.in.size());
                r.push_back(t);
            }
    return r;
}

// A naive forward: variant 0 sums then divides, 1 multiplies the sum by a reciprocal, 2 divides
// every term first; `order` picks the summation order; the result rounded to `out`.
std::vector<double> naive_pool(const Pool& p, bool include, const std::vector<double>& x, Work w, int variant, int order, Work out) {
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
std::vector<double> naive_pool_grad(const Pool& p, const std::vector<double>& dy, Work w, int variant, int order, Work out) {
    const Naive n{w};
    std::vector<std::vector<double>> terms(size_t(p.C) * p.H * p.W);
    const auto win = windows(p, p.include);
    for (size_t o = 0; o < win.size(); ++o)
        for (uint64_t i : win[o].in) terms[i].push_back(variant == 0 ? n.div(dy[o], win[o].D) : n.mul(dy[o], n.rcp(win[o].D)));
    std::vector<double> dx;
    for (const auto& t : terms) dx.push_back(rnd(out, sum_in(n, t, order)));
    return dx;
}

std::vector<double> random_values(size_t n, double lo, double hi, uint32_t seed, DataType t) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = t == DataType::FLOAT16 ? rnd(Work::Half, u(g)) : t == DataType::FLOAT32 ? rnd(Work::Float, u(g)) : u(g);
    return v;
}

struct Profile {
    Accumulate accumulate;
    Work work;
};
// The working types each output type admits, with the profile that names them.
std::vector<Profile> profiles(DataType t) {
    if (t == DataType::FLOAT16) return {{Accumulate::Output, Work::Half}, {Accumulate::Float32, Work::Float}, {Accumulate::Float64, Work::Double}};
    if (t == DataType::FLOAT32) return {{Accumulate::Output, Work::Float}, {Accumulate::Float64, Work::Double}};
    return {{Accumulate::Output, Work::Double}};
}
Work work_of(DataType t) { return t == DataType::FLOAT16 ? Work::Half : t == DataType::FLOAT32 ? Work::Float : Work::Double; }

void check_accepted(const Case& golden, const std::string& output, const std::vector<double>& actual, Accumulate a, const std::string& what) {
    for (Accumulate profile : {a, Accumulate::Any}) {
        const OutputCensus r = judge_all(golden, output, actual, profile);
        INFO(what << " under accumulate=" << name(profile) << ": worst error/bound " << r.worst_ratio);
        CHECK(r.over == 0);
        CHECK(r.worst_ratio <= 1);
    }
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
                            check_accepted(golden, "OutputTensor", naive_pool(p, include, x, pr.work, variant, order, work_of(t)), pr.accumulate,
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
                            check_accepted(grad, "OutputGradientTensor", naive_pool_grad(p, dy, pr.work, variant, order, work_of(t)),
                                           pr.accumulate, "grad type " + std::string(name(t)));
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
    CHECK(judge_all(grad, "OutputGradientTensor", naive_pool_grad(p, dy, Work::Float, 0, 0, Work::Float), Accumulate::Float32).over == 0);
}

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
double naive_b(const Naive& n, const LrnSetup& s, const std::vector<double>& x, uint64_t i, int variant, int order, bool mirrored) {
    std::vector<double> sq;
    for (uint64_t j : region(s, i, mirrored)) sq.push_back(n.mul(x[j], x[j]));
    const double S = sum_in(n, sq, order), a = rnd(n.w, s.Alpha), L = s.L;
    const double scaled = variant == 0 ? n.mul(n.div(a, L), S) : variant == 1 ? n.mul(n.div(S, L), a) : n.div(n.mul(a, S), L);
    return n.add(rnd(n.w, s.Bias), scaled);
}

std::vector<double> naive_lrn(const LrnSetup& s, const std::vector<double>& x, Work w, int variant, int order, Work out, bool mirrored = false) {
    const Naive n{w, variant == 2};
    std::vector<double> y;
    for (uint64_t i = 0; i < x.size(); ++i) {
        const double B = naive_b(n, s, x, i, variant, order, mirrored);
        y.push_back(rnd(out, variant == 1 ? n.div(x[i], n.pow(B, s.Beta)) : n.mul(x[i], n.pow(B, -double(s.Beta)))));
    }
    return y;
}

// The grad as written (variant 0, 2) or through the chain rule as autograd runs it (variant 1).
std::vector<double> naive_lrn_grad(const LrnSetup& s, const std::vector<double>& x, const std::vector<double>& dy, Work w, int variant,
                                   int order, Work out) {
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

TEST_CASE("LRN: naive evaluations (three associations of B, x * B^-Beta or x / B^Beta, the grad both ways, a cancelling B) are accepted") {
    for (DataType t : {DataType::FLOAT16, DataType::FLOAT32, DataType::FLOAT64})
        for (uint32_t L : {3u, 4u})
            for (float beta : {0.75f, 1.5f})
            for (float alpha : {1.0f, -0.2f}) {  // -0.2: B = 1 - 0.2 S / L in [0.2, 1], a cancellation
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
                            const std::string what = std::string(name(t)) + " L " + std::to_string(L) + " variant " + std::to_string(variant);
                            check_accepted(fwd, "OutputTensor", naive_lrn(s, x, pr.work, variant, order, work_of(t)), pr.accumulate, what);
                            check_accepted(grad, "OutputGradientTensor", naive_lrn_grad(s, x, dy, pr.work, variant, order, work_of(t)),
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
        while (std::fabs(double(std::nextafter(inside, -10.0f)) - g[i]) <= b[i]) inside = std::nextafter(inside, -10.0f);
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
    const size_t big = size_t(std::max_element(gd.begin(), gd.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); }) - gd.begin());
    flipped[big] = -flipped[big];
    CHECK(judge_all(grad, "OutputGradientTensor", flipped, Accumulate::Any).over == 1);
    LrnSetup s1 = s;
    s1.Alpha = 0;  // the second part of the grad lost
    CHECK(judge_all(grad, "OutputGradientTensor", naive_lrn_grad(s1, x, dy, Work::Float, 0, 0, Work::Float), Accumulate::Any).over > n / 2);
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
