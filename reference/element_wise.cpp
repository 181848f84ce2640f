// DML_OPERATOR_ELEMENT_WISE_ADD, _SUBTRACT, _MULTIPLY, _DIVIDE, _MAX, _MIN and _MEAN: the binary
// arithmetic operators.
//
// Spec: DirectML API reference, "DML_ELEMENT_WISE_ADD_OPERATOR_DESC structure" (and the pages of
// the same name for SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN and MEAN).
//
//   ADD        f(a, b) = a + b
//   SUBTRACT   f(a, b) = a - b
//   MULTIPLY   f(a, b) = a * b
//   DIVIDE     f(a, b) = a / b      "For integer divisions, the result is truncated."
//   MAX        f(a, b) = max(a, b)
//   MIN        f(a, b) = min(a, b)
//   MEAN       f(a, b) = (a + b) / 2
//   Each: ATensor, BTensor and OutputTensor must have the same DataType, DimensionCount and Sizes.
//
// DirectML broadcasts by strides: an input may have zero strides, any strides, or be the buffer the
// output is bound to (the page allows in-place execution); the loop reads every input through its
// own strides before it writes the element.
//
// Decisions (docs/golden.md, Decisions, recorded as policies in golden files):
//   - Float types: the exact sum rounded once to nearest-even. FLOAT16 and FLOAT32 operands are
//     added in float64 and the sum rounded to the type: a float64 sum of two such operands rounds
//     to the same value as the exact sum (a double rounding is innocuous when the wider format
//     has at least 2p + 2 bits: 53 >= 2 * 24 + 2; docs/golden.md, Element-wise). FLOAT64 is one
//     IEEE addition. Signed zeros follow IEEE 754: -0 + -0 = -0, x + -x = +0.
//   - A NaN result (a NaN operand, or inf + -inf) is the type's canonical quiet NaN
//     (NonFiniteSum=CanonicalNaN); judging lets any NaN match it.
//   - Integer types wrap to the width (IntegerOverflow=WrapToWidth): two's complement, as
//     DirectML's integer arithmetic on GPUs does. The alternative reading IntegerOverflow=Saturate
//     (the exact result clamped to the type's range) is a pass of its own (saturated_binary) for
//     ADD, ADD1, SUBTRACT, MULTIPLY, DIVIDE and DIFFERENCE_SQUARE; the typed loops are the default's.
// The other six (docs/golden.md, "Element-wise arithmetic"):
//   - SUBTRACT is ADD of -b: the same rounding, NaN and wrapping decisions.
//   - MULTIPLY: a product of two FLOAT16 or FLOAT32 values is exact in float64 (at most 2 * 24
//     significant bits, exponents far inside float64's range), so it is rounded once; FLOAT64 is
//     one IEEE multiplication. A NaN product (0 * inf, a NaN operand) is the canonical NaN
//     (NaNResult=CanonicalNaN). Integers wrap.
//   - DIVIDE: a FLOAT16 or FLOAT32 quotient is computed in float64 and rounded to the type, which is
//     the correctly rounded quotient (53 >= 2 * 24 + 2; docs/golden.md); FLOAT64 is one IEEE
//     division. x / 0 is the signed infinity, 0 / 0 and inf / inf the canonical NaN. Integers truncate
//     toward zero (the page); a zero divisor gives all bits set (IntegerDivisionByZero=AllBitsSet,
//     dmlref's decision); INT_MIN / -1 wraps to INT_MIN (IntegerOverflow=WrapToWidth).
//   - MAX and MIN select an operand and keep its bits. A NaN operand is ignored (D3D's min and max;
//     MinMaxNaN=IgnoreNaNOperand); both NaN give the canonical NaN. -0 orders below +0
//     (SignedZeroMinMax=NegativeZeroBelowPositiveZero): max(-0, +0) = +0, min(-0, +0) = -0.
//   - MEAN: (a + b) / 2 exact, rounded once; integers: the exact sum (no wrap) halved and truncated
//     toward zero (IntegerMean=ExactSumTruncated, dmlref's decision).
// MODULUS_TRUNCATE, MODULUS_FLOOR and DIFFERENCE_SQUARE (docs/golden.md, "Element-wise arithmetic"):
//   MODULUS_TRUNCATE  f(a, b) = a - (b * trunc(a / b))   "the C modulus": the sign of the dividend
//   MODULUS_FLOOR     f(a, b) = a - (b * floor(a / b))   "the Python modulus": the sign of the divisor
//   DIFFERENCE_SQUARE f(a, b) = (a - b) * (a - b)
//   - The moduli are exact real values of the formulas (the quotient is never rounded): fmod, which
//     is exact, for TRUNCATE; for FLOOR fmod plus b where the signs differ (one rounding), and a zero
//     result takes the divisor's sign (ModulusFloorZero=DivisorSign), as Python's. x mod 0 and
//     inf mod y are the canonical NaN; x mod inf is x (TRUNCATE; FLOOR: x, or inf where the signs
//     differ, Python's results). Integers: C's % and Python's %; a zero divisor gives all bits set
//     (IntegerDivisionByZero=AllBitsSet).
//   - DIFFERENCE_SQUARE: the exact square of the exact difference, rounded once (MPFR); integers wrap.
#include "element_wise.hpp"
#include "fused_activation.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"
#include "dmlref/working_types.hpp"

#include <mpfr.h>

#include <cmath>
#include <cstring>
#include <type_traits>

namespace dmlref::reference {

namespace {

template <class T> T add(T a, T b) {
    if constexpr (std::is_same_v<T, double>) {
        const double s = a + b;
        return s != s ? canonical_nan<double>() : s;
    } else if constexpr (is_floating_v<T>) {
        const double s = widen(a) + widen(b);
        return s != s ? canonical_nan<T>() : round_to_float<T>(s);
    } else {
        using U = std::make_unsigned_t<T>;
        return T(U(U(a) + U(b)));  // wraps to the width (C++20: the conversion is modulo 2^N)
    }
}

template <class T> T subtract(T a, T b) {
    if constexpr (std::is_same_v<T, double>) {
        const double s = a - b;
        return s != s ? canonical_nan<double>() : s;
    } else if constexpr (is_floating_v<T>) {
        const double s = widen(a) - widen(b);  // rounded once more to T: innocuous, as for ADD
        return s != s ? canonical_nan<T>() : round_to_float<T>(s);
    } else {
        using U = std::make_unsigned_t<T>;
        return T(U(U(a) - U(b)));
    }
}

template <class T> T multiply(T a, T b) {
    if constexpr (std::is_same_v<T, double>) {
        const double p = a * b;
        return p != p ? canonical_nan<double>() : p;
    } else if constexpr (is_floating_v<T>) {
        const double p = widen(a) * widen(b);  // exact: at most 48 significant bits
        return p != p ? canonical_nan<T>() : round_to_float<T>(p);
    } else {
        // Modulo 2^64 (a negative value converts to its two's complement), then to the width.
        using U = std::make_unsigned_t<T>;
        return T(U(uint64_t(a) * uint64_t(b)));
    }
}

template <class T> T divide(T a, T b) {
    if constexpr (std::is_same_v<T, double>) {
        const double q = a / b;
        return q != q ? canonical_nan<double>() : q;
    } else if constexpr (is_floating_v<T>) {
        const double q = widen(a) / widen(b);  // rounded twice, innocuously: 53 >= 2 * 24 + 2
        return q != q ? canonical_nan<T>() : round_to_float<T>(q);
    } else {
        using U = std::make_unsigned_t<T>;
        if (b == 0) return T(U(~U(0)));  // IntegerDivisionByZero=AllBitsSet
        if constexpr (std::is_signed_v<T>) return T(U(uint128_t(int128_t(a) / int128_t(b))));  // INT_MIN / -1 wraps
        else return T(a / b);
    }
}

// D3D's max and min: a NaN operand is ignored; -0 orders below +0; the chosen operand's bits.
template <class T> T maximum(T a, T b) {
    if constexpr (is_floating_v<T>) {
        const bool an = is_nan(a), bn = is_nan(b);
        if (an && bn) return canonical_nan<T>();
        if (an) return b;
        if (bn) return a;
        const double x = widen(a), y = widen(b);
        if (x == y) return std::signbit(x) ? b : a;  // +0 over -0; otherwise the same bits
        return x > y ? a : b;
    } else {
        return a > b ? a : b;
    }
}

template <class T> T minimum(T a, T b) {
    if constexpr (is_floating_v<T>) {
        const bool an = is_nan(a), bn = is_nan(b);
        if (an && bn) return canonical_nan<T>();
        if (an) return b;
        if (bn) return a;
        const double x = widen(a), y = widen(b);
        if (x == y) return std::signbit(x) ? a : b;  // -0 under +0; otherwise the same bits
        return x < y ? a : b;
    } else {
        return a < b ? a : b;
    }
}

template <class T> T mean(T a, T b) {
    if constexpr (std::is_same_v<T, double>) {
        // s = a + b rounded. Where |s| >= 2^-1021, halving is exact and commutes with the rounding;
        // below it, a + b is exact (both are multiples of 2^-1074 and the sum needs at most 53
        // bits), so s * 0.5 rounds once. A sum that overflows has two operands of at least 2^971:
        // their halves are exact and one addition rounds them once.
        const double s = a + b;
        if (s != s) return canonical_nan<double>();
        if (std::isinf(s) && std::isfinite(a) && std::isfinite(b)) return a * 0.5 + b * 0.5;
        return s * 0.5;
    } else if constexpr (is_floating_v<T>) {
        // The float64 sum is rounded, its half exactly so (no underflow in float64), and rounding
        // the half once more to T gives the once-rounded mean (53 >= 2 * 24 + 2).
        const double s = widen(a) + widen(b);
        return s != s ? canonical_nan<T>() : round_to_float<T>(s * 0.5);
    } else {
        return T((int128_t(a) + int128_t(b)) / 2);  // IntegerMean=ExactSumTruncated: always in range
    }
}

template <class T> T modulus_truncate(T a, T b) {
    if constexpr (is_floating_v<T>) {
        const double r = std::fmod(widen(a), widen(b));  // exact, a T value with a's sign
        return r != r ? canonical_nan<T>() : round_to_float<T>(r);
    } else {
        using U = std::make_unsigned_t<T>;
        if (b == 0) return T(U(~U(0)));       // IntegerDivisionByZero=AllBitsSet
        return T(int128_t(a) % int128_t(b));  // INT_MIN % -1 = 0
    }
}

template <class T> T modulus_floor(T a, T b) {
    if constexpr (is_floating_v<T>) {
        const double y = widen(b);
        double r = std::fmod(widen(a), y);
        if (r != r) return canonical_nan<T>();
        if (r == 0) return round_to_float<T>(std::copysign(0.0, y));  // ModulusFloorZero=DivisorSign
        if ((r < 0) != (y < 0)) r = r + y;  // one rounding (float64 first: innocuous, 53 >= 2p + 2)
        return round_to_float<T>(r);
    } else {
        using U = std::make_unsigned_t<T>;
        if (b == 0) return T(U(~U(0)));
        int128_t r = int128_t(a) % int128_t(b);
        if (r != 0 && ((r < 0) != (int128_t(b) < 0))) r += b;
        return T(r);
    }
}

// An exact non-zero MPFR value v rounded once to T's grid: below the smallest normal the fixed
// subnormal grid (2^-24, 2^-149, 2^-1074), ties to even; above it p bits (r has precision p).
// v is clobbered.
template <class T> T round_exact(mpfr_ptr v, mpfr_ptr r) {
    constexpr bool h = is_half_v<T>, f = std::is_same_v<T, float>;
    constexpr mpfr_exp_t normal = h ? -14 : f ? -126 : -1022;  // the smallest normal is 2^normal
    constexpr long grid = h ? 24 : f ? 149 : 1074;             // the subnormal spacing is 2^-grid
    if (mpfr_get_exp(v) <= normal) {
        mpfr_mul_2si(v, v, grid, MPFR_RNDN);
        mpfr_rint(v, v, MPFR_RNDN);  // nearest, ties to even
        mpfr_mul_2si(v, v, -grid, MPFR_RNDN);
        return round_to_float<T>(mpfr_get_d(v, MPFR_RNDN));  // exact
    }
    mpfr_set(r, v, MPFR_RNDN);                           // the one rounding, to p bits
    return round_to_float<T>(mpfr_get_d(r, MPFR_RNDN));  // exact (or beyond T's range: infinity)
}

// (a - b)^2 of two finite floats of T, exact in MPFR (the difference needs at most 2150 bits for
// FLOAT64, 300 for FLOAT32, 51 for FLOAT16; the square twice that), rounded once to T's grid:
// subnormals to the fixed grid 2^-1074, 2^-149 or 2^-24, ties to even.
template <class T> T exact_difference_square(T a, T b) {
    constexpr bool h = is_half_v<T>, f = std::is_same_v<T, float>;
    constexpr mpfr_prec_t p = h ? 11 : f ? 24 : 53;
    constexpr mpfr_prec_t wide = h ? 64 : f ? 320 : 2200;
    struct Registers {
        mpfr_t x, y, d, sq, r;
        Registers() {
            mpfr_inits2(64, x, y, (mpfr_ptr) nullptr);
            mpfr_init2(d, wide);
            mpfr_init2(sq, 2 * wide);
            mpfr_init2(r, p);
        }
        ~Registers() { mpfr_clears(x, y, d, sq, r, (mpfr_ptr) nullptr); }
    };
    thread_local Registers g;
    mpfr_set_d(g.x, widen(a), MPFR_RNDN);
    mpfr_set_d(g.y, widen(b), MPFR_RNDN);
    mpfr_sub(g.d, g.x, g.y, MPFR_RNDN);  // exact
    mpfr_sqr(g.sq, g.d, MPFR_RNDN);      // exact
    if (mpfr_zero_p(g.sq)) return T(0.0f);
    return round_exact<T>(g.sq, g.r);
}

// Scale * x + bias exact in MPFR (the product has at most 53 + 24 bits; the sum spans at most the
// exponent range of both), rounded once to T. Non-finite operands take IEEE's result (NaN: canonical).
template <class T> T scale_plus_bias(T x, float scale, float bias) {
    const double v = widen(x);
    if (!std::isfinite(v) || !std::isfinite(scale) || !std::isfinite(bias)) {
        const double r = v * double(scale) + double(bias);
        return r != r ? canonical_nan<T>() : round_to_float<T>(r);
    }
    constexpr mpfr_prec_t p = is_half_v<T> ? 11 : std::is_same_v<T, float> ? 24 : 53;
    struct Registers {
        mpfr_t x, product, sum, r;
        Registers() {
            mpfr_init2(x, 64);
            mpfr_init2(product, 128);
            mpfr_init2(sum, 2600);
            mpfr_init2(r, p);
        }
        ~Registers() { mpfr_clears(x, product, sum, r, (mpfr_ptr) nullptr); }
    };
    thread_local Registers g;
    mpfr_set_d(g.x, v, MPFR_RNDN);
    mpfr_mul_d(g.product, g.x, double(scale), MPFR_RNDN);   // exact
    mpfr_add_d(g.sum, g.product, double(bias), MPFR_RNDN);  // exact
    if (mpfr_zero_p(g.sum)) {
        // An exact zero: IEEE's sign of x * Scale + Bias (-0 only when both parts are -0).
        const bool negative = mpfr_zero_p(g.product) && std::signbit(v * double(scale)) && std::signbit(bias);
        return round_to_float<T>(negative ? -0.0 : 0.0);
    }
    return round_exact<T>(g.sum, g.r);
}

template <class T> T difference_square(T a, T b) {
    if constexpr (is_floating_v<T>) {
        if (is_nan(a) || is_nan(b)) return canonical_nan<T>();
        const double x = widen(a), y = widen(b);
        if (std::isinf(x) || std::isinf(y)) {
            const double d = x - y;  // inf - inf is NaN; otherwise an infinity, whose square is +inf
            return d != d ? canonical_nan<T>() : round_to_float<T>(d * d);
        }
        return exact_difference_square(a, b);
    } else {
        using U = std::make_unsigned_t<T>;
        const U d = U(U(a) - U(b));
        return T(U(uint64_t(d) * uint64_t(d)));  // (a - b)^2 modulo 2^N
    }
}

// Packed logical elements (row-major) written through a tensor's strides.
void write_packed(const TensorDesc& d, std::span<std::byte> buffer, const std::vector<std::byte>& packed) {
    auto put = [&]<class U>() {
        write_logical<U>(d, buffer, [&](uint64_t i) {
            U u;
            std::memcpy(&u, packed.data() + i * sizeof(U), sizeof(U));
            return u;
        });
    };
    switch (element_size(d.DataType)) {
        case 1: put.template operator()<uint8_t>(); break;
        case 2: put.template operator()<uint16_t>(); break;
        case 4: put.template operator()<uint32_t>(); break;
        default: put.template operator()<uint64_t>(); break;
    }
}

// IntegerOverflow=Saturate (docs/golden.md, "Alternative readings"): the exact integer result
// clamped to T's range. The builtins compute the exact result and say whether T holds it; where it
// does not, the exact result's sign picks the end.
template <class T> T add_saturate(T a, T b) {
    T r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}
template <class T> T subtract_saturate(T a, T b) {
    T r;
    if (!__builtin_sub_overflow(a, b, &r)) return r;
    return b > 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}
template <class T> T multiply_saturate(T a, T b) {
    T r;
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    return (a < 0) != (b < 0) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}
template <class T> T divide_saturate(T a, T b) {
    if constexpr (std::is_signed_v<T>)  // the one quotient beyond the range: INT_MIN / -1
        if (a == std::numeric_limits<T>::min() && b == T(-1)) return std::numeric_limits<T>::max();
    return divide(a, b);
}
template <class T> T difference_square_saturate(T a, T b) {
    const int128_t d = int128_t(a) - int128_t(b);  // exact: |d| < 2^65
    const uint128_t m = uint128_t(d < 0 ? -d : d);
    uint128_t sq;
    if (__builtin_mul_overflow(m, m, &sq) || sq > uint128_t(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return T(sq);
}

// Under IntegerOverflow=Saturate, an integer operator's OutputTensor as g of the logical elements
// of ATensor and BTensor, in one packed pass (both read before anything is written: in place is
// safe), written through the output's strides; false (nothing done) otherwise. The typed strided
// loops stay the default's alone: the reading adds one small loop per integer type, not a branch
// in every loop.
template <class D, class G> bool saturated_binary(const D& d, const Bindings& b, G g) {
    const DataType t = d.OutputTensor.DataType;
    if (is_float(t) || !in_force<"IntegerOverflow", "Saturate">()) return false;
    const std::vector<std::byte> a = gather_logical(d.ATensor, b.at("ATensor"));
    const std::vector<std::byte> x = gather_logical(d.BTensor, b.at("BTensor"));
    std::vector<std::byte> y(a.size());
    dispatch(t, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
            for (size_t i = 0; i + sizeof(T) <= y.size(); i += sizeof(T)) {
                T u, v;
                std::memcpy(&u, a.data() + i, sizeof(T));
                std::memcpy(&v, x.data() + i, sizeof(T));
                const T r = g(u, v);
                std::memcpy(y.data() + i, &r, sizeof(T));
            }
        }
    });
    write_packed(d.OutputTensor, b.at("OutputTensor"), y);
    return true;
}

// Y = f(a, x) over A and B, each element read through its own strides before it is written (zero
// strides broadcast; in place). A function template of its own, so that every caller with the same
// element type and f shares the loop.
template <class R, class F> void ew_binary_loop(const TensorView& Y, const TensorView& A, const TensorView& B, F f) {
    map_elements<R, R, R>(
        Y, [&](R a, R x) { return f(a, x); }, A, B);
}

// The integer ADD, SUBTRACT, MULTIPLY and DIFFERENCE_SQUARE keep the low bits of the exact result,
// computed in the unsigned type of the width (add, subtract, multiply, difference_square above):
// a signed type gives the bits its unsigned twin gives, so both run its twin's loop.
template <class T> using ew_wrapping_t = std::conditional_t<std::is_integral_v<T>, bits_t<T>, T>;

}  // namespace

void validate(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, Diagnostics& diags) {
    // "ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes."
    const std::initializer_list<Named> all = {
        {"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, "add.same-data-type");
    require_same_sizes(diags, all, "add.same-sizes");
}

void evaluate(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView A(d.ATensor, b.at("ATensor"));
    const TensorView B(d.BTensor, b.at("BTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    if (saturated_binary(d, b, [](auto a, auto x) { return add_saturate(a, x); })) return;
    const auto f = [](auto a, auto x) { return add(a, x); };  // one type for every T: shared loops
    dispatch(d.OutputTensor.DataType, [&]<class T>() { ew_binary_loop<ew_wrapping_t<T>>(Y, A, B, f); });
}

// ---- SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN, MEAN --------------------------------------------

namespace {

// "ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes."
template <class D>
void validate_binary(const D& d, Diagnostics& diags, std::string_view same_type, std::string_view same_sizes) {
    const std::initializer_list<Named> all = {
        {"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, same_type);
    require_same_sizes(diags, all, same_sizes);
}

// Every element of OutputTensor from the elements of ATensor and BTensor at its coordinate, each
// read through its own strides before the element is written (zero strides broadcast; in place).
// Wrapping: the integer types run their unsigned twin's loop (ew_wrapping_t).
template <bool Wrapping = false, class D, class F> void evaluate_binary(const D& d, const Bindings& b, F f) {
    const TensorView A(d.ATensor, b.at("ATensor"));
    const TensorView B(d.BTensor, b.at("BTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    dispatch(d.OutputTensor.DataType, [&]<class T>() {
        using R = std::conditional_t<Wrapping, ew_wrapping_t<T>, T>;
        ew_binary_loop<R>(Y, A, B, f);
    });
}

}  // namespace

void validate(const DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "subtract.same-data-type", "subtract.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC& d, const Bindings& b) {
    if (saturated_binary(d, b, [](auto a, auto x) { return subtract_saturate(a, x); })) return;
    evaluate_binary<true>(d, b, [](auto a, auto x) { return subtract(a, x); });
}
void validate(const DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "multiply.same-data-type", "multiply.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC& d, const Bindings& b) {
    if (saturated_binary(d, b, [](auto a, auto x) { return multiply_saturate(a, x); })) return;
    evaluate_binary<true>(d, b, [](auto a, auto x) { return multiply(a, x); });
}
void validate(const DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "divide.same-data-type", "divide.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC& d, const Bindings& b) {
    if (saturated_binary(d, b, [](auto a, auto x) { return divide_saturate(a, x); })) return;
    evaluate_binary(d, b, [](auto a, auto x) { return divide(a, x); });
}
void validate(const DML_ELEMENT_WISE_MAX_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "max.same-data-type", "max.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_MAX_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_binary(d, b, [](auto a, auto x) { return maximum(a, x); });
}
void validate(const DML_ELEMENT_WISE_MIN_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "min.same-data-type", "min.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_MIN_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_binary(d, b, [](auto a, auto x) { return minimum(a, x); });
}
void validate(const DML_ELEMENT_WISE_MEAN_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "mean.same-data-type", "mean.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_MEAN_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_binary(d, b, [](auto a, auto x) { return mean(a, x); });
}

void validate(const DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "modulus-truncate.same-data-type", "modulus-truncate.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_binary(d, b, [](auto a, auto x) { return modulus_truncate(a, x); });
}
void validate(const DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "modulus-floor.same-data-type", "modulus-floor.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_binary(d, b, [](auto a, auto x) { return modulus_floor(a, x); });
}
void validate(const DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "difference-square.same-data-type", "difference-square.same-sizes");
}
void evaluate(const DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC& d, const Bindings& b) {
    if (saturated_binary(d, b, [](auto a, auto x) { return difference_square_saturate(a, x); })) return;
    evaluate_binary<true>(d, b, [](auto a, auto x) { return difference_square(a, x); });
}

// ---- ADD1 ----------------------------------------------------------------------------------
//
// Spec: "DML_ELEMENT_WISE_ADD1_OPERATOR_DESC structure": f(a, b) = FusedActivation(a + b); "Fused
// activation may be used only when the output datatype is FLOAT16 or FLOAT32" (add1.fused-activation-type).
// Decision (FusedActivationInput=RoundedSum, as batch normalization's): the activation applies to the
// sum already rounded to the output type (ADD's golden), and its result is rounded once more
// (reference/fused_activation.hpp). Without FusedActivation ADD1 is ADD.

void validate(const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_binary(d, diags, "add1.same-data-type", "add1.same-sizes");
    if (!d.FusedActivation) return;
    const DataType t = d.OutputTensor.DataType;
    if (is_valid(t) && t != DataType::FLOAT32 && t != DataType::FLOAT16)
        diags.error("/desc/FusedActivation", "add1.fused-activation-type",
                    "FusedActivation is given for " + std::string(name(t)) +
                        " data; it may be used only when the output datatype is FLOAT16 or FLOAT32");
    validate_fused_activation(diags, *d.FusedActivation, "add1");
}

void evaluate(const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC& d, const Bindings& b) {
    const std::optional<DML_FUSED_ACTIVATION> a = d.FusedActivation;
    // Integers (no activation there) under IntegerOverflow=Saturate.
    if (saturated_binary(d, b, [](auto x, auto y) { return add_saturate(x, y); })) return;
    evaluate_binary(d, b, [&](auto x, auto y) {
        const auto sum = add(x, y);
        return a ? fused_activation(*a, sum) : sum;
    });
}

// Each float element: the backend adds in a working type w the profile admits (the output type,
// FLOAT32, FLOAT64), rounding to nearest: |fl_w(a + b) - (a + b)| <= u_w |a + b| + eta_w, then rounds
// to the output when w is wider; the activation's error over that interval (fused_activation_error,
// docs/tolerance.md, "Fused activations"), plus its own rounding to the output when w is wider.
// Without an activation this is the sum's own error (ADD's two-term bound is the same figure).
void add1_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const auto& d = get<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(op.Desc);
    const DataType t = d.OutputTensor.DataType;
    const std::vector<double> a = logical_doubles(d.ATensor, input("ATensor"));
    const std::vector<double> b = logical_doubles(d.BTensor, input("BTensor"));
    const std::vector<DataType> ws = working_types(p, t);  // the working types the profile admits
    const bool flush = p.flush_subnormals;
    auto eta = [&](DataType w) { return flush ? smallest_normal(w) : subnormal_rounding_error(w); };
    for (uint64_t e = 0; e < a.size() && e < b.size(); ++e) {
        const double y = a[e] + b[e];  // within 2^-53 |y| of the exact sum (fused_activation_error widens by 2^-50)
        if (y != y || std::isinf(y)) {
            sink.set_computed(e, 0, std::fabs(y), 2, y != y, std::isinf(y));
            continue;
        }
        double worst = 0;
        for (DataType w : ws) {
            // The sum in w, then (w wider than t) its rounding to t; the golden's own rounding of the sum.
            double pre = unit_roundoff(w) * std::fabs(y) + eta(w);
            if (w != t) pre += unit_roundoff(t) * (std::fabs(y) + pre) + eta(t);
            double err = pre;
            if (d.FusedActivation && d.FusedActivation->name() != "ACTIVATION_IDENTITY") {
                const double golden_pre = unit_roundoff(t) * std::fabs(y) + eta(t);
                const ActivationError r = fused_activation_error(*d.FusedActivation, y, pre + golden_pre, w, flush);
                err = r.error;
                if (std::isfinite(err) && w != t) err += unit_roundoff(t) * (r.magnitude + r.error) + eta(t);
            }
            worst = std::max(worst, err * (1 + 1e-9));
        }
        sink.set_computed(e, worst, std::fabs(a[e]) + std::fabs(b[e]), 2);
    }
}

// ---- VALUE_SCALE_2D ------------------------------------------------------------------------
//
// Spec: "DML_VALUE_SCALE_2D_OPERATOR_DESC structure": Output = Scale * Input + Bias, "a different
// bias for each channel"; the input's dimensions "should be { BatchCount, ChannelCount, Height,
// Width }"; ChannelCount "must be set to either 1 or 3, and must also match the size of the
// Channel dimension of the input tensor"; Bias holds ChannelCount values; InputTensor and
// OutputTensor "must have the same DataType and Sizes"; FLOAT32 and FLOAT16 (dmlref: FLOAT64 too).
// The golden is the exact Scale * x + Bias[c] rounded once (no fused or unfused intermediate);
// integer data is an error (value-scale-2d.float-data: the page defines float data only).

void validate(const DML_VALUE_SCALE_2D_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, "value-scale-2d.same-data-type");
    require_same_sizes(diags, all, "value-scale-2d.same-sizes");
    if (is_valid(d.InputTensor.DataType) && !is_float(d.InputTensor.DataType))
        diags.error("/desc/InputTensor/DataType", "value-scale-2d.float-data",
                    "InputTensor.DataType is " + std::string(name(d.InputTensor.DataType)) +
                        "; the page defines Scale * Input + Bias for FLOAT32 and FLOAT16 data (dmlref: FLOAT64 too)");
    if (d.InputTensor.Sizes.size() != 4) {
        diags.error("/desc/InputTensor/Sizes", "value-scale-2d.dimension-count",
                    "InputTensor has " + std::to_string(d.InputTensor.Sizes.size()) +
                        " dimensions; they should be { BatchCount, ChannelCount, Height, Width }");
        return;
    }
    if ((d.ChannelCount != 1 && d.ChannelCount != 3) || d.ChannelCount != d.InputTensor.Sizes[1])
        diags.error("/desc/ChannelCount", "value-scale-2d.channel-count",
                    "ChannelCount is " + std::to_string(d.ChannelCount) +
                        "; it must be 1 or 3 and match InputTensor.Sizes[1] (" +
                        std::to_string(d.InputTensor.Sizes[1]) + ")");
    if (d.Bias.size() != d.ChannelCount)
        diags.error("/desc/Bias", "value-scale-2d.bias-length",
                    "Bias has " + std::to_string(d.Bias.size()) + " values; it must have ChannelCount (" +
                        std::to_string(d.ChannelCount) + ")");
}

void evaluate(const DML_VALUE_SCALE_2D_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const auto& n = d.InputTensor.Sizes;
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        if constexpr (is_floating_v<T>) {
            for (uint32_t i0 = 0; i0 < n[0]; ++i0)
                for (uint32_t c = 0; c < n[1]; ++c)
                    for (uint32_t i2 = 0; i2 < n[2]; ++i2)
                        for (uint32_t i3 = 0; i3 < n[3]; ++i3) {
                            const int64_t xo = i0 * X.strides[0] + c * X.strides[1] + i2 * X.strides[2] +
                                               i3 * X.strides[3];
                            const int64_t yo = i0 * Y.strides[0] + c * Y.strides[1] + i2 * Y.strides[2] +
                                               i3 * Y.strides[3];
                            Y.data<T>()[yo] = scale_plus_bias(X.data<T>()[xo], d.Scale, d.Bias[c]);
                        }
        }
    });
}

// The judge's terms (docs/tolerance.md, "VALUE_SCALE_2D"): x * Scale, which a backend rounds, and
// Bias[c] (as 1 * Bias[c], rounded to the working type). For FLOAT16 data a backend may hold Scale
// and Bias in FLOAT16: their weights may differ from the FLOAT values by that rounding.
void value_scale_2d_terms(const Case& c, std::string_view, const ArithmeticProfile&, TermSink& sink) {
    const auto& d = get<DML_VALUE_SCALE_2D_OPERATOR_DESC>(c.op.Desc);
    const auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end()) throw std::invalid_argument("no InputTensor");
    const std::vector<double> x = logical_doubles(d.InputTensor, in->second);
    const bool half_data = d.InputTensor.DataType == DataType::FLOAT16;
    auto delta = [&](float w) {
        return half_data ? std::fabs(double(w) - half_to_double(half_from_double(double(w)))) : 0.0;
    };
    const uint64_t plane = uint64_t(d.InputTensor.Sizes[2]) * d.InputTensor.Sizes[3];
    for (uint64_t e = 0; e < x.size(); ++e) {
        const uint32_t ch = uint32_t((e / plane) % d.InputTensor.Sizes[1]);
        sink.add(e, x[e], double(d.Scale), delta(d.Scale), true);
        sink.add(e, 1.0, double(d.Bias[ch]), delta(d.Bias[ch]), true);
    }
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The two operands, the formula, and what decided the element: the exact result rounded once, a
// NaN, the integer rule, or the operand a selection chose.
bool explain_element_wise(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const OperatorType op = c.op.Type;
    const TensorDesc* output = nullptr;
    for (const auto& f : tensor_fields(c.op))
        if (f.name == "OutputTensor") output = f.desc;
    if (!output) return false;
    const std::vector<uint64_t> at = nd_coordinate(output->Sizes, flat);
    const ExplainedInput a = input_element(c, "ATensor", at, "a");
    const ExplainedInput b = input_element(c, "BTensor", at, "b");
    out.inputs.push_back(a);
    out.inputs.push_back(b);
    const DataType t = output->DataType;
    const bool selects = op == OperatorType::ELEMENT_WISE_MAX || op == OperatorType::ELEMENT_WISE_MIN;
    const char* formula = op == OperatorType::ELEMENT_WISE_ADD ? "a + b"
                          : op == OperatorType::ELEMENT_WISE_ADD1
                              ? "FusedActivation(a + b): the activation of the rounded sum"
                          : op == OperatorType::ELEMENT_WISE_SUBTRACT ? "a - b"
                          : op == OperatorType::ELEMENT_WISE_MULTIPLY ? "a * b"
                          : op == OperatorType::ELEMENT_WISE_DIVIDE
                              ? (is_float(t) ? "a / b" : "a / b, truncated toward zero")
                          : op == OperatorType::ELEMENT_WISE_MAX               ? "max(a, b)"
                          : op == OperatorType::ELEMENT_WISE_MIN               ? "min(a, b)"
                          : op == OperatorType::ELEMENT_WISE_MODULUS_TRUNCATE  ? "a - (b * trunc(a / b)), exact"
                          : op == OperatorType::ELEMENT_WISE_MODULUS_FLOOR     ? "a - (b * floor(a / b)), exact"
                          : op == OperatorType::ELEMENT_WISE_DIFFERENCE_SQUARE ? "(a - b) * (a - b)"
                                                                               : "(a + b) / 2";
    out.facts.emplace_back("formula", formula);
    const bool sum_like = op == OperatorType::ELEMENT_WISE_ADD || op == OperatorType::ELEMENT_WISE_ADD1 ||
                          op == OperatorType::ELEMENT_WISE_SUBTRACT || op == OperatorType::ELEMENT_WISE_MEAN;
    if (is_float(t)) {
        const double x = element_value(t, a.bits), y = element_value(t, b.bits);
        if (selects) {
            if (x != x && y != y) out.facts.emplace_back("decided by", "both operands NaN: the type's canonical NaN");
            else if (x != x || y != y)
                out.facts.emplace_back("decided by", "a NaN operand is ignored: the other operand's bits");
            else if (x == y && std::signbit(x) != std::signbit(y))
                out.facts.emplace_back("decided by", "-0 orders below +0");
            else out.facts.emplace_back("decided by", "the chosen operand's bits");
            out.policies.push_back("MinMaxNaN");
            out.policies.push_back("SignedZeroMinMax");
        } else {
            const double r = op == OperatorType::ELEMENT_WISE_ADD || op == OperatorType::ELEMENT_WISE_ADD1 ? x + y
                             : op == OperatorType::ELEMENT_WISE_SUBTRACT                                   ? x - y
                             : op == OperatorType::ELEMENT_WISE_MULTIPLY                                   ? x * y
                             : op == OperatorType::ELEMENT_WISE_DIVIDE                                     ? x / y
                             : op == OperatorType::ELEMENT_WISE_MODULUS_TRUNCATE ||
                                     op == OperatorType::ELEMENT_WISE_MODULUS_FLOOR
                                 ? std::fmod(x, y)
                             : op == OperatorType::ELEMENT_WISE_DIFFERENCE_SQUARE ? (x - y) * (x - y)
                                                                                  : x + y;
            out.facts.emplace_back("decided by", r != r ? std::string("a NaN result: the type's canonical NaN")
                                                        : "the exact result, rounded once to nearest-even");
            out.policies.push_back(sum_like ? "NonFiniteSum" : "NaNResult");
        }
    } else if (selects) {
        out.facts.emplace_back("decided by", "the chosen operand");
    } else if (op == OperatorType::ELEMENT_WISE_DIVIDE || op == OperatorType::ELEMENT_WISE_MODULUS_TRUNCATE ||
               op == OperatorType::ELEMENT_WISE_MODULUS_FLOOR) {
        const bool zero = b.bits == 0;
        const char* rule = op == OperatorType::ELEMENT_WISE_DIVIDE
                               ? "the quotient truncated toward zero, wrapped to the width"
                           : op == OperatorType::ELEMENT_WISE_MODULUS_TRUNCATE
                               ? "C's remainder: the dividend's sign"
                               : "Python's remainder: the divisor's sign";
        out.facts.emplace_back("decided by", zero ? "a zero divisor: all bits set" : rule);
        out.policies.push_back(zero ? "IntegerDivisionByZero" : "IntegerOverflow");
    } else if (op == OperatorType::ELEMENT_WISE_MEAN) {
        out.facts.emplace_back("decided by", "the exact sum halved, truncated toward zero");
        out.policies.push_back("IntegerMean");
    } else {
        out.facts.emplace_back("decided by", "the integer result, wrapped to the type's width");
        out.policies.push_back("IntegerOverflow");
    }
    return true;
}

// VALUE_SCALE_2D: the input element, Scale and its channel's Bias.
bool explain_value_scale_2d(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_VALUE_SCALE_2D_OPERATOR_DESC>(&c.op.Desc);
    if (!d || d->InputTensor.Sizes.size() != 4) return false;
    const std::vector<uint64_t> at = nd_coordinate(d->InputTensor.Sizes, flat);
    out.inputs.push_back(input_element(c, "InputTensor", at, "x"));
    out.facts.emplace_back("formula", "Scale * x + Bias[c], exact, rounded once");
    out.facts.emplace_back("Scale", format_exact_value(DataType::FLOAT32, to_bits(d->Scale)));
    if (at[1] < d->Bias.size())
        out.facts.emplace_back("Bias[c]", "c = " + std::to_string(at[1]) + ": " +
                                              format_exact_value(DataType::FLOAT32, to_bits(d->Bias[at[1]])));
    out.facts.emplace_back("decided by", "the exact value rounded once to nearest-even (a NaN: the canonical NaN)");
    out.policies.push_back("ComputedValue");
    return true;
}

}  // namespace dmlref::reference
