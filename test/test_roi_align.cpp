// ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD. Expected values come from the ROI_ALIGN_GRAD page's
// example, ONNX Runtime's AvgModePositive values (which its authors say are DirectML's), hand
// derivations written beside them, the adjoint identity <F(x), dy> = <x, G(dy)> in exact
// rationals, and a naive computation (test/roi_align_support.hpp): the page's pseudo-code in GMP
// rationals, written apart from reference/roi_align.cpp (coordinates as (s - OutputPixelOffset) *
// size / N, all four taps, the ROI gradient as an exact one-sided difference quotient), rounded
// by MPFR.
#include "roi_align_support.hpp"

#include "dmlref/tolerance.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_roi_align {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::roi;

TEST_CASE("roi align: the ROI_ALIGN_GRAD page's example, forward and grad (nearest, one sample)") {
    // A 4x4 image 1..16, four 2x2 crops read as 1x3 outputs: the page gives the crops [1,1,2],
    // [3,3,4], [9,9,10], [11,11,12] and, for dY = 1..12, dX = [[3,3,9,6],[0,0,0,0],[15,9,21,12],[0,0,0,0]].
    // Hand check of the first crop: x = (s + 1/2) * 2/3 - 1/2 = -1/6, 1/2, 7/6 -> 0, 0 (tie to the
    // lower index), 1; y = (0 + 1/2) * 2 - 1/2 = 1/2 -> row 0.
    Setup s;
    s.H = s.W = 4;
    s.OutH = 1;
    s.OutW = 3;
    s.mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    s.rois = {{0, 0, 2, 2}, {2, 0, 4, 2}, {0, 2, 2, 4}, {2, 2, 4, 4}};
    s.batch = {0, 0, 0, 0};
    std::vector<double> x;
    for (int i = 1; i <= 16; ++i) x.push_back(i);
    const std::vector<float> crops = {1, 1, 2, 3, 3, 4, 9, 9, 10, 11, 11, 12};
    check_bits(forward<float>(s, x, true), crops);
    check_bits(forward<float>(s, x, false), crops);  // ROI_ALIGN1 with the default offsets
    std::vector<double> dy;
    for (int i = 1; i <= 12; ++i) dy.push_back(i);
    const auto g = grads<float>(s, x, dy, true, false);
    check_bits(as_values<float>(g.at("OutputGradientTensor")),
               std::vector<float>{3, 3, 9, 6, 0, 0, 0, 0, 15, 9, 21, 12, 0, 0, 0, 0});
}

TEST_CASE("roi align: ONNX Runtime's AvgModePositive values for empty regions, which its authors say are DirectML's") {
    // InputPixelOffset 0, OutputPixelOffset -0.5, 2x2 samples, SpatialScale 1/16; channel c of the
    // 5x5 image holds 5y + x + 25c. An empty region samples one point: [7,5,7,5]/16 = (0.4375,
    // 0.3125) -> 5 * 0.3125 + 0.4375 = 2; [-15,-15,...]/16 = -0.9375 is inside (-1, 0): clamped
    // to pixel (0,0), 0 (25 in channel 1: not OutOfBoundsInputValue); [-10,21]/16 -> x clamped to 0,
    // y = 1.3125 -> 6.5625.
    Setup s;
    s.C = 2;
    s.H = s.W = 5;
    s.OutH = 2;
    s.OutW = 2;
    s.ipo = 0;
    s.opo = -0.5f;
    s.min = s.max = 2;
    s.sx = s.sy = 1.0f / 16;
    s.rois = {{7, 5, 7, 5}, {-15, -15, -15, -15}, {-10, 21, -10, 21}};
    s.batch = {0, 0, 0};
    s.oob = 100;
    std::vector<double> x;
    for (int c = 0; c < 2; ++c)
        for (int y = 0; y < 5; ++y)
            for (int xx = 0; xx < 5; ++xx) x.push_back(5 * y + xx + 25 * c);
    std::vector<float> expected;
    for (float v : {2.0f, 0.0f, 6.5625f})
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < 4; ++i) expected.push_back(v + 25.0f * float(c));
    check_bits(forward<float>(s, x), expected);
}

TEST_CASE("roi align: out-of-bounds limits and half-pixel ties, hand derived") {
    // One sample at x = x1 * 1 - InputPixelOffset (an empty region, InputPixelOffset 0): a 1x3
    // image [10, 20, 30] (W = 3); OutOfBoundsInputValue 7.
    Setup s;
    s.H = 1;
    s.W = 3;
    s.ipo = 0;
    s.opo = -0.5f;
    s.oob = 7;
    s.batch = {0};
    const std::vector<double> x = {10, 20, 30};
    auto at = [&](double coordinate, uint32_t mode) {
        s.rois = {{coordinate, 0, coordinate, 0}};
        s.mode = mode;
        return forward<float>(s, x)[0];
    };
    const uint32_t L = DML_INTERPOLATION_MODE_LINEAR, N = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    CHECK(at(-1, L) == 10);       // exactly -1: inside, clamped to 0
    CHECK(at(-1.0625, L) == 7);   // below -1: OutOfBoundsInputValue
    CHECK(at(3, L) == 30);        // exactly W: inside, clamped to W - 1
    CHECK(at(3.0625, L) == 7);    // past W
    CHECK(at(2.5, L) == 30);      // between W - 1 and W: clamped
    CHECK(at(0.25, L) == 12.5f);  // 10 * 3/4 + 20 * 1/4
    CHECK(at(0.5, N) == 10);      // a tie goes to the lower index
    CHECK(at(1.5, N) == 20);
    CHECK(at(1.5078125, N) == 30);  // just past the tie
    CHECK(at(-0.5, N) == 10);       // clamped, then nearest
    // Half-pixel (ROI_ALIGN's offsets): region [0, 3] over OutW 3, one sample each: x = s + 1/2 - 1/2
    // = 0, 1, 2 exactly the pixel centres.
    s.ipo = 0.5f;
    s.opo = -0.5f;
    s.OutW = 3;
    s.rois = {{0, 0, 3, 1}};
    s.mode = L;
    check_bits(forward<float>(s, x), std::vector<float>{10, 20, 30});
    // AVERAGE counts an out-of-bounds sample with OutOfBoundsInputValue: region [-4, 2] with 2
    // samples at x = -2.5 (outside) and 0.5 (15): (7 + 15) / 2 = 11.
    s.OutW = 1;
    s.ipo = 0;
    s.min = s.max = 2;
    s.rois = {{-4, 0, 2, 0}};
    CHECK(forward<float>(s, x)[0] == 11);
    s.reduction = DML_REDUCE_FUNCTION_MAX;
    CHECK(forward<float>(s, x)[0] == 15);
}

TEST_CASE("roi align: AlignRegionsToCorners, hand derived") {
    // A 1x5 image 0..4 (W = 5); region [0, 4] over OutW 3 with corners: step 4 / (3 - 1) = 2,
    // samples at 0, 2, 4 (offsets 0, as TF-DML passes them).
    Setup s;
    s.H = 1;
    s.W = 5;
    s.OutW = 3;
    s.ipo = 0;
    s.opo = 0;
    s.corners = 1;
    s.rois = {{0, 0, 4, 0}};
    s.batch = {0};
    const std::vector<double> x = {0, 1, 2, 3, 4};
    check_bits(forward<float>(s, x), std::vector<float>{0, 2, 4});
    // One sample in all (OutW 1): the midpoint, as TF's crop_and_resize takes it: (0 + 3) / 2 = 1.5.
    s.OutW = 1;
    s.rois = {{0, 0, 3, 0}};
    CHECK(forward<float>(s, x)[0] == 1.5f);
    // Inverted region [4, 0]: mirrored, 4, 2, 0.
    s.OutW = 3;
    s.rois = {{4, 0, 0, 0}};
    check_bits(forward<float>(s, x), std::vector<float>{4, 2, 0});
}

TEST_CASE("roi align: sample counts, hand derived") {
    // A 1x10 image holding i^2 (H = 1), read between elements: f(x) = k^2 + (2k + 1)(x - k) on [k, k + 1].
    // Region [0, 5] over OutW 2, InputPixelOffset 0, OutputPixelOffset -0.5: Sx = ceil(5 / 2) = 3 (at
    // most 8), N = 6 samples at x = (s + 1/2) * 5/6 = 5/12, 15/12, 25/12 | 35/12, 45/12, 55/12, with
    // f = 5/12, 21/12, 53/12 | 103/12, 171/12, 255/12: means 79/36 and 529/36. Sy: the region's height
    // is 0, ceil(0) = 0, clamped up to MinimumSamplesPerOutput 1.
    Setup s;
    s.H = 1;
    s.W = 10;
    s.OutW = 2;
    s.min = 1;
    s.max = 8;
    s.ipo = 0;
    s.rois = {{0, 0, 5, 0}};
    s.batch = {0};
    std::vector<double> x;
    for (int i = 0; i < 10; ++i) x.push_back(i * i);
    check_bits(forward<float>(s, x), rounded<float>({mpq_class(79, 36), mpq_class(529, 36)}));
    // At most 2 samples: N = 4, x = 5/8, 15/8 | 25/8, 35/8, f = 5/8, 29/8 | 79/8, 155/8: 17/8 and 117/8.
    s.max = 2;
    check_bits(forward<float>(s, x), std::vector<float>{17.0f / 8, 117.0f / 8});
    // Inverted region [5, 0]: 3 samples again (|size|), mirrored: 529/36 then 79/36.
    s.max = 8;
    s.rois = {{5, 0, 0, 0}};
    check_bits(forward<float>(s, x), rounded<float>({mpq_class(529, 36), mpq_class(79, 36)}));
}

TEST_CASE_TEMPLATE("roi align: forward and grads against the naive exact computation", T, float, dmlref::half) {
    std::mt19937_64 rng(0x0a11 + sizeof(T));
    const DataType t = data_type_of<T>();
    for (int trial = 0; trial < 120; ++trial) {
        CAPTURE(trial);
        Setup s = random_setup(rng, t);
        const auto x = random_values(rng, uint64_t(s.B) * s.C * s.H * s.W);
        const auto dy = random_values(rng, uint64_t(regions(s)) * s.C * s.OutH * s.OutW);
        const Naive n = naive<T>(s, x);
        check_bits(forward<T>(s, x), rounded<T>(n.forward()));
        if (s.ipo == 0.5f && s.opo == -0.5f && !s.corners) check_bits(forward<T>(s, x, true), rounded<T>(n.forward()));
        // dX: the transpose: dX[p] = sum over outputs of dy * dY/dX[p], taken as the exact difference
        // F(x + e_p) - F(x) over e (AVERAGE is linear in x once OutOfBoundsInputValue is fixed). MAX's
        // selection is a policy, tested by hand below.
        if (s.reduction != DML_REDUCE_FUNCTION_AVERAGE) continue;
        std::vector<mpq_class> dyq;
        for (double v : dy) dyq.push_back(mpq_class(widen(value_of<T>(v))));
        const mpq_class e(1, mpz_class(1) << 30);
        const auto base = n.forward();
        std::vector<mpq_class> dx;
        for (size_t p = 0; p < n.x.size(); ++p) {
            Naive moved = n;
            moved.x[p] += e;
            const auto f = moved.forward();
            mpq_class sum = 0;
            for (size_t i = 0; i < f.size(); ++i) sum += dyq[i] * (f[i] - base[i]);
            dx.push_back(sum / e);
        }
        const bool linear = s.mode == DML_INTERPOLATION_MODE_LINEAR;
        const auto g = grads<T>(s, x, dy, true, linear);
        check_bits(as_values<T>(g.at("OutputGradientTensor")), rounded<T>(dx));
        if (!linear) continue;
        // The ROI gradient where the output is differentiable: both one-sided quotients agree (a
        // sample on a cell edge, a clamp or the out-of-bounds limit is a kink, decided by policy).
        const mpq_class h(1, mpz_class(1) << 40);
        const auto right = n.roi_gradient(dyq, h), left = n.roi_gradient(dyq, -h);
        const auto droi = as_values<T>(g.at("OutputROIGradientTensor"));
        for (size_t k = 0; k < right.size(); ++k) {
            if (right[k] != left[k]) continue;
            CAPTURE(k);
            CHECK(to_bits(droi[k]) == to_bits(rounded_by_mpfr<T>(right[k])));
        }
    }
}

TEST_CASE("roi align: the grad is the adjoint of the forward operator, <F(x), dy> = <x, G(dy)>, exactly") {
    // AVERAGE, OutOfBoundsInputValue 0 (the forward map is then linear), coordinates on a 1/32 grid,
    // counts that are powers of two and small integers: every output is exact in FLOAT32, so the
    // identity holds exactly in rationals.
    std::mt19937_64 rng(31);
    auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int trial = 0; trial < 80; ++trial) {
        CAPTURE(trial);
        Setup s;
        s.B = uint32_t(u(1, 2));
        s.C = uint32_t(u(1, 2));
        s.H = uint32_t(u(1, 6));
        s.W = uint32_t(u(1, 6));
        s.OutH = uint32_t(1) << u(0, 2);
        s.OutW = uint32_t(1) << u(0, 2);
        s.min = s.max = uint32_t(1) << u(0, 1);
        s.mode = uint32_t(u(0, 1));
        for (int i = 0, n = u(1, 3); i < n; ++i) {
            s.rois.push_back({u(-6, int(s.W) * 2 + 6) / 2.0, u(-6, int(s.H) * 2 + 6) / 2.0,
                              u(-6, int(s.W) * 2 + 6) / 2.0, u(-6, int(s.H) * 2 + 6) / 2.0});
            s.batch.push_back(uint32_t(u(0, int(s.B) - 1)));
        }
        std::vector<double> x, dy;
        for (uint64_t i = 0; i < uint64_t(s.B) * s.C * s.H * s.W; ++i) x.push_back(u(-8, 8));
        for (uint64_t i = 0; i < uint64_t(regions(s)) * s.C * s.OutH * s.OutW; ++i) dy.push_back(u(-8, 8));
        const auto y = forward<float>(s, x);
        const auto dx = as_values<float>(grads<float>(s, x, dy, true, false).at("OutputGradientTensor"));
        mpq_class lhs = 0, rhs = 0;
        for (size_t i = 0; i < y.size(); ++i) lhs += mpq_class(double(y[i])) * mpq_class(dy[i]);
        for (size_t i = 0; i < x.size(); ++i) rhs += mpq_class(x[i]) * mpq_class(double(dx[i]));
        CHECK(lhs == rhs);
    }
}

TEST_CASE("roi align: MAX takes the whole greatest sample; its grad goes to that sample's taps") {
    // A 1x4 image [1, 5, 2, 5] (W = 4), region [0, 4], one output, 4 samples (x = 0, 1, 2, 3 with
    // offsets 0.5 / -0.5: (s + 1/2) * 1 - 1/2 = s). Samples 1 and 3 tie at 5: the first is chosen.
    Setup s;
    s.H = 1;
    s.W = 4;
    s.min = s.max = 4;
    s.reduction = DML_REDUCE_FUNCTION_MAX;
    s.rois = {{0, 0, 4, 1}};
    s.batch = {0};
    // y: region [0, 1] with 4 samples: y = (s + 1/2)/4 - 1/2 = -3/8, -1/8, 1/8, 3/8: all clamp to 0
    // (H = 1), so every row of samples reads the same: the first greatest is (iy 0, ix 1).
    std::vector<double> x = {1, 5, 2, 5};
    CHECK(forward<float>(s, x)[0] == 5);
    auto g = grads<float>(s, x, {2}, true, false);
    check_bits(as_values<float>(g.at("OutputGradientTensor")), std::vector<float>{0, 2, 0, 0});
    // A NaN sample loses to any number: [NaN, 1, 0, -1] -> 1, the grad goes to element 1.
    x = {std::nan(""), 1, 0, -1};
    CHECK(forward<float>(s, x)[0] == 1);
    g = grads<float>(s, x, {2}, true, false);
    check_bits(as_values<float>(g.at("OutputGradientTensor")), std::vector<float>{0, 2, 0, 0});
    // The bilinear sample, not a tap: region [0.5, 2.5] with 2 samples at x = 1.0 and 2.0 read
    // 5 and 2; with InputPixelOffset 0 they sit at 1.0 and 2.0 + ... (hand: (s + 1/2) * 1 + 0.5 - 0 =
    // 1, 2): max 5 at x = 1.
    s.min = s.max = 2;
    s.ipo = 0;
    s.rois = {{0.5, 0, 2.5, 1}};
    x = {1, 5, 2, 5};
    CHECK(forward<float>(s, x)[0] == 5);
    // Between taps: region [0.25, 2.25]: samples at 0.75 (1 * 1/4 + 5 * 3/4 = 4) and 1.75 (5/4 + 3/2 =
    // 2.75): max 4, whose grad is 1/4 and 3/4 of dY on elements 0 and 1.
    s.rois = {{0.25, 0, 2.25, 1}};
    CHECK(forward<float>(s, x)[0] == 4);
    g = grads<float>(s, x, {8}, true, false);
    check_bits(as_values<float>(g.at("OutputGradientTensor")), std::vector<float>{2, 6, 0, 0});
}

TEST_CASE("roi align: the ROI gradient, hand derived") {
    // A 1x3 image [0, 10, 40] (H = 1), one output, one sample, offsets 0 / -0.5: x = x1 + (1/2)(x2 - x1)
    // (t = (0 + 1/2) / 1 = 1/2). Region [0.5, 1.5]: x = 1.0: the cell [1, 2], slope 40 - 10 = 30: d/dx1 = 30 * 1/2 = 15,
    // d/dx2 = 15; y clamps (H = 1): no slope. dY = 2 -> [30, 0, 30, 0].
    Setup s;
    s.H = 1;
    s.W = 3;
    s.ipo = 0;
    s.opo = -0.5f;
    s.rois = {{0.5, 0, 1.5, 0}};
    s.batch = {0};
    const std::vector<double> x = {0, 10, 40};
    auto g = grads<float>(s, x, {2}, false, true);
    check_bits(as_values<float>(g.at("OutputROIGradientTensor")), std::vector<float>{30, 0, 30, 0});
    // SpatialScaleX 2 doubles it; a clamped sample (x < 0) has none.
    s.sx = 2;
    s.rois = {{0.25, 0, 0.75, 0}};  // x = 2 * 0.5 = 1.0
    g = grads<float>(s, x, {2}, false, true);
    check_bits(as_values<float>(g.at("OutputROIGradientTensor")), std::vector<float>{60, 0, 60, 0});
    s.sx = 1;
    s.rois = {{-0.75, 0, -0.25, 0}};  // x = -0.5: clamped to 0
    g = grads<float>(s, x, {2}, false, true);
    check_bits(as_values<float>(g.at("OutputROIGradientTensor")), std::vector<float>{0, 0, 0, 0});
}

TEST_CASE("roi align: the naive comparison fails on planted mistakes") {
    // Each setup is chosen so that the mistake changes an output; the naive computation with the
    // mistake must then disagree with dmlref (and without it agree).
    const std::vector<double> x = {10, 20, 0, 40};  // not linear, so sample positions matter for averages
    Setup s;
    s.H = 1;
    s.W = 4;
    s.ipo = 0;
    s.opo = -0.5f;
    s.batch = {0};
    struct Probe {
        Plant plant;
        std::array<double, 4> roi;
        uint32_t mode, reduction, min, max;
        float oob;
    };
    const std::vector<Probe> probes = {
        {Plant::NearestTiesUp,
         {0.5, 0, 0.5, 0},
         DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
         DML_REDUCE_FUNCTION_AVERAGE,
         1,
         1,
         0},
        {Plant::FloorSampleCount, {0, 0, 1.5, 0}, DML_INTERPOLATION_MODE_LINEAR, DML_REDUCE_FUNCTION_AVERAGE, 1, 4, 0},
        {Plant::TfOutOfBounds, {-0.5, 0, -0.5, 0}, DML_INTERPOLATION_MODE_LINEAR, DML_REDUCE_FUNCTION_AVERAGE, 1, 1, 7},
        {Plant::MaxStartsAtZero, {0, 0, 4, 0}, DML_INTERPOLATION_MODE_LINEAR, DML_REDUCE_FUNCTION_MAX, 2, 2, 0},
    };
    for (const auto& p : probes) {
        CAPTURE(int(p.plant));
        s.rois = {p.roi};
        s.mode = p.mode;
        s.reduction = p.reduction;
        s.min = p.min;
        s.max = p.max;
        s.oob = p.oob;
        std::vector<double> values = x;
        if (p.plant == Plant::MaxStartsAtZero) values = {-10, -20, -5, -40};
        const auto actual = forward<float>(s, values);
        CHECK(same_bits(actual, rounded<float>(naive<float>(s, values).forward())));
        CHECK_FALSE(same_bits(actual, rounded<float>(naive<float>(s, values, p.plant).forward())));
    }
}

TEST_CASE("roi align: FLOAT16 rounds once, and special values follow IEEE on the exact sum") {
    // FLOAT16 has spacing 2 at 2048. x = 0.25: 2048 * 3/4 + 2052 * 1/4 = 2049, a tie: even, 2048.
    // x = 0.375: 2048 * 5/8 + 2052 * 3/8 = 2049.5: nearest, 2050.
    Setup s;
    s.type = DataType::FLOAT16;
    s.H = 1;
    s.W = 2;
    s.ipo = 0;
    s.opo = -0.5f;
    s.rois = {{0.25, 0, 0.25, 0}};
    s.batch = {0};
    CHECK(half_to_double(forward<dmlref::half>(s, {2048, 2052})[0]) == 2048);
    s.rois = {{0.375, 0, 0.375, 0}};
    CHECK(half_to_double(forward<dmlref::half>(s, {2048, 2052})[0]) == 2050);
    // 0 * inf is no term: a zero-weight tap holding +inf does not make NaN.
    s.type = DataType::FLOAT32;
    s.rois = {{0, 0, 0, 0}};
    CHECK(forward<float>(s, {3, INFINITY})[0] == 3);
    s.rois = {{0.5, 0, 0.5, 0}};
    CHECK(std::isinf(forward<float>(s, {3, INFINITY})[0]));
    CHECK(std::isnan(forward<float>(s, {-INFINITY, INFINITY})[0]));
}

TEST_CASE("roi align: the stated tolerance, term counts hand derived") {
    // One output of 2x2 samples over a 4x4 image, region [0.25, 0.25, 2.25, 2.25] (offsets 0.5 /
    // -0.5): sample coordinates 0.25 and 1.25 on each axis, each between two elements: 4 samples of
    // 4 taps = 16 terms (the bound itself is computed per element: test_roi_align_bound.cpp).
    Setup s;
    s.min = s.max = 2;
    s.rois = {{0.25, 0.25, 2.25, 2.25}};
    s.batch = {0};
    Case c;
    c.op = roi_align1(s);
    c.inputs = inputs<float>(s, std::vector<double>(16, 1.0));
    const Tolerance t = stated_tolerance(c, "OutputTensor");
    CHECK(t.Kind == "Summed");
    CHECK(t.Terms == std::vector<uint32_t>{16});
    // Nearest, one sample: a copy, bit for bit.
    s.min = s.max = 1;
    s.mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    c.op = roi_align1(s);
    CHECK(stated_tolerance(c, "OutputTensor").Kind == "Bits");
}

TEST_CASE("roi align: every validation rule") {
    Setup g;
    g.rois = {{0, 0, 2, 2}};
    g.batch = {0};
    for (const std::string op : {"roi-align", "roi-align1", "roi-align-grad"}) {
        CAPTURE(op);
        const bool grad = op == "roi-align-grad";
        auto make = [&](const Setup& s) {
            return op == "roi-align" ? roi_align(s) : op == "roi-align1" ? roi_align1(s) : roi_align_grad(s);
        };
        auto edit = [&](const Setup& s, auto f) {
            Operator o = make(s);
            visit_as<DML_ROI_ALIGN_OPERATOR_DESC, DML_ROI_ALIGN1_OPERATOR_DESC, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(
                o.Desc, [&](auto& d) {
                    if constexpr (requires { d.ROITensor; }) f(d);
                });
            return o;
        };
        const std::string pooled = grad ? "/desc/InputGradientTensor" : "/desc/OutputTensor";
        CHECK_FALSE(validate(make(g)).has_errors());
        Setup s = g;
        s.type = DataType::INT32;
        CHECK(has_error(make(s), op + ".data-type", "/desc/InputTensor/DataType"));
        CHECK(has_error(edit(g, [](auto& d) { d.ROITensor.DataType = DataType::FLOAT16; }), op + ".same-data-type",
                        "/desc/ROITensor/DataType"));
        s = g;
        s.index_type = DataType::INT32;
        CHECK(has_error(make(s), op + ".batch-indices-data-type", "/desc/BatchIndicesTensor/DataType"));
        CHECK(has_error(edit(g, [](auto& d) { d.ReductionFunction = 10; }), op + ".reduction-function",
                        "/desc/ReductionFunction"));
        CHECK(has_error(edit(g, [](auto& d) { d.InterpolationMode = 2; }), op + ".interpolation-mode",
                        "/desc/InterpolationMode"));
        s = g;
        s.min = 3;
        s.max = 2;
        CHECK(has_error(make(s), op + ".samples", "/desc/MinimumSamplesPerOutput"));
        s = g;
        s.min = 0;
        CHECK(has_error(make(s), op + ".samples", "/desc/MinimumSamplesPerOutput"));
        s = g;
        s.sx = NAN;
        CHECK(has_error(make(s), op + ".parameter-finite", "/desc/SpatialScaleX"));
        CHECK(has_error(edit(
                            g,
                            [](auto& d) {
            d.InputTensor = desc(DataType::FLOAT32, {1, 1, 4});
                            }),
                        op + ".rank", "/desc/InputTensor/Sizes"));
        CHECK(has_error(edit(
                            g,
                            [](auto& d) {
            d.ROITensor = desc(DataType::FLOAT32, {1, 5});
                            }),
                        op + ".roi-shape", "/desc/ROITensor/Sizes"));
        CHECK(has_error(edit(
                            g,
                            [](auto& d) {
            d.ROITensor = desc(DataType::FLOAT32, {2, 1, 4});
                            }),
                        op + ".roi-shape", "/desc/ROITensor/Sizes"));
        CHECK(has_error(edit(g, [](auto& d) { d.BatchIndicesTensor = desc(DataType::UINT32, {2}); }),
                        op + ".batch-indices-shape", "/desc/BatchIndicesTensor/Sizes"));
        s = g;
        s.C = 2;
        Operator channels = make(s);
        visit_as<DML_ROI_ALIGN_OPERATOR_DESC, DML_ROI_ALIGN1_OPERATOR_DESC, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(
            channels.Desc, [&](auto& d) {
                if constexpr (requires {
                                  d.ROITensor;
                                  d.OutputTensor;
                              })
                    d.OutputTensor.Sizes[1] = 1;
                else if constexpr (requires { d.ROITensor; }) d.InputGradientTensor.Sizes[1] = 1;
            });
        CHECK(has_error(channels, op + ".output-sizes", pooled + "/Sizes/1"));
        s = g;
        s.rois.push_back({0, 0, 1, 1});
        s.batch.push_back(0);
        Operator count = make(s);
        visit_as<DML_ROI_ALIGN_OPERATOR_DESC, DML_ROI_ALIGN1_OPERATOR_DESC, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(
            count.Desc, [&](auto& d) {
                if constexpr (requires {
                                  d.ROITensor;
                                  d.OutputTensor;
                              })
                    d.OutputTensor.Sizes[0] = 1;
                else if constexpr (requires { d.ROITensor; }) d.InputGradientTensor.Sizes[0] = 1;
            });
        CHECK(has_error(count, op + ".output-sizes", pooled + "/Sizes/0"));
        if (op == "roi-align1" || grad)
            CHECK(has_error(edit(
                                g,
                                [](auto& d) {
                if constexpr (requires { d.AlignRegionsToCorners; }) d.AlignRegionsToCorners = 2;
                                }),
                            op + ".align-regions-to-corners", "/desc/AlignRegionsToCorners"));
    }
    // The grad's own rules.
    CHECK(has_error(roi_align_grad(g, false, false), "roi-align-grad.output-present", "/desc"));
    CHECK(has_error(roi_align_grad(g, true, true, false), "roi-align-grad.input-present", "/desc"));
    Setup m = g;
    m.reduction = DML_REDUCE_FUNCTION_MAX;
    CHECK(has_error(roi_align_grad(m, true, false, false), "roi-align-grad.input-present", "/desc"));
    CHECK_FALSE(validate(roi_align_grad(g, true, false, false)).has_errors());  // AVERAGE needs no InputTensor
    Operator sizes = roi_align_grad(g, true, true);
    get<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(sizes.Desc).OutputGradientTensor->Sizes = {1, 1, 4, 5};
    CHECK(has_error(sizes, "roi-align-grad.output-gradient-sizes", "/desc/OutputGradientTensor/Sizes"));
    sizes = roi_align_grad(g, true, true);
    get<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(sizes.Desc).OutputROIGradientTensor->Sizes = {1, 1, 4};
    CHECK(has_error(sizes, "roi-align-grad.roi-gradient-sizes", "/desc/OutputROIGradientTensor/Sizes"));
}

TEST_CASE("roi align: rules on input values, through the case reader") {
    auto text = [](const std::string& rois, const std::string& indices, uint32_t max_samples) {
        return R"({"format": 1, "operator": "ROI_ALIGN1", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 1, 2, 2]},
            "ROITensor": {"DataType": "FLOAT32", "Sizes": [1, 4]},
            "BatchIndicesTensor": {"DataType": "UINT32", "Sizes": [1]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 1]},
            "ReductionFunction": "AVERAGE", "InterpolationMode": "LINEAR", "SpatialScaleX": 1, "SpatialScaleY": 1,
            "InputPixelOffset": 0.5, "OutputPixelOffset": -0.5, "OutOfBoundsInputValue": 0,
            "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": )" +
               std::to_string(max_samples) + R"(, "AlignRegionsToCorners": 0},
            "inputs": {"InputTensor": [1, 2, 3, 4, 5, 6, 7, 8], "ROITensor": )" +
               rois + R"(, "BatchIndicesTensor": )" + indices + "}}";
    };
    CHECK(first_error(diagnose(text("[0, 0, 1, 1]", "[1]", 4))).empty());
    CHECK(
        first_error(diagnose(text("[0, 0, 1, 1]", "[2]", 4))) ==
        "test.json: /inputs/BatchIndicesTensor/0: error: BatchIndicesTensor[0] is 2 but the batch has 2 images; DirectML "
        "leaves this undefined, dmlref refuses it [roi-align1.batch-index]");
    CHECK(first_error(diagnose(text("[0, \"nan\", 1, 1]", "[0]", 4))).find("/inputs/ROITensor/1: error:") !=
          std::string::npos);
    CHECK(first_error(diagnose(text("[0, 0, 1, 1]", "[0]", 4))).empty());
    const std::string big = first_error(diagnose(text("[0, 0, 1e9, 1e9]", "[0]", 4000000000u)));
    CHECK(big.find("[roi-align1.sample-work]") != std::string::npos);
}

TEST_CASE("roi align: decision boundaries of the exact formula are flagged, hand derived") {
    // A 1x3 image, one sample per region at x = x1 (empty regions, InputPixelOffset 0). Nearest:
    // x = 0.5 is a tie (flagged), 0.25 is not. Linear: x = -1 and x = 3 (= W) sit on the
    // out-of-bounds limits; x = 1 is a cell edge, a kink of the ROI gradient only.
    Setup s;
    s.H = 1;
    s.W = 3;
    s.ipo = 0;
    s.opo = -0.5f;
    s.batch = {0, 0, 0, 0};
    s.mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    s.rois = {{0.5, 0, 0.5, 0}, {0.25, 0, 0.25, 0}, {1.5, 0, 1.5, 0}, {2, 0, 2, 0}};
    auto flagged = [](const Case& c, const std::string& output) {
        std::vector<std::pair<uint64_t, std::string>> r;
        for (const auto& b : boundary_elements(c, output, {}))
            if (b.Reason.rfind("RoiAlign", 0) == 0) r.emplace_back(b.Index, b.Reason);
        return r;
    };
    Case c;
    c.op = roi_align1(s);
    c.inputs = inputs<float>(s, {10, 20, 30});
    using Flags = std::vector<std::pair<uint64_t, std::string>>;
    CHECK(flagged(c, "OutputTensor") == Flags{{0, "RoiAlignNearestTie"}, {2, "RoiAlignNearestTie"}});
    s.mode = DML_INTERPOLATION_MODE_LINEAR;
    s.rois = {{-1, 0, -1, 0}, {3, 0, 3, 0}, {1, 0, 1, 0}, {0.5, 0, 0.5, 0}};
    c.op = roi_align1(s);
    c.inputs = inputs<float>(s, {10, 20, 30});
    CHECK(flagged(c, "OutputTensor") == Flags{{0, "RoiAlignOutOfBoundsLimit"}, {1, "RoiAlignOutOfBoundsLimit"}});
    c.op = roi_align_grad(s, true, true);
    const std::vector<double> dy = {1, 1, 1, 1};
    c.inputs = inputs<float>(s, {10, 20, 30}, &dy);
    const auto roi_flags = flagged(c, "OutputROIGradientTensor");
    CHECK(roi_flags.size() == 12);  // regions 0, 1 and 2 (x = 1: a cell edge), 4 coordinates each
    CHECK(roi_flags[8] == std::pair<uint64_t, std::string>{8, "RoiAlignCellEdge"});
}

}  // namespace dmlref_test_roi_align
