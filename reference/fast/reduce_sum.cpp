// REDUCE's fast path for SUM (reference/fast/reduce_sum.hpp): FLOAT32 and FLOAT16 data, the
// same bits as the plain loop of reference/reduction.cpp (each output element the exact sum of
// its elements, rounded once), at the speed of a float64 sum.
//
// How:
//  1. The geometry: the input's dimensions (those of size 1 dropped) are outer kept ones, then
//     one block of reduced ones, then inner kept ones; the reduced block is merged into one
//     dimension of R elements (stride sr), the inner kept ones into one of I (stride si, and a
//     stride of the output). Anything else returns false, and the plain loop runs.
//  2. Partial sums over a fixed partition of the terms, the same for any thread count. With
//     I = 1, each output's run is cut into chunks of 2^16 elements. A chunk of contiguous
//     elements goes to 32 float64 lanes (element j to lane j mod 32), each lane a FastSum
//     (reference/fast_sum.hpp); the terms reach it a block of kBlock = 1024 elements at a time,
//     each lane's 32 terms of the block added plainly in float64 and their sum added to the
//     lane's FastSum as one exact term where 2a proves it exact, one by one otherwise (and the
//     last n mod 32 terms one by one). A strided chunk is summed by FastSum in 16 interleaved
//     lanes (element j to lane j mod 16), whose (s, c, b) are then added into the chunk's
//     FastSum in lane order; the 32 lanes are folded into one in five vector rounds (fold_lanes,
//     FastSum's argument for two sums at a time). With I > 1, each chunk of rows of 64Ki
//     elements or less is summed column by column (one FastSum per output element, the rows
//     added in order). Every term is a FLOAT32 or FLOAT16 value widened exactly. Each partial
//     (s, c, b) holds its exact sum within 2^-52 b of s + c.
//  2a. A lane's plain float64 sum of its n <= 32 terms of a block is exact where its terms allow
//     it, and the block proves that from two integer reductions of its bits taken in the same
//     pass. A finite FLOAT32 value whose biased exponent field is E (its bits, sign cleared,
//     shifted right by 23) is a multiple of 2^(max(E, 1) - 150) and below 2^(E - 126) in
//     magnitude. Let Emax and Emin be the largest and smallest fields of a set of nonzero terms
//     holding the lane's: every term of the lane, and so every partial sum of any subset, is a
//     multiple of g = 2^(max(Emin, 1) - 150), and every partial sum is below n 2^(Emax - 126) in
//     magnitude. Where n 2^(Emax - 126) <= 2^53 g, that is Emax - max(Emin, 1) <= 29 - log2(n)
//     (24 for n = 32), every partial sum is an integer multiple of g below 2^53 g: a float64
//     (g >= 2^-149 is far above float64's subnormals), so every addition is exact, in whatever
//     order, and the lane's float64 sum is its exact sum (a cancelling lane gives +0, as FastSum
//     from +0 does). The set is a tracker's: 16 lanes of unsigned integer max and min of the
//     bits (sign cleared; the min over bits - 1, so that zeros wrap to the top and drop out),
//     tracker l covering float64 lanes l and l + 16, give Emax and Emin (a tracker of zeros
//     only has Emax 0 and passes); a max at 0x7f800000 or above is an infinity or a NaN. The
//     block is proved, every lane's sum taken, where no tracker holds an infinity or NaN and
//     every tracker's range is at most 24 (the largest over the trackers, two vector max
//     reductions and one branch per block); otherwise its terms go one by one into the lanes'
//     FastSums. FLOAT16 needs no range: every finite FLOAT16 is a multiple of 2^-24 below 2^16,
//     so a sum of n <= 2^13 of them (n 2^16 <= 2^53 2^-24) is exact in float64 whatever the
//     exponents; such a block is proved where no term is an infinity or NaN. Why lanes: the
//     32 independent additions per 32 terms keep four (AVX-512) or eight (AVX2) vector
//     accumulators busy, no block needs a horizontal sum, and one block of 1024 terms costs one
//     vector FastSum step per lane; the loop also prefetches 2 KiB ahead.
//  3. Each output element's partial sums s and c added, in the partition's order, into one more
//     FastSum (s', c', b'): its exact sum is within 2^-52 b' of s' + c', so the element's exact
//     sum is within 2^-52 (b' + sum b) of s' + c' (the bounds add; the 2^-51 of narrow_rounded
//     covers the rounding of that sum of bounds). narrow_rounded (reference/fast_sum.hpp) then
//     proves T's rounding of the exact sum or leaves it undecided: a sum on or near a rounding
//     boundary, an exact zero reached with rounding on the way, a NaN or infinity among the
//     terms (b not finite), an overflow.
//  4. An undecided element takes the plain loop's own sum (reduce_sum_element, the exact
//     rational sum rounded once), so its bits are the plain loop's by construction; a decided
//     one is the correct rounding of the exact sum, which is what the plain loop computes. The
//     bits depend neither on the thread count nor on the partition.
// Memory: three float64 per lane or column per chunk, and the list of the reduced elements'
// offsets when an output element reaches step 4.
#include "reduce_sum.hpp"

#include "half_rows.hpp"
#include "parallel.hpp"

#include "../fast_sum.hpp"
#include "../reduction_internal.hpp"

#include "dmlref/numeric.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace dmlref::reference::fast {

namespace {

using RD = DML_REDUCE_OPERATOR_DESC;

std::atomic<uint64_t> decided_count{0}, exact_count{0}, certified_count{0}, uncertified_count{0};

constexpr uint64_t kRun = uint64_t(1) << 16;  // elements per chunk of a run (I = 1)
constexpr int kLanes = 16;
constexpr uint64_t kColumns = 512;  // outputs per task when I > 1

// Step 2 for a chunk of a run: n terms x[j * step] into 16 lanes.
template <class T> inline void lanes(const T* __restrict x, int64_t step, uint64_t n, double* __restrict out) {
    double s[kLanes] = {}, c[kLanes] = {}, b[kLanes] = {};
    uint64_t j = 0;
    if (step == 1) {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) FastSum::add(s[l], c[l], b[l], widen_fast(x[j + uint64_t(l)]));
    } else {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l)
                FastSum::add(s[l], c[l], b[l], widen_fast(x[int64_t(j) * step + l * step]));
    }
    for (int l = 0; j < n; ++j, ++l) FastSum::add(s[l], c[l], b[l], widen_fast(x[int64_t(j) * step]));
    for (int l = 0; l < kLanes; ++l) {
        out[3 * l] = s[l];
        out[3 * l + 1] = c[l];
        out[3 * l + 2] = b[l];
    }
}

// Step 2a, for a chunk of n contiguous terms: 32 float64 lanes (term j to lane j mod 32), in
// blocks of kBlock terms; each block's lanes are plain float64 sums (32 independent additions
// per 32 terms, four or eight vector registers), proved exact lane by lane from the exponent
// fields and then added, one per lane, into the lanes' FastSums s, c and b. The exponent
// fields are tracked in 16 lanes of unsigned integers (lanes l and l + 16 share tracker l):
// the max of the bits (sign cleared) and the min of those bits minus 1 (zeros wrap to the top
// and drop out).
constexpr int kWide = 32;
constexpr int kTrack = 16;
constexpr uint64_t kBlock = 1024;  // so at most kBlock / kWide = 32 = 2^5 terms per lane and block
constexpr int32_t kRange = 29 - 5;
constexpr uint64_t kPrefetch = 2048;  // bytes ahead of the block loop's loads

// One block of n terms (n a multiple of kWide, at most kBlock): true, with each lane's exact sum
// added into its FastSum, where the proof holds; false, nothing added, where it does not.
template <bool half_terms>
inline bool block_lanes(const float* __restrict x, uint64_t n, double* __restrict s, double* __restrict c,
                        double* __restrict b) {
    double acc[kWide] = {};
    uint32_t top[kTrack] = {}, low[kTrack];
    for (int l = 0; l < kTrack; ++l) low[l] = 0xffffffffu;
    for (uint64_t j = 0; j < n; j += kWide) {
        if constexpr (!half_terms) {  // the next lines, well ahead (a prefetch never faults)
            const auto ahead = reinterpret_cast<std::uintptr_t>(x + j) + kPrefetch;
            __builtin_prefetch(reinterpret_cast<const void*>(ahead));
            __builtin_prefetch(reinterpret_cast<const void*>(ahead + 64));
        }
        for (int l = 0; l < kTrack; ++l) {
            const uint32_t u = std::bit_cast<uint32_t>(x[j + uint64_t(l)]) & 0x7fffffffu;
            const uint32_t v = std::bit_cast<uint32_t>(x[j + uint64_t(kTrack + l)]) & 0x7fffffffu;
            top[l] = std::max(top[l], std::max(u, v));
            low[l] = std::min(low[l], std::min(u - 1u, v - 1u));
        }
        for (int l = 0; l < kWide; ++l) acc[l] += double(x[j + uint64_t(l)]);
    }
    // The proof, for all trackers at once (max reductions, branch-free until the one test).
    uint32_t any_top = 0;
    int32_t range = -256;
    for (int l = 0; l < kTrack; ++l) {
        any_top = std::max(any_top, top[l]);
        // Emax - max(Emin, 1); a tracker of zeros only gives 0 - 1
        range = std::max(range, int32_t(top[l] >> 23) - int32_t(std::max(low[l] + 1u, 0x00800000u) >> 23));
    }
    if (any_top >= 0x7f800000u || (!half_terms && range > kRange)) return false;
    for (int l = 0; l < kWide; ++l) FastSum::add(s[l], c[l], b[l], acc[l]);
    return true;
}

// Adds terms x[0..n) one by one into the lanes' FastSums (term j to lane j mod kWide).
inline void add_terms(const float* __restrict x, uint64_t n, double* __restrict s, double* __restrict c,
                      double* __restrict b) {
    uint64_t j = 0;
    for (; j + kWide <= n; j += kWide)
        for (int l = 0; l < kWide; ++l) FastSum::add(s[l], c[l], b[l], double(x[j + uint64_t(l)]));
    for (int l = 0; j < n; ++j, ++l) FastSum::add(s[l], c[l], b[l], double(x[j]));
}

// Folds the lanes into lane 0, halving their number each round (lane l takes lane l + w): the
// two sums' s added by TwoSum with its error into c (FastSum's step), then the other c added, and
// b the sum of both b and the magnitudes of the two rounded c (each of those additions rounds by
// at most 2^-53 of its result). So lane 0's exact sum, all lanes' terms, is within 2^-52 b of
// s + c, as FastSum's argument has it (reference/fast_sum.hpp); vectorised, five rounds.
inline void fold_lanes(double* __restrict s, double* __restrict c, double* __restrict b) {
    for (int w = kWide / 2; w >= 1; w /= 2)
        for (int l = 0; l < w; ++l) {
            FastSum::add(s[l], c[l], b[l], s[l + w]);
            c[l] += c[l + w];
            b[l] += std::fabs(c[l]) + b[l + w];
        }
}

struct BlockCounts {
    uint64_t proved = 0, not_proved = 0;
};

// A chunk of n contiguous terms into the lanes' FastSums (from +0): blocks where proved, the
// others and the last n mod kWide terms one by one.
inline void run_lanes(const float* __restrict x, uint64_t n, double* s, double* c, double* b, BlockCounts& counts) {
    const uint64_t whole = n / kWide * kWide;
    for (uint64_t j = 0; j < whole; j += kBlock) {
        const uint64_t m = std::min(kBlock, whole - j);
        if (block_lanes<false>(x + j, m, s, c, b)) {
            ++counts.proved;
        } else {
            add_terms(x + j, m, s, c, b);
            ++counts.not_proved;
        }
    }
    add_terms(x + whole, n - whole, s, c, b);
    fold_lanes(s, c, b);
}

// The same for FLOAT16 terms, widened (exactly) to FLOAT32 a block at a time: every finite
// FLOAT16 is a multiple of 2^-24 below 2^16, so any float64 sum of at most 2^13 of them is exact,
// whatever the exponents; a block is proved where no term is an infinity or NaN.
inline void run_lanes(const half* __restrict x, uint64_t n, double* s, double* c, double* b, BlockCounts& counts) {
    float wide[kBlock];
    for (uint64_t j = 0; j < n; j += kBlock) {
        const uint64_t m = std::min(kBlock, n - j), whole = m / kWide * kWide;
        widen_halves(wide, x + j, m);  // exact
        if (whole && block_lanes<true>(wide, whole, s, c, b)) ++counts.proved;
        else if (whole) {
            add_terms(wide, whole, s, c, b);
            ++counts.not_proved;
        }
        add_terms(wide + whole, m - whole, s, c, b);  // only in the last block
    }
    fold_lanes(s, c, b);
}

// Step 2 for a block of columns: rows r0..r1 of n columns (rows sr apart, columns si apart)
// into s, c, b (one FastSum per column, from +0).
template <class T>
inline void columns(const T* __restrict x, int64_t sr, int64_t si, uint64_t rows, uint64_t n, double* __restrict s,
                    double* __restrict c, double* __restrict b) {
    for (uint64_t i = 0; i < n; ++i) s[i] = c[i] = b[i] = 0;
    for (uint64_t r = 0; r < rows; ++r) {
        const T* row = x + int64_t(r) * sr;
        if (si == 1)
            for (uint64_t i = 0; i < n; ++i) FastSum::add(s[i], c[i], b[i], widen_fast(row[i]));
        else
            for (uint64_t i = 0; i < n; ++i) FastSum::add(s[i], c[i], b[i], widen_fast(row[int64_t(i) * si]));
    }
}

// The vectorised loops, cloned for AVX-512 and AVX2 where the CPU has them: the same IEEE
// operations, unfused.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_REDUCE_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#else
#define DMLREF_REDUCE_CLONES
#endif
DMLREF_REDUCE_CLONES void lanes_float(const float* x, int64_t step, uint64_t n, double* out) { lanes(x, step, n, out); }
DMLREF_REDUCE_CLONES void lanes_half(const half* x, int64_t step, uint64_t n, double* out) { lanes(x, step, n, out); }
DMLREF_REDUCE_CLONES void lanes_run_float(const float* x, uint64_t n, double* s, double* c, double* b,
                                          BlockCounts& counts) {
    run_lanes(x, n, s, c, b, counts);
}
DMLREF_REDUCE_CLONES void lanes_run_half(const half* x, uint64_t n, double* s, double* c, double* b,
                                         BlockCounts& counts) {
    run_lanes(x, n, s, c, b, counts);
}
DMLREF_REDUCE_CLONES void columns_float(const float* x, int64_t sr, int64_t si, uint64_t rows, uint64_t n, double* s,
                                        double* c, double* b) {
    columns(x, sr, si, rows, n, s, c, b);
}
DMLREF_REDUCE_CLONES void columns_half(const half* x, int64_t sr, int64_t si, uint64_t rows, uint64_t n, double* s,
                                       double* c, double* b) {
    columns(x, sr, si, rows, n, s, c, b);
}

// Step 2 for a chunk of n <= kRun terms x[j * step] of one run: its partial (s, c, b) in out.
template <class T> void chunk_sum(const T* x, int64_t step, uint64_t n, double* out) {
    FastSum f;
    double bounds = 0;
    const auto add_lanes = [&](const T* p, int64_t st, uint64_t m) {
        double part[3 * kLanes];
        if constexpr (std::is_same_v<T, float>) lanes_float(p, st, m, part);
        else lanes_half(p, st, m, part);
        for (int l = 0; l < kLanes; ++l) {
            f.add(part[3 * l]);
            f.add(part[3 * l + 1]);
            bounds += part[3 * l + 2];
        }
    };
    if (step != 1) {
        add_lanes(x, step, n);
    } else {
        double s[kWide] = {}, c[kWide] = {}, b[kWide] = {};
        BlockCounts counts;
        if constexpr (std::is_same_v<T, float>) lanes_run_float(x, n, s, c, b, counts);
        else lanes_run_half(x, n, s, c, b, counts);
        f.s = s[0];  // the lanes, folded into lane 0
        f.c = c[0];
        bounds = b[0];
        certified_count.fetch_add(counts.proved, std::memory_order_relaxed);
        uncertified_count.fetch_add(counts.not_proved, std::memory_order_relaxed);
    }
    out[0] = f.s;
    out[1] = f.c;
    out[2] = f.b + bounds;
}

struct Dim {
    uint64_t size;
    int64_t in, out;  // strides
};

// Merges neighbouring dimensions into one (false when their strides, the input's and, with
// `output`, the output's, do not allow it).
bool merge(const std::vector<Dim>& dims, bool output, Dim& one) {
    one = {1, 0, 0};
    for (const Dim& d : dims) {
        if (one.size > 1 && (one.in != d.in * int64_t(d.size) || (output && one.out != d.out * int64_t(d.size))))
            return false;
        one = {one.size * d.size, d.in, d.out};
    }
    return true;
}

template <class T> bool sum_fast(const RD& d, const Bindings& bind) {
    const TensorView X(d.InputTensor, bind.at("InputTensor"));
    const TensorView Y(d.OutputTensor, bind.at("OutputTensor"));
    uint32_t mask = 0;
    for (uint32_t a : d.Axes) mask |= 1u << a;
    // Step 1.
    std::vector<Dim> outer, reduced, inner;
    std::vector<uint32_t> reduced_axes;
    for (uint32_t i = 0; i < d.InputTensor.Sizes.size(); ++i) {
        const uint64_t size = d.InputTensor.Sizes[i];
        if ((mask >> i) & 1) reduced_axes.push_back(i);
        if (size == 1) continue;
        const Dim dim{size, X.strides[i], Y.strides[i]};
        if ((mask >> i) & 1) {
            if (!inner.empty()) return false;  // kept axes between reduced ones
            reduced.push_back(dim);
        } else (reduced.empty() ? outer : inner).push_back(dim);
    }
    Dim R, I;
    if (reduced.empty() || !merge(reduced, false, R) || !merge(inner, true, I)) return false;
    // The outer elements' offsets, row-major.
    uint64_t O = 1;
    for (const Dim& o : outer) O *= o.size;
    std::vector<int64_t> in_base(O), out_base(O);
    {
        std::vector<uint64_t> at(outer.size(), 0);
        for (uint64_t o = 0; o < O; ++o) {
            int64_t a = 0, w = 0;
            for (size_t k = 0; k < outer.size(); ++k) {
                a += int64_t(at[k]) * outer[k].in;
                w += int64_t(at[k]) * outer[k].out;
            }
            in_base[o] = a;
            out_base[o] = w;
            for (size_t k = outer.size(); k-- > 0;) {
                if (++at[k] < outer[k].size) break;
                at[k] = 0;
            }
        }
    }
    const T* x = X.data<T>();
    certified_count.store(0, std::memory_order_relaxed);
    uncertified_count.store(0, std::memory_order_relaxed);
    const uint64_t outputs = O * I.size;
    // Step 2: partials[(element * chunks + chunk) * width + lane] as (s, c, b).
    std::vector<double> partial;
    uint64_t chunks, width;
    if (I.size == 1) {
        chunks = (R.size + kRun - 1) / kRun;
        width = 1;
        partial.resize(O * chunks * width * 3);
        parallel_for(int64_t(O * chunks), [&](int64_t t) {
            const uint64_t o = uint64_t(t) / chunks, ch = uint64_t(t) % chunks;
            const uint64_t j0 = ch * kRun, n = std::min(R.size, j0 + kRun) - j0;
            chunk_sum(x + in_base[o] + int64_t(j0) * R.in, R.in, n, partial.data() + uint64_t(t) * 3);
        });
    } else {
        const uint64_t rows = std::max<uint64_t>(1, kRun / std::min(I.size, kColumns));
        chunks = (R.size + rows - 1) / rows;
        width = 1;
        const uint64_t blocks = (I.size + kColumns - 1) / kColumns;
        partial.resize(outputs * chunks * 3);
        // Laid out [chunk][3][output] while summing, for contiguous columns.
        parallel_for(int64_t(O * blocks * chunks), [&](int64_t t) {
            const uint64_t ch = uint64_t(t) % chunks, blk = uint64_t(t) / chunks % blocks,
                           o = uint64_t(t) / chunks / blocks;
            const uint64_t i0 = blk * kColumns, n = std::min(I.size, i0 + kColumns) - i0;
            const uint64_t r0 = ch * rows, h = std::min(R.size, r0 + rows) - r0;
            const T* p = x + in_base[o] + int64_t(r0) * R.in + int64_t(i0) * I.in;
            double* s = partial.data() + ch * 3 * outputs + o * I.size + i0;
            if constexpr (std::is_same_v<T, float>) columns_float(p, R.in, I.in, h, n, s, s + outputs, s + 2 * outputs);
            else columns_half(p, R.in, I.in, h, n, s, s + outputs, s + 2 * outputs);
        });
    }
    // Step 3, for each output element in row-major order (outer, inner).
    std::vector<T> y(outputs);
    std::vector<unsigned char> undecided(outputs, 0);
    parallel_for(int64_t((outputs + 1023) / 1024), [&](int64_t t) {
        for (uint64_t e = uint64_t(t) * 1024; e < std::min(outputs, uint64_t(t) * 1024 + 1024); ++e) {
            FastSum f;
            double bounds = 0;
            for (uint64_t ch = 0; ch < chunks; ++ch)
                for (uint64_t l = 0; l < width; ++l) {
                    const double* p = I.size == 1 ? partial.data() + ((e * chunks + ch) * width + l) * 3 : nullptr;
                    const double s = p ? p[0] : partial[ch * 3 * outputs + e];
                    const double c = p ? p[1] : partial[ch * 3 * outputs + outputs + e];
                    const double b = p ? p[2] : partial[ch * 3 * outputs + 2 * outputs + e];
                    f.add(s);
                    f.add(c);
                    bounds += b;
                }
            undecided[e] = !narrow_rounded<T>(f.s, f.c, f.b + bounds, y[e]);
        }
    });
    // Step 4.
    const uint64_t exact = uint64_t(std::count(undecided.begin(), undecided.end(), 1));
    if (exact) {
        std::vector<int64_t> offsets;  // the reduced elements, row-major over the reduced axes
        std::vector<uint32_t> at(reduced_axes.size(), 0);
        for (uint64_t j = 0; j < R.size; ++j) {
            int64_t off = 0;
            for (size_t k = 0; k < reduced_axes.size(); ++k) off += int64_t(at[k]) * X.strides[reduced_axes[k]];
            offsets.push_back(off);
            for (size_t k = reduced_axes.size(); k-- > 0;) {
                if (++at[k] < d.InputTensor.Sizes[reduced_axes[k]]) break;
                at[k] = 0;
            }
        }
        parallel_for(int64_t(outputs), [&](int64_t e) {
            if (!undecided[size_t(e)]) return;
            const uint64_t o = uint64_t(e) / I.size, i = uint64_t(e) % I.size;
            y[size_t(e)] = reduce_sum_element<T>(x, in_base[o] + int64_t(i) * I.in, offsets);
        });
    }
    T* out = Y.data<T>();
    for (uint64_t e = 0; e < outputs; ++e) out[out_base[e / I.size] + int64_t(e % I.size) * I.out] = y[e];
    decided_count.store(outputs - exact, std::memory_order_relaxed);
    exact_count.store(exact, std::memory_order_relaxed);
    return true;
}

}  // namespace

bool reduce_sum(const RD& d, const Bindings& b) {
    if (d.Function != DML_REDUCE_FUNCTION_SUM || d.InputTensor.DataType != d.OutputTensor.DataType) return false;
    if (d.InputTensor.DataType == DataType::FLOAT32) return sum_fast<float>(d, b);
    if (d.InputTensor.DataType == DataType::FLOAT16) return sum_fast<half>(d, b);
    return false;
}

ReduceSumCounts reduce_sum_counts() {
    return {decided_count.load(), exact_count.load(), certified_count.load(), uncertified_count.load()};
}

}  // namespace dmlref::reference::fast
