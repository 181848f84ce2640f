// DML_OPERATOR_REVERSE_SUBSEQUENCES.
//
// Spec: DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md
// (reverse-subsequences.*).
//
//   L(o) = min(SequenceLengthsTensor[o with o[Axis] = 0], size),  size = InputTensor.Sizes[Axis]
//   OutputTensor[o] = InputTensor[o with o[Axis] = L - 1 - o[Axis]]   where o[Axis] < L
//                     InputTensor[o]                                  elsewhere ("copied unchanged")
//
// Rules (each with its id): InputTensor and OutputTensor have one DataType (.same-data-type);
// the three tensors one DimensionCount (.dimension-count); Axis < InputTensor's DimensionCount
// (.axis); OutputTensor has InputTensor's sizes (.output-sizes); SequenceLengthsTensor has
// InputTensor's sizes but 1 at Axis (.lengths-sizes); SequenceLengthsTensor is UINT32 (the
// tables), UINT64, INT32 or INT64 (.lengths-data-type: dmlref's scope, the gathers' index types);
// a signed length is not negative (.negative-length, on the input values: dmlref's decision).
//
// Decisions (docs/golden.md, "Reverse subsequences"):
//   - SequenceLengthBeyondSize=Clamped: the page, "If the length of a subsequence exceeds the
//     maximum number of elements along that axis, then this operator behaves as if the value were
//     clamped to the maximum".
//   - NegativeSequenceLength=Refused: the tables list UINT32 lengths only; for a signed length
//     below zero there is no length to clamp to, and dmlref refuses the case rather than guess
//     between no reversal and the bits read as unsigned (a whole-axis reversal).
//   - Lengths 0 and 1 leave the sequence as it is (the page's Example 2: "effective nops").
//   - Subnormals=Preserve: elements are copied as bits.
#include "reverse.hpp"

#include "dmlref/values.hpp"

#include <cstring>

namespace dmlref::reference {

namespace {

constexpr std::string_view kReverse = "reverse-subsequences";

bool is_length_type(DataType t) {
    return t == DataType::UINT32 || t == DataType::UINT64 || t == DataType::INT32 || t == DataType::INT64;
}

int64_t offset(const std::vector<int64_t>& strides, const std::vector<uint64_t>& c) {
    int64_t off = 0;
    for (size_t i = 0; i < c.size(); ++i) off += int64_t(c[i]) * strides[i];
    return off;
}

// The input coordinate output coordinate `o` reads, given its subsequence's length.
std::vector<uint64_t> source(std::vector<uint64_t> o, uint32_t axis, uint64_t length) {
    if (o[axis] < length) o[axis] = length - 1 - o[axis];
    return o;
}

}  // namespace

std::optional<uint64_t> sequence_length(DataType t, const std::byte* p, uint64_t size) {
    const uint64_t bits = load_bits(t, p);
    if (t == DataType::INT32 && int32_t(uint32_t(bits)) < 0) return std::nullopt;
    if (t == DataType::INT64 && int64_t(bits) < 0) return std::nullopt;
    return bits < size ? bits : size;  // SequenceLengthBeyondSize=Clamped
}

void validate(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           rule(kReverse, "same-data-type"));
    if (!is_length_type(d.SequenceLengthsTensor.DataType))
        diags.error(pointer_append(desc_path("SequenceLengthsTensor"), "DataType"), rule(kReverse, "lengths-data-type"),
                    "SequenceLengthsTensor is " + std::string(name(d.SequenceLengthsTensor.DataType)) +
                        "; lengths must be UINT32 (the page's tables), UINT64, INT32 or INT64");
    const uint32_t R = d.InputTensor.DimensionCount();
    bool ok = true;
    for (auto [n, t] :
         {std::pair<std::string_view, const TensorDesc*>{"SequenceLengthsTensor", &d.SequenceLengthsTensor},
          {"OutputTensor", &d.OutputTensor}})
        if (t->DimensionCount() != R) {
            ok = false;
            diags.error(sizes_path(n), rule(kReverse, "dimension-count"),
                        std::string(n) + " has " + std::to_string(t->DimensionCount()) +
                            " dimensions but InputTensor has " + std::to_string(R) +
                            "; InputTensor, OutputTensor and SequenceLengthsTensor must have the same DimensionCount");
        }
    if (d.Axis >= R) {
        diags.error(desc_path("Axis"), rule(kReverse, "axis"),
                    "Axis is " + std::to_string(d.Axis) + "; it must be less than InputTensor's DimensionCount (" +
                        std::to_string(R) + ")");
        return;
    }
    if (!ok) return;
    for (uint32_t i = 0; i < R; ++i) {
        if (d.OutputTensor.Sizes[i] != d.InputTensor.Sizes[i]) {
            diags.error(pointer_append(sizes_path("OutputTensor"), i), rule(kReverse, "output-sizes"),
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                            "; OutputTensor must have InputTensor's sizes (" + std::to_string(d.InputTensor.Sizes[i]) +
                            ")");
            break;
        }
    }
    for (uint32_t i = 0; i < R; ++i) {
        const uint32_t want = i == d.Axis ? 1 : d.InputTensor.Sizes[i];
        if (d.SequenceLengthsTensor.Sizes[i] != want) {
            diags.error(pointer_append(sizes_path("SequenceLengthsTensor"), i), rule(kReverse, "lengths-sizes"),
                        "SequenceLengthsTensor.Sizes[" + std::to_string(i) + "] is " +
                            std::to_string(d.SequenceLengthsTensor.Sizes[i]) + "; it must be " + std::to_string(want) +
                            (i == d.Axis ? " (the Axis dimension)" : " (InputTensor's, in every dimension but Axis)"));
            break;
        }
    }
}

// NegativeSequenceLength=Refused: each negative signed length, named (the first 8).
void validate_values(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC& d, const InputBuffers& in, uint64_t,
                     Diagnostics& diags) {
    const DataType t = d.SequenceLengthsTensor.DataType;
    const auto it = in.find("SequenceLengthsTensor");
    if ((t != DataType::INT32 && t != DataType::INT64) || it == in.end()) return;
    Diagnostics desc;
    validate(d, desc);
    if (desc.has_errors() || it->second.size() < buffer_size(d.SequenceLengthsTensor)) return;
    const std::vector<std::byte> logical = gather_logical(d.SequenceLengthsTensor, it->second);
    const size_t w = element_size(t);
    int reported = 0;
    for (uint64_t i = 0; i * w < logical.size(); ++i)
        if (!sequence_length(t, logical.data() + i * w, 1) && reported++ < 8)
            diags.error(
                pointer_append("/inputs/SequenceLengthsTensor", i), rule(kReverse, "negative-length"),
                "SequenceLengthsTensor element " + std::to_string(i) + " is " +
                    format_value(t, load_bits(t, logical.data() + i * w)) +
                    "; a length is not negative (the page's tables list UINT32 lengths; dmlref refuses a negative one)");
}

void evaluate(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView L(d.SequenceLengthsTensor, b.at("SequenceLengthsTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t w = element_size(d.InputTensor.DataType), lw = element_size(d.SequenceLengthsTensor.DataType);
    const uint32_t R = d.InputTensor.DimensionCount();
    const uint64_t size = d.InputTensor.Sizes[d.Axis];
    std::vector<uint64_t> o(R, 0), at(R, 0);
    for (uint64_t flat = 0, n = element_count(d.OutputTensor); flat < n; ++flat) {
        at = o;
        at[d.Axis] = 0;
        // validate_values refused a negative length: none is met here.
        const uint64_t length = sequence_length(d.SequenceLengthsTensor.DataType,
                                                L.base + offset(L.strides, at) * int64_t(lw), size)
                                    .value_or(0);
        std::memcpy(Y.base + offset(Y.strides, o) * int64_t(w),
                    X.base + offset(X.strides, source(o, d.Axis, length)) * int64_t(w), w);
        for (uint32_t k = R; k-- > 0;) {
            if (++o[k] < d.OutputTensor.Sizes[k]) break;
            o[k] = 0;
        }
    }
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The subsequence's length (as given, and as used), and the source element.
bool explain_reverse(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    const std::vector<uint64_t> o = nd_coordinate(d->OutputTensor.Sizes, flat);
    std::vector<uint64_t> at = o;
    at[d->Axis] = 0;
    const TensorView L(d->SequenceLengthsTensor, std::span<const std::byte>(c.inputs.at("SequenceLengthsTensor")));
    const DataType lt = d->SequenceLengthsTensor.DataType;
    const std::byte* p = L.base + offset(L.strides, at) * int64_t(element_size(lt));
    const uint64_t size = d->InputTensor.Sizes[d->Axis];
    const uint64_t length = sequence_length(lt, p, size).value_or(0);
    out.inputs.push_back(input_element(c, "SequenceLengthsTensor", at, "length"));
    out.facts.emplace_back("subsequence", "along Axis " + std::to_string(d->Axis) + " (size " + std::to_string(size) +
                                              "), length " + format_value(lt, load_bits(lt, p)) +
                                              (load_bits(lt, p) > size ? ", clamped to " + std::to_string(size) : ""));
    const std::vector<uint64_t> s = source(o, d->Axis, length);
    out.facts.emplace_back(
        "source", o[d->Axis] < length
                      ? "position " + std::to_string(o[d->Axis]) + " reversed: " + std::to_string(length) + " - 1 - " +
                            std::to_string(o[d->Axis]) + " = " + std::to_string(s[d->Axis])
                      : "position " + std::to_string(o[d->Axis]) + " is past the subsequence: copied");
    out.inputs.push_back(input_element(c, "InputTensor", s, "source"));
    out.policies = {"SequenceLengthBeyondSize", "NegativeSequenceLength", "Subnormals"};
    return true;
}

}  // namespace dmlref::reference
