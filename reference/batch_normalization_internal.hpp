// What batch_normalization.cpp shares with its bound (batch_normalization_bound.cpp).
#pragma once

#include "dmlref/desc_base.hpp"

#include <gmpxx.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace dmlref::reference {

// For every logical element of `in`, the logical index of the element of `stat` it broadcasts to
// (stat's dimensions are 1 or in's).
std::vector<uint64_t> stat_index(const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat);

// One element of BATCH_NORMALIZATION's output as its plain loop computes it: RN(Scale (X - Mean)
// (Variance + Epsilon)^(-1/2) + Bias) in exact arithmetic (reference/exact_ext.hpp), then the
// fused activation. The fast path (reference/fast/batch_normalization.cpp) takes it for the
// elements its bound leaves undecided. Instantiated for float and half.
template <class T>
T batch_normalization_element(T x, T mean, T variance, T scale, T bias, float epsilon,
                              const std::optional<DML_FUSED_ACTIVATION>& activation);

// BATCH_NORMALIZATION_GRAD's plain computations, for its fast path: one OutputGradientTensor
// element, RN(dY Scale (Variance + Epsilon)^(-1/2)); one OutputScaleGradientTensor element from the
// exact sum C = sum dY (X - Mean), RN(C (Variance + Epsilon)^(-1/2)). Instantiated for float and half.
template <class T> T batch_normalization_grad_element(T dy, T scale, T variance, float epsilon);
template <class T> T batch_normalization_scale_gradient(const mpq_class& sum, T variance, float epsilon);
// One OutputGradientTensor element of BATCH_NORMALIZATION_TRAINING_GRAD from the exact sums of its
// statistics element (sum dY, sum dY (X - Mean)) and their count M, as the plain loop computes it.
template <class T>
T batch_normalization_training_grad_element(T dy, T x, T mean, T scale, T variance, const mpq_class& sum_dy,
                                            const mpq_class& sum_c, uint64_t M, float epsilon);

// One element of BATCH_NORMALIZATION_TRAINING's OutputTensor as its plain loop computes it, from
// the exact batch mean and variance of its statistics element (finite rationals): RN(Scale (X -
// mean) (variance + Epsilon)^(-1/2) + Bias + FusedAdd) exactly, then the fused activation.
// fused_add is null without a FusedAddTensor. Instantiated for float and half.
template <class T>
T batch_normalization_training_element(T x, const mpq_class& mean, const mpq_class& variance, T scale, T bias,
                                       const T* fused_add, float epsilon,
                                       const std::optional<DML_FUSED_ACTIVATION>& activation);

}  // namespace dmlref::reference
