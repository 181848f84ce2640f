// FastSum's vectorised row update (fast_sum.hpp), cloned for AVX2: each clone performs the
// same IEEE-754 double operations in the same order (no FMA: -ffp-contract=off), so the bits
// do not depend on which one the CPU runs.
#include "fast_sum.hpp"

namespace dmlref::reference {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void FastSum::add_scaled(double* __restrict s, double* __restrict c, double* __restrict b, const double* __restrict weight,
                         const double* __restrict value, double scale, size_t n) {
    for (size_t k = 0; k < n; ++k) add(s[k], c[k], b[k], (scale * weight[k]) * value[k]);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void FastSum::add_gathered(double* __restrict s, double* __restrict c, double* __restrict b, const double* __restrict weight,
                           const double* __restrict row, const int32_t* __restrict index, double scale, size_t n) {
    for (size_t k = 0; k < n; ++k) add(s[k], c[k], b[k], (scale * weight[k]) * row[index[k]]);
}

}  // namespace dmlref::reference
