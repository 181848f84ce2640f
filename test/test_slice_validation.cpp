// SLICE, SLICE1 and SLICE_GRAD validation: one bad input per rule (the rule id, JSON path and
// message), the rules through the case reader, and the support tables of the DML_SLICE_OPERATOR_DESC,
// DML_SLICE1_OPERATOR_DESC and DML_SLICE_GRAD_OPERATOR_DESC pages (DirectML API reference).
#include "slice_support.hpp"

#include <cstdint>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_slice_validation {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::slicing;

namespace {

const Diagnostic* find_rule(const Diagnostics& d, std::string_view rule) {
    for (const auto& item : d.items())
        if (item.rule == rule) return &item;
    return nullptr;
}

// validate(op) reports `rule` at `path` as an error whose message contains `text`.
void check_error(const Operator& op, std::string_view rule, std::string_view path, std::string_view text = "") {
    const Diagnostics d = validate(op);
    std::string all;
    for (const auto& item : d.items()) all += format(item, "<op>") + "\n";
    INFO(all);
    const Diagnostic* e = find_rule(d, rule);
    REQUIRE(e != nullptr);
    CHECK(e->severity == Severity::Error);
    CHECK(e->path == path);
    CHECK(e->message.find(text) != std::string::npos);
}

}  // namespace

// ---- Validation: one bad input per rule -----------------------------------------------------

TEST_CASE("SLICE1 and SLICE_GRAD validation rules") {
    // A valid base: in 1D of 8, window [2, 7), stride 2 -> at most 3 outputs.
    check_valid(slice1(DataType::FLOAT32, {8}, {3}, {2}, {5}, {2}));
    check_valid(slice_grad(DataType::FLOAT32, {8}, {3}, {2}, {5}, {-2}));

    SUBCASE("stride-nonzero") {
        check_error(slice1(DataType::FLOAT32, {8, 8}, {3, 1}, {2, 0}, {5, 1}, {2, 0}), "slice1.stride-nonzero",
                    "/desc/InputWindowStrides/1", "InputWindowStrides[1] is 0");
        check_error(slice_grad(DataType::FLOAT32, {8, 8}, {3, 1}, {2, 0}, {5, 1}, {2, 0}), "slice-grad.stride-nonzero",
                    "/desc/InputWindowStrides/1", "InputWindowStrides[1] is 0");
    }
    SUBCASE("window-size-positive") {
        check_error(slice1(DataType::FLOAT32, {8}, {1}, {2}, {0}, {1}), "slice1.window-size-positive",
                    "/desc/InputWindowSizes/0", "InputWindowSizes[0] is 0");
        check_error(slice_grad(DataType::FLOAT32, {8}, {1}, {2}, {0}, {1}), "slice-grad.window-size-positive",
                    "/desc/InputWindowSizes/0", "InputWindowSizes[0] is 0");
    }
    SUBCASE("window-in-bounds (forward input; for SLICE_GRAD that is OutputGradientTensor)") {
        check_error(slice1(DataType::FLOAT32, {8}, {1}, {4}, {5}, {1}), "slice1.window-in-bounds",
                    "/desc/InputWindowSizes/0", "4 + 5 = 9, beyond InputTensor.Sizes[0] = 8");
        check_error(slice_grad(DataType::FLOAT32, {8}, {1}, {4}, {5}, {1}), "slice-grad.window-in-bounds",
                    "/desc/InputWindowSizes/0", "beyond OutputGradientTensor.Sizes[0] = 8");
        // 64-bit sums: 0xffffffff + 0xffffffff does not wrap to something small.
        check_error(slice1(DataType::FLOAT32, {8}, {1}, {0xffffffffu}, {0xffffffffu}, {1}), "slice1.window-in-bounds",
                    "/desc/InputWindowSizes/0", "= 8589934590");
    }
    SUBCASE("output-size (forward output; for SLICE_GRAD that is InputGradientTensor)") {
        check_error(slice1(DataType::FLOAT32, {8}, {4}, {2}, {5}, {2}), "slice1.output-size",
                    "/desc/OutputTensor/Sizes/0", "= 3 elements; it must be from 1 to 3");
        check_error(slice_grad(DataType::FLOAT32, {8}, {4}, {2}, {5}, {-2}), "slice-grad.output-size",
                    "/desc/InputGradientTensor/Sizes/0", "it must be from 1 to 3");
        // |INT32_MIN| is taken in 64 bits.
        check_error(slice1(DataType::FLOAT32, {8}, {2}, {0}, {8}, {std::numeric_limits<int32_t>::min()}),
                    "slice1.output-size", "/desc/OutputTensor/Sizes/0", "/ 2147483648 = 1");
    }
    SUBCASE("same-data-type") {
        Operator op = slice1(DataType::FLOAT32, {8}, {3}, {2}, {5}, {2});
        get<DML_SLICE1_OPERATOR_DESC>(op.Desc).OutputTensor.DataType = DataType::FLOAT16;
        check_error(op, "slice1.same-data-type", "/desc/OutputTensor/DataType", "must have the same DataType");
        Operator g = slice_grad(DataType::FLOAT32, {8}, {3}, {2}, {5}, {2});
        get<DML_SLICE_GRAD_OPERATOR_DESC>(g.Desc).OutputGradientTensor.DataType = DataType::INT32;
        check_error(g, "slice-grad.same-data-type", "/desc/InputGradientTensor/DataType",
                    "must have the same DataType");
    }
    SUBCASE("dimension-count") {
        Operator op = slice1(DataType::FLOAT32, {8}, {3}, {2}, {5}, {2});
        get<DML_SLICE1_OPERATOR_DESC>(op.Desc).OutputTensor.Sizes = {1, 3};
        check_error(op, "slice1.dimension-count", "/desc/DimensionCount", "OutputTensor has 2 dimensions");
        Operator g = slice_grad(DataType::FLOAT32, {8}, {3}, {2}, {5}, {2});
        get<DML_SLICE_GRAD_OPERATOR_DESC>(g.Desc).DimensionCount = 2;
        check_error(g, "slice-grad.dimension-count", "/desc/DimensionCount",
                    "DimensionCount is 2 but OutputGradientTensor has 1");
    }
    SUBCASE("array-length: reported, and the per-dimension rules are skipped") {
        Operator op = slice1(DataType::FLOAT32, {8, 8}, {3, 1}, {2, 9}, {5}, {2, 1});
        check_error(op, "slice1.array-length", "/desc/InputWindowSizes", "InputWindowSizes has 1 entries");
        CHECK(find_rule(validate(op), "slice1.window-in-bounds") == nullptr);
        Operator g = slice_grad(DataType::FLOAT32, {8}, {3}, {2}, {5}, {2, 0});
        check_error(g, "slice-grad.array-length", "/desc/InputWindowStrides", "must have DimensionCount (1) entries");
        check_error(g, "slice-grad.stride-nonzero", "/desc/InputWindowStrides/1");  // per-array rules still hold
    }
}

TEST_CASE("SLICE validation rules") {
    check_valid(slice(DataType::FLOAT32, {8}, {3}, {1}, {3}));  // reads 1, 4, 7
    SUBCASE("in-bounds") {
        check_error(slice(DataType::FLOAT32, {8}, {3}, {2}, {3}), "slice.in-bounds", "/desc/Offsets/0",
                    "2 + (3 - 1) * 3 = 8; it must be less than InputTensor.Sizes[0] = 8");
        // (2^32 - 1) + (2 - 1) * (2^32 - 1) computed in 64 bits.
        check_error(slice(DataType::FLOAT32, {8}, {2}, {0xffffffffu}, {0xffffffffu}), "slice.in-bounds",
                    "/desc/Offsets/0", "= 8589934590");
    }
    SUBCASE("stride-positive") {
        check_error(slice(DataType::FLOAT32, {8}, {1}, {0}, {0}), "slice.stride-positive", "/desc/Strides/0",
                    "Strides[0] is 0");
    }
    SUBCASE("sizes-match-output") {
        Operator op = slice(DataType::FLOAT32, {8}, {3}, {1}, {3});
        get<DML_SLICE_OPERATOR_DESC>(op.Desc).Sizes = {2};
        check_error(op, "slice.sizes-match-output", "/desc/Sizes/0", "Sizes[0] is 2 but OutputTensor.Sizes[0] is 3");
    }
    SUBCASE("same-data-type, dimension-count, array-length") {
        Operator op = slice(DataType::FLOAT32, {8}, {3}, {1}, {3});
        get<DML_SLICE_OPERATOR_DESC>(op.Desc).InputTensor.DataType = DataType::UINT8;
        check_error(op, "slice.same-data-type", "/desc/OutputTensor/DataType");
        Operator n = slice(DataType::FLOAT32, {8}, {3}, {1}, {3});
        get<DML_SLICE_OPERATOR_DESC>(n.Desc).DimensionCount = 3;
        check_error(n, "slice.dimension-count", "/desc/DimensionCount", "DimensionCount is 3 but InputTensor has 1");
        check_error(n, "slice.array-length", "/desc/Offsets", "Offsets has 1 entries");
    }
}

TEST_CASE("Slice rules through the case reader: JSON paths and the formatted error") {
    const std::string text = R"({
      "format": 1, "name": "bad", "operator": "SLICE1",
      "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 4, 4]},
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
        "DimensionCount": 4,
        "InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 4, 3], "InputWindowStrides": [1, 1, 0, 2]
      },
      "inputs": {"InputTensor": {"Fill": 1}}
    })";
    const std::string e = first_error(diagnose(text));
    CHECK(e.find("/desc/InputWindowStrides/2") != std::string::npos);
    CHECK(e.find("slice1.stride-nonzero") != std::string::npos);

    const std::string grad = R"({
      "format": 1, "name": "bad", "operator": "DML_OPERATOR_SLICE_GRAD",
      "desc": {
        "InputGradientTensor": {"DataType": "INT8", "Sizes": [2, 3]},
        "OutputGradientTensor": {"DataType": "INT8", "Sizes": [4, 4]},
        "DimensionCount": 2,
        "InputWindowOffsets": [0, 0], "InputWindowSizes": [4, 4], "InputWindowStrides": [2, 2]
      },
      "inputs": {"InputGradientTensor": {"Fill": 1}}
    })";
    const std::string g = first_error(diagnose(grad));
    CHECK(g.find("/desc/InputGradientTensor/Sizes/1") != std::string::npos);
    CHECK(g.find("slice-grad.output-size") != std::string::npos);
}

// ---- Support tables ------------------------------------------------------------------------

TEST_CASE("Slice family support tables (DirectML API reference)") {
    auto lowest = [](const Operator& op) { return lowest_supporting_feature_level(op, nullptr); };
    // SLICE: 1.0 4-5D F32 ... U16; 2.1 + I8, U8; 3.0 1-8D; 4.1 + 64-bit.
    CHECK(lowest(slice(DataType::FLOAT16, {1, 1, 4, 4}, {1, 1, 2, 2}, {0, 0, 0, 0}, {1, 1, 1, 1})) == 0x1000u);
    CHECK(lowest(slice(DataType::UINT8, {1, 1, 4, 4}, {1, 1, 2, 2}, {0, 0, 0, 0}, {1, 1, 1, 1})) == 0x2100u);
    CHECK(lowest(slice(DataType::INT32, {4, 4}, {2, 2}, {0, 0}, {1, 1})) == 0x3000u);
    CHECK(lowest(slice(DataType::INT64, {4, 4}, {2, 2}, {0, 0}, {1, 1})) == 0x4100u);
    // SLICE1: 2.1 4-5D eight types; 3.0 1-8D; 4.1 + 64-bit.
    CHECK(lowest(slice1(DataType::INT8, {1, 1, 1, 4, 4}, {1, 1, 1, 2, 2}, {0, 0, 0, 0, 0}, {1, 1, 1, 4, 4},
                        {1, 1, 1, 2, 2})) == 0x2100u);
    CHECK(lowest(slice1(DataType::INT8, {4}, {2}, {0}, {4}, {2})) == 0x3000u);
    CHECK(lowest(slice1(DataType::FLOAT64, {4}, {2}, {0}, {4}, {2})) == 0x4100u);
    // SLICE_GRAD: 3.0 4-5D; 3.1 1-8D; 4.1 + 64-bit.
    CHECK(lowest(slice_grad(DataType::UINT16, {1, 1, 4, 4}, {1, 1, 2, 2}, {0, 0, 0, 0}, {1, 1, 4, 4}, {1, 1, 2, 2})) ==
          0x3000u);
    CHECK(lowest(slice_grad(DataType::UINT16, {4, 4}, {2, 2}, {0, 0}, {4, 4}, {2, 2})) == 0x3100u);
    CHECK(lowest(slice_grad(DataType::UINT64, {4, 4}, {2, 2}, {0, 0}, {4, 4}, {2, 2})) == 0x4100u);
    CHECK(parse_operator_type("DML_OPERATOR_SLICE_GRAD") == OperatorType::SLICE_GRAD);
    CHECK(uint32_t(OperatorType::SLICE) == 60u);
    CHECK(uint32_t(OperatorType::SLICE1) == 111u);
    CHECK(uint32_t(OperatorType::SLICE_GRAD) == 135u);
}

}  // namespace dmlref_test_slice_validation
