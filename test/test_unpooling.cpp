// MAX_UNPOOLING. Expected values come by hand or from a naive loop written here (a zeroed packed
// vector, each input element stored at its index); none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/admissible.hpp"
#include "dmlref/descs/unpooling.hpp"
#include "dmlref/explain.hpp"

#include <algorithm>
#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_unpooling {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using UNPOOL = DML_MAX_UNPOOLING_OPERATOR_DESC;

UNPOOL unpool_desc(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out,
                   DataType indices = DataType::UINT32) {
    UNPOOL d;
    d.InputTensor = desc(t, in);
    d.IndicesTensor = desc(indices, in);
    d.OutputTensor = desc(t, std::move(out));
    return d;
}
Operator op(const UNPOOL& d) { return Operator{OperatorType::MAX_UNPOOLING, d}; }

template <class T, class I>
std::vector<T> run_unpool(const UNPOOL& d, const std::vector<T>& x, const std::vector<I>& ix) {
    return as_values<T>(run(op(d), {{"InputTensor", logical_buffer(d.InputTensor, x)},
                                    {"IndicesTensor", logical_buffer(d.IndicesTensor, ix)}})
                            .at("OutputTensor"));
}

}  // namespace

TEST_CASE("MAX_UNPOOLING: by hand, the inverse of a 2x2 max pooling") {
    // A {1,1,2,2} pooled from a {1,1,4,4} with its maxima at flat positions 1, 2, 9 and 15:
    // those four output elements hold the values, every other one +0.
    const UNPOOL d = unpool_desc(DataType::FLOAT32, {1, 1, 2, 2}, {1, 1, 4, 4});
    std::vector<float> want(16, 0.0f);
    want[1] = 6;
    want[2] = 7;
    want[9] = -8;
    want[15] = 0.5f;
    check_bits(run_unpool(d, std::vector<float>{6, 7, -8, 0.5f}, std::vector<uint32_t>{1, 2, 9, 15}), want);
    // UINT64 indices, INT16 values, a rank-2 output: [[0, 3], [-5, 0]] from indices 1 and 2.
    const UNPOOL e = unpool_desc(DataType::INT16, {1, 2}, {2, 2}, DataType::UINT64);
    check_bits(run_unpool(e, std::vector<int16_t>{3, -5}, std::vector<uint64_t>{1, 2}),
               std::vector<int16_t>{0, 3, -5, 0});
    // FLOAT16 bits kept (a signalling NaN 0x7d01, -0); unwritten elements are +0 (0x0000).
    const UNPOOL h = unpool_desc(DataType::FLOAT16, {2}, {4});
    check_bits(run_unpool(h, std::vector<uint16_t>{0x7d01, 0x8000}, std::vector<uint32_t>{3, 0}),
               std::vector<uint16_t>{0x8000, 0, 0, 0x7d01});
    // Two inputs of the same bits to one element: taken (one answer).
    const UNPOOL s = unpool_desc(DataType::UINT8, {3}, {2});
    check_bits(run_unpool(s, std::vector<uint8_t>{9, 9, 4}, std::vector<uint32_t>{1, 1, 0}),
               std::vector<uint8_t>{4, 9});
}

TEST_CASE("MAX_UNPOOLING against a naive loop: ranks 1 to 8, element widths, strided tensors") {
    std::mt19937_64 rng(19);
    const DataType types[] = {DataType::INT8, DataType::FLOAT16, DataType::UINT32, DataType::FLOAT64};
    for (uint32_t rank = 1; rank <= 8; ++rank)
        for (DataType t : types) {
            std::vector<uint32_t> in(rank), out(rank);
            for (uint32_t i = 0; i < rank; ++i) {
                in[i] = 1 + uint32_t(rng() % 2);
                out[i] = in[i] * (1 + uint32_t(rng() % 2));
            }
            INFO("rank " << rank << " type " << name(t));
            UNPOOL d = unpool_desc(t, in, out, rank % 2 ? DataType::UINT32 : DataType::UINT64);
            // Both the output and the input stored column-major (strided).
            std::vector<uint32_t> so(rank), si(rank);
            uint32_t a = 1, b = 1;
            for (uint32_t i = 0; i < rank; ++i) {
                so[i] = a;
                a *= out[i];
                si[i] = b;
                b *= in[i];
            }
            d.OutputTensor.Strides = so;
            d.InputTensor.Strides = si;
            const uint64_t n = product(in), m = product(out);
            // Distinct targets: the first n of a shuffled 0 .. m-1.
            std::vector<uint64_t> perm(m);
            for (uint64_t i = 0; i < m; ++i) perm[i] = i;
            std::shuffle(perm.begin(), perm.end(), rng);
            const size_t w = element_size(t);
            std::vector<std::byte> x(n * w);
            for (auto& v : x) v = std::byte(rng());
            std::vector<std::byte> want(m * w, std::byte{0});
            for (uint64_t i = 0; i < n; ++i) std::memcpy(want.data() + perm[i] * w, x.data() + i * w, w);
            std::map<std::string, std::vector<std::byte>> inputs;
            // The logical values placed through the input's strides, byte for byte.
            std::vector<std::byte> xb(buffer_size(d.InputTensor));
            for (uint64_t i = 0; i < n; ++i) {
                const auto c = unflatten(i, in);
                uint64_t off = 0;
                for (uint32_t k = 0; k < rank; ++k) off += uint64_t(c[k]) * si[k];
                std::memcpy(xb.data() + off * w, x.data() + i * w, w);
            }
            std::vector<std::byte> ib;
            if (d.IndicesTensor.DataType == DataType::UINT32) {
                std::vector<uint32_t> v(perm.begin(), perm.begin() + n);
                ib = logical_buffer(d.IndicesTensor, v);
            } else {
                std::vector<uint64_t> v(perm.begin(), perm.begin() + n);
                ib = logical_buffer(d.IndicesTensor, v);
            }
            const auto y = run(op(d), {{"InputTensor", xb}, {"IndicesTensor", ib}}).at("OutputTensor");
            REQUIRE(y == want);
        }
}

TEST_CASE("MAX_UNPOOLING rules, each with its id and path; explain names the writer") {
    UNPOOL d = unpool_desc(DataType::FLOAT32, {2, 2}, {4, 4});
    CHECK_FALSE(validate(op(d)).has_errors());
    SUBCASE("same-data-type") {
        d.OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op(d), "max-unpooling.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("indices-data-type") {
        d.IndicesTensor.DataType = DataType::INT32;
        CHECK(has_error(op(d), "max-unpooling.indices-data-type", "/desc/IndicesTensor/DataType"));
    }
    SUBCASE("dimension-count") {
        d.OutputTensor.Sizes = {16};
        CHECK(has_error(op(d), "max-unpooling.dimension-count", "/desc/OutputTensor/Sizes"));
    }
    SUBCASE("indices-sizes") {
        d.IndicesTensor.Sizes = {2, 3};
        CHECK(has_error(op(d), "max-unpooling.indices-sizes", "/desc/IndicesTensor/Sizes/1"));
    }
    const std::string head =
        R"({"format": 1, "operator": "MAX_UNPOOLING", "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [3]},
        "IndicesTensor": {"DataType": "UINT32", "Sizes": [3]}, "OutputTensor": {"DataType": "INT8", "Sizes": [4]}}, "inputs": )";
    SUBCASE("index-range on the values; repeated indices admit every write") {
        // Index 4 of 4 elements.
        const Diagnostics r = diagnose(head + R"({"InputTensor": [1, 2, 3], "IndicesTensor": [0, 4, 2]}})");
        CHECK(first_error(r).find("max-unpooling.index-range") != std::string::npos);
        CHECK(first_error(r).find("/inputs/IndicesTensor/1") != std::string::npos);
        // Index 1 twice, with 5 and 6: both could win; the golden's value is the last (6), element
        // 2 is 7 and the others +0. With the same bits (5, 5) there is one answer and no list.
        const Case u = parse_valid(head + R"({"InputTensor": [5, 6, 7], "IndicesTensor": [1, 1, 2]}})");
        CHECK(admissible(u, "OutputTensor") == std::vector<Admissible>{{1, {5, 6}}});
        CHECK(as_values<int8_t>(run_case(u).values.at("OutputTensor")) == std::vector<int8_t>{0, 6, 7, 0});
        // -1 (0xff) then 5 then -1 again into element 3: 5 (last at 1), then -1 (last at 2).
        const Case v = parse_valid(head + R"({"InputTensor": [-1, 5, -1], "IndicesTensor": [3, 3, 3]}})");
        CHECK(admissible(v, "OutputTensor") == std::vector<Admissible>{{3, {5, 0xff}}});
        CHECK(
            admissible(parse_valid(head + R"({"InputTensor": [5, 5, 7], "IndicesTensor": [1, 1, 2]}})"), "OutputTensor")
                .empty());
        Case last = u;
        last.policies["DuplicateIndex"] = "LastInOrder";
        CHECK(admissible(last, "OutputTensor").empty());
        // explain lists both writes.
        const Explanation e = explain_element(with_golden(u, "OutputTensor"), "OutputTensor", 1, std::nullopt, "", {});
        std::vector<std::string> candidates;
        for (const auto& [k, f] : e.family.facts)
            if (k == "candidate") candidates.push_back(f);
        CHECK(candidates == std::vector<std::string>{"InputTensor[0] = 5, by IndicesTensor[0] = 1",
                                                     "InputTensor[1] = 6, by IndicesTensor[1] = 1"});
    }
    SUBCASE("explain") {
        const Case c = parse_valid(head + R"({"InputTensor": [5, 6, 7], "IndicesTensor": [3, 0, 2]}})");
        // Output element 2 is written by input element 2 (7); element 1 by none (+0).
        const Explanation e = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 2, std::nullopt, "", {});
        REQUIRE(e.family.inputs.size() == 2);
        CHECK(e.family.inputs[1].index == std::vector<uint64_t>{2});
        CHECK(e.family.inputs[1].bits == 7);
        const Explanation f = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 1, std::nullopt, "", {});
        CHECK(f.family.inputs.empty());
        CHECK(f.golden_bits == 0);
    }
}

}  // namespace dmlref_test_unpooling
