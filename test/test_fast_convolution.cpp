// CONVOLUTION's fast path (reference/fast/convolution_f64.cpp) against the plain loop, bit for bit:
// random geometries (1 to 3 spatial dimensions, strides, dilations, start and end padding, groups
// and depthwise, both modes, a bias, a fused activation, a padded output), FLOAT32 and FLOAT16;
// tiles cut for 1 to 16 threads; adversarial windows (cancellation down to one small term, ties,
// zero sums) whose elements the product's bound cannot decide, counted to show that the
// compensated and exact paths really run; NaN inputs and BACKWARD (the plain loop for the call).
// The expected values are the plain loop's (reference/convolution.cpp), itself tested against
// hand-derived and independent values in test_convolution.cpp.
#include "f64_product_check.hpp"
#include "fast_check.hpp"
#include "support.hpp"

#include "dmlref/descs/convolution.hpp"

#include "../reference/fast/convolution_f64.hpp"

#include <cmath>
#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_convolution {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using CONV = DML_CONVOLUTION_OPERATOR_DESC;
using Sizes = std::vector<uint32_t>;

struct Geometry {
    uint32_t batch = 1, channels = 1, filters = 1, groups = 1;
    Sizes in, kernel, strides, dilations, start, end;
    uint32_t mode = kConvolutionModeCrossCorrelation, direction = kConvolutionDirectionForward;
    bool bias = false, out_padded = false;
    std::optional<DML_FUSED_ACTIVATION> activation;
};

Sizes output_sizes(const Geometry& g) {
    Sizes y = {g.batch, g.filters};
    for (size_t i = 0; i < g.in.size(); ++i) {
        const uint32_t extent = 1 + (g.kernel[i] - 1) * g.dilations[i];
        y.push_back((g.in[i] + g.start[i] + g.end[i] - extent) / g.strides[i] + 1);
    }
    return y;
}

Operator make(const Geometry& g, DataType t) {
    CONV d;
    Sizes x = {g.batch, g.channels}, w = {g.filters, g.channels / g.groups};
    x.insert(x.end(), g.in.begin(), g.in.end());
    w.insert(w.end(), g.kernel.begin(), g.kernel.end());
    const Sizes y = output_sizes(g);
    d.InputTensor = desc(t, x);
    d.FilterTensor = desc(t, w);
    d.OutputTensor = desc(t, y);
    if (g.out_padded) {  // rows 3 elements apart more than packed
        Sizes st(y.size());
        uint32_t step = 1;
        for (size_t i = y.size(); i-- > 0;) {
            st[i] = step;
            step *= y[i] + (i + 1 == y.size() ? 3 : 0);
        }
        d.OutputTensor = desc(t, y, st);
    }
    if (g.bias) {
        Sizes b(y.size(), 1);
        b[1] = g.filters;
        d.BiasTensor = desc(t, b);
    }
    d.Mode = g.mode;
    d.Direction = g.direction;
    d.DimensionCount = uint32_t(g.in.size());
    d.Strides = g.strides;
    d.Dilations = g.dilations;
    d.StartPadding = g.start;
    d.EndPadding = g.end;
    d.OutputPadding = Sizes(g.in.size(), 0);
    d.GroupCount = g.groups;
    d.FusedActivation = g.activation;
    return {OperatorType::CONVOLUTION, d};
}

// The buffers of op's inputs filled by value(rng, name) (in the tensor's type), the output by 0x5a.
template <class T, class V> Buffers buffers(const Operator& op, std::mt19937_64& rng, V&& value) {
    const CONV& d = get<CONV>(op.Desc);
    Buffers b;
    auto input = [&](const char* name, const TensorDesc& t) {
        std::vector<T> v(buffer_size(t) / sizeof(T));
        for (T& x : v) x = value_of<T>(value(rng, std::string(name)));
        std::vector<std::byte> bytes(buffer_size(t));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.push_back(name);
        b.bytes.push_back(std::move(bytes));
    };
    input("InputTensor", d.InputTensor);
    input("FilterTensor", d.FilterTensor);
    if (d.BiasTensor) input("BiasTensor", *d.BiasTensor);
    b.names.push_back("OutputTensor");
    b.bytes.emplace_back(buffer_size(d.OutputTensor), std::byte{0x5a});
    return b;
}

// The fast path (one thread and three, each product kernel; and each of `threads`) against the
// plain loop (f64_product_check.hpp); the fast path's counts of its one-thread run.
reference::fast::f64::PathCounts check(const Operator& op, const Buffers& in, std::initializer_list<int> threads = {}) {
    return check_product_path(op, in, reference::fast::convolution_fast_counts, threads);
}

double uniform(std::mt19937_64& rng, const std::string&) { return std::uniform_real_distribution<double>(-1, 1)(rng); }

Geometry random_geometry(std::mt19937_64& rng, bool padded = true) {
    Geometry g;
    const uint32_t spatial = 1 + uint32_t(rng() % 3);
    g.batch = 1 + uint32_t(rng() % 2);
    g.groups = rng() % 3 == 0 ? 1 + uint32_t(rng() % 3) : 1;
    const bool depthwise = rng() % 5 == 0;
    g.channels = g.groups * (depthwise ? 1 : 1 + uint32_t(rng() % 4));
    g.filters = g.groups * (1 + uint32_t(rng() % 4));
    for (uint32_t i = 0; i < spatial; ++i) {
        g.kernel.push_back(1 + uint32_t(rng() % (spatial == 3 ? 2 : 3)));
        g.dilations.push_back(1 + uint32_t(rng() % 2));
        g.strides.push_back(1 + uint32_t(rng() % 2));
        g.start.push_back(padded ? uint32_t(rng() % 3) : 0);
        g.end.push_back(padded ? uint32_t(rng() % 3) : 0);
        const uint32_t extent = 1 + (g.kernel[i] - 1) * g.dilations[i];
        g.in.push_back(std::max<uint32_t>(extent, 1 + uint32_t(rng() % (spatial == 3 ? 6 : 12))));
    }
    g.mode = rng() % 2 ? kConvolutionModeConvolution : kConvolutionModeCrossCorrelation;
    g.bias = rng() % 2;
    g.out_padded = rng() % 4 == 0;
    return g;
}

std::string text(const Geometry& g) {
    std::string s = "batch " + std::to_string(g.batch) + " C " + std::to_string(g.channels) + " M " +
                    std::to_string(g.filters) + " groups " + std::to_string(g.groups) + " in";
    for (uint32_t v : g.in) s += " " + std::to_string(v);
    s += " kernel";
    for (uint32_t v : g.kernel) s += " " + std::to_string(v);
    return s + " mode " + std::to_string(g.mode) + " bias " + std::to_string(g.bias);
}

}  // namespace

TEST_CASE("CONVOLUTION fast path = plain loop on random geometries, FLOAT32 and FLOAT16") {
    std::mt19937_64 rng(20261128);
    uint64_t decided = 0, undecided = 0;
    for (int i = 0; i < 60; ++i) {
        const bool padded = i % 4 != 3;
        const Geometry g = random_geometry(rng, padded);
        const DataType t = i % 3 == 2 ? DataType::FLOAT16 : DataType::FLOAT32;
        INFO("case " << i << ": " << text(g) << " " << name(t));
        const Operator op = make(g, t);
        const auto counts = t == DataType::FLOAT16 ? check(op, buffers<half>(op, rng, uniform))
                                                   : check(op, buffers<float>(op, rng, uniform));
        if (padded) continue;  // a window of padding only (no bias) is an exact zero: the exact path's
        decided += counts.decided;
        undecided += counts.compensated + counts.exact;
    }
    // Random data without padding: nearly every element decided by the bound.
    CHECK(decided > 100 * undecided);
}

TEST_CASE("CONVOLUTION fast path = plain loop with tiles cut for 1 to 16 threads, values across binades") {
    std::mt19937_64 rng(5);
    auto wide = [](std::mt19937_64& r, const std::string&) {
        return std::ldexp(std::uniform_real_distribution<double>(-1, 1)(r), int(r() % 30) - 15);
    };
    const DML_FUSED_ACTIVATION relu{5, {0, 0}}, linear{0, {0.5f, -0.25f}};  // ACTIVATION_RELU, ACTIVATION_LINEAR
    for (int i = 0; i < 6; ++i) {
        Geometry g{.batch = 1 + uint32_t(i % 2),
                   .channels = 6,
                   .filters = 8,
                   .groups = i == 3 ? 2u : 1u,
                   .in = {20 + uint32_t(rng() % 20), 24 + uint32_t(rng() % 20)},
                   .kernel = {3, 3},
                   .strides = {1, 1 + uint32_t(i % 2)},
                   .dilations = {1, 1},
                   .start = {1, 1},
                   .end = {1, 0},
                   .bias = i % 2 == 0};
        if (i == 1) g.activation = relu;
        if (i == 4) g.activation = linear;
        INFO("case " << i << ": " << text(g));
        const Operator op = make(g, i == 5 ? DataType::FLOAT16 : DataType::FLOAT32);
        if (i == 5) check(op, buffers<half>(op, rng, wide), {2, 7, 16});
        else check(op, buffers<float>(op, rng, wide), {2, 7, 16});
    }
}

TEST_CASE("CONVOLUTION fast path: adversarial windows take the compensated and exact paths") {
    // One channel, a 1 x K kernel over a 1 x K input (one output element per filter) with a
    // bias: the filter's row holds a small term t, then x and -x pairs, then 1; the input is all
    // ones. The exact value is Bias + 1 + t. With x about 2^30 the product's bound (from the
    // norms, about K 2^-53 2^30 sqrt(K)) is far wider than t's place, and the compensated sum keeps
    // t and decides; with x about 2^60 its own bound is too wide, and the exact path runs.
    std::mt19937_64 rng(11);
    for (const int big : {30, 60}) {
        const uint32_t half_k = 20, K = 2 * half_k + 2, filters = 5;
        const Geometry g{.filters = filters,
                         .in = {1, K},
                         .kernel = {1, K},
                         .strides = {1, 1},
                         .dilations = {1, 1},
                         .start = {0, 0},
                         .end = {0, 0},
                         .bias = true};
        const Operator op = make(g, DataType::FLOAT32);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&, const std::string&) { return 1.0; });
        std::vector<float> w(filters * K);
        for (uint32_t m = 0; m < filters; ++m) {
            w[m * K] = std::ldexp(float(1 + rng() % 15), -22) * (m % 2 ? -1.f : 1.f);
            for (uint32_t k = 1; k <= half_k; ++k) {
                const float x = std::ldexp(float(128 + rng() % 128), big + int(rng() % 5));
                w[m * K + k] = x;
                w[m * K + half_k + k] = -x;
            }
            w[m * K + K - 1] = 1;
        }
        std::memcpy(in.bytes[1].data(), static_cast<const void*>(w.data()), w.size() * sizeof(float));
        const auto counts = check(op, in);
        INFO("x from 2^" << big);
        CHECK(counts.decided == 0);
        CHECK(counts.compensated == (big == 30 ? filters : 0));
        CHECK(counts.exact == (big == 30 ? 0 : filters));
    }
    // Ties and zeros: a 2-tap kernel [1, 2^-24] over ones is 1 + 2^-24, halfway between two
    // FLOAT32 values (it rounds to 1); [1, -1] over ones is an exact zero, whose sign is the plain
    // loop's. Both go to the exact path; a third filter [1, 1] is decided.
    {
        const Geometry g{
            .filters = 3, .in = {3}, .kernel = {2}, .strides = {1}, .dilations = {1}, .start = {0}, .end = {0}};
        const Operator op = make(g, DataType::FLOAT32);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&, const std::string&) { return 1.0; });
        const std::vector<float> w = {1, 0x1p-24f, 1, -1, 1, 1};
        std::memcpy(in.bytes[1].data(), static_cast<const void*>(w.data()), w.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.exact == 4);    // two positions of each of the first two filters
        CHECK(counts.decided == 2);  // the third filter's
    }
}

TEST_CASE("CONVOLUTION fast path: NaN and infinite inputs and BACKWARD take the plain loop") {
    std::mt19937_64 rng(13);
    for (const double special : {std::nan(""), double(INFINITY)}) {
        Geometry g = random_geometry(rng);
        const Operator op = make(g, DataType::FLOAT32);
        int k = 0;
        const Buffers in = buffers<float>(op, rng, [&](std::mt19937_64& r, const std::string& name) {
            return name == "InputTensor" && k++ == 0 ? special : uniform(r, name);
        });
        check(op, in);
    }
    Geometry g{.channels = 2,
               .filters = 2,
               .in = {5, 5},
               .kernel = {2, 2},
               .strides = {2, 2},
               .dilations = {1, 1},
               .start = {0, 0},
               .end = {0, 0},
               .direction = kConvolutionDirectionBackward};
    CONV d = get<CONV>(make(g, DataType::FLOAT32).Desc);
    d.OutputTensor = desc(DataType::FLOAT32, {1, 2, 10, 10});  // (5 - 1) * 2 + 2
    const Operator op{OperatorType::CONVOLUTION, d};
    check(op, buffers<float>(op, rng, uniform));
}

}  // namespace dmlref_test_fast_convolution
