// Pooling test support: the real (not padding) taps of a window, shared by the max and average
// pooling tests, and the max pooling tests' builders and naive argmax (test_max_pooling.cpp,
// test_max_pooling_grad.cpp), written apart from reference/.
#pragma once

#include "support.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace dmlref::test {

// The logical input indices of output element `o`'s window (output sizes `out`) that are inside
// the input: tap k of spatial dimension i sits at o * Strides - StartPadding + k * Dilations.
// `G` is a test's geometry, with the input's sizes `in` and the per-dimension arrays.
template <class G> std::vector<uint64_t> window_taps(const G& g, const std::vector<uint32_t>& out, uint64_t o) {
    const auto oc = unflatten(o, out);
    std::vector<uint64_t> r;
    for (uint64_t k = 0; k < product(g.WindowSize); ++k) {
        const auto kc = unflatten(k, g.WindowSize);
        std::vector<uint32_t> p = {oc[0], oc[1]};
        bool inside = true;
        for (size_t i = 0; i < g.WindowSize.size(); ++i) {
            const int64_t pos = int64_t(oc[i + 2]) * g.Strides[i] - int64_t(g.StartPadding[i]) +
                                int64_t(kc[i]) * g.Dilations[i];
            inside = inside && pos >= 0 && pos < int64_t(g.in[i + 2]);
            p.push_back(uint32_t(std::max<int64_t>(pos, 0)));
        }
        if (inside) r.push_back(flatten(p, g.in));
    }
    return r;
}

// The window fields of a pooling desc from a test's geometry: DimensionCount, Strides,
// WindowSize, the paddings, and Dilations and IncludePadding where both have them.
template <class D, class G> void set_window(D& d, const G& g) {
    d.DimensionCount = uint32_t(g.in.size() - 2);
    d.Strides = g.Strides;
    d.WindowSize = g.WindowSize;
    d.StartPadding = g.StartPadding;
    d.EndPadding = g.EndPadding;
    if constexpr (requires { d.Dilations; }) d.Dilations = g.Dilations;
    if constexpr (requires {
                      d.IncludePadding;
                      g.IncludePadding;
                  })
        d.IncludePadding = g.IncludePadding;
}

}  // namespace dmlref::test

// MAX_POOLING2 and MAX_POOLING_GRAD, built and run in memory.
namespace dmlref::test::max_pool {

using namespace dmlref;

// One pooling geometry: the input's sizes and the per-spatial-dimension arrays.
struct Geometry {
    std::vector<uint32_t> in;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
};

inline Geometry plain(std::vector<uint32_t> in, std::vector<uint32_t> window) {
    const size_t n = in.size() - 2;
    return {std::move(in),
            std::vector<uint32_t>(n, 1),
            std::move(window),
            std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 0),
            std::vector<uint32_t>(n, 1)};
}

// The floor size of the spec: (In + StartPadding + EndPadding - (1 + (WindowSize - 1) * Dilations)) / Strides + 1.
inline std::vector<uint32_t> floor_sizes(const Geometry& g) {
    std::vector<uint32_t> out = {g.in[0], g.in[1]};
    for (size_t i = 0; i + 2 < g.in.size(); ++i) {
        const uint32_t window = 1 + (g.WindowSize[i] - 1) * g.Dilations[i];
        out.push_back((g.in[i + 2] + g.StartPadding[i] + g.EndPadding[i] - window) / g.Strides[i] + 1);
    }
    return out;
}

inline Operator pool2(DataType t, const Geometry& g, std::optional<DataType> indices = DataType::UINT32,
                      std::vector<uint32_t> out = {}) {
    if (out.empty()) out = floor_sizes(g);
    DML_MAX_POOLING2_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, out);
    if (indices) d.OutputIndicesTensor = desc(*indices, out);
    set_window(d, g);
    return {OperatorType::MAX_POOLING2, d};
}

inline Operator pool_grad(DataType t, const Geometry& g, std::vector<uint32_t> out = {}) {
    if (out.empty()) out = floor_sizes(g);
    DML_MAX_POOLING_GRAD_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.InputGradientTensor = desc(t, out);
    d.OutputGradientTensor = desc(t, g.in);
    set_window(d, g);
    return {OperatorType::MAX_POOLING_GRAD, d};
}

// Forward values and indices (UINT32).
template <class T>
std::pair<std::vector<T>, std::vector<uint32_t>> forward(const Geometry& g, const std::vector<T>& x,
                                                         std::vector<uint32_t> out = {}) {
    const Operator op = pool2(data_type_of<T>(), g, DataType::UINT32, out);
    auto r = run(op, {{"InputTensor", buffer(desc(data_type_of<T>(), g.in), x)}});
    return {as_values<T>(r.at("OutputTensor")), as_values<uint32_t>(r.at("OutputIndicesTensor"))};
}

template <class T>
std::vector<T> backward(const Geometry& g, const std::vector<T>& x, const std::vector<T>& dy,
                        std::vector<uint32_t> out = {}) {
    if (out.empty()) out = floor_sizes(g);
    const Operator op = pool_grad(data_type_of<T>(), g, out);
    auto r = run(op, {{"InputTensor", buffer(desc(data_type_of<T>(), g.in), x)},
                      {"InputGradientTensor", buffer(desc(data_type_of<T>(), out), dy)}});
    return as_values<T>(r.at("OutputGradientTensor"));
}

// ---- The independent naive computation -------------------------------------------------------

// Argmax for data without NaN: the maximum value, then the lowest index holding it.
template <class T>
int64_t naive_argmax(const Geometry& g, const std::vector<uint32_t>& out, uint64_t o, const std::vector<T>& x) {
    const auto w = window_taps(g, out, o);  // the window's real (not padding) elements
    if (w.empty()) return -1;
    double best = -std::numeric_limits<double>::infinity();
    for (auto i : w) best = std::max(best, double(x[i]));
    uint64_t lowest = ~uint64_t(0);
    for (auto i : w)
        if (double(x[i]) == best) lowest = std::min(lowest, i);
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

}  // namespace dmlref::test::max_pool
