// RESAMPLE, RESAMPLE1 and RESAMPLE2: the pages' examples, coordinates, the older operators,
// integer rounding, strides, boundary elements, validation and support tables. Expected values
// come from the RESAMPLE_GRAD1 page's example, the DirectML repo's linear upsampling data, hand
// derivation (written beside them), or the naive computation of resample_support.hpp.
#include "resample_support.hpp"

#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_resample {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::resample;

// ---- The pages' examples ------------------------------------------------------------------

TEST_CASE("resample: the RESAMPLE_GRAD1 page's example") {
    // Nearest neighbour, scales {0.5 (H), 1.5 (W)}, default offsets, DECREASING (floor):
    // H: x = (0 + 0.5) / 0.5 - 0.5 = 0.5 -> 0.
    // W: x = (o + 0.5) / 1.5 - 0.5 = -1/6, 1/2, 7/6 -> floor -1 (clamped to 0), 0, 1.
    const Geometry g = half_pixel({2, 2}, {1, 3}, {0.5f, 1.5f});
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, DOWN), std::vector<float>{1, 2, 3, 4}), {1, 1, 2});
    // dY [4, 5, 6]: X[0][0] feeds outputs 0 and 1 (4 + 5 = 9), X[0][1] output 2 (6), row 1 nothing.
    check_bits(backward(grad1(DataType::FLOAT32, g, NN, DOWN), std::vector<float>{4, 5, 6}), {9, 6, 0, 0});
}

TEST_CASE("resample: linear 2x2 -> 4x4 with half-pixel offsets (DirectML's dml_upsample_2d data)") {
    // Scale 2: x = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 -> clamped 0, 0.25, 0.75, 1.
    // Along a row [a, b]: a, 0.75a + 0.25b, 0.25a + 0.75b, b. Rows [1, 2] -> 1, 1.25, 1.75, 2 and
    // [3, 4] -> 3, 3.25, 3.75, 4; the columns mix those rows the same way: row 1 = 0.75 r0 + 0.25 r1
    // = 1.5, 1.75, 2.25, 2.5; row 2 = 0.25 r0 + 0.75 r1 = 2.5, 2.75, 3.25, 3.5.
    const Geometry g = half_pixel({2, 2}, {4, 4}, {2.0f, 2.0f});
    const std::vector<float> expected = {1,    1.25f, 1.75f, 2,    1.5f, 1.75f, 2.25f, 2.5f,
                                         2.5f, 2.75f, 3.25f, 3.5f, 3,    3.25f, 3.75f, 4};
    for (uint32_t dir : {UP, DOWN})
        check_bits(forward(resample2(DataType::FLOAT32, g, LINEAR, dir), std::vector<float>{1, 2, 3, 4}), expected);
    check_bits(forward(resample1(DataType::FLOAT32, g, LINEAR), std::vector<float>{1, 2, 3, 4}), expected);
    check_bits(forward(resample0(DataType::FLOAT32, g, LINEAR), std::vector<float>{1, 2, 3, 4}), expected);
}

// ---- Coordinates ----------------------------------------------------------------------------

TEST_CASE("resample: nearest neighbour, DECREASING is floor and INCREASING is ceil, clamped to the edges") {
    // Scale 1.5, half pixel, 2 -> 3: x = -1/6, 1/2, 7/6. floor: -1 -> 0, 0, 1; ceil: 0, 1, 2 -> 1.
    const Geometry g = half_pixel({2}, {3}, {1.5f});
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, DOWN), std::vector<float>{10, 20}), {10, 10, 20});
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, UP), std::vector<float>{10, 20}), {10, 20, 20});
    // Upsampling 4 -> 8, scale 2: x = o/2 - 0.25 = -0.25, 0.25, 0.75, ..., 3.25.
    // floor: 0,0,0,1,1,2,2,3 (first and last clamped); ceil: 0,1,1,2,2,3,3,3.
    const Geometry up = half_pixel({4}, {8}, {2.0f});
    check_bits(forward(resample2(DataType::INT32, up, NN, DOWN), std::vector<int32_t>{0, 1, 2, 3}),
               {0, 0, 0, 1, 1, 2, 2, 3});
    check_bits(forward(resample2(DataType::INT32, up, NN, UP), std::vector<int32_t>{0, 1, 2, 3}),
               {0, 1, 1, 2, 2, 3, 3, 3});
    // Downsampling 6 -> 3, scale 0.5: x = 2o + 0.5 -> floor 0, 2, 4; ceil 1, 3, 5.
    const Geometry down = half_pixel({6}, {3}, {0.5f});
    check_bits(forward(resample2(DataType::UINT16, down, NN, DOWN), std::vector<uint16_t>{0, 1, 2, 3, 4, 5}),
               {0, 2, 4});
    check_bits(forward(resample2(DataType::UINT16, down, NN, UP), std::vector<uint16_t>{0, 1, 2, 3, 4, 5}), {1, 3, 5});
    // The output may be larger than Scale * In: positions past the input clamp to the last element.
    const Geometry wide = half_pixel({2}, {6}, {1.0f});
    check_bits(forward(resample2(DataType::FLOAT32, wide, NN, DOWN), std::vector<float>{7, 8}), {7, 8, 8, 8, 8, 8});
}

TEST_CASE("resample: coordinates exactly on integers and on halves (offsets 0 / 0)") {
    // Scale 2, corner offsets: x = o / 2 = 0, 0.5, 1, 1.5, 2, 2.5 (In = 3, so 2.5 clamps to 2).
    const Geometry g = corner({3}, {6}, {2.0f});
    const std::vector<float> x = {10, 20, 40};
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, DOWN), x), {10, 10, 20, 20, 40, 40});
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, UP), x), {10, 20, 20, 40, 40, 40});
    // Linear: integers are the element itself; halves the mean: 10, 15, 20, 30, 40, 40.
    check_bits(forward(resample2(DataType::FLOAT32, g, LINEAR, UP), x), {10, 15, 20, 30, 40, 40});
    // Scale 0.5: x = 2o = 0, 2: exactly on elements 0 and 2.
    check_bits(forward(resample2(DataType::FLOAT32, corner({3}, {2}, {0.5f}), LINEAR, UP), x), {10, 40});
}

TEST_CASE("resample: non-integer scales 1.5 and 1/3 as float32") {
    // Linear, 1.5, half pixel, 2 -> 3: x = -1/6 -> 0, 1/2, 7/6 -> 1: a, (a + b) / 2, b.
    check_bits(
        forward(resample2(DataType::FLOAT32, half_pixel({2}, {3}, {1.5f}), LINEAR, DOWN), std::vector<float>{2, 6}),
        {2, 4, 6});
    // float32(1/3) = 0.3333333432674408 (a little above 1/3). 3 -> 1 with half-pixel offsets:
    // x = 0.5 / 0.3333333432674408 - 0.5 = 0.9999999552965178 in float64 (below 1), so
    // DECREASING picks floor = 0 and INCREASING ceil = 1. (In float32, 0.5f / s rounds to 1.5f
    // and x = 1 exactly: the element is a boundary, see the annotations test.)
    const Geometry third = half_pixel({3}, {1}, {float(1.0 / 3.0)});
    check_bits(forward(resample2(DataType::FLOAT32, third, NN, DOWN), std::vector<float>{0, 3, 6}), {0});
    check_bits(forward(resample2(DataType::FLOAT32, third, NN, UP), std::vector<float>{0, 3, 6}), {3});
    // Linear: taps (0, w0 = 1 - x = 4.470348224927534e-08) and (1, w1 = x); 0 * w0 + 3 * w1 =
    // 2.9999998658895533, which rounds to the float32 2.999999761581421 (0x403FFFFF): the float32
    // neighbours are 3 - 2^-22 and 3, and 3 - 2.9999998658895533 = 1.34e-7 > 2^-23 = 1.19e-7.
    const std::vector<float> y = forward(resample2(DataType::FLOAT32, third, LINEAR, UP), std::vector<float>{0, 3, 6});
    CHECK(to_bits(y[0]) == 0x403FFFFFu);
    // Same in float64: 3 * 0.9999999552965178 is exact enough to check against the product.
    const std::vector<double> yd = forward(resample2(DataType::FLOAT64, third, LINEAR, UP),
                                           std::vector<double>{0, 3, 6});
    CHECK(yd[0] == 3.0 * (0.5 / double(float(1.0 / 3.0)) - 0.5));
}

TEST_CASE("resample: downsampling with linear reads two taps per dimension (no antialiasing)") {
    // 4 -> 2, scale 0.5, half pixel: x = 2o + 0.5 -> the mean of elements 2o and 2o + 1.
    check_bits(forward(resample2(DataType::FLOAT32, half_pixel({4}, {2}, {0.5f}), LINEAR, UP),
                       std::vector<float>{1, 3, 10, 20}),
               {2, 15});
    // 2-D 4x4 -> 2x2: the mean of each 2x2 block.
    const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    check_bits(forward(resample2(DataType::FLOAT32, half_pixel({4, 4}, {2, 2}, {0.5f, 0.5f}), LINEAR, UP), x),
               {3.5f, 5.5f, 11.5f, 13.5f});
}

// ---- The older operators --------------------------------------------------------------------

TEST_CASE("resample: RESAMPLE is RESAMPLE1 with offsets 0.5 / -0.5; linear is the same in all three") {
    const Geometry g = half_pixel({3, 4}, {5, 2}, {1.5f, 0.5f});
    std::vector<float> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i * i % 7);
    for (uint32_t mode : {NN, LINEAR}) {
        INFO("mode " << mode);
        check_bits(forward(resample0(DataType::FLOAT32, g, mode), x),
                   forward(resample1(DataType::FLOAT32, g, mode), x));
    }
    check_bits(forward(resample1(DataType::FLOAT32, g, LINEAR), x),
               forward(resample2(DataType::FLOAT32, g, LINEAR, UP), x));
    std::vector<float> dy(10);
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = float(i + 1);
    check_bits(backward(grad0(DataType::FLOAT32, g, LINEAR), dy),
               backward(grad1(DataType::FLOAT32, g, LINEAR, DOWN), dy));
}

TEST_CASE("resample: old nearest neighbour = RESAMPLE2 DECREASING with OutputPixelOffsets - 0.5") {
    // The remark taken literally. Hand values, half pixel: x = (o + 1) / Scale - 0.5.
    // 2 -> 3, scale 1.5: x = 1/6, 5/6, 3/2 -> 0, 0, 1. 4 -> 8, scale 2: x = (o + 1)/2 - 0.5 = o/2
    // -> 0,0,1,1,2,2,3,3. 6 -> 3, scale 0.5: x = 2o + 1.5 -> 1, 3, 5.
    check_bits(forward(resample1(DataType::FLOAT32, half_pixel({2}, {3}, {1.5f}), NN), std::vector<float>{10, 20}),
               {10, 10, 20});
    check_bits(forward(resample1(DataType::INT8, half_pixel({4}, {8}, {2.0f}), NN), std::vector<int8_t>{0, 1, 2, 3}),
               {0, 0, 1, 1, 2, 2, 3, 3});
    check_bits(
        forward(resample0(DataType::INT8, half_pixel({6}, {3}, {0.5f}), NN), std::vector<int8_t>{0, 1, 2, 3, 4, 5}),
        {1, 3, 5});
    // The page's example under the old rule: H x = 1 / 0.5 - 0.5 = 1.5 -> row 1: [3, 3, 4].
    const Geometry page = half_pixel({2, 2}, {1, 3}, {0.5f, 1.5f});
    check_bits(forward(resample1(DataType::FLOAT32, page, NN), std::vector<float>{1, 2, 3, 4}), {3, 3, 4});
    check_bits(backward(grad0(DataType::FLOAT32, page, NN), std::vector<float>{4, 5, 6}), {0, 0, 9, 6});

    // Against RESAMPLE2 and RESAMPLE_GRAD1 with the lowered offsets, on several geometries.
    const Geometry cases[] = {half_pixel({3, 4}, {5, 2}, {1.5f, 0.5f}),
                              corner({4, 3}, {7, 3}, {2.0f, 1.0f / 3.0f}),
                              {{5}, {4}, {0.75f}, {0.25f}, {0.5f}}};
    for (const Geometry& g : cases) {
        Geometry lowered = g;
        for (float& o : lowered.OutputPixelOffsets) o -= 0.5f;
        std::vector<float> x(product(g.in)), dy(product(g.out));
        for (size_t i = 0; i < x.size(); ++i) x[i] = float(i * 3 % 11);
        for (size_t i = 0; i < dy.size(); ++i) dy[i] = float(i % 5 + 1);
        check_bits(forward(resample1(DataType::FLOAT32, g, NN), x),
                   forward(resample2(DataType::FLOAT32, lowered, NN, DOWN), x));
        check_bits(backward(grad0(DataType::FLOAT32, g, NN), dy),
                   backward(grad1(DataType::FLOAT32, lowered, NN, DOWN), dy));
        check_bits(forward(resample1(DataType::FLOAT32, g, NN), x), naive_forward(g, NN, DOWN, x, true));
    }
}

TEST_CASE("resample: integer results round half to even and saturate") {
    // Linear 2 -> 1, scale 0.5, half pixel: x = 0.5, the mean. [1, 2] -> 1.5 -> 2; [2, 3] -> 2.5 -> 2;
    // [-3, -2] -> -2.5 -> -2.
    const Geometry mean = half_pixel({2}, {1}, {0.5f});
    check_bits(forward(resample2(DataType::INT32, mean, LINEAR, UP), std::vector<int32_t>{1, 2}), {2});
    check_bits(forward(resample2(DataType::INT32, mean, LINEAR, UP), std::vector<int32_t>{2, 3}), {2});
    check_bits(forward(resample2(DataType::INT8, mean, LINEAR, UP), std::vector<int8_t>{-3, -2}), {-2});
    // Upsampling [1, 2] by 2: 1, 1.25 -> 1, 1.75 -> 2, 2.
    check_bits(
        forward(resample2(DataType::UINT8, half_pixel({2}, {4}, {2.0f}), LINEAR, UP), std::vector<uint8_t>{1, 2}),
        {1, 1, 2, 2});
    // Grads saturate: 200 + 100 = 300 -> 255 in UINT8; -100 - 100 = -200 -> -128 in INT8.
    const Geometry two = half_pixel({1}, {2}, {2.0f});
    check_bits(backward(grad1(DataType::UINT8, two, NN, DOWN), std::vector<uint8_t>{200, 100}), {255});
    check_bits(backward(grad1(DataType::INT8, two, NN, DOWN), std::vector<int8_t>{-100, -100}), {-128});
    // INT64 beyond 2^53 goes through float64: 2^62 + 1 becomes 2^62.
    const int64_t big = (int64_t(1) << 62) + 1;
    check_bits(forward(resample2(DataType::INT64, half_pixel({1}, {1}, {1.0f}), LINEAR, UP), std::vector<int64_t>{big}),
               {int64_t(1) << 62});
}

TEST_CASE("resample: nearest neighbour forward copies bits") {
    const Geometry g = half_pixel({2}, {4}, {2.0f});
    const std::vector<float> x = {from_bits<float>(0x7fc00123u), -0.0f};
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, DOWN), x), {x[0], x[0], x[0], x[1]});
    check_bits(forward(resample2(DataType::FLOAT32, g, NN, UP), x), {x[0], x[1], x[1], x[1]});
}

TEST_CASE("resample: strided tensors") {
    // Y's rows padded to 5 elements, X transposed through its strides: logical X = [[1, 2], [3, 4]].
    const Geometry g = half_pixel({2, 2}, {4, 4}, {2.0f, 2.0f});
    Operator op = resample2(DataType::FLOAT32, g, LINEAR, UP);
    auto& d = get<DML_RESAMPLE2_OPERATOR_DESC>(op.Desc);
    d.InputTensor.Strides = {1, 2};
    d.OutputTensor.Strides = {5, 1};
    const auto r = run(op, {{"InputTensor", buffer(d.InputTensor, std::vector<float>{1, 3, 2, 4})}});
    check_bits(as_values<float>(r.at("OutputTensor")),
               {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
}

// ---- Annotations ------------------------------------------------------------------------------

TEST_CASE("resample: boundary elements and term counts") {
    // Scale float32(1/3), 3 -> 1: float64 x = 0.99999995..., float32 x = 1 (see above): the
    // nearest-neighbour choice differs (floor: 0 vs 1; ceil: 1 vs 1 does not).
    const Geometry third = half_pixel({3}, {1}, {float(1.0 / 3.0)});
    CHECK(boundary(resample2(DataType::FLOAT32, third, NN, DOWN), "OutputTensor").Indices == std::vector<uint64_t>{0});
    CHECK(boundary(resample2(DataType::FLOAT32, third, NN, UP), "OutputTensor").Indices.empty());
    CHECK(boundary(resample2(DataType::FLOAT32, third, LINEAR, DOWN), "OutputTensor").Indices.empty());
    // The grad: dY[0] goes to dX[0] in float64 and to dX[1] in float32: both are flagged.
    CHECK(boundary(grad1(DataType::FLOAT32, third, NN, DOWN), "OutputGradientTensor").Indices ==
          std::vector<uint64_t>{0, 1});
    CHECK(boundary(resample2(DataType::FLOAT32, half_pixel({2, 2}, {1, 3}, {0.5f, 1.5f}), NN, DOWN), "OutputTensor")
              .Indices.empty());

    // The page's grad: dX = [[9, 6], [0, 0]] from 2, 1, 0, 0 terms.
    const Geometry page = half_pixel({2, 2}, {1, 3}, {0.5f, 1.5f});
    const auto t = operator_tolerance(grad1(DataType::FLOAT32, page, NN, DOWN), "OutputGradientTensor");
    REQUIRE(t);
    CHECK(t->Kind == "Summed");
    CHECK(t->MaxTerms == 2);
    CHECK(t->Terms == std::vector<uint32_t>{2, 1, 0, 0});
    // Forward nearest neighbour is a copy: bit for bit.
    const auto f = operator_tolerance(resample2(DataType::FLOAT32, page, NN, DOWN), "OutputTensor");
    REQUIRE(f);
    CHECK(f->Kind == "Bits");
    // Linear 2 -> 4 forward: 1, 2, 2, 1 terms (the edges clamp onto one element).
    const auto l = operator_tolerance(resample2(DataType::FLOAT32, half_pixel({2}, {4}, {2.0f}), LINEAR, UP),
                                      "OutputTensor");
    REQUIRE(l);
    CHECK(l->Kind == "Summed");
    CHECK(l->Terms == std::vector<uint32_t>{1, 2, 2, 1});
    // Nearest-neighbour grads with at most one term per element are sums too (a NaN sum matches
    // any NaN; docs/tolerance.md); each element's bound comes from its own terms.
    const auto one = operator_tolerance(grad1(DataType::FLOAT32, half_pixel({4}, {2}, {0.5f}), NN, UP),
                                        "OutputGradientTensor");
    CHECK(one->Kind == "Summed");
    CHECK(one->MaxTerms == 1);
}

// ---- Validation -------------------------------------------------------------------------------

TEST_CASE("resample validation") {
    const Geometry g = half_pixel({2, 2}, {4, 4}, {2.0f, 2.0f});
    auto op2 = [&] { return resample2(DataType::FLOAT32, g, LINEAR, UP); };
    auto d2 = [](Operator& op) -> DML_RESAMPLE2_OPERATOR_DESC& { return get<DML_RESAMPLE2_OPERATOR_DESC>(op.Desc); };
    CHECK_FALSE(validate(op2()).has_errors());
    CHECK_FALSE(validate(resample0(DataType::FLOAT32, g, NN)).has_errors());
    CHECK_FALSE(validate(resample1(DataType::FLOAT32, g, NN)).has_errors());
    CHECK_FALSE(validate(grad0(DataType::FLOAT32, g, NN)).has_errors());
    CHECK_FALSE(validate(grad1(DataType::FLOAT32, g, NN, DOWN)).has_errors());

    SUBCASE("same DataType") {
        Operator op = op2();
        d2(op).OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op, "resample2.same-data-type", "/desc/OutputTensor/DataType"));
        Operator gr = grad1(DataType::FLOAT32, g, NN, DOWN);
        get<DML_RESAMPLE_GRAD1_OPERATOR_DESC>(gr.Desc).InputGradientTensor.DataType = DataType::INT8;
        CHECK(has_error(gr, "resample-grad1.same-data-type", "/desc/InputGradientTensor/DataType"));
    }
    SUBCASE("DimensionCount equals both tensors' rank") {
        Operator op = op2();
        d2(op).OutputTensor.Sizes = {1, 4, 4};
        CHECK(has_error(op, "resample2.dimension-count", "/desc/DimensionCount"));
        Operator v0 = resample0(DataType::FLOAT32, g, NN);
        get<DML_RESAMPLE_OPERATOR_DESC>(v0.Desc).ScaleCount = 3;
        CHECK(has_error(v0, "resample.dimension-count", "/desc/ScaleCount"));
    }
    SUBCASE("array lengths") {
        for (const char* name : {"Scales", "InputPixelOffsets", "OutputPixelOffsets"}) {
            Operator op = op2();
            auto& d = d2(op);
            std::vector<float>* a = std::string(name) == "Scales"              ? &d.Scales
                                    : std::string(name) == "InputPixelOffsets" ? &d.InputPixelOffsets
                                                                               : &d.OutputPixelOffsets;
            a->push_back(1.0f);
            INFO(name);
            CHECK(has_error(op, "resample2.array-length", std::string("/desc/") + name));
        }
        Operator v1 = resample1(DataType::FLOAT32, g, NN);
        get<DML_RESAMPLE1_OPERATOR_DESC>(v1.Desc).OutputPixelOffsets.pop_back();
        CHECK(has_error(v1, "resample1.array-length", "/desc/OutputPixelOffsets"));
    }
    SUBCASE("enum values") {
        Operator op = op2();
        d2(op).InterpolationMode = 2;
        CHECK(has_error(op, "resample2.interpolation-mode", "/desc/InterpolationMode"));
        op = op2();
        d2(op).RoundingDirection = 2;
        CHECK(has_error(op, "resample2.rounding-direction", "/desc/RoundingDirection"));
        Operator gr = grad0(DataType::FLOAT32, g, NN);
        get<DML_RESAMPLE_GRAD_OPERATOR_DESC>(gr.Desc).InterpolationMode = 7;
        CHECK(has_error(gr, "resample-grad.interpolation-mode", "/desc/InterpolationMode"));
    }
    SUBCASE("Scales finite and > 0") {
        for (float s :
             {0.0f, -0.0f, -2.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
            Operator op = op2();
            d2(op).Scales[1] = s;
            INFO(s);
            CHECK(has_error(op, "resample2.scale-positive", "/desc/Scales/1"));
        }
    }
    SUBCASE("offsets finite") {
        Operator op = op2();
        d2(op).InputPixelOffsets[0] = std::numeric_limits<float>::infinity();
        CHECK(has_error(op, "resample2.offset-finite", "/desc/InputPixelOffsets/0"));
        op = op2();
        d2(op).OutputPixelOffsets[1] = std::numeric_limits<float>::quiet_NaN();
        CHECK(has_error(op, "resample2.offset-finite", "/desc/OutputPixelOffsets/1"));
    }
    SUBCASE("an enum name that is not a value, in JSON") {
        const std::string text = R"({"format": 1, "name": "x", "operator": "DML_OPERATOR_RESAMPLE2", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]},
            "InterpolationMode": "CUBIC", "RoundingDirection": "DECREASING", "DimensionCount": 1,
            "Scales": [2], "InputPixelOffsets": [0.5], "OutputPixelOffsets": [-0.5]}, "inputs": {"InputTensor": [1, 2]}})";
        CHECK(first_error(diagnose(text)).find("[case.enum]") != std::string::npos);
    }
}

TEST_CASE("resample: support tables") {
    const Geometry g4 = half_pixel({1, 1, 2, 2}, {1, 1, 4, 4}, {1, 1, 2, 2});
    const Geometry g2 = half_pixel({2, 2}, {4, 4}, {2, 2});
    CHECK(lowest_supporting_feature_level(resample0(DataType::FLOAT32, g4, NN), nullptr) == 0x2000u);
    CHECK(lowest_supporting_feature_level(resample0(DataType::FLOAT32, g2, NN), nullptr) == 0x5100u);
    CHECK(lowest_supporting_feature_level(resample1(DataType::FLOAT16, g4, LINEAR), nullptr) == 0x2100u);
    CHECK(lowest_supporting_feature_level(resample2(DataType::FLOAT32, g2, NN, UP), nullptr) == 0x5100u);
    CHECK(lowest_supporting_feature_level(resample2(DataType::UINT8, g2, NN, UP), nullptr) == 0x6200u);
    CHECK(lowest_supporting_feature_level(resample2(DataType::INT32, g2, NN, UP), nullptr) == std::nullopt);
    CHECK(lowest_supporting_feature_level(grad0(DataType::FLOAT16, g4, NN), nullptr) == 0x3000u);
    CHECK(lowest_supporting_feature_level(grad1(DataType::FLOAT32, g2, NN, UP), nullptr) == 0x5100u);
    CHECK(lowest_supporting_feature_level(grad1(DataType::INT8, g2, NN, UP), nullptr) == std::nullopt);
    const Geometry g5 = half_pixel({1, 1, 1, 2, 2}, {1, 1, 1, 4, 4}, {1, 1, 1, 2, 2});
    CHECK(lowest_supporting_feature_level(resample2(DataType::FLOAT32, g5, NN, UP), nullptr) == std::nullopt);
}

TEST_CASE("resample: Boundary and Tolerance.Terms are written in goldens and read back") {
    const Geometry third = half_pixel({3}, {1}, {float(1.0 / 3.0)});
    Case c;
    c.name = "boundary";
    c.op = grad1(DataType::FLOAT32, third, NN, DOWN);
    c.inputs["InputGradientTensor"] = buffer(desc(DataType::FLOAT32, {1}), std::vector<float>{5});
    c.input_specs["InputGradientTensor"] = json::array({5});
    const std::string golden = write_golden(c, run_case(c), "mem.json");
    Diagnostics d;
    const Case back = parse_case(parse_json_text(golden), "mem.json", d);
    for (const auto& item : d.items()) INFO(format(item, "mem.json"));
    REQUIRE_FALSE(d.has_errors());
    const ExpectedOutput& e = back.expected.at("OutputGradientTensor");
    CHECK(e.boundary.Indices == std::vector<uint64_t>{0, 1});
    CHECK(e.tolerance.Kind == "Summed");  // one term of weight 1 per element: a sum all the same
    CHECK(e.tolerance.MaxTerms == 1);
    check_bits(as_values<float>(e.values), {5, 0, 0});  // dY[0] goes to dX[0] (float64 floor)
    CHECK(write_golden(back, run_case(back), "mem.json") == golden);

    // Summed with per-element Terms (the page's grad), read back and written again unchanged.
    c.op = grad1(DataType::FLOAT32, half_pixel({2, 2}, {1, 3}, {0.5f, 1.5f}), NN, DOWN);
    c.inputs["InputGradientTensor"] = buffer(desc(DataType::FLOAT32, {1, 3}), std::vector<float>{4, 5, 6});
    c.input_specs["InputGradientTensor"] = json::array({4, 5, 6});
    const std::string summed = write_golden(c, run_case(c), "mem.json");
    Diagnostics d2;
    const Case back2 = parse_case(parse_json_text(summed), "mem.json", d2);
    REQUIRE_FALSE(d2.has_errors());
    CHECK(back2.expected.at("OutputGradientTensor").tolerance.Terms == std::vector<uint32_t>{2, 1, 0, 0});
    CHECK(write_golden(back2, run_case(back2), "mem.json") == summed);

    // Malformed annotations are errors.
    std::string bad = summed;
    bad.replace(bad.find("\"Terms\": [2, 1, 0, 0]"), 21, "\"Terms\": [2, 1]");
    CHECK(first_error(diagnose(bad)).find("[expected.tolerance]") != std::string::npos);
}

}  // namespace dmlref_test_resample
