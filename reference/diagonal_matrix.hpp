// DIAGONAL_MATRIX and DIAGONAL_MATRIX1 (include/dmlref/descs/diagonal_matrix.hpp). What
// reference/diagonal_matrix.cpp defines for the family's record
// (reference/diagonal_matrix_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/diagonal_matrix.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& d, const Bindings& b);
bool explain_diagonal_matrix(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// Whether the element at row y, column x of each matrix holds Value: DIAGONAL_MATRIX's
// y + Offset == x, DIAGONAL_MATRIX1's band test of its page, both in exact integers.
bool on_diagonal(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d, uint64_t y, uint64_t x);
bool in_fill(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& d, uint64_t y, uint64_t x);
// DIAGONAL_MATRIX's FLOAT Value in the output's type (DiagonalValueConversion=AsCast), as bits.
uint64_t diagonal_value_bits(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d);

}  // namespace dmlref::reference
