// FOLD and UNFOLD (include/dmlref/descs/fold.hpp). What reference/fold.cpp defines for the
// family's record (reference/fold_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/fold.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"
#include "kit/family.hpp"

#include <string>
#include <vector>

namespace dmlref::reference {

void validate(const DML_UNFOLD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_UNFOLD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_FOLD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_FOLD_OPERATOR_DESC& d, const Bindings& b);

// FOLD's judging: each OutputTensor element's number of terms (the column elements that land
// on it, padding positions dropped), logical row-major, and the terms themselves (copies).
std::vector<uint32_t> fold_term_counts(const Case& c, std::string_view output);
void fold_terms(const Case& c, std::string_view output, const ArithmeticProfile& p, TermSink& sink);

// dmlref explain: FOLD's terms of an image element, UNFOLD's source element of a column element.
bool explain_fold(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// Coverage: padding, stride>1, overlapping-windows, dilation>1, columns-3d, columns-image-rank,
// and (FOLD) uncovered-positions: image positions no window reaches. Nothing for a desc that
// does not validate.
void fold_features(const OperatorDesc& d, std::vector<std::string>& f);
// The taps of one window (the product of WindowSizes), saturated: FOLD's work per element.
uint64_t fold_window_taps(const OperatorDesc& d);
// gen's "auto" sizes (kit::SizesHook): the columns tensor from the image's sizes and the desc,
// in the image's DimensionCount ({1, ..., 1, N, C * prod(WindowSizes), BlockCount}).
bool fold_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& error_path, std::string& error);

}  // namespace dmlref::reference
