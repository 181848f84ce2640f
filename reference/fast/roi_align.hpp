// ROI_ALIGN's and ROI_ALIGN1's fast path (reference/fast/roi_align.cpp): FLOAT32 and FLOAT16
// outputs computed in float64 with a rigorous error bound and decided by fast/decide.hpp; the
// plain loop's exact element only where the bound leaves one undecided (docs/golden.md, "How ROI
// align's golden is computed"). Internal to dmlref.
#pragma once

#include "../roi_align.hpp"
#include "../roi_align_internal.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace dmlref::reference::fast {

// One sample position along one axis (reference/fast/roi_align.cpp, A2 to A4): its taps (0: out of
// bounds; 1 or 2), their element indices and weights (each within `error` of the exact weight, in
// [0, 1], a weight 1 exact), the weights' error bound ea; `hard`: a weight below 2^-400 (A4). The
// taps are the plain loop's taps of non-zero weight (roi::AxisSample), in its order.
struct AxisTap {
    int64_t index[2] = {0, 0};
    double weight[2] = {1, 0};
    double error = 0;
    uint8_t taps = 0;
    bool hard = false;
};

// A1's limits: whether region g's sample counts are within the fast paths' reach.
bool region_fits(const roi::Region& g);

// A2 to A4: the Out * S sample positions along x (is_x) or y of region g, whose scaled coordinates
// are lo and hi (exact in float64, A1); how many were placed in float64 and how many exactly.
struct AxisCounts {
    uint64_t floats = 0, exacts = 0;
};
AxisCounts axis_taps(const roi::Params& p, const roi::Region& g, bool is_x, double lo, double hi,
                     std::vector<AxisTap>& taps);

// An output element: region r, channel c, row oy, column ox.
struct RoiElement {
    uint64_t r, c, oy, ox;
};

// Writes Y's elements where the bound decides them, and appends the others to `undecided` (in
// region order). Every region's coordinates must be finite and its batch index in range.
template <class T>
void roi_align_decide(const roi::Params& p, std::span<const std::byte> roi, std::span<const std::byte> indices,
                      const TensorView& X, const TensorView& Y, std::vector<RoiElement>& undecided);

// For the tests: of the last call's elements, those decided and those left undecided, and of its
// axis sample positions those placed in float64 and those placed by the exact geometry.
struct RoiFastCounts {
    uint64_t decided = 0, undecided = 0, float_positions = 0, exact_positions = 0;
};
RoiFastCounts roi_fast_counts();

// ROI_ALIGN_GRAD's OutputGradientTensor (reference/fast/roi_align_grad.cpp): every element of dX,
// decided in float64 or the plain loop's; false (nothing written) where the path declines and the
// plain loop must run. Every region's coordinates must be finite and its batch index in range; X
// is InputTensor (needed for MAX).
template <class T>
bool roi_align_grad_fast(const roi::Params& p, std::span<const std::byte> roi, std::span<const std::byte> indices,
                         const TensorView* X, const TensorView& dY, const TensorView& dX);

// For the tests: of the last call's elements, those decided and those the plain loop's; of its
// axis sample positions those placed in float64 and exactly; of MAX's outputs (per channel), the
// chosen samples found in float64 and those found exactly.
struct RoiGradFastCounts {
    uint64_t decided = 0, undecided = 0, float_positions = 0, exact_positions = 0, float_choices = 0, exact_choices = 0;
};
RoiGradFastCounts roi_grad_fast_counts();

}  // namespace dmlref::reference::fast
