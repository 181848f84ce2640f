// The vectorised loops of fast/resample_linear.hpp, cloned for AVX-512 and AVX2 like fast_sum.cpp:
// each clone performs the same IEEE-754 double operations in the same order (no FMA:
// -ffp-contract=off), so the bits do not depend on which one the CPU runs.
#include "resample_linear.hpp"

namespace dmlref::reference::fast {

namespace {
template <class Out>
inline bool sums(Out* __restrict out, const double* __restrict e00, const double* __restrict e01,
                 const double* __restrict e10, const double* __restrict e11, const double* __restrict c0,
                 const double* __restrict c1, double a0, double a1, size_t n) {
    uint64_t bad = 0;
    for (size_t k = 0; k < n; ++k) {
        uint64_t inexact;
        const double s = linear_sum(a0, a1, c0[k], c1[k], e00[k], e01[k], e10[k], e11[k], inexact);
        out[k] = static_cast<Out>(s + 0.0);  // exact_result<float> of an exact sum (+0 for cancelling terms)
        bad |= inexact;
    }
    return bad == 0;
}

template <class V> inline void pairs(double* __restrict out, const V* __restrict v, size_t n) {
    for (size_t i = 0; i < n; ++i) out[2 * i] = out[2 * i + 1] = double(v[i]);
}

template <class V> inline void strided(double* __restrict out, const V* __restrict v, int step, size_t n) {
    if (step == 1)
        for (size_t i = 0; i < n; ++i) out[i] = double(v[i]);
    else
        for (size_t i = 0; i < n; ++i) out[i] = double(v[size_t(step) * i]);
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DMLREF_CLONES
#endif

DMLREF_CLONES bool linear_sums(float* out, const double* e00, const double* e01, const double* e10, const double* e11,
                               const double* c0, const double* c1, double a0, double a1, size_t n) {
    return sums(out, e00, e01, e10, e11, c0, c1, a0, a1, n);
}
DMLREF_CLONES bool linear_sums(double* out, const double* e00, const double* e01, const double* e10, const double* e11,
                               const double* c0, const double* c1, double a0, double a1, size_t n) {
    return sums(out, e00, e01, e10, e11, c0, c1, a0, a1, n);
}
DMLREF_CLONES void expand_pairs(double* out, const float* v, size_t n) { pairs(out, v, n); }
DMLREF_CLONES void expand_pairs(double* out, const double* v, size_t n) { pairs(out, v, n); }
DMLREF_CLONES void expand_strided(double* out, const float* v, int step, size_t n) { strided(out, v, step, n); }
DMLREF_CLONES void expand_strided(double* out, const double* v, int step, size_t n) { strided(out, v, step, n); }

}  // namespace dmlref::reference::fast
