// DML_OPERATOR_ELEMENT_WISE_ADD.
//
// Spec: DirectML API reference, "DML_ELEMENT_WISE_ADD_OPERATOR_DESC structure".
//
//   ADD   f(a, b) = a + b      ATensor, BTensor and OutputTensor: one DataType, DimensionCount and Sizes
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
//     DirectML's integer arithmetic on GPUs does.
#include "element_wise.hpp"

#include "dmlref/numeric.hpp"

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

}  // namespace

void validate(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, Diagnostics& diags) {
    // "ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes."
    const std::initializer_list<Named> all = {{"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, "add.same-data-type");
    require_same_sizes(diags, all, "add.same-sizes");
}

void evaluate(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView A(d.ATensor, b.at("ATensor"));
    const TensorView B(d.BTensor, b.at("BTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    dispatch(d.OutputTensor.DataType, [&]<class T>() { map_elements<T, T, T>(Y, [](T a, T x) { return add(a, x); }, A, B); });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The two operands and the exact sum before its rounding.
bool explain_element_wise(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto& d = get<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(c.op.Desc);
    const std::vector<uint64_t> at = nd_coordinate(d.OutputTensor.Sizes, flat);
    const ExplainedInput a = input_element(c, "ATensor", at, "a");
    const ExplainedInput b = input_element(c, "BTensor", at, "b");
    out.inputs.push_back(a);
    out.inputs.push_back(b);
    const DataType t = d.OutputTensor.DataType;
    out.facts.emplace_back("formula", "a + b");
    if (is_float(t)) {
        const double x = element_value(t, a.bits), y = element_value(t, b.bits);
        out.facts.emplace_back("decided by", x != x || y != y || (x + y) != (x + y)
                                                 ? std::string("a NaN sum: the type's canonical NaN")
                                                 : "the exact sum, rounded once to nearest-even");
        out.policies.push_back("NonFiniteSum");
    } else {
        out.facts.emplace_back("decided by", "the integer sum, wrapped to the type's width");
        out.policies.push_back("IntegerOverflow");
    }
    return true;
}

}  // namespace dmlref::reference
