// JOIN and SPLIT. Expected values come from the pages' examples, by hand, or from a naive loop
// written here (each output element's source found by walking the array's axis stretches, over
// packed logical indices); none comes from dmlref's evaluation. Also the tensor arrays of the
// case format and of DxDispatch models (FieldVisitor::tensor_array).
#include "support.hpp"

#include "dmlref/descs/join_split.hpp"
#include "dmlref/dxdispatch.hpp"
#include "dmlref/explain.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_join_split {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using JOIN = DML_JOIN_OPERATOR_DESC;
using SPLIT = DML_SPLIT_OPERATOR_DESC;

std::string element(const char* array, size_t k) { return std::string(array) + "[" + std::to_string(k) + "]"; }

Operator join_op(DataType t, const std::vector<std::vector<uint32_t>>& inputs, std::vector<uint32_t> out,
                 uint32_t axis) {
    JOIN d;
    for (const auto& s : inputs) d.InputTensors.push_back(desc(t, s));
    d.OutputTensor = desc(t, std::move(out));
    d.Axis = axis;
    return {OperatorType::JOIN, d};
}

Operator split_op(DataType t, std::vector<uint32_t> in, const std::vector<std::vector<uint32_t>>& outputs,
                  uint32_t axis) {
    SPLIT d;
    d.InputTensor = desc(t, std::move(in));
    for (const auto& s : outputs) d.OutputTensors.push_back(desc(t, s));
    d.Axis = axis;
    return {OperatorType::SPLIT, d};
}

std::vector<float> iota(float from, size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = from + float(i);
    return v;
}

// Element i of a packed buffer of `width`-byte elements, as an integer of its bits.
uint64_t bits_at(const std::vector<std::byte>& b, size_t width, uint64_t i) {
    uint64_t v = 0;
    std::memcpy(&v, b.data() + i * width, width);
    return v;
}

}  // namespace

TEST_CASE("JOIN: the page's examples") {
    // Example 1: {1,1,2,3} and {1,1,2,4} joined on axis 3.
    {
        const Operator op = join_op(DataType::FLOAT32, {{1, 1, 2, 3}, {1, 1, 2, 4}}, {1, 1, 2, 7}, 3);
        const JOIN& d = get<JOIN>(op.Desc);
        const auto out = run(op, {{"InputTensors[0]", buffer(d.InputTensors[0], iota(1, 6))},
                                  {"InputTensors[1]", buffer(d.InputTensors[1], iota(7, 8))}});
        check_bits(as_values<float>(out.at("OutputTensor")),
                   std::vector<float>{1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14});
    }
    // Example 2: three {1,1,2,2} inputs, 1..4, 5..8, 9..12, joined on axes 1, 2 and 3.
    const std::vector<std::vector<float>> expected = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},   // axis 1: {1,3,2,2}
                                                      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},   // axis 2: {1,1,6,2}
                                                      {1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12}};  // axis 3: {1,1,2,6}
    const std::vector<std::vector<uint32_t>> out_sizes = {{1, 3, 2, 2}, {1, 1, 6, 2}, {1, 1, 2, 6}};
    for (uint32_t axis = 1; axis <= 3; ++axis) {
        INFO("axis " << axis);
        const Operator op = join_op(DataType::FLOAT32, {{1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1, 2, 2}}, out_sizes[axis - 1],
                                    axis);
        const JOIN& d = get<JOIN>(op.Desc);
        const auto out = run(op, {{"InputTensors[0]", buffer(d.InputTensors[0], iota(1, 4))},
                                  {"InputTensors[1]", buffer(d.InputTensors[1], iota(5, 4))},
                                  {"InputTensors[2]", buffer(d.InputTensors[2], iota(9, 4))}});
        check_bits(as_values<float>(out.at("OutputTensor")), expected[axis - 1]);
    }
}

TEST_CASE("SPLIT: the page's example, and a single output is a copy") {
    // {1,1,6,2} holding 1..12 split on axis 2 into 2, 1 and 3 rows.
    const Operator op = split_op(DataType::FLOAT32, {1, 1, 6, 2}, {{1, 1, 2, 2}, {1, 1, 1, 2}, {1, 1, 3, 2}}, 2);
    const auto out = run(op, {{"InputTensor", buffer(get<SPLIT>(op.Desc).InputTensor, iota(1, 12))}});
    check_bits(as_values<float>(out.at("OutputTensors[0]")), std::vector<float>{1, 2, 3, 4});
    check_bits(as_values<float>(out.at("OutputTensors[1]")), std::vector<float>{5, 6});
    check_bits(as_values<float>(out.at("OutputTensors[2]")), std::vector<float>{7, 8, 9, 10, 11, 12});
    const Operator one = split_op(DataType::INT8, {3}, {{3}}, 0);
    const auto copy = run(
        one, {{"InputTensor", buffer(get<SPLIT>(one.Desc).InputTensor, std::vector<int8_t>{-128, 0, 127})}});
    check_bits(as_values<int8_t>(copy.at("OutputTensors[0]")), std::vector<int8_t>{-128, 0, 127});
}

TEST_CASE("JOIN and SPLIT move bits: NaN payloads, -0 and subnormals, through strided and broadcast inputs") {
    // FLOAT16: a signalling NaN 0x7d01, -0 0x8000, the smallest subnormal 0x0001, -inf 0xfc00.
    // InputTensors[0] is {2,2} stored transposed (Strides {1,2}): memory [a,b,c,d] is logical
    // [[a,c],[b,d]]; InputTensors[1] is {2,1} broadcast from one element (Strides {0,1}).
    JOIN d;
    d.InputTensors = {desc(DataType::FLOAT16, {2, 2}, {1, 2}), desc(DataType::FLOAT16, {2, 1}, {0, 1})};
    d.OutputTensor = desc(DataType::FLOAT16, {2, 3});
    d.Axis = 1;
    const Operator op{OperatorType::JOIN, d};
    const auto out = run(
        op, {{"InputTensors[0]", buffer(d.InputTensors[0], std::vector<uint16_t>{0x7d01, 0x8000, 0x0001, 0xfc00})},
             {"InputTensors[1]", buffer(d.InputTensors[1], std::vector<uint16_t>{0xfe03})}});
    check_bits(as_values<uint16_t>(out.at("OutputTensor")),
               std::vector<uint16_t>{0x7d01, 0x0001, 0xfe03, 0x8000, 0xfc00, 0xfe03});
    // SPLIT into a strided output: OutputTensors[1] {2,1} with Strides {2,1} leaves gaps alone.
    SPLIT s;
    s.InputTensor = desc(DataType::FLOAT64, {2, 2});
    s.OutputTensors = {desc(DataType::FLOAT64, {2, 1}), desc(DataType::FLOAT64, {2, 1}, {2, 1})};
    s.Axis = 1;
    const Operator sop{OperatorType::SPLIT, s};
    const std::vector<uint64_t> x = {0x8000000000000000ull, 0x7ff0000000000001ull, 0x0000000000000001ull,
                                     0xfff8000000000000ull};
    const auto sout = run(sop, {{"InputTensor", buffer(s.InputTensor, x)}});
    check_bits(as_values<uint64_t>(sout.at("OutputTensors[0]")), std::vector<uint64_t>{x[0], x[2]});
    check_bits(as_values<uint64_t>(sout.at("OutputTensors[1]")), std::vector<uint64_t>{x[1], x[3]});
}

TEST_CASE("JOIN and SPLIT against a naive loop: every element width, ranks 1 to 8, every axis, then back") {
    std::mt19937_64 rng(23);
    const DataType types[] = {DataType::INT8, DataType::FLOAT16, DataType::UINT32, DataType::FLOAT64};
    for (uint32_t rank = 1; rank <= 8; ++rank)
        for (DataType t : types) {
            const uint32_t axis = uint32_t(rng() % rank);
            const size_t count = 1 + rng() % 3;
            std::vector<uint32_t> out(rank);
            for (auto& s : out) s = 1 + uint32_t(rng() % 2);
            std::vector<std::vector<uint32_t>> parts(count, out);
            out[axis] = 0;
            for (auto& p : parts) out[axis] += (p[axis] = 1 + uint32_t(rng() % 3));
            INFO("rank " << rank << " axis " << axis << " type " << name(t) << " count " << count);
            const size_t w = element_size(t);
            std::map<std::string, std::vector<std::byte>> in;
            const Operator op = join_op(t, parts, out, axis);
            for (size_t k = 0; k < count; ++k) {
                std::vector<std::byte> b(buffer_size(get<JOIN>(op.Desc).InputTensors[k]));  // rounded up to 4 bytes
                for (auto& x : b) x = std::byte(rng());
                in[element("InputTensors", k)] = b;
            }
            const auto joined = run(op, in).at("OutputTensor");  // packed logical elements
            // Naive: output element o comes from part k at o's coordinate less the parts before k on the axis.
            for (uint64_t o = 0; o < product(out); ++o) {
                std::vector<uint32_t> c = unflatten(o, out);
                size_t k = 0;
                while (c[axis] >= parts[k][axis]) c[axis] -= parts[k++][axis];
                REQUIRE(bits_at(joined, w, o) == bits_at(in[element("InputTensors", k)], w, flatten(c, parts[k])));
            }
            // SPLIT of the join gives the parts back.
            const Operator sop = split_op(t, out, parts, axis);
            std::vector<std::byte> x = joined;
            x.resize(buffer_size(get<SPLIT>(sop.Desc).InputTensor));
            const auto back = run(sop, {{"InputTensor", x}});
            for (size_t k = 0; k < count; ++k) {
                const auto& a = back.at(element("OutputTensors", k));
                const auto& b = in[element("InputTensors", k)];
                REQUIRE(a.size() == product(parts[k]) * w);
                CHECK(std::equal(a.begin(), a.end(), b.begin()));
            }
        }
}

TEST_CASE("JOIN and SPLIT rules: each with its id and path") {
    SUBCASE("counts") {
        CHECK(has_error(join_op(DataType::FLOAT32, {}, {2}, 0), "join.input-count", "/desc/InputTensors"));
        CHECK(has_error(split_op(DataType::FLOAT32, {2}, {}, 0), "split.output-count", "/desc/OutputTensors"));
    }
    SUBCASE("axis") {
        CHECK(has_error(join_op(DataType::FLOAT32, {{2}}, {2}, 1), "join.axis", "/desc/Axis"));
        CHECK(has_error(split_op(DataType::FLOAT32, {2}, {{2}}, 1), "split.axis", "/desc/Axis"));
    }
    SUBCASE("data types and dimension counts") {
        Operator j = join_op(DataType::FLOAT32, {{2}, {1}}, {3}, 0);
        get<JOIN>(j.Desc).InputTensors[1].DataType = DataType::FLOAT16;
        CHECK(has_error(j, "join.same-data-type", "/desc/InputTensors/1/DataType"));
        CHECK(has_error(join_op(DataType::INT8, {{2}, {1, 1}}, {3}, 0), "join.dimension-count",
                        "/desc/InputTensors/1/Sizes"));
        Operator s = split_op(DataType::UINT16, {3}, {{2}, {1}}, 0);
        get<SPLIT>(s.Desc).OutputTensors[0].DataType = DataType::INT16;
        CHECK(has_error(s, "split.same-data-type", "/desc/OutputTensors/0/DataType"));
        CHECK(has_error(split_op(DataType::INT8, {3}, {{2}, {1, 1}}, 0), "split.dimension-count",
                        "/desc/OutputTensors/1/Sizes"));
    }
    SUBCASE("sizes off the axis, and the axis sum") {
        CHECK(has_error(join_op(DataType::FLOAT32, {{2, 3}, {1, 2}}, {3, 3}, 0), "join.sizes",
                        "/desc/InputTensors/1/Sizes/1"));
        CHECK(has_error(join_op(DataType::FLOAT32, {{2, 3}, {1, 3}}, {4, 3}, 0), "join.axis-sum",
                        "/desc/OutputTensor/Sizes/0"));
        CHECK(has_error(split_op(DataType::FLOAT32, {3, 3}, {{2, 3}, {1, 2}}, 0), "split.sizes",
                        "/desc/OutputTensors/1/Sizes/1"));
        CHECK(has_error(split_op(DataType::FLOAT32, {3, 3}, {{2, 3}, {2, 3}}, 0), "split.axis-sum",
                        "/desc/InputTensor/Sizes/0"));
    }
    SUBCASE("a valid desc has no error") {
        CHECK_FALSE(validate(join_op(DataType::UINT64, {{2, 3}, {2, 1}}, {2, 4}, 1)).has_errors());
        CHECK_FALSE(validate(split_op(DataType::UINT64, {2, 4}, {{2, 3}, {2, 1}}, 1)).has_errors());
    }
}

TEST_CASE("tensor arrays in the case format: the count is the array's length, elements are named fields") {
    const std::string base = R"({"format": 1, "operator": "JOIN", "desc": {)";
    const std::string tail =
        R"("InputTensors": [{"DataType": "INT16", "Sizes": [2]}, {"DataType": "INT16", "Sizes": [1]}],
        "OutputTensor": {"DataType": "INT16", "Sizes": [3]}, "Axis": 0},
        "inputs": {"InputTensors[0]": [7, -8], "InputTensors[1]": {"Fill": 9}}})";
    // The count may be left out, or given; a wrong count is an error at its path.
    const Case c = parse_valid(base + tail);
    CHECK(get<JOIN>(c.op.Desc).InputCount() == 2);
    check_bits(as_values<int16_t>(run_case(c).values.at("OutputTensor")), std::vector<int16_t>{7, -8, 9});
    CHECK_FALSE(diagnose(base + R"("InputCount": 2, )" + tail).has_errors());
    const Diagnostics bad = diagnose(base + R"("InputCount": 3, )" + tail);
    CHECK(first_error(bad).find("/desc/InputCount") != std::string::npos);
    CHECK(first_error(bad).find("[case.tensor-count]") != std::string::npos);
    // A missing element's input, and an element that is not a tensor desc, are errors at their paths.
    CHECK(first_error(
              diagnose(base +
                       R"("InputTensors": [{"DataType": "INT16", "Sizes": [2]}, {"DataType": "INT16", "Sizes": [1]}],
        "OutputTensor": {"DataType": "INT16", "Sizes": [3]}, "Axis": 0}, "inputs": {"InputTensors[0]": [7, -8]}})"))
              .find("InputTensors[1]") != std::string::npos);
    CHECK(first_error(diagnose(base + R"("InputTensors": [{"DataType": "INT16", "Sizes": [2]}, 5],
        "OutputTensor": {"DataType": "INT16", "Sizes": [3]}, "Axis": 0}, "inputs": {}})"))
              .find("/desc/InputTensors/1") != std::string::npos);
    // Written back: the count, then the array, in the struct's order.
    Dir dir("join-split-write");
    const auto golden = nlohmann::ordered_json::parse(
        write_golden(with_golden(c, "OutputTensor"), run_case(c), dir / "g.json"));
    std::vector<std::string> keys;
    for (const auto& [k, v] : golden["desc"].items()) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"InputCount", "InputTensors", "OutputTensor", "Axis"});
    CHECK(golden["desc"]["InputCount"] == 2);
}

TEST_CASE("tensor arrays in DxDispatch models: a list of bindings, element offsets included") {
    // DxDispatch binds an array field to a list of resources (its dml_join.json binds one resource
    // twice at two element offsets). A holds 1..10 (a sequence), B 100, 115, 130: the inputs are
    // A[0..2] = 1, 2, 3; B = 100, 115; A[4..8] = 5, 6, 7, 8, 9.
    Dir dir("join-split-dx");
    const std::string model = R"({
        "resources": {
            "A": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 10, "valueStart": 1, "valueDelta": 1}},
            "B": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 3, "valueStart": 100, "valueDelta": 15}},
            "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 10, "value": 0}}},
        "dispatchables": {"join": {"type": "DML_OPERATOR_JOIN", "desc": {"Axis": 0, "InputCount": 3,
            "InputTensors": [{"DataType": "FLOAT32", "Sizes": [3]}, {"DataType": "FLOAT32", "Sizes": [2]}, {"DataType": "FLOAT32", "Sizes": [5]}],
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [10]}}}},
        "commands": [{"type": "dispatch", "dispatchable": "join", "bindings": {
            "InputTensors": [{"name": "A", "elementCount": 3, "elementOffset": 0}, "B", {"name": "A", "elementCount": 5, "elementOffset": 4}],
            "OutputTensor": "Out"}}]})";
    std::ofstream(dir / "m.json", std::ios::binary) << model;
    Diagnostics d;
    const std::string text = import_dxdispatch(dir / "m.json", d);
    for (const auto& item : d.items()) INFO(format(item, "m.json"));
    REQUIRE_FALSE(d.has_errors());
    const Case c = parse_valid(text);
    check_bits(as_values<float>(run_case(c).values.at("OutputTensor")),
               std::vector<float>{1, 2, 3, 100, 115, 5, 6, 7, 8, 9});
    // Exported: the elements bind as one list under the array's name, in order.
    const Operator sop = split_op(DataType::UINT8, {3}, {{1}, {2}}, 0);
    Case s;
    s.op = sop;
    s.inputs["InputTensor"] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{0}};
    const auto m = nlohmann::json::parse(export_dxdispatch(s, "m", "out").model);
    CHECK(m["commands"][0]["bindings"]["OutputTensors"] ==
          nlohmann::json::array({"OutputTensors[0]", "OutputTensors[1]"}));
    CHECK(m["dispatchables"]["split"]["desc"]["OutputCount"] == 2);
    // An array binding with too few entries is an error naming the element.
    std::string short_model = model;
    short_model.replace(short_model.find(R"(, "B", {"name": "A", "elementCount": 5, "elementOffset": 4})"),
                        std::string(R"(, "B", {"name": "A", "elementCount": 5, "elementOffset": 4})").size(), "");
    std::ofstream(dir / "short.json", std::ios::binary) << short_model;
    Diagnostics ds;
    CHECK(import_dxdispatch(dir / "short.json", ds).empty());
    CHECK(first_error(ds).find("nothing is bound to InputTensors[1]") != std::string::npos);
}

TEST_CASE("explain names the source element of JOIN and SPLIT outputs") {
    const Case j = parse_valid(R"({"format": 1, "operator": "JOIN", "desc": {
        "InputTensors": [{"DataType": "INT32", "Sizes": [2, 1]}, {"DataType": "INT32", "Sizes": [2, 2]}],
        "OutputTensor": {"DataType": "INT32", "Sizes": [2, 3]}, "Axis": 1},
        "inputs": {"InputTensors[0]": [10, 20], "InputTensors[1]": [1, 2, 3, 4]}})");
    // Output [1,2] is column 2, which is InputTensors[1]'s column 1: [1,1] = 4.
    const Explanation e = explain_element(with_golden(j, "OutputTensor"), "OutputTensor", 5, std::nullopt, "", {});
    REQUIRE(e.family.inputs.size() == 1);
    CHECK(e.family.inputs[0].tensor == "InputTensors[1]");
    CHECK(e.family.inputs[0].index == std::vector<uint64_t>{1, 1});
    CHECK(e.family.inputs[0].bits == 4);
    const Case s = parse_valid(
        R"({"format": 1, "operator": "SPLIT", "desc": {"InputTensor": {"DataType": "INT32", "Sizes": [2, 3]},
        "OutputTensors": [{"DataType": "INT32", "Sizes": [2, 1]}, {"DataType": "INT32", "Sizes": [2, 2]}], "Axis": 1},
        "inputs": {"InputTensor": [1, 2, 3, 4, 5, 6]}})");
    // OutputTensors[1] element [1,0] is InputTensor [1,1] = 5.
    const Explanation es = explain_element(with_golden(s, "OutputTensors[1]"), "OutputTensors[1]", 2, std::nullopt, "",
                                           {});
    REQUIRE(es.family.inputs.size() == 1);
    CHECK(es.family.inputs[0].tensor == "InputTensor");
    CHECK(es.family.inputs[0].index == std::vector<uint64_t>{1, 1});
    CHECK(es.family.inputs[0].bits == 5);
}

}  // namespace dmlref_test_join_split
