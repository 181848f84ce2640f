// MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1: what reference/multihead_attention.cpp defines for the family's record
// (reference/multihead_attention_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/multihead_attention.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref {

// Each OutputTensor element's bound on |backend - exact value| (docs/tolerance.md, "Multihead attention").
void multihead_attention_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

// The problem's sizes, read from a valid desc: batchSize, sequenceLength, keyValueSequenceLength
// (the new keys), pastSequenceLength, the query heads (HeadCount, QueryHeadCount), the key/value
// heads (HeadCount, KeyValueHeadCount), headSize and valueHeadSize.
struct AttentionSizes {
    uint32_t batch = 0, sequence = 0, kv = 0, past = 0, heads = 1, kv_heads = 1, head = 0, value_head = 0;
    uint32_t total() const { return past + kv; }                           // the keys each query attends to
    uint32_t kv_head(uint32_t h) const { return h / (heads / kv_heads); }  // the key/value head of query head h
};

// The family's code works on MULTIHEAD_ATTENTION1's desc; MULTIHEAD_ATTENTION's is the one with
// QueryHeadCount = KeyValueHeadCount = HeadCount and no PastSequenceLengthsTensor.
using AttentionDesc = DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC;
AttentionDesc as_attention1(const DML_MULTIHEAD_ATTENTION_OPERATOR_DESC& d);
const AttentionDesc& attention_desc_of(const Operator& op, AttentionDesc& storage);

AttentionSizes attention_sizes(const AttentionDesc& d);

// Which input holds Query, Key and Value element (b, row, h, i), h a query head, and its logical index there
// ("" where the desc has no such tensor). Key and Value rows count the new keys (past excluded).
struct AttentionSource {
    std::string_view field;
    uint64_t index = 0;
};
enum class AttentionRole { Query = 0, Key = 1, Value = 2 };
AttentionSource attention_source(const AttentionDesc& d, const AttentionSizes& z, AttentionRole role, uint32_t b,
                                 uint32_t row, uint32_t h, uint32_t i);

// Whether key j of query (b, h, s) is masked, and whether the mask adds MaskFilterValue (BOOLEAN)
// or sets the score to it (the sequence-length types); `mask` holds MaskTensor's logical values.
enum class MaskEffect { None, Add, Set };
MaskEffect attention_mask(const AttentionDesc& d, const AttentionSizes& z, const std::vector<double>& mask, uint32_t b,
                          uint32_t h, uint32_t s, uint32_t j);

// Whether key j of batch b takes part: a past key only below the batch's PastSequenceLengthsTensor
// value (AttentionPastSequenceLengths=ValidBelowLength); `lengths` holds its logical values.
bool attention_key_live(const AttentionDesc& d, const AttentionSizes& z, const std::vector<double>& lengths, uint32_t b,
                        uint32_t j);

void validate(const DML_MULTIHEAD_ATTENTION_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC& d, std::string_view output);
void evaluate(const DML_MULTIHEAD_ATTENTION_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_MULTIHEAD_ATTENTION_OPERATOR_DESC& d, std::string_view output);

}  // namespace dmlref::reference
