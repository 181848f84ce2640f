// The per-element bound of ROI_ALIGN_GRAD's OutputGradientTensor and OutputROIGradientTensor
// (docs/tolerance.md, "ROI align", "The grad"), judged through dmlref diff's census. Accepted:
// independent float32 and float64 backends written in this file (float32 coordinates in three
// formulas; dX by weight products; dROI as autograd forms it, term by term, or factored through
// (1 - t) and the slope). Rejected: a half-pixel-offset reading, a wrong sample count, a missing
// 1 / (Sx * Sy), dY sent to the least sample for MAX, and the first float beyond a bound.
#include "support.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/tolerance.hpp"

#include <array>
#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_roi_align_grad_bound {

using namespace dmlref;
using namespace dmlref::test;

namespace {

constexpr uint32_t kC = 2, kH = 10, kW = 10, kOut = 3;

struct Setup {
    uint32_t reduction = DML_REDUCE_FUNCTION_AVERAGE, mode = DML_INTERPOLATION_MODE_LINEAR;
    uint32_t samples = 2, corners = 0;
    float scale = 0.7f, ipo = 0.5f, opo = -0.5f;
    // Regions in float32, not dyadic (float32 coordinates are inexact); the last reaches past the image.
    std::vector<std::array<float, 4>> rois = {
        {1.3f, 2.1f, 9.7f, 11.3f}, {0.1f, 0.3f, 5.9f, 4.7f}, {-3.3f, 6.1f, 13.3f, 16.7f}};
};

Operator op_of(const Setup& s) {
    DML_ROI_ALIGN_GRAD_OPERATOR_DESC d;
    const uint32_t R = uint32_t(s.rois.size());
    d.InputTensor = desc(DataType::FLOAT32, {1, kC, kH, kW});
    d.InputGradientTensor = desc(DataType::FLOAT32, {R, kC, kOut, kOut});
    d.ROITensor = desc(DataType::FLOAT32, {R, 4});
    d.BatchIndicesTensor = desc(DataType::UINT32, {R});
    d.OutputGradientTensor = desc(DataType::FLOAT32, {1, kC, kH, kW});
    d.OutputROIGradientTensor = desc(DataType::FLOAT32, {R, 4});
    d.ReductionFunction = s.reduction;
    d.InterpolationMode = s.mode;
    d.SpatialScaleX = d.SpatialScaleY = s.scale;
    d.InputPixelOffset = s.ipo;
    d.OutputPixelOffset = s.opo;
    d.MinimumSamplesPerOutput = d.MaximumSamplesPerOutput = s.samples;
    d.AlignRegionsToCorners = s.corners;
    return {OperatorType::ROI_ALIGN_GRAD, d};
}

// Signed multiples of 1/64 in [-4, 4]: sums cancel.
std::vector<float> values(uint32_t seed, size_t n) {
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> u(-256, 256);
    std::vector<float> x(n);
    for (float& v : x) v = float(u(g)) / 64;
    return x;
}

Case golden_case(const Setup& s, const std::vector<float>& x, const std::vector<float>& dy) {
    Case c;
    c.op = op_of(s);
    const auto& d = get<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(c.op.Desc);
    std::vector<float> roi;
    for (const auto& r : s.rois) roi.insert(roi.end(), r.begin(), r.end());
    c.inputs["InputTensor"] = buffer(*d.InputTensor, x);
    c.inputs["InputGradientTensor"] = buffer(d.InputGradientTensor, dy);
    c.inputs["ROITensor"] = buffer(d.ROITensor, roi);
    c.inputs["BatchIndicesTensor"] = buffer(d.BatchIndicesTensor, std::vector<uint32_t>(s.rois.size(), 0));
    auto out = run_case(c);
    for (const char* o : {"OutputGradientTensor", "OutputROIGradientTensor"}) {
        c.expected[o].values = out.values.at(o);
        c.expected[o].tolerance = stated_tolerance(c, o);
    }
    return c;
}

// ---- An independent backend: float32 coordinates, arithmetic in F ------------------------------

struct Backend {
    int coordinates = 0;    // 0: (x1s + t wS) - ipo, 1: (x1s - ipo) + t wS, 2: (1 - t) x1s + t x2s - ipo
    bool factored = false;  // dROI: dY share scale (1 - t) slope, else autograd's terms one by one
    bool shifted = false;   // planted: InputPixelOffset read as 0
    uint32_t samples = 0;   // planted: another sample count (0: the case's)
    bool no_share = false;  // planted: AVERAGE without 1 / (Sx * Sy)
    bool least = false;     // planted: MAX sends dY to the least sample
};

struct Axis1 {
    float t, x;
};
Axis1 axis(const Setup& s, const Backend& b, float lo, float hi, uint32_t o, uint32_t i, uint32_t S) {
    const float ipo = b.shifted ? 0.0f : s.ipo;
    const float x1s = lo * s.scale, x2s = hi * s.scale, w = x2s - x1s;
    const uint32_t n = kOut * S, k = o * S + i;
    const float t = s.corners ? (n == 1 ? 0.5f : (float(k) - s.opo) / float(n - 1)) : (float(k) - s.opo) / float(n);
    switch (b.coordinates) {
        case 1: return {t, (x1s - ipo) + t * w};
        case 2: return {t, ((1.0f - t) * x1s + t * x2s) - ipo};
        default: return {t, (x1s + t * w) - ipo};
    }
}

// One axis's reading: taps and weights, and whether the value moves with the coordinate.
struct Read {
    bool oob = false, slope = false;
    int64_t i0 = 0, i1 = 0;
    float w0 = 1, w1 = 0;
};
Read read(const Setup& s, float x, int64_t size) {
    Read r;
    if (x < -1 || x > float(size)) {
        r.oob = true;
        return r;
    }
    const bool clamped = x < 0 || x > float(size - 1);
    x = std::clamp(x, 0.0f, float(size - 1));
    if (s.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        r.i0 = r.i1 = std::max<int64_t>(0, int64_t(std::ceil(x - 0.5f)));
        return r;
    }
    r.i0 = std::min<int64_t>(int64_t(std::floor(x)), size - 1);
    r.i1 = std::min<int64_t>(r.i0 + 1, size - 1);
    r.w1 = x - float(r.i0);
    r.w0 = 1.0f - r.w1;
    r.slope = !clamped && r.i1 != r.i0;
    return r;
}

template <class F>
std::pair<std::vector<double>, std::vector<double>> backward(const Setup& s, const Backend& b,
                                                             const std::vector<float>& x,
                                                             const std::vector<float>& dy) {
    const uint32_t S = b.samples ? b.samples : s.samples;
    std::vector<F> dx(size_t(kC) * kH * kW, F(0)), droi(s.rois.size() * 4, F(0));
    auto X = [&](uint32_t c, int64_t r, int64_t col) {
        return F(x[size_t((c * kH + uint64_t(r)) * kW + uint64_t(col))]);
    };
    for (size_t r = 0; r < s.rois.size(); ++r) {
        const auto& roi = s.rois[r];
        for (uint32_t c = 0; c < kC; ++c)
            for (uint32_t oy = 0; oy < kOut; ++oy)
                for (uint32_t ox = 0; ox < kOut; ++ox) {
                    const F g = F(dy[((r * kC + c) * kOut + oy) * kOut + ox]);
                    // The samples, and for MAX the chosen one (the first greatest in bounds).
                    struct Sample {
                        Axis1 ay, ax;
                        Read ry, rx;
                        F v;
                    };
                    std::vector<Sample> ss;
                    for (uint32_t iy = 0; iy < S; ++iy)
                        for (uint32_t ix = 0; ix < S; ++ix) {
                            Sample m{axis(s, b, roi[1], roi[3], oy, iy, S),
                                     axis(s, b, roi[0], roi[2], ox, ix, S),
                                     {},
                                     {},
                                     0};
                            m.ry = read(s, m.ay.x, kH);
                            m.rx = read(s, m.ax.x, kW);
                            if (!m.ry.oob && !m.rx.oob)
                                m.v = F(m.ry.w0) *
                                          (F(m.rx.w0) * X(c, m.ry.i0, m.rx.i0) + F(m.rx.w1) * X(c, m.ry.i0, m.rx.i1)) +
                                      F(m.ry.w1) *
                                          (F(m.rx.w0) * X(c, m.ry.i1, m.rx.i0) + F(m.rx.w1) * X(c, m.ry.i1, m.rx.i1));
                            ss.push_back(m);
                        }
                    size_t chosen = SIZE_MAX;
                    for (size_t k = 0; k < ss.size(); ++k) {
                        if (ss[k].ry.oob || ss[k].rx.oob) continue;
                        if (chosen == SIZE_MAX || (b.least ? ss[k].v < ss[chosen].v : ss[k].v > ss[chosen].v))
                            chosen = k;
                    }
                    const bool max = s.reduction == DML_REDUCE_FUNCTION_MAX;
                    for (size_t k = 0; k < ss.size(); ++k) {
                        const Sample& m = ss[k];
                        if (m.ry.oob || m.rx.oob || (max && k != chosen)) continue;
                        const F gs = max || b.no_share ? g : g / F(S * S);
                        const int64_t ys[2] = {m.ry.i0, m.ry.i1}, xs[2] = {m.rx.i0, m.rx.i1};
                        const F wy[2] = {F(m.ry.w0), F(m.ry.w1)}, wx[2] = {F(m.rx.w0), F(m.rx.w1)};
                        for (int a = 0; a < 2; ++a)
                            for (int bb = 0; bb < 2; ++bb)
                                dx[size_t((c * kH + uint64_t(ys[a])) * kW + uint64_t(xs[bb]))] += (wy[a] * wx[bb]) * gs;
                        // dROI: d(sample)/dx = sum_a wy[a] (X[a][x1] - X[a][x0]); dx/dx1 = scale (1 - t), dx/dx2 = scale t.
                        for (int j = 0; j < 2; ++j) {
                            const Read& own = j == 0 ? m.rx : m.ry;
                            const Read& other = j == 0 ? m.ry : m.rx;
                            if (!own.slope) continue;
                            const F t = F(j == 0 ? m.ax.t : m.ay.t), sc = F(s.scale);
                            const F wo[2] = {F(other.w0), F(other.w1)};
                            const int64_t oi[2] = {other.i0, other.i1};
                            auto at = [&](int k2, int64_t idx) {
                                return j == 0 ? X(c, oi[k2], idx) : X(c, idx, oi[k2]);
                            };
                            if (b.factored) {
                                F slope = 0;
                                for (int k2 = 0; k2 < 2; ++k2) slope += wo[k2] * (at(k2, own.i1) - at(k2, own.i0));
                                droi[r * 4 + size_t(j)] += gs * sc * (F(1) - t) * slope;
                                droi[r * 4 + 2 + size_t(j)] += gs * sc * t * slope;
                            } else {
                                for (int k2 = 0; k2 < 2; ++k2)
                                    for (int side = 0; side < 2; ++side) {
                                        const F term = gs * wo[k2] * (side ? at(k2, own.i1) : -at(k2, own.i0));
                                        droi[r * 4 + size_t(j)] += term * sc;
                                        droi[r * 4 + size_t(j)] += term * sc * -t;
                                        droi[r * 4 + 2 + size_t(j)] += term * sc * t;
                                    }
                            }
                        }
                    }
                }
    }
    std::pair<std::vector<double>, std::vector<double>> out;
    for (F v : dx) out.first.push_back(double(float(v)));
    for (F v : droi) out.second.push_back(double(float(v)));
    return out;
}

OutputCensus judge(const Case& golden, const char* output, const std::vector<double>& actual) {
    std::vector<float> f(actual.begin(), actual.end());
    return census(golden, output, buffer(desc(DataType::FLOAT32, {uint32_t(f.size())}), f), DiffOptions{});
}

}  // namespace

TEST_CASE("roi align grad bound: independent float32 and float64 backends are accepted") {
    const auto x = values(5, size_t(kC) * kH * kW);
    for (uint32_t reduction : {uint32_t(DML_REDUCE_FUNCTION_AVERAGE), uint32_t(DML_REDUCE_FUNCTION_MAX)})
        for (uint32_t mode :
             {uint32_t(DML_INTERPOLATION_MODE_LINEAR), uint32_t(DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR)})
            for (uint32_t corners : {0u, 1u}) {
                Setup s;
                s.reduction = reduction;
                s.mode = mode;
                s.corners = corners;
                if (corners) s.ipo = s.opo = 0;
                const auto dy = values(7 + corners, s.rois.size() * kC * kOut * kOut);
                const Case golden = golden_case(s, x, dy);
                for (int coordinates = 0; coordinates < 3; ++coordinates)
                    for (bool factored : {false, true}) {
                        Backend b;
                        b.coordinates = coordinates;
                        b.factored = factored;
                        INFO("reduction " << reduction << " mode " << mode << " corners " << corners << " coordinates "
                                          << coordinates << " factored " << factored);
                        for (const auto& [dx, droi] : {backward<float>(s, b, x, dy), backward<double>(s, b, x, dy)}) {
                            const OutputCensus fx = judge(golden, "OutputGradientTensor", dx);
                            CHECK(fx.bounded);
                            CHECK(fx.over == 0);
                            const OutputCensus fr = judge(golden, "OutputROIGradientTensor", droi);
                            CHECK(fr.bounded);
                            CHECK(fr.over == 0);
                        }
                    }
            }
}

TEST_CASE("roi align grad bound: planted errors fail, the bound's edge is exact") {
    const auto x = values(11, size_t(kC) * kH * kW);
    Setup s;
    const auto dy = values(13, s.rois.size() * kC * kOut * kOut);
    const Case golden = golden_case(s, x, dy);
    auto over = [&](const Backend& b) {
        const auto [dx, droi] = backward<float>(s, b, x, dy);
        return std::pair{judge(golden, "OutputGradientTensor", dx).over,
                         judge(golden, "OutputROIGradientTensor", droi).over};
    };
    Backend shifted, fewer, more, unshared;
    shifted.shifted = true;
    fewer.samples = 1;
    more.samples = 3;
    unshared.no_share = true;
    for (const Backend& b : {shifted, fewer, more, unshared}) {
        INFO("shifted " << b.shifted << " samples " << b.samples << " no_share " << b.no_share);
        const auto [ox, oroi] = over(b);
        CHECK(ox > 20);    // of 200 dX elements
        CHECK(oroi >= 6);  // of 12 dROI elements
    }
    // MAX sending dY to the least sample instead of the greatest.
    Setup m = s;
    m.reduction = DML_REDUCE_FUNCTION_MAX;
    const Case gm = golden_case(m, x, dy);
    Backend least;
    least.least = true;
    const auto [lx, lroi] = backward<float>(m, least, x, dy);
    CHECK(judge(gm, "OutputGradientTensor", lx).over > 20);
    CHECK(judge(gm, "OutputROIGradientTensor", lroi).over >= 6);

    // The edge: the golden plus its bound (rounded inward to a float) passes, the next float out fails.
    for (const char* output : {"OutputGradientTensor", "OutputROIGradientTensor"}) {
        const auto sink = summed_terms(golden, output, ArithmeticProfile{});
        REQUIRE(sink.has_value());
        const auto g = as_values<float>(golden.expected.at(output).values);
        size_t tested = 0;
        for (size_t i = 0; i < g.size() && tested < 5; ++i) {
            const double bound = element_bound(sink->elements()[i], DataType::FLOAT32, to_bits(g[i]),
                                               ArithmeticProfile{});
            if (!(bound > 0) || !std::isfinite(bound)) continue;
            INFO(output << " element " << i << " golden " << g[i] << " bound " << bound);
            // Values up to 4: far below a wrong reading's error (dX), and below 1/20 for the ROI gradient,
            // whose bound sums the magnitudes of every monomial of every sample (docs/tolerance.md).
            CHECK(bound < (std::string_view(output) == "OutputROIGradientTensor" ? 0.05 : 1e-3));
            float inside = float(double(g[i]) + bound);
            if (double(inside) - double(g[i]) > bound) inside = std::nextafter(inside, -INFINITY);
            const float outside = std::nextafter(inside, INFINITY);
            std::vector<double> a(g.begin(), g.end());
            a[i] = inside;
            CHECK(judge(golden, output, a).over == 0);
            a[i] = outside;
            CHECK(judge(golden, output, a).over == 1);
            ++tested;
        }
        CHECK(tested == 5);
    }
}

}  // namespace dmlref_test_roi_align_grad_bound
