// DML_OPERATOR_TILE.
//
// Spec: DML_TILE_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md (tile.*).
//
//   Out[c] = In[c mod In.Sizes]   (per dimension i: c[i] mod InputTensor.Sizes[i])
//
// Rules: RepeatsCount equals the length of Repeats and both tensors' DimensionCount ("each value
// corresponds to one of the input tensor's dimensions"); OutputTensor has InputTensor's DataType
// and DimensionCount ("the same dimension and type as the input tensor"); OutputTensor.Sizes[i] =
// InputTensor.Sizes[i] * Repeats[i] ("Output_dim[i] = input_dim[i] * repeats[i]"), so every
// repeat is at least 1 (an output size is at least 1).
//
// Decisions (docs/golden.md, "Tile"): values are moved as bits (Subnormals = Preserve).
//
// The loop: one strided copy per tile, the output's base moved to the tile's corner.
#include "tile.hpp"
#include "element_copy.hpp"

namespace dmlref::reference {

void validate(const DML_TILE_OPERATOR_DESC& d, Diagnostics& diags) {
    const Named in{"InputTensor", d.InputTensor}, out{"OutputTensor", d.OutputTensor};
    require_same_data_type(diags, {in, out}, "tile.same-data-type");
    const uint32_t n = d.RepeatsCount;
    bool ok = true;
    if (d.Repeats.size() != n) {
        ok = false;
        diags.error(desc_path("Repeats"), "tile.array-length",
                    "Repeats has " + std::to_string(d.Repeats.size()) + " entries; it must have RepeatsCount (" +
                        std::to_string(n) + ") entries");
    }
    for (const Named& t : {in, out})
        if (t.desc.DimensionCount() != n) {
            ok = false;
            diags.error(desc_path("RepeatsCount"), "tile.dimension-count",
                        "RepeatsCount is " + std::to_string(n) + " but " + std::string(t.name) + " has " +
                            std::to_string(t.desc.DimensionCount()) +
                            " dimensions; each repeat corresponds to one dimension of InputTensor and OutputTensor");
        }
    if (!ok) return;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t want = uint64_t(d.InputTensor.Sizes[i]) * d.Repeats[i];
        if (d.OutputTensor.Sizes[i] != want)
            diags.error(pointer_append(pointer_append(desc_path("OutputTensor"), "Sizes"), i), "tile.output-size",
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                            " but InputTensor.Sizes[" + std::to_string(i) + "] * Repeats[" + std::to_string(i) +
                            "] is " + std::to_string(d.InputTensor.Sizes[i]) + " * " + std::to_string(d.Repeats[i]) +
                            " = " + std::to_string(want));
    }
}

void evaluate(const DML_TILE_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t rank = d.RepeatsCount;
    std::vector<uint32_t> tile(rank, 0);  // which copy, per dimension
    by_width(d.InputTensor.DataType, [&]<class U>() {
        while (true) {
            int64_t base = 0;
            for (size_t i = 0; i < rank; ++i) base += int64_t(tile[i]) * d.InputTensor.Sizes[i] * Y.strides[i];
            copy_elements<U>(X.sizes(), Y.base, Y.strides.data(), base, X.base, X.strides.data(), 0);
            size_t i = rank;
            while (i-- > 0) {
                if (++tile[i] < d.Repeats[i]) break;
                tile[i] = 0;
            }
            if (i == size_t(-1)) break;  // every tile written
        }
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_tile(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_TILE_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    const std::vector<uint64_t> at = nd_coordinate(d->OutputTensor.Sizes, flat);
    std::vector<uint64_t> source;
    std::string text;
    for (size_t i = 0; i < at.size(); ++i) {
        source.push_back(at[i] % d->InputTensor.Sizes[i]);
        text += (i ? ", " : "") + std::to_string(at[i]) + " mod " + std::to_string(d->InputTensor.Sizes[i]) + " = " +
                std::to_string(source.back());
    }
    out.facts.emplace_back(
        "source", "InputTensor[" + text + "] (copy " + [&] {
            std::string t;
            for (size_t i = 0; i < at.size(); ++i)
                t += (i ? "," : "") + std::to_string(at[i] / d->InputTensor.Sizes[i]);
            return t;
        }() + ")");
    out.inputs.push_back(input_element(c, "InputTensor", source, "source"));
    out.policies.push_back("Subnormals");
    return true;
}

}  // namespace dmlref::reference
