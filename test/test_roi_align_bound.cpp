// The per-element bound of ROI_ALIGN1's OutputTensor (docs/tolerance.md, "ROI align"), judged
// through dmlref diff's census. Accepted: independent float32 and float64 evaluations written in
// this file (coordinates in float32 in four formulas, bilinear products or lerps, the average
// divided or times a reciprocal; MAX). Rejected: a half-pixel-offset reading, a wrong sample count,
// and the first float beyond each element's bound.
#include "support.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/tolerance.hpp"

#include <array>
#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_roi_align_bound {

using namespace dmlref;
using namespace dmlref::test;

namespace {

constexpr uint32_t kC = 2, kH = 12, kW = 12, kOut = 3;

struct Roi {
    uint32_t reduction = DML_REDUCE_FUNCTION_AVERAGE, mode = DML_INTERPOLATION_MODE_LINEAR;
    uint32_t samples = 2, corners = 0;
    float scale = 0.7f, ipo = 0.5f, opo = -0.5f, oob = 0.25f;
    // Regions in float32, not dyadic: float32 coordinates are inexact. The last one reaches
    // past the image (out-of-bounds samples).
    std::vector<std::array<float, 4>> rois = {
        {1.3f, 2.1f, 9.7f, 11.9f}, {0.1f, 0.3f, 5.9f, 4.7f}, {-3.3f, 7.1f, 15.3f, 19.7f}};
};

Operator op_of(const Roi& s) {
    DML_ROI_ALIGN1_OPERATOR_DESC d;
    const uint32_t R = uint32_t(s.rois.size());
    d.InputTensor = desc(DataType::FLOAT32, {1, kC, kH, kW});
    d.ROITensor = desc(DataType::FLOAT32, {R, 4});
    d.BatchIndicesTensor = desc(DataType::UINT32, {R});
    d.OutputTensor = desc(DataType::FLOAT32, {R, kC, kOut, kOut});
    d.ReductionFunction = s.reduction;
    d.InterpolationMode = s.mode;
    d.SpatialScaleX = d.SpatialScaleY = s.scale;
    d.InputPixelOffset = s.ipo;
    d.OutputPixelOffset = s.opo;
    d.OutOfBoundsInputValue = s.oob;
    d.MinimumSamplesPerOutput = d.MaximumSamplesPerOutput = s.samples;
    d.AlignRegionsToCorners = s.corners;
    return {OperatorType::ROI_ALIGN1, d};
}

// Signed multiples of 1/64 in [-4, 4] (averages cancel).
std::vector<float> image(uint32_t seed) {
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> u(-256, 256);
    std::vector<float> x(size_t(kC) * kH * kW);
    for (float& v : x) v = float(u(g)) / 64;
    return x;
}

Case golden_case(const Roi& s, const std::vector<float>& x) {
    Case c;
    c.op = op_of(s);
    const auto& d = get<DML_ROI_ALIGN1_OPERATOR_DESC>(c.op.Desc);
    std::vector<float> roi;
    for (const auto& r : s.rois) roi.insert(roi.end(), r.begin(), r.end());
    c.inputs["InputTensor"] = buffer(d.InputTensor, x);
    c.inputs["ROITensor"] = buffer(d.ROITensor, roi);
    c.inputs["BatchIndicesTensor"] = buffer(d.BatchIndicesTensor, std::vector<uint32_t>(s.rois.size(), 0));
    auto out = run_case(c);
    c.expected["OutputTensor"].values = out.values.at("OutputTensor");
    c.expected["OutputTensor"].tolerance = stated_tolerance(c, "OutputTensor");
    return c;
}

// ---- An independent evaluation: float32 coordinates, arithmetic in F (float or double) ---------

struct Naive {
    int coordinates = 0;  // 0: (x1s + t wS) - ipo, 1: (x1s - ipo) + t wS, 2: (1 - t) x1s + t x2s - ipo, 3: bins
    bool lerp = false;    // a + l (b - a) instead of the four weight products
    bool reciprocal = false;
    bool shifted = false;  // planted: InputPixelOffset read as 0 (a half-pixel-offset reading)
    uint32_t samples = 0;  // planted: another sample count (0: the case's)
};

// Sample s of n along an axis (out * S samples), in float32 as a backend computes it.
float coordinate(const Roi& r, const Naive& n, float lo, float hi, uint32_t o, uint32_t i, uint32_t S) {
    const float ipo = n.shifted ? 0.0f : r.ipo;
    const float x1s = lo * r.scale, x2s = hi * r.scale, w = x2s - x1s;
    const uint32_t total = kOut * S, s = o * S + i;
    const float t = r.corners ? (total == 1 ? 0.5f : (float(s) - r.opo) / float(total - 1))
                              : (float(s) - r.opo) / float(total);
    switch (n.coordinates) {
        case 1: return (x1s - ipo) + t * w;
        case 2: return ((1.0f - t) * x1s + t * x2s) - ipo;
        case 3: {
            const float bin = w / float(kOut);
            return ((x1s - ipo) + float(o) * bin) + (float(i) - r.opo) * bin / float(S);
        }
        default: return (x1s + t * w) - ipo;
    }
}

template <class F> F sample(const Roi& r, const Naive& n, const std::vector<float>& x, uint32_t c, float y, float xx) {
    if (y < -1 || y > float(kH) || xx < -1 || xx > float(kW)) return F(r.oob);
    y = std::clamp(y, 0.0f, float(kH - 1));
    xx = std::clamp(xx, 0.0f, float(kW - 1));
    auto at = [&](int64_t row, int64_t col) { return F(x[size_t((c * kH + uint64_t(row)) * kW + uint64_t(col))]); };
    if (r.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR)
        return at(int64_t(std::ceil(y - 0.5f)) < 0 ? 0 : int64_t(std::ceil(y - 0.5f)),
                  std::max<int64_t>(0, int64_t(std::ceil(xx - 0.5f))));
    const int64_t y0 = std::min<int64_t>(int64_t(std::floor(y)), kH - 1),
                  x0 = std::min<int64_t>(int64_t(std::floor(xx)), kW - 1);
    const int64_t y1 = std::min<int64_t>(y0 + 1, kH - 1), x1 = std::min<int64_t>(x0 + 1, kW - 1);
    const F ly = F(y) - F(y0), lx = F(xx) - F(x0), hy = F(1) - ly, hx = F(1) - lx;
    if (n.lerp) {
        const F top = at(y0, x0) + lx * (at(y0, x1) - at(y0, x0)), bottom = at(y1, x0) + lx * (at(y1, x1) - at(y1, x0));
        return top + ly * (bottom - top);
    }
    return hy * hx * at(y0, x0) + hy * lx * at(y0, x1) + ly * hx * at(y1, x0) + ly * lx * at(y1, x1);
}

template <class F> std::vector<double> naive(const Roi& r, const Naive& n, const std::vector<float>& x) {
    const uint32_t S = n.samples ? n.samples : r.samples;
    std::vector<double> out;
    for (const auto& roi : r.rois)
        for (uint32_t c = 0; c < kC; ++c)
            for (uint32_t oy = 0; oy < kOut; ++oy)
                for (uint32_t ox = 0; ox < kOut; ++ox) {
                    F acc = 0, best = -INFINITY;
                    for (uint32_t iy = 0; iy < S; ++iy)
                        for (uint32_t ix = 0; ix < S; ++ix) {
                            const F v = sample<F>(r, n, x, c, coordinate(r, n, roi[1], roi[3], oy, iy, S),
                                                  coordinate(r, n, roi[0], roi[2], ox, ix, S));
                            acc += v;
                            best = std::max(best, v);
                        }
                    const F count = F(S * S);
                    const F y = r.reduction == DML_REDUCE_FUNCTION_MAX ? best
                                : n.reciprocal                         ? acc * (F(1) / count)
                                                                       : acc / count;
                    out.push_back(double(float(y)));
                }
    return out;
}

OutputCensus judge(const Case& golden, const std::vector<double>& actual) {
    std::vector<float> f(actual.begin(), actual.end());
    return census(golden, "OutputTensor", buffer(desc(DataType::FLOAT32, {uint32_t(f.size())}), f), DiffOptions{});
}

std::vector<double> bounds(const Case& golden) {
    const auto sink = summed_terms(golden, "OutputTensor", ArithmeticProfile{});
    REQUIRE(sink.has_value());
    const auto g = as_values<float>(golden.expected.at("OutputTensor").values);
    std::vector<double> b;
    for (size_t i = 0; i < g.size(); ++i)
        b.push_back(element_bound(sink->elements()[i], DataType::FLOAT32, to_bits(g[i]), ArithmeticProfile{}));
    return b;
}

}  // namespace

TEST_CASE("roi align bound: independent float32 and float64 evaluations are accepted") {
    const auto x = image(5);
    for (uint32_t reduction : {uint32_t(DML_REDUCE_FUNCTION_AVERAGE), uint32_t(DML_REDUCE_FUNCTION_MAX)})
        for (uint32_t mode :
             {uint32_t(DML_INTERPOLATION_MODE_LINEAR), uint32_t(DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR)})
            for (uint32_t corners : {0u, 1u}) {
                Roi r;
                r.reduction = reduction;
                r.mode = mode;
                r.corners = corners;
                if (corners) r.ipo = r.opo = 0;
                const Case golden = golden_case(r, x);
                for (int coordinates = 0; coordinates < (corners ? 3 : 4); ++coordinates)
                    for (bool lerp : {false, true})
                        for (bool reciprocal : {false, true}) {
                            const Naive n{coordinates, lerp, reciprocal};
                            INFO("reduction " << reduction << " mode " << mode << " corners " << corners
                                              << " coordinates " << coordinates << " lerp " << lerp << " reciprocal "
                                              << reciprocal);
                            const OutputCensus f = judge(golden, naive<float>(r, n, x));
                            CHECK(f.bounded);
                            CHECK(f.over == 0);
                            CHECK(judge(golden, naive<double>(r, n, x)).over == 0);
                        }
            }
}

TEST_CASE("roi align bound: planted errors fail, the bound's edge is exact") {
    const auto x = image(9);
    Roi r;
    const Case golden = golden_case(r, x);
    const auto g = as_values<float>(golden.expected.at("OutputTensor").values);
    const auto b = bounds(golden);
    // The bound stays small on these data (values up to 4): every element under 1e-4.
    for (double v : b) CHECK(v < 1e-4);
    // Planted readings: every element they move by more than 1e-3 fails (the bound is < 1e-4).
    auto moved = [&](const std::vector<double>& a) {
        size_t k = 0;
        for (size_t i = 0; i < g.size(); ++i) k += std::fabs(a[i] - double(g[i])) > 1e-3;
        return k;
    };
    for (const Naive& planted :
         {Naive{0, false, false, true, 0}, Naive{0, false, false, false, 1}, Naive{0, false, false, false, 3}}) {
        const auto a = naive<float>(r, planted, x);
        const size_t k = moved(a);
        INFO("shifted " << planted.shifted << " samples " << planted.samples);
        CHECK(k > g.size() / 2);
        CHECK(judge(golden, a).over >= k);
    }
    // One float beyond each element's bound fails, the last float inside passes.
    std::vector<double> a(g.begin(), g.end()), inside_all(g.begin(), g.end());
    size_t beyond = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        // The largest float within b[i] above g[i] (differences of floats are exact in double).
        float inside = float(double(g[i]) + b[i]);
        while (double(inside) - double(g[i]) > b[i]) inside = std::nextafter(inside, -8.0f);
        while (double(std::nextafter(inside, 8.0f)) - double(g[i]) <= b[i]) inside = std::nextafter(inside, 8.0f);
        inside_all[i] = inside;
        if (i % 3 == 0) {
            a[i] = std::nextafter(inside, 8.0f);
            ++beyond;
        }
    }
    CHECK(judge(golden, inside_all).over == 0);
    CHECK(judge(golden, a).over == beyond);
}

}  // namespace dmlref_test_roi_align_bound
