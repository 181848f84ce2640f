// RESAMPLE3. Expected values by hand (each derivation stated) and from RESAMPLE2's loop, which the
// page's remark makes RESAMPLE3 with Antialiased FALSE equal to (random cases); none comes from
// RESAMPLE3's own evaluation. Antialiased TRUE: RESAMPLE2 where the page applies no filter, the
// stretched triangle (AntialiasFilter=StretchedTriangle) where it stretches one.
#include "support.hpp"

#include "../reference/fast/switch.hpp"
#include "dmlref/descs/resample.hpp"

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_resample3 {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using R3 = DML_RESAMPLE3_OPERATOR_DESC;
using R2 = DML_RESAMPLE2_OPERATOR_DESC;

R3 resample3(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out, std::vector<float> scales, uint32_t mode,
             uint32_t rounding, uint32_t antialiased) {
    R3 d;
    d.InputTensor = desc(t, std::move(in));
    d.OutputTensor = desc(t, std::move(out));
    d.InterpolationMode = mode;
    d.RoundingDirection = rounding;
    d.DimensionCount = uint32_t(scales.size());
    d.InputPixelOffsets.assign(scales.size(), 0.5f);
    d.OutputPixelOffsets.assign(scales.size(), -0.5f);
    d.Scales = std::move(scales);
    d.Antialiased = antialiased;
    return d;
}
R2 as_resample2(const R3& d) {
    R2 r;
    r.InputTensor = d.InputTensor;
    r.OutputTensor = d.OutputTensor;
    r.InterpolationMode = d.InterpolationMode;
    r.RoundingDirection = d.RoundingDirection;
    r.DimensionCount = d.DimensionCount;
    r.Scales = d.Scales;
    r.InputPixelOffsets = d.InputPixelOffsets;
    r.OutputPixelOffsets = d.OutputPixelOffsets;
    return r;
}
Operator op(const R3& d) { return Operator{OperatorType::RESAMPLE3, d}; }

}  // namespace

TEST_CASE("RESAMPLE3: by hand, LINEAR at Scale 0.5 with Antialiased TRUE is the plain two-tap filter") {
    // 1 / 0.5 = 2 is not above 2: no stretching. [0, 4, 8, 12] -> 2 outputs at x = (o + 0.5) / 0.5 -
    // 0.5 = 0.5, 2.5: 2 and 10.
    const R3 d = resample3(DataType::FLOAT32, {4}, {2}, {0.5f}, DML_INTERPOLATION_MODE_LINEAR,
                           DML_AXIS_DIRECTION_INCREASING, 1);
    check_bits(
        as_values<float>(
            run(op(d), {{"InputTensor", buffer(d.InputTensor, std::vector<float>{0, 4, 8, 12})}}).at("OutputTensor")),
        std::vector<float>{2, 10});
    // NEAREST, Scale 0.25, Antialiased TRUE (no filter for NEAREST_NEIGHBOR): x = (o + 0.5) * 4 - 0.5
    // = 1.5, 5.5; INCREASING takes ceil: inputs 2 and 6.
    const R3 n = resample3(DataType::UINT8, {8}, {2}, {0.25f}, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
                           DML_AXIS_DIRECTION_INCREASING, 1);
    check_bits(as_values<uint8_t>(
                   run(op(n), {{"InputTensor", buffer(n.InputTensor, std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 7})}})
                       .at("OutputTensor")),
               std::vector<uint8_t>{2, 6});
}

TEST_CASE("RESAMPLE3 with Antialiased FALSE is RESAMPLE2 (the page's remark): random cases") {
    std::mt19937 rng(64);
    const DataType types[] = {DataType::FLOAT32, DataType::FLOAT16, DataType::INT8, DataType::UINT8};
    for (int k = 0; k < 24; ++k) {
        const uint32_t rank = 1 + k % 4;
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> scales(rank);
        for (uint32_t i = 0; i < rank; ++i) {
            in[i] = 1 + rng() % 4;
            const float choices[] = {0.25f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f};
            scales[i] = choices[rng() % 6];
            out[i] = std::max<uint32_t>(1, uint32_t(float(in[i]) * scales[i]));
        }
        const uint32_t mode = k % 2, rounding = (k / 2) % 2;
        const R3 d = resample3(types[k % 4], in, out, scales, mode, rounding,
                               mode == DML_INTERPOLATION_MODE_LINEAR ? 0 : k % 3 == 0);
        INFO("case " << k);
        std::vector<std::byte> bytes(buffer_size(d.InputTensor));
        for (auto& b : bytes) b = std::byte(rng() & 0xff);
        CHECK(run(op(d), {{"InputTensor", bytes}}).at("OutputTensor") ==
              run(Operator{OperatorType::RESAMPLE2, as_resample2(d)}, {{"InputTensor", bytes}}).at("OutputTensor"));
        Case c3, c2;
        c3.op = op(d);
        c2.op = Operator{OperatorType::RESAMPLE2, as_resample2(d)};
        CHECK(stated_tolerance(c3, "OutputTensor").Terms == stated_tolerance(c2, "OutputTensor").Terms);
    }
}

TEST_CASE("RESAMPLE3: Antialiased, its rules") {
    // LINEAR, Scale 0.25 (1 / Scale = 4 > 2), TRUE: the stretched filter, evaluated.
    R3 d = resample3(DataType::FLOAT32, {2, 8}, {2, 2}, {1.0f, 0.25f}, DML_INTERPOLATION_MODE_LINEAR,
                     DML_AXIS_DIRECTION_INCREASING, 1);
    CHECK_FALSE(validate(op(d)).has_errors());
    d.Antialiased = 0;
    CHECK_FALSE(validate(op(d)).has_errors());
    d.Antialiased = 2;
    CHECK(has_error(op(d), "resample3.antialiased-bool", "/desc/Antialiased"));
    // RESAMPLE2's rules under RESAMPLE3's name.
    R3 f = resample3(DataType::FLOAT32, {4}, {4}, {1.0f}, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING,
                     0);
    f.Scales = {0.0f};
    CHECK(has_error(op(f), "resample3.scale-positive", "/desc/Scales/0"));
    f.Scales = {1.0f, 1.0f};
    CHECK(has_error(op(f), "resample3.array-length", "/desc/Scales"));
}

namespace {
std::vector<float> stretched(std::vector<uint32_t> in, std::vector<uint32_t> out, std::vector<float> scales,
                             const std::vector<float>& x) {
    const R3 d = resample3(DataType::FLOAT32, std::move(in), std::move(out), std::move(scales),
                           DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_INCREASING, 1);
    return as_values<float>(run(op(d), {{"InputTensor", buffer(d.InputTensor, x)}}).at("OutputTensor"));
}
}  // namespace

TEST_CASE("RESAMPLE3: by hand, the stretched filter (Antialiased TRUE, LINEAR, Scale below 0.5)") {
    // In 8, Scale 0.25, offsets 0.5 and -0.5: x = (o + 0.5) * 4 - 0.5 = 1.5 and 5.5; t_j = 1 - |j - x| / 4.
    // o = 0: j = 0..5 give 5/8, 7/8, 7/8, 5/8, 3/8, 1/8 (T = 28/8): weights 5, 7, 7, 5, 3, 1 over 28, and
    // inputs j give (0 + 7 + 14 + 15 + 12 + 5) / 28 = 53/28. o = 1: j = 2..7 give 1, 3, 5, 7, 7, 5 over 28:
    // (2 + 9 + 20 + 35 + 42 + 35) / 28 = 143/28.
    const std::vector<float> ramp = {0, 1, 2, 3, 4, 5, 6, 7};
    check_bits(stretched({8}, {2}, {0.25f}, ramp), std::vector<float>{float(53.0 / 28), float(143.0 / 28)});
    // In 4, Scale 0.25: x = 1.5, every index within half-width 4: t = 5/8, 7/8, 7/8, 5/8 (T = 3):
    // [0, 4, 8, 12] gives (0 + 28 + 56 + 60) / 24 = 6. In 5: t adds 3/8 for j = 4 (T = 27/8): the taps past
    // the edge are left out and the rest renormalised, [0, 1, 2, 3, 4] gives (7 + 14 + 15 + 12) / 27 = 16/9.
    check_bits(stretched({4}, {1}, {0.25f}, {0, 4, 8, 12}), std::vector<float>{6});
    check_bits(stretched({5}, {1}, {0.25f}, {0, 1, 2, 3, 4}), std::vector<float>{float(16.0 / 9)});
    // Two stretched dimensions, 8 x 8 -> 2 x 2 on v[h][w] = 8h + w: the weights of each dimension sum to
    // 1, so out[a][b] = 8 E[a] + E[b] with E = 53/28, 143/28: 477/28, 567/28 = 20.25, 42.75, 1287/28.
    std::vector<float> grid(64);
    for (int i = 0; i < 64; ++i) grid[size_t(i)] = float(i);
    check_bits(stretched({8, 8}, {2, 2}, {0.25f, 0.25f}, grid),
               std::vector<float>{float(477.0 / 28), 20.25f, 42.75f, float(1287.0 / 28)});
    // One dimension stretched (Scale 0.25), one upsampled by 2 with LINEAR's two taps: 8 x 2 -> 2 x 4 on
    // v[h][w] = 2h + w: out[a][b] = 2 E[a] + (0, 0.25, 0.75, 1)[b] (x = -0.25 clamped to 0, 0.25, 0.75, 1.25
    // clamped to 1).
    std::vector<float> tall(16);
    for (int i = 0; i < 16; ++i) tall[size_t(i)] = float(i);
    const double e0 = 2 * 53.0 / 28, e1 = 2 * 143.0 / 28;
    check_bits(stretched({8, 2}, {2, 4}, {0.25f, 2.0f}, tall),
               std::vector<float>{float(e0), float(e0 + 0.25), float(e0 + 0.75), float(e0 + 1), float(e1),
                                  float(e1 + 0.25), float(e1 + 0.75), float(e1 + 1)});
}

TEST_CASE("RESAMPLE3: the stretched filter's fast path = its plain loop, element for element") {
    std::mt19937 rng(65);
    const DataType types[] = {DataType::FLOAT32, DataType::FLOAT16, DataType::INT8, DataType::UINT8};
    for (int k = 0; k < 16; ++k) {
        const uint32_t rank = 1 + k % 3;
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> scales(rank);
        for (uint32_t i = 0; i < rank; ++i) {
            const float choices[] = {0.125f, 0.25f, 0.3f, 0.4f, 1.0f, 2.0f};
            scales[i] = choices[rng() % 6];
            in[i] = 4 + rng() % 20;
            out[i] = std::max<uint32_t>(1, uint32_t(float(in[i]) * scales[i]));
        }
        const R3 d = resample3(types[k % 4], in, out, scales, DML_INTERPOLATION_MODE_LINEAR,
                               DML_AXIS_DIRECTION_INCREASING, 1);
        INFO("case " << k);
        std::vector<std::byte> bytes(buffer_size(d.InputTensor));
        for (auto& b : bytes) b = std::byte(rng() & 0x3f);  // finite values only (FLOAT16 below 2)
        const auto fast = run(op(d), {{"InputTensor", bytes}}).at("OutputTensor");
        reference::set_fast_paths_enabled(false);
        const auto plain = run(op(d), {{"InputTensor", bytes}}).at("OutputTensor");
        reference::set_fast_paths_enabled(true);
        CHECK(fast == plain);
    }
}

}  // namespace dmlref_test_resample3
