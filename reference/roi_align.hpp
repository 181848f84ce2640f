// ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD.
// What reference/roi_align*.cpp define for the family's record (reference/roi_align_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/roi_align.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// ROI_ALIGN and ROI_ALIGN1 (OutputTensor): reference/roi_align_bound.cpp; ROI_ALIGN_GRAD's
// OutputGradientTensor and OutputROIGradientTensor: reference/roi_align_grad_bound.cpp.
void roi_align_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void roi_align_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                               TermSink& sink);
void roi_align_roi_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                   TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_ROI_ALIGN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ROI_ALIGN_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_ROI_ALIGN_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
// The forward's fast path, tried first (reference/fast/roi_align.cpp); false where it does not apply.
bool roi_align_fast_path(const DML_ROI_ALIGN_OPERATOR_DESC& d, const Bindings& b);
bool roi_align_fast_path(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const Bindings& b);
// The grad's fast path for OutputGradientTensor (reference/fast/roi_align_grad.cpp); false where it
// does not apply (OutputROIGradientTensor bound among others).
bool roi_align_fast_path(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ROI_ALIGN1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void validate(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
// ROI align's provisional tolerance: per-element Terms depend on the regions (input values), so
// it is stated from the whole case.
std::optional<Tolerance> roi_align_tolerance(const Case& c, std::string_view output);
// The output elements on a decision of the exact formula (nearest ties, out-of-bounds limits,
// ROI-gradient kinks), with the reason: diff reports them apart (docs/tolerance.md, ROI align).
std::vector<std::pair<uint64_t, std::string>> roi_align_boundary(const Case& c, std::string_view output);

}  // namespace dmlref::reference
