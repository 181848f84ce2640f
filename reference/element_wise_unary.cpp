// DML_OPERATOR_ELEMENT_WISE_IDENTITY, _ABS, _CEIL, _FLOOR, _SIGN, _NEGATE, _SQRT, _RECIP and
// _THRESHOLD: the unary operators of the element-wise family.
//
// Spec: DirectML API reference, "DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC structure" and the pages of
// the same name for ABS, CEIL, FLOOR, SIGN and NEGATE.
//
//   IDENTITY  f(x) = x           ScaleBias optional
//   ABS       f(x) = abs(x)      ScaleBias optional
//   CEIL      f(x) = ceil(x)     ScaleBias optional ("the smallest integer that is greater than or equal to x")
//   FLOOR     f(x) = floor(x)    ScaleBias optional ("the largest integer that is less than or equal to x")
//   SIGN      f(x) = sign(x)
//   NEGATE    f(x) = -x
//   SQRT      f(x) = sqrt(x)     ScaleBias optional
//   RECIP     f(x) = 1 / x       ScaleBias optional
//   THRESHOLD f(x) = max(x, Min) ScaleBias optional; Min: FLOAT ("Where max(a,b) returns the larger of the two values")
//   ROUND     f(x) = x rounded to an integer value by RoundingMode: HALVES_TO_NEAREST_EVEN, TOWARD_ZERO
//             ("truncates the fractional part"), TOWARD_INFINITY ("halfway values ... rounded away from zero")
//   Each: InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes.
//   ScaleBias: "the function g(x) = x * scale + bias [is applied] to each input element prior to
//   computing this operator."
//
// Decisions (docs/golden.md, "Element-wise unary operators"):
//   - ScaleBias as CLIP's (ScaleBiasArithmetic=Float32UnfusedFloat64ForFloat64): x * Scale, then
//     + Bias, each rounded to float32 (float64 for FLOAT64 data), no fused multiply-add; f applies
//     to that value, and the result is rounded once to the data type. Integer data with ScaleBias
//     is an error ([op].scale-bias-integer), as for CLIP.
//   - ABS and NEGATE are IEEE 754 sign-bit operations (SignBitOperation=IEEE754): the sign bit
//     is cleared or flipped, NaN payloads included; -0 has abs +0 and negation +0.
//   - CEIL and FLOOR keep IEEE 754's sign of a zero result: ceil(-0.5) = -0, floor(-0) = -0; a NaN
//     is the canonical NaN (NaNResult=CanonicalNaN); integers are their own ceiling and floor.
//   - SIGN: -1, +0 or 1; sign(-0) = +0 (SignOfZero=PositiveZero); sign(NaN) is the canonical NaN
//     (SignOfNaN=CanonicalNaN); unsigned integers give 0 or 1.
//   - Integer ABS and NEGATE wrap (IntegerOverflow=WrapToWidth): abs(-128) = -128 and -(-128) = -128
//     in INT8; NEGATE of an unsigned x is 2^N - x. Under the alternative reading
//     IntegerOverflow=Saturate both give 127 there, and an unsigned -x is 0.
//   - SQRT and RECIP are correctly rounded: the float64 square root or reciprocal of a FLOAT16 or
//     FLOAT32 value (or of g's float32 value), rounded to the type, is the once-rounded one
//     (53 >= 2 * 24 + 2); FLOAT64 is one IEEE operation. sqrt(-0) = -0, sqrt(x < 0) and sqrt(NaN)
//     the canonical NaN; 1/±0 = ±inf. Integers (outside the pages' tables): SQRT is the exact root
//     rounded to nearest (never a tie), 0 for a negative x (IntegerResult: a NaN gives 0); RECIP is
//     DIVIDE's integer 1 / x: truncated, all bits set for x = 0 (IntegerDivisionByZero=AllBitsSet).
//   - ROUND is exact; the sign of a zero result is the input's (IEEE 754's roundToIntegral:
//     round(-0.4) = -0); a NaN is the canonical NaN; integers are already integral.
//   - THRESHOLD compares exact values as CLIP does (ClipFloatBoundCompare=ExactValues) with D3D's
//     max (ForwardNaN: max(NaN, Min) = Min; SignedZeroMinMax: max(-0, +0) = +0); a Min that is the
//     result is stored rounded to nearest-even (FLOAT16) or rounded half to even and saturated
//     (integers; ClipBoundStore=RoundNearestEvenSaturate).
#include "element_wise.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <cmath>
#include <type_traits>

namespace dmlref::reference {

namespace {

// The type g(x) is computed in: float32 for FLOAT16 and FLOAT32, float64 for FLOAT64.
template <class T> using Work = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T> Work<T> scale_bias(T x, const DML_SCALE_BIAS& sb) {
    using W = Work<T>;
    const W product = static_cast<W>(widen(x)) * static_cast<W>(sb.Scale);
    return static_cast<W>(product + static_cast<W>(sb.Bias));
}

// A value of the work type rounded once to T (none when T is the work type).
template <class T, class W> T to_type(W w) {
    if constexpr (std::is_same_v<T, W>) return w;
    else return round_to_float<T>(double(w));
}

template <class V> constexpr bits_t<V> sign_bit() { return bits_t<V>(bits_t<V>(1) << (sizeof(V) * 8 - 1)); }

template <class V> V abs_of(V v) {
    if constexpr (is_floating_v<V>) return from_bits<V>(bits_t<V>(to_bits(v) & bits_t<V>(~sign_bit<V>())));
    else if constexpr (std::is_signed_v<V>)
        return v < 0 ? V(std::make_unsigned_t<V>(0) - std::make_unsigned_t<V>(v)) : v;
    else return v;
}

template <class V> V negate_of(V v) {
    if constexpr (is_floating_v<V>) return from_bits<V>(bits_t<V>(to_bits(v) ^ sign_bit<V>()));
    else return V(std::make_unsigned_t<V>(std::make_unsigned_t<V>(0) - std::make_unsigned_t<V>(v)));
}

template <class V> V ceil_of(V v) {
    if constexpr (is_floating_v<V>) {
        if (is_nan(v)) return canonical_nan<V>();
        return round_to_float<V>(std::ceil(widen(v)));  // exact: the ceiling of a float is a float of its type
    } else {
        return v;
    }
}

template <class V> V floor_of(V v) {
    if constexpr (is_floating_v<V>) {
        if (is_nan(v)) return canonical_nan<V>();
        return round_to_float<V>(std::floor(widen(v)));
    } else {
        return v;
    }
}

template <class V> V sign_of(V v) {
    if constexpr (is_floating_v<V>) {
        if (is_nan(v)) return canonical_nan<V>();
        const double x = widen(v);
        return round_to_float<V>(x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0);
    } else if constexpr (std::is_signed_v<V>) {
        return V((v > 0) - (v < 0));
    } else {
        return V(v > 0);
    }
}

// The exact square root of an unsigned integer rounded to nearest (a root is never a half-integer).
inline uint64_t integer_sqrt_nearest(uint64_t n) {
    uint64_t r = uint64_t(std::sqrt(double(n)));
    while (uint128_t(r) * r > n) --r;
    while (uint128_t(r + 1) * (r + 1) <= n) ++r;
    return (uint128_t(n) - uint128_t(r) * r > r) ? r + 1 : r;  // n > (r + 1/2)^2 = r^2 + r + 1/4
}

template <class V> V integer_sqrt(V v) {
    if constexpr (std::is_signed_v<V>) {
        if (v < 0) return V(0);
    }
    return V(integer_sqrt_nearest(uint64_t(v)));
}

template <class V> V integer_recip(V v) {
    using U = std::make_unsigned_t<V>;
    if (v == 0) return V(U(~U(0)));  // IntegerDivisionByZero=AllBitsSet
    if (v == 1) return V(1);
    if constexpr (std::is_signed_v<V>) {
        if (v == -1) return V(-1);
    }
    return V(0);  // |1 / v| < 1 truncates to 0
}

template <class D>
void validate_unary(const D& d, Diagnostics& diags, std::string_view same_type, std::string_view same_sizes,
                    std::string_view scale_bias_integer) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, same_type);
    require_same_sizes(diags, all, same_sizes);
    if constexpr (requires { d.ScaleBias; })
        if (d.ScaleBias && is_valid(d.InputTensor.DataType) && !is_float(d.InputTensor.DataType))
            diags.error("/desc/ScaleBias", std::string(scale_bias_integer),
                        "ScaleBias is given for " + std::string(name(d.InputTensor.DataType)) +
                            " data; the spec does not define x * Scale + Bias for integer tensors (docs/golden.md)");
}

// Integer data that f leaves as it is (IntegerCopy::All: IDENTITY, CEIL, FLOOR and ROUND;
// IntegerCopy::Unsigned: ABS, for unsigned types only): its bits copied by one loop per width, which
// every such operator and both signednesses share.
enum class IntegerCopy { None, Unsigned, All };

template <class W> void unary_copy_loop(const TensorView& Y, const TensorView& X) {
    map_elements<W, W>(
        Y, [](W x) { return x; }, X);
}

// Y = f(X), f taken by value: its captures (NEGATE's and ABS's saturate) are the loop's own copies,
// which no store to an 8-bit Y can alias, so the loop reads them once and vectorises.
template <class T, class F> void unary_loop(const TensorView& Y, const TensorView& X, F f) {
    map_elements<T, T>(
        Y, [=](T x) { return f(x); }, X);
}

// Every element of OutputTensor is f of InputTensor's element at its coordinate (read before the
// element is written: in place is allowed), of g(x) when the desc has a ScaleBias.
template <IntegerCopy Copy = IntegerCopy::None, class D, class F>
void evaluate_unary(const D& d, const Bindings& b, F f) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    std::optional<DML_SCALE_BIAS> sb;
    if constexpr (requires { d.ScaleBias; }) sb = d.ScaleBias;
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        if constexpr (std::is_integral_v<T> &&
                      (Copy == IntegerCopy::All || (Copy == IntegerCopy::Unsigned && std::is_unsigned_v<T>))) {
            unary_copy_loop<std::make_unsigned_t<T>>(Y, X);
        } else {
            if constexpr (is_floating_v<T>) {
                if (sb) {
                    map_elements<T, T>(
                        Y, [&](T x) { return to_type<T>(f(scale_bias(x, *sb))); }, X);
                    return;
                }
            }
            unary_loop<T>(Y, X, f);
        }
    });
}

// SQRT and RECIP: f of the input (of g(x) when the desc has a ScaleBias) in float64, rounded once
// to T; fi for integer data.
template <class D, class F, class FI> void evaluate_rounded(const D& d, const Bindings& b, F f, FI fi) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        if constexpr (is_floating_v<T>) {
            auto once = [&](double x) {
                const double r = f(x);
                return r != r ? canonical_nan<T>() : round_to_float<T>(r);
            };
            if (d.ScaleBias)
                map_elements<T, T>(
                    Y, [&](T x) { return once(double(scale_bias(x, *d.ScaleBias))); }, X);
            else
                map_elements<T, T>(
                    Y, [&](T x) { return once(widen(x)); }, X);
        } else {
            map_elements<T, T>(
                Y, [&](T x) { return fi(x); }, X);
        }
    });
}

}  // namespace

void validate(const DML_ELEMENT_WISE_SQRT_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "sqrt.same-data-type", "sqrt.same-sizes", "sqrt.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_SQRT_OPERATOR_DESC& d, const Bindings& b) {
    // std::sqrt is IEEE's correctly rounded square root; sqrt(-0) = -0, sqrt(x < 0) = NaN.
    evaluate_rounded(
        d, b, [](double x) { return std::sqrt(x); }, [](auto x) { return integer_sqrt(x); });
}
void validate(const DML_ELEMENT_WISE_RECIP_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "recip.same-data-type", "recip.same-sizes", "recip.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_RECIP_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_rounded(
        d, b, [](double x) { return 1.0 / x; }, [](auto x) { return integer_recip(x); });
}

void validate(const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "threshold.same-data-type", "threshold.same-sizes", "threshold.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const Number Min = Number::of(d.Min);
    // A selected x is stored exactly (its value is a T), so it keeps its bits, -0 and subnormals included.
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        if constexpr (is_floating_v<T>) {
            if (d.ScaleBias) {
                map_elements<T, T>(
                    Y, [&](T x) { return store<T>(max_number(Number::of(scale_bias(x, *d.ScaleBias)), Min)); }, X);
                return;
            }
        }
        map_elements<T, T>(
            Y, [&](T x) { return store<T>(max_number(Number::of(x), Min)); }, X);
    });
}

void validate(const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "round.same-data-type", "round.same-sizes", "");
    if (d.RoundingMode >= kRoundingModeNames.Names.size())
        diags.error("/desc/RoundingMode", "round.rounding-mode",
                    "RoundingMode is " + std::to_string(d.RoundingMode) +
                        "; it must be a DML_ROUNDING_MODE: HALVES_TO_NEAREST_EVEN, TOWARD_ZERO or TOWARD_INFINITY");
}
void evaluate(const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC& d, const Bindings& b) {
    const uint32_t mode = d.RoundingMode;
    evaluate_unary<IntegerCopy::All>(d, b, [mode](auto x) {
        using V = decltype(x);
        if constexpr (is_floating_v<V>) {
            if (is_nan(x)) return canonical_nan<V>();
            const double v = widen(x);
            // nearbyint: the default rounding mode, nearest with ties to even; trunc; round: ties away from zero.
            const double r = mode == 0 ? std::nearbyint(v) : mode == 1 ? std::trunc(v) : std::round(v);
            return round_to_float<V>(r);  // exact: an integral value of a float is a float of its type
        } else {
            return x;
        }
    });
}

void validate(const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "identity.same-data-type", "identity.same-sizes", "identity.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_unary<IntegerCopy::All>(d, b, [](auto x) { return x; });
}
void validate(const DML_ELEMENT_WISE_ABS_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "abs.same-data-type", "abs.same-sizes", "abs.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_ABS_OPERATOR_DESC& d, const Bindings& b) {
    const bool saturate = in_force<"IntegerOverflow", "Saturate">();  // abs(INT_MIN) is INT_MAX
    evaluate_unary<IntegerCopy::Unsigned>(d, b, [saturate](auto x) {
        using V = decltype(x);
        if constexpr (std::is_signed_v<V> && std::is_integral_v<V>)
            if (saturate && x == std::numeric_limits<V>::min()) return std::numeric_limits<V>::max();
        return abs_of(x);
    });
}
void validate(const DML_ELEMENT_WISE_CEIL_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "ceil.same-data-type", "ceil.same-sizes", "ceil.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_CEIL_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_unary<IntegerCopy::All>(d, b, [](auto x) { return ceil_of(x); });
}
void validate(const DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "floor.same-data-type", "floor.same-sizes", "floor.scale-bias-integer");
}
void evaluate(const DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_unary<IntegerCopy::All>(d, b, [](auto x) { return floor_of(x); });
}
void validate(const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "sign.same-data-type", "sign.same-sizes", "");
}
void evaluate(const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_unary(d, b, [](auto x) { return sign_of(x); });
}
void validate(const DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_unary(d, diags, "negate.same-data-type", "negate.same-sizes", "");
}
void evaluate(const DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC& d, const Bindings& b) {
    // IntegerOverflow=Saturate: -INT_MIN is INT_MAX; an unsigned -x is 0 (its exact value is <= 0).
    const bool saturate = in_force<"IntegerOverflow", "Saturate">();
    evaluate_unary(d, b, [saturate](auto x) {
        using V = decltype(x);
        if constexpr (std::is_integral_v<V> && std::is_unsigned_v<V>) {
            if (saturate) return V(0);
        } else if constexpr (std::is_integral_v<V>) {
            if (saturate && x == std::numeric_limits<V>::min()) return std::numeric_limits<V>::max();
        }
        return negate_of(x);
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The input element, g(x) when a ScaleBias applies, the formula and the decision that chose the result.
bool explain_unary(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const OperatorType op = c.op.Type;
    const TensorDesc& in = *tensor_fields(c.op).front().desc;  // InputTensor comes first in every unary desc
    const std::vector<uint64_t> at = nd_coordinate(in.Sizes, flat);
    const ExplainedInput xin = input_element(c, "InputTensor", at, "x");
    out.inputs.push_back(xin);
    std::optional<DML_SCALE_BIAS> sb;
    if (auto* d = get_if<DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC>(&c.op.Desc)) sb = d->ScaleBias;
    if (auto* d = get_if<DML_ELEMENT_WISE_ABS_OPERATOR_DESC>(&c.op.Desc)) sb = d->ScaleBias;
    if (auto* d = get_if<DML_ELEMENT_WISE_CEIL_OPERATOR_DESC>(&c.op.Desc)) sb = d->ScaleBias;
    if (auto* d = get_if<DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC>(&c.op.Desc)) sb = d->ScaleBias;
    if (auto* d = get_if<DML_ELEMENT_WISE_SQRT_OPERATOR_DESC>(&c.op.Desc)) sb = d->ScaleBias;
    if (auto* d = get_if<DML_ELEMENT_WISE_RECIP_OPERATOR_DESC>(&c.op.Desc)) sb = d->ScaleBias;
    if (auto* d = get_if<DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC>(&c.op.Desc)) {
        sb = d->ScaleBias;
        out.facts.emplace_back("Min", format_exact_value(DataType::FLOAT32, to_bits(d->Min)));
    }
    if (sb && is_float(in.DataType)) {
        const double g = dispatch(in.DataType, [&]<class T>() -> double {
            if constexpr (is_floating_v<T>) return double(scale_bias(from_bits<T>(bits_t<T>(xin.bits)), *sb));
            else return 0;
        });
        out.facts.emplace_back("g(x)", "x * Scale + Bias = " + format_exact_value(DataType::FLOAT64, to_bits(g)) +
                                           " (ScaleBias; f applies to it, then one rounding to the data type)");
        out.policies.push_back("ScaleBiasArithmetic");
    }
    const char* formula = op == OperatorType::ELEMENT_WISE_IDENTITY    ? "x"
                          : op == OperatorType::ELEMENT_WISE_ABS       ? "abs(x): the sign bit cleared"
                          : op == OperatorType::ELEMENT_WISE_CEIL      ? "ceil(x)"
                          : op == OperatorType::ELEMENT_WISE_FLOOR     ? "floor(x)"
                          : op == OperatorType::ELEMENT_WISE_SIGN      ? "sign(x): -1, +0 or 1"
                          : op == OperatorType::ELEMENT_WISE_SQRT      ? "sqrt(x)"
                          : op == OperatorType::ELEMENT_WISE_RECIP     ? "1 / x"
                          : op == OperatorType::ELEMENT_WISE_THRESHOLD ? "max(x, Min)"
                          : op == OperatorType::ELEMENT_WISE_ROUND     ? "x rounded to an integer by RoundingMode"
                                                                       : "-x: the sign bit flipped";
    out.facts.emplace_back("formula", formula);
    const DataType t = in.DataType;
    if (is_float(t)) {
        const double x = element_value(t, xin.bits);
        if (op == OperatorType::ELEMENT_WISE_SIGN) {
            out.facts.emplace_back("decided by", x != x   ? "a NaN input: the canonical NaN"
                                                 : x == 0 ? "a zero input: +0"
                                                          : "the input's sign");
            out.policies.push_back(x != x ? "SignOfNaN" : "SignOfZero");
        } else if (op == OperatorType::ELEMENT_WISE_ABS || op == OperatorType::ELEMENT_WISE_NEGATE) {
            out.facts.emplace_back("decided by", "an IEEE 754 sign-bit operation: NaN payloads kept");
            out.policies.push_back("SignBitOperation");
        } else if (op == OperatorType::ELEMENT_WISE_CEIL || op == OperatorType::ELEMENT_WISE_FLOOR ||
                   op == OperatorType::ELEMENT_WISE_ROUND) {
            out.facts.emplace_back(
                "decided by", x != x ? "a NaN input: the canonical NaN" : "the exact integer, IEEE 754's signed zero");
            out.policies.push_back("NaNResult");
        } else if (op == OperatorType::ELEMENT_WISE_SQRT || op == OperatorType::ELEMENT_WISE_RECIP) {
            out.facts.emplace_back("decided by",
                                   "the exact result, rounded once to nearest-even (a NaN: the canonical NaN)");
            out.policies.push_back("NaNResult");
        } else if (op == OperatorType::ELEMENT_WISE_THRESHOLD) {
            out.facts.emplace_back("decided by", "D3D's max of exact values: a NaN is ignored, -0 below +0");
            out.policies.push_back("ForwardNaN");
            out.policies.push_back("SignedZeroMinMax");
        } else {
            out.facts.emplace_back("decided by", "a copy of the input's bits");
        }
    } else if (op == OperatorType::ELEMENT_WISE_SQRT) {
        out.facts.emplace_back("decided by", "the exact root rounded to nearest (0 for a negative x)");
        out.policies.push_back("IntegerResult");
    } else if (op == OperatorType::ELEMENT_WISE_RECIP) {
        out.facts.emplace_back("decided by", "1 / x truncated toward zero; all bits set for x = 0");
        out.policies.push_back("IntegerDivisionByZero");
    } else if (op == OperatorType::ELEMENT_WISE_THRESHOLD) {
        out.facts.emplace_back("decided by", "max of exact values; a Min stored rounded half to even and saturated");
        out.policies.push_back("ClipBoundStore");
    } else {
        out.facts.emplace_back("decided by", "the integer result, wrapped to the type's width");
        out.policies.push_back("IntegerOverflow");
    }
    return true;
}

}  // namespace dmlref::reference
