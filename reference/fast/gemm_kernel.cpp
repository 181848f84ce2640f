// The float64 matrix product under GEMM's fast path (reference/fast/gemm_f64.cpp): one tile
// S = A x B of m x n, over k, by Eigen's blocked, vectorised product, serial (each call is one
// task of the fast path's parallel loop). A's element (i, j) is a[i * lda + j] when A is
// row-major, a[j * lda + i] when column-major (a transposed operand read in place, without a
// copy), and the same for B; S is row-major with rows lds apart.
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

#define DMLREF_GEMM_ENTRY EIGEN_GEMM_CONCAT(dmlref_gemm_tile_, DMLREF_GEMM_ISA)

namespace {

template <int AOrder, int BOrder>
void tile(const double* a, int64_t lda, const double* b, int64_t ldb, double* s, int64_t lds, int64_t m, int64_t n,
          int64_t k) {
    using Stride = Eigen::OuterStride<>;
    using AMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, AOrder>;
    using BMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, BOrder>;
    using SMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const AMatrix, 0, Stride> A(a, m, k, Stride(lda));
    const Eigen::Map<const BMatrix, 0, Stride> B(b, k, n, Stride(ldb));
    Eigen::Map<SMatrix, 0, Stride> S(s, m, n, Stride(lds));
    S.noalias() = A * B;
}

}  // namespace

extern "C" void DMLREF_GEMM_ENTRY(const double* a, int64_t lda, int a_column_major, const double* b, int64_t ldb,
                                  int b_column_major, double* s, int64_t lds, int64_t m, int64_t n, int64_t k) {
    constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
    if (a_column_major) {
        if (b_column_major) tile<C, C>(a, lda, b, ldb, s, lds, m, n, k);
        else tile<C, R>(a, lda, b, ldb, s, lds, m, n, k);
    } else {
        if (b_column_major) tile<R, C>(a, lda, b, ldb, s, lds, m, n, k);
        else tile<R, R>(a, lda, b, ldb, s, lds, m, n, k);
    }
}
