// What every operator file shares: the checks that several operators state in the same words ("must have the same DataType, DimensionCount and
// Sizes"). Internal to dmlref.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/operators.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

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

// "<op>.<id>": a rule id (docs/rules.md), the operator's prefix ("max-pooling2") and the rule's own id.
inline std::string rule(std::string_view op, std::string_view id) { return std::string(op) + "." + std::string(id); }
// "/desc/<field>/Sizes": where a tensor's sizes are reported.
inline std::string sizes_path(std::string_view field) { return pointer_append(desc_path(field), "Sizes"); }
// True where `check` (the family's validate) finds no error in d: an explain hook or a tolerance
// row needs a desc whose own rules hold.
template <class D> bool valid(const D& d, void (*check)(const D&, Diagnostics&)) {
    Diagnostics diags;
    check(d, diags);
    return !diags.has_errors();
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();
// The next double above v: an upper bound's rounding.
inline double up(double v) { return std::nextafter(v, kInf); }

// An explained input's value: its bits as a T (explain's ExplainedInput).
template <class T, class In> T explained_value(const In& in) {
    T v;
    std::memcpy(static_cast<void*>(&v), &in.bits, sizeof(T));
    return v;
}
// An integer's bits, sign-extended to 64.
template <class T> uint64_t as_u64(T x) {
    if constexpr (std::is_signed_v<T>) return uint64_t(int64_t(x));
    else return uint64_t(x);
}
// The element offset of coordinate c.
inline int64_t offset_of(const std::vector<int64_t>& strides, const std::vector<uint64_t>& c) {
    int64_t off = 0;
    for (size_t i = 0; i < c.size(); ++i) off += int64_t(c[i]) * strides[i];
    return off;
}

// The bits of an element of t's width: all ones in its low 8 * element_size(t) bits.
inline uint64_t width_mask(DataType t) {
    const uint32_t w = element_size(t);
    return w >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * w)) - 1;
}
// The integer types the integer products and quantized operators take as data.
inline bool is_integer_data(DataType t) {
    return t == DataType::INT32 || t == DataType::INT16 || t == DataType::INT8 || t == DataType::UINT32 ||
           t == DataType::UINT16 || t == DataType::UINT8;
}

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

// Whether a tensor's elements lie in logical (row-major) order: no Strides, or its packed ones.
inline bool is_packed(const TensorDesc& d) {
    return d.Strides.empty() || effective_strides(d) == packed_strides(d.Sizes);
}

// A tensor's logical elements (row-major), read through its strides (one copy where it is packed: a
// statistics tensor is read on every call, before the fast paths' threads start).
template <class T> std::vector<T> logical_values(const TensorDesc& d, std::span<const std::byte> buffer) {
    if (is_packed(d)) {
        std::vector<T> v(element_count(d));
        std::memcpy(static_cast<void*>(v.data()), buffer.data(), v.size() * sizeof(T));
        return v;
    }
    const std::vector<std::byte> bytes = gather_logical(d, buffer);
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(static_cast<void*>(v.data()), bytes.data(), bytes.size());
    return v;
}

// Writes value(i) for every logical index i of `d` at its strided offset.
template <class T, class F> void write_logical(const TensorDesc& d, std::span<std::byte> buffer, F&& value) {
    if (is_packed(d)) {
        T* out = reinterpret_cast<T*>(buffer.data());
        for (uint64_t i = 0, n = element_count(d); i < n; ++i) out[i] = value(i);
        return;
    }
    const TensorView V(d, buffer);
    const auto packed = packed_strides(d.Sizes);
    const std::array<const int64_t*, 2> strides = {V.strides.data(), packed.data()};
    for_each_run<2>(d.Sizes, strides, {0, 0},
                    [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < n; ++i) V.data<T>()[off[0] + i * step[0]] = value(uint64_t(off[1] + i * step[1]));
    });
}

}  // namespace dmlref::reference
