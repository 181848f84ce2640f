// TILE. Expected values come from the page's example, by hand, or from a naive loop written here
// (each output element's source as its coordinate modulo the input's sizes); none comes from
// dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/tile.hpp"
#include "dmlref/explain.hpp"

#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_tile {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using TILE = DML_TILE_OPERATOR_DESC;

TILE tile_desc(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> repeats) {
    TILE d;
    std::vector<uint32_t> out = in;
    for (size_t i = 0; i < in.size(); ++i) out[i] *= repeats[i];
    d.InputTensor = desc(t, std::move(in));
    d.OutputTensor = desc(t, std::move(out));
    d.RepeatsCount = uint32_t(repeats.size());
    d.Repeats = std::move(repeats);
    return d;
}
Operator op(const TILE& d) { return Operator{OperatorType::TILE, d}; }

}  // namespace

TEST_CASE("TILE: the page's example, and bits moved from a broadcast input") {
    // [[1, 2], [3, 4]] with Repeats [1, 2] is [[1, 2, 1, 2], [3, 4, 3, 4]].
    const TILE d = tile_desc(DataType::FLOAT32, {2, 2}, {1, 2});
    check_bits(
        as_values<float>(
            run(op(d), {{"InputTensor", buffer(d.InputTensor, std::vector<float>{1, 2, 3, 4})}}).at("OutputTensor")),
        std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4});
    // FLOAT16 {2,1} broadcast from one signalling NaN 0x7d01 (Strides {0,1}), Repeats [1, 3]: six
    // copies of its bits, not quieted.
    TILE b = tile_desc(DataType::FLOAT16, {2, 1}, {1, 3});
    b.InputTensor.Strides = {0, 1};
    check_bits(
        as_values<uint16_t>(
            run(op(b), {{"InputTensor", buffer(b.InputTensor, std::vector<uint16_t>{0x7d01})}}).at("OutputTensor")),
        std::vector<uint16_t>(6, 0x7d01));
    // INT64 extremes tiled on both axes of a {1,2}: [a, b] -> [[a, b, a, b], [a, b, a, b]].
    const int64_t a = std::numeric_limits<int64_t>::min(), c = 9007199254740993;
    const TILE e = tile_desc(DataType::INT64, {1, 2}, {2, 2});
    check_bits(as_values<int64_t>(
                   run(op(e), {{"InputTensor", buffer(e.InputTensor, std::vector<int64_t>{a, c})}}).at("OutputTensor")),
               std::vector<int64_t>{a, c, a, c, a, c, a, c});
}

TEST_CASE("TILE against a naive loop: every element width, ranks 1 to 8, a strided output") {
    std::mt19937_64 rng(7);
    const DataType types[] = {DataType::INT8, DataType::UINT16, DataType::FLOAT32, DataType::UINT64};
    for (uint32_t rank = 1; rank <= 8; ++rank)
        for (DataType t : types) {
            std::vector<uint32_t> in(rank), rep(rank);
            for (uint32_t i = 0; i < rank; ++i) {
                in[i] = 1 + uint32_t(rng() % 3);
                rep[i] = 1 + uint32_t(rng() % (rank > 5 ? 2 : 3));
            }
            INFO("rank " << rank << " type " << name(t));
            TILE d = tile_desc(t, in, rep);
            // The output stored column-major: a strided write.
            std::vector<uint32_t> strides(rank);
            uint32_t s = 1;
            for (uint32_t i = 0; i < rank; ++i) {
                strides[i] = s;
                s *= d.OutputTensor.Sizes[i];
            }
            d.OutputTensor.Strides = strides;
            const size_t w = element_size(t);
            std::vector<std::byte> x(buffer_size(d.InputTensor));
            for (auto& v : x) v = std::byte(rng());
            const auto out = run(op(d), {{"InputTensor", x}}).at("OutputTensor");  // logical order
            for (uint64_t o = 0; o < product(d.OutputTensor.Sizes); ++o) {
                std::vector<uint32_t> c = unflatten(o, d.OutputTensor.Sizes);
                for (uint32_t i = 0; i < rank; ++i) c[i] %= in[i];
                REQUIRE(std::memcmp(out.data() + o * w, x.data() + flatten(c, in) * w, w) == 0);
            }
        }
}

TEST_CASE("TILE rules: each with its id and path; explain names the source") {
    TILE d = tile_desc(DataType::UINT8, {2, 3}, {2, 1});
    CHECK_FALSE(validate(op(d)).has_errors());
    SUBCASE("same-data-type") {
        d.OutputTensor.DataType = DataType::INT8;
        CHECK(has_error(op(d), "tile.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("array-length") {
        d.Repeats = {2};
        CHECK(has_error(op(d), "tile.array-length", "/desc/Repeats"));
    }
    SUBCASE("dimension-count") {
        d.RepeatsCount = 3;
        d.Repeats = {2, 1, 1};
        CHECK(has_error(op(d), "tile.dimension-count", "/desc/RepeatsCount"));
    }
    SUBCASE("output-size") {
        d.OutputTensor.Sizes = {4, 6};
        CHECK(has_error(op(d), "tile.output-size", "/desc/OutputTensor/Sizes/1"));
    }
    SUBCASE("explain") {
        const Case c = parse_valid(
            R"({"format": 1, "operator": "TILE", "desc": {"InputTensor": {"DataType": "INT32", "Sizes": [2, 3]},
            "OutputTensor": {"DataType": "INT32", "Sizes": [4, 3]}, "RepeatsCount": 2, "Repeats": [2, 1]},
            "inputs": {"InputTensor": [1, 2, 3, 4, 5, 6]}})");
        // Output [3, 1] is input [1, 1] = 5.
        const Explanation e = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 10, std::nullopt, "", {});
        REQUIRE(e.family.inputs.size() == 1);
        CHECK(e.family.inputs[0].index == std::vector<uint64_t>{1, 1});
        CHECK(e.family.inputs[0].bits == 5);
    }
}

}  // namespace dmlref_test_tile
