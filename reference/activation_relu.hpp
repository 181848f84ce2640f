// ACTIVATION_RELU and ACTIVATION_RELU_GRAD.
// What reference/activation_relu*.cpp define for the family's record (reference/activation_relu_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/activation.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, const Bindings& b);
bool explain_relu(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
