// The fill family's records (reference/kit/family.hpp): the facts of
// DML_FILL_VALUE_CONSTANT_OPERATOR_DESC and DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC from their pages
// ("Availability", "Tensor support"; there is no input, so no in-place execution), the policies
// their goldens record, and coverage features. CONSTANT writes Value's bits; SEQUENCE's values are
// the page's loop in the output's own type, one exact answer per element: Bits for both.
#include "fill.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_fill {

using namespace kit;

// The policies of docs/golden.md, "Fill".
constexpr Policy kFillSequenceValue{"FillSequenceValue", "Accumulated"};
constexpr Policy kFillSequenceOrder{"FillSequenceOrder", "LogicalRowMajor"};
constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};
constexpr Policy kFloat16ScalarUnion{"Float16ScalarUnion", "UInt16Bits"};

uint64_t masked(DataType t, const DML_SCALAR_UNION& u) {
    const uint32_t w = element_size(t);
    return w >= 8 ? u.as<uint64_t>() : u.as<uint64_t>() & ((uint64_t(1) << (8 * w)) - 1);
}

// A float field's value, exactly (integers: nullopt).
std::optional<double> float_value(DataType t, uint64_t bits) {
    if (!is_float(t)) return std::nullopt;
    return dispatch(t, [&]<class T>() -> std::optional<double> {
        if constexpr (std::is_integral_v<T>) return std::nullopt;
        else return widen(from_bits<T>(bits_t<T>(bits)));
    });
}

// Value NaN, infinite, -0, or below zero (either sign convention: a float's or a signed integer's).
void detect_constant(const Case& c, std::vector<std::string>& f) {
    const auto& d = get<DML_FILL_VALUE_CONSTANT_OPERATOR_DESC>(c.op.Desc);
    const DataType t = d.OutputTensor.DataType;
    const uint64_t bits = masked(t, d.Value);
    if (const auto v = float_value(t, bits)) {
        if (std::isnan(*v)) f.push_back("nan-value");
        if (std::isinf(*v)) f.push_back("infinite-value");
        if (*v == 0 && std::signbit(*v)) f.push_back("negative-zero-value");
        if (*v < 0) f.push_back("negative-value");
    } else if (bits >> (element_size(t) * 8 - 1) && is_signed_integer(t)) {
        f.push_back("negative-value");
    }
}

// The integer value of a sequence's field, signed types sign-extended.
int128_t integer_of(DataType t, uint64_t bits) {
    const uint32_t w = element_size(t) * 8;
    const bool is_signed = is_signed_integer(t);
    if (is_signed && w < 64 && (bits >> (w - 1)) & 1) return int128_t(bits) - (int128_t(1) << w);
    if (is_signed && w == 64) return int128_t(int64_t(bits));
    return int128_t(bits);
}

// A negative or zero step, a sequence that leaves its integer type's range (and wraps), a NaN or
// infinite ValueStart or ValueDelta.
void detect_sequence(const Case& c, std::vector<std::string>& f) {
    const auto& d = get<DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC>(c.op.Desc);
    const DataType t = d.OutputTensor.DataType;
    const uint64_t start = masked(t, d.ValueStart), delta = masked(t, d.ValueDelta), n = element_count(d.OutputTensor);
    if (const auto fs = float_value(t, start)) {
        const double fd = *float_value(t, delta);
        if (!std::isfinite(*fs) || !std::isfinite(fd)) f.push_back("special-value");
        if (fd < 0) f.push_back("negative-delta");
        if (fd == 0) f.push_back("zero-delta");
        return;
    }
    const int128_t s = integer_of(t, start), dl = integer_of(t, delta);
    if (dl < 0) f.push_back("negative-delta");
    if (dl == 0) f.push_back("zero-delta");
    const uint32_t w = element_size(t) * 8;
    const bool is_signed = integer_of(t, uint64_t(1) << (w - 1)) < 0;
    const int128_t lo = is_signed ? -(int128_t(1) << (w - 1)) : 0;
    const int128_t hi = is_signed ? (int128_t(1) << (w - 1)) - 1 : (int128_t(1) << w) - 1;
    if (n > 1 && dl != 0) {
        const int128_t room = dl > 0 ? (hi - s) / dl : (s - lo) / -dl;  // steps that stay in range
        if (room < int128_t(n - 1)) f.push_back("wraps");
    }
}

OperatorRecord fill_value_constant() {
    // DML_FEATURE_LEVEL_2_1: 4-D, the eight 8- to 32-bit types; 4.0 1 to 8 dimensions; 4.1 all eleven types.
    auto r = operator_record<DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .Support = {{0x2100, {}, 4, 4, kEightTypes}, {0x4000, {}, 1, 8, kEightTypes}, {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kFloat16ScalarUnion, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_fill;
    r.features = {"nan-value", "infinite-value", "negative-zero-value", "negative-value"};
    r.detect = detect_constant;
    r.BaseTensors = {"OutputTensor"};
    return r;
}

OperatorRecord fill_value_sequence() {
    // DML_FEATURE_LEVEL_2_1: 4-D, the eight 8- to 32-bit types; 4.0 1 to 8 dimensions; 5.0 INT64
    // and UINT64 (ten types: the tables never list FLOAT64).
    auto r = operator_record<DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .Support = {{0x2100, {}, 4, 4, kEightTypes}, {0x4000, {}, 1, 8, kEightTypes}, {0x5000, {}, 1, 8, kTenTypes}},
        .Policies = {kFillSequenceValue, kFillSequenceOrder, kIntegerOverflow, kNonFiniteSum, kFloat16ScalarUnion,
                     kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_fill;
    r.features = {"special-value", "negative-delta", "zero-delta", "wraps"};
    r.detect = detect_sequence;
    r.BaseTensors = {"OutputTensor"};
    return r;
}

}  // namespace rec_fill

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& fill_family() {
    using namespace reference::rec_fill;
    static const FamilyRecord f{
        "fill",
        {fill_value_constant(), fill_value_sequence()},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "FillSequenceValue",
          .Value = "StartPlusIndexTimesDelta",
          .Meaning =
              "FILL_VALUE_SEQUENCE's element i is ValueStart + i * ValueDelta computed exactly and rounded once to the type, "
              "not the page's running Value += Delta rounded at every step (the readings agree for integers)",
          .Who =
              "kernels that compute each element from its index (a GPU thread per element); PyTorch's and numpy's arange "
              "compute start + i * step per element, in the type's arithmetic (at most two roundings)",
          .Operators = {OperatorType::FILL_VALUE_SEQUENCE}}}};
    return f;
}
}  // namespace dmlref::kit
