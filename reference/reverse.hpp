// REVERSE_SUBSEQUENCES (include/dmlref/descs/reverse.hpp). What reference/reverse.cpp defines for
// the family's record (reference/reverse_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/reverse.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref::reference {

void validate(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC& d, const Bindings& b);
bool explain_reverse(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// The length of a subsequence of `size` elements from its SequenceLengthsTensor element:
// SequenceLengthBeyondSize=Clamped; nullopt for a negative signed length (NegativeSequenceLength=Refused).
std::optional<uint64_t> sequence_length(DataType t, const std::byte* p, uint64_t size);

}  // namespace dmlref::reference
