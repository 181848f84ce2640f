// NONZERO_COORDINATES. Expected values come from the page's example, by hand, or from a naive
// loop written here (an odometer over the coordinates and a typed `value != 0`, not the bit masks
// and divisions of reference/nonzero_coordinates.cpp); none comes from dmlref's evaluation. Also
// the kit's case_dont_care hook: the golden marks the rows past the count DontCare.
#include "support.hpp"

#include "dmlref/descs/nonzero_coordinates.hpp"

#include <nlohmann/json.hpp>

#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_nonzero_coordinates {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using NZ = DML_NONZERO_COORDINATES_OPERATOR_DESC;

NZ nz(DataType t, std::vector<uint32_t> sizes, uint32_t n, std::vector<uint32_t> strides = {}) {
    NZ d;
    const uint32_t rank = uint32_t(sizes.size());
    uint32_t m = 1;
    for (uint32_t s : sizes) m *= s;
    d.InputTensor = desc(t, std::move(sizes), std::move(strides));
    d.OutputCountTensor = desc(DataType::UINT32, std::vector<uint32_t>(rank, 1));
    std::vector<uint32_t> cs(rank, 1);
    cs[rank - 2] = m;
    cs[rank - 1] = n;
    d.OutputCoordinatesTensor = desc(DataType::UINT32, cs);
    return d;
}

template <class T> Case nz_case(const NZ& d, const std::vector<T>& values) {
    Case c;
    c.op = Operator{NZ::kType, d};
    c.inputs = {{"InputTensor", logical_buffer<T>(d.InputTensor, values)}};
    return c;
}

// (count, the first count rows of coordinates) as dmlref computes them.
std::pair<uint32_t, std::vector<uint32_t>> outputs(const Case& c) {
    const auto o = run(c.op, c.inputs);
    const uint32_t count = as_values<uint32_t>(o.at("OutputCountTensor")).at(0);
    auto coords = as_values<uint32_t>(o.at("OutputCoordinatesTensor"));
    const uint32_t n = get<NZ>(c.op.Desc).OutputCoordinatesTensor.Sizes.back();
    REQUIRE(coords.size() >= size_t(count) * n);
    coords.resize(size_t(count) * n);
    return {count, coords};
}

// The naive expectation: walk the coordinates as an odometer (last dimension fastest), keep those
// whose value compares unequal to zero, and write their last n dimensions.
template <class T>
std::vector<uint32_t> naive(const std::vector<uint32_t>& sizes, const std::vector<T>& values, uint32_t n) {
    std::vector<uint32_t> at(sizes.size(), 0), rows;
    for (const T& v : values) {
        bool keep;
        if constexpr (is_floating_v<T>) keep = !(double(widen(v)) == 0.0);  // NaN == 0 is false
        else keep = v != T(0);
        if (keep)
            for (size_t k = sizes.size() - n; k < sizes.size(); ++k) rows.push_back(at[k]);
        for (size_t k = sizes.size(); k-- > 0;) {
            if (++at[k] < sizes[k]) break;
            at[k] = 0;
        }
    }
    return rows;
}

template <class T> void against_naive(std::mt19937_64& g, DataType t) {
    for (uint32_t rank = 2; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank, 1);
        sizes[rank - 1] = 3;
        sizes[rank / 2] = 2;
        if (rank > 2) sizes[1] = 2;
        const uint64_t m = product(sizes);
        std::vector<T> v(m);
        for (auto& x : v) x = g() % 3 == 0 ? value_of<T>(double(g() % 5)) : value_of<T>(0);
        uint32_t lead = 0;
        while (sizes[lead] == 1) ++lead;
        for (uint32_t n = rank - lead; n <= rank; ++n) {
            INFO("type " << name(t) << ", rank " << rank << ", N " << n);
            const auto [count, coords] = outputs(nz_case<T>(nz(t, sizes, n), v));
            const auto expected = naive<T>(sizes, v, n);
            CHECK(size_t(count) * n == expected.size());
            check_bits(coords, expected);
        }
    }
}

}  // namespace

TEST_CASE("NONZERO_COORDINATES: the page's example") {
    // {1,1,2,4} FLOAT32 [[1, 0, 0, 2], [-0, 3.5, 0, -5.2]], N = 3: four non-zero elements (-0 is
    // zero) at [0,0,0], [0,0,3], [0,1,1], [0,1,3].
    const auto [count, coords] = outputs(
        nz_case<float>(nz(DataType::FLOAT32, {1, 1, 2, 4}, 3), {1, 0, 0, 2, -0.0f, 3.5f, 0, -5.2f}));
    CHECK(count == 4);
    check_bits(coords, std::vector<uint32_t>{0, 0, 0, 0, 0, 3, 0, 1, 1, 0, 1, 3});
    // The page's ordering example: non-zero at {1,0}, {1,2}, {0,5} of a {2,6} input: [[0,5], [1,0], [1,2]].
    std::vector<int32_t> v(12, 0);
    v[1 * 6 + 0] = 7;
    v[1 * 6 + 2] = -1;
    v[0 * 6 + 5] = 3;
    const auto [c2, k2] = outputs(nz_case<int32_t>(nz(DataType::INT32, {2, 6}, 2), v));
    CHECK(c2 == 3);
    check_bits(k2, std::vector<uint32_t>{0, 5, 1, 0, 1, 2});
}

TEST_CASE("NONZERO_COORDINATES: -0 is zero, NaN, infinities and subnormals are not") {
    // FLOAT16 [NaN, -0, +0, 2^-24 (0x0001), -inf, 0x8001 (-2^-24)]: elements 0, 3, 4, 5.
    const std::vector<half> h = {from_bits<half>(uint16_t(0x7e00)), from_bits<half>(uint16_t(0x8000)),
                                 from_bits<half>(uint16_t(0)),      from_bits<half>(uint16_t(1)),
                                 from_bits<half>(uint16_t(0xfc00)), from_bits<half>(uint16_t(0x8001))};
    const auto [count, coords] = outputs(nz_case<half>(nz(DataType::FLOAT16, {2, 3}, 2), h));
    CHECK(count == 4);
    check_bits(coords, std::vector<uint32_t>{0, 0, 1, 0, 1, 1, 1, 2});
    // FLOAT64 -0 and a negative NaN; INT8 -128 is not zero.
    const auto [c64, k64] = outputs(
        nz_case<double>(nz(DataType::FLOAT64, {1, 3}, 1), {-0.0, -std::numeric_limits<double>::quiet_NaN(), 0.0}));
    CHECK(c64 == 1);
    check_bits(k64, std::vector<uint32_t>{1});
    const auto [c8, k8] = outputs(nz_case<int8_t>(nz(DataType::INT8, {1, 2}, 1), {0, -128}));
    CHECK(c8 == 1);
    check_bits(k8, std::vector<uint32_t>{1});
}

TEST_CASE("NONZERO_COORDINATES: ranks 2 to 8, every N allowed, types, strided input, against the naive loop") {
    std::mt19937_64 g(20261127);
    against_naive<float>(g, DataType::FLOAT32);
    against_naive<half>(g, DataType::FLOAT16);
    against_naive<uint64_t>(g, DataType::UINT64);
    against_naive<int16_t>(g, DataType::INT16);
    // A column-major {3, 4} input: logical order still decides the rows.
    std::vector<uint8_t> v = {0, 1, 0, 2, 3, 0, 0, 0, 0, 0, 0, 9};
    const auto [count, coords] = outputs(nz_case<uint8_t>(nz(DataType::UINT8, {3, 4}, 2, {1, 3}), v));
    CHECK(count == 4);
    check_bits(coords, std::vector<uint32_t>{0, 1, 0, 3, 1, 0, 2, 3});
    // All zero: count 0, every row past it.
    const auto [c0, k0] = outputs(nz_case<uint32_t>(nz(DataType::UINT32, {2, 2}, 2), {0, 0, 0, 0}));
    CHECK(c0 == 0);
}

TEST_CASE("NONZERO_COORDINATES: the golden marks the rows past the count DontCare (kit case_dont_care)") {
    // {1,1,2,4} with 3 non-zero elements, N = 4: rows 3 to 7, elements 12 to 31 of the {1,1,8,4}
    // coordinates, are DontCare; the count and rows 0 to 2 are not.
    const Case c = parse_valid(R"({"format": 1, "name": "nz", "operator": "NONZERO_COORDINATES",
        "desc": {"InputTensor": {"DataType": "INT32", "Sizes": [1, 1, 2, 4]}, "OutputCountTensor": {"DataType": "UINT32", "Sizes": [1, 1, 1, 1]},
                 "OutputCoordinatesTensor": {"DataType": "UINT32", "Sizes": [1, 1, 8, 4]}},
        "inputs": {"InputTensor": [0, 5, 0, 0, 0, 0, -2, 8]}})",
                               "nz.json");
    const auto j = nlohmann::json::parse(write_golden(c, run_case(c), "nz.json"));
    const auto& e = j["expected"];
    CHECK_FALSE(e["OutputCountTensor"].contains("DontCare"));
    REQUIRE(e["OutputCoordinatesTensor"].contains("DontCare"));
    std::vector<uint64_t> idx;
    for (const auto& x : e["OutputCoordinatesTensor"]["DontCare"]) idx.push_back(x["Index"].get<uint64_t>());
    std::vector<uint64_t> want;
    for (uint64_t i = 12; i < 32; ++i) want.push_back(i);
    CHECK(idx == want);
    // Read back, the golden's own run matches it whatever the backend leaves in those rows.
    Diagnostics d;
    const Case golden = parse_case(parse_json_text(write_golden(c, run_case(c), "nz.json")), "nz.json", d);
    REQUIRE_FALSE(d.has_errors());
    auto o = run_case(golden);
    for (uint64_t i = 12; i < 32; ++i)
        reinterpret_cast<uint32_t*>(o.values.at("OutputCoordinatesTensor").data())[i] = 0xdeadbeef;
    CHECK(compare_expected(golden, o).empty());
    reinterpret_cast<uint32_t*>(o.values.at("OutputCoordinatesTensor").data())[11] = 7;  // row 2 is judged
    CHECK(compare_expected(golden, o).size() == 1);
}

TEST_CASE("NONZERO_COORDINATES: validation") {
    auto op = [](const NZ& d) { return Operator{NZ::kType, d}; };
    NZ d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 3);
    d.OutputCountTensor.DataType = DataType::UINT64;
    CHECK(has_error(op(d), "nonzero-coordinates.count-data-type", "/desc/OutputCountTensor/DataType"));
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 3);
    d.OutputCountTensor.Sizes = {1, 1, 1, 2};
    CHECK(has_error(op(d), "nonzero-coordinates.count-sizes", "/desc/OutputCountTensor/Sizes"));
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 3);
    d.OutputCoordinatesTensor.DataType = DataType::INT64;
    CHECK(has_error(op(d), "nonzero-coordinates.coordinates-data-type", "/desc/OutputCoordinatesTensor/DataType"));
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 3);
    d.OutputCountTensor.Sizes = {1, 1, 1};
    CHECK(has_error(op(d), "nonzero-coordinates.dimension-count", "/desc/OutputCountTensor/Sizes"));
    // N below the effective rank (2 here), above the DimensionCount, M not the element count.
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 1);
    CHECK(has_error(op(d), "nonzero-coordinates.coordinates-sizes", "/desc/OutputCoordinatesTensor/Sizes"));
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 5);
    CHECK(has_error(op(d), "nonzero-coordinates.coordinates-sizes", "/desc/OutputCoordinatesTensor/Sizes"));
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 2);
    d.OutputCoordinatesTensor.Sizes = {1, 1, 7, 2};
    CHECK(has_error(op(d), "nonzero-coordinates.coordinates-sizes", "/desc/OutputCoordinatesTensor/Sizes"));
    d = nz(DataType::FLOAT32, {1, 1, 2, 4}, 2);
    d.OutputCoordinatesTensor.Sizes = {2, 1, 4, 2};
    CHECK(has_error(op(d), "nonzero-coordinates.coordinates-sizes", "/desc/OutputCoordinatesTensor/Sizes"));
    // One dimension: the coordinates need two.
    d.InputTensor = desc(DataType::FLOAT32, {4});
    d.OutputCountTensor = desc(DataType::UINT32, {1});
    d.OutputCoordinatesTensor = desc(DataType::UINT32, {4});
    CHECK(has_error(op(d), "nonzero-coordinates.dimension-count", "/desc/InputTensor/Sizes"));
}

}  // namespace dmlref_test_nonzero_coordinates
