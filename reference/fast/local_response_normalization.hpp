// LOCAL_RESPONSE_NORMALIZATION's and its grad's fast paths (reference/fast/local_response_normalization.cpp):
// FLOAT32 and FLOAT16 values computed in float64 with a rigorous error bound and decided by
// fast/decide.hpp; the plain loop's exact element only where the bound leaves one undecided
// (docs/golden.md, "How local response normalization's golden is computed"). Internal to dmlref.
#pragma once

#include "../lrn_region.hpp"

#include <cstdint>
#include <vector>

namespace dmlref::reference::fast {

// Y[i] for every logical element i of X (row-major, g's packed layout), where the bound decides
// it, and undecided[i] = 0; undecided[i] = 1 where it does not (Y[i] is then left as it was).
// False, with nothing written, where the path does not apply (a window of more than 2^20 squares).
template <class T>
bool lrn_decide(const lrn_region::LrnParams& p, const lrn_region::RegionGeometry& g, const std::vector<T>& x,
                std::vector<T>& y, std::vector<uint8_t>& undecided);

// The grad's dX (OutputGradientTensor) from X and dY, the same way.
template <class T>
bool lrn_grad_decide(const lrn_region::LrnParams& p, const lrn_region::RegionGeometry& g, const std::vector<T>& x,
                     const std::vector<T>& dy, std::vector<T>& y, std::vector<uint8_t>& undecided);

// For the tests: of the last call's elements, those decided and those left undecided.
struct LrnFastCounts {
    uint64_t decided = 0, undecided = 0;
};
LrnFastCounts lrn_fast_counts();

}  // namespace dmlref::reference::fast
