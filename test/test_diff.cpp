// `dmlref diff`'s judgement and the tolerance model (census, Ulp and Summed bounds, switches,
// don't-care and boundary elements, the tolerance table), tested with planted failures: every
// expected count and location below comes from where the test planted the difference, never from
// the diff's output. Files, directories and reports: test_diff_files.cpp.
#include "support.hpp"

#include "dmlref/diff.hpp"
#include "dmlref/tolerance.hpp"

#include <filesystem>
#include <functional>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_diff {

namespace fs = std::filesystem;
using namespace dmlref;
using namespace dmlref::test;

namespace {

// The golden's values with element `index` replaced by `bits`.
std::vector<std::byte> planted(const Case& c, const std::string& output, uint64_t index, uint64_t bits) {
    std::vector<std::byte> v = c.expected.at(output).values;
    DataType t = DataType::UNKNOWN;
    for (const auto& f : tensor_fields(c.op))
        if (f.name == output) t = f.desc->DataType;
    store_bits(t, v.data() + index * element_size(t), bits);
    return v;
}

const char* kFloat32Values = R"([0.0, 1.5, "0x7fc00001", 3.4028234663852886e38, 2.0, "0x00000001"])";

// One planted difference and where it must be found.
struct Planted {
    std::string what;
    std::string golden;
    uint64_t index;
    uint64_t actual_bits;
    std::vector<uint64_t> coordinate;
};

std::vector<Planted> planted_failures() {
    const std::string bits32 = relu_golden("FLOAT32", "[2, 3]", kFloat32Values);
    return {
        {"-0 for +0", bits32, 0, 0x80000000, {0, 0}},
        {"a changed NaN payload where bits are required", bits32, 2, 0x7fc00000, {0, 2}},
        {"1 ULP off", bits32, 4, 0x40000001, {1, 1}},
        {"an infinity for the largest finite value", bits32, 3, 0x7f800000, {1, 0}},
        {"a subnormal flushed to zero", bits32, 5, 0x00000000, {1, 2}},
        {"Ulp 2: 3 ULPs off",
         relu_golden("FLOAT32", "[4]", "[1, 2, 3, 4]", R"({"Kind": "Ulp", "Ulp": 2, "Why": "test"})"),
         2,
         0x40400003,
         {2}},
        // Summed, 3 terms: bound 2.5 ULP of 1.0 = 5 steps of 2^-24 below 1.0; 6 steps is one ULP over.
        {"Summed: one ULP outside the bound",
         relu_golden("FLOAT32", "[2]", "[5, 1]", R"({"Kind": "Summed", "MaxTerms": 3, "Why": "test"})"),
         1,
         0x3f800000 - 6,
         {1}},
        {"FLOAT16 Summed: one ULP outside the bound",
         relu_golden("FLOAT16", "[3]", "[0, 0, 1]", R"({"Kind": "Summed", "MaxTerms": 2, "Why": "test"})"),
         2,
         0x3c00 - 4,
         {2}},
        {"an integer off by one",
         relu_golden("INT64", "[2, 2]", R"([1, 2, "-9223372036854775808", 4])"),
         2,
         0x8000000000000001,
         {1, 0}},
    };
}

using CensusFn = std::function<OutputCensus(const Case&, const std::string&, const std::vector<std::byte>&)>;

// The planted failures that `fn` does not report as exactly one element over tolerance at the
// planted place.
std::vector<std::string> missed(const CensusFn& fn) {
    std::vector<std::string> out;
    for (const auto& p : planted_failures()) {
        const Case c = parse_valid(p.golden);
        const OutputCensus r = fn(c, "OutputTensor", planted(c, "OutputTensor", p.index, p.actual_bits));
        const bool caught = r.over == 1 && !r.passed() && !r.worst.empty() && r.worst[0].index == p.index &&
                            r.worst[0].coordinate == p.coordinate && r.worst[0].judgement.verdict == Verdict::Over &&
                            r.identical + r.within + r.over == r.elements;
        if (!caught) out.push_back(p.what);
    }
    return out;
}

OutputCensus real_census(const Case& c, const std::string& output, const std::vector<std::byte>& actual) {
    return census(c, output, actual, DiffOptions{});
}

}  // namespace

TEST_CASE("every planted failure is reported, with its count and location") {
    const auto m = missed(real_census);
    for (const auto& what : m) INFO("missed: " << what);
    CHECK(m.empty());
}

TEST_CASE("a permissive comparator would fail the planted-failure check") {
    // A diff that passes everything: every element identical. The check above must catch it.
    const CensusFn permissive = [](const Case& c, const std::string& output, const std::vector<std::byte>& actual) {
        OutputCensus r = census(c, output, c.expected.at(output).values, DiffOptions{});
        (void)actual;
        return r;
    };
    CHECK(missed(permissive).size() == planted_failures().size());
    // And one that compares values with ==, which calls -0 equal to +0 and misses NaN payloads.
    const CensusFn by_value = [](const Case& c, const std::string& output, const std::vector<std::byte>& actual) {
        DiffOptions o;
        o.switches.zeros_equal = o.switches.any_nan = o.switches.flushed_subnormals = true;
        return census(c, output, actual, o);
    };
    const auto m = missed(by_value);
    CHECK(std::find(m.begin(), m.end(), "-0 for +0") != m.end());
    CHECK(std::find(m.begin(), m.end(), "a changed NaN payload where bits are required") != m.end());
    CHECK(std::find(m.begin(), m.end(), "a subnormal flushed to zero") != m.end());
}

TEST_CASE("the census counts each kind of element") {
    const Case c = parse_valid(relu_golden("FLOAT32", "[2, 3]", kFloat32Values));
    auto actual = planted(c, "OutputTensor", 0, 0x80000000);           // -0: over, 1 ULP, comparable
    store_bits(DataType::FLOAT32, actual.data() + 2 * 4, 0xffc00001);  // NaN sign: over, non-finite
    const OutputCensus r = census(c, "OutputTensor", actual, DiffOptions{});
    CHECK(r.elements == 6);
    CHECK(r.identical == 4);
    CHECK(r.within == 0);
    CHECK(r.over == 2);
    CHECK(r.nonfinite_mismatches == 1);
    CHECK(r.histogram[0] == 4);
    CHECK(r.histogram[1] == 1);
    CHECK(r.histogram[kHistogramBins - 1] == 1);
    REQUIRE(r.worst.size() == 2);
    CHECK(r.worst[0].index == 2);  // non-comparable first
    CHECK(r.worst[1].index == 0);
    CHECK(r.boundary.at("Subnormal").elements == 1);  // the golden's subnormal at index 5
    CHECK(r.boundary.at("Subnormal").over == 0);
}

TEST_CASE("Ulp tolerance: at the bound passes, one past fails") {
    const Case c = parse_valid(
        relu_golden("FLOAT32", "[4]", "[1, 2, 3, 4]", R"({"Kind": "Ulp", "Ulp": 2, "Why": "test"})"));
    CHECK(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0x40400002), {}).passed());
    CHECK(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0x40400000 - 2), {}).passed());
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0x40400000 - 3), {}).passed());
    // Across zero: -0 sits one below +0, so 1e-45 against -1e-45 is 3 ULPs (2 under --zeros-equal).
    CHECK(ulp_distance(DataType::FLOAT32, 0x00000001, 0x80000001, false) == 3);
    CHECK(ulp_distance(DataType::FLOAT32, 0x00000001, 0x80000001, true) == 2);
    CHECK(ulp_distance(DataType::FLOAT32, 0x00000000, 0x80000000, false) == 1);
    CHECK(ulp_distance(DataType::INT64, 0x8000000000000000, 0x7fffffffffffffff, false) == 0xffffffffffffffff);
    CHECK(ulp_distance(DataType::UINT8, 0, 255, false) == 255);
}

TEST_CASE("Summed tolerance: (terms - 1/2) ULP of the golden, both sides of the bound") {
    SUBCASE("FLOAT32, 3 terms: 2.5 ULP of 1.0") {
        const Case c = parse_valid(
            relu_golden("FLOAT32", "[2]", "[5, 1]", R"({"Kind": "Summed", "MaxTerms": 3, "Why": "test"})"));
        auto ok = [&](uint32_t bits) {
            return census(c, "OutputTensor", planted(c, "OutputTensor", 1, bits), {}).passed();
        };
        CHECK(ok(0x3f800000 + 2));        // 2 ULP above: inside
        CHECK_FALSE(ok(0x3f800000 + 3));  // 3 ULP above: 0.5 ULP outside
        CHECK(ok(0x3f800000 - 5));        // 5 half-ULPs below 1.0: exactly at the bound
        CHECK_FALSE(ok(0x3f800000 - 6));  // one step more
    }
    SUBCASE("FLOAT16, 2 terms: 1.5 ULP of 1.0") {
        const Case c = parse_valid(
            relu_golden("FLOAT16", "[3]", "[0, 0, 1]", R"({"Kind": "Summed", "MaxTerms": 2, "Why": "test"})"));
        auto ok = [&](uint16_t bits) {
            return census(c, "OutputTensor", planted(c, "OutputTensor", 2, bits), {}).passed();
        };
        CHECK(ok(0x3c01));
        CHECK_FALSE(ok(0x3c02));
        CHECK(ok(0x3c00 - 3));  // at the bound
        CHECK_FALSE(ok(0x3c00 - 4));
    }
    SUBCASE("FLOAT64, 2 terms, and the exact decision (TwoSum) at the bound") {
        CHECK(within_summed_bound(DataType::FLOAT64, 0x3ff0000000000000, 0x3ff0000000000000 - 3, 2));
        CHECK_FALSE(within_summed_bound(DataType::FLOAT64, 0x3ff0000000000000, 0x3ff0000000000000 - 4, 2));
        CHECK(within_summed_bound(DataType::FLOAT64, 0x3ff0000000000000, 0x3ff0000000000001, 2));
        CHECK_FALSE(within_summed_bound(DataType::FLOAT64, 0x3ff0000000000000, 0x3ff0000000000002, 2));
        // Golden 1.5 * 2^60 (ULP 2^8), 2^51 + 1 terms: the bound is 2^59 + 2^7. 2^60 - 2^7 is exactly
        // at it, the next double below (2^60 - 2^8) one step outside.
        const uint64_t g = 0x43b8000000000000, k = (uint64_t(1) << 51) + 1;
        CHECK(within_summed_bound(DataType::FLOAT64, g, 0x43afffffffffffff, k));
        CHECK_FALSE(within_summed_bound(DataType::FLOAT64, g, 0x43affffffffffffe, k));
        // Far apart: a - g is rounded in double (2^-1074 against 2^60) and still decided right.
        CHECK(within_summed_bound(DataType::FLOAT64, 0x43b0000000000000, 0x0000000000000001, (uint64_t(1) << 52) + 1));
        CHECK_FALSE(within_summed_bound(DataType::FLOAT64, 0x43b0000000000000, 0x0000000000000001, uint64_t(1) << 52));
    }
    SUBCASE("a zero golden: the smallest subnormal is the ULP") {
        CHECK(within_summed_bound(DataType::FLOAT32, 0, 0x00000001, 2));
        CHECK_FALSE(within_summed_bound(DataType::FLOAT32, 0, 0x00000002, 2));
    }
    SUBCASE("NaN golden of a sum matches any NaN; infinities must match") {
        const Case c = parse_valid(
            relu_golden("FLOAT32", "[2]", R"(["nan", "inf"])", R"({"Kind": "Summed", "MaxTerms": 2, "Why": "test"})"));
        CHECK(census(c, "OutputTensor", planted(c, "OutputTensor", 0, 0xffc12345), {}).passed());
        const OutputCensus r = census(c, "OutputTensor", planted(c, "OutputTensor", 1, 0x7f7fffff), {});
        CHECK(r.over == 1);
        CHECK(r.nonfinite_mismatches == 1);
    }
}

TEST_CASE("Summed per element: MAX_POOLING_GRAD's own term counts") {
    // cases/max_pooling/overlapping_windows_add.json: dX[5] = 1 + 3 (two terms), dX[11] = 2 + 4,
    // every other element receives no term (+0).
    const fs::path golden = fs::path(DMLREF_TEST_DATA).parent_path().parent_path() / "cases" / "max_pooling" /
                            "overlapping_windows_add.json";
    Diagnostics d;
    const Case c = load_case(golden, d);
    REQUIRE_FALSE(d.has_errors());
    // 1 + 3 = 4 in every order, and the golden is that exact sum: its bound, gamma_1(2^-24) * 4 plus
    // 2^-53 * 4, is under one ULP of 4 (2^-21), so one ULP off fails, as do two.
    const uint32_t four = 0x40800000;
    CHECK(census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 5, four), {}).passed());
    CHECK_FALSE(census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 5, four + 1), {}).passed());
    CHECK_FALSE(census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 5, four + 2), {}).passed());
    // An element with no term is bit for bit.
    const OutputCensus r = census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 0, 0x00000001), {});
    CHECK(r.over == 1);
    CHECK(r.worst.at(0).coordinate == std::vector<uint64_t>{0, 0, 0, 0});
}

TEST_CASE("switches: +0/-0, any NaN, flushed subnormals; all off by default") {
    const Case c = parse_valid(relu_golden("FLOAT32", "[2, 3]", kFloat32Values));
    DiffOptions o;
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 0, 0x80000000), o).passed());
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0x7fc00000), o).passed());
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 5, 0x00000000), o).passed());
    o.switches.zeros_equal = true;
    CHECK(census(c, "OutputTensor", planted(c, "OutputTensor", 0, 0x80000000), o).passed());
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0x7fc00000), o).passed());
    o.switches = {};
    o.switches.any_nan = true;
    CHECK(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0xfff00001), o).passed());
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 2, 0x7f800000), o).passed());  // inf is not NaN
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 0, 0x80000000), o).passed());
    o.switches = {};
    o.switches.flushed_subnormals = true;
    const OutputCensus r = census(c, "OutputTensor", planted(c, "OutputTensor", 5, 0x00000000), o);
    CHECK(r.passed());
    CHECK(r.within == 1);
    CHECK(r.flushed_subnormals == 1);
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 5, 0x80000000), o).passed());  // the other sign
    CHECK_FALSE(
        census(c, "OutputTensor", planted(c, "OutputTensor", 4, 0x00000000), o).passed());  // 2.0 is not subnormal
}

TEST_CASE("don't-care elements are skipped and counted by reason") {
    const Case c = parse_valid(relu_golden(
        "INT32", "[5]", "[1, 2, 3, 4, 5]", R"({"Kind": "Bits", "Why": "test"})",
        R"([{"Index": 1, "Reason": "EmptyWindow"}, {"Index": 3, "Reason": "EmptyWindow"}, {"Index": 4, "Reason": "Other"}])"));
    auto actual = planted(c, "OutputTensor", 1, 99);
    store_bits(DataType::INT32, actual.data() + 3 * 4, 77);
    OutputCensus r = census(c, "OutputTensor", actual, {});
    CHECK(r.passed());
    CHECK(r.skipped.at("EmptyWindow") == 2);
    CHECK(r.skipped.at("Other") == 1);
    CHECK(r.identical == 2);
    CHECK(r.verdicts[1] == Verdict::Skipped);
    store_bits(DataType::INT32, actual.data() + 2 * 4, 4);  // a cared-for element
    r = census(c, "OutputTensor", actual, {});
    CHECK(r.over == 1);
    CHECK(r.worst.at(0).index == 2);
}

TEST_CASE("boundary elements are flagged: ReluGrad at zero, ClipGrad at Min or Max") {
    const Case relu = parse_valid(R"({"format": 1, "operator": "ACTIVATION_RELU_GRAD",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [4]},
                 "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [4]}},
        "inputs": {"InputTensor": [1, 0, -0.0, -1], "InputGradientTensor": [5, 6, 7, 8]},
        "expected": {"OutputGradientTensor": {"Values": [5, 0, 0, 0]}}})");
    // A backend that reads x >= 0 passes dY at x = 0: flagged, and still over tolerance.
    auto actual = planted(relu, "OutputGradientTensor", 1, 0x40c00000);  // 6
    const OutputCensus r = census(relu, "OutputGradientTensor", actual, {});
    CHECK(r.over == 1);
    CHECK(r.boundary.at("ReluGradAtZero").elements == 2);
    CHECK(r.boundary.at("ReluGradAtZero").over == 1);
    CHECK(r.worst.at(0).boundary == "ReluGradAtZero");

    const Case clip = parse_valid(R"({"format": 1, "operator": "ELEMENT_WISE_CLIP_GRAD1",
        "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [5]}, "InputGradientTensor": {"DataType": "INT8", "Sizes": [5]},
                 "OutputGradientTensor": {"DataType": "INT8", "Sizes": [5]}, "MinMaxDataType": "INT8", "Min": -2, "Max": 3},
        "inputs": {"InputTensor": [-3, -2, 0, 3, 4], "InputGradientTensor": [1, 1, 1, 1, 1]},
        "expected": {"OutputGradientTensor": {"Values": [0, 0, 1, 0, 0]}}})");
    const auto flags = boundary_elements(clip, "OutputGradientTensor", clip.expected.at("OutputGradientTensor").values);
    REQUIRE(flags.size() == 2);
    CHECK(flags[0].Index == 1);
    CHECK(flags[1].Index == 3);
}

TEST_CASE("the tolerance table has a row for every output of every operator, and states what goldens record") {
    for (const auto& i : all_operators()) {
        const Operator op = make_operator(i.Type);
        for (const auto& f : tensor_fields(op)) {
            if (f.role != TensorRole::Output) continue;
            for (DataType t : kAllDataTypes) {
                bool found = false;
                for (const auto& row : tolerance_table())
                    found = found || (row.op == i.Type && row.output == f.name &&
                                      (row.types == TypeClass::Any || (row.types == TypeClass::Float) == is_float(t)));
                INFO(i.Name << " " << f.name << " " << name(t));
                CHECK(found);
            }
        }
    }
    const Case clip = parse_valid(R"({"format": 1, "operator": "ELEMENT_WISE_CLIP",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1]},
                 "Min": 0, "Max": 1, "ScaleBias": {"Scale": 2, "Bias": 1}},
        "inputs": {"InputTensor": [0.5]}})");
    CHECK(stated_tolerance(clip, "OutputTensor").Kind == "Ulp");
    CHECK(stated_tolerance(clip, "OutputTensor").Ulp == 1);
}

}  // namespace dmlref_test_diff
