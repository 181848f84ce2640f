// BATCH_NORMALIZATION, _GRAD, _TRAINING and _TRAINING_GRAD.
// What reference/batch_normalization*.cpp define for the family's record (reference/batch_normalization_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// One bound function per output (reference/batch_normalization_bound.cpp): the OutputTensor of
// BATCH_NORMALIZATION and _TRAINING; _TRAINING's OutputMeanTensor and OutputVarianceTensor;
// OutputGradientTensor, OutputScaleGradientTensor and OutputBiasGradientTensor of _GRAD and _TRAINING_GRAD.
// The statistics forms _TRAINING's bounds cover (docs/tolerance.md, "Batch normalization"): two-pass
// (the mean, then the squared deviations from it), online (Welford's or Chan's updates), one-pass
// (E[X^2] - E[X]^2), the stable two (Stable) or all three (Any): the profile's `statistics`, which
// the functions below use (dmlref/bound.hpp). One output's bounds of a _TRAINING case under `form`
// whatever the profile says (the other operators ignore `form`).
using BnStatistics = Statistics;
void batch_normalization_training_bounds(const Operator& op, const InputBuffer& input, std::string_view output,
                                         const ArithmeticProfile& p, BnStatistics form, TermSink& sink);
void batch_normalization_output_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                       TermSink& sink);
void batch_normalization_mean_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                     TermSink& sink);
void batch_normalization_variance_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                         TermSink& sink);
void batch_normalization_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                         TermSink& sink);
void batch_normalization_scale_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                               TermSink& sink);
void batch_normalization_bias_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                              TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d,
                                   std::string_view output);

}  // namespace dmlref::reference
