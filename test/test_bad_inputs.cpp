// Bad input: each case below must produce a clear error naming the file, the JSON path and the
// rule broken (docs/rules.md), never a crash. One row per distinct mistake.
#include "support.hpp"

#include "dmlref/npy.hpp"

#include <filesystem>
#include <fstream>
#include <functional>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_bad_inputs {

using namespace dmlref;
using namespace dmlref::test;

namespace {

json relu_grad_case() {
    return json::parse(R"({
      "format": 1,
      "operator": "DML_OPERATOR_ACTIVATION_RELU_GRAD",
      "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
        "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
        "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]}
      },
      "inputs": {"InputTensor": [1, -1, 2, -2], "InputGradientTensor": [1, 2, 3, 4]}
    })");
}

json clip_grad1_case() {
    return json::parse(R"({
      "format": 1,
      "operator": "ELEMENT_WISE_CLIP_GRAD1",
      "desc": {
        "InputTensor": {"DataType": "FLOAT16", "Sizes": [3]},
        "InputGradientTensor": {"DataType": "FLOAT16", "Sizes": [3]},
        "OutputGradientTensor": {"DataType": "FLOAT16", "Sizes": [3]},
        "MinMaxDataType": "FLOAT16", "Min": 0, "Max": 1
      },
      "inputs": {"InputTensor": [0, 0.5, 1], "InputGradientTensor": [1, 1, 1]}
    })");
}

struct Bad {
    const char* what;
    std::function<std::string()> text;
    const char* path;     // expected JSON pointer of the first error
    const char* rule;     // expected rule id
    const char* message;  // a part of the expected message
};

std::string with(json j, const std::function<void(json&)>& edit) {
    edit(j);
    return j.dump();
}

}  // namespace

TEST_CASE("every kind of bad case gets a clear error: file, JSON path, rule") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("dmlref-bad-inputs-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {  // a FLOAT64 .npy for the dtype mismatch row
        NpyArray a;
        a.data_type = DataType::FLOAT64;
        a.shape = {4};
        a.data.resize(32);
        write_npy(dir / "f64.npy", a);
    }
    const std::vector<Bad> rows =
        {
            {"not JSON", [] { return std::string("{\"format\": 1,\n  \"operator\": }"); }, "/", "json.syntax",
             "not valid JSON at line 2"},
            {"-0 as an integer token", [] { return std::string("{\"format\": 1, \"x\": -0}"); }, "/",
             "json.negative-zero-integer", "write -0.0 for negative zero"},
            {"no format", [] { return with(relu_grad_case(), [](json& j) { j.erase("format"); }); }, "/format",
             "case.format", "\"format\": 1"},
            {"unknown operator",
             [] { return with(relu_grad_case(), [](json& j) { j["operator"] = "DML_OPERATOR_RELU"; }); }, "/operator",
             "case.operator", "not an operator dmlref evaluates"},
            {"unknown top-level key",
             [] { return with(relu_grad_case(), [](json& j) { j["expect"] = json::object(); }); }, "/expect",
             "case.unknown-key", "\"expect\" is not a field of a case"},
            {"missing desc field",
             [] { return with(relu_grad_case(), [](json& j) { j["desc"].erase("InputGradientTensor"); }); }, "/desc",
             "case.missing-field", "needs the field InputGradientTensor"},
            {"misspelt desc field",
             [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["OutputTensor"] = j["desc"]["OutputGradientTensor"]; });
             },
             "/desc/OutputTensor", "case.unknown-key", "is not a field of DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC"},
            {"unknown DataType",
             [] { return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["DataType"] = "FLOAT8"; }); },
             "/desc/InputTensor/DataType", "case.data-type", "is not a DML_TENSOR_DATA_TYPE"},
            {"zero size",
             [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["Sizes"] = {2, 0}; });
             },
             "/desc/InputTensor/Sizes/1", "tensor.sizes.positive", "every size must be at least 1"},
                           {"nine dimensions",
                            [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["Sizes"] = {1, 1, 1, 1, 1, 1, 1, 1, 1}; });
                            },
                            "/desc/InputTensor/Sizes", "tensor.dimension-count", "allows 1 to 8 dimensions"},
        {"Strides of the wrong length",
         [] { return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["Strides"] = {1}; }); },
         "/desc/InputTensor/Strides", "tensor.strides.length", "Strides must have DimensionCount entries"},
        {"DimensionCount disagrees with Sizes",
         [] { return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["DimensionCount"] = 3; }); },
         "/desc/InputTensor/DimensionCount", "tensor.dimension-count-mismatch",
         "Sizes must have DimensionCount entries"},
        {"TotalTensorSizeInBytes too small",
         [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["TotalTensorSizeInBytes"] = 12; });
         },
         "/desc/InputTensor/TotalTensorSizeInBytes", "tensor.total-size", "DMLCalcBufferTensorSize gives 16"},
        {"more than 2^32 - 1 elements",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["desc"]["InputTensor"]["Sizes"] = {65536, 65536};
              }); },
         "/desc/InputTensor/Sizes", "tensor.element-count", "may not exceed 2^32 - 1 elements"},
        {"buffer over the memory limit",
         [] {
        return with(relu_grad_case(), [](json& j) {
            j["desc"]["InputTensor"]["Sizes"] = {1u << 30};
            j["desc"]["InputTensor"]["DataType"] = "FLOAT64";
        });
         },
         "/desc/InputTensor/TotalTensorSizeInBytes", "limit.buffer-bytes", "over dmlref's limit"},
        {"buffers together over the memory limit",
         [] {
        return with(relu_grad_case(), [](json& j) {
            for (const char* t : {"InputTensor", "InputGradientTensor", "OutputGradientTensor"})
                j["desc"][t] = {{"DataType", "FLOAT64"}, {"Sizes", {1u << 28}}};
        });
         },
         "/desc", "limit.case-bytes",
         "need 6442450944 bytes together (InputTensor 2147483648, InputGradientTensor 2147483648, OutputGradientTensor 2147483648)"},
        {"output strides that alias elements",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["desc"]["OutputGradientTensor"]["Strides"] = {0, 1};
              }); },
         "/desc/OutputGradientTensor/Strides", "tensor.output-overlap", "share memory"},
        {"OWNED_BY_DML on an output",
         [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["OutputGradientTensor"]["Flags"] = "OWNED_BY_DML"; });
         },
         "/desc/OutputGradientTensor/Flags", "tensor.flags.owned-by-dml-output", "only valid on input tensors"},
        {"alignment not a power of two",
         [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["GuaranteedBaseOffsetAlignment"] = 24; });
         },
         "/desc/InputTensor/GuaranteedBaseOffsetAlignment", "tensor.alignment", "power of two"},
        {"tensor type not BUFFER",
         [] { return with(relu_grad_case(), [](json& j) { j["desc"]["InputTensor"]["Type"] = "INVALID"; }); },
         "/desc/InputTensor/Type", "tensor.type", "DML_TENSOR_TYPE_BUFFER"},
        {"DataTypes differ",
         [] {
        return with(relu_grad_case(), [](json& j) { j["desc"]["InputGradientTensor"]["DataType"] = "FLOAT16"; });
         },
         "/desc/InputGradientTensor/DataType", "relu-grad.same-data-type", "must have the same DataType"},
        {"Sizes differ",
         [] { return with(relu_grad_case(), [](json& j) { j["desc"]["OutputGradientTensor"]["Sizes"] = {4}; }); },
         "/desc/OutputGradientTensor/Sizes", "relu-grad.same-sizes", "must have the same DimensionCount and Sizes"},
        {"MinMaxDataType differs from the data",
         [] { return with(clip_grad1_case(), [](json& j) { j["desc"]["MinMaxDataType"] = "FLOAT32"; }); },
         "/desc/MinMaxDataType", "clip-grad1.min-max-data-type", "must match the output's DataType"},
        {"FLOAT16 bound not exactly representable",
         [] { return with(clip_grad1_case(), [](json& j) { j["desc"]["Min"] = 0.1; }); }, "/desc/Min",
         "scalar-union.float16-exact", "{\"UInt16\": 11878}"},
        {"unknown DML_SCALAR_UNION member",
         [] { return with(clip_grad1_case(), [](json& j) {
                  j["desc"]["Min"] = {{"Float16", 1}};
              }); },
         "/desc/Min/Float16", "scalar-union.member", "is not a DML_SCALAR_UNION member"},
        {"ScaleBias on integer data",
         [] {
        return json({{"format", 1},
                     {"operator", "ELEMENT_WISE_CLIP"},
                     {"desc",
                      {{"InputTensor", {{"DataType", "INT32"}, {"Sizes", {2}}}},
                       {"OutputTensor", {{"DataType", "INT32"}, {"Sizes", {2}}}},
                       {"ScaleBias", {{"Scale", 2}, {"Bias", 0}}},
                       {"Min", 0},
                       {"Max", 1}}},
                     {"inputs", {{"InputTensor", {1, 2}}}}})
            .dump();
         },
         "/desc/ScaleBias", "clip.scale-bias-integer", "does not define x * Scale + Bias for integer tensors"},
        {"integer out of range",
         [] {
        return with(relu_grad_case(), [](json& j) {
            for (auto k : {"InputTensor", "InputGradientTensor", "OutputGradientTensor"})
                j["desc"][k]["DataType"] = "UINT8";
            j["inputs"]["InputTensor"] = {1, 2, 300, 4};
        });
         },
         "/inputs/InputTensor/2", "value.parse", "outside the range of UINT8 (0 to 255)"},
        {"NaN for an integer type",
         [] {
        return with(relu_grad_case(), [](json& j) {
            for (auto k : {"InputTensor", "InputGradientTensor", "OutputGradientTensor"})
                j["desc"][k]["DataType"] = "INT16";
            j["inputs"]["InputTensor"][0] = "nan";
        });
         },
         "/inputs/InputTensor/0", "value.parse", "not a value of the integer type INT16"},
        // A non-scalar after numbers keeps the array packed (it once re-read the whole array as nodes).
        {"null after numbers",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["inputs"]["InputTensor"] = {1, -1, 2, nullptr};
              }); },
         "/inputs/InputTensor/3", "value.parse", "expected a number or a string"},
        {"an object after numbers",
         [] {
        return with(relu_grad_case(), [](json& j) {
            j["inputs"]["InputTensor"] = {1, -1, json::object({{"a", 1}}), 2};
        });
         },
         "/inputs/InputTensor/2", "value.parse", "expected a number or a string"},
        {"a misspelt special value",
         [] { return with(relu_grad_case(), [](json& j) { j["inputs"]["InputTensor"][0] = "NaN"; }); },
         "/inputs/InputTensor/0", "value.parse", "write a number, \"nan\""},
        {"too few input values",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["inputs"]["InputTensor"] = {1, 2, 3};
              }); },
         "/inputs/InputTensor", "input.count", "so give 4 values"},
        {"missing input",
         [] { return with(relu_grad_case(), [](json& j) { j["inputs"].erase("InputGradientTensor"); }); }, "/inputs",
         "input.missing", "no data for the input tensor InputGradientTensor"},
        {"data for an output",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["inputs"]["OutputGradientTensor"] = {0, 0, 0, 0};
              }); },
         "/inputs/OutputGradientTensor", "input.unknown", "is not an input tensor"},
        {"unknown input form",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["inputs"]["InputTensor"] = {{"Constant", 1}};
              }); },
         "/inputs/InputTensor", "input.form", "{\"Fill\": v}"},
        {"Uniform for integers",
         [] {
        return with(relu_grad_case(), [](json& j) {
            for (auto k : {"InputTensor", "InputGradientTensor", "OutputGradientTensor"})
                j["desc"][k]["DataType"] = "INT32";
            j["inputs"]["InputTensor"] = {{"Random", {{"Seed", 1}, {"Distribution", "Uniform"}}}};
        });
         },
         "/inputs/InputTensor/Random/Distribution", "input.random-distribution", "use \"Integers\" for INT32"},
        {"Iota past the type's range",
         [] {
        return with(relu_grad_case(), [](json& j) {
            for (auto k : {"InputTensor", "InputGradientTensor", "OutputGradientTensor"})
                j["desc"][k]["DataType"] = "INT8";
            j["inputs"]["InputTensor"] = {{"Iota", {{"Start", 120}, {"Step", 5}}}};
        });
         },
         "/inputs/InputTensor/Iota", "input.iota-range", "Iota element 2 is outside the range of INT8"},
        {"missing .npy file",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["inputs"]["InputTensor"] = {{"Npy", "no-such.npy"}};
              }); },
         "/inputs/InputTensor/Npy", "input.npy", "cannot read"},
        {".npy of another dtype",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["inputs"]["InputTensor"] = {{"Npy", "f64.npy"}};
              }); },
         "/inputs/InputTensor/Npy", "input.npy-dtype", "holds <f8 (FLOAT64) but InputTensor.DataType is FLOAT32"},
        {"expected values of the wrong count",
         [] {
        return with(relu_grad_case(), [](json& j) {
            j["expected"] = {{"OutputGradientTensor", {{"Values", {1, 2, 3}}}}};
        });
         },
         "/expected/OutputGradientTensor/Values", "expected.count", "has 4 logical elements"},
        {"expected values for an input",
         [] {
        return with(relu_grad_case(), [](json& j) { j["expected"] = {{"InputTensor", {{"Values", {1, 2, 3, 4}}}}}; });
         },
         "/expected/InputTensor", "expected.unknown", "is not an output tensor"},
        {"in-place where the page does not allow it",
         [] {
        return with(relu_grad_case(), [](json& j) { j["inPlace"] = {{"OutputGradientTensor", "InputTensor"}}; });
         },
         "/inPlace/OutputGradientTensor", "in-place.allowed", "does not support in-place execution"},
        {"in-place with different descs",
         [] {
        return with(clip_grad1_case(), [](json& j) {
            j["desc"]["OutputGradientTensor"]["Strides"] = {2};
            j["inPlace"] = {{"OutputGradientTensor", "InputTensor"}};
        });
         },
         "/inPlace/OutputGradientTensor", "in-place.same-range", "must have identical descs"},
        {"a policy dmlref does not implement",
         [] { return with(relu_grad_case(), [](json& j) {
                  j["policies"] = {{"GradNaN", "Propagate"}};
              }); },
         "/policies/GradNaN", "policy.unsupported", "dmlref implements GradNaN = FormulaLiteral only"},
        };
    CHECK(rows.size() >= 25);
    for (const auto& row : rows) {
        INFO(row.what);
        const Diagnostics d = diagnose(row.text(), (dir / "case.json").string());
        const std::string e = first_error(d, "case.json");
        INFO(e);
        REQUIRE(d.has_errors());
        CHECK(e.rfind(std::string("case.json: ") + row.path + ": error: ", 0) == 0);
        CHECK(e.find(std::string("[") + row.rule + "]") != std::string::npos);
        CHECK(e.find(row.message) != std::string::npos);
    }
}

TEST_CASE("an inexact decimal input is a warning naming the rounded value") {
    const Diagnostics d = diagnose(with(relu_grad_case(), [](json& j) { j["inputs"]["InputTensor"][0] = 0.1; }));
    CHECK_FALSE(d.has_errors());
    REQUIRE(d.items().size() == 1);
    CHECK(
        format(d.items()[0], "t.json") ==
        "t.json: /inputs/InputTensor/0: warning: 0.1 is not exactly representable in FLOAT32; rounded to nearest-even, 0.1 (0x3dcccccd) [value.inexact]");
}

}  // namespace dmlref_test_bad_inputs
