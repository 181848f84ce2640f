// The resampling policies (docs/golden.md, "Resampling") that the resample family and UPSAMPLE_2D,
// which is evaluated as RESAMPLE, record in their goldens. Internal to dmlref.
#pragma once

#include "kit/policies.hpp"

namespace dmlref::reference::resample_policies {

inline constexpr Policy kResampleCoordinate{"ResampleCoordinate", "Float64Division"};
inline constexpr Policy kNearestRounding{"NearestNeighborRounding", "DecreasingFloorIncreasingCeil"};
inline constexpr Policy kOldNearest{"OldNearestNeighbor", "DecreasingWithOutputPixelOffsetsMinusHalf"};
inline constexpr Policy kNearestForward{"NearestNeighborValue", "CopyBits"};
inline constexpr Policy kLinear{"LinearInterpolation", "ClampCoordinateProductOfWeights"};
inline constexpr Policy kResampleSum{"ResampleSum", "ExactThenRoundOnce"};
inline constexpr Policy kResampleGradParameters{"ResampleGradParameters", "ForwardScalesAndOffsets"};
inline constexpr Policy kScalesAndOffsets{"ScalesAndOffsets", "FinitePositiveScalesFiniteOffsets"};

// The forward operators' policies with the new nearest-neighbour rule (RESAMPLE2), and with the
// old one (RESAMPLE, RESAMPLE1, UPSAMPLE_2D).
inline const std::vector<Policy> kForward = {
    kResampleCoordinate, kNearestRounding,   kNearestForward,      kLinear,           kResampleSum,
    kit::kIntegerResult, kit::kNonFiniteSum, kit::kZeroWeightTaps, kScalesAndOffsets, kit::kSubnormals};
inline const std::vector<Policy> kForwardOldNearest = {
    kResampleCoordinate, kOldNearest,        kNearestForward,      kLinear,           kResampleSum,
    kit::kIntegerResult, kit::kNonFiniteSum, kit::kZeroWeightTaps, kScalesAndOffsets, kit::kSubnormals};

}  // namespace dmlref::reference::resample_policies
