// QUANTIZED_LINEAR_AVERAGE_POOLING. Expected values come from hand derivations (written beside
// them) and from a naive evaluation written here: each window's taps from pooling_support.hpp's
// reading of the page, the sum in integers, and scales that are dyadic (k 2^-e) so that
// S * InputScale / (D * OutputScale) is a quotient of 128-bit integers rounded half to even by
// integer arithmetic (no GMP); none comes from dmlref's evaluation. test/quantized_pooling_independent.py
// recomputes the bundled and ci goldens with Python's fractions.
#include "pooling_support.hpp"

#include "dmlref/descs/quantized_pooling.hpp"
#include "dmlref/diff.hpp"

#include "../reference/quantized_pooling.hpp"

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_quantized_pooling {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using QAP = DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC;

struct Geometry {
    std::vector<uint32_t> in;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
    uint32_t IncludePadding = 0;
};

Geometry plain(std::vector<uint32_t> in, std::vector<uint32_t> window, uint32_t include_padding = 0) {
    const size_t n = in.size() - 2;
    return {std::move(in),
            std::vector<uint32_t>(n, 1),
            std::move(window),
            std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 1),
            include_padding};
}

std::vector<uint32_t> out_sizes(const Geometry& g) {
    std::vector<uint32_t> out = {g.in[0], g.in[1]};
    for (size_t i = 0; i + 2 < g.in.size(); ++i)
        out.push_back(
            (g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i] - (1 + (g.WindowSize[i] - 1) * g.Dilations[i])) /
                g.Strides[i] +
            1);
    return out;
}

// The operands: per tensor (one value) or per channel (ChannelCount values); an empty zero point
// vector leaves the optional tensor out.
struct Params {
    std::vector<float> si, so;
    std::vector<int> zi, zo;
};

std::vector<std::byte> int_bytes(const TensorDesc& d, const std::vector<int>& v) {
    if (d.DataType == DataType::INT8) return logical_buffer(d, std::vector<int8_t>(v.begin(), v.end()));
    return logical_buffer(d, std::vector<uint8_t>(v.begin(), v.end()));
}

TensorDesc parameter(DataType t, size_t count, size_t rank) {
    std::vector<uint32_t> s(rank, 1);
    s[1] = uint32_t(count);
    return desc(t, count == 1 ? std::vector<uint32_t>{1} : s);
}

// A row-major layout with a gap of one element after every row of the last dimension.
std::vector<uint32_t> packed_strides_plus(const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> s(sizes.size());
    uint32_t acc = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        s[i] = acc;
        acc *= sizes[i] + (i + 1 == sizes.size() ? 1 : 0);
    }
    return s;
}

Case make(DataType in, DataType out, const Geometry& g, const std::vector<int>& x, const Params& p,
          bool strided = false) {
    QAP d;
    d.InputTensor = desc(in, g.in, strided ? packed_strides_plus(g.in) : std::vector<uint32_t>{});
    d.OutputTensor = desc(out, out_sizes(g));
    d.InputScaleTensor = parameter(DataType::FLOAT32, p.si.size(), g.in.size());
    d.OutputScaleTensor = parameter(DataType::FLOAT32, p.so.size(), g.in.size());
    if (!p.zi.empty()) d.InputZeroPointTensor = parameter(in, p.zi.size(), g.in.size());
    if (!p.zo.empty()) d.OutputZeroPointTensor = parameter(out, p.zo.size(), g.in.size());
    set_window(d, g);
    Case c;
    c.op = {OperatorType::QUANTIZED_LINEAR_AVERAGE_POOLING, d};
    c.inputs = {{"InputTensor", int_bytes(d.InputTensor, x)},
                {"InputScaleTensor", buffer(d.InputScaleTensor, p.si)},
                {"OutputScaleTensor", buffer(d.OutputScaleTensor, p.so)}};
    if (!p.zi.empty()) c.inputs["InputZeroPointTensor"] = int_bytes(*d.InputZeroPointTensor, p.zi);
    if (!p.zo.empty()) c.inputs["OutputZeroPointTensor"] = int_bytes(*d.OutputZeroPointTensor, p.zo);
    return c;
}

std::vector<int> pool(const Case& c) {
    const QAP& d = get<QAP>(c.op.Desc);
    const auto out = run(c.op, c.inputs).at("OutputTensor");
    if (d.OutputTensor.DataType == DataType::INT8) {
        const auto v = as_values<int8_t>(out);
        return {v.begin(), v.end()};
    }
    const auto v = as_values<uint8_t>(out);
    return {v.begin(), v.end()};
}

// The naive value: si = ki 2^(ei - 24), so = ko 2^(eo - 24) (frexp); S si / (D so) = S ki 2^(ei - eo) / (D ko) as a
// fraction of 128-bit integers, rounded half to even, plus zo, saturated.
int naive_element(int64_t S, uint64_t D, float si, float so, int zo, int lo, int hi) {
    int ei = 0, eo = 0;
    const auto ki = static_cast<int128_t>(std::ldexp(std::frexp(double(si), &ei), 24));
    const auto ko = static_cast<int128_t>(std::ldexp(std::frexp(double(so), &eo), 24));
    int128_t num = int128_t(S) * ki, den = int128_t(D) * ko;
    const int shift = ei - eo;
    if (shift >= 0) num <<= shift;
    else den <<= -shift;
    if (den < 0) num = -num, den = -den;
    int128_t k = num / den;
    if (num % den != 0 && num < 0) --k;
    const int128_t twice = 2 * (num - k * den);
    if (twice > den || (twice == den && k % 2 != 0)) ++k;
    return int(std::clamp<int128_t>(k + zo, lo, hi));
}

std::vector<int> naive(const Geometry& g, DataType out, const std::vector<int>& x, const Params& p) {
    const auto osz = out_sizes(g);
    const int lo = out == DataType::INT8 ? -128 : 0, hi = out == DataType::INT8 ? 127 : 255;
    auto at = [](const auto& v, uint32_t c) { return v.size() == 1 ? v[0] : v[c]; };
    std::vector<int> y;
    for (uint64_t o = 0; o < product(osz); ++o) {
        const uint32_t c = unflatten(o, osz)[1];
        const int zi = p.zi.empty() ? 0 : at(p.zi, c), zo = p.zo.empty() ? 0 : at(p.zo, c);
        const auto taps = window_taps(g, osz, o);
        int64_t S = 0;
        for (uint64_t t : taps) S += x[t] - zi;
        const uint64_t D = g.IncludePadding ? product(g.WindowSize) : taps.size();
        y.push_back(D == 0 ? std::clamp(zo, lo, hi) : naive_element(S, D, at(p.si, c), at(p.so, c), zo, lo, hi));
    }
    return y;
}

}  // namespace

TEST_CASE("QUANTIZED_LINEAR_AVERAGE_POOLING: hand values of the page's dequantize, average, quantize") {
    // A 2x2 window over INT8 {1, 1, 2, 3}: [[1, 2, 3], [4, 5, 6]] with zero point 1 and scale 0.5
    // is [[0, 0.5, 1], [1.5, 2, 2.5]]; the windows' averages (0 + 0.5 + 1.5 + 2) / 4 = 1 and
    // (0.5 + 1 + 2 + 2.5) / 4 = 1.5; OutputScale 0.25, zero point -3: 4 - 3 = 1 and 6 - 3 = 3.
    const Geometry g = plain({1, 1, 2, 3}, {2, 2});
    CHECK(pool(make(DataType::INT8, DataType::INT8, g, {1, 2, 3, 4, 5, 6}, {{0.5f}, {0.25f}, {1}, {-3}})) ==
          std::vector<int>{1, 3});
    // The same through a strided input: the layout does not change the values.
    CHECK(pool(make(DataType::INT8, DataType::INT8, g, {1, 2, 3, 4, 5, 6}, {{0.5f}, {0.25f}, {1}, {-3}}, true)) ==
          std::vector<int>{1, 3});
    // Ties go to even: UINT8 [1, 2] with scale 1, window 2: 1.5 goes to 2; [1, 4]: 2.5 goes to 2; no zero points.
    CHECK(pool(make(DataType::UINT8, DataType::UINT8, plain({1, 2, 2}, {2}), {1, 2, 1, 4}, {{1.0f}, {1.0f}, {}, {}})) ==
          std::vector<int>{2, 2});
    // IncludePadding: INT8 [10, 20, 30] with zero point 10, window 3, one padding each side. TRUE divides
    // by 3 and padding is a dequantized 0: 10 / 3 -> 3, 30 / 3 = 10, 30 / 3 = 10; FALSE: 10 / 2 = 5, 10, 15.
    Geometry p = plain({1, 1, 3}, {3}, 1);
    p.StartPadding = p.EndPadding = {1};
    CHECK(pool(make(DataType::INT8, DataType::INT8, p, {10, 20, 30}, {{1.0f}, {1.0f}, {10}, {}})) ==
          std::vector<int>{3, 10, 10});
    p.IncludePadding = 0;
    CHECK(pool(make(DataType::INT8, DataType::INT8, p, {10, 20, 30}, {{1.0f}, {1.0f}, {10}, {}})) ==
          std::vector<int>{5, 10, 15});
    // Per channel, INT8 in and UINT8 out: channel 0 [-3, 6], zero point 1, scale 0.25: (-4 + 5) * 0.25 / 2 / 0.125
    // = 1, + 128; channel 1 [100, 127], zero point 100, scale 2: 27 * 2 / 2 / 0.125 = 216, + 50 = 266 -> 255.
    CHECK(pool(make(DataType::INT8, DataType::UINT8, plain({1, 2, 2}, {2}), {-3, 6, 100, 127},
                    {{0.25f, 2.0f}, {0.125f}, {1, 100}, {128, 50}})) == std::vector<int>{129, 255});
    // An empty window (StartPadding 2 of a window of 2) without IncludePadding: the output zero point 100,
    // listed DontCare; (7 - 5) / 0.5 + 100 = 104; (2 + 4) / 2 / 0.5 + 100 = 106.
    Geometry e = plain({1, 1, 2}, {2});
    e.StartPadding = {2};
    const Case empty = make(DataType::UINT8, DataType::UINT8, e, {7, 9}, {{1.0f}, {0.5f}, {5}, {100}});
    CHECK(pool(empty) == std::vector<int>{100, 104, 106});
    const auto dc = reference::quantized_pool_dont_care(get<QAP>(empty.op.Desc), "OutputTensor");
    REQUIRE(dc.size() == 1);
    CHECK(dc[0].Index == 0);
    // Non-finite and negative scales (IEEE's rules, QuantizeNaN=Minimum): InputScale +inf saturates a
    // positive sum, a zero sum (0 * inf) is NaN -> Min; OutputScale -0.5 flips the sign: 2 / -0.5 = -4.
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(pool(make(DataType::INT8, DataType::INT8, plain({1, 1, 4}, {2}), {1, 2, 0, 0}, {{inf}, {1.0f}, {}, {}})) ==
          std::vector<int>{127, 127, -128});
    CHECK(pool(make(DataType::INT8, DataType::INT8, plain({1, 1, 2}, {2}), {1, 3}, {{1.0f}, {-0.5f}, {}, {}})) ==
          std::vector<int>{-4});
}

TEST_CASE("QUANTIZED_LINEAR_AVERAGE_POOLING: random geometries against a naive integer evaluation") {
    std::mt19937 rng(2026);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    // Dyadic scales k 2^-e, k < 2^12.
    auto scale = [&]() { return std::ldexp(float(pick(1, 4095)), -pick(4, 14)); };
    for (int trial = 0; trial < 60; ++trial) {
        const size_t spatial = size_t(pick(1, 3));
        Geometry g;
        g.in = {uint32_t(pick(1, 2)), uint32_t(pick(1, 3))};
        for (size_t i = 0; i < spatial; ++i) {
            g.in.push_back(uint32_t(pick(2, 5)));
            g.Dilations.push_back(uint32_t(pick(1, 2)));
            g.WindowSize.push_back(uint32_t(pick(1, 3)));
            g.Strides.push_back(uint32_t(pick(1, 2)));
            g.StartPadding.push_back(uint32_t(pick(0, 2)));
            g.EndPadding.push_back(uint32_t(pick(0, 1)));
            while (1 + (g.WindowSize[i] - 1) * g.Dilations[i] > g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i])
                --g.WindowSize[i];
        }
        g.IncludePadding = uint32_t(pick(0, 1));
        const DataType in = pick(0, 1) ? DataType::INT8 : DataType::UINT8,
                       out = pick(0, 1) ? DataType::INT8 : DataType::UINT8;
        const int ilo = in == DataType::INT8 ? -128 : 0, olo = out == DataType::INT8 ? -128 : 0;
        std::vector<int> x(product(g.in));
        for (int& v : x) v = pick(ilo, ilo + 255);
        const uint32_t C = g.in[1];
        const bool per_channel = pick(0, 1);
        Params p;
        for (uint32_t c = 0; c < (per_channel ? C : 1); ++c) {
            p.si.push_back(scale()), p.so.push_back(scale());
            p.zi.push_back(pick(ilo, ilo + 255)), p.zo.push_back(pick(olo, olo + 255));
        }
        if (pick(0, 3) == 0) p.zi.clear(), p.zo.clear();
        INFO("trial " << trial);
        const std::vector<int> got = pool(make(in, out, g, x, p, trial % 3 == 0)), want = naive(g, out, x, p);
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            INFO("element " << i);
            CHECK(got[i] == want[i]);
        }
    }
}

TEST_CASE("QUANTIZED_LINEAR_AVERAGE_POOLING: every rule of the page, with its id") {
    const Case good = make(DataType::INT8, DataType::INT8, plain({1, 2, 4, 4}, {2, 2}), std::vector<int>(32, 0),
                           {{1.0f}, {1.0f}, {0}, {0}});
    const QAP a = get<QAP>(good.op.Desc);
    const auto op = [](const QAP& d) { return Operator{OperatorType::QUANTIZED_LINEAR_AVERAGE_POOLING, d}; };
    CHECK_FALSE(validate(op(a)).has_errors());
    const std::string r = "quantized-linear-average-pooling.";
    QAP b = a;
    b.InputTensor.DataType = b.InputZeroPointTensor->DataType = DataType::INT16;
    CHECK(has_error(op(b), r + "data-type", "/desc/InputTensor/DataType"));
    b = a;
    b.OutputTensor.DataType = b.OutputZeroPointTensor->DataType = DataType::INT32;
    CHECK(has_error(op(b), r + "output-data-type", "/desc/OutputTensor/DataType"));
    b = a;
    b.OutputScaleTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op(b), r + "scale-data-type", "/desc/OutputScaleTensor/DataType"));
    b = a;
    b.InputZeroPointTensor->DataType = DataType::UINT8;
    CHECK(has_error(op(b), r + "zero-point-data-type", "/desc/InputZeroPointTensor/DataType"));
    b = a;
    b.InputScaleTensor = desc(DataType::FLOAT32, {1, 1, 2, 1});
    CHECK(has_error(op(b), r + "scale-sizes", "/desc/InputScaleTensor/Sizes"));
    b.InputScaleTensor = desc(DataType::FLOAT32, {1, 2, 1, 1});  // per channel: valid
    CHECK_FALSE(validate(op(b)).has_errors());
    b.InputScaleTensor = desc(DataType::FLOAT32, {2});  // ChannelCount elements, but not {1, C, 1, 1}
    CHECK(has_error(op(b), r + "scale-sizes", "/desc/InputScaleTensor/Sizes"));
    b = a;
    b.OutputZeroPointTensor = desc(DataType::INT8, {1, 3, 1, 1});
    CHECK(has_error(op(b), r + "zero-point-sizes", "/desc/OutputZeroPointTensor/Sizes"));
    b = a;
    b.IncludePadding = 2;
    CHECK(has_error(op(b), r + "include-padding", "/desc/IncludePadding"));
    b = a;
    b.Dilations = {1, 0};
    CHECK(has_error(op(b), r + "dilation-nonzero", "/desc/Dilations/1"));
    b = a;
    b.OutputTensor.Sizes = {1, 2, 2, 3};
    CHECK(has_error(op(b), r + "output-size", "/desc/OutputTensor/Sizes/2"));
    b = a;
    b.OutputTensor.Sizes = {1, 2, 9};
    CHECK(has_error(op(b), r + "same-dimension-count", "/desc/OutputTensor/Sizes"));
    // A zero scale is undefined behaviour (the page's notes): refused from the values.
    const Diagnostics z = validate_input_values(
        good.op,
        {{"InputScaleTensor", buffer(a.InputScaleTensor, std::vector<float>{1.0f})},
         {"OutputScaleTensor", buffer(a.OutputScaleTensor, std::vector<float>{0.0f})}},
        1u << 30);
    REQUIRE(z.has_errors());
    CHECK(z.items()[0].rule == r + "scale-zero");
}

TEST_CASE("QUANTIZED_LINEAR_AVERAGE_POOLING: bit for bit, or 1 at a requantization tie") {
    // UINT8 [1, 1] with scale 0.75, one window of 2, OutputScale 0.1f: 0.75 / 0.1f = 7.4999999 exactly,
    // 7; FLOAT32 arithmetic gives 7.5 and 8. The element is a QuantizeTie: Ulp 1, 8 admitted, 9 not.
    const float tenth = from_bits<float>(uint32_t(0x3dcccccd));
    const Case tie = make(DataType::UINT8, DataType::UINT8, plain({1, 1, 2}, {2}), {1, 1}, {{0.75f}, {tenth}, {}, {}});
    CHECK(pool(tie) == std::vector<int>{7});
    const Tolerance t = stated_tolerance(tie, "OutputTensor");
    CHECK(t.Kind == "Ulp");
    const Case golden = with_golden(tie, "OutputTensor");
    const TensorDesc o = desc(DataType::UINT8, {1, 1, 1});
    CHECK(census(golden, "OutputTensor", buffer(o, std::vector<uint8_t>{8}), DiffOptions{}).over == 0);
    CHECK(census(golden, "OutputTensor", buffer(o, std::vector<uint8_t>{9}), DiffOptions{}).over == 1);
    // Far from a tie: [1, 1] with scale 0.5 gives 0.5 / 0.1f = 4.99999993, far from 4.5 and 5.5: Bits, and one
    // off fails.
    const Case plain_case = make(DataType::UINT8, DataType::UINT8, plain({1, 1, 2}, {2}), {1, 1},
                                 {{0.5f}, {tenth}, {}, {}});
    CHECK(pool(plain_case) == std::vector<int>{5});
    CHECK(stated_tolerance(plain_case, "OutputTensor").Kind == "Bits");
    CHECK(census(with_golden(plain_case, "OutputTensor"), "OutputTensor", buffer(o, std::vector<uint8_t>{4}),
                 DiffOptions{})
              .over == 1);
    // The tie test itself: 2.5 (S = 5, D = 2) is a tie; 2.25 is not; ties whose neighbours saturate alike are not.
    CHECK(reference::quantized_pool_near_tie({5, 5, 2, 2, 1.0, 1.0, 0}, 0, 255));
    CHECK_FALSE(reference::quantized_pool_near_tie({9, 9, 4, 4, 1.0, 1.0, 0}, 0, 255));
    CHECK_FALSE(reference::quantized_pool_near_tie({5, 5, 2, 2, 1.0, 1.0, 300}, 0, 255));
}

}  // namespace dmlref_test_quantized_pooling
