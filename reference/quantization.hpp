// The quantization family: ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR,
// DYNAMIC_QUANTIZE_LINEAR and ELEMENT_WISE_QUANTIZED_LINEAR_ADD (include/dmlref/descs/quantization.hpp). What reference/quantization.cpp
// defines for the family's record (reference/quantization_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/quantization.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/tolerance.hpp"
#include "common.hpp"
#include "exact_rational.hpp"

#include <optional>
#include <vector>

namespace dmlref::reference {

// What the quantized operators share (reference/quantization.cpp, quantize.cpp, quantized_linear.cpp,
// quantized_pooling.cpp): the 8-bit quantized types and their ranges, and a buffer by field name.
inline std::string type_text(const TensorDesc& d) { return std::string(dmlref::name(d.DataType)); }
inline bool is_quantized_type(DataType t) { return t == DataType::INT8 || t == DataType::UINT8; }
inline int64_t type_min(DataType t) { return t == DataType::INT8 ? -128 : 0; }
inline int64_t type_max(DataType t) { return t == DataType::INT8 ? 127 : 255; }
// v saturated to [lo, hi].
inline int64_t clamp_to(const mpz_class& v, int64_t lo, int64_t hi) {
    if (v < static_cast<long>(lo)) return lo;
    if (v > static_cast<long>(hi)) return hi;
    return v.get_si();
}
template <class T> std::span<const std::byte> bytes_of(const T& buffers, const char* field) {
    return std::span<const std::byte>(buffers.at(field));
}

void validate(const DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags);
void evaluate(const DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC& d, const Bindings& b);

// One element of QUANTIZE_LINEAR: x / scale exact (DYNAMIC_QUANTIZE_LINEAR's OutputTensor:
// rounded to FLOAT32 first, float32_quotient), rounded half to even, plus the zero point,
// saturated to [lo, hi]; a NaN quotient gives lo (QuantizeNaN=Minimum), an infinite one lo or hi.
// scale is not zero.
int64_t quantize_element(double x, double scale, int64_t zero_point, int64_t lo, int64_t hi, bool float32_quotient);
// Whether a backend that forms x / scale in FLOAT32 (a division, or x times a rounded reciprocal,
// an INT32 x converted first) may round the element to the other neighbour: the exact quotient is
// within gamma_3 |q| (u = 2^-24) of a half-integer, and the two neighbours stay apart after the
// zero point and the saturation (docs/tolerance.md, "Quantization").
bool quantize_near_tie(double x, double scale, int64_t zero_point, int64_t lo, int64_t hi);

// The requantization the quantized operators share (reference/quantized_linear.cpp too): the exact
// value q (the real result over the output scale) rounded half to even, plus the zero point,
// saturated to [lo, hi].
int64_t requantize_exact(const mpq_class& q, int64_t zero_point, int64_t lo, int64_t hi);
// Whether a backend's value of the exact quotient q, formed with at most n roundings of relative
// error u = 2^-24 on terms whose magnitudes, over the scale, sum to m (m >= |q|), may round to the
// other neighbour: |q - (k + 1/2)| <= gamma_n m, and the two neighbours stay apart after the zero
// point and the saturation (docs/tolerance.md, "Quantization").
bool requantize_near_tie(const mpq_class& q, const mpq_class& m, long n, int64_t zero_point, int64_t lo, int64_t hi);
// One element of DEQUANTIZE_LINEAR: (q - zero_point) * scale, the difference and the product exact,
// rounded once to T (float or half; DequantizeValue=ExactThenRoundOnce); a NaN scale or 0 * inf
// gives the canonical NaN, a zero difference +0 times the scale. Also DEQUANTIZE's element
// (reference/quantize.cpp).
template <class T> T dequantize_element(int64_t q, int64_t zero_point, double scale);

// One element of QUANTIZED_LINEAR_ADD: a and b with their zero points and scales, OutputScale and
// OutputZeroPoint.
struct AddOperands {
    int64_t a, za;
    double sa;
    int64_t b, zb;
    double sb, so;
    int64_t zo;
};
// ((a - za) sa + (b - zb) sb) / so exact, rounded half to even, plus zo, saturated
// (RequantizeValue=ExactThenRoundOnce); non-finite scales by IEEE's rules, NaN giving lo.
int64_t quantized_add_element(const AddOperands& e, int64_t lo, int64_t hi);
// Whether a FLOAT32 backend (each dequantized value, the sum and the quotient rounded: gamma_4 of
// the terms' magnitudes over |so|) may round it to the other neighbour.
bool quantized_add_near_tie(const AddOperands& e, int64_t lo, int64_t hi);

// DYNAMIC_QUANTIZE_LINEAR's parameters from the input's values (docs/golden.md, "Quantization").
struct DynamicParameters {
    float scale = 0;
    int64_t zero_point = 0;
};
DynamicParameters dynamic_parameters(const std::vector<double>& x, int64_t lo, int64_t hi);

// The elements of a quantized output that sit within the FLOAT32 quotient's error of a rounding
// tie ("QuantizeTie"), and the tolerance: Ulp 1 where there are any, else Bits.
std::vector<BoundaryElement> quantize_ties(const Case& c, std::string_view output);
std::optional<Tolerance> quantize_tolerance(const Case& c, std::string_view output);
// That tolerance, given whether some element is near a tie (QUANTIZE's too, reference/quantize.cpp).
Tolerance quantize_tie_tolerance(bool near_ties);
std::optional<Tolerance> dequantize_tolerance(const DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC& d,
                                              std::string_view output);

bool explain_quantize(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
