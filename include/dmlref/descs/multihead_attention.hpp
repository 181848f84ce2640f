// The descs of MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1, with DirectML.h's struct and field
// names (DML_MULTIHEAD_ATTENTION_OPERATOR_DESC; DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, field order
// as its page's syntax block).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_MULTIHEAD_ATTENTION_MASK_TYPE.
enum DML_MULTIHEAD_ATTENTION_MASK_TYPE : uint32_t {
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE = 0,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH = 1,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START = 2,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END = 3,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN = 4,
};
inline const EnumNames kMultiheadAttentionMaskTypeNames{
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_",
    {"NONE", "KEY_SEQUENCE_LENGTH", "KEY_SEQUENCE_END_START", "KEY_QUERY_SEQUENCE_LENGTH_START_END", "BOOLEAN"}};

// Output = softmax(Scale (Q + Bias_q)(K + Bias_k)^T + RelativePositionBias [+ mask]) (V + Bias_v), per
// batch and head; PastKey/PastValue are prepended to the keys and values along the sequence, and
// OutputPresentKey/Value receive the concatenation.
struct DML_MULTIHEAD_ATTENTION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MULTIHEAD_ATTENTION;
    std::optional<TensorDesc> QueryTensor;
    std::optional<TensorDesc> KeyTensor;
    std::optional<TensorDesc> ValueTensor;
    std::optional<TensorDesc> StackedQueryKeyTensor;
    std::optional<TensorDesc> StackedKeyValueTensor;
    std::optional<TensorDesc> StackedQueryKeyValueTensor;
    std::optional<TensorDesc> BiasTensor;
    std::optional<TensorDesc> MaskTensor;
    std::optional<TensorDesc> RelativePositionBiasTensor;
    std::optional<TensorDesc> PastKeyTensor;
    std::optional<TensorDesc> PastValueTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputPresentKeyTensor;
    std::optional<TensorDesc> OutputPresentValueTensor;
    float Scale = 1.0f;
    float MaskFilterValue = -10000.0f;
    uint32_t HeadCount = 1;
    uint32_t MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    template <class S, class V> static void fields(S& s, V& v) {
        v.optional_tensor("QueryTensor", s.QueryTensor, TensorRole::Input);
        v.optional_tensor("KeyTensor", s.KeyTensor, TensorRole::Input);
        v.optional_tensor("ValueTensor", s.ValueTensor, TensorRole::Input);
        v.optional_tensor("StackedQueryKeyTensor", s.StackedQueryKeyTensor, TensorRole::Input);
        v.optional_tensor("StackedKeyValueTensor", s.StackedKeyValueTensor, TensorRole::Input);
        v.optional_tensor("StackedQueryKeyValueTensor", s.StackedQueryKeyValueTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.optional_tensor("MaskTensor", s.MaskTensor, TensorRole::Input);
        v.optional_tensor("RelativePositionBiasTensor", s.RelativePositionBiasTensor, TensorRole::Input);
        v.optional_tensor("PastKeyTensor", s.PastKeyTensor, TensorRole::Input);
        v.optional_tensor("PastValueTensor", s.PastValueTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputPresentKeyTensor", s.OutputPresentKeyTensor, TensorRole::Output);
        v.optional_tensor("OutputPresentValueTensor", s.OutputPresentValueTensor, TensorRole::Output);
        v.float32("Scale", s.Scale);
        v.float32("MaskFilterValue", s.MaskFilterValue);
        v.uint("HeadCount", s.HeadCount);
        v.enumeration("MaskType", s.MaskType, kMultiheadAttentionMaskTypeNames);
    }
};

// MULTIHEAD_ATTENTION with grouped heads and per-batch past lengths: query head h reads key/value
// head h / (QueryHeadCount / KeyValueHeadCount); PastSequenceLengthsTensor holds each batch's
// number of valid past keys (docs/golden.md, "Multihead attention").
struct DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MULTIHEAD_ATTENTION1;
    std::optional<TensorDesc> QueryTensor;
    std::optional<TensorDesc> KeyTensor;
    std::optional<TensorDesc> ValueTensor;
    std::optional<TensorDesc> StackedQueryKeyTensor;
    std::optional<TensorDesc> StackedKeyValueTensor;
    std::optional<TensorDesc> StackedQueryKeyValueTensor;
    std::optional<TensorDesc> BiasTensor;
    std::optional<TensorDesc> MaskTensor;
    std::optional<TensorDesc> RelativePositionBiasTensor;
    std::optional<TensorDesc> PastKeyTensor;
    std::optional<TensorDesc> PastValueTensor;
    std::optional<TensorDesc> PastSequenceLengthsTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputPresentKeyTensor;
    std::optional<TensorDesc> OutputPresentValueTensor;
    float Scale = 1.0f;
    float MaskFilterValue = -10000.0f;
    uint32_t QueryHeadCount = 1;
    uint32_t KeyValueHeadCount = 1;
    uint32_t MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    template <class S, class V> static void fields(S& s, V& v) {
        v.optional_tensor("QueryTensor", s.QueryTensor, TensorRole::Input);
        v.optional_tensor("KeyTensor", s.KeyTensor, TensorRole::Input);
        v.optional_tensor("ValueTensor", s.ValueTensor, TensorRole::Input);
        v.optional_tensor("StackedQueryKeyTensor", s.StackedQueryKeyTensor, TensorRole::Input);
        v.optional_tensor("StackedKeyValueTensor", s.StackedKeyValueTensor, TensorRole::Input);
        v.optional_tensor("StackedQueryKeyValueTensor", s.StackedQueryKeyValueTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.optional_tensor("MaskTensor", s.MaskTensor, TensorRole::Input);
        v.optional_tensor("RelativePositionBiasTensor", s.RelativePositionBiasTensor, TensorRole::Input);
        v.optional_tensor("PastKeyTensor", s.PastKeyTensor, TensorRole::Input);
        v.optional_tensor("PastValueTensor", s.PastValueTensor, TensorRole::Input);
        v.optional_tensor("PastSequenceLengthsTensor", s.PastSequenceLengthsTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputPresentKeyTensor", s.OutputPresentKeyTensor, TensorRole::Output);
        v.optional_tensor("OutputPresentValueTensor", s.OutputPresentValueTensor, TensorRole::Output);
        v.float32("Scale", s.Scale);
        v.float32("MaskFilterValue", s.MaskFilterValue);
        v.uint("QueryHeadCount", s.QueryHeadCount);
        v.uint("KeyValueHeadCount", s.KeyValueHeadCount);
        v.enumeration("MaskType", s.MaskType, kMultiheadAttentionMaskTypeNames);
    }
};

}  // namespace dmlref
