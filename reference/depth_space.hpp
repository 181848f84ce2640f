// SPACE_TO_DEPTH, SPACE_TO_DEPTH1, DEPTH_TO_SPACE and DEPTH_TO_SPACE1.
// What reference/depth_space.cpp defines for the family's record (reference/depth_space_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/depth_space.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

#include <array>

namespace dmlref::reference {

void validate(const DML_SPACE_TO_DEPTH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SPACE_TO_DEPTH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_SPACE_TO_DEPTH1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SPACE_TO_DEPTH1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_DEPTH_TO_SPACE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_DEPTH_TO_SPACE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_DEPTH_TO_SPACE1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_DEPTH_TO_SPACE1_OPERATOR_DESC& d, const Bindings& b);
bool explain_depth_space(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

// The input coordinate {n, c, h, w} that output coordinate `o` reads. `to_space`: DEPTH_TO_SPACE
// (else SPACE_TO_DEPTH); `channels` is the depth side's smaller channel count (DEPTH_TO_SPACE's
// output channels, SPACE_TO_DEPTH's input channels).
std::array<uint64_t, 4> depth_space_source(bool to_space, uint32_t order, uint64_t block, uint64_t channels,
                                           const std::array<uint64_t, 4>& o);

}  // namespace dmlref::reference
