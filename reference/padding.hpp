// PADDING and PADDING1.
// What reference/padding.cpp defines for the family's record (reference/padding_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/padding.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_PADDING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_PADDING_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_PADDING1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_PADDING1_OPERATOR_DESC& d, const Bindings& b);
bool explain_padding(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// The input index that output index `o` of one dimension reads under `mode` (input size n,
// StartPadding `start`), or -1 for CONSTANT's padding value.
int64_t padding_source(uint32_t mode, int64_t o, int64_t start, int64_t n);

// The bits the padding value is written as, in the element's width: PADDING's FLOAT converted as
// PaddingValueConversion = AsCast says, PADDING1's own bits.
uint64_t padding_value_bits(const DML_PADDING_OPERATOR_DESC& d);
uint64_t padding_value_bits(const DML_PADDING1_OPERATOR_DESC& d);

}  // namespace dmlref::reference
