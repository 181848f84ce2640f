// Operator descs with DirectML's struct and field names (DirectML.h), so that a desc reads the
// same here, in DirectML and in a case file. Each desc lists its fields once, in `fields`, for
// every generic pass (JSON reading and writing, tensor validation, binding); the operator's own
// rules and its loop live in reference/<family>.cpp.
#pragma once

#include "dmlref/desc_base.hpp"
#include "dmlref/descs/activation.hpp"
#include "dmlref/descs/element_wise_clip.hpp"
#include "dmlref/descs/slice.hpp"
#include "dmlref/descs/max_pooling.hpp"
#include "dmlref/descs/resample.hpp"
#include "dmlref/descs/average_pooling.hpp"
#include "dmlref/descs/local_response_normalization.hpp"
#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/descs/roi_align.hpp"
#include "dmlref/diagnostics.hpp"
#include "dmlref/tensor.hpp"
#include "dmlref/types.hpp"

#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dmlref {


// DML_OPERATOR_TYPE values (spec/dml-semantics.md section 1.4).
enum class OperatorType : uint32_t {
    ELEMENT_WISE_CLIP = 8,
    ACTIVATION_RELU = 44,
    MAX_POOLING = 58,
    SLICE = 60,
    MAX_POOLING1 = 91,
    RESAMPLE = 96,
    MAX_POOLING2 = 110,
    SLICE1 = 111,
    RESAMPLE1 = 116,
    ACTIVATION_RELU_GRAD = 129,
    MAX_POOLING_GRAD = 131,
    RESAMPLE_GRAD = 134,
    SLICE_GRAD = 135,
    ELEMENT_WISE_CLIP_GRAD = 142,
    ELEMENT_WISE_CLIP1 = 153,
    ELEMENT_WISE_CLIP_GRAD1 = 154,
    RESAMPLE2 = 161,
    RESAMPLE_GRAD1 = 162,
    // Computed values (spec/dml-training-ops.md section 1.1).
    AVERAGE_POOLING = 56,
    AVERAGE_POOLING_GRAD = 130,
    AVERAGE_POOLING1 = 166,
    LOCAL_RESPONSE_NORMALIZATION = 74,
    LOCAL_RESPONSE_NORMALIZATION_GRAD = 144,
    BATCH_NORMALIZATION = 72,
    BATCH_NORMALIZATION_GRAD = 146,
    BATCH_NORMALIZATION_TRAINING = 151,
    BATCH_NORMALIZATION_TRAINING_GRAD = 152,
    // ROI align (spec/dml-training-ops.md section 1.1).
    ROI_ALIGN = 139,
    ROI_ALIGN1 = 149,
    ROI_ALIGN_GRAD = 150,
};

using OperatorDesc = std::variant<
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC,
    DML_ACTIVATION_RELU_OPERATOR_DESC,
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC,
    DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC,
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC,
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC,
    DML_SLICE_OPERATOR_DESC,
    DML_SLICE1_OPERATOR_DESC,
    DML_SLICE_GRAD_OPERATOR_DESC,
    DML_MAX_POOLING_OPERATOR_DESC,
    DML_MAX_POOLING1_OPERATOR_DESC,
    DML_MAX_POOLING2_OPERATOR_DESC,
    DML_MAX_POOLING_GRAD_OPERATOR_DESC,
    DML_RESAMPLE_OPERATOR_DESC,
    DML_RESAMPLE1_OPERATOR_DESC,
    DML_RESAMPLE2_OPERATOR_DESC,
    DML_RESAMPLE_GRAD_OPERATOR_DESC,
    DML_RESAMPLE_GRAD1_OPERATOR_DESC,
    DML_AVERAGE_POOLING_OPERATOR_DESC,
    DML_AVERAGE_POOLING1_OPERATOR_DESC,
    DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC,
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC,
    DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC,
    DML_ROI_ALIGN_OPERATOR_DESC,
    DML_ROI_ALIGN1_OPERATOR_DESC,
    DML_ROI_ALIGN_GRAD_OPERATOR_DESC>;

// DML_OPERATOR_DESC: the type and its desc.
struct Operator {
    OperatorType Type;
    OperatorDesc Desc;
};

// ---- Buffers bound to tensor fields ----------------------------------------------------
// The bytes behind each tensor field, by the field's name. An output may be bound to the
// same bytes as an input where the operator allows in-place execution.
class Bindings {
public:
    void bind(std::string field, std::span<std::byte> bytes) { buffers_.emplace_back(std::move(field), bytes); }
    // Throws std::out_of_range naming the field when it is not bound.
    std::span<std::byte> at(std::string_view field) const;

private:
    std::vector<std::pair<std::string, std::span<std::byte>>> buffers_;
};

// ---- Facts about each operator ---------------------------------------------------------
// A row of a "Tensor support" table: from FeatureLevel on, the named tensors (all, when
// Tensors is empty) support DimensionCount in [MinDims, MaxDims] and the listed DataTypes.
struct SupportRow {
    uint32_t FeatureLevel;  // DML_FEATURE_LEVEL value, e.g. 0x5100
    std::vector<std::string_view> Tensors;
    uint32_t MinDims;
    uint32_t MaxDims;
    std::vector<DataType> DataTypes;
};

// A decision the spec leaves open (docs/golden.md, Decisions), as recorded in golden files.
struct Policy {
    std::string_view Name;
    std::string_view Value;
};

struct OperatorInfo {
    OperatorType Type;
    std::string_view Name;          // "ACTIVATION_RELU_GRAD"; the full name adds "DML_OPERATOR_"
    uint32_t IntroducedIn;          // feature level
    std::vector<std::pair<std::string_view, std::string_view>> InPlace;  // (output, input) that may alias
    std::vector<SupportRow> Support;  // ascending FeatureLevel
    std::vector<Policy> Policies;
};

const std::vector<OperatorInfo>& all_operators();
const OperatorInfo& info(OperatorType t);
// "DML_OPERATOR_ACTIVATION_RELU_GRAD" or "ACTIVATION_RELU_GRAD".
std::optional<OperatorType> parse_operator_type(std::string_view s);
std::string full_name(OperatorType t);
// An operator with a default-constructed desc of the right kind.
Operator make_operator(OperatorType t);

// The tensor fields of a desc in struct order (optional tensors that are absent are skipped).
struct TensorField {
    std::string_view name;
    TensorRole role;
    const TensorDesc* desc;
};
std::vector<TensorField> tensor_fields(const Operator& op);

// Every rule: each tensor desc, then the operator's own rules. Paths start at /desc.
struct ValidateOptions {
    uint64_t max_bytes = uint64_t(4) << 30;  // per buffer; keeps bad input from exhausting memory
};
Diagnostics validate(const Operator& op, const ValidateOptions& options = {});

// Rules on input values, for the operators that have them (ROI align: batch indices in range,
// finite regions, the samples they ask for within `max_work`). Run once the desc has validated
// and the inputs are read; paths start at /inputs.
using InputBuffers = std::map<std::string, std::vector<std::byte>>;
Diagnostics validate_input_values(const Operator& op, const InputBuffers& inputs, uint64_t max_work);

// Fills the output buffers. The operator must have validated without errors; buffers must be
// at least buffer_size(desc) bytes (std::invalid_argument otherwise).
void evaluate(const Operator& op, const Bindings& bindings);

// Where the operator's tensors fall in DirectML's support tables: the lowest feature level
// whose rows admit every tensor, or nullopt with the reasons in `why`.
std::optional<uint32_t> lowest_supporting_feature_level(const Operator& op, std::vector<std::string>* why);
// Whether the tensors are inside the tables at one feature level; reasons in `why`.
bool supported_at(const Operator& op, uint32_t feature_level, std::vector<std::string>* why);
std::string feature_level_name(uint32_t level);  // 0x5100 -> "DML_FEATURE_LEVEL_5_1"
std::optional<uint32_t> parse_feature_level(std::string_view s);  // "5.1", "5_1", "DML_FEATURE_LEVEL_5_1"

// MAX_POOLING_GRAD: for each OutputGradientTensor element (logical row-major order), the number
// of InputGradientTensor elements summed into it (the windows whose argmax it is). The desc
// must have validated; `InputTensor` is the input's buffer. A tolerance model uses the counts
// (docs/tolerance.md).
std::vector<uint32_t> max_pooling_grad_term_counts(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& desc,
                                                   std::span<const std::byte> InputTensor);

// Max pooling elements on an argmax tie (docs/tolerance.md), logical indices in increasing
// order: for MAX_POOLING, 1 and 2, the outputs whose window holds two or more real elements equal
// to its maximum (-0 and +0 included); for MAX_POOLING_GRAD, the OutputGradientTensor elements
// tied for the maximum of some window. A backend that broke ties differently would differ there.
std::vector<uint64_t> max_pooling_argmax_ties(const Operator& op, std::span<const std::byte> InputTensor);

}  // namespace dmlref
