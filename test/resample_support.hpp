// Resample test support: building RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE_GRAD and RESAMPLE_GRAD1
// in memory, and the naive computation of test_resample.cpp and test_resample_grad.cpp, which
// maps each output coordinate by the formula and scatters weight * value (forward and grad
// alike) in long double, not through the reference's tap tables or its exact accumulator.
#pragma once

#include "support.hpp"

#include <cmath>
#include <functional>
#include <limits>

namespace dmlref::test::resample {

using namespace dmlref;

constexpr uint32_t NN = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
constexpr uint32_t LINEAR = DML_INTERPOLATION_MODE_LINEAR;
constexpr uint32_t UP = DML_AXIS_DIRECTION_INCREASING;    // ceil
constexpr uint32_t DOWN = DML_AXIS_DIRECTION_DECREASING;  // floor

// One resampling: sizes of the forward input and output, and the per-dimension arrays.
struct Geometry {
    std::vector<uint32_t> in, out;
    std::vector<float> Scales, InputPixelOffsets, OutputPixelOffsets;
};

// Half-pixel offsets (0.5 / -0.5), the default of RESAMPLE.
inline Geometry half_pixel(std::vector<uint32_t> in, std::vector<uint32_t> out, std::vector<float> scales) {
    const size_t n = in.size();
    return {std::move(in), std::move(out), std::move(scales), std::vector<float>(n, 0.5f),
            std::vector<float>(n, -0.5f)};
}
inline Geometry corner(std::vector<uint32_t> in, std::vector<uint32_t> out, std::vector<float> scales) {
    const size_t n = in.size();
    return {std::move(in), std::move(out), std::move(scales), std::vector<float>(n, 0.0f), std::vector<float>(n, 0.0f)};
}

// The fields every resample desc but RESAMPLE's takes from the geometry.
template <class D> void set_geometry(D& d, const Geometry& g) {
    d.DimensionCount = uint32_t(g.in.size());
    d.Scales = g.Scales;
    d.InputPixelOffsets = g.InputPixelOffsets;
    d.OutputPixelOffsets = g.OutputPixelOffsets;
}

inline Operator resample2(DataType t, const Geometry& g, uint32_t mode, uint32_t dir) {
    DML_RESAMPLE2_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, g.out);
    d.InterpolationMode = mode;
    d.RoundingDirection = dir;
    set_geometry(d, g);
    return {OperatorType::RESAMPLE2, d};
}
inline Operator resample1(DataType t, const Geometry& g, uint32_t mode) {
    DML_RESAMPLE1_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, g.out);
    d.InterpolationMode = mode;
    set_geometry(d, g);
    return {OperatorType::RESAMPLE1, d};
}
inline Operator resample0(DataType t, const Geometry& g, uint32_t mode) {
    DML_RESAMPLE_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in);
    d.OutputTensor = desc(t, g.out);
    d.InterpolationMode = mode;
    d.ScaleCount = uint32_t(g.in.size());
    d.Scales = g.Scales;
    return {OperatorType::RESAMPLE, d};
}
inline Operator grad1(DataType t, const Geometry& g, uint32_t mode, uint32_t dir) {
    DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
    d.InputGradientTensor = desc(t, g.out);
    d.OutputGradientTensor = desc(t, g.in);
    d.InterpolationMode = mode;
    d.RoundingDirection = dir;
    set_geometry(d, g);
    return {OperatorType::RESAMPLE_GRAD1, d};
}
inline Operator grad0(DataType t, const Geometry& g, uint32_t mode) {
    DML_RESAMPLE_GRAD_OPERATOR_DESC d;
    d.InputGradientTensor = desc(t, g.out);
    d.OutputGradientTensor = desc(t, g.in);
    d.InterpolationMode = mode;
    set_geometry(d, g);
    return {OperatorType::RESAMPLE_GRAD, d};
}

// Runs a forward operator on X (logical = memory order, packed) and returns Y.
template <class T> std::vector<T> forward(const Operator& op, const std::vector<T>& x) {
    const TensorDesc& in = *tensor_fields(op)[0].desc;
    return as_values<T>(run(op, {{"InputTensor", buffer(in, x)}}).at("OutputTensor"));
}
// Runs a grad on dY and returns dX.
template <class T> std::vector<T> backward(const Operator& op, const std::vector<T>& dy) {
    const TensorDesc& in = *tensor_fields(op)[0].desc;
    return as_values<T>(run(op, {{"InputGradientTensor", buffer(in, dy)}}).at("OutputGradientTensor"));
}

// ---- The naive computation ----------------------------------------------------------------

// The taps of output position o along one dimension, from the formula
// x = (o - OutputPixelOffset) / Scale - InputPixelOffset; `old` lowers OutputPixelOffset by 0.5.
inline std::vector<std::pair<uint32_t, long double>> naive_taps(const Geometry& g, size_t i, uint32_t o, uint32_t mode,
                                                                uint32_t dir, bool old = false) {
    const double opo = double(g.OutputPixelOffsets[i]) - (old && mode == NN ? 0.5 : 0.0);
    const double x = (double(o) - opo) / double(g.Scales[i]) - double(g.InputPixelOffsets[i]);
    const double last = double(g.in[i] - 1);
    if (mode == NN) {
        double r = (old || dir == DOWN) ? std::floor(x) : std::ceil(x);
        r = std::min(std::max(r, 0.0), last);
        return {{uint32_t(r), 1.0L}};
    }
    const double xc = std::min(std::max(x, 0.0), last);
    const double x0 = std::floor(xc);
    const long double w1 = xc - x0;
    std::vector<std::pair<uint32_t, long double>> t = {{uint32_t(x0), 1.0L - w1}};
    if (w1 != 0) t.push_back({uint32_t(x0) + 1, w1});
    return t;
}

// Calls f(input logical index, output logical index, weight) for every term of the forward
// operator: each output coordinate, each combination of taps (recursively over dimensions).
inline void naive_terms(const Geometry& g, uint32_t mode, uint32_t dir, bool old,
                        const std::function<void(uint64_t, uint64_t, long double)>& f) {
    const size_t n = g.in.size();
    std::vector<uint32_t> o(n, 0);
    for (uint64_t oi = 0; oi < product(g.out); ++oi) {
        uint64_t rest = oi;
        for (size_t i = n; i-- > 0;) {
            o[i] = uint32_t(rest % g.out[i]);
            rest /= g.out[i];
        }
        std::function<void(size_t, uint64_t, long double)> walk = [&](size_t i, uint64_t in_index, long double w) {
            if (i == n) {
                if (w != 0) f(in_index, oi, w);
                return;
            }
            for (auto [k, wk] : naive_taps(g, i, o[i], mode, dir, old)) walk(i + 1, in_index * g.in[i] + k, w * wk);
        };
        walk(0, 0, 1.0L);
    }
}

template <class T> T naive_round(long double s) {
    if constexpr (std::is_integral_v<T>) {
        const long double r = std::nearbyint(s);  // ties to even
        if (r < (long double)std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
        if (r > (long double)std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
        return T(r);
    } else {
        return value_of<T>(double(s));  // the sums in these tests are exact in double
    }
}

template <class T> long double as_long_double(T v) {
    if constexpr (std::is_integral_v<T>) return (long double)v;
    else return (long double)widen(v);
}

template <class T>
std::vector<T> naive_forward(const Geometry& g, uint32_t mode, uint32_t dir, const std::vector<T>& x,
                             bool old = false) {
    std::vector<long double> sum(product(g.out), 0.0L);
    naive_terms(g, mode, dir, old,
                [&](uint64_t in, uint64_t out, long double w) { sum[out] += w * as_long_double(x[in]); });
    std::vector<T> y;
    for (long double s : sum) y.push_back(naive_round<T>(s));
    return y;
}

template <class T>
std::vector<T> naive_grad(const Geometry& g, uint32_t mode, uint32_t dir, const std::vector<T>& dy, bool old = false) {
    std::vector<long double> sum(product(g.in), 0.0L);
    naive_terms(g, mode, dir, old,
                [&](uint64_t in, uint64_t out, long double w) { sum[in] += w * as_long_double(dy[out]); });
    std::vector<T> dx;
    for (long double s : sum) dx.push_back(naive_round<T>(s));
    return dx;
}

}  // namespace dmlref::test::resample
