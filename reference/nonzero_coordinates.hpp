// NONZERO_COORDINATES (include/dmlref/descs/nonzero_coordinates.hpp). What
// reference/nonzero_coordinates.cpp defines for the family's record
// (reference/nonzero_coordinates_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/nonzero_coordinates.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_NONZERO_COORDINATES_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_NONZERO_COORDINATES_OPERATOR_DESC& d, const Bindings& b);
bool explain_nonzero_coordinates(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// The logical indices (row-major, ascending) of InputTensor's non-zero elements: a float is zero
// when it is +0 or -0 (NaN is not zero: NonzeroNaN=Nonzero), an integer when it is 0.
std::vector<uint64_t> nonzero_indices(const TensorDesc& input, std::span<const std::byte> buffer);
// OutputCoordinatesTensor's elements past the count (rows count to M - 1), as DontCare entries:
// the hook kit::OperatorRecord::case_dont_care. None when the case lacks InputTensor's buffer.
std::vector<DontCare> nonzero_rows_past_count(const Case& c, std::string_view output);

}  // namespace dmlref::reference
