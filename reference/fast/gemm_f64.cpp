// GEMM's fast path for FLOAT32 and FLOAT16 (reference/fast/gemm_f64.hpp): the same bits as the
// plain loop of reference/gemm.cpp, each element Alpha * sum_k a_k b_k + Beta * c exact and
// rounded once, at the speed of a float64 matrix product.
//
// How (docs/golden.md, "How GEMM's golden is computed"):
//  1. A and B as float64 (the plain loop's read_gemm), transposed into row-major M x K and K x N
//     where TransA or TransB says so. Every product p_k = a_k b_k of FLOAT32 (24 + 24 significant
//     bits) or FLOAT16 (11 + 11) values is exact in float64, and 0 or 2^-298 <= |p_k| <= 2^256.
//  2. S = A x B in float64 by a blocked, vectorised product (reference/fast/gemm_kernel.cpp),
//     in whatever order and with whatever FMAs it likes. Each S is the K exact products added by
//     float64 additions (an FMA of an exact product is one rounded addition), each product
//     through at most K - 1 of them, none overflowing and none losing bits to underflow (a sum
//     whose result is subnormal is exact): |S - P| <= gamma_{K-1} sum_k |p_k|, P the exact sum,
//     gamma_n = n u / (1 - n u), u = 2^-53, for every order (Higham, "Accuracy and Stability of
//     Numerical Algorithms", 2nd ed., section 4.2).
//  3. sum_k |p_k| <= ||a|| ||b|| (Cauchy-Schwarz; a the row of A, b the column of B). q = fl(sum
//     a_k^2) (squares exact, positive terms) is at least sum a_k^2 (1 - gamma_{K-1}); its rounded
//     square root at least sqrt(q) (1 - u); so ||a|| ||b|| <= Mb / ((1 - u)^3 (1 - gamma_{K-1}))
//     where Mb = fl(fl(sqrt(qa)) fl(sqrt(qb))). K < 2^32 gives K u < 2^-21, and then
//     E = Mb * fl(K u (1 + 2^-16)), rounded, is at least gamma_{K-1} ||a|| ||b|| >= |S - P|.
//  4. The value V = Alpha P + Beta c (Beta c exact in float64: 24 + 24 bits) is computed as
//     v = fl(fl(Alpha S) + Beta c), so |v - V| <= |Alpha| E + u |fl(Alpha S)| / (1 - u) +
//     u |v| / (1 - u) (no underflow: |Alpha S| >= 2^-149 2^-298 or 0). err = (|Alpha| E + 2^-52
//     (|fl(Alpha S)| + |v|)) (1 + 2^-40) covers it and the four roundings of err itself.
//  5. lo and hi: v - err and v + err rounded, each moved one float64 outward (so lo <= v - err
//     and hi >= v + err exactly). Rounding to T is monotonic, so when lo and hi round to the same
//     T, every real in [lo, hi], V among them, rounds to it: that is the golden. Else (an
//     interval across a rounding boundary or a tie, a result of zero, whose sign the plain loop
//     decides, or one that overflows):
//  5a. the element's K products summed again in order with TwoSum, s_i + e_i = s_(i-1) + p_i
//     exactly, and the errors e_i summed in float64: P = s_K + sum e_i, |e_i| <= u |s_i|, so
//     sum |e_i| <= K u (1 + gamma_K) sum |p_k| and the float64 sum of the e_i is within
//     gamma_(K-1) of that: |P - (s_K + c)| <= (K u)^2 (1 + 2^-17) Mb. E2 = fl(E^2 (1 + 2^-10))
//     covers it (E as in step 3), and 2^-52 |fl(s_K + c)| the last addition; steps 4 and 5 again
//     with fl(s_K + c) and that bound decide all but the elements within about 2^-52 of a
//     boundary (a tie that is the exact value among them);
//  5b. those take the plain loop's exact path (gemm_element: FastSum, then ExactSum).
//  6. The FusedActivation, as the plain loop applies it, to the rounded value.
//
// A NaN or infinite element of A, B or C, a NaN or infinite Alpha, or a NaN or infinite Beta with
// a CTensor: the plain loop runs for the whole call. The bits never depend on the thread count or
// the kernel: a decided element is the correct rounding, an undecided one the plain loop's.
// Memory: beside the plain loop's own float64 copies of A, B and C, at most one transposed copy
// of A and of B (B's columns made contiguous for step 5a, when an element gets there), one
// float64 panel of S per task (rows x N), the norms and the list of elements left to step 5a.
#include "gemm_f64.hpp"

#include "parallel.hpp"

#include "../fused_activation.hpp"
#include "../gemm_internal.hpp"

#include "dmlref/numeric.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

// The kernels (reference/fast/gemm_kernel.cpp, one per instruction set reference/meson.build builds).
#if defined(__x86_64__) && defined(__GNUC__)
#define DMLREF_GEMM_X86_KERNELS 1
#endif
extern "C" void dmlref_gemm_rows_base(const double*, const double*, double*, int64_t, int64_t, int64_t, int64_t);
#if defined(DMLREF_GEMM_X86_KERNELS)
extern "C" void dmlref_gemm_rows_avx2(const double*, const double*, double*, int64_t, int64_t, int64_t, int64_t);
extern "C" void dmlref_gemm_rows_avx512(const double*, const double*, double*, int64_t, int64_t, int64_t, int64_t);
#endif

namespace dmlref::reference::fast {

namespace {

using GEMM = DML_GEMM_OPERATOR_DESC;
using Kernel = void (*)(const double*, const double*, double*, int64_t, int64_t, int64_t, int64_t);

std::atomic<int> forced_kernel{0};
std::atomic<uint64_t> decided_count{0}, compensated_count{0}, exact_count{0};

bool supported(int k) {
    if (k == 1) return true;
#if defined(DMLREF_GEMM_X86_KERNELS)
    __builtin_cpu_init();
    if (k == 2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (k == 3)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return false;
}

int kernel_in_use() {
    const int f = forced_kernel.load(std::memory_order_relaxed);
    if (f > 0 && supported(f)) return f;
    for (int k = 3; k > 1; --k)
        if (supported(k)) return k;
    return 1;
}

Kernel kernel_of(int k) {
#if defined(DMLREF_GEMM_X86_KERNELS)
    if (k == 3) return dmlref_gemm_rows_avx512;
    if (k == 2) return dmlref_gemm_rows_avx2;
#endif
    (void)k;
    return dmlref_gemm_rows_base;
}

bool all_finite(const std::vector<double>& v) {
    bool ok = true;
    for (double x : v) ok &= std::fabs(x) <= std::numeric_limits<double>::max();
    return ok;
}

// Batch slices of x ([Batch, rows, cols] row-major) transposed into [Batch, cols, rows].
std::vector<double> transposed(const std::vector<double>& x, uint64_t batch, uint64_t rows, uint64_t cols) {
    std::vector<double> t(x.size());
    constexpr uint64_t kTile = 32;  // tiles, so that neither side strides through memory a line at a time
    for (uint64_t b = 0; b < batch; ++b) {
        const double* src = x.data() + b * rows * cols;
        double* dst = t.data() + b * rows * cols;
        for (uint64_t i0 = 0; i0 < rows; i0 += kTile)
            for (uint64_t j0 = 0; j0 < cols; j0 += kTile)
                for (uint64_t i = i0; i < std::min(rows, i0 + kTile); ++i)
                    for (uint64_t j = j0; j < std::min(cols, j0 + kTile); ++j) dst[j * rows + i] = src[i * cols + j];
    }
    return t;
}

int thread_count() {
    const int n = fast_path_threads();
#if defined(_OPENMP)
    return n > 0 ? n : omp_get_max_threads();
#else
    (void)n;
    return 1;
#endif
}

// Steps 4 and 5: y, and true, when every real within E of the sum approximated by s, times
// Alpha, plus c (Beta * c, exact), rounds to one finite non-zero y.
template <class T> bool decide(double s, double E, double alpha, double c, T& y) {
    const double as = alpha * s, v = as + c;
    const double err = (std::fabs(alpha) * E + 0x1p-52 * (std::fabs(as) + std::fabs(v))) * (1 + 0x1p-40);
    const double inf = std::numeric_limits<double>::infinity();
    const T lo = round_to_float<T>(std::nextafter(v - err, -inf)), hi = round_to_float<T>(std::nextafter(v + err, inf));
    y = lo;
    return to_bits(lo) == to_bits(hi) && std::isfinite(widen(lo)) && widen(lo) != 0;
}

template <class T> bool gemm_fast(const GEMM& d, const Bindings& bind) {
    const double alpha = d.Alpha, beta = d.Beta;
    if (!std::isfinite(alpha) || (d.CTensor && !std::isfinite(beta))) return false;
    const std::span<const std::byte> cbuf = d.CTensor ? std::span<const std::byte>(bind.at("CTensor"))
                                                      : std::span<const std::byte>();
    const GemmData g = read_gemm(d, bind.at("ATensor"), bind.at("BTensor"), d.CTensor ? &cbuf : nullptr);
    if (!all_finite(g.a) || !all_finite(g.b) || !all_finite(g.c)) return false;
    const uint64_t Batch = g.s.Batch, M = g.s.M, N = g.s.N, K = g.s.K;
    const std::vector<double> at = g.ta ? transposed(g.a, Batch, K, M) : std::vector<double>();
    const std::vector<double> bt = g.tb ? transposed(g.b, Batch, N, K) : std::vector<double>();
    const double* A = g.ta ? at.data() : g.a.data();  // [Batch, M, K]
    const double* B = g.tb ? bt.data() : g.b.data();  // [Batch, K, N]

    // Step 3: the rows' and columns' rounded norms.
    std::vector<double> row_norm(Batch * M), column_norm(Batch * N, 0.0);
    for (uint64_t r = 0; r < Batch * M; ++r) {
        double q = 0;
        for (uint64_t k = 0; k < K; ++k) q += A[r * K + k] * A[r * K + k];
        row_norm[r] = std::sqrt(q);
    }
    for (uint64_t b = 0; b < Batch; ++b) {
        double* col = column_norm.data() + b * N;
        for (uint64_t k = 0; k < K; ++k) {
            const double* row = B + (b * K + k) * N;
            for (uint64_t n = 0; n < N; ++n) col[n] += row[n] * row[n];
        }
        for (uint64_t n = 0; n < N; ++n) col[n] = std::sqrt(col[n]);
    }
    const double gamma = double(K) * 0x1p-53 * (1 + 0x1p-16);
    const double gamma2 = gamma * gamma * (1 + 0x1p-10);

    // Tasks: panels of rows of one batch, about four per thread.
    const uint64_t threads = uint64_t(std::max(1, thread_count()));
    const uint64_t per_batch = threads == 1 ? 1 : std::max<uint64_t>(1, (4 * threads + Batch - 1) / Batch);
    const uint64_t rows = std::max<uint64_t>(std::min<uint64_t>(M, 32), (M + per_batch - 1) / per_batch);
    const uint64_t panels = (M + rows - 1) / rows;
    const Kernel kernel = kernel_of(kernel_in_use());
    std::vector<T> r(Batch * M * N);
    auto finish = [&](T y) { return d.FusedActivation ? fused_activation(*d.FusedActivation, y) : y; };  // step 6
    std::vector<std::vector<uint64_t>> pending(Batch * panels);  // the elements each task leaves
    parallel_for(int64_t(Batch * panels), [&](int64_t task) {
        const uint64_t b = uint64_t(task) / panels, r0 = (uint64_t(task) % panels) * rows;
        const uint64_t r1 = std::min(M, r0 + rows);
        std::vector<double> S((r1 - r0) * N);
        kernel(A + b * M * K, B + b * K * N, S.data(), int64_t(r0), int64_t(r1), int64_t(K), int64_t(N));
        const double* nb = column_norm.data() + b * N;
        for (uint64_t m = r0; m < r1; ++m) {
            const double na = row_norm[b * M + m];
            const double* s = S.data() + (m - r0) * N;
            for (uint64_t n = 0; n < N; ++n) {
                const uint64_t e = (b * M + m) * N + n;
                T y;
                if (decide<T>(s[n], (na * nb[n]) * gamma, alpha, d.CTensor ? beta * g.c[e] : 0.0, y))  // steps 3 to 5
                    r[e] = finish(y);
                else pending[size_t(task)].push_back(e);
            }
        }
    });
    std::vector<uint64_t> rest;
    for (const auto& p : pending) rest.insert(rest.end(), p.begin(), p.end());
    std::atomic<uint64_t> exact{0};
    if (!rest.empty()) {
        // Step 5a: the compensated sum of each element's products, over B's columns made contiguous
        // ([Batch, N, K]: B as stored with TransB).
        const std::vector<double> bc = g.tb ? std::vector<double>() : transposed(g.b, Batch, K, N);
        const double* columns = g.tb ? g.b.data() : bc.data();
        constexpr uint64_t kChunk = 64;
        parallel_for(int64_t((rest.size() + kChunk - 1) / kChunk), [&](int64_t chunk) {
            uint64_t undecided = 0;
            for (uint64_t i = uint64_t(chunk) * kChunk;
                 i < std::min<uint64_t>(rest.size(), (uint64_t(chunk) + 1) * kChunk); ++i) {
                const uint64_t e = rest[i], n = e % N, bm = e / N, b = bm / M;
                const double* arow = A + bm * K;
                const double* bcol = columns + (b * N + n) * K;
                double sum = 0, comp = 0;
                for (uint64_t k = 0; k < K; ++k) {
                    const double p = arow[k] * bcol[k];
                    const double t = sum + p, z = t - sum;
                    comp += (sum - (t - z)) + (p - z);  // TwoSum's exact error
                    sum = t;
                }
                const double s2 = sum + comp;
                const double E2 = (row_norm[bm] * column_norm[b * N + n]) * gamma2 + 0x1p-52 * std::fabs(s2);
                T y;
                if (!decide<T>(s2, E2, alpha, d.CTensor ? beta * g.c[e] : 0.0, y)) {
                    y = gemm_element<T>(d, g, e);  // step 5b
                    ++undecided;
                }
                r[e] = finish(y);
            }
            exact.fetch_add(undecided, std::memory_order_relaxed);
        });
    }
    write_logical<T>(d.OutputTensor, bind.at("OutputTensor"), [&](uint64_t i) { return r[i]; });
    exact_count.store(exact.load(), std::memory_order_relaxed);
    compensated_count.store(rest.size() - exact.load(), std::memory_order_relaxed);
    decided_count.store(Batch * M * N - rest.size(), std::memory_order_relaxed);
    return true;
}

}  // namespace

bool gemm_f64(const GEMM& d, const Bindings& b) {
    if (d.OutputTensor.DataType == DataType::FLOAT32) return gemm_fast<float>(d, b);
    if (d.OutputTensor.DataType == DataType::FLOAT16) return gemm_fast<half>(d, b);
    return false;
}

GemmFastCounts gemm_fast_counts() { return {decided_count.load(), compensated_count.load(), exact_count.load()}; }

int set_gemm_kernel(int kernel) {
    forced_kernel.store(kernel, std::memory_order_relaxed);
    return kernel_in_use();
}

}  // namespace dmlref::reference::fast
