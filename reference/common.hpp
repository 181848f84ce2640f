// What every operator file shares: the checks that several operators state in the same words ("must have the same DataType, DimensionCount and
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
    std::string_view op;     // the rule ids' prefix, e.g. "max-pooling2"
    std::string_view input;  // the forward input's field name
    uint32_t rank;           // its dimension count
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
    for_each_run<2>(d.Sizes, strides, {0, 0},
                    [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < n; ++i) V.data<T>()[off[0] + i * step[0]] = value(uint64_t(off[1] + i * step[1]));
    });
}

}  // namespace dmlref::reference
