// DML_OPERATOR_ROI_ALIGN, _ROI_ALIGN1 and _ROI_ALIGN_GRAD: validation and the plain loops.
//
// Spec: DML_ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD_OPERATOR_DESC (DirectML API reference: structs,
// tensor roles, forward pseudo-code, gradient, support); rules in docs/rules.md; docs/golden.md,
// "Computed values". Decisions: docs/golden.md, "ROI align" (recorded as policies).
//
//   Region r = ROITensor[r] = [x1, y1, x2, y2], read from image BatchIndicesTensor[r].
//   x1s = x1 * SpatialScaleX, x2s = x2 * SpatialScaleX (y likewise), wS = x2s - x1s (may be 0 or < 0)
//   Sx = clamp(ceil(|wS| / OutW), MinimumSamplesPerOutput, MaximumSamplesPerOutput)     (Sy likewise)
//   sample s in [0, OutW * Sx) of output column ox = s div Sx, at
//       x(s) = x1s + t(s) * wS - InputPixelOffset,   t(s) = (s - OutputPixelOffset) / (OutW * Sx)
//       AlignRegionsToCorners: t(s) = (s - OutputPixelOffset) / (OutW * Sx - 1), or 1/2 when OutW * Sx = 1
//   a sample outside [-1, W] on either axis reads OutOfBoundsInputValue; otherwise its coordinate is
//   clamped to [0, W - 1] and read bilinearly (LINEAR) or from the nearest element, ties to the
//   lower index (NEAREST_NEIGHBOR);
//   AVERAGE: Y = (sum of the Sx * Sy samples) / (Sx * Sy);  MAX: Y = the greatest sample.
//   ROI_ALIGN = ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset -0.5, no corner alignment.
//   ROI_ALIGN_GRAD: OutputGradientTensor is the transpose of the forward map (each dY spread over
//   the taps of its samples, times 1 / (Sx * Sy) or times [the first greatest sample] for MAX;
//   out-of-bounds samples send nothing); OutputROIGradientTensor is the derivative of the forward
//   output with respect to the unscaled ROI coordinates, sample counts held constant.
//
// Every quantity is rational (floats are dyadic): the sums are exact (GMP) and rounded once to
// the output type; MAX compares exact values. No floating-point arithmetic touches a value.
#include "roi_align.hpp"
#include "dmlref/checked.hpp"
#include "fast/roi_align.hpp"
#include "roi_align_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dmlref::reference {

namespace roi {

// ---- Extended values: a rational, or IEEE's NaN and infinities ------------------------------

Value value_of_float(double d) {
    if (d != d) return {Value::NaN, {}};
    if (d == std::numeric_limits<double>::infinity()) return {Value::PositiveInfinity, {}};
    if (d == -std::numeric_limits<double>::infinity()) return {Value::NegativeInfinity, {}};
    return {Value::Finite, mpq_class(d)};
}

bool is_infinite(const Value& v) { return v.kind == Value::PositiveInfinity || v.kind == Value::NegativeInfinity; }

Value scaled(const Value& v, const mpq_class& w) {
    if (v.kind == Value::NaN) return v;
    if (is_infinite(v)) {
        if (sgn(w) == 0) return {Value::NaN, {}};
        const bool positive = (v.kind == Value::PositiveInfinity) == (sgn(w) > 0);
        return {positive ? Value::PositiveInfinity : Value::NegativeInfinity, {}};
    }
    return {Value::Finite, v.value * w};
}

Value product(const Value& a, const Value& b) {
    if (a.kind == Value::Finite) return scaled(b, a.value);
    if (b.kind == Value::Finite) return scaled(a, b.value);
    if (a.kind == Value::NaN || b.kind == Value::NaN) return {Value::NaN, {}};
    return {a.kind == b.kind ? Value::PositiveInfinity : Value::NegativeInfinity, {}};
}

void accumulate(Value& acc, const Value& t) {
    if (acc.kind == Value::NaN) return;
    if (t.kind == Value::NaN) {
        acc = t;
        return;
    }
    if (is_infinite(t)) {
        if (is_infinite(acc) && acc.kind != t.kind) acc = {Value::NaN, {}};
        else acc = t;
        return;
    }
    if (acc.kind == Value::Finite) acc.value += t.value;
}

bool greater(const Value& a, const Value& b) {
    if (a.kind == Value::NaN) return false;  // a NaN sample loses to any number (docs/golden.md, RoiAlignMax)
    if (b.kind == Value::NaN) return true;
    auto rank = [](const Value& v) { return v.kind == Value::NegativeInfinity ? 0 : v.kind == Value::Finite ? 1 : 2; };
    if (rank(a) != rank(b)) return rank(a) > rank(b);
    return a.kind == Value::Finite && a.value > b.value;
}

// ---- Geometry ------------------------------------------------------------------------------

Params params(const DML_ROI_ALIGN_OPERATOR_DESC& d) {
    return {"roi-align",
            &d.InputTensor,
            d.ROITensor,
            d.BatchIndicesTensor,
            "OutputTensor",
            d.OutputTensor,
            nullptr,
            nullptr,
            d.ReductionFunction,
            d.InterpolationMode,
            d.SpatialScaleX,
            d.SpatialScaleY,
            0.5f,
            -0.5f,
            d.OutOfBoundsInputValue,
            d.MinimumSamplesPerOutput,
            d.MaximumSamplesPerOutput,
            0,
            false};
}
Params params(const DML_ROI_ALIGN1_OPERATOR_DESC& d) {
    return {"roi-align1",
            &d.InputTensor,
            d.ROITensor,
            d.BatchIndicesTensor,
            "OutputTensor",
            d.OutputTensor,
            nullptr,
            nullptr,
            d.ReductionFunction,
            d.InterpolationMode,
            d.SpatialScaleX,
            d.SpatialScaleY,
            d.InputPixelOffset,
            d.OutputPixelOffset,
            d.OutOfBoundsInputValue,
            d.MinimumSamplesPerOutput,
            d.MaximumSamplesPerOutput,
            d.AlignRegionsToCorners,
            false};
}
Params params(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d) {
    return {"roi-align-grad",
            d.InputTensor ? &*d.InputTensor : nullptr,
            d.ROITensor,
            d.BatchIndicesTensor,
            "InputGradientTensor",
            d.InputGradientTensor,
            d.OutputGradientTensor ? &*d.OutputGradientTensor : nullptr,
            d.OutputROIGradientTensor ? &*d.OutputROIGradientTensor : nullptr,
            d.ReductionFunction,
            d.InterpolationMode,
            d.SpatialScaleX,
            d.SpatialScaleY,
            d.InputPixelOffset,
            d.OutputPixelOffset,
            0.0f,
            d.MinimumSamplesPerOutput,
            d.MaximumSamplesPerOutput,
            d.AlignRegionsToCorners,
            true};
}

const TensorDesc& image_desc(const Params& p) { return p.input ? *p.input : *p.dx; }
uint64_t region_count(const Params& p) { return p.pooled.Sizes[0]; }

// ROITensor[r][k] and BatchIndicesTensor[r] (leading dimensions have size 1).
template <class T> double roi_coordinate(const Params& p, std::span<const std::byte> roi, uint64_t r, int k) {
    const TensorView v(p.roi, roi);
    const size_t n = p.roi.Sizes.size();
    return widen(v.data<T>()[int64_t(r) * v.strides[n - 2] + k * v.strides[n - 1]]);
}
uint64_t batch_index(const Params& p, std::span<const std::byte> indices, uint64_t r) {
    const TensorView v(p.indices, indices);
    const int64_t off = int64_t(r) * v.strides.back();
    return p.indices.DataType == DataType::UINT64 ? v.data<uint64_t>()[off] : v.data<uint32_t>()[off];
}
double roi_value(const Params& p, std::span<const std::byte> roi, uint64_t r, int k) {
    return p.roi.DataType == DataType::FLOAT16 ? roi_coordinate<half>(p, roi, r, k)
                                               : roi_coordinate<float>(p, roi, r, k);
}

uint64_t sample_count(const mpq_class& size, uint64_t out, uint32_t lo, uint32_t hi) {
    mpz_class need;  // ceil(|size| / out)
    const mpq_class q = abs(size) / mpq_class(static_cast<unsigned long>(out));
    mpz_cdiv_q(need.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
    if (need < lo) return lo;
    if (need > hi) return hi;
    return need.get_ui();
}

// Sample i of output o along one axis: where it falls, and its taps.
AxisSample axis_sample(const Params& p, const Axis& a, uint64_t o, uint64_t i) {
    AxisSample r;
    const uint64_t n = a.out * a.samples, s = o * a.samples + i;
    if (p.corners && n == 1) r.t = mpq_class(1, 2);
    else
        r.t = (mpq_class(static_cast<unsigned long>(s)) - mpq_class(p.opo)) /
              mpq_class(static_cast<unsigned long>(p.corners ? n - 1 : n));
    r.coordinate = a.lo + r.t * (a.hi - a.lo) - mpq_class(p.ipo);
    const mpq_class& x = r.coordinate;
    const int64_t size = a.size;
    if (x < -1 || x > size) {
        r.oob = true;
        return r;
    }
    mpq_class xc = x;
    if (xc < 0) {
        xc = 0;
        r.clamped = true;
    }
    if (xc > size - 1) {
        xc = size - 1;
        r.clamped = true;
    }
    if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        const mpq_class h = xc - mpq_class(1, 2);  // nearest, ties to the lower index: ceil(x - 1/2)
        mpz_class k;
        mpz_cdiv_q(k.get_mpz_t(), h.get_num_mpz_t(), h.get_den_mpz_t());
        r.index[0] = r.index[1] = std::max<int64_t>(0, k.get_si());
        r.weight[0] = 1;
        r.weight[1] = 0;
        return r;
    }
    mpz_class f;
    mpz_fdiv_q(f.get_mpz_t(), xc.get_num_mpz_t(), xc.get_den_mpz_t());
    const int64_t i0 = f.get_si();
    if (i0 >= size - 1) {  // the last element: one tap, no slope
        r.index[0] = r.index[1] = size - 1;
        r.weight[0] = 1;
        r.weight[1] = 0;
        return r;
    }
    const mpq_class l = xc - i0;
    r.index[0] = i0;
    r.index[1] = i0 + 1;
    r.weight[0] = 1 - l;
    r.weight[1] = l;
    r.slope = !r.clamped;
    return r;
}

const AxisSample& cached_sample(const Params& p, const Axis& a, uint64_t o, uint64_t i) {
    if (a.cached_o != o || a.cached_i != i) {
        a.cache = axis_sample(p, a, o, i);
        a.cached_o = o;
        a.cached_i = i;
    }
    return a.cache;
}
const AxisSample& Region::x(uint64_t o, uint64_t i) const { return cached_sample(*p, ax, o, i); }
const AxisSample& Region::y(uint64_t o, uint64_t i) const { return cached_sample(*p, ay, o, i); }

Region region(const Params& p, std::span<const std::byte> roi, std::span<const std::byte> indices, uint64_t r) {
    Region g;
    g.p = &p;
    g.index = r;
    g.batch = batch_index(p, indices, r);
    const TensorDesc& img = image_desc(p);
    g.ax.lo = mpq_class(roi_value(p, roi, r, 0)) * mpq_class(double(p.scale_x));
    g.ay.lo = mpq_class(roi_value(p, roi, r, 1)) * mpq_class(double(p.scale_y));
    g.ax.hi = mpq_class(roi_value(p, roi, r, 2)) * mpq_class(double(p.scale_x));
    g.ay.hi = mpq_class(roi_value(p, roi, r, 3)) * mpq_class(double(p.scale_y));
    g.ax.out = p.pooled.Sizes[3];
    g.ay.out = p.pooled.Sizes[2];
    g.ax.size = img.Sizes[3];
    g.ay.size = img.Sizes[2];
    g.sx = g.ax.samples = sample_count(g.ax.hi - g.ax.lo, g.ax.out, p.min_samples, p.max_samples);
    g.sy = g.ay.samples = sample_count(g.ay.hi - g.ay.lo, g.ay.out, p.min_samples, p.max_samples);
    return g;
}

uint64_t sample_work(const Params& p, std::span<const std::byte> roi, uint64_t r) {
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    const mpq_class x1 = mpq_class(roi_value(p, roi, r, 0)) * mpq_class(double(p.scale_x));
    const mpq_class y1 = mpq_class(roi_value(p, roi, r, 1)) * mpq_class(double(p.scale_y));
    const mpq_class x2 = mpq_class(roi_value(p, roi, r, 2)) * mpq_class(double(p.scale_x));
    const mpq_class y2 = mpq_class(roi_value(p, roi, r, 3)) * mpq_class(double(p.scale_y));
    const uint64_t sx = sample_count(x2 - x1, out_w, p.min_samples, p.max_samples);
    const uint64_t sy = sample_count(y2 - y1, out_h, p.min_samples, p.max_samples);
    return saturating_mul(saturating_mul(saturating_mul(sx, sy), out_h * out_w), p.pooled.Sizes[1]);
}

// The value of one sample: OutOfBoundsInputValue, or the weighted taps of image plane `plane`.
template <class T>
Value sample_value(const Params& p, const AxisSample& ay, const AxisSample& ax, const T* x,
                   const std::vector<int64_t>& strides, int64_t plane) {
    if (ay.oob || ax.oob) return value_of_float(double(p.oob_value));
    Value v{Value::Finite, 0};
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            const mpq_class w = ay.weight[a] * ax.weight[b];
            if (sgn(w) == 0) continue;  // a zero-weight tap is no term (docs/golden.md, ZeroWeightTaps)
            accumulate(
                v, scaled(value_of_float(widen(x[plane + ay.index[a] * strides[2] + ax.index[b] * strides[3]])), w));
        }
    return v;
}

// The sample a MAX output takes (the first greatest in row-major sample order), among the in-bounds
// samples only when `in_bounds_only` (the grad, which has no OutOfBoundsInputValue).
template <class T>
std::pair<uint64_t, uint64_t> max_sample(const Params& p, const Region& g, uint64_t oy, uint64_t ox, const T* x,
                                         const std::vector<int64_t>& strides, int64_t plane, bool in_bounds_only,
                                         Value* best_out) {
    Value best;
    bool have = false;
    std::pair<uint64_t, uint64_t> at{UINT64_MAX, UINT64_MAX};
    for (uint64_t iy = 0; iy < g.sy; ++iy)
        for (uint64_t ix = 0; ix < g.sx; ++ix) {
            const AxisSample& ay = g.y(oy, iy);
            const AxisSample& ax = g.x(ox, ix);
            if (in_bounds_only && (ay.oob || ax.oob)) continue;
            const Value v = sample_value<T>(p, ay, ax, x, strides, plane);
            if (!have || greater(v, best)) {
                best = v;
                at = {iy, ix};
                have = true;
            }
        }
    if (best_out) *best_out = best;
    return at;
}

template <class T> T rounded(const Value& v) {
    switch (v.kind) {
        case Value::NaN: return canonical_nan<T>();
        case Value::PositiveInfinity: return round_to_float<T>(std::numeric_limits<double>::infinity());
        case Value::NegativeInfinity: return round_to_float<T>(-std::numeric_limits<double>::infinity());
        case Value::Finite: break;
    }
    return round_rational<T>(v.value);
}

template <class F> void dispatch_float(DataType t, F&& f) {
    if (t == DataType::FLOAT16) f.template operator()<half>();
    else f.template operator()<float>();
}

// ---- Forward -------------------------------------------------------------------------------

// One output element of plane `plane` of X (image g.batch, one channel): the average or the
// greatest of its samples, exact, rounded once. The fast path (reference/fast/roi_align.cpp) takes
// this for the elements it leaves undecided.
template <class T>
T forward_element(const Params& p, const Region& g, const T* x, const std::vector<int64_t>& strides, int64_t plane,
                  uint64_t oy, uint64_t ox) {
    Value v{Value::Finite, 0};
    if (p.reduction == DML_REDUCE_FUNCTION_MAX) {
        max_sample<T>(p, g, oy, ox, x, strides, plane, false, &v);
    } else {
        for (uint64_t iy = 0; iy < g.sy; ++iy)
            for (uint64_t ix = 0; ix < g.sx; ++ix)
                accumulate(v, sample_value<T>(p, g.y(oy, iy), g.x(ox, ix), x, strides, plane));
        v = scaled(v, mpq_class(1, mpz_class(static_cast<unsigned long>(g.sx)) * static_cast<unsigned long>(g.sy)));
    }
    return rounded<T>(v);
}
template float forward_element<float>(const Params&, const Region&, const float*, const std::vector<int64_t>&, int64_t,
                                      uint64_t, uint64_t);
template half forward_element<half>(const Params&, const Region&, const half*, const std::vector<int64_t>&, int64_t,
                                    uint64_t, uint64_t);

void forward(const Params& p, const Bindings& b) {
    const auto roi = b.at("ROITensor"), indices = b.at("BatchIndicesTensor");
    const TensorView X(*p.input, b.at("InputTensor"));
    const TensorView Y(p.pooled, b.at(p.pooled_name));
    const uint64_t channels = p.pooled.Sizes[1], out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    dispatch_float(p.pooled.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        for (uint64_t r = 0; r < region_count(p); ++r) {
            const Region g = region(p, roi, indices, r);
            if (g.batch >= p.input->Sizes[0])
                throw std::invalid_argument("a batch index is out of range (roi-align rules)");
            for (uint64_t c = 0; c < channels; ++c) {
                const int64_t plane = int64_t(g.batch) * X.strides[0] + int64_t(c) * X.strides[1];
                for (uint64_t oy = 0; oy < out_h; ++oy)
                    for (uint64_t ox = 0; ox < out_w; ++ox)
                        y[int64_t(r) * Y.strides[0] + int64_t(c) * Y.strides[1] + int64_t(oy) * Y.strides[2] +
                          int64_t(ox) * Y.strides[3]] = forward_element<T>(p, g, x, X.strides, plane, oy, ox);
            }
        }
    });
}

// The fast path (reference/fast/roi_align.cpp): FLOAT32 and FLOAT16 outputs in float64 with an
// error bound; the elements it leaves undecided are forward_element. False (the plain loop then
// runs, with its errors) where a region's coordinates are not finite or its batch index is out of
// range.
bool forward_fast(const Params& p, const Bindings& b) {
    const auto roi = b.at("ROITensor"), indices = b.at("BatchIndicesTensor");
    for (uint64_t r = 0; r < region_count(p); ++r) {
        for (int k = 0; k < 4; ++k)
            if (!std::isfinite(roi_value(p, roi, r, k))) return false;
        if (batch_index(p, indices, r) >= p.input->Sizes[0]) return false;
    }
    const TensorView X(*p.input, b.at("InputTensor"));
    const TensorView Y(p.pooled, b.at(p.pooled_name));
    dispatch_float(p.pooled.DataType, [&]<class T>() {
        std::vector<fast::RoiElement> undecided;
        fast::roi_align_decide<T>(p, roi, indices, X, Y, undecided);
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        std::optional<Region> g;
        for (const fast::RoiElement& e : undecided) {
            if (!g || e.r != g->index) g.emplace(region(p, roi, indices, e.r));
            const int64_t plane = int64_t(g->batch) * X.strides[0] + int64_t(e.c) * X.strides[1];
            y[int64_t(e.r) * Y.strides[0] + int64_t(e.c) * Y.strides[1] + int64_t(e.oy) * Y.strides[2] +
              int64_t(e.ox) * Y.strides[3]] = forward_element<T>(p, *g, x, X.strides, plane, e.oy, e.ox);
        }
    });
    return true;
}

// ---- Grad ----------------------------------------------------------------------------------

// The plain loop's terms, one element at a time, for the fast path (reference/fast/roi_align_grad.cpp).
mpq_class grad_weight(const Params& p, const Region& g, const AxisSample& ay, const AxisSample& ax, int64_t ky,
                      int64_t kx) {
    mpq_class w = 0;
    if (ay.oob || ax.oob) return w;  // out-of-bounds samples send nothing
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            if (ay.index[a] == ky && ax.index[b] == kx) w += ay.weight[a] * ax.weight[b];
    if (p.reduction != DML_REDUCE_FUNCTION_MAX)
        w /= mpz_class(static_cast<unsigned long>(g.sx)) * static_cast<unsigned long>(g.sy);
    return w;
}

template <class T> T grad_sum(std::span<const double> dy, std::span<const mpq_class> w) {
    Value v{Value::Finite, 0};
    for (size_t k = 0; k < dy.size(); ++k)
        if (sgn(w[k]) != 0) accumulate(v, scaled(value_of_float(dy[k]), w[k]));  // a zero weight is no term
    return rounded<T>(v);
}
template float grad_sum<float>(std::span<const double>, std::span<const mpq_class>);
template half grad_sum<half>(std::span<const double>, std::span<const mpq_class>);

template <class T>
uint64_t grad_max_sample(const Params& p, const Region& g, const T* x, const std::vector<int64_t>& strides,
                         int64_t plane, uint64_t oy, uint64_t ox) {
    const auto [iy, ix] = max_sample<T>(p, g, oy, ox, x, strides, plane, true, nullptr);
    return iy == UINT64_MAX ? UINT64_MAX : iy * g.sx + ix;
}
template uint64_t grad_max_sample<float>(const Params&, const Region&, const float*, const std::vector<int64_t>&,
                                         int64_t, uint64_t, uint64_t);
template uint64_t grad_max_sample<half>(const Params&, const Region&, const half*, const std::vector<int64_t>&, int64_t,
                                        uint64_t, uint64_t);

// The grad's fast path (reference/fast/roi_align_grad.cpp) for OutputGradientTensor. False (the
// plain loop then runs, with its errors) where OutputROIGradientTensor is bound (the plain loop
// computes both), where OutputGradientTensor is not, where a region's coordinates are not finite or
// its batch index is out of range, or where the path declines the sizes.
bool backward_fast(const Params& p, const Bindings& b) {
    if (!p.dx || p.droi) return false;
    const auto roi = b.at("ROITensor"), indices = b.at("BatchIndicesTensor");
    for (uint64_t r = 0; r < region_count(p); ++r) {
        for (int k = 0; k < 4; ++k)
            if (!std::isfinite(roi_value(p, roi, r, k))) return false;
        if (batch_index(p, indices, r) >= image_desc(p).Sizes[0]) return false;
    }
    const TensorView dY(p.pooled, b.at("InputGradientTensor"));
    const TensorView dX(*p.dx, b.at("OutputGradientTensor"));
    std::optional<TensorView> X;
    if (p.input) X.emplace(*p.input, b.at("InputTensor"));
    bool done = false;
    dispatch_float(p.pooled.DataType,
                   [&]<class T>() { done = fast::roi_align_grad_fast<T>(p, roi, indices, X ? &*X : nullptr, dY, dX); });
    return done;
}

void backward(const Params& p, const Bindings& b) {
    const auto roi = b.at("ROITensor"), indices = b.at("BatchIndicesTensor");
    const TensorView dY(p.pooled, b.at("InputGradientTensor"));
    const TensorDesc& img = image_desc(p);
    const uint64_t batches = img.Sizes[0], channels = img.Sizes[1], height = img.Sizes[2], width = img.Sizes[3];
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    std::vector<Value> dx(p.dx ? size_t(batches * channels * height * width) : 0, Value{Value::Finite, 0});
    std::vector<Value> droi(p.droi ? size_t(region_count(p) * 4) : 0, Value{Value::Finite, 0});
    const bool slopes = p.droi && p.mode == DML_INTERPOLATION_MODE_LINEAR;
    dispatch_float(p.pooled.DataType, [&]<class T>() {
        const T* dy = dY.data<T>();
        std::optional<TensorView> X;
        if (p.input) X.emplace(*p.input, b.at("InputTensor"));
        const T* x = X ? X->data<T>() : nullptr;
        for (uint64_t r = 0; r < region_count(p); ++r) {
            const Region g = region(p, roi, indices, r);
            if (g.batch >= batches) throw std::invalid_argument("a batch index is out of range (roi-align-grad rules)");
            const mpq_class per_sample(1,
                                       mpz_class(static_cast<unsigned long>(g.sx)) * static_cast<unsigned long>(g.sy));
            const mpq_class scale[4] = {mpq_class(double(p.scale_x)), mpq_class(double(p.scale_y)),
                                        mpq_class(double(p.scale_x)), mpq_class(double(p.scale_y))};
            for (uint64_t c = 0; c < channels; ++c) {
                const int64_t plane = X ? int64_t(g.batch) * X->strides[0] + int64_t(c) * X->strides[1] : 0;
                for (uint64_t oy = 0; oy < out_h; ++oy)
                    for (uint64_t ox = 0; ox < out_w; ++ox) {
                        const Value grad = value_of_float(
                            widen(dy[int64_t(r) * dY.strides[0] + int64_t(c) * dY.strides[1] +
                                     int64_t(oy) * dY.strides[2] + int64_t(ox) * dY.strides[3]]));
                        std::pair<uint64_t, uint64_t> chosen{UINT64_MAX, UINT64_MAX};
                        if (p.reduction == DML_REDUCE_FUNCTION_MAX)
                            chosen = max_sample<T>(p, g, oy, ox, x, X->strides, plane, true, nullptr);
                        for (uint64_t iy = 0; iy < g.sy; ++iy)
                            for (uint64_t ix = 0; ix < g.sx; ++ix) {
                                const AxisSample& ay = g.y(oy, iy);
                                const AxisSample& ax = g.x(ox, ix);
                                if (ay.oob || ax.oob) continue;  // out-of-bounds samples send nothing
                                mpq_class share = per_sample;
                                if (p.reduction == DML_REDUCE_FUNCTION_MAX) {
                                    if (chosen != std::pair<uint64_t, uint64_t>{iy, ix}) continue;
                                    share = 1;
                                }
                                for (int a = 0; a < 2 && p.dx; ++a)
                                    for (int bb = 0; bb < 2; ++bb) {
                                        const mpq_class w = ay.weight[a] * ax.weight[bb] * share;
                                        if (sgn(w) == 0) continue;
                                        const size_t at = size_t(
                                            ((g.batch * channels + c) * height + uint64_t(ay.index[a])) * width +
                                            uint64_t(ax.index[bb]));
                                        accumulate(dx[at], scaled(grad, w));
                                    }
                                if (!slopes) continue;
                                // d(sample)/dx and d(sample)/dy: the slopes of the bilinear cell.
                                auto at = [&](int a, int bb) {
                                    return value_of_float(
                                        widen(x[plane + ay.index[a] * X->strides[2] + ax.index[bb] * X->strides[3]]));
                                };
                                auto difference = [&](const Value& hi, const Value& lo) {
                                    Value d = hi;
                                    accumulate(d, scaled(lo, mpq_class(-1)));
                                    return d;
                                };
                                const AxisSample* axes[2] = {&ax, &ay};
                                for (int axis = 0; axis < 2; ++axis) {  // 0: x (ROI 0 and 2), 1: y (ROI 1 and 3)
                                    if (!axes[axis]->slope) continue;
                                    const AxisSample& other = *axes[1 - axis];
                                    Value slope{Value::Finite, 0};
                                    for (int k = 0; k < 2; ++k) {
                                        if (sgn(other.weight[k]) == 0) continue;
                                        const Value d = axis == 0 ? difference(at(k, 1), at(k, 0))
                                                                  : difference(at(1, k), at(0, k));
                                        accumulate(slope, scaled(d, other.weight[k]));
                                    }
                                    const Value gs = product(grad, slope);
                                    const mpq_class& t = axes[axis]->t;
                                    const mpq_class first = share * scale[axis] * (1 - t),
                                                    second = share * scale[axis] * t;
                                    if (sgn(first) != 0) accumulate(droi[size_t(r * 4 + axis)], scaled(gs, first));
                                    if (sgn(second) != 0)
                                        accumulate(droi[size_t(r * 4 + 2 + axis)], scaled(gs, second));
                                }
                            }
                    }
            }
        }
        if (p.dx) {
            const TensorView DX(*p.dx, b.at("OutputGradientTensor"));
            T* out = DX.data<T>();
            size_t i = 0;
            for (uint64_t n = 0; n < batches; ++n)
                for (uint64_t c = 0; c < channels; ++c)
                    for (uint64_t y = 0; y < height; ++y)
                        for (uint64_t xx = 0; xx < width; ++xx)
                            out[int64_t(n) * DX.strides[0] + int64_t(c) * DX.strides[1] + int64_t(y) * DX.strides[2] +
                                int64_t(xx) * DX.strides[3]] = rounded<T>(dx[i++]);
        }
        if (p.droi) {
            const TensorView DR(*p.droi, b.at("OutputROIGradientTensor"));
            T* out = DR.data<T>();
            const size_t n = p.droi->Sizes.size();
            for (uint64_t r = 0; r < region_count(p); ++r)
                for (int k = 0; k < 4; ++k)
                    out[int64_t(r) * DR.strides[n - 2] + k * DR.strides[n - 1]] = rounded<T>(droi[size_t(r * 4 + k)]);
        }
    });
}

}  // namespace roi

// ---- The operators -------------------------------------------------------------------------

void evaluate(const DML_ROI_ALIGN_OPERATOR_DESC& d, const Bindings& b) { roi::forward(roi::params(d), b); }
void evaluate(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const Bindings& b) { roi::forward(roi::params(d), b); }
bool roi_align_fast_path(const DML_ROI_ALIGN_OPERATOR_DESC& d, const Bindings& b) {
    return roi::forward_fast(roi::params(d), b);
}
bool roi_align_fast_path(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const Bindings& b) {
    return roi::forward_fast(roi::params(d), b);
}
void evaluate(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const Bindings& b) { roi::backward(roi::params(d), b); }
bool roi_align_fast_path(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    return roi::backward_fast(roi::params(d), b);
}

}  // namespace dmlref::reference
