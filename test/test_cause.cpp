// The cause of a failing sum (lib/judge/cause.cpp, docs/explain.md "The cause") on hand-built
// terms: every expected cause below is derived by hand from the terms written beside it. The
// average pooling terms it reads, end to end: test/test_explain.cpp.
#include "../lib/judge/cause.hpp"

#include "dmlref/values.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_cause {

using namespace dmlref;

namespace {

uint64_t f32(double v) { return to_bits(float(v)); }

// Bilinear taps (0.75, 0.25) x (0.75, 0.25) of X[0,0,1..2,1..2], values v.
std::vector<ExplainedTerm> bilinear(double a, double b, double c, double d) {
    return {{"X", {0, 0, 1, 1}, a, 0.5625, ""},
            {"X", {0, 0, 1, 2}, b, 0.1875, ""},
            {"X", {0, 0, 2, 1}, c, 0.1875, ""},
            {"X", {0, 0, 2, 2}, d, 0.0625, ""}};
}

CauseInput input(std::vector<ExplainedTerm> terms, double golden, double actual, double bound) {
    CauseInput in;
    in.type = DataType::FLOAT32;
    in.golden_bits = f32(golden);
    in.actual_bits = f32(actual);
    in.bound = bound;
    in.terms = std::move(terms);
    in.accumulators = {DataType::FLOAT32, DataType::FLOAT64};  // the default profile's, for FLOAT32
    return in;
}

}  // namespace

TEST_CASE("cause: one bilinear tap dropped") {
    // Terms 3*0.5625 + 5*0.1875 + 7*0.1875 + 11*0.0625 = 1.6875 + 0.9375 + 1.3125 + 0.6875 = 4.625.
    // Without X[0,0,2,1] (1.3125): 3.3125. No other candidate gives it: the other terms missing give
    // 2.9375, 3.6875, 3.9375; a sign flipped would need a term of 0.65625; another's weight would
    // need w = 0.125 (for 3) or w = 0 (for 7), neither a weight; 3.3125 / 4.625 = 53/74.
    const CauseResult r = diagnose_cause(input(bilinear(3, 5, 7, 11), 4.625, 3.3125, 1e-6));
    CHECK(r.tested);
    REQUIRE(r.found.size() == 1);
    CHECK(r.found[0].kind == "missing");
    CHECK(r.found[0].what == "the term X[0,0,2,1] x 0.1875 (= 1.3125) is missing");
    CHECK(r.found[0].value == 3.3125);
    CHECK(r.text.find("the term X[0,0,2,1] x 0.1875 (= 1.3125) is missing: that gives 3.3125") == 0);
}

TEST_CASE("cause: two candidates that explain it equally are both named") {
    // Terms 2*0.5625 + 4*0.1875 + 8*0.1875 + 16*0.0625 = 1.125 + 0.75 + 1.5 + 1 = 4.375; actual
    // 2.875 = 4.375 - 1.5 (X[0,0,2,1] missing) = 4.375 - 2 * 0.75 (X[0,0,1,2]'s sign flipped).
    const CauseResult r = diagnose_cause(input(bilinear(2, 4, 8, 16), 4.375, 2.875, 1e-6));
    REQUIRE(r.found.size() == 2);
    std::vector<std::string> kinds = {r.found[0].kind, r.found[1].kind};
    std::sort(kinds.begin(), kinds.end());
    CHECK(kinds == std::vector<std::string>{"missing", "term-sign"});
    CHECK(r.text.find("one of 2 that explain it equally: ") == 0);
    CHECK(r.text.find("X[0,0,2,1] x 0.1875 (= 1.5) is missing") != std::string::npos);
    CHECK(r.text.find("X[0,0,1,2] x 0.1875 (= 0.75) is added with its sign flipped") != std::string::npos);
}

TEST_CASE("cause: a window shifted by one, read from the tensor") {
    // X[0,0,0,0..5] = 1 2 5 11 24 47; the window is X[0,0,0,1..3] / 4: (2 + 5 + 11) / 4 = 4.5.
    // Shifted by +1 along dimension 3: (5 + 11 + 24) / 4 = 10. The others: shifted by -1 gives 2,
    // X[0,0,0,0] or X[0,0,0,4] taken in 4.75 or 10.5, a term missing 4, 3.25 or 1.75, added
    // twice 5, 5.75 or 7.25, of the wrong sign 3.5, 2 or -1; 10 / 4.5 = 20/9 (p > 16); 10 is a
    // FLOAT16 value, but 5.5 away from the golden, far beyond a FLOAT16 sum's bound.
    const std::vector<double> X = {1, 2, 5, 11, 24, 47};
    std::vector<ExplainedTerm> terms;
    for (uint64_t i = 1; i <= 3; ++i) terms.push_back({"X", {0, 0, 0, i}, X[i], 0.25, "1/4"});
    CauseInput in = input(terms, 4.5, 10, 1e-6);
    in.read = [&](const std::string& t, const std::vector<uint64_t>& i) -> std::optional<double> {
        if (t != "X" || i.size() != 4 || i[3] >= X.size()) return std::nullopt;
        return X[i[3]];
    };
    const CauseResult r = diagnose_cause(in);
    REQUIRE(r.found.size() == 1);
    CHECK(r.found[0].kind == "shifted");
    CHECK(r.found[0].value == 10);
    CHECK(r.text.find("the window or taps are shifted by +1 along dimension 3 (X[0,0,0,1] read as X[0,0,0,2]") == 0);

    // A neighbour taken in: 4.5 + 1/4 = 4.75 (19/18 of the golden: q > 16; a FLOAT16 value 0.25 away).
    in.actual_bits = f32(4.75);
    const CauseResult extra = diagnose_cause(in);
    REQUIRE(extra.found.size() == 1);
    CHECK(extra.found[0].what ==
          "an extra term X[0,0,0,0] x 0.25 (= 0.25) is taken in (the neighbour of X[0,0,0,1] along dimension 3)");

    // Shifted past the end: the window X[0,0,0,3..5] moved by +1 reads X[0,0,0,6], outside the
    // tensor: 0. (11 + 24 + 47) / 4 = 20.5 -> (24 + 47 + 0) / 4 = 17.75, which is also the window
    // without X[0,0,0,3] (20.5 - 11/4): the two explain it equally, and both are named.
    std::vector<ExplainedTerm> last;
    for (uint64_t i = 3; i <= 5; ++i) last.push_back({"X", {0, 0, 0, i}, X[i], 0.25, "1/4"});
    CauseInput edge = input(last, 20.5, 17.75, 1e-5);
    edge.read = in.read;
    const CauseResult e = diagnose_cause(edge);
    REQUIRE(e.found.size() == 2);
    std::vector<std::string> kinds = {e.found[0].kind, e.found[1].kind};
    std::sort(kinds.begin(), kinds.end());
    CHECK(kinds == std::vector<std::string>{"missing", "shifted"});

    // Terms that are not the tensor's elements: no shift is tested, nothing explains 10.
    terms[0].value = 3;  // 3/4 + 5/4 + 11/4 = 4.75
    CauseInput wrong = input(terms, 4.75, 10, 1e-6);
    wrong.read = in.read;
    const CauseResult w = diagnose_cause(wrong);
    CHECK(w.tested);
    CHECK(w.found.empty());
    CHECK(w.text.find("no single cause explains it (") == 0);
}

TEST_CASE("cause: a FLOAT16 accumulator for a FLOAT32 output") {
    // 1 + 3 * 2^-12 = 1.000732421875; in FLOAT16 (spacing 2^-10 at 1) the sum rounds to
    // 1 + 2^-10 = 1.0009765625, 2^-12 from the golden: over a FLOAT32 bound, within a FLOAT16
    // sum's (gamma_4(2^-11) * 1.0007 ~ 0.002), and a FLOAT16 value. No point candidate: without a
    // term 1 or 0.00073, twice 1.00146, a sign flipped 0.99927, a scale 1.00024 (no p/q <= 16).
    const double g = 1 + 3 * std::ldexp(1.0, -12), a = 1 + std::ldexp(1.0, -10);
    const CauseResult r = diagnose_cause(
        input({{"X", {0}, 1, 1, ""}, {"X", {1}, 3 * std::ldexp(1.0, -12), 1, ""}}, g, a, 2e-7));
    REQUIRE(r.found.size() == 1);
    CHECK(r.found[0].kind == "accumulator");
    CHECK(r.text.find("the element is computed in FLOAT16 (its products and sums), narrower than FLOAT32") == 0);
    // 2046 terms of 1: gamma_2048 of FLOAT16 is infinite, a FLOAT16 sum's bound says nothing, and
    // the FLOAT16 value 2048 (2 from the golden 2046) is not blamed on it. Nor on anything else:
    // a term missing 2045, twice 2047, of the wrong sign 2044; 2048 / 2046 = 1024/1023.
    const CauseResult many = diagnose_cause(
        input(std::vector<ExplainedTerm>(2046, {"X", {0}, 1, 1, ""}), 2046, 2048, 1e-3));
    CHECK(many.tested);
    CHECK(many.found.empty());
    // The same error off FLOAT16's grid (a + 2^-23 is no FLOAT16 value): no cause.
    const CauseResult off = diagnose_cause(
        input({{"X", {0}, 1, 1, ""}, {"X", {1}, 3 * std::ldexp(1.0, -12), 1, ""}}, g, a + std::ldexp(1.0, -23), 2e-7));
    CHECK(off.found.empty());
}

TEST_CASE("cause: sign and scale") {
    // 4.625 (as above) flipped: -4.625. Scaled by 2/3 (a divisor 3/2 times too large): 3.0833333.
    const CauseResult s = diagnose_cause(input(bilinear(3, 5, 7, 11), 4.625, -4.625, 1e-6));
    REQUIRE(s.found.size() == 1);
    CHECK(s.found[0].what == "the result's sign is flipped");
    const CauseResult k = diagnose_cause(input(bilinear(3, 5, 7, 11), 4.625, 4.625 * 2 / 3, 1e-6));
    REQUIRE(k.found.size() == 1);
    CHECK(k.found[0].what == "the result is 2/3 times the right one (a wrong scale or divisor)");
}

TEST_CASE("cause: a term of about the bound's size is not blamed") {
    // Terms 1 + 2^-15 and 2^-18, bound 2^-20; the actual 1 + 2^-15 (no FLOAT16 value) is 2^-18 =
    // 4 bounds over. Without the small term the sum is the actual, but that candidate is only
    // 2^-18 / (2^-20 + 2^-24 + slack) < 4 of its bounds from the golden: a rounding a little worse
    // than admitted looks the same, so no cause is named.
    const double big = 1 + std::ldexp(1.0, -15), bound = std::ldexp(1.0, -20);
    const auto terms = [&](double small) {
        return std::vector<ExplainedTerm>{{"X", {0}, big, 1, ""}, {"X", {1}, small, 1, ""}};
    };
    const double small = std::ldexp(1.0, -18);
    const CauseResult r = diagnose_cause(input(terms(small), big + small, big, bound));
    CHECK(r.tested);
    CHECK(r.found.empty());
    // A term of 2^-16, 16 bounds: named.
    const double larger = std::ldexp(1.0, -16);
    const CauseResult named = diagnose_cause(input(terms(larger), big + larger, big, bound));
    REQUIRE(named.found.size() == 1);
    CHECK(named.found[0].what == "the term X[1] (= 1.52587891e-05) is missing");
}

TEST_CASE("cause: what is not tested") {
    // Within the bound: nothing to explain.
    CHECK_FALSE(diagnose_cause(input(bilinear(3, 5, 7, 11), 4.625, 4.625, 1e-6)).tested);
    // Terms that do not make the golden (a hook that lists only some): not tested.
    const CauseResult part = diagnose_cause(input(bilinear(3, 5, 7, 11), 9.25, 3.3125, 1e-6));
    CHECK_FALSE(part.tested);
    CHECK(part.text.find("do not add up to the golden") != std::string::npos);
    // A NaN actual.
    CauseInput nan = input(bilinear(3, 5, 7, 11), 4.625, 0, 1e-6);
    nan.actual_bits = 0x7fc00000;
    CHECK_FALSE(diagnose_cause(nan).tested);
    // An actual far from everything: tested, no cause.
    const CauseResult far = diagnose_cause(input(bilinear(3, 5, 7, 11), 4.625, 1000.125, 1e-6));
    CHECK(far.tested);
    CHECK(far.found.empty());
}

}  // namespace dmlref_test_cause
