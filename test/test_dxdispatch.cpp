// DxDispatch interop: models written here in DxDispatch's format (docs/dxdispatch.md), with the
// bits DxDispatch would upload worked out by hand or by the test's own float arithmetic; and the
// bundled cases exported and imported back, bit for bit.
#include "support.hpp"
#include "test_tier.hpp"

#include "dmlref/descs/padding.hpp"
#include "dmlref/dxdispatch.hpp"
#include "dmlref/npy.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_dxdispatch {

namespace fs = std::filesystem;
using namespace dmlref;
using namespace dmlref::test;

namespace {

struct Imported {
    Diagnostics diags;
    std::string text;
    Case c;
};

Imported import_text(const Dir& dir, const std::string& model, const DxImportOptions& o = {}) {
    const fs::path file = dir / "model.json";
    std::ofstream(file, std::ios::binary) << model;
    Imported r;
    r.text = import_dxdispatch(file, r.diags, o);
    for (const auto& item : r.diags.items()) INFO(format(item, "model.json"));
    if (!r.text.empty()) {
        Diagnostics d;
        r.c = parse_case(parse_json_text(r.text), dir / "case.json", d);
        REQUIRE_FALSE(d.has_errors());
    }
    return r;
}

bool has_rule(const Diagnostics& d, const std::string& rule, const std::string& path) {
    for (const auto& item : d.items()) {
        INFO(format(item, "model.json"));
        if (item.rule == rule && item.path == path) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("import: DxDispatch's example clip, in place, with comments, a trailing comma and NaN/Inf spellings") {
    Dir dir("dxdispatch-test-clip");
    const Imported r = import_text(dir, R"({
        "$schema": "./_schema.json",
        // DxDispatch allows comments and trailing commas
        "resources": { "A": { "initialValuesDataType": "FLOAT32",
                              "initialValues": [-4, -3, -2, -1, 0, 1, 2, 3, 4, "NaN", "Inf", "-Inf"], } },
        "dispatchables": { "clip": { "type": "DML_OPERATOR_ELEMENT_WISE_CLIP",
            "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [12] },
                      "OutputTensor": { "DataType": "FLOAT32", "Sizes": [12] },
                      "Min": -2.5, "Max": 2.5 } } },
        "commands": [ { "type": "dispatch", "dispatchable": "clip", "bindings": { "InputTensor": "A", "OutputTensor": "A" } },
                      { "type": "print", "resource": "A" } ]
    })");
    REQUIRE_FALSE(r.diags.has_errors());
    CHECK(r.c.op.Type == OperatorType::ELEMENT_WISE_CLIP);
    CHECK(r.c.in_place == std::map<std::string, std::string>{{"OutputTensor", "InputTensor"}});
    const std::vector<uint32_t> expected_bits{0xc0800000, 0xc0400000, 0xc0000000, 0xbf800000, 0,          0x3f800000,
                                              0x40000000, 0x40400000, 0x40800000, 0x7fc00000, 0x7f800000, 0xff800000};
    check_bits(as_values<uint32_t>(r.c.inputs.at("InputTensor")), expected_bits);
    // The author's numbers stay as written; DxDispatch's NaN spellings become dmlref's.
    const auto j = nlohmann::json::parse(r.text);
    CHECK(j["inputs"]["InputTensor"][0].dump() == "-4");
    CHECK(j["inputs"]["InputTensor"][9] == "nan");
    CHECK(j["inputs"]["InputTensor"][11] == "-inf");
    // Clipped to [-2.5, 2.5] by hand.
    const auto out = as_values<float>(run_case(r.c).values.at("OutputTensor"));
    const std::vector<float> clipped{-2.5f, -2.5f, -2, -1, 0, 1, 2, 2.5f, 2.5f};
    for (size_t i = 0; i < clipped.size(); ++i) CHECK(out[i] == clipped[i]);
    CHECK(out[10] == 2.5f);
    CHECK(out[11] == -2.5f);
}

TEST_CASE("import: sequences accumulate in the element type, as DxDispatch's value += valueDelta does") {
    Dir dir("dxdispatch-test-sequence");
    auto model = [](const std::string& type, const std::string& init, const std::string& sizes) {
        return R"({"resources": {"x": {"initialValuesDataType": ")" + type + R"(", "initialValues": )" + init + R"(},
                                 "y": {"initialValuesDataType": ")" +
               type + R"(", "initialValues": {"valueCount": 12, "value": 0}}},
                  "dispatchables": {"relu": {"type": "ACTIVATION_RELU", "desc": {
                      "InputTensor": {"DataType": ")" +
               type + R"(", "Sizes": )" + sizes + R"(},
                      "OutputTensor": {"DataType": ")" +
               type + R"(", "Sizes": )" + sizes + R"(}}}},
                  "commands": [{"type": "dispatch", "dispatchable": "relu", "bindings": {"InputTensor": "x", "OutputTensor": "y"}}]})";
    };
    SUBCASE("FLOAT32 step 0.1: float sums, not Start + i * Step; the case lists the values") {
        const Imported r = import_text(
            dir, model("FLOAT32", R"({"valueCount": 12, "valueStart": 0, "valueDelta": 0.1})", "[12]"));
        REQUIRE_FALSE(r.diags.has_errors());
        std::vector<float> expected;
        float v = 0, step = static_cast<float>(0.1);  // the test's own accumulation in float
        for (int i = 0; i < 12; ++i) {
            expected.push_back(v);
            v += step;
        }
        check_bits(as_values<float>(r.c.inputs.at("InputTensor")), expected);
        // Accumulated float sums drift from the once-rounded Start + i * Step, so no Iota stands for them.
        bool differs = false;
        for (int i = 0; i < 12; ++i)
            differs = differs || to_bits(expected[i]) != to_bits(float(double(i) * double(step)));
        CHECK(differs);
        CHECK(nlohmann::json::parse(r.text)["inputs"]["InputTensor"].is_array());
    }
    SUBCASE("an exact step is dmlref's Iota, written as one") {
        const Imported r = import_text(
            dir, model("FLOAT32", R"({"valueCount": 6, "valueStart": 1, "valueDelta": 1})", "[6]"));
        REQUIRE_FALSE(r.diags.has_errors());
        check_bits(as_values<float>(r.c.inputs.at("InputTensor")), std::vector<float>{1, 2, 3, 4, 5, 6});
        const auto j = nlohmann::json::parse(r.text);
        CHECK(j["inputs"]["InputTensor"] == nlohmann::json::parse(R"({"Iota": {"Start": 1, "Step": 1}})"));
    }
    SUBCASE("INT8 wraps past 127") {
        const Imported r = import_text(
            dir, model("INT8", R"({"valueCount": 4, "valueStart": 120, "valueDelta": 5})", "[4]"));
        REQUIRE_FALSE(r.diags.has_errors());
        check_bits(as_values<int8_t>(r.c.inputs.at("InputTensor")), std::vector<int8_t>{120, 125, -126, -121});
    }
    SUBCASE("a constant is a Fill") {
        const Imported r = import_text(dir, model("FLOAT16", R"({"valueCount": 4, "value": -1.5})", "[4]"));
        REQUIRE_FALSE(r.diags.has_errors());
        check_bits(as_values<uint16_t>(r.c.inputs.at("InputTensor")),
                   std::vector<uint16_t>{0xbe00, 0xbe00, 0xbe00, 0xbe00});
        CHECK(nlohmann::json::parse(r.text)["inputs"]["InputTensor"] == nlohmann::json::parse(R"({"Fill": -1.5})"));
    }
    SUBCASE("a FLOAT32 decimal that rounds differently through a double keeps DxDispatch's bits") {
        // 1 + 2^-24 + 2^-60: once to float it rounds up (above the tie), but the nearest double is
        // 1 + 2^-24 exactly, a tie that rounds to even: 1.0f. DxDispatch uploads 1.0f.
        const Imported r = import_text(dir, model("FLOAT32", R"([1.000000059604644776130808278997, 2])", "[2]"));
        REQUIRE_FALSE(r.diags.has_errors());
        check_bits(as_values<uint32_t>(r.c.inputs.at("InputTensor")), std::vector<uint32_t>{0x3f800000, 0x40000000});
        CHECK(has_rule(r.diags, "dxdispatch.rounding", "/dispatchables/relu/desc"));
    }
}

TEST_CASE("import: CLIP1 with a FLOAT16 scalar union, as in DxDispatch's dml_scalar_union_fp16.json") {
    Dir dir("dxdispatch-test-clip1");
    const Imported r = import_text(dir, R"({
        "resources": {
            "input": { "initialValuesDataType": "FLOAT16", "initialValues": { "valueCount": 5, "valueStart": 1, "valueDelta": 1 } },
            "output": { "initialValuesDataType": "FLOAT16", "initialValues": { "valueCount": 5, "value": 0 } } },
        "dispatchables": { "clip": { "type": "DML_OPERATOR_ELEMENT_WISE_CLIP1", "desc": {
            "InputTensor": { "DataType": "FLOAT16", "Sizes": [5] }, "OutputTensor": { "DataType": "FLOAT16", "Sizes": [5] },
            "MinMaxDataType": "FLOAT16", "Min": 2, "Max": { "UInt16": 17408 } } } },
        "commands": [ { "type": "dispatch", "dispatchable": "clip", "bindings": { "InputTensor": "input", "OutputTensor": "output" } } ]
    })");
    REQUIRE_FALSE(r.diags.has_errors());
    // 1..5 clipped to [2, 4] (0x4400 = 4.0): 2 2 3 4 4.
    check_bits(as_values<uint16_t>(run_case(r.c).values.at("OutputTensor")),
               std::vector<uint16_t>{0x4000, 0x4000, 0x4200, 0x4400, 0x4400});
    // The desc keeps the author's notation: the member object stays one.
    CHECK(nlohmann::json::parse(r.text)["desc"]["Max"] == nlohmann::json::parse(R"({"UInt16": 17408})"));
}

TEST_CASE("import: what cannot be read is an error naming the model's JSON path and rule") {
    Dir dir("dxdispatch-test-errors");
    SUBCASE("no DirectML dispatchable dmlref evaluates") {
        const Imported r = import_text(
            dir,
            R"({"resources": {}, "dispatchables": {"add": {"type": "hlsl", "sourcePath": "a.hlsl"}}, "commands": []})");
        CHECK(r.text.empty());
        CHECK(has_rule(r.diags, "dxdispatch.dispatchable", "/dispatchables"));
    }
    SUBCASE("a NaN for an integer type") {
        const Imported r = import_text(
            dir, R"({"resources": {"x": {"initialValuesDataType": "INT32", "initialValues": [1, "NaN"]},
            "y": {"initialValuesDataType": "INT32", "initialValues": {"valueCount": 2, "value": 0}}},
            "dispatchables": {"relu": {"type": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "INT32", "Sizes": [2]},
                                                                          "OutputTensor": {"DataType": "INT32", "Sizes": [2]}}}},
            "commands": [{"type": "dispatch", "dispatchable": "relu", "bindings": {"InputTensor": "x", "OutputTensor": "y"}}]})");
        CHECK(r.text.empty());
        CHECK(has_rule(r.diags, "dxdispatch.value", "/resources/x/initialValues/1"));
    }
    SUBCASE("a resource smaller than the tensor it is bound to") {
        const Imported r = import_text(
            dir, R"({"resources": {"x": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2]}},
            "dispatchables": {"relu": {"type": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
                                                                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}}}},
            "commands": [{"type": "dispatch", "dispatchable": "relu", "bindings": {"InputTensor": "x", "OutputTensor": "x"}}]})");
        CHECK(r.text.empty());
        CHECK(has_rule(r.diags, "dxdispatch.binding", "/commands/0/bindings/InputTensor"));
    }
    SUBCASE("an elementOffset whose byte offset passes 2^64 is refused, not wrapped to byte 0") {
        // 2^62 FLOAT32 elements are 2^64 bytes: modulo 2^64 that is byte 0, where the resource's
        // first two values would have been read as the input.
        const Imported r = import_text(
            dir, R"({"resources": {"x": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2]}},
            "dispatchables": {"relu": {"type": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}}},
            "commands": [{"type": "dispatch", "dispatchable": "relu",
                          "bindings": {"InputTensor": {"name": "x", "elementOffset": 4611686018427387904}, "OutputTensor": "x"}}]})");
        CHECK(r.text.empty());
        CHECK(has_rule(r.diags, "dxdispatch.binding", "/commands/0/bindings/InputTensor"));
    }
    SUBCASE("a desc error points into the model's dispatchable") {
        const Imported r = import_text(
            dir, R"({"resources": {"x": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2]}},
            "dispatchables": {"relu": {"type": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [0]},
                                                                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}}},
            "commands": [{"type": "dispatch", "dispatchable": "relu", "bindings": {"InputTensor": "x", "OutputTensor": "x"}}]})");
        CHECK(r.text.empty());
        CHECK(has_rule(r.diags, "tensor.sizes.positive", "/dispatchables/relu/desc/InputTensor/Sizes/0"));
    }
}

TEST_CASE("export then import gives back every bundled case: desc, input bits, in-place bindings and outputs") {
    const fs::path cases = fs::path(DMLREF_TEST_DATA).parent_path().parent_path() / "cases";
    Dir dir("dxdispatch-test-roundtrip");
    // The sanitizer build (DMLREF_TEST_TIER=sanitizer, test/meson.build) takes every second case in
    // name order: the same readers and writers, at half its 16 s there (fuzz_dxdispatch covers the
    // importer too).
    const bool sanitizer = sanitizer_tier();
    std::vector<fs::path> paths;
    for (const auto& e : fs::recursive_directory_iterator(cases))
        if (e.path().extension() == ".json") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    size_t n = 0;
    for (size_t k = 0; k < paths.size(); k += sanitizer ? 2 : 1) {
        const fs::path& path = paths[k];
        ++n;
        INFO(path.string());
        Diagnostics d;
        const Case c = load_case(path, d);
        REQUIRE_FALSE(d.has_errors());
        const DxExport x = export_dxdispatch(c, "m", "out");
        for (const auto& [file, array] : x.files) write_npy(dir / file, array);
        std::ofstream(dir / "m.json", std::ios::binary) << x.model;
        // The model names each output's writeFile and the dispatch's bindings.
        const auto model = nlohmann::json::parse(x.model);
        for (const auto& f : tensor_fields(c.op))
            if (f.role == TensorRole::Output) {
                bool written = false;
                for (const auto& cmd : model["commands"])
                    written = written || (cmd["type"] == "writeFile" &&
                                          cmd["targetPath"] == "out/" + std::string(f.name) + ".npy");
                CHECK(written);
            }
        Diagnostics di;
        const std::string text = import_dxdispatch(dir / "m.json", di);
        for (const auto& item : di.items()) INFO(format(item, "m.json"));
        REQUIRE_FALSE(di.has_errors());
        const Case back = parse_case(parse_json_text(text), dir / "back.json", di);
        REQUIRE_FALSE(di.has_errors());
        CHECK(back.op.Type == c.op.Type);
        CHECK(back.in_place == c.in_place);
        CHECK(back.inputs == c.inputs);
        const Outputs a = run_case(c), b = run_case(back);
        CHECK(a.values == b.values);
        // The descs are the same: the goldens' desc objects agree in dmlref's canonical spelling
        // (the notations differ: the model spells enums and FLOAT16 scalars DxDispatch's way).
        Case ca = c, cb = back;
        ca.desc_notation.clear();
        cb.desc_notation.clear();
        const auto ga = nlohmann::json::parse(write_golden(ca, a, dir / "a.json")),
                   gb = nlohmann::json::parse(write_golden(cb, b, dir / "b.json"));
        CHECK(ga["desc"] == gb["desc"]);
        for (const auto& [file, array] : x.files) fs::remove(dir / file);
    }
    CHECK(n > 20);
}

TEST_CASE("export: inputs JSON cannot spell go to a .npy file beside the model, and come back bit for bit") {
    Diagnostics d;
    const Case c = parse_case(parse_json_text(R"({"format": 1, "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}},
        "inputs": {"InputTensor": ["0x7fc00001", "-nan", "0x7f800001"]}})"),
                              "c.json", d);
    REQUIRE_FALSE(d.has_errors());
    const DxExport x = export_dxdispatch(c, "m", "");
    REQUIRE(x.files.size() == 1);
    CHECK(x.files[0].first == "m.InputTensor.npy");
    CHECK(nlohmann::json::parse(x.model)["resources"]["InputTensor"]["initialValues"]["sourcePath"] ==
          "m.InputTensor.npy");
    Dir dir("dxdispatch-test-npy");
    write_npy(dir / x.files[0].first, x.files[0].second);
    std::ofstream(dir / "m.json", std::ios::binary) << x.model;
    Diagnostics di;
    const std::string text = import_dxdispatch(dir / "m.json", di);
    REQUIRE_FALSE(di.has_errors());
    const Case back = parse_case(parse_json_text(text), dir / "b.json", di);
    check_bits(as_values<uint32_t>(back.inputs.at("InputTensor")),
               std::vector<uint32_t>{0x7fc00001, 0xffc00000, 0x7f800001});
}

TEST_CASE("export then import: a non-finite FLOAT desc field written as DxDispatch's \"NaN\" or \"-Inf\" comes back") {
    Dir dir("dxdispatch-test-nonfinite-desc");
    for (const char* value : {"\"nan\"", "\"-inf\"", "\"inf\""}) {
        INFO(value);
        Diagnostics d;
        const Case c = parse_case(
            parse_json_text(std::string(R"({"format": 1, "operator": "PADDING",
            "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
                     "PaddingMode": "CONSTANT", "PaddingValue": )") +
                            value + R"(, "DimensionCount": 1, "StartPadding": [1], "EndPadding": [0]},
            "inputs": {"InputTensor": [-1, 2]}})"),
            "c.json", d);
        REQUIRE_FALSE(d.has_errors());
        const DxExport x = export_dxdispatch(c, "m", "");
        const auto model = nlohmann::json::parse(x.model);
        const std::string written = model["dispatchables"].begin().value()["desc"]["PaddingValue"].get<std::string>();
        CHECK((written == "NaN" || written == "Inf" || written == "-Inf"));  // DxDispatch's spelling
        std::ofstream(dir / "m.json", std::ios::binary) << x.model;
        Diagnostics di;
        const std::string text = import_dxdispatch(dir / "m.json", di);
        for (const auto& item : di.items()) INFO(format(item, "m.json"));
        REQUIRE_FALSE(di.has_errors());
        const Case back = parse_case(parse_json_text(text), dir / "b.json", di);
        REQUIRE_FALSE(di.has_errors());
        const float a = get<DML_PADDING_OPERATOR_DESC>(c.op.Desc).PaddingValue,
                    b = get<DML_PADDING_OPERATOR_DESC>(back.op.Desc).PaddingValue;
        CHECK(std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b));
    }
}

}  // namespace dmlref_test_dxdispatch
