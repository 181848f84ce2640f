// The float64 matrix product under GEMM's fast path (reference/fast/gemm_f64.cpp): rows [r0, r1)
// of S = A x B, A row-major M x K, B row-major K x N, S row-major (r1 - r0) x N, by Eigen's
// blocked, vectorised product, serial (each call is one task of the fast path's parallel loop).
//
// reference/meson.build compiles this file once per instruction set (SSE2, AVX2 with FMA,
// AVX-512), each a static library without the precompiled header, and the fast path picks one at
// run time by what the CPU supports. S's bits may differ between them (FMA, vector widths, block
// sizes): the fast path uses S only through a bound that holds for every order of summation, so
// the goldens do not (docs/golden.md, "How GEMM's golden is computed").
//
// Eigen's namespace is renamed per instruction set (DMLREF_GEMM_ISA), so that no Eigen function
// compiled for AVX2 or AVX-512 can stand in, at link time, for one the rest of the library calls.
#define EIGEN_DONT_PARALLELIZE
#define EIGEN_GEMM_CONCAT2(a, b) a##b
#define EIGEN_GEMM_CONCAT(a, b) EIGEN_GEMM_CONCAT2(a, b)
#define Eigen EIGEN_GEMM_CONCAT(Eigen_dmlref_, DMLREF_GEMM_ISA)
#include <Eigen/Core>

#include <cstdint>

#define DMLREF_GEMM_ENTRY EIGEN_GEMM_CONCAT(dmlref_gemm_rows_, DMLREF_GEMM_ISA)

extern "C" void DMLREF_GEMM_ENTRY(const double* a, const double* b, double* s, int64_t r0, int64_t r1, int64_t k,
                                  int64_t n) {
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const RowMajor> A(a + r0 * k, r1 - r0, k);
    const Eigen::Map<const RowMajor> B(b, k, n);
    Eigen::Map<RowMajor> S(s, r1 - r0, n);
    S.noalias() = A * B;
}
