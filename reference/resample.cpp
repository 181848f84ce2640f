// DML_OPERATOR_RESAMPLE, _RESAMPLE1, _RESAMPLE2, _RESAMPLE_GRAD and _RESAMPLE_GRAD1.
//
// Spec: ../shared/seeds/003 (RESAMPLE_GRAD1 page and its example); spec/dml-semantics.md
// section 3.4 (the family), 4 (support), 5 (rules), 9 (open questions); GOLDEN.md sections 4, 5, 7.
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
//   RESAMPLE1, RESAMPLE (and RESAMPLE_GRAD) in NEAREST_NEIGHBOR = RESAMPLE2 with DECREASING "and
//              OutputPixelOffsets adjusted an additional -0.5" (the RESAMPLE_GRAD1 page's remark).
//   RESAMPLE_GRAD, RESAMPLE_GRAD1: the adjoints of RESAMPLE1 and RESAMPLE2 with the same
//              parameters: dX = 0; for every element o of dY, for every tap t of o:
//              dX[t.index] += t.weight * dY[o]. dY has the forward output's sizes, dX the input's.
//
// Decisions (GOLDEN.md section 7, recorded as policies in golden files):
//   - x is evaluated in float64 from the float32 Scale and offsets, with a true division
//     (ResampleCoordinate = Float64Division); the old rule's -0.5 is applied in float64.
//   - Forward NEAREST_NEIGHBOR copies the chosen element's bits (NaN payloads, -0, subnormals).
//   - Forward LINEAR and both grads are sums: each term is weight * value in float64 (integer
//     values converted to float64 first), the terms of one element are summed exactly and
//     rounded once to float64, then once to the output type: floats to nearest even; integers
//     half to even, saturated. Every sum starts from +0; a tap of weight exactly 0 is no term;
//     a NaN term, or +inf with -inf, gives the canonical NaN (GOLDEN.md section 4).
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
#include "common.hpp"
#include "fast/resample_sums.hpp"
#include "fast/switch.hpp"
#include "fast_sum.hpp"
#include "resample_taps.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace dmlref::reference {

namespace {

using Coord = std::array<uint32_t, kMaxDimensionCount>;

// What the five descs reduce to. For a grad, `input` and `output` are the forward operator's
// (OutputGradientTensor and InputGradientTensor).
struct Params {
    std::string_view op;                          // rule prefix: "resample2"
    std::string_view count_field;                 // "DimensionCount" or "ScaleCount"
    uint32_t count;
    uint32_t InterpolationMode;
    std::optional<uint32_t> RoundingDirection;    // nullopt: the old nearest-neighbour rule
    const std::vector<float>& Scales;
    const std::vector<float>* InputPixelOffsets;  // null for RESAMPLE: 0.5 each
    const std::vector<float>* OutputPixelOffsets; // null for RESAMPLE: -0.5 each
    Named input;
    Named output;
};

Params params(const DML_RESAMPLE_OPERATOR_DESC& d) {
    return {"resample", "ScaleCount", d.ScaleCount, d.InterpolationMode, std::nullopt, d.Scales, nullptr, nullptr,
            {"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
}
Params params(const DML_RESAMPLE1_OPERATOR_DESC& d) {
    return {"resample1", "DimensionCount", d.DimensionCount, d.InterpolationMode, std::nullopt, d.Scales,
            &d.InputPixelOffsets, &d.OutputPixelOffsets, {"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
}
Params params(const DML_RESAMPLE2_OPERATOR_DESC& d) {
    return {"resample2", "DimensionCount", d.DimensionCount, d.InterpolationMode, d.RoundingDirection, d.Scales,
            &d.InputPixelOffsets, &d.OutputPixelOffsets, {"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}};
}
Params params(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d) {
    return {"resample-grad", "DimensionCount", d.DimensionCount, d.InterpolationMode, std::nullopt, d.Scales,
            &d.InputPixelOffsets, &d.OutputPixelOffsets, {"OutputGradientTensor", d.OutputGradientTensor},
            {"InputGradientTensor", d.InputGradientTensor}};
}
Params params(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d) {
    return {"resample-grad1", "DimensionCount", d.DimensionCount, d.InterpolationMode, d.RoundingDirection, d.Scales,
            &d.InputPixelOffsets, &d.OutputPixelOffsets, {"OutputGradientTensor", d.OutputGradientTensor},
            {"InputGradientTensor", d.InputGradientTensor}};
}

std::string rule(const Params& p, std::string_view id) { return std::string(p.op) + "." + std::string(id); }

// ---- Validation ----------------------------------------------------------------------------

void validate_resample(const Params& p, Diagnostics& diags) {
    require_same_data_type(diags, {p.input, p.output}, rule(p, "same-data-type"));
    for (const Named& t : {p.input, p.output})
        if (t.desc.DimensionCount() != p.count)
            diags.error(desc_path(p.count_field), rule(p, "dimension-count"),
                        std::string(p.count_field) + " is " + std::to_string(p.count) + " but " + std::string(t.name) +
                        " has " + std::to_string(t.desc.DimensionCount()) + " dimensions; " + std::string(p.count_field) +
                        " must equal the DimensionCount of " + join_names({p.input, p.output}));
    if (p.InterpolationMode > DML_INTERPOLATION_MODE_LINEAR)
        diags.error(desc_path("InterpolationMode"), rule(p, "interpolation-mode"),
                    "InterpolationMode is " + std::to_string(p.InterpolationMode) +
                    "; it must be NEAREST_NEIGHBOR (0) or LINEAR (1)");
    if (p.RoundingDirection && *p.RoundingDirection > DML_AXIS_DIRECTION_DECREASING)
        diags.error(desc_path("RoundingDirection"), rule(p, "rounding-direction"),
                    "RoundingDirection is " + std::to_string(*p.RoundingDirection) +
                    "; it must be INCREASING (0) or DECREASING (1)");

    struct Array { std::string_view name; const std::vector<float>* v; };
    const Array arrays[] = {{"Scales", &p.Scales}, {"InputPixelOffsets", p.InputPixelOffsets},
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
                diags.error(pointer_append(desc_path(a.name), i), rule(p, "offset-finite"), at + "; an offset must be finite");
        }
    }
}

// The annotations need a desc whose own rules and tensor ranks and sizes hold.
template <class D> bool valid(const D& d) {
    Diagnostics diags;
    validate(d, diags);
    const Params p = params(d);
    bool shapes = p.count <= kMaxDimensionCount;
    for (const Named& t : {p.input, p.output})
        for (uint32_t s : t.desc.Sizes) shapes = shapes && s >= 1;
    return !diags.has_errors() && shapes;
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
    const bool x_plus_half = old_rule && in_force(Reading::OldNearestFloorXPlusHalf);  // OldNearestNeighbor=FloorXPlusHalf
    const bool ceil = p.RoundingDirection == DML_AXIS_DIRECTION_INCREASING;
    const double opo = double(OutputPixelOffset) - (old_rule && !x_plus_half ? 0.5 : 0.0);
    Axis a;
    a.taps.reserve(size_t(out) * 2);
    a.first.reserve(size_t(out) + 1);
    for (uint32_t o = 0; o < out; ++o) {
        const double x = (double(o) - opo) / double(Scale) - double(InputPixelOffset);
        if (nearest) {
            a.taps.push_back({nearest_index(x_plus_half ? x + 0.5 : x, ceil, in), 1.0});
        } else {
            const double xc = std::clamp(x, 0.0, double(in - 1));
            const double x0 = std::floor(xc);
            const uint32_t i0 = uint32_t(x0), i1 = std::min(i0 + 1, in - 1);
            const double w1 = xc - x0, w0 = 1 - w1;
            const bool all = in_force(Reading::ZeroWeightTapsMultiplyAll);  // ZeroWeightTaps=MultiplyAll: weight 0 too
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

// Calls f(element offset, weight) for every combination of one tap per dimension of position
// c, the weight multiplied in dimension order 0..N-1. `strides` are the element strides of the
// tensor the taps index.
template <class F> void for_each_tap(const std::vector<Axis>& axes, const Coord& c, const std::vector<int64_t>& strides, F&& f) {
    const size_t n = axes.size();
    Coord k{};
    for (size_t i = 0; i < n; ++i) {
        k[i] = axes[i].first[c[i]];
        if (k[i] == axes[i].first[c[i] + 1]) return;  // nothing reads (or is read by) this position
    }
    for (;;) {
        double weight = 1.0;
        int64_t offset = 0;
        for (size_t i = 0; i < n; ++i) {
            const Tap& t = axes[i].taps[k[i]];
            weight *= t.weight;
            offset += int64_t(t.index) * strides[i];
        }
        f(offset, weight);
        size_t i = n;
        for (;;) {
            if (i == 0) return;
            --i;
            if (++k[i] < axes[i].first[c[i] + 1]) break;
            k[i] = axes[i].first[c[i]];
        }
    }
}

// ---- The loops -----------------------------------------------------------------------------

void resample(const Params& p, const Bindings& b) {
    const std::vector<Axis> axes = forward_axes(p);
    const TensorView X(p.input.desc, b.at(p.input.name));
    const TensorView Y(p.output.desc, b.at(p.output.name));
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    const bool all = in_force(Reading::ZeroWeightTapsMultiplyAll);  // ZeroWeightTaps=MultiplyAll: 0 x inf = NaN
    dispatch(p.input.desc.DataType, [&]<class T>() {
        if (fast_paths_enabled() && fast::resample_rows<T>(axes, X, Y, !nearest)) return;  // the same values, row by row
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        Coord c{};
        do {
            T& out = y[offset_of(c, Y.strides)];
            if (nearest) {
                for_each_tap(axes, c, X.strides, [&](int64_t offset, double) { out = x[offset]; });  // one tap: a copy
            } else {
                out = exact_sum_of<T>([&](auto&& add) {
                    for_each_tap(axes, c, X.strides, [&](int64_t offset, double w) { if (w != 0 || all) add(w * widen(x[offset])); });
                });
            }
        } while (next(c, Y.sizes()));
    });
}

// dX[e] = sum over the dY elements o that read e, of weight(o, e) * dY[o].
void resample_grad(const Params& p, const Bindings& b) {
    const std::vector<Axis> axes = inverse_axes(p);
    const TensorView dY(p.output.desc, b.at(p.output.name));
    const TensorView dX(p.input.desc, b.at(p.input.name));
    const bool all = in_force(Reading::ZeroWeightTapsMultiplyAll);    // ZeroWeightTaps=MultiplyAll: 0 x inf = NaN
    const bool flush = in_force(Reading::SubnormalsFlushAtomicSums);  // Subnormals=FlushAtomicSums
    dispatch(p.input.desc.DataType, [&]<class T>() {
        if (fast_paths_enabled() && fast::resample_rows<T>(axes, dY, dX, true)) return;  // the same values, row by row
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

// ---- Terms under a coordinate arithmetic (dmlref/terms.hpp, docs/tolerance.md) ---------------

// One position's taps as a conforming backend may form them: the golden's weight (0 for a ghost
// tap only other arithmetic adds), the most another admitted formula's weight differs from it,
// and whether the tap is an admissible reading (nearest neighbour: it may go to either index).
struct ProfileTap {
    uint32_t index;
    double weight;
    double delta;
    bool ambiguous;
    bool split;  // a ghost product of weight 0 (a clamped edge a backend splits into two taps)
};
struct ProfileAxis {
    std::vector<ProfileTap> taps;
    std::vector<uint32_t> first{0};
};

// The coordinate of output position o under one formula (Coordinates in dmlref/bound.hpp).
// opo is the OutputPixelOffset with the old nearest-neighbour rule's -0.5 already applied.
std::vector<double> formula_coordinates(Coordinates f, uint32_t o, float Scale, float ipo, float opo) {
    const double x64 = (double(o) - double(opo)) / double(Scale) - double(ipo);
    const float a = float(o) - opo;
    const float r1 = 1.0f / Scale, r2 = float(1.0 / double(Scale));
    std::vector<double> xs;
    if (f == Coordinates::Any || f == Coordinates::Float64) xs.push_back(x64);
    if (f == Coordinates::Any || f == Coordinates::Float32Division) xs.push_back(double(a / Scale - ipo));
    if (f == Coordinates::Any || f == Coordinates::Float32Reciprocal) {
        xs.push_back(double(a * r1 - ipo));
        xs.push_back(double(a * r2 - ipo));
    }
    if (f == Coordinates::Any || f == Coordinates::Float32ReciprocalFma) {
        xs.push_back(double(std::fmaf(a, r1, -ipo)));
        xs.push_back(double(std::fmaf(a, r2, -ipo)));
    }
    return xs;
}

ProfileAxis profile_axis(const Params& p, size_t i, Coordinates f) {
    const uint32_t in = p.input.desc.Sizes[i], out = p.output.desc.Sizes[i];
    const float Scale = p.Scales[i];
    const float ipo = p.InputPixelOffsets ? (*p.InputPixelOffsets)[i] : 0.5f;
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    const bool old_rule = nearest && !p.RoundingDirection;
    const bool ceil = p.RoundingDirection == DML_AXIS_DIRECTION_INCREASING;
    const float opo = (p.OutputPixelOffsets ? (*p.OutputPixelOffsets)[i] : -0.5f) - (old_rule ? 0.5f : 0.0f);
    // w0 = 1 - w1 rounds once in float32 (exactly in float64).
    const double weight_rounding = f == Coordinates::Float64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    const Axis golden = forward_axis(p, i);
    ProfileAxis a;
    for (uint32_t o = 0; o < out; ++o) {
        const std::vector<double> xs = formula_coordinates(f, o, Scale, ipo, opo);
        const double x = (double(o) - double(opo)) / double(Scale) - double(ipo);
        double eps = 0;
        for (double y : xs) eps = std::max(eps, std::fabs(y - x));
        auto golden_weight = [&](uint32_t j) {
            double w = 0;
            for (uint32_t k = golden.first[o]; k < golden.first[o + 1]; ++k)
                if (golden.taps[k].index == j) w += golden.taps[k].weight;
            return w;
        };
        const double lo = x - eps, hi = x + eps;
        if (nearest) {
            const uint32_t j_lo = nearest_index(lo, ceil, in), j_hi = nearest_index(hi, ceil, in);
            const uint32_t j64 = golden.taps[golden.first[o]].index;
            const bool amb = j_lo != j_hi;
            for (uint32_t j = j_lo; j <= j_hi; ++j)
                a.taps.push_back({j, j == j64 ? 1.0 : 0.0, amb ? 1.0 : 0.0, amb, false});
        } else {
            const double top = double(in - 1);
            const double clo = std::clamp(lo, 0.0, top), chi = std::clamp(hi, 0.0, top);
            const uint32_t j0 = uint32_t(std::floor(clo)), j1 = std::min(uint32_t(std::floor(chi)) + 1, in - 1);
            for (uint32_t j = j0; j <= j1; ++j) {
                const double w = golden_weight(j);
                // The hat function of index j is non-zero somewhere on [clo, chi]?
                const bool reached = clo < double(j) + 1 && chi > double(j) - 1;
                if (w == 0 && !reached) continue;
                a.taps.push_back({j, w, eps + weight_rounding, false, false});
            }
            // A coordinate past an edge: a backend may split the edge element's weight 1 into
            // two taps on it (w0 and w1 on index In - 1, or 1 and 0 on index 0).
            if (hi > top || lo < 0) a.taps.push_back({hi > top ? in - 1 : 0, 0.0, 0.0, false, true});
        }
        a.first.push_back(uint32_t(a.taps.size()));
    }
    return a;
}

// Calls f(flat forward-output index, flat forward-input index, weight, delta, ambiguous, split)
// for every combination of one tap per dimension of every forward output position.
template <class F> void for_each_profile_term(const Params& p, Coordinates coordinates, F&& f) {
    std::vector<ProfileAxis> axes;
    for (size_t i = 0; i < p.count; ++i) axes.push_back(profile_axis(p, i, coordinates));
    const bool linear = p.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
    const auto in_packed = packed_strides(p.input.desc.Sizes);
    const size_t n = axes.size();
    Coord c{};
    uint64_t out_index = 0;
    do {
        Coord k{};
        bool empty = false;
        for (size_t i = 0; i < n; ++i) {
            k[i] = axes[i].first[c[i]];
            empty = empty || k[i] == axes[i].first[c[i] + 1];
        }
        while (!empty) {
            double weight = 1, delta = 0;
            bool ambiguous = false, split = false;
            int64_t in_index = 0;
            for (size_t i = 0; i < n; ++i) {
                const ProfileTap& t = axes[i].taps[k[i]];
                weight *= t.weight;  // exact: products of float64 weights in [0, 1] as the evaluate loop forms them
                delta += t.delta;    // |product of w' - product of w| <= sum of |w' - w| for weights in [0, 1]
                ambiguous = ambiguous || t.ambiguous;
                split = split || t.split;
                in_index += int64_t(t.index) * in_packed[i];
            }
            // A backend multiplies its axis weights in float32: one rounding per extra axis.
            if (linear && n > 1) delta += double(n - 1) * std::ldexp(1.0, -24);
            f(out_index, uint64_t(in_index), split ? 0.0 : weight, split ? 0.0 : delta, ambiguous, split);
            size_t i = n;
            for (;;) {
                if (i == 0) { empty = true; break; }
                --i;
                if (++k[i] < axes[i].first[c[i] + 1]) break;
                k[i] = axes[i].first[c[i]];
            }
        }
        ++out_index;
    } while (next(c, p.output.desc.Sizes));
}

// ---- Annotations ---------------------------------------------------------------------------

constexpr std::string_view kBoundaryReason =
    "NearestNeighborRounding: the coordinate is within the coordinate arithmetic's error bound of an integer, so a "
    "conforming backend may pick either input element (an admissible reading; docs/tolerance.md, docs/golden.md)";

// Nearest neighbour: forward output elements (grad == false) with a dimension whose coordinate
// an admitted formula (Coordinates::Any) may round to another index; for a grad, the dX
// elements such a dY element may send its gradient to.
Boundary nearest_boundary(const Params& p, bool grad) {
    Boundary r;
    if (p.InterpolationMode != DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) return r;
    std::vector<bool> flagged(grad ? element_count(p.input.desc) : element_count(p.output.desc));
    for_each_profile_term(p, Coordinates::Any, [&](uint64_t o, uint64_t in, double, double, bool ambiguous, bool) {
        if (ambiguous) flagged[grad ? in : o] = true;
    });
    for (size_t e = 0; e < flagged.size(); ++e)
        if (flagged[e]) r.Indices.push_back(e);
    if (!r.Indices.empty()) r.Reason = std::string(kBoundaryReason);
    return r;
}

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
        t.Why = "nearest neighbour copies the chosen input element, bit for bit (docs/golden.md, moved and selected values)";
        return t;
    }
    std::vector<uint32_t> counts = term_counts(p, grad);
    const uint32_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
    t.Kind = "Summed";
    t.MaxTerms = most;
    t.Terms = std::move(counts);
    t.Why = "elements are exact sums of up to " + std::to_string(most) +
            (nearest ? " gradient terms" : " weighted terms (weights from the float64 coordinate)") +
            ", rounded once (docs/golden.md); Terms gives each element's count. dmlref diff bounds each element from "
            "its own terms, summed in any order in the profile's precision, with the weights and taps of every admitted "
            "coordinate arithmetic (docs/tolerance.md)";
    return t;
}

}  // namespace

// ---- The operators -------------------------------------------------------------------------

void validate(const DML_RESAMPLE_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE1_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE2_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }
void validate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, Diagnostics& diags) { validate_resample(params(d), diags); }

void evaluate(const DML_RESAMPLE_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE1_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE2_OPERATOR_DESC& d, const Bindings& b) { resample(params(d), b); }
void evaluate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, const Bindings& b) { resample_grad(params(d), b); }
void evaluate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, const Bindings& b) { resample_grad(params(d), b); }

Boundary boundary(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d) ? nearest_boundary(params(d), false) : Boundary{};
}
Boundary boundary(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d) ? nearest_boundary(params(d), false) : Boundary{};
}
Boundary boundary(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d) ? nearest_boundary(params(d), false) : Boundary{};
}
Boundary boundary(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputGradientTensor" && valid(d) ? nearest_boundary(params(d), true) : Boundary{};
}
Boundary boundary(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputGradientTensor" && valid(d) ? nearest_boundary(params(d), true) : Boundary{};
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
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), true, output) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output) {
    return valid(d) ? resample_tolerance(params(d), true, output) : std::nullopt;
}

}  // namespace dmlref::reference

namespace dmlref {

void resample_terms(const Operator& op, std::span<const std::byte> values, Coordinates coordinates, TermSink& sink) {
    using namespace reference;
    std::visit([&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        constexpr bool grad = std::is_same_v<D, DML_RESAMPLE_GRAD_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE_GRAD1_OPERATOR_DESC>;
        if constexpr (std::is_same_v<D, DML_RESAMPLE_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE1_OPERATOR_DESC> ||
                      std::is_same_v<D, DML_RESAMPLE2_OPERATOR_DESC> || grad) {
            if (!valid(d)) throw std::invalid_argument("resample_terms: the desc does not validate");
            const Params p = params(d);
            // Forward: the terms read InputTensor; grad: they read dY (the forward output's shape).
            const TensorDesc& vd = grad ? p.output.desc : p.input.desc;
            if (values.size() < buffer_size(vd)) throw std::invalid_argument("resample_terms: the buffer is too small");
            const bool linear = p.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
            dispatch(vd.DataType, [&]<class T>() {
                if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
                    const std::vector<std::byte> bytes = gather_logical(vd, values);
                    const T* v = reinterpret_cast<const T*>(bytes.data());
                    // A grad's ambiguous term lands in one of its candidate elements: link them
                    // (consecutive calls for one dY element o), so that their total is checked.
                    uint64_t last_o = ~uint64_t(0), last_in = 0;
                    for_each_profile_term(p, coordinates, [&](uint64_t o, uint64_t in, double w, double delta, bool ambiguous, bool split) {
                        if (grad) sink.add(in, widen(v[o]), w, delta, linear || split, ambiguous);
                        else sink.add(o, widen(v[in]), w, delta, linear || split, ambiguous);
                        if (grad && ambiguous && o == last_o) sink.link(last_in, in);
                        if (ambiguous) { last_o = o; last_in = in; }
                    });
                } else {
                    throw std::invalid_argument("resample_terms: float types only");
                }
            });
        } else {
            throw std::invalid_argument("resample_terms: not a resample operator");
        }
    }, op.Desc);
}

}  // namespace dmlref

