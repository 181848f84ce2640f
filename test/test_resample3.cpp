// RESAMPLE3. Expected values by hand (each derivation stated) and from RESAMPLE2's loop, which the
// page's remark makes RESAMPLE3 with Antialiased FALSE equal to (random cases); none comes from
// RESAMPLE3's own evaluation. Antialiased TRUE: RESAMPLE2 where the page applies no filter,
// refused (resample3.antialiased) where it stretches one.
#include "support.hpp"

#include "dmlref/descs/resample.hpp"

#include <random>

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
    // LINEAR, Scale 0.25 (1 / Scale = 4 > 2), TRUE: the stretched filter, refused.
    R3 d = resample3(DataType::FLOAT32, {2, 8}, {2, 2}, {1.0f, 0.25f}, DML_INTERPOLATION_MODE_LINEAR,
                     DML_AXIS_DIRECTION_INCREASING, 1);
    CHECK(has_error(op(d), "resample3.antialiased", "/desc/Scales/1"));
    d.Antialiased = 0;
    CHECK_FALSE(validate(op(d)).has_errors());
    d.Antialiased = 2;
    CHECK(has_error(op(d), "resample3.antialiased-bool", "/desc/Antialiased"));
    // Scale 0.49999997 (just below 0.5): 1 / Scale > 2, refused; 0.5 is not.
    R3 e = resample3(DataType::FLOAT16, {4}, {1}, {0.49999997f}, DML_INTERPOLATION_MODE_LINEAR,
                     DML_AXIS_DIRECTION_DECREASING, 1);
    CHECK(has_error(op(e), "resample3.antialiased", "/desc/Scales/0"));
    e.Scales = {0.5f};
    e.OutputTensor.Sizes = {2};
    CHECK_FALSE(validate(op(e)).has_errors());
    // RESAMPLE2's rules under RESAMPLE3's name.
    R3 f = resample3(DataType::FLOAT32, {4}, {4}, {1.0f}, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING,
                     0);
    f.Scales = {0.0f};
    CHECK(has_error(op(f), "resample3.scale-positive", "/desc/Scales/0"));
    f.Scales = {1.0f, 1.0f};
    CHECK(has_error(op(f), "resample3.array-length", "/desc/Scales"));
}
