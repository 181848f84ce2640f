// Goldens keep the author's notation (docs/case-format.md, "Notation"): desc values and input
// values are written as they were read, raw bits stay bits, and only values that had to be
// rounded, or fields whose value changed since reading, are written in dmlref's canonical form.
#include "support.hpp"

#include <nlohmann/json.hpp>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_notation {

using namespace dmlref;
using namespace dmlref::test;

namespace {

Case read(const std::string& text) { return parse_valid(text, "n.json"); }

nlohmann::json golden(const Case& c) { return nlohmann::json::parse(write_golden(c, run_case(c), "n.json")); }

const std::string kClip1 = R"({"format": 1, "name": "n", "operator": "ELEMENT_WISE_CLIP1",
    "desc": {"InputTensor": {"DataType": "FLOAT16", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT16", "Sizes": [4]},
             "MinMaxDataType": "DML_TENSOR_DATA_TYPE_FLOAT16", "Min": {"UInt16": 15360}, "Max": "0x4400"},
    "inputs": {"InputTensor": ["0x7e01", 1.5, -0.0, 5e0]}})";

}  // namespace

TEST_CASE("desc values and inputs are written back as the author wrote them") {
    const Case c = read(kClip1);
    const auto g = golden(c);
    CHECK(g["desc"]["Min"] == nlohmann::json::parse(R"({"UInt16": 15360})"));  // not 1
    CHECK(g["desc"]["Max"] == "0x4400");                                       // not 4
    CHECK(g["desc"]["MinMaxDataType"] == "DML_TENSOR_DATA_TYPE_FLOAT16");
    const std::string text = write_golden(c, run_case(c), "n.json");
    CHECK(text.find(R"("InputTensor": ["0x7e01", 1.5, -0.0, 5e0])") != std::string::npos);
    // Read back, the golden is the same case, and writes the same bytes.
    const Case again = read(text);
    CHECK(again.inputs == c.inputs);
    CHECK(write_golden(again, run_case(again), "n.json") == text);
    // The values are the ones written: 1.0 and 4.0 as FLOAT16 bits; the input's first element a NaN payload.
    const auto& d = get<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>(again.op.Desc);
    CHECK(d.Min.as<uint16_t>() == 0x3c00);
    CHECK(d.Max.as<uint16_t>() == 0x4400);
    CHECK(load_bits(DataType::FLOAT16, again.inputs.at("InputTensor").data()) == 0x7e01);
}

TEST_CASE("a value that was rounded is written exactly, and a field changed since reading canonically") {
    const Case c = read(R"({"format": 1, "name": "n", "operator": "ELEMENT_WISE_CLIP",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                 "Min": 0.1, "Max": 2.5},
        "inputs": {"InputTensor": [0.1, 1]}})");
    const auto g = golden(c);
    // 0.1 is not a FLOAT32: its exact value is written (so the golden never warns); 2.5 stays.
    const std::string text = write_golden(c, run_case(c), "n.json");
    CHECK(text.find(R"("Min": 0.100000001490116119384765625)") != std::string::npos);
    CHECK(text.find(R"("Max": 2.5)") != std::string::npos);
    CHECK(text.find(R"("InputTensor": [0.100000001490116119384765625, 1])") != std::string::npos);
    Diagnostics d;
    parse_case(parse_json_text(text), "n.json", d);
    CHECK(d.items().empty());

    Case changed = read(kClip1);
    get<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>(changed.op.Desc).Max = DML_SCALAR_UNION::of(uint16_t(0x4500));  // 5.0
    const auto h = golden(changed);
    CHECK(h["desc"]["Min"] == nlohmann::json::parse(R"({"UInt16": 15360})"));  // unchanged: as written
    REQUIRE(h["desc"]["Max"].is_number());                                     // changed: dmlref's spelling, 5
    CHECK(h["desc"]["Max"].get<double>() == 5.0);
}

}  // namespace dmlref_test_notation
