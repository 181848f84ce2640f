// ROI_POOLING (include/dmlref/descs/roi_pooling.hpp). What reference/roi_pooling.cpp defines for
// the family's record (reference/roi_pooling_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/roi_pooling.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref::reference {

void validate(const DML_ROI_POOLING_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_ROI_POOLING_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_ROI_POOLING_OPERATOR_DESC& d, const Bindings& b);
bool explain_roi_pooling(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// One region's bin: rows [h0, h1) and columns [w0, w1) of its batch's image (empty when h0 >= h1
// or w0 >= w1). `roi` is the region's five values as float64.
struct RoiBin {
    uint64_t batch;
    int64_t h0, h1, w0, w1;
};
RoiBin roi_bin(const DML_ROI_POOLING_OPERATOR_DESC& d, const double roi[5], uint32_t ph, uint32_t pw);
// ROITensor's logical elements as float64 (five per region), from its buffer.
std::vector<double> roi_values(const TensorDesc& roi, std::span<const std::byte> buffer);

}  // namespace dmlref::reference
