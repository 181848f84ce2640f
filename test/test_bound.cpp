// The per-element bound of summed outputs (dmlref/bound.hpp, docs/tolerance.md), tested on both
// sides of each bound with planted failures. Expected bounds are derived by hand in the comments.
#include "support.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/tolerance.hpp"

#include <cmath>
#include <limits>
#include <sstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_bound {

using namespace dmlref;
using namespace dmlref::test;

namespace {

Case parse_text(const std::string& text) { return parse_valid(text, "mem.json"); }

template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> b(v.size() * sizeof(T));
    std::memcpy(b.data(), static_cast<const void*>(v.data()), b.size());
    return b;
}

// RESAMPLE_GRAD1, nearest neighbour: dY [1] -> dX [3], Scale float32(1/3), half-pixel offsets.
// x = 0.5 / 0.3333333432674408 - 0.5 = 0.99999995529651776 in float64 (floor 0); in float32
// 0.5f / s = 1.5f, x = 1 (floor 1): either dX[0] or dX[1] may receive dY[0] (admissible).
const char* kNearestBoundary = R"({"format": 1, "name": "t", "operator": "RESAMPLE_GRAD1",
    "desc": {"InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1]},
             "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [3]},
             "InterpolationMode": "NEAREST_NEIGHBOR", "RoundingDirection": "DECREASING", "DimensionCount": 1,
             "Scales": [0.3333333432674407958984375], "InputPixelOffsets": [0.5], "OutputPixelOffsets": [-0.5]},
    "inputs": {"InputGradientTensor": [5]}})";

// MAX_POOLING_GRAD over [1, 1, W], window 2, stride 1: X = 0, 1, 0, 1, ... so every odd element
// is the argmax of the two windows around it and receives two dY terms.
std::string alternating_pool(uint32_t W, const std::string& dy) {
    std::string x = "[";
    for (uint32_t i = 0; i < W; ++i) x += std::string(i ? ", " : "") + (i % 2 ? "1" : "0");
    x += "]";
    return R"({"format": 1, "name": "t", "operator": "MAX_POOLING_GRAD",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, )" +
           std::to_string(W) + R"(]},
                 "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, )" +
           std::to_string(W - 1) + R"(]},
                 "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, )" +
           std::to_string(W) + R"(]},
                 "DimensionCount": 1, "Strides": [1], "WindowSize": [2], "StartPadding": [0], "EndPadding": [0], "Dilations": [1]},
        "inputs": {"InputTensor": )" +
           x + R"(, "InputGradientTensor": )" + dy + "}}";
}

uint32_t f32(float v) { return to_bits(v); }

}  // namespace

TEST_CASE("gamma_k and the unit roundoffs, rounded up") {
    CHECK(unit_roundoff(DataType::FLOAT16) == std::ldexp(1.0, -11));
    CHECK(unit_roundoff(DataType::FLOAT32) == std::ldexp(1.0, -24));
    const double u = std::ldexp(1.0, -24);
    // gamma_2 = 2u / (1 - 2u) > 2u, and only just.
    CHECK(gamma_up(2, u) > 2 * u);
    CHECK(gamma_up(2, u) < 2 * u * (1 + 4 * u));
    CHECK(gamma_up(0, u) == 0);
    CHECK(std::isinf(gamma_up(2048, std::ldexp(1.0, -11))));  // k u >= 1: no bound
}

TEST_CASE("cancellation: 2^25 + 1 - 2^25 is bounded by gamma_2 * sum |t|, not by the golden's ULP") {
    // Terms 2^25, 1, -2^25: the exact sum 1 is the golden; a float32 backend adding 1 to 2^25
    // first gives 0 (error 1, 2^23 ULPs of the golden). S = 2^26 + 1, n = 3: gamma_2(2^-24) * S
    // is just over 8, plus the golden's own error: the float64 terms sum exactly to the golden 1,
    // so only their own float64 rounding, 2^-53 * S (2^-27), remains. Bound just over 8.
    TermSink sink(1);
    sink.add(0, std::ldexp(1.0, 25), 1, 0, false);
    sink.add(0, 1.0, 1, 0, false);
    sink.add(0, -std::ldexp(1.0, 25), 1, 0, false);
    const ElementTerms& e = sink.elements()[0];
    CHECK(e.n == 3);
    CHECK(e.abs_sum >= std::ldexp(1.0, 26) + 1);
    CHECK(e.exact_sum);
    CHECK(e.sum_hi + e.sum_lo == 1.0);
    const double b = element_bound(e, DataType::FLOAT32, f32(1.0f), {});
    CHECK(b > 8.0);
    CHECK(b < 8.001);
    CHECK(within_bound(DataType::FLOAT32, f32(1.0f), f32(0.0f), b));          // the float32 order: passes
    CHECK(within_bound(DataType::FLOAT32, f32(1.0f), f32(9.0f), b));          // error 8 <= bound
    CHECK_FALSE(within_bound(DataType::FLOAT32, f32(1.0f), f32(9.001f), b));  // planted: over
    CHECK_FALSE(within_bound(DataType::FLOAT32, f32(1.0f), f32(-8.0f), b));   // error 9: over
    // --accumulate float64: the float64 sum errs by at most gamma_2(2^-53) S' (just over 2^-26)
    // and lies within that of 1, so its rounding to float32 moves it by at most 2^-24 (1 + 2^-26 +
    // ...); the golden's own error is 2^-53 * S (just over 2^-27: the terms sum exactly to it).
    // Bound: just over 2^-24 + 2^-26 + 2^-27 = 8.20e-8 (it was 1.49e-7 while the golden's own
    // error counted half an ULP of 1). The float32-order result 0 fails here, 1's lower neighbour
    // (error 2^-24) passes, its upper one (error 2^-23) no longer does.
    ArithmeticProfile p64;
    p64.accumulate = Accumulate::Float64;
    const double b64 = element_bound(e, DataType::FLOAT32, f32(1.0f), p64);
    CHECK(b64 > std::ldexp(1.0, -24) + std::ldexp(1.0, -26) + std::ldexp(1.0, -27));
    CHECK(b64 < 8.21e-8);
    CHECK(within_bound(DataType::FLOAT32, f32(1.0f), f32(std::nextafter(1.0f, 0.0f)), b64));
    CHECK_FALSE(within_bound(DataType::FLOAT32, f32(1.0f), f32(std::nextafter(1.0f, 2.0f)), b64));
    CHECK_FALSE(within_bound(DataType::FLOAT32, f32(1.0f), f32(0.0f), b64));
}

TEST_CASE("a FLOAT16 accumulator fails where FLOAT32 accumulation of FLOAT16 data is claimed") {
    // FLOAT16 terms 2048, 1, -2048: the golden is 1. A FLOAT16 accumulator adds 1 to 2048 first,
    // a tie that rounds to 2048 (FLOAT16's spacing there is 2), and gives 0: error 1.
    TermSink sink(1);
    sink.add(0, 2048.0, 1, 0, false);
    sink.add(0, 1.0, 1, 0, false);
    sink.add(0, -2048.0, 1, 0, false);
    const ElementTerms& e = sink.elements()[0];
    const uint64_t one = 0x3c00, zero = 0, above_one = 0x3c01;  // FLOAT16 1, +0 and 1 + 2^-10
    // --accumulate float32, S = 4097: the sum errs by at most gamma_2(2^-24) S (4.884e-4) and lies
    // within that of 1; its rounding to FLOAT16 moves it by at most 2^-11 (1 + 4.9e-4) = 4.885e-4
    // (plus half of FLOAT16's smallest subnormal, 3e-8); the golden's own error is 2^-53 * S
    // (5e-13: the terms sum exactly to the golden). Bound about 9.770e-4, just over 1's upper
    // neighbour's error 2^-10 = 9.766e-4. The final rounding taken as 2^-11 * S instead, 2.0,
    // would let the FLOAT16 accumulator's 0 pass.
    ArithmeticProfile p32;
    p32.accumulate = Accumulate::Float32;
    const double b32 = element_bound(e, DataType::FLOAT16, one, p32);
    CHECK(b32 > 9.766e-4);
    CHECK(b32 < 9.772e-4);
    CHECK(within_bound(DataType::FLOAT16, one, above_one, b32));  // error 2^-10 = 9.8e-4
    CHECK_FALSE(within_bound(DataType::FLOAT16, one, zero, b32));
    // --accumulate output admits the FLOAT16 accumulator: gamma_2(2^-11) S is just over 4.
    ArithmeticProfile p16;
    p16.accumulate = Accumulate::Output;
    const double b16 = element_bound(e, DataType::FLOAT16, one, p16);
    CHECK(b16 > 4.0);
    CHECK(within_bound(DataType::FLOAT16, one, zero, b16));
}

TEST_CASE("an exact golden: a FLOAT16 accumulator fails at the subnormal floor") {
    // Two products 2^-13 * 2^-12 = 2^-25 (FLOAT16 operands): the exact sum 2^-24 is FLOAT16's
    // smallest subnormal, and the golden. A FLOAT16 accumulator rounds each product to 0 (a tie,
    // to even) and gives 0: error 2^-24. The float64 terms sum exactly to the golden, so the
    // golden's own error is 2^-53 * S = 2^-77, not half its ULP (2^-25). --accumulate float32:
    // products and sum err by about 2^-48 each, the final rounding to FLOAT16 by 2^-11 * 2^-24
    // = 2^-35 plus half the smallest subnormal, 2^-25. Bound just over 2^-25 = 2.98e-8.
    TermSink sink(1);
    sink.add(0, std::ldexp(1.0, -12), std::ldexp(1.0, -13), 0, true);
    sink.add(0, std::ldexp(1.0, -12), std::ldexp(1.0, -13), 0, true);
    const ElementTerms& e = sink.elements()[0];
    CHECK(e.exact_sum);
    const uint64_t smallest = 0x0001, zero = 0;  // FLOAT16 2^-24 and +0
    ArithmeticProfile p32;
    p32.accumulate = Accumulate::Float32;
    const double b32 = element_bound(e, DataType::FLOAT16, smallest, p32);
    CHECK(b32 > std::ldexp(1.0, -25));
    CHECK(b32 < std::ldexp(1.0, -25) + std::ldexp(1.0, -33));
    CHECK(within_bound(DataType::FLOAT16, smallest, smallest, b32));
    CHECK_FALSE(within_bound(DataType::FLOAT16, smallest, zero, b32));  // the FLOAT16 accumulator
    // The default profile admits a FLOAT16 accumulator, whose products may round to 0.
    CHECK(within_bound(DataType::FLOAT16, smallest, zero, element_bound(e, DataType::FLOAT16, smallest, {})));
    // Terms 2^-25 and 2^-26 sum to 3 * 2^-26, no FLOAT16: the golden 2^-24 is a rounding, and its
    // half ULP (2^-25) counts again: bound just over 2^-25 + 2^-25 = 2^-24.
    TermSink inexact(1);
    inexact.add(0, std::ldexp(1.0, -12), std::ldexp(1.0, -13), 0, true);
    inexact.add(0, std::ldexp(1.0, -12), std::ldexp(1.0, -14), 0, true);
    CHECK(element_bound(inexact.elements()[0], DataType::FLOAT16, smallest, p32) > std::ldexp(1.0, -24));
    // The error-free sum gives up where a product underflows (its FMA residual may be inexact)
    // or a sum overflows, and the half ULP counts.
    TermSink gone(2);
    gone.add(0, std::ldexp(1.0, -600), std::ldexp(1.0, -600), 0, true);
    gone.add(1, std::ldexp(1.0, 1000), std::ldexp(1.0, 30), 0, true);
    CHECK_FALSE(gone.elements()[0].exact_sum);
    CHECK_FALSE(gone.elements()[1].exact_sum);
}

TEST_CASE("within_bound is exact at the bound") {
    // golden 1, bound 2^-23 (one ULP of 1 in float32): 1 + 2^-23 passes, 1 + 2^-22 does not.
    CHECK(within_bound(DataType::FLOAT32, f32(1.0f), f32(1.0f) + 1, std::ldexp(1.0, -23)));
    CHECK_FALSE(within_bound(DataType::FLOAT32, f32(1.0f), f32(1.0f) + 2, std::ldexp(1.0, -23)));
    CHECK_FALSE(within_bound(DataType::FLOAT32, f32(1.0f), f32(1.0f) + 1, std::nextafter(std::ldexp(1.0, -23), 0.0)));
    // float64: the difference 2^60 - 1 is not a double; |a - g| = 2^60 - 1 < 2^60 passes, 2^60 + 1 (rounded to 2^60) not at bound 2^60 - 2^8.
    const uint64_t one = 0x3ff0000000000000, big = 0x43b0000000000000;  // 1 and 2^60
    CHECK(within_bound(DataType::FLOAT64, one, big, std::ldexp(1.0, 60)));
    CHECK_FALSE(within_bound(DataType::FLOAT64, one, big, std::ldexp(1.0, 60) - 256));
}

TEST_CASE("MAX_POOLING_GRAD: a dropped term and a flipped sign fail; a NaN sum of one term matches any NaN") {
    // Elements 1, 3, 5 receive dY[0] + dY[1], dY[2] + dY[3], dY[4] + dY[5]; dY[6] goes to element 7 alone.
    const Case c = with_golden(parse_text(alternating_pool(8, R"([0.75, 0.5, -3, 1, 2, 2, "0x7fc00001"])")),
                               "OutputGradientTensor");
    const auto& g = c.expected.at("OutputGradientTensor").values;
    auto actual = as_values<float>(g);
    CHECK(census(c, "OutputGradientTensor", g, {}).passed());
    // Dropped term: element 1 = 0.75 alone.
    auto dropped = actual;
    dropped[1] = 0.75f;
    const OutputCensus rd = census(c, "OutputGradientTensor", bytes_of(dropped), {});
    CHECK(rd.over == 1);
    CHECK(rd.worst.at(0).index == 1);
    CHECK(rd.worst.at(0).terms == 2);
    // Flipped sign: element 3 = 2 instead of -2.
    auto flipped = actual;
    flipped[3] = -flipped[3];
    CHECK(census(c, "OutputGradientTensor", bytes_of(flipped), {}).over == 1);
    // One ULP off a two-term sum: 0.75 + 0.5 = 1.25 exactly, which every order in FLOAT32 gives,
    // and the golden is that exact sum (no half ULP of its own): bound gamma_1(2^-24) * 1.25 +
    // 2^-53 * 1.25, about 7.5e-8, under one ULP (2^-23 = 1.19e-7).
    auto ulp = actual;
    ulp[1] = std::nextafter(1.25f, 2.0f);
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(ulp), {}).passed());
    // ... and 2 ULPs over.
    ulp[1] = std::nextafter(ulp[1], 2.0f);
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(ulp), {}).passed());
    // The one-term NaN element (7): golden canonical NaN; the backend passes dY's payload through.
    CHECK(to_bits(actual[7]) == 0x7fc00000u);
    auto nan = actual;
    nan[7] = from_bits<float>(0x7fc00001u);
    CHECK(census(c, "OutputGradientTensor", bytes_of(nan), {}).passed());
    // ... but a number there is over tolerance.
    nan[7] = 1.0f;
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(nan), {}).passed());
}

TEST_CASE("a NaN payload changed on a Bits element is over tolerance") {
    const Case c = parse_text(R"({"format": 1, "name": "t", "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}},
        "inputs": {"InputTensor": {"Fill": 0}},
        "expected": {"OutputTensor": {"Values": ["0x7fc00001", 1], "Tolerance": {"Kind": "Bits", "Why": "test"}}}})");
    CHECK_FALSE(
        census(c, "OutputTensor", bytes_of(std::vector<float>{from_bits<float>(0x7fc00002u), 1.0f}), {}).passed());
    CHECK(census(c, "OutputTensor", bytes_of(std::vector<float>{from_bits<float>(0x7fc00001u), 1.0f}), {}).passed());
}

TEST_CASE("nearest neighbour: a term on an admissible reading may land in either element, nowhere else") {
    const Case c = with_golden(parse_text(kNearestBoundary), "OutputGradientTensor");
    check_bits(as_values<float>(c.expected.at("OutputGradientTensor").values), {5, 0, 0});  // float64: dX[0]
    // float32 arithmetic sends dY[0] to dX[1]: admissible, flagged.
    const OutputCensus moved = census(c, "OutputGradientTensor", bytes_of(std::vector<float>{0, 5, 0}), {});
    CHECK(moved.passed());
    CHECK(moved.admissible == 2);
    CHECK(moved.boundary.begin()->second.elements == 2);
    // A wrong tap: dX[2] is no reading of any admitted arithmetic.
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(std::vector<float>{0, 0, 5}), {}).passed());
    // A dropped term: nothing anywhere.
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(std::vector<float>{0, 0, 0}), {}).passed());
    // --coordinates float64 admits only dX[0].
    DiffOptions o;
    o.profile.coordinates = Coordinates::Float64;
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(std::vector<float>{0, 5, 0}), o).passed());
    CHECK(census(c, "OutputGradientTensor", bytes_of(std::vector<float>{5, 0, 0}), o).passed());
}

TEST_CASE("LINEAR resample grad: float32 coordinates pass by default, fail under --coordinates float64") {
    // dY [300] of ones -> dX [200], scale 1.5, half pixel: x = (o + 0.5) / 1.5 - 0.5. Near
    // o = 225, x = 149.83: float32 formulas move x by up to about one float32 ULP of 150 (2^-16),
    // so each weight by about 1.5e-5, and dX[150] (about 1.5, from 2 or 3 taps) may move by
    // several times 1e-5 under the default profile. Under float64 coordinates only rounding is
    // left: gamma_2(2^-24) * 1.5 + ULP(1.5) / 2, under 3e-7.
    const Case c = with_golden(parse_text(R"({"format": 1, "name": "t", "operator": "RESAMPLE_GRAD1",
        "desc": {"InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [300]},
                 "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [200]},
                 "InterpolationMode": "LINEAR", "RoundingDirection": "DECREASING", "DimensionCount": 1,
                 "Scales": [1.5], "InputPixelOffsets": [0.5], "OutputPixelOffsets": [-0.5]},
        "inputs": {"InputGradientTensor": {"Fill": 1}}})"),
                               "OutputGradientTensor");
    auto v = as_values<float>(c.expected.at("OutputGradientTensor").values);
    CHECK(v[150] > 1.4f);
    CHECK(v[150] < 1.6f);
    DiffOptions f64;
    f64.profile.coordinates = Coordinates::Float64;
    CHECK(census(c, "OutputGradientTensor", bytes_of(v), f64).passed());  // the golden itself
    v[150] += std::ldexp(1.0f, -17);                                      // 7.6e-6: a float32 coordinate's weight error
    CHECK(census(c, "OutputGradientTensor", bytes_of(v), {}).passed());
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(v), f64).passed());
    v[150] += std::ldexp(1.0f, -10);  // 1e-3: a wrong weight under any profile
    CHECK_FALSE(census(c, "OutputGradientTensor", bytes_of(v), {}).passed());
}

TEST_CASE("systematic error: a biased accumulator fails the whole-tensor check, an unbiased one passes") {
    // 2001 elements, 1000 of them two-term sums of random dY (element 2k + 1 = dY[2k] + dY[2k + 1]).
    // Where that sum is a float32, every order gives it and both backends below do too; elsewhere
    // the golden is a rounding and each backend is one ULP off it, within the element's bound, so
    // only the whole-tensor check can see the bias.
    const Case c = with_golden(parse_text(alternating_pool(2001, R"({"Random": {"Seed": 7, "Min": 0.25, "Max": 1}})")),
                               "OutputGradientTensor");
    const auto golden = as_values<float>(c.expected.at("OutputGradientTensor").values);
    const auto dy = as_values<float>(c.inputs.at("InputGradientTensor"));
    auto biased = golden, unbiased = golden;
    size_t rounded = 0;
    for (size_t i = 1; i < golden.size(); i += 2) {
        const double exact = double(dy[i - 1]) + double(dy[i]);  // exact: two floats in [0.25, 1]
        if (double(float(exact)) == exact) continue;
        ++rounded;
        biased[i] = std::nextafter(golden[i], 0.0f);                         // always toward zero: truncation
        unbiased[i] = std::nextafter(golden[i], (i / 2) % 2 ? 0.0f : 4.0f);  // alternating
    }
    CHECK(rounded > 400);  // about half of the sums need a 25th bit
    const OutputCensus b = census(c, "OutputGradientTensor", bytes_of(biased), {});
    CHECK(b.over == 0);
    CHECK(b.systematic.elements == 1000);
    CHECK_FALSE(b.systematic.passed());
    CHECK_FALSE(b.passed());
    const OutputCensus u = census(c, "OutputGradientTensor", bytes_of(unbiased), {});
    CHECK(u.over == 0);
    CHECK(u.systematic.passed());
    CHECK(u.passed());
    // The threshold: sqrt(2 N ln(2 / 1e-6)), from Hoeffding's inequality.
    CHECK(std::fabs(u.systematic.threshold - std::sqrt(2.0 * 1000 * std::log(2e6))) < 1e-9);
    // The detection limit: no dropped term above 2 * the largest bound can hide.
    CHECK(u.detection_limit > 0);
    CHECK(u.detection_limit < 1e-5);
}

TEST_CASE("text report: columns never run together (10-digit ULP distances, float64 NaN payloads)") {
    // FLOAT32 1 against -1: ULP distance 2 * 0x3f800000 + 1 = 2130706433 (10 digits); FLOAT64
    // NaN with a payload against 1.
    const Case c32 = parse_text(R"({"format": 1, "name": "t", "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1]}},
        "inputs": {"InputTensor": {"Fill": 0}},
        "expected": {"OutputTensor": {"Values": [1], "Tolerance": {"Kind": "Bits", "Why": "test"}}}})");
    const Case c64 = parse_text(R"({"format": 1, "name": "t", "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT64", "Sizes": [1]}, "OutputTensor": {"DataType": "FLOAT64", "Sizes": [1]}},
        "inputs": {"InputTensor": {"Fill": 0}},
        "expected": {"OutputTensor": {"Values": ["0x7ff8000000000123"], "Tolerance": {"Kind": "Bits", "Why": "test"}}}})");
    DiffReport r;
    CaseDiff a, b;
    a.name = "a";
    a.outputs.push_back(census(c32, "OutputTensor", bytes_of(std::vector<float>{-1.0f}), {}));
    b.name = "b";
    b.outputs.push_back(
        census(c64, "OutputTensor", bytes_of(std::vector<double>{from_bits<double>(0xfff8000000000456ull)}), {}));
    r.cases = {a, b};
    const std::string text = report_text(r);
    CHECK(text.find("2130706433") != std::string::npos);
    // Each worst-element row splits into as many cells (separated by two or more spaces) as its header.
    std::istringstream in(text);
    std::string line;
    size_t header_cells = 0, rows = 0;
    auto cells = [](const std::string& l) {
        size_t n = 0;
        bool in_cell = false;
        for (size_t i = 0; i < l.size(); ++i) {
            const bool gap = l[i] == ' ' && (i + 1 < l.size() && l[i + 1] == ' ');
            if (!gap && l[i] != ' ' && !in_cell) {
                ++n;
                in_cell = true;
            }
            if (gap) in_cell = false;
        }
        return n;
    };
    while (std::getline(in, line)) {
        if (line.find("index") != std::string::npos && line.find("verdict") != std::string::npos) {
            header_cells = cells(line);
            continue;
        }
        if (header_cells && line.rfind("    [", 0) == 0) {
            INFO(line);
            CHECK(cells(line) == header_cells);
            ++rows;
        }
    }
    CHECK(header_cells == 5);
    CHECK(rows == 2);
}

TEST_CASE("the subnormal-flushing profile adds its stated allowance, and only it") {
    // Two FLOAT32 terms 2^-130 (subnormal) and 2^-126 (exact sum 2^-126 + 2^-130, the golden).
    // A flushing backend drops the subnormal term: error 2^-130, far over the default bound
    // (gamma_1(2^-24) * S + ULP(golden) / 2 + ..., about 2^-149), within the flushing allowance
    // (2n + k) * 2^-126 + 2^-126 = 5 * 2^-126.
    TermSink sink(1);
    sink.add(0, std::ldexp(1.0, -130), 1, 0, false);
    sink.add(0, std::ldexp(1.0, -126), 1, 0, false);
    const uint32_t golden = f32(std::ldexp(1.0f, -126) + std::ldexp(1.0f, -130)), flushed = f32(std::ldexp(1.0f, -126));
    const double b = element_bound(sink.elements()[0], DataType::FLOAT32, golden, {});
    CHECK_FALSE(within_bound(DataType::FLOAT32, golden, flushed, b));
    ArithmeticProfile p;
    p.flush_subnormals = true;
    const double bf = element_bound(sink.elements()[0], DataType::FLOAT32, golden, p);
    CHECK(bf - b >= 4.999 * std::ldexp(1.0, -126));
    CHECK(bf - b < 5.001 * std::ldexp(1.0, -126));
    CHECK(within_bound(DataType::FLOAT32, golden, flushed, bf));
}

// FLOAT32 x rounded to TF32 toward zero: 10 fraction bits kept (a tensor core's conversion).
float tf32_truncated(float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffffe000u); }

TEST_CASE("TF32 operands: a backend rounding products' operands to TF32 passes under the profile only") {
    // GEMM 32 x 64 x 32 of FLOAT32 data in [0.25, 1): each element's 64 products rounded toward
    // zero to TF32 operands move the sum by about 2^-10 of it (each operand loses up to 2^-10 of
    // itself, on average 2^-11, both operands: 2^-10 of each product, all the same sign). The
    // default bound, gamma_63(2^-24) sum |t| plus the roundings, is about 63 2^-24 = 2^-18 of the
    // sum: over. Under the profile each product may move by (2 2^-10 + 2^-20) of itself: within,
    // and the whole-tensor check discounts that allowance (the error is biased by construction).
    const Case c = with_golden(parse_text(R"({"format": 1, "name": "t", "operator": "GEMM",
        "desc": {"ATensor": {"DataType": "FLOAT32", "Sizes": [32, 64]}, "BTensor": {"DataType": "FLOAT32", "Sizes": [64, 32]},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [32, 32]}, "TransA": "NONE", "TransB": "NONE",
                 "Alpha": 1, "Beta": 0},
        "inputs": {"ATensor": {"Random": {"Seed": 3, "Min": 0.25, "Max": 1}},
                   "BTensor": {"Random": {"Seed": 4, "Min": 0.25, "Max": 1}}}})"),
                               "OutputTensor");
    const auto a = as_values<float>(c.inputs.at("ATensor")), b = as_values<float>(c.inputs.at("BTensor"));
    std::vector<float> tf32(32 * 32);
    for (int m = 0; m < 32; ++m)
        for (int n = 0; n < 32; ++n) {
            double s = 0;  // products of 11-bit significands, exact; the sum in float64, rounded once
            for (int k = 0; k < 64; ++k) s += double(tf32_truncated(a[m * 64 + k])) * tf32_truncated(b[k * 32 + n]);
            tf32[m * 32 + n] = float(s);
        }
    DiffOptions o;
    const OutputCensus strict = census(c, "OutputTensor", bytes_of(tf32), o);
    CHECK(strict.over > 900);  // nearly all 1024
    CHECK_FALSE(strict.passed());
    o.profile.tf32_operands = true;
    const OutputCensus admitted = census(c, "OutputTensor", bytes_of(tf32), o);
    CHECK(admitted.over == 0);
    CHECK(admitted.systematic.passed());
    CHECK(admitted.passed());
    // What the profile does not admit: operands rounded to 8 fraction bits, toward zero. Each
    // loses about 2^-8 / 1.5 of itself on average, a product about 2^-8.6 of itself, above the
    // allowance of 2^-9 + 2^-20: over, element after element.
    std::vector<float> eight(32 * 32);
    for (int m = 0; m < 32; ++m)
        for (int n = 0; n < 32; ++n) {
            double s = 0;
            for (int k = 0; k < 64; ++k) {
                const float x = std::bit_cast<float>(std::bit_cast<uint32_t>(a[m * 64 + k]) & 0xffff8000u);
                const float y = std::bit_cast<float>(std::bit_cast<uint32_t>(b[k * 32 + n]) & 0xffff8000u);
                s += double(x) * y;
            }
            eight[m * 32 + n] = float(s);
        }
    CHECK(census(c, "OutputTensor", bytes_of(eight), o).over > 900);
    // The profile widens FLOAT32 elements only: FLOAT16 operands are already TF32 values.
    TermSink sink(1);
    sink.add(0, 0.75, 0.5, 0, true);
    sink.add(0, 0.5, 0.25, 0, true);
    ArithmeticProfile p;
    const double b16 = element_bound(sink.elements()[0], DataType::FLOAT16, 0x3800, p);  // golden 0.5
    p.tf32_operands = true;
    CHECK(element_bound(sink.elements()[0], DataType::FLOAT16, 0x3800, p) == b16);
    CHECK(profile_text(p) ==
          "accumulate=any coordinates=any subnormals=kept operands=tf32 convolution=direct statistics=any");
}

// A backend computing CONVOLUTION (cross-correlation, one output channel, C input channels, 3x3,
// padding 1) by Winograd's F(4x4, 3x3) in float32, written from Lavin and Gray's matrices
// ("Fast Algorithms for Convolutional Neural Networks", 2016), independently of
// reference/convolution_winograd.cpp: Y = A^T [sum_c (G g_c G^T) . (B^T d_c B)] A per 4x4 tile.
// `drop` leaves out channel 0's filter tap (0, 0) (a planted bug).
std::vector<float> winograd_f4(const std::vector<float>& x, const std::vector<float>& w, int C, int H, int W,
                               bool drop = false) {
    const float BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                            {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
    const float G[6][3] = {{1.f / 4, 0, 0},
                           {-1.f / 6, -1.f / 6, -1.f / 6},
                           {-1.f / 6, 1.f / 6, -1.f / 6},
                           {1.f / 24, 1.f / 12, 1.f / 6},
                           {1.f / 24, -1.f / 12, 1.f / 6},
                           {0, 0, 1}};
    const float AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
    std::vector<float> y(size_t(H * W));
    for (int ty = 0; ty < H; ty += 4)
        for (int tx = 0; tx < W; tx += 4) {
            float M[6][6] = {};
            for (int c = 0; c < C; ++c) {
                float g[3][3], d[6][6], t[6][6] = {}, U[6][6] = {}, V[6][6] = {};
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b)
                        g[a][b] = drop && c == 0 && a == 0 && b == 0 ? 0.f : w[size_t((c * 3 + a) * 3 + b)];
                for (int a = 0; a < 6; ++a)
                    for (int b = 0; b < 6; ++b) {
                        const int r = ty - 1 + a, q = tx - 1 + b;
                        d[a][b] = r >= 0 && r < H && q >= 0 && q < W ? x[size_t((c * H + r) * W + q)] : 0.f;
                    }
                for (int i = 0; i < 6; ++i)  // G g
                    for (int b = 0; b < 3; ++b)
                        for (int a = 0; a < 3; ++a) t[i][b] += G[i][a] * g[a][b];
                for (int i = 0; i < 6; ++i)  // (G g) G^T
                    for (int j = 0; j < 6; ++j)
                        for (int b = 0; b < 3; ++b) U[i][j] += t[i][b] * G[j][b];
                float e[6][6] = {};
                for (int i = 0; i < 6; ++i)  // B^T d
                    for (int b = 0; b < 6; ++b)
                        for (int a = 0; a < 6; ++a) e[i][b] += BT[i][a] * d[a][b];
                for (int i = 0; i < 6; ++i)  // (B^T d) B
                    for (int j = 0; j < 6; ++j)
                        for (int b = 0; b < 6; ++b) V[i][j] += e[i][b] * BT[j][b];
                for (int i = 0; i < 6; ++i)
                    for (int j = 0; j < 6; ++j) M[i][j] += U[i][j] * V[i][j];
            }
            float t[4][6] = {};
            for (int i = 0; i < 4; ++i)
                for (int b = 0; b < 6; ++b)
                    for (int a = 0; a < 6; ++a) t[i][b] += AT[i][a] * M[a][b];
            for (int i = 0; i < 4 && ty + i < H; ++i)
                for (int j = 0; j < 4 && tx + j < W; ++j) {
                    float s = 0;
                    for (int b = 0; b < 6; ++b) s += t[i][b] * AT[j][b];
                    y[size_t((ty + i) * W + tx + j)] = s;
                }
        }
    return y;
}

TEST_CASE("Winograd convolutions: F(4x4, 3x3) in float32 passes under the profile only, a dropped tap fails") {
    // 1 x 4 x 16 x 16 FLOAT32 data in [-1, 1], one 3x3 filter, padding 1. The direct bound is
    // gamma_35(2^-24) sum |x w| and the roundings; Winograd's transforms amplify the rounding errors
    // by their constants (up to 8 in A^T, 5 in B^T), past that bound on some elements (the
    // magnitude W of reference/convolution_winograd.cpp is several times sum |x w|). Under the
    // profile the allowance gamma_37(2^-24) W covers every element.
    const Case c = with_golden(parse_text(R"({"format": 1, "name": "w", "operator": "CONVOLUTION",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 4, 16, 16]},
                 "FilterTensor": {"DataType": "FLOAT32", "Sizes": [1, 4, 3, 3]},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 16, 16]},
                 "Mode": "CROSS_CORRELATION", "Direction": "FORWARD", "DimensionCount": 2, "Strides": [1, 1],
                 "Dilations": [1, 1], "StartPadding": [1, 1], "EndPadding": [1, 1], "OutputPadding": [0, 0],
                 "GroupCount": 1},
        "inputs": {"InputTensor": {"Random": {"Seed": 11, "Min": -1, "Max": 1}},
                   "FilterTensor": {"Random": {"Seed": 12, "Min": -1, "Max": 1}}}})"),
                               "OutputTensor");
    const auto x = as_values<float>(c.inputs.at("InputTensor")), w = as_values<float>(c.inputs.at("FilterTensor"));
    const std::vector<float> y = winograd_f4(x, w, 4, 16, 16);
    DiffOptions o;
    const OutputCensus strict = census(c, "OutputTensor", bytes_of(y), o);
    INFO("over the direct bound: " << strict.over);
    CHECK(strict.over > 0);
    o.profile.winograd = true;
    const OutputCensus admitted = census(c, "OutputTensor", bytes_of(y), o);
    CHECK(admitted.over == 0);
    CHECK(admitted.passed());
    // A dropped filter tap is still caught under the profile.
    CHECK(census(c, "OutputTensor", bytes_of(winograd_f4(x, w, 4, 16, 16, true)), o).over > 100);
    ArithmeticProfile p;
    p.winograd = true;
    CHECK(profile_text(p) ==
          "accumulate=any coordinates=any subnormals=kept operands=exact convolution=direct-or-winograd "
          "statistics=any");
}

TEST_CASE("zeros of the other sign: within where the element's bound is above 0, over where it is 0 or Bits") {
    // FLOAT16 average pooling grad on the GPU: exact -2^-26, golden -0, PyTorch +0 (docs/tolerance.md, "Zeros").
    const uint64_t minus_zero = 0x8000, plus_zero = 0x0000;
    ElementTolerance e;
    e.kind = "Summed";
    e.bound = 1.8e-7;
    CHECK(judge(DataType::FLOAT16, minus_zero, plus_zero, e, DiffSwitches{}).verdict == Verdict::Within);
    CHECK(judge(DataType::FLOAT16, plus_zero, minus_zero, e, DiffSwitches{}).verdict == Verdict::Within);
    e.bound = std::numeric_limits<double>::infinity();  // an unbounded element
    CHECK(judge(DataType::FLOAT16, minus_zero, plus_zero, e, DiffSwitches{}).verdict == Verdict::Within);
    e.bound = 0;  // an exact copy: the sign is the value's
    CHECK(judge(DataType::FLOAT16, minus_zero, plus_zero, e, DiffSwitches{}).verdict == Verdict::Over);
    ElementTolerance bits;  // Bits, no bound
    CHECK(judge(DataType::FLOAT32, 0x80000000, 0, bits, DiffSwitches{}).verdict == Verdict::Over);
    DiffSwitches zeros;
    zeros.zeros_equal = true;
    CHECK(judge(DataType::FLOAT32, 0x80000000, 0, bits, zeros).verdict == Verdict::Within);
}

namespace {

// MAX_POOLING_GRAD FLOAT16 over [1, 1, 5], window 3, stride 1, X = 0, 0, 1, 0, 0: all three windows
// pick element 2, so dX[2] = dY[0] + dY[1] + dY[2] and every other element is +0.
std::string three_terms_half(const std::string& dy) {
    return R"({"format": 1, "name": "t", "operator": "MAX_POOLING_GRAD",
        "desc": {"InputTensor": {"DataType": "FLOAT16", "Sizes": [1, 1, 5]},
                 "InputGradientTensor": {"DataType": "FLOAT16", "Sizes": [1, 1, 3]},
                 "OutputGradientTensor": {"DataType": "FLOAT16", "Sizes": [1, 1, 5]},
                 "DimensionCount": 1, "Strides": [1], "WindowSize": [3], "StartPadding": [0], "EndPadding": [0], "Dilations": [1]},
        "inputs": {"InputTensor": [0, 0, 1, 0, 0], "InputGradientTensor": )" +
           dy + "}}";
}

}  // namespace

TEST_CASE("overflowing partial sums: their infinities and NaN are admitted only where some order overflows") {
    // FLOAT16's largest finite value is 65504 and its ULP there 32: an exact sum of 65520 or more
    // rounds to infinity (65520 is the tie between 65504, odd significand, and 2^16: to even).
    auto verdict = [](const std::string& dy, uint16_t actual) {
        const Case c = with_golden(parse_text(three_terms_half(dy)), "OutputGradientTensor");
        auto v = c.expected.at("OutputGradientTensor").values;
        store_bits(DataType::FLOAT16, v.data() + 2 * 2, actual);
        const OutputCensus r = census(c, "OutputGradientTensor", v, {});
        return std::pair{r.passed(), c.expected.at("OutputGradientTensor").values};
    };
    auto golden_bits = [](const std::vector<std::byte>& v) {
        return uint16_t(load_bits(DataType::FLOAT16, v.data() + 2 * 2));
    };
    const uint16_t kNaN16 = 0x7e00, kPosInf = 0x7c00, kNegInf = 0xfc00;
    SUBCASE("-65504, +inf, -65504: golden +inf; -65504 + -65504 = -inf in FLOAT16, then + inf = NaN") {
        const auto [nan_ok, g] = verdict(R"([-65504, "inf", -65504])", kNaN16);
        CHECK(golden_bits(g) == kPosInf);
        CHECK(nan_ok);
        CHECK_FALSE(verdict(R"([-65504, "inf", -65504])", kNegInf).first);  // a +inf term is in every order
        CHECK_FALSE(verdict(R"([-65504, "inf", -65504])", 0x7bff).first);   // finite: no
    }
    SUBCASE("the threshold: -65504 + -16 = -65520 overflows, -65504 + -8 = -65512 rounds to -65504") {
        CHECK(verdict(R"([-65504, "inf", -16])", kNaN16).first);
        const auto [ok, g] = verdict(R"([-65504, "inf", -8])", kNaN16);
        CHECK(golden_bits(g) == kPosInf);
        CHECK_FALSE(ok);
    }
    SUBCASE("a finite golden: 65504 + 65504 - 65504 = 65504, but 65504 + 65504 = +inf first gives +inf") {
        const auto [inf_ok, g] = verdict("[65504, 65504, -65504]", kPosInf);
        CHECK(golden_bits(g) == 0x7bff);
        CHECK(inf_ok);
        CHECK_FALSE(verdict("[65504, 65504, -65504]", kNegInf).first);  // no negative partial sum overflows
        CHECK_FALSE(verdict("[65504, 65504, -65504]", kNaN16).first);
        // 65504 + 8 - 65504: no partial sum reaches 65520 in any order.
        CHECK_FALSE(verdict("[65504, 8, -65504]", kPosInf).first);
    }
}

}  // namespace dmlref_test_bound
