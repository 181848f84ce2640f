// `dmlref diff` and the tolerance model, tested with planted failures: every expected count and
// location below comes from where the test planted the difference, never from the diff's output.
#include "support.hpp"

#include "dmlref/diff.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/tolerance.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace fs = std::filesystem;
using namespace dmlref;
using namespace dmlref::test;

namespace {

// A RELU golden: OutputTensor of `type` and `sizes` with `values` (JSON text of the list), the
// tolerance and DontCare given as JSON text, and optional output Strides.
std::string relu_golden(const std::string& type, const std::string& sizes, const std::string& values,
                        const std::string& tolerance = R"({"Kind": "Bits", "Why": "test"})", const std::string& dont_care = "",
                        const std::string& output_strides = "") {
    return R"({"format": 1, "name": "t", "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": ")" + type + R"(", "Sizes": )" + sizes + R"(},
                 "OutputTensor": {"DataType": ")" + type + R"(", "Sizes": )" + sizes +
           (output_strides.empty() ? "" : ", \"Strides\": " + output_strides) + R"(}},
        "inputs": {"InputTensor": {"Fill": 0}},
        "expected": {"OutputTensor": {"Values": )" + values + R"(, "Tolerance": )" + tolerance +
           (dont_care.empty() ? "" : ", \"DontCare\": " + dont_care) + "}}}";
}

Case parse(const std::string& text) {
    Diagnostics d;
    Case c = parse_case(parse_json_text(text), "golden.json", d);
    for (const auto& item : d.items()) INFO(format(item, "golden.json"));
    REQUIRE_FALSE(d.has_errors());
    return c;
}

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
        {"Ulp 2: 3 ULPs off", relu_golden("FLOAT32", "[4]", "[1, 2, 3, 4]", R"({"Kind": "Ulp", "Ulp": 2, "Why": "test"})"), 2,
         0x40400003, {2}},
        // Summed, 3 terms: bound 2.5 ULP of 1.0 = 5 steps of 2^-24 below 1.0; 6 steps is one ULP over.
        {"Summed: one ULP outside the bound", relu_golden("FLOAT32", "[2]", "[5, 1]", R"({"Kind": "Summed", "MaxTerms": 3, "Why": "test"})"), 1,
         0x3f800000 - 6, {1}},
        {"FLOAT16 Summed: one ULP outside the bound", relu_golden("FLOAT16", "[3]", "[0, 0, 1]", R"({"Kind": "Summed", "MaxTerms": 2, "Why": "test"})"),
         2, 0x3c00 - 4, {2}},
        {"an integer off by one", relu_golden("INT64", "[2, 2]", R"([1, 2, "-9223372036854775808", 4])"), 2, 0x8000000000000001, {1, 0}},
    };
}

using CensusFn = std::function<OutputCensus(const Case&, const std::string&, const std::vector<std::byte>&)>;

// The planted failures that `fn` does not report as exactly one element over tolerance at the
// planted place.
std::vector<std::string> missed(const CensusFn& fn) {
    std::vector<std::string> out;
    for (const auto& p : planted_failures()) {
        const Case c = parse(p.golden);
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
    const Case c = parse(relu_golden("FLOAT32", "[2, 3]", kFloat32Values));
    auto actual = planted(c, "OutputTensor", 0, 0x80000000);        // -0: over, 1 ULP, comparable
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
    const Case c = parse(relu_golden("FLOAT32", "[4]", "[1, 2, 3, 4]", R"({"Kind": "Ulp", "Ulp": 2, "Why": "test"})"));
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
        const Case c = parse(relu_golden("FLOAT32", "[2]", "[5, 1]", R"({"Kind": "Summed", "MaxTerms": 3, "Why": "test"})"));
        auto ok = [&](uint32_t bits) { return census(c, "OutputTensor", planted(c, "OutputTensor", 1, bits), {}).passed(); };
        CHECK(ok(0x3f800000 + 2));      // 2 ULP above: inside
        CHECK_FALSE(ok(0x3f800000 + 3));  // 3 ULP above: 0.5 ULP outside
        CHECK(ok(0x3f800000 - 5));      // 5 half-ULPs below 1.0: exactly at the bound
        CHECK_FALSE(ok(0x3f800000 - 6));  // one step more
    }
    SUBCASE("FLOAT16, 2 terms: 1.5 ULP of 1.0") {
        const Case c = parse(relu_golden("FLOAT16", "[3]", "[0, 0, 1]", R"({"Kind": "Summed", "MaxTerms": 2, "Why": "test"})"));
        auto ok = [&](uint16_t bits) { return census(c, "OutputTensor", planted(c, "OutputTensor", 2, bits), {}).passed(); };
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
        const Case c = parse(relu_golden("FLOAT32", "[2]", R"(["nan", "inf"])", R"({"Kind": "Summed", "MaxTerms": 2, "Why": "test"})"));
        CHECK(census(c, "OutputTensor", planted(c, "OutputTensor", 0, 0xffc12345), {}).passed());
        const OutputCensus r = census(c, "OutputTensor", planted(c, "OutputTensor", 1, 0x7f7fffff), {});
        CHECK(r.over == 1);
        CHECK(r.nonfinite_mismatches == 1);
    }
}

TEST_CASE("Summed per element: MAX_POOLING_GRAD's own term counts") {
    // cases/max_pooling/overlapping_windows_add.json: dX[5] = 1 + 3 (two terms), dX[11] = 2 + 4,
    // every other element receives no term (+0).
    const fs::path golden = fs::path(DMLREF_TEST_DATA).parent_path().parent_path() / "cases" / "max_pooling" / "overlapping_windows_add.json";
    Diagnostics d;
    const Case c = load_case(golden, d);
    REQUIRE_FALSE(d.has_errors());
    const uint32_t four = 0x40800000;
    CHECK(census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 5, four + 1), {}).passed());
    CHECK_FALSE(census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 5, four + 2), {}).passed());
    // An element with no term is bit for bit.
    const OutputCensus r = census(c, "OutputGradientTensor", planted(c, "OutputGradientTensor", 0, 0x00000001), {});
    CHECK(r.over == 1);
    CHECK(r.worst.at(0).coordinate == std::vector<uint64_t>{0, 0, 0, 0});
}

TEST_CASE("switches: +0/-0, any NaN, flushed subnormals; all off by default") {
    const Case c = parse(relu_golden("FLOAT32", "[2, 3]", kFloat32Values));
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
    CHECK_FALSE(census(c, "OutputTensor", planted(c, "OutputTensor", 4, 0x00000000), o).passed());  // 2.0 is not subnormal
}

TEST_CASE("don't-care elements are skipped and counted by reason") {
    const Case c = parse(relu_golden("INT32", "[5]", "[1, 2, 3, 4, 5]", R"({"Kind": "Bits", "Why": "test"})",
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
    const Case relu = parse(R"({"format": 1, "operator": "ACTIVATION_RELU_GRAD",
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

    const Case clip = parse(R"({"format": 1, "operator": "ELEMENT_WISE_CLIP_GRAD1",
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
    const Case clip = parse(R"({"format": 1, "operator": "ELEMENT_WISE_CLIP",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1]},
                 "Min": 0, "Max": 1, "ScaleBias": {"Scale": 2, "Bias": 1}},
        "inputs": {"InputTensor": [0.5]}})");
    CHECK(stated_tolerance(clip, "OutputTensor").Kind == "Ulp");
    CHECK(stated_tolerance(clip, "OutputTensor").Ulp == 1);
}

TEST_CASE("actual files: .npy, raw buffers with strides, case files; wrong shape, dtype, truncation") {
    Dir dir("diff-test-files");
    const std::string text = relu_golden("FLOAT32", "[2, 3]", "[1, 2, 3, 4, 5, 6]", R"({"Kind": "Bits", "Why": "test"})", "", "[4, 1]");
    write_text(dir / "golden.json", text);
    const Case c = parse(text);
    const TensorDesc& d = std::get<DML_ACTIVATION_RELU_OPERATOR_DESC>(c.op.Desc).OutputTensor;
    REQUIRE(buffer_size(d) == 28);  // (1*4 + 2*1 + 1) * 4 bytes

    SUBCASE("a raw buffer with strides: the gap bytes are ignored") {
        auto buffer = logical_buffer<float>(d, {1, 2, 3, 4, 5, 6}, std::byte{0xff});
        write_bytes(dir / "out.bin", buffer);
        CaseDiff r = diff_case(dir / "golden.json", dir / "out.bin", {});
        REQUIRE(r.errors.empty());
        CHECK(r.status() == CaseDiff::Status::Pass);
        CHECK(r.outputs.at(0).identical == 6);
        // Logical element [1,1] lives at buffer element 1*4 + 1 = 5.
        std::vector<float> v = as_values<float>(buffer);
        v[5] = 50;
        std::memcpy(buffer.data(), v.data(), buffer.size());
        write_bytes(dir / "out.bin", buffer);
        r = diff_case(dir / "golden.json", dir / "out.bin", {});
        CHECK(r.status() == CaseDiff::Status::Fail);
        CHECK(r.outputs.at(0).worst.at(0).coordinate == std::vector<uint64_t>{1, 1});
    }
    SUBCASE("a truncated raw buffer") {
        auto buffer = logical_buffer<float>(d, {1, 2, 3, 4, 5, 6});
        buffer.resize(27);  // the last logical element, [1,2], is buffer element 1*4 + 2 = 6: it ends at byte 28
        write_bytes(dir / "short.bin", buffer);
        const CaseDiff r = diff_case(dir / "golden.json", dir / "short.bin", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].find((dir / "short.bin").string() + ": truncated raw buffer") == 0);
        CHECK(r.errors[0].find("needs at least 28 bytes") != std::string::npos);
        CHECK(r.status() == CaseDiff::Status::Error);
        // Up to the last logical element is enough: 3 UINT8 need 3 bytes, though
        // TotalTensorSizeInBytes rounds up to 4.
        write_text(dir / "u8.json", relu_golden("UINT8", "[3]", "[7, 8, 9]"));
        write_bytes(dir / "u8.bin", {std::byte{7}, std::byte{8}, std::byte{9}});
        CHECK(diff_case(dir / "u8.json", dir / "u8.bin", {}).status() == CaseDiff::Status::Pass);
        buffer = logical_buffer<float>(d, {1, 2, 3, 4, 5, 6});
        buffer.resize(32);
        write_bytes(dir / "long.bin", buffer);
        CHECK(diff_case(dir / "golden.json", dir / "long.bin", {}).errors.at(0).find("more than the 28") != std::string::npos);
    }
    SUBCASE(".npy: the right one passes; wrong shape and wrong dtype are errors naming the file") {
        NpyArray a{DataType::FLOAT32, {2, 3}, {}};
        a.data.resize(24);
        const std::vector<float> v{1, 2, 3, 4, 5, 6};
        std::memcpy(a.data.data(), v.data(), 24);
        write_npy(dir / "ok.npy", a);
        CHECK(diff_case(dir / "golden.json", dir / "ok.npy", {}).status() == CaseDiff::Status::Pass);
        a.shape = {1, 2, 1, 3};  // dimensions of size 1 do not change the order
        write_npy(dir / "ok4.npy", a);
        CHECK(diff_case(dir / "golden.json", dir / "ok4.npy", {}).status() == CaseDiff::Status::Pass);
        a.shape = {3, 2};
        write_npy(dir / "shape.npy", a);
        CaseDiff r = diff_case(dir / "golden.json", dir / "shape.npy", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0] == (dir / "shape.npy").string() + ": wrong shape: the file's shape is (3, 2), the golden output's Sizes are [2,3]");
        NpyArray b{DataType::FLOAT64, {2, 3}, std::vector<std::byte>(48)};
        write_npy(dir / "dtype.npy", b);
        r = diff_case(dir / "golden.json", dir / "dtype.npy", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0] == (dir / "dtype.npy").string() +
                                 ": wrong dtype: the file holds <f8 (FLOAT64), the golden output's DataType is FLOAT32 (<f4)");
    }
    SUBCASE("a case file holding the outputs") {
        write_text(dir / "actual.json", relu_golden("FLOAT32", "[2, 3]", "[1, 2, 3, 4, 5, 7]"));
        CaseDiff r = diff_case(dir / "golden.json", dir / "actual.json", {});
        REQUIRE(r.errors.empty());
        CHECK(r.outputs.at(0).over == 1);
        CHECK(r.outputs.at(0).worst.at(0).index == 5);
        write_text(dir / "other.json", relu_golden("FLOAT16", "[2, 3]", "[1, 2, 3, 4, 5, 6]"));
        r = diff_case(dir / "golden.json", dir / "other.json", {});
        CHECK(r.errors.at(0).find("wrong dtype") != std::string::npos);
        write_text(dir / "other.json", relu_golden("FLOAT32", "[3, 2]", "[1, 2, 3, 4, 5, 6]"));
        r = diff_case(dir / "golden.json", dir / "other.json", {});
        CHECK(r.errors.at(0).find("wrong shape") != std::string::npos);
    }
}

TEST_CASE("npy: format 2.0 read; malformed headers are errors") {
    std::string h = "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }";
    while ((12 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string f = std::string("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i) f += char((h.size() >> (8 * i)) & 0xff);
    f += h + std::string("\x01\x00\xff\xff", 4);
    const NpyArray a = parse_npy(f, 1 << 20);
    CHECK(a.data_type == DataType::INT16);
    CHECK(a.shape == std::vector<uint64_t>{2});
    CHECK(load_bits(DataType::INT16, a.data.data() + 2) == 0xffff);
    auto error = [](const std::string& bytes) {
        try { parse_npy(bytes, 1 << 20); } catch (const NpyError& e) { return std::string(e.what()); }
        return std::string("no error");
    };
    CHECK(error(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17)) == "the file ends inside the header");
    CHECK(error(std::string("\x93NUMPY\x01\x00\x08\x00{'x': 1}", 18)) == "the header has no 'descr' entry");
}

TEST_CASE("directory mode matches cases by relative path and summarises them") {
    Dir dir("diff-test-dirs");
    const std::string values = "[1, 2, 3, 4, 5, 6]";
    write_text(dir / "golden/relu/a.json", relu_golden("FLOAT32", "[2, 3]", values));
    write_text(dir / "golden/relu/b.json", relu_golden("FLOAT32", "[2, 3]", values));
    write_text(dir / "golden/c.json", relu_golden("FLOAT32", "[2, 3]", values));
    write_text(dir / "golden/d.json", relu_golden("FLOAT32", "[2, 3]", values));
    NpyArray a{DataType::FLOAT32, {2, 3}, std::vector<std::byte>(24)};
    const std::vector<float> v{1, 2, 3, 4, 5, 6};
    std::memcpy(a.data.data(), v.data(), 24);
    fs::create_directories(dir / "actual/relu/a");
    write_npy(dir / "actual/relu/a/OutputTensor.npy", a);                                   // pass
    write_text(dir / "actual/relu/b.json", relu_golden("FLOAT32", "[2, 3]", "[1, 2, 3, 4, 5, 6.5]"));  // fail
    fs::create_directories(dir / "actual/d");                                              // d: an empty directory
    // c has no actual outputs at all.
    const DiffReport r = diff(dir / "golden", dir / "actual", {});
    REQUIRE(r.cases.size() == 4);
    CHECK(r.directory_mode);
    CHECK(r.cases[0].golden == dir / "golden/c.json");
    CHECK(r.cases[0].status() == CaseDiff::Status::Error);
    CHECK(r.cases[0].errors.at(0).find("no actual outputs") != std::string::npos);
    CHECK(r.cases[1].status() == CaseDiff::Status::Error);
    CHECK(r.cases[1].errors.at(0).find("holds neither OutputTensor.npy nor OutputTensor.bin") != std::string::npos);
    CHECK(r.cases[2].status() == CaseDiff::Status::Pass);
    CHECK(r.cases[3].status() == CaseDiff::Status::Fail);
    CHECK(r.cases[3].outputs.at(0).worst.at(0).index == 5);
    CHECK(r.exit_code() == 2);
    const std::string text = report_text(r);
    CHECK(text.find("4 cases: 1 passed, 1 failed, 2 errors") != std::string::npos);
    const auto j = nlohmann::json::parse(report_json(r));
    CHECK(j["summary"]["exit_code"] == 2);
    CHECK(j["cases"][3]["status"] == "fail");
    CHECK(j["cases"][3]["outputs"][0]["over"] == 1);
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["coordinate"] == nlohmann::json::array({1, 2}));
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["golden_bits"] == "0x40c00000");
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["actual"] == "6.5");
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["ulp_distance"] == 0x40d00000 - 0x40c00000);
}

TEST_CASE("run_diff: exit codes 0, 1, 2, the JSON report and the picture") {
    Dir dir("diff-test-exit");
    write_text(dir / "golden.json", relu_golden("UINT8", "[2, 2]", "[1, 2, 3, 4]"));
    write_bytes(dir / "same.bin", {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}});
    write_bytes(dir / "off.bin", {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{5}});
    write_bytes(dir / "short.bin", {std::byte{1}, std::byte{2}, std::byte{3}});
    auto run_with = [&](DiffCommand cmd, const std::string& actual, std::string* err_text) {
        cmd.golden = dir / "golden.json";
        cmd.actual = actual.empty() ? fs::path() : dir / actual;
        std::ostringstream out, err;
        const int code = run_diff(cmd, out, err);
        if (err_text) *err_text = err.str();
        return code;
    };
    auto run = [&](const std::string& actual, std::string* err_text = nullptr) { return run_with(DiffCommand{}, actual, err_text); };
    CHECK(run("same.bin") == 0);
    CHECK(run("off.bin") == 1);
    std::string err;
    CHECK(run("short.bin", &err) == 2);
    CHECK(err.find((dir / "short.bin").string() + ": truncated raw buffer") != std::string::npos);
    CHECK(run("missing.bin", &err) == 2);
    CHECK(err.find((dir / "missing.bin").string() + ": no such file") != std::string::npos);
    CHECK(run("") == 2);
    DiffCommand named;
    named.options.files["OutputTensor"] = dir / "same.bin";
    CHECK(run_with(named, "", nullptr) == 0);
    named.options.files["NoSuchOutput"] = dir / "same.bin";
    CHECK(run_with(named, "", nullptr) == 2);
    write_text(dir / "bad.json", "{\"format\": 1");
    {
        DiffCommand cmd;
        cmd.golden = dir / "bad.json";
        cmd.actual = dir / "same.bin";
        std::ostringstream out, e;
        CHECK(run_diff(cmd, out, e) == 2);
        CHECK(e.str().find((dir / "bad.json").string()) != std::string::npos);
    }
    DiffCommand pic;
    pic.image = dir / "where.ppm";
    pic.json_file = dir / "report.json";
    CHECK(run_with(pic, "off.bin", nullptr) == 1);
    std::ifstream in(dir / "where.ppm", std::ios::binary);
    std::string header;
    std::getline(in, header);
    CHECK(header == "P6");
    std::string size_line;
    std::getline(in, size_line);
    CHECK(size_line == "64 64");  // 2 x 2 elements, scaled up 32 times (the most)
    std::string max_line;
    std::getline(in, max_line);
    std::vector<unsigned char> px(size_t(64 * 64 * 3));
    in.read(reinterpret_cast<char*>(px.data()), std::streamsize(px.size()));
    auto at = [&](size_t x, size_t y) { return std::array<int, 3>{px[(y * 64 + x) * 3], px[(y * 64 + x) * 3 + 1], px[(y * 64 + x) * 3 + 2]}; };
    CHECK(at(0, 0) == std::array<int, 3>{96, 96, 96});     // [0,0] identical: grey
    CHECK(at(63, 63) == std::array<int, 3>{230, 0, 0});  // [1,1] over: red
    const auto j = nlohmann::json::parse(std::ifstream(dir / "report.json"));
    CHECK(j["summary"]["exit_code"] == 1);
    CHECK(j["cases"][0]["outputs"][0]["worst"][0]["index"] == 3);
    pic.image = dir / "where.png";
    CHECK(run_with(pic, "off.bin", nullptr) == 1);
    std::ifstream png(dir / "where.png", std::ios::binary);
    std::string sig(8, '\0');
    png.read(sig.data(), 8);
    CHECK(sig == "\x89PNG\r\n\x1a\n");
}
