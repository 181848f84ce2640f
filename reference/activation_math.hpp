// The transcendental activations: ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_GELU, and the
// parametric ones (ELU, CELU, SCALED_ELU, SOFTPLUS, PARAMETRIC_SOFTPLUS, SCALED_TANH, SWISH). What
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
void validate(const DML_ACTIVATION_ELU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_ELU_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_CELU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_CELU_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_SWISH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_SWISH_OPERATOR_DESC& d, const Bindings& b);

// SWISH's value x * sigmoid(SigmoidInputScale * x), rounded once to T (the other activations are
// fused_activation<T>). Instantiated for the eleven element types.
template <class T> T swish(T x, float sigmoid_input_scale);

// ACTIVATION_SOFTPLUS's Steepness below 1 until DML_FEATURE_LEVEL_6_4 (`dmlref validate --feature-level`).
void softplus_support_rules(const OperatorDesc& od, uint32_t level, std::vector<std::string>& why);

// Each float element's bound: the fused activation's error at the exact x (docs/tolerance.md).
void activation_math_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
bool explain_activation_math(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
