// Tensor descs: validation, DMLCalcBufferTensorSize and the addressing of logical elements. Every
// size is computed with saturating arithmetic (dmlref/checked.hpp): a desc whose size does not
// fit in 64 bits gets a size over every limit, never a small wrapped-around one.
#include "dmlref/tensor.hpp"

#include "dmlref/checked.hpp"

#include <algorithm>
#include <numeric>

namespace dmlref {

uint64_t element_count(const TensorDesc& d) {
    uint64_t n = 1;
    for (uint32_t s : d.Sizes) n = saturating_mul(n, s);
    return n;
}

std::vector<int64_t> packed_strides(std::span<const uint32_t> sizes) {
    std::vector<int64_t> s(sizes.size());
    int64_t stride = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        s[i] = stride;
        stride *= sizes[i];
    }
    return s;
}

std::vector<int64_t> effective_strides(const TensorDesc& d) {
    if (d.Strides.empty()) return packed_strides(d.Sizes);
    return std::vector<int64_t>(d.Strides.begin(), d.Strides.end());
}

uint64_t index_of_last_element(const TensorDesc& d) {
    const auto strides = effective_strides(d);
    uint64_t last = 0;
    for (size_t i = 0; i < d.Sizes.size() && i < strides.size(); ++i)
        if (d.Sizes[i] > 0) last = saturating_add(last, saturating_mul(d.Sizes[i] - 1, uint64_t(strides[i])));
    return last;
}

uint64_t calc_buffer_tensor_size(const TensorDesc& d) {
    const uint64_t bytes = saturating_mul(saturating_add(index_of_last_element(d), 1), element_size(d.DataType));
    return bytes > kSaturated - 3 ? kSaturated : (bytes + 3) & ~uint64_t(3);
}

uint64_t buffer_size(const TensorDesc& d) {
    return d.TotalTensorSizeInBytes != 0 ? d.TotalTensorSizeInBytes : calc_buffer_tensor_size(d);
}

bool has_overlapping_elements(const TensorDesc& d) {
    if (d.Strides.empty()) return false;
    // Sort the dimensions of size > 1 by stride. If each stride reaches past the whole extent
    // of the smaller ones, the layout nests and nothing overlaps.
    std::vector<std::pair<uint64_t, uint64_t>> dims;  // (stride, size)
    for (size_t i = 0; i < d.Sizes.size(); ++i)
        if (d.Sizes[i] > 1) dims.emplace_back(d.Strides[i], d.Sizes[i]);
    std::sort(dims.begin(), dims.end());
    uint64_t extent = 0;  // offset of the last element of the dimensions seen so far
    bool nested = true;
    for (auto [stride, size] : dims) {
        if (stride == 0) return true;
        if (stride <= extent) {
            nested = false;
            break;
        }
        extent = saturating_add(extent, saturating_mul(stride, size - 1));
    }
    if (nested) return false;
    // Interleaved strides (such as {2, 3} over sizes {3, 2}) may still be disjoint: mark every
    // address. Bounded: validation has already checked the buffer fits the memory limit.
    std::vector<bool> used(index_of_last_element(d) + 1, false);
    const auto strides = effective_strides(d);
    bool overlap = false;
    for_each_run<1>(d.Sizes, {strides.data()}, {0},
                    [&](const std::array<int64_t, 1>& off, int64_t count, const std::array<int64_t, 1>& step) {
        for (int64_t i = 0; i < count && !overlap; ++i) {
            const auto a = size_t(off[0] + i * step[0]);
            overlap = used[a];
            used[a] = true;
        }
    });
    return overlap;
}

void validate_tensor_desc(const TensorDesc& d, TensorRole role, const std::string& path, uint64_t max_bytes,
                          Diagnostics& diags) {
    const size_t errors_before = diags.error_count();
    if (!is_valid(d.DataType))
        diags.error(
            pointer_append(path, "DataType"), "tensor.data-type",
            "DataType must be one of the eleven DML_TENSOR_DATA_TYPE values FLOAT32..INT64 (UNKNOWN is never valid)");
    const size_t n = d.Sizes.size();
    if (n < 1 || n > kMaxDimensionCount)
        diags.error(pointer_append(path, "Sizes"), "tensor.dimension-count",
                    "DimensionCount is " + std::to_string(n) +
                        "; DML_BUFFER_TENSOR_DESC allows 1 to 8 dimensions (DML_TENSOR_DIMENSION_COUNT_MAX1)");
    for (size_t i = 0; i < n; ++i)
        if (d.Sizes[i] == 0)
            diags.error(pointer_append(pointer_append(path, "Sizes"), i), "tensor.sizes.positive",
                        "Sizes[" + std::to_string(i) +
                            "] is 0; every size must be at least 1 (a zero-sized dimension is invalid)");
    if (!d.Strides.empty() && d.Strides.size() != n)
        diags.error(pointer_append(path, "Strides"), "tensor.strides.length",
                    "Strides has " + std::to_string(d.Strides.size()) + " entries but Sizes has " + std::to_string(n) +
                        "; Strides must have DimensionCount entries");
    if (d.Flags & ~DML_TENSOR_FLAG_OWNED_BY_DML)
        diags.error(pointer_append(path, "Flags"), "tensor.flags",
                    "Flags " + std::to_string(d.Flags) + " holds bits other than DML_TENSOR_FLAG_OWNED_BY_DML (1)");
    if ((d.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) && role == TensorRole::Output)
        diags.error(pointer_append(path, "Flags"), "tensor.flags.owned-by-dml-output",
                    "DML_TENSOR_FLAG_OWNED_BY_DML is only valid on input tensors");
    const uint32_t a = d.GuaranteedBaseOffsetAlignment;
    if (a != 0 && ((a & (a - 1)) != 0 || (is_valid(d.DataType) && a < element_size(d.DataType))))
        diags.error(pointer_append(path, "GuaranteedBaseOffsetAlignment"), "tensor.alignment",
                    "GuaranteedBaseOffsetAlignment " + std::to_string(a) +
                        " must be 0 or a power of two at least the element size");
    if (diags.error_count() != errors_before) return;  // sizes below need a well-formed desc

    const uint64_t count = element_count(d);
    if (count > kMaxElementCount) {
        diags.error(pointer_append(path, "Sizes"), "tensor.element-count",
                    "the tensor has " + std::to_string(count) + " elements; a tensor may not exceed 2^32 - 1 elements");
        return;
    }
    const uint64_t minimum = calc_buffer_tensor_size(d);
    if (minimum == kSaturated) {
        diags.error(
            pointer_append(path, "Strides"), "tensor.size-overflow",
            "the buffer's size, DMLCalcBufferTensorSize = (dot(Sizes - 1, Strides) + 1) * element size, does not fit "
            "in 64 bits; no buffer can hold this tensor");
        return;
    }
    if (d.TotalTensorSizeInBytes != 0 && d.TotalTensorSizeInBytes < minimum) {
        diags.error(pointer_append(path, "TotalTensorSizeInBytes"), "tensor.total-size",
                    "TotalTensorSizeInBytes is " + std::to_string(d.TotalTensorSizeInBytes) +
                        " but DMLCalcBufferTensorSize gives " + std::to_string(minimum) +
                        "; it must be at least the minimum implied size");
        return;  // the overlap check below sizes its work by the minimum size
    }
    if (buffer_size(d) > max_bytes) {
        diags.error(pointer_append(path, "TotalTensorSizeInBytes"), "limit.buffer-bytes",
                    "the buffer needs " + std::to_string(buffer_size(d)) + " bytes, over dmlref's limit of " +
                        std::to_string(max_bytes) + " bytes per case (raise it with --max-bytes)");
        return;
    }
    if (role == TensorRole::Output && has_overlapping_elements(d))
        diags.error(pointer_append(path, "Strides"), "tensor.output-overlap",
                    "the output's Strides make two logical elements share memory; an output element must have "
                    "an address of its own (docs/golden.md, decision 'output strides')");
}

TensorView::TensorView(const TensorDesc& d, std::span<std::byte> bytes)
    : desc(d), base(bytes.data()), strides(effective_strides(d)) {}
TensorView::TensorView(const TensorDesc& d, std::span<const std::byte> bytes)
    : desc(d), base(const_cast<std::byte*>(bytes.data())), strides(effective_strides(d)) {}

std::string sizes_text(const std::vector<uint32_t>& sizes) {
    std::string s = "[";
    for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
    return s + "]";
}

}  // namespace dmlref
