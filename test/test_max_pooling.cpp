// MAX_POOLING, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD. Expected values come from the
// MAX_POOLING_GRAD page's example, from hand derivation (written beside them), or from the
// naive computation in this file, which finds each window's maximum first and then the lowest
// logical index holding it (not the reference's scan).
#include "support.hpp"

#include <cmath>
#include <limits>

using namespace dmlref;
using namespace dmlref::test;

namespace {

// One pooling geometry: the input's sizes and the per-spatial-dimension arrays.
struct Geometry {
    std::vector<uint32_t> in;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
};

Geometry plain(std::vector<uint32_t> in, std::vector<uint32_t> window) {
    const size_t n = in.size() - 2;
    return {std::move(in), std::vector<uint32_t>(n, 1), std::move(window), std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 0), std::vector<uint32_t>(n, 1)};
}

// The floor size of the spec: (In + StartPadding + EndPadding - (1 + (WindowSize - 1) * Dilations)) / Strides + 1.
std::vector<uint32_t> floor_sizes(const Geometry& g) {
    std::vector<uint32_t> out = {g.in[0], g.in[1]};
    for (size_t i = 0; i + 2 < g.in.size(); ++i) {
        const uint32_t window = 1 + (g.WindowSize[i] - 1) * g.Dilations[i];
        out.push_back((g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i] - window) / g.Strides[i] + 1);
    }
    return out;
}

Operator pool2(DataType t, const Geometry& g, std::optional<DataType> indices = DataType::UINT32,
               std::vector<uint32_t> out = {}) {
    if (out.empty()) out = floor_sizes(g);
    DML_MAX_POOLING2_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, out);
    if (indices) d.OutputIndicesTensor = desc(*indices, out);
    d.DimensionCount = uint32_t(g.in.size() - 2);
    d.Strides = g.Strides;
    d.WindowSize = g.WindowSize;
    d.StartPadding = g.StartPadding;
    d.EndPadding = g.EndPadding;
    d.Dilations = g.Dilations;
    return {OperatorType::MAX_POOLING2, d};
}

Operator pool_grad(DataType t, const Geometry& g, std::vector<uint32_t> out = {}) {
    if (out.empty()) out = floor_sizes(g);
    DML_MAX_POOLING_GRAD_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.InputGradientTensor = desc(t, out);
    d.OutputGradientTensor = desc(t, g.in);
    d.DimensionCount = uint32_t(g.in.size() - 2);
    d.Strides = g.Strides;
    d.WindowSize = g.WindowSize;
    d.StartPadding = g.StartPadding;
    d.EndPadding = g.EndPadding;
    d.Dilations = g.Dilations;
    return {OperatorType::MAX_POOLING_GRAD, d};
}

template <class T> std::vector<T> values_of(std::initializer_list<double> v) {
    std::vector<T> r;
    for (double x : v) r.push_back(value_of<T>(x));
    return r;
}

// Forward values and indices (UINT32).
template <class T> std::pair<std::vector<T>, std::vector<uint32_t>> forward(const Geometry& g, const std::vector<T>& x,
                                                                             std::vector<uint32_t> out = {}) {
    const Operator op = pool2(data_type_of<T>(), g, DataType::UINT32, out);
    auto r = run(op, {{"InputTensor", buffer(desc(data_type_of<T>(), g.in), x)}});
    return {as_values<T>(r.at("OutputTensor")), as_values<uint32_t>(r.at("OutputIndicesTensor"))};
}

template <class T> std::vector<T> backward(const Geometry& g, const std::vector<T>& x, const std::vector<T>& dy,
                                           std::vector<uint32_t> out = {}) {
    if (out.empty()) out = floor_sizes(g);
    const Operator op = pool_grad(data_type_of<T>(), g, out);
    auto r = run(op, {{"InputTensor", buffer(desc(data_type_of<T>(), g.in), x)},
                      {"InputGradientTensor", buffer(desc(data_type_of<T>(), out), dy)}});
    return as_values<T>(r.at("OutputGradientTensor"));
}

// ---- The independent naive computation -------------------------------------------------------


// The logical input indices of output element `o`'s window that are real (not padding).
std::vector<uint64_t> real_window(const Geometry& g, const std::vector<uint32_t>& out, uint64_t o) {
    const auto oc = unflatten(o, out);
    const std::vector<uint32_t> window(g.WindowSize.begin(), g.WindowSize.end());
    std::vector<uint64_t> r;
    for (uint64_t k = 0; k < product(window); ++k) {
        const auto kc = unflatten(k, window);
        std::vector<uint32_t> p = {oc[0], oc[1]};
        bool real = true;
        for (size_t i = 0; i < window.size(); ++i) {
            const int64_t pos = int64_t(oc[i + 2]) * g.Strides[i] - int64_t(g.StartPadding[i]) + int64_t(kc[i]) * g.Dilations[i];
            real = real && pos >= 0 && pos < int64_t(g.in[i + 2]);
            p.push_back(uint32_t(std::max<int64_t>(pos, 0)));
        }
        if (real) r.push_back(flatten(p, g.in));
    }
    return r;
}

// Argmax for data without NaN: the maximum value, then the lowest index holding it.
template <class T> int64_t naive_argmax(const Geometry& g, const std::vector<uint32_t>& out, uint64_t o, const std::vector<T>& x) {
    const auto w = real_window(g, out, o);
    if (w.empty()) return -1;
    double best = -std::numeric_limits<double>::infinity();
    for (auto i : w) best = std::max(best, double(x[i]));
    uint64_t lowest = ~uint64_t(0);
    for (auto i : w) if (double(x[i]) == best) lowest = std::min(lowest, i);
    return int64_t(lowest);
}

// Small integers of every type, with repeats so that ties happen.
template <class T> std::vector<T> small_values(size_t n, uint32_t seed) {
    std::vector<T> v(n);
    uint32_t s = seed;
    for (auto& x : v) {
        s = s * 1103515245u + 12345u;
        const int r = int((s >> 16) % 7);
        x = value_of<T>(std::is_signed_v<T> || is_floating_v<T> ? r - 3 : r);
    }
    return v;
}

}  // namespace

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
    const auto& d = std::get<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc);
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
    struct Row { std::vector<float> x; uint32_t index; };
    const Row rows[] = {
        {{nan1, 1, 2, 0}, 2},       // first
        {{1, nan1, 2, 0}, 2},       // middle
        {{1, 2, 0, nan1}, 1},       // last
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
        check_bits(backward(g, std::vector<float>{1, nan1, 2, 0}, std::vector<float>{7}), std::vector<float>{0, 0, 7, 0});
        check_bits(backward(g, std::vector<float>{nan2, nan1, nan1, nan2}, std::vector<float>{7}), std::vector<float>{7, 0, 0, 0});
    }
}

TEST_CASE("max pooling: windows of -inf") {
    const float inf = std::numeric_limits<float>::infinity();
    const Geometry g = plain({1, 1, 1, 3}, {1, 2});  // windows {0,1} and {1,2}
    const auto [y, idx] = forward(g, std::vector<float>{-inf, -inf, -inf});
    check_bits(y, std::vector<float>{-inf, -inf});
    CHECK(idx == std::vector<uint32_t>{0, 1});
    check_bits(backward(g, std::vector<float>{-inf, -inf, -inf}, std::vector<float>{1, 2}), std::vector<float>{1, 2, 0});
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
    auto& d = std::get<DML_MAX_POOLING2_OPERATOR_DESC>(op.Desc);
    d.InputTensor.Strides = {9, 9, 1, 3};
    auto r = run(op, {{"InputTensor", logical_buffer(d.InputTensor, values_of<float>({1, 2, 3, 2, 4, 2, 5, 6, 7}))}});
    check_bits(as_values<float>(r.at("OutputTensor")), values_of<float>({4, 4, 6, 7}));
    CHECK(as_values<uint32_t>(r.at("OutputIndicesTensor")) == std::vector<uint32_t>{4, 4, 7, 8});
}

// ---- Grad sums -------------------------------------------------------------------------------

TEST_CASE("max pooling grad: overlapping windows add") {
    // X = [0,9,0], window 2, stride 1: both windows pick 9 -> dX[1] = dY0 + dY1.
    const Geometry g = plain({1, 1, 1, 3}, {1, 2});
    check_bits(backward(g, values_of<float>({0, 9, 0}), values_of<float>({1.5, 2.25})), values_of<float>({0, 3.75, 0}));
    // A 3x3 window, stride 1, over a 4x4 input with the maximum in the middle: 4 windows.
    const Geometry g2 = plain({1, 1, 4, 4}, {3, 3});
    std::vector<float> x(16, 0.0f);
    x[5] = 1;
    std::vector<float> dx(16, 0.0f);
    dx[5] = 1 + 2 + 3 + 4;
    check_bits(backward(g2, x, values_of<float>({1, 2, 3, 4})), dx);
}

TEST_CASE("max pooling grad: float sums are exact, then rounded once") {
    // One input element wins every window: X = [9,0,0,...] with window n over n-element rows
    // and StartPadding n-1 sends dY's n terms into dX[0] (windows o = 0..n-1 all hold index 0).
    auto all_to_first = [](uint32_t terms) {
        Geometry g = plain({1, 1, 1, terms}, {1, terms});
        g.StartPadding = {0, terms - 1};
        return g;
    };
    SUBCASE("2^24 + 1 + 1 in FLOAT32: naive float32 accumulation gives 2^24") {
        // Exact: 16777218, a float32 (even). Float32 adds: 2^24 + 1 = 2^24 (tie to even), twice.
        const Geometry g = all_to_first(3);
        const auto dx = backward(g, values_of<float>({9, 0, 0}), values_of<float>({16777216, 1, 1}));
        check_bits(dx, values_of<float>({16777218, 0, 0}));
        // Negated: -16777218.
        check_bits(backward(g, values_of<float>({9, 0, 0}), values_of<float>({-16777216, -1, -1})), values_of<float>({-16777218, 0, 0}));
        float naive = 16777216.0f;
        naive += 1.0f;
        naive += 1.0f;
        CHECK(naive != dx[0]);
    }
    SUBCASE("FLOAT64: 1 + 2^-53 + 2^-106 rounds up to 1 + 2^-52") {
        // Exact sum is above the midpoint between 1 and 1 + 2^-52.
        const Geometry g = all_to_first(3);
        const auto dx = backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{1, std::ldexp(1.0, -53), std::ldexp(1.0, -106)});
        check_bits(dx, std::vector<double>{1 + std::ldexp(1.0, -52), 0, 0});
    }
    SUBCASE("FLOAT64: ties to even and sticky bits far below") {
        const Geometry g2 = all_to_first(2), g3 = all_to_first(3);
        const double u = std::ldexp(1.0, -52), t = std::numeric_limits<double>::denorm_min();
        // 1 + u/2 is a tie: even 1. 1 + u + u/2 is a tie: even 1 + 2u. A subnormal 1000 words
        // below breaks the tie upwards, also for negative sums.
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{1, u / 2}), std::vector<double>{1, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{1, u, u / 2}), std::vector<double>{1 + 2 * u, 0, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{1, u / 2, t}), std::vector<double>{1 + u, 0, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{-1, -u / 2, -t}), std::vector<double>{-1 - u, 0, 0});
        check_bits(backward(g3, std::vector<double>{9, 0, 0}, std::vector<double>{-1, -u / 2, t}), std::vector<double>{-1, 0, 0});
    }
    SUBCASE("FLOAT64: DBL_MAX + DBL_MAX - DBL_MAX does not overflow on the way") {
        const double m = std::numeric_limits<double>::max();
        const Geometry g = all_to_first(3);
        check_bits(backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{m, m, -m}), std::vector<double>{m, 0, 0});
        // And DBL_MAX + DBL_MAX is +inf; DBL_MAX + half an ULP of it ties to even, 2^1024: +inf.
        const Geometry g2 = all_to_first(2);
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{m, m}),
                   std::vector<double>{std::numeric_limits<double>::infinity(), 0});
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{m, std::ldexp(1.0, 970)}),
                   std::vector<double>{std::numeric_limits<double>::infinity(), 0});
        check_bits(backward(g2, std::vector<double>{9, 0}, std::vector<double>{m, std::ldexp(1.0, 969)}),
                   std::vector<double>{m, 0});
    }
    SUBCASE("subnormals add exactly") {
        const double t = std::numeric_limits<double>::denorm_min();
        const Geometry g = all_to_first(3);
        check_bits(backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{t, t, -t}), std::vector<double>{t, 0, 0});
        check_bits(backward(g, std::vector<double>{9, 0, 0}, std::vector<double>{1, t, -1}), std::vector<double>{t, 0, 0});
    }
    SUBCASE("FLOAT16 overflows to infinity only when the exact sum does") {
        const Geometry g2 = all_to_first(2), g3 = all_to_first(3);
        const half inf = from_bits<half>(0x7c00);
        // 60000 + 60000 = 120000 > 65504: +inf. 65504 + 16 = 65520, the midpoint to 2^16: ties
        // to even -> +inf. 65504 + 15 -> 65504. 60000 + 60000 - 60000 = 60000 (a half
        // accumulator would have overflowed).
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({60000, 60000})), std::vector<half>{inf, value_of<half>(0)});
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({65504, 16})), std::vector<half>{inf, value_of<half>(0)});
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({65504, 15})), values_of<half>({65504, 0}));
        check_bits(backward(g3, values_of<half>({9, 0, 0}), values_of<half>({60000, 60000, -60000})), values_of<half>({60000, 0, 0}));
        check_bits(backward(g2, values_of<half>({9, 0}), values_of<half>({-60000, -60000})),
                   std::vector<half>{from_bits<half>(0xfc00), value_of<half>(0)});
    }
    SUBCASE("zeros: every sum starts from +0") {
        const Geometry g = all_to_first(2);
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{-0.0f, -0.0f}), std::vector<float>{0.0f, 0.0f});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{1.0f, -1.0f}), std::vector<float>{0.0f, 0.0f});
    }
    SUBCASE("non-finite terms") {
        const Geometry g = all_to_first(2);
        const float inf = std::numeric_limits<float>::infinity();
        const float canonical = from_bits<float>(0x7fc00000u);
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{inf, 1}), std::vector<float>{inf, 0});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{-inf, -inf}), std::vector<float>{-inf, 0});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{inf, -inf}), std::vector<float>{canonical, 0});
        check_bits(backward(g, values_of<float>({9, 0}), std::vector<float>{from_bits<float>(0xffc00001u), 1}),
                   std::vector<float>{canonical, 0});
        // A single NaN term is also a sum: canonical NaN, not the term's bits.
        const Geometry g1 = plain({1, 1, 1, 1}, {1, 1});
        check_bits(backward(g1, values_of<float>({9}), std::vector<float>{from_bits<float>(0x7fc00001u)}), std::vector<float>{canonical});
        check_bits(backward(g1, values_of<half>({9}), std::vector<half>{from_bits<half>(0xfe01)}), std::vector<half>{from_bits<half>(0x7e00)});
    }
    SUBCASE("random FLOAT32 terms against an exact 128-bit integer sum") {
        // Terms m * 2^e with |m| < 2^24 and e in [-20, 20] are integers in units of 2^-43 below
        // 2^64; up to 64 of them sum exactly in __int128, whose conversion to double rounds to
        // nearest even; then ldexp is exact and the float conversion rounds once more.
        uint32_t s = 12345;
        auto next = [&] { s = s * 1664525u + 1013904223u; return s >> 8; };
        for (int trial = 0; trial < 200; ++trial) {
            const uint32_t n = 2 + next() % 63;
            std::vector<float> dy(n);
            int128_t exact = 0;
            for (auto& t : dy) {
                const int32_t m = int32_t(next() % (1u << 24)) * ((next() & 1) ? 1 : -1);
                const int e = int(next() % 41) - 20;
                t = std::ldexp(float(m), e);
                exact += int128_t(m) << (e + 20 + 23);
            }
            std::vector<float> x(n, 0.0f);
            x[0] = 9;
            const float expected = static_cast<float>(std::ldexp(static_cast<double>(exact), -43));
            INFO("trial " << trial);
            CHECK(to_bits(backward(all_to_first(n), x, dy)[0]) == to_bits(expected == 0 ? 0.0f : expected));
        }
    }
    SUBCASE("term counts") {
        const Geometry g = all_to_first(3);
        const Operator op = pool_grad(DataType::FLOAT32, g);
        const auto& d = std::get<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc);
        const auto xb = buffer(d.InputTensor, values_of<float>({9, 0, 0}));
        CHECK(max_pooling_grad_term_counts(d, xb) == std::vector<uint32_t>{3, 0, 0});
    }
}

TEST_CASE("max pooling grad: integer sums wrap to the width") {
    const Geometry g = plain({1, 1, 1, 3}, {1, 2});  // both windows pick X[1]
    // INT8: 100 + 100 = 200 -> 200 - 256 = -56. UINT8: 200 + 100 = 300 -> 44.
    CHECK(backward(g, std::vector<int8_t>{0, 9, 0}, std::vector<int8_t>{100, 100}) == std::vector<int8_t>{0, -56, 0});
    CHECK(backward(g, std::vector<uint8_t>{0, 9, 0}, std::vector<uint8_t>{200, 100}) == std::vector<uint8_t>{0, 44, 0});
    // INT64: INT64_MAX + 1 wraps to INT64_MIN; UINT64: 2^64 - 1 + 2 = 1.
    const int64_t big = std::numeric_limits<int64_t>::max();
    CHECK(backward(g, std::vector<int64_t>{0, 9, 0}, std::vector<int64_t>{big, 1}) ==
          std::vector<int64_t>{0, std::numeric_limits<int64_t>::min(), 0});
    CHECK(backward(g, std::vector<uint64_t>{0, 9, 0}, std::vector<uint64_t>{~uint64_t(0), 2}) == std::vector<uint64_t>{0, 1, 0});
    CHECK(backward(g, std::vector<int16_t>{0, 9, 0}, std::vector<int16_t>{-7, 3}) == std::vector<int16_t>{0, -4, 0});
}

// ---- Every rank and type against the naive computation ----------------------------------------

TEST_CASE_TEMPLATE("max pooling: ranks 3 to 8 against the naive computation", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    for (uint32_t rank = 3; rank <= 8; ++rank) {
        // Spatial dim i: size 3 (2 above rank 5), window 2, stride 1 + i % 2, StartPadding i % 2,
        // EndPadding (i + 1) % 2, Dilations 2 on dimension 1 when it has room.
        Geometry g;
        g.in = {2, 2};
        for (uint32_t i = 0; i + 2 < rank; ++i) {
            const uint32_t size = rank <= 5 ? 3 : 2;
            g.in.push_back(size);
            g.WindowSize.push_back(2);
            g.Strides.push_back(1 + i % 2);
            g.StartPadding.push_back(i % 2);
            g.EndPadding.push_back((i + 1) % 2);
            g.Dilations.push_back(i == 1 && size == 3 ? 2 : 1);
        }
        const auto out = floor_sizes(g);
        INFO("rank " << rank << ", type " << name(t));
        const auto x = small_values<T>(product(g.in), rank * 77);
        const auto dy = small_values<T>(product(out), rank * 91 + 5);

        // Forward against the naive argmax.
        const auto [y, idx] = forward(g, x);
        std::vector<T> dx_naive(x.size(), value_of<T>(0));
        std::vector<double> dx_sum(x.size(), 0.0);
        for (uint64_t o = 0; o < product(out); ++o) {
            const int64_t a = naive_argmax(g, out, o, x);
            REQUIRE(a >= 0);  // these geometries have no all-padding window
            INFO("output " << o);
            CHECK(idx[o] == uint32_t(a));
            CHECK(to_bits(y[o]) == to_bits(x[size_t(a)]));
            dx_sum[size_t(a)] += double(dy[o]);  // small integers: exact in any order
        }
        for (size_t i = 0; i < x.size(); ++i) dx_naive[i] = value_of<T>(dx_sum[i]);
        const auto dx = backward(g, x, dy);
        check_bits(dx, dx_naive);

        // Consistency: dY scattered through MAX_POOLING2's indices is MAX_POOLING_GRAD's result.
        std::vector<double> scattered(x.size(), 0.0);
        for (size_t o = 0; o < idx.size(); ++o) scattered[idx[o]] += double(dy[o]);
        for (size_t i = 0; i < x.size(); ++i) {
            INFO("element " << i);
            CHECK(to_bits(dx[i]) == to_bits(value_of<T>(scattered[i])));
        }
    }
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
    auto d2 = [](Operator& op) -> DML_MAX_POOLING2_OPERATOR_DESC& { return std::get<DML_MAX_POOLING2_OPERATOR_DESC>(op.Desc); };
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
            std::vector<uint32_t>* a = std::string(name) == "Strides" ? &d.Strides : std::string(name) == "WindowSize" ? &d.WindowSize
                                     : std::string(name) == "StartPadding" ? &d.StartPadding : std::string(name) == "EndPadding" ? &d.EndPadding
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
        DML_MAX_POOLING1_OPERATOR_DESC d1{in, out, desc(DataType::FLOAT32, {1, 1, 2, 2}), 2, {1, 1}, {2, 2}, {0, 0}, {0, 0}};
        CHECK(has_error({OperatorType::MAX_POOLING1, d1}, "max-pooling1.indices-data-type", "/desc/OutputIndicesTensor/DataType"));
    }
    SUBCASE("MAX_POOLING_GRAD") {
        auto dg = [](Operator& op) -> DML_MAX_POOLING_GRAD_OPERATOR_DESC& { return std::get<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc); };
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
    CHECK(lowest_supporting_feature_level(pool_grad(DataType::FLOAT16, plain({1, 1, 2, 2, 2}, {1, 1, 1})), nullptr) == 0x4000u);
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
    CHECK(max_pooling_argmax_ties({OperatorType::MAX_POOLING_GRAD, g}, xb) == std::vector<uint64_t>{0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    // Distinct values: no ties anywhere.
    const auto distinct = buffer<float>(x, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    CHECK(max_pooling_argmax_ties({OperatorType::MAX_POOLING_GRAD, g}, distinct).empty());
}
