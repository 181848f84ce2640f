// SCATTER (SCATTER_ELEMENTS) and SCATTER_ND (include/dmlref/descs/scatter.hpp).
// What reference/scatter.cpp defines for the family's record (reference/scatter_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/scatter.hpp"
#include "gather.hpp"

namespace dmlref::reference {

void validate(const DML_SCATTER_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_SCATTER_ND_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_SCATTER_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate_values(const DML_SCATTER_ND_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_SCATTER_OPERATOR_DESC& d, const Bindings& b);
void evaluate(const DML_SCATTER_ND_OPERATOR_DESC& d, const Bindings& b);

// The UpdatesTensor elements written to an output element by another one too (with the same
// bits: different bits are refused), for coverage.
uint64_t scatter_collisions(const Case& c);
// Every output element names the update that wrote it, or the input element it copies.
bool explain_scatter(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
