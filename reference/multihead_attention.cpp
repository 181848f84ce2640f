// DML_OPERATOR_MULTIHEAD_ATTENTION and DML_OPERATOR_MULTIHEAD_ATTENTION1.
//
// Spec: the DML_MULTIHEAD_ATTENTION_OPERATOR_DESC page (DirectML API reference): "[Add Bias to
// query/key/value] -> GEMM(Query, Transposed(Key)) * Scale -> [Add RelativePositionBias] -> [Add
// Mask] -> Softmax -> GEMM(SoftmaxResult, Value)"; the tensor shapes of each member; rules in
// docs/rules.md; open questions in docs/golden.md, "Multihead attention".
//
//   S_j = Scale * sum_i (Q_i + Bq_i)(K_ji + Bk_i) + RelativePositionBias_j  [+ MaskFilterValue]
//   Output_d = sum_j softmax(S)_j (V_jd + Bv_d)
//
// per batch, head and query row, over the keys j of PastKey followed by the new keys.
//
// Decisions (docs/golden.md, "Multihead attention"):
//   - The golden is the exact composite rounded once (AttentionValue=ExactThenRoundOnce): S is an
//     exact rational; exp, the sums and the quotient are evaluated in MPFR at rising precision
//     (Ziv) until the rounding to the output type is decided. An output that is rational (every
//     group of equal scores has the same mean value; Lindemann-Weierstrass says no other is) is
//     rounded exactly. Intermediates are not rounded to FLOAT16 (AttentionIntermediates=Exact).
//   - Scale multiplies the product only; RelativePositionBias and the mask come after
//     (AttentionScaleOrder=ScaleThenBias, the page's decomposition).
//   - BOOLEAN: a mask value 0 adds MaskFilterValue, any other value nothing; the mask's sizes are
//     [batchSize, headCount, sequenceLength, total keys] (AttentionBooleanMaskShape). The
//     sequence-length types set the score to MaskFilterValue (AttentionMaskFilter), over the total
//     keys, past ones first (AttentionMaskKeys=TotalSequence).
//   - A row whose scores hold NaN or +inf, or are all -inf, is NaN (AttentionNonFinite=NaNRow, as
//     softmax's SoftmaxInfinity and SoftmaxAllNegativeInfinity); a fully masked row with a finite
//     MaskFilterValue is softmax of the masked scores (uniform only where they are all equal).
//   - OutputPresentKey/Value: PastKey/PastValue, then the new keys/values with their Bias added,
//     rounded once (AttentionPresentBias=Added); bit exact copies where there is no Bias.
//   - KEY_QUERY_SEQUENCE_LENGTH_START_END is refused (multihead-attention.mask-type-not-built).
//   - MULTIHEAD_ATTENTION1 (the DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC page; its description,
//     QueryHeadCount, KeyValueHeadCount and PastSequenceLengthsTensor say "TBD"): query head h reads
//     key/value head h / (QueryHeadCount / KeyValueHeadCount) (AttentionKeyValueHead=Consecutive);
//     Key, Value, PastKey, PastValue, the present outputs and Bias's key and value parts have
//     KeyValueHeadCount heads. A past key j of batch b takes part only where j < PastSequenceLengths[b]
//     (AttentionPastSequenceLengths=ValidBelowLength: the others are left out of the softmax, as if
//     absent); the present outputs still copy every past key.
#include "multihead_attention.hpp"
#include "correctly_rounded.hpp"
#include "exact_ext.hpp"
#include "running_error.hpp"

#include "dmlref/bound.hpp"

#include <cmath>
#include <map>

namespace dmlref::reference {

namespace {

using MHA = DML_MULTIHEAD_ATTENTION_OPERATOR_DESC;
using MHA1 = AttentionDesc;
using namespace exact;

constexpr std::string_view kMha = "multihead-attention";

// `field` is a desc field, or a field and its member ("QueryTensor/Sizes"); "" is the whole desc.
void err(Diagnostics& diags, const std::string& field, const char* r, const std::string& message) {
    const size_t slash = field.find('/');
    const std::string path = field.empty()                ? std::string("/desc")
                             : slash == std::string::npos ? desc_path(field)
                                                          : desc_path(field.substr(0, slash)) + field.substr(slash);
    diags.error(path, rule(kMha, r), message);
}

std::string bracketed_sizes(const std::vector<uint32_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

// The desc's tensors by field name, each optional one present or not.
struct AttentionField {
    const char* name;
    const std::optional<TensorDesc>* tensor;
};

std::vector<AttentionField> inputs_of(const MHA1& d) {
    return {{"QueryTensor", &d.QueryTensor},
            {"KeyTensor", &d.KeyTensor},
            {"ValueTensor", &d.ValueTensor},
            {"StackedQueryKeyTensor", &d.StackedQueryKeyTensor},
            {"StackedKeyValueTensor", &d.StackedKeyValueTensor},
            {"StackedQueryKeyValueTensor", &d.StackedQueryKeyValueTensor},
            {"BiasTensor", &d.BiasTensor},
            {"MaskTensor", &d.MaskTensor},
            {"RelativePositionBiasTensor", &d.RelativePositionBiasTensor},
            {"PastKeyTensor", &d.PastKeyTensor},
            {"PastValueTensor", &d.PastValueTensor},
            {"PastSequenceLengthsTensor", &d.PastSequenceLengthsTensor}};
}

// The page's "Tensor support" table: dimension counts per tensor.
struct Dims {
    const char* name;
    uint32_t lo, hi;
};
constexpr Dims kDims[] = {{"QueryTensor", 3, 5},
                          {"KeyTensor", 3, 5},
                          {"ValueTensor", 3, 5},
                          {"StackedQueryKeyTensor", 5, 5},
                          {"StackedKeyValueTensor", 5, 5},
                          {"StackedQueryKeyValueTensor", 5, 5},
                          {"BiasTensor", 1, 5},
                          {"MaskTensor", 1, 5},
                          {"RelativePositionBiasTensor", 4, 5},
                          {"PastKeyTensor", 4, 5},
                          {"PastValueTensor", 4, 5},
                          {"PastSequenceLengthsTensor", 1, 5},
                          {"OutputTensor", 3, 5},
                          {"OutputPresentKeyTensor", 4, 5},
                          {"OutputPresentValueTensor", 4, 5}};

// The last n sizes of a tensor whose leading sizes are 1 ("as long as the leading dimensions are
// 1's"); nullopt (with an error) otherwise.
std::optional<std::vector<uint32_t>> trailing(const TensorDesc& t, const char* name, size_t n, Diagnostics& diags) {
    const auto& s = t.Sizes;
    if (s.size() < n) return std::nullopt;  // multihead-attention.dimension-count reported it
    for (size_t i = 0; i + n < s.size(); ++i)
        if (s[i] != 1) {
            err(diags, std::string(name) + "/Sizes", "leading-ones",
                std::string(name) + " has Sizes " + bracketed_sizes(s) + "; the dimensions before its last " +
                    std::to_string(n) + " must be 1");
            return std::nullopt;
        }
    return std::vector<uint32_t>(s.end() - long(n), s.end());
}

void expect_sizes(Diagnostics& diags, const TensorDesc& t, const char* name, const std::vector<uint32_t>& want,
                  const char* r, const std::string& what) {
    Diagnostics local;
    const auto got = trailing(t, name, want.size(), local);
    if (local.has_errors() || !got) {
        diags.append(local);
        if (!local.has_errors() && !got)
            err(diags, std::string(name) + "/Sizes", r,
                std::string(name) + " has Sizes " + bracketed_sizes(t.Sizes) + "; it must be " + what + " " +
                    bracketed_sizes(want));
        return;
    }
    if (*got != want)
        err(diags, std::string(name) + "/Sizes", r,
            std::string(name) + " has Sizes " + bracketed_sizes(t.Sizes) + "; it must be " + what + " " +
                bracketed_sizes(want));
}

// The sizes, or nullopt where a rule is broken (reported in diags when given).
std::optional<AttentionSizes> sizes_of(const MHA1& d, bool v1, Diagnostics& diags) {
    const bool q = d.QueryTensor.has_value(), k = d.KeyTensor.has_value(), v = d.ValueTensor.has_value();
    const bool qk = d.StackedQueryKeyTensor.has_value(), kv = d.StackedKeyValueTensor.has_value(),
               qkv = d.StackedQueryKeyValueTensor.has_value();
    const int queries = q + qk + qkv, keys = k + qk + kv + qkv, values = v + kv + qkv;
    if (queries != 1 || keys != 1 || values != 1) {
        err(diags, "", "inputs",
            "exactly one Query, Key and Value must be present, whether or not they're stacked: the desc gives " +
                std::to_string(queries) + " queries, " + std::to_string(keys) + " keys and " + std::to_string(values) +
                " values");
        return std::nullopt;
    }
    AttentionSizes z;
    const char* heads_name = v1 ? "QueryHeadCount" : "HeadCount";
    if (d.QueryHeadCount == 0) {
        err(diags, heads_name, "head-count", std::string(heads_name) + " is 0; there is at least one attention head");
        return std::nullopt;
    }
    if (d.KeyValueHeadCount == 0 || d.QueryHeadCount % d.KeyValueHeadCount != 0) {
        err(diags, "KeyValueHeadCount", "key-value-head-count",
            "KeyValueHeadCount " + std::to_string(d.KeyValueHeadCount) + " does not divide QueryHeadCount " +
                std::to_string(d.QueryHeadCount) +
                ": each key/value head serves QueryHeadCount / KeyValueHeadCount query heads");
        return std::nullopt;
    }
    z.heads = d.QueryHeadCount;
    z.kv_heads = d.KeyValueHeadCount;
    if (z.kv_heads != z.heads && (qk || qkv)) {
        err(diags, qk ? "StackedQueryKeyTensor" : "StackedQueryKeyValueTensor", "stacked-head-count",
            std::string(qk ? "StackedQueryKeyTensor" : "StackedQueryKeyValueTensor") +
                " stacks queries and keys with one headCount; QueryHeadCount " + std::to_string(z.heads) +
                " and KeyValueHeadCount " + std::to_string(z.kv_heads) + " must be equal");
        return std::nullopt;
    }
    auto stacked = [&](const TensorDesc& t, const char* name, uint32_t parts,
                       uint32_t heads) -> std::optional<std::vector<uint32_t>> {
        const auto s = trailing(t, name, 5, diags);
        if (!s) return std::nullopt;
        if ((*s)[3] != parts) {
            err(diags, std::string(name) + "/Sizes", "stacked-sizes",
                std::string(name) + " has Sizes " + bracketed_sizes(t.Sizes) + "; its fourth dimension stacks " +
                    std::to_string(parts) + " tensors");
            return std::nullopt;
        }
        if ((*s)[2] != heads) {
            err(diags, std::string(name) + "/Sizes", "head-count",
                std::string(name) + " has Sizes " + bracketed_sizes(t.Sizes) + "; its third dimension is headCount (" +
                    (heads == z.heads ? heads_name : "KeyValueHeadCount") + " " + std::to_string(heads) + ")");
            return std::nullopt;
        }
        return s;
    };
    auto hidden = [&](uint32_t h, const char* name, uint32_t& head, uint32_t heads) {
        if (h % heads != 0) {
            err(diags, std::string(name) + "/Sizes", "head-count",
                std::string(name) + "'s last dimension " + std::to_string(h) + " is not a multiple of " +
                    (heads == z.heads ? heads_name : "KeyValueHeadCount") + " " + std::to_string(heads));
            return false;
        }
        head = h / heads;
        return true;
    };
    if (qkv) {
        const auto s = stacked(*d.StackedQueryKeyValueTensor, "StackedQueryKeyValueTensor", 3, z.heads);
        if (!s) return std::nullopt;
        z.batch = (*s)[0], z.sequence = z.kv = (*s)[1], z.head = z.value_head = (*s)[4];
    } else {
        if (qk) {
            const auto s = stacked(*d.StackedQueryKeyTensor, "StackedQueryKeyTensor", 2, z.heads);
            if (!s) return std::nullopt;
            z.batch = (*s)[0], z.sequence = z.kv = (*s)[1], z.head = (*s)[4];
        } else {
            const auto s = trailing(*d.QueryTensor, "QueryTensor", 3, diags);
            if (!s || !hidden((*s)[2], "QueryTensor", z.head, z.heads)) return std::nullopt;
            z.batch = (*s)[0], z.sequence = (*s)[1];
        }
        if (kv) {
            const auto s = stacked(*d.StackedKeyValueTensor, "StackedKeyValueTensor", 2, z.kv_heads);
            if (!s) return std::nullopt;
            if ((*s)[0] != z.batch || (*s)[4] != z.head) {
                err(diags, "StackedKeyValueTensor/Sizes", "key-sizes",
                    "StackedKeyValueTensor has Sizes " + bracketed_sizes(d.StackedKeyValueTensor->Sizes) +
                        "; it must be [batchSize " + std::to_string(z.batch) +
                        ", keyValueSequenceLength, headCount, 2, headSize " + std::to_string(z.head) + "]");
                return std::nullopt;
            }
            z.kv = (*s)[1], z.value_head = z.head;
        }
        if (k) {
            const auto s = trailing(*d.KeyTensor, "KeyTensor", 3, diags);
            if (!s) return std::nullopt;
            if ((*s)[0] != z.batch || (*s)[2] != z.kv_heads * z.head) {
                err(diags, "KeyTensor/Sizes", "key-sizes",
                    "KeyTensor has Sizes " + bracketed_sizes(d.KeyTensor->Sizes) + "; it must be [batchSize " +
                        std::to_string(z.batch) + ", keyValueSequenceLength, hiddenSize " +
                        std::to_string(z.kv_heads * z.head) + "]");
                return std::nullopt;
            }
            z.kv = (*s)[1];
        }
        if (v) {
            const auto s = trailing(*d.ValueTensor, "ValueTensor", 3, diags);
            if (!s || !hidden((*s)[2], "ValueTensor", z.value_head, z.kv_heads)) return std::nullopt;
            if ((*s)[0] != z.batch || (*s)[1] != z.kv) {
                err(diags, "ValueTensor/Sizes", "value-sizes",
                    "ValueTensor has Sizes " + bracketed_sizes(d.ValueTensor->Sizes) + "; it must be [batchSize " +
                        std::to_string(z.batch) + ", keyValueSequenceLength " + std::to_string(z.kv) +
                        ", valueHiddenSize]");
                return std::nullopt;
            }
        }
    }
    if (d.PastKeyTensor.has_value() != d.PastValueTensor.has_value()) {
        err(diags, d.PastKeyTensor ? "PastKeyTensor" : "PastValueTensor", "past-sizes",
            "PastKeyTensor and PastValueTensor come together: keys and values have one sequence length");
        return std::nullopt;
    }
    if (d.PastKeyTensor) {
        const auto s = trailing(*d.PastKeyTensor, "PastKeyTensor", 4, diags);
        if (!s) return std::nullopt;
        z.past = (*s)[2];
    }
    return z;
}

void validate_attention(const MHA1& d, bool v1, Diagnostics& diags);

bool valid_attention(const MHA1& d) {
    Diagnostics diags;
    validate_attention(d, true, diags);
    return !diags.has_errors();
}

}  // namespace

AttentionDesc as_attention1(const MHA& d) {
    MHA1 r;
    r.QueryTensor = d.QueryTensor, r.KeyTensor = d.KeyTensor, r.ValueTensor = d.ValueTensor;
    r.StackedQueryKeyTensor = d.StackedQueryKeyTensor, r.StackedKeyValueTensor = d.StackedKeyValueTensor;
    r.StackedQueryKeyValueTensor = d.StackedQueryKeyValueTensor, r.BiasTensor = d.BiasTensor,
    r.MaskTensor = d.MaskTensor;
    r.RelativePositionBiasTensor = d.RelativePositionBiasTensor, r.PastKeyTensor = d.PastKeyTensor,
    r.PastValueTensor = d.PastValueTensor;
    r.OutputTensor = d.OutputTensor, r.OutputPresentKeyTensor = d.OutputPresentKeyTensor,
    r.OutputPresentValueTensor = d.OutputPresentValueTensor;
    r.Scale = d.Scale, r.MaskFilterValue = d.MaskFilterValue, r.QueryHeadCount = r.KeyValueHeadCount = d.HeadCount,
    r.MaskType = d.MaskType;
    return r;
}

const AttentionDesc& attention_desc_of(const Operator& op, AttentionDesc& storage) {
    if (op.Type == OperatorType::MULTIHEAD_ATTENTION1) return get<MHA1>(op.Desc);
    storage = as_attention1(get<MHA>(op.Desc));
    return storage;
}

AttentionSizes attention_sizes(const MHA1& d) {
    Diagnostics diags;
    const auto z = sizes_of(d, true, diags);
    return z ? *z : AttentionSizes{};
}

bool attention_key_live(const MHA1& d, const AttentionSizes& z, const std::vector<double>& lengths, uint32_t b,
                        uint32_t j) {
    if (!d.PastSequenceLengthsTensor || j >= z.past) return true;
    return double(j) < lengths.at(b);  // a NaN length leaves every past key out
}

void validate(const MHA& d, Diagnostics& diags) { validate_attention(as_attention1(d), false, diags); }
void validate(const MHA1& d, Diagnostics& diags) { validate_attention(d, true, diags); }

namespace {

void validate_attention(const MHA1& d, bool v1, Diagnostics& diags) {
    // The page's tensor support table: dimension counts and data types.
    auto tensor_of = [&](std::string_view name) -> const TensorDesc* {
        if (name == "OutputTensor") return &d.OutputTensor;
        if (name == "OutputPresentKeyTensor") return d.OutputPresentKeyTensor ? &*d.OutputPresentKeyTensor : nullptr;
        if (name == "OutputPresentValueTensor")
            return d.OutputPresentValueTensor ? &*d.OutputPresentValueTensor : nullptr;
        for (const AttentionField& f : inputs_of(d))
            if (name == f.name) return *f.tensor ? &**f.tensor : nullptr;
        return nullptr;
    };
    bool shapes = true;
    const TensorDesc* first = nullptr;
    const char* first_name = nullptr;
    for (const Dims& r : kDims) {
        const TensorDesc* t = tensor_of(r.name);
        if (!t) continue;
        const uint32_t n = t->DimensionCount();
        if (n < r.lo || n > r.hi) {
            err(diags, std::string(r.name) + "/Sizes", "dimension-count",
                std::string(r.name) + " has " + std::to_string(n) + " dimensions; the page allows " +
                    std::to_string(r.lo) + " to " + std::to_string(r.hi));
            shapes = false;
        }
        const bool mask = std::string_view(r.name) == "MaskTensor";
        const bool ok = mask ? t->DataType == DataType::INT32
                             : (t->DataType == DataType::FLOAT32 || t->DataType == DataType::FLOAT16);
        if (!ok) {
            err(diags, std::string(r.name) + "/DataType", "data-type",
                std::string(r.name) + " is " + std::string(name(t->DataType)) + "; the page allows " +
                    (mask ? "INT32" : "FLOAT32 and FLOAT16"));
            continue;
        }
        if (mask) continue;
        if (!first) {
            first = t, first_name = r.name;
        } else if (t->DataType != first->DataType) {
            err(diags, std::string(r.name) + "/DataType", "same-data-type",
                std::string(r.name) + " is " + std::string(name(t->DataType)) + " and " + first_name + " " +
                    std::string(name(first->DataType)) + "; the float tensors must have the same DataType");
        }
    }
    if (d.MaskType > DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN) {
        err(diags, "MaskType", "mask-type",
            "MaskType " + std::to_string(d.MaskType) + " is not a DML_MULTIHEAD_ATTENTION_MASK_TYPE");
        return;
    }
    if ((d.MaskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE) == d.MaskTensor.has_value()) {
        err(diags, d.MaskTensor ? "MaskTensor" : "MaskType", "mask-required",
            d.MaskTensor
                ? "MaskTensor is given with MaskType NONE; MaskType describes the behavior of MaskTensor"
                : "MaskType is not NONE and MaskTensor is null; MaskType describes the behavior of MaskTensor");
    }
    if (d.MaskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END)
        err(diags, "MaskType", "mask-type-not-built",
            "MaskType KEY_QUERY_SEQUENCE_LENGTH_START_END is not built in dmlref yet (docs/golden.md, Multihead attention)");
    if (!shapes) return;
    const auto zz = sizes_of(d, v1, diags);
    if (!zz) return;
    const AttentionSizes& z = *zz;
    const uint32_t B = z.batch, H = z.heads, KH = z.kv_heads, S = z.sequence, T = z.total();
    expect_sizes(diags, d.OutputTensor, "OutputTensor", {B, S, H * z.value_head}, "output-sizes",
                 "[batchSize, sequenceLength, valueHiddenSize]");
    if (d.BiasTensor) {
        const uint32_t n = H * z.head + KH * z.head + KH * z.value_head;
        expect_sizes(diags, *d.BiasTensor, "BiasTensor", {n}, "bias-sizes",
                     "[hiddenSize + hiddenSize + valueHiddenSize]");
    }
    if (d.RelativePositionBiasTensor)
        expect_sizes(diags, *d.RelativePositionBiasTensor, "RelativePositionBiasTensor", {B, H, S, T},
                     "relative-position-bias-sizes",
                     "[batchSize, headCount, sequenceLength, pastSequenceLength + keyValueSequenceLength]");
    if (d.PastKeyTensor) {
        expect_sizes(diags, *d.PastKeyTensor, "PastKeyTensor", {B, KH, z.past, z.head}, "past-sizes",
                     "[batchSize, headCount, pastSequenceLength, headSize]");
        expect_sizes(diags, *d.PastValueTensor, "PastValueTensor", {B, KH, z.past, z.value_head}, "past-sizes",
                     "[batchSize, headCount, pastSequenceLength, valueHeadSize]");
    }
    if (d.OutputPresentKeyTensor)
        expect_sizes(diags, *d.OutputPresentKeyTensor, "OutputPresentKeyTensor", {B, KH, T, z.head}, "present-sizes",
                     "[batchSize, headCount, pastSequenceLength + keyValueSequenceLength, headSize]");
    if (d.OutputPresentValueTensor)
        expect_sizes(diags, *d.OutputPresentValueTensor, "OutputPresentValueTensor", {B, KH, T, z.value_head},
                     "present-sizes",
                     "[batchSize, headCount, pastSequenceLength + keyValueSequenceLength, valueHeadSize]");
    if (d.PastSequenceLengthsTensor) {
        if (d.PastSequenceLengthsTensor->DimensionCount() >= 1)
            expect_sizes(diags, *d.PastSequenceLengthsTensor, "PastSequenceLengthsTensor", {B},
                         "past-sequence-lengths-sizes", "(AttentionPastSequenceLengths) [batchSize]");
    }
    if (d.MaskTensor) {
        const TensorDesc& m = *d.MaskTensor;
        switch (d.MaskType) {
            case DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN:
                if (m.DimensionCount() < 4)
                    err(diags, "MaskTensor/Sizes", "mask-sizes",
                        "a BOOLEAN MaskTensor has 4 or 5 dimensions, [batchSize, headCount, sequenceLength, pastSequenceLength + "
                        "keyValueSequenceLength] (docs/golden.md, AttentionBooleanMaskShape)");
                else
                    expect_sizes(
                        diags, m, "MaskTensor", {B, H, S, T}, "mask-sizes",
                        "(AttentionBooleanMaskShape) [batchSize, headCount, sequenceLength, pastSequenceLength + keyValueSequenceLength]");
                break;
            case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH:
            case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START: {
                const uint32_t rows = d.MaskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH ? 1 : 2;
                if (m.DimensionCount() < 2)
                    err(diags, "MaskTensor/Sizes", "mask-sizes",
                        "this MaskType's MaskTensor has shape [" + std::to_string(rows) + ", batchSize]");
                else
                    expect_sizes(diags, m, "MaskTensor", {rows, B}, "mask-sizes",
                                 "[" + std::to_string(rows) + ", batchSize]");
                break;
            }
            default: break;
        }
    }
}

}  // namespace

AttentionSource attention_source(const MHA1& d, const AttentionSizes& z, AttentionRole role, uint32_t b, uint32_t row,
                                 uint32_t h, uint32_t i) {
    // Queries have QueryHeadCount heads; keys and values KeyValueHeadCount, query head h reading kh.
    const uint64_t H = role == AttentionRole::Query ? z.heads : z.kv_heads;
    if (role != AttentionRole::Query) h = z.kv_head(h);
    auto stacked = [&](const char* f, uint32_t rows, uint32_t parts, uint32_t part) {
        return AttentionSource{f, ((((uint64_t(b) * rows + row) * H + h) * parts + part) * z.head) + i};
    };
    switch (role) {
        case AttentionRole::Query:
            if (d.StackedQueryKeyValueTensor) return stacked("StackedQueryKeyValueTensor", z.sequence, 3, 0);
            if (d.StackedQueryKeyTensor) return stacked("StackedQueryKeyTensor", z.sequence, 2, 0);
            return {"QueryTensor", (uint64_t(b) * z.sequence + row) * H * z.head + uint64_t(h) * z.head + i};
        case AttentionRole::Key:
            if (d.StackedQueryKeyValueTensor) return stacked("StackedQueryKeyValueTensor", z.kv, 3, 1);
            if (d.StackedQueryKeyTensor) return stacked("StackedQueryKeyTensor", z.kv, 2, 1);
            if (d.StackedKeyValueTensor) return stacked("StackedKeyValueTensor", z.kv, 2, 0);
            return {"KeyTensor", (uint64_t(b) * z.kv + row) * H * z.head + uint64_t(h) * z.head + i};
        case AttentionRole::Value:
            if (d.StackedQueryKeyValueTensor) return stacked("StackedQueryKeyValueTensor", z.kv, 3, 2);
            if (d.StackedKeyValueTensor) return stacked("StackedKeyValueTensor", z.kv, 2, 1);
            return {"ValueTensor", (uint64_t(b) * z.kv + row) * H * z.value_head + uint64_t(h) * z.value_head + i};
    }
    return {};
}

MaskEffect attention_mask(const MHA1& d, const AttentionSizes& z, const std::vector<double>& mask, uint32_t b,
                          uint32_t h, uint32_t s, uint32_t j) {
    switch (d.MaskType) {
        case DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN: {
            const uint64_t at = ((uint64_t(b) * z.heads + h) * z.sequence + s) * z.total() + j;
            return mask.at(at) == 0 ? MaskEffect::Add : MaskEffect::None;
        }
        case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH:
            return double(j) >= mask.at(b) ? MaskEffect::Set : MaskEffect::None;
        case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START: {
            const double end = mask.at(b), start = mask.at(uint64_t(z.batch) + b);
            return double(j) >= end || double(j) < start ? MaskEffect::Set : MaskEffect::None;
        }
        default: return MaskEffect::None;
    }
}

namespace {

// The inputs as exact values, by field.
struct Loaded {
    std::map<std::string_view, std::vector<double>> x;
    const std::vector<double>& at(std::string_view f) const { return x.at(f); }
};

Loaded load(const MHA1& d, const Bindings& b) {
    Loaded l;
    for (const AttentionField& f : inputs_of(d))
        if (*f.tensor) l.x[f.name] = logical_doubles(**f.tensor, b.at(f.name));
    return l;
}

// One query row's keys and values: the scores S_j exactly, and each value column.
struct AttentionRow {
    std::vector<Ext> score;
};

Ext biased(const Loaded& l, const MHA1& d, const AttentionSource& src, std::optional<uint64_t> bias_index) {
    Ext v = ext(l.at(src.field).at(src.index));
    if (d.BiasTensor && bias_index) v = add(v, ext(l.at("BiasTensor").at(*bias_index)));
    return v;
}

// Key (j, i) or value (j, i) of batch b and head h, past ones first (no Bias on the past).
// h is a query head; Bias is [query part (QueryHeadCount heads), key part, value part
// (KeyValueHeadCount heads each)].
Ext key_or_value(const Loaded& l, const MHA1& d, const AttentionSizes& z, bool value, uint32_t b, uint32_t h,
                 uint32_t j, uint32_t i) {
    const uint32_t width = value ? z.value_head : z.head;
    const uint32_t kh = z.kv_head(h);
    if (j < z.past) {
        const auto& past = l.at(value ? "PastValueTensor" : "PastKeyTensor");
        return ext(past.at(((uint64_t(b) * z.kv_heads + kh) * z.past + j) * width + i));
    }
    const uint64_t query = uint64_t(z.heads) * z.head, key = uint64_t(z.kv_heads) * z.head;
    const AttentionSource src = attention_source(d, z, value ? AttentionRole::Value : AttentionRole::Key, b, j - z.past,
                                                 h, i);
    return biased(l, d, src, (value ? query + key : query) + uint64_t(kh) * width + i);
}

// The exact output of one column given the row's finite scores' offsets x_j = S_j - max (all
// <= 0) and the values v_j, rounded once to T (docs/golden.md, Multihead attention).
template <class T> T softmax_times_values(const std::vector<mpq_class>& x, const std::vector<mpq_class>& v) {
    // Rational outputs: the value is sum_s e^s V_s / sum_s e^s c_s over the distinct scores s
    // (V_s the sum of the values with score s, c_s their count); by Lindemann-Weierstrass it is a
    // rational r only where every V_s = r c_s.
    std::map<mpq_class, std::pair<mpq_class, long>> groups;
    for (size_t j = 0; j < x.size(); ++j) {
        auto& g = groups[x[j]];
        g.first += v[j];
        g.second += 1;
    }
    std::optional<mpq_class> mean;
    bool rational = true;
    for (const auto& [s, g] : groups) {
        const mpq_class m = g.first / g.second;
        if (!mean) mean = m;
        else if (*mean != m) {
            rational = false;
            break;
        }
    }
    if (rational) return round_rational<T>(*mean);
    // Terms far below the largest (e^x < 2^-1,500,000) are left out: they cannot move the
    // rounding at any precision Ziv's loop reaches.
    std::vector<size_t> kept;
    double xmax = 0;
    for (size_t j = 0; j < x.size(); ++j)
        if (x[j] >= -1048576) {
            kept.push_back(j);
            xmax = std::max(xmax, -x[j].get_d());
        }
    const double n = double(kept.size());
    const Evaluation f = [&](mpfr_ptr out, mpfr_prec_t p) -> long {
        mpfr_t a, e, Z, N, A;
        mpfr_inits2(p + 8, a, e, Z, N, static_cast<mpfr_ptr>(nullptr));
        mpfr_init2(A,
                   64);  // sum e_j |v_j|, rounded up, for the error bound (in MPFR: it may be far below double's range)
        mpfr_set_zero(Z, 1);
        mpfr_set_zero(N, 1);
        mpfr_set_zero(A, 1);
        for (size_t j : kept) {
            mpfr_set_q(a, x[j].get_mpq_t(), MPFR_RNDN);
            mpfr_exp(e, a, MPFR_RNDN);
            mpfr_add(Z, Z, e, MPFR_RNDN);
            mpfr_set_q(a, v[j].get_mpq_t(), MPFR_RNDN);
            mpfr_mul(a, a, e, MPFR_RNDN);
            if (mpfr_sgn(a) > 0) mpfr_add(A, A, a, MPFR_RNDU);
            else mpfr_sub(A, A, a, MPFR_RNDU);
            mpfr_add(N, N, a, MPFR_RNDN);
        }
        mpfr_div(out, N, Z, MPFR_RNDN);
        mpfr_div(A, A, Z, MPFR_RNDU);  // A / Z >= |value|
        const bool usable = !mpfr_zero_p(out) && !mpfr_zero_p(A);
        long exponent = 0;
        const double mantissa = usable ? mpfr_get_d_2exp(&exponent, A, MPFR_RNDU) : 0;
        mpfr_clears(a, e, Z, N, A, static_cast<mpfr_ptr>(nullptr));
        if (!usable) return 0;
        // Each working rounding is within 2^-(p+8) relative: exp's argument moves e_j by at most
        // (e^(|x_j| r) - 1), each product and sum by r; the quotient of two sums with relative
        // errors below (|x|max + 2n + 4) r is within 2.1 (|x|max + 2n + 4) r A/Z of the value;
        // then the final rounding to p bits, at most 2^-p A/Z.
        const double factor = 2.1 * (xmax + 2 * n + 4) * 1.01 / 256 + 1;
        const double log2_error = std::log2(mantissa) + double(exponent) + std::log2(factor) - double(p);
        return long(mpfr_get_exp(out)) - long(std::ceil(log2_error)) - 1;
    };
    return correctly_rounded<T>(f);
}

template <class T> void evaluate_as_type(const MHA1& d, const Bindings& bind) {
    const AttentionSizes z = attention_sizes(d);
    const Loaded l = load(d, bind);
    const uint32_t B = z.batch, H = z.heads, S = z.sequence, T_ = z.total();
    const std::vector<double> none;
    const std::vector<double>& mask = d.MaskTensor ? l.at("MaskTensor") : none;
    const std::vector<double>& lengths = d.PastSequenceLengthsTensor ? l.at("PastSequenceLengthsTensor") : none;
    const Ext scale = ext(double(d.Scale)), filter = ext(double(d.MaskFilterValue));
    std::vector<T> out(uint64_t(B) * S * H * z.value_head);
    for (uint32_t b = 0; b < B; ++b)
        for (uint32_t h = 0; h < H; ++h) {
            // The keys and values of this batch and head; a past key beyond the batch's length
            // takes no part (AttentionPastSequenceLengths=ValidBelowLength).
            std::vector<char> live(T_);
            for (uint32_t j = 0; j < T_; ++j) live[j] = attention_key_live(d, z, lengths, b, j);
            std::vector<std::vector<Ext>> K(T_), V(T_);
            for (uint32_t j = 0; j < T_; ++j) {
                if (!live[j]) continue;
                for (uint32_t i = 0; i < z.head; ++i) K[j].push_back(key_or_value(l, d, z, false, b, h, j, i));
                for (uint32_t i = 0; i < z.value_head; ++i) V[j].push_back(key_or_value(l, d, z, true, b, h, j, i));
            }
            for (uint32_t s = 0; s < S; ++s) {
                std::vector<Ext> q;
                for (uint32_t i = 0; i < z.head; ++i)
                    q.push_back(biased(l, d, attention_source(d, z, AttentionRole::Query, b, s, h, i),
                                       uint64_t(h) * z.head + i));
                std::vector<Ext> score(T_);
                bool nan_row = T_ == 0;
                std::optional<mpq_class> max;
                for (uint32_t j = 0; j < T_; ++j) {
                    if (!live[j]) continue;
                    Ext dot;
                    for (uint32_t i = 0; i < z.head; ++i) dot = add(dot, mul(q[i], K[j][i]));
                    Ext sj = mul(scale, dot);
                    if (d.RelativePositionBiasTensor)
                        sj = add(sj,
                                 ext(l.at("RelativePositionBiasTensor").at(((uint64_t(b) * H + h) * S + s) * T_ + j)));
                    const MaskEffect m = attention_mask(d, z, mask, b, h, s, j);
                    if (m == MaskEffect::Add) sj = add(sj, filter);
                    if (m == MaskEffect::Set) sj = filter;
                    if (sj.kind == Ext::NaN || sj.kind == Ext::PosInf) nan_row = true;
                    if (sj.finite() && (!max || sj.q > *max)) max = sj.q;
                    score[j] = sj;
                }
                if (!max) nan_row = true;  // every score -inf (AttentionNonFinite=NaNRow)
                const uint64_t base = (uint64_t(b) * S + s) * H * z.value_head + uint64_t(h) * z.value_head;
                std::vector<mpq_class> x;
                for (uint32_t j = 0; j < T_ && !nan_row; ++j)
                    if (live[j] && score[j].finite()) x.push_back(score[j].q - *max);
                for (uint32_t c = 0; c < z.value_head; ++c) {
                    T& o = out[base + c];
                    if (nan_row) {
                        o = canonical_nan<T>();
                        continue;
                    }
                    // Non-finite values: IEEE's rules on sum_j P_j v_j with P_j > 0 for the finite
                    // scores and 0 for the -inf ones (0 * inf is NaN).
                    bool nan = false, pos = false, neg = false;
                    std::vector<mpq_class> v;
                    for (uint32_t j = 0; j < T_; ++j) {
                        if (!live[j]) continue;
                        const Ext& e = V[j][c];
                        const bool weighted = score[j].finite();
                        if (e.kind == Ext::NaN || (!e.finite() && !weighted)) nan = true;
                        else if (e.kind == Ext::PosInf) pos = true;
                        else if (e.kind == Ext::NegInf) neg = true;
                        else if (weighted) v.push_back(e.q);
                    }
                    if (nan || (pos && neg)) o = canonical_nan<T>();
                    else if (pos || neg) o = round_to_float<T>(pos ? INFINITY : -INFINITY);
                    else o = softmax_times_values<T>(x, v);
                }
            }
        }
    write_logical<T>(d.OutputTensor, bind.at("OutputTensor"), [&](uint64_t i) { return out[i]; });
    // The present key and value: the past ones, then the new ones with their Bias added.
    for (const bool value : {false, true}) {
        const auto& present = value ? d.OutputPresentValueTensor : d.OutputPresentKeyTensor;
        if (!present) continue;
        std::map<std::string_view, std::vector<T>> raw;  // the inputs' elements as stored
        for (const AttentionField& f : inputs_of(d))
            if (*f.tensor && std::string_view(f.name) != "MaskTensor")
                raw[f.name] = logical_values<T>(**f.tensor, bind.at(f.name));
        const uint32_t width = value ? z.value_head : z.head;
        std::vector<T> p;
        const uint32_t KH = z.kv_heads, group = H / KH;
        p.reserve(uint64_t(B) * KH * T_ * width);
        for (uint32_t b = 0; b < B; ++b)
            for (uint32_t kh = 0; kh < KH; ++kh)
                for (uint32_t j = 0, h = kh * group; j < T_; ++j)  // h: the first query head reading kh
                    for (uint32_t i = 0; i < width; ++i) {
                        // Without a Bias the element is copied bit for bit (a NaN keeps its payload).
                        if (!d.BiasTensor || j < z.past) {
                            if (j < z.past) {
                                p.push_back(raw.at(value ? "PastValueTensor" : "PastKeyTensor")
                                                .at(((uint64_t(b) * KH + kh) * z.past + j) * width + i));
                            } else {
                                const AttentionSource src = attention_source(
                                    d, z, value ? AttentionRole::Value : AttentionRole::Key, b, j - z.past, h, i);
                                p.push_back(raw.at(src.field).at(src.index));
                            }
                        } else {
                            p.push_back(round_ext<T>(key_or_value(l, d, z, value, b, h, j, i)));
                        }
                    }
        write_logical<T>(*present, bind.at(value ? "OutputPresentValueTensor" : "OutputPresentKeyTensor"),
                         [&](uint64_t i) { return p[i]; });
    }
}

}  // namespace

void evaluate(const MHA1& d, const Bindings& b) {
    if (d.OutputTensor.DataType == DataType::FLOAT16) evaluate_as_type<half>(d, b);
    else evaluate_as_type<float>(d, b);
}

void evaluate(const MHA& d, const Bindings& b) { evaluate(as_attention1(d), b); }

std::optional<Tolerance> tolerance(const MHA& d, std::string_view output) {
    return tolerance(as_attention1(d), output);
}

std::optional<Tolerance> tolerance(const MHA1& d, std::string_view output) {
    if (output != "OutputTensor" || !valid_attention(d)) return std::nullopt;
    Tolerance tol;
    tol.Kind = "Summed";
    tol.MaxTerms = 0;
    tol.Why =
        "the exact composite rounded once (docs/golden.md, Multihead attention); dmlref diff bounds each element "
        "through the composite: the first GEMM's dot-product bound, softmax's sensitivity to its scores and its "
        "own exp, sum and division, then the second GEMM (docs/tolerance.md, Multihead attention)";
    return tol;
}

}  // namespace dmlref::reference

// ---- The bound (docs/tolerance.md, "Multihead attention") -------------------------------------

namespace dmlref {

namespace {

using namespace running_error;
using reference::AttentionRole;
using reference::AttentionSizes;

// exp(x) of a backend: within kStatedAccuracy.exp2 ULP, plus |x| u for each rounding of its
// argument (exp as exp2(x log2 e)): a relative error, taken as a perturbation of the score.
double exp_error(const W& w, double x) { return 2 * (kStatedAccuracy.exp2 + std::fabs(x) + 1) * w.u; }

std::vector<double> bounds(const InputBuffer& input, const reference::AttentionDesc& d, const ArithmeticProfile& prof) {
    const AttentionSizes z = reference::attention_sizes(d);
    std::map<std::string_view, std::vector<double>> x;
    const char* fields[] = {"QueryTensor",
                            "KeyTensor",
                            "ValueTensor",
                            "StackedQueryKeyTensor",
                            "StackedKeyValueTensor",
                            "StackedQueryKeyValueTensor",
                            "BiasTensor",
                            "MaskTensor",
                            "RelativePositionBiasTensor",
                            "PastKeyTensor",
                            "PastValueTensor",
                            "PastSequenceLengthsTensor"};
    const std::optional<TensorDesc>* tensors[] = {&d.QueryTensor,
                                                  &d.KeyTensor,
                                                  &d.ValueTensor,
                                                  &d.StackedQueryKeyTensor,
                                                  &d.StackedKeyValueTensor,
                                                  &d.StackedQueryKeyValueTensor,
                                                  &d.BiasTensor,
                                                  &d.MaskTensor,
                                                  &d.RelativePositionBiasTensor,
                                                  &d.PastKeyTensor,
                                                  &d.PastValueTensor,
                                                  &d.PastSequenceLengthsTensor};
    for (size_t f = 0; f < std::size(fields); ++f)
        if (*tensors[f]) x[fields[f]] = values(input, **tensors[f], fields[f]);
    const std::vector<double> none;
    const std::vector<double>& mask = d.MaskTensor ? x.at("MaskTensor") : none;
    const std::vector<double>& lengths = d.PastSequenceLengthsTensor ? x.at("PastSequenceLengthsTensor") : none;
    const DataType t = d.OutputTensor.DataType;
    const bool flush = prof.flush_subnormals;
    const uint32_t B = z.batch, H = z.heads, KH = z.kv_heads, S = z.sequence, Tall = z.total();
    const uint64_t query = uint64_t(H) * z.head, key = uint64_t(KH) * z.head;
    return over_profile(t, prof, [&](DataType wt, const W& w) {
        // An input element, and its Bias added in w.
        auto biased = [&](const reference::AttentionSource& src, uint64_t bias_at) {
            const V v = w.in(x.at(src.field).at(src.index));
            return d.BiasTensor ? w.add(v, w.in(x.at("BiasTensor").at(bias_at))) : v;
        };
        auto kv = [&](bool value, uint32_t b, uint32_t h, uint32_t j, uint32_t i) {
            const uint32_t width = value ? z.value_head : z.head, kh = z.kv_head(h);
            if (j < z.past)
                return w.in(x.at(value ? "PastValueTensor" : "PastKeyTensor")
                                .at(((uint64_t(b) * KH + kh) * z.past + j) * width + i));
            return biased(reference::attention_source(d, z, value ? AttentionRole::Value : AttentionRole::Key, b,
                                                      j - z.past, h, i),
                          (value ? query + key : query) + uint64_t(kh) * width + i);
        };
        const V scale = constant(w, wt, d.Scale), filter = constant(w, wt, d.MaskFilterValue);
        std::vector<double> out(uint64_t(B) * S * H * z.value_head, kInfinity);
        for (uint32_t b = 0; b < B; ++b)
            for (uint32_t h = 0; h < H; ++h)
                for (uint32_t s = 0; s < S; ++s) {
                    std::vector<V> q;
                    for (uint32_t i = 0; i < z.head; ++i)
                        q.push_back(biased(reference::attention_source(d, z, AttentionRole::Query, b, s, h, i),
                                           uint64_t(h) * z.head + i));
                    // The keys that take part (AttentionPastSequenceLengths=ValidBelowLength).
                    std::vector<uint32_t> js;
                    for (uint32_t j = 0; j < Tall; ++j)
                        if (reference::attention_key_live(d, z, lengths, b, j)) js.push_back(j);
                    const uint32_t T = uint32_t(js.size());
                    // The scores: Scale times the dot product (or Scale inside each product), plus
                    // RelativePositionBias and the mask, in any order.
                    std::vector<V> score(T);
                    bool finite = T > 0;
                    for (uint32_t jj = 0; jj < T && finite; ++jj) {
                        const uint32_t j = js[jj];
                        std::vector<V> prods, scaled;
                        for (uint32_t i = 0; i < z.head; ++i) {
                            const V k = kv(false, b, h, j, i);
                            prods.push_back(w.prod({q[i], k}));
                            scaled.push_back(w.prod({scale, q[i], k}));
                        }
                        const V a = w.prod({scale, w.sum(prods)}), c = w.sum(scaled);
                        std::vector<V> parts{{a.v, std::max(a.e, c.e)}};
                        if (d.RelativePositionBiasTensor)
                            parts.push_back(w.in(
                                x.at("RelativePositionBiasTensor").at(((uint64_t(b) * H + h) * S + s) * Tall + j)));
                        const auto m = reference::attention_mask(d, z, mask, b, h, s, j);
                        if (m == reference::MaskEffect::Add) parts.push_back(filter);
                        score[jj] = m == reference::MaskEffect::Set ? filter : w.sum(parts);
                        finite = std::isfinite(score[jj].v) && std::isfinite(score[jj].e);
                    }
                    if (!finite)
                        continue;  // NaN rows and infinite scores: unbounded (their goldens are NaN or special)
                    // The maximum, and how far a backend's may be from it: the error of any score that
                    // may be the largest (a masked score far below cannot).
                    uint32_t top = 0;
                    for (uint32_t j = 1; j < T; ++j)
                        if (score[j].v > score[top].v) top = j;
                    const double m = score[top].v;
                    double e_max = 0;
                    for (const V& v : score)
                        if (v.v + v.e >= m - score[top].e) e_max = std::max(e_max, v.e);
                    // Each weight's perturbation as a change of its score: the score's own error, the
                    // rounding of its difference to the (computed) maximum, and exp's error; the
                    // maximum's own error cancels in the ratio.
                    std::vector<double> E(T), dlt(T);
                    double Z = 0;
                    for (uint32_t j = 0; j < T; ++j) {
                        const double xj = score[j].v - m;
                        E[j] = std::exp(xj);
                        Z += E[j];
                        dlt[j] = score[j].e + w.u * (std::fabs(xj) + score[j].e + e_max) +
                                 exp_error(w, std::fabs(xj) + score[j].e + e_max);
                    }
                    double lo_sum = 0, hi_sum = 0;  // sum_k P_k e^(-+d_k)
                    for (uint32_t j = 0; j < T; ++j)
                        lo_sum += E[j] / Z * std::exp(-dlt[j]), hi_sum += E[j] / Z * std::exp(dlt[j]);
                    const double theta = gamma_up(uint64_t(std::max<uint32_t>(T, 2) - 1),
                                                  w.u);  // the sum of positive weights
                    const double div = 2 * kStatedAccuracy.division * w.u;
                    for (uint32_t c = 0; c < z.value_head; ++c) {
                        std::vector<V> pa, nb;
                        std::vector<V> vals(T);
                        for (uint32_t j = 0; j < T; ++j) vals[j] = kv(true, b, h, js[j], c);
                        // Form A: P_j normalized first, then sum_j P_j v_j.
                        for (uint32_t j = 0; j < T; ++j) {
                            const double P = E[j] / Z;
                            const double rho = std::max(std::exp(dlt[j]) / lo_sum - 1, 1 - std::exp(-dlt[j]) / hi_sum);
                            const double sigma = (1 + rho) * (1 + theta / (1 - theta)) * (1 + div) - 1;
                            pa.push_back(w.prod({V{P, P * sigma + w.eta}, vals[j]}));
                        }
                        const V oa = w.sum(pa);
                        // Form B: sum_j e_j v_j and sum_j e_j, divided at the end (flash-style, one pass).
                        std::vector<V> zs;
                        for (uint32_t j = 0; j < T; ++j) {
                            const double pert = E[j] * std::expm1(dlt[j]) + w.eta;
                            nb.push_back(w.prod({V{E[j], pert}, vals[j]}));
                            zs.push_back(V{E[j], pert});
                        }
                        const V n = w.sum(nb), zz = w.sum(zs);
                        double eb = kInfinity;
                        if (zz.v - zz.e > 0) {
                            const double y = n.v / zz.v;
                            double spread = 0;  // the quotient over the box of numerator and denominator
                            for (const double nn : {n.v - n.e, n.v + n.e})
                                for (const double dd : {zz.v - zz.e, zz.v + zz.e})
                                    spread = std::max(spread, std::fabs(nn / dd - y));
                            eb = spread + div * (std::fabs(y) + spread) + w.eta;
                        }
                        const double y = oa.v;
                        const uint64_t at = (uint64_t(b) * S + s) * H * z.value_head + uint64_t(h) * z.value_head + c;
                        out[at] = stored(std::max(oa.e, eb), y, t, wt, flush);
                    }
                }
        return out;
    });
}

}  // namespace

void multihead_attention_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                TermSink& sink) {
    reference::AttentionDesc storage;
    const std::vector<double> b = bounds(input, reference::attention_desc_of(op, storage), p);
    for (uint64_t i = 0; i < b.size() && i < sink.elements().size(); ++i) sink.set_computed(i, b[i], 0, 0);
}

}  // namespace dmlref
