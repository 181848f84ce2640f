// PADDING and PADDING1. Expected values come from PADDING1's page examples, by hand, or from a
// naive loop written here that folds an index back into the input one reflection at a time (the
// pages' "folding new padding regions over previous padding regions"), not through the period
// reference/padding.cpp uses; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/padding.hpp"
#include "dmlref/explain.hpp"

#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_padding {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using PADDING = DML_PADDING_OPERATOR_DESC;
using PADDING1 = DML_PADDING1_OPERATOR_DESC;

template <class D> Operator op(const D& d) { return Operator{D::kType, d}; }

template <class D>
D padding_desc(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> start, std::vector<uint32_t> end,
               uint32_t mode) {
    D d;
    std::vector<uint32_t> out = in;
    for (size_t i = 0; i < in.size(); ++i) out[i] += start[i] + end[i];
    d.InputTensor = desc(t, std::move(in));
    d.OutputTensor = desc(t, std::move(out));
    d.PaddingMode = mode;
    d.DimensionCount = uint32_t(start.size());
    d.StartPadding = std::move(start);
    d.EndPadding = std::move(end);
    return d;
}

// The page's input: {1,1,4,4} rows [1,2,3,4], [5,6,7,8], [1,2,3,4], [5,6,7,8]; StartPadding
// {0,0,1,2}, EndPadding {0,0,3,4}.
PADDING1 page_desc(uint32_t mode) {
    PADDING1 d = padding_desc<PADDING1>(DataType::FLOAT32, {1, 1, 4, 4}, {0, 0, 1, 2}, {0, 0, 3, 4}, mode);
    d.PaddingValueDataType = DataType::FLOAT32;
    d.PaddingValue = DML_SCALAR_UNION::of(9.0f);
    return d;
}
const std::vector<float> kPageInput = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};

std::vector<float> run_page(uint32_t mode) {
    const PADDING1 d = page_desc(mode);
    return as_values<float>(run(op(d), {{"InputTensor", buffer(d.InputTensor, kPageInput)}}).at("OutputTensor"));
}

// Folds x into [0, n) one reflection at a time; -1 for CONSTANT outside.
int64_t folded(uint32_t mode, int64_t x, int64_t n) {
    if (mode == DML_PADDING_MODE_CONSTANT) return x >= 0 && x < n ? x : -1;
    if (mode == DML_PADDING_MODE_EDGE) return std::min(std::max<int64_t>(x, 0), n - 1);
    if (mode == DML_PADDING_MODE_WRAP) {
        while (x < 0) x += n;
        while (x >= n) x -= n;
        return x;
    }
    if (mode == DML_PADDING_MODE_REFLECTION && n == 1) return 0;
    const int64_t edge = mode == DML_PADDING_MODE_SYMMETRIC ? 1 : 0;  // SYMMETRIC repeats the edge element
    while (x < 0 || x >= n) x = x < 0 ? -x - edge : 2 * (n - 1) - x + edge;
    return x;
}

}  // namespace

TEST_CASE("PADDING1: the page's four examples") {
    // Example 1, CONSTANT 9.
    const std::vector<float> constant = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9,
                                         9, 9, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9,
                                         9, 9, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                                         9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    check_bits(run_page(DML_PADDING_MODE_CONSTANT), constant);
    // Example 2, EDGE.
    const std::vector<float> edge = {1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 8, 8,
                                     8, 8, 8, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8, 5, 5, 5, 6,
                                     7, 8, 8, 8, 8, 8, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8};
    check_bits(run_page(DML_PADDING_MODE_EDGE), edge);
    // Example 3, REFLECTION: EndPadding 4 on a width of 4 folds twice (columns 4..7 read 2, 1, 0, 1).
    const std::vector<float> reflection = {7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
                                           7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
                                           7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
                                           7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2};
    check_bits(run_page(DML_PADDING_MODE_REFLECTION), reflection);
    // Example 4, SYMMETRIC.
    const std::vector<float> symmetric = {2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 2, 1, 1, 2, 3, 4, 4, 3, 2, 1,
                                          6, 5, 5, 6, 7, 8, 8, 7, 6, 5, 2, 1, 1, 2, 3, 4, 4, 3, 2, 1,
                                          6, 5, 5, 6, 7, 8, 8, 7, 6, 5, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
                                          2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5};
    check_bits(run_page(DML_PADDING_MODE_SYMMETRIC), symmetric);
}

TEST_CASE("PADDING WRAP, beyond the size, and REFLECTION of one element") {
    // [1,2,3] with StartPadding 4, EndPadding 5 in WRAP: index x - 4 mod 3 from x = 0: 3,1,2,3 | 1,2,3 | 1,2,3,1,2.
    const PADDING w = padding_desc<PADDING>(DataType::INT32, {3}, {4}, {5}, DML_PADDING_MODE_WRAP);
    check_bits(
        as_values<int32_t>(
            run(op(w), {{"InputTensor", buffer(w.InputTensor, std::vector<int32_t>{1, 2, 3})}}).at("OutputTensor")),
        std::vector<int32_t>{3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2});
    // PaddingReflectSizeOne = SameElement: [7] reflected by 2 each side is 7 five times.
    const PADDING r = padding_desc<PADDING>(DataType::UINT8, {1}, {2}, {2}, DML_PADDING_MODE_REFLECTION);
    check_bits(as_values<uint8_t>(
                   run(op(r), {{"InputTensor", buffer(r.InputTensor, std::vector<uint8_t>{7})}}).at("OutputTensor")),
               std::vector<uint8_t>{7, 7, 7, 7, 7});
    // SYMMETRIC beyond the size: [1,2] mirrored with its edges is ... 1,2 | 2,1 | 1,2: with
    // StartPadding 5, x = -5..-1 read 0,0,1,1,0, so 1,1,2,2,1, then the input 1,2.
    const PADDING s = padding_desc<PADDING>(DataType::INT8, {2}, {5}, {0}, DML_PADDING_MODE_SYMMETRIC);
    check_bits(as_values<int8_t>(
                   run(op(s), {{"InputTensor", buffer(s.InputTensor, std::vector<int8_t>{1, 2})}}).at("OutputTensor")),
               std::vector<int8_t>{1, 1, 2, 2, 1, 1, 2});
}

TEST_CASE("PADDING's FLOAT PaddingValue is stored as CAST stores a FLOAT32 element") {
    auto constant = [](DataType t, float v) {
        PADDING d = padding_desc<PADDING>(t, {1}, {1}, {0}, DML_PADDING_MODE_CONSTANT);
        d.PaddingValue = v;
        const auto out = run(op(d), {{"InputTensor", std::vector<std::byte>(8)}}).at("OutputTensor");
        uint64_t bits = 0;
        std::memcpy(&bits, out.data(), element_size(t));
        return bits;
    };
    // Integers: truncated toward zero and saturated; NaN is 0 (CastFloatToInteger = TruncateSaturateNaNZero).
    CHECK(constant(DataType::INT8, 2.75f) == 2);
    CHECK(constant(DataType::INT8, -2.75f) == 0xfe);
    CHECK(constant(DataType::INT8, -300.0f) == 0x80);
    CHECK(constant(DataType::UINT16, 1e9f) == 0xffff);
    CHECK(constant(DataType::INT32, std::numeric_limits<float>::quiet_NaN()) == 0);
    // FLOAT16: rounded to nearest even (1 + 2^-11 is a tie: 1); 65520 overflows to +inf; a NaN keeps
    // its sign and the top of its payload, quieted (0xffc02000 -> 0xfe01).
    CHECK(constant(DataType::FLOAT16, 1.0f + 0x1p-11f) == 0x3c00);
    CHECK(constant(DataType::FLOAT16, 65520.0f) == 0x7c00);
    CHECK(constant(DataType::FLOAT16, from_bits<float>(0xffc02000u)) == 0xfe01);
    // FLOAT64: exact; -0 stays -0.
    CHECK(constant(DataType::FLOAT64, -0.0f) == 0x8000000000000000ull);
    CHECK(constant(DataType::FLOAT64, 0.1f) == to_bits(double(0.1f)));
}

TEST_CASE("PADDING1's PaddingValue: the bits of its type, 64-bit extremes included") {
    PADDING1 d = padding_desc<PADDING1>(DataType::INT64, {1}, {1}, {1}, DML_PADDING_MODE_CONSTANT);
    d.PaddingValueDataType = DataType::INT64;
    d.PaddingValue = DML_SCALAR_UNION::of(int64_t(-9007199254740993));  // -(2^53 + 1), not a double
    const auto out = run(op(d), {{"InputTensor", buffer(d.InputTensor, std::vector<int64_t>{5})}});
    check_bits(as_values<int64_t>(out.at("OutputTensor")),
               std::vector<int64_t>{-9007199254740993, 5, -9007199254740993});
}

TEST_CASE("PADDING against a naive fold: every mode, every element width, ranks 1 to 8, strided input") {
    std::mt19937_64 rng(64);
    const DataType types[] = {DataType::UINT8, DataType::FLOAT16, DataType::INT32, DataType::FLOAT64};
    for (uint32_t mode = 0; mode < 5; ++mode)
        for (uint32_t rank = 1; rank <= 8; ++rank) {
            const DataType t = types[(mode + rank) % 4];
            std::vector<uint32_t> in(rank), start(rank), end(rank);
            for (uint32_t i = 0; i < rank; ++i) {
                in[i] = 1 + uint32_t(rng() % (rank > 5 ? 2 : 3));
                start[i] = uint32_t(rng() % (rank > 5 ? 2 : 5));
                end[i] = uint32_t(rng() % (rank > 5 ? 2 : 5));
            }
            INFO("mode " << mode << " rank " << rank << " type " << name(t));
            PADDING1 d = padding_desc<PADDING1>(t, in, start, end, mode);
            d.PaddingValueDataType = t;
            d.PaddingValue = DML_SCALAR_UNION::of(uint64_t(0xa5a5a5a5a5a5a5a5ull));
            // The input stored with its dimensions reversed (column-major): a strided read.
            std::vector<uint32_t> strides(rank);
            uint32_t s = 1;
            for (uint32_t i = 0; i < rank; ++i) {
                strides[i] = s;
                s *= in[i];
            }
            d.InputTensor.Strides = strides;
            const size_t w = element_size(t);
            std::vector<std::byte> x(buffer_size(d.InputTensor));
            for (auto& b : x) b = std::byte(rng());
            const auto out = run(op(d), {{"InputTensor", x}}).at("OutputTensor");
            for (uint64_t o = 0; o < product(d.OutputTensor.Sizes); ++o) {
                const std::vector<uint32_t> c = unflatten(o, d.OutputTensor.Sizes);
                int64_t offset = 0;
                bool pad = false;
                for (uint32_t i = 0; i < rank; ++i) {
                    const int64_t f = folded(mode, int64_t(c[i]) - start[i], in[i]);
                    pad = pad || f < 0;
                    offset += f * strides[i];
                }
                uint64_t got = 0, want = 0;
                std::memcpy(&got, out.data() + o * w, w);
                if (pad) std::memcpy(&want, d.PaddingValue.Bytes.data(), w);
                else std::memcpy(&want, x.data() + offset * w, w);
                REQUIRE(got == want);
            }
        }
}

TEST_CASE("PADDING and PADDING1 rules: each with its id and path") {
    PADDING d = padding_desc<PADDING>(DataType::FLOAT32, {2, 3}, {1, 0}, {0, 2}, DML_PADDING_MODE_EDGE);
    CHECK_FALSE(validate(op(d)).has_errors());
    SUBCASE("same-data-type") {
        d.OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op(d), "padding.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("dimension-count and array-length") {
        d.DimensionCount = 3;
        CHECK(has_error(op(d), "padding.dimension-count", "/desc/DimensionCount"));
        CHECK(has_error(op(d), "padding.array-length", "/desc/StartPadding"));
    }
    SUBCASE("output-size") {
        d.OutputTensor.Sizes = {3, 4};
        CHECK(has_error(op(d), "padding.output-size", "/desc/OutputTensor/Sizes/1"));
    }
    SUBCASE("padding-mode (the C++ API)") {
        d.PaddingMode = 5;
        CHECK(has_error(op(d), "padding.padding-mode", "/desc/PaddingMode"));
    }
    SUBCASE("PADDING1's PaddingValueDataType") {
        PADDING1 p = padding_desc<PADDING1>(DataType::INT16, {2}, {1}, {1}, DML_PADDING_MODE_CONSTANT);
        p.PaddingValueDataType = DataType::INT32;
        CHECK(has_error(op(p), "padding1.value-data-type", "/desc/PaddingValueDataType"));
        p.PaddingValueDataType = DataType::INT16;
        CHECK_FALSE(validate(op(p)).has_errors());
    }
}

TEST_CASE("PADDING: the feature levels of SYMMETRIC and WRAP; explain names the source or the value") {
    PADDING d = padding_desc<PADDING>(DataType::FLOAT32, {1, 1, 2, 2}, {0, 0, 1, 1}, {0, 0, 1, 1},
                                      DML_PADDING_MODE_SYMMETRIC);
    std::vector<std::string> why;
    CHECK_FALSE(supported_at(op(d), 0x2100, &why));
    CHECK(supported_at(op(d), 0x3000, nullptr));
    d.PaddingMode = DML_PADDING_MODE_WRAP;
    CHECK_FALSE(supported_at(op(d), 0x6300, nullptr));
    CHECK(supported_at(op(d), 0x6400, nullptr));
    // REFLECTION of [[1,2],[3,4]] by one each side: output [0,0] reads input [1,1] = 4; CONSTANT's
    // corner is the value.
    const Case c = parse_valid(
        R"({"format": 1, "operator": "PADDING", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4, 4]}, "PaddingMode": "REFLECTION", "PaddingValue": 0, "DimensionCount": 2,
        "StartPadding": [1, 1], "EndPadding": [1, 1]}, "inputs": {"InputTensor": [1, 2, 3, 4]}})");
    const Explanation e = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 0, std::nullopt, "", {});
    REQUIRE(e.family.inputs.size() == 1);
    CHECK(e.family.inputs[0].index == std::vector<uint64_t>{1, 1});
    CHECK(e.family.inputs[0].bits == to_bits(4.0f));
}

}  // namespace dmlref_test_padding
