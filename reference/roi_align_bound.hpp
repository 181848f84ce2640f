// What ROI align's two bound files share (reference/roi_align_bound.cpp for the forward,
// reference/roi_align_grad_bound.cpp for the grad): a float32 sample coordinate's error, what a
// moved coordinate may read, and a sample's value as a backend evaluates it. Internal to dmlref.
#pragma once

#include "roi_align_internal.hpp"

#include "dmlref/bound.hpp"

#include <cstdint>
#include <vector>

namespace dmlref::reference::roi {

// t of sample i of output o (Out outputs of S samples) as a backend computes it in float32:
// (s - OutputPixelOffset) / n, a division (docs/tolerance.md, "ROI align", assumption 7).
Quantity sample_t(const Params& p, uint64_t out, uint64_t samples, uint64_t o, uint64_t i);

// The error of a backend's float32 sample coordinate: the worst of the formula's association
// variants, the region's coordinates (raw_lo, raw_hi) exact float32 inputs.
double coordinate_error(const Params& p, double raw_lo, double raw_hi, float scale, uint64_t out, uint64_t samples,
                        uint64_t o, uint64_t i);

// One sample position along one axis, and what a coordinate within delta of it may read.
struct AxisRead {
    bool oob = false;  // the exact coordinate is out of bounds
    bool may_in = true, may_out = false;
    bool may_clamp = false;     // the coordinate (moved or exact) may be clamped into [0, size - 1]
    int64_t index[2] = {0, 0};  // the exact taps
    double weight[2] = {1, 0};  // the exact weights (rounded to double)
    int64_t k0 = 0, k1 = 0;     // the elements a moved coordinate may read (in bounds)
    double delta = 0;           // the coordinate error (0: exact, the exact reading)
    double coordinate = 0;      // the exact coordinate, rounded to double
};
AxisRead axis_read(const Params& p, const AxisSample& a, int64_t size, double delta);

// What one sample of one plane contributes: the exact value's range, the box of elements a
// backend may read, and the displacement a moved coordinate may cause.
struct SampleFacts {
    double lo = 0, hi = 0;            // the exact sample value (or OutOfBoundsInputValue)
    bool oob = false, mixed = false;  // exact out of bounds; may read the other way
    double vmin = 0, vmax = 0;        // the box's values (in-bounds reading)
    double displacement = 0;          // |v(x', y') - v(x, y)| within the box
    bool nonfinite = false;
    uint32_t terms = 1;
};
// x: the image in logical order; plane: the offset of the sample's (batch, channel) plane.
SampleFacts sample_facts(const Params& p, const AxisRead& ay, const AxisRead& ax, const std::vector<double>& x,
                         uint64_t plane, uint64_t width);

// A backend's sample in working type A: its exact value's range and its error; `products`
// collects the tap products of an in-bounds linear sample (for the one-sum AVERAGE variant).
Quantity sample_quantity(const Params& p, const Arithmetic& ar, const SampleFacts& f, std::vector<Quantity>* products);

}  // namespace dmlref::reference::roi
