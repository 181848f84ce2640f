// The element-wise logic family: the comparisons, the logical operators, IS_NAN, IS_INFINITY,
// IF and the bitwise operators (include/dmlref/descs/element_wise_logic.hpp).
// What reference/element_wise_logic.cpp defines for the family's record
// (reference/element_wise_logic_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/element_wise_logic.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

// The operator's prefix of its rule ids ("logical-equals", "bit-shift-left"; docs/rules.md).
std::string_view logic_rule_prefix(OperatorType t);

template <OperatorType T> void validate(const logic_desc::Binary<T>& d, Diagnostics& diags);
template <OperatorType T> void evaluate(const logic_desc::Binary<T>& d, const Bindings& b);
template <OperatorType T> void validate(const logic_desc::Unary<T>& d, Diagnostics& diags);
template <OperatorType T> void evaluate(const logic_desc::Unary<T>& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_IF_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_IF_OPERATOR_DESC& d, const Bindings& b);

bool explain_logic(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
