// AVERAGE_POOLING, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD. Expected values come from the
// AVERAGE_POOLING_GRAD page's example, hand derivation (written beside them), the adjoint
// identity <F(x), g> = <x, G(g)> on values whose averages are exact, and a naive computation in
// this file: exact rationals (GMP) per window, rounded by MPFR (not dmlref's rounding code).
#include "mpfr_round.hpp"
#include "pooling_support.hpp"

#include "dmlref/tolerance.hpp"

#include <gmpxx.h>
#include <mpfr.h>

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_average_pooling {

using namespace dmlref;
using namespace dmlref::test;

namespace {

struct Geometry {
    std::vector<uint32_t> in, out;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
    uint32_t IncludePadding = 0;
};

Operator forward_op(DataType t, const Geometry& g, std::vector<uint32_t> in_strides = {},
                    std::vector<uint32_t> out_strides = {}) {
    DML_AVERAGE_POOLING1_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in, std::move(in_strides));
    d.OutputTensor = desc(t, g.out, std::move(out_strides));
    set_window(d, g);  // pooling_support.hpp
    return {OperatorType::AVERAGE_POOLING1, d};
}

Operator forward_v0(DataType t, const Geometry& g) {
    DML_AVERAGE_POOLING_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, g.out);
    set_window(d, g);
    return {OperatorType::AVERAGE_POOLING, d};
}

Operator grad_op(DataType t, const Geometry& g, std::vector<uint32_t> dy_strides = {},
                 std::vector<uint32_t> dx_strides = {}) {
    DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC d;
    d.InputGradientTensor = desc(t, g.out, std::move(dy_strides));
    d.OutputGradientTensor = desc(t, g.in, std::move(dx_strides));
    set_window(d, g);
    return {OperatorType::AVERAGE_POOLING_GRAD, d};
}

// The naive reading of the page: for output o, every tap k of the window; a tap is real when
// its position is inside the input. Returns (real logical input indices, divisor).
std::pair<std::vector<uint64_t>, uint64_t> window(const Geometry& g, uint64_t o) {
    const std::vector<uint64_t> real = window_taps(g, g.out, o);  // pooling_support.hpp
    const uint64_t D = g.IncludePadding ? product(g.WindowSize) : real.size();
    return {real, D};
}

template <class T> mpq_class exact(T v) {
    if constexpr (std::is_integral_v<T>) return mpq_class(mpz_class(std::to_string(v)));
    else return mpq_class(widen(v));
}

// MPFR's rounding of an exact rational to T (nearest-even, the format's exponent range and
// subnormals); integers: nearest with ties to even from floor(v) and the remainder, saturated.
template <class T> T rounded_by_mpfr(const mpq_class& q) {
    if constexpr (std::is_integral_v<T>) {
        mpz_class f = q.get_num() / q.get_den();  // truncation
        if (mpq_class(f) > q) f -= 1;             // floor
        const mpq_class frac = q - mpq_class(f);
        if (frac > mpq_class(1, 2) || (frac == mpq_class(1, 2) && mpz_odd_p(f.get_mpz_t()))) f += 1;
        const mpz_class lo(std::to_string(std::numeric_limits<T>::min())),
            hi(std::to_string(std::numeric_limits<T>::max()));
        if (f < lo) return std::numeric_limits<T>::min();
        if (f > hi) return std::numeric_limits<T>::max();
        if constexpr (std::is_signed_v<T>) return static_cast<T>(std::stoll(f.get_str()));
        else return static_cast<T>(std::stoull(f.get_str()));
    } else {
        const double d = mpfr_rounded<T>(q);
        return value_of<T>(d == 0 ? 0.0 : d);  // an exact zero is +0
    }
}

template <class T> std::vector<T> naive_forward(const Geometry& g, const std::vector<T>& x) {
    std::vector<T> y;
    for (uint64_t o = 0; o < product(g.out); ++o) {
        const auto [real, D] = window(g, o);
        mpq_class s = 0;
        for (uint64_t i : real) s += exact(x[i]);
        y.push_back(D == 0 ? T(0) : rounded_by_mpfr<T>(s / mpq_class(mpz_class(std::to_string(D)))));
    }
    return y;
}

template <class T> std::vector<T> naive_grad(const Geometry& g, const std::vector<T>& dy) {
    std::vector<mpq_class> dx(product(g.in), mpq_class(0));
    for (uint64_t o = 0; o < product(g.out); ++o) {
        const auto [real, D] = window(g, o);
        for (uint64_t i : real) dx[i] += exact(dy[o]) / mpq_class(mpz_class(std::to_string(D)));
    }
    std::vector<T> r;
    for (const auto& q : dx) r.push_back(rounded_by_mpfr<T>(q));
    return r;
}

// Floor or ceil output sizes of the dilated formula.
std::vector<uint32_t> sizes_for(const Geometry& g, bool ceil) {
    std::vector<uint32_t> out = {g.in[0], g.in[1]};
    for (size_t i = 0; i + 2 < g.in.size(); ++i) {
        const uint32_t padded = g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i];
        const uint32_t w = 1 + (g.WindowSize[i] - 1) * g.Dilations[i];
        const uint32_t f = (padded - w) / g.Strides[i] + 1;
        out.push_back(f + (ceil && (padded - w) % g.Strides[i] != 0));
    }
    return out;
}

// A random valid geometry of rank 3 to `max_rank`.
Geometry random_geometry(std::mt19937_64& rng, size_t max_rank, bool dilations) {
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return uint32_t(std::uniform_int_distribution<uint32_t>(lo, hi)(rng));
    };
    Geometry g;
    const size_t rank = pick(3, uint32_t(max_rank));
    g.in = {pick(1, 2), pick(1, 2)};
    for (size_t i = 2; i < rank; ++i) {
        g.in.push_back(pick(1, rank > 5 ? 2 : 5));
        g.WindowSize.push_back(pick(1, 3));
        g.Strides.push_back(pick(1, 3));
        g.Dilations.push_back(dilations ? pick(1, 2) : 1);
        g.StartPadding.push_back(pick(0, 2));
        g.EndPadding.push_back(pick(0, 2));
        const uint32_t w = 1 + (g.WindowSize.back() - 1) * g.Dilations.back();
        while (g.in.back() + g.StartPadding.back() + g.EndPadding.back() < w) ++g.EndPadding.back();
    }
    g.IncludePadding = pick(0, 1);
    g.out = sizes_for(g, pick(0, 1) == 1);
    return g;
}

template <class T> std::vector<T> random_values(std::mt19937_64& rng, uint64_t n) {
    std::vector<T> v;
    for (uint64_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<T>) {
            v.push_back(T(std::uniform_int_distribution<int64_t>(std::is_signed_v<T> ? -100 : 0, 100)(rng)));
        } else {
            // A few significant bits at mixed scales: sums are exact only through the rationals.
            const double m = double(std::uniform_int_distribution<int>(-1000, 1000)(rng));
            v.push_back(value_of<T>(std::ldexp(m, std::uniform_int_distribution<int>(-12, 4)(rng))));
        }
    }
    return v;
}

}  // namespace

TEST_CASE("average pooling: the AVERAGE_POOLING_GRAD page's example, forward and grad") {
    Geometry g{{1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, 0};
    auto y = run(
        forward_v0(DataType::FLOAT32, g),
        {{"InputTensor", buffer(desc(DataType::FLOAT32, g.in), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9})}});
    check_bits(as_values<float>(y.at("OutputTensor")), {3, 4, 6, 7});
    auto dx = run(grad_op(DataType::FLOAT32, g),
                  {{"InputGradientTensor", buffer(desc(DataType::FLOAT32, g.out), std::vector<float>{1, 2, 3, 4})}});
    check_bits(as_values<float>(dx.at("OutputGradientTensor")), {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1});
}

TEST_CASE("average pooling: one rounding, hand derived") {
    Geometry g{{1, 1, 3}, {1, 1, 1}, {1}, {3}, {0}, {0}, {1}, 0};
    // (3 + 3*2^-24 + 3*2^-60) / 3 = 1 + 2^-24 + 2^-60: above the midpoint of 1 and 1 + 2^-23.
    auto y = run(forward_op(DataType::FLOAT32, g),
                 {{"InputTensor", buffer(desc(DataType::FLOAT32, g.in),
                                         std::vector<float>{3.0f, std::ldexp(3.0f, -24), std::ldexp(3.0f, -60)})}});
    check_bits(as_values<float>(y.at("OutputTensor")), {std::nextafter(1.0f, 2.0f)});
    // 1/3 in FLOAT16: 0x3555 (0.333251953125), the nearest binary16 to a third.
    auto h = run(
        forward_op(DataType::FLOAT16, g),
        {{"InputTensor", buffer(desc(DataType::FLOAT16, g.in),
                                std::vector<half>{half_from_double(1), half_from_double(0), half_from_double(0)})}});
    CHECK(to_bits(as_values<half>(h.at("OutputTensor"))[0]) == 0x3555);
    // FLOAT16 (65504 + 65504 + 65504) / 3 = 65504: the exact mean, though the sum overflows.
    auto m = run(
        forward_op(DataType::FLOAT16, g),
        {{"InputTensor", buffer(desc(DataType::FLOAT16, g.in), std::vector<half>(3, half_from_double(65504)))}});
    CHECK(to_bits(as_values<half>(m.at("OutputTensor"))[0]) == 0x7bff);
    // UINT64: (2^64 - 1 + 2^64 - 1 + 1) / 3 = (2^65 - 1) / 3 = 12297829382473034410.33.. -> ...410.
    auto u = run(forward_op(DataType::UINT64, g),
                 {{"InputTensor", buffer(desc(DataType::UINT64, g.in), std::vector<uint64_t>{~0ull, ~0ull, 1})}});
    CHECK(as_values<uint64_t>(u.at("OutputTensor"))[0] == 12297829382473034410ull);
}

TEST_CASE_TEMPLATE("average pooling: forward and grad against the naive exact computation, every type", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(0xA7E + sizeof(T) * 31 + std::is_signed_v<T>);
    for (int trial = 0; trial < 40; ++trial) {
        const Geometry g = random_geometry(rng, trial < 30 ? 5 : 8, true);
        CAPTURE(trial);
        const DataType t = data_type_of<T>();
        const auto x = random_values<T>(rng, product(g.in));
        // Strided input (every element two apart) and output (reversed last dimension is not
        // expressible with unsigned strides, so padded rows instead), sentinel-filled gaps.
        std::vector<uint32_t> in_strides(g.in.size()), out_strides(g.out.size());
        uint32_t s = 2, so = 1;
        for (size_t i = g.in.size(); i-- > 0;) {
            in_strides[i] = s;
            s *= g.in[i];
            out_strides[i] = so;
            so *= g.out[i] + (i + 1 == g.out.size());
        }
        const Operator f = forward_op(t, g, in_strides, out_strides);
        auto y = run(f, {{"InputTensor", logical_buffer(desc(t, g.in, in_strides), x, std::byte{0x5a})}});
        check_bits(as_values<T>(y.at("OutputTensor")), naive_forward(g, x));
        // The grad has no Dilations: test it on the same geometry with Dilations 1.
        Geometry h = g;
        h.Dilations.assign(h.Dilations.size(), 1);
        h.out = sizes_for(h, false);
        const auto dy = random_values<T>(rng, product(h.out));
        // Strided dY (elements two apart) and dX (rows padded by one element).
        std::vector<uint32_t> dy_strides(h.out.size()), dx_strides(h.in.size());
        uint32_t sy = 2, sx = 1;
        for (size_t i = h.out.size(); i-- > 0;) {
            dy_strides[i] = sy;
            sy *= h.out[i];
            dx_strides[i] = sx;
            sx *= h.in[i] + (i + 1 == h.in.size());
        }
        auto dx = run(grad_op(t, h, dy_strides, dx_strides),
                      {{"InputGradientTensor", logical_buffer(desc(t, h.out, dy_strides), dy, std::byte{0x77})}});
        check_bits(as_values<T>(dx.at("OutputGradientTensor")), naive_grad(h, dy));
    }
}

TEST_CASE_TEMPLATE("average pooling: the grad is the adjoint of the forward operator, <F(x), g> = <x, G(g)>", T, double,
                   int64_t) {
    // Values are multiples of 2520 = lcm(1..9) and every divisor is at most 9, so every
    // quotient is an integer: both sides are exact in T and in the int64 inner products.
    std::mt19937_64 rng(2520 + sizeof(T));
    for (int trial = 0; trial < 60; ++trial) {
        Geometry g = random_geometry(rng, 5, false);
        for (auto& w : g.WindowSize) w = std::min<uint32_t>(w, 3);
        if (g.in.size() == 5) g.WindowSize.back() = 1;  // prod(WindowSize) <= 9
        g.out = sizes_for(g, trial % 2 == 1);
        bool fits = true;
        for (size_t i = 0; i + 2 < g.in.size(); ++i)
            fits = fits && g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i] >= g.WindowSize[i];
        if (!fits) continue;
        CAPTURE(trial);
        const DataType t = data_type_of<T>();
        std::vector<T> x, gy;
        for (uint64_t i = 0; i < product(g.in); ++i)
            x.push_back(T(2520 * std::uniform_int_distribution<int>(-9, 9)(rng)));
        for (uint64_t i = 0; i < product(g.out); ++i)
            gy.push_back(T(2520 * std::uniform_int_distribution<int>(-9, 9)(rng)));
        const auto y = as_values<T>(
            run(forward_v0(t, g), {{"InputTensor", buffer(desc(t, g.in), x)}}).at("OutputTensor"));
        const auto gx = as_values<T>(
            run(grad_op(t, g), {{"InputGradientTensor", buffer(desc(t, g.out), gy)}}).at("OutputGradientTensor"));
        int64_t lhs = 0, rhs = 0;
        for (size_t i = 0; i < y.size(); ++i) lhs += int64_t(y[i]) * int64_t(gy[i]);
        for (size_t i = 0; i < x.size(); ++i) rhs += int64_t(x[i]) * int64_t(gx[i]);
        CHECK(lhs == rhs);
    }
}

TEST_CASE("average pooling: IncludePadding divisors, hand derived") {
    // 1-D view: In 2, StartPadding 2, window 2: output 0 holds only padding.
    Geometry g{{1, 1, 2}, {1, 1, 3}, {1}, {2}, {2}, {0}, {1}, 0};
    const std::vector<float> x = {3, 5};
    auto y0 = as_values<float>(
        run(forward_op(DataType::FLOAT32, g), {{"InputTensor", buffer(desc(DataType::FLOAT32, g.in), x)}})
            .at("OutputTensor"));
    check_bits(y0, {0, 3, 4});  // 0/0 -> +0 (don't care), 3/1, (3+5)/2
    CHECK(dont_care(forward_op(DataType::FLOAT32, g), "OutputTensor").size() == 1);
    g.IncludePadding = 1;
    auto y1 = as_values<float>(
        run(forward_op(DataType::FLOAT32, g), {{"InputTensor", buffer(desc(DataType::FLOAT32, g.in), x)}})
            .at("OutputTensor"));
    check_bits(y1, {0, 1.5f, 4});  // (0+0)/2, (0+3)/2, (3+5)/2
    CHECK(dont_care(forward_op(DataType::FLOAT32, g), "OutputTensor").empty());
    // Dilation 2 with padding 1, IncludePadding TRUE: divisor = 2 taps, not the extent 3.
    Geometry d{{1, 1, 5}, {1, 1, 5}, {1}, {2}, {1}, {1}, {2}, 1};
    auto yd = as_values<float>(
        run(forward_op(DataType::FLOAT32, d),
            {{"InputTensor", buffer(desc(DataType::FLOAT32, d.in), std::vector<float>{1, 2, 3, 4, 5})}})
            .at("OutputTensor"));
    check_bits(yd, {1, 2, 3, 4, 2});
}

TEST_CASE("average pooling: non-finite terms and zeros") {
    Geometry g{{1, 1, 8}, {1, 1, 4}, {2}, {2}, {0}, {0}, {1}, 0};
    const float inf = std::numeric_limits<float>::infinity();
    auto y = as_values<float>(
        run(forward_op(DataType::FLOAT32, g),
            {{"InputTensor",
              buffer(desc(DataType::FLOAT32, g.in),
                     std::vector<float>{inf, 1, inf, -inf, from_bits<float>(0xffc00123u), 2, -0.0f, -0.0f})}})
            .at("OutputTensor"));
    check_bits(y, {inf, canonical_nan<float>(), canonical_nan<float>(), 0.0f});
}

TEST_CASE("average pooling: the stated tolerance counts each element's terms (the bound: test_bound_computed.cpp)") {
    Geometry g{{1, 1, 2}, {1, 1, 3}, {1}, {2}, {2}, {0}, {1}, 0};
    Case c;
    c.op = forward_op(DataType::FLOAT32, g);
    Tolerance t = stated_tolerance(c, "OutputTensor");
    CHECK(t.Kind == "Summed");
    CHECK(t.Terms == std::vector<uint32_t>{0, 1, 2});  // empty; x/1 a copy; 2 terms
    c.op = grad_op(DataType::FLOAT32, g);
    t = stated_tolerance(c, "OutputGradientTensor");
    // dX[0] is read by outputs 1 (D 1) and 2 (D 2): 2 terms; dX[1] by output 2 only: 1.
    CHECK(t.Terms == std::vector<uint32_t>{2, 1});
    c.op = forward_op(DataType::INT32, g);
    CHECK(stated_tolerance(c, "OutputTensor").Kind == "Bits");
}

TEST_CASE("average pooling: every validation rule") {
    const Geometry g{{1, 1, 4, 4}, {1, 1, 3, 3}, {1, 1}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, 0};
    for (const std::string op : {"average-pooling", "average-pooling1", "average-pooling-grad"}) {
        CAPTURE(op);
        auto make = [&](Geometry h, DataType a = DataType::FLOAT32, DataType b = DataType::FLOAT32) {
            Operator o = op == "average-pooling"    ? forward_v0(a, h)
                         : op == "average-pooling1" ? forward_op(a, h)
                                                    : grad_op(a, h);
            visit_as<DML_AVERAGE_POOLING_OPERATOR_DESC, DML_AVERAGE_POOLING1_OPERATOR_DESC,
                     DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC>(o.Desc, [&](auto& d) {
                using D = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<D, DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC>)
                    d.OutputGradientTensor.DataType = b;
                else if constexpr (std::is_same_v<D, DML_AVERAGE_POOLING_OPERATOR_DESC> ||
                                   std::is_same_v<D, DML_AVERAGE_POOLING1_OPERATOR_DESC>)
                    d.OutputTensor.DataType = b;
            });
            return o;
        };
        const bool grad = op == "average-pooling-grad";
        const std::string in = grad ? "/desc/OutputGradientTensor" : "/desc/InputTensor";
        const std::string out = grad ? "/desc/InputGradientTensor" : "/desc/OutputTensor";
        CHECK_FALSE(validate(make(g)).has_errors());
        CHECK(has_error(make(g, DataType::FLOAT32, DataType::FLOAT16), op + ".same-data-type", out + "/DataType"));
        Geometry h = g;
        h.IncludePadding = 2;
        CHECK(has_error(make(h), op + ".include-padding", "/desc/IncludePadding"));
        h = g;
        h.in = {4, 4};
        h.out = {4, 4};
        CHECK(has_error(make(h), op + ".rank", in + "/Sizes"));
        Operator wrong_count = make(g);
        visit_as<DML_AVERAGE_POOLING_OPERATOR_DESC, DML_AVERAGE_POOLING1_OPERATOR_DESC,
                 DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC>(wrong_count.Desc, [](auto& d) {
            if constexpr (requires { d.DimensionCount = 3u; }) d.DimensionCount = 3;
        });
        CHECK(has_error(wrong_count, op + ".dimension-count", "/desc/DimensionCount"));
        h = g;
        h.Strides = {1};
        CHECK(has_error(make(h), op + ".array-length", "/desc/Strides"));
        h = g;
        h.Strides = {0, 1};
        CHECK(has_error(make(h), op + ".stride-nonzero", "/desc/Strides/0"));
        h = g;
        h.WindowSize = {2, 0};
        CHECK(has_error(make(h), op + ".window-nonzero", "/desc/WindowSize/1"));
        if (op == "average-pooling1") {
            h = g;
            h.Dilations = {1, 0};
            CHECK(has_error(make(h), op + ".dilation-nonzero", "/desc/Dilations/1"));
        }
        h = g;
        h.out = {1, 1, 3};
        CHECK(has_error(make(h), op + ".same-dimension-count", out + "/Sizes"));
        h = g;
        h.out = {1, 2, 3, 3};
        CHECK(has_error(make(h), op + ".batch-channel", out + "/Sizes/1"));
        h = g;
        h.WindowSize = {5, 2};
        CHECK(has_error(make(h), op + ".window-fits", "/desc/WindowSize/0"));
        h = g;
        h.out = {1, 1, 3, 2};
        CHECK(has_error(make(h), op + ".output-size", out + "/Sizes/3"));
    }
}

TEST_CASE("average pooling: a divisor beyond 64 bits, prod(WindowSize) = (2^32 - 1)^3") {
    // Windows of 2^32 - 1 along three dimensions, with padding: IncludePadding TRUE divides
    // 2^96 by (2^32 - 1)^3, correctly rounded 1.000000000698492 (Python's fractions).
    const uint32_t big = 4294967295u;
    Geometry g{{1, 1, 2, 1, 1},         {1, 1, 3, 1, 1}, {1, 1, 1}, {big, big, big},
               {big, big - 1, big - 1}, {0, 0, 0},       {1, 1, 1}, 1};
    auto y = run(forward_op(DataType::FLOAT64, g),
                 {{"InputTensor", buffer(desc(DataType::FLOAT64, g.in), std::vector<double>{std::ldexp(1.0, 96), 0})}});
    check_bits(as_values<double>(y.at("OutputTensor")), {0.0, 1.000000000698492, 1.000000000698492});
}

}  // namespace dmlref_test_average_pooling
