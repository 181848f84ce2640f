// ONE_HOT (include/dmlref/descs/one_hot.hpp). What reference/one_hot.cpp defines for the
// family's record (reference/one_hot_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/one_hot.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_ONE_HOT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ONE_HOT_OPERATOR_DESC& d, const Bindings& b);
// The logical index of ValuesTensor's OnValue: 1 along the fastest-changing dimension of size > 1.
std::vector<uint64_t> on_value_coordinate(const TensorDesc& values);
bool explain_one_hot(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
