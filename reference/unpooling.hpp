// MAX_UNPOOLING (include/dmlref/descs/unpooling.hpp). What reference/unpooling.cpp defines for the
// family's record (reference/unpooling_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/admissible.hpp"
#include "dmlref/descs/unpooling.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const Bindings& b);
bool explain_unpooling(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
// The OutputTensor elements several input elements write with different bits, with every value
// that could win (none under DuplicateIndex=LastInOrder).
std::vector<Admissible> unpooling_admissible(const Case& c, std::string_view output);

// What the case's indices do: how many are outside OutputTensor, how many write an element
// already written with the same bits or with different bits, and how many output elements no
// index writes. All zero where the desc breaks a rule or the inputs are missing.
struct UnpoolingCensus {
    uint64_t out_of_range = 0, same_bits = 0, different_bits = 0, unwritten = 0;
    uint64_t first_bad = 0;        // the IndicesTensor element (logical) of the first out-of-range index
    uint64_t first_collision = 0;  // ... of the first write with different bits
};
UnpoolingCensus unpooling_census(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const InputBuffers& in);

}  // namespace dmlref::reference
