// DML_OPERATOR_ONE_HOT.
//
// Spec: DML_ONE_HOT_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md (one-hot.*).
//
//   output[o] = (o[Axis] == index(o)) ? OnValue : OffValue,  index(o) = IndicesTensor[o with o[Axis] = 0]
//   OffValue = ValuesTensor's element 0; OnValue = its element 1 "along the fastest-changing
//   dimension of size > 1" (coordinate 1 there, 0 elsewhere)
//
// Rules (each with its id): IndicesTensor, OutputTensor and ValuesTensor have one DimensionCount
// (.dimension-count); OutputTensor and ValuesTensor one DataType (.same-data-type); IndicesTensor
// INT32, INT64, UINT32 or UINT64 (.indices-data-type); Axis < IndicesTensor's DimensionCount
// (.axis); IndicesTensor's sizes are OutputTensor's but at Axis, where it is 1 (.indices-sizes);
// ValuesTensor holds at least two elements (.values-count).
//
// Decisions (docs/golden.md, "One-hot"):
//   - NegativeIndex=FromEndOnce: "Negative indices are interpreted as being relative to the end of
//     the sequence" (from DML_FEATURE_LEVEL_3_0): i < 0 is size + i.
//   - OneHotOutOfRange=AllOff: an index at or beyond the sequence's size "is ignored, and all
//     elements in that sequence will be set to OffValue" (the page, Example 4); dmlref does the same
//     for a negative index below -size, which the page does not name.
//   - The values are copied as bits (NaN payloads, -0).
#include "one_hot.hpp"

#include "gather.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cstring>

namespace dmlref::reference {

namespace {

// The position of the OnValue in a sequence of `size`, or -1 when the index names none.
int64_t on_position(DataType t, const std::byte* p, uint64_t size) {
    const uint64_t bits = load_bits(t, p);
    // The alternative readings of OneHotOutOfRange (docs/golden.md, "Alternative readings"):
    // Modulo, the index modulo the size, Python's way (-5 of 4 is 3, 100 is 0); Clamp, the index
    // (after NegativeIndex) clamped into the sequence (100 is 3, -5 is 0).
    if (in_force<"OneHotOutOfRange", "Modulo">()) {
        if (t == DataType::INT32 || t == DataType::INT64) {
            const int64_t s = t == DataType::INT32 ? int64_t(int32_t(uint32_t(bits))) : int64_t(bits);
            return ((s % int64_t(size)) + int64_t(size)) % int64_t(size);
        }
        return int64_t(bits % size);
    }
    const bool clamp = in_force<"OneHotOutOfRange", "Clamp">();
    int64_t s;
    if (t == DataType::INT32) s = int32_t(uint32_t(bits));
    else if (t == DataType::INT64) s = int64_t(bits);
    else return bits < size ? int64_t(bits) : clamp ? int64_t(size) - 1 : -1;
    // NegativeIndex=FromEndOnce (size < 2^32); the alternative NegativeIndex=Modulo wraps a
    // negative index any number of times, Python's way (-5 of 4 is 3; 100 is still outside).
    if (s < 0)
        s = in_force<"NegativeIndex", "Modulo">() ? ((s % int64_t(size)) + int64_t(size)) % int64_t(size)
                                                  : s + int64_t(size);
    if (clamp) return std::clamp<int64_t>(s, 0, int64_t(size) - 1);
    return s >= 0 && uint64_t(s) < size ? s : -1;  // OneHotOutOfRange=AllOff
}

}  // namespace

std::vector<uint64_t> on_value_coordinate(const TensorDesc& values) {
    std::vector<uint64_t> c(values.Sizes.size(), 0);
    for (size_t i = values.Sizes.size(); i-- > 0;)
        if (values.Sizes[i] > 1) {
            c[i] = 1;
            break;
        }
    return c;
}

void validate(const DML_ONE_HOT_OPERATOR_DESC& d, Diagnostics& diags) {
    const uint32_t R = d.IndicesTensor.DimensionCount();
    bool ok = true;
    for (auto [name, t] : {std::pair<std::string_view, const TensorDesc*>{"ValuesTensor", &d.ValuesTensor},
                           {"OutputTensor", &d.OutputTensor}})
        if (t->DimensionCount() != R) {
            ok = false;
            diags.error(sizes_path(name), "one-hot.dimension-count",
                        std::string(name) + " has " + std::to_string(t->DimensionCount()) +
                            " dimensions but IndicesTensor has " + std::to_string(R) +
                            "; IndicesTensor, OutputTensor and ValuesTensor must have the same DimensionCount");
        }
    require_same_data_type(diags, {{"ValuesTensor", d.ValuesTensor}, {"OutputTensor", d.OutputTensor}},
                           "one-hot.same-data-type");
    if (!gathering::is_index_type(d.IndicesTensor.DataType))
        diags.error(pointer_append(desc_path("IndicesTensor"), "DataType"), "one-hot.indices-data-type",
                    "IndicesTensor is " + std::string(name(d.IndicesTensor.DataType)) +
                        "; indices must be INT32, INT64, UINT32 or UINT64 (the page's tensor support)");
    if (element_count(d.ValuesTensor) < 2)
        diags.error(sizes_path("ValuesTensor"), "one-hot.values-count",
                    "ValuesTensor holds " + std::to_string(element_count(d.ValuesTensor)) +
                        " element; it must contain at least two (OffValue, then OnValue)");
    if (d.Axis >= R) {
        diags.error(desc_path("Axis"), "one-hot.axis",
                    "Axis is " + std::to_string(d.Axis) + "; it must be less than IndicesTensor's DimensionCount (" +
                        std::to_string(R) + ")");
        return;
    }
    if (!ok) return;
    for (uint32_t i = 0; i < R; ++i) {
        const uint32_t want = i == d.Axis ? 1 : d.OutputTensor.Sizes[i];
        if (d.IndicesTensor.Sizes[i] != want)
            diags.error(pointer_append(sizes_path("IndicesTensor"), i), "one-hot.indices-sizes",
                        "IndicesTensor.Sizes[" + std::to_string(i) + "] is " +
                            std::to_string(d.IndicesTensor.Sizes[i]) + "; it must be " + std::to_string(want) +
                            (i == d.Axis ? " (the Axis dimension)" : " (OutputTensor's, in every dimension but Axis)"));
    }
}

void evaluate(const DML_ONE_HOT_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView I(d.IndicesTensor, b.at("IndicesTensor"));
    const TensorView V(d.ValuesTensor, b.at("ValuesTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t w = element_size(d.OutputTensor.DataType), iw = element_size(d.IndicesTensor.DataType);
    const std::byte* off = V.base;  // element 0 (its coordinate is all zeros)
    const std::byte* on = V.base + offset_of(V.strides, on_value_coordinate(d.ValuesTensor)) * int64_t(w);
    const uint32_t R = d.OutputTensor.DimensionCount();
    const uint64_t size = d.OutputTensor.Sizes[d.Axis];
    std::vector<uint64_t> o(R, 0), ix(R, 0);
    for (uint64_t flat = 0, n = element_count(d.OutputTensor); flat < n; ++flat) {
        ix = o;
        ix[d.Axis] = 0;
        const int64_t at = on_position(d.IndicesTensor.DataType, I.base + offset_of(I.strides, ix) * int64_t(iw), size);
        std::memcpy(Y.base + offset_of(Y.strides, o) * int64_t(w), at == int64_t(o[d.Axis]) ? on : off, w);
        for (uint32_t k = R; k-- > 0;) {
            if (++o[k] < d.OutputTensor.Sizes[k]) break;
            o[k] = 0;
        }
    }
}

// The index the element's sequence reads, where it puts the OnValue, and the value chosen.
bool explain_one_hot(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    (void)output;
    const auto* d = c.op.Desc.get_if<DML_ONE_HOT_OPERATOR_DESC>();
    if (!d) return false;
    const std::vector<uint64_t> o = nd_coordinate(d->OutputTensor.Sizes, flat);
    std::vector<uint64_t> ix = o;
    ix[d->Axis] = 0;
    const TensorView I(d->IndicesTensor, std::span<const std::byte>(c.inputs.at("IndicesTensor")));
    const std::byte* p = I.base + offset_of(I.strides, ix) * int64_t(element_size(d->IndicesTensor.DataType));
    const uint64_t size = d->OutputTensor.Sizes[d->Axis];
    const int64_t at = on_position(d->IndicesTensor.DataType, p, size);
    out.inputs.push_back(input_element(c, "IndicesTensor", ix, "index"));
    out.facts.emplace_back("sequence", "along Axis " + std::to_string(d->Axis) + " (size " + std::to_string(size) +
                                           "), position " + std::to_string(o[d->Axis]));
    out.facts.emplace_back("on position", at < 0
                                              ? "none: the index is outside the sequence, so every element is OffValue"
                                              : std::to_string(at));
    const bool on = at == int64_t(o[d->Axis]);
    out.facts.emplace_back("value",
                           on ? "OnValue (ValuesTensor's element 1 along the fastest-changing dimension of size > 1)"
                              : "OffValue (ValuesTensor's element 0)");
    out.inputs.push_back(input_element(
        c, "ValuesTensor",
        on ? on_value_coordinate(d->ValuesTensor) : std::vector<uint64_t>(d->ValuesTensor.Sizes.size(), 0),
        on ? "on" : "off"));
    out.policies = {"NegativeIndex", "OneHotOutOfRange"};
    return true;
}

}  // namespace dmlref::reference
