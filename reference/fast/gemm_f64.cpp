// GEMM's fast path for FLOAT32 and FLOAT16 (reference/fast/gemm_f64.hpp): the same bits as the
// plain loop of reference/gemm.cpp, each element Alpha * sum_k a_k b_k + Beta * c exact and
// rounded once, at the speed of a float64 matrix product.
//
// The machinery of steps 1 to 5a (reading, norms, the product kernels, the decisions, the
// compensated dot product) is in f64_product.hpp/.cpp, which CONVOLUTION's fast path
// (convolution_f64.cpp) shares; this file is GEMM's use of it.
//
// How (docs/golden.md, "How GEMM's golden is computed"):
//  1. A and B as float64: packed tensors converted on every core, others through the plain
//     loop's logical_doubles. A transposed operand is read in place, as a column-major matrix.
//     Every product p_k = a_k b_k of FLOAT32 (24 + 24 significant bits) or FLOAT16 (11 + 11)
//     values is exact in float64, and 0 or 2^-298 <= |p_k| <= 2^256.
//  2. S = A x B in float64 by a blocked, vectorised product (reference/fast/gemm_kernel.cpp), a
//     tile at a time, in whatever order and with whatever FMAs it likes. Each S is the K exact
//     products added by float64 additions (an FMA of an exact product is one rounded addition),
//     each product through at most K - 1 of them, none overflowing and none losing bits to
//     underflow (a sum whose result is subnormal is exact): |S - P| <= gamma_{K-1} sum_k |p_k|,
//     P the exact sum, gamma_n = n u / (1 - n u), u = 2^-53, for every order (Higham, "Accuracy
//     and Stability of Numerical Algorithms", 2nd ed., section 4.2).
//  3. sum_k |p_k| <= ||a|| ||b|| (Cauchy-Schwarz; a the row of A, b the column of B). q = fl(sum
//     a_k^2) (squares exact, positive terms, any order: down a column one chain, along a row
//     eight, k mod 8, added pairwise at the end) is at least sum a_k^2 (1 - gamma_{K-1});
//     its rounded square root at least sqrt(q) (1 - u); so ||a|| ||b|| <= Mb / ((1 - u)^3 (1 -
//     gamma_{K-1})) where Mb = fl(fl(sqrt(qa)) fl(sqrt(qb))). K < 2^32 gives K u < 2^-21, and
//     then E = Mb * fl(K u (1 + 2^-16)), rounded, is at least gamma_{K-1} ||a|| ||b|| >= |S - P|.
//  4. The value V = Alpha P + Beta c (Beta c exact in float64: 24 + 24 bits) is computed as
//     v = fl(fl(Alpha S) + Beta c), so |v - V| <= |Alpha| E + u |fl(Alpha S)| / (1 - u) +
//     u |v| / (1 - u) (no underflow: |Alpha S| >= 2^-149 2^-298 or 0). (|Alpha| E + 2^-52
//     (|fl(Alpha S)| + |v|)) (1 + 2^-41) covers it and the four roundings of that bound itself.
//  5. lo and hi: v - err and v + err rounded, with err = (|Alpha| E + 2^-50 (|fl(Alpha S)| +
//     |v|)) (1 + 2^-40) + 2^-1070: the extra 2^-51 |v| and 2^-41 of the bound cover the rounding
//     of v - err and v + err (at most 2^-53 (|v| + err), or 2^-1075 below the normal range), so
//     lo <= V <= hi. Rounding to T is monotonic, so when lo and hi round to the same T, every real
//     in [lo, hi], V among them, rounds to it: that is the golden. For FLOAT32 this is one branch-
//     free, vectorised loop over each row of the tile. Else (an interval across a rounding
//     boundary or a tie, a result of zero, whose sign the plain loop decides, or one that
//     overflows):
//  5a. the element's K products summed again with TwoSum in four interleaved lanes (k mod 4),
//     the lanes' sums then added with TwoSum, s_i + e_i = s_(i-1) + p_i exactly, and the K + 4
//     or fewer errors e_i summed in float64: P = s + sum e_i, |e_i| <= u |s_i| <= u (1 +
//     gamma_K) sum |p_k|, so sum |e_i| <= (K + 4) u (1 + gamma_K) sum |p_k| and the float64
//     sum of the e_i is within gamma_(K+3) of that: |P - (s + c)| <= ((K + 4) u)^2 (1 + 2^-17)
//     Mb. E2 = fl(Mb fl(G^2 (1 + 2^-10))), G = fl((K + 4) u (1 + 2^-16)), covers it, and 2^-52
//     |fl(s + c)| the last addition; steps 4 and 5 again with fl(s + c) and that bound decide
//     all but the elements within about 2^-52 of a boundary (a tie that is the exact value
//     among them);
//  5b. those take the plain loop's exact path (gemm_element: FastSum, then ExactSum), on the
//     plain loop's own copies of A, B and C (read_gemm), read only when an element gets there.
//  6. The FusedActivation, as the plain loop applies it, to the rounded value.
//
// A NaN or infinite element of A, B or C, a NaN or infinite Alpha, or a NaN or infinite Beta with
// a CTensor: the plain loop runs for the whole call. The bits never depend on the thread count,
// the tiles or the kernel: a decided element is the correct rounding, an undecided one the plain
// loop's.
// Tiles: one per batch on one thread; on several, the output cut into tiles of at least 64 x 64
// until there are two per thread, each tile's product and decisions one task (its float64 S
// stays in the cache between them). Memory: float64 copies of A, B and C, one float64 tile of S
// per task, the norms, the elements left to step 5a, and for step 5a, where B is not transposed,
// a block of 64 of B's columns made contiguous per task. The copies, the tiles and the blocks are
// f64::scratch, kept per thread across calls: a call no larger than an earlier one on the same
// threads allocates and faults in none of them.
#include "gemm_f64.hpp"

#include "f64_product.hpp"
#include "parallel.hpp"

#include "../fast_sum.hpp"
#include "../fused_activation.hpp"
#include "../gemm_internal.hpp"

#include "dmlref/numeric.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

namespace dmlref::reference::fast {

namespace {

using GEMM = DML_GEMM_OPERATOR_DESC;
using namespace f64;

std::atomic<uint64_t> decided_count{0}, compensated_count{0}, exact_count{0};

template <class T> bool gemm_fast(const GEMM& d, const Bindings& bind) {
    const double alpha = d.Alpha, beta = d.Beta;
    if (!std::isfinite(alpha) || (d.CTensor && !std::isfinite(beta))) return false;
    const bool ta = d.TransA == DML_MATRIX_TRANSFORM_TRANSPOSE, tb = d.TransB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const GemmShape g = gemm_shape(d.OutputTensor, d.ATensor, ta);
    const uint64_t Batch = g.Batch, M = g.M, N = g.N, K = g.K;
    Doubles A, B, C;
    if (!read_doubles(d.ATensor, bind.at("ATensor"), A, kScratchA) ||
        !read_doubles(d.BTensor, bind.at("BTensor"), B, kScratchB))
        return false;
    if (d.CTensor && !read_doubles(*d.CTensor, bind.at("CTensor"), C, kScratchC)) return false;
    if (d.CTensor && beta != 1) {  // Beta * c, exact
        double* c = C.data();
        parallel_for(int64_t((C.size + kChunk - 1) / kChunk), [&](int64_t t) {
            for (uint64_t i = uint64_t(t) * kChunk; i < std::min(C.size, uint64_t(t) * kChunk + kChunk); ++i)
                c[i] = beta * c[i];
        });
    }
    // A is [Batch, M, K] as stored, or [Batch, K, M] with TransA; B [Batch, K, N], or [Batch, N, K].
    const int64_t lda = int64_t(ta ? M : K), ldb = int64_t(tb ? K : N);

    // Step 3: the rows' and columns' rounded norms.
    Doubles row_norm(Batch * M), column_norm(Batch * N);
    norms(A.data(), Batch, ta ? K : M, ta ? M : K, !ta, row_norm.data());
    norms(B.data(), Batch, tb ? N : K, tb ? K : N, tb, column_norm.data());
    const double gamma = gamma_of(K), gamma2 = gamma2_of(K);

    LogicalOutput<T> out(d.OutputTensor, bind.at("OutputTensor"));
    T* r = out.data();

    // Tiles: one per batch on one thread; on several, halved (the larger side, down to 64) until
    // there are two per thread. At most 2^22 float64 of S per tile either way.
    const uint64_t threads = uint64_t(std::max(1, thread_count()));
    const uint64_t want = threads == 1 ? 1 : 2 * threads;
    uint64_t tm = M, tn = N;
    auto tiles = [&] { return Batch * ((M + tm - 1) / tm) * ((N + tn - 1) / tn); };
    while ((tiles() < want && std::max(tm, tn) > 64) || tm * tn > (uint64_t(1) << 22)) {
        uint64_t& side = tm >= tn ? tm : tn;
        side = std::max<uint64_t>(8, (side / 2 + 7) / 8 * 8);
    }
    const uint64_t mt = (M + tm - 1) / tm, nt = (N + tn - 1) / tn;
    const ProductKernel kernel = product_kernel();
    std::vector<std::vector<uint64_t>> pending(Batch * mt * nt);  // the elements each task leaves
    parallel_for(int64_t(Batch * mt * nt), [&](int64_t task) {
        const uint64_t b = uint64_t(task) / (mt * nt), i = uint64_t(task) % (mt * nt) / nt, j = uint64_t(task) % nt;
        const uint64_t m0 = i * tm, m1 = std::min(M, m0 + tm), n0 = j * tn, n1 = std::min(N, n0 + tn);
        const uint64_t h = m1 - m0, w = n1 - n0;
        Doubles S = scratch(kScratchTile, h * w);
        const double* a = A.data() + b * M * K + (ta ? m0 : m0 * K);
        const double* bb = B.data() + b * K * N + (tb ? n0 * K : n0);
        kernel(a, lda, ta, bb, ldb, tb, S.data(), int64_t(w), int64_t(h), int64_t(w), int64_t(K));
        const double* nb = column_norm.data() + b * N + n0;
        std::vector<unsigned char> bad(w);
        for (uint64_t m = m0; m < m1; ++m) {
            const uint64_t e0 = (b * M + m) * N + n0;
            const double* c = d.CTensor ? C.data() + e0 : nullptr;
            const double* s = S.data() + (m - m0) * w;
            uint64_t left;
            if constexpr (std::is_same_v<T, float>)
                left = decide_row_float(s, row_norm.data()[b * M + m], nb, gamma, alpha, c, r + e0, bad.data(), w);
            else left = decide_row<T>(s, row_norm.data()[b * M + m], nb, gamma, alpha, c, r + e0, bad.data(), w);
            if (left)
                for (uint64_t n = 0; n < w; ++n)
                    if (bad[n]) pending[size_t(task)].push_back(e0 + n);
        }
    });
    std::vector<uint64_t> rest;
    for (const auto& p : pending) rest.insert(rest.end(), p.begin(), p.end());

    // Step 5a, by blocks of 64 of B's columns (made contiguous where B is not transposed).
    std::vector<uint64_t> undecided;
    if (!rest.empty()) {
        constexpr uint64_t kColumns = 64;
        auto block_of = [&](uint64_t e) { return e / (M * N) * N + e % N / kColumns * kColumns; };
        std::sort(rest.begin(), rest.end(), [&](uint64_t x, uint64_t y) {
            return block_of(x) != block_of(y) ? block_of(x) < block_of(y) : x < y;
        });
        std::vector<uint64_t> starts;
        for (uint64_t i = 0; i < rest.size(); ++i)
            if (i == 0 || block_of(rest[i]) != block_of(rest[i - 1])) starts.push_back(i);
        starts.push_back(rest.size());
        std::vector<std::vector<uint64_t>> left(starts.size() - 1);
        parallel_for(int64_t(starts.size() - 1), [&](int64_t t) {
            const uint64_t first = rest[starts[size_t(t)]], b = first / (M * N);
            const uint64_t n0 = first % N / kColumns * kColumns, n1 = std::min(N, n0 + kColumns);
            // Columns K + 8 apart, not K: at K a multiple of 512, 64 of them 4 KiB apart would fall
            // into one set of the first-level cache.
            const uint64_t ldc = K + 8;
            Doubles columns = scratch(kScratchColumns, tb ? 0 : (n1 - n0) * ldc);
            // Eight of B's rows at a time (8 x 64 float64, in the first-level cache): each column
            // then gets a whole cache line per step, not one float64 per row.
            if (!tb)
                for (uint64_t k0 = 0; k0 < K; k0 += 8) {
                    const uint64_t k1 = std::min(K, k0 + 8);
                    const double* rows = B.data() + b * K * N;
                    for (uint64_t n = n0; n < n1; ++n) {
                        double* column = columns.data() + (n - n0) * ldc;
                        for (uint64_t k = k0; k < k1; ++k) column[k] = rows[k * N + n];
                    }
                }
            for (uint64_t i = starts[size_t(t)]; i < starts[size_t(t) + 1]; ++i) {
                const uint64_t e = rest[i], n = e % N, m = e / N % M;
                const double* arow = A.data() + b * M * K + (ta ? m : m * K);
                const double* bcol = tb ? B.data() + (b * N + n) * K : columns.data() + (n - n0) * ldc;
                double sum, comp;
                compensated_dot(arow, ta ? int64_t(M) : 1, bcol, K, sum, comp);
                const double s2 = sum + comp;
                const double E2 = (row_norm.data()[b * M + m] * column_norm.data()[b * N + n]) * gamma2 +
                                  0x1p-52 * std::fabs(s2);
                if (!decide<T>(s2, E2, alpha, d.CTensor ? C.data()[e] : 0.0, r[e])) left[size_t(t)].push_back(e);
            }
        });
        for (const auto& l : left) undecided.insert(undecided.end(), l.begin(), l.end());
    }
    // Step 5b: the plain loop's exact path, on its own copies of the operands.
    if (!undecided.empty()) {
        const std::span<const std::byte> cbuf = d.CTensor ? std::span<const std::byte>(bind.at("CTensor"))
                                                          : std::span<const std::byte>();
        const GemmData gd = read_gemm(d, bind.at("ATensor"), bind.at("BTensor"), d.CTensor ? &cbuf : nullptr);
        parallel_for(int64_t(undecided.size()), [&](int64_t i) {
            const uint64_t e = undecided[size_t(i)];
            r[e] = gemm_element<T>(d, gd, e);
        });
    }
    out.finish(d.FusedActivation);  // step 6
    const uint64_t count = Batch * M * N;
    exact_count.store(undecided.size(), std::memory_order_relaxed);
    compensated_count.store(rest.size() - undecided.size(), std::memory_order_relaxed);
    decided_count.store(count - rest.size(), std::memory_order_relaxed);
    return true;
}

}  // namespace

bool gemm_f64(const GEMM& d, const Bindings& b) {
    if (d.OutputTensor.DataType == DataType::FLOAT32) return gemm_fast<float>(d, b);
    if (d.OutputTensor.DataType == DataType::FLOAT16) return gemm_fast<half>(d, b);
    return false;
}

GemmFastCounts gemm_fast_counts() { return {decided_count.load(), compensated_count.load(), exact_count.load()}; }

int set_gemm_kernel(int kernel) { return f64::set_product_kernel(kernel); }

}  // namespace dmlref::reference::fast
