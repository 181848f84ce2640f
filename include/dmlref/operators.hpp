// Operator descs with DirectML's struct and field names (DirectML.h), so that a desc reads the
// same here, in DirectML and in a case file. Each desc lists its fields once, in `fields`, for
// every generic pass (JSON reading and writing, tensor validation, binding); the operator's own
// rules and its loop live in reference/<family>.cpp.
#pragma once

#include "dmlref/desc_base.hpp"
#include "dmlref/diagnostics.hpp"
#include "dmlref/operator_type.hpp"
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
#include <vector>

namespace dmlref {

// DML_OPERATOR_DESC: the type and its desc (a desc struct of dmlref/descs/<family>.hpp, e.g.
// Operator{OperatorType::SLICE, DML_SLICE_OPERATOR_DESC{...}}). validate() refuses a desc of
// another operator's struct.
struct Operator {
    OperatorType Type = OperatorType::INVALID;
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
    std::string_view Name;  // "ACTIVATION_RELU_GRAD"; the full name adds "DML_OPERATOR_"
    uint32_t IntroducedIn;  // feature level
    std::vector<std::pair<std::string_view, std::string_view>> InPlace;  // (output, input) that may alias
    std::vector<SupportRow> Support;                                     // ascending FeatureLevel
    std::vector<Policy> Policies;
};

// Every operator dmlref evaluates, family by family (reference/kit/registry.cpp).
const std::vector<OperatorInfo>& all_operators();
// std::invalid_argument for an operator dmlref does not evaluate.
const OperatorInfo& info(OperatorType t);
bool evaluates(OperatorType t);
// "DML_OPERATOR_ACTIVATION_RELU_GRAD" or "ACTIVATION_RELU_GRAD", among the operators dmlref
// evaluates (directml_operator_type in dmlref/operator_type.hpp knows all of DirectML's).
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

// Every rule: the desc is the operator's struct, each tensor desc, then the operator's own rules.
// Paths start at /desc.
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
// DirectML's feature levels, DML_FEATURE_LEVEL_1_0 to DML_FEATURE_LEVEL_6_4, ascending.
inline constexpr uint32_t kFeatureLevels[] = {0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000,
                                              0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400};
// "5.1", "5_1", "DML_FEATURE_LEVEL_5_1"; nullopt for anything that is not one of kFeatureLevels.
std::optional<uint32_t> parse_feature_level(std::string_view s);

}  // namespace dmlref
