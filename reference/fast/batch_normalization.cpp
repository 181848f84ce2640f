// BATCH_NORMALIZATION's fast path (batch_normalization.hpp): FLOAT32 and FLOAT16 data. docs/golden.md
// ("How batch normalization's golden is computed") sums up why each element is the plain loop's
// bits; the derivation is here.
//
// Element i is V = s (x - m) D^(-1/2) + b with D = v + Epsilon (x, m, v, s, b the element's
// InputTensor, MeanTensor, VarianceTensor, ScaleTensor and BiasTensor values, each statistic
// broadcast on its own), rounded once to T, then the fused activation applied to that rounded
// value (BnFusedActivation). u = 2^-53; fl() is a float64 operation, correctly rounded (+, -, *, /
// and sqrt only: no libm). Every FLOAT32 or FLOAT16 value, and Epsilon (a finite FLOAT32), is a
// double, a multiple of 2^-149 below 2^128 in magnitude. While every operand is finite:
//   1. D~ = fl(v + Epsilon) = D (1 + d1), |d1| <= u: the exact D is a multiple of 2^-149 below
//      2^129, so it is 0 or a normal double's neighbourhood (no underflow), and D~ has D's sign
//      (a rounding keeps the sign and gives 0 only for an exact 0). D~ <= 0 (D <= 0: sqrt of a
//      negative, K / 0) and a non-finite D~ take the plain element (step 7).
//   2. r~ = fl(1 / fl(sqrt(D~))) = D^(-1/2) (1 + d3) / ((1 + d1)^(1/2) (1 + d2)); D in
//      [2^-149, 2^129] puts r in [2^-64.5, 2^74.5], normal. Computed once per VarianceTensor element.
//   3. k~ = fl(s fl(x - m)) = K (1 + d4)(1 + d5) with K = s (x - m): x - m is 0 or at least 2^-149
//      and below 2^129 in magnitude, so k~ is 0 exactly when K is, and otherwise
//      2^-298 <= |K| < 2^257, normal.
//   4. t~ = fl(k~ r~) = t (1 + d3)(1 + d4)(1 + d5)(1 + d6) / ((1 + d1)^(1/2) (1 + d2)), t = K D^(-1/2)
//      the exact product, |t| in [2^-363, 2^332] unless 0 (normal): |t~ - t| <= theta |t| with
//      theta = (1 + u)^4 / (1 - u)^(3/2) - 1 = 5.5 u + O(u^2) < 6 u (test/test_fast_batch_normalization.cpp
//      checks (1 + u)^8 < (1 + 6u)^2 (1 - u)^3 in exact rationals), so
//      |t~ - t| <= 6 u |t~| / (1 - 6 u).
//   5. y~ = fl(t~ + b): |y~ - (t~ + b)| <= u |t~ + b| <= u |y~| / (1 - u) (a sum in float64's
//      subnormal range is exact).
//   6. |y~ - V| <= u |y~| / (1 - u) + 6 u |t~| / (1 - 6 u) <= u (1 + 2^-49) (|y~| + 6 |t~|), which
//      e = fl(fl(fl(6 |t~|) + |y~|) 2^-53 (1 + 2^-30)) covers: the product by 2^-53 is exact (e is
//      0 or at least 2^-416), the three other roundings lose at most a factor (1 - u) each, and
//      (1 + 2^-30)(1 - u)^3 > 1 + 2^-49. K = 0 (x = m, or s = 0) gives t~ = +-0 and y~ = b + +-0,
//      which is V = b exactly (b = +-0: y~ = +-0 with e = 0, decided as +0, the plain loop's exact
//      zero).
//   7. decide_all (fast/decide.hpp) gives T's rounding of V where [y~ - e, y~ + e] rounds to one
//      value (an end at 0 counting as +0: a V of 0, or next to 0 with either sign possible, is
//      undecided). A NaN or infinite operand makes y~ or e NaN or infinite (t~ is non-finite
//      whenever x, m or s is; b = +-inf makes y~ infinite), and D~ <= 0 or non-finite makes r~
//      NaN by construction: all undecided. Every undecided element (V on or within about 2^-50
//      relative of a rounding boundary or tie of T: a perfect-square D can put V on a tie) takes
//      the plain loop's element, batch_normalization_element (exact rationals and Ziv's loop,
//      reference/batch_normalization.cpp), fused activation included.
//   8. The fused activation of a decided element is applied to its rounded value, as the plain
//      loop does: RELU inline (y > 0 ? y : +0; a decided y is never NaN), every other one through
//      the plain loop's own fused_activation (reference/fused_activation.cpp); for FLOAT16, whose
//      65,536 values can all occur, each value's activation is computed once per call and kept.
//
// Layout: the logical index space is walked as for_each_run (dmlref/tensor.hpp) does: dimensions
// of size 1 dropped, neighbours merged where they are contiguous in the input, the output and
// every statistic (the statistics as packed logical copies, stride 0 where broadcast). The inner
// run is cut into chunks of 4096 elements; chunks are the tasks of parallel_for. Each element is
// computed by one task, the same way whatever the thread count or chunking, so the bits never
// depend on them. Within a chunk the undecided elements are computed before anything is written,
// so an output bound in place over the input (same layout) reads only inputs.
#include "batch_normalization.hpp"

#include "../batch_normalization_internal.hpp"
#include "../common.hpp"
#include "../fast_sum.hpp"
#include "../fused_activation.hpp"
#include "decide.hpp"
#include "parallel.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

namespace dmlref::reference::fast {

namespace {

using BN = DML_BATCH_NORMALIZATION_OPERATOR_DESC;

constexpr int64_t kChunk = 4096;  // elements per task
constexpr size_t K = 6;           // input, output, mean, variance (its r~), scale, bias
enum { kX, kY, kMean, kRoot, kScale, kBias };

std::atomic<uint64_t> decided_count{0}, plain_count{0};

// Step 2: r~ = fl(1 / fl(sqrt(fl(v + Epsilon)))), NaN where D~ <= 0 or is not finite (the plain
// element decides those).
inline double root_estimate(double v, float epsilon) {
    const double D = v + double(epsilon);
    if (!(D > 0) || !std::isfinite(D)) return std::numeric_limits<double>::quiet_NaN();
    return 1.0 / std::sqrt(D);
}

// Steps 3 to 6 for one element: y~ into y, e into e.
inline void estimate(double x, double m, double r, double s, double b, double& y, double& e) {
    const double t = s * (x - m) * r;
    y = t + b;
    e = (6 * std::fabs(t) + std::fabs(y)) * 0x1p-53 * (1 + 0x1p-30);
}

// The fused activation applied to a decided, rounded value (step 8).
template <class T> class Activation {
public:
    explicit Activation(const std::optional<DML_FUSED_ACTIVATION>& a) : a_(a) {
        if (!a || a->name() == "ACTIVATION_IDENTITY") kind_ = None;
        else if (a->name() == "ACTIVATION_RELU") kind_ = Relu;
        else {
            kind_ = Other;
            if constexpr (is_half_v<T>) memo_ = std::make_unique<std::atomic<uint32_t>[]>(65536);
        }
    }
    // values[j] for the j < n with undecided[j] == 0.
    void apply(T* __restrict values, const uint8_t* __restrict undecided, int64_t n) const {
        if (kind_ == None) return;
        if (kind_ == Relu) {  // every j: an undecided value is overwritten afterwards
            for (int64_t j = 0; j < n; ++j) values[j] = widen_fast(values[j]) > 0 ? values[j] : T(0.0f);
            return;
        }
        for (int64_t j = 0; j < n; ++j)
            if (!undecided[j]) values[j] = other(values[j]);
    }

private:
    T other(T y) const {
        if constexpr (is_half_v<T>) {
            // 0 is "not yet"; a kept value is its bits with bit 16 set. Two threads may compute the
            // same value at once: both store the same bits.
            std::atomic<uint32_t>& slot = memo_[to_bits(y)];
            uint32_t kept = slot.load(std::memory_order_relaxed);
            if (kept == 0) {
                kept = 0x10000u | to_bits(fused_activation<T>(*a_, y));
                slot.store(kept, std::memory_order_relaxed);
            }
            return from_bits<T>(uint16_t(kept));
        } else {
            return fused_activation<T>(*a_, y);
        }
    }
    enum Kind { None, Relu, Other } kind_ = None;
    const std::optional<DML_FUSED_ACTIVATION>& a_;
    std::unique_ptr<std::atomic<uint32_t>[]> memo_;
};

// A chunk's estimates and decisions, per thread.
template <class T> struct Scratch {
    std::vector<double> y, e;
    std::vector<T> value;
    std::vector<uint8_t> undecided;
};
template <class T> Scratch<T>& scratch() {
    thread_local Scratch<T> s;
    s.y.resize(size_t(kChunk));
    s.e.resize(size_t(kChunk));
    s.value.resize(size_t(kChunk));
    s.undecided.resize(size_t(kChunk));
    return s;
}

struct Dim {
    int64_t size;
    std::array<int64_t, K> stride;
};

// The stride of each logical dimension in a statistic's packed logical copy: 0 where it broadcasts.
std::vector<int64_t> stat_strides(const std::vector<uint32_t>& stat) {
    std::vector<int64_t> s = packed_strides(stat);
    for (size_t i = 0; i < stat.size(); ++i)
        if (stat[i] == 1) s[i] = 0;
    return s;
}

template <class T> bool forward(const BN& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor")), Y(d.OutputTensor, b.at("OutputTensor"));
    const std::vector<T> mean = logical_values<T>(d.MeanTensor, b.at("MeanTensor"));
    const std::vector<T> var = logical_values<T>(d.VarianceTensor, b.at("VarianceTensor"));
    const std::vector<T> scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
    const std::vector<T> bias = logical_values<T>(d.BiasTensor, b.at("BiasTensor"));
    std::vector<double> root(var.size());
    for (size_t k = 0; k < var.size(); ++k) root[k] = root_estimate(widen_fast(var[k]), d.Epsilon);

    // The dimensions, merged as for_each_run merges them.
    const std::array<std::vector<int64_t>, 4> stat = {stat_strides(d.MeanTensor.Sizes), stat_strides(d.VarianceTensor.Sizes),
                                                      stat_strides(d.ScaleTensor.Sizes), stat_strides(d.BiasTensor.Sizes)};
    std::vector<Dim> dims;
    for (size_t i = 0; i < d.InputTensor.Sizes.size(); ++i) {
        const int64_t size = d.InputTensor.Sizes[i];
        if (size == 1) continue;
        const Dim dim{size, {X.strides[i], Y.strides[i], stat[0][i], stat[1][i], stat[2][i], stat[3][i]}};
        if (!dims.empty()) {
            bool contiguous = true;
            for (size_t k = 0; k < K; ++k) contiguous = contiguous && dims.back().stride[k] == dim.stride[k] * size;
            if (contiguous) {
                dims.back() = {dims.back().size * size, dim.stride};
                continue;
            }
        }
        dims.push_back(dim);
    }
    if (dims.empty()) dims.push_back({1, {}});
    const Dim inner = dims.back();
    dims.pop_back();
    int64_t outer = 1;
    for (const Dim& dim : dims) outer *= dim.size;
    const int64_t chunks = (inner.size + kChunk - 1) / kChunk;

    const Activation<T> activation(d.FusedActivation);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    const T* M = mean.data();
    const T* V = var.data();
    const T* S = scale.data();
    const T* B = bias.data();
    const double* R = root.data();
    std::atomic<uint64_t> plain{0};
    parallel_for(outer * chunks, [&](int64_t task) {
        int64_t rest = task / chunks;
        const int64_t first = (task % chunks) * kChunk, n = std::min(kChunk, inner.size - first);
        std::array<int64_t, K> at{};
        for (size_t i = dims.size(); i-- > 0;) {
            const int64_t c = rest % dims[i].size;
            rest /= dims[i].size;
            for (size_t k = 0; k < K; ++k) at[k] += c * dims[i].stride[k];
        }
        for (size_t k = 0; k < K; ++k) at[k] += first * inner.stride[k];
        const std::array<int64_t, K>& step = inner.stride;
        Scratch<T>& s = scratch<T>();
        double* __restrict ye = s.y.data();
        double* __restrict ee = s.e.data();
        const T* xr = x + at[kX];
        const T *mr = M + at[kMean], *sr = S + at[kScale], *br = B + at[kBias];
        const double* rr = R + at[kRoot];
        if (step[kMean] == 0 && step[kRoot] == 0 && step[kScale] == 0 && step[kBias] == 0) {
            // Statistics constant along the run (per-channel statistics): one of each.
            const double m = widen_fast(*mr), r = *rr, sc = widen_fast(*sr), bi = widen_fast(*br);
            if (step[kX] == 1)
                for (int64_t j = 0; j < n; ++j) estimate(widen_fast(xr[j]), m, r, sc, bi, ye[j], ee[j]);
            else
                for (int64_t j = 0; j < n; ++j) estimate(widen_fast(xr[j * step[kX]]), m, r, sc, bi, ye[j], ee[j]);
        } else {
            for (int64_t j = 0; j < n; ++j)
                estimate(widen_fast(xr[j * step[kX]]), widen_fast(mr[j * step[kMean]]), rr[j * step[kRoot]],
                         widen_fast(sr[j * step[kScale]]), widen_fast(br[j * step[kBias]]), ye[j], ee[j]);
        }
        T* value = s.value.data();
        uint8_t* undecided = s.undecided.data();
        decide_all(ye, ee, value, undecided, n);
        activation.apply(value, undecided, n);
        uint8_t any = 0;
        for (int64_t j = 0; j < n; ++j) any |= undecided[j];
        if (any) {
            const T* vr = V + at[kRoot];
            uint64_t count = 0;
            for (int64_t j = 0; j < n; ++j) {
                if (!undecided[j]) continue;
                value[j] = batch_normalization_element<T>(xr[j * step[kX]], mr[j * step[kMean]], vr[j * step[kRoot]],
                                                          sr[j * step[kScale]], br[j * step[kBias]], d.Epsilon,
                                                          d.FusedActivation);
                ++count;
            }
            plain.fetch_add(count, std::memory_order_relaxed);
        }
        T* out = y + at[kY];
        if (step[kY] == 1)
            for (int64_t j = 0; j < n; ++j) out[j] = value[j];
        else
            for (int64_t j = 0; j < n; ++j) out[j * step[kY]] = value[j];
    });
    plain_count = plain.load();
    decided_count = uint64_t(outer * inner.size) - plain_count.load();
    return true;
}

}  // namespace

bool batch_normalization(const BN& d, const Bindings& b) {
    switch (d.InputTensor.DataType) {
        case DataType::FLOAT32: return forward<float>(d, b);
        case DataType::FLOAT16: return forward<half>(d, b);
        default: return false;
    }
}

BatchNormalizationCounts batch_normalization_counts() { return {decided_count.load(), plain_count.load()}; }

BatchNormalizationEstimate batch_normalization_estimate(double x, double mean, double variance, double scale,
                                                        double bias, float epsilon) {
    BatchNormalizationEstimate r;
    estimate(x, mean, root_estimate(variance, epsilon), scale, bias, r.y, r.e);
    return r;
}

}  // namespace dmlref::reference::fast
