// The float64 product machinery that GEMM's and CONVOLUTION's fast paths share (f64_product.hpp;
// the bounds are derived in gemm_f64.cpp's header).
#include "f64_product.hpp"

#include "parallel.hpp"

#include "../fast_sum.hpp"

#include "dmlref/terms.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

// The kernels (reference/fast/gemm_kernel.cpp, one per instruction set reference/meson.build builds).
#if defined(__x86_64__) && defined(__GNUC__)
#define DMLREF_GEMM_X86_KERNELS 1
#endif
#define DMLREF_GEMM_KERNEL_ARGS \
    const double*, int64_t, int, const double*, int64_t, int, double*, int64_t, int64_t, int64_t, int64_t
extern "C" void dmlref_gemm_tile_base(DMLREF_GEMM_KERNEL_ARGS);
#if defined(DMLREF_GEMM_X86_KERNELS)
extern "C" void dmlref_gemm_tile_avx2(DMLREF_GEMM_KERNEL_ARGS);
extern "C" void dmlref_gemm_tile_avx512(DMLREF_GEMM_KERNEL_ARGS);
#endif

namespace dmlref::reference::fast::f64 {

namespace {

std::atomic<int> forced_kernel{0};

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

ProductKernel kernel_of(int k) {
#if defined(DMLREF_GEMM_X86_KERNELS)
    if (k == 3) return dmlref_gemm_tile_avx512;
    if (k == 2) return dmlref_gemm_tile_avx2;
#endif
    (void)k;
    return dmlref_gemm_tile_base;
}

}  // namespace

void DoublesFree::operator()(double* p) const {
    if (owned) std::free(p);
}

Doubles::Doubles(uint64_t n) : size(n) {
    if (n == 0) return;
    constexpr size_t kHuge = size_t(1) << 21;
    const size_t bytes = size_t(n) * sizeof(double);
    const bool huge = bytes >= 2 * kHuge;
    void* q = huge ? std::aligned_alloc(kHuge, (bytes + kHuge - 1) / kHuge * kHuge) : std::malloc(bytes);
    if (!q) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (huge) madvise(q, (bytes + kHuge - 1) / kHuge * kHuge, MADV_HUGEPAGE);  // advice only: no error to handle
#endif
    p.reset(static_cast<double*>(q));
}

Doubles scratch(ScratchSlot slot, uint64_t n) {
    if (n > kScratchKeep) return Doubles(n);
    thread_local Doubles kept[kScratchSlots];
    Doubles& k = kept[slot];
    if (k.size < n) {
        k = Doubles();  // the old array freed before the new one is asked for
        k = Doubles(n);
    }
    Doubles view;
    view.p = std::unique_ptr<double, Doubles::Free>(k.data(), Doubles::Free{false});
    view.size = n;
    return view;
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

ProductKernel product_kernel() { return kernel_of(kernel_in_use()); }

int set_product_kernel(int kernel) {
    forced_kernel.store(kernel, std::memory_order_relaxed);
    return kernel_in_use();
}

namespace {

template <class T>
bool read_doubles(const TensorDesc& d, std::span<const std::byte> bytes, Doubles& out, ScratchSlot slot) {
    const uint64_t n = element_count(d);
    out = scratch(slot, n);
    double* o = out.data();
    if (d.Strides.empty() || packed_strides(d.Sizes) == std::vector<int64_t>(d.Strides.begin(), d.Strides.end())) {
        const T* x = reinterpret_cast<const T*>(bytes.data());
        const int64_t chunks = int64_t((n + kChunk - 1) / kChunk);
        std::vector<unsigned char> finite(size_t(chunks), 1);
        parallel_for(chunks, [&](int64_t c) {
            const uint64_t i0 = uint64_t(c) * kChunk, i1 = std::min(n, i0 + kChunk);
            bool ok = true;
            for (uint64_t i = i0; i < i1; ++i) {
                const double v = widen_fast(x[i]);
                o[i] = v;
                ok &= std::fabs(v) <= std::numeric_limits<double>::max();
            }
            finite[size_t(c)] = ok;
        });
        return std::find(finite.begin(), finite.end(), 0) == finite.end();
    }
    const std::vector<double> v = logical_doubles(d, bytes);
    bool ok = true;
    for (uint64_t i = 0; i < n; ++i) {
        o[i] = v[i];
        ok &= std::fabs(v[i]) <= std::numeric_limits<double>::max();
    }
    return ok;
}

}  // namespace

bool read_doubles(const TensorDesc& d, std::span<const std::byte> bytes, Doubles& out, ScratchSlot slot) {
    if (d.DataType == DataType::FLOAT16) return read_doubles<half>(d, bytes, out, slot);
    return read_doubles<float>(d, bytes, out, slot);
}

namespace {

// The float64 sum of the squares of n values (each exact: 24 + 24 or 11 + 11 bits) in eight
// lanes, k mod 8, the lanes then added pairwise: a summation tree of the n squares (an addition
// of a lane's initial zero is exact), so each square passes through at most n - 1 rounded
// additions, as step 3's bound assumes of any order. Eight independent chains instead of one:
// the additions' latency no longer bounds it. The same IEEE operations in each clone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
double
sum_of_squares(const double* __restrict x, uint64_t n) {
    double q[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int l = 0; l < 8; ++l) q[l] += x[k + l] * x[k + l];
    for (int l = 0; k < n; ++k, ++l) q[l] += x[k] * x[k];
    return ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]));
}

}  // namespace

// Step 3's rounded norms of the rows (sum over each row) or the columns (sum down each column)
// of each of `batch` row-major rows x cols matrices at x, into out.
void norms(const double* x, uint64_t batch, uint64_t rows, uint64_t cols, bool of_rows, double* out) {
    if (of_rows) {
        parallel_for(int64_t((batch * rows + 63) / 64), [&](int64_t t) {
            for (uint64_t r = uint64_t(t) * 64; r < std::min(batch * rows, uint64_t(t) * 64 + 64); ++r) {
                out[r] = std::sqrt(sum_of_squares(x + r * cols, cols));
            }
        });
        return;
    }
    // Blocks of 256 columns, or fewer (down to 32) where that leaves a thread without one.
    const uint64_t threads = uint64_t(std::max(1, thread_count()));
    const uint64_t kColumns = std::clamp<uint64_t>(
        (cols / std::max<uint64_t>(1, threads / std::max<uint64_t>(batch, 1)) + 7) / 8 * 8, 32, 256);
    const uint64_t blocks = (cols + kColumns - 1) / kColumns;
    parallel_for(int64_t(batch * blocks), [&](int64_t t) {
        const uint64_t b = uint64_t(t) / blocks, c0 = (uint64_t(t) % blocks) * kColumns;
        const uint64_t c1 = std::min(cols, c0 + kColumns);
        double* q = out + b * cols;
        for (uint64_t c = c0; c < c1; ++c) q[c] = 0;
        for (uint64_t r = 0; r < rows; ++r) {
            const double* row = x + (b * rows + r) * cols;
            for (uint64_t c = c0; c < c1; ++c) q[c] += row[c] * row[c];
        }
        for (uint64_t c = c0; c < c1; ++c) q[c] = std::sqrt(q[c]);
    });
}

namespace {

// The same for FLOAT32 without branches, so that it vectorises (AVX-512 or AVX2 where the CPU
// has them: the same IEEE operations, unfused).
template <bool HasC>
inline uint64_t decide_floats(const double* __restrict s, double na, const double* __restrict nb, double gamma,
                              double alpha, const double* __restrict c, float* __restrict y,
                              unsigned char* __restrict bad, uint64_t n) {
    const double aa = std::fabs(alpha);
    uint64_t left = 0;
    for (uint64_t j = 0; j < n; ++j) {
        const double as = alpha * s[j];
        double v = as;
        if constexpr (HasC) v = as + c[j];
        const double err = (aa * ((na * nb[j]) * gamma) + 0x1p-50 * (std::fabs(as) + std::fabs(v))) * (1 + 0x1p-40) +
                           0x1p-1070;
        const float lo = static_cast<float>(v - err), hi = static_cast<float>(v + err);
        const uint32_t lb = to_bits(lo), hb = to_bits(hi);
        // Same bits, finite (exponent not all ones) and non-zero.
        const unsigned char fail = (lb != hb) | ((lb & 0x7f800000u) == 0x7f800000u) | ((lb & 0x7fffffffu) == 0);
        y[j] = lo;
        bad[j] = fail;
        left += fail;
    }
    return left;
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif
uint64_t
decide_row_float(const double* s, double na, const double* nb, double gamma, double alpha, const double* c, float* y,
                 unsigned char* bad, uint64_t n) {
    return c ? decide_floats<true>(s, na, nb, gamma, alpha, c, y, bad, n)
             : decide_floats<false>(s, na, nb, gamma, alpha, c, y, bad, n);
}

// Step 5a: the compensated sum of a . b (K terms, a's step sa, b contiguous) in four lanes;
// s + c approximates it (P - (s + c) within step 5a's bound). Cloned per instruction set so
// that the four lanes' TwoSums run as one vector: the same IEEE operations, in the same order,
// in each clone (no FMA: the build contracts nothing), so the same s and c.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void compensated_dot(const double* a, int64_t sa, const double* b, uint64_t K, double& s, double& c) {
    double ls[4] = {0, 0, 0, 0}, lc[4] = {0, 0, 0, 0};
    uint64_t k = 0;
    for (; k + 4 <= K; k += 4)
        for (int l = 0; l < 4; ++l) lc[l] += two_sum(ls[l], a[int64_t(k + l) * sa] * b[k + l], ls[l]);
    for (int l = 0; k < K; ++k, ++l) lc[l] += two_sum(ls[l], a[int64_t(k) * sa] * b[k], ls[l]);
    double sum = ls[0], comp = lc[0];
    for (int l = 1; l < 4; ++l) comp += lc[l] + two_sum(sum, ls[l], sum);
    s = sum;
    c = comp;
}

}  // namespace dmlref::reference::fast::f64
