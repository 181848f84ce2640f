// FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE (include/dmlref/descs/fill.hpp). What
// reference/fill.cpp defines for the family's record (reference/fill_record.cpp) and tests.
// Internal to dmlref.
#pragma once

#include "dmlref/descs/fill.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, const Bindings& b);
bool explain_fill(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// The bits of element `i` (logical row-major) of FILL_VALUE_SEQUENCE's output, under the readings
// in force (FillSequenceValue): the loop's values one at a time, for explain.
uint64_t fill_sequence_element(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, uint64_t i);

}  // namespace dmlref::reference
