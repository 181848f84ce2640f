// MAX_POOLING_GRAD: overlapping windows add, float sums exact and rounded once, integer sums
// wrap; and forward and grad at every rank and type against the naive computation (the lowest
// index holding each window's maximum, pooling_support.hpp), with hand-derived values beside them.
#include "pooling_support.hpp"
#include "../reference/max_pooling.hpp"

#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_max_pooling_grad {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::max_pool;

// ---- Grad sums -------------------------------------------------------------------------------

TEST_CASE("max pooling grad: overlapping windows add") {
    // X = [0,9,0], window 2, stride 1: both windows pick 9 -> dX[1] = dY0 + dY1.
    const Geometry g = plain({1, 1, 1, 3}, {1, 2});
    check_bits(backward(g, values_of<float>({0, 9, 0}), values_of<float>({1.5, 2.25})), values_of<float>({0, 3.75, 0}));
    // A 3x3 window, stride 1, over a 4x4 input with the maximum in the middle: 4 windows.
    const Geometry g2 = plain({1, 1, 4, 4}, {3, 3});
    std::vector<float> x(16, 0.0f);
    x[5] = 1;
    std::vector<float> dx(16, 0.0f);
    dx[5] = 1 + 2 + 3 + 4;
    check_bits(backward(g2, x, values_of<float>({1, 2, 3, 4})), dx);
}

TEST_CASE("max pooling grad: float sums are exact, then rounded once") {
    // One input element wins every window: X = [9,0,0,...] with window n over n-element rows
    // and StartPadding n-1 sends dY's n terms into dX[0] (windows o = 0..n-1 all hold index 0).
    auto all_to_first = [](uint32_t terms) {
        Geometry g = plain({1, 1, 1, terms}, {1, terms});
        g.StartPadding = {0, terms - 1};
        return g;
    };
    SUBCASE("2^24 + 1 + 1 in FLOAT32: naive float32 accumulation gives 2^24") {
        // Exact: 16777218, a float32 (even). Float32 adds: 2^24 + 1 = 2^24 (tie to even), twice.
        const Geometry g = all_to_first(3);
        const auto dx = backward(g, values_of<float>({9, 0, 0}), values_of<float>({16777216, 1, 1}));
        check_bits(dx, values_of<float>({16777218, 0, 0}));
        // Negated: -16777218.
        check_bits(backward(g, values_of<float>({9, 0, 0}), values_of<float>({-16777216, -1, -1})),
                   values_of<float>({-16777218, 0, 0}));
        float naive = 16777216.0f;
        naive += 1.0f;
        naive += 1.0f;
        CHECK(naive != dx[0]);
    }
    SUBCASE("FLOAT64: 1 + 2^-53 + 2^-106 rounds up to 1 + 2^-52") {
        // Exact sum is above the midpoint between 1 and 1 + 2^-52.
        const Geometry g = all_to_first(3);
        const auto dx = backward(g, std::vector<double>{9, 0, 0},
                                 std::vector<double>{1, std::ldexp(1.0, -53), std::ldexp(1.0, -106)});
        check_bits(dx, std::vector<double>{1 + std::ldexp(1.0, -52), 0, 0});
    }
    SUBCASE("FLOAT64: ties to even and sticky bits far below") {
        const Geometry g2 = all_to_first(2), g3 = all_to_first(3);
        const double u = std::ldexp(1.0, -52), t = std::numeric_limits<double>::denorm_min();
        // 1 + u/2 is a tie: even 1. 1 + u + u/2 is a tie: even 1 + 2u. A subnormal 1000 words
        // below breaks the tie upwards, also for negative sums.
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{1, u / 2}), std::vector<double>{1, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{1, u, u / 2}),
                   std::vector<double>{1 + 2 * u, 0, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{1, u / 2, t}),
                   std::vector<double>{1 + u, 0, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{-1, -u / 2, -t}),
                   std::vector<double>{-1 - u, 0, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{-1, -u / 2, t}),
                   std::vector<double>{-1, 0, 0});
    }
    SUBCASE("FLOAT64: DBL_MAX + DBL_MAX - DBL_MAX does not overflow on the way") {
        const double m = std::numeric_limits<double>::max();
        const Geometry g = all_to_first(3);
        check_bits(backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{m, m, -m}),
                   std::vector<double>{m, 0, 0});
        // And DBL_MAX + DBL_MAX is +inf; DBL_MAX + half an ULP of it ties to even, 2^1024: +inf.
        const Geometry g2 = all_to_first(2);
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{m, m}),
                   std::vector<double>{std::numeric_limits<double>::infinity(), 0});
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{m, std::ldexp(1.0, 970)}),
                   std::vector<double>{std::numeric_limits<double>::infinity(), 0});
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{m, std::ldexp(1.0, 969)}),
                   std::vector<double>{m, 0});
    }
    SUBCASE("subnormals add exactly") {
        const double t = std::numeric_limits<double>::denorm_min();
        const Geometry g = all_to_first(3);
        check_bits(backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{t, t, -t}),
                   std::vector<double>{t, 0, 0});
        check_bits(backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{1, t, -1}),
                   std::vector<double>{t, 0, 0});
    }
    SUBCASE("FLOAT16 overflows to infinity only when the exact sum does") {
        const Geometry g2 = all_to_first(2), g3 = all_to_first(3);
        const half inf = from_bits<half>(0x7c00);
        // 60000 + 60000 = 120000 > 65504: +inf. 65504 + 16 = 65520, the midpoint to 2^16: ties
        // to even -> +inf. 65504 + 15 -> 65504. 60000 + 60000 - 60000 = 60000 (a half
        // accumulator would have overflowed).
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({60000, 60000})),
                   std::vector<half>{inf, value_of<half>(0)});
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({65504, 16})),
                   std::vector<half>{inf, value_of<half>(0)});
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({65504, 15})), values_of<half>({65504, 0}));
        check_bits(backward(g3, values_of<half>({9, 0, 0}), values_of<half>({60000, 60000, -60000})),
                   values_of<half>({60000, 0, 0}));
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({-60000, -60000})),
                   std::vector<half>{from_bits<half>(0xfc00), value_of<half>(0)});
    }
    SUBCASE("zeros: every sum starts from +0") {
        const Geometry g = all_to_first(2);
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{-0.0f, -0.0f}),
                   std::vector<float>{0.0f, 0.0f});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{1.0f, -1.0f}),
                   std::vector<float>{0.0f, 0.0f});
    }
    SUBCASE("non-finite terms") {
        const Geometry g = all_to_first(2);
        const float inf = std::numeric_limits<float>::infinity();
        const float canonical = from_bits<float>(0x7fc00000u);
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{inf, 1}), std::vector<float>{inf, 0});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{-inf, -inf}), std::vector<float>{-inf, 0});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{inf, -inf}),
                   std::vector<float>{canonical, 0});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{from_bits<float>(0xffc00001u), 1}),
                   std::vector<float>{canonical, 0});
        // A single NaN term is also a sum: canonical NaN, not the term's bits.
        const Geometry g1 = plain({1, 1, 1, 1}, {1, 1});
        check_bits(backward(g1, values_of<float>({9}), std::vector<float>{from_bits<float>(0x7fc00001u)}),
                   std::vector<float>{canonical});
        check_bits(backward(g1, values_of<half>({9}), std::vector<half>{from_bits<half>(0xfe01)}),
                   std::vector<half>{from_bits<half>(0x7e00)});
    }
    SUBCASE("random FLOAT32 terms against an exact 128-bit integer sum") {
        // Terms m * 2^e with |m| < 2^24 and e in [-20, 20] are integers in units of 2^-43 below
        // 2^64; up to 64 of them sum exactly in __int128, whose conversion to double rounds to
        // nearest even; then ldexp is exact and the float conversion rounds once more.
        uint32_t s = 12345;
        auto next = [&] {
            s = s * 1664525u + 1013904223u;
            return s >> 8;
        };
        for (int trial = 0; trial < 200; ++trial) {
            const uint32_t n = 2 + next() % 63;
            std::vector<float> dy(n);
            int128_t exact = 0;
            for (auto& t : dy) {
                const int32_t m = int32_t(next() % (1u << 24)) * ((next() & 1) ? 1 : -1);
                const int e = int(next() % 41) - 20;
                t = std::ldexp(float(m), e);
                exact += int128_t(m) << (e + 20 + 23);
            }
            std::vector<float> x(n, 0.0f);
            x[0] = 9;
            const float expected = static_cast<float>(std::ldexp(static_cast<double>(exact), -43));
            INFO("trial " << trial);
            CHECK(to_bits(backward(all_to_first(n), x, dy)[0]) == to_bits(expected == 0 ? 0.0f : expected));
        }
    }
    SUBCASE("term counts") {
        const Geometry g = all_to_first(3);
        const Operator op = pool_grad(DataType::FLOAT32, g);
        const auto& d = get<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc);
        const auto xb = buffer(d.InputTensor, values_of<float>({9, 0, 0}));
        CHECK(max_pooling_grad_term_counts(d, xb) == std::vector<uint32_t>{3, 0, 0});
    }
}

TEST_CASE("max pooling grad: integer sums wrap to the width") {
    const Geometry g = plain({1, 1, 1, 3}, {1, 2});  // both windows pick X[1]
    // INT8: 100 + 100 = 200 -> 200 - 256 = -56. UINT8: 200 + 100 = 300 -> 44.
    CHECK(backward(g, std::vector<int8_t>{0, 9, 0}, std::vector<int8_t>{100, 100}) == std::vector<int8_t>{0, -56, 0});
    CHECK(backward(g, std::vector<uint8_t>{0, 9, 0}, std::vector<uint8_t>{200, 100}) == std::vector<uint8_t>{0, 44, 0});
    // INT64: INT64_MAX + 1 wraps to INT64_MIN; UINT64: 2^64 - 1 + 2 = 1.
    const int64_t big = std::numeric_limits<int64_t>::max();
    CHECK(backward(g, std::vector<int64_t>{0, 9, 0}, std::vector<int64_t>{big, 1}) ==
          std::vector<int64_t>{0, std::numeric_limits<int64_t>::min(), 0});
    CHECK(backward(g, std::vector<uint64_t>{0, 9, 0}, std::vector<uint64_t>{~uint64_t(0), 2}) ==
          std::vector<uint64_t>{0, 1, 0});
    CHECK(backward(g, std::vector<int16_t>{0, 9, 0}, std::vector<int16_t>{-7, 3}) == std::vector<int16_t>{0, -4, 0});
}

// ---- Every rank and type against the naive computation ----------------------------------------

TEST_CASE_TEMPLATE("max pooling: ranks 3 to 8 against the naive computation", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    for (uint32_t rank = 3; rank <= 8; ++rank) {
        // Spatial dim i: size 3 (2 above rank 5), window 2, stride 1 + i % 2, StartPadding i % 2,
        // EndPadding (i + 1) % 2, Dilations 2 on dimension 1 when it has room.
        Geometry g;
        g.in = {2, 2};
        for (uint32_t i = 0; i + 2 < rank; ++i) {
            const uint32_t size = rank <= 5 ? 3 : 2;
            g.in.push_back(size);
            g.WindowSize.push_back(2);
            g.Strides.push_back(1 + i % 2);
            g.StartPadding.push_back(i % 2);
            g.EndPadding.push_back((i + 1) % 2);
            g.Dilations.push_back(i == 1 && size == 3 ? 2 : 1);
        }
        const auto out = floor_sizes(g);
        INFO("rank " << rank << ", type " << name(t));
        const auto x = small_values<T>(product(g.in), rank * 77);
        const auto dy = small_values<T>(product(out), rank * 91 + 5);

        // Forward against the naive argmax.
        const auto [y, idx] = forward(g, x);
        std::vector<T> dx_naive(x.size(), value_of<T>(0));
        std::vector<double> dx_sum(x.size(), 0.0);
        for (uint64_t o = 0; o < product(out); ++o) {
            const int64_t a = naive_argmax(g, out, o, x);
            REQUIRE(a >= 0);  // these geometries have no all-padding window
            INFO("output " << o);
            CHECK(idx[o] == uint32_t(a));
            CHECK(to_bits(y[o]) == to_bits(x[size_t(a)]));
            dx_sum[size_t(a)] += double(dy[o]);  // small integers: exact in any order
        }
        for (size_t i = 0; i < x.size(); ++i) dx_naive[i] = value_of<T>(dx_sum[i]);
        const auto dx = backward(g, x, dy);
        check_bits(dx, dx_naive);

        // Consistency: dY scattered through MAX_POOLING2's indices is MAX_POOLING_GRAD's result.
        std::vector<double> scattered(x.size(), 0.0);
        for (size_t o = 0; o < idx.size(); ++o) scattered[idx[o]] += double(dy[o]);
        for (size_t i = 0; i < x.size(); ++i) {
            INFO("element " << i);
            CHECK(to_bits(dx[i]) == to_bits(value_of<T>(scattered[i])));
        }
    }
}

}  // namespace dmlref_test_max_pooling_grad
