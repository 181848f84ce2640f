// ROI align test support: building the three descs and their inputs in memory, and the naive
// reading of the page in exact rationals (GMP) rounded by MPFR, written apart from
// reference/roi_align.cpp. Included by test/test_roi_align.cpp only.
#pragma once

#include "mpfr_round.hpp"
#include "support.hpp"

#include <gmpxx.h>
#include <mpfr.h>

#include <array>
#include <optional>
#include <random>

namespace dmlref::test::roi {

using namespace dmlref;

struct Setup {
    DataType type = DataType::FLOAT32;
    uint32_t B = 1, C = 1, H = 4, W = 4, OutH = 1, OutW = 1;
    std::vector<std::array<double, 4>> rois;
    std::vector<uint32_t> batch;
    uint32_t reduction = DML_REDUCE_FUNCTION_AVERAGE, mode = DML_INTERPOLATION_MODE_LINEAR;
    float sx = 1, sy = 1, ipo = 0.5f, opo = -0.5f, oob = 0;
    uint32_t min = 1, max = 1, corners = 0;
    DataType index_type = DataType::UINT32;
};

uint32_t regions(const Setup& s) { return uint32_t(s.rois.size()); }
std::vector<uint32_t> image_sizes(const Setup& s) { return {s.B, s.C, s.H, s.W}; }
std::vector<uint32_t> pooled_sizes(const Setup& s) { return {regions(s), s.C, s.OutH, s.OutW}; }

Operator roi_align1(const Setup& s) {
    DML_ROI_ALIGN1_OPERATOR_DESC d;
    d.InputTensor = desc(s.type, image_sizes(s));
    d.ROITensor = desc(s.type, {regions(s), 4});
    d.BatchIndicesTensor = desc(s.index_type, {regions(s)});
    d.OutputTensor = desc(s.type, pooled_sizes(s));
    d.ReductionFunction = s.reduction;
    d.InterpolationMode = s.mode;
    d.SpatialScaleX = s.sx;
    d.SpatialScaleY = s.sy;
    d.InputPixelOffset = s.ipo;
    d.OutputPixelOffset = s.opo;
    d.OutOfBoundsInputValue = s.oob;
    d.MinimumSamplesPerOutput = s.min;
    d.MaximumSamplesPerOutput = s.max;
    d.AlignRegionsToCorners = s.corners;
    return {OperatorType::ROI_ALIGN1, d};
}

Operator roi_align(const Setup& s) {
    DML_ROI_ALIGN_OPERATOR_DESC d;
    d.InputTensor = desc(s.type, image_sizes(s));
    d.ROITensor = desc(s.type, {regions(s), 4});
    d.BatchIndicesTensor = desc(s.index_type, {regions(s)});
    d.OutputTensor = desc(s.type, pooled_sizes(s));
    d.ReductionFunction = s.reduction;
    d.InterpolationMode = s.mode;
    d.SpatialScaleX = s.sx;
    d.SpatialScaleY = s.sy;
    d.OutOfBoundsInputValue = s.oob;
    d.MinimumSamplesPerOutput = s.min;
    d.MaximumSamplesPerOutput = s.max;
    return {OperatorType::ROI_ALIGN, d};
}

Operator roi_align_grad(const Setup& s, bool dx = true, bool droi = false, bool input = true) {
    DML_ROI_ALIGN_GRAD_OPERATOR_DESC d;
    if (input) d.InputTensor = desc(s.type, image_sizes(s));
    d.InputGradientTensor = desc(s.type, pooled_sizes(s));
    d.ROITensor = desc(s.type, {regions(s), 4});
    d.BatchIndicesTensor = desc(s.index_type, {regions(s)});
    if (dx) d.OutputGradientTensor = desc(s.type, image_sizes(s));
    if (droi) d.OutputROIGradientTensor = desc(s.type, {regions(s), 4});
    d.ReductionFunction = s.reduction;
    d.InterpolationMode = s.mode;
    d.SpatialScaleX = s.sx;
    d.SpatialScaleY = s.sy;
    d.InputPixelOffset = s.ipo;
    d.OutputPixelOffset = s.opo;
    d.MinimumSamplesPerOutput = s.min;
    d.MaximumSamplesPerOutput = s.max;
    d.AlignRegionsToCorners = s.corners;
    return {OperatorType::ROI_ALIGN_GRAD, d};
}

template <class T>
std::vector<std::byte> values_buffer(DataType t, const std::vector<uint32_t>& sizes, const std::vector<double>& v) {
    std::vector<T> typed;
    for (double x : v) typed.push_back(value_of<T>(x));
    return buffer(desc(t, sizes), typed);
}

template <class T>
std::map<std::string, std::vector<std::byte>> inputs(const Setup& s, const std::vector<double>& x,
                                                     const std::vector<double>* dy = nullptr) {
    std::vector<double> roi;
    for (const auto& r : s.rois) roi.insert(roi.end(), r.begin(), r.end());
    std::map<std::string, std::vector<std::byte>> in;
    in["InputTensor"] = values_buffer<T>(s.type, image_sizes(s), x);
    in["ROITensor"] = values_buffer<T>(s.type, {regions(s), 4}, roi);
    if (s.index_type == DataType::UINT64) {
        std::vector<uint64_t> b(s.batch.begin(), s.batch.end());
        in["BatchIndicesTensor"] = buffer(desc(s.index_type, {regions(s)}), b);
    } else {
        in["BatchIndicesTensor"] = buffer(desc(s.index_type, {regions(s)}), s.batch);
    }
    if (dy) in["InputGradientTensor"] = values_buffer<T>(s.type, pooled_sizes(s), *dy);
    return in;
}

template <class T> std::vector<T> forward(const Setup& s, const std::vector<double>& x, bool v0 = false) {
    return as_values<T>(run(v0 ? roi_align(s) : roi_align1(s), inputs<T>(s, x)).at("OutputTensor"));
}
template <class T>
std::map<std::string, std::vector<std::byte>> grads(const Setup& s, const std::vector<double>& x,
                                                    const std::vector<double>& dy, bool dx, bool droi) {
    auto in = inputs<T>(s, x, &dy);
    return run(roi_align_grad(s, dx, droi), in);
}

// ---- The naive reading of the page, in exact rationals ----------------------------------------

// MPFR's rounding of an exact rational to T (nearest-even, the format's range and subnormals).
template <class T> T rounded_by_mpfr(const mpq_class& q) {
    const double d = mpfr_rounded<T>(q);
    return value_of<T>(d == 0 ? 0.0 : d);
}

mpz_class ceil_of(const mpq_class& q) {
    mpz_class r;
    mpz_cdiv_q(r.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
    return r;
}
mpz_class floor_of(const mpq_class& q) {
    mpz_class r;
    mpz_fdiv_q(r.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
    return r;
}

// Planted mistakes, to show the comparison fails on them.
enum class Plant { None, NearestTiesUp, FloorSampleCount, TfOutOfBounds, MaxStartsAtZero };

struct Naive {
    const Setup& s;
    std::vector<mpq_class> x;                   // the image, logical order
    std::vector<std::array<mpq_class, 4>> roi;  // unscaled, exact
    Plant plant = Plant::None;

    mpq_class pixel(uint32_t b, uint32_t c, int64_t y, int64_t xx) const {
        return x[size_t(((uint64_t(b) * s.C + c) * s.H + uint64_t(y)) * s.W + uint64_t(xx))];
    }
    uint64_t samples(const mpq_class& size, uint32_t out) const {
        mpq_class q = size / out;
        if (q < 0) q = -q;
        mpz_class n = plant == Plant::FloorSampleCount ? floor_of(q) : ceil_of(q);
        if (n < s.min) n = s.min;
        if (n > s.max) n = s.max;
        return n.get_ui();
    }
    // The page: x = (s - OutputPixelOffset) * size / N + x1s - InputPixelOffset.
    mpq_class coordinate(const mpq_class& a, const mpq_class& b, uint64_t i, uint64_t n) const {
        const mpq_class size = b - a;
        if (s.corners) {
            if (n == 1) return (a + b) / 2 - mpq_class(s.ipo);
            return (mpq_class(i) - mpq_class(s.opo)) * size / (n - 1) + a - mpq_class(s.ipo);
        }
        return (mpq_class(i) - mpq_class(s.opo)) * size / n + a - mpq_class(s.ipo);
    }
    bool outside(const mpq_class& v, uint32_t size) const {
        if (plant == Plant::TfOutOfBounds) return v < 0 || v > size - 1;
        return v < -1 || v > size;
    }
    // One sample at (yy, xx): nullopt when out of bounds.
    std::optional<mpq_class> sample(uint32_t b, uint32_t c, mpq_class yy, mpq_class xx) const {
        if (outside(yy, s.H) || outside(xx, s.W)) return std::nullopt;
        yy = std::min(std::max(yy, mpq_class(0)), mpq_class(s.H - 1));
        xx = std::min(std::max(xx, mpq_class(0)), mpq_class(s.W - 1));
        if (s.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
            auto nearest = [&](const mpq_class& v) {
                return plant == Plant::NearestTiesUp ? floor_of(v + mpq_class(1, 2)).get_si()
                                                     : ceil_of(v - mpq_class(1, 2)).get_si();
            };
            return pixel(b, c, std::min<int64_t>(nearest(yy), s.H - 1), std::min<int64_t>(nearest(xx), s.W - 1));
        }
        const int64_t y0 = floor_of(yy).get_si(), x0 = floor_of(xx).get_si();
        const int64_t y1 = std::min<int64_t>(y0 + 1, s.H - 1), x1 = std::min<int64_t>(x0 + 1, s.W - 1);
        const mpq_class ly = yy - y0, lx = xx - x0;
        return (1 - ly) * (1 - lx) * pixel(b, c, y0, x0) + (1 - ly) * lx * pixel(b, c, y0, x1) +
               ly * (1 - lx) * pixel(b, c, y1, x0) + ly * lx * pixel(b, c, y1, x1);
    }
    // Output element (r, c, oy, ox), exact; `roi_of` lets the ROI gradient move one coordinate.
    mpq_class element(const std::array<mpq_class, 4>& q, uint32_t r, uint32_t c, uint32_t oy, uint32_t ox,
                      const std::array<mpq_class, 4>* counts_from = nullptr) const {
        const mpq_class x1 = q[0] * mpq_class(s.sx), y1 = q[1] * mpq_class(s.sy), x2 = q[2] * mpq_class(s.sx),
                        y2 = q[3] * mpq_class(s.sy);
        const auto& cq = counts_from ? *counts_from : q;
        const uint64_t nx = samples((cq[2] - cq[0]) * mpq_class(s.sx), s.OutW),
                       ny = samples((cq[3] - cq[1]) * mpq_class(s.sy), s.OutH);
        mpq_class acc = 0, best = 0;
        bool have = plant == Plant::MaxStartsAtZero;
        for (uint64_t iy = 0; iy < ny; ++iy)
            for (uint64_t ix = 0; ix < nx; ++ix) {
                const mpq_class yy = coordinate(y1, y2, oy * ny + iy, s.OutH * ny);
                const mpq_class xx = coordinate(x1, x2, ox * nx + ix, s.OutW * nx);
                const auto v = sample(s.batch[r], c, yy, xx);
                const mpq_class value = v ? *v : mpq_class(s.oob);
                acc += value;
                if (!have || value > best) best = value, have = true;
            }
        return s.reduction == DML_REDUCE_FUNCTION_MAX ? best : acc / (nx * ny);
    }
    std::vector<mpq_class> forward() const {
        std::vector<mpq_class> y;
        for (uint32_t r = 0; r < regions(s); ++r)
            for (uint32_t c = 0; c < s.C; ++c)
                for (uint32_t oy = 0; oy < s.OutH; ++oy)
                    for (uint32_t ox = 0; ox < s.OutW; ++ox) y.push_back(element(roi[r], r, c, oy, ox));
        return y;
    }
    // d/dROI[r][k] of sum(dy * Y), as the exact difference quotient over h > 0: inside a bilinear
    // cell the output is linear in each coordinate, so a small enough h gives the exact
    // right derivative (sample counts from the unmoved region).
    std::vector<mpq_class> roi_gradient(const std::vector<mpq_class>& dy, const mpq_class& h) const {
        std::vector<mpq_class> g;
        for (uint32_t r = 0; r < regions(s); ++r)
            for (int k = 0; k < 4; ++k) {
                auto moved = roi[r];
                moved[k] += h;
                mpq_class sum = 0;
                size_t i = size_t(r) * s.C * s.OutH * s.OutW;
                for (uint32_t c = 0; c < s.C; ++c)
                    for (uint32_t oy = 0; oy < s.OutH; ++oy)
                        for (uint32_t ox = 0; ox < s.OutW; ++ox, ++i)
                            sum += dy[i] * (element(moved, r, c, oy, ox, &roi[r]) - element(roi[r], r, c, oy, ox));
                g.push_back(sum / h);
            }
        return g;
    }
};

template <class T> Naive naive(const Setup& s, const std::vector<double>& x, Plant plant = Plant::None) {
    Naive n{s, {}, {}, plant};
    for (double v : x) n.x.push_back(mpq_class(widen(value_of<T>(v))));
    for (const auto& r : s.rois)
        n.roi.push_back({mpq_class(widen(value_of<T>(r[0]))), mpq_class(widen(value_of<T>(r[1]))),
                         mpq_class(widen(value_of<T>(r[2]))), mpq_class(widen(value_of<T>(r[3])))});
    return n;
}

template <class T> std::vector<T> rounded(const std::vector<mpq_class>& v) {
    std::vector<T> r;
    for (const auto& q : v) r.push_back(rounded_by_mpfr<T>(q));
    return r;
}

template <class T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (to_bits(a[i]) != to_bits(b[i])) return false;
    return true;
}

// A random setup whose regions reach past the image on every side.
Setup random_setup(std::mt19937_64& rng, DataType t) {
    auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Setup s;
    s.type = t;
    s.B = uint32_t(u(1, 2));
    s.C = uint32_t(u(1, 2));
    s.H = uint32_t(u(1, 5));
    s.W = uint32_t(u(1, 5));
    s.OutH = uint32_t(u(1, 3));
    s.OutW = uint32_t(u(1, 3));
    const int n = u(1, 3);
    for (int i = 0; i < n; ++i) {
        auto coord = [&](uint32_t size) {
            return double(u(-12, int(size) * 4 + 12)) / 4 + (u(0, 3) == 0 ? 1.0 / 3 : 0.0);
        };
        s.rois.push_back({coord(s.W), coord(s.H), coord(s.W), coord(s.H)});
        s.batch.push_back(uint32_t(u(0, int(s.B) - 1)));
    }
    s.reduction = u(0, 1) ? DML_REDUCE_FUNCTION_MAX : DML_REDUCE_FUNCTION_AVERAGE;
    s.mode = uint32_t(u(0, 1));
    const float scales[] = {1.0f, 0.5f, 0.75f, 1.0f / 3, 2.0f, -1.0f};
    s.sx = scales[u(0, 5)];
    s.sy = scales[u(0, 5)];
    const float offsets[] = {0.0f, 0.5f, -0.5f, 0.25f};
    s.ipo = offsets[u(0, 3)];
    s.opo = offsets[u(0, 3)];
    s.oob = float(u(-3, 3)) / 2;
    s.min = uint32_t(u(1, 2));
    s.max = s.min + uint32_t(u(0, 2));
    s.corners = uint32_t(u(0, 3) == 0);
    s.index_type = u(0, 1) ? DataType::UINT64 : DataType::UINT32;
    return s;
}

std::vector<double> random_values(std::mt19937_64& rng, uint64_t n, int scale = 1) {
    std::vector<double> v;
    for (uint64_t i = 0; i < n; ++i) v.push_back(double(std::uniform_int_distribution<int>(-64, 64)(rng)) * scale / 8);
    return v;
}

}  // namespace dmlref::test::roi
