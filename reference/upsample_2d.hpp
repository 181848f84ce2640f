// UPSAMPLE_2D (include/dmlref/descs/upsample_2d.hpp). What reference/upsample_2d.cpp defines for
// the family's record (reference/upsample_2d_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/upsample_2d.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref::reference {

// The RESAMPLE desc UPSAMPLE_2D is: the same tensors and InterpolationMode, ScaleCount 4,
// Scales {1, 1, ScaleSize.Height, ScaleSize.Width} (RESAMPLE's offsets 0.5 and -0.5 implied).
DML_RESAMPLE_OPERATOR_DESC as_resample(const DML_UPSAMPLE_2D_OPERATOR_DESC& d);

void validate(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, std::string_view output);
Boundary boundary(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, std::string_view output);
bool explain_upsample_2d(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
