// The element-wise math family: ELEMENT_WISE_EXP, LOG, SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH,
// TANH, ASINH, ACOSH, ATANH, ERF. What reference/element_wise_math.cpp defines for the family's
// record (reference/element_wise_math_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/element_wise_math.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

// The page's f of each operator, in the family's order.
enum class MathFunction : uint8_t { Exp, Log, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Erf };
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

bool explain_math(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
