// QUANTIZED_LINEAR_AVERAGE_POOLING. What reference/quantized_pooling.cpp defines for the family's
// record (reference/quantized_pooling_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/quantized_pooling.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/tolerance.hpp"
#include "common.hpp"
#include "pooling_geometry.hpp"

#include <gmpxx.h>

#include <optional>
#include <vector>

namespace dmlref::reference {

using QAP = DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC;

void validate(const QAP& d, Diagnostics& diags);
void validate_values(const QAP& d, const InputBuffers& in, uint64_t, Diagnostics& diags);
void evaluate(const QAP& d, const Bindings& b);

// The window geometry of the desc (reference/pooling_geometry.hpp).
inline PoolingView view(const QAP& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, &d.Dilations};
}

// One output element: S = the sum of (q - InputZeroPoint) over the window's real elements, M = the
// sum of |q - InputZeroPoint|, `terms` real elements, D the divisor (0: an empty window without
// IncludePadding), the channel's scales and OutputZeroPoint.
struct PooledOperands {
    int64_t S = 0, M = 0;
    uint64_t terms = 0;
    mpz_class D = 1;
    double si = 1, so = 1;
    int64_t zo = 0;
};
// clamp(round_half_even(S * si / (D * so)) + zo, lo, hi), exact until the one rounding
// (RequantizeValue=ExactThenRoundOnce); non-finite scales by IEEE's rules as QUANTIZE_LINEAR's;
// D = 0 gives clamp(zo, lo, hi) (a DontCare entry).
int64_t quantized_pool_element(const PooledOperands& e, int64_t lo, int64_t hi);
// Whether a FLOAT32 backend (each dequantized term, the n - 1 additions, the division by D and by
// OutputScale, each possibly a reciprocal and a product: gamma_(n+4) of M si / (D so)) may round
// the element to the other neighbour (docs/tolerance.md, "Quantized average pooling").
bool quantized_pool_near_tie(const PooledOperands& e, int64_t lo, int64_t hi);

std::vector<BoundaryElement> quantized_pool_ties(const Case& c, std::string_view output);
std::optional<Tolerance> quantized_pool_tolerance(const Case& c, std::string_view output);
std::vector<DontCare> quantized_pool_dont_care(const QAP& d, std::string_view output);

}  // namespace dmlref::reference
