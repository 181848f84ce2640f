// DML_OPERATOR_CAST.
//
// Spec: DirectML API reference, "DML_CAST_OPERATOR_DESC structure": f(x) = cast(x), "casting each
// element in the input to the data type of the output tensor"; InputTensor and OutputTensor have
// the same DimensionCount and Sizes. The page says nothing of rounding, range or NaN, so every
// conversion below is dmlref's decision, each a named policy (docs/golden.md, "Cast"):
//
//   float -> float   the exact value rounded once to nearest-even; overflow gives the infinity of its
//                    sign; subnormals kept (CastFloatToFloat=RoundNearestEven, Subnormals=Preserve).
//                    Widening is exact.
//   NaN -> float     a quiet NaN of the same sign whose payload is the input's fraction bits, shifted
//                    to the new width (the low bits dropped when narrowing), with the quiet bit set
//                    (CastNaN=QuietKeepsSignAndPayload). A cast to the same type copies the bits.
//   float -> integer truncated toward zero, then saturated to the type's range; NaN gives 0
//                    (CastFloatToInteger=TruncateSaturateNaNZero): 2.7 -> 2, -2.7 -> -2, 300 -> 127 in INT8.
//   integer -> float the exact integer rounded once to nearest-even (never through a double where
//                    that would round twice: INT64 -> FLOAT32 converts directly), overflow to infinity
//                    (FLOAT16: 65520 and above) (CastIntegerToFloat=RoundNearestEven).
//   integer -> integer  the value modulo 2^width, two's complement (CastIntegerToInteger=WrapToWidth):
//                    300 -> 44 and -1 -> 255 in UINT8.
//
// The alternative readings of docs/golden.md ("Alternative readings": CastFloatToInteger=RoundHalfEven,
// Wrap, NaNIsMinimum; CastIntegerToInteger=Saturate; CastIntegerToFloat=ThroughDouble; CastNaN=Canonical)
// are decided once per call (CastReading). Under one, each element goes through convert_bits, one
// runtime dispatch per element to the scalar conversions cast_bits already has; the typed loops
// are the default's alone, so no loop is instantiated twice.
//
// Every input is read through its own strides (zero strides broadcast). The page does not allow
// in-place execution.
#include "cast.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

namespace dmlref::reference {

namespace {

// The fraction (mantissa) width of a float type.
template <class T> constexpr int fraction_bits() {
    if constexpr (is_half_v<T>) return 10;
    else if constexpr (std::is_same_v<T, float>) return 23;
    else return 52;
}

// A NaN of From as a quiet NaN of To: the sign, the fraction shifted to To's width, the quiet bit set.
template <class To, class From> To cast_nan(From x) {
    using BF = bits_t<From>;
    using BT = bits_t<To>;
    constexpr int ff = fraction_bits<From>(), ft = fraction_bits<To>();
    constexpr int wf = int(sizeof(From) * 8), wt = int(sizeof(To) * 8);
    const BF b = to_bits(x);
    const uint64_t sign = uint64_t(b >> (wf - 1)) & 1u;
    const uint64_t fraction = uint64_t(b) & ((uint64_t(1) << ff) - 1);
    const uint64_t f = ft >= ff ? fraction << (ft - ff) : fraction >> (ff - ft);
    const uint64_t exponent_all_ones = ((uint64_t(1) << (wt - 1 - ft)) - 1) << ft;
    const uint64_t quiet = uint64_t(1) << (ft - 1);
    return from_bits<To>(BT((sign << (wt - 1)) | exponent_all_ones | quiet | f));
}

// The readings of the cast policies in force for one call (docs/golden.md, "Alternative
// readings"), decided once per call, outside the loops: the defaults, or the alternatives.
struct CastReading {
    enum FloatToInteger : uint8_t { Truncate, RoundHalfEven, Wrap, NaNIsMinimum } float_to_integer = Truncate;
    bool saturate_integers = false;  // CastIntegerToInteger=Saturate
    bool through_double = false;     // CastIntegerToFloat=ThroughDouble
    bool canonical_nan = false;      // CastNaN=Canonical
    bool any() const { return float_to_integer != Truncate || saturate_integers || through_double || canonical_nan; }
};

CastReading reading_in_force() {
    CastReading r;
    if (in_force<"CastFloatToInteger", "RoundHalfEven">()) r.float_to_integer = CastReading::RoundHalfEven;
    else if (in_force<"CastFloatToInteger", "Wrap">()) r.float_to_integer = CastReading::Wrap;
    else if (in_force<"CastFloatToInteger", "NaNIsMinimum">()) r.float_to_integer = CastReading::NaNIsMinimum;
    r.saturate_integers = in_force<"CastIntegerToInteger", "Saturate">();
    r.through_double = in_force<"CastIntegerToFloat", "ThroughDouble">();
    r.canonical_nan = in_force<"CastNaN", "Canonical">();
    return r;
}

// v (finite) rounded to an integer, halves to the even one; exact in a double (|v| >= 2^52 is an
// integer already, and below it v - floor(v) is exact).
double round_half_even(double v) {
    const double f = std::floor(v), d = v - f;
    if (d > 0.5 || (d == 0.5 && std::fmod(f, 2.0) != 0)) return f + 1;
    return f;
}

// A finite integer-valued double t modulo 2^64 (then, by the caller, modulo 2^width).
uint64_t modulo_2_64(double t) {
    const double m = std::fmod(t, 18446744073709551616.0);  // exact, |m| < 2^64, the sign of t
    return m >= 0 ? uint64_t(m) : uint64_t(0) - uint64_t(-m);
}

template <class To, class From> To cast_value(From x) {
    if constexpr (std::is_same_v<To, From>) {
        return x;  // the same type: the bits, unchanged
    } else if constexpr (is_floating_v<From> && is_floating_v<To>) {
        if (is_nan(x)) return cast_nan<To>(x);
        return round_to_float<To>(widen(x));     // widen is exact; one rounding to To
    } else if constexpr (is_floating_v<From>) {  // float -> integer
        const double v = widen(x);
        if (std::isnan(v)) return To(0);
        const double t = std::trunc(v);
        // The range [min, 2^digits) of To, both ends exact in a double.
        const double hi = std::ldexp(1.0, std::numeric_limits<To>::digits);
        const double lo = double(std::numeric_limits<To>::min());
        if (t >= hi) return std::numeric_limits<To>::max();
        if (t < lo) return std::numeric_limits<To>::min();
        return To(t);                          // t is an integer inside To's range: exact
    } else if constexpr (is_floating_v<To>) {  // integer -> float
        if constexpr (is_half_v<To>) {
            // Integers below 2^53 are exact in a double and round once to FLOAT16; larger ones are
            // far beyond FLOAT16's range (65520 and above give infinity) whatever the double rounds to.
            return half_from_double(double(x));
        } else {
            return static_cast<To>(x);  // one conversion, rounded once to nearest-even (SSE2 cvtsi2ss/sd)
        }
    } else {
        return To(x);  // integer -> integer: modulo 2^width (C++20), two's complement
    }
}

// x under the readings r: the alternative where one applies, else the default above.
template <class To, class From> To cast_value(From x, const CastReading& r) {
    if constexpr (std::is_same_v<To, From>) {
        return x;  // the same type: the bits, unchanged under every reading
    } else if constexpr (is_floating_v<From> && is_floating_v<To>) {
        if (r.canonical_nan && is_nan(x)) return canonical_nan<To>();
    } else if constexpr (is_floating_v<From>) {  // float -> integer
        const double v = widen(x);
        switch (r.float_to_integer) {
            case CastReading::NaNIsMinimum:
                if (std::isnan(v)) return std::numeric_limits<To>::min();
                break;
            case CastReading::Wrap:  // the truncated value modulo 2^width; NaN and +-inf 0
                return std::isfinite(v) ? To(modulo_2_64(std::trunc(v))) : To(0);
            case CastReading::RoundHalfEven:  // an integer, then saturated as the default saturates
                if (std::isfinite(v)) return cast_value<To>(round_half_even(v));
                break;
            case CastReading::Truncate: break;
        }
    } else if constexpr (std::is_same_v<To, float>) {             // integer -> FLOAT32
        if (r.through_double) return static_cast<To>(double(x));  // 64-bit integers: two roundings
    } else if constexpr (!is_floating_v<To>) {                    // integer -> integer
        if (r.saturate_integers) {                                // the value clamped to To's range
            if (int128_t(x) > int128_t(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
            if (int128_t(x) < int128_t(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
        }
    }
    return cast_value<To>(x);
}

// One element of type `from` as type `to` under the readings r.
uint64_t convert_bits(DataType from, uint64_t bits, DataType to, const CastReading& r) {
    return dispatch(to, [&]<class To>() {
        return dispatch(from, [&]<class From>() {
            return uint64_t(to_bits(cast_value<To>(from_bits<From>(bits_t<From>(bits)), r)));
        });
    });
}

// Y's elements as C++ converts X's to B: for an unsigned B, the value modulo 2^width. Outside
// evaluate, so that every pair of types with the same B and F shares the loop.
template <class B, class F> void convert_bits_loop(const TensorView& Y, const TensorView& X) {
    map_elements<B, F>(
        Y, [](F x) { return B(x); }, X);
}

}  // namespace

void validate(const DML_CAST_OPERATOR_DESC& d, Diagnostics& diags) {
    // "InputTensor and OutputTensor must have the same DimensionCount and Sizes."
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, "cast.same-sizes");
}

void evaluate(const DML_CAST_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const CastReading r = reading_in_force();
    if (r.any()) {
        // An alternative reading: element by element through convert_bits (one dispatch each; the
        // readings are for small cases), so the typed loops below stay the default's alone.
        const DataType from = d.InputTensor.DataType, to = d.OutputTensor.DataType;
        const std::vector<std::byte> x = gather_logical(d.InputTensor, b.at("InputTensor"));
        const size_t wi = element_size(from), wo = element_size(to);
        auto out = [&](uint64_t i) { return convert_bits(from, load_bits(from, x.data() + i * wi), to, r); };
        switch (wo) {
            case 1:
                write_logical<uint8_t>(d.OutputTensor, b.at("OutputTensor"),
                                       [&](uint64_t i) { return uint8_t(out(i)); });
                break;
            case 2:
                write_logical<uint16_t>(d.OutputTensor, b.at("OutputTensor"),
                                        [&](uint64_t i) { return uint16_t(out(i)); });
                break;
            case 4:
                write_logical<uint32_t>(d.OutputTensor, b.at("OutputTensor"),
                                        [&](uint64_t i) { return uint32_t(out(i)); });
                break;
            default: write_logical<uint64_t>(d.OutputTensor, b.at("OutputTensor"), out); break;
        }
        return;
    }
    dispatch(d.OutputTensor.DataType, [&]<class To>() {
        dispatch(d.InputTensor.DataType, [&]<class From>() {
            if constexpr (std::is_same_v<To, From> || (std::is_integral_v<To> && std::is_integral_v<From>)) {
                // The bits alone decide: a copy, or an integer modulo 2^width (the low bits of a
                // narrower To; a wider To's sign or zero extension of From). One loop per width
                // (and per From where To is wider) serves every pair of types of those widths.
                using F = std::conditional_t<(sizeof(To) > sizeof(From)), From, bits_t<From>>;
                convert_bits_loop<bits_t<To>, F>(Y, X);
            } else {
                map_elements<To, From>(
                    Y, [](From x) { return cast_value<To>(x); }, X);
            }
        });
    });
}

// dmlref's defaults, whatever reading is in force: PADDING and DIAGONAL_MATRIX store their values
// through this under policies of their own (PaddingValueConversion, DiagonalValueConversion).
uint64_t cast_bits(DataType from, uint64_t bits, DataType to) { return convert_bits(from, bits, to, CastReading{}); }

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_cast(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto& d = get<DML_CAST_OPERATOR_DESC>(c.op.Desc);
    out.inputs.push_back(input_element(c, "InputTensor", nd_coordinate(d.OutputTensor.Sizes, flat), "x"));
    const DataType from = d.InputTensor.DataType, to = d.OutputTensor.DataType;
    out.facts.emplace_back("formula", "cast(x) from " + std::string(name(from)) + " to " + std::string(name(to)));
    std::string how;
    if (from == to) how = "the same type: the bits, unchanged";
    else if (is_float(from) && is_float(to)) {
        how = "the exact value rounded once to nearest-even (a NaN: quiet, sign and payload kept)";
        out.policies = {"CastFloatToFloat", "CastNaN", "Subnormals"};
    } else if (is_float(from)) {
        how = "truncated toward zero, saturated to the type's range; NaN gives 0";
        out.policies = {"CastFloatToInteger"};
    } else if (is_float(to)) {
        how = "the exact integer rounded once to nearest-even";
        out.policies = {"CastIntegerToFloat"};
    } else {
        how = "the integer modulo 2^width (two's complement)";
        out.policies = {"CastIntegerToInteger"};
    }
    out.facts.emplace_back("decided by", how);
    return true;
}

}  // namespace dmlref::reference
