// The float64 matrix product with an error bound per element, which the fast paths of GEMM
// (gemm_f64.cpp) and CONVOLUTION (convolution_f64.cpp, as a product of the filter and the input's
// windows) share: the operands as float64, the rounded norms of rows and columns, the blocked
// product (gemm_kernel.cpp, one per instruction set), the decision of each element from the
// product and its bound, and the compensated dot product for the elements that decision leaves.
// gemm_f64.cpp's header derives every bound (steps 1 to 5b); docs/golden.md, "How GEMM's golden is
// computed", sums it up. Internal to dmlref.
#pragma once

#include "parallel.hpp"

#include "../common.hpp"
#include "../fused_activation.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace dmlref::reference::fast::f64 {

// An uninitialised float64 array (no pass zeroing what is written next anyway). A large one is
// asked for in huge pages where the system has them (2 MiB aligned, madvise): its first touch
// then faults 512 times less often, which costs as much as a pass over it otherwise. One from
// scratch() is a view of storage it does not own.
struct DoublesFree {
    bool owned = true;  // false: a view of scratch()'s storage
    void operator()(double* p) const;
};
struct Doubles {
    using Free = DoublesFree;
    std::unique_ptr<double, Free> p;
    uint64_t size = 0;
    explicit Doubles(uint64_t n = 0);
    double* data() { return p.get(); }
    const double* data() const { return p.get(); }
};

// Scratch storage reused across calls: n uninitialised float64 in the calling thread's array for
// `slot` (grown on demand, never shrunk, kept for the thread's life), so that a call as large as
// an earlier one on the same thread allocates nothing and touches no fresh page (a fresh page is
// a fault and a zeroing pass, and on many threads the faults and the unmapping of the freed
// arrays serialize on the process's memory map). Valid until the thread's next scratch() for the
// same slot; each use site has its own slot, the caller's (kScratchA to kScratchC) apart from
// those of the tasks of a parallel loop (kScratchTile and up), which on one thread run on the
// caller's thread. Arrays over kScratchKeep float64 are not kept: the Doubles owns them.
enum ScratchSlot : int {
    kScratchA,
    kScratchB,
    kScratchC,
    kScratchFilter,
    kScratchTile,
    kScratchWindows,
    kScratchColumns,
    kScratchSlots
};
// 32 MiB a slot: a 2048 x 2048 operand, the bench's 1024^3 GEMM four times over, while a process
// that ran one large case keeps at most 32 MiB a slot per thread afterwards, not its whole size.
inline constexpr uint64_t kScratchKeep = uint64_t(1) << 22;
Doubles scratch(ScratchSlot slot, uint64_t n);

inline constexpr uint64_t kChunk = 1 << 16;  // elements per task of the element-wise passes

// The tensor's logical elements (FLOAT32 or FLOAT16) as float64, row-major (step 1), into
// scratch(slot, ...); false when one is NaN or infinite.
bool read_doubles(const TensorDesc& d, std::span<const std::byte> bytes, Doubles& out, ScratchSlot slot);

// Step 3's rounded norms of the rows (sum over each row) or the columns (sum down each column) of
// each of `batch` row-major rows x cols matrices at x, into out.
void norms(const double* x, uint64_t batch, uint64_t rows, uint64_t cols, bool of_rows, double* out);

// Step 2's product of one tile, S = A x B (m x n, over k), with the kernel the CPU supports best
// (or the one set_product_kernel forced): A's element (i, j) is a[i * lda + j] row-major,
// a[j * lda + i] column-major, the same for B; S row-major with rows lds apart. Serial.
using ProductKernel = void (*)(const double* a, int64_t lda, int a_column_major, const double* b, int64_t ldb,
                               int b_column_major, double* s, int64_t lds, int64_t m, int64_t n, int64_t k);
ProductKernel product_kernel();
// 0: the best the CPU supports; 1: the baseline, 2: AVX2 with FMA, 3: AVX-512, each where built
// and supported. Returns the kernel in use.
int set_product_kernel(int kernel);

// The threads the fast paths use (the switch's count, else OpenMP's).
int thread_count();

// gamma for K products (step 3): E = norms' product times this bounds |S - P|.
inline double gamma_of(uint64_t K) { return double(K) * 0x1p-53 * (1 + 0x1p-16); }
// Step 5a's factor for K products: E2 = norms' product times this, plus 2^-52 |s + c|.
inline double gamma2_of(uint64_t K) {
    const double g4 = double(K + 4) * 0x1p-53 * (1 + 0x1p-16);
    return g4 * g4 * (1 + 0x1p-10);
}

// Steps 4 and 5 for one element: y, and true, when every real within E of the sum approximated
// by s, times Alpha, plus c (exact), rounds to one finite non-zero y.
template <class T> bool decide(double s, double E, double alpha, double c, T& y) {
    const double as = alpha * s, v = as + c;
    const double err = (std::fabs(alpha) * E + 0x1p-50 * (std::fabs(as) + std::fabs(v))) * (1 + 0x1p-40) + 0x1p-1070;
    const T lo = round_to_float<T>(v - err), hi = round_to_float<T>(v + err);
    y = lo;
    return to_bits(lo) == to_bits(hi) && std::isfinite(widen(lo)) && widen(lo) != 0;
}

// Steps 3 to 5 for one row of a tile: y[j] for n elements, E from the row's norm na, the
// columns' norms nb and gamma; c (the exact addend of each element) may be null. Returns the
// number of elements left undecided, each marked in bad.
template <class T>
uint64_t decide_row(const double* s, double na, const double* nb, double gamma, double alpha, const double* c, T* y,
                    unsigned char* bad, uint64_t n) {
    uint64_t left = 0;
    for (uint64_t j = 0; j < n; ++j) {
        const bool ok = decide<T>(s[j], (na * nb[j]) * gamma, alpha, c ? c[j] : 0.0, y[j]);
        bad[j] = !ok;
        left += !ok;
    }
    return left;
}
// The same for FLOAT32 without branches, vectorised (AVX-512 or AVX2 where the CPU has them: the
// same IEEE operations, unfused).
uint64_t decide_row_float(const double* s, double na, const double* nb, double gamma, double alpha, const double* c,
                          float* y, unsigned char* bad, uint64_t n);

// The output's elements in logical order: the tensor's own bytes where it is packed, else a staged
// copy that finish() writes through the strides.
template <class T> class LogicalOutput {
public:
    LogicalOutput(const TensorDesc& d, std::span<std::byte> bytes) : d_(d), bytes_(bytes) {
        const bool packed = is_packed(d);
        if (!packed) staged_.resize(element_count(d));
        data_ = packed ? reinterpret_cast<T*>(bytes.data()) : staged_.data();
    }
    T* data() { return data_; }
    // Step 6, the FusedActivation (if any) as the plain loops apply it, to every rounded value;
    // then the staged copy, if any, written out.
    void finish(const std::optional<DML_FUSED_ACTIVATION>& activation) {
        const uint64_t count = element_count(d_);
        if (activation)
            parallel_for(int64_t((count + kChunk - 1) / kChunk), [&](int64_t t) {
                for (uint64_t i = uint64_t(t) * kChunk; i < std::min(count, uint64_t(t) * kChunk + kChunk); ++i)
                    data_[i] = fused_activation(*activation, data_[i]);
            });
        if (!staged_.empty()) write_logical<T>(d_, bytes_, [&](uint64_t i) { return data_[i]; });
    }

private:
    const TensorDesc& d_;
    std::span<std::byte> bytes_;
    std::vector<T> staged_;
    T* data_ = nullptr;
};

// For the tests: the elements a fast path's last call decided by the product's bound, by the
// compensated sum, and those it left to the exact path.
struct PathCounts {
    uint64_t decided = 0, compensated = 0, exact = 0;
};

// Step 5a: the compensated sum of a . b (K terms, a's step sa, b contiguous) in four lanes;
// s + c approximates it (P - (s + c) within step 5a's bound).
void compensated_dot(const double* a, int64_t sa, const double* b, uint64_t K, double& s, double& c);

}  // namespace dmlref::reference::fast::f64
