// The fast paths of BATCH_NORMALIZATION, _TRAINING, _GRAD and _TRAINING_GRAD
// (reference/fast/batch_normalization.cpp):
// FLOAT32 and FLOAT16 data; batch statistics and gradient sums as exact integer sums, each element
// evaluated in float64 with a rigorous error bound and decided as fast/decide.hpp decides, the
// plain loop's exact element (reference/batch_normalization.cpp) only where the bound leaves the
// rounding undecided (docs/golden.md, "How batch normalization's golden is computed"). Internal
// to dmlref.
#pragma once

#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/operators.hpp"

#include <cstdint>
#include <span>

#include <gmpxx.h>

namespace dmlref::reference::fast {

// Y for every element; false, with nothing written, for other data types (the plain loop runs).
bool batch_normalization(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);

// BATCH_NORMALIZATION_TRAINING's OutputTensor, OutputMeanTensor and OutputVarianceTensor; false for
// other data types, a NaN or an infinity in InputTensor, more than 4096 statistics elements, or 2^38
// (FLOAT16: 2^22) elements or more per statistics element (the plain loop runs). Nothing is written
// then, except that after a NaN or an infinity in InputTensor OutputTensor may hold some elements,
// where its bytes meet no input's (the plain loop writes every element).
bool batch_normalization_training(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, const Bindings& b);

// BATCH_NORMALIZATION_GRAD's three outputs; false for other data types, a NaN or an infinity in
// InputTensor, InputGradientTensor or MeanTensor, more than 4096 statistics elements, or 2^38 (FLOAT16:
// 2^22) elements or more per statistics element (the plain loop runs). Nothing is written then, except
// that after a NaN or an infinity in InputTensor or InputGradientTensor OutputGradientTensor may hold
// some elements, where its bytes meet no input's (the plain loop writes every element).
bool batch_normalization_grad(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b);
// The same for BATCH_NORMALIZATION_TRAINING_GRAD (the supplied Mean, BnTrainingGradMean).
bool batch_normalization_training_grad(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, const Bindings& b);

// For the tests: of the last call's elements, those decided by an error bound and those left to the
// plain loop's exact element; of the decided, those the first stage decided (FLOAT16's float32 stages,
// and FLOAT32's decisions with one half-width per chunk or, BATCH_NORMALIZATION_GRAD's, from y~ alone; the
// rest, the float64 bound).
struct BatchNormalizationCounts {
    uint64_t decided = 0, plain = 0, single = 0;
};
BatchNormalizationCounts batch_normalization_counts();
BatchNormalizationCounts batch_normalization_training_counts();  // OutputTensor's elements
BatchNormalizationCounts batch_normalization_grad_counts();      // OutputGradientTensor's elements, either grad
// OutputScaleGradientTensor's and OutputBiasGradientTensor's elements together, either grad (single 0).
BatchNormalizationCounts batch_normalization_grad_statistics_counts();
// For the tests: FLOAT32's exact sums by the eight-lane extraction (which machines with AVX-512 take) on
// any machine, or not (the default).
void batch_normalization_wide_sums(bool on);
// For the tests: FLOAT16's chunk-width first stage (step H7) in place of the per-element sixteen-lane one
// (step H8) where the machine has AVX-512, and the grad's step H6 eight lanes at a time, or not (the default).
void batch_normalization_chunk_width(bool on);
// For the tests: the FLOAT32 grad's first stage with the chunk's width (step G4) in place of the one from y~'s bits
// alone (step G6), or not (the default).
void batch_normalization_grad_width(bool on);
// For the tests: the FLOAT32 grad's exact sums with steps G0 and G6 in place of step G8's one pass (which machines
// with AVX-512 take), or not (the default); whether step G8 runs on this machine (with the defaults); and of the
// last FLOAT32 grad's statistics elements, those step G9 decided from the pass's float64 sums (decided) and those
// it left to the exact sums (plain).
void batch_normalization_grad_exact_sums(bool on);
bool batch_normalization_grad_pass_available();
BatchNormalizationCounts batch_normalization_grad_pass_counts();
// For the tests: step G8's float64 sums of dY and of dY X over one statistics element's terms, in chunks of 4096 as
// the path takes them, and step G9's bounds on their errors (ran false where step G8 does not run here).
struct BatchNormalizationPassSums {
    bool ran = false;
    double sum_dy = 0, sum_product = 0, bound_dy = 0, bound_product = 0;
};
BatchNormalizationPassSums batch_normalization_grad_pass_sums(std::span<const float> dy, std::span<const float> x);
// The same for the training grad's step G10: sum dY and sum dY (X - mean), with step G10's bounds.
BatchNormalizationPassSums batch_normalization_training_grad_pass_sums(std::span<const float> dy,
                                                                       std::span<const float> x, float mean);

// For the tests: the FLOAT16 training's run constants from S = sum X and Q = sum X^2 of M FLOAT16 values by
// integers (step T6): mu = RN53(mean), mu32 = RN24(mean), sr = Scale / sqrt(RN53(var + Epsilon)) (rounded as
// the path computes it), OutputMean and OutputVariance; ok false where the step leaves the channel to rationals.
struct BatchNormalizationHalfConstants {
    bool ok = false;
    double mu = 0, sr = 0;
    float mu32 = 0;
    half mean{}, variance{};
};
BatchNormalizationHalfConstants batch_normalization_half_training_constants(const mpq_class& S, const mpq_class& Q,
                                                                            uint64_t M, double scale, float epsilon);
// For the tests: FLOAT32's exact sums four lanes at a time (what machines without AVX-512 take) on any machine,
// or not (the default).
void batch_normalization_four_lane_sums(bool on);
// For the tests: of the last call's chunks of exact sums (runs of constant statistics), those summed by the
// narrow extraction (decided; the header's step S5 in batch_normalization.cpp) and by the others (plain).
BatchNormalizationCounts batch_normalization_sums_counts();

// For the tests: the float64 estimate y of one element before its rounding, as the fast path
// computes it, and the half-width w of the interval it decides from, with |y - V| <= w for the
// exact value V (NaN for what the path leaves to the plain loop: D <= 0, non-finite operands).
struct BatchNormalizationEstimate {
    double y = 0, w = 0;
};
BatchNormalizationEstimate batch_normalization_estimate(double x, double mean, double variance, double scale,
                                                        double bias, float epsilon);
// The same for one OutputTensor element of BATCH_NORMALIZATION_TRAINING, from the exact batch mean
// and variance of its statistics element (Bias + FusedAdd as given: pass 0 without a FusedAdd).
BatchNormalizationEstimate batch_normalization_training_estimate(double x, const mpq_class& mean,
                                                                 const mpq_class& variance, double scale, double bias,
                                                                 double fused_add, float epsilon);

// The same for one OutputGradientTensor element of BATCH_NORMALIZATION_TRAINING_GRAD, from the exact
// sums of its statistics element (sum dY, sum dY (X - Mean)) and their count M.
BatchNormalizationEstimate batch_normalization_training_grad_estimate(double dy, double x, double mean,
                                                                      const mpq_class& sum_dy, const mpq_class& sum_c,
                                                                      uint64_t M, double scale, double variance,
                                                                      float epsilon);
// The same by step G7 (two fused multiply-adds): z in y and the chunk's half-width W in w, for a chunk whose
// largest |dY| and |X| are this element's.
BatchNormalizationEstimate batch_normalization_training_grad_fused_estimate(double dy, double x, double mean,
                                                                            const mpq_class& sum_dy,
                                                                            const mpq_class& sum_c, uint64_t M,
                                                                            double scale, double variance,
                                                                            float epsilon);

// For the tests: FLOAT16's float32 stage (reference/fast/batch_normalization.cpp, steps H1 to H4) on one
// element, as a run of constant statistics computes it: y and the half-width w (|y - V| <= w, and the
// float32 ends fl(y -+ w) hold V), both floats; NaN where the run would skip the stage (H1's ranges) or
// the machine lacks F16C. The forward (the grad: x = dY, Mean and Bias 0), the training (fused_add null
// for none) and the training grad, from the same operands as the float64 estimates above.
BatchNormalizationEstimate batch_normalization_half_estimate(half x, half mean, half variance, half scale, half bias,
                                                             float epsilon);
BatchNormalizationEstimate batch_normalization_training_half_estimate(half x, const mpq_class& mean,
                                                                      const mpq_class& variance, half scale, half bias,
                                                                      const half* fused_add, float epsilon);
BatchNormalizationEstimate batch_normalization_training_grad_half_estimate(half dy, half x, half mean,
                                                                           const mpq_class& sum_dy,
                                                                           const mpq_class& sum_c, uint64_t M,
                                                                           half scale, half variance, float epsilon);

}  // namespace dmlref::reference::fast
