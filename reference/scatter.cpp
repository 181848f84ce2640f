// DML_OPERATOR_SCATTER_ELEMENTS (DML_OPERATOR_SCATTER) and DML_OPERATOR_SCATTER_ND.
//
// Spec: DML_SCATTER_OPERATOR_DESC and DML_SCATTER_ND_OPERATOR_DESC (DirectML API reference); rules
// in docs/rules.md (scatter-elements.*, scatter-nd.*).
//
//   SCATTER_ELEMENTS  output = input; output[i, indices[i, j, k], k] = updates[i, j, k] (Axis 1)
//   SCATTER_ND        output = input; output[indices[m, 0..k), t] = updates[m, t]
//
// A scatter writes where the matching gather reads (GATHER_ELEMENTS, GATHER_ND with no batch):
// UpdatesTensor is walked as that gather's OutputTensor, and each of its elements goes to the
// input coordinate the gather would read (reference/gather.cpp, namespace gathering: the same
// formulas, negative indices and index rules).
//
// Rules (each with its id): the four tensors have one DimensionCount (.dimension-count); InputTensor,
// UpdatesTensor and OutputTensor one DataType (.same-data-type); OutputTensor has InputTensor's Sizes
// (.output-sizes); IndicesTensor INT32, INT64, UINT32 or UINT64 (.indices-data-type);
// SCATTER_ELEMENTS: Axis < DimensionCount (.axis), IndicesTensor.Sizes match InputTensor.Sizes but at
// Axis (.indices-sizes), UpdatesTensor.Sizes are IndicesTensor.Sizes (.updates-sizes);
// SCATTER_ND: InputDimensionCount and IndicesDimensionCount in [1, DimensionCount]
// (.input-dimension-count, .indices-dimension-count: the page says [1, DimensionCount), yet its
// example has InputDimensionCount 1 of a 1-D tensor), the dimensions before them 1
// (.input-leading-ones, .indices-leading-ones), the tuple size at most InputDimensionCount
// (.tuple-size), UpdatesTensor.Sizes the page's formula (.updates-sizes). Values: every index inside
// its dimension (.index-range).
//
// Decisions (docs/golden.md, "Scattering"):
//   - NegativeIndex=FromEndOnce, OutOfRangeIndex=Refused: as the gathers.
//   - DuplicateIndex=AnyWrite: "If two output element indices overlap (which is invalid), there is
//     no guarantee of which last write wins" (the pages). An output element that several updates
//     write with different bits has no single right answer: its golden states the admissible set,
//     the distinct bits of every update that writes it (scatter_admissible), and `diff` accepts
//     any of them. The golden's value is the last write in UpdatesTensor's row-major order, which
//     the loop below gives; LastInOrder (an alternative) takes that value as the only answer.
//     Updates of the same bits leave one right answer, whatever the reading.
//   - Values are moved: bytes copied, NaN payloads and -0 unchanged.
#include "scatter.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <algorithm>

#include <cstring>
#include <limits>

namespace dmlref::reference {

using namespace gathering;

namespace {

Geometry geometry(const DML_SCATTER_OPERATOR_DESC& d) {
    Geometry g{"scatter-elements", Kind::Elements, d.InputTensor, d.IndicesTensor, d.UpdatesTensor};
    g.axis = d.Axis;
    g.walked = "UpdatesTensor";
    g.all_tensors = "IndicesTensor, InputTensor, UpdatesTensor and OutputTensor";
    return g;
}
Geometry geometry(const DML_SCATTER_ND_OPERATOR_DESC& d) {
    Geometry g{"scatter-nd", Kind::ND, d.InputTensor, d.IndicesTensor, d.UpdatesTensor};
    g.input_dims = d.InputDimensionCount;
    g.indices_dims = d.IndicesDimensionCount;
    g.walked = "UpdatesTensor";
    g.all_tensors = "IndicesTensor, InputTensor, UpdatesTensor and OutputTensor";
    return g;
}

void validate_scatter(const Geometry& g, const TensorDesc& output, Diagnostics& diags) {
    // "The Sizes and DataType of this tensor must match InputTensor".
    if (output.DimensionCount() != g.rank())
        diags.error("/desc/OutputTensor/Sizes", rule(g, "dimension-count"),
                    "OutputTensor has " + std::to_string(output.DimensionCount()) + " dimensions but InputTensor has " +
                        std::to_string(g.rank()) + "; " + std::string(g.all_tensors) +
                        " must have the same DimensionCount");
    else if (output.Sizes != g.input.Sizes)
        diags.error("/desc/OutputTensor/Sizes", rule(g, "output-sizes"),
                    "OutputTensor.Sizes are " + sizes_text(output.Sizes) + " but InputTensor.Sizes are " +
                        sizes_text(g.input.Sizes) + "; they must be the same");
    require_same_data_type(diags, {{"InputTensor", g.input}, {"OutputTensor", output}}, rule(g, "same-data-type"));
    validate_geometry(g, diags);
}

// Calls f(updates flat, output flat, index coordinate of the first index element read) for every
// UpdatesTensor element whose indices resolve; the desc has validated.
template <class F> void for_each_write(const Geometry& g, std::span<const std::byte> indices, F&& f) {
    const TensorView I(g.indices, indices);
    const uint32_t R = g.rank();
    const size_t iw = element_size(g.indices.DataType), n = meaningful_sizes(g).size();
    const auto out_strides = packed_strides(g.input.Sizes);
    std::array<uint64_t, kMaxDimensionCount> u{};
    Lookup l;
    const uint64_t count = element_count(g.output);
    for (uint64_t flat = 0; flat < count; ++flat) {
        lookup(g, u.data(), n, l);
        bool inside = true;
        for (uint32_t j = 0; j < l.count; ++j) {
            const auto v = resolve(g.indices.DataType, I.base + offset_of(I.strides, l.at[j].data(), R) * int64_t(iw),
                                   g.input.Sizes[l.dim[j]]);
            inside = inside && v.has_value();
            l.in[l.dim[j]] = v.value_or(0);
        }
        if (inside) f(flat, uint64_t(offset_of(out_strides, l.in.data(), R)), l);
        for (uint32_t d = R; d-- > 0;) {
            if (++u[d] < g.output.Sizes[d]) break;
            u[d] = 0;
        }
    }
}

// The bits of the walked (UpdatesTensor) element `flat`.
uint64_t update_bits(const Geometry& g, const TensorView& U, uint64_t flat) {
    const auto c = nd_coordinate(g.output.Sizes, flat);
    return load_bits(g.output.DataType,
                     U.base + offset_of(U.strides, c.data(), c.size()) * int64_t(element_size(g.output.DataType)));
}

// Every write the loop makes (output flat, the update's bits), in its order; none where the desc
// breaks a rule or an input is missing.
std::vector<Write> writes(const Geometry& g, const InputBuffers& inputs) {
    std::vector<Write> out;
    const auto ix = inputs.find("IndicesTensor"), up = inputs.find("UpdatesTensor");
    Diagnostics desc;
    validate_geometry(g, desc);
    if (ix == inputs.end() || up == inputs.end() || desc.has_errors() || ix->second.size() < buffer_size(g.indices) ||
        up->second.size() < buffer_size(g.output))
        return out;
    const TensorView U(g.output, std::span<const std::byte>(up->second));
    for_each_write(g, ix->second, [&](uint64_t flat, uint64_t target, const Lookup&) {
        out.push_back({target, update_bits(g, U, flat)});
    });
    return out;
}

void validate_scatter_values(const Geometry& g, const InputBuffers& inputs, Diagnostics& diags) {
    validate_index_values(g, inputs, diags);
}

void evaluate_scatter(const Geometry& g, const TensorDesc& output, const Bindings& b) {
    const TensorView X(g.input, b.at("InputTensor"));
    const TensorView U(g.output, b.at("UpdatesTensor"));
    const TensorView Y(output, b.at("OutputTensor"));
    const size_t w = element_size(g.input.DataType);
    const uint32_t R = g.rank();
    // output = input, element by element through both tensors' strides.
    for (uint64_t flat = 0, n = element_count(g.input); flat < n; ++flat) {
        const auto c = nd_coordinate(g.input.Sizes, flat);
        std::memcpy(Y.base + offset_of(Y.strides, c.data(), R) * int64_t(w),
                    X.base + offset_of(X.strides, c.data(), R) * int64_t(w), w);
    }
    // Then every update, in UpdatesTensor's row-major order: where several write one element, the
    // last wins (the golden's value; DuplicateIndex=AnyWrite admits every one of them).
    const std::span<const std::byte> indices = b.at("IndicesTensor");
    for_each_write(g, indices, [&](uint64_t flat, uint64_t target, const Lookup&) {
        const auto u = nd_coordinate(g.output.Sizes, flat);
        const auto t = nd_coordinate(g.input.Sizes, target);
        std::memcpy(Y.base + offset_of(Y.strides, t.data(), R) * int64_t(w),
                    U.base + offset_of(U.strides, u.data(), R) * int64_t(w), w);
    });
}

}  // namespace

void validate(const DML_SCATTER_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_scatter(geometry(d), d.OutputTensor, diags);
}
void validate(const DML_SCATTER_ND_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_scatter(geometry(d), d.OutputTensor, diags);
}
void validate_values(const DML_SCATTER_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_scatter_values(geometry(d), in, diags);
}
void validate_values(const DML_SCATTER_ND_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_scatter_values(geometry(d), in, diags);
}
void evaluate(const DML_SCATTER_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_scatter(geometry(d), d.OutputTensor, b);
}
void evaluate(const DML_SCATTER_ND_OPERATOR_DESC& d, const Bindings& b) {
    evaluate_scatter(geometry(d), d.OutputTensor, b);
}

std::vector<Admissible> any_write_sets(std::vector<Write> w) {
    std::vector<Admissible> out;
    // By target, each target's writes in the loop's order; then per target the last write of each
    // distinct value, in the order of those last writes.
    std::vector<uint64_t> order(w.size());
    for (uint64_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) { return w[a].target < w[b].target; });
    for (size_t lo = 0, hi; lo < order.size(); lo = hi) {
        for (hi = lo + 1; hi < order.size() && w[order[hi]].target == w[order[lo]].target;) ++hi;
        if (hi - lo < 2) continue;
        std::vector<std::pair<uint64_t, uint64_t>> last;  // (bits, position of its last write)
        for (size_t k = lo; k < hi; ++k) last.emplace_back(w[order[k]].bits, order[k]);
        std::sort(last.begin(), last.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        last.erase(
            std::unique(last.begin(), last.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
            last.end());
        if (last.size() < 2) continue;  // one value: one right answer
        std::sort(last.begin(), last.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        Admissible a{w[order[lo]].target, {}};
        for (const auto& [bits, at] : last) a.Values.push_back(bits);
        out.push_back(std::move(a));
    }
    return out;
}

uint64_t scatter_collisions(const Case& c) {
    const auto g = visit_as<DML_SCATTER_OPERATOR_DESC, DML_SCATTER_ND_OPERATOR_DESC>(
        c.op.Desc, [](const auto& d) { return geometry(d); });
    const std::vector<Write> w = writes(g, c.inputs);
    std::vector<uint64_t> targets;
    for (const Write& x : w) targets.push_back(x.target);
    std::sort(targets.begin(), targets.end());
    return uint64_t(targets.size() - size_t(std::unique(targets.begin(), targets.end()) - targets.begin()));
}

std::vector<Admissible> scatter_admissible(const Case& c, std::string_view output) {
    if (output != "OutputTensor" || in_force<"DuplicateIndex", "LastInOrder">()) return {};
    const auto g = visit_as<DML_SCATTER_OPERATOR_DESC, DML_SCATTER_ND_OPERATOR_DESC>(
        c.op.Desc, [](const auto& d) { return geometry(d); });
    return any_write_sets(writes(g, c.inputs));
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The updates that write the element (the last of them, in UpdatesTensor's order, is the value;
// where their bits differ, each is a candidate), or the input element it keeps.
bool explain_scatter(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    (void)output;
    const auto g = visit_as<DML_SCATTER_OPERATOR_DESC, DML_SCATTER_ND_OPERATOR_DESC>(
        c.op.Desc, [](const auto& d) { return geometry(d); });
    const uint32_t R = g.rank();
    const auto target = nd_coordinate(g.input.Sizes, flat);
    const size_t iw = element_size(g.indices.DataType);
    const TensorView I(g.indices, std::span<const std::byte>(c.inputs.at("IndicesTensor")));
    const TensorView U(g.output, std::span<const std::byte>(c.inputs.at("UpdatesTensor")));
    std::vector<std::pair<uint64_t, Lookup>> writers;
    for_each_write(g, c.inputs.at("IndicesTensor"), [&](uint64_t u, uint64_t t, const Lookup& l) {
        if (t == flat) writers.emplace_back(u, l);
    });
    const auto index_text = [&](const Lookup& l) {
        std::string s;
        for (uint32_t j = 0; j < l.count; ++j) {
            const std::byte* p = I.base + offset_of(I.strides, l.at[j].data(), R) * int64_t(iw);
            s += (j ? ", " : "") + std::string("IndicesTensor[") + coordinate_text(l.at[j].data(), R) +
                 "] = " + index_value_text(g.indices.DataType, p);
        }
        return s;
    };
    if (writers.empty()) {
        out.facts.emplace_back("source", "no index names OutputTensor[" + coordinate_text(target.data(), R) +
                                             "]: InputTensor's element, copied");
        out.inputs.push_back(input_element(c, "InputTensor", target, "input"));
    } else {
        const Lookup& last = writers.back().second;
        const auto u = nd_coordinate(g.output.Sizes, writers.back().first);
        for (uint32_t j = 0; j < last.count; ++j) {
            const std::byte* p = I.base + offset_of(I.strides, last.at[j].data(), R) * int64_t(iw);
            out.facts.emplace_back("index", "IndicesTensor[" + coordinate_text(last.at[j].data(), R) +
                                                "] = " + index_value_text(g.indices.DataType, p) +
                                                " indexes dimension " + std::to_string(last.dim[j]) + " (size " +
                                                std::to_string(g.input.Sizes[last.dim[j]]) + ")");
            out.inputs.push_back(input_element(
                c, "IndicesTensor", std::vector<uint64_t>(last.at[j].begin(), last.at[j].begin() + R), "index"));
        }
        bool differ = false;
        const uint64_t last_bits = update_bits(g, U, writers.back().first);
        for (const auto& [w, l] : writers) differ = differ || update_bits(g, U, w) != last_bits;
        out.facts.emplace_back(
            "source", "UpdatesTensor[" + coordinate_text(u.data(), R) + "] (bits copied)" +
                          (writers.size() < 2 ? ""
                           : differ           ? "; the last of " + std::to_string(writers.size()) +
                                          " updates that write this element with different bits (DuplicateIndex)"
                                    : "; " + std::to_string(writers.size()) +
                                          " updates write this element, all with these bits"));
        // Every write that could win (DuplicateIndex=AnyWrite), in UpdatesTensor's order.
        if (differ)
            for (const auto& [w, l] : writers) {
                const auto uc = nd_coordinate(g.output.Sizes, w);
                out.facts.emplace_back("candidate", "UpdatesTensor[" + coordinate_text(uc.data(), R) +
                                                        "] = " + format_value(g.output.DataType, update_bits(g, U, w)) +
                                                        ", by " + index_text(l));
            }
        out.inputs.push_back(input_element(c, "UpdatesTensor", u, "update"));
    }
    out.policies = {"NegativeIndex", "OutOfRangeIndex", "DuplicateIndex"};
    return true;
}

}  // namespace dmlref::reference
