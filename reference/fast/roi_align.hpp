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

}  // namespace dmlref::reference::fast
