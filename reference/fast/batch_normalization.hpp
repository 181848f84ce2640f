// BATCH_NORMALIZATION's fast path (reference/fast/batch_normalization.cpp): FLOAT32 and FLOAT16
// data evaluated in float64 with a rigorous error bound, decided by fast/decide.hpp, the plain
// loop's exact element (reference/batch_normalization.cpp) only where the bound leaves the
// rounding undecided (docs/golden.md, "How batch normalization's golden is computed"). Internal
// to dmlref.
#pragma once

#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/operators.hpp"

#include <cstdint>

namespace dmlref::reference::fast {

// Y for every element; false, with nothing written, for other data types (the plain loop runs).
bool batch_normalization(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);

// For the tests: of the last call's elements, those decided by the float64 bound and those left
// to the plain loop's exact element.
struct BatchNormalizationCounts {
    uint64_t decided = 0, plain = 0;
};
BatchNormalizationCounts batch_normalization_counts();

// For the tests: the float64 estimate y of one element before its rounding, as the fast path
// computes it, and the half-width w of the interval it decides from, with |y - V| <= w for the
// exact value V (NaN for what the path leaves to the plain loop: D <= 0, non-finite operands).
struct BatchNormalizationEstimate {
    double y = 0, w = 0;
};
BatchNormalizationEstimate batch_normalization_estimate(double x, double mean, double variance, double scale,
                                                        double bias, float epsilon);

}  // namespace dmlref::reference::fast
