// Each operator's term enumeration for the bound of its summed outputs (docs/tolerance.md):
// for every element of the output, the terms a backend adds, with their weights and how far a
// conforming backend's weights may move. Implemented beside each operator's evaluate loop.
#pragma once

#include "dmlref/bound.hpp"
#include "dmlref/operators.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace dmlref {

// MAX_POOLING_GRAD (float types): each dY element is one term, weight 1, of its window's argmax
// (the same argmax the evaluate loop uses). Buffers as bound (InputTensor, InputGradientTensor).
void max_pooling_grad_terms(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, std::span<const std::byte> InputTensor,
                            std::span<const std::byte> InputGradientTensor, TermSink& sink);

// The resample family (float types): the terms of the forward output (LINEAR: weight * X;
// NEAREST_NEIGHBOR: a copy, with a ghost term for the neighbour an admissible reading may read)
// or of the grad's dX (weight * dY), under the coordinate arithmetic `coordinates` admits.
// `values` is the buffer of InputTensor (forward) or InputGradientTensor (the grad's dY). The op must
// be a resample operator that validates.
void resample_terms(const Operator& op, std::span<const std::byte> values, Coordinates coordinates, TermSink& sink);

// ---- Computed operators (docs/tolerance.md, "Computed values") -----------------------------
// Each fills every element of its output with TermSink::set_computed: the bound of
// |backend - exact| from the operator's forward error analysis under the profile
// (dmlref/bound.hpp: Arithmetic, computed_error). `input(field)` is a bound input buffer (it
// throws std::invalid_argument when the case lacks it). The op must validate; float outputs only.
using InputBuffer = std::function<std::span<const std::byte>(const char* field)>;

// The values of a tensor in logical (row-major) order, widened exactly to double (integers
// beyond 2^53 rounded): what a bound function reads its inputs with.
std::vector<double> logical_doubles(const TensorDesc& d, std::span<const std::byte> buffer);

// AVERAGE_POOLING, AVERAGE_POOLING1 (OutputTensor) and AVERAGE_POOLING_GRAD (OutputGradientTensor).
void average_pooling_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
// LOCAL_RESPONSE_NORMALIZATION (OutputTensor) and _GRAD (OutputGradientTensor).
void lrn_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
// ROI_ALIGN and ROI_ALIGN1 (OutputTensor); reference/roi_align_bound.cpp.
void roi_align_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
// ROI_ALIGN_GRAD's OutputGradientTensor and OutputROIGradientTensor; reference/roi_align_grad_bound.cpp.
void roi_align_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void roi_align_roi_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
// Batch normalization, one function per output (reference/batch_normalization_bound.cpp): the
// OutputTensor of BATCH_NORMALIZATION and _TRAINING; _TRAINING's OutputMeanTensor and
// OutputVarianceTensor; OutputGradientTensor, OutputScaleGradientTensor and OutputBiasGradientTensor
// of _GRAD and _TRAINING_GRAD.
void batch_normalization_output_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void batch_normalization_mean_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void batch_normalization_variance_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void batch_normalization_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void batch_normalization_scale_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                               TermSink& sink);
void batch_normalization_bias_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                              TermSink& sink);

}  // namespace dmlref
