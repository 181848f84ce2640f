// The quantized linear products: QUANTIZED_LINEAR_MATRIX_MULTIPLY and QUANTIZED_LINEAR_CONVOLUTION
// (include/dmlref/descs/quantized_linear.hpp). What reference/quantized_linear.cpp defines for the
// family's record (reference/quantized_linear_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/quantized_linear.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/tolerance.hpp"
#include "common.hpp"

#include <optional>
#include <vector>

namespace dmlref::reference {

void validate(const DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags);
void evaluate(const DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags);
void evaluate(const DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC& d, const Bindings& b);

// One output element before the requantization: the exact integer accumulator (the sum of the
// products (a - za)(b - zb), plus the convolution's bias), the two input scales that apply to it,
// and the output's scale and zero point.
struct RequantizeTerms {
    int64_t acc = 0;
    double sa = 1, sb = 1, so = 1;
    int64_t zo = 0;
};
// acc * sa * sb / so exact, rounded half to even, plus zo, saturated to [lo, hi]
// (RequantizeValue=ExactThenRoundOnce, QuantizedAccumulator=Exact). The scales are finite and not 0.
int64_t requantized_element(const RequantizeTerms& t, int64_t lo, int64_t hi);
// Whether a FLOAT32 backend (the multiplier sa * sb / so in up to three roundings, the accumulator
// converted, the product: gamma_5 of |acc * sa * sb / so|) may round it to the other neighbour.
bool requantized_near_tie(const RequantizeTerms& t, int64_t lo, int64_t hi);

// Every output element's terms, in logical order, with the output's Min and Max; empty when the
// case does not validate or its values are refused.
struct RequantizeElements {
    std::vector<RequantizeTerms> terms;
    int64_t lo = 0, hi = 0;
};
std::optional<RequantizeElements> requantize_elements(const Case& c);

// The QuantizeTie elements and the tolerance: Ulp 1 where there are any, else Bits
// (docs/tolerance.md, "Quantized linear products").
std::vector<BoundaryElement> quantized_linear_ties(const Case& c, std::string_view output);
std::optional<Tolerance> quantized_linear_tolerance(const Case& c, std::string_view output);

bool explain_quantized_linear(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
