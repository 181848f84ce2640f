// TOP_K and TOP_K1 (include/dmlref/descs/top_k.hpp). What reference/top_k.cpp defines for the
// family's record (reference/top_k_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/top_k.hpp"
#include "dmlref/explain.hpp"
#include "kit/family.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_TOP_K_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_TOP_K1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_TOP_K_OPERATOR_DESC& d, const Bindings& b);
void evaluate(const DML_TOP_K1_OPERATOR_DESC& d, const Bindings& b);
bool explain_top_k(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
bool top_k_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error);

}  // namespace dmlref::reference
