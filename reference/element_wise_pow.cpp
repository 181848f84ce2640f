// DML_OPERATOR_ELEMENT_WISE_POW, _CONSTANT_POW and _ATAN_YX: the element-wise math family's operators
// of two operands.
//
// Spec: DirectML API reference, "DML_ELEMENT_WISE_POW_OPERATOR_DESC structure",
// "DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC structure", "DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC
// structure":
//   POW           f(input, exponent) = pow(input, exponent), the exponent from ExponentTensor; ScaleBias
//                 optional (applied to the input). "Negative bases are supported for exponents with
//                 integral values (though datatype can still be float), otherwise this operator returns
//                 NaN." "When the input tensor and exponent tensor both have integral data type, this
//                 operator guarantees exact results." ExponentTensor, InputTensor and OutputTensor have
//                 one DimensionCount and Sizes; InputTensor and OutputTensor one DataType; until
//                 DML_FEATURE_LEVEL_3_0 ExponentTensor must match InputTensor's type (a support rule).
//   CONSTANT_POW  f(x) = pow(x, Exponent), Exponent a FLOAT; ScaleBias optional; InputTensor and
//                 OutputTensor one DataType, DimensionCount and Sizes.
//   ATAN_YX       f(y, x) = atan2(y, x), y from ATensor, x from BTensor; "undefined for the origin";
//                 ATensor, BTensor and OutputTensor one DataType, DimensionCount and Sizes.
//   All three allow in-place execution.
//
// Decisions (docs/golden.md, "Element-wise math"):
//   - Float results as the one-input functions': the exact value rounded once (ComputedValue), MPFR's
//     mpfr_pow and mpfr_atan2 through Ziv's loop; an exact power (4^0.5 = 2, 1.5^2) has a ternary
//     value 0 and ends the loop, and a power that is a rounding midpoint of the type has at most 54
//     significant bits, so MPFR's first 64-bit evaluation is exact there: the loop always decides.
//   - Special values are C99 Annex F's (MathSpecialValues): pow(x, +-0) = 1 and pow(1, y) = 1 for any
//     x, y, NaN included; pow(x < 0, non-integer) NaN (the pages' words); pow(+-0, y < 0) an infinity;
//     pow(-1, +-inf) = 1; atan2(+-0, +0) = +-0, atan2(+-0, -0) = +-pi, atan2(+-inf, +-inf) = +-pi/4 or
//     +-3pi/4. The origin, which the ATAN_YX page leaves undefined, gets C99's value and its elements
//     are reported as boundary elements (AtanYxOrigin).
//   - POW of integers (both tensors integral: PowIntegers=ExactWrapped): the exact power wrapped to the
//     output's width, as integer multiplication wraps (IntegerOverflow); a negative exponent gives
//     1 / b^-p truncated toward zero (0 unless b = +-1), and 0 to a negative power all bits set
//     (IntegerDivisionByZero=AllBitsSet, as RECIP). An integer input with a float exponent, CONSTANT_POW
//     and ATAN_YX of integers: the exact value rounded half to even and saturated (IntegerResult).
//   - ScaleBias as the one-input functions' (two float32 roundings); with integer data an error.
#include "element_wise_math.hpp"

#include <cmath>
#include <type_traits>

namespace dmlref::reference {

namespace {

// An MPFR number of 64 bits: every float64, 64-bit integer and x86 long double exactly.
struct Operand {
    mpfr_t v;
    Operand() { mpfr_init2(v, 64); }
    ~Operand() { mpfr_clear(v); }
    Operand(const Operand&) = delete;
    Operand& operator=(const Operand&) = delete;
};

// A tensor's logical elements as long doubles: exact for every element type (64-bit integers
// included: a long double of 64 significant bits, checked below).
static_assert(std::numeric_limits<long double>::digits >= 64, "a long double must hold every 64-bit integer");
std::vector<long double> wide_values(const TensorDesc& d, std::span<const std::byte> buffer) {
    return dispatch(d.DataType, [&]<class T>() {
        std::vector<long double> out;
        for (T v : logical_values<T>(d, buffer)) {
            if constexpr (is_floating_v<T>) out.push_back((long double)widen(v));
            else out.push_back((long double)v);
        }
        return out;
    });
}

// The output's elements from f(x, second) over InputTensor's logical elements and a second operand's.
template <class F>
void evaluate_two(const TensorDesc& in, std::span<std::byte> in_bytes, const std::vector<long double>& second,
                  const TensorDesc& out, std::span<std::byte> out_bytes, F f) {
    dispatch(in.DataType, [&]<class T>() {
        const std::vector<T> x = logical_values<T>(in, in_bytes);  // read before any element is written
        write_logical<T>(out, out_bytes, [&](uint64_t i) { return f(x[i], second[i]); });
    });
}

void validate_pow_like(const TensorDesc& in, const TensorDesc& out, const std::optional<DML_SCALE_BIAS>& sb,
                       std::initializer_list<Named> same_sizes, Diagnostics& diags, std::string_view same_type_rule,
                       std::string_view same_sizes_rule, std::string_view scale_bias_rule) {
    require_same_data_type(diags, {{"InputTensor", in}, {"OutputTensor", out}}, same_type_rule);
    require_same_sizes(diags, same_sizes, same_sizes_rule);
    require_float_scale_bias(in, sb, diags, scale_bias_rule);
}

// One element of POW or CONSTANT_POW: x of the input type, p exact.
template <class T> T pow_element(T x, long double p, bool integer_exponent, const std::optional<DML_SCALE_BIAS>& sb) {
    if constexpr (is_floating_v<T>) {
        return pow_rounded<T>(sb ? scale_bias_value(x, *sb) : widen(x), p);
    } else {
        if (integer_exponent) return integer_pow<T>(x, p);
        Operand b, e;
        if constexpr (std::is_signed_v<T>) mpfr_set_sj(b.v, intmax_t(x), MPFR_RNDN);
        else mpfr_set_uj(b.v, uintmax_t(x), MPFR_RNDN);
        mpfr_set_ld(e.v, p, MPFR_RNDN);
        return mpfr_call_rounded<T>([&](mpfr_ptr r) { return mpfr_pow(r, b.v, e.v, MPFR_RNDN); });
    }
}

}  // namespace

template <class T> T pow_rounded(double b, long double p) {
    Operand B, P;
    mpfr_set_d(B.v, b, MPFR_RNDN);  // exact; a NaN stays a NaN (pow(NaN, 0) = 1)
    mpfr_set_ld(P.v, p, MPFR_RNDN);
    return mpfr_call_rounded<T>([&](mpfr_ptr r) { return mpfr_pow(r, B.v, P.v, MPFR_RNDN); });
}
template half pow_rounded<half>(double, long double);
template float pow_rounded<float>(double, long double);
template double pow_rounded<double>(double, long double);

template <class T> T integer_pow(T b, long double p) {
    using U = std::make_unsigned_t<T>;
    if (p < 0) {
        if (b == 0) return T(U(~U(0)));  // 1 / 0: IntegerDivisionByZero=AllBitsSet
        if (b == 1) return T(1);
        if constexpr (std::is_signed_v<T>) {
            if (b == -1) return std::fmod(-p, 2.0L) == 0 ? T(1) : T(-1);
        }
        return T(0);  // |1 / b^n| <= 1/2 truncates to 0
    }
    // Exact power modulo 2^64 by squaring, then wrapped to T's width (two's complement).
    uint64_t result = 1, base = std::is_signed_v<T> ? uint64_t(int64_t(b)) : uint64_t(b);
    for (uint64_t n = uint64_t(p); n != 0; n >>= 1) {
        if (n & 1) result *= base;
        base *= base;
    }
    return T(U(result));
}
template int8_t integer_pow<int8_t>(int8_t, long double);
template int16_t integer_pow<int16_t>(int16_t, long double);
template int32_t integer_pow<int32_t>(int32_t, long double);
template int64_t integer_pow<int64_t>(int64_t, long double);
template uint8_t integer_pow<uint8_t>(uint8_t, long double);
template uint16_t integer_pow<uint16_t>(uint16_t, long double);
template uint32_t integer_pow<uint32_t>(uint32_t, long double);
template uint64_t integer_pow<uint64_t>(uint64_t, long double);

template <class T> T atan_yx_rounded(long double y, long double x) {
    if constexpr (is_floating_v<T>) {
        if (y != y || x != x) return canonical_nan<T>();
    }
    Operand Y, X;
    mpfr_set_ld(Y.v, y, MPFR_RNDN);
    mpfr_set_ld(X.v, x, MPFR_RNDN);
    return mpfr_call_rounded<T>([&](mpfr_ptr r) { return mpfr_atan2(r, Y.v, X.v, MPFR_RNDN); });
}
template half atan_yx_rounded<half>(long double, long double);
template float atan_yx_rounded<float>(long double, long double);
template double atan_yx_rounded<double>(long double, long double);
template int8_t atan_yx_rounded<int8_t>(long double, long double);
template int16_t atan_yx_rounded<int16_t>(long double, long double);
template int32_t atan_yx_rounded<int32_t>(long double, long double);
template int64_t atan_yx_rounded<int64_t>(long double, long double);
template uint8_t atan_yx_rounded<uint8_t>(long double, long double);
template uint16_t atan_yx_rounded<uint16_t>(long double, long double);
template uint32_t atan_yx_rounded<uint32_t>(long double, long double);
template uint64_t atan_yx_rounded<uint64_t>(long double, long double);

void validate(const DML_ELEMENT_WISE_POW_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_pow_like(
        d.InputTensor, d.OutputTensor, d.ScaleBias,
        {{"InputTensor", d.InputTensor}, {"ExponentTensor", d.ExponentTensor}, {"OutputTensor", d.OutputTensor}}, diags,
        "pow.same-data-type", "pow.same-sizes", "pow.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_POW_OPERATOR_DESC& d, const Bindings& b) {
    const std::vector<long double> e = wide_values(d.ExponentTensor, b.at("ExponentTensor"));
    const bool integer_exponent = !is_float(d.ExponentTensor.DataType);
    evaluate_two(d.InputTensor, b.at("InputTensor"), e, d.OutputTensor, b.at("OutputTensor"),
                 [&](auto x, long double p) { return pow_element(x, p, integer_exponent, d.ScaleBias); });
}

void validate(const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_pow_like(d.InputTensor, d.OutputTensor, d.ScaleBias,
                      {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, diags,
                      "constant-pow.same-data-type", "constant-pow.same-sizes", "constant-pow.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC& d, const Bindings& b) {
    const std::vector<long double> e(element_count(d.InputTensor), (long double)d.Exponent);
    evaluate_two(d.InputTensor, b.at("InputTensor"), e, d.OutputTensor, b.at("OutputTensor"),
                 [&](auto x, long double p) { return pow_element(x, p, false, d.ScaleBias); });
}

void validate(const DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {
        {"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, "atan-yx.same-data-type");
    require_same_sizes(diags, all, "atan-yx.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC& d, const Bindings& b) {
    const std::vector<long double> x = wide_values(d.BTensor, b.at("BTensor"));
    dispatch(d.ATensor.DataType, [&]<class T>() {
        const std::vector<long double> y = wide_values(d.ATensor, b.at("ATensor"));
        write_logical<T>(d.OutputTensor, b.at("OutputTensor"),
                         [&](uint64_t i) { return atan_yx_rounded<T>(y[i], x[i]); });
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_pow(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const OperatorType t = c.op.Type;
    if (t != OperatorType::ELEMENT_WISE_POW && t != OperatorType::ELEMENT_WISE_CONSTANT_POW &&
        t != OperatorType::ELEMENT_WISE_ATAN_YX)
        return false;
    const TensorDesc& first = *tensor_fields(c.op).front().desc;
    const std::vector<uint64_t> at = nd_coordinate(first.Sizes, flat);
    const bool integers = !is_float(first.DataType);
    if (t == OperatorType::ELEMENT_WISE_ATAN_YX) {
        out.inputs.push_back(input_element(c, "ATensor", at, "y"));
        out.inputs.push_back(input_element(c, "BTensor", at, "x"));
        out.facts.emplace_back("formula", "atan2(y, x)");
        out.facts.emplace_back("decided by",
                               integers ? "the exact value rounded half to even and saturated"
                                        : "the exact value rounded once (C99 Annex F at the origin and infinities)");
        out.policies.push_back(integers ? "IntegerResult" : "AtanYxOrigin");
        return true;
    }
    out.inputs.push_back(input_element(c, "InputTensor", at, "x"));
    bool integer_exponent = false;
    if (const auto* d = get_if<DML_ELEMENT_WISE_POW_OPERATOR_DESC>(&c.op.Desc)) {
        out.inputs.push_back(input_element(c, "ExponentTensor", at, "p"));
        integer_exponent = !is_float(d->ExponentTensor.DataType);
        if (d->ScaleBias) out.policies.push_back("ScaleBiasArithmetic");
    } else if (const auto* d = get_if<DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC>(&c.op.Desc)) {
        out.facts.emplace_back("Exponent", format_exact_value(DataType::FLOAT32, to_bits(d->Exponent)));
        if (d->ScaleBias) out.policies.push_back("ScaleBiasArithmetic");
    }
    out.facts.emplace_back("formula", "pow(x, p) (x = x * Scale + Bias with ScaleBias)");
    if (integers && integer_exponent) {
        out.facts.emplace_back("decided by",
                               "the exact integer power wrapped to the width; a negative exponent: 1 / x^-p truncated");
        out.policies.push_back("PowIntegers");
    } else if (integers) {
        out.facts.emplace_back("decided by", "the exact value rounded half to even and saturated");
        out.policies.push_back("IntegerResult");
    } else {
        out.facts.emplace_back(
            "decided by", "the exact value rounded once; C99 Annex F's special values (pow(x, 0) = 1, pow(1, y) = 1)");
        out.policies.push_back("MathSpecialValues");
    }
    return true;
}

}  // namespace dmlref::reference
