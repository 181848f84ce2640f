// DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1 and DML_OPERATOR_SLICE_GRAD.
//
// Spec: DML_SLICE, SLICE1 and SLICE_GRAD_OPERATOR_DESC (DirectML API reference); rules in
// docs/rules.md (slice.*, slice1.*, slice-grad.*).
//
//   SLICE       Out[c] = In[Offsets + Strides * c]                       (per dimension i)
//   SLICE1      CopyStart[i] = InputWindowOffsets[i] + (InputWindowStrides[i] < 0 ? InputWindowSizes[i] - 1 : 0)
//               Out[c] = In[CopyStart + InputWindowStrides * c]
//   SLICE_GRAD  dX = 0;  dX[CopyStart + InputWindowStrides * c] = dY[c]   (the adjoint of SLICE1;
//               dX has the forward input's shape, dY the forward output's)
//
// Rules (per dimension i; for SLICE_GRAD the forward input is OutputGradientTensor and the
// forward output is InputGradientTensor):
//   SLICE1, SLICE_GRAD  InputWindowStrides[i] != 0;  InputWindowSizes[i] >= 1;
//                       InputWindowOffsets[i] + InputWindowSizes[i] <= forward input Sizes[i];
//                       1 <= forward output Sizes[i] <= 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]|
//   SLICE               Sizes[i] == OutputTensor.Sizes[i];  Strides[i] >= 1;
//                       Offsets[i] + (Sizes[i] - 1) * Strides[i] < InputTensor.Sizes[i]
//   all                 DimensionCount == each tensor's DimensionCount == each array's length;
//                       both tensors have the same DataType.
//
// Decisions (docs/golden.md):
//   - Values are moved, never computed: each element's bytes are copied, so NaN payloads, -0,
//     subnormals and 64-bit extremes pass unchanged.
//   - A zero stride is an error for SLICE1 ("Strides may not be 0") and SLICE_GRAD ("requires
//     non-zero strides"): policy SliceZeroStride = Error. SLICE's unsigned Strides must be >= 1.
//   - SLICE_GRAD's "0" is +0 (all-zero bytes in every type), written to the logical elements
//     of dX only; a strided dX's gap bytes are left as they were.
//   - With a negative stride the first output element is the last element of the window.
// Alternative reading (docs/golden.md; `run --policy`): SelectedZero=ScatterAdd, dX = +0 + dY
// (-0 becomes +0, a signalling NaN is quieted), a branch at the end of SLICE_GRAD.
//
// The loops: each copy is one for_each_run over the output's logical shape, with the window's
// start folded into the input's base offset and the window stride folded into the input's
// element strides (windowStride * inputStride), so the inner loop is a plain strided copy.
// SLICE_GRAD's fast path (reference/fast/slice_grad.hpp) writes a packed dX once, row by row,
// instead of zeroing it all and coming back for the copies.
#include "slice.hpp"
#include "common.hpp"
#include "element_copy.hpp"
#include "dmlref/explain.hpp"
#include "fast/slice_grad.hpp"

#include "dmlref/readings.hpp"

#include <cstdlib>

namespace dmlref::reference {

namespace {

std::string array_path(std::string_view field, size_t i) { return pointer_append(desc_path(field), i); }

// DimensionCount against both tensors and every array. Returns whether all agree, so that the
// per-dimension rules may index them.
bool validate_dimension_count(Diagnostics& diags, std::string_view op, uint32_t n, std::initializer_list<Named> tensors,
                              std::initializer_list<std::pair<std::string_view, size_t>> arrays) {
    bool ok = true;
    for (const auto& t : tensors)
        if (t.desc.DimensionCount() != n) {
            ok = false;
            diags.error(desc_path("DimensionCount"), std::string(op) + ".dimension-count",
                        "DimensionCount is " + std::to_string(n) + " but " + std::string(t.name) + " has " +
                            std::to_string(t.desc.DimensionCount()) +
                            " dimensions; DimensionCount must equal the "
                            "DimensionCount of " +
                            join_names(tensors));
        }
    for (const auto& [field, length] : arrays)
        if (length != n) {
            ok = false;
            diags.error(desc_path(field), std::string(op) + ".array-length",
                        std::string(field) + " has " + std::to_string(length) +
                            " entries; it must have DimensionCount (" + std::to_string(n) + ") entries");
        }
    return ok;
}

// The window rules shared by SLICE1 and SLICE_GRAD. `in` is the forward input (the tensor the
// window lies in), `out` the forward output.
void validate_window(Diagnostics& diags, std::string_view op, uint32_t n, const std::vector<uint32_t>& offsets,
                     const std::vector<uint32_t>& sizes, const std::vector<int32_t>& strides, Named in, Named out) {
    const bool dims_ok = validate_dimension_count(diags, op, n, {in, out},
                                                  {{"InputWindowOffsets", offsets.size()},
                                                   {"InputWindowSizes", sizes.size()},
                                                   {"InputWindowStrides", strides.size()}});
    require_same_data_type(diags, {in, out}, std::string(op) + ".same-data-type");

    // Rules on one array alone hold whatever the lengths.
    for (size_t i = 0; i < strides.size(); ++i)
        if (strides[i] == 0)
            diags.error(array_path("InputWindowStrides", i), std::string(op) + ".stride-nonzero",
                        "InputWindowStrides[" + std::to_string(i) +
                            "] is 0; strides may not be 0 (a zero stride "
                            "would copy one element many times, and its gradient would be ambiguous)");
    for (size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] == 0)
            diags.error(array_path("InputWindowSizes", i), std::string(op) + ".window-size-positive",
                        "InputWindowSizes[" + std::to_string(i) + "] is 0; the window must hold at least one element");
    if (!dims_ok) return;

    for (size_t i = 0; i < n; ++i) {
        const std::string at = "[" + std::to_string(i) + "]";
        const uint64_t end = uint64_t(offsets[i]) + sizes[i];
        if (end > in.desc.Sizes[i])
            diags.error(array_path("InputWindowSizes", i), std::string(op) + ".window-in-bounds",
                        "InputWindowOffsets" + at + " + InputWindowSizes" + at + " is " + std::to_string(offsets[i]) +
                            " + " + std::to_string(sizes[i]) + " = " + std::to_string(end) + ", beyond " +
                            std::string(in.name) + ".Sizes" + at + " = " + std::to_string(in.desc.Sizes[i]) +
                            "; the window must lie inside " + std::string(in.name));
        if (strides[i] == 0 || sizes[i] == 0) continue;  // reported above
        const uint64_t max_copied = 1 + (uint64_t(sizes[i]) - 1) / uint64_t(std::llabs(int64_t(strides[i])));
        // The lower bound, Sizes >= 1, is the tensor rule tensor.sizes.positive.
        if (out.desc.Sizes[i] > max_copied)
            diags.error(pointer_append(pointer_append(desc_path(out.name), "Sizes"), i),
                        std::string(op) + ".output-size",
                        std::string(out.name) + ".Sizes" + at + " is " + std::to_string(out.desc.Sizes[i]) +
                            " but the window copies at most 1 + (InputWindowSizes" + at +
                            " - 1) / |InputWindowStrides" + at + "| = 1 + (" + std::to_string(sizes[i]) + " - 1) / " +
                            std::to_string(std::llabs(int64_t(strides[i]))) + " = " + std::to_string(max_copied) +
                            " elements; it must be from 1 to " + std::to_string(max_copied));
    }
}

// Writes +0 (all-zero bytes, in every type) to each logical element of `view`.
template <class U> void zero_elements(const TensorView& view) {
    U* d = view.data<U>();
    for_each_run<1>(view.sizes(), {view.strides.data()}, {0},
                    [&](const std::array<int64_t, 1>& off, int64_t count, const std::array<int64_t, 1>& step) {
        for (int64_t i = 0; i < count; ++i) d[off[0] + i * step[0]] = U(0);
    });
}

// CopyStart of one dimension: the window's first element read (its last with a negative stride).
int64_t copy_start_of(uint32_t offset, uint32_t size, int32_t stride) {
    return int64_t(offset) + (stride < 0 ? int64_t(size) - 1 : 0);
}

// The window in the forward input's memory: the element offset of Out[0, ..., 0] (CopyStart)
// and, per dimension, the step between neighbouring outputs (InputWindowStrides * input stride).
struct Window {
    int64_t base = 0;
    std::vector<int64_t> strides;
};

Window window_of(const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& sizes,
                 const std::vector<int32_t>& strides, const std::vector<int64_t>& input_strides) {
    Window w;
    for (size_t i = 0; i < strides.size(); ++i) {
        const int64_t copy_start = copy_start_of(offsets[i], sizes[i], strides[i]);
        w.base += copy_start * input_strides[i];
        w.strides.push_back(int64_t(strides[i]) * input_strides[i]);
    }
    return w;
}

}  // namespace

// ---- SLICE --------------------------------------------------------------------------------

void validate(const DML_SLICE_OPERATOR_DESC& d, Diagnostics& diags) {
    const Named in{"InputTensor", d.InputTensor}, out{"OutputTensor", d.OutputTensor};
    const bool dims_ok = validate_dimension_count(
        diags, "slice", d.DimensionCount, {in, out},
        {{"Offsets", d.Offsets.size()}, {"Sizes", d.Sizes.size()}, {"Strides", d.Strides.size()}});
    require_same_data_type(diags, {in, out}, "slice.same-data-type");
    for (size_t i = 0; i < d.Strides.size(); ++i)
        if (d.Strides[i] == 0)
            diags.error(array_path("Strides", i), "slice.stride-positive",
                        "Strides[" + std::to_string(i) + "] is 0; strides must be at least 1");
    if (!dims_ok) return;

    for (size_t i = 0; i < d.DimensionCount; ++i) {
        const std::string at = "[" + std::to_string(i) + "]";
        if (d.Sizes[i] != d.OutputTensor.Sizes[i])
            diags.error(array_path("Sizes", i), "slice.sizes-match-output",
                        "Sizes" + at + " is " + std::to_string(d.Sizes[i]) + " but OutputTensor.Sizes" + at + " is " +
                            std::to_string(d.OutputTensor.Sizes[i]) + "; Sizes must equal the output's Sizes");
        if (d.Sizes[i] == 0 || d.Strides[i] == 0) continue;  // reported elsewhere
        // At most (2^32 - 1) + (2^32 - 2) * (2^32 - 1) < 2^64: no overflow in 64 bits.
        const uint64_t last = uint64_t(d.Offsets[i]) + (uint64_t(d.Sizes[i]) - 1) * d.Strides[i];
        if (last >= d.InputTensor.Sizes[i])
            diags.error(array_path("Offsets", i), "slice.in-bounds",
                        "Offsets" + at + " + (Sizes" + at + " - 1) * Strides" + at + " is " +
                            std::to_string(d.Offsets[i]) + " + (" + std::to_string(d.Sizes[i]) + " - 1) * " +
                            std::to_string(d.Strides[i]) + " = " + std::to_string(last) +
                            "; it must be less than InputTensor.Sizes" + at + " = " +
                            std::to_string(d.InputTensor.Sizes[i]) + " (no read outside the input)");
    }
}

void evaluate(const DML_SLICE_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    // SLICE is SLICE1 with a window that starts at Offsets and only positive strides.
    int64_t base = 0;
    std::vector<int64_t> step(d.DimensionCount);
    for (size_t i = 0; i < d.DimensionCount; ++i) {
        base += int64_t(d.Offsets[i]) * X.strides[i];
        step[i] = int64_t(d.Strides[i]) * X.strides[i];
    }
    by_width(d.InputTensor.DataType,
             [&]<class U>() { copy_elements<U>(Y.sizes(), Y.base, Y.strides.data(), 0, X.base, step.data(), base); });
}

// ---- SLICE1 -------------------------------------------------------------------------------

void validate(const DML_SLICE1_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_window(diags, "slice1", d.DimensionCount, d.InputWindowOffsets, d.InputWindowSizes, d.InputWindowStrides,
                    {"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor});
}

void evaluate(const DML_SLICE1_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const Window w = window_of(d.InputWindowOffsets, d.InputWindowSizes, d.InputWindowStrides, X.strides);
    by_width(d.InputTensor.DataType, [&]<class U>() {
        copy_elements<U>(Y.sizes(), Y.base, Y.strides.data(), 0, X.base, w.strides.data(), w.base);
    });
}

// ---- SLICE_GRAD ---------------------------------------------------------------------------

void validate(const DML_SLICE_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_window(diags, "slice-grad", d.DimensionCount, d.InputWindowOffsets, d.InputWindowSizes,
                    d.InputWindowStrides, {"OutputGradientTensor", d.OutputGradientTensor},
                    {"InputGradientTensor", d.InputGradientTensor});
}

void evaluate(const DML_SLICE_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    const Window w = window_of(d.InputWindowOffsets, d.InputWindowSizes, d.InputWindowStrides, dX.strides);
    by_width(d.InputGradientTensor.DataType, [&]<class U>() {
        zero_elements<U>(dX);
        // Non-zero strides send distinct dY coordinates to distinct dX elements: nothing is summed.
        copy_elements<U>(dY.sizes(), dX.base, w.strides.data(), w.base, dY.base, dY.strides.data(), 0);
    });
    if (in_force<"SelectedZero", "ScatterAdd">() &&
        is_float(d.InputGradientTensor.DataType))  // SelectedZero=ScatterAdd
        dispatch(d.InputGradientTensor.DataType, [&]<class T>() {
            map_elements<T, T>(
                dX, [](T v) { return is_nan(v)       ? quieted(v)
                                     : widen(v) == 0 ? T(0)
                                                     : v; }, dX);  // +0 + v
        });
}

// SLICE_GRAD's fast path (reference/fast/slice_grad.hpp), chosen by the record before the loop
// above: the same dX, written row by row; false where it does not apply.
bool evaluate_fast(const DML_SLICE_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    std::vector<fast::SliceAxis> axes;  // the window per axis
    for (size_t i = 0; i < d.InputWindowStrides.size(); ++i)
        axes.push_back({copy_start_of(d.InputWindowOffsets[i], d.InputWindowSizes[i], d.InputWindowStrides[i]),
                        d.InputWindowStrides[i], int64_t(dY.sizes()[i])});
    return by_width(d.InputGradientTensor.DataType, [&]<class U>() { return fast::slice_grad_rows<U>(dY, dX, axes); });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The source of an output element (SLICE, SLICE1) or the dY element a dX element copies (SLICE_GRAD):
// per dimension i, source = CopyStart + stride * c (SLICE: Offsets + Strides * c).
bool explain_slice(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const std::vector<uint32_t>*offsets = nullptr, *sizes = nullptr;
    std::vector<int32_t> strides;
    const TensorDesc* mine = nullptr;
    bool grad = false;
    if (auto* d = get_if<DML_SLICE_OPERATOR_DESC>(&c.op.Desc)) {
        offsets = &d->Offsets;
        sizes = &d->Sizes;
        mine = &d->OutputTensor;
        for (uint32_t s : d->Strides) strides.push_back(int32_t(s));  // >= 1 and, validated, in bounds
    } else if (auto* d1 = get_if<DML_SLICE1_OPERATOR_DESC>(&c.op.Desc)) {
        offsets = &d1->InputWindowOffsets;
        sizes = &d1->InputWindowSizes;
        strides = d1->InputWindowStrides;
        mine = &d1->OutputTensor;
    } else if (auto* g = get_if<DML_SLICE_GRAD_OPERATOR_DESC>(&c.op.Desc)) {
        offsets = &g->InputWindowOffsets;
        sizes = &g->InputWindowSizes;
        strides = g->InputWindowStrides;
        mine = &g->OutputGradientTensor;
        grad = true;
    }
    (void)output;
    const bool slice = holds<DML_SLICE_OPERATOR_DESC>(c.op.Desc);
    const std::vector<uint64_t> at = nd_coordinate(mine->Sizes, flat);
    std::vector<uint64_t> source;
    std::string text;
    bool inside = true;
    const TensorDesc* dy = grad ? &get<DML_SLICE_GRAD_OPERATOR_DESC>(c.op.Desc).InputGradientTensor : nullptr;
    for (size_t i = 0; i < at.size(); ++i) {
        const int64_t start = slice ? int64_t((*offsets)[i]) : copy_start_of((*offsets)[i], (*sizes)[i], strides[i]);
        if (!grad) {
            source.push_back(uint64_t(start + strides[i] * int64_t(at[i])));
            text += (i ? ", " : "") + std::to_string(start) + (strides[i] < 0 ? " - " : " + ") +
                    std::to_string(std::abs(strides[i])) + " * " + std::to_string(at[i]) + " = " +
                    std::to_string(source.back());
        } else {
            // dX[at] = dY[k] where at = CopyStart + stride * k, 0 <= k < dY's size.
            const int64_t diff = int64_t(at[i]) - start;
            const bool hit = diff % strides[i] == 0 && diff / strides[i] >= 0 &&
                             diff / strides[i] < int64_t(dy->Sizes[i]);
            inside = inside && hit;
            source.push_back(hit ? uint64_t(diff / strides[i]) : 0);
            text += (i ? ", " : "") + std::string("(") + std::to_string(at[i]) + " - " + std::to_string(start) +
                    ") / " + std::to_string(strides[i]) +
                    (hit ? " = " + std::to_string(source.back()) : ": not a window position");
        }
    }
    if (!grad) {
        out.facts.emplace_back("source index",
                               "InputTensor[" + text + "]" +
                                   (slice ? " (Offsets + Strides * c)" : " (CopyStart + InputWindowStrides * c)"));
        out.inputs.push_back(input_element(c, "InputTensor", source, "source"));
    } else if (inside) {
        out.facts.emplace_back("copies",
                               "InputGradientTensor[" + text + "] (c = (index - CopyStart) / InputWindowStrides)");
        out.inputs.push_back(input_element(c, "InputGradientTensor", source, "dY"));
    } else {
        out.facts.emplace_back("copies", "nothing: outside the window (" + text + "), so +0");
        out.policies.push_back("SelectedZero");
    }
    out.policies.push_back("Subnormals");
    return true;
}

}  // namespace dmlref::reference
