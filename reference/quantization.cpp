// DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR, DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR,
// DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR and DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD.
//
// Spec: DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC,
// DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC and DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC
// (DirectML API reference); rules in docs/rules.md;
// the decisions in docs/golden.md, "Quantization"; the judging in docs/tolerance.md, "Quantization".
//
//   QUANTIZE_LINEAR    f(x, s, z) = clamp(round(x / s) + z, Min, Max)   Min, Max: INT8 -128, 127; UINT8 0, 255
//   DEQUANTIZE_LINEAR  f(q, s, z) = (q - z) * s
//   DYNAMIC_QUANTIZE_LINEAR  the scale and zero point of the whole input from its minimum and
//                      maximum, then QUANTIZE_LINEAR of every element with them
//   QUANTIZED_LINEAR_ADD  clamp(round(((a - za) sa + (b - zb) sb) / so) + zo, Min, Max)
//
// Decisions (policies recorded in the goldens):
//   - x / s is the exact quotient (QuantizeValue=ExactQuotient), rounded to the nearest integer,
//     ties to even (QuantizeRounding=HalfToEven), then the zero point is added and the sum
//     saturated, as the page's clamp says.
//   - A NaN quotient (a NaN x or s, inf / inf) gives Min (QuantizeNaN=Minimum: the page's clamp
//     under Direct3D's min and max, which return the operand that is not NaN); an infinite one
//     saturates; x / inf is 0, so the element is the zero point.
//   - QUANTIZED_LINEAR_ADD requantizes the exact value: both dequantized values, their sum and the
//     quotient by OutputScale are exact, rounded once (RequantizeValue=ExactThenRoundOnce); an
//     OutputScale of 0 is refused.
//   - A scale of 0 is undefined behaviour (the pages' note): refused (`<op>.scale-zero`). A
//     negative scale is the formula's (NegativeScale=FormulaLiteral): it flips the sign.
//   - DEQUANTIZE_LINEAR: q - z is the exact integer (no INT32 wrap), times s, rounded once
//     (DequantizeValue=ExactThenRoundOnce); a NaN scale or 0 * inf gives the canonical NaN, a zero
//     difference times a negative scale -0 (IEEE's product).
//   - DYNAMIC_QUANTIZE_LINEAR follows ONNX's DynamicQuantizeLinear, which DirectML's page
//     abbreviates (ONNX Runtime's DirectML provider runs that operator on this one): the range
//     includes 0 (DynamicRange=IncludesZero), and every intermediate is rounded to FLOAT32 as ONNX's
//     reference computes it (DynamicArithmetic=Float32Chain): the scale is
//     fl32(fl32(max - min) / (Max - Min)), the zero point round_half_even(fl32(Min - fl32(min /
//     scale))) saturated, each element round_half_even(fl32(x / scale)) + zero point, saturated. An
//     all-zero input has scale +0 and zero point Min, and every element is Min
//     (DynamicZeroRange=ZeroPointMinimum). NaN and infinite elements stay out of the range
//     (DynamicNonFinite=FiniteRange) and are quantized as QUANTIZE_LINEAR's: NaN Min, infinities
//     saturated. A range that overflows FLOAT32 and a non-zero range whose scale underflows to 0
//     are refused (dynamic-quantize-linear.input-values).
#include "quantization.hpp"

#include "exact_rational.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/terms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using QL = DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC;
using DQL = DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC;
using DYN = DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC;

constexpr const char* kQl = "element-wise-quantize-linear";
constexpr const char* kDql = "element-wise-dequantize-linear";
constexpr const char* kDyn = "dynamic-quantize-linear";

// The quantized element type's writer: Min and Max of OutputTensor.
template <class F> void write_quantized(const TensorDesc& out, std::span<std::byte> buffer, F&& value) {
    if (out.DataType == DataType::INT8)
        write_logical<int8_t>(out, buffer, [&](uint64_t i) { return int8_t(value(i)); });
    else write_logical<uint8_t>(out, buffer, [&](uint64_t i) { return uint8_t(value(i)); });
}

// "A scale value of 0 results in undefined behavior" (both pages): refused, at most 8 reported.
void refuse_zero_scales(const TensorDesc& scale, const InputBuffers& in, const char* op, Diagnostics& diags) {
    const auto it = in.find("ScaleTensor");
    if (it == in.end() || it->second.size() < buffer_size(scale)) return;
    const std::vector<double> s = logical_doubles(scale, it->second);
    int reported = 0;
    for (size_t i = 0; i < s.size() && reported < 8; ++i)
        if (s[i] == 0) {
            ++reported;
            diags.error(pointer_append("/inputs/ScaleTensor", i), rule(op, "scale-zero"),
                        "ScaleTensor element " + std::to_string(i) +
                            " is 0; the page: \"A scale value of 0 results in undefined behavior\"");
        }
}

}  // namespace

// ---- The element functions ---------------------------------------------------------------------

int64_t quantize_element(double x, double scale, int64_t zero_point, int64_t lo, int64_t hi, bool float32_quotient) {
    if (std::isnan(x) || std::isnan(scale) || (std::isinf(x) && std::isinf(scale))) return lo;  // QuantizeNaN=Minimum
    if (std::isinf(x)) return ((x < 0) != (scale < 0)) ? lo : hi;
    if (std::isinf(scale)) return std::clamp(zero_point, lo, hi);  // x / inf = 0
    mpq_class q = mpq_class(x) / mpq_class(scale);
    if (float32_quotient) {
        const float f = round_rational<float>(q);  // DynamicArithmetic=Float32Chain: the quotient rounded to FLOAT32
        if (std::isinf(f)) return f < 0 ? lo : hi;
        q = mpq_class(double(f));
    }
    const mpz_class r = round_rational_to_integer(q);
    return clamp_to(r + static_cast<long>(zero_point), lo, hi);
}

// Whether rounding a backend's value of the exact quotient q, formed with at most n roundings of
// relative error u = 2^-24 on terms whose magnitudes, over the scale, sum to m (m >= |q|), may give
// the other neighbour: |q - (k + 1/2)| <= gamma_n m, i.e. d (2^24 - n) <= n m, and the two
// neighbours stay apart after the zero point and the saturation.
bool requantize_near_tie(const mpq_class& q, const mpq_class& m, long n, int64_t zero_point, int64_t lo, int64_t hi) {
    mpz_class k;
    mpz_fdiv_q(k.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());  // floor(q)
    const mpq_class d = abs(mpq_class(q - mpq_class(k) - mpq_class(1, 2)));
    if (d * mpq_class((1L << 24) - n) > n * m) return false;
    const mpz_class below = k + static_cast<long>(zero_point);
    return clamp_to(below, lo, hi) != clamp_to(mpz_class(below + 1), lo, hi);
}

int64_t requantize_exact(const mpq_class& q, int64_t zero_point, int64_t lo, int64_t hi) {
    return clamp_to(round_rational_to_integer(q) + static_cast<long>(zero_point), lo, hi);
}

bool quantize_near_tie(double x, double scale, int64_t zero_point, int64_t lo, int64_t hi) {
    if (!std::isfinite(x) || !std::isfinite(scale) || scale == 0) return false;
    const mpq_class q = mpq_class(x) / mpq_class(scale);
    return requantize_near_tie(q, abs(q), 3, zero_point, lo, hi);
}

int64_t quantized_add_element(const AddOperands& e, int64_t lo, int64_t hi) {
    if (!std::isfinite(e.sa) || !std::isfinite(e.sb) || !std::isfinite(e.so)) {
        // IEEE's rules (QuantizeNaN=Minimum for a NaN): a difference of two 8-bit integers times a
        // FLOAT32 scale is exact in double, and a non-finite scale makes the value infinite, NaN, or
        // (an infinite OutputScale) a zero quotient, whatever the finite sum's rounding.
        const double sum = double(e.a - e.za) * e.sa + double(e.b - e.zb) * e.sb;
        return quantize_element(sum, e.so, e.zo, lo, hi, false);
    }
    const mpq_class v = mpq_class(mpz_class(static_cast<long>(e.a - e.za))) * mpq_class(e.sa) +
                        mpq_class(mpz_class(static_cast<long>(e.b - e.zb))) * mpq_class(e.sb);
    return requantize_exact(mpq_class(v / mpq_class(e.so)), e.zo, lo, hi);
}

bool quantized_add_near_tie(const AddOperands& e, int64_t lo, int64_t hi) {
    if (!std::isfinite(e.sa) || !std::isfinite(e.sb) || !std::isfinite(e.so) || e.so == 0) return false;
    const mpq_class av = mpq_class(mpz_class(static_cast<long>(e.a - e.za))) * mpq_class(e.sa);
    const mpq_class bv = mpq_class(mpz_class(static_cast<long>(e.b - e.zb))) * mpq_class(e.sb);
    const mpq_class so = abs(mpq_class(e.so));
    // Each dequantized value rounded, the sum, and the quotient (a reciprocal and a product): four.
    return requantize_near_tie(mpq_class((av + bv) / mpq_class(e.so)), mpq_class((abs(av) + abs(bv)) / so), 4, e.zo, lo,
                               hi);
}

template <class T> T dequantize_element(int64_t q, int64_t zero_point, double scale) {
    const int64_t diff = q - zero_point;  // exact: both are 32-bit integers
    if (std::isnan(scale) || (std::isinf(scale) && diff == 0)) return canonical_nan<T>();
    if (std::isinf(scale))
        return round_to_float<T>((diff < 0) != (scale < 0) ? -std::numeric_limits<double>::infinity()
                                                           : std::numeric_limits<double>::infinity());
    if (diff == 0) return round_to_float<T>(scale < 0 ? -0.0 : 0.0);  // IEEE: +0 times the scale
    return round_rational<T>(mpq_class(mpq_class(mpz_class(static_cast<long>(diff))) * mpq_class(scale)));
}
template float dequantize_element<float>(int64_t, int64_t, double);
template half dequantize_element<half>(int64_t, int64_t, double);

DynamicParameters dynamic_parameters(const std::vector<double>& x, int64_t lo, int64_t hi) {
    double mn = 0, mx = 0;  // DynamicRange=IncludesZero; DynamicNonFinite=FiniteRange
    for (double v : x) {
        if (!std::isfinite(v)) continue;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
    }
    const float range = round_rational<float>(mpq_class(mpq_class(mx) - mpq_class(mn)));
    if (range == 0 || !std::isfinite(range)) return {0.0f, lo};  // DynamicZeroRange=ZeroPointMinimum
    const float scale = round_rational<float>(
        mpq_class(mpq_class(double(range)) / mpq_class(static_cast<long>(hi - lo))));
    if (scale == 0 || !std::isfinite(scale)) return {scale, lo};  // refused by validate_values
    const float q = round_rational<float>(mpq_class(mpq_class(mn) / mpq_class(double(scale))));
    const float t = round_rational<float>(mpq_class(mpq_class(static_cast<long>(lo)) - mpq_class(double(q))));
    return {scale, clamp_to(round_rational_to_integer(mpq_class(double(t))), lo, hi)};
}

// ---- ELEMENT_WISE_QUANTIZE_LINEAR ------------------------------------------------------------------
//
// Tensor constraints: "InputTensor, OutputTensor, ScaleTensor, and ZeroPointTensor must have the
// same DimensionCount and Sizes" (.same-sizes); "OutputTensor and ZeroPointTensor must have the
// same DataType" (.zero-point-data-type). ScaleTensor: "If InputTensor is INT32, then ScaleTensor
// must be FLOAT32. Otherwise, ScaleTensor must have the same DataType as InputTensor"
// (.scale-data-type). Tensor support: InputTensor FLOAT32, FLOAT16 or INT32 (.data-type),
// OutputTensor INT8 or UINT8 (.output-data-type).
void validate(const QL& d, Diagnostics& diags) {
    if (d.InputTensor.DataType != DataType::FLOAT32 && d.InputTensor.DataType != DataType::FLOAT16 &&
        d.InputTensor.DataType != DataType::INT32)
        diags.error("/desc/InputTensor/DataType", rule(kQl, "data-type"),
                    "InputTensor is " + type_text(d.InputTensor) + "; it must be FLOAT32, FLOAT16 or INT32");
    if (!is_quantized_type(d.OutputTensor.DataType))
        diags.error("/desc/OutputTensor/DataType", rule(kQl, "output-data-type"),
                    "OutputTensor is " + type_text(d.OutputTensor) + "; it must be INT8 or UINT8");
    const DataType want = d.InputTensor.DataType == DataType::INT32 ? DataType::FLOAT32 : d.InputTensor.DataType;
    if (d.ScaleTensor.DataType != want)
        diags.error("/desc/ScaleTensor/DataType", rule(kQl, "scale-data-type"),
                    "ScaleTensor is " + type_text(d.ScaleTensor) + " and InputTensor " + type_text(d.InputTensor) +
                        "; ScaleTensor must be FLOAT32 for an INT32 input, else InputTensor's DataType");
    if (d.ZeroPointTensor) {
        require_same_data_type(diags, {{"OutputTensor", d.OutputTensor}, {"ZeroPointTensor", *d.ZeroPointTensor}},
                               rule(kQl, "zero-point-data-type"));
        require_same_sizes(diags,
                           {{"InputTensor", d.InputTensor},
                            {"OutputTensor", d.OutputTensor},
                            {"ScaleTensor", d.ScaleTensor},
                            {"ZeroPointTensor", *d.ZeroPointTensor}},
                           rule(kQl, "same-sizes"));
    } else {
        require_same_sizes(
            diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}, {"ScaleTensor", d.ScaleTensor}},
            rule(kQl, "same-sizes"));
    }
}

void validate_values(const QL& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    refuse_zero_scales(d.ScaleTensor, in, kQl, diags);
}

void evaluate(const QL& d, const Bindings& b) {
    const std::vector<double> x = logical_doubles(d.InputTensor, bytes_of(b, "InputTensor"));
    const std::vector<double> s = logical_doubles(d.ScaleTensor, bytes_of(b, "ScaleTensor"));
    const std::vector<double> z = d.ZeroPointTensor
                                      ? logical_doubles(*d.ZeroPointTensor, bytes_of(b, "ZeroPointTensor"))
                                      : std::vector<double>{};
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    write_quantized(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
        return quantize_element(x[i], s[i], z.empty() ? 0 : int64_t(z[i]), lo, hi, false);
    });
}

// ---- ELEMENT_WISE_DEQUANTIZE_LINEAR ----------------------------------------------------------------
//
// Tensor constraints: the four tensors have the same DimensionCount and Sizes (.same-sizes);
// "InputTensor and ZeroPointTensor must have the same DataType" (.zero-point-data-type);
// "OutputTensor and ScaleTensor must have the same DataType" (.scale-data-type). Tensor support:
// InputTensor INT32, INT16, INT8, UINT32, UINT16, UINT8 (.data-type); OutputTensor FLOAT32 or
// FLOAT16 (.output-data-type).
void validate(const DQL& d, Diagnostics& diags) {
    if (!is_integer_data(d.InputTensor.DataType))
        diags.error(
            "/desc/InputTensor/DataType", rule(kDql, "data-type"),
            "InputTensor is " + type_text(d.InputTensor) + "; it must be INT32, INT16, INT8, UINT32, UINT16 or UINT8");
    if (d.OutputTensor.DataType != DataType::FLOAT32 && d.OutputTensor.DataType != DataType::FLOAT16)
        diags.error("/desc/OutputTensor/DataType", rule(kDql, "output-data-type"),
                    "OutputTensor is " + type_text(d.OutputTensor) + "; it must be FLOAT32 or FLOAT16");
    require_same_data_type(diags, {{"OutputTensor", d.OutputTensor}, {"ScaleTensor", d.ScaleTensor}},
                           rule(kDql, "scale-data-type"));
    if (d.ZeroPointTensor) {
        require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"ZeroPointTensor", *d.ZeroPointTensor}},
                               rule(kDql, "zero-point-data-type"));
        require_same_sizes(diags,
                           {{"InputTensor", d.InputTensor},
                            {"OutputTensor", d.OutputTensor},
                            {"ScaleTensor", d.ScaleTensor},
                            {"ZeroPointTensor", *d.ZeroPointTensor}},
                           rule(kDql, "same-sizes"));
    } else {
        require_same_sizes(
            diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}, {"ScaleTensor", d.ScaleTensor}},
            rule(kDql, "same-sizes"));
    }
}

void validate_values(const DQL& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    refuse_zero_scales(d.ScaleTensor, in, kDql, diags);
}

void evaluate(const DQL& d, const Bindings& b) {
    const std::vector<double> q = logical_doubles(d.InputTensor, bytes_of(b, "InputTensor"));
    const std::vector<double> s = logical_doubles(d.ScaleTensor, bytes_of(b, "ScaleTensor"));
    const std::vector<double> z = d.ZeroPointTensor
                                      ? logical_doubles(*d.ZeroPointTensor, bytes_of(b, "ZeroPointTensor"))
                                      : std::vector<double>{};
    // DequantizeValue=WrapToInt32 (docs/golden.md, "Alternative readings"): the difference
    // InputTensor - ZeroPointTensor modulo 2^32, two's complement, as an INT32 subtraction leaves it.
    const bool wrap = in_force<"DequantizeValue", "WrapToInt32">();
    auto at = [&](uint64_t i, auto zero) {
        const int64_t zp = z.empty() ? 0 : int64_t(z[i]);
        if (wrap)
            return dequantize_element<decltype(zero)>(int64_t(int32_t(uint32_t(uint64_t(int64_t(q[i]) - zp)))), 0,
                                                      s[i]);
        return dequantize_element<decltype(zero)>(int64_t(q[i]), zp, s[i]);
    };
    if (d.OutputTensor.DataType == DataType::FLOAT16)
        write_logical<half>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return at(i, half{}); });
    else write_logical<float>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return at(i, 0.0f); });
}

// ---- DYNAMIC_QUANTIZE_LINEAR -------------------------------------------------------------------
//
// Tensor constraints: "InputTensor, OutputScaleTensor, OutputTensor, and OutputZeroPointTensor
// must have the same DimensionCount" (.same-dimension-count); "OutputTensor and
// OutputZeroPointTensor must have the same DataType" (.zero-point-data-type). The fields: "The
// expected number of elements in OutputScaleTensor is 1" (.scale-element-count), likewise
// OutputZeroPointTensor (.zero-point-element-count). OutputTensor is the input quantized, so it
// has InputTensor's Sizes (.output-sizes). Tensor support: InputTensor FLOAT32 or FLOAT16
// (.data-type), OutputTensor INT8 or UINT8 (.output-data-type), OutputScaleTensor FLOAT32
// (.scale-data-type).
void validate(const DYN& d, Diagnostics& diags) {
    if (d.InputTensor.DataType != DataType::FLOAT32 && d.InputTensor.DataType != DataType::FLOAT16)
        diags.error("/desc/InputTensor/DataType", rule(kDyn, "data-type"),
                    "InputTensor is " + type_text(d.InputTensor) + "; it must be FLOAT32 or FLOAT16");
    if (!is_quantized_type(d.OutputTensor.DataType))
        diags.error("/desc/OutputTensor/DataType", rule(kDyn, "output-data-type"),
                    "OutputTensor is " + type_text(d.OutputTensor) + "; it must be INT8 or UINT8");
    if (d.OutputScaleTensor.DataType != DataType::FLOAT32)
        diags.error("/desc/OutputScaleTensor/DataType", rule(kDyn, "scale-data-type"),
                    "OutputScaleTensor is " + type_text(d.OutputScaleTensor) + "; it must be FLOAT32");
    require_same_data_type(diags,
                           {{"OutputTensor", d.OutputTensor}, {"OutputZeroPointTensor", d.OutputZeroPointTensor}},
                           rule(kDyn, "zero-point-data-type"));
    const uint32_t n = d.InputTensor.DimensionCount();
    for (const Named& t : {Named{"OutputTensor", d.OutputTensor}, Named{"OutputScaleTensor", d.OutputScaleTensor},
                           Named{"OutputZeroPointTensor", d.OutputZeroPointTensor}})
        if (t.desc.DimensionCount() != n)
            diags.error(
                desc_path(t.name) + "/Sizes", rule(kDyn, "same-dimension-count"),
                std::string(t.name) + " has " + std::to_string(t.desc.DimensionCount()) +
                    " dimensions and InputTensor " + std::to_string(n) +
                    "; InputTensor, OutputScaleTensor, OutputTensor and OutputZeroPointTensor must have the same DimensionCount");
    if (d.OutputTensor.DimensionCount() == n && d.OutputTensor.Sizes != d.InputTensor.Sizes)
        diags.error("/desc/OutputTensor/Sizes", rule(kDyn, "output-sizes"),
                    "OutputTensor must have InputTensor's Sizes (it is the input quantized)");
    if (element_count(d.OutputScaleTensor) != 1)
        diags.error("/desc/OutputScaleTensor/Sizes", rule(kDyn, "scale-element-count"),
                    "OutputScaleTensor has " + std::to_string(element_count(d.OutputScaleTensor)) +
                        " elements; the page expects 1");
    if (element_count(d.OutputZeroPointTensor) != 1)
        diags.error("/desc/OutputZeroPointTensor/Sizes", rule(kDyn, "zero-point-element-count"),
                    "OutputZeroPointTensor has " + std::to_string(element_count(d.OutputZeroPointTensor)) +
                        " elements; the page expects 1");
}

void validate_values(const DYN& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    const auto it = in.find("InputTensor");
    if (it == in.end() || it->second.size() < buffer_size(d.InputTensor)) return;
    const std::vector<double> x = logical_doubles(d.InputTensor, it->second);
    double mn = 0, mx = 0;
    for (double v : x)
        if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
    const float range = round_rational<float>(mpq_class(mpq_class(mx) - mpq_class(mn)));
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    if (!std::isfinite(range))
        diags.error("/inputs/InputTensor", rule(kDyn, "input-values"),
                    "InputMax - InputMin overflows FLOAT32; dmlref refuses it");
    else if (range != 0 && dynamic_parameters(x, lo, hi).scale == 0)
        diags.error(
            "/inputs/InputTensor", rule(kDyn, "input-values"),
            "(InputMax - InputMin) / (Max - Min) underflows to a zero scale while the range is not 0; dmlref refuses it");
}

void evaluate(const DYN& d, const Bindings& b) {
    const std::vector<double> x = logical_doubles(d.InputTensor, bytes_of(b, "InputTensor"));
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    const DynamicParameters p = dynamic_parameters(x, lo, hi);
    write_quantized(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
        if (p.scale == 0)
            return x[i] == std::numeric_limits<double>::infinity() ? hi : lo;  // x / +0, NaN and 0 / 0 Min
        return quantize_element(x[i], double(p.scale), p.zero_point, lo, hi, true);
    });
    write_logical<float>(d.OutputScaleTensor, b.at("OutputScaleTensor"), [&](uint64_t) { return p.scale; });
    write_quantized(d.OutputZeroPointTensor, b.at("OutputZeroPointTensor"), [&](uint64_t) { return p.zero_point; });
}

// ---- ELEMENT_WISE_QUANTIZED_LINEAR_ADD -------------------------------------------------------------
//
// Tensor constraints: the nine tensors "must have the same DimensionCount" (.same-dimension-count);
// "ATensor and AZeroPointTensor must have the same DataType", likewise B and Output
// (.zero-point-data-type). The fields: each scale and zero point has 1 element
// (.scale-element-count, .zero-point-element-count). ATensor, BTensor and OutputTensor have the
// same Sizes, the operator being element by element (.same-sizes). Tensor support: ATensor and
// BTensor INT8 or UINT8 (.data-type), OutputTensor INT8 or UINT8 (.output-data-type), the scales
// FLOAT32 (.scale-data-type). An OutputScale of 0 divides by zero: refused (.output-scale-zero).
namespace {
using QADD = DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC;
constexpr const char* kAdd = "element-wise-quantized-linear-add";

struct AddData {
    std::vector<double> a, b;
    double sa = 1, sb = 1, so = 1;
    int64_t za = 0, zb = 0, zo = 0;
};

template <class Buffers> AddData read_add(const QADD& d, const Buffers& in) {
    AddData g;
    g.a = logical_doubles(d.ATensor, bytes_of(in, "ATensor"));
    g.b = logical_doubles(d.BTensor, bytes_of(in, "BTensor"));
    g.sa = logical_doubles(d.AScaleTensor, bytes_of(in, "AScaleTensor"))[0];
    g.sb = logical_doubles(d.BScaleTensor, bytes_of(in, "BScaleTensor"))[0];
    g.so = logical_doubles(d.OutputScaleTensor, bytes_of(in, "OutputScaleTensor"))[0];
    if (d.AZeroPointTensor) g.za = int64_t(logical_doubles(*d.AZeroPointTensor, bytes_of(in, "AZeroPointTensor"))[0]);
    if (d.BZeroPointTensor) g.zb = int64_t(logical_doubles(*d.BZeroPointTensor, bytes_of(in, "BZeroPointTensor"))[0]);
    if (d.OutputZeroPointTensor)
        g.zo = int64_t(logical_doubles(*d.OutputZeroPointTensor, bytes_of(in, "OutputZeroPointTensor"))[0]);
    return g;
}
AddOperands add_operands(const AddData& g, size_t i) {
    return {int64_t(g.a[i]), g.za, g.sa, int64_t(g.b[i]), g.zb, g.sb, g.so, g.zo};
}
}  // namespace

void validate(const QADD& d, Diagnostics& diags) {
    for (const Named& t : {Named{"ATensor", d.ATensor}, Named{"BTensor", d.BTensor}})
        if (!is_quantized_type(t.desc.DataType))
            diags.error(desc_path(t.name) + "/DataType", rule(kAdd, "data-type"),
                        std::string(t.name) + " is " + type_text(t.desc) + "; it must be INT8 or UINT8");
    if (!is_quantized_type(d.OutputTensor.DataType))
        diags.error("/desc/OutputTensor/DataType", rule(kAdd, "output-data-type"),
                    "OutputTensor is " + type_text(d.OutputTensor) + "; it must be INT8 or UINT8");
    const uint32_t n = d.OutputTensor.DimensionCount();
    auto each = [&](auto&& f) {
        f("ATensor", &d.ATensor, false), f("AScaleTensor", &d.AScaleTensor, true),
            f("AZeroPointTensor", d.AZeroPointTensor ? &*d.AZeroPointTensor : nullptr, false);
        f("BTensor", &d.BTensor, false), f("BScaleTensor", &d.BScaleTensor, true),
            f("BZeroPointTensor", d.BZeroPointTensor ? &*d.BZeroPointTensor : nullptr, false);
        f("OutputScaleTensor", &d.OutputScaleTensor, true),
            f("OutputZeroPointTensor", d.OutputZeroPointTensor ? &*d.OutputZeroPointTensor : nullptr, false);
    };
    each([&](const char* name, const TensorDesc* t, bool scale) {
        if (!t) return;
        if (t->DimensionCount() != n)
            diags.error(desc_path(name) + "/Sizes", rule(kAdd, "same-dimension-count"),
                        std::string(name) + " has " + std::to_string(t->DimensionCount()) +
                            " dimensions and OutputTensor " + std::to_string(n) +
                            "; all nine tensors must have the same DimensionCount");
        if (scale && t->DataType != DataType::FLOAT32)
            diags.error(desc_path(name) + "/DataType", rule(kAdd, "scale-data-type"),
                        std::string(name) + " is " + type_text(*t) + "; it must be FLOAT32");
        const bool zero_point = std::string_view(name).find("ZeroPoint") != std::string_view::npos;
        if ((scale || zero_point) && element_count(*t) != 1)
            diags.error(
                desc_path(name) + "/Sizes", rule(kAdd, scale ? "scale-element-count" : "zero-point-element-count"),
                std::string(name) + " has " + std::to_string(element_count(*t)) + " elements; the page expects 1");
    });
    if (d.AZeroPointTensor)
        require_same_data_type(diags, {{"ATensor", d.ATensor}, {"AZeroPointTensor", *d.AZeroPointTensor}},
                               rule(kAdd, "zero-point-data-type"));
    if (d.BZeroPointTensor)
        require_same_data_type(diags, {{"BTensor", d.BTensor}, {"BZeroPointTensor", *d.BZeroPointTensor}},
                               rule(kAdd, "zero-point-data-type"));
    if (d.OutputZeroPointTensor)
        require_same_data_type(diags,
                               {{"OutputTensor", d.OutputTensor}, {"OutputZeroPointTensor", *d.OutputZeroPointTensor}},
                               rule(kAdd, "zero-point-data-type"));
    if (d.ATensor.DimensionCount() == n && d.BTensor.DimensionCount() == n)
        require_same_sizes(diags, {{"OutputTensor", d.OutputTensor}, {"ATensor", d.ATensor}, {"BTensor", d.BTensor}},
                           rule(kAdd, "same-sizes"));
}

void validate_values(const QADD& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    const auto it = in.find("OutputScaleTensor");
    if (it == in.end() || it->second.size() < buffer_size(d.OutputScaleTensor) ||
        element_count(d.OutputScaleTensor) < 1)
        return;
    if (logical_doubles(d.OutputScaleTensor, it->second)[0] == 0)
        diags.error("/inputs/OutputScaleTensor/0", rule(kAdd, "output-scale-zero"),
                    "OutputScaleTensor is 0: the requantization divides by it; dmlref refuses it");
}

void evaluate(const QADD& d, const Bindings& b) {
    const AddData g = read_add(d, b);
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    write_quantized(d.OutputTensor, b.at("OutputTensor"),
                    [&](uint64_t i) { return quantized_add_element(add_operands(g, i), lo, hi); });
}

// ---- Judging (docs/tolerance.md, "Quantization") ------------------------------------------------

namespace {

// Per element of a quantized output: (x, scale, zero point), with Min and Max; empty when the
// case does not validate or its values are refused.
struct QuantizedElements {
    std::vector<double> x, s, z;
    int64_t lo = 0, hi = 0;
    bool dynamic_zero = false;
};

std::optional<QuantizedElements> quantized_elements(const Case& c, std::string_view output) {
    if (output != "OutputTensor" || validate(c.op).has_errors()) return std::nullopt;
    try {
        QuantizedElements e;
        if (const auto* d = get_if<QL>(&c.op.Desc)) {
            e.x = logical_doubles(d->InputTensor, bytes_of(c.inputs, "InputTensor"));
            e.s = logical_doubles(d->ScaleTensor, bytes_of(c.inputs, "ScaleTensor"));
            e.z = d->ZeroPointTensor ? logical_doubles(*d->ZeroPointTensor, bytes_of(c.inputs, "ZeroPointTensor"))
                                     : std::vector<double>(e.x.size(), 0.0);
            e.lo = type_min(d->OutputTensor.DataType), e.hi = type_max(d->OutputTensor.DataType);
            return e;
        }
        if (const auto* d = get_if<DYN>(&c.op.Desc)) {
            e.x = logical_doubles(d->InputTensor, bytes_of(c.inputs, "InputTensor"));
            e.lo = type_min(d->OutputTensor.DataType), e.hi = type_max(d->OutputTensor.DataType);
            const DynamicParameters p = dynamic_parameters(e.x, e.lo, e.hi);
            e.s.assign(e.x.size(), double(p.scale));
            e.z.assign(e.x.size(), double(p.zero_point));
            e.dynamic_zero = p.scale == 0;
            return e;
        }
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

}  // namespace

std::vector<BoundaryElement> quantize_ties(const Case& c, std::string_view output) {
    std::vector<BoundaryElement> out;
    if (const auto* d = get_if<QADD>(&c.op.Desc)) {
        if (output != "OutputTensor" || validate(c.op).has_errors()) return out;
        try {
            const AddData g = read_add(*d, c.inputs);
            const int64_t lo = type_min(d->OutputTensor.DataType), hi = type_max(d->OutputTensor.DataType);
            for (size_t i = 0; i < g.a.size(); ++i)
                if (quantized_add_near_tie(add_operands(g, i), lo, hi)) out.push_back({i, "QuantizeTie"});
        } catch (const std::exception&) {
        }
        return out;
    }
    const auto e = quantized_elements(c, output);
    if (!e || e->dynamic_zero) return out;
    for (size_t i = 0; i < e->x.size(); ++i)
        if (quantize_near_tie(e->x[i], e->s[i], int64_t(e->z[i]), e->lo, e->hi)) out.push_back({i, "QuantizeTie"});
    return out;
}

std::optional<Tolerance> quantize_tolerance(const Case& c, std::string_view output) {
    if (output != "OutputTensor" || validate(c.op).has_errors()) return std::nullopt;
    return quantize_tie_tolerance(!quantize_ties(c, output).empty());
}

Tolerance quantize_tie_tolerance(bool near_ties) {
    Tolerance t;
    if (!near_ties) {
        t.Kind = "Bits";
        t.Why =
            "every quotient x / scale is farther than FLOAT32 arithmetic's error from a rounding tie: the integer is "
            "determined, bit for bit (docs/tolerance.md, Quantization)";
    } else {
        t.Kind = "Ulp";
        t.Ulp = 1;
        t.Why =
            "some quotients x / scale lie within FLOAT32 arithmetic's error (gamma_3) of a rounding tie (the QuantizeTie "
            "elements): a backend forming the quotient in FLOAT32 may take the other neighbour, so 1 is admitted (docs/tolerance.md, "
            "Quantization)";
    }
    return t;
}

std::optional<Tolerance> dequantize_tolerance(const DQL& d, std::string_view output) {
    if (output != "OutputTensor") return std::nullopt;
    const bool wide = element_size(d.InputTensor.DataType) == 4;
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = wide ? 3 : 2;
    t.Why =
        wide
            ? "(q - ZeroPoint) * Scale, exact and rounded once; a backend's product is within 1 ULP, and a 32-bit difference "
              "converted to float is rounded once more: (3 - 1/2) ULP (docs/tolerance.md, Quantization)"
            : "(q - ZeroPoint) * Scale, exact and rounded once; the difference is exact in FLOAT32 and a backend's product is "
              "within 1 ULP: (2 - 1/2) ULP, as ELEMENT_WISE_MULTIPLY (docs/tolerance.md, Quantization)";
    return t;
}

// ---- explain ---------------------------------------------------------------------------------

bool explain_quantize(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    if (const auto* d = get_if<QADD>(&c.op.Desc)) {
        const auto at = nd_coordinate(d->OutputTensor.Sizes, flat);
        out.inputs.push_back(input_element(c, "ATensor", at, "a"));
        out.inputs.push_back(input_element(c, "BTensor", at, "b"));
        out.facts.emplace_back(
            "formula",
            "clamp(round_half_even(((a - AZeroPoint) AScale + (b - BZeroPoint) BScale) / OutputScale) + "
            "OutputZeroPoint, Min, Max), exact until the rounding");
        if (const auto t = quantize_ties(c, output);
            std::any_of(t.begin(), t.end(), [&](const BoundaryElement& e) { return e.Index == flat; }))
            out.facts.emplace_back(
                "tie",
                "the exact quotient is within FLOAT32's error of a half-integer: a backend may give the other neighbour");
        out.policies = {"RequantizeValue", "QuantizeRounding", "QuantizeNaN", "NegativeScale"};
        return true;
    }
    if (const auto* d = get_if<DQL>(&c.op.Desc)) {
        const auto at = nd_coordinate(d->OutputTensor.Sizes, flat);
        out.inputs.push_back(input_element(c, "InputTensor", at, "q"));
        out.inputs.push_back(input_element(c, "ScaleTensor", at, "scale"));
        if (d->ZeroPointTensor) out.inputs.push_back(input_element(c, "ZeroPointTensor", at, "zero point"));
        out.facts.emplace_back(
            "formula", "(q - ZeroPoint) * Scale: the integer difference exact, the product exact, rounded once");
        out.policies = {"DequantizeValue", "NegativeScale", "NonFiniteSum", "Subnormals"};
        return true;
    }
    if (const auto* d = get_if<QL>(&c.op.Desc)) {
        const auto at = nd_coordinate(d->OutputTensor.Sizes, flat);
        out.inputs.push_back(input_element(c, "InputTensor", at, "x"));
        out.inputs.push_back(input_element(c, "ScaleTensor", at, "scale"));
        if (d->ZeroPointTensor) out.inputs.push_back(input_element(c, "ZeroPointTensor", at, "zero point"));
    } else if (const auto* d = get_if<DYN>(&c.op.Desc)) {
        if (output != "OutputTensor") {
            out.facts.emplace_back(
                "formula", output == "OutputScaleTensor"
                               ? "fl32(fl32(max(0, InputMax) - min(0, InputMin)) / (Max - Min))"
                               : "round_half_even(fl32(Min - fl32(min(0, InputMin) / OutputScale))), saturated");
            out.policies = {"DynamicRange", "DynamicArithmetic", "DynamicZeroRange", "DynamicNonFinite"};
            return true;
        }
        out.inputs.push_back(input_element(c, "InputTensor", nd_coordinate(d->InputTensor.Sizes, flat), "x"));
    } else {
        return false;
    }
    if (const auto e = quantized_elements(c, output); e && flat < e->x.size()) {
        out.facts.emplace_back("scale, zero point",
                               std::to_string(e->s[flat]) + ", " + std::to_string(int64_t(e->z[flat])));
        if (e->dynamic_zero) out.facts.emplace_back("decided by", "an all-zero input: scale 0, every element Min");
        else if (quantize_near_tie(e->x[flat], e->s[flat], int64_t(e->z[flat]), e->lo, e->hi))
            out.facts.emplace_back(
                "tie", "x / scale is within FLOAT32's error of a half-integer: a backend may give the other neighbour");
    }
    if (c.op.Type == OperatorType::DYNAMIC_QUANTIZE_LINEAR) {
        out.facts.emplace_back("formula", "clamp(round_half_even(fl32(x / OutputScale)) + OutputZeroPoint, Min, Max)");
        out.policies = {"DynamicRange",     "DynamicArithmetic", "DynamicZeroRange",
                        "DynamicNonFinite", "QuantizeRounding",  "QuantizeNaN"};
    } else {
        out.facts.emplace_back("formula",
                               "clamp(round_half_even(x / scale) + ZeroPoint, Min, Max), the quotient exact");
        out.policies = {"QuantizeValue", "QuantizeRounding", "QuantizeNaN", "NegativeScale"};
    }
    return true;
}

}  // namespace dmlref::reference
