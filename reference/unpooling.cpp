// DML_OPERATOR_MAX_UNPOOLING.
//
// Spec: DML_MAX_UNPOOLING_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md
// (max-unpooling.*).
//
//   OutputTensor = 0;  OutputTensor[IndicesTensor[i]] = InputTensor[i]  for every element i
//
// with the index "zero-based", treating "the output tensor as a contiguous one-dimensional array":
// the logical row-major position in OutputTensor, whatever its Strides. Elements no index names
// are "left with zero values".
//
// Rules (each with its id): InputTensor and OutputTensor have one DataType (.same-data-type); the
// three tensors one DimensionCount (.dimension-count: "the same number of dimensions as the input
// tensor"); IndicesTensor has InputTensor's sizes (.indices-sizes: "the same tensor sizes");
// IndicesTensor is UINT32 or UINT64 (.indices-data-type, the tables); on the values, every index
// names an OutputTensor element (.index-range).
//
// Decisions (docs/golden.md, "Max unpooling"):
//   - OutOfRangeIndex=Refused: an index at or past OutputTensor's element count has no element to
//     write; the case is an error naming the IndicesTensor element (the gathers' decision).
//   - DuplicateIndex=AnyWrite: the page says nothing of two inputs sent to one element; where their
//     bits agree there is one answer, where they differ each could win: the golden states the
//     admissible set (unpooling_admissible) and its value is the last write in InputTensor's
//     row-major order (SCATTER's decision, reference/scatter.cpp; LastInOrder its alternative).
//   - SelectedZero=PositiveZero: an element no index names is +0 of the type.
//   - Subnormals=Preserve: values are copied as bits.
#include "unpooling.hpp"

#include "dmlref/readings.hpp"
#include "scatter.hpp"

#include "dmlref/values.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace dmlref::reference {

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

constexpr std::string_view kUnpooling = "max-unpooling";

// Calls f(i, target, bits) for every InputTensor element i (logical), its index and its bits.
template <class F>
void for_each_write(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, std::span<const std::byte> input,
                    std::span<const std::byte> indices, F&& f) {
    const std::vector<std::byte> x = gather_logical(d.InputTensor, input);
    const std::vector<std::byte> ix = gather_logical(d.IndicesTensor, indices);
    const size_t w = element_size(d.InputTensor.DataType), iw = element_size(d.IndicesTensor.DataType);
    for (uint64_t i = 0, n = element_count(d.InputTensor); i < n; ++i)
        f(i, load_bits(d.IndicesTensor.DataType, ix.data() + i * iw),
          load_bits(d.InputTensor.DataType, x.data() + i * w));
}

bool usable(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const InputBuffers& in) {
    Diagnostics desc;
    validate(d, desc);
    const auto x = in.find("InputTensor"), ix = in.find("IndicesTensor");
    return !desc.has_errors() && x != in.end() && ix != in.end() && x->second.size() >= buffer_size(d.InputTensor) &&
           ix->second.size() >= buffer_size(d.IndicesTensor);
}

}  // namespace

void validate(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           rule(kUnpooling, "same-data-type"));
    const DataType it = d.IndicesTensor.DataType;
    if (it != DataType::UINT32 && it != DataType::UINT64)
        diags.error(
            pointer_append(desc_path("IndicesTensor"), "DataType"), rule(kUnpooling, "indices-data-type"),
            "IndicesTensor is " + std::string(name(it)) + "; indices must be UINT32 or UINT64 (the page's tables)");
    const uint32_t R = d.InputTensor.DimensionCount();
    bool ok = true;
    for (auto [n, t] : {std::pair<std::string_view, const TensorDesc*>{"IndicesTensor", &d.IndicesTensor},
                        {"OutputTensor", &d.OutputTensor}})
        if (t->DimensionCount() != R) {
            ok = false;
            diags.error(sizes_path(n), rule(kUnpooling, "dimension-count"),
                        std::string(n) + " has " + std::to_string(t->DimensionCount()) +
                            " dimensions but InputTensor has " + std::to_string(R) +
                            "; OutputTensor has the input's number of dimensions, and IndicesTensor its sizes");
        }
    if (!ok) return;
    for (uint32_t i = 0; i < R; ++i)
        if (d.IndicesTensor.Sizes[i] != d.InputTensor.Sizes[i]) {
            diags.error(pointer_append(sizes_path("IndicesTensor"), i), rule(kUnpooling, "indices-sizes"),
                        "IndicesTensor.Sizes[" + std::to_string(i) + "] is " +
                            std::to_string(d.IndicesTensor.Sizes[i]) +
                            "; InputTensor and IndicesTensor have the same sizes (" +
                            std::to_string(d.InputTensor.Sizes[i]) + ")");
            break;
        }
}

UnpoolingCensus unpooling_census(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const InputBuffers& in) {
    UnpoolingCensus c;
    if (!usable(d, in)) return c;
    const uint64_t n = element_count(d.OutputTensor);
    std::vector<uint64_t> first(n, kNone), bits(n, 0);
    for_each_write(d, in.at("InputTensor"), in.at("IndicesTensor"), [&](uint64_t i, uint64_t target, uint64_t b) {
        if (target >= n) {
            if (c.out_of_range++ == 0) c.first_bad = i;
            return;
        }
        if (first[target] == kNone) {
            first[target] = i;
            bits[target] = b;
        } else if (bits[target] == b) {
            ++c.same_bits;
        } else if (c.different_bits++ == 0) {
            c.first_collision = i;
        }
    });
    for (uint64_t t = 0; t < n; ++t) c.unwritten += first[t] == kNone;
    return c;
}

void validate_values(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    if (!usable(d, in)) return;
    const uint64_t n = element_count(d.OutputTensor);
    int reported = 0;
    for_each_write(d, in.at("InputTensor"), in.at("IndicesTensor"), [&](uint64_t i, uint64_t target, uint64_t) {
        if (target >= n && reported++ < 8)
            diags.error(pointer_append("/inputs/IndicesTensor", i), rule(kUnpooling, "index-range"),
                        "IndicesTensor element " + std::to_string(i) + " is " + std::to_string(target) +
                            "; OutputTensor has " + std::to_string(n) + " elements (valid: 0 to " +
                            std::to_string(n - 1) + "); DirectML does not say what happens, dmlref refuses it");
    });
}

std::vector<Admissible> unpooling_admissible(const Case& c, std::string_view output) {
    const auto* d = get_if<DML_MAX_UNPOOLING_OPERATOR_DESC>(&c.op.Desc);
    if (!d || output != "OutputTensor" || in_force<"DuplicateIndex", "LastInOrder">() || !usable(*d, c.inputs))
        return {};
    const uint64_t n = element_count(d->OutputTensor);
    std::vector<Write> w;
    for_each_write(*d, c.inputs.at("InputTensor"), c.inputs.at("IndicesTensor"),
                   [&](uint64_t, uint64_t target, uint64_t bits) {
        if (target < n) w.push_back({target, bits});
    });
    return any_write_sets(std::move(w));
}

void evaluate(const DML_MAX_UNPOOLING_OPERATOR_DESC& d, const Bindings& b) {
    const std::span<std::byte> out = b.at("OutputTensor");
    const TensorView Y(d.OutputTensor, out);
    const DataType t = d.OutputTensor.DataType;
    const size_t w = element_size(t);
    const uint64_t n = element_count(d.OutputTensor);
    // Every element +0 (SelectedZero=PositiveZero: all-zero bits in every type), through the
    // output's strides; then the writes in InputTensor's order: where several write one element,
    // the last wins (the golden's value; DuplicateIndex=AnyWrite admits every one of them).
    const auto at = [&](uint64_t flat) {
        const auto c = nd_coordinate(d.OutputTensor.Sizes, flat);
        int64_t off = 0;
        for (size_t k = 0; k < c.size(); ++k) off += int64_t(c[k]) * Y.strides[k];
        return Y.base + off * int64_t(w);
    };
    for (uint64_t f = 0; f < n; ++f) store_bits(t, at(f), 0);
    const std::span<const std::byte> input = b.at("InputTensor"), indices = b.at("IndicesTensor");
    for_each_write(d, input, indices, [&](uint64_t, uint64_t target, uint64_t bits) {
        if (target < n) store_bits(t, at(target), bits);  // beyond: refused by validate_values, never a wild write
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The input elements whose index names this output element, or none (+0).
bool explain_unpooling(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_MAX_UNPOOLING_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    std::vector<uint64_t> writers, bits;
    for_each_write(*d, c.inputs.at("InputTensor"), c.inputs.at("IndicesTensor"),
                   [&](uint64_t i, uint64_t target, uint64_t b) {
        if (target == flat) {
            writers.push_back(i);
            bits.push_back(b);
        }
    });
    out.facts.emplace_back(
        "position", "element " + std::to_string(flat) + " of OutputTensor as a contiguous one-dimensional array");
    if (writers.empty()) {
        out.facts.emplace_back("written by", "no index: +0");
    } else {
        std::string list;
        for (uint64_t i : writers) list += (list.empty() ? "" : ", ") + std::to_string(i);
        const bool differ = std::any_of(bits.begin(), bits.end(), [&](uint64_t b) { return b != bits.back(); });
        out.facts.emplace_back("written by", "InputTensor element" + std::string(writers.size() > 1 ? "s " : " ") +
                                                 list +
                                                 (writers.size() < 2 ? ""
                                                  : differ ? " (different bits: each could win, the last is the "
                                                             "golden's value; DuplicateIndex)"
                                                           : " (the same bits: DuplicateIndex)"));
        // Every write that could win (DuplicateIndex=AnyWrite), in InputTensor's order.
        if (differ)
            for (size_t k = 0; k < writers.size(); ++k) {
                const auto c_at = nd_coordinate(d->InputTensor.Sizes, writers[k]);
                out.facts.emplace_back(
                    "candidate", "InputTensor[" + gathering::coordinate_text(c_at.data(), c_at.size()) +
                                     "] = " + format_value(d->InputTensor.DataType, bits[k]) + ", by IndicesTensor[" +
                                     gathering::coordinate_text(c_at.data(), c_at.size()) +
                                     "] = " + std::to_string(flat));
            }
        const auto at = nd_coordinate(d->InputTensor.Sizes, writers.back());
        out.inputs.push_back(input_element(c, "IndicesTensor", at, "index"));
        out.inputs.push_back(input_element(c, "InputTensor", at, "source"));
    }
    out.policies = {"OutOfRangeIndex", "DuplicateIndex", "SelectedZero", "Subnormals"};
    return true;
}

}  // namespace dmlref::reference
