// ROI_POOLING. Expected values by hand (each derivation stated) and from a naive loop written here
// with integer bin arithmetic ((ph * rh) / PH and ((ph + 1) * rh + PH - 1) / PH) and a plain
// maximum; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/roi_pooling.hpp"

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_roi_pooling {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using ROI = DML_ROI_POOLING_OPERATOR_DESC;

ROI roi_pooling(DataType t, std::vector<uint32_t> in, uint32_t rois, uint32_t ph, uint32_t pw, float scale) {
    ROI d;
    d.InputTensor = desc(t, in);
    d.ROITensor = desc(t, {rois, 5});
    d.OutputTensor = desc(t, {rois, in[1], ph, pw});
    d.SpatialScale = scale;
    d.PooledSize = {pw, ph};
    return d;
}
Operator op(const ROI& d) { return Operator{OperatorType::ROI_POOLING, d}; }
template <class T> std::vector<T> out(const ROI& d, const std::vector<T>& x, const std::vector<T>& rois) {
    return as_values<T>(
        run(op(d), {{"InputTensor", buffer(d.InputTensor, x)}, {"ROITensor", buffer(d.ROITensor, rois)}})
            .at("OutputTensor"));
}

// The naive reference for integer coordinates (SpatialScale 1, so no rounding).
std::vector<int32_t> naive(const std::vector<uint32_t>& s, const std::vector<int32_t>& x,
                           const std::vector<int32_t>& rois, int64_t PH, int64_t PW) {
    const int64_t C = s[1], H = s[2], W = s[3];
    std::vector<int32_t> o;
    for (size_t r = 0; r < rois.size() / 5; ++r) {
        const int64_t b = rois[r * 5], x1 = rois[r * 5 + 1], y1 = rois[r * 5 + 2], x2 = rois[r * 5 + 3],
                      y2 = rois[r * 5 + 4];
        const int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
        for (int64_t c = 0; c < C; ++c)
            for (int64_t ph = 0; ph < PH; ++ph)
                for (int64_t pw = 0; pw < PW; ++pw) {
                    // Non-negative numerators: C++'s division is the floor, (n + d - 1) / d the ceiling.
                    const int64_t h0 = std::clamp<int64_t>(y1 + (ph * rh) / PH, 0, H),
                                  h1 = std::clamp<int64_t>(y1 + ((ph + 1) * rh + PH - 1) / PH, 0, H);
                    const int64_t w0 = std::clamp<int64_t>(x1 + (pw * rw) / PW, 0, W),
                                  w1 = std::clamp<int64_t>(x1 + ((pw + 1) * rw + PW - 1) / PW, 0, W);
                    int32_t m = 0;
                    bool any = false;
                    for (int64_t h = h0; h < h1; ++h)
                        for (int64_t w = w0; w < w1; ++w) {
                            const int32_t v = x[size_t(((b * C + c) * H + h) * W + w)];
                            if (!any || v > m) m = v;
                            any = true;
                        }
                    o.push_back(any ? m : 0);
                }
    }
    return o;
}

}  // namespace

TEST_CASE("ROI_POOLING: by hand") {
    // A 4x4 image 0..15. Region [0, 0, 0, 3, 3] (the whole image), 2x2 bins: rows and columns
    // [0, 2) and [2, 4): the maxima 5, 7, 13, 15. Region [0, 1, 1, 2, 2]: roi 2x2, one element per
    // bin: 5, 6, 9, 10. Region [0, 3, 3, 10, 10]: roi 8x8 from (3, 3), bins [3, 7) and [7, 11),
    // clamped to [3, 4) and [4, 4): 15 and three empty bins, 0 (RoiEmptyBin=Zero).
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[i] = float(i);
    const ROI d = roi_pooling(DataType::FLOAT32, {1, 1, 4, 4}, 3, 2, 2, 1.0f);
    check_bits(out<float>(d, x, {0, 0, 0, 3, 3, 0, 1, 1, 2, 2, 0, 3, 3, 10, 10}),
               std::vector<float>{5, 7, 13, 15, 5, 6, 9, 10, 15, 0, 0, 0});
    // SpatialScale 0.5 and a rounding tie: x1 = y1 = 1 scales to 0.5, rounded half away from zero
    // to 1 (half to even would give 0); x2 = y2 = 5 to 2.5 -> 3. roi 3x3 from (1, 1), 1x1 bin: the
    // maximum of rows and columns 1..3: 15.
    const ROI s = roi_pooling(DataType::FLOAT32, {1, 1, 4, 4}, 1, 1, 1, 0.5f);
    check_bits(out<float>(s, x, {0, 1, 1, 5, 5}), std::vector<float>{15});
    // 1x3 bins of a roi 2 wide: columns [0, 1), [0, 2), [1, 2) (floor(pw 2 / 3), ceil((pw + 1) 2 / 3)):
    // overlapping bins, the middle one reads both columns.
    const ROI o = roi_pooling(DataType::FLOAT32, {1, 1, 1, 2}, 1, 1, 3, 1.0f);
    check_bits(out<float>(o, {4, -1}, {0, 0, 0, 1, 0}), std::vector<float>{4, 4, -1});
}

TEST_CASE("ROI_POOLING: NaN and signed zeros (MAX_POOLING's ArgmaxNaN and ArgmaxTies)") {
    const float nan1 = from_bits<float>(uint32_t(0x7fc00001)), nan2 = from_bits<float>(uint32_t(0xffc00002));
    const ROI d = roi_pooling(DataType::FLOAT32, {1, 1, 1, 4}, 3, 1, 1, 1.0f);
    // [NaN1, -inf, -0, +0]: -0 (a NaN loses to any number; of -0 and +0 the first); [NaN1] alone:
    // NaN1, its bits; [+0]: +0.
    const std::vector<float> x = {nan1, -INFINITY, -0.0f, 0.0f};
    check_bits(out<float>(d, x, {0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 3, 0}), std::vector<float>{-0.0f, nan1, 0.0f});
    // [NaN1, NaN2]: NaN1, the first.
    const ROI e = roi_pooling(DataType::FLOAT32, {1, 1, 1, 2}, 1, 1, 1, 1.0f);
    check_bits(out<float>(e, {nan1, nan2}, {0, 0, 0, 1, 0}), std::vector<float>{nan1});
}

TEST_CASE("ROI_POOLING: random regions against the naive loop, every integer width") {
    std::mt19937 rng(59);
    for (int k = 0; k < 20; ++k) {
        const std::vector<uint32_t> s = {uint32_t(1 + rng() % 2), uint32_t(1 + rng() % 3), uint32_t(1 + rng() % 6),
                                         uint32_t(1 + rng() % 6)};
        const uint32_t rois = uint32_t(1 + rng() % 3), PH = uint32_t(1 + rng() % 3), PW = uint32_t(1 + rng() % 3);
        std::vector<int32_t> x(product(s)), r;
        for (auto& v : x) v = int32_t(rng() % 200) - 100;
        for (uint32_t i = 0; i < rois; ++i) {
            r.push_back(int32_t(rng() % s[0]));
            for (int j = 0; j < 4; ++j) r.push_back(int32_t(rng() % 10) - 2);  // some outside, some inverted
        }
        INFO("case " << k);
        const ROI d = roi_pooling(DataType::INT32, s, rois, PH, PW, 1.0f);
        check_bits(out<int32_t>(d, x, r), naive(s, x, r, PH, PW));
        // The same in INT8 and INT64 (the values fit).
        std::vector<int8_t> x8(x.begin(), x.end()), r8(r.begin(), r.end());
        const auto want = naive(s, x, r, PH, PW);
        check_bits(out<int8_t>(roi_pooling(DataType::INT8, s, rois, PH, PW, 1.0f), x8, r8),
                   std::vector<int8_t>(want.begin(), want.end()));
        std::vector<int64_t> x64(x.begin(), x.end()), r64(r.begin(), r.end());
        check_bits(out<int64_t>(roi_pooling(DataType::INT64, s, rois, PH, PW, 1.0f), x64, r64),
                   std::vector<int64_t>(want.begin(), want.end()));
    }
}

TEST_CASE("ROI_POOLING: each rule") {
    const ROI d = roi_pooling(DataType::FLOAT32, {2, 3, 4, 4}, 2, 2, 2, 1.0f);
    ROI t = d;
    t.ROITensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op(t), "roi-pooling.same-data-type", "/desc/ROITensor/DataType"));
    t = d;
    t.InputTensor.Sizes = {3, 4, 4};
    CHECK(has_error(op(t), "roi-pooling.dimension-count", "/desc/InputTensor/Sizes"));
    t = d;
    t.ROITensor.Sizes = {2, 4};
    CHECK(has_error(op(t), "roi-pooling.roi-sizes", "/desc/ROITensor/Sizes"));
    t.ROITensor.Sizes = {2, 1, 2, 5};
    CHECK(has_error(op(t), "roi-pooling.roi-sizes", "/desc/ROITensor/Sizes"));
    t.ROITensor.Sizes = {1, 1, 2, 5};
    CHECK_FALSE(validate(op(t)).has_errors());
    t = d;
    t.PooledSize.Width = 0;
    CHECK(has_error(op(t), "roi-pooling.pooled-size", "/desc/PooledSize/Width"));
    t = d;
    t.OutputTensor.Sizes = {2, 3, 2, 3};
    CHECK(has_error(op(t), "roi-pooling.output-sizes", "/desc/OutputTensor/Sizes/3"));
    t = d;
    t.SpatialScale = 0.0f;
    CHECK(has_error(op(t), "roi-pooling.spatial-scale", "/desc/SpatialScale"));
    // On the values: a batch_id outside [0, N) or not an integer; a coordinate not finite.
    auto values = [&](const std::vector<float>& r) {
        Case c;
        c.op = op(d);
        c.inputs = {{"InputTensor", std::vector<std::byte>(buffer_size(d.InputTensor))},
                    {"ROITensor", buffer(d.ROITensor, r)}};
        return validate_input_values(c.op, c.inputs, ~uint64_t(0));
    };
    auto rule_at = [](const Diagnostics& g, const std::string& rule, const std::string& path) {
        for (const auto& item : g.items())
            if (item.rule == rule && item.path == path) return true;
        return false;
    };
    CHECK(rule_at(values({2, 0, 0, 1, 1, 0, 0, 0, 1, 1}), "roi-pooling.batch-index", "/inputs/ROITensor/0"));
    CHECK(rule_at(values({0, 0, 0, 1, 1, 0.5f, 0, 0, 1, 1}), "roi-pooling.batch-index", "/inputs/ROITensor/5"));
    CHECK(rule_at(values({0, 0, NAN, 1, 1, 1, 0, 0, 1, 1}), "roi-pooling.roi-coordinate", "/inputs/ROITensor/2"));
    CHECK_FALSE(values({1, 0, 0, 1, 1, 0, -3, 0, 9, 1}).has_errors());
}

}  // namespace dmlref_test_roi_pooling
