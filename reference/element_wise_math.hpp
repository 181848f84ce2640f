// The element-wise math family: ELEMENT_WISE_EXP, LOG, SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH,
// TANH, ASINH, ACOSH, ATANH, ERF. What reference/element_wise_math.cpp defines for the family's
// record (reference/element_wise_math_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/element_wise_math.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

#include <mpfr.h>

#include <functional>

namespace dmlref::reference {

// The page's f of each operator, in the family's order.
enum class MathFunction : uint8_t {
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Erf
};
inline constexpr int kMathFunctions = 15;
std::string_view math_function_name(MathFunction f);  // "exp", "log", ...
std::optional<MathFunction> math_function_of(OperatorType t);

// Any of the family's descs, read alike (they have one layout: InputTensor, OutputTensor, ScaleBias).
struct MathDesc {
    MathFunction f;
    const TensorDesc* input;
    const TensorDesc* output;
    std::optional<DML_SCALE_BIAS> scale_bias;
};
MathDesc math_desc(const OperatorDesc& d);

// f(x) of a float x (a FLOAT16, FLOAT32 or FLOAT64 value, or g(x)'s float32 or float64 value)
// correctly rounded to T (half, float or double): the exact real value rounded once to nearest-even,
// IEEE 754's and C99 Annex F's special values (docs/golden.md, Element-wise math); a NaN is the
// canonical NaN.
template <class T> T math_rounded(MathFunction f, double x);

// What the family's evaluations share. An MPFR evaluation correctly rounded to T: `f` writes its
// result into r (at r's precision, nearest) and returns MPFR's ternary value; Ziv's loop raises the
// precision until T's rounding is decided (T: any of the eleven element types).
using MpfrCall = std::function<int(mpfr_ptr r)>;
template <class T> T mpfr_call_rounded(const MpfrCall& f);
// g(x) = x * Scale + Bias as SQRT's: two roundings to float32 (float64 for FLOAT64 data).
template <class T> double scale_bias_value(T x, const DML_SCALE_BIAS& sb);
// `rule` when ScaleBias is given for integer data (the pages define g(x) in floats only).
void require_float_scale_bias(const TensorDesc& in, const std::optional<DML_SCALE_BIAS>& sb, Diagnostics& diags,
                              std::string_view rule);
// f(x) of an integer x (outside the pages' tables): the exact value rounded half to even and
// saturated; a NaN (log of a negative) gives 0 (IntegerResult=RoundHalfEvenSaturate).
template <class T> T math_integer(MathFunction f, T x);

void validate(const DML_ELEMENT_WISE_EXP_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_EXP_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_LOG_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_LOG_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_SIN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_SIN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_COS_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_COS_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_TAN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_TAN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ASIN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ASIN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ACOS_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ACOS_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ATAN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ATAN_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_SINH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_SINH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_COSH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_COSH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_TANH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_TANH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ASINH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ASINH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ATANH_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ATANH_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ERF_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ERF_OPERATOR_DESC& d, const Bindings& b);

// POW, CONSTANT_POW, ATAN_YX (reference/element_wise_pow.cpp).
// b^p of float operands (b a float value or g(x)'s, p exact: any float or 64-bit integer) rounded
// once to T, C99 Annex F's special values (pow(x, 0) = 1 and pow(1, y) = 1 even for NaN, a negative
// base with a non-integral exponent NaN); integer T: half to even and saturated.
template <class T> T pow_rounded(double b, long double p);
// b^p of integers, exact and wrapped to T's width; p < 0: 1 / b^-p truncated, 1 / 0 all bits set.
template <class T> T integer_pow(T b, long double p);
// atan2(y, x) rounded once to T; C99 Annex F at the origin and the infinities.
template <class T> T atan_yx_rounded(long double y, long double x);

void validate(const DML_ELEMENT_WISE_POW_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_POW_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC& d, const Bindings& b);
bool explain_pow(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

bool explain_math(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
