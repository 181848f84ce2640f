// What resample.cpp (validation, taps, loops) and resample_terms.cpp (terms, boundary) share. Internal to dmlref.
#pragma once

#include "common.hpp"
#include "resample_taps.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

namespace dmlref::reference::resampling {

using Coord = std::array<uint32_t, kMaxDimensionCount>;

// What the five descs reduce to. For a grad, `input` and `output` are the forward operator's
// (OutputGradientTensor and InputGradientTensor).
struct Params {
    std::string_view op;           // rule prefix: "resample2"
    std::string_view count_field;  // "DimensionCount" or "ScaleCount"
    uint32_t count;
    uint32_t InterpolationMode;
    std::optional<uint32_t> RoundingDirection;  // nullopt: the old nearest-neighbour rule
    const std::vector<float>& Scales;
    const std::vector<float>* InputPixelOffsets;   // null for RESAMPLE: 0.5 each
    const std::vector<float>* OutputPixelOffsets;  // null for RESAMPLE: -0.5 each
    Named input;
    Named output;
    bool antialiased = false;  // RESAMPLE3 with Antialiased TRUE: LINEAR's filter stretched where 1 / Scale > 2
};

inline Params params(const DML_RESAMPLE_OPERATOR_DESC& d) {
    return {"resample",
            "ScaleCount",
            d.ScaleCount,
            d.InterpolationMode,
            std::nullopt,
            d.Scales,
            nullptr,
            nullptr,
            {"InputTensor", d.InputTensor},
            {"OutputTensor", d.OutputTensor}};
}
inline Params params(const DML_RESAMPLE1_OPERATOR_DESC& d) {
    return {"resample1",
            "DimensionCount",
            d.DimensionCount,
            d.InterpolationMode,
            std::nullopt,
            d.Scales,
            &d.InputPixelOffsets,
            &d.OutputPixelOffsets,
            {"InputTensor", d.InputTensor},
            {"OutputTensor", d.OutputTensor}};
}
inline Params params(const DML_RESAMPLE2_OPERATOR_DESC& d) {
    return {"resample2",
            "DimensionCount",
            d.DimensionCount,
            d.InterpolationMode,
            d.RoundingDirection,
            d.Scales,
            &d.InputPixelOffsets,
            &d.OutputPixelOffsets,
            {"InputTensor", d.InputTensor},
            {"OutputTensor", d.OutputTensor}};
}
// RESAMPLE3 is RESAMPLE2 with Antialiased: with LINEAR, a dimension whose 1 / Scale is above 2
// reads the stretched filter (stretched_taps in resample.cpp).
inline Params params(const DML_RESAMPLE3_OPERATOR_DESC& d) {
    return {"resample3",
            "DimensionCount",
            d.DimensionCount,
            d.InterpolationMode,
            d.RoundingDirection,
            d.Scales,
            &d.InputPixelOffsets,
            &d.OutputPixelOffsets,
            {"InputTensor", d.InputTensor},
            {"OutputTensor", d.OutputTensor},
            d.Antialiased == 1 && d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR};
}

// Whether dimension i of a LINEAR resample reads RESAMPLE3's stretched filter: Antialiased TRUE
// and 1 / Scale > 2 exactly (a Scale below 0.5; the page: "assuming" LINEAR "and 1/Scales > 2").
inline bool stretched(const Params& p, size_t i) { return p.antialiased && double(p.Scales[i]) < 0.5; }

// The stretched filter's taps of one output position with input coordinate x along a dimension of
// `in` elements (AntialiasFilter=StretchedTriangle, docs/golden.md): xc = clamp(x, 0, in - 1); for
// every index j in [0, in) with t_j = 1 - |j - xc| * Scale > 0 (a triangle of half-width
// 1 / Scale), the weight t_j / T, T the sum of the t_j in index order, all in float64.
// The stretched triangle at index j around xc: 1 - |j - xc| * Scale, in float64 (not clipped at 0).
inline double stretched_triangle(double j, double xc, double scale) { return 1 - std::fabs(j - xc) * scale; }

template <class F> void stretched_taps(double x, uint32_t in, double scale, F&& tap) {
    const double xc = x < 0 ? 0.0 : x > double(in - 1) ? double(in - 1) : x;
    const double half = 1 / scale;  // > 2: only bounds the indices to look at
    const int64_t lo = int64_t(std::max(0.0, std::floor(xc - half))),
                  hi = int64_t(std::min(double(in - 1), std::ceil(xc + half)));
    double total = 0;
    for (int64_t j = lo; j <= hi; ++j) total += std::max(0.0, stretched_triangle(double(j), xc, scale));
    for (int64_t j = lo; j <= hi; ++j) {
        const double t = stretched_triangle(double(j), xc, scale);
        if (t > 0) tap(uint32_t(j), t / total);
    }
}
inline Params params(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d) {
    return {"resample-grad",
            "DimensionCount",
            d.DimensionCount,
            d.InterpolationMode,
            std::nullopt,
            d.Scales,
            &d.InputPixelOffsets,
            &d.OutputPixelOffsets,
            {"OutputGradientTensor", d.OutputGradientTensor},
            {"InputGradientTensor", d.InputGradientTensor}};
}
inline Params params(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d) {
    return {"resample-grad1",
            "DimensionCount",
            d.DimensionCount,
            d.InterpolationMode,
            d.RoundingDirection,
            d.Scales,
            &d.InputPixelOffsets,
            &d.OutputPixelOffsets,
            {"OutputGradientTensor", d.OutputGradientTensor},
            {"InputGradientTensor", d.InputGradientTensor}};
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

// ---- Taps (resample.cpp) ------------------------------------------------------------------

// floor or ceil, then clamp to [0, size - 1].
uint32_t nearest_index(double x, bool ceil, uint32_t size);

// The forward taps of dimension i: for each output position, the input elements it reads.
Axis forward_axis(const Params& p, size_t i);

// Steps a row-major coordinate within `sizes`; false after the last one.
bool next(Coord& c, const std::vector<uint32_t>& sizes);

std::vector<Axis> forward_axes(const Params& p);

// The same taps seen from the input: for each input index, the output positions that read it
// (increasing) with the same weights.
std::vector<Axis> inverse_axes(const Params& p);

// Calls f(element offset, weight) for every combination of one tap per dimension of position
// c, the weight multiplied in dimension order 0..N-1. `strides` are the element strides of the
// tensor the taps index.
template <class F>
void for_each_tap(const std::vector<Axis>& axes, const Coord& c, const std::vector<int64_t>& strides, F&& f) {
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

}  // namespace dmlref::reference::resampling
