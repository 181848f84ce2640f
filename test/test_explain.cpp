// dmlref explain (docs/explain.md): each family's account of one element against hand-derived
// windows, taps, source indices and comparisons; the index parser's errors.
#include "support.hpp"

#include "dmlref/explain.hpp"
#include "dmlref/json_document.hpp"
#include "dmlref/values.hpp"

#include <doctest/doctest.h>

#include <algorithm>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_explain {

using namespace dmlref;

namespace {

// A case from JSON text, made a golden by evaluating it (the values explain reads as "golden").
Case golden(const std::string& text) {
    Case c = test::parse_valid(text);
    const Outputs out = run_case(c);
    for (const auto& [name, values] : out.values) c.expected[name].values = values;
    return c;
}

std::string fact(const Explanation& e, const std::string& key) {
    for (const auto& [k, v] : e.family.facts)
        if (k == key) return v;
    return "";
}

bool has_policy(const Explanation& e, const std::string& name) {
    return std::any_of(e.policies.begin(), e.policies.end(), [&](const auto& p) { return p.first == name; });
}

}  // namespace

TEST_CASE("explain: a 3x3 max pooling window and its argmax") {
    // X (1x1x4x4):  1  2  3  4        window 3x3, stride 1: Y is 2x2.
    //               5 16  7  8        Y[0,0,1,0] reads rows 1..3, columns 0..2:
    //               9 10 11 12        5 16 7 / 9 10 11 / 13 14 15; the max 16 is at X[0,0,1,1].
    //              13 14 15  6
    const Case c = golden(R"({"format": 1, "name": "t", "operator": "MAX_POOLING2",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 4, 4]},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
                 "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [0, 0],
                 "EndPadding": [0, 0], "Dilations": [1, 1]},
        "inputs": {"InputTensor": [1, 2, 3, 4, 5, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15, 6]}})");
    const uint64_t flat = parse_element_index("0,0,1,0", {1, 1, 2, 2}, "golden.json");
    CHECK(flat == 2);
    const Explanation e = explain_element(c, "", flat, to_bits(15.0f), "actual.npy", {});
    CHECK(e.output == "OutputTensor");
    CHECK(e.index == std::vector<uint64_t>{0, 0, 1, 0});
    CHECK(e.golden_bits == to_bits(16.0f));
    CHECK(fact(e, "window").find("InputTensor[0,0,1..3,0..2]") == 0);
    CHECK(fact(e, "argmax").find("InputTensor[0,0,1,1]") == 0);
    REQUIRE(e.family.inputs.size() == 9);  // the window's nine real elements
    size_t argmaxes = 0;
    for (const auto& in : e.family.inputs) {
        if (in.role != "argmax") continue;
        ++argmaxes;
        CHECK(in.index == std::vector<uint64_t>{0, 0, 1, 1});
        CHECK(in.bits == to_bits(16.0f));
    }
    CHECK(argmaxes == 1);
    CHECK(e.family.inputs.front().index == std::vector<uint64_t>{0, 0, 1, 0});  // increasing logical index
    CHECK(e.family.inputs.back().index == std::vector<uint64_t>{0, 0, 3, 2});
    // The planted 15: a copy must be bit for bit, so it is over; 16 - 15 in float32 ULPs is 2^20.
    CHECK(e.tolerance_kind == "Bits");
    CHECK(e.judgement.verdict == Verdict::Over);
    CHECK(e.judgement.distance == (uint64_t(1) << 20));
    CHECK_FALSE(has_policy(e, "ArgmaxTies"));  // no tie, no NaN, no padding in this window
    CHECK_FALSE(has_policy(e, "Padding"));
}

TEST_CASE("explain: a 2-tap linear resample, weights derived by hand") {
    // RESAMPLE1, 1-D, In 3, Out 5, Scale 2, InputPixelOffset 0.5, OutputPixelOffset -0.5:
    // x(o = 2) = (2 + 0.5) / 2 - 0.5 = 0.75; x0 = 0, x1 = 1, w1 = 0.75, w0 = 0.25.
    // Y[2] = 0.25 * 10 + 0.75 * 20 = 17.5.
    const Case c = golden(R"({"format": 1, "name": "t", "operator": "RESAMPLE1",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [5]},
                 "InterpolationMode": "LINEAR", "DimensionCount": 1, "Scales": [2],
                 "InputPixelOffsets": [0.5], "OutputPixelOffsets": [-0.5]},
        "inputs": {"InputTensor": [10, 20, 40]}})");
    const Explanation e = explain_element(c, "OutputTensor", 2, to_bits(18.5f), "actual.npy", {});
    CHECK(e.golden_bits == to_bits(17.5f));
    REQUIRE(e.family.terms.size() == 2);
    CHECK(e.family.terms[0].index == std::vector<uint64_t>{0});
    CHECK(e.family.terms[0].value == 10.0);
    CHECK(e.family.terms[0].weight == 0.25);
    CHECK(e.family.terms[1].index == std::vector<uint64_t>{1});
    CHECK(e.family.terms[1].value == 20.0);
    CHECK(e.family.terms[1].weight == 0.75);
    CHECK(fact(e, "dimension 0").find("x = 0.75 -> input 0 (weight 0.25) input 1 (weight 0.75)") == 0);
    CHECK(has_policy(e, "LinearInterpolation"));
    // A sum has a bound from its terms: positive, far below the planted error of 1.
    CHECK(e.tolerance_kind == "Summed");
    CHECK(e.bound > 0);
    CHECK(e.bound < 0.01);
    CHECK(e.error == 1.0);
    CHECK(e.judgement.verdict == Verdict::Over);
}

TEST_CASE("explain: the readings a golden records are in force while it is explained") {
    // FOLD of INT8 columns [[1, 100], [100, -128]] (window 2, stride 1) into an image of 3: the
    // middle element sums 100 + 100 = 200, which wraps to -56 by default and is clamped to 127
    // under IntegerOverflow=Saturate; explain names the reading the golden was computed under.
    const std::string head = R"({"format": 1, "name": "t", "operator": "FOLD",
        "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [1, 2, 2]}, "OutputTensor": {"DataType": "INT8", "Sizes": [1, 1, 3]},
                 "DimensionCount": 1, "WindowSizes": [2], "Strides": [1], "Dilations": [1], "StartPadding": [0], "EndPadding": [0]},
        "inputs": {"InputTensor": [1, 100, 100, -128]})";
    const Explanation wraps = explain_element(golden(head + "}"), "", 1, std::nullopt, "", {});
    CHECK(wraps.golden_bits == 0xc8);  // -56
    CHECK(fact(wraps, "formula") == "their exact sum, rounded once (integers wrap to the width)");
    const Explanation clamps = explain_element(golden(head + R"(, "policies": {"IntegerOverflow": "Saturate"}})"), "",
                                               1, std::nullopt, "", {});
    CHECK(clamps.golden_bits == 127);
    CHECK(fact(clamps, "formula") == "their exact sum, rounded once (integers clamped to the type's range)");
    bool saturate = false;
    for (const auto& [name, value] : clamps.policies)
        saturate = saturate || (name == "IntegerOverflow" && value == "Saturate");
    CHECK(saturate);
}

TEST_CASE("explain: the slice source index with a negative stride") {
    // SLICE1, In 10, InputWindowOffsets 2, InputWindowSizes 6, InputWindowStrides -2:
    // CopyStart = 2 + 6 - 1 = 7; Out has 1 + (6 - 1) / 2 = 3 elements; Out[1] = In[7 - 2 * 1] = In[5].
    const Case c = golden(R"({"format": 1, "name": "t", "operator": "SLICE1",
        "desc": {"InputTensor": {"DataType": "INT32", "Sizes": [10]}, "OutputTensor": {"DataType": "INT32", "Sizes": [3]},
                 "DimensionCount": 1, "InputWindowOffsets": [2], "InputWindowSizes": [6], "InputWindowStrides": [-2]},
        "inputs": {"InputTensor": [100, 101, 102, 103, 104, 105, 106, 107, 108, 109]}})");
    const Explanation e = explain_element(c, "", 1, std::nullopt, "", {});
    REQUIRE(e.family.inputs.size() == 1);
    CHECK(e.family.inputs[0].index == std::vector<uint64_t>{5});
    CHECK(e.family.inputs[0].bits == 105);
    CHECK(e.golden_bits == 105);
    CHECK(fact(e, "source index") == "InputTensor[7 - 2 * 1 = 5] (CopyStart + InputWindowStrides * c)");
}

TEST_CASE("explain: a clip at Min, and the clip gradient at Min") {
    // CLIP1 with Min -1, Max 1: x = -3 < Min gives Min.
    const Case c = golden(R"({"format": 1, "name": "t", "operator": "ELEMENT_WISE_CLIP1",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
                 "MinMaxDataType": "FLOAT32", "Min": -1, "Max": 1},
        "inputs": {"InputTensor": [-3, 0.5, 2]}})");
    const Explanation e = explain_element(c, "", 0, std::nullopt, "", {});
    CHECK(e.golden_bits == to_bits(-1.0f));
    CHECK(fact(e, "decided by") == "x < Min: the result is Min");
    CHECK(fact(e, "Min") == "-1");
    CHECK(explain_element(c, "", 1, std::nullopt, "", {}).family.facts.back().second == "Min <= x <= Max: x passes");
    CHECK(fact(explain_element(c, "", 2, std::nullopt, "", {}), "decided by") == "x > Max: the result is Max");

    // CLIP_GRAD1 at x == Min: x <= Min holds, so +0 (and the element is on the ClipGradAtMinOrMax boundary).
    const Case g = golden(R"({"format": 1, "name": "t", "operator": "ELEMENT_WISE_CLIP_GRAD1",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                 "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                 "MinMaxDataType": "FLOAT32", "Min": -1, "Max": 1},
        "inputs": {"InputTensor": [-1, 0], "InputGradientTensor": [5, 6]}})");
    const Explanation ge = explain_element(g, "", 0, std::nullopt, "", {});
    CHECK(fact(ge, "decided by") == "x <= Min: the result is +0");
    CHECK(ge.boundary == std::vector<std::string>{"ClipGradAtMinOrMax"});
    CHECK(fact(explain_element(g, "", 1, std::nullopt, "", {}), "decided by") == "Min < x < Max: dY passes");
}

TEST_CASE("explain: the LRN region, clipped at the edge") {
    // CrossChannel, LocalSize 3: element c's region is channels [c - 1, c + 1] clipped to 0..4.
    const Case c = golden(R"({"format": 1, "name": "t", "operator": "LOCAL_RESPONSE_NORMALIZATION",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 5, 1, 1]},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 5, 1, 1]},
                 "CrossChannel": 1, "LocalSize": 3, "Alpha": 1, "Beta": 0.75, "Bias": 1},
        "inputs": {"InputTensor": [1, 2, 3, 4, 5]}})");
    CHECK(fact(explain_element(c, "", 0, std::nullopt, "", {}), "region").find("InputTensor[0,0..1,0,0]") == 0);
    const Explanation mid = explain_element(c, "", 2, std::nullopt, "", {});
    CHECK(fact(mid, "region").find("InputTensor[0,1..3,0,0]") == 0);
    REQUIRE(mid.family.inputs.size() == 3);
    CHECK(mid.family.inputs[0].index == std::vector<uint64_t>{0, 1, 0, 0});
    CHECK(mid.family.inputs[1].role == "x");
    CHECK(mid.family.inputs[2].bits == to_bits(4.0f));
}

TEST_CASE("explain: bad indices and cases are errors with a rule id") {
    auto rule_of = [](auto&& f) {
        try {
            f();
        } catch (const ExplainError& e) {
            const std::string m = e.what();
            return m.substr(m.rfind('[') + 1, m.size() - m.rfind('[') - 2);
        }
        return std::string("no error");
    };
    CHECK(parse_element_index("5", {2, 3}, "g.json") == 5);
    CHECK(parse_element_index("1,2", {2, 3}, "g.json") == 5);
    CHECK(rule_of([] { parse_element_index("6", {2, 3}, "g.json"); }) == "explain.index-range");
    CHECK(rule_of([] { parse_element_index("0,3", {2, 3}, "g.json"); }) == "explain.index-range");
    CHECK(rule_of([] { parse_element_index("0,0,0", {2, 3}, "g.json"); }) == "explain.index-rank");
    CHECK(rule_of([] { parse_element_index("0,-1", {2, 3}, "g.json"); }) == "explain.index-syntax");
    CHECK(rule_of([] { parse_element_index("", {2, 3}, "g.json"); }) == "explain.index-syntax");
    Diagnostics d;
    const Case plain = parse_case(parse_json_text(R"({"format": 1, "name": "t", "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}},
        "inputs": {"InputTensor": [1, -1]}})"),
                                  "plain.json", d);
    REQUIRE_FALSE(d.has_errors());
    CHECK(rule_of([&] { explain_element(plain, "", 0, std::nullopt, "", {}); }) == "explain.not-a-golden");
}

TEST_CASE("explain: average pooling's terms, and the cause of a window shifted by one") {
    // X (1x1x3x3) = 0.3 1.7 2.9 / 4.1 0.6 3.3 / 5.2 2.2 1.1, window 2x2, stride 1, StartPadding 1,
    // IncludePadding FALSE: Y is 3x3, window o reads rows and columns o - 1 .. o.
    const Case c = golden(R"({"format": 1, "name": "t", "operator": "AVERAGE_POOLING",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 3]},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 3]},
                 "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1],
                 "EndPadding": [0, 0], "IncludePadding": 0},
        "inputs": {"InputTensor": [0.3, 1.7, 2.9, 4.1, 0.6, 3.3, 5.2, 2.2, 1.1]}})");
    // Y[0,0,0,0]: one real element, X[0,0,0,0], D = 1.
    const Explanation corner = explain_element(c, "", 0, std::nullopt, "", {});
    REQUIRE(corner.family.terms.size() == 1);
    CHECK(corner.family.terms[0].weight == 1);
    CHECK(corner.family.terms[0].note == "1/1");
    // Y[0,0,1,1]: X[0,0,0..1,0..1], D = 4: (0.3 + 1.7 + 4.1 + 0.6) / 4.
    const auto x = [](double v) { return double(float(v)); };
    const double shifted = (x(1.7) + x(2.9) + x(0.6) + x(3.3)) / 4;  // X[0,0,0..1,1..2] / 4
    const Explanation e = explain_element(c, "", 4, to_bits(float(shifted)), "actual.npy", {});
    REQUIRE(e.family.terms.size() == 4);
    CHECK(e.family.terms[3].index == std::vector<uint64_t>{0, 0, 1, 1});
    CHECK(e.family.terms[3].value == x(0.6));
    CHECK(e.family.terms[3].weight == 0.25);
    CHECK(e.judgement.verdict == Verdict::Over);
    // Its other candidates: the window shifted by -1 (1.1) or along dimension 2 (3.025, 0.5), a
    // neighbour taken in (2.4, 2.5, 2.975, 2.225), a term twice (1.75, 2.1, 2.7, 1.825), missing or
    // of the wrong sign (below 1.675); 2.125 / 1.675 is no p/q <= 16.
    CHECK(fact(e, "cause")
              .find("the window or taps are shifted by +1 along dimension 3 (InputTensor[0,0,0,0] read "
                    "as InputTensor[0,0,0,1], ...)") == 0);

    // The grad, same windows: dX[0,0,0,0] is held by the windows of dY[0,0,0..1,0..1], whose
    // divisors are 1 (rows -1..0, columns -1..0: one real element), 2, 2 and 4.
    const Case g = golden(R"({"format": 1, "name": "t", "operator": "AVERAGE_POOLING_GRAD",
        "desc": {"InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 3]},
                 "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 3]},
                 "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1],
                 "EndPadding": [0, 0], "IncludePadding": 0},
        "inputs": {"InputGradientTensor": [1, 2, 3, 4, 5, 6, 7, 8, 9]}})");
    const Explanation ge = explain_element(g, "", 0, std::nullopt, "", {});
    REQUIRE(ge.family.terms.size() == 4);
    std::vector<double> weights;
    for (const auto& t : ge.family.terms) weights.push_back(t.weight);
    CHECK(weights == std::vector<double>{1, 0.5, 0.5, 0.25});
    CHECK(ge.family.terms[3].tensor == "InputGradientTensor");
}

}  // namespace dmlref_test_explain
