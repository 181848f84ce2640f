// What the ROI align files share (reference/roi_align.cpp, _validate.cpp, _tolerance.cpp): the
// three descs reduced to one Params, a region's sample geometry and extended exact values.
// Internal to dmlref.
#pragma once

#include "common.hpp"
#include "exact_rational.hpp"

#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace dmlref::reference::roi {

// A rational, or NaN / +inf / -inf with IEEE's rules (docs/golden.md, NonFiniteSum).
struct Value {
    enum Kind { Finite, NaN, PositiveInfinity, NegativeInfinity } kind = Finite;
    mpq_class value;
};
Value value_of_float(double d);  // exact
Value scaled(const Value& v, const mpq_class& w);
Value product(const Value& a, const Value& b);
void accumulate(Value& acc, const Value& t);
bool greater(const Value& a, const Value& b);  // NaN loses to any number

// The three descs in one shape. For the grad, `pooled` is InputGradientTensor (the forward
// output's sizes); `input` may be absent there, `dx` and `droi` are the grad's outputs.
struct Params {
    std::string_view op;  // rule prefix: roi-align, roi-align1, roi-align-grad
    const TensorDesc* input;
    const TensorDesc& roi;
    const TensorDesc& indices;
    std::string_view pooled_name;
    const TensorDesc& pooled;
    const TensorDesc* dx;
    const TensorDesc* droi;
    uint32_t reduction, mode;
    float scale_x, scale_y, ipo, opo, oob_value;
    uint32_t min_samples, max_samples, corners;
    bool grad;
};
Params params(const DML_ROI_ALIGN_OPERATOR_DESC& d);
Params params(const DML_ROI_ALIGN1_OPERATOR_DESC& d);
Params params(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d);

const TensorDesc& image_desc(const Params& p);  // InputTensor, or the grad's OutputGradientTensor
uint64_t region_count(const Params& p);

// One sample position along one axis of a region: its coordinate, its fraction t of the way from
// the region's first to its second coordinate, and its taps (two, or one with weight[1] = 0).
struct AxisSample {
    mpq_class t, coordinate;
    bool oob = false;      // outside [-1, size]: reads OutOfBoundsInputValue
    bool clamped = false;  // clamped into [0, size - 1]
    bool slope = false;    // LINEAR between two elements: the value moves with the coordinate
    int64_t index[2] = {0, 0};
    mpq_class weight[2];
};
// One axis of a region. Its Out * S samples are computed when asked for, the last one kept
// (memory O(1): a region may ask for up to 2^32 - 1 samples per output).
struct Axis {
    mpq_class lo, hi;      // the scaled region
    uint64_t out = 1;      // the output size along the axis
    uint64_t samples = 1;  // S
    int64_t size = 1;      // the image size along the axis
    mutable uint64_t cached_o = UINT64_MAX, cached_i = UINT64_MAX;
    mutable AxisSample cache;
};
struct Region {
    const Params* p = nullptr;
    uint64_t index = 0;  // r, the region's row of ROITensor
    uint64_t batch = 0;
    uint64_t sx = 1, sy = 1;  // samples per output along x and y
    Axis ax, ay;
    // Sample i of output o along x or y. A reference stays valid until the next call for the same axis.
    const AxisSample& x(uint64_t o, uint64_t i) const;
    const AxisSample& y(uint64_t o, uint64_t i) const;
};
Region region(const Params& p, std::span<const std::byte> roi, std::span<const std::byte> indices, uint64_t r);
double roi_value(const Params& p, std::span<const std::byte> roi, uint64_t r, int k);  // exact
uint64_t batch_index(const Params& p, std::span<const std::byte> indices, uint64_t r);
// One output element of the forward (ROI_ALIGN, ROI_ALIGN1): plane `plane` of X is the region's
// image and the element's channel; exact, rounded once (the plain loop's element).
template <class T>
T forward_element(const Params& p, const Region& g, const T* x, const std::vector<int64_t>& strides, int64_t plane,
                  uint64_t oy, uint64_t ox);
// Sample i of output o along axis a, exact (what Region::x and Region::y cache).
AxisSample axis_sample(const Params& p, const Axis& a, uint64_t o, uint64_t i);
// ROI_ALIGN_GRAD, for its fast path (reference/fast/roi_align_grad.cpp), as the plain loop
// (roi::backward) computes it. grad_weight: the exact weight with which the sample of region g
// placed at ay and ax (axis_sample) sends its dY to element (ky, kx) of OutputGradientTensor's plane: the sum of
// its taps' weights there times 1 / (Sx * Sy) (AVERAGE) or 1 (MAX, for the chosen sample); 0 for an
// out-of-bounds sample or one with no tap there. grad_sum: the element from its terms, the exact
// sum of dy[k] * w[k] over the terms of non-zero weight (NaN and infinities by IEEE's rules; the
// order does not matter), rounded once. grad_max_sample: the sample iy * Sx + ix that MAX sends
// output (oy, ox) of plane `plane` of InputTensor to (the first greatest in-bounds sample), or
// UINT64_MAX where every sample is out of bounds.
mpq_class grad_weight(const Params& p, const Region& g, const AxisSample& ay, const AxisSample& ax, int64_t ky,
                      int64_t kx);
template <class T> T grad_sum(std::span<const double> dy, std::span<const mpq_class> w);
template <class T>
uint64_t grad_max_sample(const Params& p, const Region& g, const T* x, const std::vector<int64_t>& strides,
                         int64_t plane, uint64_t oy, uint64_t ox);
// Samples read for region r over all its outputs (saturating), for the work limit.
uint64_t sample_work(const Params& p, std::span<const std::byte> roi, uint64_t r);

}  // namespace dmlref::reference::roi
