// ELEMENT_WISE_CLIP, CLIP1, CLIP_GRAD and CLIP_GRAD1.
// What reference/element_wise_clip*.cpp define for the family's record (reference/element_wise_clip_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/element_wise_clip.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC& d, const Bindings& b);
bool explain_clip(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
