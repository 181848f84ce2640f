// DML_OPERATOR_SPACE_TO_DEPTH, _SPACE_TO_DEPTH1, _DEPTH_TO_SPACE and _DEPTH_TO_SPACE1.
//
// Spec: DML_SPACE_TO_DEPTH_OPERATOR_DESC, DML_SPACE_TO_DEPTH1_OPERATOR_DESC,
// DML_DEPTH_TO_SPACE_OPERATOR_DESC, DML_DEPTH_TO_SPACE1_OPERATOR_DESC and DML_DEPTH_SPACE_ORDER
// (DirectML API reference); rules in docs/rules.md (space-to-depth*.*, depth-to-space*.*).
//
// b = BlockSize; the tensors are {N, C, H, W}. DEPTH_TO_SPACE writes {N, C / b^2, H b, W b}:
//   Out[n, c, h b + i, w b + j] = In[n, k, h, w] with
//     DEPTH_COLUMN_ROW (DCR)   k = (i b + j) C_out + c      (the channels are blocks of C_out)
//     COLUMN_ROW_DEPTH (CRD)   k = c b^2 + i b + j          (each channel's b^2 block together)
// SPACE_TO_DEPTH is its inverse, {N, C, H, W} -> {N, C b^2, H / b, W / b}:
//   Out[n, k, h, w] = In[n, c, h b + i, w b + j] with k as above (C_out replaced by C).
// The operators without Order are DEPTH_COLUMN_ROW (the "1" pages' remarks).
//
// Rules: both tensors have 4 dimensions and the same DataType; BlockSize >= 1; DEPTH_TO_SPACE's
// InputChannelCount is a multiple of b^2, SPACE_TO_DEPTH's InputHeight and InputWidth multiples
// of b; the OutputTensor sizes are the ones above; Order is a DML_DEPTH_SPACE_ORDER.
//
// Decisions (docs/golden.md, "Depth and space"): SpaceToDepthSizes = InverseOfDepthToSpace:
// SPACE_TO_DEPTH1's page gives its output as {Batch, Channels / (BlockSize * BlockSize), Height *
// BlockSize, Width * BlockSize}, DEPTH_TO_SPACE's formula, which its own example ({1,2,4,6} to
// {1,8,2,3}) and "the inverse transformation" contradict; dmlref follows the example. Values are
// moved as bits (Subnormals = Preserve).
#include "depth_space.hpp"
#include "element_copy.hpp"

namespace dmlref::reference {

namespace {

template <class D>
constexpr bool kToSpace = D::kType == OperatorType::DEPTH_TO_SPACE || D::kType == OperatorType::DEPTH_TO_SPACE1;

template <class D> std::string depth_space_prefix() {
    switch (D::kType) {
        case OperatorType::SPACE_TO_DEPTH: return "space-to-depth";
        case OperatorType::SPACE_TO_DEPTH1: return "space-to-depth1";
        case OperatorType::DEPTH_TO_SPACE: return "depth-to-space";
        default: return "depth-to-space1";
    }
}

template <class D> void validate_depth_space(const D& d, Diagnostics& diags) {
    const std::string op = depth_space_prefix<D>();
    const Named in{"InputTensor", d.InputTensor}, out{"OutputTensor", d.OutputTensor};
    require_same_data_type(diags, {in, out}, op + ".same-data-type");
    if (d.Order >= kDepthSpaceOrderNames.Names.size())
        diags.error(desc_path("Order"), op + ".order",
                    "Order is " + std::to_string(d.Order) +
                        "; it must be a DML_DEPTH_SPACE_ORDER: DEPTH_COLUMN_ROW or COLUMN_ROW_DEPTH");
    bool ok = true;
    for (const Named& t : {in, out})
        if (t.desc.DimensionCount() != 4) {
            ok = false;
            diags.error(pointer_append(desc_path(t.name), "Sizes"), op + ".dimension-count",
                        std::string(t.name) + " has " + std::to_string(t.desc.DimensionCount()) +
                            " dimensions; its dimensions are { BatchCount, ChannelCount, Height, Width }: 4");
        }
    if (d.BlockSize == 0) {
        ok = false;
        diags.error(desc_path("BlockSize"), op + ".block-size", "BlockSize is 0; the blocks are at least 1 x 1");
    }
    if (!ok) return;
    const auto& s = d.InputTensor.Sizes;
    const uint64_t b = d.BlockSize, bb = b * b;
    std::array<uint64_t, 4> want;
    if constexpr (kToSpace<D>) {
        if (s[1] % bb != 0) {
            diags.error(pointer_append(pointer_append(desc_path("InputTensor"), "Sizes"), 1), op + ".channel-count",
                        "InputTensor's channel count " + std::to_string(s[1]) +
                            " is not a multiple of BlockSize * BlockSize = " + std::to_string(bb) +
                            " (OutputChannelCount = InputChannelCount / (BlockSize * BlockSize))");
            return;
        }
        want = {s[0], s[1] / bb, s[2] * b, s[3] * b};
    } else {
        for (size_t i : {size_t(2), size_t(3)})
            if (s[i] % b != 0) {
                diags.error(pointer_append(pointer_append(desc_path("InputTensor"), "Sizes"), i), op + ".spatial-size",
                            "InputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(s[i]) +
                                ", not a multiple of BlockSize " + std::to_string(b) +
                                " (the blocks tile the height and width)");
                ok = false;
            }
        if (!ok) return;
        want = {s[0], s[1] * bb, s[2] / b, s[3] / b};
    }
    for (size_t i = 0; i < 4; ++i)
        if (d.OutputTensor.Sizes[i] != want[i])
            diags.error(
                pointer_append(pointer_append(desc_path("OutputTensor"), "Sizes"), i), op + ".output-size",
                "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                    "; it must be " + std::to_string(want[i]) +
                    (kToSpace<D> ? " ({ Batch, Channels / BlockSize^2, Height * BlockSize, Width * BlockSize })"
                                 : " ({ Batch, Channels * BlockSize^2, Height / BlockSize, Width / BlockSize })"));
}

template <class D> uint64_t channels_of(const D& d) {
    return kToSpace<D> ? d.OutputTensor.Sizes[1] : d.InputTensor.Sizes[1];
}

template <class D> void evaluate_depth_space(const D& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const uint64_t channels = channels_of(d);
    by_width(d.InputTensor.DataType, [&]<class U>() {
        U* y = Y.data<U>();
        const U* x = X.data<U>();
        std::array<uint64_t, 4> o{};
        const auto& S = d.OutputTensor.Sizes;
        for (o[0] = 0; o[0] < S[0]; ++o[0])
            for (o[1] = 0; o[1] < S[1]; ++o[1])
                for (o[2] = 0; o[2] < S[2]; ++o[2])
                    for (o[3] = 0; o[3] < S[3]; ++o[3]) {
                        const auto s = depth_space_source(kToSpace<D>, d.Order, d.BlockSize, channels, o);
                        int64_t yo = 0, xo = 0;
                        for (size_t i = 0; i < 4; ++i) {
                            yo += int64_t(o[i]) * Y.strides[i];
                            xo += int64_t(s[i]) * X.strides[i];
                        }
                        y[yo] = x[xo];
                    }
    });
}

}  // namespace

void validate(const DML_SPACE_TO_DEPTH_OPERATOR_DESC& d, Diagnostics& g) { validate_depth_space(d, g); }
void evaluate(const DML_SPACE_TO_DEPTH_OPERATOR_DESC& d, const Bindings& b) { evaluate_depth_space(d, b); }
void validate(const DML_SPACE_TO_DEPTH1_OPERATOR_DESC& d, Diagnostics& g) { validate_depth_space(d, g); }
void evaluate(const DML_SPACE_TO_DEPTH1_OPERATOR_DESC& d, const Bindings& b) { evaluate_depth_space(d, b); }
void validate(const DML_DEPTH_TO_SPACE_OPERATOR_DESC& d, Diagnostics& g) { validate_depth_space(d, g); }
void evaluate(const DML_DEPTH_TO_SPACE_OPERATOR_DESC& d, const Bindings& b) { evaluate_depth_space(d, b); }
void validate(const DML_DEPTH_TO_SPACE1_OPERATOR_DESC& d, Diagnostics& g) { validate_depth_space(d, g); }
void evaluate(const DML_DEPTH_TO_SPACE1_OPERATOR_DESC& d, const Bindings& b) { evaluate_depth_space(d, b); }

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_depth_space(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    auto go = [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        const std::vector<uint64_t> at = nd_coordinate(d.OutputTensor.Sizes, flat);
        const auto s = depth_space_source(kToSpace<D>, d.Order, d.BlockSize, channels_of(d),
                                          {at[0], at[1], at[2], at[3]});
        const std::vector<uint64_t> source(s.begin(), s.end());
        out.facts.emplace_back("order", std::string(kDepthSpaceOrderNames.Names.at(d.Order)) + ", BlockSize " +
                                            std::to_string(d.BlockSize));
        out.facts.emplace_back("source", "InputTensor[" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," +
                                             std::to_string(s[2]) + "," + std::to_string(s[3]) + "]");
        out.inputs.push_back(input_element(c, "InputTensor", source, "source"));
        out.policies.push_back("Subnormals");
        if constexpr (!kToSpace<D>) out.policies.push_back("SpaceToDepthSizes");
        return true;
    };
    if (const auto* a = get_if<DML_SPACE_TO_DEPTH_OPERATOR_DESC>(&c.op.Desc)) return go(*a);
    if (const auto* b = get_if<DML_SPACE_TO_DEPTH1_OPERATOR_DESC>(&c.op.Desc)) return go(*b);
    if (const auto* e = get_if<DML_DEPTH_TO_SPACE_OPERATOR_DESC>(&c.op.Desc)) return go(*e);
    if (const auto* f = get_if<DML_DEPTH_TO_SPACE1_OPERATOR_DESC>(&c.op.Desc)) return go(*f);
    return false;
}

}  // namespace dmlref::reference
