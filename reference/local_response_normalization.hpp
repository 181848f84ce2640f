// LOCAL_RESPONSE_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION_GRAD.
// What reference/local_response_normalization*.cpp define for the family's record (reference/local_response_normalization_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/local_response_normalization.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// LOCAL_RESPONSE_NORMALIZATION (OutputTensor) and _GRAD (OutputGradientTensor): each element's bound.
void lrn_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
// The fast paths, tried first (reference/fast/local_response_normalization.cpp); false where it
// does not apply.
bool lrn_fast_path(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
bool lrn_fast_path(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d,
                                   std::string_view output);
bool explain_lrn(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
