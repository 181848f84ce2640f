// The element-wise family: ELEMENT_WISE_ADD, SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN, MEAN; IDENTITY, ABS,
// CEIL, FLOOR, SIGN, NEGATE, SQRT, RECIP, THRESHOLD, ROUND; MODULUS_TRUNCATE, MODULUS_FLOOR, DIFFERENCE_SQUARE;
// VALUE_SCALE_2D.
// What reference/element_wise*.cpp define for the family's record (reference/element_wise_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/element_wise.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_MAX_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_MAX_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_MIN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_MIN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_MEAN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_MEAN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC& d, const Bindings& b);
// ADD1's float elements for the judge: the sum's rounding carried through the activation.
void add1_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void validate(const DML_VALUE_SCALE_2D_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_VALUE_SCALE_2D_OPERATOR_DESC& d, const Bindings& b);
// VALUE_SCALE_2D's terms for the judge: x * Scale (a product a backend rounds) and Bias[c].
void value_scale_2d_terms(const Case& c, std::string_view output, const ArithmeticProfile& p, TermSink& sink);
// The unary operators (reference/element_wise_unary.cpp).
void validate(const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ABS_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ABS_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CEIL_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CEIL_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_SQRT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_SQRT_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_RECIP_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_RECIP_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC& d, const Bindings& b);
bool explain_unary(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
bool explain_value_scale_2d(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
bool explain_element_wise(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
