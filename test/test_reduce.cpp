// dmlref reduce's pieces: the failure classes (hand-picked bit patterns) and the search with an
// in-process planted backend (dmlref's own outputs with +inf saturated to the largest finite).
#include "support.hpp"

#include "dmlref/reduce.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_reduce {

using namespace dmlref;
using namespace dmlref::test;

TEST_CASE("failure classes from golden and actual bits") {
    const DataType f = DataType::FLOAT32;
    CHECK(failure_class(f, 0x7fc00000, 0x00000000) == "NaN");         // NaN golden, zero actual
    CHECK(failure_class(f, 0x3f800000, 0xffc00000) == "NaN");         // 1 golden, NaN actual
    CHECK(failure_class(f, 0x7f800000, 0x7f7fffff) == "Infinity");    // +inf against the largest finite
    CHECK(failure_class(f, 0x80000000, 0x00000000) == "SignedZero");  // -0 against +0
    CHECK(failure_class(f, 0x00000001, 0x00000000) == "FlushedSubnormal");
    CHECK(failure_class(f, 0x00800000, 0x00000000) == "Finite");  // the smallest normal is not subnormal
    CHECK(failure_class(f, 0x3f800000, 0x3f800001) == "Finite");
    CHECK(failure_class(DataType::FLOAT16, 0x0001, 0x0000) == "FlushedSubnormal");
    CHECK(failure_class(DataType::FLOAT16, 0x0400, 0x0000) == "Finite");
    CHECK(failure_class(DataType::INT32, 5, 6) == "Finite");
}

TEST_CASE("reduce keeps the failure's kind and shrinks a slice to one element") {
    // SLICE of a 6x8 input, window 4x5 from (1, 2); +inf at input [3, 4] (window [2, 2]).
    std::string values;
    for (int i = 0; i < 48; ++i)
        values += (i ? ", " : "") + (i == 3 * 8 + 4 ? std::string("\"inf\"") : std::to_string(i));
    Diagnostics d;
    const Case c = parse_case(parse_json_text(R"({"format": 1, "name": "s", "operator": "SLICE1",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [6, 8]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4, 5]},
                 "DimensionCount": 2, "InputWindowOffsets": [1, 2], "InputWindowSizes": [4, 5], "InputWindowStrides": [1, 1]},
        "inputs": {"InputTensor": [)" + values +
                                              "]}}"),
                              "s.json", d);
    for (const auto& item : d.items()) INFO(format(item, "s.json"));
    REQUIRE_FALSE(d.has_errors());
    size_t calls = 0;
    const Backend saturating = [&](const Case& k) {
        ++calls;
        auto out = run_case(k).values;
        for (auto& [name, b] : out)
            for (size_t i = 0; i < b.size(); i += 4)
                if (load_bits(DataType::FLOAT32, b.data() + i) == 0x7f800000)
                    store_bits(DataType::FLOAT32, b.data() + i, 0x7f7fffff);
        return std::optional(out);
    };
    const ReduceResult r = reduce(c, saturating, {});
    CHECK(r.kind == FailureKind{"OutputTensor", "Infinity"});
    CHECK(r.elements_before == 48 + 20);
    CHECK(r.elements_after == 2);
    CHECK(r.runs == calls);
    // The reproducer still fails that way: its one input element is +inf.
    const auto& in = r.reduced.inputs.at("InputTensor");
    CHECK(load_bits(DataType::FLOAT32, in.data()) == 0x7f800000);

    const Backend correct = [](const Case& k) { return std::optional(run_case(k).values); };
    CHECK_THROWS_AS(reduce(c, correct, {}), std::runtime_error);
}

}  // namespace dmlref_test_reduce
