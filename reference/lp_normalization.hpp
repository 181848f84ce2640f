// LP_NORMALIZATION: what reference/lp_normalization.cpp defines for the family's record
// (reference/lp_normalization_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/lp_normalization.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// Each OutputTensor element's bound on |backend - exact value| (docs/tolerance.md, "Lp normalization").
void lp_normalization_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

// For every logical element of the input, its vector along Axis (row-major over the input's sizes
// with Axis set to 1). The desc validates.
std::vector<uint64_t> lp_groups(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, uint64_t& groups);

void validate(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, std::string_view output);

}  // namespace dmlref::reference
