// What the pooling families share: the geometry of their windows, seen through one view of a
// family's desc, for coverage, gen and the work estimate, and the window walk of the forward
// loops of average and Lp pooling. Internal to dmlref.
#pragma once

#include "kit/family.hpp"

#include <array>
#include <string>
#include <vector>

namespace dmlref::reference {

struct PoolingView {
    const TensorDesc* input;   // the forward InputTensor (AVERAGE_POOLING_GRAD: its OutputGradientTensor)
    const TensorDesc* output;  // the forward OutputTensor (a grad's InputGradientTensor)
    const std::vector<uint32_t>* Strides;
    const std::vector<uint32_t>* WindowSize;
    const std::vector<uint32_t>* StartPadding;
    const std::vector<uint32_t>* EndPadding;
    const std::vector<uint32_t>* Dilations;  // null where the desc has none (all 1)
};

// The shape rules of a forward pooling (and AVERAGE_POOLING_GRAD, whose windows are its forward
// operator's), each rule id `<op>.<rule>`: the input's rank 3 to 8, DimensionCount and the arrays
// (validate_pooling_arrays), the output's DimensionCount, batch and channel sizes, a window that
// fits in the padded input, and each spatial output size the floor or ceil size of the dilated
// formula (docs/golden.md, OutputSizes).
struct PoolingRules {
    std::string_view op;             // the rule ids' prefix, e.g. "lp-pooling1"
    std::string_view what;           // the operator's name in messages, e.g. "Lp pooling"
    std::string_view input, output;  // the view's tensor fields' names
    uint32_t DimensionCount;
};
void validate_pooling_windows(Diagnostics& diags, const PoolingRules& r, const PoolingView& v);

// Coverage: padding, stride>1, overlapping-windows, ceil-size, dilation>1.
void pooling_window_features(const PoolingView& v, std::vector<std::string>& f);
// The number of output positions whose window holds only padding (the operator's own DontCare
// entries), counted per dimension without building the list; 0 for a view that does not validate.
uint64_t pooling_empty_windows(const PoolingView& v);
// The taps of one window (the product of WindowSize).
uint64_t pooling_window_taps(const PoolingView& v);
// gen's "windows" candidates (kit::WindowsHook) for the view's input.
std::vector<uint64_t> pooling_window_positions(const PoolingView& v, const TensorDesc& in, int where);
// gen's "auto" sizes of the pooled tensor (kit::SizesHook), for OutputTensor, OutputIndicesTensor
// and a grad's InputGradientTensor.
bool pooling_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& error_path, std::string& error);

// ---- The window walk (average pooling, Lp pooling) -------------------------------------------

inline constexpr size_t kMaxPoolingSpatial = kMaxDimensionCount - 2;
using PoolingCoord = std::array<int64_t, kMaxPoolingSpatial>;

// The windows of a view, per spatial dimension i (tensor dimension i + 2): window element k of
// output o reads input position o * stride - start + k * dilation.
struct PoolingWindows {
    size_t spatial = 0;
    PoolingCoord in{}, out{}, stride{}, size{}, start{}, dilation{};
};
PoolingWindows pooling_windows(const PoolingView& v);  // a view that validates

// The window positions k in [lo, hi) along dimension i that read a real (not padding) element for
// output o; lo == hi when there is none.
struct TapRange {
    int64_t lo, hi;
};
TapRange pooling_real_taps(const PoolingWindows& w, size_t i, int64_t o);

// Steps a row-major coordinate within [lo, hi) per dimension; false after the last one.
inline bool pooling_next(PoolingCoord& c, const PoolingCoord& lo, const PoolingCoord& hi, size_t n) {
    for (size_t i = n; i-- > 0;) {
        if (++c[i] < hi[i]) return true;
        c[i] = lo[i];
    }
    return false;
}

// The element offset of {n, c, s...} under `strides` (a TensorView's, or packed_strides).
inline int64_t pooling_offset(const std::vector<int64_t>& strides, int64_t n, int64_t c, const PoolingCoord& s,
                              size_t spatial) {
    int64_t off = n * strides[0] + c * strides[1];
    for (size_t i = 0; i < spatial; ++i) off += s[i] * strides[i + 2];
    return off;
}

// Calls f(n, c, o) for every element of a tensor of sizes `sizes` ({N, C, spatial...}, spatial
// sizes `hi`), in logical order.
template <class F>
void for_each_pooled(const std::vector<uint32_t>& sizes, const PoolingCoord& hi, size_t spatial, F&& f) {
    for (int64_t n = 0; n < sizes[0]; ++n)
        for (int64_t c = 0; c < sizes[1]; ++c) {
            PoolingCoord o{};
            do f(n, c, o);
            while (pooling_next(o, PoolingCoord{}, hi, spatial));
        }
}

// Calls f(pos) with the input position of every real element of output o's window, in row-major
// window order; no call for a window of padding only.
template <class F> void for_each_real_tap(const PoolingWindows& w, const PoolingCoord& o, F&& f) {
    PoolingCoord lo{}, hi{}, k{};
    for (size_t i = 0; i < w.spatial; ++i) {
        const TapRange r = pooling_real_taps(w, i, o[i]);
        if (r.lo == r.hi) return;
        lo[i] = k[i] = r.lo;
        hi[i] = r.hi;
    }
    do {
        PoolingCoord pos{};
        for (size_t i = 0; i < w.spatial; ++i) pos[i] = o[i] * w.stride[i] - w.start[i] + k[i] * w.dilation[i];
        f(pos);
    } while (pooling_next(k, lo, hi, w.spatial));
}

}  // namespace dmlref::reference

namespace dmlref::reference {
// dmlref explain for a pooling element: the window of a forward output element, or for a
// grad's dX element the dY elements whose windows hold it (inputs named `values` and `grads`).
void explain_pooling_window(const Case& c, const PoolingView& v, bool grad, uint64_t flat, const char* values,
                            const char* grads, FamilyExplanation& out);
}  // namespace dmlref::reference
