// DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, _LOGICAL_GREATER_THAN, _LOGICAL_LESS_THAN,
// _LOGICAL_GREATER_THAN_OR_EQUAL, _LOGICAL_LESS_THAN_OR_EQUAL, _LOGICAL_AND, _LOGICAL_OR,
// _LOGICAL_XOR, _LOGICAL_NOT, _IS_NAN, _IS_INFINITY, _IF, _BIT_AND, _BIT_OR, _BIT_XOR, _BIT_NOT,
// _BIT_COUNT, _BIT_SHIFT_LEFT and _BIT_SHIFT_RIGHT.
//
// Spec: DirectML API reference, "DML_ELEMENT_WISE_<OP>_OPERATOR_DESC structure" for each.
//
//   comparisons   f(a, b) = (a == b), (a > b), (a < b), (a >= b), (a <= b)   "1 for true, 0 for false"
//                 A and B: one DataType; A, B, Output: one DimensionCount and Sizes
//   logical       f(a, b) = a && b, a || b, a xor b; f(x) = !x                 one DataType, Sizes
//   IS_NAN        f(x) = isnan(x)                                               one Sizes
//   IS_INFINITY   f(x) = isinf(x) && ((x > 0 && POSITIVE) || (x < 0 && NEGATIVE) || EITHER)
//   IF            f(cond, a, b) = cond != 0 ? a : b                             A, B, Output: one DataType
//   bitwise       a & b, a | b, a ^ b, ~x, popcount(x), a << b, a >> b on the native encoding
//                 ("the tensor data type is ignored except for determining the width of each element");
//                 BIT_COUNT's output may have another DataType
//
// Every input is read through its own strides (zero strides broadcast), and an output bound to an
// input's buffer (the pages of LOGICAL_AND, _OR, _XOR, _NOT and the bitwise operators but
// BIT_COUNT allow it) reads each element before it writes it: map_elements in
// include/dmlref/tensor.hpp.
//
// Decisions (docs/golden.md, "Element-wise logic"; recorded as policies in golden files):
//   - Comparisons compare exact values in the inputs' own type (exact_compare in
//     include/dmlref/numeric.hpp): NaN compares false, -0 == +0, INT64 and UINT64 never through a
//     double, subnormals never flushed (Subnormals=Preserve).
//   - "1 for true, 0 for false" is the value 1 or +0 of the output's DataType, whatever it is
//     (BooleanOutput=OneOrZeroOfOutputType): the tables list UINT8 and UINT32; dmlref writes the
//     same values to every type (FLOAT16 1 is 0x3c00).
//   - The logical operators take an element as true when it is not zero
//     (LogicalTruth=NonzeroIsTrue): 2 && 1 = 1, !2 = 0; for floats -0 is false and NaN true.
//   - IF selects A where the condition is not zero (IfCondition=NonzeroSelectsA; a float
//     condition of -0 selects B, NaN and subnormals select A); the selected element's bits are
//     copied (NaN payloads, -0).
//   - IS_NAN and IS_INFINITY of an integer element are 0 (no integer is NaN or infinite); every NaN
//     encoding (quiet or signalling, any sign and payload) is NaN.
//   - The bitwise operators read and write bits: a float's bits pass as they are, no NaN quieted
//     and no subnormal flushed (BitwiseFloats=RawBits).
//   - A shift count is BTensor's element read as an unsigned integer of the element's width; a
//     count of the width or more shifts every bit out and gives 0 (ShiftCount=AtLeastWidthGivesZero).
//   - Signed (and float) elements shift as their bit pattern: the right shift is logical, zeros come
//     in at the top, and a negative count is a large unsigned one (SignedShift=LogicalOnBits).
#include "element_wise_logic.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"

#include <bit>
#include <cstring>
#include <type_traits>

namespace dmlref::reference {

using namespace logic_desc;
using OT = OperatorType;

std::string_view logic_rule_prefix(OperatorType t) {
    switch (t) {
        case OT::ELEMENT_WISE_LOGICAL_EQUALS: return "logical-equals";
        case OT::ELEMENT_WISE_LOGICAL_GREATER_THAN: return "logical-greater-than";
        case OT::ELEMENT_WISE_LOGICAL_LESS_THAN: return "logical-less-than";
        case OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL: return "logical-greater-than-or-equal";
        case OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL: return "logical-less-than-or-equal";
        case OT::ELEMENT_WISE_LOGICAL_AND: return "logical-and";
        case OT::ELEMENT_WISE_LOGICAL_OR: return "logical-or";
        case OT::ELEMENT_WISE_LOGICAL_XOR: return "logical-xor";
        case OT::ELEMENT_WISE_LOGICAL_NOT: return "logical-not";
        case OT::ELEMENT_WISE_IS_NAN: return "is-nan";
        case OT::ELEMENT_WISE_IS_INFINITY: return "is-infinity";
        case OT::ELEMENT_WISE_IF: return "if";
        case OT::ELEMENT_WISE_BIT_AND: return "bit-and";
        case OT::ELEMENT_WISE_BIT_OR: return "bit-or";
        case OT::ELEMENT_WISE_BIT_XOR: return "bit-xor";
        case OT::ELEMENT_WISE_BIT_NOT: return "bit-not";
        case OT::ELEMENT_WISE_BIT_COUNT: return "bit-count";
        case OT::ELEMENT_WISE_BIT_SHIFT_LEFT: return "bit-shift-left";
        case OT::ELEMENT_WISE_BIT_SHIFT_RIGHT: return "bit-shift-right";
        default: return "";
    }
}

namespace {

std::string logic_rule(OperatorType t, std::string_view r) {
    return std::string(logic_rule_prefix(t)) + "." + std::string(r);
}

constexpr bool is_comparison(OT t) {
    return t == OT::ELEMENT_WISE_LOGICAL_EQUALS || t == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN ||
           t == OT::ELEMENT_WISE_LOGICAL_LESS_THAN || t == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL ||
           t == OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL;
}

// The unsigned integer of a width in bytes: bitwise operators and copied bits work on it.
template <size_t N> struct uint_of_size;
template <> struct uint_of_size<1> { using type = uint8_t; };
template <> struct uint_of_size<2> { using type = uint16_t; };
template <> struct uint_of_size<4> { using type = uint32_t; };
template <> struct uint_of_size<8> { using type = uint64_t; };
template <class T> using uint_of = typename uint_of_size<sizeof(T)>::type;

// Calls f.template operator()<U>() with U the unsigned integer of t's width.
template <class F> decltype(auto) dispatch_width(DataType t, F&& f) {
    switch (element_size(t)) {
        case 1: return f.template operator()<uint8_t>();
        case 2: return f.template operator()<uint16_t>();
        case 4: return f.template operator()<uint32_t>();
        default: return f.template operator()<uint64_t>();
    }
}

// The bits of the small non-negative integer k as an element of t: k itself for integers, the
// exact float k for floats (every k <= 64 is exact in FLOAT16), +0 for k = 0.
uint64_t value_bits(DataType t, unsigned k) {
    return dispatch(t, [&]<class T>() -> uint64_t {
        if constexpr (is_floating_v<T>) return uint64_t(to_bits(round_to_float<T>(double(k))));
        else return uint64_t(uint_of<T>(T(k)));
    });
}

// The bits of true as an element of t: 1 of the type (BooleanOutput=OneOrZeroOfOutputType), or
// every bit of its width set (BooleanOutput=AllOnes, docs/golden.md "Alternative readings").
uint64_t true_bits(DataType t) {
    if (!in_force<"BooleanOutput", "AllOnes">()) return value_bits(t, 1);
    return element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1;
}

// An element as a truth value: not zero. For floats: its value is not +-0 (NaN is not zero).
template <class T> bool nonzero(T x) {
    if constexpr (is_floating_v<T>) return !(widen(x) == 0.0);
    else return x != T(0);
}

template <OT Op, class T> bool compare(T a, T b) {
    if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_EQUALS)
        return exact_compare(a, b) == std::partial_ordering::equivalent;
    else if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN) return exact_gt(a, b);
    else if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_LESS_THAN) return exact_lt(a, b);
    else if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL) return exact_ge(a, b);
    else return exact_le(a, b);
}

template <OT Op> bool logical(bool a, bool b) {
    if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_AND) return a && b;
    else if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_OR) return a || b;
    else return a != b;  // LOGICAL_XOR
}

// a << b and a >> b on W's bits; b is the count as an unsigned integer of the width.
template <OT Op, class W> W shift(W a, W b) {
    constexpr W width = W(sizeof(W) * 8);
    if (b >= width) return W(0);  // ShiftCount=AtLeastWidthGivesZero
    if constexpr (Op == OT::ELEMENT_WISE_BIT_SHIFT_LEFT) return W(a << b);
    else return W(a >> b);  // W is unsigned: a logical shift (SignedShift=LogicalOnBits)
}

template <OT Op, class W> W bitwise(W a, W b) {
    if constexpr (Op == OT::ELEMENT_WISE_BIT_AND) return W(a & b);
    else if constexpr (Op == OT::ELEMENT_WISE_BIT_OR) return W(a | b);
    else if constexpr (Op == OT::ELEMENT_WISE_BIT_XOR) return W(a ^ b);
    else return shift<Op>(a, b);
}

void require_same_sizes_of(OT op, Diagnostics& diags, std::initializer_list<Named> all) {
    require_same_sizes(diags, all, logic_rule(op, "same-sizes"));
}

// ---- The loops, shared between operators and types ---------------------------------------------
// Each loop below is a function template of its own, outside evaluate, so that every operator and
// element type that needs the same loop calls one instantiation of it (a lambda inside evaluate<Op>
// would be a new type, and a new loop, for every Op and every type dispatched). The per-element
// code of each loop is the one it replaces, so the loops run as fast as before; only the number of
// loops compiled falls.

// An element as a truth value reads the same through the unsigned integer of its width for every
// integer type (x != 0 holds for the same bits): integers of one width share one loop.
template <class T> using logic_truth_t = std::conditional_t<is_floating_v<T>, T, uint_of<T>>;

// Y = compare<Cmp>(a, b) ? one : zero. GREATER_THAN and GREATER_THAN_OR_EQUAL call the loops of
// LESS_THAN and LESS_THAN_OR_EQUAL with A and B exchanged (exact_gt(a, b) is exact_lt(b, a),
// exact_ge(a, b) is exact_le(b, a): include/dmlref/numeric.hpp).
template <OT Cmp, class U, class T>
void logic_compare_loop(const TensorView& Y, const TensorView& A, const TensorView& B, U one, U zero) {
    map_elements<U, T, T>(
        Y, [=](T x, T y) { return compare<Cmp>(x, y) ? one : zero; }, A, B);
}

// A 2- or 8-byte OutputTensor of a comparison, IS_NAN or IS_INFINITY (DirectML's tables have UINT32
// and UINT8 outputs only): to_bytes writes each element's truth as a byte, 1 or 0, into a packed
// tensor of Y's sizes through the byte loops, and one loop per width widens those to one or zero.
// The loops of the two widths are not compiled for every operator and input type; such outputs take
// one pass more.
template <class U> void logic_widen_loop(const TensorView& Y, const TensorView& T, U one, U zero) {
    map_elements<U, uint8_t>(
        Y, [=](uint8_t t) { return t ? one : zero; }, T);
}

template <class U, class F> void logic_through_bytes(const TensorView& Y, U one, U zero, F&& to_bytes) {
    const TensorDesc truth_desc{.DataType = DataType::UINT8, .Sizes = Y.sizes()};
    std::vector<std::byte> truth(element_count(truth_desc));
    const TensorView T(truth_desc, std::span<std::byte>(truth));
    to_bytes(T);
    logic_widen_loop<U>(Y, T, one, zero);
}

// The outputs whose loops are compiled for every input type: one byte and four (UINT8 and UINT32).
template <class U> constexpr bool logic_direct_width = sizeof(U) == 1 || sizeof(U) == 4;

template <OT Op, class U, class T>
void logic_logical_loop(const TensorView& Y, const TensorView& A, const TensorView& B, U one, U zero) {
    map_elements<U, T, T>(
        Y, [=](T x, T y) { return logical<Op>(nonzero(x), nonzero(y)) ? one : zero; }, A, B);
}

template <class U, class T> void logic_not_loop(const TensorView& Y, const TensorView& X, U one, U zero) {
    map_elements<U, T>(
        Y, [=](T x) { return nonzero(x) ? zero : one; }, X);
}

// Every element of Y set to v: IS_NAN and IS_INFINITY of an integer input (never NaN nor infinite).
template <class U> void logic_fill_loop(const TensorView& Y, U v) {
    map_elements<U>(Y, [=]() { return v; });
}

template <class U, class T> void logic_is_nan_loop(const TensorView& Y, const TensorView& X, U one, U zero) {
    map_elements<U, T>(
        Y, [=](T x) { return is_nan(x) ? one : zero; }, X);
}

template <class U, class T>
void logic_is_infinity_loop(const TensorView& Y, const TensorView& X, U one, U zero, bool positive, bool negative) {
    map_elements<U, T>(
        Y,
        [=](T x) {
        const double v = widen(x);
        return (v == std::numeric_limits<double>::infinity() && positive) ||
                       (v == -std::numeric_limits<double>::infinity() && negative)
                   ? one
                   : zero;
        },
        X);
}

template <class W, class T>
void logic_if_loop(const TensorView& Y, const TensorView& C, const TensorView& A, const TensorView& B,
                   bool nan_selects_b) {
    map_elements<W, T, W, W>(
        Y, [=](T c, W a, W x) { return nonzero(c) && !(nan_selects_b && is_nan(c)) ? a : x; }, C, A, B);
}

}  // namespace

// ---- ATensor, BTensor -> OutputTensor ----------------------------------------------------------

template <OT Op> void validate(const Binary<Op>& d, Diagnostics& diags) {
    if constexpr (is_comparison(Op)) {
        // "ATensor and BTensor must have the same DataType."
        require_same_data_type(diags, {{"ATensor", d.ATensor}, {"BTensor", d.BTensor}},
                               logic_rule(Op, "same-data-type"));
    } else {
        // "ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes."
        require_same_data_type(diags,
                               {{"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}},
                               logic_rule(Op, "same-data-type"));
    }
    require_same_sizes_of(Op, diags,
                          {{"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}});
}

template <OT Op> void evaluate(const Binary<Op>& d, const Bindings& b) {
    const TensorView A(d.ATensor, b.at("ATensor"));
    const TensorView B(d.BTensor, b.at("BTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const DataType in = d.ATensor.DataType, out = d.OutputTensor.DataType;
    if constexpr (is_comparison(Op)) {
        // GREATER_THAN and GREATER_THAN_OR_EQUAL: LESS_THAN's and LESS_THAN_OR_EQUAL's loops, B before A.
        constexpr bool swapped = Op == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN ||
                                 Op == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL;
        constexpr OT Cmp = Op == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN ? OT::ELEMENT_WISE_LOGICAL_LESS_THAN
                           : Op == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL
                               ? OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL
                               : Op;
        const TensorView& first = swapped ? B : A;
        const TensorView& second = swapped ? A : B;
        dispatch_width(out, [&]<class U>() {
            const U one = U(true_bits(out)), zero = U(value_bits(out, 0));
            if constexpr (logic_direct_width<U>)
                dispatch(in, [&]<class T>() { logic_compare_loop<Cmp, U, T>(Y, first, second, one, zero); });
            else
                logic_through_bytes(Y, one, zero, [&](const TensorView& T) {
                    dispatch(in, [&]<class V>() { logic_compare_loop<Cmp, uint8_t, V>(T, first, second, 1, 0); });
                });
        });
    } else if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_AND || Op == OT::ELEMENT_WISE_LOGICAL_OR ||
                         Op == OT::ELEMENT_WISE_LOGICAL_XOR) {
        dispatch(in, [&]<class T>() {
            using U = uint_of<T>;
            const U one = U(true_bits(out)), zero = U(value_bits(out, 0));
            logic_logical_loop<Op, U, logic_truth_t<T>>(Y, A, B, one, zero);
        });
    } else if constexpr ((Op == OT::ELEMENT_WISE_BIT_SHIFT_LEFT || Op == OT::ELEMENT_WISE_BIT_SHIFT_RIGHT)) {
        if (!any_reading_in_force()) {
            dispatch_width(in, [&]<class W>() {
                map_elements<W, W, W>(
                    Y, [](W x, W y) { return bitwise<Op>(x, y); }, A, B);
            });
            return;
        }
        // The alternative readings (docs/golden.md, "Element-wise logic"), each where it decides.
        const bool modulo = in_force<"ShiftCount", "ModuloWidth">();
        const bool arithmetic = Op == OT::ELEMENT_WISE_BIT_SHIFT_RIGHT && in_force<"SignedShift", "Arithmetic">() &&
                                !is_float(in) && in != DataType::UINT8 && in != DataType::UINT16 &&
                                in != DataType::UINT32 &&
                                in != DataType::UINT64;  // SignedShift=Arithmetic: signed types
        dispatch_width(in, [&]<class W>() {
            map_elements<W, W, W>(
                Y,
                [=](W x, W y) {
                constexpr W width = W(sizeof(W) * 8);
                const W count = modulo ? W(y & W(width - 1)) : y;
                if (!arithmetic) return bitwise<Op>(x, count);
                const bool negative = (x >> (width - 1)) != 0;
                if (count >= width) return negative ? W(~W(0)) : W(0);
                const W shifted = W(x >> count);
                return negative && count != 0 ? W(shifted | W(~W(0) << (width - count))) : shifted;
                },
                A, B);
        });
    } else {  // the bitwise operators: on the bits of the element's width
        dispatch_width(in, [&]<class W>() {
            map_elements<W, W, W>(
                Y, [](W x, W y) { return bitwise<Op>(x, y); }, A, B);
        });
    }
}

// ---- InputTensor -> OutputTensor --------------------------------------------------------------

template <OT Op> void validate(const Unary<Op>& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
    // LOGICAL_NOT and BIT_NOT: "InputTensor and OutputTensor must have the same DataType, DimensionCount,
    // and Sizes"; IS_NAN and BIT_COUNT: the same DimensionCount and Sizes (the DataTypes may differ).
    if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_NOT || Op == OT::ELEMENT_WISE_BIT_NOT)
        require_same_data_type(diags, all, logic_rule(Op, "same-data-type"));
    require_same_sizes_of(Op, diags, all);
}

template <OT Op> void evaluate(const Unary<Op>& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const DataType in = d.InputTensor.DataType, out = d.OutputTensor.DataType;
    if constexpr (Op == OT::ELEMENT_WISE_LOGICAL_NOT) {
        dispatch(in, [&]<class T>() {
            using U = uint_of<T>;
            const U one = U(true_bits(out)), zero = U(value_bits(out, 0));
            logic_not_loop<U, logic_truth_t<T>>(Y, X, one, zero);
        });
    } else if constexpr (Op == OT::ELEMENT_WISE_IS_NAN) {
        dispatch_width(out, [&]<class U>() {
            const U one = U(true_bits(out)), zero = U(value_bits(out, 0));
            if constexpr (logic_direct_width<U>) {
                dispatch(in, [&]<class T>() {
                    if constexpr (is_floating_v<T>) logic_is_nan_loop<U, T>(Y, X, one, zero);
                    else logic_fill_loop<U>(Y, zero);  // no integer is NaN
                });
            } else if (is_float(in)) {
                logic_through_bytes(Y, one, zero, [&](const TensorView& T) {
                    dispatch(in, [&]<class V>() {
                        if constexpr (is_floating_v<V>) logic_is_nan_loop<uint8_t, V>(T, X, 1, 0);
                    });
                });
            } else {
                logic_fill_loop<U>(Y, zero);
            }
        });
    } else if constexpr (Op == OT::ELEMENT_WISE_BIT_NOT) {
        dispatch_width(in, [&]<class W>() {
            map_elements<W, W>(
                Y, [](W x) { return W(~x); }, X);
        });
    } else {  // BIT_COUNT: the number of set bits (0 to 64) as a value of the output's type
        std::array<uint64_t, 65> count_bits{};
        for (unsigned k = 0; k <= 64; ++k) count_bits[k] = value_bits(out, k);
        dispatch_width(out, [&]<class U>() {
            dispatch_width(in, [&]<class W>() {
                map_elements<U, W>(
                    Y, [&](W x) { return U(count_bits[std::popcount(x)]); }, X);
            });
        });
    }
}

// ---- IS_INFINITY --------------------------------------------------------------------------------

void validate(const DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC& d, Diagnostics& diags) {
    // "InputTensor and OutputTensor must have the same DimensionCount and Sizes."
    require_same_sizes_of(OT::ELEMENT_WISE_IS_INFINITY, diags,
                          {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}});
    if (d.InfinityMode > DML_IS_INFINITY_MODE_NEGATIVE)
        diags.error(desc_path("InfinityMode"), logic_rule(OT::ELEMENT_WISE_IS_INFINITY, "infinity-mode"),
                    "InfinityMode is " + std::to_string(d.InfinityMode) +
                        "; it must be DML_IS_INFINITY_MODE_EITHER (0), POSITIVE (1) or NEGATIVE (2)");
}

void evaluate(const DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const DataType in = d.InputTensor.DataType, out = d.OutputTensor.DataType;
    const bool positive = d.InfinityMode != DML_IS_INFINITY_MODE_NEGATIVE,
               negative = d.InfinityMode != DML_IS_INFINITY_MODE_POSITIVE;
    dispatch_width(out, [&]<class U>() {
        const U one = U(true_bits(out)), zero = U(value_bits(out, 0));
        if constexpr (logic_direct_width<U>) {
            dispatch(in, [&]<class T>() {
                if constexpr (is_floating_v<T>) logic_is_infinity_loop<U, T>(Y, X, one, zero, positive, negative);
                else logic_fill_loop<U>(Y, zero);  // no integer is infinite
            });
        } else if (is_float(in)) {
            logic_through_bytes(Y, one, zero, [&](const TensorView& T) {
                dispatch(in, [&]<class V>() {
                    if constexpr (is_floating_v<V>) logic_is_infinity_loop<uint8_t, V>(T, X, 1, 0, positive, negative);
                });
            });
        } else {
            logic_fill_loop<U>(Y, zero);
        }
    });
}

// ---- IF -----------------------------------------------------------------------------------------

void validate(const DML_ELEMENT_WISE_IF_OPERATOR_DESC& d, Diagnostics& diags) {
    // "ATensor, BTensor, and OutputTensor must have the same DataType."
    require_same_data_type(diags, {{"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}},
                           logic_rule(OT::ELEMENT_WISE_IF, "same-data-type"));
    // "ATensor, BTensor, ConditionTensor, and OutputTensor must have the same DimensionCount and Sizes."
    require_same_sizes_of(OT::ELEMENT_WISE_IF, diags,
                          {{"ConditionTensor", d.ConditionTensor},
                           {"ATensor", d.ATensor},
                           {"BTensor", d.BTensor},
                           {"OutputTensor", d.OutputTensor}});
}

void evaluate(const DML_ELEMENT_WISE_IF_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView C(d.ConditionTensor, b.at("ConditionTensor"));
    const TensorView A(d.ATensor, b.at("ATensor"));
    const TensorView B(d.BTensor, b.at("BTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    // IfCondition=NaNSelectsB (docs/golden.md, "Alternative readings"): `c > 0 || c < 0`, so a NaN
    // condition selects B.
    const bool nan_selects_b = in_force<"IfCondition", "NaNSelectsB">();
    dispatch_width(d.ATensor.DataType, [&]<class W>() {
        dispatch(d.ConditionTensor.DataType,
                 [&]<class T>() { logic_if_loop<W, logic_truth_t<T>>(Y, C, A, B, nan_selects_b); });
    });
}

// The operators of the two shared shapes, one instantiation each (the record names them).
#define DMLREF_BINARY(op)                                                \
    template void validate<OT::op>(const Binary<OT::op>&, Diagnostics&); \
    template void evaluate<OT::op>(const Binary<OT::op>&, const Bindings&);
#define DMLREF_UNARY(op)                                                \
    template void validate<OT::op>(const Unary<OT::op>&, Diagnostics&); \
    template void evaluate<OT::op>(const Unary<OT::op>&, const Bindings&);
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_EQUALS)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_GREATER_THAN)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_LESS_THAN)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_AND)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_OR)
DMLREF_BINARY(ELEMENT_WISE_LOGICAL_XOR)
DMLREF_BINARY(ELEMENT_WISE_BIT_AND)
DMLREF_BINARY(ELEMENT_WISE_BIT_OR)
DMLREF_BINARY(ELEMENT_WISE_BIT_XOR)
DMLREF_BINARY(ELEMENT_WISE_BIT_SHIFT_LEFT)
DMLREF_BINARY(ELEMENT_WISE_BIT_SHIFT_RIGHT)
DMLREF_UNARY(ELEMENT_WISE_LOGICAL_NOT)
DMLREF_UNARY(ELEMENT_WISE_IS_NAN)
DMLREF_UNARY(ELEMENT_WISE_BIT_NOT)
DMLREF_UNARY(ELEMENT_WISE_BIT_COUNT)
#undef DMLREF_BINARY
#undef DMLREF_UNARY

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

namespace {

std::string_view formula(OT t) {
    switch (t) {
        case OT::ELEMENT_WISE_LOGICAL_EQUALS: return "a == b ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_GREATER_THAN: return "a > b ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_LESS_THAN: return "a < b ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL: return "a >= b ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL: return "a <= b ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_AND: return "(a != 0 && b != 0) ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_OR: return "(a != 0 || b != 0) ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_XOR: return "((a != 0) != (b != 0)) ? 1 : 0";
        case OT::ELEMENT_WISE_LOGICAL_NOT: return "x == 0 ? 1 : 0";
        case OT::ELEMENT_WISE_IS_NAN: return "isnan(x) ? 1 : 0";
        case OT::ELEMENT_WISE_IS_INFINITY: return "isinf(x) with the sign InfinityMode asks for ? 1 : 0";
        case OT::ELEMENT_WISE_IF: return "cond != 0 ? a : b (bits copied)";
        case OT::ELEMENT_WISE_BIT_AND: return "a & b on the element's bits";
        case OT::ELEMENT_WISE_BIT_OR: return "a | b on the element's bits";
        case OT::ELEMENT_WISE_BIT_XOR: return "a ^ b on the element's bits";
        case OT::ELEMENT_WISE_BIT_NOT: return "~x on the element's bits";
        case OT::ELEMENT_WISE_BIT_COUNT: return "the number of bits set in x, as a value of the output's type";
        case OT::ELEMENT_WISE_BIT_SHIFT_LEFT: return "b >= width ? 0 : a << b, on the bits (b read as unsigned)";
        case OT::ELEMENT_WISE_BIT_SHIFT_RIGHT:
            return "b >= width ? 0 : a >> b, logical, on the bits (b read as unsigned)";
        default: return "";
    }
}

}  // namespace

// The inputs of the element, the formula, and the policies that can decide it.
bool explain_logic(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const OT t = c.op.Type;
    if (logic_rule_prefix(t).empty()) return false;
    std::vector<uint64_t> at;
    for (const auto& f : tensor_fields(c.op))
        if (f.name == output) at = nd_coordinate(f.desc->Sizes, flat);
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Input) continue;
        const std::string role = f.name == "ConditionTensor" ? "cond"
                                 : f.name == "ATensor"       ? "a"
                                 : f.name == "BTensor"       ? "b"
                                                             : "x";
        out.inputs.push_back(input_element(c, std::string(f.name), at, role));
    }
    out.facts.emplace_back("formula", std::string(formula(t)));
    for (const auto& p : info(t).Policies) out.policies.emplace_back(p.Name);
    return true;
}

}  // namespace dmlref::reference
