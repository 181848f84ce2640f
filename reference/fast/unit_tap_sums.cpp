// unit_tap_sums.hpp's paired-column loop for FLOAT32, cloned for AVX-512 and AVX2: each clone
// performs the same IEEE-754 double operations in the same order (no FMA: -ffp-contract=off),
// so the bits do not depend on which one the CPU runs.
#include "unit_tap_sums.hpp"

namespace dmlref::reference::fast {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void add_pairs(double* __restrict acc, double* __restrict err, const float* __restrict row, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        // p = row[2i] + row[2i + 1] and then acc + p, each with TwoSum's error.
        double p;
        const double e1 = two_sum(row[2 * i], row[2 * i + 1], p);
        const double e2 = two_sum(acc[i], p, acc[i]);
        err[i] += std::fabs(e1) + std::fabs(e2);
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool sum_quads(float* __restrict out, const float* __restrict a, const float* __restrict b, size_t n) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        // p = a[2i] + a[2i + 1] and q = b[2i] + b[2i + 1], each checked exact with TwoSum's error
        // (NaN for an infinity or NaN). With both exact, s = p + q is the exact sum rounded once
        // to float64, which is what the sum's contract rounds to FLOAT32 (docs/golden.md, FloatSum):
        // the last addition needs no check.
        double p, q;
        const double e = std::fabs(two_sum(a[2 * i], a[2 * i + 1], p)) + std::fabs(two_sum(b[2 * i], b[2 * i + 1], q));
        out[i] = static_cast<float>((p + q) + 0.0);  // exact_result<float>
        bad |= uint32_t(e != 0);
    }
    return bad == 0;
}

}  // namespace dmlref::reference::fast
