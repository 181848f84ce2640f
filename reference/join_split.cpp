// DML_OPERATOR_JOIN and DML_OPERATOR_SPLIT.
//
// Spec: DML_JOIN_OPERATOR_DESC and DML_SPLIT_OPERATOR_DESC (DirectML API reference); rules in
// docs/rules.md (join.*, split.*).
//
//   JOIN   the inputs laid end to end along Axis: Out[c] = InputTensors[k][c - Start[k] e_Axis]
//          for Start[k] <= c[Axis] < Start[k] + InputTensors[k].Sizes[Axis], where
//          Start[k] = the sum of InputTensors[j].Sizes[Axis] for j < k
//   SPLIT  the inverse: OutputTensors[k][c] = In[c + Start[k] e_Axis], Start[k] the sum of
//          OutputTensors[j].Sizes[Axis] for j < k
//
// Rules (the pages' pseudocode and member descriptions; "the array" is InputTensors for JOIN,
// OutputTensors for SPLIT, "the single tensor" OutputTensor for JOIN, InputTensor for SPLIT):
//   InputCount / OutputCount > 0;  Axis < the single tensor's DimensionCount;
//   every tensor of the array has the single tensor's DataType and DimensionCount, and its Sizes
//   in every dimension but Axis; the array's Sizes[Axis] sum to the single tensor's Sizes[Axis].
//   (Each Sizes[Axis] is at least 1: the tensor rule tensor.sizes.positive.)
//
// Decisions (docs/golden.md, "Join and split"): values are moved, never computed: each element's
// bytes are copied, so NaN payloads, -0, subnormals and 64-bit extremes pass unchanged. Every
// tensor is read or written through its own strides (an input with a zero stride is broadcast).
// Neither page allows in-place execution.
//
// The loops: one strided copy per tensor of the array, over that tensor's logical shape, with
// the single tensor's base moved Start[k] along Axis.
#include "join_split.hpp"
#include "element_copy.hpp"

namespace dmlref::reference {

namespace {

// The rules JOIN and SPLIT share. `one` is the single tensor, `array` the tensor array.
void validate_join_split(Diagnostics& diags, std::string_view op, std::string_view count_name,
                         std::string_view array_name, const std::vector<TensorDesc>& array, Named one, uint32_t axis) {
    const std::string o(op);
    if (array.empty()) {
        diags.error(desc_path(array_name),
                    o + "." + std::string(count_name == "InputCount" ? "input-count" : "output-count"),
                    std::string(count_name) + " is 0; it must be greater than 0 (" + std::string(array_name) +
                        " holds at least one tensor)");
        return;
    }
    const uint32_t rank = one.desc.DimensionCount();
    if (axis >= rank) {
        diags.error(desc_path("Axis"), o + ".axis",
                    "Axis is " + std::to_string(axis) + "; it must be in [0, " + std::string(one.name) +
                        ".DimensionCount - 1] = [0, " + std::to_string(rank - 1) + "]");
    }
    uint64_t sum = 0;
    bool sizes_ok = true;
    for (size_t k = 0; k < array.size(); ++k) {
        const std::string name(tensor_array_element(array_name, k));
        const TensorDesc& t = array[k];
        if (t.DataType != one.desc.DataType)
            diags.error(pointer_append(desc_path(name), "DataType"), o + ".same-data-type",
                        name + " is " + std::string(dmlref::name(t.DataType)) + " but " + std::string(one.name) +
                            " is " + std::string(dmlref::name(one.desc.DataType)) + "; " + std::string(array_name) +
                            " and " + std::string(one.name) + " must have the same DataType");
        if (t.DimensionCount() != rank) {
            diags.error(pointer_append(desc_path(name), "Sizes"), o + ".dimension-count",
                        name + " has " + std::to_string(t.DimensionCount()) + " dimensions but " +
                            std::string(one.name) + " has " + std::to_string(rank) + "; " + std::string(array_name) +
                            " and " + std::string(one.name) + " must have the same DimensionCount");
            sizes_ok = false;
            continue;
        }
        if (axis >= rank) continue;
        for (uint32_t i = 0; i < rank; ++i) {
            if (i == axis) continue;
            if (t.Sizes[i] != one.desc.Sizes[i]) {
                diags.error(pointer_append(pointer_append(desc_path(name), "Sizes"), i), o + ".sizes",
                            name + ".Sizes[" + std::to_string(i) + "] is " + std::to_string(t.Sizes[i]) + " but " +
                                std::string(one.name) + ".Sizes[" + std::to_string(i) + "] is " +
                                std::to_string(one.desc.Sizes[i]) +
                                "; every tensor must have the same size in every dimension but Axis (" +
                                std::to_string(axis) + ")");
                sizes_ok = false;
            }
        }
        sum += t.Sizes[axis];
    }
    if (axis < rank && sizes_ok && sum != one.desc.Sizes[axis])
        diags.error(pointer_append(pointer_append(desc_path(one.name), "Sizes"), axis), o + ".axis-sum",
                    std::string(one.name) + ".Sizes[" + std::to_string(axis) + "] is " +
                        std::to_string(one.desc.Sizes[axis]) + " but the Sizes[" + std::to_string(axis) + "] of " +
                        std::string(array_name) + " sum to " + std::to_string(sum) + "; they must sum to exactly " +
                        std::string(one.name) + ".Sizes[Axis]");
}

// The copy of both operators: tensor k of the array holds the single tensor's stretch of Axis
// from Start[k] (the sum of the earlier tensors' Sizes[Axis]). JOIN copies each into the single
// tensor (`into_one`), SPLIT out of it.
void copy_along_axis(const std::vector<TensorDesc>& array, std::string_view array_name, Named one, uint32_t axis,
                     const Bindings& b, bool into_one) {
    const TensorView S(one.desc, b.at(one.name));
    int64_t start = 0;
    for (size_t k = 0; k < array.size(); ++k) {
        const TensorView A(array[k], b.at(tensor_array_element(array_name, k)));
        const int64_t at = start * S.strides[axis];
        by_width(one.desc.DataType, [&]<class U>() {
            if (into_one) copy_elements<U>(A.sizes(), S.base, S.strides.data(), at, A.base, A.strides.data(), 0);
            else copy_elements<U>(A.sizes(), A.base, A.strides.data(), 0, S.base, S.strides.data(), at);
        });
        start += array[k].Sizes[axis];
    }
}

}  // namespace

// ---- JOIN ---------------------------------------------------------------------------------

void validate(const DML_JOIN_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_join_split(diags, "join", "InputCount", "InputTensors", d.InputTensors, {"OutputTensor", d.OutputTensor},
                        d.Axis);
}

void evaluate(const DML_JOIN_OPERATOR_DESC& d, const Bindings& b) {
    copy_along_axis(d.InputTensors, "InputTensors", {"OutputTensor", d.OutputTensor}, d.Axis, b, true);
}

// ---- SPLIT --------------------------------------------------------------------------------

void validate(const DML_SPLIT_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_join_split(diags, "split", "OutputCount", "OutputTensors", d.OutputTensors, {"InputTensor", d.InputTensor},
                        d.Axis);
}

void evaluate(const DML_SPLIT_OPERATOR_DESC& d, const Bindings& b) {
    copy_along_axis(d.OutputTensors, "OutputTensors", {"InputTensor", d.InputTensor}, d.Axis, b, false);
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The source of an output element: JOIN's OutputTensor element c comes from the input whose
// stretch of Axis holds c[Axis]; SPLIT's OutputTensors[k] element c from InputTensor at c moved
// Start[k] along Axis.
bool explain_join_split(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    auto text = [](const std::vector<uint64_t>& v) {
        std::string s;
        for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
        return s;
    };
    if (const auto* j = get_if<DML_JOIN_OPERATOR_DESC>(&c.op.Desc)) {
        std::vector<uint64_t> at = nd_coordinate(j->OutputTensor.Sizes, flat);
        uint64_t start = 0;
        for (size_t k = 0; k < j->InputTensors.size(); ++k) {
            const uint64_t n = j->InputTensors[k].Sizes[j->Axis];
            if (at[j->Axis] < start + n) {
                at[j->Axis] -= start;
                const std::string name(tensor_array_element("InputTensors", k));
                out.facts.emplace_back("source", name + "[" + text(at) + "]: Axis " + std::to_string(j->Axis) +
                                                     " positions " + std::to_string(start) + " to " +
                                                     std::to_string(start + n - 1) + " of OutputTensor come from " +
                                                     name);
                out.inputs.push_back(input_element(c, name, at, "source"));
                break;
            }
            start += n;
        }
    } else if (const auto* s = get_if<DML_SPLIT_OPERATOR_DESC>(&c.op.Desc)) {
        const auto e = split_tensor_array_element(output);
        if (!e || e->second >= s->OutputTensors.size()) return false;
        std::vector<uint64_t> at = nd_coordinate(s->OutputTensors[e->second].Sizes, flat);
        uint64_t start = 0;
        for (size_t k = 0; k < e->second; ++k) start += s->OutputTensors[k].Sizes[s->Axis];
        at[s->Axis] += start;
        out.facts.emplace_back("source", "InputTensor[" + text(at) + "]: " + std::string(output) + " holds Axis " +
                                             std::to_string(s->Axis) + " positions " + std::to_string(start) + " to " +
                                             std::to_string(start + s->OutputTensors[e->second].Sizes[s->Axis] - 1) +
                                             " of InputTensor");
        out.inputs.push_back(input_element(c, "InputTensor", at, "source"));
    } else {
        return false;
    }
    out.policies.push_back("Subnormals");
    return true;
}

}  // namespace dmlref::reference
