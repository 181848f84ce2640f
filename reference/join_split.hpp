// JOIN and SPLIT.
// What reference/join_split.cpp defines for the family's record (reference/join_split_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/join_split.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_JOIN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_JOIN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_SPLIT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SPLIT_OPERATOR_DESC& d, const Bindings& b);
bool explain_join_split(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
