// The transcendental activations: ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_GELU. What
// reference/activation_math.cpp defines for the family's record (reference/activation_math_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/activation_math.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_ACTIVATION_SIGMOID_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_SIGMOID_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_TANH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_TANH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_GELU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_GELU_OPERATOR_DESC& d, const Bindings& b);

// Each float element's bound: the fused activation's error at the exact x (docs/tolerance.md).
void activation_math_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
bool explain_activation_math(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
