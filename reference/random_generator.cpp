// DML_OPERATOR_RANDOM_GENERATOR.
//
// Spec: DML_RANDOM_GENERATOR_OPERATOR_DESC (DirectML API reference), and the algorithm it names:
// Philox 4x32-10 (J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random numbers:
// as easy as 1, 2, 3", SC'11). Rules in docs/rules.md (random-generator.*).
//
//   state     = InputStateTensor: elements 0 to 3 a 128-bit counter, 4 and 5 a 64-bit key
//   Output[i] = word (i mod 4) of Philox4x32-10(counter + floor(i / 4), key)
//   OutputStateTensor (optional) = the counter + ceil(outputSize / 4), the same key
//
// Philox4x32-10: ten rounds of, on the words (c0, c1, c2, c3) and the key (k0, k1),
//   (hi0, lo0) = 0xD2511F53 * c0,  (hi1, lo1) = 0xCD9E8D57 * c2   (64-bit products)
//   (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
// with the key bumped by the Weyl constants (0x9E3779B9, 0xBB67AE85), modulo 2^32, before every
// round but the first.
//
// Rules (each with its id): Type is DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 (.type); the state
// tensors are UINT32 with Sizes {1,1,1,6} (.state-data-type, .state-sizes; dmlref takes 1 to 8
// dimensions, all 1 but the last), "InputStateTensor and OutputStateTensor must have the same
// Sizes" (.output-state-sizes); OutputTensor is UINT32 (.output-data-type) of any size.
//
// Decisions (docs/golden.md, "Random generator"):
//   - PhiloxCounterWords=Element0Lowest: element 0 holds the counter's least significant 32 bits
//     and element 3 its most significant (the order Philox's own counter words and known-answer
//     tests use; the page draws the counter as one number and does not say). Elements 4 and 5 are
//     the key words k0 and k1.
//   - PhiloxOutputOrder=BlockPerFourElements: output element i (logical row-major order, whatever
//     the output's Strides) is word i mod 4 of the block of counter + floor(i / 4): the counter
//     advances once per four outputs, so that ceil(outputSize / 4) blocks are used, the page's
//     increment.
//   - CounterWrap=Modulo2To128: counter + n carries across all four words and wraps modulo 2^128
//     (the page: "a monotonically increasing 128-bit counter").
//   - RandomStateKey=Copied: OutputStateTensor's elements 4 and 5 are InputStateTensor's key, unchanged
//     (the page increments the counter only).
#include "random_generator.hpp"

#include "dmlref/values.hpp"

#include <cstdio>

namespace dmlref::reference {

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // the round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // the Weyl key increments

// The state tensor's form: all sizes 1 but the last, 6.
bool state_shape(const TensorDesc& t) {
    if (t.Sizes.empty() || t.Sizes.back() != 6) return false;
    for (size_t i = 0; i + 1 < t.Sizes.size(); ++i)
        if (t.Sizes[i] != 1) return false;
    return true;
}

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k[0] += kW0;
            k[1] += kW1;
        }
        const uint64_t p0 = uint64_t(kM0) * c[0], p1 = uint64_t(kM1) * c[2];
        c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
    }
    return c;
}

std::array<uint32_t, 4> counter_plus(std::array<uint32_t, 4> c, uint64_t n) {
    uint64_t carry = n;  // CounterWrap=Modulo2To128: what carries out of word 3 is dropped
    for (uint32_t& w : c) {
        const uint64_t s = uint64_t(w) + (carry & 0xffffffffu);
        w = uint32_t(s);
        carry = (carry >> 32) + (s >> 32);
    }
    return c;
}

std::array<uint32_t, 6> random_state(const DML_RANDOM_GENERATOR_OPERATOR_DESC& d,
                                     std::span<const std::byte> input_state) {
    const std::vector<uint32_t> v = logical_values<uint32_t>(d.InputStateTensor, input_state);
    std::array<uint32_t, 6> s{};
    for (size_t i = 0; i < 6 && i < v.size(); ++i) s[i] = v[i];
    return s;
}

void validate(const DML_RANDOM_GENERATOR_OPERATOR_DESC& d, Diagnostics& diags) {
    if (d.Type != DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10)
        diags.error(
            desc_path("Type"), "random-generator.type",
            "Type is " + std::to_string(d.Type) + "; the only valid value is DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10");
    auto state = [&](std::string_view field, const TensorDesc& t) {
        if (t.DataType != DataType::UINT32)
            diags.error(
                desc_path(field) + "/DataType", "random-generator.state-data-type",
                std::string(field) + " is " + std::string(name(t.DataType)) + "; the Philox state tensors are UINT32");
        if (!state_shape(t))
            diags.error(
                desc_path(field) + "/Sizes", "random-generator.state-sizes",
                std::string(field) + " has Sizes " + sizes_text(t.Sizes) +
                    "; the Philox state has Sizes {1,1,1,6} (dmlref: any DimensionCount, all sizes 1 but the last, 6)");
    };
    state("InputStateTensor", d.InputStateTensor);
    if (d.OutputStateTensor) {
        if (d.OutputStateTensor->Sizes != d.InputStateTensor.Sizes)
            diags.error(desc_path("OutputStateTensor") + "/Sizes", "random-generator.output-state-sizes",
                        "OutputStateTensor has Sizes " + sizes_text(d.OutputStateTensor->Sizes) +
                            " and InputStateTensor " + sizes_text(d.InputStateTensor.Sizes) +
                            "; InputStateTensor and OutputStateTensor must have the same Sizes");
        else state("OutputStateTensor", *d.OutputStateTensor);
    }
    if (d.OutputTensor.DataType != DataType::UINT32)
        diags.error(
            desc_path("OutputTensor") + "/DataType", "random-generator.output-data-type",
            "OutputTensor is " + std::string(name(d.OutputTensor.DataType)) + "; the generator's output is UINT32");
}

void evaluate(const DML_RANDOM_GENERATOR_OPERATOR_DESC& d, const Bindings& b) {
    const std::array<uint32_t, 6> s = random_state(d, b.at("InputStateTensor"));
    const std::array<uint32_t, 4> counter = {s[0], s[1], s[2], s[3]};
    const std::array<uint32_t, 2> key = {s[4], s[5]};
    const uint64_t n = element_count(d.OutputTensor);
    // The new state first: the output may not alias the input state, but nothing forbids reading
    // the state once before writing anything.
    std::array<uint32_t, 6> next = s;
    if (d.OutputStateTensor) {
        const std::array<uint32_t, 4> c = counter_plus(counter, n / 4 + (n % 4 != 0));
        for (size_t i = 0; i < 4; ++i) next[i] = c[i];
    }
    // PhiloxOutputOrder=BlockPerFourElements: one block per four logical elements, computed once.
    uint64_t block_of = ~uint64_t(0);
    std::array<uint32_t, 4> words{};
    write_logical<uint32_t>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
        if (i / 4 != block_of) {
            block_of = i / 4;
            words = philox4x32_10(counter_plus(counter, block_of), key);
        }
        return words[i % 4];
    });
    if (d.OutputStateTensor)
        write_logical<uint32_t>(*d.OutputStateTensor, b.at("OutputStateTensor"), [&](uint64_t i) { return next[i]; });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

namespace {
std::string hex_words(const uint32_t* w, size_t n) {
    std::string t;
    char buf[16];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, "%s0x%08x", i ? " " : "", w[i]);
        t += buf;
    }
    return t;
}
}  // namespace

// Output: the block, its counter and key, the word; OutputStateTensor: the increment.
bool explain_random_generator(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_RANDOM_GENERATOR_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    const auto in = c.inputs.find("InputStateTensor");
    if (in == c.inputs.end()) return false;
    const std::array<uint32_t, 6> s = random_state(*d, in->second);
    const std::array<uint32_t, 4> counter = {s[0], s[1], s[2], s[3]};
    out.facts.emplace_back(
        "state", "counter words (element 0 first) " + hex_words(s.data(), 4) + ", key " + hex_words(s.data() + 4, 2));
    const uint64_t n = element_count(d->OutputTensor);
    if (output == "OutputStateTensor") {
        const uint64_t inc = n / 4 + (n % 4 != 0);
        const std::array<uint32_t, 4> next = counter_plus(counter, inc);
        out.facts.emplace_back("increment", "ceil(" + std::to_string(n) + " / 4) = " + std::to_string(inc));
        out.facts.emplace_back("new state",
                               flat < 4 ? "counter word " + std::to_string(flat) + " of " + hex_words(next.data(), 4)
                                        : "key word " + std::to_string(flat - 4) + ", copied");
        out.policies = {"PhiloxCounterWords", "CounterWrap", "RandomStateKey"};
        return true;
    }
    const std::array<uint32_t, 4> block = counter_plus(counter, flat / 4);
    const std::array<uint32_t, 4> words = philox4x32_10(block, {s[4], s[5]});
    out.facts.emplace_back("block", "element " + std::to_string(flat) + " is word " + std::to_string(flat % 4) +
                                        " of block " + std::to_string(flat / 4) + ": Philox4x32-10 of counter " +
                                        hex_words(block.data(), 4));
    out.facts.emplace_back("block words", hex_words(words.data(), 4));
    out.policies = {"PhiloxCounterWords", "PhiloxOutputOrder", "CounterWrap"};
    return true;
}

}  // namespace dmlref::reference
