// DML_OPERATOR_RESAMPLE, _RESAMPLE1, _RESAMPLE2, _RESAMPLE3, _RESAMPLE_GRAD and _RESAMPLE_GRAD1.
//
// Spec: DML_RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE_GRAD and RESAMPLE_GRAD1_OPERATOR_DESC (DirectML API
// reference; the RESAMPLE_GRAD1 page's example); support tables in reference/resample_record.cpp,
// rules in docs/rules.md, open questions in docs/golden.md, "Resampling"; docs/tolerance.md.
//
//   Per dimension i (every dimension is resampled by its own Scale):
//     OutputX = (InputX + InputPixelOffset) * Scale + OutputPixelOffset
//     =>   x  = (o - OutputPixelOffset) / Scale - InputPixelOffset      (the input coordinate of output o)
//   NEAREST_NEIGHBOR  one tap, weight 1: DECREASING = floor(x), INCREASING = ceil(x), clamped to [0, In - 1]
//   LINEAR            xc = clamp(x, 0, In - 1); x0 = floor(xc); x1 = min(x0 + 1, In - 1)
//                     w1 = xc - x0; w0 = 1 - w1          (taps (x0, w0) and (x1, w1))
//   An output element reads one tap per dimension, every combination; its weight is the product
//   of the per-dimension weights, multiplied in dimension order 0..N-1.
//   RESAMPLE   = RESAMPLE1 with InputPixelOffsets 0.5 and OutputPixelOffsets -0.5.
//   RESAMPLE3  = RESAMPLE2 when Antialiased is FALSE (its page's remark), and when TRUE where the
//              page applies no antialiasing (NEAREST_NEIGHBOR, or a Scale of at least 0.5). LINEAR
//              with Antialiased TRUE and a Scale below 0.5 stretches the filter by 1 / Scale (the
//              page: "assuming" LINEAR "and 1/Scales > 2"); the page gives no taps, weights or edges:
//              AntialiasFilter=StretchedTriangle, xc = clamp(x, 0, In - 1), t_j = 1 - |j - xc| Scale
//              for the indices j in [0, In) where it is positive, weight t_j / sum of t (float64).
//   RESAMPLE1, RESAMPLE (and RESAMPLE_GRAD) in NEAREST_NEIGHBOR = RESAMPLE2 with DECREASING "and
//              OutputPixelOffsets adjusted an additional -0.5" (the RESAMPLE_GRAD1 page's remark).
//   RESAMPLE_GRAD, RESAMPLE_GRAD1: the adjoints of RESAMPLE1 and RESAMPLE2 with the same
//              parameters: dX = 0; for every element o of dY, for every tap t of o:
//              dX[t.index] += t.weight * dY[o]. dY has the forward output's sizes, dX the input's.
//
// Decisions (docs/golden.md, Decisions, recorded as policies in golden files):
//   - x is evaluated in float64 from the float32 Scale and offsets, with a true division
//     (ResampleCoordinate = Float64Division); the old rule's -0.5 is applied in float64.
//   - Forward NEAREST_NEIGHBOR copies the chosen element's bits (NaN payloads, -0, subnormals).
//   - Forward LINEAR and both grads are sums: each term is weight * value in float64 (integer
//     values converted to float64 first), the terms of one element are summed exactly and
//     rounded once to float64, then once to the output type: floats to nearest even; integers
//     half to even, saturated. Every sum starts from +0; a tap of weight exactly 0 is no term;
//     a NaN term, or +inf with -inf, gives the canonical NaN (docs/golden.md, Decisions).
//   - Scales must be finite and > 0, offsets finite; anything else is an error.
//   - Every rank from 1 to 8 and every type is evaluated (DirectML's tables say 1 to 4).
//
// Alternative readings (docs/golden.md; `run --policy`), off by default: ZeroWeightTaps=
// MultiplyAll keeps LINEAR's taps of weight 0 (forward_axis and the loops' `w != 0`);
// Subnormals=FlushAtomicSums flushes the grads' subnormal terms and results (resample_grad);
// OldNearestNeighbor=FloorXPlusHalf takes floor(x + 0.5) for the old rule (forward_axis).
//
// Adjoint by construction: one per-dimension tap table (forward_axis) serves all five
// operators; a grad inverts it per dimension (for each input index, the outputs that read it,
// with the same float64 weights) and gathers, so that every term of the grad is a term of the
// forward operator with the roles of value and weight exchanged.
//
// The terms a conforming backend may add (dmlref/terms.hpp) and the nearest-neighbour boundary
// are in resample_terms.cpp.
#include "resample.hpp"
#include "common.hpp"
#include "fast/resample_sums.hpp"
#include "fast/unit_tap_sums.hpp"
#include "fast/resample_linear.hpp"
#include "fast_sum.hpp"
#include "resample_internal.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace dmlref::reference {

namespace resampling {  // Params, params() and valid() are in resample_internal.hpp

std::string rule(const Params& p, std::string_view id) { return std::string(p.op) + "." + std::string(id); }

// ---- Validation ----------------------------------------------------------------------------

void validate_resample(const Params& p, Diagnostics& diags) {
    require_same_data_type(diags, {p.input, p.output}, rule(p, "same-data-type"));
    for (const Named& t : {p.input, p.output})
        if (t.desc.DimensionCount() != p.count)
            diags.error(desc_path(p.count_field), rule(p, "dimension-count"),
                        std::string(p.count_field) + " is " + std::to_string(p.count) + " but " + std::string(t.name) +
                            " has " + std::to_string(t.desc.DimensionCount()) + " dimensions; " +
                            std::string(p.count_field) + " must equal the DimensionCount of " +
                            join_names({p.input, p.output}));
    if (p.InterpolationMode > DML_INTERPOLATION_MODE_LINEAR)
        diags.error(desc_path("InterpolationMode"), rule(p, "interpolation-mode"),
                    "InterpolationMode is " + std::to_string(p.InterpolationMode) +
                        "; it must be NEAREST_NEIGHBOR (0) or LINEAR (1)");
    if (p.RoundingDirection && *p.RoundingDirection > DML_AXIS_DIRECTION_DECREASING)
        diags.error(desc_path("RoundingDirection"), rule(p, "rounding-direction"),
                    "RoundingDirection is " + std::to_string(*p.RoundingDirection) +
                        "; it must be INCREASING (0) or DECREASING (1)");

    struct Array {
        std::string_view name;
        const std::vector<float>* v;
    };
    const Array arrays[] = {{"Scales", &p.Scales},
                            {"InputPixelOffsets", p.InputPixelOffsets},
                            {"OutputPixelOffsets", p.OutputPixelOffsets}};
    for (const auto& a : arrays) {
        if (!a.v) continue;
        if (a.v->size() != p.count)
            diags.error(desc_path(a.name), rule(p, "array-length"),
                        std::string(a.name) + " has " + std::to_string(a.v->size()) + " entries; it must have " +
                            std::string(p.count_field) + " (" + std::to_string(p.count) + ") entries");
        for (size_t i = 0; i < a.v->size(); ++i) {
            const float v = (*a.v)[i];
            const std::string at = std::string(a.name) + "[" + std::to_string(i) + "] is " +
                                   format_exact_value(DataType::FLOAT32, to_bits(v));
            if (a.name == "Scales" && !(std::isfinite(v) && v > 0))
                diags.error(pointer_append(desc_path(a.name), i), rule(p, "scale-positive"),
                            at + "; a scale must be finite and greater than 0");
            else if (a.name != "Scales" && !std::isfinite(v))
                diags.error(pointer_append(desc_path(a.name), i), rule(p, "offset-finite"),
                            at + "; an offset must be finite");
        }
    }
}

// ---- Taps ----------------------------------------------------------------------------------

// floor or ceil, then clamp to [0, size - 1].
uint32_t nearest_index(double x, bool ceil, uint32_t size) {
    const double r = ceil ? std::ceil(x) : std::floor(x);
    if (!(r > 0)) return 0;
    if (r >= double(size - 1)) return size - 1;
    return uint32_t(r);
}

// The forward taps of dimension i: for each output position, the input elements it reads.
Axis forward_axis(const Params& p, size_t i) {
    const uint32_t in = p.input.desc.Sizes[i], out = p.output.desc.Sizes[i];
    const float Scale = p.Scales[i];
    const float InputPixelOffset = p.InputPixelOffsets ? (*p.InputPixelOffsets)[i] : 0.5f;
    float OutputPixelOffset = p.OutputPixelOffsets ? (*p.OutputPixelOffsets)[i] : -0.5f;
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    // The old nearest-neighbour rule: DECREASING with OutputPixelOffset lowered by 0.5.
    const bool old_rule = nearest && !p.RoundingDirection;
    const bool x_plus_half = old_rule && in_force<"OldNearestNeighbor", "FloorXPlusHalf">();
    const bool ceil = p.RoundingDirection == DML_AXIS_DIRECTION_INCREASING;
    const double opo = double(OutputPixelOffset) - (old_rule && !x_plus_half ? 0.5 : 0.0);
    Axis a;
    a.taps.reserve(size_t(out) * 2);
    a.first.reserve(size_t(out) + 1);
    for (uint32_t o = 0; o < out; ++o) {
        const double x = (double(o) - opo) / double(Scale) - double(InputPixelOffset);
        if (nearest) {
            a.taps.push_back({nearest_index(x_plus_half ? x + 0.5 : x, ceil, in), 1.0});
        } else if (stretched(p, i)) {  // RESAMPLE3's antialiasing filter
            stretched_taps(x, in, double(Scale), [&](uint32_t j, double w) { a.taps.push_back({j, w}); });
        } else {
            const double xc = std::clamp(x, 0.0, double(in - 1));
            const double x0 = std::floor(xc);
            const uint32_t i0 = uint32_t(x0), i1 = std::min(i0 + 1, in - 1);
            const double w1 = xc - x0, w0 = 1 - w1;
            const bool all = in_force<"ZeroWeightTaps", "MultiplyAll">();  // weight 0 too
            if (w0 != 0 || all) a.taps.push_back({i0, w0});
            if (w1 != 0 || all) a.taps.push_back({i1, w1});  // 0 when i1 == i0
        }
        a.first.push_back(uint32_t(a.taps.size()));
    }
    return a;
}

std::vector<Axis> forward_axes(const Params& p) {
    std::vector<Axis> axes;
    for (size_t i = 0; i < p.count; ++i) axes.push_back(forward_axis(p, i));
    return axes;
}

// The same taps seen from the input: for each input index, the output positions that read it
// (increasing) with the same weights.
Axis inverse(const Axis& f, uint32_t in_size) {
    Axis r;
    r.first.assign(size_t(in_size) + 1, 0);
    for (const Tap& t : f.taps) ++r.first[t.index + 1];
    for (uint32_t i = 0; i < in_size; ++i) r.first[i + 1] += r.first[i];
    r.taps.resize(f.taps.size());
    std::vector<uint32_t> fill(r.first.begin(), r.first.end() - 1);
    for (uint32_t o = 0; o + 1 < f.first.size(); ++o)
        for (uint32_t k = f.first[o]; k < f.first[o + 1]; ++k) r.taps[fill[f.taps[k].index]++] = {o, f.taps[k].weight};
    return r;
}

std::vector<Axis> inverse_axes(const Params& p) {
    std::vector<Axis> axes;
    for (size_t i = 0; i < p.count; ++i) axes.push_back(inverse(forward_axis(p, i), p.input.desc.Sizes[i]));
    return axes;
}

// Steps a row-major coordinate within `sizes`; false after the last one.
bool next(Coord& c, const std::vector<uint32_t>& sizes) {
    for (size_t i = sizes.size(); i-- > 0;) {
        if (++c[i] < sizes[i]) return true;
        c[i] = 0;
    }
    return false;
}

int64_t offset_of(const Coord& c, const std::vector<int64_t>& strides) {
    int64_t off = 0;
    for (size_t i = 0; i < strides.size(); ++i) off += int64_t(c[i]) * strides[i];
    return off;
}

// ---- The loops -----------------------------------------------------------------------------

void resample(const Params& p, const Bindings& b) {
    const std::vector<Axis> axes = forward_axes(p);
    const TensorView X(p.input.desc, b.at(p.input.name));
    const TensorView Y(p.output.desc, b.at(p.output.name));
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    const bool all = in_force<"ZeroWeightTaps", "MultiplyAll">();  // 0 x inf = NaN
    dispatch(p.input.desc.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        Coord c{};
        do {
            T& out = y[offset_of(c, Y.strides)];
            if (nearest) {
                for_each_tap(axes, c, X.strides, [&](int64_t offset, double) { out = x[offset]; });  // one tap: a copy
            } else {
                out = exact_sum_of<T>([&](auto&& add) {
                    for_each_tap(axes, c, X.strides, [&](int64_t offset, double w) {
                        if (w != 0 || all) add(w * widen(x[offset]));
                    });
                });
            }
        } while (next(c, Y.sizes()));
    });
}

// The fast paths (reference/fast/resample_linear.hpp, unit_tap_sums.hpp), chosen by the record
// before the loops: the same values, row by row; false where they do not apply.
bool resample_fast(const Params& p, const Bindings& b) {
    const std::vector<Axis> axes = forward_axes(p);
    const TensorView X(p.input.desc, b.at(p.input.name));
    const TensorView Y(p.output.desc, b.at(p.output.name));
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    return dispatch(p.input.desc.DataType, [&]<class T>() { return fast::resample_rows<T>(axes, X, Y, !nearest); });
}

bool resample_grad_fast(const Params& p, const Bindings& b) {
    const std::vector<Axis> axes = inverse_axes(p);
    const TensorView dY(p.output.desc, b.at(p.output.name));
    const TensorView dX(p.input.desc, b.at(p.input.name));
    return dispatch(p.input.desc.DataType, [&]<class T>() {
        return fast::unit_tap_sums<T>(axes, dY, dX) || fast::resample_rows<T>(axes, dY, dX, true);
    });
}

// dX[e] = sum over the dY elements o that read e, of weight(o, e) * dY[o].
void resample_grad(const Params& p, const Bindings& b) {
    const std::vector<Axis> axes = inverse_axes(p);
    const TensorView dY(p.output.desc, b.at(p.output.name));
    const TensorView dX(p.input.desc, b.at(p.input.name));
    const bool all = in_force<"ZeroWeightTaps", "MultiplyAll">();  // 0 x inf = NaN
    const bool flush = in_force<"Subnormals", "FlushAtomicSums">();
    dispatch(p.input.desc.DataType, [&]<class T>() {
        const T* dy = dY.data<T>();
        T* dx = dX.data<T>();
        Coord c{};
        do {
            const T sum = exact_sum_of<T>([&](auto&& add) {
                for_each_tap(axes, c, dY.strides, [&](int64_t offset, double w) {
                    if (w != 0 || all) add(w * widen(flush ? flushed(dy[offset]) : dy[offset]));
                });
            });
            dx[offset_of(c, dX.strides)] = flush ? flushed(sum) : sum;
        } while (next(c, dX.sizes()));
    });
}

// ---- Annotations ---------------------------------------------------------------------------

// The number of terms (non-zero weights) of every element of the forward output (grad ==
// false) or of dX, in logical order.
std::vector<uint32_t> term_counts(const Params& p, bool grad) {
    const std::vector<Axis> axes = grad ? inverse_axes(p) : forward_axes(p);
    const TensorDesc& out = grad ? p.input.desc : p.output.desc;
    const auto strides = packed_strides(grad ? p.output.desc.Sizes : p.input.desc.Sizes);
    std::vector<uint32_t> counts;
    counts.reserve(element_count(out));
    Coord c{};
    do {
        uint32_t n = 0;
        for_each_tap(axes, c, strides, [&](int64_t, double w) { n += w != 0; });
        counts.push_back(n);
    } while (next(c, out.Sizes));
    return counts;
}

std::optional<Tolerance> resample_tolerance(const Params& p, bool grad, std::string_view output) {
    if (output != (grad ? p.input.name : p.output.name)) return std::nullopt;
    Tolerance t;
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    if (nearest && !grad) {
        t.Why =
            "nearest neighbour copies the chosen input element, bit for bit (docs/golden.md, moved and selected values)";
        return t;
    }
    std::vector<uint32_t> counts = term_counts(p, grad);
    const uint32_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
    t.Kind = "Summed";
    t.MaxTerms = most;
    t.Terms = std::move(counts);
    t.Why =
        "elements are exact sums of up to " + std::to_string(most) +
        (nearest ? " gradient terms" : " weighted terms (weights from the float64 coordinate)") +
        ", rounded once (docs/golden.md); Terms gives each element's count. dmlref diff bounds each element from "
        "its own terms, summed in any order in the profile's precision, with the weights and taps of every admitted "
        "coordinate arithmetic (docs/tolerance.md)";
    return t;
}

}  // namespace resampling

using namespace resampling;

// ---- The operators -------------------------------------------------------------------------

void validate(const DML_RESAMPLE_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE1_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE2_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
// RESAMPLE3: RESAMPLE2's rules, and Antialiased a BOOL (.antialiased-bool). TRUE stretches LINEAR's
// filter where 1 / Scale > 2 (forward_axis) and changes nothing elsewhere (the page: "this occurs
// when this flag is set to TRUE, and assuming" LINEAR and 1/Scales > 2).
void validate(const DML_RESAMPLE3_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_resample(params(d), diags);
    if (d.Antialiased > 1)
        diags.error(desc_path("Antialiased"), "resample3.antialiased-bool",
                    "Antialiased is " + std::to_string(d.Antialiased) + "; a BOOL is 0 (FALSE) or 1 (TRUE)");
}
void validate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }

void evaluate(const DML_RESAMPLE_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE1_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE2_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE3_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, const Bindings& b) { resample_grad(params(d), b); }
void evaluate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, const Bindings& b) { resample_grad(params(d), b); }
bool evaluate_fast(const DML_RESAMPLE_OPERATOR_DESC& d, const Bindings& b) { return resample_fast(params(d), b); }
bool evaluate_fast(const DML_RESAMPLE1_OPERATOR_DESC& d, const Bindings& b) { return resample_fast(params(d), b); }
bool evaluate_fast(const DML_RESAMPLE2_OPERATOR_DESC& d, const Bindings& b) { return resample_fast(params(d), b); }
bool evaluate_fast(const DML_RESAMPLE3_OPERATOR_DESC& d, const Bindings& b) { return resample_fast(params(d), b); }
bool evaluate_fast(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    return resample_grad_fast(params(d), b);
}
bool evaluate_fast(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, const Bindings& b) {
    return resample_grad_fast(params(d), b);
}

std::optional<Tolerance> tolerance(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), false, output) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), false, output) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), false, output) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_RESAMPLE3_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), false, output) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), true, output) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), true, output) : std::nullopt;
}

}  // namespace dmlref::reference
