// dmlref gen (docs/gen.md): the combinators, tiers and shards by the names they give, derived
// sizes against hand-computed ones, the recipes' properties, reproducibility, and error cases.
#include "support.hpp"

#include "../reference/kit/family.hpp"

#include "dmlref/coverage.hpp"
#include "dmlref/descriptor.hpp"
#include "dmlref/gen.hpp"
#include "dmlref/json_document.hpp"

#include <algorithm>
#include <cmath>
#include <set>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_gen {

using namespace dmlref;

namespace {

struct Made {
    std::vector<std::string> names;
    std::vector<gen::Generated> cases;
    Diagnostics diags;
    bool has_rule(const std::string& r) const {
        for (const auto& d : diags.items())
            if (d.rule == r) return true;
        return false;
    }
};

Made make(const std::string& spec, gen::Options o = {}) {
    Made m;
    const auto planned = gen::shard(gen::plan_spec(parse_json_text(spec), o, m.diags), o);
    for (const auto& p : planned) {
        m.names.push_back(p.name);
        if (auto g = gen::make_case(p, o, m.diags)) m.cases.push_back(*g);
    }
    return m;
}

// A sweep of ACTIVATION_RELU over `cases`, with inputs from `recipe`.
std::string relu_spec(const std::string& cases, const std::string& recipe = "dyadic") {
    return R"({"sweep": 1, "name": "s", "seed": 5, "base": {"operator": "ACTIVATION_RELU", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 3]}, "OutputTensor": {"DataType": "auto", "Sizes": "auto"}},
        "inputs": {"InputTensor": {"Recipe": ")" +
           recipe + R"("}}}, "cases": )" + cases + "}";
}

const std::string kTypes = R"({"pointer": "/desc/InputTensor/DataType", "values": ["FLOAT16", "INT8"]})";
const std::string kRanks = R"({"axis": "r", "pointer": "/desc/InputTensor/Sizes", "values": [[4], [2, 2], [1, 2, 2]]})";

Case parsed(const gen::Generated& g) {
    Diagnostics d;
    Case c = parse_case(parse_json_text(g.text), g.name + ".json", d);
    for (const auto& item : d.items()) INFO(format(item, g.name));
    REQUIRE(!d.has_errors());
    return c;
}

const TensorDesc& field(const Case& c, std::string_view name) {
    for (const auto& f : tensor_fields(c.op))
        if (f.name == name) return *f.desc;
    FAIL("no field " << name);
    throw 0;
}

template <class T> std::vector<T> input(const Case& c, const std::string& f) {
    return test::as_values<T>(c.inputs.at(f));
}

}  // namespace

TEST_CASE("product, zip, concat and byTier give the cases and names the spec says") {
    auto p = make(relu_spec(R"({"product": [)" + kTypes + "," + kRanks + "]}"));
    CHECK(p.names == std::vector<std::string>{"s/float16_r4_dyadic", "s/float16_r2x2_dyadic", "s/float16_r1x2x2_dyadic",
                                              "s/int8_r4_dyadic", "s/int8_r2x2_dyadic", "s/int8_r1x2x2_dyadic"});
    CHECK(!p.diags.has_errors());

    auto z = make(relu_spec(R"({"zip": [)" + kTypes + "," + kRanks + "]}"));
    CHECK(z.has_rule("gen.zip-length"));
    auto zc = make(relu_spec(R"({"zip": [)" + kTypes + "," + kRanks + R"(], "cycle": true})"));
    CHECK(zc.names == std::vector<std::string>{"s/float16_r4_dyadic", "s/int8_r2x2_dyadic", "s/float16_r1x2x2_dyadic"});

    auto c = make(relu_spec(R"({"concat": [)" + kTypes + "," + kRanks + "]}"));
    CHECK(c.names.size() == 5);

    const std::string tiers = R"({"byTier": {"smoke": )" + kTypes + R"(, "ci": {"product": [)" + kTypes + "," + kRanks +
                              "]}}}";
    gen::Options o;
    o.tier = gen::Tier::Smoke;
    CHECK(make(relu_spec(tiers), o).names.size() == 2);
    o.tier = gen::Tier::Ci;
    CHECK(make(relu_spec(tiers), o).names.size() == 6);
    o.tier = gen::Tier::Full;  // no "full": the nearest tier below
    CHECK(make(relu_spec(tiers), o).names.size() == 6);

    const std::string marked = R"({"concat": [)" + kTypes + R"(, {"tier": "full", "product": [)" + kTypes + "," +
                               kRanks + "]}]}";
    o.tier = gen::Tier::Ci;
    CHECK(make(relu_spec(marked), o).names.size() == 2);
    o.tier = gen::Tier::Full;
    CHECK(make(relu_spec(marked), o).names.size() == 8);
}

TEST_CASE("spec problems are errors with rule ids") {
    CHECK(make(relu_spec(R"({"concat": [)" + kTypes + "," + kTypes + "]}")).has_rule("gen.duplicate-name"));
    CHECK(make(relu_spec(R"({"product": 3})")).has_rule("gen.node"));
    CHECK(make(relu_spec(R"({"tier": "nightly", "values": [1], "pointer": "/x"})")).has_rule("gen.tier"));
    CHECK(make(R"({"sweep": 2})").has_rule("gen.sweep"));
    CHECK(make(relu_spec(kTypes, "nan-first")).has_rule("gen.recipe"));  // INT8 has no NaN
    CHECK(make(relu_spec(kTypes, "gaussian")).has_rule("gen.recipe"));
    // A stray key in the object of a recipe that takes none: an error, not silently ignored.
    std::string stray = relu_spec(kTypes);
    stray.replace(stray.find(R"({"Recipe": "dyadic"})"), std::string(R"({"Recipe": "dyadic"})").size(),
                  R"({"Recipe": {"Name": "dyadic", "Scale": 2}})");
    CHECK(make(stray).has_rule("gen.recipe"));
    // A sweep's name is a path under the output directory: no way out of it.
    std::string escape = relu_spec(kTypes);
    escape.replace(escape.find("\"name\": \"s\""), 11, "\"name\": \"../x\"");
    CHECK(make(escape).has_rule("gen.sweep"));
    // Recipes write their values into the case file: a bounded number of them.
    CHECK(
        make(relu_spec(R"({"values": [[8192, 4096]], "pointer": "/desc/InputTensor/Sizes"})")).has_rule("gen.recipe"));
    // A case that does not validate is named with its own rule.
    auto bad = make(relu_spec(R"({"values": [[2, 0]], "pointer": "/desc/InputTensor/Sizes"})"));
    CHECK(bad.has_rule("gen.case"));
    CHECK(bad.cases.empty());
    // ... at the spec's node that says it, not at a path of the made case the user never wrote: the
    // 0 is /cases/values/0/1 of the spec; the output's derived sizes are the base's "auto".
    REQUIRE(bad.diags.items().size() == 2);
    CHECK(bad.diags.items()[0].path == "/cases/values/0/1");
    CHECK(bad.diags.items()[0].message.find("s/2x0_dyadic (case /desc/InputTensor/Sizes/1): ") == 0);
    CHECK(bad.diags.items()[1].path == "/base/desc/OutputTensor/Sizes");
}

TEST_CASE("hostile specs: a use cycle and an expansion past --max-cases are errors, found before anything is built") {
    // A def that uses itself through another: an error naming the cycle (it once recursed until
    // the stack overflowed).
    const std::string cycle = R"({"sweep": 1, "name": "s", "defs": {"a": {"use": "b"}, "b": {"concat": [{"use": "a"}]}},
        "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"use": "a"}})";
    const Made c = make(cycle);
    CHECK(c.has_rule("gen.use-cycle"));
    CHECK(c.names.empty());
    // Twelve product axes of ten values: 10^12 cases. Refused from the counts alone: each axis is
    // ten variants, so the memory stays that of 120 variants (it once grew to 5.7 GB).
    std::string axes;
    for (int i = 0; i < 12; ++i) {
        axes += std::string(i ? "," : "") + R"({"pointer": "/x)" + std::to_string(i) +
                R"(", "values": [0,1,2,3,4,5,6,7,8,9]})";
    }
    const Made big = make(relu_spec(R"({"product": [)" + axes + "]}"));
    CHECK(big.has_rule("gen.too-many-cases"));
    CHECK(big.names.empty());
    // Defs that use the level below twice, five levels deep: 2^5 * 10 = 320 cases are fine ...
    std::string defs = R"("l0": {"pointer": "/x", "values": [0,1,2,3,4,5,6,7,8,9]})";
    for (int i = 1; i <= 5; ++i)
        defs += R"(, "l)" + std::to_string(i) + R"(": {"product": [{"use": "l)" + std::to_string(i - 1) +
                R"("}, {"axis": "k)" + std::to_string(i) + R"(", "pointer": "/k)" + std::to_string(i) +
                R"(", "values": [0, 1]}]})";
    auto deep = [&](int level, size_t max_cases) {
        gen::Options o;
        o.max_cases = max_cases;
        Diagnostics d;
        const std::string spec = R"({"sweep": 1, "name": "s", "defs": {)" + defs +
                                 R"(}, "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"use": "l)" +
                                 std::to_string(level) + R"("}})";
        const auto p = gen::plan_spec(parse_json_text(spec), o, d);
        return std::pair{p.size(), d.has_errors() && d.items().at(0).rule == "gen.too-many-cases"};
    };
    CHECK(deep(5, 100000) == std::pair<size_t, bool>{320, false});
    // ... and past a limit of 100 the error comes at the level that crosses it (10 * 2^4 = 160).
    CHECK(deep(5, 100) == std::pair<size_t, bool>{0, true});
    CHECK(deep(3, 100) == std::pair<size_t, bool>{80, false});
    // The limit holds across the sweeps of one spec too.
    const std::string two = R"({"sweep": 1, "sweeps": [
        {"name": "a", "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"pointer": "/x", "values": [1, 2, 3]}},
        {"name": "b", "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"pointer": "/x", "values": [1, 2, 3]}}]})";
    gen::Options five;
    five.max_cases = 5;
    Diagnostics d;
    gen::plan_spec(parse_json_text(two), five, d);
    CHECK((d.has_errors() && d.items().at(0).rule == "gen.too-many-cases" && d.items().at(0).path == "/sweeps/1"));
}

TEST_CASE("hostile descriptors: a token twice, a seed past 2^64 and a huge token are errors of one line") {
    auto rule = [](const std::string& text) {
        Diagnostics d;
        const bool ok = descriptor_to_planned(text, d).has_value();
        std::string message;
        for (const auto& i : d.items()) message += i.message;
        return std::tuple{ok, d.has_errors() ? d.items().at(0).rule : std::string(), message.size()};
    };
    CHECK(std::get<0>(rule("MAX_POOLING FLOAT32 1x1x4x4 w2x2 seed=18446744073709551615")));  // 2^64 - 1 holds
    CHECK(std::get<1>(rule("MAX_POOLING FLOAT32 1x1x4x4 w2x2 seed=18446744073709551616")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("ACTIVATION_RELU FLOAT32 2x2 random=99999999999999999999999")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("MAX_POOLING FLOAT32 1x1x4x4 w2x2 w3x3")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("MAX_POOLING FLOAT32 1x1x4x4 w2x2 ceil floor")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("RESAMPLE2 FLOAT32 2x3 sc2x1 nearest linear")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("ACTIVATION_RELU FLOAT32 2x2 seed=1 seed=2")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("ELEMENT_WISE_CLIP1 FLOAT32 2x2 min=1 max=2 min=0")) == "descriptor.syntax");
    // A number past FLOAT64's range is the descriptor's error, not a JSON error at a line of the
    // made case (json.syntax) that the user never wrote; the largest double still holds.
    CHECK(std::get<1>(rule("ACTIVATION_ELU FLOAT32 2x2 alpha=1e999")) == "descriptor.syntax");
    CHECK(std::get<1>(rule("ACTIVATION_ELU FLOAT32 2x2 alpha=-1e999")) == "descriptor.syntax");
    CHECK(std::get<0>(rule("ACTIVATION_ELU FLOAT32 2x2 alpha=1.7976931348623157e308")));
    // A 100 KB token: refused, and the message stays short.
    const auto [ok, r, length] = rule("ACTIVATION_RELU FLOAT32 2x2 q" + std::string(100000, '1'));
    CHECK_FALSE(ok);
    CHECK(r == "descriptor.syntax");
    CHECK(length < 600);
}

TEST_CASE("shards are disjoint and together the whole, in order") {
    const std::string spec = relu_spec(R"({"product": [)" + kTypes + "," + kRanks + "]}");
    const auto all = make(spec).names;
    std::vector<std::string> joined;
    for (uint32_t i = 0; i < 4; ++i) {
        gen::Options o;
        o.shard_index = i;
        o.shard_count = 4;
        for (const auto& n : make(spec, o).names) joined.push_back(n);
    }
    std::vector<std::string> a = all, b = joined;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    CHECK(a == b);
    CHECK(std::set<std::string>(b.begin(), b.end()).size() == b.size());
}

TEST_CASE("the same spec gives the same bytes; the sweep's seed changes Random data") {
    const std::string spec = relu_spec(R"({"product": [)" + kTypes + "," + kRanks + "]}", "random");
    const auto a = make(spec), b = make(spec);
    REQUIRE(a.cases.size() == 6);
    for (size_t i = 0; i < a.cases.size(); ++i) CHECK(a.cases[i].text == b.cases[i].text);
    std::string other = spec;
    other.replace(other.find("\"seed\": 5"), 9, "\"seed\": 6");
    CHECK(make(other).cases[0].text != a.cases[0].text);
    CHECK(gen::case_seed(5, "s/x") == gen::case_seed(5, "s/x"));
    CHECK(gen::case_seed(5, "s/x") != gen::case_seed(5, "s/y"));
}

TEST_CASE("derived sizes: pooling floor and ceil, grads, slice windows, resample scales") {
    // In 9, StartPadding 1, window 3, stride 2: (9 + 1 - 3) / 2 + 1 = 4 (floor); remainder 1 -> ceil 5.
    // Dimension 3: in 6, no padding, window 2 dilated by 2 (extent 3): (6 - 3) / 2 + 1 = 2, remainder 1 -> ceil 3.
    const std::string pool = R"({"sweep": 1, "name": "p", "base": {"operator": "MAX_POOLING_GRAD", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 3, 9, 6]},
        "InputGradientTensor": {"DataType": "auto", "Sizes": "auto"}, "OutputGradientTensor": {"DataType": "auto", "Sizes": "auto"},
        "DimensionCount": "auto", "Strides": {"$repeat": 2}, "WindowSize": [3, 2], "StartPadding": [1, 0],
        "EndPadding": {"$repeat": 0}, "Dilations": [1, 2]},
        "inputs": {"InputTensor": {"Recipe": "dyadic"}, "InputGradientTensor": {"Recipe": "dyadic"}}},
        "cases": {"pointer": "/desc/InputGradientTensor/Sizes", "values": ["auto", "auto:ceil"]}})";
    auto m = make(pool);
    REQUIRE(m.cases.size() == 2);
    CHECK(field(parsed(m.cases[0]), "InputGradientTensor").Sizes == std::vector<uint32_t>{2, 3, 4, 2});
    CHECK(field(parsed(m.cases[1]), "InputGradientTensor").Sizes == std::vector<uint32_t>{2, 3, 5, 3});
    CHECK(field(parsed(m.cases[0]), "OutputGradientTensor").Sizes == std::vector<uint32_t>{2, 3, 9, 6});
    CHECK(gen::pooled_size(9, 1, 0, 3, 2, 1, true) == 5);
    CHECK(gen::pooled_size(2, 0, 0, 3, 1, 1, false) == 0);  // the window does not fit

    // SLICE_GRAD: window 5 with stride -2 copies 1 + 4 / 2 = 3 elements; window 4, stride 3: 1 + 3 / 3 = 2.
    const std::string slice = R"({"sweep": 1, "name": "g", "base": {"operator": "SLICE_GRAD", "desc": {
        "InputGradientTensor": {"DataType": "auto", "Sizes": "auto"}, "OutputGradientTensor": {"DataType": "INT16", "Sizes": [7, 4]},
        "DimensionCount": "auto", "InputWindowOffsets": [1, 0], "InputWindowSizes": [5, 4], "InputWindowStrides": [-2, 3]},
        "inputs": {"InputGradientTensor": {"Recipe": "dyadic"}}}})";
    auto s = make(slice);
    REQUIRE(s.cases.size() == 1);
    CHECK(field(parsed(s.cases[0]), "InputGradientTensor").Sizes == std::vector<uint32_t>{3, 2});
    CHECK(field(parsed(s.cases[0]), "InputGradientTensor").DataType == DataType::INT16);

    // RESAMPLE1: floor(3 * 1.5) = 4, floor(5 * 0.5) = 2.
    const std::string rs = R"({"sweep": 1, "name": "r", "base": {"operator": "RESAMPLE1", "desc": {
        "InputTensor": {"DataType": "FLOAT16", "Sizes": [3, 5]}, "OutputTensor": {"DataType": "auto", "Sizes": "auto"},
        "InterpolationMode": "LINEAR", "DimensionCount": "auto", "Scales": [1.5, 0.5],
        "InputPixelOffsets": {"$repeat": 0.5}, "OutputPixelOffsets": {"$repeat": -0.5}},
        "inputs": {"InputTensor": {"Recipe": "dyadic"}}}})";
    auto r = make(rs);
    REQUIRE(r.cases.size() == 1);
    CHECK(field(parsed(r.cases[0]), "OutputTensor").Sizes == std::vector<uint32_t>{4, 2});

    // A window that cannot fit has no derived size.
    std::string bad = pool;
    bad.replace(bad.find("\"WindowSize\": [3, 2]"), 20, "\"WindowSize\": [30, 2]");
    CHECK(make(bad).has_rule("gen.auto"));
}

TEST_CASE("recipes: dyadic values, ties, NaN placed in windows, x at Min and Max, specials") {
    // dyadic: every float value is k/4 with |k| <= 16, so sums of a few are exact in any order.
    auto d = make(relu_spec(R"({"values": [[64]], "pointer": "/desc/InputTensor/Sizes"})"));
    REQUIRE(d.cases.size() == 1);
    for (float v : input<float>(parsed(d.cases[0]), "InputTensor")) {
        CHECK(std::fabs(v) <= 4.0f);
        CHECK(v * 4 == std::floor(v * 4));
    }
    // ties: values from {0, 1, -0} only.
    auto t = make(relu_spec(R"({"values": [[64]], "pointer": "/desc/InputTensor/Sizes"})", "ties"));
    for (float v : input<float>(parsed(t.cases[0]), "InputTensor")) CHECK((v == 0.0f || v == 1.0f));

    // NaN in a pooling window: 1x1x4x4, window 2, stride 2 (no padding). The windows of the first
    // and last outputs are {0, 1, 4, 5} and {10, 11, 14, 15}: first 0 and 10, last 5 and 15.
    auto pool = [](const std::string& recipe, const std::string& pads) {
        return R"({"sweep": 1, "name": "n", "base": {"operator": "MAX_POOLING", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 4, 4]}, "OutputTensor": {"DataType": "auto", "Sizes": "auto"},
            "DimensionCount": 2, "Strides": [2, 2], "WindowSize": [2, 2], "StartPadding": )" +
               pads + R"(, "EndPadding": [0, 0]},
            "inputs": {"InputTensor": {"Recipe": ")" +
               recipe + R"("}}}})";
    };
    auto nan_at = [&](const std::string& recipe, const std::string& pads) {
        std::set<size_t> at;
        auto m = make(pool(recipe, pads));
        REQUIRE(m.cases.size() == 1);
        const auto v = input<float>(parsed(m.cases[0]), "InputTensor");
        for (size_t i = 0; i < v.size(); ++i)
            if (std::isnan(v[i])) at.insert(i);
        return at;
    };
    CHECK(nan_at("nan-first", "[0, 0]") == std::set<size_t>{0, 10});
    CHECK(nan_at("nan-last", "[0, 0]") == std::set<size_t>{5, 15});
    CHECK(nan_at("nan-middle", "[0, 0]") == std::set<size_t>{4, 14});  // element 2 of 4 in window order
    // StartPadding 1: the first window holds one real element, (0, 0); the last output (1, 1)
    // covers rows and columns 1..2: first 5, last 10.
    CHECK(nan_at("nan-first", "[1, 1]") == std::set<size_t>{0, 5});
    CHECK(nan_at("nan-last", "[1, 1]") == std::set<size_t>{0, 10});

    // min-max: CLIP1 INT8 with Min 1, Max 6: the bounds appear, and their neighbours.
    const std::string clip = R"({"sweep": 1, "name": "c", "base": {"operator": "ELEMENT_WISE_CLIP1", "desc": {
        "InputTensor": {"DataType": "INT8", "Sizes": [64]}, "OutputTensor": {"DataType": "auto", "Sizes": "auto"},
        "MinMaxDataType": "auto", "Min": 1, "Max": 6}, "inputs": {"InputTensor": {"Recipe": "min-max"}}}})";
    auto c = make(clip);
    REQUIRE(c.cases.size() == 1);
    const auto x = input<int8_t>(parsed(c.cases[0]), "InputTensor");
    for (int want : {0, 1, 2, 5, 6, 7}) CHECK(std::count(x.begin(), x.end(), int8_t(want)) > 0);

    // specials: FLOAT16's 16 curated values, each once in 16 elements.
    auto s = make(relu_spec(R"({"product": [{"values": ["FLOAT16"], "pointer": "/desc/InputTensor/DataType"},
                                            {"values": [[16]], "pointer": "/desc/InputTensor/Sizes"}]})",
                            "specials"));
    REQUIRE(s.cases.size() == 1);
    const auto h = input<uint16_t>(parsed(s.cases[0]), "InputTensor");
    const std::set<uint16_t> got(h.begin(), h.end());
    CHECK(got.size() == 16);
    for (uint16_t want : {0x0000, 0x8000, 0x0001, 0x7c00, 0xfc00, 0x7e00, 0x7bff}) CHECK(got.count(want) == 1);
}

TEST_CASE("expectError: met only by exactly the rule, at the path when given") {
    Diagnostics d;
    d.error("/desc/A", "x.one", "m");
    std::string why;
    CHECK(gen::expect_error_met(d, "x.one", "", why));
    CHECK(gen::expect_error_met(d, "x.one", "/desc/A", why));
    CHECK_FALSE(gen::expect_error_met(d, "x.one", "/desc/B", why));
    CHECK_FALSE(gen::expect_error_met(d, "x.two", "", why));
    d.error("/desc/C", "x.two", "m");
    CHECK_FALSE(gen::expect_error_met(d, "x.one", "", why));              // another rule broken as well
    CHECK_FALSE(gen::expect_error_met(Diagnostics{}, "x.one", "", why));  // a valid case

    // The case reader keeps the expectation even when the case fails early.
    Diagnostics cd;
    Case c = parse_case(parse_json_text(R"({"format": 1, "expectError": {"Rule": "case.operator", "Path": "/operator"},
        "operator": "NOPE", "desc": {}, "inputs": {}})"),
                        "e.json", cd);
    CHECK(c.expect_error == "case.operator");
    CHECK(c.expect_error_path == "/operator");
    CHECK(gen::expect_error_met(cd, c.expect_error, c.expect_error_path, why));
}

TEST_CASE("descriptors: to a case and back without loss") {
    auto made = [](const std::string& text) {
        Diagnostics d;
        auto p = descriptor_to_planned(text, d);
        for (const auto& item : d.items()) INFO(format(item, text));
        REQUIRE(p);
        auto g = gen::make_case(*p, {}, d);
        REQUIRE(g);
        return parsed(*g);
    };
    // Canonical descriptors (every array written, in the canonical token order) come back as written.
    for (const std::string text :
         {"MAX_POOLING_GRAD FLOAT16 2x3x9x9 w3x3 s2x2 p1,1,0,0 d1x1 ceil",
          "MAX_POOLING2 INT8 1x2x5x6x4 idx=UINT64 w2x2x3 s1x2x1 p0,1,0,0,0,1 d2x1x1",
          "SLICE1 UINT16 5x6 s-2x3 o1x0 ws4x6", "SLICE_GRAD FLOAT64 7x3 s1x-1 o0x0 ws7x3 out=4x2",
          "RESAMPLE2 FLOAT32 2x3 linear down sc2x1.5 io0.5x0.5 oo-0.5x-0.5",
          "ELEMENT_WISE_CLIP1 UINT8 4x4 min=2 max=9 inplace", "ELEMENT_WISE_CLIP FLOAT32 3 sb=0.5,0.25 min=-1 max=1",
          "AVERAGE_POOLING1 FLOAT16 1x2x5x5 incpad=1 w2x2 s2x2 p0,0,0,0 d2x1 ceil",
          "AVERAGE_POOLING_GRAD INT32 1x2x5x5 incpad=0 w2x2 s1x1 p0,0,0,0",
          "LOCAL_RESPONSE_NORMALIZATION_GRAD FLOAT32 1x4x3x3 cc=0 ls=2 alpha=3 beta=0.75 bias=1",
          // Tensors a descriptor does not derive, said with their types (NameTensor=TYPE:SIZES).
          "GEMM FLOAT16 3x4 alpha=1 beta=0.5 BTensor=FLOAT16:4x5 CTensor=FLOAT16:3x5 OutputTensor=FLOAT16:3x5",
          "MATRIX_MULTIPLY_INTEGER INT8 2x3 BTensor=UINT8:3x2 OutputTensor=INT32:2x2"}) {
        INFO(text);
        std::string why;
        CHECK(case_descriptor(made(text), why) == text);
    }
    // The page's example, as the issue writes it: the sizes it derives.
    const Case c = made("MAX_POOLING_GRAD FLOAT16 2x3x9x9 w3x3 s2x2 p1,1,0,0 d1x1 ceil seed=7");
    CHECK(field(c, "InputGradientTensor").Sizes ==
          std::vector<uint32_t>{2, 3, 5, 5});  // (9 + 1 - 3) / 2 + 1 = 4, remainder 1: ceil 5
    // Random inputs with one seed are said by random=S, and come back.
    std::string why;
    const std::string r = "ACTIVATION_RELU_GRAD FLOAT32 2x2 random=9";
    CHECK(case_descriptor(made(r), why) == r);
    CHECK(why.empty());
    // Strides are said after the sizes, the base tensor's by name (docs/gen.md); flags are not said.
    Case strided = made("ACTIVATION_RELU FLOAT32 2x2");
    get<DML_ACTIVATION_RELU_OPERATOR_DESC>(strided.op.Desc).InputTensor.Strides = {1, 2};
    CHECK(case_descriptor(strided, why) ==
          "ACTIVATION_RELU FLOAT32 2x2 InputTensor=FLOAT32:2x2/1x2 OutputTensor=FLOAT32:2x2");
    get<DML_ACTIVATION_RELU_OPERATOR_DESC>(strided.op.Desc).InputTensor.Flags = 1;  // DML_TENSOR_FLAG_OWNED_BY_DML
    CHECK(case_descriptor(strided, why).empty());
    CHECK(!why.empty());
    Diagnostics d;
    CHECK(!descriptor_to_planned("MAX_POOLING FLOAT32 1x1x4x4 q3", d));
    CHECK(d.items().at(0).rule == "descriptor.syntax");
    // The new scalar tokens: the values land in the desc; LRN's parameters have no default.
    const Case lrn = made("LOCAL_RESPONSE_NORMALIZATION FLOAT32 1x3x2x2 cc=1 ls=4 alpha=1 beta=0.75 bias=16");
    const auto& ld = get<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC>(lrn.op.Desc);
    CHECK(ld.CrossChannel == 1);
    CHECK(ld.LocalSize == 4);
    CHECK(ld.Beta == 0.75f);
    CHECK(ld.Bias == 16.0f);
    Diagnostics d2;
    CHECK(!descriptor_to_planned("LOCAL_RESPONSE_NORMALIZATION FLOAT32 1x3x2x2 cc=1 alpha=1 beta=0.75 bias=1", d2));
    CHECK(d2.items().at(0).rule == "descriptor.syntax");
    const Case avg = made("AVERAGE_POOLING FLOAT32 1x1x4x4 w2x2");
    CHECK(get<DML_AVERAGE_POOLING_OPERATOR_DESC>(avg.op.Desc).IncludePadding == 0);  // docs/gen.md: the default
}

TEST_CASE("coverage: cells, features and holes") {
    Coverage empty;
    const Holes none = holes(empty);
    // From the operators' pages (DirectML API reference; docs/golden.md), not the registry:
    //   pooling, ranks 3..8 (batch, channel, 1 to 6 spatial): MAX_POOLING, MAX_POOLING1, MAX_POOLING2,
    //     MAX_POOLING_GRAD, AVERAGE_POOLING, AVERAGE_POOLING1, AVERAGE_POOLING_GRAD = 7 operators x 6 ranks;
    //   local response normalization, ranks 2..8 (batch, channel and up to 6 more): LRN, LRN_GRAD = 2 x 7;
    //   the 35 element-wise and data-movement operators (CLIP, CLIP1, CLIP_GRAD, CLIP_GRAD1, RELU, RELU_GRAD,
    //     SLICE, SLICE1, SLICE_GRAD, RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE_GRAD, RESAMPLE_GRAD1,
    //     ELEMENT_WISE_ADD; ELEMENT_WISE_SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN, MEAN, IDENTITY, ABS, CEIL, FLOOR,
    //     SIGN, NEGATE, SQRT, RECIP, THRESHOLD, ROUND, MODULUS_TRUNCATE, MODULUS_FLOOR, DIFFERENCE_SQUARE: their pages
    //     allow 1 to 8 dimensions; ADD1: its page's FLOAT32 and FLOAT16 rows, dmlref's eleven types without an
    //     activation), ranks 1..8 = 35 x 8;
    //   batch normalization, ranks 1..8 (DML_BATCH_NORMALIZATION*_OPERATOR_DESC): BN, BN_GRAD, BN_TRAINING,
    //     BN_TRAINING_GRAD = 4 x 8;
    //   the activation family (DML_ACTIVATION_*_OPERATOR_DESC, 1 to 8 dimensions from DML_FEATURE_LEVEL_3_0):
    //     IDENTITY, LINEAR, LEAKY_RELU, PARAMETERIZED_RELU, THRESHOLDED_RELU, SHRINK, HARD_SIGMOID,
    //     HARD_SWISH, SOFTSIGN = 9 x 8;
    //   each over the 11 types.
    //   ROI align (DML_ROI_ALIGN*_OPERATOR_DESC): ROI_ALIGN, ROI_ALIGN1, ROI_ALIGN_GRAD, 4-D only,
    //     FLOAT32 and FLOAT16 only = 3 x 2 x 1.
    //   element-wise logic, ranks 1..8 over the 11 types (their pages allow 1 to 8 dimensions): the five
    //     comparisons, LOGICAL_AND, _OR, _XOR, _NOT, IS_NAN, IS_INFINITY, IF, BIT_AND, _OR, _XOR, _NOT,
    //     _COUNT, _SHIFT_LEFT, _SHIFT_RIGHT = 19 x 11 x 8.
    //   CAST, ranks 1..8 (DML_CAST_OPERATOR_DESC: 1 to 8 dimensions from 3.1), by its input's 11 types = 1 x 11 x 8.
    const uint64_t roi_align_cells = 3 * 2 * 1;
    //   VALUE_SCALE_2D (DML_VALUE_SCALE_2D_OPERATOR_DESC): 4-D only, FLOAT32 and FLOAT16 (dmlref: FLOAT64 too) = 1 x 3 x 1.
    const uint64_t value_scale_2d_cells = 1 * 3 * 1;
    const uint64_t element_wise_logic_cells = 19 * 11 * 8;
    const uint64_t cast_cells = 1 * 11 * 8;
    const uint64_t activation_cells = 9 * 11 * 8;
    //   the reduction family (DML_REDUCE_, DML_ARGMIN_, DML_ARGMAX_OPERATOR_DESC: 1 to 8 dimensions from 3.0): REDUCE,
    //     ARGMIN, ARGMAX over the 11 types = 3 x 11 x 8.
    const uint64_t reduction_cells = 3 * 11 * 8;
    //   CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT over the 11 types, ranks 1..8 (dmlref's scope; CUMULATIVE_PRODUCT's
    //     page allows 1 to 8 dimensions from 4.0) = 2 x 11 x 8.
    const uint64_t cumulative_cells = 2 * 11 * 8;
    //   the gather family (DML_GATHER*_OPERATOR_DESC: 1 to 8 dimensions from 3.0), by InputTensor's 11 types:
    //     GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 = 4 x 11 x 8; the scatters (1 to 8 from 3.0):
    //     SCATTER_ELEMENTS, SCATTER_ND = 2 x 11 x 8.
    //   ONE_HOT (DML_ONE_HOT_OPERATOR_DESC, 1 to 8 from 3.0), by ValuesTensor's 11 types = 1 x 11 x 8.
    //   TOP_K, TOP_K1 (1 to 8 from 3.1), by InputTensor's 11 types = 2 x 11 x 8.
    const uint64_t indexing_cells = 4 * 11 * 8 + 2 * 11 * 8 + 1 * 11 * 8 + 2 * 11 * 8;
    //   data movement: JOIN, SPLIT, PADDING, PADDING1, TILE, ranks 1..8 = 5 x 11 x 8; SPACE_TO_DEPTH,
    //     SPACE_TO_DEPTH1, DEPTH_TO_SPACE, DEPTH_TO_SPACE1, 4-D only (their pages) = 4 x 11 x 1.
    const uint64_t data_movement_cells = 5 * 11 * 8 + 4 * 11 * 1;
    //   the convolutions (DML_CONVOLUTION_OPERATOR_DESC: FLOAT32 and FLOAT16, 3 to 5 dimensions from 4.0;
    //     DML_CONVOLUTION_INTEGER_OPERATOR_DESC: INT8 and UINT8, 3 to 4 from 4.0) = 2 x 3 + 2 x 2.
    const uint64_t convolution_cells = 2 * 3 + 2 * 2;
    //   FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, ranks 1..8 (their pages: 1 to 8 from 4.0), by OutputTensor's
    //     11 types = 2 x 11 x 8.
    const uint64_t fill_cells = 2 * 11 * 8;
    //   REVERSE_SUBSEQUENCES, ranks 1..8 (its page: 1 to 8 from 4.0), by InputTensor's 11 types = 1 x 11 x 8.
    const uint64_t reverse_cells = 1 * 11 * 8;
    //   MAX_UNPOOLING, ranks 1..8 (dmlref's scope; its page: 4-D), by InputTensor's 11 types = 1 x 11 x 8.
    const uint64_t unpooling_cells = 1 * 11 * 8;
    //   element-wise math (DML_ELEMENT_WISE_EXP_OPERATOR_DESC and its siblings: 1 to 8 dimensions from 3.0 or 3.1): EXP,
    //     LOG, SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH, TANH, ASINH, ACOSH, ATANH, ERF, POW, CONSTANT_POW, ATAN_YX
    //     over the 11 types = 18 x 11 x 8.
    const uint64_t element_wise_math_cells = 18 * 11 * 8;
    //   the transcendental activations (DML_ACTIVATION_SIGMOID_, _TANH_, _GELU_OPERATOR_DESC: 1 to 8 dimensions from 3.0,
    //     GELU from 5.1): SIGMOID, TANH, GELU over the 11 types = 3 x 11 x 8; the parametric ones (ELU, CELU,
    //     SCALED_ELU, SOFTPLUS, PARAMETRIC_SOFTPLUS, SCALED_TANH: 1 to 8 from 3.0; SWISH from 6.2) = 7 x 11 x 8.
    const uint64_t activation_math_cells = 3 * 11 * 8 + 7 * 11 * 8;
    //   GEMM (DML_GEMM_OPERATOR_DESC: FLOAT32, FLOAT16, 2 to 4 dimensions) and MATRIX_MULTIPLY_INTEGER
    //     (DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC: INT8, UINT8 A, 2 to 4 dimensions) = 2 x 2 x 3;
    //     MATRIX_MULTIPLY_INTEGER_TO_FLOAT (A of six integer types, 2 to 4 dimensions) = 1 x 6 x 3.
    const uint64_t gemm_cells = 2 * 2 * 3 + 1 * 6 * 3;
    //   DIAGONAL_MATRIX, DIAGONAL_MATRIX1, ranks 2..8 (dmlref's scope; their pages: 4, and 2 to 4), by OutputTensor's
    //     11 types = 2 x 11 x 7.
    const uint64_t diagonal_matrix_cells = 2 * 11 * 7;
    //   UPSAMPLE_2D, 4-D only (an image {N, C, H, W}), by InputTensor's 11 types = 1 x 11 x 1.
    const uint64_t upsample_2d_cells = 1 * 11 * 1;
    //   RESAMPLE3 (DML_RESAMPLE3_OPERATOR_DESC; dmlref's scope, as the other resample operators), ranks 1..8 = 1 x 11 x 8.
    const uint64_t resample3_cells = 1 * 11 * 8;
    //   ROI_POOLING, 4-D only (InputTensor {N, C, H, W}), by InputTensor's 11 types = 1 x 11 x 1.
    const uint64_t roi_pooling_cells = 1 * 11 * 1;
    //   the mean variance normalizations (DML_MEAN_VARIANCE_NORMALIZATION*_OPERATOR_DESC) over the 11 types:
    //     MVN, ranks 2..8 (CrossChannel names dimension 1) = 1 x 11 x 7; MVN1, MVN2, ranks 1..8 = 2 x 11 x 8.
    const uint64_t mean_variance_normalization_cells = 1 * 11 * 7 + 2 * 11 * 8;
    //   LP_NORMALIZATION, ranks 1..8 (dmlref's scope; its page: 4-D), over the 11 types = 1 x 11 x 8.
    const uint64_t lp_normalization_cells = 1 * 11 * 8;
    //   the softmax family (DML_ACTIVATION_SOFTMAX_, _LOG_SOFTMAX_, _HARDMAX_OPERATOR_DESC: 1 to 8 dimensions from
    //     3.0; their "1" forms 1 to 8 from 5.1; FLOAT32 and FLOAT16 only) = 6 x 2 x 8.
    const uint64_t softmax_cells = 6 * 2 * 8;
    //   RANDOM_GENERATOR (UINT32 output, ranks 1..8) = 1 x 1 x 8; NONZERO_COORDINATES (ranks 2..8: the three tensors share
    //     a DimensionCount and the coordinates need two) by InputTensor's 11 types = 1 x 11 x 7; ADAM_OPTIMIZER (FLOAT32,
    //     FLOAT16, ranks 1..8) = 1 x 2 x 8.
    const uint64_t training_cells = 1 * 1 * 8 + 1 * 11 * 7 + 1 * 2 * 8;
    //   the quantization family (1 to 8 dimensions): ELEMENT_WISE_QUANTIZE_LINEAR by InputTensor's FLOAT32, FLOAT16,
    //     INT32; ELEMENT_WISE_DEQUANTIZE_LINEAR by its six integer types; DYNAMIC_QUANTIZE_LINEAR by FLOAT32, FLOAT16;
    //     ELEMENT_WISE_QUANTIZED_LINEAR_ADD by ATensor's INT8, UINT8 = (3 + 6 + 2 + 2) x 8.
    const uint64_t quantization_cells = (3 + 6 + 2 + 2) * 8;
    //   RNN, LSTM, GRU (DML_RNN_, DML_LSTM_, DML_GRU_OPERATOR_DESC: FLOAT32, FLOAT16, 4-D) = 3 x 2 x 1.
    const uint64_t recurrent_cells = 3 * 2 * 1;
    //   LP_POOLING, LP_POOLING1, ranks 3..8 (dmlref's scope, as the other poolings; their pages: 4 and 5) over the 11
    //     types = 2 x 11 x 6.
    const uint64_t lp_pooling_cells = 2 * 11 * 6;
    //   QUANTIZED_LINEAR_MATRIX_MULTIPLY (ATensor INT8, UINT8; 2 to 4 dimensions) and QUANTIZED_LINEAR_CONVOLUTION
    //     (InputTensor INT8, UINT8; 3 to 4 dimensions) = 2 x 3 + 2 x 2.
    const uint64_t quantized_linear_cells = 2 * 3 + 2 * 2;
    //   QUANTIZE by InputTensor's FLOAT32, FLOAT16; DEQUANTIZE by its INT8, UINT8 (DML_QUANTIZE_, DML_DEQUANTIZE_OPERATOR_DESC:
    //     1 to 8 dimensions; INT4, UINT4 outside the eleven types) = (2 + 2) x 8.
    const uint64_t quantize_cells = (2 + 2) * 8;
    //   FOLD, UNFOLD (DML_FOLD_OPERATOR_DESC, DML_UNFOLD_OPERATOR_DESC: 3 to 8 dimensions from 6.4), by InputTensor's
    //     11 types (FOLD's the columns: 3-D, or the image's 4 to 8) = 2 x 11 x 6.
    const uint64_t fold_cells = 2 * 11 * 6;
    //   MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 (DML_MULTIHEAD_ATTENTION_OPERATOR_DESC,
    //     DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC: FLOAT32, FLOAT16, 3 to 5 dimensions) = 2 x 2 x 3.
    const uint64_t multihead_attention_cells = 2 * 2 * 3;
    //   QUANTIZED_LINEAR_AVERAGE_POOLING, ranks 3..8 (dmlref's scope; its page: 4 and 5) by InputTensor's INT8, UINT8
    //     = 1 x 2 x 6.
    const uint64_t quantized_pooling_cells = 1 * 2 * 6;
    CHECK(none.scope == 7 * 11 * 6 + 2 * 11 * 7 + 35 * 11 * 8 + 4 * 11 * 8 + roi_align_cells +
                            element_wise_logic_cells + cast_cells + value_scale_2d_cells + activation_cells +
                            reduction_cells + cumulative_cells + indexing_cells + data_movement_cells +
                            convolution_cells + fill_cells + reverse_cells + unpooling_cells + element_wise_math_cells +
                            activation_math_cells + gemm_cells + diagonal_matrix_cells + upsample_2d_cells +
                            resample3_cells + roi_pooling_cells + mean_variance_normalization_cells +
                            lp_normalization_cells + softmax_cells + training_cells + quantization_cells +
                            recurrent_cells + lp_pooling_cells + quantized_linear_cells + quantize_cells + fold_cells +
                            multihead_attention_cells + quantized_pooling_cells);
    CHECK(scope_ranks(OperatorType::ROI_ALIGN_GRAD) == std::pair<uint32_t, uint32_t>{4, 4});
    CHECK(scope_type(OperatorType::ROI_ALIGN1, DataType::FLOAT16));
    CHECK_FALSE(scope_type(OperatorType::ROI_ALIGN1, DataType::FLOAT64));
    CHECK(scope_ranks(OperatorType::AVERAGE_POOLING_GRAD) == std::pair<uint32_t, uint32_t>{3, 8});
    CHECK(scope_ranks(OperatorType::LOCAL_RESPONSE_NORMALIZATION) == std::pair<uint32_t, uint32_t>{2, 8});
    // DirectML's ACTIVATION_RELU table: FLOAT32 at 1..8 dimensions from feature level 3.0; FLOAT64 never.
    CHECK(in_directml_tables(OperatorType::ACTIVATION_RELU, DataType::FLOAT32, 2));
    CHECK_FALSE(in_directml_tables(OperatorType::ACTIVATION_RELU, DataType::FLOAT64, 2));
    CHECK(scope_ranks(OperatorType::MAX_POOLING2) == std::pair<uint32_t, uint32_t>{3, 8});

    auto one = [](const std::string& text) {
        Diagnostics d;
        auto p = descriptor_to_planned(text, d);
        REQUIRE(p);
        auto g = gen::make_case(*p, {}, d);
        REQUIRE(g);
        return parsed(*g);
    };
    Coverage c;
    c.add(one("ACTIVATION_RELU FLOAT32 2x3"));
    CHECK(holes(c).scope == none.scope - 1);
    CHECK(holes(c).directml == none.directml - 1);
    c.add(one("ACTIVATION_RELU FLOAT64 2x3"));  // outside DirectML's tables: only the scope hole closes
    CHECK(holes(c).scope == none.scope - 2);
    CHECK(holes(c).directml == none.directml - 1);

    // 1x1x5x5, window 2, stride 2, StartPadding 2, ceil: (5 + 2 - 2) / 2 + 1 = 3, remainder 1 -> 4; the
    // first window covers only padding.
    const auto f = case_features(one("MAX_POOLING2 FLOAT32 1x1x5x5 w2x2 s2x2 p2,2,0,0 ceil"));
    for (const char* want : {"padding", "stride>1", "ceil-size", "all-padding-window", "indices-uint32"})
        CHECK(std::find(f.begin(), f.end(), want) != f.end());
    CHECK(std::find(f.begin(), f.end(), "dilation>1") == f.end());
    CHECK(std::find(f.begin(), f.end(), "overlapping-windows") == f.end());
    // The same geometry in the other pooling operators: the window at position 0 reads input
    // positions -2 and -1 only. It is a DontCare entry of max pooling, of average pooling without
    // IncludePadding (0 / 0; with it the divisor counts the padding), and sends nothing in either grad.
    auto padding_window = [&](const std::string& text) {
        const auto g = case_features(one(text));
        return std::find(g.begin(), g.end(), "all-padding-window") != g.end();
    };
    CHECK(padding_window("MAX_POOLING_GRAD FLOAT32 1x1x5x5 w2x2 s2x2 p2,2,0,0 ceil"));
    CHECK(padding_window("AVERAGE_POOLING1 FLOAT32 1x1x5x5 incpad=0 w2x2 s2x2 p2,2,0,0 ceil"));
    CHECK_FALSE(padding_window("AVERAGE_POOLING1 FLOAT32 1x1x5x5 incpad=1 w2x2 s2x2 p2,2,0,0 ceil"));
    CHECK(padding_window("AVERAGE_POOLING_GRAD FLOAT32 1x1x5x5 incpad=1 w2x2 s2x2 p2,2,0,0 ceil"));
    // StartPadding 1: the first window reads positions -1 and 0, a real element.
    CHECK_FALSE(padding_window("MAX_POOLING2 FLOAT32 1x1x5x5 w2x2 s2x2 p1,1,0,0"));
    CHECK_FALSE(padding_window("MAX_POOLING_GRAD FLOAT32 1x1x5x5 w2x2 s2x2 p1,1,0,0"));
    const auto s = case_features(one("SLICE1 INT8 5x6 s-2x1 ws4x6"));
    CHECK(std::find(s.begin(), s.end(), "negative-stride") != s.end());
    CHECK(coverage_html(c).find("</html>") != std::string::npos);
    CHECK(coverage_json(c).find("\"holes\"") != std::string::npos);
}

}  // namespace dmlref_test_gen
