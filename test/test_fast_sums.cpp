// FastSum (reference/fast_sum.hpp) against ExactSum: on hard term lists (rounding midpoints,
// cancellation, subnormals, overflow, infinities and NaN) its float64 proof, the FLOAT32/FLOAT16
// proof (narrow_rounded), and its side-by-side loops against FastSum::add term by term. Expected
// values come from ExactSum and from FastSum::add, never from the code under test.
#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/fast_sum.hpp"

#include <cmath>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_sums {

using namespace dmlref;
using namespace dmlref::test;
using dmlref::reference::ExactSum;

namespace {

template <class T> void check_sums(std::mt19937_64& rng, int lists) {
    for (int l = 0; l < lists; ++l) {
        std::vector<double> terms(rng() % 7);
        for (double& t : terms) t = hard_value(rng);
        ExactSum e;
        for (double t : terms) e.add(t);
        const T expected = e.template result<T>();
        const T fast = reference::exact_sum_of<T>([&](auto&& add) {
            for (double t : terms) add(t);
        });
        INFO("terms " << terms.size() << ", list " << l);
        REQUIRE(same_bits(fast, expected));
    }
}

}  // namespace

TEST_CASE_TEMPLATE("FastSum gives ExactSum's bits on hard term lists", T, float, half, double, int32_t, uint8_t,
                   int64_t) {
    std::mt19937_64 rng(13);
    check_sums<T>(rng, 20000);
}

TEST_CASE("FastSum proves only what holds: a rounding midpoint is left to ExactSum") {
    reference::FastSum tie;  // 1 + 2^-53 lies halfway between 1 and 1 + 2^-52
    tie.add(1.0);
    tie.add(0x1p-53);
    CHECK_FALSE(tie.rounded().has_value());
    reference::FastSum above;  // 1 + 2^-53 + 2^-80 rounds up, and FastSum proves it
    for (double t : {1.0, 0x1p-53, 0x1p-80}) above.add(t);
    REQUIRE(above.rounded().has_value());
    CHECK(*above.rounded() == 1 + 0x1p-52);
    reference::FastSum cancel;  // the terms cancel, every addition exact: +0
    for (double t : {2.5, -1.25, -1.25}) cancel.add(t);
    REQUIRE(cancel.rounded().has_value());
    CHECK(to_bits(*cancel.rounded()) == 0u);
    // These cancel too, but 2^60 - 3 rounds on the way: FastSum's bound cannot prove +0, ExactSum does.
    const double rounding[] = {0x1p60, -3.0, -0x1p60, 3.0};
    reference::FastSum undecided;
    for (double t : rounding) undecided.add(t);
    CHECK_FALSE(undecided.rounded().has_value());
    CHECK(to_bits(reference::exact_sum_of<double>([&](auto&& add) {
              for (double t : rounding) add(t);
          })) == 0u);
}

TEST_CASE_TEMPLATE("narrow_rounded proves only ExactSum's FLOAT32 and FLOAT16 bits", T, float, half) {
    std::mt19937_64 rng(1350 + sizeof(T));
    int proved = 0;
    for (int l = 0; l < 40000; ++l) {
        std::vector<double> terms(rng() % 9);
        for (double& t : terms) t = l % 2 ? midpoint_value(rng) : hard_value(rng);
        ExactSum e;
        reference::FastSum f;
        for (double t : terms) {
            e.add(t);
            f.add(t);
        }
        T out{};
        INFO("terms " << terms.size() << ", list " << l);
        if (!reference::narrow_rounded<T>(f.s, f.c, f.b, out)) continue;
        ++proved;
        REQUIRE(same_bits(out, e.template result<T>()));
    }
    CHECK(proved > 30000);  // the proof settles nearly every list, NaN and infinities aside
}

TEST_CASE("narrow_rounded: an exact sum on a midpoint is decided, a double rounding onto one is not") {
    float out = 0;
    reference::FastSum tie;  // 1 + 2^-24: exactly halfway between two FLOAT32 values; ties to even
    for (double t : {1.0, 0x1p-24}) tie.add(t);
    REQUIRE(reference::narrow_rounded<float>(tie.s, tie.c, tie.b, out));
    CHECK(out == 1.0f);
    // 1 + 2^-24 + 2^-80 rounds to 1 + 2^-24 in float64 (ExactSum's first rounding), then ties to
    // even: 1.0f, although the exact sum lies above the midpoint. The proof must not decide it.
    const double above[] = {1.0, 0x1p-24, 0x1p-80};
    reference::FastSum f;
    for (double t : above) f.add(t);
    CHECK_FALSE(reference::narrow_rounded<float>(f.s, f.c, f.b, out));
    CHECK(reference::exact_sum_of<float>([&](auto&& add) {
              for (double t : above) add(t);
          }) == 1.0f);
}

TEST_CASE("FastSum's side-by-side loops = FastSum::add term by term") {
    std::mt19937_64 rng(1360);
    for (int l = 0; l < 200; ++l) {
        const size_t n = 1 + rng() % 300, q = rng() % 20, stride = n + rng() % 4;
        std::vector<double> table(q * stride + 1), weight(2 * n), value(2 * n + 2), s(n), c(n), b(n);
        std::vector<float> fvalue(2 * n + 2);
        std::vector<int32_t> index(2 * n);
        for (double& t : table) t = l % 2 ? midpoint_value(rng) : hard_value(rng);
        for (double& w : weight) w = rng() % 5 ? std::ldexp(double(1 + rng() % 7), -int(rng() % 4)) : 0.0;
        for (size_t k = 0; k < value.size(); ++k) {
            fvalue[k] = float(hard_value(rng));
            value[k] = fvalue[k];
        }
        for (int32_t& i : index) i = int32_t(rng() % value.size());
        const double scale = std::ldexp(double(1 + rng() % 5), -int(rng() % 3));
        INFO("list " << l << ", n " << n << ", q " << q);
        // add_tables against FastSum::add, sum by sum.
        reference::FastSum::add_tables(s.data(), c.data(), b.data(), table.data(), q, stride, n);
        for (size_t k = 0; k < n; ++k) {
            reference::FastSum f;
            for (size_t j = 0; j < q; ++j) f.add(table[j * stride + k]);
            REQUIRE(same_double(f.s, s[k]));
            REQUIRE(same_double(f.c, c[k]));
            REQUIRE(same_double(f.b, b[k]));
        }
        // narrow_floats against narrow_rounded, element by element (out only where proved).
        std::vector<float> out(n);
        const bool all = reference::FastSum::narrow_floats(s.data(), c.data(), b.data(), out.data(), 1, n);
        bool every = true;
        for (size_t k = 0; k < n; ++k) {
            float expected = 0;
            const bool proved = reference::narrow_rounded<float>(s[k], c[k], b[k], expected);
            every = every && proved;
            if (proved) REQUIRE(same_bits(out[k], expected));
        }
        CHECK(all == every);
        // The term tables: (scale * weight) * value, gathered, strided by 1 and 2, and halved.
        std::vector<double> got(2 * n), got_f(2 * n);
        auto term = [&](size_t k, size_t at) { return (scale * weight[k]) * value[at]; };
        reference::FastSum::terms_gathered(got.data(), weight.data(), value.data(), index.data(), scale, n);
        reference::FastSum::terms_gathered(got_f.data(), weight.data(), fvalue.data(), index.data(), scale, n);
        for (size_t k = 0; k < n; ++k) {
            REQUIRE(same_bits(got[k], term(k, size_t(index[k]))));
            REQUIRE(same_bits(got_f[k], term(k, size_t(index[k]))));
        }
        for (const int step : {1, 2}) {
            reference::FastSum::terms_strided(got.data(), weight.data(), value.data(), step, scale, n);
            reference::FastSum::terms_strided(got_f.data(), weight.data(), fvalue.data(), step, scale, n);
            for (size_t k = 0; k < n; ++k) {
                REQUIRE(same_bits(got[k], term(k, k * size_t(step))));
                REQUIRE(same_bits(got_f[k], term(k, k * size_t(step))));
            }
        }
        reference::FastSum::terms_halved(got.data(), weight.data(), value.data(), scale, n);
        reference::FastSum::terms_halved(got_f.data(), weight.data(), fvalue.data(), scale, n);
        for (size_t k = 0; k < 2 * n; ++k) {
            REQUIRE(same_bits(got[k], term(k, k / 2)));
            REQUIRE(same_bits(got_f[k], term(k, k / 2)));
        }
    }
}

}  // namespace dmlref_test_fast_sums
