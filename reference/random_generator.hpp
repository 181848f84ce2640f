// RANDOM_GENERATOR (include/dmlref/descs/random_generator.hpp). What reference/random_generator.cpp
// defines for the family's record (reference/random_generator_record.cpp) and tests. Internal to
// dmlref.
#pragma once

#include "dmlref/descs/random_generator.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

#include <array>

namespace dmlref::reference {

void validate(const DML_RANDOM_GENERATOR_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RANDOM_GENERATOR_OPERATOR_DESC& d, const Bindings& b);
bool explain_random_generator(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// Philox 4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC'11): the four output words of one counter block under one key.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);
// `counter` (word 0 the least significant: PhiloxCounterWords=Element0Lowest) plus `n`, modulo 2^128.
std::array<uint32_t, 4> counter_plus(std::array<uint32_t, 4> counter, uint64_t n);

// The state's six words (InputStateTensor's logical elements) of a case.
std::array<uint32_t, 6> random_state(const DML_RANDOM_GENERATOR_OPERATOR_DESC& d,
                                     std::span<const std::byte> input_state);

}  // namespace dmlref::reference
