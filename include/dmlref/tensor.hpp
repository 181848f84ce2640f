// DML_BUFFER_TENSOR_DESC, the buffer size rule (DMLCalcBufferTensorSize), and the one
// logical-coordinate addressing mechanism every operator uses.
//
// Addressing ("Using strides to express padding and memory layout", DirectML documentation):
// the element at logical coordinate c lives at element offset dot(c, Strides) from the start of
// the binding; without Strides the tensor is packed row-major (last dimension fastest).
#pragma once

#include "dmlref/diagnostics.hpp"
#include "dmlref/types.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dmlref {

inline constexpr uint32_t kMaxDimensionCount = 8;            // DML_TENSOR_DIMENSION_COUNT_MAX1
inline constexpr uint64_t kMaxElementCount = 0xffffffffull;  // "may not exceed 2^32 - 1 elements"
inline constexpr uint32_t DML_TENSOR_FLAG_NONE = 0;
inline constexpr uint32_t DML_TENSOR_FLAG_OWNED_BY_DML = 1;

// DML_BUFFER_TENSOR_DESC. DimensionCount is Sizes.size(); an empty Strides means "null"
// (packed); TotalTensorSizeInBytes 0 means "DMLCalcBufferTensorSize of this desc".
struct TensorDesc {
    ::dmlref::DataType DataType = ::dmlref::DataType::UNKNOWN;
    uint32_t Flags = DML_TENSOR_FLAG_NONE;
    std::vector<uint32_t> Sizes;
    std::vector<uint32_t> Strides;
    uint64_t TotalTensorSizeInBytes = 0;
    uint32_t GuaranteedBaseOffsetAlignment = 0;

    uint32_t DimensionCount() const { return static_cast<uint32_t>(Sizes.size()); }
    bool operator==(const TensorDesc&) const = default;
};

enum class TensorRole { Input, Output };

// Product of Sizes (the number of logical elements).
uint64_t element_count(const TensorDesc& d);
// Strides as signed element offsets; packed row-major strides when Strides is empty.
std::vector<int64_t> effective_strides(const TensorDesc& d);
std::vector<int64_t> packed_strides(std::span<const uint32_t> sizes);
// dot(Sizes - 1, Strides): the element offset of the last logical element.
uint64_t index_of_last_element(const TensorDesc& d);
// DMLCalcBufferTensorSize ("DirectML helper functions", DirectML documentation), in 64 bits:
// roundup((IndexOfLastElement + 1) * ElementSizeInBytes, 4).
uint64_t calc_buffer_tensor_size(const TensorDesc& d);
// TotalTensorSizeInBytes, or DMLCalcBufferTensorSize when it was left 0.
uint64_t buffer_size(const TensorDesc& d);

// Checks every rule of DML_BUFFER_TENSOR_DESC (its page in the DirectML API reference;
// docs/rules.md, the tensor.* rules):
// DataType known, 1..8 dimensions, sizes >= 1, element count <= 2^32 - 1, Strides length,
// TotalTensorSizeInBytes >= DMLCalcBufferTensorSize, GuaranteedBaseOffsetAlignment,
// OWNED_BY_DML only on inputs, and for outputs that no two logical elements share memory.
// `path` is the JSON pointer of the desc; `max_bytes` bounds what dmlref will allocate.
void validate_tensor_desc(const TensorDesc& d, TensorRole role, const std::string& path, uint64_t max_bytes,
                          Diagnostics& diags);

// True when two logical elements of the desc share an address (a stride of 0 on a
// dimension of size > 1, or strides that interleave onto each other).
bool has_overlapping_elements(const TensorDesc& d);

// ---- Binding a desc to memory -----------------------------------------------------------
// A desc bound to the bytes of its buffer. The strides are precomputed once.
struct TensorView {
    const TensorDesc& desc;
    std::byte* base;
    std::vector<int64_t> strides;

    TensorView(const TensorDesc& d, std::span<std::byte> bytes);
    TensorView(const TensorDesc& d, std::span<const std::byte> bytes);
    template <class T> T* data() const { return reinterpret_cast<T*>(base); }
    const std::vector<uint32_t>& sizes() const { return desc.Sizes; }
};

// ---- Strided iteration over contiguous runs --------------------------------------------
// Walks the logical index space `sizes` in row-major order, for K tensors at once, each with
// its own element strides (which may be negative or zero). Dimensions of size 1 are dropped
// and neighbouring dimensions that are contiguous in every tensor are merged, so the callback
// sees runs as long as the memory layout allows:
//     run(offsets, count, steps)
// offsets[k] is the element offset of the run's first element in tensor k (starting from
// base[k]), steps[k] the element step inside the run. No division or allocation per element.
template <size_t K, class Run>
void for_each_run(std::span<const uint32_t> sizes, const std::array<const int64_t*, K>& strides,
                  const std::array<int64_t, K>& base, Run&& run) {
    struct Dim {
        int64_t size;
        std::array<int64_t, K> stride;
    };
    std::array<Dim, kMaxDimensionCount> dims{};
    size_t n = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == 1) continue;
        Dim d{sizes[i], {}};
        for (size_t k = 0; k < K; ++k) d.stride[k] = strides[k][i];
        // Merge into the previous (outer) dimension when it continues this one in every tensor.
        if (n > 0) {
            bool contiguous = true;
            for (size_t k = 0; k < K; ++k) contiguous = contiguous && dims[n - 1].stride[k] == d.stride[k] * d.size;
            if (contiguous) {
                dims[n - 1] = {dims[n - 1].size * d.size, d.stride};
                continue;
            }
        }
        dims[n++] = d;
    }
    if (n == 0) {  // a single element
        std::array<int64_t, K> zero{};
        run(base, int64_t(1), zero);
        return;
    }
    const Dim inner = dims[n - 1];
    const size_t outer = n - 1;
    std::array<int64_t, kMaxDimensionCount> counter{};
    std::array<int64_t, K> offset = base;
    for (;;) {
        run(offset, inner.size, inner.stride);
        // Odometer over the outer dimensions, innermost first.
        size_t d = outer;
        for (;;) {
            if (d == 0) return;
            --d;
            for (size_t k = 0; k < K; ++k) offset[k] += dims[d].stride[k];
            if (++counter[d] < dims[d].size) break;
            for (size_t k = 0; k < K; ++k) offset[k] -= dims[d].stride[k] * dims[d].size;
            counter[d] = 0;
        }
    }
}

// Element-wise map: out[c] = f(in0[c], in1[c], ...) for every logical coordinate c of `out`.
// Inputs must have the output's sizes. Contiguous runs get a plain loop over pointers (which
// the compiler vectorises where f is branch-free); other runs step by their strides.
// Exact in-place aliasing (an output bound to the same memory and desc as an input) is safe:
// each element is read before it is written.
template <class> using view_for = const TensorView&;  // one TensorView per element type of a pack

template <class TOut, class... TIn, size_t... I, class F>
void map_elements_impl(std::index_sequence<I...>, const TensorView& out, F& f, view_for<TIn>... in) {
    constexpr size_t K = 1 + sizeof...(TIn);
    const std::array<const int64_t*, K> strides = {out.strides.data(), in.strides.data()...};
    for_each_run<K>(out.sizes(), strides, std::array<int64_t, K>{},
                    [&](const std::array<int64_t, K>& off, int64_t count, const std::array<int64_t, K>& step) {
        TOut* o = out.data<TOut>() + off[0];
        const std::tuple<const TIn*...> a{(in.template data<TIn>() + off[I + 1])...};
        if (step[0] == 1 && ((step[I + 1] == 1) && ...)) {
            for (int64_t i = 0; i < count; ++i) o[i] = f(std::get<I>(a)[i]...);
        } else {
            for (int64_t i = 0; i < count; ++i) o[i * step[0]] = f(std::get<I>(a)[i * step[I + 1]]...);
        }
    });
}

template <class TOut, class... TIn, class F> void map_elements(const TensorView& out, F&& f, view_for<TIn>... in) {
    map_elements_impl<TOut, TIn...>(std::index_sequence_for<TIn...>{}, out, f, in...);
}

// Sizes as text for messages and reports: "[2,3,4]".
std::string sizes_text(const std::vector<uint32_t>& sizes);

}  // namespace dmlref
