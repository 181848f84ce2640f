// DML_OPERATOR_ELEMENT_WISE_EXP, _LOG, _SIN, _COS, _TAN, _ASIN, _ACOS, _ATAN, _SINH, _COSH, _TANH,
// _ASINH, _ACOSH, _ATANH and _ERF: the element-wise functions whose values are not rational.
//
// Spec: DirectML API reference, "DML_ELEMENT_WISE_EXP_OPERATOR_DESC structure" and the pages of the
// same name for the others:
//   EXP f(x) = exp(x)     LOG f(x) = log(x), natural    SIN, COS, TAN (radians)
//   ASIN, ACOS, ATAN      SINH, COSH, TANH              ASINH, ACOSH, ATANH ("ln((1 + x) / (1 - x)) / 2")
//   ERF f(x) = erf(x)
//   Each: ScaleBias optional ("the function g(x) = x * scale + bias [is applied] to each input element
//   prior to computing this operator"); InputTensor and OutputTensor must have the same DataType,
//   DimensionCount and Sizes; in-place execution is allowed.
//
// Decisions (docs/golden.md, "Element-wise math"):
//   - The golden is f's exact real value at the input rounded once to nearest-even
//     (ComputedValue=ExactThenRoundOnce): MPFR's correctly rounded f at rising precision through
//     Ziv's loop (correctly_rounded.hpp) until the rounding to the element type is decided. MPFR
//     says when its result is exact (ternary 0: exp(0) = 1, log(1) = 0, sin(0) = 0, cosh(0) = 1,
//     acosh(1) = 0, tanh(inf) = 1), so every exact case ends the loop at once; no other value of
//     these functions at a float is rational (Lindemann-Weierstrass), so the loop always decides.
//   - ScaleBias as SQRT's (ScaleBiasArithmetic=Float32UnfusedFloat64ForFloat64): x * Scale, then
//     + Bias, each rounded to float32 (float64 for FLOAT64 data); f applies to that value and the
//     result is rounded once to the data type.
//   - Special values are IEEE 754's and C99 Annex F's (MathSpecialValues=C99AnnexF): log(+-0) = -inf,
//     log(x < 0) = NaN, log(inf) = inf; asin, acos of |x| > 1 NaN; acosh(x < 1) NaN; atanh(+-1) =
//     +-inf, atanh(|x| > 1) NaN; exp(-inf) = +0; sin, cos, tan of +-inf NaN; atan(+-inf) = +-pi/2
//     rounded; tanh(+-inf) = erf(+-inf) = +-1. A NaN result is the canonical NaN (NaNResult=CanonicalNaN).
//   - The odd functions keep the sign of a zero (SignedZeroResult=IEEE754): sin, tan, asin, atan,
//     sinh, tanh, asinh, atanh and erf of -0 are -0, as C99 Annex F says and as the LOG page's D3D
//     rules imply for log(-0) = -inf.
//   - Integer data (outside the pages' tables; IntegerResult=RoundHalfEvenSaturate): the exact value
//     rounded half to even and saturated; NaN gives 0, +-inf the type's extremes. ScaleBias with integer
//     data is an error ([op].scale-bias-integer), as for SQRT.
#include "element_wise_math.hpp"

#include "correctly_rounded.hpp"
#include "dmlref/values.hpp"

#include <array>
#include <cmath>
#include <type_traits>

namespace dmlref::reference {

namespace {

using MpfrFunction = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

constexpr std::array<MpfrFunction, kMathFunctions> kMpfr = {mpfr_exp,  mpfr_log,   mpfr_sin,   mpfr_cos,   mpfr_tan,
                                                            mpfr_asin, mpfr_acos,  mpfr_atan,  mpfr_sinh,  mpfr_cosh,
                                                            mpfr_tanh, mpfr_asinh, mpfr_acosh, mpfr_atanh, mpfr_erf};
constexpr std::array<std::string_view, kMathFunctions> kNames = {"exp",  "log",   "sin",   "cos",   "tan",
                                                                 "asin", "acos",  "atan",  "sinh",  "cosh",
                                                                 "tanh", "asinh", "acosh", "atanh", "erf"};

// An MPFR number of 64 bits: every float64 and every 64-bit integer exactly.
struct Input {
    mpfr_t v;
    Input() { mpfr_init2(v, 64); }
    ~Input() { mpfr_clear(v); }
    Input(const Input&) = delete;
    Input& operator=(const Input&) = delete;
};

// f(x) rounded once to T: MPFR's function as an MpfrCall.
template <class T> T rounded(MathFunction f, mpfr_srcptr x) {
    const MpfrFunction fn = kMpfr[size_t(f)];
    return mpfr_call_rounded<T>([&](mpfr_ptr r) { return fn(r, x, MPFR_RNDN); });
}

// The rule ids: [op].same-data-type, [op].same-sizes, [op].scale-bias-integer.
struct RuleIds {
    std::string_view same_type, same_sizes, scale_bias_integer;
};

void validate_math(const TensorDesc& in, const TensorDesc& out, const std::optional<DML_SCALE_BIAS>& sb,
                   Diagnostics& diags, const RuleIds& rules) {
    const std::initializer_list<Named> all = {{"InputTensor", in}, {"OutputTensor", out}};
    require_same_data_type(diags, all, rules.same_type);
    require_same_sizes(diags, all, rules.same_sizes);
    require_float_scale_bias(in, sb, diags, rules.scale_bias_integer);
}

// Every element of OutputTensor is f of InputTensor's element at its coordinate (read before the
// element is written: in place is allowed), of g(x) when ScaleBias is given. One loop for every
// function: f is a value, not a template argument.
void evaluate_math(MathFunction f, const TensorDesc& in, const TensorDesc& out, const std::optional<DML_SCALE_BIAS>& sb,
                   const Bindings& b) {
    const TensorView X(in, b.at("InputTensor"));
    const TensorView Y(out, b.at("OutputTensor"));
    dispatch(in.DataType, [&]<class T>() {
        if constexpr (is_floating_v<T>) {
            if (sb)
                map_elements<T, T>(
                    Y, [&](T x) { return math_rounded<T>(f, scale_bias_value(x, *sb)); }, X);
            else
                map_elements<T, T>(
                    Y, [&](T x) { return math_rounded<T>(f, widen(x)); }, X);
        } else {
            map_elements<T, T>(
                Y, [&](T x) { return math_integer<T>(f, x); }, X);
        }
    });
}

}  // namespace

std::string_view math_function_name(MathFunction f) { return kNames[size_t(f)]; }

std::optional<MathFunction> math_function_of(OperatorType t) {
    switch (t) {
        case OperatorType::ELEMENT_WISE_EXP: return MathFunction::Exp;
        case OperatorType::ELEMENT_WISE_LOG: return MathFunction::Log;
        case OperatorType::ELEMENT_WISE_SIN: return MathFunction::Sin;
        case OperatorType::ELEMENT_WISE_COS: return MathFunction::Cos;
        case OperatorType::ELEMENT_WISE_TAN: return MathFunction::Tan;
        case OperatorType::ELEMENT_WISE_ASIN: return MathFunction::Asin;
        case OperatorType::ELEMENT_WISE_ACOS: return MathFunction::Acos;
        case OperatorType::ELEMENT_WISE_ATAN: return MathFunction::Atan;
        case OperatorType::ELEMENT_WISE_SINH: return MathFunction::Sinh;
        case OperatorType::ELEMENT_WISE_COSH: return MathFunction::Cosh;
        case OperatorType::ELEMENT_WISE_TANH: return MathFunction::Tanh;
        case OperatorType::ELEMENT_WISE_ASINH: return MathFunction::Asinh;
        case OperatorType::ELEMENT_WISE_ACOSH: return MathFunction::Acosh;
        case OperatorType::ELEMENT_WISE_ATANH: return MathFunction::Atanh;
        case OperatorType::ELEMENT_WISE_ERF: return MathFunction::Erf;
        default: return std::nullopt;
    }
}

// MPFR's result at working precision w is correctly rounded to w bits, so it is within half a unit
// of its last place, 2^(EXP - w - 1) < 2^(EXP - w): w correct bits; its ternary value 0 says the
// result is exact. A result of magnitude 2^4096 or more (exp, sinh, cosh of |x| > 2839, a huge
// power) rounds to an infinity of its sign in every type (INT64 saturates), and one below 2^-4096
// to a zero of its sign: they are stored so, exactly, sparing the rational arithmetic of a
// 4096-bit number.
template <class T> T mpfr_call_rounded(const MpfrCall& f) {
    return correctly_rounded<T>([&](mpfr_ptr r, mpfr_prec_t w) -> long {
        const int ternary = f(r);
        if (mpfr_regular_p(r) && mpfr_get_exp(r) > 4096) {
            mpfr_set_inf(r, mpfr_sgn(r));
            return kExact;
        }
        if (mpfr_regular_p(r) && mpfr_get_exp(r) < -4096) {
            mpfr_set_zero(r, mpfr_sgn(r));
            return kExact;
        }
        return ternary == 0 ? kExact : long(w);
    });
}
template half mpfr_call_rounded<half>(const MpfrCall&);
template float mpfr_call_rounded<float>(const MpfrCall&);
template double mpfr_call_rounded<double>(const MpfrCall&);
template int8_t mpfr_call_rounded<int8_t>(const MpfrCall&);
template int16_t mpfr_call_rounded<int16_t>(const MpfrCall&);
template int32_t mpfr_call_rounded<int32_t>(const MpfrCall&);
template int64_t mpfr_call_rounded<int64_t>(const MpfrCall&);
template uint8_t mpfr_call_rounded<uint8_t>(const MpfrCall&);
template uint16_t mpfr_call_rounded<uint16_t>(const MpfrCall&);
template uint32_t mpfr_call_rounded<uint32_t>(const MpfrCall&);
template uint64_t mpfr_call_rounded<uint64_t>(const MpfrCall&);

template <class T> double scale_bias_value(T x, const DML_SCALE_BIAS& sb) {
    if constexpr (std::is_same_v<T, double>) {
        const double product = x * double(sb.Scale);
        return product + double(sb.Bias);
    } else {
        const float product = float(widen(x)) * sb.Scale;
        return double(float(product + sb.Bias));
    }
}
template double scale_bias_value<half>(half, const DML_SCALE_BIAS&);
template double scale_bias_value<float>(float, const DML_SCALE_BIAS&);
template double scale_bias_value<double>(double, const DML_SCALE_BIAS&);

void require_float_scale_bias(const TensorDesc& in, const std::optional<DML_SCALE_BIAS>& sb, Diagnostics& diags,
                              std::string_view rule) {
    if (sb && is_valid(in.DataType) && !is_float(in.DataType))
        diags.error("/desc/ScaleBias", std::string(rule),
                    "ScaleBias is given for " + std::string(name(in.DataType)) +
                        " data; the spec does not define x * Scale + Bias for integer tensors (docs/golden.md)");
}

MathDesc math_desc(const OperatorDesc& od) {
    using namespace dmlref;
    return visit_as<
        DML_ELEMENT_WISE_EXP_OPERATOR_DESC, DML_ELEMENT_WISE_LOG_OPERATOR_DESC, DML_ELEMENT_WISE_SIN_OPERATOR_DESC,
        DML_ELEMENT_WISE_COS_OPERATOR_DESC, DML_ELEMENT_WISE_TAN_OPERATOR_DESC, DML_ELEMENT_WISE_ASIN_OPERATOR_DESC,
        DML_ELEMENT_WISE_ACOS_OPERATOR_DESC, DML_ELEMENT_WISE_ATAN_OPERATOR_DESC, DML_ELEMENT_WISE_SINH_OPERATOR_DESC,
        DML_ELEMENT_WISE_COSH_OPERATOR_DESC, DML_ELEMENT_WISE_TANH_OPERATOR_DESC, DML_ELEMENT_WISE_ASINH_OPERATOR_DESC,
        DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC, DML_ELEMENT_WISE_ATANH_OPERATOR_DESC, DML_ELEMENT_WISE_ERF_OPERATOR_DESC>(
        od, [](const auto& d) {
            return MathDesc{*math_function_of(std::decay_t<decltype(d)>::kType), &d.InputTensor, &d.OutputTensor,
                            d.ScaleBias};
        });
}

template <class T> T math_rounded(MathFunction f, double x) {
    if (x != x) return canonical_nan<T>();
    Input in;
    mpfr_set_d(in.v, x, MPFR_RNDN);  // exact: 53 <= 64 bits, signed zeros and infinities kept
    return rounded<T>(f, in.v);
}
template half math_rounded<half>(MathFunction, double);
template float math_rounded<float>(MathFunction, double);
template double math_rounded<double>(MathFunction, double);

template <class T> T math_integer(MathFunction f, T x) {
    Input in;
    if constexpr (std::is_signed_v<T>) mpfr_set_sj(in.v, intmax_t(x), MPFR_RNDN);  // exact: 64 bits
    else mpfr_set_uj(in.v, uintmax_t(x), MPFR_RNDN);
    return rounded<T>(f, in.v);
}
template int8_t math_integer<int8_t>(MathFunction, int8_t);
template int16_t math_integer<int16_t>(MathFunction, int16_t);
template int32_t math_integer<int32_t>(MathFunction, int32_t);
template int64_t math_integer<int64_t>(MathFunction, int64_t);
template uint8_t math_integer<uint8_t>(MathFunction, uint8_t);
template uint16_t math_integer<uint16_t>(MathFunction, uint16_t);
template uint32_t math_integer<uint32_t>(MathFunction, uint32_t);
template uint64_t math_integer<uint64_t>(MathFunction, uint64_t);

#define DMLREF_MATH_OPERATOR(OP, F, ...)                                                        \
    void validate(const DML_ELEMENT_WISE_##OP##_OPERATOR_DESC& d, Diagnostics& diags) {         \
        validate_math(d.InputTensor, d.OutputTensor, d.ScaleBias, diags, RuleIds{__VA_ARGS__}); \
    }                                                                                           \
    void evaluate(const DML_ELEMENT_WISE_##OP##_OPERATOR_DESC& d, const Bindings& b) {          \
        evaluate_math(MathFunction::F, d.InputTensor, d.OutputTensor, d.ScaleBias, b);          \
    }
DMLREF_MATH_OPERATOR(EXP, Exp, "exp.same-data-type", "exp.same-sizes", "exp.scale-bias-integer")
DMLREF_MATH_OPERATOR(LOG, Log, "log.same-data-type", "log.same-sizes", "log.scale-bias-integer")
DMLREF_MATH_OPERATOR(SIN, Sin, "sin.same-data-type", "sin.same-sizes", "sin.scale-bias-integer")
DMLREF_MATH_OPERATOR(COS, Cos, "cos.same-data-type", "cos.same-sizes", "cos.scale-bias-integer")
DMLREF_MATH_OPERATOR(TAN, Tan, "tan.same-data-type", "tan.same-sizes", "tan.scale-bias-integer")
DMLREF_MATH_OPERATOR(ASIN, Asin, "asin.same-data-type", "asin.same-sizes", "asin.scale-bias-integer")
DMLREF_MATH_OPERATOR(ACOS, Acos, "acos.same-data-type", "acos.same-sizes", "acos.scale-bias-integer")
DMLREF_MATH_OPERATOR(ATAN, Atan, "atan.same-data-type", "atan.same-sizes", "atan.scale-bias-integer")
DMLREF_MATH_OPERATOR(SINH, Sinh, "sinh.same-data-type", "sinh.same-sizes", "sinh.scale-bias-integer")
DMLREF_MATH_OPERATOR(COSH, Cosh, "cosh.same-data-type", "cosh.same-sizes", "cosh.scale-bias-integer")
DMLREF_MATH_OPERATOR(TANH, Tanh, "tanh.same-data-type", "tanh.same-sizes", "tanh.scale-bias-integer")
DMLREF_MATH_OPERATOR(ASINH, Asinh, "asinh.same-data-type", "asinh.same-sizes", "asinh.scale-bias-integer")
DMLREF_MATH_OPERATOR(ACOSH, Acosh, "acosh.same-data-type", "acosh.same-sizes", "acosh.scale-bias-integer")
DMLREF_MATH_OPERATOR(ATANH, Atanh, "atanh.same-data-type", "atanh.same-sizes", "atanh.scale-bias-integer")
DMLREF_MATH_OPERATOR(ERF, Erf, "erf.same-data-type", "erf.same-sizes", "erf.scale-bias-integer")
#undef DMLREF_MATH_OPERATOR

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The input element, g(x) when a ScaleBias applies, the function and what decided the result.
bool explain_math(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    if (!math_function_of(c.op.Type)) return false;
    const MathDesc md = math_desc(c.op.Desc);
    const std::optional<MathFunction> f = md.f;
    const TensorDesc& in = *md.input;
    const std::optional<DML_SCALE_BIAS>& sb = md.scale_bias;
    const ExplainedInput xin = input_element(c, "InputTensor", nd_coordinate(in.Sizes, flat), "x");
    out.inputs.push_back(xin);
    const std::string fname(math_function_name(*f));
    double x = 0;
    if (is_float(in.DataType)) {
        x = dispatch(in.DataType, [&]<class T>() -> double {
            if constexpr (is_floating_v<T>) {
                const T v = from_bits<T>(bits_t<T>(xin.bits));
                return sb ? scale_bias_value(v, *sb) : widen(v);
            } else {
                return 0;
            }
        });
        if (sb) {
            out.facts.emplace_back("g(x)", "x * Scale + Bias = " + format_exact_value(DataType::FLOAT64, to_bits(x)) +
                                               " (ScaleBias; " + fname +
                                               " applies to it, then one rounding to the data type)");
            out.policies.push_back("ScaleBiasArithmetic");
        }
    }
    out.facts.emplace_back("formula", fname + "(x)");
    if (!is_float(in.DataType)) {
        out.facts.emplace_back("decided by", "the exact value rounded half to even and saturated (NaN: 0)");
        out.policies.push_back("IntegerResult");
    } else if (x != x) {
        out.facts.emplace_back("decided by", "a NaN input: the canonical NaN");
        out.policies.push_back("NaNResult");
    } else if (std::isinf(x) || x == 0 || std::fabs(x) >= 1) {
        out.facts.emplace_back("decided by",
                               "the exact value (IEEE 754 and C99 Annex F special values, signed zeros kept), "
                               "rounded once to nearest-even; a NaN result is the canonical NaN");
        out.policies.push_back("MathSpecialValues");
        out.policies.push_back("SignedZeroResult");
    } else {
        out.facts.emplace_back("decided by", "the exact value rounded once to nearest-even (Ziv's loop in MPFR)");
        out.policies.push_back("ComputedValue");
    }
    return true;
}

}  // namespace dmlref::reference
