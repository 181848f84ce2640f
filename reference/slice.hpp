// SLICE, SLICE1 and SLICE_GRAD.
// What reference/slice*.cpp define for the family's record (reference/slice_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/slice.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_SLICE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SLICE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_SLICE1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SLICE1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_SLICE_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SLICE_GRAD_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_SLICE_GRAD_OPERATOR_DESC& d, const Bindings& b);  // false: not taken
bool explain_slice(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
