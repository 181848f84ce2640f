// UPSAMPLE_2D. Expected values by hand (each derivation stated), from index formulas written here
// in integer arithmetic, and from RESAMPLE's loop on the RESAMPLE desc the operator is (the
// equivalence docs/golden.md states, on random cases); none comes from UPSAMPLE_2D's own
// evaluation. Also the DML_SIZE_2D field kind through the case reader and writer.
#include "support.hpp"

#include "dmlref/descs/upsample_2d.hpp"

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_upsample_2d {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using UPSAMPLE = DML_UPSAMPLE_2D_OPERATOR_DESC;

UPSAMPLE upsample(DataType t, std::vector<uint32_t> in, uint32_t width, uint32_t height, uint32_t mode) {
    UPSAMPLE d;
    d.InputTensor = desc(t, in);
    d.OutputTensor = desc(t, {in[0], in[1], in[2] * height, in[3] * width});
    d.ScaleSize = {width, height};
    d.InterpolationMode = mode;
    return d;
}
Operator op(const UPSAMPLE& d) { return Operator{OperatorType::UPSAMPLE_2D, d}; }

}  // namespace

TEST_CASE("UPSAMPLE_2D: LINEAR 2x2 to 4x4 by hand, NEAREST by the old rule's formula") {
    // LINEAR, ScaleSize {2, 2}: rows and columns at x = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75,
    // 1.25, clamped to [0, 1]: 0, 0.25, 0.75, 1. Row 0 of [[1, 2], [3, 4]]: 1, 1.25, 1.75, 2; the
    // rows between mix 1 + 2 y, y the same fractions: +0.5, +1.5, +2.
    const UPSAMPLE l = upsample(DataType::FLOAT32, {1, 1, 2, 2}, 2, 2, DML_INTERPOLATION_MODE_LINEAR);
    check_bits(
        as_values<float>(
            run(op(l), {{"InputTensor", buffer(l.InputTensor, std::vector<float>{1, 2, 3, 4})}}).at("OutputTensor")),
        std::vector<float>{1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
    // NEAREST (RESAMPLE's old rule, OldNearestNeighbor's default): input index floor((o + 1) / s -
    // 0.5) clamped, i.e. floor((2 o + 2 - s) / (2 s)) in integers. Scale 3 along the width of [10,
    // 20]: 10, 10, 10, 10, 20, 20 (not 10, 10, 10, 20, 20, 20); scale 2 along the height.
    const UPSAMPLE n = upsample(DataType::INT32, {1, 1, 2, 2}, 3, 2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR);
    std::vector<int32_t> want;
    for (int64_t y = 0; y < 4; ++y)
        for (int64_t x = 0; x < 6; ++x) {
            auto index = [](int64_t o, int64_t s, int64_t size) {
                const int64_t num = 2 * o + 2 - s, den = 2 * s;
                const int64_t f = num >= 0 ? num / den : -((-num + den - 1) / den);
                return std::clamp<int64_t>(f, 0, size - 1);
            };
            want.push_back(int32_t(10 * (1 + index(x, 3, 2)) + 100 * index(y, 2, 2)));
        }
    CHECK(want[0] == 10);
    CHECK(want[3] == 10);
    CHECK(want[4] == 20);
    check_bits(
        as_values<int32_t>(run(op(n), {{"InputTensor", buffer(n.InputTensor, std::vector<int32_t>{10, 20, 110, 120})}})
                               .at("OutputTensor")),
        want);
}

TEST_CASE("UPSAMPLE_2D is RESAMPLE with Scales {1, 1, Height, Width}: random cases, every type, both modes") {
    std::mt19937 rng(66);
    const DataType types[] = {DataType::FLOAT32, DataType::FLOAT16, DataType::FLOAT64,
                              DataType::INT8,    DataType::UINT16,  DataType::INT64};
    for (int k = 0; k < 24; ++k) {
        const DataType t = types[k % 6];
        const uint32_t mode = k % 2 ? DML_INTERPOLATION_MODE_LINEAR : DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
        const std::vector<uint32_t> in = {uint32_t(1 + rng() % 2), uint32_t(1 + rng() % 2), uint32_t(1 + rng() % 4),
                                          uint32_t(1 + rng() % 4)};
        UPSAMPLE u = upsample(t, in, uint32_t(1 + rng() % 4), uint32_t(1 + rng() % 4), mode);
        if (k % 3 == 0) u.InputTensor.Strides = {0, 0, in[3], 1};  // broadcast over N and C
        INFO("case " << k << " " << name(t) << " scale " << u.ScaleSize.Width << "x" << u.ScaleSize.Height);
        std::vector<std::byte> bytes(buffer_size(u.InputTensor));
        for (auto& b : bytes) b = std::byte(rng() % 7 == 0 ? 0xff : rng() & 0x7f);  // NaNs and negatives among them
        DML_RESAMPLE_OPERATOR_DESC r;
        r.InputTensor = u.InputTensor;
        r.OutputTensor = u.OutputTensor;
        r.InterpolationMode = mode;
        r.ScaleCount = 4;
        r.Scales = {1, 1, float(u.ScaleSize.Height), float(u.ScaleSize.Width)};
        CHECK(run(op(u), {{"InputTensor", bytes}}).at("OutputTensor") ==
              run(Operator{OperatorType::RESAMPLE, r}, {{"InputTensor", bytes}}).at("OutputTensor"));
        // Judged as RESAMPLE: the same stated tolerance (Bits, or Summed with each element's terms).
        Case cu, cr;
        cu.op = op(u);
        cr.op = Operator{OperatorType::RESAMPLE, r};
        const auto tu = stated_tolerance(cu, "OutputTensor"), tr = stated_tolerance(cr, "OutputTensor");
        CHECK(tu.Kind == tr.Kind);
        CHECK(tu.Terms == tr.Terms);
    }
}

TEST_CASE("UPSAMPLE_2D: each rule") {
    UPSAMPLE d = upsample(DataType::FLOAT32, {1, 2, 3, 4}, 2, 3, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR);
    UPSAMPLE t = d;
    t.OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op(t), "upsample-2d.same-data-type", "/desc/OutputTensor/DataType"));
    t = d;
    t.InputTensor.Sizes = {2, 3, 4};
    CHECK(has_error(op(t), "upsample-2d.dimension-count", "/desc/InputTensor/Sizes"));
    t = d;
    t.ScaleSize.Height = 0;
    CHECK(has_error(op(t), "upsample-2d.scale-size", "/desc/ScaleSize/Height"));
    t = d;
    t.OutputTensor.Sizes = {1, 2, 9, 9};
    CHECK(has_error(op(t), "upsample-2d.output-sizes", "/desc/OutputTensor/Sizes/3"));        // 4 x 2 = 8
    CHECK_FALSE(has_error(op(t), "upsample-2d.output-sizes", "/desc/OutputTensor/Sizes/2"));  // 3 x 3 = 9
    t = d;
    t.InterpolationMode = 2;
    CHECK(has_error(op(t), "upsample-2d.interpolation-mode", "/desc/InterpolationMode"));
}

TEST_CASE("DML_SIZE_2D fields: {\"Width\", \"Height\"}, both required, each a UINT; written back so") {
    auto text = [](const std::string& scale) {
        return R"({"format": 1, "name": "t", "operator": "UPSAMPLE_2D",
            "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 1]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 2]},
                     "ScaleSize": )" +
               scale + R"(, "InterpolationMode": "NEAREST_NEIGHBOR"},
            "inputs": {"InputTensor": [5]}})";
    };
    const Case c = parse_valid(text(R"({"Height": 3, "Width": 2})"));
    CHECK(get<UPSAMPLE>(c.op.Desc).ScaleSize == DML_SIZE_2D{2, 3});
    Case g = with_golden(c, "OutputTensor");
    const auto written = nlohmann::ordered_json::parse(write_golden(g, run_case(g), "t.json"));
    CHECK(written["desc"]["ScaleSize"].dump() == R"({"Width":2,"Height":3})");  // DirectML's member order
    const std::pair<const char*, const char*> bad[] = {{R"({"Width": 2})", "case.missing-field"},
                                                       {R"({"Width": 2, "Height": 3, "Depth": 1})", "case.unknown-key"},
                                                       {R"({"Width": -2, "Height": 3})", ""},
                                                       {R"([2, 3])", "case.type"},
                                                       {R"({"Width": 4294967296, "Height": 3})", ""}};
    for (const auto& [scale, rule] : bad) {
        INFO(scale);
        const Diagnostics d = diagnose(text(scale));
        REQUIRE(d.has_errors());
        if (*rule) CHECK(d.items().at(0).rule == rule);
        CHECK(d.items().at(0).path.rfind("/desc/ScaleSize", 0) == 0);
    }
}

}  // namespace dmlref_test_upsample_2d
