// SPACE_TO_DEPTH, SPACE_TO_DEPTH1, DEPTH_TO_SPACE and DEPTH_TO_SPACE1. Expected values come from
// the pages' examples, or from ONNX's DepthToSpace definitions computed here as reshape,
// transpose, reshape (DCR: {N, b, b, C', H, W} transposed to {N, C', H, b, W, b}; CRD: {N, C', b,
// b, H, W} transposed to {N, C', H, b, W, b}), an independent route to the same permutation;
// none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/depth_space.hpp"
#include "dmlref/explain.hpp"

#include <array>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_depth_space {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using S2D = DML_SPACE_TO_DEPTH_OPERATOR_DESC;
using S2D1 = DML_SPACE_TO_DEPTH1_OPERATOR_DESC;
using D2S = DML_DEPTH_TO_SPACE_OPERATOR_DESC;
using D2S1 = DML_DEPTH_TO_SPACE1_OPERATOR_DESC;

template <class D> Operator op(const D& d) { return Operator{D::kType, d}; }
template <class D> D make(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out, uint32_t b, uint32_t order) {
    D d;
    d.InputTensor = desc(t, std::move(in));
    d.OutputTensor = desc(t, std::move(out));
    d.BlockSize = b;
    d.Order = order;
    return d;
}

// The pages' {1,8,2,3} tensor: channel k holds 9k + [0,1,2,3,4,5].
std::vector<uint32_t> depth_values() {
    std::vector<uint32_t> v;
    for (uint32_t k = 0; k < 8; ++k)
        for (uint32_t i = 0; i < 6; ++i) v.push_back(9 * k + i);
    return v;
}
const std::vector<uint32_t> kDcrSpace = {0,  18, 1,  19, 2,  20, 36, 54, 37, 55, 38, 56, 3,  21, 4,  22,
                                         5,  23, 39, 57, 40, 58, 41, 59, 9,  27, 10, 28, 11, 29, 45, 63,
                                         46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68};
const std::vector<uint32_t> kCrdSpace = {0,  9,  1,  10, 2,  11, 18, 27, 19, 28, 20, 29, 3,  12, 4,  13,
                                         5,  14, 21, 30, 22, 31, 23, 32, 36, 45, 37, 46, 38, 47, 54, 63,
                                         55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68};

// ONNX DepthToSpace as reshape-transpose-reshape over packed row-major data: the element at
// output (n, c, y, x) of {N, C', H b, W b}, with y = h b + i, x = w b + j, sits in the 6-D
// transposed tensor at (n, c, h, i, w, j); the 6-D source tensor's index is read off the
// transpose's axes.
std::vector<uint64_t> onnx_depth_to_space(const std::vector<uint64_t>& x, uint32_t N, uint32_t C, uint32_t H,
                                          uint32_t W, uint32_t b, bool crd) {
    const uint32_t Cp = C / (b * b);
    std::vector<uint64_t> y(x.size());
    uint64_t at = 0;
    for (uint32_t n = 0; n < N; ++n)
        for (uint32_t c = 0; c < Cp; ++c)
            for (uint32_t h = 0; h < H; ++h)
                for (uint32_t i = 0; i < b; ++i)
                    for (uint32_t w = 0; w < W; ++w)
                        for (uint32_t j = 0; j < b; ++j) {
                            // DCR source shape {N, b, b, C', H, W} at (n, i, j, c, h, w); CRD {N, C', b, b, H, W} at (n, c, i, j, h, w).
                            const std::array<uint32_t, 6> idx = crd ? std::array<uint32_t, 6>{n, c, i, j, h, w}
                                                                    : std::array<uint32_t, 6>{n, i, j, c, h, w};
                            const std::array<uint32_t, 6> shape = crd ? std::array<uint32_t, 6>{N, Cp, b, b, H, W}
                                                                      : std::array<uint32_t, 6>{N, b, b, Cp, H, W};
                            uint64_t src = 0;
                            for (size_t k = 0; k < 6; ++k) src = src * shape[k] + idx[k];
                            y[at++] = x[src];
                        }
    return y;
}

}  // namespace

TEST_CASE("DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1: the pages' examples in both orders") {
    const auto depth = depth_values();
    for (uint32_t order : {0u, 1u}) {
        INFO("order " << order);
        const auto& space = order == 0 ? kDcrSpace : kCrdSpace;
        const D2S1 d = make<D2S1>(DataType::UINT32, {1, 8, 2, 3}, {1, 2, 4, 6}, 2, order);
        check_bits(as_values<uint32_t>(run(op(d), {{"InputTensor", buffer(d.InputTensor, depth)}}).at("OutputTensor")),
                   space);
        const S2D1 s = make<S2D1>(DataType::UINT32, {1, 2, 4, 6}, {1, 8, 2, 3}, 2, order);
        check_bits(as_values<uint32_t>(run(op(s), {{"InputTensor", buffer(s.InputTensor, space)}}).at("OutputTensor")),
                   depth);
    }
    // The operators without Order are DEPTH_COLUMN_ROW.
    const D2S d = make<D2S>(DataType::UINT32, {1, 8, 2, 3}, {1, 2, 4, 6}, 2, 0);
    check_bits(as_values<uint32_t>(run(op(d), {{"InputTensor", buffer(d.InputTensor, depth)}}).at("OutputTensor")),
               kDcrSpace);
    const S2D s = make<S2D>(DataType::UINT32, {1, 2, 4, 6}, {1, 8, 2, 3}, 2, 0);
    check_bits(as_values<uint32_t>(run(op(s), {{"InputTensor", buffer(s.InputTensor, kDcrSpace)}}).at("OutputTensor")),
               depth);
}

TEST_CASE("DEPTH_TO_SPACE1 against ONNX's reshape-transpose-reshape, and SPACE_TO_DEPTH1 back, every width") {
    std::mt19937_64 rng(5);
    const DataType types[] = {DataType::INT8, DataType::FLOAT16, DataType::FLOAT32, DataType::INT64};
    for (uint32_t b : {1u, 2u, 3u})
        for (uint32_t order : {0u, 1u})
            for (DataType t : types) {
                const uint32_t N = 1 + uint32_t(rng() % 2), Cp = 1 + uint32_t(rng() % 3), H = 1 + uint32_t(rng() % 3),
                               W = 1 + uint32_t(rng() % 3);
                const uint32_t C = Cp * b * b;
                INFO("b " << b << " order " << order << " type " << name(t));
                const D2S1 d = make<D2S1>(t, {N, C, H, W}, {N, Cp, H * b, W * b}, b, order);
                const size_t w = element_size(t);
                std::vector<uint64_t> x(size_t(N) * C * H * W);
                for (auto& v : x) v = rng() & (w == 8 ? ~0ull : (1ull << (8 * w)) - 1);
                std::vector<std::byte> xb(x.size() * w);
                for (size_t i = 0; i < x.size(); ++i) std::memcpy(xb.data() + i * w, &x[i], w);
                std::vector<std::byte> bound = xb;
                bound.resize(buffer_size(d.InputTensor));  // rounded up to 4 bytes
                const auto out = run(op(d), {{"InputTensor", bound}}).at("OutputTensor");
                const auto want = onnx_depth_to_space(x, N, C, H, W, b, order == 1);
                for (size_t i = 0; i < want.size(); ++i) {
                    uint64_t got = 0;
                    std::memcpy(&got, out.data() + i * w, w);
                    REQUIRE(got == want[i]);
                }
                const S2D1 s = make<S2D1>(t, {N, Cp, H * b, W * b}, {N, C, H, W}, b, order);
                std::vector<std::byte> back = out;
                back.resize(buffer_size(s.InputTensor));
                CHECK(run(op(s), {{"InputTensor", back}}).at("OutputTensor") == xb);
            }
}

TEST_CASE("depth and space: bits moved through strides; rules with ids and paths; explain") {
    // FLOAT16 {1,4,1,1} -> {1,1,2,2}, the input read through Strides {4,1,1,1} (channel-fastest
    // NHWC, the same order here) holding a signalling NaN, -0, a subnormal and -inf: DCR puts
    // channel i b + j at (i, j).
    D2S1 d = make<D2S1>(DataType::FLOAT16, {1, 4, 1, 1}, {1, 1, 2, 2}, 2, 0);
    d.InputTensor.Strides = {4, 1, 1, 1};
    check_bits(
        as_values<uint16_t>(
            run(op(d), {{"InputTensor", buffer(d.InputTensor, std::vector<uint16_t>{0x7d01, 0x8000, 0x0001, 0xfc00})}})
                .at("OutputTensor")),
        std::vector<uint16_t>{0x7d01, 0x8000, 0x0001, 0xfc00});
    D2S1 v = make<D2S1>(DataType::FLOAT32, {1, 8, 2, 3}, {1, 2, 4, 6}, 2, 0);
    CHECK_FALSE(validate(op(v)).has_errors());
    SUBCASE("same-data-type") {
        v.OutputTensor.DataType = DataType::INT32;
        CHECK(has_error(op(v), "depth-to-space1.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("dimension-count") {
        v.InputTensor.Sizes = {8, 2, 3};
        CHECK(has_error(op(v), "depth-to-space1.dimension-count", "/desc/InputTensor/Sizes"));
    }
    SUBCASE("block-size") {
        v.BlockSize = 0;
        CHECK(has_error(op(v), "depth-to-space1.block-size", "/desc/BlockSize"));
    }
    SUBCASE("channel-count") {
        v.InputTensor.Sizes = {1, 6, 2, 3};
        CHECK(has_error(op(v), "depth-to-space1.channel-count", "/desc/InputTensor/Sizes/1"));
    }
    SUBCASE("output-size") {
        v.OutputTensor.Sizes = {1, 2, 4, 5};
        CHECK(has_error(op(v), "depth-to-space1.output-size", "/desc/OutputTensor/Sizes/3"));
    }
    SUBCASE("order (the C++ API)") {
        v.Order = 2;
        CHECK(has_error(op(v), "depth-to-space1.order", "/desc/Order"));
    }
    SUBCASE("SPACE_TO_DEPTH: the spatial sizes are multiples of BlockSize; the output is the inverse's") {
        S2D s = make<S2D>(DataType::FLOAT32, {1, 2, 4, 5}, {1, 8, 2, 2}, 2, 0);
        CHECK(has_error(op(s), "space-to-depth.spatial-size", "/desc/InputTensor/Sizes/3"));
        s.InputTensor.Sizes = {1, 2, 4, 6};
        s.OutputTensor.Sizes = {1, 2, 8, 12};  // the page's formula, DEPTH_TO_SPACE's: refused
        CHECK(has_error(op(s), "space-to-depth.output-size", "/desc/OutputTensor/Sizes/1"));
    }
    SUBCASE("explain") {
        const Case c = parse_valid(
            R"({"format": 1, "operator": "DEPTH_TO_SPACE1", "desc": {"InputTensor": {"DataType": "UINT32", "Sizes": [1, 8, 2, 3]},
            "OutputTensor": {"DataType": "UINT32", "Sizes": [1, 2, 4, 6]}, "BlockSize": 2, "Order": "COLUMN_ROW_DEPTH"},
            "inputs": {"InputTensor": {"Iota": {"Start": 0, "Step": 1}}}})");
        // CRD output [0,1,1,0] (c 1, i 1, j 0, h 0, w 0) reads channel 1 * 4 + 1 * 2 + 0 = 6 at [0,0]: 36.
        const Explanation e = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 30, std::nullopt, "", {});
        REQUIRE(e.family.inputs.size() == 1);
        CHECK(e.family.inputs[0].index == std::vector<uint64_t>{0, 6, 0, 0});
        CHECK(e.family.inputs[0].bits == 36);
    }
}

}  // namespace dmlref_test_depth_space
