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
// Inline: the fast path (reference/fast/data_movement.cpp) calls it for every output row, at its own
// optimisation level.
inline std::array<uint64_t, 4> depth_space_source(bool to_space, uint32_t order, uint64_t b, uint64_t channels,
                                                  const std::array<uint64_t, 4>& o) {
    const bool dcr = order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    if (to_space) {  // o = {n, c, h b + i, w b + j}
        const uint64_t i = o[2] % b, j = o[3] % b;
        const uint64_t k = dcr ? (i * b + j) * channels + o[1] : o[1] * b * b + i * b + j;
        return {o[0], k, o[2] / b, o[3] / b};
    }
    // SPACE_TO_DEPTH: o = {n, k, h, w}; k names the channel c and the block offset (i, j).
    const uint64_t c = dcr ? o[1] % channels : o[1] / (b * b);
    const uint64_t blk = dcr ? o[1] / channels : o[1] % (b * b);
    return {o[0], c, o[2] * b + blk / b, o[3] * b + blk % b};
}

}  // namespace dmlref::reference
