// What every operator file shares: the declarations the registry calls, and the checks that
// several operators state in the same words ("must have the same DataType, DimensionCount and
// Sizes"). Internal to dmlref.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/operators.hpp"

#include <array>
#include <cstring>
#include <initializer_list>
#include <string>

namespace dmlref::reference {

struct Named {
    std::string_view name;
    const TensorDesc& desc;
};

// "A, B and C must have the same DataType": reports each tensor that differs from the first.
void require_same_data_type(Diagnostics& diags, std::initializer_list<Named> tensors, std::string_view rule);
// Same for DimensionCount and Sizes.
void require_same_sizes(Diagnostics& diags, std::initializer_list<Named> tensors, std::string_view rule);
// Sentence listing the names: "InputTensor, InputGradientTensor and OutputGradientTensor".
std::string join_names(std::initializer_list<Named> tensors);
std::string desc_path(std::string_view field);  // "/desc/<field>"

// The arrays of a pooling desc (max and average pooling, forward and grad): DimensionCount is the
// input's dimension count - 2, every array has DimensionCount entries, and strides, windows and
// dilations are at least 1. Rule ids <op>.dimension-count, .array-length, .stride-nonzero,
// .window-nonzero, .dilation-nonzero. False when a count or a length is wrong (the later checks
// would index past an array).
struct PoolingArrays {
    std::string_view op;      // the rule ids' prefix, e.g. "max-pooling2"
    std::string_view input;   // the forward input's field name
    uint32_t rank;            // its dimension count
    uint32_t DimensionCount;
    const std::vector<uint32_t>& Strides;
    const std::vector<uint32_t>& WindowSize;
    const std::vector<uint32_t>& StartPadding;
    const std::vector<uint32_t>& EndPadding;
    const std::vector<uint32_t>* Dilations;  // null where the desc has none
};
bool validate_pooling_arrays(Diagnostics& diags, const PoolingArrays& a);

// A tensor's logical elements (row-major), read through its strides.
template <class T> std::vector<T> logical_values(const TensorDesc& d, std::span<const std::byte> buffer) {
    const std::vector<std::byte> bytes = gather_logical(d, buffer);
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(static_cast<void*>(v.data()), bytes.data(), bytes.size());
    return v;
}

// Writes value(i) for every logical index i of `d` at its strided offset.
template <class T, class F> void write_logical(const TensorDesc& d, std::span<std::byte> buffer, F&& value) {
    const TensorView V(d, buffer);
    const auto packed = packed_strides(d.Sizes);
    const std::array<const int64_t*, 2> strides = {V.strides.data(), packed.data()};
    for_each_run<2>(d.Sizes, strides, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < n; ++i) V.data<T>()[off[0] + i * step[0]] = value(uint64_t(off[1] + i * step[1]));
    });
}

// Per family: validate (every rule, into diags) and evaluate (the loop).
void validate(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_RELU_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC& d, const Bindings& b);

void validate(const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC& d, const Bindings& b);

void validate(const DML_SLICE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SLICE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_SLICE1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SLICE1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_SLICE_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_SLICE_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING2_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING2_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b);

void validate(const DML_RESAMPLE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_RESAMPLE1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_RESAMPLE2_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE2_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, const Bindings& b);

// Output elements that are undefined whatever the inputs (docs/golden.md, Decisions); none for most.
template <class D> std::vector<DontCare> dont_care(const D&, std::string_view) { return {}; }
std::vector<DontCare> dont_care(const DML_MAX_POOLING_OPERATOR_DESC& d, std::string_view output);
std::vector<DontCare> dont_care(const DML_MAX_POOLING1_OPERATOR_DESC& d, std::string_view output);
std::vector<DontCare> dont_care(const DML_MAX_POOLING2_OPERATOR_DESC& d, std::string_view output);

// Output elements on a decision boundary (docs/tolerance.md); none for most.
template <class D> Boundary boundary(const D&, std::string_view) { return {}; }
// The tolerance an operator states itself; nullopt leaves it to tolerance_for's defaults.
template <class D> std::optional<Tolerance> tolerance(const D&, std::string_view) { return std::nullopt; }

Boundary boundary(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output);
Boundary boundary(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output);
Boundary boundary(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output);
Boundary boundary(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output);
Boundary boundary(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output);

// ---- Average pooling (reference/average_pooling.cpp) ----------------------------------------
void validate(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, const Bindings& b);
std::vector<DontCare> dont_care(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, const Bindings& b);
std::vector<DontCare> dont_care(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, std::string_view output);

// ---- Local response normalization (reference/local_response_normalization.cpp) ----------------
void validate(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, std::string_view output);

// ---- Rules on input values (validate_input_values); none for most --------------------------
template <class D> void validate_values(const D&, const InputBuffers&, uint64_t, Diagnostics&) {}

// ---- ROI align (reference/roi_align.cpp, roi_align_validate.cpp, roi_align_tolerance.cpp) ------
void validate(const DML_ROI_ALIGN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ROI_ALIGN_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_ROI_ALIGN_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate(const DML_ROI_ALIGN1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
// ROI align's provisional tolerance: per-element Terms depend on the regions (input values), so
// it is stated from the whole case (lib/tolerance.cpp calls it before the desc-only path).
std::optional<Tolerance> roi_align_tolerance(const Case& c, std::string_view output);
// The output elements on a decision of the exact formula (nearest ties, out-of-bounds limits,
// ROI-gradient kinks), with the reason: diff reports them apart (docs/tolerance.md, ROI align).
std::vector<std::pair<uint64_t, std::string>> roi_align_boundary(const Case& c, std::string_view output);

}  // namespace dmlref::reference

namespace dmlref::reference {
// ---- Batch normalization (reference/batch_normalization.cpp) ---------------------------------
void validate(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, std::string_view output);
}  // namespace dmlref::reference
