// DML_OPERATOR_TOP_K and DML_OPERATOR_TOP_K1.
//
// Spec: DML_TOP_K_OPERATOR_DESC and DML_TOP_K1_OPERATOR_DESC (DirectML API reference); rules in
// docs/rules.md (top-k.*, top-k1.*).
//
//   For each sequence along Axis: its elements ordered by value (DECREASING: largest first; TOP_K
//   always decreasing; INCREASING: smallest first), equal values "ordered by ascending element
//   index ... irrespective of the value of AxisDirection"; the first K go to OutputValueTensor
//   (bits copied) and their positions in the sequence to OutputIndexTensor.
//
// Rules (each with its id): the three tensors have one DimensionCount (.dimension-count);
// InputTensor and OutputValueTensor one DataType (.same-data-type); OutputIndexTensor UINT32 or
// UINT64 (.index-data-type: the tables list UINT32; dmlref also writes UINT64); Axis < DimensionCount
// (.axis); K from 1 to the sequence's size (.k: the page says "less than the number of elements",
// yet a K of the whole sequence has one meaning, the sorted sequence, and ONNX TopK allows it);
// both outputs have InputTensor's sizes with K at Axis (.output-sizes); TOP_K1: AxisDirection is
// INCREASING or DECREASING (.axis-direction).
//
// Decisions (docs/golden.md, "Top-K"):
//   - TopKTies=LowerIndexFirst: the page's tie rule, in both directions.
//   - TopKSignedZero=EqualTie: -0 and +0 are equal values, so they tie and the lower index comes first.
//   - TopKNaN=NaNLargest: a NaN orders above +inf (all NaNs equal, so among them the lower index first):
//     DECREASING selects NaNs first, INCREASING last (numpy's sort and PyTorch's topk).
//   The alternative readings TopKTies=HigherIndexFirstWhenIncreasing and TopKNaN=NaNLoses are
//   evaluated (sequence_order).
#include "top_k.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace {

struct TopKParams {
    std::string_view op;
    const TensorDesc& input;
    const TensorDesc& values;
    const TensorDesc& indices;
    uint32_t axis, k;
    bool decreasing;
};

TopKParams params(const DML_TOP_K_OPERATOR_DESC& d) {
    return {"top-k", d.InputTensor, d.OutputValueTensor, d.OutputIndexTensor, d.Axis, d.K, true};
}
TopKParams params(const DML_TOP_K1_OPERATOR_DESC& d) {
    return {"top-k1",
            d.InputTensor,
            d.OutputValueTensor,
            d.OutputIndexTensor,
            d.Axis,
            d.K,
            d.AxisDirection == DML_AXIS_DIRECTION_DECREASING};
}

std::string topk_rule(const TopKParams& p, std::string_view r) { return std::string(p.op) + "." + std::string(r); }

void validate_params(const TopKParams& p, Diagnostics& diags) {
    const uint32_t R = p.input.DimensionCount();
    bool ok = true;
    for (auto [name, t] : {std::pair<std::string_view, const TensorDesc*>{"OutputValueTensor", &p.values},
                           {"OutputIndexTensor", &p.indices}})
        if (t->DimensionCount() != R) {
            ok = false;
            diags.error(sizes_path(name), topk_rule(p, "dimension-count"),
                        std::string(name) + " has " + std::to_string(t->DimensionCount()) +
                            " dimensions but InputTensor has " + std::to_string(R) +
                            "; InputTensor, OutputIndexTensor and OutputValueTensor must have the same DimensionCount");
        }
    require_same_data_type(diags, {{"InputTensor", p.input}, {"OutputValueTensor", p.values}},
                           topk_rule(p, "same-data-type"));
    if (p.indices.DataType != DataType::UINT32 && p.indices.DataType != DataType::UINT64)
        diags.error(pointer_append(desc_path("OutputIndexTensor"), "DataType"), topk_rule(p, "index-data-type"),
                    "OutputIndexTensor is " + std::string(name(p.indices.DataType)) +
                        "; it must be UINT32 (the page's tables) or UINT64");
    if (p.axis >= R) {
        diags.error(desc_path("Axis"), topk_rule(p, "axis"),
                    "Axis is " + std::to_string(p.axis) + "; it must be less than InputTensor's DimensionCount (" +
                        std::to_string(R) + ")");
        return;
    }
    const uint32_t n = p.input.Sizes[p.axis];
    if (p.k < 1 || p.k > n)
        diags.error(desc_path("K"), topk_rule(p, "k"),
                    "K is " + std::to_string(p.k) +
                        "; it must be from 1 to the size of InputTensor's Axis dimension (" + std::to_string(n) + ")");
    if (!ok || diags.has_errors()) return;
    std::vector<uint32_t> want = p.input.Sizes;
    want[p.axis] = p.k;
    for (auto [name, t] : {std::pair<std::string_view, const TensorDesc*>{"OutputValueTensor", &p.values},
                           {"OutputIndexTensor", &p.indices}})
        if (t->Sizes != want)
            diags.error(sizes_path(name), topk_rule(p, "output-sizes"),
                        std::string(name) + ".Sizes are " + sizes_text(t->Sizes) +
                            "; they must be InputTensor's with K at Axis: " + sizes_text(want));
}

// Whether a orders strictly before b in the output (ties are broken by index outside): NaN above
// every number (TopKNaN=NaNLargest), -0 == +0 (TopKSignedZero=EqualTie). `nan_loses`
// (TopKNaN=NaNLoses): a NaN after every number in either direction. `zero_order`
// (TopKSignedZero=NegativeZeroSmaller): -0 below +0, so +0 first when DECREASING, -0 when INCREASING.
template <class T> bool before(T a, T b, bool decreasing, bool nan_loses, bool zero_order) {
    const bool na = is_nan(a), nb = is_nan(b);
    if (na || nb) return decreasing && !nan_loses ? (na && !nb) : (!na && nb);
    if constexpr (is_floating_v<T>) {
        if (zero_order && widen(a) == 0 && widen(b) == 0) {
            const bool sa = std::signbit(widen(a)), sb = std::signbit(widen(b));
            return decreasing ? (!sa && sb) : (sa && !sb);
        }
    }
    return decreasing ? exact_gt(a, b) : exact_lt(a, b);
}

// Calls f(base coordinate of the sequence) for every sequence along `axis` of `sizes`.
template <class F> void for_each_sequence(const std::vector<uint32_t>& sizes, uint32_t axis, F&& f) {
    std::vector<uint64_t> c(sizes.size(), 0);
    for (;;) {
        f(c);
        size_t d = sizes.size();
        for (;;) {
            if (d == 0) return;
            --d;
            if (d == axis) continue;
            if (++c[d] < sizes[d]) break;
            c[d] = 0;
        }
    }
}

// The order of one sequence (positions along Axis), first K of which are selected.
template <class T>
std::vector<uint32_t> sequence_order(const TopKParams& p, const TensorView& X, std::vector<uint64_t> c) {
    const uint32_t n = p.input.Sizes[p.axis];
    std::vector<T> v(n);
    for (uint32_t i = 0; i < n; ++i) {
        c[p.axis] = i;
        std::memcpy(&v[i], X.base + offset_of(X.strides, c) * int64_t(sizeof(T)), sizeof(T));
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    // The alternative readings (docs/golden.md, "Alternative readings"), each where it decides.
    // TopKTies=HigherIndexFirstWhenIncreasing: INCREASING as a DECREASING sort reversed, so
    // equal values come in descending index.
    if (!p.decreasing && in_force<"TopKTies", "HigherIndexFirstWhenIncreasing">())
        std::reverse(order.begin(), order.end());
    const bool nan_loses = in_force<"TopKNaN", "NaNLoses">();
    const bool zero_order = in_force<"TopKSignedZero", "NegativeZeroSmaller">();
    // stable: equal values keep the index order above (TopKTies=LowerIndexFirst: ascending).
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return before(v[a], v[b], p.decreasing, nan_loses, zero_order); });
    return order;
}

void evaluate_params(const TopKParams& p, const Bindings& b) {
    const TensorView X(p.input, b.at("InputTensor"));
    const TensorView V(p.values, b.at("OutputValueTensor"));
    const TensorView I(p.indices, b.at("OutputIndexTensor"));
    const size_t w = element_size(p.input.DataType);
    dispatch(p.input.DataType, [&]<class T>() {
        for_each_sequence(p.input.Sizes, p.axis, [&](std::vector<uint64_t> c) {
            const std::vector<uint32_t> order = sequence_order<T>(p, X, c);
            for (uint32_t k = 0; k < p.k; ++k) {
                c[p.axis] = order[k];
                const std::byte* src = X.base + offset_of(X.strides, c) * int64_t(w);
                c[p.axis] = k;
                std::memcpy(V.base + offset_of(V.strides, c) * int64_t(w), src, w);
                std::byte* dst = I.base + offset_of(I.strides, c) * int64_t(element_size(p.indices.DataType));
                if (p.indices.DataType == DataType::UINT64) {
                    const uint64_t x = order[k];
                    std::memcpy(dst, &x, 8);
                } else {
                    const uint32_t x = order[k];
                    std::memcpy(dst, &x, 4);
                }
            }
        });
    });
}

}  // namespace

void validate(const DML_TOP_K_OPERATOR_DESC& d, Diagnostics& diags) { validate_params(params(d), diags); }
void validate(const DML_TOP_K1_OPERATOR_DESC& d, Diagnostics& diags) {
    if (d.AxisDirection > DML_AXIS_DIRECTION_DECREASING)
        diags.error(desc_path("AxisDirection"), "top-k1.axis-direction",
                    "AxisDirection is " + std::to_string(d.AxisDirection) +
                        "; it must be DML_AXIS_DIRECTION_INCREASING (0) or DECREASING (1)");
    validate_params(params(d), diags);
}
void evaluate(const DML_TOP_K_OPERATOR_DESC& d, const Bindings& b) { evaluate_params(params(d), b); }
void evaluate(const DML_TOP_K1_OPERATOR_DESC& d, const Bindings& b) { evaluate_params(params(d), b); }

// The element's sequence in order, its rank in it, and the element chosen.
bool explain_top_k(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const TopKParams p = visit_as<DML_TOP_K_OPERATOR_DESC, DML_TOP_K1_OPERATOR_DESC>(
        c.op.Desc, [](const auto& d) { return params(d); });
    const TensorView X(p.input, std::span<const std::byte>(c.inputs.at("InputTensor")));
    std::vector<uint64_t> at = nd_coordinate(p.values.Sizes, flat);
    const uint64_t rank = at[p.axis];
    at[p.axis] = 0;
    const std::vector<uint32_t> order = dispatch(p.input.DataType,
                                                 [&]<class T>() { return sequence_order<T>(p, X, at); });
    std::string seq;
    for (uint32_t i = 0; i < order.size(); ++i) seq += (i ? ", " : "") + std::to_string(order[i]);
    out.facts.emplace_back("sequence", "InputTensor along Axis " + std::to_string(p.axis) + ", ordered " +
                                           (p.decreasing ? "largest first" : "smallest first") +
                                           " (ties: lower index first): positions " + seq);
    out.facts.emplace_back(
        "rank", std::to_string(rank) + " of K = " + std::to_string(p.k) + ": position " + std::to_string(order[rank]) +
                    (output == "OutputIndexTensor" ? " (the index written)" : " (its bits written)"));
    at[p.axis] = order[rank];
    out.inputs.push_back(input_element(c, "InputTensor", at, "selected"));
    out.policies = {"TopKTies", "TopKSignedZero", "TopKNaN"};
    return true;
}

// gen's "auto" sizes: both outputs are InputTensor's with K at Axis.
bool top_k_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputValueTensor" && q.tensor != "OutputIndexTensor") return true;
    const auto a = q.desc.find("Axis"), k = q.desc.find("K");
    if (a == q.desc.end() || k == q.desc.end() || !a->is_number_unsigned() || !k->is_number_unsigned() ||
        a->get<uint64_t>() >= out.size()) {
        path = "/desc/Axis";
        error =
            "Axis and K must be given, Axis less than InputTensor's DimensionCount, for the outputs' sizes to be derived";
        return false;
    }
    out[a->get<size_t>()] = k->get<uint64_t>();
    return true;
}

}  // namespace dmlref::reference
