// TOP_K and TOP_K1. Expected values come from the pages' four examples, from hand derivation, or
// from an independent computation written here: each element's rank counted directly (how many
// elements of its sequence order before it, by value, then by index), not by sorting; none comes
// from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/top_k.hpp"

#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_top_k {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using TK = DML_TOP_K_OPERATOR_DESC;
using TK1 = DML_TOP_K1_OPERATOR_DESC;

TK1 make(DataType t, std::vector<uint32_t> in, uint32_t axis, uint32_t k, uint32_t direction,
         DataType index = DataType::UINT32) {
    TK1 d;
    d.InputTensor = desc(t, in);
    in[axis] = k;
    d.OutputValueTensor = desc(t, in);
    d.OutputIndexTensor = desc(index, in);
    d.Axis = axis;
    d.K = k;
    d.AxisDirection = direction;
    return d;
}

template <class T, class I = uint32_t>
std::pair<std::vector<T>, std::vector<I>> top_k(const TK1& d, const std::vector<T>& x) {
    const auto out = run({OperatorType::TOP_K1, d}, {{"InputTensor", logical_buffer(d.InputTensor, x)}});
    return {as_values<T>(out.at("OutputValueTensor")), as_values<I>(out.at("OutputIndexTensor"))};
}

constexpr uint32_t DEC = DML_AXIS_DIRECTION_DECREASING, INC = DML_AXIS_DIRECTION_INCREASING;
const std::vector<float> kPage = {0, 1, 10, 11, 3, 2, 9, 8, 4, 5, 6, 7};
const std::vector<float> kTies = {1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 6, 6};

}  // namespace

TEST_CASE("TOP_K1: the page's four examples") {
    auto e1 = top_k(make(DataType::FLOAT32, {1, 1, 3, 4}, 3, 2, DEC), kPage);
    CHECK(e1.first == std::vector<float>{11, 10, 9, 8, 7, 6});
    CHECK(e1.second == std::vector<uint32_t>{3, 2, 2, 3, 3, 2});
    auto e2 = top_k(make(DataType::FLOAT32, {1, 1, 3, 4}, 2, 2, DEC), kPage);
    CHECK(e2.first == std::vector<float>{4, 5, 10, 11, 3, 2, 9, 8});
    CHECK(e2.second == std::vector<uint32_t>{2, 2, 0, 0, 1, 1, 1, 1});
    auto e3 = top_k(make(DataType::FLOAT32, {1, 1, 3, 4}, 3, 3, DEC), kTies);
    CHECK(e3.first == std::vector<float>{3, 2, 2, 5, 5, 4, 6, 6, 6});
    CHECK(e3.second == std::vector<uint32_t>{3, 1, 2, 2, 3, 1, 0, 1, 2});
    auto e4 = top_k(make(DataType::FLOAT32, {1, 1, 3, 4}, 3, 3, INC), kTies);
    CHECK(e4.first == std::vector<float>{1, 2, 2, 3, 4, 5, 6, 6, 6});
    CHECK(e4.second == std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 0, 1, 2});
    // TOP_K is TOP_K1 DECREASING (the remark): Example 1 again.
    TK d;
    d.InputTensor = desc(DataType::FLOAT32, {1, 1, 3, 4});
    d.OutputValueTensor = desc(DataType::FLOAT32, {1, 1, 3, 2});
    d.OutputIndexTensor = desc(DataType::UINT32, {1, 1, 3, 2});
    d.Axis = 3;
    d.K = 2;
    const auto out = run({OperatorType::TOP_K, d}, {{"InputTensor", buffer(d.InputTensor, kPage)}});
    CHECK(as_values<float>(out.at("OutputValueTensor")) == std::vector<float>{11, 10, 9, 8, 7, 6});
    CHECK(as_values<uint32_t>(out.at("OutputIndexTensor")) == std::vector<uint32_t>{3, 2, 2, 3, 3, 2});
}

TEST_CASE("TOP_K1: NaN orders above +inf, -0 ties +0, ties by lower index in both directions") {
    // Sequence: [1, NaN(0x7fc00001), -0, +inf, NaN(0xffc00002), +0].
    std::vector<float> x;
    for (uint32_t b : {0x3f800000u, 0x7fc00001u, 0x80000000u, 0x7f800000u, 0xffc00002u, 0x00000000u})
        x.push_back(from_bits<float>(b));
    // DECREASING, K 6: NaN at 1, NaN at 4 (NaNs equal: lower index first), +inf 3, 1 at 0, -0 at 2, +0 at 5.
    auto dec = top_k(make(DataType::FLOAT32, {6}, 0, 6, DEC), x);
    check_bits(dec.first, std::vector<float>{x[1], x[4], x[3], x[0], x[2], x[5]});
    CHECK(dec.second == std::vector<uint32_t>{1, 4, 3, 0, 2, 5});
    // INCREASING, K 4: -0 at 2 and +0 at 5 tie (2 first), then 1, +inf; the NaNs come last and are not selected.
    auto inc = top_k(make(DataType::FLOAT32, {6}, 0, 4, INC), x);
    check_bits(inc.first, std::vector<float>{x[2], x[5], x[0], x[3]});
    CHECK(inc.second == std::vector<uint32_t>{2, 5, 0, 3});
}

TEST_CASE("TOP_K1 against a rank count: every axis, both directions, integers and UINT64 indices") {
    uint64_t s = 9;
    auto next = [&](uint32_t n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t((s >> 33) % n);
    };
    for (int trial = 0; trial < 30; ++trial) {
        const uint32_t R = 1 + next(4), axis = next(R);
        std::vector<uint32_t> sizes(R);
        for (auto& v : sizes) v = 1 + next(4);
        const uint32_t n = sizes[axis], k = 1 + next(n), dir = next(2);
        size_t count = 1;
        for (uint32_t v : sizes) count *= v;
        std::vector<int16_t> x(count);
        for (auto& v : x) v = int16_t(int(next(7)) - 3);  // many ties
        // Expected: for each element, its rank = #{j in its sequence: x_j before x_i, or x_j == x_i and j < i}.
        std::vector<uint32_t> out_sizes = sizes;
        out_sizes[axis] = k;
        size_t out_count = count / n * k;
        std::vector<int16_t> ev(out_count);
        std::vector<uint64_t> ei(out_count);
        size_t inner = 1;
        for (uint32_t i = axis + 1; i < R; ++i) inner *= sizes[i];
        for (size_t f = 0; f < count; ++f) {
            const size_t pos = (f / inner) % n, base = f - pos * inner;
            size_t rank = 0;
            for (size_t j = 0; j < n; ++j) {
                const int16_t a = x[base + j * inner], b = x[f];
                if ((dir == DEC ? a > b : a < b) || (a == b && j < pos)) ++rank;
            }
            if (rank < k) {
                const size_t o = (f / (inner * n)) * (inner * k) + rank * inner + f % inner;
                ev[o] = x[f];
                ei[o] = pos;
            }
        }
        INFO("trial " << trial << ": sizes " << sizes_text(sizes) << ", axis " << axis << ", K " << k << ", direction "
                      << dir);
        auto got = top_k<int16_t, uint64_t>(make(DataType::INT16, sizes, axis, k, dir, DataType::UINT64), x);
        CHECK(got.first == ev);
        CHECK(got.second == ei);
    }
}

TEST_CASE("top-k validation: the pages' constraints, each with its rule") {
    TK1 d = make(DataType::FLOAT32, {2, 5}, 1, 3, DEC);
    CHECK_FALSE(validate({OperatorType::TOP_K1, d}).has_errors());
    TK1 b = d;
    b.OutputValueTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.same-data-type", "/desc/OutputValueTensor/DataType"));
    b = d;
    b.OutputIndexTensor.DataType = DataType::INT32;
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.index-data-type", "/desc/OutputIndexTensor/DataType"));
    b = d;
    b.OutputIndexTensor.Sizes = {6};
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.dimension-count", "/desc/OutputIndexTensor/Sizes"));
    b = d;
    b.Axis = 2;
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.axis", "/desc/Axis"));
    b = d;
    b.K = 6;
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.k", "/desc/K"));
    b.K = 0;
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.k", "/desc/K"));
    b = d;
    b.OutputValueTensor.Sizes = {2, 2};
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.output-sizes", "/desc/OutputValueTensor/Sizes"));
    b = d;
    b.AxisDirection = 2;
    CHECK(has_error({OperatorType::TOP_K1, b}, "top-k1.axis-direction", "/desc/AxisDirection"));
    // K equal to the size is taken (the sorted sequence).
    b = make(DataType::UINT8, {5}, 0, 5, INC);
    CHECK_FALSE(validate({OperatorType::TOP_K1, b}).has_errors());
    // Feature levels: TOP_K1 4-D FLOAT32 from 2.1, 2-D from 3.1.
    CHECK(lowest_supporting_feature_level({OperatorType::TOP_K1, make(DataType::FLOAT32, {1, 1, 2, 5}, 3, 2, DEC)},
                                          nullptr) == 0x2100u);
    CHECK(lowest_supporting_feature_level({OperatorType::TOP_K1, d}, nullptr) == 0x3100u);
}

}  // namespace dmlref_test_top_k
