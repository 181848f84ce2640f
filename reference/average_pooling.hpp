// AVERAGE_POOLING, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD.
// What reference/average_pooling*.cpp define for the family's record (reference/average_pooling_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/average_pooling.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// AVERAGE_POOLING, AVERAGE_POOLING1 (OutputTensor) and AVERAGE_POOLING_GRAD (OutputGradientTensor):
// each element's bound (docs/tolerance.md, "Computed values").
void average_pooling_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b);
// The fast paths (reference/fast/average_pooling.cpp): false where they do not apply (integer and
// FLOAT64 data, windows of more than 2^20 taps), and the plain loop runs.
bool average_pooling_fast(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, const Bindings& b);
bool average_pooling_fast(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, const Bindings& b);
bool average_pooling_fast(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::vector<DontCare> dont_care(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, std::string_view output);
std::vector<DontCare> dont_care(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, std::string_view output);

}  // namespace dmlref::reference
