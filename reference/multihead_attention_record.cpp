// The MULTIHEAD_ATTENTION family's record (reference/kit/family.hpp): the facts of
// DML_MULTIHEAD_ATTENTION_OPERATOR_DESC and DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC from their
// pages, how the outputs are judged
// (reference/multihead_attention.cpp), explain and coverage.
#include "multihead_attention.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_multihead_attention {

using namespace kit;
using MHA = DML_MULTIHEAD_ATTENTION_OPERATOR_DESC;
using MHA1 = DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC;

// --max-work: the reads counted cover long key sequences; a short one's MPFR exponentials and
// division per element (measured; docs/rules.md, limit.work).
constexpr uint64_t kAttentionCost = 1000;

// docs/golden.md, "Multihead attention".
constexpr Policy kAttentionValue{"AttentionValue", "ExactThenRoundOnce"};
constexpr Policy kAttentionIntermediates{"AttentionIntermediates", "Exact"};
constexpr Policy kAttentionScaleOrder{"AttentionScaleOrder", "ScaleThenBias"};
constexpr Policy kAttentionMaskFilter{"AttentionMaskFilter", "BooleanAddsSequenceSets"};
constexpr Policy kAttentionBooleanMask{"AttentionBooleanMask", "ZeroMasks"};
constexpr Policy kAttentionBooleanMaskShape{"AttentionBooleanMaskShape", "BatchHeadQueryKey"};
constexpr Policy kAttentionMaskKeys{"AttentionMaskKeys", "TotalSequence"};
constexpr Policy kAttentionNonFinite{"AttentionNonFinite", "NaNRow"};
constexpr Policy kAttentionPresentBias{"AttentionPresentBias", "Added"};
// MULTIHEAD_ATTENTION1 (its page says "TBD" for these).
constexpr Policy kAttentionKeyValueHead{"AttentionKeyValueHead", "Consecutive"};
constexpr Policy kAttentionPastSequenceLengths{"AttentionPastSequenceLengths", "ValidBelowLength"};

const std::vector<std::string_view> kFloatTensors = {"QueryTensor",
                                                     "KeyTensor",
                                                     "ValueTensor",
                                                     "BiasTensor",
                                                     "RelativePositionBiasTensor",
                                                     "PastKeyTensor",
                                                     "PastValueTensor",
                                                     "OutputTensor",
                                                     "OutputPresentKeyTensor",
                                                     "OutputPresentValueTensor",
                                                     "StackedQueryKeyTensor",
                                                     "StackedKeyValueTensor",
                                                     "StackedQueryKeyValueTensor"};

bool has_zero_stride(const std::optional<TensorDesc>& t) {
    if (!t) return false;
    for (size_t i = 0; i < t->Strides.size() && i < t->Sizes.size(); ++i)
        if (t->Strides[i] == 0 && t->Sizes[i] > 1) return true;
    return false;
}

void detect(const Case& c, std::vector<std::string>& f) {
    AttentionDesc storage;
    const AttentionDesc& d = attention_desc_of(c.op, storage);
    if (d.StackedQueryKeyTensor) f.push_back("stacked-query-key");
    if (d.StackedKeyValueTensor) f.push_back("stacked-key-value");
    if (d.StackedQueryKeyValueTensor) f.push_back("stacked-query-key-value");
    if (d.BiasTensor) f.push_back("bias");
    if (d.RelativePositionBiasTensor) f.push_back("relative-position-bias");
    if (d.PastKeyTensor) f.push_back("past-key-value");
    if (d.OutputPresentKeyTensor || d.OutputPresentValueTensor) f.push_back("present-key-value");
    if (d.MaskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN) f.push_back("mask-boolean");
    if (d.MaskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH) f.push_back("mask-key-sequence-length");
    if (d.MaskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START)
        f.push_back("mask-key-sequence-end-start");
    if (has_zero_stride(d.MaskTensor) || has_zero_stride(d.RelativePositionBiasTensor)) f.push_back("mask-broadcast");
    const AttentionSizes z = attention_sizes(d);
    if (z.heads > 1) f.push_back("several-heads");
    if (c.op.Type != OperatorType::MULTIHEAD_ATTENTION1) return;
    if (z.kv_heads < z.heads) f.push_back("grouped-heads");
    if (d.PastSequenceLengthsTensor) f.push_back("past-sequence-lengths");
}

uint64_t work(const OperatorDesc& desc) {
    const AttentionSizes z = attention_sizes(as_attention1(get<MHA>(desc)));
    return uint64_t(z.total()) * (z.head + 3);
}

uint64_t work1(const OperatorDesc& desc) {
    const AttentionSizes z = attention_sizes(get<MHA1>(desc));
    return uint64_t(z.total()) * (z.head + 3);
}

bool explain(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    AttentionDesc storage;
    const AttentionSizes z = attention_sizes(attention_desc_of(c.op, storage));
    if (output != "OutputTensor" || z.value_head == 0) return false;
    const uint64_t vh = uint64_t(z.heads) * z.value_head;
    const uint64_t b = flat / (uint64_t(z.sequence) * vh), s = flat / vh % z.sequence, h = flat % vh / z.value_head,
                   col = flat % z.value_head;
    out.facts.emplace_back("element", "batch " + std::to_string(b) + ", query " + std::to_string(s) + ", head " +
                                          std::to_string(h) + ", value column " + std::to_string(col));
    out.facts.emplace_back("keys", std::to_string(z.total()) + " keys (" + std::to_string(z.past) + " past, " +
                                       std::to_string(z.kv) + " new), head size " + std::to_string(z.head) +
                                       ", key/value head " + std::to_string(z.kv_head(uint32_t(h))));
    out.facts.emplace_back(
        "formula",
        "sum_j softmax_j(Scale q.k_j + RelativePositionBias_j [+ MaskFilterValue where masked]) v_j, with Bias added to q, k and v");
    out.facts.emplace_back("output", std::string(output) + ": the exact composite, rounded once");
    out.policies = {"AttentionValue", "AttentionIntermediates", "AttentionScaleOrder", "AttentionMaskFilter",
                    "AttentionNonFinite"};
    if (c.op.Type == OperatorType::MULTIHEAD_ATTENTION1) {
        out.policies.push_back("AttentionKeyValueHead");
        out.policies.push_back("AttentionPastSequenceLengths");
    }
    return true;
}

// What MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 share: outputs, explain, scope, features.
void share(OperatorRecord& r) {
    r.outputs = {
        {"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, multihead_attention_bounds},
        {"OutputPresentKeyTensor", TypeClass::Any, ToleranceRule::Bits},
        {"OutputPresentValueTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain;
    r.reads_inputs = true;
    r.MinRank = 3;
    r.MaxRank = 5;
    r.ScopeTypes = kF32F16;
    r.features = {"stacked-query-key",        "stacked-key-value",
                  "stacked-query-key-value",  "bias",
                  "relative-position-bias",   "past-key-value",
                  "present-key-value",        "mask-boolean",
                  "mask-key-sequence-length", "mask-key-sequence-end-start",
                  "mask-broadcast",           "several-heads"};
    r.detect = detect;
    r.BaseTensors = {"QueryTensor", "StackedQueryKeyValueTensor", "StackedQueryKeyTensor"};
}

OperatorRecord multihead_attention() {
    auto r = operator_record<MHA, validate, evaluate>(
        {.IntroducedIn = 0x6100,
         .InPlace = {},
         .Support =
             {{0x6100, {"QueryTensor", "KeyTensor", "ValueTensor", "OutputTensor"}, 3, 5, kF32F16},
              {0x6100, {"StackedQueryKeyTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"}, 5, 5, kF32F16},
              {0x6100, {"BiasTensor"}, 1, 5, kF32F16},
              {0x6100, {"MaskTensor"}, 1, 5, {DataType::INT32}},
              {0x6100,
               {"RelativePositionBiasTensor", "PastKeyTensor", "PastValueTensor", "OutputPresentKeyTensor",
                "OutputPresentValueTensor"},
               4,
               5,
               kF32F16}},
         .Policies = {kAttentionValue, kAttentionIntermediates, kAttentionScaleOrder, kAttentionMaskFilter,
                      kAttentionBooleanMask, kAttentionBooleanMaskShape, kAttentionMaskKeys, kAttentionNonFinite,
                      kAttentionPresentBias, kZeroResult, kSubnormals}});
    share(r);
    r.desc_tolerance = tolerance_as<MHA, tolerance>;
    r.work_factor = work;
    r.rounding_cost = rounding_cost<kAttentionCost>;
    (void)kFloatTensors;
    return r;
}

// MULTIHEAD_ATTENTION1: the same code (reference/multihead_attention.cpp) with grouped key/value
// heads and PastSequenceLengthsTensor.
OperatorRecord multihead_attention1() {
    auto r = operator_record<MHA1, validate, evaluate>(
        {.IntroducedIn = 0x6300,
         .InPlace = {},
         .Support =
             {{0x6300, {"QueryTensor", "KeyTensor", "ValueTensor", "OutputTensor"}, 3, 5, kF32F16},
              {0x6300, {"StackedQueryKeyTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"}, 5, 5, kF32F16},
              {0x6300, {"BiasTensor", "PastSequenceLengthsTensor"}, 1, 5, kF32F16},
              {0x6300, {"MaskTensor"}, 1, 5, {DataType::INT32}},
              {0x6300,
               {"RelativePositionBiasTensor", "PastKeyTensor", "PastValueTensor", "OutputPresentKeyTensor",
                "OutputPresentValueTensor"},
               4,
               5,
               kF32F16}},
         .Policies = {kAttentionValue, kAttentionIntermediates, kAttentionScaleOrder, kAttentionMaskFilter,
                      kAttentionBooleanMask, kAttentionBooleanMaskShape, kAttentionMaskKeys, kAttentionNonFinite,
                      kAttentionPresentBias, kAttentionKeyValueHead, kAttentionPastSequenceLengths, kZeroResult,
                      kSubnormals}});
    share(r);
    r.desc_tolerance = tolerance_as<MHA1, tolerance>;
    r.work_factor = work1;
    r.rounding_cost = rounding_cost<kAttentionCost>;
    r.features.insert(r.features.end(), {"grouped-heads", "past-sequence-lengths"});
    return r;
}

}  // namespace rec_multihead_attention

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& multihead_attention_family() {
    using namespace reference::rec_multihead_attention;
    static const FamilyRecord f{"multihead_attention", {multihead_attention(), multihead_attention1()}};
    return f;
}
}  // namespace dmlref::kit
