// LOCAL_RESPONSE_NORMALIZATION and _GRAD. Expected values come from a naive evaluation in this
// file (each element's region found by testing every element against the ONNX bounds, the
// formula in MPFR at 300 bits, rounded by MPFR) and, for the grad, from the central difference
// of sum(dY * Y(X)) computed with that forward at 300 bits: an independent derivative.
#include "mpfr_round.hpp"
#include "support.hpp"

#include <gmpxx.h>
#include <mpfr.h>

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_lrn {

using namespace dmlref;
using namespace dmlref::test;

namespace {

constexpr mpfr_prec_t kPrecision = 300;

struct Lrn {
    std::vector<uint32_t> sizes;
    uint32_t CrossChannel = 1, LocalSize = 3;
    float Alpha = 1e-4f, Beta = 0.75f, Bias = 1.0f;
};

Operator forward_op(DataType t, const Lrn& l, std::vector<uint32_t> in_strides = {},
                    std::vector<uint32_t> out_strides = {}) {
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC d;
    d.InputTensor = desc(t, l.sizes, std::move(in_strides));
    d.OutputTensor = desc(t, l.sizes, std::move(out_strides));
    d.CrossChannel = l.CrossChannel;
    d.LocalSize = l.LocalSize;
    d.Alpha = l.Alpha;
    d.Beta = l.Beta;
    d.Bias = l.Bias;
    return {OperatorType::LOCAL_RESPONSE_NORMALIZATION, d};
}

Operator grad_op(DataType t, const Lrn& l, std::vector<uint32_t> strides = {}) {
    DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC d;
    d.InputTensor = desc(t, l.sizes, strides);
    d.InputGradientTensor = desc(t, l.sizes, strides);
    d.OutputGradientTensor = desc(t, l.sizes, strides);
    d.CrossChannel = l.CrossChannel;
    d.LocalSize = l.LocalSize;
    d.Alpha = l.Alpha;
    d.Beta = l.Beta;
    d.Bias = l.Bias;
    return {OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD, d};
}

uint64_t count(const std::vector<uint32_t>& s) {
    uint64_t n = 1;
    for (auto v : s) n *= v;
    return n;
}
std::vector<int64_t> coords(uint64_t i, const std::vector<uint32_t>& s) {
    std::vector<int64_t> c(s.size());
    for (size_t d = s.size(); d-- > 0;) {
        c[d] = int64_t(i % s[d]);
        i /= s[d];
    }
    return c;
}

// Whether element k lies in element i's region (ONNX: floor((L-1)/2) before, ceil((L-1)/2) after).
bool in_region(const Lrn& l, uint64_t i, uint64_t k) {
    const auto ci = coords(i, l.sizes), ck = coords(k, l.sizes);
    const int64_t before = (int64_t(l.LocalSize) - 1) / 2, after = int64_t(l.LocalSize) - 1 - before;
    for (size_t d = 0; d < l.sizes.size(); ++d) {
        const bool windowed = l.CrossChannel ? d == 1 : d >= 2;
        if (!windowed) {
            if (ci[d] != ck[d]) return false;
            continue;
        }
        if (ck[d] < ci[d] - before || ck[d] > ci[d] + after) return false;
    }
    return true;
}

struct Big {
    mpfr_t v;
    Big() {
        mpfr_init2(v, kPrecision);
        mpfr_set_zero(v, 1);
    }
    Big(const Big& o) {
        mpfr_init2(v, kPrecision);
        mpfr_set(v, o.v, MPFR_RNDN);
    }
    Big& operator=(const Big& o) {
        mpfr_set(v, o.v, MPFR_RNDN);
        return *this;
    }
    ~Big() { mpfr_clear(v); }
};

// Y of every element at 300 bits, from exact-ish inputs (doubles, exact in 300 bits).
std::vector<Big> naive_forward(const Lrn& l, const std::vector<Big>& x) {
    std::vector<Big> y(x.size());
    Big s, t, b, e;
    mpfr_set_d(e.v, -double(l.Beta), MPFR_RNDN);
    for (uint64_t i = 0; i < x.size(); ++i) {
        mpfr_set_zero(s.v, 1);
        for (uint64_t k = 0; k < x.size(); ++k)
            if (in_region(l, i, k)) {
                mpfr_sqr(t.v, x[k].v, MPFR_RNDN);
                mpfr_add(s.v, s.v, t.v, MPFR_RNDN);
            }
        mpfr_mul_d(b.v, s.v, double(l.Alpha), MPFR_RNDN);
        mpfr_div_ui(b.v, b.v, l.LocalSize, MPFR_RNDN);
        mpfr_add_d(b.v, b.v, double(l.Bias), MPFR_RNDN);
        mpfr_pow(t.v, b.v, e.v, MPFR_RNDN);
        mpfr_mul(y[i].v, x[i].v, t.v, MPFR_RNDN);
    }
    return y;
}

// dX_j = d/dX_j sum(dY * Y(X)) by the central difference with step 2^-100.
std::vector<Big> naive_grad(const Lrn& l, const std::vector<Big>& x, const std::vector<Big>& dy) {
    std::vector<Big> g(x.size());
    auto f = [&](const std::vector<Big>& xs) {
        Big sum, t;
        const auto y = naive_forward(l, xs);
        for (size_t i = 0; i < y.size(); ++i) {
            mpfr_mul(t.v, y[i].v, dy[i].v, MPFR_RNDN);
            mpfr_add(sum.v, sum.v, t.v, MPFR_RNDN);
        }
        return sum;
    };
    for (size_t j = 0; j < x.size(); ++j) {
        auto plus = x, minus = x;
        mpfr_add_d(plus[j].v, plus[j].v, std::ldexp(1.0, -100), MPFR_RNDN);
        mpfr_sub_d(minus[j].v, minus[j].v, std::ldexp(1.0, -100), MPFR_RNDN);
        const Big fp = f(plus), fm = f(minus);
        mpfr_sub(g[j].v, fp.v, fm.v, MPFR_RNDN);
        mpfr_mul_2si(g[j].v, g[j].v, 99, MPFR_RNDN);  // / (2 * 2^-100)
    }
    return g;
}

template <class T> T round_big(const Big& b) {
    if constexpr (std::is_integral_v<T>) return mpfr_rounded_integer<T>(b.v);
    else {
        const double d = mpfr_rounded<T>(b.v);
        return std::isnan(d) ? canonical_nan<T>() : value_of<T>(d);  // a zero keeps its sign
    }
}

template <class T> std::vector<Big> bigs(const std::vector<T>& v) {
    std::vector<Big> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        if constexpr (std::is_integral_v<T>) mpfr_set_si(r[i].v, long(v[i]), MPFR_RNDN);
        else mpfr_set_d(r[i].v, widen(v[i]), MPFR_RNDN);
    }
    return r;
}

Lrn random_lrn(std::mt19937_64& rng, size_t max_rank) {
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return uint32_t(std::uniform_int_distribution<uint32_t>(lo, hi)(rng));
    };
    Lrn l;
    const size_t rank = pick(2, uint32_t(max_rank));
    for (size_t d = 0; d < rank; ++d) l.sizes.push_back(d == 1 ? pick(1, 5) : pick(1, rank > 4 ? 2 : 3));
    l.CrossChannel = pick(0, 1);
    l.LocalSize = pick(1, 4);
    const float alphas[] = {1e-4f, 0.5f, 1.0f, 3.0f};
    const float betas[] = {0.75f, 0.5f, 1.0f, 1.3f, -0.25f, 0.0f};
    const float biases[] = {1.0f, 2.0f, 0.5f, 0.01f};
    l.Alpha = alphas[pick(0, 3)];
    l.Beta = betas[pick(0, 5)];
    l.Bias = biases[pick(0, 3)];
    return l;
}

template <class T> std::vector<T> random_values(std::mt19937_64& rng, uint64_t n) {
    std::vector<T> v;
    for (uint64_t i = 0; i < n; ++i) {
        const int m = std::uniform_int_distribution<int>(std::is_signed_v<T> || !std::is_integral_v<T> ? -40 : 0,
                                                         40)(rng);
        if constexpr (std::is_integral_v<T>) v.push_back(T(m));
        else v.push_back(value_of<T>(std::ldexp(double(m), -3)));
    }
    return v;
}

}  // namespace

TEST_CASE_TEMPLATE("lrn: forward against the naive evaluation at 300 bits, every type, strided", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(74 + sizeof(T) * 7 + std::is_signed_v<T>);
    for (int trial = 0; trial < 25; ++trial) {
        const Lrn l = random_lrn(rng, trial < 20 ? 4 : 8);
        CAPTURE(trial);
        const DataType t = data_type_of<T>();
        const auto x = random_values<T>(rng, count(l.sizes));
        std::vector<uint32_t> in_strides(l.sizes.size()), out_strides(l.sizes.size());
        uint32_t s = 3, so = 2;
        for (size_t i = l.sizes.size(); i-- > 0;) {
            in_strides[i] = s;
            s *= l.sizes[i];
            out_strides[i] = so;
            so *= l.sizes[i];
        }
        auto y = run(forward_op(t, l, in_strides, out_strides),
                     {{"InputTensor", logical_buffer(desc(t, l.sizes, in_strides), x, std::byte{0x33})}});
        std::vector<T> expected;
        for (const auto& b : naive_forward(l, bigs(x))) expected.push_back(round_big<T>(b));
        check_bits(as_values<T>(y.at("OutputTensor")), expected);
    }
}

TEST_CASE_TEMPLATE("lrn: the grad is the central difference of the forward at 300 bits", T, double, float) {
    std::mt19937_64 rng(144 + sizeof(T));
    for (int trial = 0; trial < 12; ++trial) {
        const Lrn l = random_lrn(rng, 4);
        if (count(l.sizes) > 18) continue;  // the difference is O(n^3) at 300 bits
        CAPTURE(trial);
        const DataType t = data_type_of<T>();
        const auto x = random_values<T>(rng, count(l.sizes));
        const auto dy = random_values<T>(rng, count(l.sizes));
        // Every tensor strided: elements two apart, sentinel bytes between them.
        std::vector<uint32_t> strides(l.sizes.size());
        uint32_t st = 2;
        for (size_t i = l.sizes.size(); i-- > 0;) {
            strides[i] = st;
            st *= l.sizes[i];
        }
        auto r = run(grad_op(t, l, strides),
                     {{"InputTensor", logical_buffer(desc(t, l.sizes, strides), x, std::byte{0x44})},
                      {"InputGradientTensor", logical_buffer(desc(t, l.sizes, strides), dy, std::byte{0x55})}});
        std::vector<T> expected;
        for (const auto& b : naive_grad(l, bigs(x), bigs(dy))) expected.push_back(round_big<T>(b));
        const auto actual = as_values<T>(r.at("OutputGradientTensor"));
        REQUIRE(actual.size() == expected.size());
        for (size_t i = 0; i < actual.size(); ++i) {
            CAPTURE(i);
            // An exact zero: the central difference leaves a residue of order 2^-200 instead.
            if (actual[i] == T(0) && std::fabs(double(expected[i])) < 1e-40) continue;
            CHECK(to_bits(actual[i]) == to_bits(expected[i]));
        }
    }
}

TEST_CASE("lrn: exact results, hand derived") {
    // B = 4 + 3 * 2^2 = 16, 16^-0.75 = 1/8: Y = 2/8.
    Lrn l{{1, 1}, 1, 1, 3.0f, 0.75f, 4.0f};
    auto y = run(forward_op(DataType::FLOAT32, l),
                 {{"InputTensor", buffer(desc(DataType::FLOAT32, l.sizes), std::vector<float>{2})}});
    CHECK(as_values<float>(y.at("OutputTensor"))[0] == 0.25f);
    // Beta 0: Y = X exactly, -0 keeps its sign.
    Lrn z{{1, 3}, 1, 2, 1.0f, 0.0f, 1.0f};
    auto y0 = run(forward_op(DataType::FLOAT32, z),
                  {{"InputTensor", buffer(desc(DataType::FLOAT32, z.sizes), std::vector<float>{-0.0f, 3, 0.1f})}});
    check_bits(as_values<float>(y0.at("OutputTensor")), {-0.0f, 3, 0.1f});
    // Grad, L = 1, Alpha 1, Beta 0.75, Bias 0.5, X = 1: dX = dY 1.5^-1.75 (1.5 - 1.5) = +0 exactly.
    Lrn g{{1, 1}, 1, 1, 1.0f, 0.75f, 0.5f};
    auto dx = run(grad_op(DataType::FLOAT32, g),
                  {{"InputTensor", buffer(desc(DataType::FLOAT32, g.sizes), std::vector<float>{1})},
                   {"InputGradientTensor", buffer(desc(DataType::FLOAT32, g.sizes), std::vector<float>{2})}});
    check_bits(as_values<float>(dx.at("OutputGradientTensor")), {0.0f});
}

TEST_CASE("lrn: every validation rule") {
    const Lrn ok{{1, 3, 2, 2}};
    for (const std::string op : {"lrn", "lrn-grad"}) {
        CAPTURE(op);
        auto make = [&](const Lrn& l) {
            return op == "lrn" ? forward_op(DataType::FLOAT32, l) : grad_op(DataType::FLOAT32, l);
        };
        CHECK_FALSE(validate(make(ok)).has_errors());
        Operator o = make(ok);
        visit_as<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>(
            o.Desc, [](auto& d) {
                if constexpr (requires { d.InputGradientTensor; }) d.InputGradientTensor.DataType = DataType::FLOAT16;
                else if constexpr (requires { d.CrossChannel; }) d.OutputTensor.DataType = DataType::FLOAT16;
            });
        CHECK(has_error(o, op + ".same-data-type",
                        op == "lrn" ? "/desc/OutputTensor/DataType" : "/desc/InputGradientTensor/DataType"));
        o = make(ok);
        visit_as<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>(
            o.Desc, [](auto& d) {
                if constexpr (requires {
                                  d.InputGradientTensor;
                                  d.CrossChannel;
                              })
                    d.OutputGradientTensor.Sizes = {1, 3, 2, 1};
                else if constexpr (requires { d.CrossChannel; }) d.OutputTensor.Sizes = {1, 3, 2, 1};
            });
        CHECK(has_error(o, op + ".same-sizes",
                        op == "lrn" ? "/desc/OutputTensor/Sizes" : "/desc/OutputGradientTensor/Sizes"));
        Lrn l = ok;
        l.sizes = {6};
        CHECK(has_error(make(l), op + ".rank", "/desc/InputTensor/Sizes"));
        l = ok;
        l.CrossChannel = 2;
        CHECK(has_error(make(l), op + ".cross-channel", "/desc/CrossChannel"));
        l = ok;
        l.LocalSize = 0;
        CHECK(has_error(make(l), op + ".local-size", "/desc/LocalSize"));
        l = ok;
        l.Beta = std::numeric_limits<float>::infinity();
        CHECK(has_error(make(l), op + ".parameter-finite", "/desc/Beta"));
        l = ok;
        l.Alpha = std::numeric_limits<float>::quiet_NaN();
        CHECK(has_error(make(l), op + ".parameter-finite", "/desc/Alpha"));
    }
}

namespace {

std::vector<float> lrn_grad_of(const Lrn& l, std::vector<float> x, std::vector<float> dy) {
    auto r = run(grad_op(DataType::FLOAT32, l),
                 {{"InputTensor", buffer(desc(DataType::FLOAT32, l.sizes), x)},
                  {"InputGradientTensor", buffer(desc(DataType::FLOAT32, l.sizes), dy)}});
    return as_values<float>(r.at("OutputGradientTensor"));
}

}  // namespace

// docs/golden.md, Computed values: an exact zero is +0. Hand derived from the grad's formula with
// IEEE's special values; the exact value 0 is what the golden rounds, whatever sign IEEE's
// arithmetic would give the zero.
TEST_CASE("lrn: a grad that is exactly 0 is +0 where some B is <= 0 or infinite") {
    SUBCASE("B = -2: Bias -2, Beta 1, X = 0, dY = +0") {
        // dX = (+0)(-2)^-1 - (2 / 1) 0 (0 * 0 * (-2)^-2) = 0 exactly (IEEE: +0 * -0.5 = -0, -0 - +0 = -0).
        CHECK(to_bits(lrn_grad_of({{1, 1}, 1, 1, 1.0f, 1.0f, -2.0f}, {0}, {0}).at(0)) == 0x00000000u);
        // The same zero with B = 2 > 0 was +0 already.
        CHECK(to_bits(lrn_grad_of({{1, 1}, 1, 1, 1.0f, 1.0f, 2.0f}, {0}, {0}).at(0)) == 0x00000000u);
    }
    SUBCASE("B = inf") {
        // LocalSize 2 (regions [c, c + 1]), Alpha 1, Beta 1, Bias 1, X = {0, 0, inf}, dY = {1, -1, 0}:
        // B1 = inf (region [1, 2]); element 1 is read by c = 0 (B0 = 1) and c = 1.
        // dX1 = dY1 B1^-1 - (2 / 2) X1 (dY0 X0 B0^-2 + dY1 X1 B1^-2) = -1 * 0 - 0 = 0 exactly
        // (IEEE: -1 * +0 = -0, and -0 - (+0) = -0).
        const float inf = std::numeric_limits<float>::infinity();
        const auto dx = lrn_grad_of({{1, 3}, 1, 2, 1.0f, 1.0f, 1.0f}, {0, 0, inf}, {1, -1, 0});
        CHECK(to_bits(dx.at(1)) == 0x00000000u);
        CHECK(dx.at(0) == 1.0f);  // dY0 B0^-1 - X0 (...) = 1
    }
}

// An oracle decides exact cases rather than giving up ("undecided at 65536 bits"). Hand derived
// from the grad's formula, checked with Python's fractions module (the irrational factor taken
// out, what is left is rational).
TEST_CASE("lrn: grad exact zeros across distinct bases and with negative bases are decided, +0") {
    SUBCASE("B0 = 12 = 4 B1, Beta 0.5: 12^-1.5 = 3^-1.5 / 8 cancels against 3^-1.5") {
        // LocalSize 2, Alpha 2 (Alpha / L = 1), Bias 2, X = {3, 1}: regions [0, 1] and [1]:
        // B0 = 2 + 9 + 1 = 12, B1 = 2 + 1 = 3; element 1 is read by c = 0 and c = 1; coef =
        // 2 Alpha Beta / L = 1. dX1 = dY1 B1^-0.5 - X1 (dY0 X0 B0^-1.5 + dY1 X1 B1^-1.5), and with
        // 3^-0.5 = 1/sqrt(3), 3^-1.5 = (1/3)/sqrt(3), 12^-1.5 = (1/24)/sqrt(3), times sqrt(3):
        // dY1 - X1 (dY0 X0 / 24 + dY1 X1 / 3) = 3 - (48/24 + 1) = 0 for dY = {16, 3}
        // (fractions: 3 - 1 * (16 * 3 * Fraction(1, 24) + 3 * 1 * Fraction(1, 3)) == 0).
        const auto dx = lrn_grad_of({{1, 2}, 1, 2, 2.0f, 0.5f, 2.0f}, {3, 1}, {16, 3});
        CHECK(to_bits(dx.at(1)) == 0x00000000u);
        // dX0 = dY0 12^-0.5 - X0 dY0 X0 12^-1.5 = 16 (1/12)^0.5 (1 - 9/12) = 4 / sqrt(12) = 2 / sqrt(3):
        // not exact; rounded to float32 it is 0x3F93CD3A (Python: math.isqrt(4 * 2**166 // 3) >> 60 is
        // the significand 0x93CD3A, and the 60 bits below it are 0.17 of a unit: no tie, rounds down).
        CHECK(to_bits(dx.at(0)) == 0x3F93CD3Au);
    }
    SUBCASE("integer Beta with a negative B that is not a binary fraction: B = -4/3, Beta 2") {
        // LocalSize 3 on one channel (Alpha / L = -1/3 although the region is clipped to X itself),
        // Alpha -1, Bias -1, X = 1: B = -1 - 1/3 = -4/3; coef = 2 (-1) 2 / 3 = -4/3.
        // dX = dY B^-2 - coef X^2 dY B^-3 = 9/16 + (4/3)(-27/64) = 9/16 - 9/16 = 0 with dY = 1
        // (fractions: B = Fraction(-4, 3); B**-2 + Fraction(4, 3) * B**-3 == 0).
        CHECK(to_bits(lrn_grad_of({{1, 1}, 1, 3, -1.0f, 2.0f, -1.0f}, {1}, {1}).at(0)) == 0x00000000u);
        // dY = 2, X = 1, Bias -1, Alpha -1, Beta 1: B = -4/3, coef = -2/3:
        // dX = 2 (-3/4) + (2/3) 2 (9/16) = -3/2 + 3/4 = -3/4, exact.
        CHECK(lrn_grad_of({{1, 1}, 1, 3, -1.0f, 1.0f, -1.0f}, {1}, {2}).at(0) == -0.75f);
    }
}

}  // namespace dmlref_test_lrn
