// DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE.
//
// Spec: DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC (DirectML API
// reference); rules in docs/rules.md (fill-value-constant.*, fill-value-sequence.*).
//
//   CONSTANT:  for each coordinate in OutputTensor: OutputTensor[coordinate] = Value
//   SEQUENCE:  for each coordinate in OutputTensor: OutputTensor[coordinate] = Value; Value += Delta
//              (Value starting at ValueStart)
//
// Rules (each with its id): ValueDataType "must match OutputTensor.DataType" (.value-data-type).
// OutputTensor "may have any size"; it is the only tensor, so nothing else constrains it.
//
// Decisions (docs/golden.md, "Fill"):
//   - FillSequenceValue=Accumulated: the page's pseudocode taken literally. Value is of
//     ValueDataType, and each `Value += Delta` is one addition in that type: floats rounded to
//     nearest-even at every step (so a FLOAT sequence carries the rounding errors of the steps
//     before it), integers modulo 2^width. The alternative StartPlusIndexTimesDelta (evaluated:
//     `dmlref run --policy FillSequenceValue=StartPlusIndexTimesDelta`) computes element i as
//     ValueStart + i * ValueDelta exactly and rounds once, as a kernel that fills every element
//     independently would; for integers the two readings agree.
//   - IntegerOverflow=WrapToWidth: the page's Example 2 fills UINT8 with ValueDelta -2, which a
//     UINT8 member holds as 254: 10 + 254 is 8 only modulo 256. INT* wrap the same way (two's
//     complement). The alternative IntegerOverflow=Saturate (docs/golden.md, "Alternative
//     readings") reads the page's `Value += Delta` as a saturating addition in ValueDataType, the
//     running sum clamped at every step (saturating_step), and under StartPlusIndexTimesDelta
//     element i is ValueStart + i * ValueDelta exact, clamped once (start_plus_index_saturated).
//     The two agree, and each element is its exact value clamped: Delta is one value of the type,
//     so the exact sequence is monotone, and once a step passes an end, every later exact value
//     is past it too while the saturated sum stays there (INT8 from 120 by 5: 120, 125, 127,
//     127). ValueDelta is read as the type holds it, as the default does: the page's Example 2
//     (UINT8 from 10 by 254) gives 10, 255, 255, 255, not the page's 10, 8, 6, 4, so the page
//     itself speaks for wrapping.
//   - FillSequenceOrder=LogicalRowMajor: "for each coordinate" is the logical coordinates in
//     row-major order (the last dimension fastest, the page's Example 2), whatever the output's
//     Strides; a strided output holds the same sequence at other addresses.
//   - NonFiniteSum=CanonicalNaN: a step whose sum is NaN (a NaN ValueStart or ValueDelta, +inf
//     plus -inf) writes the type's canonical NaN from then on; the first element is ValueStart's
//     bits, whatever they are.
//   - Float16ScalarUnion=UInt16Bits: a FLOAT16 value is the binary16 bits in the UInt16 member.
//   - Subnormals=Preserve: Value's bits are written unchanged; sums keep subnormals.
#include "fill.hpp"

#include "element_copy.hpp"
#include "exact_rational.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

uint64_t width_bits(DataType t, const DML_SCALAR_UNION& u) {
    const uint32_t w = element_size(t);
    const uint64_t v = u.as<uint64_t>();
    return w >= 8 ? v : v & ((uint64_t(1) << (8 * w)) - 1);
}

void require_value_type(Diagnostics& diags, DataType value, const TensorDesc& out, std::string_view rule) {
    if (value != out.DataType)
        diags.error(desc_path("ValueDataType"), std::string(rule),
                    "ValueDataType is " + std::string(name(value)) + " but OutputTensor is " +
                        std::string(name(out.DataType)) +
                        "; the data type of the value fields must match OutputTensor.DataType");
}

template <class T> T element(uint64_t bits) {
    bits_t<T> b = bits_t<T>(bits);
    return from_bits<T>(b);
}

// One step of the page's `Value += Delta` in T (FillSequenceValue=Accumulated).
template <class T> T accumulate(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(U(a) + U(b)));  // IntegerOverflow=WrapToWidth
    } else {
        T s;
        if constexpr (is_half_v<T>)
            s = round_to_float<T>(widen(a) + widen(b));  // the double sum of two halves is exact
        else s = a + b;                                  // one IEEE addition in T
        return is_nan(s) ? canonical_nan<T>() : s;       // NonFiniteSum=CanonicalNaN
    }
}

// One step of `Value += Delta` under IntegerOverflow=Saturate: the exact sum clamped to T's range.
template <class T> T saturating_step(T a, T b) {
    T s;
    if (!__builtin_add_overflow(a, b, &s)) return s;
    return b > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

// Element i under StartPlusIndexTimesDelta and IntegerOverflow=Saturate: ValueStart + i *
// ValueDelta, exact, clamped once to T's range (i * ValueDelta past int128 is past every end).
template <class T> T start_plus_index_saturated(T start, T delta, uint64_t i) {
    int128_t v;
    if (__builtin_mul_overflow(int128_t(i), int128_t(delta), &v) || __builtin_add_overflow(v, int128_t(start), &v))
        return delta > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    return T(std::clamp<int128_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// Element i > 0 under FillSequenceValue=StartPlusIndexTimesDelta: ValueStart + i * ValueDelta,
// exact, rounded once. Integers: modulo 2^width, as the accumulated reading.
template <class T> T start_plus_index_times_delta(T start, T delta, uint64_t i) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(uint64_t(U(start)) + uint64_t(i) * uint64_t(U(delta))));
    } else {
        const double s = widen(start), d = widen(delta);
        if (std::isnan(s) || std::isnan(d)) return canonical_nan<T>();
        if (std::isinf(d)) return std::isinf(s) && (s > 0) != (d > 0) ? canonical_nan<T>() : delta;  // i * inf is inf
        if (std::isinf(s)) return start;
        const mpq_class v = exact_value(start) +
                            mpq_class(mpz_class(static_cast<unsigned long>(i))) * exact_value(delta);
        if (sgn(v) == 0)
            return std::signbit(s) && std::signbit(d) ? from_bits<T>(bits_t<T>(to_bits(start)))
                                                      : T(0.0);  // IEEE: -0 + -0 is -0
        return round_rational<T>(v);
    }
}

template <class T> std::vector<T> sequence(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, uint64_t n) {
    const T start = element<T>(width_bits(d.ValueDataType, d.ValueStart));
    const T delta = element<T>(width_bits(d.ValueDataType, d.ValueDelta));
    std::vector<T> v(n);
    if (n == 0) return v;
    v[0] = start;
    const bool by_index = in_force<"FillSequenceValue", "StartPlusIndexTimesDelta">();
    if constexpr (std::is_integral_v<T>) {
        if (in_force<"IntegerOverflow", "Saturate">()) {
            for (uint64_t i = 1; i < n; ++i)
                v[i] = by_index ? start_plus_index_saturated(start, delta, i) : saturating_step(v[i - 1], delta);
            return v;
        }
    }
    if (by_index)
        for (uint64_t i = 1; i < n; ++i) v[i] = start_plus_index_times_delta(start, delta, i);
    else
        for (uint64_t i = 1; i < n; ++i) v[i] = accumulate(v[i - 1], delta);
    return v;
}

}  // namespace

void validate(const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC& d, Diagnostics& diags) {
    require_value_type(diags, d.ValueDataType, d.OutputTensor, "fill-value-constant.value-data-type");
}

void evaluate(const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC& d, const Bindings& b) {
    const uint64_t bits = width_bits(d.OutputTensor.DataType, d.Value);
    by_width(d.OutputTensor.DataType, [&]<class U>() {
        const U v = U(bits);
        write_logical<U>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t) { return v; });
    });
}

void validate(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, Diagnostics& diags) {
    require_value_type(diags, d.ValueDataType, d.OutputTensor, "fill-value-sequence.value-data-type");
}

void evaluate(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, const Bindings& b) {
    dispatch(d.OutputTensor.DataType, [&]<class T>() {
        const std::vector<T> v = sequence<T>(d, element_count(d.OutputTensor));  // FillSequenceOrder=LogicalRowMajor
        write_logical<T>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return v[i]; });
    });
}

uint64_t fill_sequence_element(const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC& d, uint64_t i) {
    return dispatch(d.OutputTensor.DataType, [&]<class T>() { return uint64_t(to_bits(sequence<T>(d, i + 1)[i])); });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The value written and where it comes from: Value, or the sequence's element and its rule.
bool explain_fill(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    if (const auto* d = get_if<DML_FILL_VALUE_CONSTANT_OPERATOR_DESC>(&c.op.Desc)) {
        out.facts.emplace_back(
            "value",
            "Value = " + display_value(d->OutputTensor.DataType, width_bits(d->OutputTensor.DataType, d->Value)) +
                ", written to every element");
        out.policies = {"Float16ScalarUnion", "Subnormals"};
        return true;
    }
    const auto* d = get_if<DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    const DataType t = d->OutputTensor.DataType;
    out.facts.emplace_back("position",
                           "element " + std::to_string(flat) + " of the sequence (logical row-major order)");
    out.facts.emplace_back("start, delta", display_value(t, width_bits(t, d->ValueStart)) + ", " +
                                               display_value(t, width_bits(t, d->ValueDelta)));
    const bool exact = in_force<"FillSequenceValue", "StartPlusIndexTimesDelta">();
    const bool saturate = !is_float(t) && in_force<"IntegerOverflow", "Saturate">();
    out.facts.emplace_back("rule", flat == 0 ? std::string("ValueStart itself")
                                   : exact   ? "ValueStart + " + std::to_string(flat) + " * ValueDelta, exact, " +
                                                 (saturate ? "clamped once to the type's range" : "rounded once")
                                           : "ValueStart with ValueDelta added " + std::to_string(flat) +
                                                 " times, each addition in " + std::string(name(t)) +
                                                 (is_float(t) ? " (rounded at every step)"
                                                  : saturate  ? " (clamped to the type's range at every step)"
                                                              : " (modulo 2^width)"));
    out.facts.emplace_back("value", display_value(t, fill_sequence_element(*d, flat)));
    out.policies = {"FillSequenceValue", "FillSequenceOrder", "IntegerOverflow", "NonFiniteSum", "Float16ScalarUnion"};
    return true;
}

}  // namespace dmlref::reference
