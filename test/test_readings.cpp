// Alternative readings (docs/golden.md, "Alternative readings"): each evaluated on a small case
// whose values under the reading are derived by hand in the comments; the default reading of the
// same case is checked too, so a branch that leaks into the default fails. Also: --policy's
// parsing, a case's policies naming an alternative, and the golden recording it.
#include "support.hpp"

#include "dmlref/json_document.hpp"
#include "dmlref/readings.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_readings {

using namespace dmlref;
using namespace dmlref::test;
namespace fs = std::filesystem;

namespace {

Case from_text(const std::string& text) { return parse_valid(text, "mem.json"); }

// Bits of a FLOAT32 output of `c` run under `reading` ("" for the default).
std::vector<uint32_t> f32_out(Case c, const std::string& output, const std::string& reading) {
    if (!reading.empty()) {
        Diagnostics d;
        auto p = parse_policy_option(reading, d);
        REQUIRE(p);
        c.policies[p->first] = p->second;
    }
    return as_values<uint32_t>(run_case(c).values.at(output));
}

std::string unary(const std::string& op, const std::string& x, const std::string& dy, const std::string& extra = "") {
    const std::string t = R"({"DataType": "FLOAT32", "Sizes": [N]})";
    auto n = std::to_string(std::count(x.begin(), x.end(), ',') + 1);
    auto td = t;
    td.replace(td.find('N'), 1, n);
    std::string desc = dy.empty() ? R"("InputTensor": )" + td + R"(, "OutputTensor": )" + td
                                  : R"("InputTensor": )" + td + R"(, "InputGradientTensor": )" + td +
                                        R"(, "OutputGradientTensor": )" + td;
    std::string inputs = R"("InputTensor": [)" + x + "]" +
                         (dy.empty() ? "" : R"(, "InputGradientTensor": [)" + dy + "]");
    return R"({"format": 1, "operator": ")" + op + R"(", "desc": {)" + desc + extra + R"(}, "inputs": {)" + inputs +
           "}}";
}

constexpr uint32_t kNaN = 0x7fc00000, kPos0 = 0, kNeg0 = 0x80000000;
uint32_t bits(float f) { return to_bits(f); }

}  // namespace

TEST_CASE("ArgmaxNaN=NaNWins: the window's last NaN is the argmax; by default NaN loses to any number") {
    // One channel, 1x4 window over [1, nan(0x7fc00001), 5, nan(0x7fc00002)].
    const Case c = from_text(R"({"format": 1, "operator": "MAX_POOLING1", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 1]},
        "OutputIndicesTensor": {"DataType": "UINT32", "Sizes": [1, 1, 1, 1]}, "DimensionCount": 2, "Strides": [1, 1],
        "WindowSize": [1, 4], "StartPadding": [0, 0], "EndPadding": [0, 0]},
        "inputs": {"InputTensor": [1, "0x7fc00001", 5, "0x7fc00002"]}})");
    CHECK(f32_out(c, "OutputTensor", "") == std::vector<uint32_t>{bits(5)});
    CHECK(f32_out(c, "OutputIndicesTensor", "") == std::vector<uint32_t>{2});
    // val > max || isnan(val): 1, then nan#1 (isnan), 5 > nan is false, nan#2 (isnan): index 3.
    CHECK(f32_out(c, "OutputTensor", "ArgmaxNaN=NaNWins") == std::vector<uint32_t>{0x7fc00002});
    CHECK(f32_out(c, "OutputIndicesTensor", "ArgmaxNaN=NaNWins") == std::vector<uint32_t>{3});
}

TEST_CASE("GradNaN=PassesGradient and SelectedZero=MaskProduct on RELU_GRAD") {
    const Case c = from_text(unary("ACTIVATION_RELU_GRAD", R"("nan", -1, 0, 2, -3)", R"(7, -3, "nan", 4, "-inf")"));
    // Default: x > 0 ? dY : +0.
    CHECK(f32_out(c, "OutputGradientTensor", "") == std::vector<uint32_t>{kPos0, kPos0, kPos0, bits(4), kPos0});
    // x <= 0 ? 0 : dY: the NaN x passes dY = 7.
    CHECK(f32_out(c, "OutputGradientTensor", "GradNaN=PassesGradient") ==
          std::vector<uint32_t>{bits(7), kPos0, kPos0, bits(4), kPos0});
    // dY * (x > 0): 7 * 0 = +0, -3 * 0 = -0, NaN * 0 = NaN (quieted, 0x7fc00000), 4 * 1, -inf * 0 = NaN.
    CHECK(f32_out(c, "OutputGradientTensor", "SelectedZero=MaskProduct") ==
          std::vector<uint32_t>{kPos0, kNeg0, kNaN, bits(4), kNaN});
}

TEST_CASE("ForwardNaN=NaNPropagates on RELU and CLIP1") {
    const Case relu = from_text(unary("ACTIVATION_RELU", R"("0x7fc00005", -1, 2)", ""));
    CHECK(f32_out(relu, "OutputTensor", "") == std::vector<uint32_t>{kPos0, kPos0, bits(2)});
    CHECK(f32_out(relu, "OutputTensor", "ForwardNaN=NaNPropagates") ==
          std::vector<uint32_t>{0x7fc00005, kPos0, bits(2)});
    const Case clip = from_text(unary("ELEMENT_WISE_CLIP1", R"("0xffc00003", -5, 0.5)", "",
                                      R"(, "MinMaxDataType": "FLOAT32", "Min": -1, "Max": 1)"));
    // Default: max(Min, min(NaN, Max)) = max(-1, 1) = 1.
    CHECK(f32_out(clip, "OutputTensor", "") == std::vector<uint32_t>{bits(1), bits(-1), bits(0.5f)});
    CHECK(f32_out(clip, "OutputTensor", "ForwardNaN=NaNPropagates") ==
          std::vector<uint32_t>{0xffc00003, bits(-1), bits(0.5f)});
}

TEST_CASE("ClipGradBounds and GradNaN=ZeroGradient on CLIP_GRAD1") {
    // Min 2, Max 5; x = 1, 2, 3, 5, 6, NaN; dY = 11 ... 16.
    const Case c = from_text(unary("ELEMENT_WISE_CLIP_GRAD1", R"(1, 2, 3, 5, 6, "nan")", "11, 12, 13, 14, 15, 16",
                                   R"(, "MinMaxDataType": "FLOAT32", "Min": 2, "Max": 5)"));
    CHECK(f32_out(c, "OutputGradientTensor", "") ==
          std::vector<uint32_t>{kPos0, kPos0, bits(13), kPos0, kPos0, bits(16)});
    CHECK(f32_out(c, "OutputGradientTensor", "ClipGradBounds=GradientAtBounds") ==
          std::vector<uint32_t>{kPos0, bits(12), bits(13), bits(14), kPos0, bits(16)});
    // d/dx min(max(x, 2), 5) with ties split evenly: 12 / 2 = 6 at x = Min, 14 / 2 = 7 at x = Max.
    CHECK(f32_out(c, "OutputGradientTensor", "ClipGradBounds=HalfAtBounds") ==
          std::vector<uint32_t>{kPos0, bits(6), bits(13), bits(7), kPos0, bits(16)});
    // (2 <= x && x <= 5) ? dY : 0: NaN gives +0; the bounds pass too in PyTorch, but that is the
    // other policy: here the bounds stay at 0.
    CHECK(f32_out(c, "OutputGradientTensor", "GradNaN=ZeroGradient") ==
          std::vector<uint32_t>{kPos0, kPos0, bits(13), kPos0, kPos0, kPos0});
}

TEST_CASE("ClipGradBounds=HalfAtBounds: dY / 4 where x == Min == Max, 0 past the other bound when Min > Max") {
    const Case eq = from_text(unary("ELEMENT_WISE_CLIP_GRAD", "3, 3", "8, -1", R"(, "Min": 3, "Max": 3)"));
    CHECK(f32_out(eq, "OutputGradientTensor", "ClipGradBounds=HalfAtBounds") ==
          std::vector<uint32_t>{bits(2), bits(-0.25f)});
    const Case inverted = from_text(unary("ELEMENT_WISE_CLIP_GRAD", "4, 2", "8, 8", R"(, "Min": 4, "Max": 2)"));
    CHECK(f32_out(inverted, "OutputGradientTensor", "ClipGradBounds=HalfAtBounds") ==
          std::vector<uint32_t>{kPos0, kPos0});
}

TEST_CASE("SelectedZero=ScatterAdd on SLICE_GRAD: -0 becomes +0, a signalling NaN is quieted") {
    const Case c = from_text(R"({"format": 1, "operator": "SLICE_GRAD", "desc": {
        "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [4]},
        "DimensionCount": 1, "InputWindowOffsets": [1], "InputWindowSizes": [3], "InputWindowStrides": [1]},
        "inputs": {"InputGradientTensor": [-0.0, "0x7f800001", "0x00000001"]}})");
    CHECK(f32_out(c, "OutputGradientTensor", "") == std::vector<uint32_t>{kPos0, kNeg0, 0x7f800001, 1});
    // +0 + -0 = +0; +0 + sNaN = the NaN with its quiet bit (0x00400000) set; the subnormal is kept.
    CHECK(f32_out(c, "OutputGradientTensor", "SelectedZero=ScatterAdd") ==
          std::vector<uint32_t>{kPos0, kPos0, 0x7fc00001, 1});
}

TEST_CASE("ZeroWeightTaps=MultiplyAll on RESAMPLE2 and RESAMPLE_GRAD1 LINEAR: 0 x inf adds a NaN") {
    // Scale 1, offsets 0: x = o, so output o reads input o with weight 1 and input min(o + 1, 2)
    // with weight 0. Input [1, inf, 2]: by default y = [1, inf, 2]; with every tap y[0] =
    // 1*1 + 0*inf = NaN, y[1] = 1*inf + 0*2 = inf, y[2] = 1*2 + 0*2 = 2.
    const std::string desc = R"("InterpolationMode": "LINEAR", "RoundingDirection": "INCREASING", "DimensionCount": 1,
        "Scales": [1], "InputPixelOffsets": [0], "OutputPixelOffsets": [0])";
    const Case fwd = from_text(R"({"format": 1, "operator": "RESAMPLE2", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, )" +
                               desc + R"(}, "inputs": {"InputTensor": [1, "inf", 2]}})");
    CHECK(f32_out(fwd, "OutputTensor", "") == std::vector<uint32_t>{bits(1), 0x7f800000, bits(2)});
    CHECK(f32_out(fwd, "OutputTensor", "ZeroWeightTaps=MultiplyAll") ==
          std::vector<uint32_t>{kNaN, 0x7f800000, bits(2)});
    // The grad, dY = [inf, 1, 2]: dX[0] = 1*inf; dX[1] = 0*inf + 1*1 = NaN by every tap;
    // dX[2] = 0*1 + 1*2 + 0*2 = 2.
    const Case grad = from_text(R"({"format": 1, "operator": "RESAMPLE_GRAD1", "desc": {
        "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [3]}, )" +
                                desc + R"(}, "inputs": {"InputGradientTensor": ["inf", 1, 2]}})");
    CHECK(f32_out(grad, "OutputGradientTensor", "") == std::vector<uint32_t>{0x7f800000, bits(1), bits(2)});
    CHECK(f32_out(grad, "OutputGradientTensor", "ZeroWeightTaps=MultiplyAll") ==
          std::vector<uint32_t>{0x7f800000, kNaN, bits(2)});
}

TEST_CASE("OldNearestNeighbor=FloorXPlusHalf on RESAMPLE1: TensorFlow's 4 -> 8 gives 0,0,1,1,2,2,3,3") {
    // Scale 2, InputPixelOffset 0.5, OutputPixelOffset 0: the page's remark gives floor(o/2 - 0.25)
    // = 0,0,0,1,1,2,2,3; floor(x + 0.5) with x = o/2 - 0.5 gives floor(o/2) = 0,0,1,1,2,2,3,3.
    const Case c = from_text(R"({"format": 1, "operator": "RESAMPLE1", "desc": {
        "InputTensor": {"DataType": "INT32", "Sizes": [4]}, "OutputTensor": {"DataType": "INT32", "Sizes": [8]},
        "InterpolationMode": "NEAREST_NEIGHBOR", "DimensionCount": 1, "Scales": [2], "InputPixelOffsets": [0.5],
        "OutputPixelOffsets": [0]}, "inputs": {"InputTensor": [0, 1, 2, 3]}})");
    CHECK(f32_out(c, "OutputTensor", "") == std::vector<uint32_t>{0, 0, 0, 1, 1, 2, 2, 3});
    CHECK(f32_out(c, "OutputTensor", "OldNearestNeighbor=FloorXPlusHalf") ==
          std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3});
}

TEST_CASE("Subnormals=FlushAtomicSums on MAX_POOLING_GRAD: subnormal terms and sums flushed, normal ones kept") {
    // Windows 1x2 stride 1 over [1, 3, 2, 0]: argmaxes 1, 1, 2. dY = [1e-40, 2e-40, 3]
    // (subnormal, subnormal, normal): dX = [0, 1e-40 + 2e-40, 3, 0] by default; flushed, dX[1] = +0.
    const Case c = from_text(R"({"format": 1, "operator": "MAX_POOLING_GRAD", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]}, "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 3]},
        "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]}, "DimensionCount": 2, "Strides": [1, 1],
        "WindowSize": [1, 2], "StartPadding": [0, 0], "EndPadding": [0, 0], "Dilations": [1, 1]},
        "inputs": {"InputTensor": [1, 3, 2, 0], "InputGradientTensor": ["0x000116c2", "0x00022d85", 3]}})");
    CHECK(f32_out(c, "OutputGradientTensor", "") ==
          std::vector<uint32_t>{kPos0, 0x000116c2 + 0x00022d85, bits(3), kPos0});
    CHECK(f32_out(c, "OutputGradientTensor", "Subnormals=FlushAtomicSums") ==
          std::vector<uint32_t>{kPos0, kPos0, bits(3), kPos0});
}

// Values of type T of an output of `c` run under `reading` ("" for the default).
template <class T> std::vector<T> out_as(Case c, const std::string& output, const std::string& reading) {
    if (!reading.empty()) {
        Diagnostics d;
        auto p = parse_policy_option(reading, d);
        REQUIRE(p);
        c.policies[p->first] = p->second;
    }
    return as_values<T>(run_case(c).values.at(output));
}

TEST_CASE("LpPoolingTerms=SignedPowers on LP_POOLING: x^P with its sign, a negative sum's root NaN for P = 3") {
    auto lp = [](uint32_t P, const std::string& x) {
        return from_text(R"({"format": 1, "operator": "LP_POOLING", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 6]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2]},
            "DimensionCount": 1, "Strides": [3], "WindowSize": [3], "StartPadding": [0], "EndPadding": [0], "P": )" +
                         std::to_string(P) + R"(}, "inputs": {"InputTensor": [)" + x + "]}}");
    };
    // P = 3, windows (12, 1, -9) and (-3, -4, -5). Signed: 1728 + 1 - 729 = 1000 = 10^3, and
    // -27 - 64 - 125 = -216, no real root: NaN. By default the second is (27 + 64 + 125)^(1/3) = 6.
    const Case p3 = lp(3, "12, 1, -9, -3, -4, -5");
    CHECK(f32_out(p3, "OutputTensor", "")[1] == bits(6));
    CHECK(f32_out(p3, "OutputTensor", "")[0] != bits(10));  // 2458^(1/3) = 13.49...
    CHECK(f32_out(p3, "OutputTensor", "LpPoolingTerms=SignedPowers") == std::vector<uint32_t>{bits(10), kNaN});
    // P = 1, windows (3, -4, 0.5) and (-1, -2, 0): |x| gives 7.5 and 3; signed, -0.5 and -3.
    const Case p1 = lp(1, "3, -4, 0.5, -1, -2, 0");
    CHECK(f32_out(p1, "OutputTensor", "") == std::vector<uint32_t>{bits(7.5f), bits(3)});
    CHECK(f32_out(p1, "OutputTensor", "LpPoolingTerms=SignedPowers") == std::vector<uint32_t>{bits(-0.5f), bits(-3)});
    // P = 2: x^2 is |x|^2, the readings agree: (3, -4, 0) gives 5.
    const Case p2 = lp(2, "3, -4, 0, 0, 0, -5");
    CHECK(f32_out(p2, "OutputTensor", "LpPoolingTerms=SignedPowers") == f32_out(p2, "OutputTensor", ""));
    CHECK(f32_out(p2, "OutputTensor", "") == std::vector<uint32_t>{bits(5), bits(5)});
}

TEST_CASE("QuantizedAccumulator=WrapToInt32 on QUANTIZED_LINEAR_MATRIX_MULTIPLY: K = 33100 gives 128, wrapped 0") {
    // 33100 products 255 * 255 = 2152327500; over OutputScale 2^24: 128.29, so 128. Modulo 2^32
    // (two's complement) the sum is 2152327500 - 4294967296 = -2142639796; / 2^24 = -127.71,
    // rounded -128, saturated to UINT8's 0.
    const Case c = from_text(R"({"format": 1, "operator": "QUANTIZED_LINEAR_MATRIX_MULTIPLY", "desc": {
        "ATensor": {"DataType": "UINT8", "Sizes": [1, 33100]}, "AScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1]},
        "BTensor": {"DataType": "UINT8", "Sizes": [33100, 1]}, "BScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1]},
        "OutputScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1]}, "OutputTensor": {"DataType": "UINT8", "Sizes": [1, 1]}},
        "inputs": {"ATensor": {"Fill": 255}, "AScaleTensor": [1], "BTensor": {"Fill": 255}, "BScaleTensor": [1],
                   "OutputScaleTensor": [16777216]}})");
    CHECK(out_as<uint8_t>(c, "OutputTensor", "") == std::vector<uint8_t>{128});
    CHECK(out_as<uint8_t>(c, "OutputTensor", "QuantizedAccumulator=WrapToInt32") == std::vector<uint8_t>{0});
    // A small K never wraps: the readings agree (2 * 3 + 4 * 5 = 26, scale 1).
    const Case small = from_text(R"({"format": 1, "operator": "QUANTIZED_LINEAR_MATRIX_MULTIPLY", "desc": {
        "ATensor": {"DataType": "UINT8", "Sizes": [1, 2]}, "AScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1]},
        "BTensor": {"DataType": "UINT8", "Sizes": [2, 1]}, "BScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1]},
        "OutputScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1]}, "OutputTensor": {"DataType": "UINT8", "Sizes": [1, 1]}},
        "inputs": {"ATensor": [2, 4], "AScaleTensor": [1], "BTensor": [3, 5], "BScaleTensor": [1], "OutputScaleTensor": [1]}})");
    CHECK(out_as<uint8_t>(small, "OutputTensor", "QuantizedAccumulator=WrapToInt32") == std::vector<uint8_t>{26});
}

TEST_CASE("QuantizedPoolingPadding=RawZero: with IncludePadding, padding is the quantized 0, a term 0 - zero point") {
    // INT8 [10, 20, 30], InputZeroPoint 10 (dequantized [0, 10, 20]), window 3, padding 1 each side,
    // IncludePadding, scales 1. By default padding is 0: 10/3 -> 3, 30/3 = 10, 30/3 = 10. Raw zero:
    // padding is 0 - 10 = -10: (-10 + 0 + 10)/3 = 0, 30/3 = 10, (10 + 20 - 10)/3 = 6.67 -> 7.
    const std::string head = R"({"format": 1, "operator": "QUANTIZED_LINEAR_AVERAGE_POOLING", "desc": {
        "InputTensor": {"DataType": "INT8", "Sizes": [1, 1, 3]}, "InputScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1]},
        "InputZeroPointTensor": {"DataType": "INT8", "Sizes": [1, 1, 1]}, "OutputScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1]},
        "OutputTensor": {"DataType": "INT8", "Sizes": [1, 1, 3]}, "DimensionCount": 1, "Strides": [1], "WindowSize": [3],
        "StartPadding": [1], "EndPadding": [1], "Dilations": [1], "IncludePadding": )";
    const std::string tail =
        R"(}, "inputs": {"InputTensor": [10, 20, 30], "InputScaleTensor": [1], "InputZeroPointTensor": [10], "OutputScaleTensor": [1]}})";
    const Case c = from_text(head + "1" + tail);
    CHECK(out_as<int8_t>(c, "OutputTensor", "") == std::vector<int8_t>{3, 10, 10});
    CHECK(out_as<int8_t>(c, "OutputTensor", "QuantizedPoolingPadding=RawZero") == std::vector<int8_t>{0, 10, 7});
    // Without IncludePadding padding is no term either way: 10/2 = 5, 30/3 = 10, 30/2 = 15.
    const Case ex = from_text(head + "0" + tail);
    CHECK(out_as<int8_t>(ex, "OutputTensor", "QuantizedPoolingPadding=RawZero") == std::vector<int8_t>{5, 10, 15});
}

TEST_CASE("DequantizeValue=WrapToInt32 on ELEMENT_WISE_DEQUANTIZE_LINEAR: the INT32 difference wraps") {
    // 2147483647 - (-2147483648) = 2^32 - 1, rounded to FLOAT32 2^32 (0x4f800000); wrapped, -1.
    // -2147483648 - 2147483647 = -(2^32 - 1) -> -2^32 (0xcf800000); wrapped, +1. 5 - 3 = 2 either way.
    const Case c = from_text(R"({"format": 1, "operator": "ELEMENT_WISE_DEQUANTIZE_LINEAR", "desc": {
        "InputTensor": {"DataType": "INT32", "Sizes": [3]}, "ScaleTensor": {"DataType": "FLOAT32", "Sizes": [3]},
        "ZeroPointTensor": {"DataType": "INT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}},
        "inputs": {"InputTensor": [2147483647, -2147483648, 5], "ScaleTensor": [1, 1, 1],
                   "ZeroPointTensor": [-2147483648, 2147483647, 3]}})");
    CHECK(f32_out(c, "OutputTensor", "") == std::vector<uint32_t>{0x4f800000, 0xcf800000, bits(2)});
    CHECK(f32_out(c, "OutputTensor", "DequantizeValue=WrapToInt32") ==
          std::vector<uint32_t>{bits(-1), bits(1), bits(2)});
}

TEST_CASE("ArgMinMaxNaN, ReduceArgTies, ReduceMinMaxAllNaN and ForwardNaN alternatives on the reductions") {
    auto argmin = [](const std::string& direction) {
        return from_text(R"({"format": 1, "operator": "ARGMIN", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 4]}, "OutputTensor": {"DataType": "UINT32", "Sizes": [2, 1]},
            "AxisCount": 1, "Axes": [1], "AxisDirection": ")" +
                         direction + R"("}, "inputs": {"InputTensor": [1, "nan", -2, "nan", 3, 2, 2, 5]}})");
    };
    // Row 0 [1, NaN, -2, NaN]: NaN loses, -2 at 2; NaN wins, the first NaN: 1 (DECREASING scans
    // from the end: 3). Row 1 [3, 2, 2, 5]: the first 2 in scan order, 1 or 2, either way.
    CHECK(out_as<uint32_t>(argmin("INCREASING"), "OutputTensor", "") == std::vector<uint32_t>{2, 1});
    CHECK(out_as<uint32_t>(argmin("INCREASING"), "OutputTensor", "ArgMinMaxNaN=NaNWins") ==
          std::vector<uint32_t>{1, 1});
    CHECK(out_as<uint32_t>(argmin("DECREASING"), "OutputTensor", "") == std::vector<uint32_t>{2, 2});
    CHECK(out_as<uint32_t>(argmin("DECREASING"), "OutputTensor", "ArgMinMaxNaN=NaNWins") ==
          std::vector<uint32_t>{3, 2});
    // REDUCE's ARGMAX over [7, 3, 7, 7] and [-1, -1, -5, -1]: the first maximum 0, the last 3.
    const Case ties = from_text(R"({"format": 1, "operator": "REDUCE", "desc": {"Function": "ARGMAX",
        "InputTensor": {"DataType": "INT8", "Sizes": [2, 4]}, "OutputTensor": {"DataType": "UINT32", "Sizes": [2, 1]},
        "AxisCount": 1, "Axes": [1]}, "inputs": {"InputTensor": [7, 3, 7, 7, -1, -1, -5, -1]}})");
    CHECK(out_as<uint32_t>(ties, "OutputTensor", "") == std::vector<uint32_t>{0, 0});
    CHECK(out_as<uint32_t>(ties, "OutputTensor", "ReduceArgTies=LastIndex") == std::vector<uint32_t>{3, 3});
    // REDUCE's MAX of [0x7fc00001, 0xffc00002] (NaN only) and [NaN, 1]: the first NaN's bits, or
    // the canonical NaN; 1 either way.
    const Case all_nan = from_text(R"({"format": 1, "operator": "REDUCE", "desc": {"Function": "MAX",
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 1]},
        "AxisCount": 1, "Axes": [1]}, "inputs": {"InputTensor": ["0x7fc00001", "0xffc00002", "nan", 1]}})");
    CHECK(f32_out(all_nan, "OutputTensor", "") == std::vector<uint32_t>{0x7fc00001, bits(1)});
    CHECK(f32_out(all_nan, "OutputTensor", "ReduceMinMaxAllNaN=CanonicalNaN") == std::vector<uint32_t>{kNaN, bits(1)});
    // ForwardNaN=NaNPropagates on REDUCE's MIN: [0x7fc00005, -3, 0xffc00002] and [1, 0xffc00002, NaN]
    // give -3 and 1 (NaN ignored), or each row's first NaN, bits kept.
    const Case min = from_text(R"({"format": 1, "operator": "REDUCE", "desc": {"Function": "MIN",
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 1]},
        "AxisCount": 1, "Axes": [1]}, "inputs": {"InputTensor": ["0x7fc00005", -3, "0xffc00002", 1, "0xffc00002", "nan"]}})");
    CHECK(f32_out(min, "OutputTensor", "") == std::vector<uint32_t>{bits(-3), bits(1)});
    CHECK(f32_out(min, "OutputTensor", "ForwardNaN=NaNPropagates") == std::vector<uint32_t>{0x7fc00005, 0xffc00002});
}

TEST_CASE("BooleanOutput=AllOnes and IfCondition=NaNSelectsB on the element-wise logic operators") {
    // IS_NAN of [NaN, 1] into FLOAT16: 1.0 (0x3c00) and +0; every bit set, 0xffff; into UINT8, 0xff.
    auto is_nan_into = [](const std::string& out) {
        return from_text(R"({"format": 1, "operator": "ELEMENT_WISE_IS_NAN", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensor": {"DataType": ")" +
                         out + R"(", "Sizes": [2]}}, "inputs": {"InputTensor": ["nan", 1]}})");
    };
    CHECK(out_as<uint16_t>(is_nan_into("FLOAT16"), "OutputTensor", "") == std::vector<uint16_t>{0x3c00, 0});
    CHECK(out_as<uint16_t>(is_nan_into("FLOAT16"), "OutputTensor", "BooleanOutput=AllOnes") ==
          std::vector<uint16_t>{0xffff, 0});
    CHECK(out_as<uint8_t>(is_nan_into("UINT8"), "OutputTensor", "BooleanOutput=AllOnes") ==
          std::vector<uint8_t>{0xff, 0});
    // LESS_THAN of 1 < 2 and 2 < 1 into UINT32: 0xffffffff and 0.
    const Case lt = from_text(R"({"format": 1, "operator": "ELEMENT_WISE_LOGICAL_LESS_THAN", "desc": {
        "ATensor": {"DataType": "INT8", "Sizes": [2]}, "BTensor": {"DataType": "INT8", "Sizes": [2]},
        "OutputTensor": {"DataType": "UINT32", "Sizes": [2]}}, "inputs": {"ATensor": [1, 2], "BTensor": [2, 1]}})");
    CHECK(out_as<uint32_t>(lt, "OutputTensor", "BooleanOutput=AllOnes") == std::vector<uint32_t>{0xffffffff, 0});
    // IF with conditions NaN, -0, 2: A, B, A by default; NaN selects B under NaNSelectsB.
    const Case c = from_text(R"({"format": 1, "operator": "ELEMENT_WISE_IF", "desc": {
        "ConditionTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "ATensor": {"DataType": "FLOAT32", "Sizes": [3]},
        "BTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}},
        "inputs": {"ConditionTensor": ["nan", -0.0, 2], "ATensor": [1, 2, 3], "BTensor": [4, 5, 6]}})");
    CHECK(f32_out(c, "OutputTensor", "") == std::vector<uint32_t>{bits(1), bits(5), bits(3)});
    CHECK(f32_out(c, "OutputTensor", "IfCondition=NaNSelectsB") == std::vector<uint32_t>{bits(4), bits(5), bits(3)});
}

TEST_CASE("TopKTies=HigherIndexFirstWhenIncreasing and TopKNaN=NaNLoses on TOP_K1") {
    auto top_k1 = [](const std::string& direction, const std::string& x) {
        return from_text(R"({"format": 1, "operator": "TOP_K1", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [6]}, "OutputValueTensor": {"DataType": "FLOAT32", "Sizes": [3]},
            "OutputIndexTensor": {"DataType": "UINT32", "Sizes": [3]}, "Axis": 0, "K": 3, "AxisDirection": ")" +
                         direction + R"("}, "inputs": {"InputTensor": [)" + x + "]}}");
    };
    // INCREASING on [2, 1, 2, 1, 5, 2]: 1, 1, 2 at positions 1, 3, then the first 2 (0); a
    // descending sort reversed takes equal values from the highest index: 3, 1, then 5.
    const Case ties = top_k1("INCREASING", "2, 1, 2, 1, 5, 2");
    CHECK(out_as<uint32_t>(ties, "OutputIndexTensor", "") == std::vector<uint32_t>{1, 3, 0});
    CHECK(out_as<uint32_t>(ties, "OutputIndexTensor", "TopKTies=HigherIndexFirstWhenIncreasing") ==
          std::vector<uint32_t>{3, 1, 5});
    // DECREASING is unchanged by it: 5 (4), then the 2s at 0 and 2.
    const Case dec = top_k1("DECREASING", "2, 1, 2, 1, 5, 2");
    CHECK(out_as<uint32_t>(dec, "OutputIndexTensor", "TopKTies=HigherIndexFirstWhenIncreasing") ==
          std::vector<uint32_t>{4, 0, 2});
    // DECREASING on [1, NaN, -inf, inf, NaN, 0]: NaN largest gives 1, 4, 3; NaN losing gives the
    // numbers first, +inf (3), 1 (0), 0 (5).
    const Case nan = top_k1("DECREASING", R"(1, "nan", "-inf", "inf", "nan", 0)");
    CHECK(out_as<uint32_t>(nan, "OutputIndexTensor", "") == std::vector<uint32_t>{1, 4, 3});
    CHECK(out_as<uint32_t>(nan, "OutputIndexTensor", "TopKNaN=NaNLoses") == std::vector<uint32_t>{3, 0, 5});
}

TEST_CASE("OneHotOutOfRange=Modulo and Clamp on ONE_HOT") {
    // INT32 indices [-3, 100, 3, -5] in sequences of 4, OffValue 0, OnValue 1: by default -3 is
    // position 1, 100 and -5 name none, 3 is 3. Modulo: 1, 100 mod 4 = 0, 3, -5 mod 4 = 3. Clamp:
    // 1, 3, 3, and -5 + 4 = -1 clamped to 0.
    const Case c = from_text(R"({"format": 1, "operator": "ONE_HOT", "desc": {
        "IndicesTensor": {"DataType": "INT32", "Sizes": [4, 1]}, "ValuesTensor": {"DataType": "UINT8", "Sizes": [1, 2]},
        "OutputTensor": {"DataType": "UINT8", "Sizes": [4, 4]}, "Axis": 1},
        "inputs": {"IndicesTensor": [-3, 100, 3, -5], "ValuesTensor": [0, 1]}})");
    CHECK(out_as<uint8_t>(c, "OutputTensor", "") ==
          std::vector<uint8_t>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0});
    CHECK(out_as<uint8_t>(c, "OutputTensor", "OneHotOutOfRange=Modulo") ==
          std::vector<uint8_t>{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1});
    CHECK(out_as<uint8_t>(c, "OutputTensor", "OneHotOutOfRange=Clamp") ==
          std::vector<uint8_t>{0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0});
}

namespace {

// A case of a one-input operator with the given desc fields beside InputTensor and OutputTensor.
Case unary_case(const std::string& op, const std::string& in, const std::string& out, size_t n, const std::string& x,
                const std::string& extra = "") {
    const std::string sizes = "[" + std::to_string(n) + "]";
    return from_text(R"({"format": 1, "operator": ")" + op + R"(", "desc": {"InputTensor": {"DataType": ")" + in +
                     R"(", "Sizes": )" + sizes + R"(}, "OutputTensor": {"DataType": ")" + out + R"(", "Sizes": )" +
                     sizes + "}" + extra + R"(}, "inputs": {"InputTensor": [)" + x + "]}}");
}

Case binary_case(const std::string& op, const std::string& type, size_t n, const std::string& a, const std::string& b) {
    const std::string t = R"({"DataType": ")" + type + R"(", "Sizes": [)" + std::to_string(n) + "]}";
    return from_text(R"({"format": 1, "operator": ")" + op + R"(", "desc": {"ATensor": )" + t + R"(, "BTensor": )" + t +
                     R"(, "OutputTensor": )" + t + R"(}, "inputs": {"ATensor": [)" + a + R"(], "BTensor": [)" + b +
                     "]}}");
}

// REDUCE of `function` over the last axis of rows x n elements of `type`.
Case reduce_case(const std::string& function, const std::string& type, size_t rows, size_t n, const std::string& x) {
    return from_text(R"({"format": 1, "operator": "REDUCE", "desc": {"Function": ")" + function +
                     R"(", "InputTensor": {"DataType": ")" + type + R"(", "Sizes": [)" + std::to_string(rows) + ", " +
                     std::to_string(n) + R"(]}, "OutputTensor": {"DataType": ")" + type + R"(", "Sizes": [)" +
                     std::to_string(rows) + R"(, 1]}, "AxisCount": 1, "Axes": [1]}, "inputs": {"InputTensor": [)" + x +
                     "]}}");
}

}  // namespace

TEST_CASE("CastFloatToInteger=RoundHalfEven, Wrap and NaNIsMinimum on CAST") {
    // FLOAT32 [2.5, 2.75, -2.75, 300, -300, NaN, inf, -0.5, 3.5] into INT8. Truncated and
    // saturated: 2, 2, -2, 127, -128, 0, 127, 0, 3. Halves to even: 2.5 is 2, 2.75 is 3, -2.75 is
    // -3, -0.5 is 0, 3.5 is 4. Wrapped: 300 - 256 = 44, -300 + 256 = -44, NaN and inf 0. NaN as
    // the minimum: -128 there, the rest as truncated.
    const Case c = unary_case("CAST", "FLOAT32", "INT8", 9, R"(2.5, 2.75, -2.75, 300, -300, "nan", "inf", -0.5, 3.5)");
    CHECK(out_as<int8_t>(c, "OutputTensor", "") == std::vector<int8_t>{2, 2, -2, 127, -128, 0, 127, 0, 3});
    CHECK(out_as<int8_t>(c, "OutputTensor", "CastFloatToInteger=RoundHalfEven") ==
          std::vector<int8_t>{2, 3, -3, 127, -128, 0, 127, 0, 4});
    CHECK(out_as<int8_t>(c, "OutputTensor", "CastFloatToInteger=Wrap") ==
          std::vector<int8_t>{2, 2, -2, 44, -44, 0, 0, 0, 3});
    CHECK(out_as<int8_t>(c, "OutputTensor", "CastFloatToInteger=NaNIsMinimum") ==
          std::vector<int8_t>{2, 2, -2, 127, -128, -128, 127, 0, 3});
    // FLOAT64 [NaN, 1e10, -1e10] into INT32: 1e10 = 2 * 2^32 + 1410065408, so wrapped +-1410065408.
    const Case wide = unary_case("CAST", "FLOAT64", "INT32", 3, R"("nan", 1e10, -1e10)");
    CHECK(out_as<int32_t>(wide, "OutputTensor", "") == std::vector<int32_t>{0, 2147483647, -2147483647 - 1});
    CHECK(out_as<int32_t>(wide, "OutputTensor", "CastFloatToInteger=Wrap") ==
          std::vector<int32_t>{0, 1410065408, -1410065408});
    CHECK(out_as<int32_t>(wide, "OutputTensor", "CastFloatToInteger=NaNIsMinimum") ==
          std::vector<int32_t>{-2147483647 - 1, 2147483647, -2147483647 - 1});
}

TEST_CASE("CastIntegerToInteger=Saturate, CastIntegerToFloat=ThroughDouble and CastNaN=Canonical on CAST") {
    // INT32 [300, -1, 256, -129, 7] into UINT8: modulo 256 44, 255, 0, 127, 7; clamped 255, 0, 255, 0, 7.
    const Case narrow = unary_case("CAST", "INT32", "UINT8", 5, "300, -1, 256, -129, 7");
    CHECK(out_as<uint8_t>(narrow, "OutputTensor", "") == std::vector<uint8_t>{44, 255, 0, 127, 7});
    CHECK(out_as<uint8_t>(narrow, "OutputTensor", "CastIntegerToInteger=Saturate") ==
          std::vector<uint8_t>{255, 0, 255, 0, 7});
    // UINT32 2^31 into INT32: -2^31 wrapped, 2^31 - 1 clamped.
    const Case sign = unary_case("CAST", "UINT32", "INT32", 2, "2147483648, 5");
    CHECK(out_as<int32_t>(sign, "OutputTensor", "") == std::vector<int32_t>{-2147483647 - 1, 5});
    CHECK(out_as<int32_t>(sign, "OutputTensor", "CastIntegerToInteger=Saturate") ==
          std::vector<int32_t>{2147483647, 5});
    // INT64 2^60 + 2^36 + 1 into FLOAT32 (spacing 2^37 there): once rounded 2^60 + 2^37, 0x5d800001;
    // through a double (spacing 2^8) first 2^60 + 2^36, a FLOAT32 tie, to even: 2^60, 0x5d800000. 7 is 0x40e00000.
    const Case big = unary_case("CAST", "INT64", "FLOAT32", 2, "1152921573326323713, 7");
    CHECK(f32_out(big, "OutputTensor", "") == std::vector<uint32_t>{0x5d800001, 0x40e00000});
    CHECK(f32_out(big, "OutputTensor", "CastIntegerToFloat=ThroughDouble") ==
          std::vector<uint32_t>{0x5d800000, 0x40e00000});
    // FLOAT32 NaNs 0xffc02000 and 0x7fa00000 into FLOAT16: sign, fraction >> 13 and the quiet bit,
    // 0xfe01 and 0x7f00; canonical, 0x7e00 both. 1 is 0x3c00. A cast to FLOAT32 copies the bits.
    const Case nan = unary_case("CAST", "FLOAT32", "FLOAT16", 3, R"("0xffc02000", "0x7fa00000", 1)");
    CHECK(out_as<uint16_t>(nan, "OutputTensor", "") == std::vector<uint16_t>{0xfe01, 0x7f00, 0x3c00});
    CHECK(out_as<uint16_t>(nan, "OutputTensor", "CastNaN=Canonical") == std::vector<uint16_t>{0x7e00, 0x7e00, 0x3c00});
    const Case same = unary_case("CAST", "FLOAT32", "FLOAT32", 1, R"("0xffc02000")");
    CHECK(f32_out(same, "OutputTensor", "CastNaN=Canonical") == std::vector<uint32_t>{0xffc02000});
}

TEST_CASE("IntegerOverflow=Saturate on the element-wise integer arithmetic") {
    const std::string sat = "IntegerOverflow=Saturate";
    // INT8 100 + 100, -100 + -100, 5 + -3, 127 + 1: wrapped -56, 56, 2, -128; clamped 127, -128, 2, 127.
    const Case add = binary_case("ELEMENT_WISE_ADD", "INT8", 4, "100, -100, 5, 127", "100, -100, -3, 1");
    CHECK(out_as<int8_t>(add, "OutputTensor", "") == std::vector<int8_t>{-56, 56, 2, -128});
    CHECK(out_as<int8_t>(add, "OutputTensor", sat) == std::vector<int8_t>{127, -128, 2, 127});
    // ADD1 (no activation) INT32 2^31 - 1 + 1.
    const Case add1 = binary_case("ELEMENT_WISE_ADD1", "INT32", 1, "2147483647", "1");
    CHECK(out_as<int32_t>(add1, "OutputTensor", "") == std::vector<int32_t>{-2147483647 - 1});
    CHECK(out_as<int32_t>(add1, "OutputTensor", sat) == std::vector<int32_t>{2147483647});
    // UINT8 1 - 2, 200 - 100, 5 - 5: 255, 100, 0; clamped 0, 100, 0.
    const Case sub = binary_case("ELEMENT_WISE_SUBTRACT", "UINT8", 3, "1, 200, 5", "2, 100, 5");
    CHECK(out_as<uint8_t>(sub, "OutputTensor", "") == std::vector<uint8_t>{255, 100, 0});
    CHECK(out_as<uint8_t>(sub, "OutputTensor", sat) == std::vector<uint8_t>{0, 100, 0});
    // INT64 2^62 * 4 = 2^64 and -2^62 * 4: 0 modulo 2^64; clamped to the ends. 3 * -5 = -15.
    const Case mul = binary_case("ELEMENT_WISE_MULTIPLY", "INT64", 3, "4611686018427387904, -4611686018427387904, 3",
                                 "4, 4, -5");
    CHECK(out_as<int64_t>(mul, "OutputTensor", "") == std::vector<int64_t>{0, 0, -15});
    CHECK(out_as<int64_t>(mul, "OutputTensor", sat) ==
          std::vector<int64_t>{9223372036854775807, -9223372036854775807 - 1, -15});
    // INT32 -2^31 / -1 = 2^31: wrapped -2^31, clamped 2^31 - 1; 7 / 2 and -7 / 2 truncate, 3 and -3.
    const Case div = binary_case("ELEMENT_WISE_DIVIDE", "INT32", 3, "-2147483648, 7, -7", "-1, 2, 2");
    CHECK(out_as<int32_t>(div, "OutputTensor", "") == std::vector<int32_t>{-2147483647 - 1, 3, -3});
    CHECK(out_as<int32_t>(div, "OutputTensor", sat) == std::vector<int32_t>{2147483647, 3, -3});
    // INT8 (-128 - 127)^2 = 65025 = 254 * 256 + 1: wrapped 1, clamped 127; (0 - 11)^2 = 121.
    const Case dsq = binary_case("ELEMENT_WISE_DIFFERENCE_SQUARE", "INT8", 2, "-128, 0", "127, 11");
    CHECK(out_as<int8_t>(dsq, "OutputTensor", "") == std::vector<int8_t>{1, 121});
    CHECK(out_as<int8_t>(dsq, "OutputTensor", sat) == std::vector<int8_t>{127, 121});
    // abs(-128) and -(-128) in INT8: -128, clamped 127; UINT8 -3 is 253, clamped 0.
    const Case abs = unary_case("ELEMENT_WISE_ABS", "INT8", "INT8", 2, "-128, -5");
    CHECK(out_as<int8_t>(abs, "OutputTensor", "") == std::vector<int8_t>{-128, 5});
    CHECK(out_as<int8_t>(abs, "OutputTensor", sat) == std::vector<int8_t>{127, 5});
    const Case neg = unary_case("ELEMENT_WISE_NEGATE", "INT8", "INT8", 2, "-128, 5");
    CHECK(out_as<int8_t>(neg, "OutputTensor", "") == std::vector<int8_t>{-128, -5});
    CHECK(out_as<int8_t>(neg, "OutputTensor", sat) == std::vector<int8_t>{127, -5});
    const Case uneg = unary_case("ELEMENT_WISE_NEGATE", "UINT8", "UINT8", 2, "0, 3");
    CHECK(out_as<uint8_t>(uneg, "OutputTensor", "") == std::vector<uint8_t>{0, 253});
    CHECK(out_as<uint8_t>(uneg, "OutputTensor", sat) == std::vector<uint8_t>{0, 0});
}

TEST_CASE("IntegerOverflow=Saturate and IntegerResult=TruncateTowardZero on REDUCE") {
    const std::string sat = "IntegerOverflow=Saturate";
    // INT8 SUM of [100, 100, -100] is 100 either way (clamped once, at the end, not per step: 27);
    // of [100, 100, 0] 200: wrapped -56, clamped 127.
    const Case sum = reduce_case("SUM", "INT8", 2, 3, "100, 100, -100, 100, 100, 0");
    CHECK(out_as<int8_t>(sum, "OutputTensor", "") == std::vector<int8_t>{100, -56});
    CHECK(out_as<int8_t>(sum, "OutputTensor", sat) == std::vector<int8_t>{100, 127});
    // INT64 MULTIPLY of [-2^32, 2^32, 2^32, 1] = -2^96 and [2^40, 2^40, 2^40, 0] = 0: wrapped 0 and
    // 0; clamped INT64's minimum and 0.
    const Case mul = reduce_case("MULTIPLY", "INT64", 2, 4,
                                 "-4294967296, 4294967296, 4294967296, 1, 1099511627776, 1099511627776, "
                                 "1099511627776, 0");
    CHECK(out_as<int64_t>(mul, "OutputTensor", "") == std::vector<int64_t>{0, 0});
    CHECK(out_as<int64_t>(mul, "OutputTensor", sat) == std::vector<int64_t>{-9223372036854775807 - 1, 0});
    // INT8 L1 of [-128, -128, 1] = 257: wrapped 1, clamped 127.
    const Case l1 = reduce_case("L1", "INT8", 1, 3, "-128, -128, 1");
    CHECK(out_as<int8_t>(l1, "OutputTensor", "") == std::vector<int8_t>{1});
    CHECK(out_as<int8_t>(l1, "OutputTensor", sat) == std::vector<int8_t>{127});
    // UINT64 SUM_SQUARE of [2^64 - 1, 2^64 - 1]: each square is 1 modulo 2^64, so 2 wrapped; clamped 2^64 - 1.
    const Case sq = reduce_case("SUM_SQUARE", "UINT64", 1, 2, R"("18446744073709551615", "18446744073709551615")");
    CHECK(out_as<uint64_t>(sq, "OutputTensor", "") == std::vector<uint64_t>{2});
    CHECK(out_as<uint64_t>(sq, "OutputTensor", sat) == std::vector<uint64_t>{18446744073709551615ull});
    // INT8 AVERAGE of [-7, 0] = -3.5 and [1, 2] = 1.5: halves to even -4 and 2; truncated -3 and 1.
    const Case avg = reduce_case("AVERAGE", "INT8", 2, 2, "-7, 0, 1, 2");
    CHECK(out_as<int8_t>(avg, "OutputTensor", "") == std::vector<int8_t>{-4, 2});
    CHECK(out_as<int8_t>(avg, "OutputTensor", "IntegerResult=TruncateTowardZero") == std::vector<int8_t>{-3, 1});
}

TEST_CASE("IntegerOverflow=Saturate on CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: each exact prefix clamped once") {
    const std::string sat = "IntegerOverflow=Saturate";
    auto scan = [](const std::string& op, const std::string& type, const std::string& sizes, uint32_t axis,
                   bool decreasing, bool exclusive, const std::string& x) {
        const std::string t = R"({"DataType": ")" + type + R"(", "Sizes": )" + sizes + "}";
        const std::string flag = op == "CUMULATIVE_SUMMATION" ? "HasExclusiveSum" : "HasExclusiveProduct";
        return from_text(R"({"format": 1, "operator": ")" + op + R"(", "desc": {"InputTensor": )" + t +
                         R"(, "OutputTensor": )" + t + R"(, "Axis": )" + std::to_string(axis) +
                         R"(, "AxisDirection": ")" + (decreasing ? "DECREASING" : "INCREASING") + R"(", ")" + flag +
                         R"(": )" + (exclusive ? "1" : "0") + R"(}, "inputs": {"InputTensor": [)" + x + "]}}");
    };
    // INT32 rows [2^31 - 1, 1, -1] and [-2^31, -1, 5]. Exact prefixes: 2^31 - 1, 2^31, 2^31 - 1 and
    // -2^31, -2^31 - 1, -2^31 + 4. Wrapped (modulo 2^32): 2147483647, -2147483648, 2147483647 and
    // -2147483648, 2147483647, 2147483647 + 5 - 2^32 = -2147483644. Clamped: 2147483647 three times
    // and -2147483648, -2147483648, -2147483644 (a sum saturated at every step would give
    // 2147483646 and -2147483643 last).
    const Case sum = scan("CUMULATIVE_SUMMATION", "INT32", "[2, 3]", 1, false, false,
                          "2147483647, 1, -1, -2147483648, -1, 5");
    CHECK(out_as<int32_t>(sum, "OutputTensor", "") ==
          std::vector<int32_t>{2147483647, -2147483647 - 1, 2147483647, -2147483647 - 1, 2147483647, -2147483644});
    CHECK(out_as<int32_t>(sum, "OutputTensor", sat) ==
          std::vector<int32_t>{2147483647, 2147483647, 2147483647, -2147483647 - 1, -2147483647 - 1, -2147483644});
    // UINT8 [1, 200, 100], DECREASING and exclusive: position 2 is the empty sum 0, position 1 is
    // 100, position 0 is 100 + 200 = 300: wrapped 44, clamped 255.
    const Case dec = scan("CUMULATIVE_SUMMATION", "UINT8", "[3]", 0, true, true, "1, 200, 100");
    CHECK(out_as<uint8_t>(dec, "OutputTensor", "") == std::vector<uint8_t>{44, 100, 0});
    CHECK(out_as<uint8_t>(dec, "OutputTensor", sat) == std::vector<uint8_t>{255, 100, 0});
    // INT8 [-16, 16, -1, 0]: exact prefixes -16, -256, 256, 0. Wrapped: -16, 0, 0, 0; clamped
    // -16, -128, 127, 0.
    const Case prod = scan("CUMULATIVE_PRODUCT", "INT8", "[4]", 0, false, false, "-16, 16, -1, 0");
    CHECK(out_as<int8_t>(prod, "OutputTensor", "") == std::vector<int8_t>{-16, 0, 0, 0});
    CHECK(out_as<int8_t>(prod, "OutputTensor", sat) == std::vector<int8_t>{-16, -128, 127, 0});
    // INT64 [2^32, 2^32, 2^32, -1, 0]: exact 2^32, 2^64, 2^96, -2^96, 0. Wrapped: 2^32, then 0
    // (2^64 and 2^96 are 0 modulo 2^64); clamped: 2^32, INT64's maximum twice, its minimum, 0.
    const Case big = scan("CUMULATIVE_PRODUCT", "INT64", "[5]", 0, false, false,
                          "4294967296, 4294967296, 4294967296, -1, 0");
    CHECK(out_as<int64_t>(big, "OutputTensor", "") == std::vector<int64_t>{4294967296, 0, 0, 0, 0});
    CHECK(out_as<int64_t>(big, "OutputTensor", sat) ==
          std::vector<int64_t>{4294967296, 9223372036854775807, 9223372036854775807, -9223372036854775807 - 1, 0});
}

TEST_CASE("IntegerOverflow=Saturate on FILL_VALUE_SEQUENCE: Value += Delta clamped, under either FillSequenceValue") {
    const std::string sat = "IntegerOverflow=Saturate";
    auto fill = [](const std::string& type, uint32_t n, const std::string& start, const std::string& delta) {
        return from_text(R"({"format": 1, "operator": "FILL_VALUE_SEQUENCE", "desc": {"OutputTensor": {"DataType": ")" +
                         type + R"(", "Sizes": [)" + std::to_string(n) + R"(]}, "ValueDataType": ")" + type +
                         R"(", "ValueStart": )" + start + R"(, "ValueDelta": )" + delta + R"(}, "inputs": {}})");
    };
    // INT8 from 120 by 5: 120, 125, 130, 135 exactly. Wrapped: 120, 125, -126, -121; clamped
    // 120, 125, 127, 127.
    Case up = fill("INT8", 4, "120", "5");
    CHECK(out_as<int8_t>(up, "OutputTensor", "") == std::vector<int8_t>{120, 125, -126, -121});
    CHECK(out_as<int8_t>(up, "OutputTensor", sat) == std::vector<int8_t>{120, 125, 127, 127});
    // INT16 from -32760 by -5: -32760, -32765, -32770, -32775 exactly. Wrapped (+ 65536): 32766 and
    // 32761 last; clamped -32768, -32768.
    Case down = fill("INT16", 4, "-32760", "-5");
    CHECK(out_as<int16_t>(down, "OutputTensor", "") == std::vector<int16_t>{-32760, -32765, 32766, 32761});
    CHECK(out_as<int16_t>(down, "OutputTensor", sat) == std::vector<int16_t>{-32760, -32765, -32768, -32768});
    // The page's Example 2, UINT8 from 10 by 254 (its -2): wrapped 10, 8, 6, 4; saturated 10 + 254
    // = 264 is 255, and so is every later one.
    Case page = fill("UINT8", 4, "10", "254");
    CHECK(out_as<uint8_t>(page, "OutputTensor", "") == std::vector<uint8_t>{10, 8, 6, 4});
    CHECK(out_as<uint8_t>(page, "OutputTensor", sat) == std::vector<uint8_t>{10, 255, 255, 255});
    // With StartPlusIndexTimesDelta too (each element ValueStart + i * ValueDelta, clamped once):
    // the same values.
    for (Case* c : {&up, &down, &page}) c->policies["FillSequenceValue"] = "StartPlusIndexTimesDelta";
    CHECK(out_as<int8_t>(up, "OutputTensor", sat) == std::vector<int8_t>{120, 125, 127, 127});
    CHECK(out_as<int16_t>(down, "OutputTensor", sat) == std::vector<int16_t>{-32760, -32765, -32768, -32768});
    CHECK(out_as<uint8_t>(page, "OutputTensor", sat) == std::vector<uint8_t>{10, 255, 255, 255});
    CHECK(out_as<int8_t>(up, "OutputTensor", "") == std::vector<int8_t>{120, 125, -126, -121});
}

TEST_CASE(
    "IntegerOverflow=Saturate on FOLD, MATRIX_MULTIPLY_INTEGER and CONVOLUTION_INTEGER: exact sums clamped once") {
    const std::string sat = "IntegerOverflow=Saturate";
    // FOLD, INT8, one channel, window 3 over 5 positions, stride 1: blocks l = 0..2, tap k of block
    // l lands on position k + l; InputTensor row k, column l holds it. Rows [10, 100, 100],
    // [100, 100, -100], [-100, -100, -5]. Position 0: 10; 1: 100 + 100 = 200; 2: 100 + 100 - 100 =
    // 100; 3: -100 - 100 = -200; 4: -5. Wrapped: 10, -56, 100, 56, -5. Clamped once: 10, 127, 100,
    // -128, -5 (position 2 stays 100: clamped at the end, not after 100 + 100).
    const Case fold = from_text(R"({"format": 1, "operator": "FOLD", "desc": {
        "InputTensor": {"DataType": "INT8", "Sizes": [1, 3, 3]}, "OutputTensor": {"DataType": "INT8", "Sizes": [1, 1, 5]},
        "DimensionCount": 1, "WindowSizes": [3], "Strides": [1], "Dilations": [1], "StartPadding": [0], "EndPadding": [0]},
        "inputs": {"InputTensor": [10, 100, 100, 100, 100, -100, -100, -100, -5]}})");
    CHECK(out_as<int8_t>(fold, "OutputTensor", "") == std::vector<int8_t>{10, -56, 100, 56, -5});
    CHECK(out_as<int8_t>(fold, "OutputTensor", sat) == std::vector<int8_t>{10, 127, 100, -128, -5});
    // MATRIX_MULTIPLY_INTEGER, K = 33100: A all 255 (UINT8), B's column 0 all 255 and column 1 all
    // 0 with BZeroPoint [0, 255]. Column 0: 33100 * 255 * 255 = 2152327500, wrapped - 2^32 =
    // -2142639796, clamped 2147483647; column 1: 33100 * 255 * (0 - 255) = -2152327500, wrapped
    // + 2^32 = 2142639796, clamped -2147483648.
    const Case mmi = from_text(R"({"format": 1, "operator": "MATRIX_MULTIPLY_INTEGER", "desc": {
        "ATensor": {"DataType": "UINT8", "Sizes": [1, 33100], "Strides": [0, 0]},
        "BTensor": {"DataType": "UINT8", "Sizes": [33100, 2], "Strides": [0, 1]},
        "BZeroPointTensor": {"DataType": "UINT8", "Sizes": [1, 2]},
        "OutputTensor": {"DataType": "INT32", "Sizes": [1, 2]}},
        "inputs": {"ATensor": [255], "BTensor": [255, 0], "BZeroPointTensor": [0, 255]}})");
    CHECK(out_as<int32_t>(mmi, "OutputTensor", "") == std::vector<int32_t>{-2142639796, 2142639796});
    CHECK(out_as<int32_t>(mmi, "OutputTensor", sat) == std::vector<int32_t>{2147483647, -2147483647 - 1});
    // CONVOLUTION_INTEGER, 33026 input channels all 255, one position; output channel 0's filter
    // all 255, channel 1's all 0 with FilterZeroPoint [0, 255]. Channel 0: 33026 * 65025 =
    // 2147515650, wrapped - 2^32 = -2147451646, clamped 2147483647; channel 1: -2147515650,
    // wrapped + 2^32 = 2147451646, clamped -2147483648.
    const Case conv = from_text(R"({"format": 1, "operator": "CONVOLUTION_INTEGER", "desc": {
        "InputTensor": {"DataType": "UINT8", "Sizes": [1, 33026, 1], "Strides": [0, 0, 0]},
        "FilterTensor": {"DataType": "UINT8", "Sizes": [2, 33026, 1], "Strides": [1, 0, 0]},
        "FilterZeroPointTensor": {"DataType": "UINT8", "Sizes": [1, 2, 1]},
        "OutputTensor": {"DataType": "INT32", "Sizes": [1, 2, 1]},
        "DimensionCount": 1, "Strides": [1], "Dilations": [1], "StartPadding": [0], "EndPadding": [0], "GroupCount": 1},
        "inputs": {"InputTensor": [255], "FilterTensor": [255, 0], "FilterZeroPointTensor": [0, 255]}})");
    CHECK(out_as<int32_t>(conv, "OutputTensor", "") == std::vector<int32_t>{-2147451646, 2147451646});
    CHECK(out_as<int32_t>(conv, "OutputTensor", sat) == std::vector<int32_t>{2147483647, -2147483647 - 1});
}

TEST_CASE("TopKSignedZero=NegativeZeroSmaller on TOP_K1 and NegativeIndex=Modulo on ONE_HOT") {
    auto top_k1 = [](const std::string& direction) {
        return from_text(R"({"format": 1, "operator": "TOP_K1", "desc": {
            "InputTensor": {"DataType": "FLOAT16", "Sizes": [4]}, "OutputValueTensor": {"DataType": "FLOAT16", "Sizes": [3]},
            "OutputIndexTensor": {"DataType": "UINT32", "Sizes": [3]}, "Axis": 0, "K": 3, "AxisDirection": ")" +
                         direction + R"("}, "inputs": {"InputTensor": ["-0.0", 1, 0, "-0.0"]}})");
    };
    // FLOAT16 [-0, 1, +0, -0]. DECREASING: 1 (1), then the zeros tie: -0 (0), +0 (2); with -0 below
    // +0: +0 (2), then -0 (0). INCREASING: the tie gives 0, 2, 3; -0 first: 0, 3, then +0 (2).
    const Case dec = top_k1("DECREASING"), inc = top_k1("INCREASING");
    const std::string r = "TopKSignedZero=NegativeZeroSmaller";
    CHECK(out_as<uint32_t>(dec, "OutputIndexTensor", "") == std::vector<uint32_t>{1, 0, 2});
    CHECK(out_as<uint32_t>(dec, "OutputIndexTensor", r) == std::vector<uint32_t>{1, 2, 0});
    CHECK(out_as<uint16_t>(dec, "OutputValueTensor", r) == std::vector<uint16_t>{0x3c00, 0x0000, 0x8000});
    CHECK(out_as<uint32_t>(inc, "OutputIndexTensor", "") == std::vector<uint32_t>{0, 2, 3});
    CHECK(out_as<uint32_t>(inc, "OutputIndexTensor", r) == std::vector<uint32_t>{0, 3, 2});
    // ONE_HOT, INT32 indices [-5, -9, 100, -1] in sequences of 4: by default -5, -9 and 100 name
    // none and -1 is 3; wrapping a negative index: -5 is 3, -9 is 3 (-9 + 12), 100 still none.
    const Case c = from_text(R"({"format": 1, "operator": "ONE_HOT", "desc": {
        "IndicesTensor": {"DataType": "INT32", "Sizes": [4, 1]}, "ValuesTensor": {"DataType": "UINT8", "Sizes": [1, 2]},
        "OutputTensor": {"DataType": "UINT8", "Sizes": [4, 4]}, "Axis": 1},
        "inputs": {"IndicesTensor": [-5, -9, 100, -1], "ValuesTensor": [0, 1]}})");
    CHECK(out_as<uint8_t>(c, "OutputTensor", "") ==
          std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    CHECK(out_as<uint8_t>(c, "OutputTensor", "NegativeIndex=Modulo") ==
          std::vector<uint8_t>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1});
}

TEST_CASE("--policy parsing: rule ids for a bad text, a name no operator records, a value dmlref does not evaluate") {
    auto rule = [](const std::string& text) {
        Diagnostics d;
        const auto p = parse_policy_option(text, d);
        return p ? std::string("ok") : d.items().at(0).rule;
    };
    CHECK(rule("ArgmaxNaN=NaNWins") == "ok");
    CHECK(rule("ArgmaxNaN=NaNLosesToAnyNumber") == "ok");  // the default
    CHECK(rule("ArgmaxNaN") == "policy.syntax");
    CHECK(rule("=x") == "policy.syntax");
    CHECK(rule("ArgmaxNaN=") == "policy.syntax");
    CHECK(rule("Nope=NaNWins") == "policy.unknown-name");
    CHECK(rule("ArgmaxNaN=Sometimes") == "policy.unknown-value");
    CHECK(rule("ArgmaxTies=HighestLogicalIndex") ==
          "policy.unknown-value");  // described in docs/golden.md, not evaluated
}

TEST_CASE("A case's policies may name an alternative of its operator: evaluated under it, recorded in its golden") {
    const std::string text = unary("ACTIVATION_RELU", R"("nan", 1)", "");
    Case c = from_text(text.substr(0, text.size() - 1) + R"(, "policies": {"ForwardNaN": "NaNPropagates"}})");
    CHECK(c.policies.at("ForwardNaN") == "NaNPropagates");
    CHECK(as_values<uint32_t>(run_case(c).values.at("OutputTensor")) == std::vector<uint32_t>{kNaN, bits(1)});
    const std::string golden = write_golden(c, run_case(c), "mem.json");
    CHECK(golden.find(R"("ForwardNaN": "NaNPropagates")") != std::string::npos);
    // An alternative of another operator is refused.
    CHECK(first_error(diagnose(text.substr(0, text.size() - 1) + R"(, "policies": {"GradNaN": "PassesGradient"}})"))
              .find("policy") != std::string::npos);
}

TEST_CASE("Every alternative: each of its operators records its policy; documented, planted, and its id handed out") {
    const fs::path root = fs::path(DMLREF_TEST_DATA).parent_path().parent_path();
    auto slurp = [](const fs::path& p) {
        std::ifstream f(p, std::ios::binary);
        std::ostringstream s;
        s << f.rdbuf();
        return s.str();
    };
    const std::string golden = slurp(root / "docs" / "golden.md"),
                      planted = slurp(root / "test" / "readings_planted.sh");
    REQUIRE(!golden.empty());
    REQUIRE(!planted.empty());
    for (const auto& a : alternatives()) {
        INFO(a.name());
        for (OperatorType t : a.Operators) {
            bool recorded = false;
            for (const auto& p : info(t).Policies) recorded = recorded || p.Name == a.Policy;
            CHECK(recorded);
        }
        CHECK(&alternative(a.Id) == &a);
        CHECK(reading_id(a.Policy, a.Value) == a.Id);
        // A row of docs/golden.md's table of evaluated alternatives, and a planted backend that
        // `dmlref diff` must name (test/readings_planted.sh).
        CHECK(golden.find("| `" + a.name() + "` |") != std::string::npos);
        CHECK(planted.find("|" + a.name() + "\"") != std::string::npos);
    }
    CHECK_THROWS_AS(reading_id("ArgmaxNaN", "NoSuchValue"), std::logic_error);
}

}  // namespace dmlref_test_readings
