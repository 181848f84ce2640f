// DML_OPERATOR_MAX_POOLING, _MAX_POOLING1, _MAX_POOLING2 and _MAX_POOLING_GRAD.
//
// Spec: DML_MAX_POOLING, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD_OPERATOR_DESC (DirectML API
// reference); docs/golden.md, "Max pooling".
//
//   Tensors are {N, C, spatial...}; the arrays have one entry per spatial dimension.
//   Window element k of output o reads input position  o * Strides - StartPadding + k * Dilations
//   (per spatial dimension; Dilations = 1 for MAX_POOLING and MAX_POOLING1).
//   dilated window = 1 + (WindowSize - 1) * Dilations
//   Out = (In + StartPadding + EndPadding - dilated window) / Strides + 1     (floor)
//   MAX_POOLING*   Out[n,c,o] = max over the window; OutputIndicesTensor = where it was
//   MAX_POOLING_GRAD  dX = 0; for every element o of dY: dX[argmax of o's window] += dY[o]
//
// Decisions (docs/golden.md, recorded as policies in golden files):
//   - The argmax scans the window's real elements (padding is never a candidate) in increasing
//     logical index: a later element wins only when it is greater, so ties (-0 and +0 included)
//     keep the lowest index; a NaN loses to any number and wins only when every candidate is
//     NaN (then the first). The forward value is a copy of the chosen element's bits.
//   - Indices are the flat logical index over the packed input shape ((n*C + c)*H + h)*W + w,
//     whatever the input's Strides.
//   - A window with no real element (all padding) is undefined: dmlref writes +0 (index 0) and
//     lists the element as "don't care"; in the grad it sends no gradient.
//   - Output sizes: the floor size above, or the ceil-mode size (one more when the division
//     leaves a remainder), as ONNX ceil_mode passes it; anything else is an error.
//   - Grad sums: float terms are summed exactly and rounded once to float64, then once to the
//     output type; NaN, or +inf with -inf, gives the canonical NaN. Integer sums wrap to the
//     output width. Every sum starts from +0.
//   - Every rank from 3 to 8 is evaluated (DirectML's tables say 4 to 5).
//
// The window and its argmax are in max_pooling_internal.hpp; the grad's terms for the bound
// (dmlref/terms.hpp) and the argmax ties in max_pooling_terms.cpp.
// Alternative readings (docs/golden.md; `run --policy`), each a branch where it decides, off by
// default: ArgmaxNaN=NaNWins in beats(); Subnormals=FlushAtomicSums in the grad's sums.
#include "max_pooling.hpp"
#include "common.hpp"
#include "fast_sum.hpp"
#include "max_pooling_internal.hpp"
#include "dmlref/readings.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace dmlref::reference {

using namespace maxpool;  // the window and its argmax: max_pooling_internal.hpp

namespace {

// ---- Validation ----------------------------------------------------------------------------

// The fields the four descs share; Dilations is null for MAX_POOLING and MAX_POOLING1.
struct PoolingFields {
    std::string_view op;           // rule prefix: "max-pooling2"
    const TensorDesc& input;       // InputTensor
    std::string_view output_name;  // "OutputTensor" or "InputGradientTensor"
    const TensorDesc& output;      // the tensor with the pooled sizes
    uint32_t DimensionCount;
    const std::vector<uint32_t>& Strides;
    const std::vector<uint32_t>& WindowSize;
    const std::vector<uint32_t>& StartPadding;
    const std::vector<uint32_t>& EndPadding;
    const std::vector<uint32_t>* Dilations;
};

void validate_pooling(Diagnostics& diags, const PoolingFields& f) {
    const uint32_t rank = f.input.DimensionCount();
    if (rank < 3 || rank > kMaxDimensionCount) {
        diags.error("/desc/InputTensor/Sizes", rule(f.op, "rank"),
                    "InputTensor has " + std::to_string(rank) +
                        " dimensions; max pooling needs 3 to 8 (batch, "
                        "channel and 1 to 6 spatial dimensions)");
        return;
    }
    // "DimensionCount must equal the spatial dimension count (InputTensor's DimensionCount - 2)";
    // the arrays have DimensionCount entries, and strides, windows and dilations are >= 1.
    const bool shape_ok = validate_pooling_arrays(diags, {f.op, "InputTensor", rank, f.DimensionCount, f.Strides,
                                                          f.WindowSize, f.StartPadding, f.EndPadding, f.Dilations});
    // The pooled tensor: InputTensor's DimensionCount, batch and channel; spatial sizes as computed.
    const std::string out_path = pointer_append(desc_path(f.output_name), "Sizes");
    if (f.output.DimensionCount() != rank) {
        diags.error(out_path, rule(f.op, "same-dimension-count"),
                    std::string(f.output_name) + " has " + std::to_string(f.output.DimensionCount()) +
                        " dimensions but InputTensor has " + std::to_string(rank) +
                        "; they must have the same DimensionCount");
        return;
    }
    for (size_t i = 0; i < 2; ++i)
        if (f.output.Sizes[i] != f.input.Sizes[i])
            diags.error(pointer_append(out_path, i), rule(f.op, "batch-channel"),
                        std::string(f.output_name) + ".Sizes[" + std::to_string(i) + "] is " +
                            std::to_string(f.output.Sizes[i]) + " but InputTensor.Sizes[" + std::to_string(i) +
                            "] is " + std::to_string(f.input.Sizes[i]) +
                            "; the batch and channel sizes must be the same");
    if (!shape_ok) return;
    for (size_t i = 0; i < f.DimensionCount; ++i) {
        const uint64_t dilation = f.Dilations ? (*f.Dilations)[i] : 1;
        if (f.Strides[i] == 0 || f.WindowSize[i] == 0 || dilation == 0) continue;  // reported above
        const uint64_t padded = uint64_t(f.input.Sizes[i + 2]) + f.StartPadding[i] + f.EndPadding[i];
        const uint64_t window = 1 + uint64_t(f.WindowSize[i] - 1) * dilation;
        if (window > padded) {
            diags.error(pointer_append("/desc/WindowSize", i), rule(f.op, "window-fits"),
                        "the window along spatial dimension " + std::to_string(i) + " spans " + std::to_string(window) +
                            " elements (1 + (WindowSize - 1) * Dilations) but the padded input has only " +
                            std::to_string(padded) + " (InputTensor.Sizes[" + std::to_string(i + 2) +
                            "] + StartPadding + EndPadding)");
            continue;
        }
        const uint64_t floor_size = (padded - window) / f.Strides[i] + 1;
        const uint64_t ceil_size = floor_size + ((padded - window) % f.Strides[i] != 0);
        const uint64_t given = f.output.Sizes[i + 2];
        if (given == floor_size || given == ceil_size) continue;
        const std::string allowed = floor_size == ceil_size ? std::to_string(floor_size)
                                                            : std::to_string(floor_size) + " (floor) or " +
                                                                  std::to_string(ceil_size) + " (ceil mode)";
        diags.error(
            pointer_append(out_path, i + 2), rule(f.op, "output-size"),
            std::string(f.output_name) + ".Sizes[" + std::to_string(i + 2) + "] is " + std::to_string(given) +
                "; (InputSize + StartPadding + EndPadding - (1 + (WindowSize - 1) * Dilations)) / Strides + 1 allows " +
                allowed);
    }
}

void validate_indices(Diagnostics& diags, std::string_view op, const std::optional<TensorDesc>& indices,
                      const TensorDesc& output) {
    if (!indices) return;
    if (indices->DataType != DataType::UINT32 && indices->DataType != DataType::UINT64)
        diags.error("/desc/OutputIndicesTensor/DataType", rule(op, "indices-data-type"),
                    "OutputIndicesTensor.DataType is " + std::string(name(indices->DataType)) +
                        "; it must be UINT32 or UINT64");
    require_same_sizes(diags, {{"OutputTensor", output}, {"OutputIndicesTensor", *indices}}, rule(op, "indices-sizes"));
}

// ---- Forward -------------------------------------------------------------------------------

void max_pool(const TensorDesc& input, const TensorDesc& output, const std::optional<TensorDesc>& indices,
              const std::vector<uint32_t>& Strides, const std::vector<uint32_t>& WindowSize,
              const std::vector<uint32_t>& StartPadding, const std::vector<uint32_t>* Dilations, const Bindings& b) {
    const Window w = window_of(input, output, Strides, WindowSize, StartPadding, Dilations);
    const TensorView X(input, b.at("InputTensor"));
    const TensorView Y(output, b.at("OutputTensor"));
    const std::optional<TensorView> I =
        indices ? std::optional<TensorView>(std::in_place, *indices, b.at("OutputIndicesTensor")) : std::nullopt;
    const bool wide_indices = indices && indices->DataType == DataType::UINT64;
    dispatch(input.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        for_each_output(w, X, Y.sizes(), Y.strides,
                        [&](int64_t plane_index, int64_t x_plane, const PoolCoord& o, int64_t y_offset) {
            const Argmax a = window_argmax(w, x, x_plane, X.strides.data() + 2, o);
            const bool empty = a.index == kNoElement;  // don't care: +0 and index 0
            y[y_offset] = empty ? T(0) : x[a.offset];
            if (!I) return;
            const uint64_t index = empty ? 0 : uint64_t(plane_index) * uint64_t(w.in_plane) + a.index;
            int64_t i_offset = plane_index / Y.sizes()[1] * I->strides[0] + plane_index % Y.sizes()[1] * I->strides[1];
            for (size_t i = 0; i < w.spatial; ++i) i_offset += o[i] * I->strides[i + 2];
            if (wide_indices) I->data<uint64_t>()[i_offset] = index;
            else I->data<uint32_t>()[i_offset] = uint32_t(index);  // < 2^32: element counts are
        });
    });
}

std::vector<DontCare> empty_windows(const TensorDesc& input, const TensorDesc& output,
                                    const std::vector<uint32_t>& Strides, const std::vector<uint32_t>& WindowSize,
                                    const std::vector<uint32_t>& StartPadding, const std::vector<uint32_t>* Dilations) {
    std::vector<DontCare> r;
    const Window w = window_of(input, output, Strides, WindowSize, StartPadding, Dilations);
    const uint64_t planes = uint64_t(output.Sizes[0]) * output.Sizes[1];
    for (uint64_t plane = 0; plane < planes; ++plane) {
        PoolCoord o{}, zero{};
        uint64_t index = plane * uint64_t(w.out_plane);
        do {
            if (window_is_empty(w, o))
                r.push_back(
                    {index, "EmptyWindow: the window holds only padding, no element of InputTensor (docs/golden.md)"});
            ++index;
        } while (next(o, zero, w.out, w.spatial));
    }
    return r;
}

// ---- Grad ----------------------------------------------------------------------------------

// The terms of each dX element, grouped: terms of element e are order[first[e] .. first[e + 1]),
// as dY logical indices in increasing order.
struct Groups {
    std::vector<uint64_t> first, order;
};
Groups group_terms(const std::vector<uint64_t>& targets, uint64_t dx_count) {
    Groups g;
    g.first.assign(dx_count + 1, 0);
    for (uint64_t t : targets)
        if (t != kNoElement) ++g.first[t + 1];
    for (uint64_t e = 0; e < dx_count; ++e) g.first[e + 1] += g.first[e];
    g.order.resize(g.first[dx_count]);
    std::vector<uint64_t> fill(g.first.begin(), g.first.end() - 1);
    for (uint64_t j = 0; j < targets.size(); ++j)
        if (targets[j] != kNoElement) g.order[fill[targets[j]]++] = j;
    return g;
}

PoolingFields grad_fields(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d) {
    return {"max-pooling-grad", d.InputTensor, "InputGradientTensor", d.InputGradientTensor, d.DimensionCount,
            d.Strides,          d.WindowSize,  d.StartPadding,        d.EndPadding,          &d.Dilations};
}

}  // namespace

// ---- MAX_POOLING, MAX_POOLING1, MAX_POOLING2 ---------------------------------------------------

void validate(const DML_MAX_POOLING_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "max-pooling.same-data-type");
    validate_pooling(diags, {"max-pooling", d.InputTensor, "OutputTensor", d.OutputTensor, d.DimensionCount, d.Strides,
                             d.WindowSize, d.StartPadding, d.EndPadding, nullptr});
}

void evaluate(const DML_MAX_POOLING_OPERATOR_DESC& d, const Bindings& b) {
    max_pool(d.InputTensor, d.OutputTensor, std::nullopt, d.Strides, d.WindowSize, d.StartPadding, nullptr, b);
}

std::vector<DontCare> dont_care(const DML_MAX_POOLING_OPERATOR_DESC& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return {};
    return empty_windows(d.InputTensor, d.OutputTensor, d.Strides, d.WindowSize, d.StartPadding, nullptr);
}

void validate(const DML_MAX_POOLING1_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "max-pooling1.same-data-type");
    validate_pooling(diags, {"max-pooling1", d.InputTensor, "OutputTensor", d.OutputTensor, d.DimensionCount, d.Strides,
                             d.WindowSize, d.StartPadding, d.EndPadding, nullptr});
    validate_indices(diags, "max-pooling1", d.OutputIndicesTensor, d.OutputTensor);
}

void evaluate(const DML_MAX_POOLING1_OPERATOR_DESC& d, const Bindings& b) {
    max_pool(d.InputTensor, d.OutputTensor, d.OutputIndicesTensor, d.Strides, d.WindowSize, d.StartPadding, nullptr, b);
}

std::vector<DontCare> dont_care(const DML_MAX_POOLING1_OPERATOR_DESC& d, std::string_view output) {
    if ((output != "OutputTensor" && output != "OutputIndicesTensor") || !valid(d, validate)) return {};
    return empty_windows(d.InputTensor, d.OutputTensor, d.Strides, d.WindowSize, d.StartPadding, nullptr);
}

void validate(const DML_MAX_POOLING2_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "max-pooling2.same-data-type");
    validate_pooling(diags, {"max-pooling2", d.InputTensor, "OutputTensor", d.OutputTensor, d.DimensionCount, d.Strides,
                             d.WindowSize, d.StartPadding, d.EndPadding, &d.Dilations});
    validate_indices(diags, "max-pooling2", d.OutputIndicesTensor, d.OutputTensor);
}

void evaluate(const DML_MAX_POOLING2_OPERATOR_DESC& d, const Bindings& b) {
    max_pool(d.InputTensor, d.OutputTensor, d.OutputIndicesTensor, d.Strides, d.WindowSize, d.StartPadding,
             &d.Dilations, b);
}

std::vector<DontCare> dont_care(const DML_MAX_POOLING2_OPERATOR_DESC& d, std::string_view output) {
    if ((output != "OutputTensor" && output != "OutputIndicesTensor") || !valid(d, validate)) return {};
    return empty_windows(d.InputTensor, d.OutputTensor, d.Strides, d.WindowSize, d.StartPadding, &d.Dilations);
}

// ---- MAX_POOLING_GRAD ----------------------------------------------------------------------

void validate(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    // "InputGradientTensor, InputTensor, and OutputGradientTensor must have the same DataType and
    // DimensionCount. InputTensor and OutputGradientTensor must have the same Sizes."
    require_same_data_type(diags,
                           {{"InputTensor", d.InputTensor},
                            {"InputGradientTensor", d.InputGradientTensor},
                            {"OutputGradientTensor", d.OutputGradientTensor}},
                           "max-pooling-grad.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputGradientTensor", d.OutputGradientTensor}},
                       "max-pooling-grad.same-sizes");
    validate_pooling(diags, grad_fields(d));
}

void evaluate(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const Window w = window_of(d.InputTensor, d.InputGradientTensor, d.Strides, d.WindowSize, d.StartPadding,
                               &d.Dilations);
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const std::span<const std::byte> dY_buffer = b.at("InputGradientTensor");
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const Groups g = group_terms(grad_targets<T>(w, X, d.InputGradientTensor.Sizes),
                                     element_count(d.OutputGradientTensor));
        const bool flush = in_force<"Subnormals", "FlushAtomicSums">();
        // dY's elements in logical order.
        const std::vector<std::byte> dy_bytes = gather_logical(d.InputGradientTensor, dY_buffer);
        std::vector<T> dy(dy_bytes.size() / sizeof(T));
        std::memcpy(static_cast<void*>(dy.data()), dy_bytes.data(), dy_bytes.size());
        // dX in logical order, with its element offsets.
        const auto dx_packed = packed_strides(d.OutputGradientTensor.Sizes);
        const std::array<const int64_t*, 2> strides = {dX.strides.data(), dx_packed.data()};
        for_each_run<2>(dX.sizes(), strides, {0, 0},
                        [&](const std::array<int64_t, 2>& off, int64_t count, const std::array<int64_t, 2>& step) {
            for (int64_t i = 0; i < count; ++i) {
                const uint64_t e = uint64_t(off[1] + i * step[1]);
                T sum;
                if constexpr (std::is_integral_v<T>) {
                    uint64_t s = 0;  // wraps; two's complement for signed types
                    for (uint64_t t = g.first[e]; t < g.first[e + 1]; ++t) s += uint64_t(dy[g.order[t]]);
                    sum = static_cast<T>(s);
                } else if (!flush) {
                    sum = exact_sum_of<T>([&](auto&& add) {
                        for (uint64_t t = g.first[e]; t < g.first[e + 1]; ++t) add(widen(dy[g.order[t]]));
                    });
                } else {  // Subnormals=FlushAtomicSums: subnormal terms and result flushed
                    sum = flushed(exact_sum_of<T>([&](auto&& add) {
                        for (uint64_t t = g.first[e]; t < g.first[e + 1]; ++t) add(widen(flushed(dy[g.order[t]])));
                    }));
                }
                dX.data<T>()[off[0] + i * step[0]] = sum;
            }
        });
    });
}

}  // namespace dmlref::reference
