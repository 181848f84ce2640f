// REVERSE_SUBSEQUENCES. Expected values come from the page's examples, by hand, or from a naive
// loop written here (each sequence gathered into a vector and its first L elements reversed with
// std::reverse); none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/reverse.hpp"
#include "dmlref/explain.hpp"

#include <algorithm>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_reverse {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using REVERSE = DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC;

REVERSE reverse_desc(DataType t, std::vector<uint32_t> sizes, uint32_t axis, DataType lengths = DataType::UINT32) {
    REVERSE d;
    d.InputTensor = desc(t, sizes);
    d.OutputTensor = desc(t, sizes);
    sizes[axis] = 1;
    d.SequenceLengthsTensor = desc(lengths, sizes);
    d.Axis = axis;
    return d;
}
Operator op(const REVERSE& d) { return Operator{OperatorType::REVERSE_SUBSEQUENCES, d}; }

template <class T, class L>
std::vector<T> run_reverse(const REVERSE& d, const std::vector<T>& x, const std::vector<L>& lengths) {
    return as_values<T>(run(op(d), {{"InputTensor", logical_buffer(d.InputTensor, x)},
                                    {"SequenceLengthsTensor", logical_buffer(d.SequenceLengthsTensor, lengths)}})
                            .at("OutputTensor"));
}

const std::vector<float> kTwelve = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

}  // namespace

TEST_CASE("REVERSE_SUBSEQUENCES: the page's examples") {
    // Example 1: {1,1,3,4}, Axis 3, lengths [2, 4, 3]: [2,1,3,4], [8,7,6,5], [11,10,9,12].
    const REVERSE a = reverse_desc(DataType::FLOAT32, {1, 1, 3, 4}, 3);
    check_bits(run_reverse(a, kTwelve, std::vector<uint32_t>{2, 4, 3}),
               std::vector<float>{2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12});
    // Example 2: Axis 2, lengths [2, 3, 1, 0] per column: lengths 1 and 0 change nothing.
    const REVERSE b = reverse_desc(DataType::FLOAT32, {1, 1, 3, 4}, 2);
    check_bits(run_reverse(b, kTwelve, std::vector<uint32_t>{2, 3, 1, 0}),
               std::vector<float>{5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12});
}

TEST_CASE("REVERSE_SUBSEQUENCES: lengths beyond the axis are clamped; the four length types; bits kept") {
    // Axis 1 of size 4: UINT64 2^40 and UINT32 5 both reverse the whole row.
    const REVERSE u64 = reverse_desc(DataType::INT8, {2, 4}, 1, DataType::UINT64);
    check_bits(
        run_reverse(u64, std::vector<int8_t>{1, 2, 3, 4, 5, 6, 7, 8}, std::vector<uint64_t>{uint64_t(1) << 40, 3}),
        std::vector<int8_t>{4, 3, 2, 1, 7, 6, 5, 8});
    const REVERSE u32 = reverse_desc(DataType::UINT16, {2, 4}, 1);
    check_bits(run_reverse(u32, std::vector<uint16_t>{1, 2, 3, 4, 5, 6, 7, 8}, std::vector<uint32_t>{5, 0}),
               std::vector<uint16_t>{4, 3, 2, 1, 5, 6, 7, 8});
    // INT64 lengths: INT64's maximum is clamped; INT32 lengths 2 and 4.
    const REVERSE i64 = reverse_desc(DataType::UINT64, {2, 3}, 1, DataType::INT64);
    check_bits(run_reverse(i64, std::vector<uint64_t>{1, 2, 3, 4, 5, 6},
                           std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 2}),
               std::vector<uint64_t>{3, 2, 1, 5, 4, 6});
    const REVERSE i32 = reverse_desc(DataType::FLOAT64, {2, 2}, 0, DataType::INT32);
    check_bits(run_reverse(i32, std::vector<double>{1, 2, 3, 4}, std::vector<int32_t>{2, 1}),
               std::vector<double>{3, 2, 1, 4});
    // FLOAT16 bits: a signalling NaN 0x7d01 and -0 swap places unchanged.
    const REVERSE h = reverse_desc(DataType::FLOAT16, {2}, 0);
    check_bits(run_reverse(h, std::vector<uint16_t>{0x7d01, 0x8000}, std::vector<uint32_t>{2}),
               std::vector<uint16_t>{0x8000, 0x7d01});
}

TEST_CASE("REVERSE_SUBSEQUENCES against a naive loop: ranks 1 to 8, every axis, strided and broadcast inputs") {
    std::mt19937_64 rng(11);
    for (uint32_t rank = 1; rank <= 8; ++rank)
        for (uint32_t axis = 0; axis < rank; ++axis) {
            std::vector<uint32_t> sizes(rank);
            for (auto& s : sizes) s = 1 + uint32_t(rng() % (rank > 5 ? 2 : 4));
            sizes[axis] = 2 + uint32_t(rng() % 3);
            INFO("rank " << rank << " axis " << axis);
            REVERSE d = reverse_desc(DataType::UINT32, sizes, axis);
            // The input stored column-major (strided); the lengths broadcast along dimension 0
            // where it is not the axis (a zero stride).
            std::vector<uint32_t> strides(rank);
            uint32_t s = 1;
            for (uint32_t i = 0; i < rank; ++i) {
                strides[i] = s;
                s *= sizes[i];
            }
            d.InputTensor.Strides = strides;
            const uint64_t n = product(sizes), m = product(d.SequenceLengthsTensor.Sizes);
            std::vector<uint32_t> x(n), len(m);
            for (auto& v : x) v = uint32_t(rng());
            for (auto& v : len) v = uint32_t(rng() % (sizes[axis] + 3));
            if (axis != 0 && sizes[0] > 1) {
                std::vector<uint32_t> ls(rank);
                uint32_t t = 1;
                for (uint32_t i = rank; i-- > 0;) {
                    ls[i] = t;
                    t *= d.SequenceLengthsTensor.Sizes[i];
                }
                ls[0] = 0;
                d.SequenceLengthsTensor.Strides = ls;
                for (uint64_t i = 0; i < m; ++i) len[i] = len[i % (m / sizes[0])];  // what the broadcast reads
            }
            const std::vector<uint32_t> y = run_reverse(d, x, len);
            // Each sequence: its elements in a vector, the first min(L, size) reversed.
            for (uint64_t f = 0; f < m; ++f) {
                std::vector<uint32_t> c = unflatten(f, d.SequenceLengthsTensor.Sizes);
                const uint32_t L = std::min(len[f], sizes[axis]);
                std::vector<uint32_t> seq;
                for (uint32_t k = 0; k < sizes[axis]; ++k) {
                    c[axis] = k;
                    seq.push_back(x[flatten(c, sizes)]);
                }
                std::reverse(seq.begin(), seq.begin() + L);
                for (uint32_t k = 0; k < sizes[axis]; ++k) {
                    c[axis] = k;
                    REQUIRE(y[flatten(c, sizes)] == seq[k]);
                }
            }
        }
}

TEST_CASE("REVERSE_SUBSEQUENCES rules, each with its id and path; explain names the source") {
    REVERSE d = reverse_desc(DataType::FLOAT32, {2, 3}, 1);
    CHECK_FALSE(validate(op(d)).has_errors());
    SUBCASE("same-data-type") {
        d.OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op(d), "reverse-subsequences.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("lengths-data-type") {
        d.SequenceLengthsTensor.DataType = DataType::FLOAT32;
        CHECK(has_error(op(d), "reverse-subsequences.lengths-data-type", "/desc/SequenceLengthsTensor/DataType"));
    }
    SUBCASE("dimension-count") {
        d.SequenceLengthsTensor.Sizes = {2, 1, 1};
        CHECK(has_error(op(d), "reverse-subsequences.dimension-count", "/desc/SequenceLengthsTensor/Sizes"));
    }
    SUBCASE("axis") {
        d.Axis = 2;
        CHECK(has_error(op(d), "reverse-subsequences.axis", "/desc/Axis"));
    }
    SUBCASE("output-sizes") {
        d.OutputTensor.Sizes = {2, 4};
        CHECK(has_error(op(d), "reverse-subsequences.output-sizes", "/desc/OutputTensor/Sizes/1"));
    }
    SUBCASE("lengths-sizes") {
        d.SequenceLengthsTensor.Sizes = {2, 3};
        CHECK(has_error(op(d), "reverse-subsequences.lengths-sizes", "/desc/SequenceLengthsTensor/Sizes/1"));
    }
    SUBCASE("negative-length, on the values") {
        const Diagnostics v = diagnose(R"({"format": 1, "operator": "REVERSE_SUBSEQUENCES", "desc": {
            "InputTensor": {"DataType": "INT8", "Sizes": [3, 2]}, "SequenceLengthsTensor": {"DataType": "INT32", "Sizes": [1, 2]},
            "OutputTensor": {"DataType": "INT8", "Sizes": [3, 2]}, "Axis": 0},
            "inputs": {"InputTensor": [1, 2, 3, 4, 5, 6], "SequenceLengthsTensor": [3, -1]}})");
        CHECK(first_error(v).find("reverse-subsequences.negative-length") != std::string::npos);
        CHECK(first_error(v).find("/inputs/SequenceLengthsTensor/1") != std::string::npos);
    }
    SUBCASE("explain") {
        const Case c = parse_valid(R"({"format": 1, "operator": "REVERSE_SUBSEQUENCES", "desc": {
            "InputTensor": {"DataType": "INT32", "Sizes": [2, 3]}, "SequenceLengthsTensor": {"DataType": "UINT32", "Sizes": [2, 1]},
            "OutputTensor": {"DataType": "INT32", "Sizes": [2, 3]}, "Axis": 1},
            "inputs": {"InputTensor": [1, 2, 3, 4, 5, 6], "SequenceLengthsTensor": [9, 2]}})");
        // Output [0, 0]: length 9 clamped to 3, source [0, 2] = 3; output [1, 2] is past the length 2: [1, 2] = 6.
        const Explanation e = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 0, std::nullopt, "", {});
        REQUIRE(e.family.inputs.size() == 2);
        CHECK(e.family.inputs[1].index == std::vector<uint64_t>{0, 2});
        CHECK(e.family.inputs[1].bits == 3);
        const Explanation f = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 5, std::nullopt, "", {});
        CHECK(f.family.inputs[1].bits == 6);
    }
}

}  // namespace dmlref_test_reverse
