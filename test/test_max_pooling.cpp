// MAX_POOLING, MAX_POOLING1 and MAX_POOLING2: the argmax rules, geometry, validation, support
// tables and boundary elements. Expected values come from the MAX_POOLING_GRAD page's example,
// from hand derivation (written beside them), or from the naive argmax of pooling_support.hpp,
// which finds each window's maximum first and then the lowest logical index holding it (not
// the reference's scan).
#include "pooling_support.hpp"
#include "../reference/max_pooling.hpp"

#include <cmath>
#include <limits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_max_pooling {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::max_pool;

// ---- The page's example ----------------------------------------------------------------------

TEST_CASE("max pooling: the MAX_POOLING_GRAD page's example") {
    // X = [[1,2,3],[2,4,2],[5,6,7]], 2x2 window, stride 1, no padding.
    const Geometry g = plain({1, 1, 3, 3}, {2, 2});
    const auto x = values_of<float>({1, 2, 3, 2, 4, 2, 5, 6, 7});
    const auto [y, idx] = forward(g, x);
    check_bits(y, values_of<float>({4, 4, 6, 7}));
    CHECK(idx == std::vector<uint32_t>{4, 4, 7, 8});
    // dY [[1,2],[4,5]] -> dX [[0,0,0],[0,3,0],[0,4,5]]: the centre 4 wins two windows, 1 + 2.
    check_bits(backward(g, x, values_of<float>({1, 2, 4, 5})), values_of<float>({0, 0, 0, 0, 3, 0, 0, 4, 5}));
    // The term counts: 2 at the centre, 1 at 6 and 7.
    const Operator op = pool_grad(DataType::FLOAT32, g);
    const auto& d = get<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc);
    const auto xb = buffer(d.InputTensor, x);
    CHECK(max_pooling_grad_term_counts(d, xb) == std::vector<uint32_t>{0, 0, 0, 0, 2, 0, 0, 1, 1});
}

TEST_CASE("max pooling: MAX_POOLING and MAX_POOLING1 agree with MAX_POOLING2") {
    const Geometry g = plain({1, 1, 3, 3}, {2, 2});
    const auto x = values_of<float>({1, 2, 3, 2, 4, 2, 5, 6, 7});
    const TensorDesc in = desc(DataType::FLOAT32, {1, 1, 3, 3}), out = desc(DataType::FLOAT32, {1, 1, 2, 2});
    DML_MAX_POOLING_OPERATOR_DESC d0{in, out, 2, {1, 1}, {2, 2}, {0, 0}, {0, 0}};
    auto r0 = run({OperatorType::MAX_POOLING, d0}, {{"InputTensor", buffer(in, x)}});
    check_bits(as_values<float>(r0.at("OutputTensor")), values_of<float>({4, 4, 6, 7}));
    DML_MAX_POOLING1_OPERATOR_DESC d1{in, out, desc(DataType::UINT64, {1, 1, 2, 2}), 2, {1, 1}, {2, 2}, {0, 0}, {0, 0}};
    auto r1 = run({OperatorType::MAX_POOLING1, d1}, {{"InputTensor", buffer(in, x)}});
    check_bits(as_values<float>(r1.at("OutputTensor")), values_of<float>({4, 4, 6, 7}));
    CHECK(as_values<uint64_t>(r1.at("OutputIndicesTensor")) == std::vector<uint64_t>{4, 4, 7, 8});
}

// ---- Argmax rules ----------------------------------------------------------------------------

TEST_CASE("max pooling: ties go to the lowest logical index") {
    // One 2x2 window over [[3,1],[3,3]]: three 3s; the first (index 0) wins.
    const Geometry g = plain({1, 1, 2, 2}, {2, 2});
    auto [y, idx] = forward(g, values_of<float>({3, 1, 3, 3}));
    CHECK(idx == std::vector<uint32_t>{0});
    // The same with the first 3 elsewhere: [[1,3],[3,3]] -> index 1.
    std::tie(y, idx) = forward(g, values_of<float>({1, 3, 3, 3}));
    CHECK(idx == std::vector<uint32_t>{1});
    // The grad sends the gradient to that element only.
    check_bits(backward(g, values_of<float>({1, 3, 3, 3}), values_of<float>({5})), values_of<float>({0, 5, 0, 0}));
    SUBCASE("-0 and +0 tie: the first one's bits are the value") {
        const float n0 = -0.0f, p0 = 0.0f, m = -1.0f;
        std::tie(y, idx) = forward(g, std::vector<float>{m, n0, p0, m});
        check_bits(y, std::vector<float>{n0});
        CHECK(idx == std::vector<uint32_t>{1});
        std::tie(y, idx) = forward(g, std::vector<float>{m, p0, n0, m});
        check_bits(y, std::vector<float>{p0});
        CHECK(idx == std::vector<uint32_t>{1});
    }
}

TEST_CASE("max pooling: NaN loses to any number and wins only when every candidate is NaN") {
    const Geometry g = plain({1, 1, 1, 4}, {1, 4});  // one window of 4
    const float nan1 = from_bits<float>(0x7fc00001u), nan2 = from_bits<float>(0xffc00002u);
    const float inf = std::numeric_limits<float>::infinity();
    struct Row {
        std::vector<float> x;
        uint32_t index;
    };
    const Row rows[] = {
        {{nan1, 1, 2, 0}, 2},           // first
        {{1, nan1, 2, 0}, 2},           // middle
        {{1, 2, 0, nan1}, 1},           // last
        {{nan1, -inf, nan2, -inf}, 1},  // NaN loses even to -inf
        {{nan2, nan1, nan1, nan2}, 0},  // everywhere: the first NaN, its bits
    };
    for (const auto& r : rows) {
        INFO("x = " << r.x[0] << " " << r.x[1] << " " << r.x[2] << " " << r.x[3]);
        const auto [y, idx] = forward(g, r.x);
        CHECK(idx == std::vector<uint32_t>{r.index});
        check_bits(y, std::vector<float>{r.x[r.index]});
    }
    SUBCASE("FLOAT16 and FLOAT64 the same") {
        const half hn = from_bits<half>(0x7e01);
        auto [yh, ih] = forward(g, std::vector<half>{hn, value_of<half>(-2), hn, value_of<half>(-3)});
        CHECK(ih == std::vector<uint32_t>{1});
        auto [yh2, ih2] = forward(g, std::vector<half>{hn, from_bits<half>(0xfe02), hn, hn});
        CHECK(ih2 == std::vector<uint32_t>{0});
        CHECK(to_bits(yh2[0]) == 0x7e01);
        const double dn = std::numeric_limits<double>::quiet_NaN();
        auto [yd, id] = forward(g, std::vector<double>{-1e300, dn, 5e-324, dn});
        CHECK(id == std::vector<uint32_t>{2});
    }
    SUBCASE("the grad routes to the same element") {
        check_bits(backward(g, std::vector<float>{1, nan1, 2, 0}, std::vector<float>{7}),
                   std::vector<float>{0, 0, 7, 0});
        check_bits(backward(g, std::vector<float>{nan2, nan1, nan1, nan2}, std::vector<float>{7}),
                   std::vector<float>{7, 0, 0, 0});
    }
}

TEST_CASE("max pooling: windows of -inf") {
    const float inf = std::numeric_limits<float>::infinity();
    const Geometry g = plain({1, 1, 1, 3}, {1, 2});  // windows {0,1} and {1,2}
    const auto [y, idx] = forward(g, std::vector<float>{-inf, -inf, -inf});
    check_bits(y, std::vector<float>{-inf, -inf});
    CHECK(idx == std::vector<uint32_t>{0, 1});
    check_bits(backward(g, std::vector<float>{-inf, -inf, -inf}, std::vector<float>{1, 2}),
               std::vector<float>{1, 2, 0});
}

// ---- Geometry --------------------------------------------------------------------------------

TEST_CASE("max pooling: dilation > 1") {
    // X = [1,5,2,4,3], window 2, dilation 2: dilated window 3, out (5 - 3) / 1 + 1 = 3.
    // o0 reads 0,2 -> 2 at 2; o1 reads 1,3 -> 5 at 1; o2 reads 2,4 -> 3 at 4.
    Geometry g = plain({1, 1, 1, 5}, {1, 2});
    g.Dilations = {1, 2};
    const auto x = values_of<float>({1, 5, 2, 4, 3});
    const auto [y, idx] = forward(g, x);
    check_bits(y, values_of<float>({2, 5, 3}));
    CHECK(idx == std::vector<uint32_t>{2, 1, 4});
    // Grad: dY [10, 20, 30] -> dX [0, 20, 10, 0, 30].
    check_bits(backward(g, x, values_of<float>({10, 20, 30})), values_of<float>({0, 20, 10, 0, 30}));
}

TEST_CASE("max pooling: asymmetric padding; padding never wins") {
    // X = [-1,-2,-3,-4], window 2, stride 2, StartPadding 1, EndPadding 0: padded 5, floor
    // (5 - 2) / 2 + 1 = 2, remainder 1, so ceil mode gives 3.
    // o0 reads -1 (padding), 0 -> -1 at 0 (a padding 0 would have won); o1 reads 1,2 -> -2 at 1;
    // ceil mode o2 reads 3, 4 (beyond the padded input) -> -4 at 3.
    Geometry g = plain({1, 1, 1, 4}, {1, 2});
    g.Strides = {1, 2};
    g.StartPadding = {0, 1};
    const auto x = values_of<float>({-1, -2, -3, -4});
    auto [y, idx] = forward(g, x);
    check_bits(y, values_of<float>({-1, -2}));
    CHECK(idx == std::vector<uint32_t>{0, 1});
    std::tie(y, idx) = forward(g, x, {1, 1, 1, 3});
    check_bits(y, values_of<float>({-1, -2, -4}));
    CHECK(idx == std::vector<uint32_t>{0, 1, 3});
    check_bits(backward(g, x, values_of<float>({1, 2, 3}), {1, 1, 1, 3}), values_of<float>({1, 2, 0, 3}));
}

TEST_CASE("max pooling: windows entirely in padding are don't care and send no gradient") {
    // X = [5,6], window 1, StartPadding 2: out (4 - 1) / 1 + 1 = 4; o0, o1 read -2, -1 (padding).
    Geometry g = plain({1, 1, 1, 2}, {1, 1});
    g.StartPadding = {0, 2};
    const auto x = values_of<float>({5, 6});
    const auto [y, idx] = forward(g, x);
    check_bits(y, values_of<float>({0, 0, 5, 6}));  // +0 written where undefined
    CHECK(idx == std::vector<uint32_t>{0, 0, 0, 1});
    const Operator op = pool2(DataType::FLOAT32, g);
    for (const char* output : {"OutputTensor", "OutputIndicesTensor"}) {
        const auto dc = dont_care(op, output);
        REQUIRE(dc.size() == 2);
        CHECK(dc[0].Index == 0);
        CHECK(dc[1].Index == 1);
        CHECK(dc[0].Reason.find("EmptyWindow") == 0);
    }
    CHECK(dont_care(pool_grad(DataType::FLOAT32, g), "OutputGradientTensor").empty());
    // dY [1,2,3,4] -> dX [3,4]: the first two send nothing.
    check_bits(backward(g, x, values_of<float>({1, 2, 3, 4})), values_of<float>({3, 4}));
    SUBCASE("write_golden records them") {
        Case c;
        c.name = "t";
        c.op = op;
        c.inputs["InputTensor"] = buffer(desc(DataType::FLOAT32, g.in), x);
        c.input_specs["InputTensor"] = json::array({5, 6});
        const std::string text = write_golden(c, run_case(c), "t.json");
        CHECK(text.find("\"DontCare\"") != std::string::npos);
        CHECK(text.find("EmptyWindow") != std::string::npos);
    }
}

TEST_CASE("max pooling: 5-D") {
    // One 2x2x2 window over 8 values per channel, two channels.
    const Geometry g = plain({1, 2, 2, 2, 2}, {2, 2, 2});
    const auto x = values_of<float>({3, 1, 4, 1, 5, 9, 2, 6, /**/ 5, 3, 5, 8, 9, 7, 9, 3});
    const auto [y, idx] = forward(g, x);
    check_bits(y, values_of<float>({9, 9}));
    CHECK(idx == std::vector<uint32_t>{5, 12});  // second channel: 9 at 8+4 first, not 8+6
    check_bits(backward(g, x, values_of<float>({1, 2})),
               values_of<float>({0, 0, 0, 0, 0, 1, 0, 0, /**/ 0, 0, 0, 0, 2, 0, 0, 0}));
}

TEST_CASE("max pooling: indices are logical, whatever the input's Strides") {
    // The page's X stored transposed (Strides {9,9,1,3}): logical [[1,2,3],[2,4,2],[5,6,7]].
    const Geometry g = plain({1, 1, 3, 3}, {2, 2});
    Operator op = pool2(DataType::FLOAT32, g);
    auto& d = get<DML_MAX_POOLING2_OPERATOR_DESC>(op.Desc);
    d.InputTensor.Strides = {9, 9, 1, 3};
    auto r = run(op, {{"InputTensor", logical_buffer(d.InputTensor, values_of<float>({1, 2, 3, 2, 4, 2, 5, 6, 7}))}});
    check_bits(as_values<float>(r.at("OutputTensor")), values_of<float>({4, 4, 6, 7}));
    CHECK(as_values<uint32_t>(r.at("OutputIndicesTensor")) == std::vector<uint32_t>{4, 4, 7, 8});
}

TEST_CASE("max pooling: ceil-mode sizes and rank 3") {
    // Rank 3: X = [1,3,2,5,4], window 2, stride 2: floor 2 ([1,3] [2,5]), ceil 3 (+ [4]).
    Geometry g = plain({1, 1, 5}, {2});
    g.Strides = {2};
    const auto x = values_of<int32_t>({1, 3, 2, 5, 4});
    auto [y, idx] = forward(g, x, {1, 1, 3});
    CHECK(y == values_of<int32_t>({3, 5, 4}));
    CHECK(idx == std::vector<uint32_t>{1, 3, 4});
}

// ---- Validation: one test per rule ------------------------------------------------------------

TEST_CASE("max pooling validation") {
    const Geometry g = plain({1, 1, 3, 3}, {2, 2});
    auto op2 = [&] { return pool2(DataType::FLOAT32, g); };
    auto d2 = [](Operator& op) -> DML_MAX_POOLING2_OPERATOR_DESC& {
        return get<DML_MAX_POOLING2_OPERATOR_DESC>(op.Desc);
    };
    CHECK_FALSE(validate(op2()).has_errors());
    CHECK_FALSE(validate(pool_grad(DataType::FLOAT32, g)).has_errors());

    SUBCASE("rank below 3") {
        Operator op = op2();
        auto& d = d2(op);
        d.InputTensor.Sizes = {3, 3};
        d.OutputTensor.Sizes = {2, 2};
        d.OutputIndicesTensor->Sizes = {2, 2};
        d.DimensionCount = 0;
        d.Strides = d.WindowSize = d.StartPadding = d.EndPadding = d.Dilations = {};
        CHECK(has_error(op, "max-pooling2.rank", "/desc/InputTensor/Sizes"));
        d.InputTensor.Sizes = {9};
        CHECK(has_error(op, "max-pooling2.rank", "/desc/InputTensor/Sizes"));
    }
    SUBCASE("DimensionCount = rank - 2") {
        Operator op = op2();
        d2(op).DimensionCount = 3;
        CHECK(has_error(op, "max-pooling2.dimension-count", "/desc/DimensionCount"));
    }
    SUBCASE("array lengths") {
        for (const char* name : {"Strides", "WindowSize", "StartPadding", "EndPadding", "Dilations"}) {
            Operator op = op2();
            auto& d = d2(op);
            std::vector<uint32_t>* a = std::string(name) == "Strides"        ? &d.Strides
                                       : std::string(name) == "WindowSize"   ? &d.WindowSize
                                       : std::string(name) == "StartPadding" ? &d.StartPadding
                                       : std::string(name) == "EndPadding"   ? &d.EndPadding
                                                                             : &d.Dilations;
            a->push_back(1);
            INFO(name);
            CHECK(has_error(op, "max-pooling2.array-length", std::string("/desc/") + name));
        }
    }
    SUBCASE("zero stride, window and dilation") {
        Operator op = op2();
        d2(op).Strides[1] = 0;
        CHECK(has_error(op, "max-pooling2.stride-nonzero", "/desc/Strides/1"));
        op = op2();
        d2(op).WindowSize[0] = 0;
        CHECK(has_error(op, "max-pooling2.window-nonzero", "/desc/WindowSize/0"));
        op = op2();
        d2(op).Dilations[1] = 0;
        CHECK(has_error(op, "max-pooling2.dilation-nonzero", "/desc/Dilations/1"));
    }
    SUBCASE("output sizes: floor or ceil only, named in the message") {
        Operator op = op2();
        d2(op).OutputTensor.Sizes = {1, 1, 2, 3};
        d2(op).OutputIndicesTensor->Sizes = {1, 1, 2, 3};
        CHECK(has_error(op, "max-pooling2.output-size", "/desc/OutputTensor/Sizes/3"));
        // With a remainder both sizes are allowed, and the message names them.
        Geometry g5 = plain({1, 1, 1, 5}, {1, 2});
        g5.Strides = {1, 2};
        CHECK_FALSE(validate(pool2(DataType::FLOAT32, g5, std::nullopt, {1, 1, 1, 2})).has_errors());
        CHECK_FALSE(validate(pool2(DataType::FLOAT32, g5, std::nullopt, {1, 1, 1, 3})).has_errors());
        const Diagnostics d = validate(pool2(DataType::FLOAT32, g5, std::nullopt, {1, 1, 1, 4}));
        REQUIRE(d.has_errors());
        CHECK(first_error(d).find("2 (floor) or 3 (ceil mode)") != std::string::npos);
    }
    SUBCASE("the window must fit the padded input") {
        Operator op = pool2(DataType::FLOAT32, plain({1, 1, 3, 3}, {2, 2}), DataType::UINT32, {1, 1, 1, 2});
        d2(op).WindowSize = {4, 2};
        CHECK(has_error(op, "max-pooling2.window-fits", "/desc/WindowSize/0"));
    }
    SUBCASE("batch and channel, DimensionCount and DataType of the output") {
        Operator op = op2();
        d2(op).OutputTensor.Sizes[1] = 2;
        d2(op).OutputIndicesTensor->Sizes[1] = 2;
        CHECK(has_error(op, "max-pooling2.batch-channel", "/desc/OutputTensor/Sizes/1"));
        op = op2();
        d2(op).OutputTensor.Sizes = {1, 1, 1, 2, 2};
        d2(op).OutputIndicesTensor->Sizes = {1, 1, 1, 2, 2};
        CHECK(has_error(op, "max-pooling2.same-dimension-count", "/desc/OutputTensor/Sizes"));
        op = op2();
        d2(op).OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op, "max-pooling2.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("indices: UINT32 or UINT64, the output's sizes") {
        Operator op = pool2(DataType::FLOAT32, g, DataType::INT32);
        CHECK(has_error(op, "max-pooling2.indices-data-type", "/desc/OutputIndicesTensor/DataType"));
        op = op2();
        d2(op).OutputIndicesTensor->Sizes = {1, 1, 2, 1};
        CHECK(has_error(op, "max-pooling2.indices-sizes", "/desc/OutputIndicesTensor/Sizes"));
    }
    SUBCASE("MAX_POOLING and MAX_POOLING1 use their own rule names") {
        const TensorDesc in = desc(DataType::FLOAT32, {1, 1, 3, 3}), out = desc(DataType::FLOAT32, {1, 1, 2, 2});
        DML_MAX_POOLING_OPERATOR_DESC d0{in, out, 2, {1, 0}, {2, 2}, {0, 0}, {0, 0}};
        CHECK(has_error({OperatorType::MAX_POOLING, d0}, "max-pooling.stride-nonzero", "/desc/Strides/1"));
        DML_MAX_POOLING1_OPERATOR_DESC d1{in,     out,   desc(DataType::FLOAT32, {1, 1, 2, 2}), 2, {1, 1}, {2, 2},
                                          {0, 0}, {0, 0}};
        CHECK(has_error({OperatorType::MAX_POOLING1, d1}, "max-pooling1.indices-data-type",
                        "/desc/OutputIndicesTensor/DataType"));
    }
    SUBCASE("MAX_POOLING_GRAD") {
        auto dg = [](Operator& op) -> DML_MAX_POOLING_GRAD_OPERATOR_DESC& {
            return get<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc);
        };
        Operator op = pool_grad(DataType::FLOAT32, g);
        dg(op).OutputGradientTensor.Sizes = {1, 1, 3, 4};
        CHECK(has_error(op, "max-pooling-grad.same-sizes", "/desc/OutputGradientTensor/Sizes"));
        op = pool_grad(DataType::FLOAT32, g);
        dg(op).InputGradientTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op, "max-pooling-grad.same-data-type", "/desc/InputGradientTensor/DataType"));
        op = pool_grad(DataType::FLOAT32, g);
        dg(op).InputGradientTensor.Sizes = {1, 1, 2, 1};
        CHECK(has_error(op, "max-pooling-grad.output-size", "/desc/InputGradientTensor/Sizes/3"));
        op = pool_grad(DataType::FLOAT32, g);
        dg(op).Dilations = {1};
        CHECK(has_error(op, "max-pooling-grad.array-length", "/desc/Dilations"));
        op = pool_grad(DataType::FLOAT32, g);
        dg(op).DimensionCount = 1;
        CHECK(has_error(op, "max-pooling-grad.dimension-count", "/desc/DimensionCount"));
    }
}

TEST_CASE("max pooling: support tables") {
    const Geometry g = plain({1, 1, 3, 3}, {2, 2});
    CHECK(lowest_supporting_feature_level(pool2(DataType::FLOAT32, g), nullptr) == 0x2100u);
    CHECK(lowest_supporting_feature_level(pool2(DataType::FLOAT32, g, DataType::UINT64), nullptr) == 0x5000u);
    CHECK(lowest_supporting_feature_level(pool2(DataType::INT8, g), nullptr) == 0x3000u);
    CHECK(lowest_supporting_feature_level(pool2(DataType::FLOAT64, g), nullptr) == std::nullopt);
    CHECK(lowest_supporting_feature_level(pool_grad(DataType::FLOAT16, g), nullptr) == 0x3000u);
    CHECK(lowest_supporting_feature_level(pool_grad(DataType::FLOAT16, plain({1, 1, 2, 2, 2}, {1, 1, 1})), nullptr) ==
          0x4000u);
    CHECK(lowest_supporting_feature_level(pool_grad(DataType::INT32, g), nullptr) == std::nullopt);
}

// Argmax ties are decision boundaries (docs/tolerance.md). X (1x2x2x3):
//   channel 0 [[3,3,1],[3,3,3]]: window 0 = {0,1,3,4} all 3: tied; window 1 = {1,2,4,5} = 3,1,3,3: tied at 1,4,5.
//   channel 1 [[-0,+0,-0],[+0,+0,+0]]: -0 == +0, so both windows tie on all four elements.
// Forward: all four outputs sit on a tie. Grad: every dX element tied in some window, that is
// all but element 2 (the 1).
TEST_CASE("max pooling: argmax ties are reported as boundary elements") {
    const TensorDesc x = desc(DataType::FLOAT32, {1, 2, 2, 3});
    const TensorDesc y = desc(DataType::FLOAT32, {1, 2, 1, 2});
    const auto xb = buffer<float>(x, {3, 3, 1, 3, 3, 3, -0.0f, 0, -0.0f, 0, 0, 0});
    DML_MAX_POOLING2_OPERATOR_DESC f;
    f.InputTensor = x;
    f.OutputTensor = y;
    f.DimensionCount = 2;
    f.Strides = {1, 1};
    f.WindowSize = {2, 2};
    f.StartPadding = f.EndPadding = {0, 0};
    f.Dilations = {1, 1};
    CHECK(max_pooling_argmax_ties({OperatorType::MAX_POOLING2, f}, xb) == std::vector<uint64_t>{0, 1, 2, 3});
    DML_MAX_POOLING_GRAD_OPERATOR_DESC g;
    g.InputTensor = g.OutputGradientTensor = x;
    g.InputGradientTensor = y;
    g.DimensionCount = 2;
    g.Strides = {1, 1};
    g.WindowSize = {2, 2};
    g.StartPadding = g.EndPadding = {0, 0};
    g.Dilations = {1, 1};
    CHECK(max_pooling_argmax_ties({OperatorType::MAX_POOLING_GRAD, g}, xb) ==
          std::vector<uint64_t>{0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    // Distinct values: no ties anywhere.
    const auto distinct = buffer<float>(x, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    CHECK(max_pooling_argmax_ties({OperatorType::MAX_POOLING_GRAD, g}, distinct).empty());
}

}  // namespace dmlref_test_max_pooling
