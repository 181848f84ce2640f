// MAX_POOLING, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD.
// What reference/max_pooling*.cpp define for the family's record (reference/max_pooling_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/max_pooling.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// MAX_POOLING_GRAD: for each OutputGradientTensor element (logical row-major order), the number
// of InputGradientTensor elements summed into it (the windows whose argmax it is). The desc
// must have validated; `InputTensor` is the input's buffer. A tolerance model uses the counts
// (docs/tolerance.md).
std::vector<uint32_t> max_pooling_grad_term_counts(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& desc,
                                                   std::span<const std::byte> InputTensor);

// Max pooling elements on an argmax tie (docs/tolerance.md), logical indices in increasing
// order: for MAX_POOLING, 1 and 2, the outputs whose window holds two or more real elements equal
// to its maximum (-0 and +0 included); for MAX_POOLING_GRAD, the OutputGradientTensor elements
// tied for the maximum of some window. A backend that broke ties differently would differ there.
std::vector<uint64_t> max_pooling_argmax_ties(const Operator& op, std::span<const std::byte> InputTensor);

// MAX_POOLING_GRAD (float types): each dY element is one term, weight 1, of its window's argmax
// (the same argmax the evaluate loop uses). Buffers as bound (InputTensor, InputGradientTensor).
void max_pooling_grad_terms(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, std::span<const std::byte> InputTensor,
                            std::span<const std::byte> InputGradientTensor, TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_MAX_POOLING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING2_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING2_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b);
// The fast paths (reference/fast/max_pooling.cpp), tried by the record before the plain loop: false where
// they do not apply (one or more than three spatial dimensions), and the plain loop runs.
bool max_pooling_fast(const DML_MAX_POOLING_OPERATOR_DESC& d, const Bindings& b);
bool max_pooling_fast(const DML_MAX_POOLING1_OPERATOR_DESC& d, const Bindings& b);
bool max_pooling_fast(const DML_MAX_POOLING2_OPERATOR_DESC& d, const Bindings& b);
bool max_pooling_fast(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::vector<DontCare> dont_care(const DML_MAX_POOLING_OPERATOR_DESC& d, std::string_view output);
std::vector<DontCare> dont_care(const DML_MAX_POOLING1_OPERATOR_DESC& d, std::string_view output);
std::vector<DontCare> dont_care(const DML_MAX_POOLING2_OPERATOR_DESC& d, std::string_view output);
bool explain_max_pooling(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
