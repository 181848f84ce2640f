// GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 (include/dmlref/descs/gather.hpp).
// What reference/gather.cpp defines for the family's record (reference/gather_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/gather.hpp"
#include "dmlref/explain.hpp"
#include "kit/family.hpp"
#include "common.hpp"

#include <array>
#include <optional>

namespace dmlref::reference {

// The machinery the gathers share with the scatters (reference/scatter.cpp), which write where a
// gather reads: an index tensor into the dimensions of InputTensor, walked along a tensor of the
// formula's sizes (a gather's OutputTensor, a scatter's UpdatesTensor).
namespace gathering {

enum class Kind { Gather, Elements, ND };

struct Geometry {
    std::string_view op;  // the rule ids' prefix ("gather-nd")
    Kind kind;
    const TensorDesc& input;
    const TensorDesc& indices;
    const TensorDesc& output;                              // the walked tensor, whose sizes the formula gives
    uint32_t axis = 0, index_dims = 0;                     // GATHER (axis: GATHER_ELEMENTS, SCATTER too)
    uint32_t input_dims = 0, indices_dims = 0, batch = 0;  // the ND forms
    std::string_view walked = "OutputTensor";              // the walked tensor's field ("UpdatesTensor")
    std::string_view all_tensors = "IndicesTensor, InputTensor and OutputTensor";  // for the messages
    uint32_t rank() const { return input.DimensionCount(); }
};

// "<op>.<id>": a rule id of the gather or scatter operator g describes.
inline std::string rule(const Geometry& g, std::string_view id) { return std::string(g.op) + "." + std::string(id); }

// The index elements a walked element reads, and the input coordinate they complete.
struct Lookup {
    std::array<uint64_t, kMaxDimensionCount> in{};   // the input coordinate (the indexed entries filled later)
    uint32_t count = 0;                              // the index elements read: 1, or the tuple size
    std::array<uint32_t, kMaxDimensionCount> dim{};  // the input dimension each one indexes
    std::array<std::array<uint64_t, kMaxDimensionCount>, kMaxDimensionCount> at{};  // its IndicesTensor coordinate
};

bool is_index_type(DataType t);
// The walked tensor's meaningful sizes, and those right-aligned into R dimensions (nullopt: too many).
std::vector<uint64_t> meaningful_sizes(const Geometry& g);
std::optional<std::vector<uint64_t>> fitted(std::vector<uint64_t> L, uint32_t R);
// Fills `l` for the walked coordinate `o`; `n` is meaningful_sizes(g).size().
void lookup(const Geometry& g, const uint64_t* o, size_t n, Lookup& l);
// An index element's value against a dimension of `size`, a negative signed one counted once from
// the end; nullopt outside [0, size).
std::optional<uint64_t> resolve(DataType t, const std::byte* p, uint64_t size);
std::string index_value_text(DataType t, const std::byte* p);
int64_t offset_of(const std::vector<int64_t>& strides, const uint64_t* c, size_t n);
std::string coordinate_text(const uint64_t* c, size_t n);
// The rules on the desc (<op>.dimension-count, ...), and every index inside its dimension (<op>.index-range).
void validate_geometry(const Geometry& g, Diagnostics& diags);
void validate_index_values(const Geometry& g, const InputBuffers& inputs, Diagnostics& diags);
// Coverage: IndicesTensor's type ("indices-int32", "indices-int64", "indices-uint64") and a
// negative index ("negative-index"), for the gathers, the scatters and ONE_HOT.
void index_features(const Case& c, std::vector<std::string>& features);

}  // namespace gathering

void validate(const DML_GATHER_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_GATHER_ND_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_GATHER_ND1_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_GATHER_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate_values(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void validate_values(const DML_GATHER_ND_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void validate_values(const DML_GATHER_ND1_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_GATHER_OPERATOR_DESC& d, const Bindings& b);
void evaluate(const DML_GATHER_ELEMENTS_OPERATOR_DESC& d, const Bindings& b);
void evaluate(const DML_GATHER_ND_OPERATOR_DESC& d, const Bindings& b);
void evaluate(const DML_GATHER_ND1_OPERATOR_DESC& d, const Bindings& b);

// Every output element names its source element: the input coordinate and the index elements read.
bool explain_gather(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
// gen's "auto" OutputTensor sizes (docs/gen.md, "Derived fields").
bool gather_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error);

}  // namespace dmlref::reference
