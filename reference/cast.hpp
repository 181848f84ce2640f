// CAST. What reference/cast.cpp defines for the family's record (reference/cast_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/cast.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_CAST_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_CAST_OPERATOR_DESC& d, const Bindings& b);
bool explain_cast(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// One element of type From as type To, by the decisions of reference/cast.cpp (for tests of the
// conversion itself).
uint64_t cast_bits(DataType from, uint64_t bits, DataType to);

}  // namespace dmlref::reference
