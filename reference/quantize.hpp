// The quantize family: QUANTIZE and DEQUANTIZE (include/dmlref/descs/quantize.hpp), block-wise
// scales and zero points. What reference/quantize.cpp defines for the family's record
// (reference/quantize_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/quantize.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/tolerance.hpp"
#include "common.hpp"

#include <optional>
#include <vector>

namespace dmlref::reference {

void validate(const DML_QUANTIZE_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_QUANTIZE_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags);
void evaluate(const DML_QUANTIZE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_DEQUANTIZE_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_DEQUANTIZE_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags);
void evaluate(const DML_DEQUANTIZE_OPERATOR_DESC& d, const Bindings& b);

// The element of `q` (a QuantizationTensors entry) that input element `flat` (row-major over
// `input`'s Sizes) uses: along each dimension d, index i_d / (input.Sizes[d] / q.Sizes[d]), each
// size of q dividing the input's (QuantizationBlocks=WholeBlocks). Row-major over q's Sizes.
uint64_t block_index(const TensorDesc& input, const TensorDesc& q, uint64_t flat);

// QUANTIZE's OutputTensor: the elements within FLOAT32's error of a rounding tie ("QuantizeTie",
// quantize_near_tie of reference/quantization.hpp), and the tolerance: Ulp 1 where there are any,
// else Bits. DEQUANTIZE's OutputTensor: Summed with MaxTerms 2.
std::vector<BoundaryElement> quantize_block_ties(const Case& c, std::string_view output);
std::optional<Tolerance> quantize_block_tolerance(const Case& c, std::string_view output);
std::optional<Tolerance> dequantize_block_tolerance(const DML_DEQUANTIZE_OPERATOR_DESC& d, std::string_view output);

bool explain_quantize_block(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
