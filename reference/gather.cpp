// DML_OPERATOR_GATHER, DML_OPERATOR_GATHER_ELEMENTS, DML_OPERATOR_GATHER_ND and
// DML_OPERATOR_GATHER_ND1.
//
// Spec: DML_GATHER_OPERATOR_DESC, DML_GATHER_ELEMENTS_OPERATOR_DESC, DML_GATHER_ND_OPERATOR_DESC
// and DML_GATHER_ND1_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md (gather.*,
// gather-elements.*, gather-nd.*, gather-nd1.*).
//
// All three tensors have one DimensionCount R. An operator's "meaningful" output sizes L are
// right-aligned into OutputTensor's R dimensions: leading 1s of L are cropped when L is longer,
// leading 1s are added when it is shorter (the pages' "right-aligned ... leading 1 values").
//
//   GATHER           L = Input[0, Axis) ++ Indices[R - IndexDimensions, R) ++ Input[Axis + 1, R)
//                    output[l] = input[l[0, Axis), indices[l[Axis, Axis + IndexDimensions)], l[Axis + IndexDimensions, ...)]
//   GATHER_ELEMENTS  L = Indices.Sizes;  output[c] = input[c with c[Axis] = indices[c]]
//   GATHER_ND1       with B = BatchDimensionCount (GATHER_ND: B = 0), k = Indices.Sizes[R - 1] (the tuple
//                    size), the meaningful dimensions starting at R - InputDimensionCount (input) and
//                    R - IndicesDimensionCount (indices):
//                    L = batch (B) ++ Indices' meaningful [B, IndicesDimensionCount - 1) ++ Input's meaningful [B + k, ...)
//                    output[batch, m, t] = input[batch, indices[batch, m, 0], ..., indices[batch, m, k - 1], t]
//
// The pages' examples hold with these formulas, but for GATHER's Example 3, which states
// IndexDimensions 2 for a rank-2 input: its own sentence ("original rank of InputTensor +
// IndexDimensions - 1 ... must be less than or equal to the DimensionCount of OutputTensor")
// refuses that (2 + 2 - 1 = 3 > 2); with IndexDimensions 1 it gives the example's output.
//
// Rules (each with its id):
//   all              the three tensors have one DimensionCount (.dimension-count); InputTensor and
//                    OutputTensor one DataType (.same-data-type); IndicesTensor INT32, INT64, UINT32
//                    or UINT64, the tables' index types (.indices-data-type); OutputTensor.Sizes are
//                    the formula's (.output-sizes)
//   GATHER           Axis < R (.axis); IndexDimensions <= R (.index-dimensions: the page says
//                    [0, IndicesTensor.DimensionCount), yet its Example 1 has IndexDimensions 1 of a
//                    1-D tensor, so dmlref takes [0, R]); IndicesTensor's dimensions before the last
//                    IndexDimensions are 1 (.indices-leading-ones: "after ignoring any irrelevant leading ones")
//   GATHER_ELEMENTS  Axis < R (.axis); IndicesTensor.Sizes match InputTensor.Sizes but at Axis (.indices-sizes);
//                    OutputTensor.Sizes are IndicesTensor.Sizes (.output-sizes)
//   GATHER_ND(1)     InputDimensionCount and IndicesDimensionCount in [1, R] (.input-dimension-count,
//                    .indices-dimension-count); the dimensions before them are 1 (.input-leading-ones,
//                    .indices-leading-ones); B + k <= InputDimensionCount (.tuple-size: "it cannot exceed
//                    InputTensor.DimensionCount", counted in the meaningful dimensions after the batch);
//                    GATHER_ND1: B < IndicesDimensionCount and B < InputDimensionCount
//                    (.batch-dimension-count), the batch sizes of InputTensor and IndicesTensor agree
//                    (.batch-sizes)
//   values           every index, after a negative one is taken from the end, is inside its
//                    dimension (.index-range, an error naming the element: dmlref's decision)
//
// Decisions (docs/golden.md, "Gathering"; recorded as policies in golden files):
//   - NegativeIndex=FromEndOnce: a signed index i < 0 reads element size + i ("relative to the end
//     of the axis dimension. For example, an index of -1 refers to the last element", the pages,
//     from DML_FEATURE_LEVEL_3_0); -size is the first; below -size is out of range. Unsigned indices
//     are never negative (UINT32 0xffffffff is 4294967295).
//   - OutOfRangeIndex=Refused: an index outside its dimension (after the above) is an error
//     naming the element. GATHER's page says "Invalid indices will yield incorrect outputs, but no
//     failure will occur, and all reads will be clamped safely within the input tensor's memory":
//     there is no value to golden, so dmlref refuses the case rather than guess one.
//   - Values are moved, never computed: each element's bytes are copied (NaN payloads, -0,
//     subnormals, 64-bit extremes unchanged).
//
// The loop: one odometer over the output's coordinates; per element, the index elements it reads
// are located and resolved, and the element's bytes are copied. Every tensor is read and written
// through its own strides (zero strides broadcast).
#include "gather.hpp"

#include "dmlref/values.hpp"

#include <array>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace dmlref::reference {

using namespace gathering;

namespace {

Geometry geometry(const DML_GATHER_OPERATOR_DESC& d) {
    Geometry g{"gather", Kind::Gather, d.InputTensor, d.IndicesTensor, d.OutputTensor};
    g.axis = d.Axis;
    g.index_dims = d.IndexDimensions;
    return g;
}
Geometry geometry(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d) {
    Geometry g{"gather-elements", Kind::Elements, d.InputTensor, d.IndicesTensor, d.OutputTensor};
    g.axis = d.Axis;
    return g;
}
Geometry geometry(const DML_GATHER_ND_OPERATOR_DESC& d) {
    Geometry g{"gather-nd", Kind::ND, d.InputTensor, d.IndicesTensor, d.OutputTensor};
    g.input_dims = d.InputDimensionCount;
    g.indices_dims = d.IndicesDimensionCount;
    return g;
}
Geometry geometry(const DML_GATHER_ND1_OPERATOR_DESC& d) {
    Geometry g{"gather-nd1", Kind::ND, d.InputTensor, d.IndicesTensor, d.OutputTensor};
    g.input_dims = d.InputDimensionCount;
    g.indices_dims = d.IndicesDimensionCount;
    g.batch = d.BatchDimensionCount;
    return g;
}

}  // namespace

namespace gathering {

namespace {

std::string list_text(const std::vector<uint64_t>& v) {
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "}";
}

}  // namespace

bool is_index_type(DataType t) {
    return t == DataType::INT32 || t == DataType::INT64 || t == DataType::UINT32 || t == DataType::UINT64;
}

// The meaningful output sizes L (the header's formulas). The desc has validated its counts.
std::vector<uint64_t> meaningful_sizes(const Geometry& g) {
    const uint32_t R = g.rank();
    const auto& in = g.input.Sizes;
    const auto& ix = g.indices.Sizes;
    std::vector<uint64_t> L;
    if (g.kind == Kind::Gather) {
        for (uint32_t i = 0; i < g.axis; ++i) L.push_back(in[i]);
        for (uint32_t i = R - g.index_dims; i < R; ++i) L.push_back(ix[i]);
        for (uint32_t i = g.axis + 1; i < R; ++i) L.push_back(in[i]);
    } else if (g.kind == Kind::Elements) {
        L.assign(ix.begin(), ix.end());
    } else {
        const uint32_t lead_in = R - g.input_dims, lead_ix = R - g.indices_dims, k = ix[R - 1];
        for (uint32_t i = 0; i < g.batch; ++i) L.push_back(in[lead_in + i]);
        for (uint32_t i = lead_ix + g.batch; i < R - 1; ++i) L.push_back(ix[i]);
        for (uint32_t i = lead_in + g.batch + k; i < R; ++i) L.push_back(in[i]);
    }
    return L;
}

// L right-aligned into R dimensions; nullopt when L has more than R dimensions once its
// leading 1s are cropped.
std::optional<std::vector<uint64_t>> fitted(std::vector<uint64_t> L, uint32_t R) {
    size_t crop = 0;
    while (L.size() - crop > R && L[crop] == 1) ++crop;
    if (L.size() - crop > R) return std::nullopt;
    std::vector<uint64_t> out(R - (L.size() - crop), 1);
    out.insert(out.end(), L.begin() + std::ptrdiff_t(crop), L.end());
    return out;
}

// Fills `l` for output coordinate `o` (R entries). `n` is meaningful_sizes(g).size().
void lookup(const Geometry& g, const uint64_t* o, size_t n, Lookup& l) {
    const uint32_t R = g.rank();
    // The coordinate in L: its cropped leading entries are 0; or o's last n entries.
    std::array<uint64_t, 2 * kMaxDimensionCount> lc{};
    if (n >= R)
        for (uint32_t i = 0; i < R; ++i) lc[n - R + i] = o[i];
    else
        for (size_t i = 0; i < n; ++i) lc[i] = o[R - n + i];
    if (g.kind == Kind::Gather) {
        const uint32_t a = g.axis, I = g.index_dims;
        for (uint32_t i = 0; i < a; ++i) l.in[i] = lc[i];
        l.count = 1;
        l.dim[0] = a;
        l.at[0].fill(0);
        for (uint32_t i = 0; i < I; ++i) l.at[0][R - I + i] = lc[a + i];
        for (uint32_t i = a + 1; i < R; ++i) l.in[i] = lc[i - 1 + I];
    } else if (g.kind == Kind::Elements) {
        for (uint32_t i = 0; i < R; ++i) l.in[i] = l.at[0][i] = o[i];
        l.count = 1;
        l.dim[0] = g.axis;
    } else {
        const uint32_t lead_in = R - g.input_dims, lead_ix = R - g.indices_dims, B = g.batch;
        const uint32_t k = g.indices.Sizes[R - 1];
        const uint32_t mid = g.indices_dims - 1 - B;  // the indices' dimensions between the batch and the tuple
        l.in.fill(0);
        for (uint32_t i = 0; i < B; ++i) l.in[lead_in + i] = lc[i];
        for (uint32_t i = lead_in + B + k; i < R; ++i) l.in[i] = lc[B + mid + (i - lead_in - B - k)];
        l.count = k;
        for (uint32_t j = 0; j < k; ++j) {
            l.dim[j] = lead_in + B + j;
            auto& at = l.at[j];
            at.fill(0);
            for (uint32_t i = 0; i < B + mid; ++i) at[lead_ix + i] = lc[i];
            at[R - 1] = j;
        }
    }
}

// An index element's value resolved against a dimension of `size`: a negative signed index
// counts from the end once (NegativeIndex=FromEndOnce); nullopt when outside [0, size).
std::optional<uint64_t> resolve(DataType t, const std::byte* p, uint64_t size) {
    const uint64_t bits = load_bits(t, p);
    int64_t s = 0;
    switch (t) {
        case DataType::INT32: s = int64_t(int32_t(uint32_t(bits))); break;
        case DataType::INT64: s = int64_t(bits); break;
        default: return bits < size ? std::optional<uint64_t>(bits) : std::nullopt;  // UINT32, UINT64
    }
    if (s < 0) s += int64_t(size);  // size < 2^32: no overflow
    if (s < 0 || uint64_t(s) >= size) return std::nullopt;
    return uint64_t(s);
}

std::string index_value_text(DataType t, const std::byte* p) {
    const uint64_t bits = load_bits(t, p);
    if (t == DataType::INT32) return std::to_string(int32_t(uint32_t(bits)));
    if (t == DataType::INT64) return std::to_string(int64_t(bits));
    return std::to_string(bits);
}

int64_t offset_of(const std::vector<int64_t>& strides, const uint64_t* c, size_t n) {
    int64_t off = 0;
    for (size_t i = 0; i < n; ++i) off += int64_t(c[i]) * strides[i];
    return off;
}

// ---- validate -------------------------------------------------------------------------------

namespace {

void require_leading_ones(Diagnostics& diags, const Geometry& g, std::string_view tensor, const TensorDesc& d,
                          uint32_t meaningful, std::string_view count_field) {
    for (uint32_t i = 0; i + meaningful < d.DimensionCount(); ++i)
        if (d.Sizes[i] != 1)
            diags.error(pointer_append(sizes_path(tensor), i),
                        rule(g, tensor == "InputTensor" ? "input-leading-ones" : "indices-leading-ones"),
                        std::string(tensor) + ".Sizes[" + std::to_string(i) + "] is " + std::to_string(d.Sizes[i]) +
                            "; with " + std::string(count_field) + " = " + std::to_string(meaningful) + " the first " +
                            std::to_string(d.DimensionCount() - meaningful) +
                            " dimensions are leading ones and must be 1");
}

}  // namespace

void validate_geometry(const Geometry& g, Diagnostics& diags) {
    const uint32_t R = g.rank();
    bool ok = true;
    for (auto [name, t] :
         {std::pair<std::string_view, const TensorDesc*>{"IndicesTensor", &g.indices}, {g.walked, &g.output}})
        if (t->DimensionCount() != R) {
            ok = false;
            diags.error(sizes_path(name), rule(g, "dimension-count"),
                        std::string(name) + " has " + std::to_string(t->DimensionCount()) +
                            " dimensions but InputTensor has " + std::to_string(R) + "; " + std::string(g.all_tensors) +
                            " must have the same DimensionCount");
        }
    require_same_data_type(diags, {{"InputTensor", g.input}, {g.walked, g.output}}, rule(g, "same-data-type"));
    if (!is_index_type(g.indices.DataType))
        diags.error(pointer_append(desc_path("IndicesTensor"), "DataType"), rule(g, "indices-data-type"),
                    "IndicesTensor is " + std::string(name(g.indices.DataType)) +
                        "; indices must be INT32, INT64, UINT32 or UINT64 (the page's tensor support)");
    if (!ok) return;

    if (g.kind == Kind::Gather || g.kind == Kind::Elements) {
        if (g.axis >= R) {
            diags.error(desc_path("Axis"), rule(g, "axis"),
                        "Axis is " + std::to_string(g.axis) + "; it must be less than InputTensor's DimensionCount (" +
                            std::to_string(R) + ")");
            return;
        }
    }
    if (g.kind == Kind::Gather) {
        if (g.index_dims > R) {
            diags.error(desc_path("IndexDimensions"), rule(g, "index-dimensions"),
                        "IndexDimensions is " + std::to_string(g.index_dims) +
                            "; it must be at most IndicesTensor's DimensionCount (" + std::to_string(R) + ")");
            return;
        }
        require_leading_ones(diags, g, "IndicesTensor", g.indices, g.index_dims, "IndexDimensions");
    } else if (g.kind == Kind::Elements) {
        for (uint32_t i = 0; i < R; ++i)
            if (i != g.axis && g.indices.Sizes[i] != g.input.Sizes[i])
                diags.error(pointer_append(sizes_path("IndicesTensor"), i), rule(g, "indices-sizes"),
                            "IndicesTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(g.indices.Sizes[i]) +
                                " but InputTensor.Sizes[" + std::to_string(i) + "] is " +
                                std::to_string(g.input.Sizes[i]) + "; they must match in every dimension but Axis (" +
                                std::to_string(g.axis) + ")");
    } else {
        bool counts = true;
        for (auto [field, v] : {std::pair<std::string_view, uint32_t>{"InputDimensionCount", g.input_dims},
                                {"IndicesDimensionCount", g.indices_dims}})
            if (v < 1 || v > R) {
                counts = false;
                diags.error(
                    desc_path(field),
                    rule(g, field == "InputDimensionCount" ? "input-dimension-count" : "indices-dimension-count"),
                    std::string(field) + " is " + std::to_string(v) + "; it must be from 1 to the DimensionCount (" +
                        std::to_string(R) + ")");
            }
        if (!counts) return;
        require_leading_ones(diags, g, "InputTensor", g.input, g.input_dims, "InputDimensionCount");
        require_leading_ones(diags, g, "IndicesTensor", g.indices, g.indices_dims, "IndicesDimensionCount");
        if (g.batch >= g.indices_dims || g.batch >= g.input_dims) {
            diags.error(desc_path("BatchDimensionCount"), rule(g, "batch-dimension-count"),
                        "BatchDimensionCount is " + std::to_string(g.batch) +
                            "; it must be less than IndicesDimensionCount (" + std::to_string(g.indices_dims) +
                            ") and InputDimensionCount (" + std::to_string(g.input_dims) + ")");
            return;
        }
        const uint32_t k = g.indices.Sizes[R - 1];
        if (g.batch + k > g.input_dims) {
            diags.error(
                pointer_append(sizes_path("IndicesTensor"), R - 1), rule(g, "tuple-size"),
                "IndicesTensor.Sizes[" + std::to_string(R - 1) + "], the index tuple's size, is " + std::to_string(k) +
                    (g.batch ? " and BatchDimensionCount " + std::to_string(g.batch) : std::string()) +
                    "; a tuple indexes InputTensor's meaningful dimensions after the batch, of which there are " +
                    std::to_string(g.input_dims - g.batch) + " (InputDimensionCount " + std::to_string(g.input_dims) +
                    ")");
            return;
        }
        for (uint32_t i = 0; i < g.batch; ++i) {
            const uint32_t a = R - g.input_dims + i, b = R - g.indices_dims + i;
            if (g.input.Sizes[a] != g.indices.Sizes[b])
                diags.error(pointer_append(sizes_path("IndicesTensor"), b), rule(g, "batch-sizes"),
                            "batch dimension " + std::to_string(i) + " is " + std::to_string(g.indices.Sizes[b]) +
                                " in IndicesTensor (Sizes[" + std::to_string(b) + "]) but " +
                                std::to_string(g.input.Sizes[a]) + " in InputTensor (Sizes[" + std::to_string(a) +
                                "]); the batch sizes must agree");
        }
    }
    if (diags.has_errors()) return;
    const std::vector<uint64_t> L = meaningful_sizes(g);
    const auto want = fitted(L, R);
    const std::vector<uint64_t> have(g.output.Sizes.begin(), g.output.Sizes.end());
    const std::string walked_rule = g.walked == "OutputTensor" ? "output-sizes" : "updates-sizes";
    if (!want)
        diags.error(sizes_path(g.walked), rule(g, walked_rule),
                    std::string(g.walked) + "'s meaningful sizes " + list_text(L) + " need " +
                        std::to_string(L.size()) + " dimensions, more than the DimensionCount (" + std::to_string(R) +
                        ")");
    else if (*want != have)
        diags.error(sizes_path(g.walked), rule(g, walked_rule),
                    std::string(g.walked) + ".Sizes are " + list_text(have) + "; they must be " + list_text(*want) +
                        (g.kind == Kind::Elements ? " (IndicesTensor's)" : " (the page's formula, right-aligned)"));
}

// ---- validate_values: every index inside its dimension ------------------------------------

void validate_index_values(const Geometry& g, const InputBuffers& inputs, Diagnostics& diags) {
    const auto it = inputs.find("IndicesTensor");
    Diagnostics desc;  // the values of a desc that breaks a rule are not read (its geometry is not one)
    validate_geometry(g, desc);
    if (it == inputs.end() || desc.has_errors() || it->second.size() < buffer_size(g.indices)) return;
    const TensorView ix(g.indices, std::span<const std::byte>(it->second));
    const uint32_t R = g.rank();
    const size_t w = element_size(g.indices.DataType);
    const auto& s = g.indices.Sizes;
    std::array<uint64_t, kMaxDimensionCount> c{};
    const uint64_t count = element_count(g.indices);
    int reported = 0;
    for (uint64_t flat = 0; flat < count; ++flat) {
        // The input dimension this index element indexes.
        const uint32_t dim = g.kind == Kind::ND ? R - g.input_dims + g.batch + uint32_t(c[R - 1]) : g.axis;
        const uint64_t size = g.input.Sizes[dim];
        const std::byte* p = ix.base + offset_of(ix.strides, c.data(), R) * int64_t(w);
        if (!resolve(g.indices.DataType, p, size) && reported++ < 8)
            diags.error(pointer_append("/inputs/IndicesTensor", flat), rule(g, "index-range"),
                        "IndicesTensor element " + std::to_string(flat) + " is " +
                            index_value_text(g.indices.DataType, p) + ", outside InputTensor's dimension " +
                            std::to_string(dim) + " of size " + std::to_string(size) +
                            (g.indices.DataType == DataType::UINT32 || g.indices.DataType == DataType::UINT64
                                 ? " (valid: 0 to " + std::to_string(size - 1) + ")"
                                 : " (valid: -" + std::to_string(size) + " to " + std::to_string(size - 1) + ")") +
                            "; DirectML leaves the output undefined, dmlref refuses it");
        for (uint32_t d = R; d-- > 0;) {
            if (++c[d] < s[d]) break;
            c[d] = 0;
        }
    }
}

void index_features(const Case& c, std::vector<std::string>& f) {
    const TensorDesc* ix = nullptr;
    for (const auto& t : tensor_fields(c.op))
        if (t.name == "IndicesTensor") ix = t.desc;
    if (!ix) return;
    const DataType t = ix->DataType;
    if (t == DataType::INT32) f.push_back("indices-int32");
    if (t == DataType::INT64) f.push_back("indices-int64");
    if (t == DataType::UINT64) f.push_back("indices-uint64");
    const auto in = c.inputs.find("IndicesTensor");
    if (in == c.inputs.end() || (t != DataType::INT32 && t != DataType::INT64) || in->second.size() < buffer_size(*ix))
        return;
    const std::vector<std::byte> logical = gather_logical(*ix, in->second);
    const size_t w = element_size(t);
    for (size_t i = 0; i + w <= logical.size(); i += w)
        if (index_value_text(t, logical.data() + i)[0] == '-') {
            f.push_back("negative-index");
            return;
        }
}

}  // namespace gathering

namespace {

// ---- evaluate ---------------------------------------------------------------------------------

void evaluate_geometry(const Geometry& g, const Bindings& b) {
    const TensorView X(g.input, b.at("InputTensor"));
    const TensorView I(g.indices, b.at("IndicesTensor"));
    const TensorView Y(g.output, b.at("OutputTensor"));
    const uint32_t R = g.rank();
    const size_t w = element_size(g.input.DataType), iw = element_size(g.indices.DataType);
    const size_t n = meaningful_sizes(g).size();
    const auto& s = g.output.Sizes;
    std::array<uint64_t, kMaxDimensionCount> o{};
    Lookup l;
    const uint64_t count = element_count(g.output);
    for (uint64_t flat = 0; flat < count; ++flat) {
        lookup(g, o.data(), n, l);
        bool inside = true;
        for (uint32_t j = 0; j < l.count; ++j) {
            const std::byte* p = I.base + offset_of(I.strides, l.at[j].data(), R) * int64_t(iw);
            const auto v = resolve(g.indices.DataType, p, g.input.Sizes[l.dim[j]]);
            inside = inside && v.has_value();
            l.in[l.dim[j]] = v.value_or(0);
        }
        std::byte* dst = Y.base + offset_of(Y.strides, o.data(), R) * int64_t(w);
        // validate_values refuses an index out of range; zeros where it was not asked (never a wild read).
        if (inside) std::memcpy(dst, X.base + offset_of(X.strides, l.in.data(), R) * int64_t(w), w);
        else std::memset(dst, 0, w);
        for (uint32_t d = R; d-- > 0;) {
            if (++o[d] < s[d]) break;
            o[d] = 0;
        }
    }
}

}  // namespace

std::string gathering::coordinate_text(const uint64_t* c, size_t n) {
    std::string t;
    for (size_t i = 0; i < n; ++i) t += (i ? "," : "") + std::to_string(c[i]);
    return t;
}

void validate(const DML_GATHER_OPERATOR_DESC& d, Diagnostics& diags) { validate_geometry(geometry(d), diags); }
void validate(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d, Diagnostics& diags) { validate_geometry(geometry(d), diags); }
void validate(const DML_GATHER_ND_OPERATOR_DESC& d, Diagnostics& diags) { validate_geometry(geometry(d), diags); }
void validate(const DML_GATHER_ND1_OPERATOR_DESC& d, Diagnostics& diags) { validate_geometry(geometry(d), diags); }
void validate_values(const DML_GATHER_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_index_values(geometry(d), in, diags);
}
void validate_values(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_index_values(geometry(d), in, diags);
}
void validate_values(const DML_GATHER_ND_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_index_values(geometry(d), in, diags);
}
void validate_values(const DML_GATHER_ND1_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_index_values(geometry(d), in, diags);
}
void evaluate(const DML_GATHER_OPERATOR_DESC& d, const Bindings& b) { evaluate_geometry(geometry(d), b); }
void evaluate(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d, const Bindings& b) { evaluate_geometry(geometry(d), b); }
void evaluate(const DML_GATHER_ND_OPERATOR_DESC& d, const Bindings& b) { evaluate_geometry(geometry(d), b); }
void evaluate(const DML_GATHER_ND1_OPERATOR_DESC& d, const Bindings& b) { evaluate_geometry(geometry(d), b); }

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The index elements the output element reads, what each resolves to, and the source element.
bool explain_gather(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    (void)output;
    const auto g = visit_as<DML_GATHER_OPERATOR_DESC, DML_GATHER_ELEMENTS_OPERATOR_DESC, DML_GATHER_ND_OPERATOR_DESC,
                            DML_GATHER_ND1_OPERATOR_DESC>(c.op.Desc, [](const auto& d) { return geometry(d); });
    const uint32_t R = g.rank();
    const std::vector<uint64_t> o = nd_coordinate(g.output.Sizes, flat);
    Lookup l;
    lookup(g, o.data(), meaningful_sizes(g).size(), l);
    const TensorView I(g.indices, std::span<const std::byte>(c.inputs.at("IndicesTensor")));
    const size_t iw = element_size(g.indices.DataType);
    bool inside = true;
    for (uint32_t j = 0; j < l.count; ++j) {
        const std::byte* p = I.base + offset_of(I.strides, l.at[j].data(), R) * int64_t(iw);
        const uint64_t size = g.input.Sizes[l.dim[j]];
        const auto v = resolve(g.indices.DataType, p, size);
        const std::string value = index_value_text(g.indices.DataType, p);
        out.facts.emplace_back(
            "index", "IndicesTensor[" + coordinate_text(l.at[j].data(), R) + "] = " + value + " indexes dimension " +
                         std::to_string(l.dim[j]) + " (size " + std::to_string(size) + ")" +
                         (!v                ? ": out of range"
                          : value[0] == '-' ? ": " + value + " + " + std::to_string(size) + " = " + std::to_string(*v)
                                            : ""));
        out.inputs.push_back(
            input_element(c, "IndicesTensor", std::vector<uint64_t>(l.at[j].begin(), l.at[j].begin() + R), "index"));
        inside = inside && v.has_value();
        l.in[l.dim[j]] = v.value_or(0);
    }
    if (inside) {
        out.facts.emplace_back("source", "InputTensor[" + coordinate_text(l.in.data(), R) + "] (bits copied)");
        out.inputs.push_back(
            input_element(c, "InputTensor", std::vector<uint64_t>(l.in.begin(), l.in.begin() + R), "source"));
    }
    out.policies = {"NegativeIndex", "OutOfRangeIndex"};
    return true;
}

// ---- gen's derived sizes -------------------------------------------------------------------

// OutputTensor "auto" (a scatter's UpdatesTensor, reference/scatter.cpp): the formula's sizes from
// InputTensor's and IndicesTensor's (which the case gives) and the desc's counts.
bool gather_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    // A gather's OutputTensor, a scatter's UpdatesTensor (a scatter's OutputTensor is InputTensor's sizes).
    if (q.tensor != (q.desc.contains("UpdatesTensor") ? "UpdatesTensor" : "OutputTensor")) return true;
    auto field = [&](const char* f) -> uint32_t {
        const auto it = q.desc.find(f);
        return it != q.desc.end() && it->is_number_unsigned() && it->get<uint64_t>() <= 8 ? it->get<uint32_t>() : 0;
    };
    const auto ix = q.desc.find("IndicesTensor");
    if (ix == q.desc.end() || !ix->is_object() || !ix->contains("Sizes") || !(*ix)["Sizes"].is_array()) {
        path = "/desc/IndicesTensor/Sizes";
        error = "IndicesTensor's Sizes must be given for OutputTensor's to be derived";
        return false;
    }
    TensorDesc input, indices, output;
    for (uint64_t s : q.base_sizes) input.Sizes.push_back(uint32_t(s));
    for (const auto& s : (*ix)["Sizes"]) {
        if (!s.is_number_unsigned() || s.get<uint64_t>() == 0 || s.get<uint64_t>() > 0xffffffffu) {
            path = "/desc/IndicesTensor/Sizes";
            error = "IndicesTensor's Sizes must be positive integers";
            return false;
        }
        indices.Sizes.push_back(s.get<uint32_t>());
    }
    output.Sizes = input.Sizes;
    indices.DataType = DataType::UINT32;
    Geometry g{"", Kind::Gather, input, indices, output};
    if (q.desc.contains("IndexDimensions")) {
        g.axis = field("Axis");
        g.index_dims = field("IndexDimensions");
    } else if (q.desc.contains("InputDimensionCount")) {
        g.kind = Kind::ND;
        g.input_dims = field("InputDimensionCount");
        g.indices_dims = field("IndicesDimensionCount");
        g.batch = field("BatchDimensionCount");
    } else {
        g.kind = Kind::Elements;
        g.axis = field("Axis");
    }
    Diagnostics d;
    validate_geometry(g, d);
    for (const auto& item : d.items())
        if (item.severity == Severity::Error && item.rule.find("output-sizes") == std::string::npos) {
            path = item.path;
            error = item.message;
            return false;
        }
    const auto want = fitted(meaningful_sizes(g), g.rank());
    if (!want) {
        error = "the output's meaningful sizes need more dimensions than InputTensor has";
        return false;
    }
    out = *want;
    return true;
}

}  // namespace dmlref::reference
