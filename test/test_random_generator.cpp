// RANDOM_GENERATOR. Expected values come from Random123's published known-answer vectors for
// Philox4x32-10 (kat_vectors: counter words, key words, output words), by hand (the counter
// increments, stated with their arithmetic), or from a naive Philox written here in another form
// (the round then the key bump, the counter as two 64-bit halves), itself checked against the
// known answers first; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/random_generator.hpp"

#include "../reference/random_generator.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_random_generator {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using RNG = DML_RANDOM_GENERATOR_OPERATOR_DESC;

struct Kat {
    std::array<uint32_t, 4> counter;
    std::array<uint32_t, 2> key;
    std::array<uint32_t, 4> out;
};
// Random123's kat_vectors, the three "philox4x32 10" lines.
const Kat kKats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

// A second Philox4x32-10: each round, then the key bump (ten rounds, nine bumps used); the
// product's halves by division, not shifts.
std::array<uint32_t, 4> naive_philox(std::array<uint32_t, 4> x, uint32_t k0, uint32_t k1) {
    for (int r = 1; r <= 10; ++r) {
        const uint64_t a = uint64_t(3528531795u) * x[0];  // 0xD2511F53
        const uint64_t b = uint64_t(3449720151u) * x[2];  // 0xCD9E8D57
        const uint32_t a_hi = uint32_t(a / 4294967296u), a_lo = uint32_t(a % 4294967296u);
        const uint32_t b_hi = uint32_t(b / 4294967296u), b_lo = uint32_t(b % 4294967296u);
        x = {b_hi ^ x[1] ^ k0, b_lo, a_hi ^ x[3] ^ k1, a_lo};
        k0 = uint32_t(k0 + 2654435769u);  // 0x9E3779B9
        k1 = uint32_t(k1 + 3144134277u);  // 0xBB67AE85
    }
    return x;
}

// counter + n with the counter as two 64-bit halves (words 0-1 low, 2-3 high).
std::array<uint32_t, 4> naive_add(const std::array<uint32_t, 4>& c, uint64_t n) {
    const uint64_t lo = uint64_t(c[0]) | uint64_t(c[1]) << 32, hi = uint64_t(c[2]) | uint64_t(c[3]) << 32;
    const uint64_t new_lo = lo + n;
    const uint64_t new_hi = hi + (new_lo < lo ? 1 : 0);
    return {uint32_t(new_lo), uint32_t(new_lo >> 32), uint32_t(new_hi), uint32_t(new_hi >> 32)};
}

RNG rng(std::vector<uint32_t> out_sizes, bool with_state, std::vector<uint32_t> out_strides = {}) {
    RNG d;
    d.InputStateTensor = desc(DataType::UINT32, {1, 1, 1, 6});
    d.OutputTensor = desc(DataType::UINT32, std::move(out_sizes), std::move(out_strides));
    if (with_state) d.OutputStateTensor = desc(DataType::UINT32, {1, 1, 1, 6});
    return d;
}

std::map<std::string, std::vector<std::byte>> go(const RNG& d, const std::vector<uint32_t>& state) {
    return run(Operator{RNG::kType, d}, {{"InputStateTensor", logical_buffer<uint32_t>(d.InputStateTensor, state)}});
}

std::vector<uint32_t> state_of(const std::array<uint32_t, 4>& c, const std::array<uint32_t, 2>& k) {
    return {c[0], c[1], c[2], c[3], k[0], k[1]};
}

}  // namespace

TEST_CASE("RANDOM_GENERATOR: Philox4x32-10 against Random123's known answers") {
    for (const Kat& k : kKats) {
        const auto a = reference::philox4x32_10(k.counter, k.key);
        const auto b = naive_philox(k.counter, k.key[0], k.key[1]);
        for (int w = 0; w < 4; ++w) {
            CHECK(a[w] == k.out[w]);
            CHECK(b[w] == k.out[w]);
        }
        // Through the operator: state elements 0-3 the counter words, 4-5 the key
        // (PhiloxCounterWords=Element0Lowest), four outputs = one block.
        const auto out = as_values<uint32_t>(
            go(rng({1, 1, 1, 4}, false), state_of(k.counter, k.key)).at("OutputTensor"));
        check_bits(out, std::vector<uint32_t>(k.out.begin(), k.out.end()));
    }
}

TEST_CASE("RANDOM_GENERATOR: four outputs per counter block, ranks 1 to 8, strided, against the naive loop") {
    const std::array<uint32_t, 4> c = {0xfffffffd, 0xffffffff, 7, 0};  // carries into word 2 at block 3
    const std::array<uint32_t, 2> k = {0x12345678, 0x9abcdef0};
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank, 1);
        sizes[0] = 3;
        sizes[rank - 1] = rank == 1 ? 13 : 5;  // 13 or 15 elements: a partial last block
        const uint64_t n = product(sizes);
        INFO("rank " << rank);
        std::vector<uint32_t> expected(n);
        for (uint64_t i = 0; i < n; ++i) expected[i] = naive_philox(naive_add(c, i / 4), k[0], k[1])[i % 4];
        check_bits(as_values<uint32_t>(go(rng(sizes, false), state_of(c, k)).at("OutputTensor")), expected);
    }
    // A column-major {3, 5} output holds the same logical sequence.
    std::vector<uint32_t> expected(15);
    for (uint64_t i = 0; i < 15; ++i) expected[i] = naive_philox(naive_add(c, i / 4), k[0], k[1])[i % 4];
    check_bits(as_values<uint32_t>(go(rng({3, 5}, false, {1, 3}), state_of(c, k)).at("OutputTensor")), expected);
}

TEST_CASE("RANDOM_GENERATOR: the new state is the counter plus ceil(outputSize / 4), the key copied") {
    // 10 outputs: ceil(10 / 4) = 3. Counter word 0 0xfffffffe + 3 = 0x1'00000001: word 0 1, word 1
    // 0 + 1 = 1.
    auto o = go(rng({10}, true), {0xfffffffe, 0, 5, 6, 0xaaaa, 0xbbbb});
    check_bits(as_values<uint32_t>(o.at("OutputStateTensor")), std::vector<uint32_t>{1, 1, 5, 6, 0xaaaa, 0xbbbb});
    // 8 outputs: exactly 2 blocks; 2^128 - 1 + 2 wraps to 1 (CounterWrap=Modulo2To128).
    o = go(rng({2, 4}, true), {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 1, 2});
    check_bits(as_values<uint32_t>(o.at("OutputStateTensor")), std::vector<uint32_t>{1, 0, 0, 0, 1, 2});
    // Block 1 of that output is the counter 0 (the wrapped counter): Random123's zero vector's
    // key differs, so the naive loop gives the expectation.
    const auto out = as_values<uint32_t>(o.at("OutputTensor"));
    const auto b1 = naive_philox({0, 0, 0, 0}, 1, 2);
    for (int w = 0; w < 4; ++w) CHECK(out[4 + w] == b1[w]);
    // The page's example: the counter 0x48656c6c'6f46726f'6d536561'74746c65 and an output of
    // {3,3,20,7219} = 1,299,420 elements, whose quarter is 324,855 = 0x4f4f7: word 0
    // 0x74746c65 + 0x0004f4f7 = 0x7479615c, no carry. (The page prints 0x746f776e, which no
    // increment of 324,855 gives: docs/golden.md, "Random generator".)
    o = go(rng({3, 3, 20, 7219}, true), {0x74746c65, 0x6d536561, 0x6f46726f, 0x48656c6c, 0, 0});
    check_bits(as_values<uint32_t>(o.at("OutputStateTensor")),
               std::vector<uint32_t>{0x7479615c, 0x6d536561, 0x6f46726f, 0x48656c6c, 0, 0});
    // An empty increment never happens (every size is at least 1); one output advances by 1.
    o = go(rng({1}, true), {0, 0, 0, 0, 9, 9});
    check_bits(as_values<uint32_t>(o.at("OutputStateTensor")), std::vector<uint32_t>{1, 0, 0, 0, 9, 9});
}

TEST_CASE("RANDOM_GENERATOR: validation") {
    auto op = [](const RNG& d) { return Operator{RNG::kType, d}; };
    RNG d = rng({4}, true);
    d.Type = 1;
    CHECK(has_error(op(d), "random-generator.type", "/desc/Type"));
    d = rng({4}, true);
    d.InputStateTensor.DataType = DataType::INT32;
    CHECK(has_error(op(d), "random-generator.state-data-type", "/desc/InputStateTensor/DataType"));
    d = rng({4}, true);
    d.InputStateTensor.Sizes = {1, 1, 2, 3};
    d.OutputStateTensor->Sizes = {1, 1, 2, 3};
    CHECK(has_error(op(d), "random-generator.state-sizes", "/desc/InputStateTensor/Sizes"));
    d = rng({4}, true);
    d.OutputStateTensor->Sizes = {6};
    CHECK(has_error(op(d), "random-generator.output-state-sizes", "/desc/OutputStateTensor/Sizes"));
    d = rng({4}, false);
    d.OutputTensor.DataType = DataType::FLOAT32;
    CHECK(has_error(op(d), "random-generator.output-data-type", "/desc/OutputTensor/DataType"));
    // A state of any rank whose sizes are 1 but the last, 6, is taken.
    d = rng({4}, false);
    d.InputStateTensor.Sizes = {6};
    CHECK_FALSE(validate(op(d)).has_errors());
}

}  // namespace dmlref_test_random_generator
