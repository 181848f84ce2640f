// The policies of the activations fused into a normalization (reference/fused_activation.cpp;
// docs/golden.md, "Batch normalization": BnFusedActivation and the BnActivation* rows), which the
// goldens of BATCH_NORMALIZATION* and MEAN_VARIANCE_NORMALIZATION* record alike. Internal to dmlref.
#pragma once

#include "kit/family.hpp"

#include <vector>

namespace dmlref::kit {

inline constexpr Policy kBnFusedActivation{"BnFusedActivation", "RoundThenActivateAsSeparateOperator"};
inline constexpr Policy kBnActivationNaN{"BnActivationNaN", "NaNGivesNaN"};
inline constexpr Policy kBnActivationInfinity{"BnActivationInfinity", "LimitOfTheFunction"};
inline constexpr Policy kBnActivationExactCases{"BnActivationExactCases", "ExactWhereRational"};
inline constexpr Policy kBnActivationTiny{"BnActivationTiny", "RoundTheExactValue"};
inline constexpr Policy kBnActivationShrinkOrder{"BnActivationShrinkOrder", "PageOrder"};
inline constexpr Policy kBnActivationCeluAlpha{"BnActivationCeluAlpha", "AlphaZeroRefused"};
inline constexpr Policy kBnActivationSignedZero{"BnActivationSignedZero", "SelectedInputKeepsSign"};
// All of them, in the order the goldens list them.
inline const std::vector<Policy> kFusedActivationPolicies = {
    kBnFusedActivation, kBnActivationNaN,         kBnActivationInfinity,  kBnActivationExactCases,
    kBnActivationTiny,  kBnActivationShrinkOrder, kBnActivationCeluAlpha, kBnActivationSignedZero};

}  // namespace dmlref::kit
